"""The local backend: an Optuna study driven by ask/tell, one trial at a time per worker.

Several `autotune run` workers may share one study (same storage): set-up is serialised by a
folder lock, the baseline is enqueued once and finished before anyone samples, the sampler uses
a constant liar so parallel asks spread out, a sampled configuration that an earlier trial
already ran is not run again (its result is copied), and each worker stops when the study holds
the requested number of finished trials.

Outcomes reach the sampler as follows: complete and infeasible trials are COMPLETE with their
objective values and one Optuna constraint per limit (> 0 = violated), so TPE learns where the
feasible region is; a trial that ran out of memory, produced NaN, timed out or was invalid is
COMPLETE with the worst values seen and a violated `run_failed` constraint, so its region is not
proposed again and again; crashes and hangs (possibly transient) are FAIL; alarms and the median
pruner give PRUNED (a conservative percentile pruner on the running median of the objective).
"""

from __future__ import annotations

import contextlib
import datetime
import math
import os
import socket
import threading
import time
from collections.abc import Callable, Iterator
from typing import Any

import optuna
import psutil
from optuna.trial import FrozenTrial, Trial, TrialState

from autotune.adapters.base import TrainerAdapter, device_kind
from autotune.backends.pruning import make_pruner, pruning_monitor
from autotune.backends.samplers import make_sampler, told_penalty
from autotune.space.sampling import suggest
from autotune.space.schema import Space
from autotune.study.progress import SweepProgress
from autotune.study.storage import (
    GRACE_S,
    HEARTBEAT_S,
    StudyPaths,
    baseline_trial,
    counted,
    open_storage,
    running_trials,
)
from autotune.trial.evaluation import Evaluation, evaluate
from autotune.trial.record import SCORED, TrialRecord, is_baseline
from autotune.trial.record import outcome_of as outcome
from autotune.trial.runner import Monitor, kill_group

INFEASIBLE_FAILURES = ("oom", "nan", "timeout", "invalid")
TrialHook = Callable[[optuna.Study, int], None]


def create_or_load(space: Space, paths: StudyPaths, storage_url: str, device: str | None = None) -> optuna.Study:
    """The study, created on first use with the baseline enqueued as trial 0 (once, under a lock)."""
    with paths.lock():
        storage = open_storage(storage_url)
        try:
            worker = int(optuna.load_study(study_name=paths.name, storage=storage).user_attrs.get("workers", 0))
        except KeyError:
            worker = 0
        study = optuna.create_study(
            study_name=paths.name,
            storage=storage,
            directions=[o.direction for o in space.objectives],
            sampler=make_sampler(space, worker),
            pruner=make_pruner(space),
            load_if_exists=True,
        )
        if not study.user_attrs.get("baseline_enqueued"):
            study.enqueue_trial(space.baseline, user_attrs={"baseline": True})
            study.set_user_attr("baseline_enqueued", True)
            study.set_user_attr("objectives", [[o.metric, o.direction, o.reducer] for o in space.objectives])
            study.set_user_attr("trainer", space.trainer)
            study.set_user_attr("device", device or device_kind())
            study.set_user_attr("world_size", space.trial.world_size)
        study.set_user_attr("workers", worker + 1)
        if not paths.space_copy.exists():
            paths.space_copy.write_text(space.text)
    return study


class Heartbeat:
    """Records the trial's heartbeat in the storage while it runs (Optuna fails stale trials)."""

    def __init__(self, study: optuna.Study, trial: Trial) -> None:
        self.storage = study._storage
        self.trial_id = trial._trial_id
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self._beat, daemon=True)

    def _beat(self) -> None:
        while not self.stop.wait(HEARTBEAT_S):
            with contextlib.suppress(Exception):  # a missed beat is retried on the next tick
                self.storage.record_heartbeat(self.trial_id)  # type: ignore[attr-defined]

    def __enter__(self) -> Heartbeat:
        self.storage.record_heartbeat(self.trial_id)  # type: ignore[attr-defined]
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop.set()
        self.thread.join()


