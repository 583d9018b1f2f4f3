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
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from autotune.adapters.base import Launch, TrainerAdapter, crash_detail, die_with_parent
from autotune.trial.record import MetricsTail, metrics_path

RunState = Literal["complete", "pruned", "failed"]
Monitor = Callable[[int, dict[str, Any]], "str | None"]
"""Called with (step, metrics) for each new step; a returned string ("pruner: why", "alarm: why") stops the trial as
pruned, its reason the word before the colon."""
KILL_GRACE_S = 3.0
"""How long a stopped run gets between SIGTERM and SIGKILL (its ranks report why they stop)."""
STOP_ASKED = [False]
"""Set by the command line's SIGINT and SIGTERM handlers (`ask_stop`) as they raise KeyboardInterrupt. A signal that
lands while a trial's process is being forked is raised inside Python's after-fork hooks, which print it ("Exception
ignored in: <function _releaseLock>") and drop it: a Ctrl-C as a confirmation round's run started let the sweep run
to its end and exit 0. The watch raises it again (in the main thread, where the signal is handled)."""


def ask_stop(signum: int, frame: object) -> None:
    """The SIGINT handler of the command line: KeyboardInterrupt, remembered in case it is dropped."""
    STOP_ASKED[0] = True
    raise KeyboardInterrupt


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
    """Launch, watch and classify one trial run. Logs go to trial_dir/{stdout,stderr}.log.

    The runner starts the launch's command here and follows the trial through its files only
    (metrics.jsonl, or the console log): the command may be a launcher (torchrun, `srun`, a job
    submitter) whose ranks run elsewhere, as long as it stays in the foreground and forwards SIGTERM.
    """
    trial_dir.mkdir(parents=True, exist_ok=True)
    # one run per folder: a folder run again (explain's rounds, a round cut short) appended to the earlier run's
    # metrics stream, and its steps were scored with this run's
    metrics_path(trial_dir).unlink(missing_ok=True)
    watch = _Watch(expected_steps, timeout_s, hang_timeout_s, startup_grace_s, monitor, poll_s)
    bridge = None
    if launch.parse_console:
        bridge = ConsoleBridge(trial_dir / "stdout.log", metrics_path(trial_dir), adapter.console_parser())
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
            watch.follow(proc, MetricsTail(metrics_path(trial_dir)), bridge)
        finally:
            if proc.poll() is None:
                kill_group(proc.pid, KILL_GRACE_S, leader=proc)
            proc.wait()
    watch.wall_s = time.monotonic() - watch.start  # teardown included: the trial's whole wall time
    return _classify(watch, proc.returncode, trial_dir, adapter)


@dataclass
class _Watch:
    """Follows one run's steps: the pruning monitor's verdicts, the trial timeout and hang detection."""

    expected_steps: int
    timeout_s: float
    hang_timeout_s: float
    startup_grace_s: float
    monitor: Monitor | None
    poll_s: float
    rows: list[dict[str, Any]] = field(default_factory=list)
    first_step_s: float | None = None
    stop: tuple[RunState, str, str] | None = None
    """(state, reason, detail) when the run was stopped before it ended on its own."""
    start: float = field(default_factory=time.monotonic)
    wall_s: float = 0.0

    def follow(self, proc: subprocess.Popen[Any], tail: MetricsTail, bridge: ConsoleBridge | None) -> None:
        last_progress = self.start
        main = threading.current_thread() is threading.main_thread()
        while True:
            if main and STOP_ASKED[0]:  # a stop the fork's hooks dropped
                raise KeyboardInterrupt
            exited = proc.poll() is not None
            if bridge is not None:
                bridge.pump(final=exited)
            for row in tail.read():
                last_progress = self._step(row)
            if exited or self.stop:
                break
            self.stop = self._overdue(time.monotonic(), last_progress)
            if self.stop:
                break
            with contextlib.suppress(subprocess.TimeoutExpired):
                proc.wait(timeout=self.poll_s)  # returns within milliseconds of the run's exit, unlike a fixed sleep
        if self.stop is None:
            self.rows.extend(tail.read())

    def _step(self, row: dict[str, Any]) -> float:
        self.rows.append(row)
        now = time.monotonic()
        if self.first_step_s is None:
            self.first_step_s = now - self.start
        verdict = self.monitor(int(row["step"]), row["metrics"]) if self.monitor else None
        if verdict and self.stop is None:  # "pruner: why" or "alarm: why": the reason is the word before the colon
            self.stop = ("pruned", verdict.split(":", 1)[0], f"stopped at step {row['step']}: {verdict}")
        return now

    def _overdue(self, now: float, last_progress: float) -> tuple[RunState, str, str] | None:
        if now - self.start > self.timeout_s:
            return ("failed", "timeout", f"no result after the {self.timeout_s:g} s trial timeout")
        silent = now - last_progress
        if silent > self.hang_timeout_s + (self.startup_grace_s if not self.rows else 0.0):
            where = f"after step {self.rows[-1]['step']}" if self.rows else "before the first step"
            return ("failed", "hang", f"no new step for {silent:.0f} s {where}")
        return None


def _classify(watch: _Watch, code: int | None, trial_dir: Path, adapter: TrainerAdapter) -> RunResult:
    """The run's outcome from how it ended: stopped, complete, died in teardown after every step, or failed."""
    rows, wall, first = watch.rows, watch.wall_s, watch.first_step_s
    expected = watch.expected_steps
    if watch.stop is not None:
        state, reason, detail = watch.stop
        return RunResult(state, reason, detail, code, rows, wall, first)
    if code == 0 and len(rows) >= expected:
        return RunResult("complete", None, "", 0, rows, wall, first)
    stdout_tail = "\n".join((trial_dir / "stdout.log").read_text(errors="replace").splitlines()[-200:])
    # stdout first: the cause of a crash is usually the last thing on stderr, not the last step line
    output = stdout_tail + "\n" + (trial_dir / "stderr.log").read_text(errors="replace")
    if len(rows) >= expected and code != 0 and not adapter.failure_reported(output):
        note = f"all {expected} steps logged, then exit code {code} in teardown ({crash_detail(output, code)}); recorded complete"
        return RunResult("complete", None, note, code, rows, wall, first)
    if code == 0:
        return RunResult("failed", "crash", f"exited after {len(rows)} of {expected} steps", 0, rows, wall, first)
    reason, detail = adapter.failure(code if code is not None else -1, output)
    return RunResult("failed", reason, detail, code, rows, wall, first)
