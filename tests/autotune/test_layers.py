"""The controller's packages are floors: a module imports only from its own floor or those below.

    cli, api      the commands and the notebook API
    scaffold      `autotune init`: a space written from the user's verl job
    sweep         what `autotune run` drives: backend -> confirmation -> report
    report        the HTML report and `explain`
    export        the winner as a verl config
    backends      Optuna and Ray Tune sweeps
    sim           the cost model (a trial fidelity) and its calibration
    study         storage, tables, progress, confirmation
    trial         run one configuration, score it, record it
    space         the search space
    adapters      the trainers a trial launches (built-in, verl)
    names         study-name rules
    extras        the optional parts (extras, Chromium) and how to install a missing one

Imports are read from the source (also those inside functions), so a lazy import cannot hide a cycle.
"""

from __future__ import annotations

import ast
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
    "backends",
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