class OptunaSweep:
    def __init__(
        self,
        space: Space,
        adapter: TrainerAdapter,
        paths: StudyPaths,
        storage_url: str,
        n_trials: int,
        timeout_s: float | None = None,
        progress: SweepProgress | None = None,
        hooks: list[TrialHook] | None = None,
        device: str | None = None,
    ) -> None:
        self.device = device
        self.space = space
        self.adapter = adapter
        self.paths = paths
        self.storage_url = storage_url
        self.n_trials = n_trials
        self.deadline = time.monotonic() + timeout_s if timeout_s else math.inf
        first = space.objectives[0]
        self.progress = progress or SweepProgress(n_trials, first.metric, first.direction == "maximize")
        self.hooks = hooks or []
        self.defaults = adapter.defaults(space.base_config)
        self._baseline_limits: dict[str, float] | None = None

    def run(self) -> optuna.Study:
        self.adapter.prepare()  # e.g. the warm parent of builtin trials, before any trial's clock starts
        study = create_or_load(self.space, self.paths, self.storage_url, self.device)
        self.recover_interrupted(study)
        self.wait_for_baseline(study)
        while time.monotonic() < self.deadline:
            snapshot = study.get_trials(deepcopy=False)  # one read per trial: this loop runs hundreds of times in sims
            done = sum(1 for t in snapshot if counted(t))
            running = sum(1 for t in snapshot if t.state == TrialState.RUNNING)
            if done >= self.n_trials or done + running >= self.n_trials:
                break  # finished, or the remaining trials are running in other workers
            trial = study.ask()
            if self.surplus(study, trial, done):
                continue
            self.run_one(study, trial, done, snapshot)
        return study

    def surplus(self, study: optuna.Study, trial: Trial, done: int) -> bool:
        """Another worker asked at the same moment and the study would exceed --trials: give it back."""
        running = sorted(t.number for t in running_trials(study))
        if done + running.index(trial.number) + 1 <= self.n_trials:
            return False
        trial.set_user_attr("outcome", "skipped")
        study.tell(trial, state=TrialState.FAIL)
        return True

    def recover_interrupted(self, study: optuna.Study) -> None:
        recover_interrupted(study, self.progress.note)

    def wait_for_baseline(self, study: optuna.Study) -> None:
        """Everyone's limits compare with the baseline: let it finish first (another worker may run it)."""
        while True:
            waiting = [t for t in study.get_trials(deepcopy=False, states=(TrialState.WAITING,)) if is_baseline(t)]
            if waiting or baseline_trial(study) is not None:
                return
            if not any(is_baseline(t) for t in running_trials(study)):
                return
            time.sleep(1.0)

    def run_one(self, study: optuna.Study, trial: Trial, done: int, snapshot: list[FrozenTrial]) -> None:
        trial.set_user_attr("worker", {"host": socket.gethostname(), "pid": os.getpid()})
        params = suggest(trial, self.space, self.defaults)
        baseline = bool(trial.user_attrs.get("baseline"))
        copy_of = self.finished_duplicate(study, trial, params, snapshot)
        if copy_of is not None:
            self.copy_result(study, trial, copy_of)
            if not self.progress.quiet:
                self.progress.note(
                    f"trial {done + 1}/{self.n_trials} (#{trial.number}) repeats #{copy_of.number}: result reused"
                )
            return
        self.progress.started(done, trial.number, params, "baseline" if baseline else "")
        started = time.monotonic()
        with Heartbeat(study, trial), failed_on_error(study, trial):
            evaluation = evaluate(
                self.space,
                self.adapter,
                params,
                self.paths.trial_dir(trial.number),
                self.baseline_limits(study),
                monitor=self.pruning_monitor(trial),
                is_baseline=baseline,
                on_start=lambda pid: trial.set_user_attr(
                    "worker", {"host": socket.gethostname(), "pid": os.getpid(), "pgid": pid}
                ),
            )
        self.tell(study, trial, evaluation)
        self.progress.finished(done + 1, trial.number, evaluation, time.monotonic() - started, baseline)
        for hook in self.hooks:
            hook(study, trial.number)

    def baseline_limits(self, study: optuna.Study) -> dict[str, float] | None:
        """The baseline's limit values (read once it has finished; they never change after)."""
        if self._baseline_limits is None:
            base = baseline_trial(study)
            if base is not None:
                self._baseline_limits = dict(base.user_attrs.get("limits") or {})
        return self._baseline_limits

    def pruning_monitor(self, trial: Trial) -> Monitor | None:
        return pruning_monitor(self.space, trial)

    def finished_duplicate(
        self, study: optuna.Study, trial: Trial, params: dict[str, Any], snapshot: list[FrozenTrial]
    ) -> FrozenTrial | None:
        """An earlier trial with these params; one still running elsewhere is waited for."""
        trials = snapshot
        while True:
            same = [t for t in trials if t.number < trial.number and t.params == params]
            done = [t for t in same if counted(t)]
            if done:
                return done[0]
            if not any(t.state == TrialState.RUNNING for t in same):
                return None
            time.sleep(1.0)
            optuna.storages.fail_stale_trials(study)  # its worker may have died meanwhile
            trials = study.get_trials(deepcopy=False)

    def copy_result(self, study: optuna.Study, trial: Trial, other: FrozenTrial) -> None:
        for key, value in other.user_attrs.items():
            if key not in ("baseline", "worker"):
                trial.set_user_attr(key, value)
        trial.set_user_attr("duplicate_of", other.number)
        if other.state == TrialState.COMPLETE:
            reason = other.user_attrs.get("reason")
            failure = reason if reason in INFEASIBLE_FAILURES else None
            self._set_constraints(trial, other.user_attrs.get("violations") or {}, failure)
            study.tell(trial, other.values)
        else:
            study.tell(trial, state=other.state)

    def tell(self, study: optuna.Study, trial: Trial, ev: Evaluation) -> None:
        tell_outcome(study, trial, self.space, ev.record(), ev.objectives)

    def _set_constraints(self, trial: Trial, violations: dict[str, float], failure: str | None) -> None:
        set_constraints(trial, self.space, violations, failure)


