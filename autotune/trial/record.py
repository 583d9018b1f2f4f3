"""A trial's record: what one trial did, kept on its Optuna trial (user attributes) and in its
folder (`outcome.json`, `metrics.jsonl`).

This is the only module that knows how a trial's result is stored. Everything that shows or uses
results (tables, report, confirmation, export, calibration, wandb, both backends) reads a
`TrialRecord`, and reads a trial's per-step metrics through `read_rows`. Adding a recorded value
is one field here.
"""

from __future__ import annotations

import contextlib
import dataclasses
import json
import math
import os
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal, get_args

from optuna.storages import BaseStorage
from optuna.trial import FrozenTrial, Trial

from autotune.adapters.base import metrics_path

Outcome = Literal["complete", "infeasible", "pruned", "failed"]
OUTCOMES: tuple[str, ...] = get_args(Outcome)
SKIPPED = "skipped"
"""A surplus trial another worker's ask made unnecessary: given back, never counted or shown."""
SCORED = ("complete", "infeasible")
"""Outcomes whose objective values are finished measurements."""


@dataclass
class Worker:
    """Where a trial runs: the controller process, and the trial's process group once launched."""

    host: str
    pid: int
    pgid: int | None = None


@dataclass
class TrialRecord:
    """One trial's outcome, its scores and where it ran. Absent values read as their defaults."""

    outcome: str | None = None
    """complete | infeasible | pruned | failed (OUTCOMES), `skipped`, or None while it runs."""
    reason: str | None = None
    """Why it is not complete: limits, oom, nan, timeout, invalid, crash, hang, error, interrupted, ..."""
    detail: str = ""
    dir: str | None = None
    """The trial's folder (config.yaml, env, command, metrics.jsonl, logs, outcome.json)."""
    tuned: dict[str, Any] = field(default_factory=dict)
    """The verl keys this trial set away from the base config."""
    env: dict[str, str] = field(default_factory=dict)
    key_metrics: dict[str, float] = field(default_factory=dict)
    """Throughput, step time, MFU, comm share, KL, memory: the scoring module's KEY_METRICS."""
    limits: dict[str, float] = field(default_factory=dict)
    """Each limit's metric value (the baseline's are the reference for relative limits)."""
    violations: dict[str, float] = field(default_factory=dict)
    """Per limit: > 0 when violated (Optuna's constraint convention)."""
    notes: list[str] = field(default_factory=list)
    steps: int = 0
    wall_s: float = math.nan
    startup_s: float = math.nan
    """Seconds from launch to the first step (mean over repeats)."""
    train_s: float = math.nan
    """Seconds spent in training steps (sum of timing_s/step)."""
    partial_objectives: list[float] | None = None
    """A pruned trial's objective over the steps it ran (not a finished value)."""
    baseline: bool = False
    duplicate_of: int | None = None
    """The earlier trial with the same params whose result this one reuses."""
    predicted_by: int | None = None
    """The simulated trial that picked this configuration (multi-fidelity sweeps)."""
    worker: Worker | None = None
    driver: Worker | None = None
    """The controller that asked for the trial where another process runs it (a Ray driver; its Ray worker is
    `worker`); None where the two are one process."""

    RESULT = (
        "outcome", "reason", "detail", "dir", "tuned", "env", "key_metrics", "limits", "violations", "notes",
        "steps", "wall_s", "startup_s", "train_s",
    )  # fmt: skip
    """What an evaluation records (the rest is set by the backend: identity, worker, reuse)."""
    IDENTITY = ("baseline", "predicted_by")
    """What a retry of a dead trial keeps: what defines the configuration, never the dead run's result."""
    NOT_COPIED = ("baseline", "worker", "driver", "duplicate_of")
    """What a duplicate trial does not take over from the trial whose result it reuses."""

    @classmethod
    def of(cls, trial: FrozenTrial | Trial) -> TrialRecord:
        return cls.from_attrs(trial.user_attrs)

    @classmethod
    def from_attrs(cls, attrs: dict[str, Any]) -> TrialRecord:
        known = {f.name for f in dataclasses.fields(cls)}
        values = {k: v for k, v in attrs.items() if k in known}
        for name in ("worker", "driver"):
            if isinstance(values.get(name), dict):
                values[name] = Worker(**values[name])
        return cls(**values)

    def attrs(self, names: tuple[str, ...] | None = None) -> dict[str, Any]:
        """The stored form (JSON values), of every field or of `names`."""
        out = {}
        for f in dataclasses.fields(self):
            if names is None or f.name in names:
                value = getattr(self, f.name)
                out[f.name] = dataclasses.asdict(value) if isinstance(value, Worker) else value
        return out

    def save(self, trial: Trial, names: tuple[str, ...] | None = None) -> None:
        """Write the record (or the fields `names`) onto a live trial."""
        for key, value in self.attrs(names).items():
            trial.set_user_attr(key, value)

    def write_file(self, path: Path) -> None:
        write_json(path, self.attrs())

    @property
    def controller(self) -> tuple[str, int] | None:
        """(host, pid) of the `autotune run` that ran the trial: its driver under Ray, else its worker."""
        who = self.driver or self.worker
        return (who.host, who.pid) if who else None

    @property
    def scored(self) -> bool:
        return self.outcome in SCORED

    @property
    def counted(self) -> bool:
        return self.outcome in OUTCOMES

    @property
    def shown_outcome(self) -> str:
        """The outcome as tables show it: a trial without one is running (or was interrupted)."""
        return self.outcome or self.reason or "running"


