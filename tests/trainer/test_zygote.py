"""Warm trainer runs: ranks forked from `trainer.zygote` compute exactly what a cold torchrun run
computes, fail the same way, and die with their client."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import psutil
import pytest

from tests.conftest import ROOT, trainer_env

STEPS = 3


@pytest.fixture(scope="module")
def zygote(tmp_path_factory):
    folder = tmp_path_factory.mktemp("zyg")
    path = folder / "s"
    proc = subprocess.Popen(
        [sys.executable, "-m", "trainer.zygote", str(path)], env=trainer_env(), cwd=ROOT, start_new_session=True
    )
    deadline = time.monotonic() + 180
    while not path.exists() and time.monotonic() < deadline:
        assert proc.poll() is None, "the zygote died while importing"
        time.sleep(0.2)
    yield path, proc.pid
    os.killpg(proc.pid, signal.SIGKILL)
    proc.wait()


def _spawn(socket: Path, world: int, metrics: Path, *overrides: str, env: dict[str, str] | None = None):
    args = [f"trainer.total_training_steps={STEPS}", f"trainer.metrics_file={metrics}", *overrides]
    return subprocess.run(
        [sys.executable, "-m", "trainer.spawn", str(socket), str(world), "--", *args],
        capture_output=True,
        text=True,
        env=trainer_env(env),
        cwd=ROOT,
        timeout=300,
    )


def _values(metrics: Path) -> list[dict[str, float]]:
    rows = [json.loads(line)["metrics"] for line in metrics.read_text().splitlines()]
    skip = ("timing_s/", "perf/", "rollout/")  # wall-clock and memory numbers differ run to run
    return [{k: v for k, v in row.items() if not k.startswith(skip)} for row in rows]


def test_a_warm_run_computes_what_a_cold_run_computes(zygote, tmp_path):
    warm = _spawn(zygote[0], 2, tmp_path / "warm.jsonl")
    assert warm.returncode == 0, warm.stderr[-2000:]
    steps = [line for line in warm.stdout.splitlines() if line.startswith("step:")]
    assert len(steps) == STEPS  # the ranks wrote into the client's stdout
    cold = _spawn(tmp_path / "no-zygote", 2, tmp_path / "cold.jsonl")  # falls back to torchrun
    assert cold.returncode == 0, cold.stderr[-2000:]
    assert _values(tmp_path / "warm.jsonl") == _values(tmp_path / "cold.jsonl")


def test_a_failing_rank_stops_the_run_with_its_reason(zygote, tmp_path):
    proc = _spawn(
        zygote[0],
        2,
        tmp_path / "m.jsonl",
        "builtin.fault.kind=crash",
        "builtin.fault.at_step=2",
        "builtin.fault.rank=1",
    )
    assert proc.returncode != 0
    assert "trainer: FAILED crash rank=1 step=2" in proc.stderr
    bad = _spawn(zygote[0], 2, tmp_path / "m2.jsonl", "trainer.no_such_key=1")
    assert bad.returncode == 2 and "unknown key `trainer.no_such_key`" in bad.stderr


def test_killing_the_client_kills_the_run(zygote, tmp_path):
    socket_path, zygote_pid = zygote
    metrics = tmp_path / "hang.jsonl"
    args = [f"trainer.total_training_steps={STEPS}", f"trainer.metrics_file={metrics}", "builtin.fault.kind=hang"]
    client = subprocess.Popen(
        [sys.executable, "-m", "trainer.spawn", str(socket_path), "2", "--", *args, "builtin.fault.at_step=2"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        env=trainer_env(),
        cwd=ROOT,
    )
    deadline = time.monotonic() + 180
    while not (metrics.exists() and metrics.read_text().strip()) and time.monotonic() < deadline:
        time.sleep(0.2)
    assert metrics.exists(), "the run never reached its first step"
    running = psutil.Process(zygote_pid).children(recursive=True)
    assert len(running) == 3  # the run's leader and its two ranks
    client.kill()
    client.wait()
    _, alive = psutil.wait_procs(running, timeout=10)
    assert not alive, [p.pid for p in alive]


def test_a_run_that_changes_import_time_settings_starts_cold(zygote, tmp_path):
    proc = _spawn(zygote[0], 1, tmp_path / "m.jsonl", env={"TORCH_SHOW_CPP_STACKTRACES": "1"})
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert len((tmp_path / "m.jsonl").read_text().splitlines()) == STEPS


def _children(*codes_after: tuple[int, float]) -> list[int]:
    """Forked children that exit with `code` after `delay` seconds."""
    pids = []
    for code, delay in codes_after:
        pid = os.fork()
        if pid == 0:
            time.sleep(delay)
            os._exit(code)
        pids.append(pid)
    return pids


def test_the_leader_returns_as_soon_as_its_ranks_have_ended():
    from trainer.zygote import _wait

    client, leader_end = socket.socketpair()
    with client, leader_end:
        started = time.monotonic()
        assert _wait(_children((0, 0.2), (0, 0.3)), leader_end) == 0
        took = time.monotonic() - started
    # it wakes when a rank ends (not at its next tick) and leaves once none is left
    assert took < 0.3 + 0.45, f"the leader took {took:.2f} s to see ranks that ended after 0.3 s"


def test_the_leader_reports_the_first_failure_and_stops_the_other_ranks():
    from trainer.zygote import STOP_GRACE_S, _wait

    client, leader_end = socket.socketpair()
    with client, leader_end:
        started = time.monotonic()
        assert _wait(_children((3, 0.1), (0, 60.0)), leader_end) == 3
        took = time.monotonic() - started
    assert took < 0.1 + STOP_GRACE_S + 3.0, "the sleeping rank got SIGTERM after the grace"


def test_a_rank_killed_by_a_signal_is_said_as_the_runs_failure():
    """A rank killed outright (SIGKILL: the kernel's OOM killer) printed nothing: the trial recorded the other rank's
    gloo "Connection reset by peer" and never the signal (audit 28 F5). The leader says it on the run's stderr, as
    the trainer says a failure, and the controller reads it before the survivor's lost peer."""
    from autotune.adapters import get_adapter
    from trainer.zygote import _wait

    def killed() -> int:
        pid = os.fork()
        if pid == 0:
            time.sleep(0.1)
            os.kill(os.getpid(), signal.SIGKILL)
        return pid

    read, write = os.pipe()
    client, leader_end = socket.socketpair()
    with client, leader_end:
        ranks = [*_children((0, 0.3)), killed()]
        assert _wait(ranks, leader_end, write) == 128 + signal.SIGKILL
    os.close(write)
    said = os.read(read, 4096).decode()
    os.close(read)
    assert said.startswith("trainer: FAILED crash rank=1 step=-1: killed by SIGKILL (the kernel's OOM killer"), said
    survivor = "trainer: FAILED peer_lost rank=0 step=3: RuntimeError: [gloo] Read error: Connection reset by peer\n"
    reason, detail = get_adapter("builtin", None).failure(137, survivor + said)
    assert reason == "crash" and detail.startswith("rank 1: killed by SIGKILL"), (reason, detail)


COLD_KILLED = """trainer: FAILED peer_lost rank=1 step=4: RuntimeError: [/__w/pytorch/pytorch/third_party/gloo/gloo/transport/tcp/pair.cc:553] Connection closed by peer [127.0.0.1]:15781. This is typically caused by a remote worker crashing.
E1207 08:53:54.515000 19114 .venv/lib/python3.11/site-packages/torch/distributed/elastic/multiprocessing/api.py:1002] failed (exitcode: -9) local_rank: 0 (pid: 19118) of binary: /work/main/.venv/bin/python
torch.distributed.elastic.multiprocessing.errors.ChildFailedError:
============================================================
trainer FAILED
------------------------------------------------------------
Failures:
[1]:
  time      : 2026-12-07_08:53:54
  host      : localhost
  rank      : 1 (local_rank: 1)
  exitcode  : 5 (pid: 19119)
  error_file: <N/A>
  traceback : To enable traceback see: https://pytorch.org/docs/stable/elastic/errors.html
------------------------------------------------------------
Root Cause (first observed failure):
[0]:
  time      : 2026-12-07_08:53:54
  host      : localhost
  rank      : 0 (local_rank: 0)
  exitcode  : -9 (pid: 19118)  (SIGKILL)
  error_file: <N/A>
  traceback : Signal 9 (SIGKILL) received by PID 19118
============================================================
"""
"""The end of a real cold run's stderr (torch 2.13's torchrun, 2 ranks) whose rank 0 was SIGKILLed at step 4."""


def test_a_cold_runs_rank_killed_by_a_signal_is_named_from_torchruns_report():
    """Without a warm parent (a Ray worker off the driver's machine runs its trials cold) the survivor's lost peer
    was the trial's reason; torchrun's report names the rank and the signal (audit 28 F5). A rank that failed on
    its own, with torchrun then stopping the other, keeps its own reason."""
    from autotune.adapters import get_adapter

    adapter = get_adapter("builtin", None)
    reason, detail = adapter.failure(1, COLD_KILLED)
    assert (reason, detail) == ("crash", "rank 0: killed by SIGKILL (the kernel's OOM killer sends it when the machine "
                                         "runs out of memory)"), detail  # fmt: skip
    own = COLD_KILLED.replace("peer_lost rank=1 step=4: RuntimeError", "crash rank=1 step=4: ValueError")
    assert adapter.failure(1, own) == (
        "crash",
        "rank 1, step 4: ValueError" + own.split("ValueError", 1)[1].split("\n")[0],
    )


def test_a_cold_run_leaves_nothing_in_the_temporary_folder(tmp_path):
    """torchrun makes a `torchelastic_*` folder in the temporary folder per run and leaves it: a sweep of cold trials
    left hundreds in /tmp. The cold command line, with a rank that fails, leaves none."""
    from trainer.spawn import cold_argv

    script = tmp_path / "r.py"
    script.write_text("import os, sys\nsys.exit(3 if os.environ['RANK'] == '1' else 0)\n")
    scratch = tmp_path / "tmp"
    scratch.mkdir()
    done = subprocess.run(cold_argv(2, [str(script)], []), env=trainer_env({"TMPDIR": str(scratch)}, warm=False),
                          capture_output=True, text=True, timeout=120)  # fmt: skip
    assert done.returncode != 0 and "exitcode  : 3" in done.stderr, done.stderr[-2000:]
    assert list(scratch.iterdir()) == []
