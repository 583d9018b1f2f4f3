"""Whether a study is being worked on right now, for the commands that read it (`best`, `report`, `export`, the
wandb summary): a worker still sweeping, or running the stages after the sweep, may change what they show. Mid-sweep
`export` wrote a winner two minutes later replaced (x2.14 read, x1.51 shipped) with its overrides file, exit 0, and a
resumed study's readers showed the earlier decision as final while a worker re-decided it (audit 34 F1, F3, F5).

    runs/<study>/.workers/<host>-<pid>   one per live `autotune run` of the study, locked by it for its life (the
                                         lock goes with the process, killed or not: a dead worker's file is stale)
    runs/<study>/.stage                  what the worker holding `.finishing` runs now (`StudyPaths.stage_file`)
"""

from __future__ import annotations

import contextlib
import contextvars
import fcntl
import json
import os
import socket
from collections.abc import Iterator
from typing import Any

from autotune.study.storage import StudyPaths

CONFIRMATION = "confirmation"
ABLATION = "the ablation"
EQUIVALENCE = "the equivalence check"
QUALITY = "the quality stage"
STAGES_AFTER = "the stages after the sweep"
"""What `.stage` says before the holder names one (and what an older worker, which writes none, runs)."""
AS_IT_STANDS = "what follows is the study as it stands now, not its decision; ask again when it finishes"


FLAGS = {
    "stage": "--stage",
    "trials": "--trials",
    "top_k": "--top-k",
    "confirm": "--confirm",
    "ablate": "--ablate",
    "fidelity": "--fidelity",
}
"""A worker's plan (written in its `.workers/` file): the flags that decide what its stages measure and keep."""

_CLOSING: contextvars.ContextVar[dict[str, Any] | None] = contextvars.ContextVar(
    "closing_on_own_decision", default=None
)


@contextlib.contextmanager
def closing_on_own_decision(plan: dict[str, Any]) -> Iterator[None]:
    """A worker that has just run the stages after the sweep writes its report, export and wandb summary on its own
    decision: another worker alive then with the same plan (waiting for the stages, then keeping what this one
    measured) read as "still running", and the closing export was NOT FINAL, exit 1. Readers inside see only the
    workers started with other flags (`in_progress`, `live_workers`): one with another --top-k, --ablate or a larger
    --trials decides again, and both closing exports were final, exit 0, shipping different values (audit 35 F1)."""
    token = _CLOSING.set(plan)
    try:
        yield
    finally:
        _CLOSING.reset(token)


def _differs(mine: dict[str, Any], theirs: dict[str, Any] | None) -> str:
    """How another worker's plan differs from this one's, as its flags ("" when the same); an unreadable plan (an
    older worker's, or one starting) differs."""
    if theirs is None:
        return "with flags it does not say"
    flags = " ".join(f"{flag} {theirs.get(key)}" for key, flag in FLAGS.items() if theirs.get(key) != mine.get(key))
    return f"with {flags}" if flags else ""


def _me() -> str:
    return f"{socket.gethostname()}-{os.getpid()}"


WORKERS_LOG = "workers.jsonl"
"""Every worker that ran on the study, a line each as it started (host, pid, plan): the `.workers/` files say who is
alive and go when a worker ends; the report names each worker's trials and flags from this (audit 38 F5)."""


def worker_flags(paths: StudyPaths) -> dict[tuple[str, int], str]:
    """{(host, pid): the flags it was started with, as `autotune run` takes them} of every worker `WORKERS_LOG`
    records (a pid used again later on a host: its later worker's)."""
    out: dict[tuple[str, int], str] = {}
    log = paths.root / WORKERS_LOG
    for line in log.read_text().splitlines() if log.exists() else []:
        try:
            said = json.loads(line)
            plan = said.get("plan") or {}
            out[(str(said["host"]), int(said["pid"]))] = " ".join(
                f"{flag} {plan[key]}" for key, flag in FLAGS.items() if plan.get(key) is not None
            )
        except (ValueError, KeyError, TypeError, AttributeError):  # a line cut short by a kill: passed over
            continue
    return out


