"""What every backend shares, so a trial means the same to the sampler, the storage and the report
whichever backend ran it.

Outcomes reach the sampler as follows (`tell_outcome`): complete and infeasible trials are COMPLETE
with their objective values and one Optuna constraint per limit (> 0 = violated), so TPE learns
where the feasible region is; a trial that ran out of memory, produced NaN, timed out or was invalid
is COMPLETE with the worst values seen and a violated `run_failed` constraint, so its region is not
proposed again and again; crashes and hangs (possibly transient) are FAIL; alarms and the pruner
give PRUNED.

Only Optuna's public API is used: a trial's storage id comes from `trial_id` (the storage's lookup
by study name and trial number), and the storage object is the one `open_storage` returned, passed
along rather than read back from a study.
"""

from __future__ import annotations

import contextlib
import datetime
import math
import os
import socket
import threading
from collections.abc import Callable, Iterator
from typing import Any

import optuna
import psutil
from optuna.storages import BaseStorage
from optuna.trial import FrozenTrial, Trial, TrialState

from autotune.adapters.base import device_kind
from autotune.space.schema import Space
from autotune.study.resume_checks import check_same_knobs, check_same_model, check_same_space
from autotune.study.storage import (
    GRACE_S,
    HEARTBEAT_S,
    MAX_RETRIES,
    StudyInfo,
    StudyPaths,
    absolute_url,
    baseline_trial,
    check_one_folder,
    counted,
    open_storage,
    running_trials,
    save_space,
    storage_url,
)
from autotune.sweep.backends.pruning import make_pruner, pruning_monitor
from autotune.sweep.backends.samplers import make_sampler, told_penalty
from autotune.trial.record import SCORED, TrialRecord, Worker, baseline_attrs, fail, reuse_result, save_by_id
from autotune.trial.record import outcome_of as outcome
from autotune.trial.runner import Monitor, kill_group

INFEASIBLE_FAILURES = ("oom", "nan", "timeout", "invalid")
"""Failures fed back as infeasible (the configuration itself is at fault); other failures are FAIL."""
TrialHook = Callable[[optuna.Study, int], None]
"""Called with the study and a trial's number after trials finish (report refresh, wandb)."""


def create_or_load(
    space: Space,
    paths: StudyPaths,
    storage: str | BaseStorage,
    device: str | None = None,
    fidelity: str = "real",
    model: str | None = None,
) -> optuna.Study:
    """The study, created on first use with the baseline enqueued as trial 0 (once, under a lock): `join_study`
    without the worker's index."""
    return join_study(space, paths, storage, device, fidelity, model)[0]


def join_study(
    space: Space,
    paths: StudyPaths,
    storage: str | BaseStorage,
    device: str | None = None,
    fidelity: str = "real",
    model: str | None = None,
) -> tuple[optuna.Study, int]:
    """The study, created on first use with the baseline enqueued as trial 0 (once, under a lock), and this
    worker's index among its workers (0 for the first).

    Each call joins the study as one more worker: its sampler's seed is offset by the workers before it (the
    index). A sampler made later for this worker (the Ray searcher's) takes this index: the study's worker count
    read later also counts the workers that joined since, and a Ray driver whose searcher was made after waiting
    for the baseline got a local worker's index, and its seed, and ran that worker's configurations beside it
    (audit 31 F2).
    A predicted study keeps the `model` (`Fidelity.model_key`) its trials were predicted by; joining it with
    another is refused (`check_same_model`): its trials would be ranked against another model's baseline.
    """
    with paths.lock():
        check_same_space(paths, space)
        if isinstance(storage, str):
            storage = open_storage(storage)
        try:
            worker = StudyInfo.of(optuna.load_study(study_name=paths.name, storage=storage)).workers
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
        url = storage if isinstance(storage, str) else getattr(storage, "url", None)
        elsewhere = url if url is not None and absolute_url(url) != storage_url(paths, None) else None
        # the folder's copy, else the storage's: a study in a database server outlives its folder (audit 31 F4)
        check_same_space(paths, space, StudyInfo.of(study).space_text, elsewhere)
        check_same_model(paths, study, model)  # first: another model also searches other knobs (a CPU calibration
        check_same_knobs(paths, space)  # holds the NCCL ones), and the refusal guessed `--freeze-inert` (audit 28 F17)
        if model is not None and StudyInfo.of(study).sim_model is None:  # from the start, as the fidelity
            StudyInfo(sim_model=model).save(study, "sim_model")
        if not StudyInfo.of(study).baseline_enqueued:
            study.enqueue_trial(space.baseline, user_attrs=baseline_attrs())
            StudyInfo(
                objectives=[[o.metric, o.direction, o.reducer] for o in space.objectives],
                trainer=space.trainer,
                device=device or device_kind(),
                world_size=space.trial.world_size,
                baseline_enqueued=True,
                fidelity=fidelity,  # from the start: a sweep cut short still says which kind its trials are
                space_text=space.text,
            ).save(
                study, "baseline_enqueued", "objectives", "trainer", "device", "world_size", "fidelity", "space_text"
            )
        # the folder first: a worker it refuses left its own (edited) file as the study's copy, which the check of
        # the copy then compared with itself after the refusal's fix (audit 33 F1)
        check_one_folder(study, paths)
        if StudyInfo.of(study).space_text is None:  # a study an earlier version made: the storage keeps the file's
            StudyInfo(space_text=space.text).save(study, "space_text")  # text from now on (the folder's agreed)
        StudyInfo(workers=worker + 1).save(study, "workers")
        save_space(paths, space)
    return study, worker


