"""A missing optional part (an extra, Chromium, a PostgreSQL server) ends a command in one line that
says what to install, with exit code 2 and no traceback.

Each part is hidden from a real `python -m autotune.cli` process: Python modules by a
`sitecustomize` that sets `sys.modules[name] = None` (an import then fails as if the package were
absent), Chromium by a PATH without it, the PostgreSQL server by a port nobody listens on.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from autotune.extras import MissingPart, missing_module_message, require, require_program
from tests.conftest import ROOT

VERL = "pip install 'autotune[verl]'"


def run_cli(
    tmp_path: Path, *args: str, hide: tuple[str, ...] = (), path: str | None = None
) -> subprocess.CompletedProcess:
    """`python -m autotune.cli ARGS` from an empty folder, with these modules made unimportable."""
    site = tmp_path / "site"
    site.mkdir(exist_ok=True)
    (site / "sitecustomize.py").write_text(f"import sys\nfor name in {list(hide)!r}:\n    sys.modules[name] = None\n")
    cwd = tmp_path / "empty"
    cwd.mkdir(exist_ok=True)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(site), str(ROOT)])}
    if path is not None:
        env["PATH"] = path
    return subprocess.run(
        [sys.executable, "-m", "autotune.cli", *args], cwd=cwd, env=env, capture_output=True, text=True, timeout=120
    )


CASES = {
    "verl-sim-run": (("run", "--space", "verl-vllm-8gpu", "--fidelity", "sim", "--trials", "2"), ("verl", "omegaconf", "hydra"), VERL),
    "verl-validate": (("validate", "--space", "verl-cpu"), ("omegaconf",), VERL),
    "verl-export-check": (("export", "somestudy", "--check"), ("verl", "omegaconf", "hydra"), VERL),
    "psycopg": (("trials", "x", "--storage", "postgresql://u@127.0.0.1:1/x"), ("psycopg", "psycopg2"), "pip install 'autotune[postgres]'"),
    "ray": (("run", "--space", "fsdp3d", "--backend", "ray", "--trials", "1"), ("ray",), "pip install 'ray[tune]"),
    "wandb": (("run", "--space", "fsdp3d", "--trials", "1", "--wandb", "proj"), ("wandb",), "pip install 'wandb"),
}  # fmt: skip


@pytest.mark.parametrize("case", list(CASES))
def test_a_hidden_extra_is_one_line_naming_what_to_install(tmp_path: Path, case: str) -> None:
    args, hide, fix = CASES[case]
    out = run_cli(tmp_path, *args, hide=hide)
    lines = out.stderr.strip().splitlines()
    assert out.returncode == 2, out.stderr
    assert "Traceback" not in out.stderr + out.stdout
    assert len(lines) == 1, out.stderr
    assert fix in lines[0]
    if case != "psycopg":  # checked before use (the entry point's net for a stray import says less)
        assert " needs " in lines[0]
    assert not (tmp_path / "empty" / "runs").exists()  # checked before anything was made


def test_report_check_without_chromium_says_apt_get(tmp_path: Path) -> None:
    empty_path = tmp_path / "bin"
    empty_path.mkdir()
    out = run_cli(tmp_path, "report", "somestudy", "--check", path=str(empty_path))
    assert out.returncode == 2
    assert out.stderr.strip().splitlines() == [
        "`autotune report --check` needs chromium, not found on PATH: apt-get install chromium (the Debian package)"
    ]


def test_no_postgresql_server_names_the_debian_package(tmp_path: Path) -> None:
    out = run_cli(tmp_path, "trials", "x", "--storage", "postgresql://u@127.0.0.1:1/x")
    assert out.returncode == 2
    [line] = out.stderr.strip().splitlines()
    assert "cannot connect" in line and "apt-get install postgresql" in line


def test_require_names_the_missing_modules_and_the_fix() -> None:
    with pytest.raises(MissingPart, match=r"^--x needs ray, not installed here: pip install 'ray\[tune\]>=2.40'$"):
        saved = sys.modules.get("ray")
        sys.modules["ray"] = None  # type: ignore[assignment]
        try:
            require("ray", "--x")
        finally:
            if saved is None:
                del sys.modules["ray"]
            else:
                sys.modules["ray"] = saved
    require("postgres", "--storage")  # installed here: no error
    with pytest.raises(MissingPart, match=r"--y needs no-such-browser, not found on PATH: apt-get install it"):
        require_program(("no-such-browser",), "--y", "apt-get install it")


def test_a_deep_import_of_an_optional_part_maps_to_its_fix() -> None:
    assert missing_module_message(ModuleNotFoundError("x", name="omegaconf.errors")) == (
        f"`omegaconf` is not installed here: {VERL}"
    )
    assert missing_module_message(ModuleNotFoundError("x", name="optuna")) is None  # a dependency: a real bug