@contextlib.contextmanager
def working(paths: StudyPaths, plan: dict[str, Any] | None = None) -> Iterator[None]:
    """Held by an `autotune run` worker for its whole life on the study (`live_workers` sees it from any process
    that sees the runs folder); its file holds its `plan` (JSON: the FLAGS' values)."""
    folder = paths.root / ".workers"
    path = folder / _me()
    with paths.lock():  # made and locked at once, and killed workers' files removed, with no other worker between
        folder.mkdir(parents=True, exist_ok=True)
        for stale in folder.iterdir():
            with contextlib.suppress(OSError), stale.open("r") as other:
                fcntl.flock(other, fcntl.LOCK_EX | fcntl.LOCK_NB)  # BlockingIOError (an OSError): a live worker's
                stale.unlink()
        f = path.open("w")
        fcntl.flock(f, fcntl.LOCK_EX)
        f.write(json.dumps(plan or {}, sort_keys=True))
        f.flush()
        with (paths.root / WORKERS_LOG).open("a") as log:  # kept when it ends: who ran what, with which flags
            log.write(json.dumps({"host": socket.gethostname(), "pid": os.getpid(), "plan": plan or {}}) + "\n")
    try:
        yield
    finally:
        path.unlink(missing_ok=True)
        f.close()


def other_workers(paths: StudyPaths, plan: dict[str, Any] | None = None) -> list[str]:
    """`live_workers` but this process: who goes on with the study when this worker stops; given this worker's `plan`,
    each started with other flags is named with them ("worker pid N on HOST (started with --stage throughput)"): one
    was said to go on with an interrupted `--stage all` worker's study, and its flags never ran the quality stage
    (audit 38 F6)."""
    me = f"worker pid {os.getpid()} on {socket.gethostname()}"
    if plan is None:
        return [w for w in live_workers(paths) if w.partition(" (")[0] != me]
    return [  # an unreadable plan (an older worker's, or one being written): nothing claimed of its flags
        name + (f" (started {other})" if theirs is not None and (other := _differs(plan, theirs)) else "")
        for name, theirs in _alive(paths)
        if name != me
    ]


def live_workers(paths: StudyPaths) -> list[str]:
    """Each live `autotune run` of the study, as "worker pid N on HOST" (this process among them while it holds
    `working`: its own refreshed report says the study runs); inside `closing_on_own_decision`, only those started
    with other flags, said ("worker pid N on HOST (started with --top-k 3)")."""
    closing = _CLOSING.get()
    if closing is None:
        return [name for name, _ in _alive(paths)]
    return [f"{name} (started {other})" for name, theirs in _alive(paths) if (other := _differs(closing, theirs))]


def _alive(paths: StudyPaths) -> list[tuple[str, dict[str, Any] | None]]:
    """Each live worker of the study ("worker pid N on HOST") with its plan (None: unreadable)."""
    folder = paths.root / ".workers"
    if not folder.is_dir():
        return []
    out = []
    for path in sorted(folder.iterdir()):
        try:
            f = path.open("r")
        except OSError:  # gone meanwhile: it ended
            continue
        with f:
            try:
                fcntl.flock(f, fcntl.LOCK_SH | fcntl.LOCK_NB)
            except BlockingIOError:  # its worker holds it: alive
                host, _, pid = path.name.rpartition("-")
                out.append((f"worker pid {pid} on {host}", _plan(f.read())))
                continue
            fcntl.flock(f, fcntl.LOCK_UN)  # a killed worker's, left behind: not alive
    return out


def _plan(text: str) -> dict[str, Any] | None:
    try:
        plan = json.loads(text)
    except ValueError:  # an older worker's empty file, or one being written
        return None
    return plan if isinstance(plan, dict) and plan else None


def set_stage(paths: StudyPaths, stage: str) -> None:
    """Said by the worker holding `.finishing` as it starts each stage after the sweep."""
    tmp = paths.root / f".stage.{os.getpid()}"
    tmp.write_text(stage + "\n")
    tmp.replace(paths.stage_file)


def running_stage(paths: StudyPaths) -> tuple[str, str] | None:
    """(who, what) of the worker running the stages after the sweep right now: "worker pid N on HOST" and the
    stage (CONFIRMATION, ABLATION, EQUIVALENCE, QUALITY, or STAGES_AFTER before it names one); None when no worker
    runs them. One look at the lock: callers that need both read them together."""
    holder = paths.finishing_now()
    if holder is None:
        return None
    try:
        return holder, paths.stage_file.read_text().strip() or STAGES_AFTER
    except OSError:
        return holder, STAGES_AFTER


def in_progress(paths: StudyPaths) -> str | None:
    """A line saying which worker is still at work on the study and on what, or None when none is (inside
    `closing_on_own_decision`, none started with other flags)."""
    if _CLOSING.get() is not None:
        others = live_workers(paths)
        if not others:
            return None
        return f"study `{paths.name}` is still running: {' and '.join(others)} may decide it again"
    running = running_stage(paths)
    if running is not None:
        return f"study `{paths.name}` is still running: {running[0]} runs {running[1]}"
    others = live_workers(paths)
    if not others:
        return None
    return (
        f"study `{paths.name}` is still running: {' and '.join(others)} {'sweeps' if len(others) == 1 else 'sweep'} it"
    )