@dataclass
class QualityRecord:
    """One run of the quality stage's search, kept on its trial of the `<study>-quality` study."""

    outcome: str | None = None
    """complete | kl_bound | entropy | nan | pruned | failed | interrupted | requeued, or None while it runs."""
    detail: str = ""
    dir: str | None = None
    seed: int | None = None
    steps: int = 0
    score: float = math.nan
    """Mean score over the last `quality.score_last` steps it ran."""
    kl_peak: float = math.nan
    feasible: bool | None = None
    """It kept the search's bound to its end (None while it runs)."""
    baseline: bool = False
    polish: bool = False
    """A setting placed between the best feasible one and the bound."""
    se: dict[str, float] = field(default_factory=dict)
    """The score's standard error at each rung it reached ({step: se}), for the pruner's noise veto."""
    rerun_of: int | None = None
    """The run a stopped or killed worker cut short, which this one runs again (the ladder named neither)."""
    retry_of: int | None = None
    """The run that failed (a crash, a timeout) before breaking a rule, which the next run of the stage runs again:
    nothing was learnt of it, and a new draw in its place left the only setting that kept the bound unconfirmed."""
    copy_of: int | None = None
    """An earlier search run of the same setting (at the same seed: the same run), whose result this one took."""

    IDENTITY = ("baseline", "polish", "rerun_of", "retry_of")
    """What a retry of an interrupted or failed run, or a setting queued again behind it, keeps."""

    @classmethod
    def of(cls, trial: FrozenTrial | Trial) -> QualityRecord:
        known = {f.name for f in dataclasses.fields(cls)}
        return cls(**{k: v for k, v in trial.user_attrs.items() if k in known})

    def attrs(self, names: tuple[str, ...] | None = None) -> dict[str, Any]:
        return {f.name: getattr(self, f.name) for f in dataclasses.fields(self) if names is None or f.name in names}

    def save(self, trial: Trial, names: tuple[str, ...] | None = None) -> None:
        for key, value in self.attrs(names).items():
            trial.set_user_attr(key, value)

    def save_by_id(self, storage: BaseStorage, trial_id: int, names: tuple[str, ...]) -> None:
        for key, value in self.attrs(names).items():
            storage.set_trial_user_attr(trial_id, key, value)


def set_worker(trial: Trial, worker: Worker) -> None:
    TrialRecord(worker=worker).save(trial, ("worker",))


def fail(trial: Trial, reason: str, detail: str) -> None:
    """Mark a live trial failed with a reason (the caller tells Optuna)."""
    TrialRecord(outcome="failed", reason=reason, detail=detail).save(trial, ("outcome", "reason", "detail"))


def skip(trial: Trial) -> None:
    TrialRecord(outcome=SKIPPED).save(trial, ("outcome",))


def outcome_of(trial: FrozenTrial) -> str | None:
    return TrialRecord.of(trial).outcome


def is_baseline(trial: FrozenTrial | Trial) -> bool:
    return TrialRecord.of(trial).baseline


def baseline_attrs() -> dict[str, Any]:
    """User attributes that make an enqueued trial the baseline."""
    return TrialRecord(baseline=True).attrs(("baseline",))


def predicted_attrs(sim_trial: int) -> dict[str, Any]:
    """User attributes of a real trial enqueued because simulated trial `sim_trial` predicted it best."""
    return TrialRecord(predicted_by=sim_trial).attrs(("predicted_by",))


def write_json(path: Path, data: Any) -> None:
    write_atomically(path, json.dumps(data, indent=2, sort_keys=True, default=str))


def write_atomically(path: Path, text: str) -> None:
    """Write, then rename: a reader never sees half a file, and two writers (two workers) never share a temporary
    file (one's rename found the other's gone: the report's `index.html.tmp`, audit 16 F7)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.{threading.get_ident()}.tmp")
    tmp.write_text(text)
    tmp.replace(path)


def read_rows(trial_dir: str | Path) -> list[dict[str, Any]]:
    """A trial's whole metrics stream as far as it got, one `{"step": n, "metrics": {...}}` per step
    (a torn last line is skipped)."""
    tail = MetricsTail(metrics_path(trial_dir))
    rows = tail.read()
    if tail.partial.strip():
        with contextlib.suppress(json.JSONDecodeError):
            rows.append(json.loads(tail.partial))
    return [r for r in rows if isinstance(r, dict) and "step" in r and isinstance(r.get("metrics"), dict)]


class MetricsTail:
    """Reads the complete JSON lines appended to a trial's metrics file since the last call."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.offset = 0
        self.partial = ""

    def read(self) -> list[dict[str, Any]]:
        try:
            with self.path.open() as f:
                f.seek(self.offset)
                chunk = f.read()
                self.offset = f.tell()
        except FileNotFoundError:
            return []
        text = self.partial + chunk
        lines = text.split("\n")
        self.partial = lines.pop()
        rows = []
        for line in lines:
            if line.strip():
                with contextlib.suppress(json.JSONDecodeError):
                    rows.append(json.loads(line))
        return rows


def reuse_result(trial: Trial, source: FrozenTrial) -> TrialRecord:
    """Make a live trial reuse the result of `source` (an earlier trial with the same params): every
    value `source` recorded except NOT_COPIED, then `duplicate_of`. Returns the source's record."""
    record = TrialRecord.of(source)
    names = tuple(n for n in record.attrs() if n in source.user_attrs and n not in TrialRecord.NOT_COPIED)
    record.save(trial, names)
    TrialRecord(duplicate_of=source.number).save(trial, ("duplicate_of",))
    return record


def save_by_id(record: TrialRecord, storage: BaseStorage, trial_id: int, names: tuple[str, ...]) -> None:
    """Write fields of a record onto a trial known by its storage id (one another process is running)."""
    for key, value in record.attrs(names).items():
        storage.set_trial_user_attr(trial_id, key, value)
