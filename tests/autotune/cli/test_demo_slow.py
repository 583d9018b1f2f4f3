"""The README's demo, as a user runs it: the shipped CPU space, default trial count (slow: `make test-slow`)."""

from __future__ import annotations

import time

import pytest

from autotune.study.storage import StudyPaths, counted, load_study
from tests.autotune.conftest import autotune


@pytest.mark.slow
def test_fsdp3d_sweep_finishes_within_ten_minutes_and_exports(tmp_path):
    start = time.monotonic()
    proc = autotune(
        "run",
        "--space",
        "fsdp3d",
        "--runs-dir",
        str(tmp_path / "runs"),
        "--report-dir",
        str(tmp_path / "report"),
        timeout=900,
    )
    wall = time.monotonic() - start
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    print(f"fsdp3d sweep: {wall:.0f} s")
    assert wall < 600
    trials = [t for t in load_study(StudyPaths(tmp_path / "runs", "fsdp3d")).get_trials() if counted(t)]
    assert trials[0].user_attrs["baseline"]
    exported = autotune(
        "export", "fsdp3d", "--runs-dir", str(tmp_path / "runs"), "-o", str(tmp_path / "best.yaml"), "--check"
    )
    assert exported.returncode == 0 and "verl accepts it" in exported.stdout


@pytest.mark.slow
@pytest.mark.parametrize("space, trials, limit", [("fsdp3d-8gpu", 200, 60), ("fsdp3d-64gpu", 200, 60)])
def test_simulated_production_sweeps_take_seconds(tmp_path, space, trials, limit):
    start = time.monotonic()
    proc = autotune("run", "--space", space, "--backend", "sim", "--trials", str(trials), "--runs-dir", str(tmp_path / "runs"),
                    "--report-dir", str(tmp_path / "report"), "--export", str(tmp_path / "best.yaml"))  # fmt: skip
    wall = time.monotonic() - start
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    print(f"{space}: {trials} simulated trials in {wall:.0f} s")
    assert wall < limit
    assert (tmp_path / "best.yaml").exists() and (tmp_path / "report" / "index.html").exists()
    oom = [
        t for t in load_study(StudyPaths(tmp_path / "runs", space)).get_trials() if t.user_attrs.get("reason") == "oom"
    ]
    assert oom, "no configuration was predicted out of memory"
