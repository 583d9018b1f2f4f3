"""The controller's packages are floors: a module imports only from its own floor or those below.

    cli, api      the commands and the notebook API
    scaffold      `autotune init`: a space written from the user's verl job
    sweep         every phase that launches trials: backends (Optuna, Ray Tune), confirmation, explain
    report        the HTML report (reads what the sweep wrote)
    export        the winner as a verl config (reads what the sweep wrote)
    sim           the cost model (a trial fidelity) and its calibration
    study         storage, tables, progress
    trial         run one configuration, score it, record it
    space         the search space
    adapters      the trainers a trial launches (built-in, verl)
    names         study-name rules
    extras        the optional parts (extras, Chromium) and how to install a missing one

Imports are read from the source (also those inside functions), so a lazy import cannot hide a cycle.

Beyond the floors: `report` and `export` only read what the sweep wrote (they import nothing that
launches a trial, not even at run time); one module knows the keys and names of each file the sweep's
phases conclude in (`study/confirmation_result.py`, `ablation_result.py`, `ratios.py`, `results.py`, `predicted_winner.py`); no module name means two things; how a trial is measured
is a fidelity object, never a `simulated` flag on a trainer adapter.
"""

from __future__ import annotations

import ast
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[2] / "autotune"
FLOORS = [
    "extras",
    "names",
    "adapters",
    "space",
    "trial",
    "study",
    "sim",
    "export",
    "report",
    "sweep",
    "scaffold",
    "cli",
    "api",
]
FLOOR = {name: i for i, name in enumerate(FLOORS)}
FLOOR["api"] = FLOOR["cli"]


def floor_of(module: str) -> int | None:
    parts = module.split(".")
    if parts[0] != "autotune" or len(parts) < 2:
        return None
    return FLOOR.get(parts[1])


def imports_of(path: Path) -> list[tuple[int, str]]:
    tree = ast.parse(path.read_text())
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names = [node.module] if node.module != "autotune" else [f"autotune.{a.name}" for a in node.names]
            found += [(node.lineno, name) for name in names]
        elif isinstance(node, ast.Import):
            found += [(node.lineno, a.name) for a in node.names]
    return found


def module_name(path: Path) -> str:
    rel = path.relative_to(PACKAGE.parent).with_suffix("")
    return ".".join(rel.parts[:-1] if rel.name == "__init__" else rel.parts)


MODULES = sorted(p for p in PACKAGE.rglob("*.py") if module_name(p) != "autotune")


def test_every_package_has_a_floor() -> None:
    unplaced = sorted({module_name(p) for p in MODULES if floor_of(module_name(p)) is None})
    assert not unplaced, f"add these to FLOORS: {unplaced}"


@pytest.mark.parametrize("path", MODULES, ids=lambda p: module_name(p))
def test_imports_point_down(path: Path) -> None:
    own = floor_of(module_name(path))
    assert own is not None
    upward = [
        f"{path.relative_to(PACKAGE.parent)}:{line} imports {name} ({FLOORS[floor]} is above {FLOORS[own]})"
        for line, name in imports_of(path)
        if (floor := floor_of(name)) is not None and floor > own
    ]
    assert not upward, "\n".join(upward)


def test_the_check_sees_an_upward_import(tmp_path: Path) -> None:
    bad = tmp_path / "bad.py"
    bad.write_text("def f():\n    from autotune.report.data import summary\n")
    assert imports_of(bad) == [(2, "autotune.report.data")]
    assert floor_of("autotune.report.data") > floor_of("autotune.trial.runner")  # type: ignore[operator]