def trial_id(storage: BaseStorage, study_name: str, number: int) -> int:
    """A trial's id in the storage (what heartbeats and attribute writes address)."""
    study_id = storage.get_study_id_from_name(study_name)
    return storage.get_trial_id_from_study_id_trial_number(study_id, number)


def this_worker(pgid: int | None = None) -> Worker:
    """This process as a trial's worker, with the trial's process group once it is launched."""
    return Worker(host=socket.gethostname(), pid=os.getpid(), pgid=pgid)


class Heartbeat:
    """Records a running trial's heartbeat in the storage every HEARTBEAT_S seconds, from a thread,
    so a trial between steps (start-up, a long step) is still seen alive; when its worker dies the
    beats stop and Optuna fails the trial after the grace period (another worker retries it)."""

    def __init__(self, storage: BaseStorage, trial_id: int) -> None:
        self.storage = storage
        self.trial_id = trial_id
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


@contextlib.contextmanager
def failed_on_error(study: optuna.Study, trial: Trial, storage: BaseStorage) -> Iterator[None]:
    """An error in the controller itself fails the trial before it propagates: a trial left
    RUNNING would make every rerun retry the same configuration and hit the same error. Ctrl-C
    (or SIGTERM) marks the trial interrupted and queues its retry at once, as the rerun's recovery
    would: until then `trials` showed it "still running, or interrupted"."""
    try:
        yield
    except KeyboardInterrupt:
        with contextlib.suppress(Exception):  # on the way out: what is left RUNNING the rerun recovers
            fail_interrupted(study, storage, trial_id(storage, study.study_name, trial.number))
        raise
    except optuna.exceptions.UpdateFinishedTrialError:  # ended elsewhere (failed as stale): nothing left to fail
        raise
    except Exception as exc:
        fail(trial, "error", f"controller error: {type(exc).__name__}: {exc}"[:500])
        study.tell(trial, state=TrialState.FAIL)
        raise


def fail_interrupted(study: optuna.Study, storage: BaseStorage, tid: int) -> bool:
    """Fail a trial whose run was cut off and queue its retry (once: the storage's stale-trial callback);
    False when it had already finished: another worker saw the same dead worker and recovered it first (the
    second of two workers waiting for a dead worker's baseline died of it, audit 17 F1)."""
    # no outcome: a driver killed between recording a result and telling Optuna leaves one behind,
    # and an interrupted trial must neither count towards --trials nor pass for a finished duplicate
    try:
        save_by_id(TrialRecord(outcome=None, reason="interrupted"), storage, tid, ("outcome", "reason"))
        if not storage.set_trial_state_values(tid, state=TrialState.FAIL):
            return False
    except optuna.exceptions.UpdateFinishedTrialError:
        return False
    callback = storage.get_heartbeat_stale_trial_callback()  # type: ignore[attr-defined]
    if callback is not None:
        callback(study, storage.get_trial(tid))
    return True


def process_alive(pid: int) -> bool:
    """Whether a process of this host runs: a killed worker its parent has not reaped yet (a zombie: a script that
    started workers without waiting for them) is dead, though its pid exists."""
    try:
        return psutil.Process(pid).status() != psutil.STATUS_ZOMBIE
    except psutil.Error:  # gone
        return False


def recover_interrupted(study: optuna.Study, storage: BaseStorage, note: Callable[[str], None]) -> None:
    """Trials left RUNNING by a dead worker: kill their processes, fail them, retry them once.

    On this host a dead worker is known at once (its pid is gone); elsewhere Optuna's heartbeat
    grace period decides. A trial that never got a worker (asked, then the driver died) is
    abandoned once it is older than the grace period.
    """
    host = socket.gethostname()
    now = datetime.datetime.now()
    for t in running_trials(study):
        worker = TrialRecord.of(t).worker
        if worker is not None:
            if worker.host != host or process_alive(worker.pid):
                continue
        elif t.datetime_start is None or (now - t.datetime_start).total_seconds() < GRACE_S:
            continue
        if worker is not None and worker.pgid:
            kill_group(worker.pgid)
        if fail_interrupted(study, storage, trial_id(storage, study.study_name, t.number)):
            pid = worker.pid if worker is not None else None
            tries = t.system_attrs.get("retry_history", [])  # the trials it retries (Optuna's callback)
            if len(tries) < MAX_RETRIES:
                note(f"[yellow]trial #{t.number} was interrupted (worker pid {pid} is gone): retrying it[/]")
            else:  # it said "retrying it" and sampled another configuration (audit 28 F15)
                note(
                    f"[yellow]trial #{t.number} was interrupted (worker pid {pid} is gone), a retry of trial "
                    f"#{tries[0]}: interrupted {len(tries) + 1} times, its configuration is not run again (the sweep "
                    "samples another)[/]"
                )
    optuna.storages.fail_stale_trials(study)


