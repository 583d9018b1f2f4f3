"""Run one trial as its own process group, watch it, and say how it ended.

The trial's command (torchrun and its ranks) starts in a new session, so the whole group can be
killed at once. A watchdog kills it on the hard timeout, or when no new step appears in
`metrics.jsonl` for `hang_timeout_s` (plus a start-up grace before the first step). The step
stream is read while the trial runs and handed to a monitor, which can stop the trial (alarm
thresholds, pruner). The outcome is explicit: complete, pruned(reason) or failed(reason) with
reason one of oom, timeout, hang, crash, nan, invalid.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from autotune.adapters.base import Launch, TrainerAdapter, crash_detail, die_with_parent
from autotune.trial.record import MetricsTail, metrics_path

RunState = Literal["complete", "pruned", "failed"]
Monitor = Callable[[int, dict[str, Any]], "str | None"]
"""Called with (step, metrics) for each new step; a returned string stops the trial as pruned."""
KILL_GRACE_S = 3.0
"""How long a stopped run gets between SIGTERM and SIGKILL (its ranks report why they stop)."""


@dataclass
class RunResult:
    state: RunState
    reason: str | None
    detail: str
    exit_code: int | None
    rows: list[dict[str, Any]] = field(default_factory=list)
    wall_s: float = 0.0
    first_step_s: float | None = None
    """Seconds from launch to the first step: process start, imports, model set-up."""


def kill_group(pgid: int, grace_s: float = 3.0, leader: subprocess.Popen[Any] | None = None) -> None:
    """SIGTERM the whole process group, then SIGKILL what is left after `grace_s`.

    `leader` is the group's leader when it is our child: it is reaped as soon as it exits, because
    an unreaped (zombie) leader still counts as a member of its group, and the group would then
    look alive for the whole grace period after every process in it has ended.
    """
    for sig, wait in ((signal.SIGTERM, grace_s), (signal.SIGKILL, 0.0)):
        try:
            os.killpg(pgid, sig)
        except ProcessLookupError:
            return
        deadline = time.monotonic() + wait
        while time.monotonic() < deadline:
            if leader is not None:
                leader.poll()
            try:
                os.killpg(pgid, 0)
            except ProcessLookupError:
                return
            time.sleep(0.01)


class ConsoleBridge:
    """Turns a trainer's console metrics (stdout.log) into metrics.jsonl lines as they appear."""

    def __init__(self, stdout_path: Path, metrics_path: Path, parser: Any) -> None:
        self.stdout_path = stdout_path
        self.metrics_path = metrics_path
        self.parser = parser
        self.offset = 0

    def pump(self, final: bool = False) -> None:
        try:
            with self.stdout_path.open(errors="replace") as f:
                f.seek(self.offset)
                text = f.read()
                self.offset = f.tell()
        except FileNotFoundError:
            text = ""
        self.parser.feed(text)
        if final:
            self.parser.close()
        records = self.parser.records()
        if records:
            with self.metrics_path.open("a") as out:
                for step, metrics in records:
                    out.write(json.dumps({"step": step, "metrics": metrics}) + "\n")


def run_trial_process(
    launch: Launch,
    trial_dir: Path,
    adapter: TrainerAdapter,
    expected_steps: int,
    timeout_s: float,
    hang_timeout_s: float,
    startup_grace_s: float,
    monitor: Monitor | None = None,
    on_start: Callable[[int], None] | None = None,
    poll_s: float = 0.05,
) -> RunResult:
    """Launch, watch and classify one trial run. Logs go to trial_dir/{stdout,stderr}.log."""
    trial_dir.mkdir(parents=True, exist_ok=True)
    tail = MetricsTail(metrics_path(trial_dir))
    bridge = None
    if launch.parse_console:
        bridge = ConsoleBridge(trial_dir / "stdout.log", metrics_path(trial_dir), adapter.console_parser())
    rows: list[dict[str, Any]] = []
    start = time.monotonic()
    last_progress = start
    first_step_s: float | None = None
    stop: tuple[RunState, str, str] | None = None
    with (trial_dir / "stdout.log").open("w") as out, (trial_dir / "stderr.log").open("w") as err:
        proc = subprocess.Popen(
            launch.argv,
            stdout=out,
            stderr=err,
            env={**os.environ, **launch.env},
            start_new_session=True,
            preexec_fn=die_with_parent,
        )
        if on_start is not None:
            on_start(proc.pid)
        try:
            while True:
                exited = proc.poll() is not None
                if bridge is not None:
                    bridge.pump(final=exited)
                for row in tail.read():
                    rows.append(row)
                    last_progress = time.monotonic()
                    if first_step_s is None:
                        first_step_s = last_progress - start
                    verdict = monitor(int(row["step"]), row["metrics"]) if monitor else None
                    if verdict and stop is None:
                        stop = ("pruned", verdict, f"stopped at step {row['step']}: {verdict}")
                if exited or stop:
                    break
                now = time.monotonic()
                if now - start > timeout_s:
                    stop = ("failed", "timeout", f"no result after the {timeout_s:g} s trial timeout")
                    break
                silent = now - last_progress
                allowed = hang_timeout_s + (startup_grace_s if not rows else 0.0)
                if silent > allowed:
                    where = f"after step {rows[-1]['step']}" if rows else "before the first step"
                    stop = ("failed", "hang", f"no new step for {silent:.0f} s {where}")
                    break
                with contextlib.suppress(subprocess.TimeoutExpired):
                    proc.wait(timeout=poll_s)  # returns within milliseconds of the run's exit, unlike a fixed sleep
        finally:
            if proc.poll() is None:
                kill_group(proc.pid, KILL_GRACE_S, leader=proc)
            proc.wait()
    rows.extend(tail.read() if stop is None else [])
    wall = time.monotonic() - start
    if stop is not None:
        state, reason, detail = stop
        return RunResult(state, reason, detail, proc.returncode, rows, wall, first_step_s)
    if proc.returncode == 0 and len(rows) >= expected_steps:
        return RunResult("complete", None, "", 0, rows, wall, first_step_s)
    stdout_tail = "\n".join((trial_dir / "stdout.log").read_text(errors="replace").splitlines()[-200:])
    # stdout first: the cause of a crash is usually the last thing on stderr, not the last step line
    output = stdout_tail + "\n" + (trial_dir / "stderr.log").read_text(errors="replace")
    if len(rows) >= expected_steps and proc.returncode != 0 and not adapter.failure_reported(output):
        note = (
            f"all {expected_steps} steps logged, then exit code {proc.returncode} in teardown "
            f"({crash_detail(output, proc.returncode)}); recorded complete"
        )
        return RunResult("complete", None, note, proc.returncode, rows, wall, first_step_s)
    if proc.returncode == 0:
        return RunResult(
            "failed",
            "crash",
            f"exited after {len(rows)} of {expected_steps} steps",
            0,
            rows,
            wall,
            first_step_s,
        )
    reason, detail = adapter.failure(proc.returncode, output)
    return RunResult("failed", reason, detail, proc.returncode, rows, wall, first_step_s)
