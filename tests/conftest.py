"""Shared fixtures: real trainer processes (python -m trainer / torchrun) and their metrics."""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


@dataclass
class TrainerRun:
    returncode: int
    stdout: str
    stderr: str
    metrics: list[dict]

    def series(self, key: str) -> list[float]:
        return [m[key] for m in self.metrics]


def trainer_env(extra: dict[str, str] | None = None, warm: bool = True) -> dict[str, str]:
    """The environment of a test's subprocesses: one thread per rank and, unless `warm=False`, this
    pytest worker's warm parent (AUTOTUNE_WARM_SOCKET), so an `autotune run` a test starts launches
    its trials from it instead of importing torch in a zygote of its own (seconds of CPU per sweep).
    A test of the controller's own warm parent passes `warm=False`."""
    env = {**os.environ, "OMP_NUM_THREADS": "1", "PYTHONUNBUFFERED": "1"}
    if warm:
        from autotune.adapters import warm as warm_parent

        socket = warm_parent.socket_path() if warm_parent.enabled() else None
        if socket is not None:
            env[warm_parent.SHARED] = str(socket)
    env.update(extra or {})
    return env


def run_trainer(tmp_path: Path, *overrides: str, world: int = 1, timeout: float = 240, warm: bool = True) -> TrainerRun:
    """Run the real trainer and read its metrics.jsonl back: its ranks forked from this test
    process's warm parent (`trainer.zygote`, started on first use, as a sweep's trials start), or
    with `warm=False` as a user starts it by hand (`python -m trainer`, torchrun for world > 1)."""
    from autotune.adapters import warm as warm_parent
    from trainer.spawn import cold_argv

    metrics_file = tmp_path / f"metrics-{len(list(tmp_path.glob('metrics-*')))}.jsonl"
    args = [f"trainer.metrics_file={metrics_file}", *overrides]
    cmd = warm_parent.launch_argv(world, args) if warm else cold_argv(world, ["-m", "trainer"], args)
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, env=trainer_env(), cwd=ROOT)
    rows = (
        [json.loads(line)["metrics"] for line in metrics_file.read_text().splitlines()] if metrics_file.exists() else []
    )
    return TrainerRun(proc.returncode, proc.stdout, proc.stderr, rows)


@pytest.fixture(scope="session")
def dist_world1():
    """An in-process world-1 process group (gloo) for tests that build FSDP2 roles directly."""
    from trainer import distributed

    env = distributed.init()
    yield env
    distributed.shutdown()


SHARED_STUDY_MODULES = ("test_sweep", "test_report", "test_notebook", "test_sim")
"""Modules that share the session-scoped `small_study`: run them on one xdist worker, so it is built once."""


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(config, items):
    """Group tests for `pytest -n 2 --dist loadgroup`: the modules sharing the small study in one
    group, a module whose tests share a module-scoped fixture of ours in one group per module (it is
    built once), and every other test in a group of its own, so the two workers balance test by test.

    xdist turns the marks into a `@group` suffix of each test's id in its own hook of the same name,
    so this one must run first (`tryfirst`); pytest 9.2 ignores that suffix (pytest-xdist issue
    1386), which is why pyproject keeps pytest below 9.2 and `pytest_xdist_node_collection_finished`
    refuses to run ungrouped."""
    for item in items:
        if item.get_closest_marker("xdist_group") is None:
            item.add_marker(pytest.mark.xdist_group(_group(item)))


def _group(item: pytest.Item) -> str:
    module = item.module.__name__  # type: ignore[attr-defined]
    if module.rsplit(".", 1)[-1] in SHARED_STUDY_MODULES:
        return "small_study"
    fixtures = getattr(item, "_fixtureinfo", None)
    for defs in fixtures.name2fixturedefs.values() if fixtures else ():
        ours = defs[-1].baseid.startswith("tests")  # not pytest's own session fixtures (tmp_path_factory)
        if ours and defs[-1].scope == "module":
            return module
    return "solo-" + hashlib.sha1(item.nodeid.encode()).hexdigest()[:12]  # xdist splits ids at `@` and `]`


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_node_collection_finished(node, ids):
    """Under `--dist loadgroup` every test id a worker collected must carry its group: without it
    xdist spreads one module over both workers, and module fixtures (a Ray head, a study) are built
    twice. Checked on the controller, where the message reaches the terminal."""
    if node.config.getvalue("dist") != "loadgroup" or not ids:
        return
    ungrouped = [nodeid for nodeid in ids if "@" not in nodeid.rsplit("]", 1)[-1]]
    if ungrouped:
        pytest.exit(
            f"--dist loadgroup is not grouping tests ({len(ungrouped)} ids without '@group', e.g. "
            f"{ungrouped[0]}): pytest {pytest.__version__} with this pytest-xdist drops the group "
            "(pytest-xdist issue 1386); install pytest<9.2 (`make venv` does)",
            returncode=4,
        )


def pytest_sessionstart(session):
    """How fast this machine runs plain Python, measured before the tests start and said at the end (
    `pytest_terminal_summary`): the suite's time, whose goal is 8 minutes on 2 cores, depends on it as much as
    on the tests (the same suite took 6.5 minutes on some 2-core machines and 14.5 on another)."""
    if hasattr(session.config, "workerinput"):  # an xdist worker: the controller measures
        return
    import time

    start = time.perf_counter()
    total = 0
    for i in range(20_000_000):
        total += i
    session.config.stash[_SPEED] = time.perf_counter() - start


_SPEED = pytest.StashKey[float]()


def pytest_terminal_summary(terminalreporter, config):
    if _SPEED in config.stash:
        terminalreporter.write_line(
            f"machine speed: 20M Python additions took {config.stash[_SPEED]:.2f} s on one core before the tests"
        )