@contextlib.contextmanager
def failed_on_error(study: optuna.Study, trial: Trial) -> Iterator[None]:
    """An error in the controller itself fails the trial before it propagates: a trial left
    RUNNING would make every rerun retry the same configuration and hit the same error. (Ctrl-C
    leaves it to the interrupted-trial recovery, which retries it.)"""
    try:
        yield
    except Exception as exc:
        trial.set_user_attr("outcome", "failed")
        trial.set_user_attr("reason", "error")
        trial.set_user_attr("detail", f"controller error: {type(exc).__name__}: {exc}"[:500])
        study.tell(trial, state=TrialState.FAIL)
        raise


def recover_interrupted(study: optuna.Study, note: Callable[[str], None]) -> None:
    """Trials left RUNNING by a dead worker: kill their processes, fail them, retry them once.

    On this host a dead worker is known at once (its pid is gone); elsewhere Optuna's heartbeat
    grace period decides. A trial that never got a worker (asked, then the driver died) is
    abandoned once it is older than the grace period.
    """
    storage = study._storage
    host = socket.gethostname()
    now = datetime.datetime.now()
    for t in running_trials(study):
        worker = t.user_attrs.get("worker") or {}
        if worker:
            if worker.get("host") != host or psutil.pid_exists(worker.get("pid", -1)):
                continue
        elif t.datetime_start is None or (now - t.datetime_start).total_seconds() < GRACE_S:
            continue
        if worker.get("pgid"):
            kill_group(worker["pgid"])
        storage.set_trial_user_attr(t._trial_id, "reason", "interrupted")
        if storage.set_trial_state_values(t._trial_id, state=TrialState.FAIL):
            callback = storage.get_heartbeat_stale_trial_callback()  # type: ignore[attr-defined]
            if callback is not None:
                callback(study, storage.get_trial(t._trial_id))
            note(f"[yellow]trial #{t.number} was interrupted (worker pid {worker.get('pid')} is gone): retrying it[/]")
    optuna.storages.fail_stale_trials(study)


def tell_outcome(
    study: optuna.Study, trial: Trial, space: Space, record: TrialRecord, objectives: list[float] | None
) -> None:
    """Record a trial's outcome on it and tell the sampler (the rules in this module's docstring).

    Shared by both backends, so a trial means the same to the sampler however it was run.
    """
    record.save(trial, TrialRecord.RESULT)
    result, reason = record.outcome, record.reason
    if result in SCORED and objectives and not any(map(math.isnan, objectives)):
        set_constraints(trial, space, record.violations, None)
        study.tell(trial, penalty(study, space) if result == "infeasible" and told_penalty(space) else objectives)
    elif result == "pruned":
        if objectives and not any(map(math.isnan, objectives)):
            TrialRecord(partial_objectives=objectives).save(trial, ("partial_objectives",))  # shown, not told
        study.tell(trial, state=TrialState.PRUNED)
    elif reason in INFEASIBLE_FAILURES:
        set_constraints(trial, space, {}, reason)
        study.tell(trial, penalty(study, space))
    else:
        study.tell(trial, state=TrialState.FAIL)


def set_constraints(trial: Trial, space: Space, violations: dict[str, float], failure: str | None) -> None:
    """One Optuna constraint per limit (> 0 = violated) and `run_failed` for infeasible failures."""
    for limit in space.limits:
        trial.set_constraint(limit.metric, float(violations.get(limit.metric, 0.0 if failure else -1.0)))
    trial.set_constraint("run_failed", 1.0 if failure else -1.0)


def penalty(study: optuna.Study, space: Space) -> list[float]:
    """The worst value seen per objective (0 if none yet): a failed config ranks with the worst."""
    values = [
        t.values for t in study.get_trials(deepcopy=False) if outcome(t) in ("complete", "infeasible") and t.values
    ]
    out = []
    for i, o in enumerate(space.objectives):
        seen = [v[i] for v in values if not math.isnan(v[i])]
        out.append((min(seen) if o.direction == "maximize" else max(seen)) if seen else 0.0)
    return out
