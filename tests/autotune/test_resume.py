"""Nothing is lost when the controller dies: SIGKILL mid-trial, run again, exactly N trials."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time

import optuna
import psutil

from autotune.study import StudyPaths, counted, load_study
from tests.autotune.conftest import ROOT, autotune, trainer_env, write_space


def wait_for(predicate, timeout: float, what: str) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return
        time.sleep(0.2)
    raise AssertionError(f"timed out waiting for {what}")


def test_sigkill_of_the_controller_then_resume_keeps_every_trial(tmp_path):
    space = write_space(tmp_path, steps=8)
    runs = tmp_path / "runs"
    args = ["run", "--space", str(space), "--runs-dir", str(runs), "--trials", "4", "--confirm", "0"]
    controller = subprocess.Popen(
        [sys.executable, "-m", "autotune.cli", *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=trainer_env(),
        cwd=ROOT,
    )
    metrics = runs / "small" / "trials" / "0001" / "metrics.jsonl"
    wait_for(lambda: metrics.exists() and metrics.read_text().count("\n") >= 2, 180, "trial #1 to be mid-run")
    paths = StudyPaths(runs, "small")
    running = [t for t in load_study(paths).get_trials() if t.state == optuna.trial.TrialState.RUNNING]
    pgid = running[0].user_attrs["worker"]["pgid"]
    os.kill(controller.pid, signal.SIGKILL)
    controller.wait()
    # the trial's process group dies with its controller (no orphan keeps the cores busy)
    wait_for(lambda: not any(p.pid == pgid for p in psutil.process_iter()), 15, "the orphaned trial to exit")

    resumed = autotune(*args)
    assert resumed.returncode == 0, resumed.stdout[-2000:] + resumed.stderr[-2000:]
    assert "was interrupted" in resumed.stdout and "retrying it" in resumed.stdout
    trials = load_study(paths).get_trials()
    assert sum(1 for t in trials if counted(t)) == 4
    interrupted = [t for t in trials if t.user_attrs.get("reason") == "interrupted"]
    assert len(interrupted) == 1 and interrupted[0].state == optuna.trial.TrialState.FAIL
    retry = [t for t in trials if t.system_attrs.get("failed_trial") == interrupted[0].number]
    assert len(retry) == 1 and counted(retry[0]) and retry[0].params == interrupted[0].params
    completed_before = [t for t in trials if t.number < interrupted[0].number]
    assert all(counted(t) for t in completed_before)
