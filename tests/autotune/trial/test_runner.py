"""The runner's verdict on how a process ended: real processes scripted to end one way each.

The scripts stand in for a trainer rank only in how they end (they write the metrics stream and
the reason line the real trainer writes), so each ending is exact and repeatable.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
import time
from pathlib import Path

from autotune.adapters import warm
from autotune.adapters.base import Launch, crash_detail
from autotune.adapters.builtin_trainer import BuiltinAdapter
from autotune.trial import runner
from autotune.trial.runner import Monitor, kill_group, run_trial_process
from tests.conftest import ROOT


def _run(tmp_path: Path, body: str, steps: int = 4, monitor: Monitor | None = None):
    script = tmp_path / "rank.py"
    script.write_text(
        textwrap.dedent(
            f"""
            import json, os, sys
            metrics = os.path.join({str(tmp_path)!r}, "metrics.jsonl")
            def step(n):
                with open(metrics, "a") as f:
                    f.write(json.dumps({{"step": n, "metrics": {{"perf/throughput": 100.0 + n}}}}) + "\\n")
                print(f"step:{{n}} - perf/throughput:{{100.0 + n}}", flush=True)
            """
        )
        + textwrap.dedent(body)
    )
    launch = Launch([sys.executable, str(script)], {})
    return run_trial_process(
        launch,
        tmp_path,
        BuiltinAdapter(),
        expected_steps=steps,
        timeout_s=60,
        hang_timeout_s=30,
        startup_grace_s=30,
        monitor=monitor,
    )


def test_an_abort_in_teardown_after_every_step_is_complete_with_a_note(tmp_path):
    body = """
    for n in range(1, 5):
        step(n)
    sys.stderr.write("terminate called without an active exception\\n"); sys.stderr.flush()
    os.abort()
    """
    result = _run(tmp_path, body)
    assert result.state == "complete", result
    assert result.exit_code == -6
    assert "all 4 steps logged" in result.detail and "SIGABRT" in result.detail
    assert "terminate called without an active exception" in result.detail
    assert [r["step"] for r in result.rows] == [1, 2, 3, 4]


def test_a_reported_failure_after_every_step_stays_a_failure(tmp_path):
    body = """
    for n in range(1, 5):
        step(n)
    sys.stderr.write("trainer: FAILED nan rank=0 step=4: loss is NaN\\n")
    sys.exit(3)
    """
    result = _run(tmp_path, body)
    assert (result.state, result.reason) == ("failed", "nan")
    assert "loss is NaN" in result.detail


def test_a_crash_shows_its_cause_not_the_last_step_line(tmp_path):
    body = """
    step(1); step(2)
    raise RuntimeError("gloo: connection reset by peer")
    """
    result = _run(tmp_path, body)
    assert (result.state, result.reason) == ("failed", "crash")
    assert result.detail == "RuntimeError: gloo: connection reset by peer"


def test_an_abort_before_the_last_step_is_a_crash_named_by_its_signal(tmp_path):
    body = """
    step(1)
    os.abort()
    """
    result = _run(tmp_path, body)
    assert (result.state, result.reason) == ("failed", "crash")
    assert result.detail.startswith("killed by SIGABRT")
    assert "step:" not in result.detail


def test_crash_detail_prefers_the_telling_line():
    torchrun = textwrap.dedent(
        """
        step:12 - perf/throughput:300.1
        terminate called without an active exception
        E1130 torch/distributed/elastic/multiprocessing/api.py: failed (exitcode: -6) local_rank: 1
        ============================================================
        Root Cause (first observed failure):
          exitcode  : -6 (pid: 1234)
          error_file: <N/A>
        ============================================================
        """
    )
    assert crash_detail(torchrun, 1) == "terminate called without an active exception"
    assert crash_detail("step:3 - a:1\n", 1) == "exit code 1"
    header = "trainer: run header " + json.dumps({"k": "v" * 3000})  # what the built-in trainer prints first
    assert crash_detail(header + "\n", -9) == "killed by SIGKILL"  # it was the whole header, 2 KB
    assert len(crash_detail("x" * 5000 + "\n", -9)) <= 300
    assert crash_detail("Traceback (most recent call last):\n  x\nValueError: bad\n", 1) == "ValueError: bad"


ENDS_ON_SIGTERM = "import signal, sys, time; signal.signal(signal.SIGTERM, lambda *a: sys.exit(0)); time.sleep(60)"


def test_kill_group_returns_once_the_group_is_gone_not_after_the_grace():
    # the leader ends on SIGTERM at once; unreaped, it would keep its group "alive" for the whole grace
    proc = subprocess.Popen([sys.executable, "-c", ENDS_ON_SIGTERM], start_new_session=True)
    time.sleep(1.0)  # let it install its handler
    started = time.monotonic()
    kill_group(proc.pid, grace_s=20.0, leader=proc)
    took = time.monotonic() - started
    assert proc.returncode == 0, "it ended on SIGTERM, not by the SIGKILL after the grace"
    assert took < 10.0, f"kill_group waited {took:.1f} s for a group whose only process had ended"


def test_a_pruned_run_stops_without_waiting_out_the_kill_grace(tmp_path, monkeypatch):
    monkeypatch.setattr(runner, "KILL_GRACE_S", 20.0)
    body = """
    import signal, time
    signal.signal(signal.SIGTERM, lambda *a: sys.exit(0))
    for n in range(1, 5):
        step(n)
        time.sleep(0.3)
    time.sleep(60)
    """
    started = time.monotonic()
    result = _run(tmp_path, body, steps=8, monitor=lambda step, metrics: "pruner: here" if step == 2 else None)
    # the reason a word (the trials table's column), the whole verdict in the detail
    assert (result.state, result.reason, result.detail) == ("pruned", "pruner", "stopped at step 2: pruner: here")
    assert result.exit_code == 0, "stopped by SIGTERM, not SIGKILL after the grace"
    assert time.monotonic() - started < 12.0, "the run ended on SIGTERM; the grace is for runs that do not"


def test_the_warm_parent_imports_in_the_background_and_the_first_launch_waits_for_it(monkeypatch):
    monkeypatch.setattr(warm, "_zygote", None)
    started = time.monotonic()
    warm.start()
    try:
        assert time.monotonic() - started < 2.0, "start() must not wait for torch's import"
        zygote = warm._zygote
        assert zygote is not None and not zygote.ready
        path = warm.socket_path()  # waits until the imports are done
        assert path is not None and path.exists() and zygote.ready
        warm.start()
        assert warm._zygote is zygote and warm.socket_path() == path, "one zygote per controller"
    finally:
        warm.stop()
    assert zygote.proc.poll() is not None and not zygote.folder.exists()
    assert zygote.folder.name.startswith(f"autotune-warm-{os.getpid()}-"), "named by its controller"


def test_a_killed_controllers_warm_folder_is_removed_by_the_next_one(tmp_path):
    """kill -9 of a controller stops its zygote (parent-death signal) but left its folder in /tmp for good."""
    gone = subprocess.Popen(["true"])
    gone.wait()  # a pid no process has now
    dead = tmp_path / f"autotune-warm-{gone.pid}-abc"
    live = tmp_path / f"autotune-warm-{os.getpid()}-def"
    other = tmp_path / "autotune-warm-notapid"
    for folder in (dead, live, other):
        folder.mkdir()
        (folder / "zygote.log").write_text("x")
    assert warm.remove_stale(tmp_path) == [dead]
    assert not dead.exists() and live.exists() and other.exists()


def test_a_home_path_in_the_spaces_env_reaches_the_trial_and_the_export_expanded(tmp_path):
    """init writes a job's `export HF_HOME=$HOME/hf_cache` as `~/hf_cache`; keys were expanded for each trial but env
    values were not, and neither a process's environment nor Ray's expands `~`: every trial got a folder named `~`."""
    import os

    from autotune.adapters import get_adapter
    from autotune.adapters.verl_config import ENV_PREFIX
    from autotune.export import export_settings
    from autotune.space.loader import load_space
    from autotune.trial.evaluation import evaluate
    from tests.autotune.conftest import write_space

    path = write_space(tmp_path, steps=2)
    path.write_text(path.read_text() + "env: {HF_HOME: ~/hf_cache}\n")
    space = load_space(str(path))
    adapter = get_adapter("builtin")
    home = os.path.expanduser("~/hf_cache")
    evaluate(space, adapter, dict(space.baseline), tmp_path / "trial", None, is_baseline=True)
    assert f"HF_HOME={home} " in (tmp_path / "trial" / "command").read_text()
    assert export_settings(space, adapter, dict(space.baseline))[ENV_PREFIX + "HF_HOME"] == home


def test_a_ctrl_c_that_lands_while_the_trial_forks_still_stops_it(tmp_path):
    """A SIGINT delivered during the fork is raised inside Python's after-fork hooks, which print it and drop it:
    Ctrl-C as a confirmation round's run started let the sweep run to its end and exit 0 (seen once in the suite).
    Here an at-fork hook sends the SIGINT, so it lands there every time: the watch must still raise it."""
    script = tmp_path / "controller.py"
    script.write_text(
        textwrap.dedent(
            f"""
            import os, signal, sys, time
            from pathlib import Path
            from autotune.adapters.base import Launch
            from autotune.adapters.builtin_trainer import BuiltinAdapter
            from autotune.trial.runner import ask_stop, run_trial_process
            signal.signal(signal.SIGINT, ask_stop)  # as `autotune` installs it
            fired = []
            def interrupt():
                if not fired:
                    fired.append(1)
                    os.kill(os.getpid(), signal.SIGINT)  # handled here, inside the hook
            os.register_at_fork(after_in_parent=interrupt)
            started = time.monotonic()
            try:
                run_trial_process(Launch([sys.executable, "-c", "import time; time.sleep(30)"], {{}}),
                                  Path({str(tmp_path / "trial")!r}), BuiltinAdapter(), expected_steps=2,
                                  timeout_s=60, hang_timeout_s=60, startup_grace_s=60)
            except KeyboardInterrupt:
                print(f"stopped after {{time.monotonic() - started:.1f}} s", flush=True)
                sys.exit(130)
            print("ran to its end", flush=True)
            """
        )
    )
    proc = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=90, cwd=ROOT)
    assert proc.returncode == 130, proc.stdout + proc.stderr
    assert "KeyboardInterrupt" in proc.stderr, "the hook dropped the signal (else the test shows nothing)"
    assert float(proc.stdout.split()[2]) < 10, proc.stdout