def place(study: optuna.Study, trial: Trial, n_trials: int, done: int = 0) -> int | None:
    """How many of the study's trials come before `trial`, just asked (its progress line's `trial k/N` is one more),
    or None when another worker asked at the same moment and running it would take the study past `n_trials`: the
    caller gives it back (`skip`, told FAIL). Finished and running trials are read again, after the ask and in one
    snapshot (`done`: a count from before the ask, never more than now): a count from before the ask can be stale,
    and with it two workers each took the last place (7 trials of 6, once in a loaded test run). The place counts
    the trials asked before this one (finished or running): each worker counting its own numbered its lines `2/6`
    twice and never `6/6`."""
    snapshot = study.get_trials(deepcopy=False)
    done = max(done, sum(1 for t in snapshot if counted(t)))
    running = sorted(t.number for t in snapshot if t.state == TrialState.RUNNING)
    if done + running.index(trial.number) + 1 > n_trials:
        return None
    return sum(1 for t in snapshot if t.number < trial.number and (counted(t) or t.state == TrialState.RUNNING))


def baseline_limits(study: optuna.Study) -> dict[str, float] | None:
    """The baseline's limit values once it has finished (relative limits compare with them), else None."""
    base = baseline_trial(study)
    return dict(TrialRecord.of(base).limits) if base is not None else None


def chain(*monitors: Monitor | None) -> Monitor | None:
    """One monitor calling each given one at every step; the first stop reason wins."""
    active = [m for m in monitors if m is not None]
    if not active:
        return None

    def monitor(step: int, metrics: dict[str, Any]) -> str | None:
        verdicts = [m(step, metrics) for m in active]
        return next((v for v in verdicts if v), None)

    return monitor


def trial_monitor(space: Space, trial: Trial, also: Monitor | None = None) -> Monitor | None:
    """The monitor a trial runs with: `also` (a backend's own per-step report), then the pruner's
    one decision (`pruning.pruning_monitor`), the same on every backend."""
    return chain(also, pruning_monitor(space, trial))


def tell_outcome(
    study: optuna.Study, trial: Trial, space: Space, record: TrialRecord, objectives: list[float] | None
) -> bool:
    """Record a trial's outcome on it and tell the sampler (the rules in this module's docstring).

    False (nothing recorded) when the trial had already ended: another worker saw no heartbeat from it for
    GRACE_S seconds (a suspended laptop, a stalled disk), failed it and queued it again. This was a traceback
    that ended the worker; the queued retry runs the configuration again."""
    try:
        record.save(trial, TrialRecord.RESULT)
    except optuna.exceptions.UpdateFinishedTrialError:
        return False
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
    return True


def tell_reused(study: optuna.Study, trial: Trial, space: Space, source: FrozenTrial) -> None:
    """Give a trial the result of an earlier one with the same params, and tell the sampler the same."""
    record = reuse_result(trial, source)
    if source.state == TrialState.COMPLETE:
        failure = record.reason if record.reason in INFEASIBLE_FAILURES else None
        set_constraints(trial, space, record.violations, failure)
        study.tell(trial, source.values)
    else:
        study.tell(trial, state=source.state)


def set_constraints(trial: Trial, space: Space, violations: dict[str, float], failure: str | None) -> None:
    """One Optuna constraint per limit (> 0 = violated) and `run_failed` for infeasible failures."""
    for limit in space.limits:
        trial.set_constraint(limit.metric, float(violations.get(limit.metric, 0.0 if failure else -1.0)))
    trial.set_constraint("run_failed", 1.0 if failure else -1.0)


def penalty(study: optuna.Study, space: Space) -> list[float]:
    """The worst value seen per objective (0 if none yet): a failed config ranks with the worst."""
    values = [t.values for t in study.get_trials(deepcopy=False) if outcome(t) in SCORED and t.values]
    out = []
    for i, o in enumerate(space.objectives):
        seen = [v[i] for v in values if not math.isnan(v[i])]
        out.append((min(seen) if o.direction == "maximize" else max(seen)) if seen else 0.0)
    return out


def whose(trial: FrozenTrial) -> str:
    """`, run by worker pid P on HOST` for a trial another worker runs (nothing when it records no worker)."""
    worker = TrialRecord.of(trial).worker
    return f", run by worker pid {worker.pid} on {worker.host}" if worker else ""