READERS = ("report", "export")
"""Packages named for reading: they take what the sweep wrote and never run a trial."""
LAUNCHING = ("autotune.sweep", "autotune.trial.evaluation", "autotune.trial.runner", "autotune.trial.fidelity")
"""Modules that launch (or measure) trials: every phase that does lives in `sweep/`, over these."""
RESULTS = (
    "autotune.study.results",
    "autotune.study.confirmation_result",
    "autotune.study.ablation_result",
    "autotune.study.ratios",
)
"""The modules of the conclusions the sweep's phases write, one owner together."""
RESULT_NAMES = (
    "confirmation.json", "explain.json", "ablation.json", "speedup_mean", "speedup_geomean", "speedup_min", "speedup_max",
    "speedup_std", "feasible_on_mean", "limits_mean", "violations_mean", "feasible_rounds", "product_min",
    "product_max", "end_to_end", "same_as_baseline", "winner_params",
)  # fmt: skip
"""File names and keys only the results' owner may spell (attributes of its types are read elsewhere)."""
OWNERS = {RESULTS: RESULT_NAMES, ("autotune.study.predicted_winner",): ("predicted.json",)}
"""Each conclusion file's one owner (`quality.json` is also each quality run's own file, so not listed)."""


def launching(name: str) -> bool:
    return any(name == m or name.startswith(m + ".") for m in LAUNCHING)


@pytest.mark.parametrize("path", [p for p in MODULES if module_name(p).split(".")[1] in READERS], ids=module_name)
def test_report_and_export_import_nothing_that_launches_trials(path: Path) -> None:
    found = [f"{module_name(path)}:{line} imports {name}" for line, name in imports_of(path) if launching(name)]
    found += [
        f"{module_name(path)}:{node.lineno} uses {node.id if isinstance(node, ast.Name) else node.attr}"
        for node in ast.walk(ast.parse(path.read_text()))
        if (isinstance(node, ast.Name) and node.id == "measure_interleaved")
        or (isinstance(node, ast.Attribute) and node.attr == "measure_interleaved")
    ]
    assert not found, "\n".join(found)


def test_reading_a_study_loads_no_module_that_launches_trials() -> None:
    """Also at run time: a package's `__init__` must not pull in what launches trials for a reader."""
    code = (
        "import sys, autotune.report, autotune.export, autotune.api\n"
        f"print(sorted(m for m in sys.modules if any(m == x or m.startswith(x + '.') for x in {LAUNCHING!r})))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=PACKAGE.parent)
    assert out.stdout.strip() == "[]"


@pytest.mark.parametrize("owner", OWNERS)
def test_only_the_owner_spells_its_result_files_and_keys(owner: tuple[str, ...]) -> None:
    found = [
        f"{module_name(p)}:{node.lineno} {node.value!r}"
        for p in MODULES
        if module_name(p) not in owner
        for node in ast.walk(ast.parse(p.read_text()))
        if isinstance(node, ast.Constant) and node.value in OWNERS[owner]
    ]
    assert not found, f"read them through {owner}:\n" + "\n".join(found)


def test_no_two_modules_share_a_name() -> None:
    names = Counter(p.name for p in MODULES if p.name not in ("__init__.py", "base.py"))
    assert [name for name, n in names.items() if n > 1] == []


def test_no_simulated_flag_on_adapters() -> None:
    """A cost model's prediction is a fidelity (autotune/trial/fidelity.py), not a kind of trainer."""
    found = [
        f"{module_name(p)}:{node.lineno}"
        for p in MODULES
        for node in ast.walk(ast.parse(p.read_text()))
        if (isinstance(node, ast.Attribute) and node.attr in ("simulated", "simulate") and "adapter" in ast.unparse(node.value))
        or (isinstance(node, (ast.AnnAssign, ast.Assign)) and module_name(p).startswith("autotune.adapters")
            and "simulated" in ast.unparse(node))
    ]  # fmt: skip
    assert not found


def test_the_checks_see_a_reader_that_launches_and_a_key_read_elsewhere(tmp_path: Path) -> None:
    bad = tmp_path / "bad.py"
    bad.write_text(
        "from autotune.sweep.confirmation import measure_interleaved\n"
        "def f(row):\n    return row['speedup_min'], adapter.simulated\n"
    )
    assert [name for _, name in imports_of(bad) if launching(name)] == ["autotune.sweep.confirmation"]
    keys = [n.value for n in ast.walk(ast.parse(bad.read_text())) if isinstance(n, ast.Constant)]
    assert "speedup_min" in RESULT_NAMES and "speedup_min" in keys
