"""The local backend: an Optuna study driven by ask/tell, one trial at a time per worker.

Several `autotune run` workers may share one study (same storage): set-up is serialised by a
folder lock, the baseline is enqueued once and finished before anyone samples, the sampler uses
a constant liar so parallel asks spread out, a sampled configuration that an earlier trial
already ran is not run again (its result is copied), and each worker stops when the study holds
the requested number of finished trials. What a trial's outcome tells the sampler is in
`lifecycle` (shared with every backend).
"""

from __future__ import annotations

import math
import os
import socket
import time
from typing import Any

import optuna
from optuna.trial import FrozenTrial, Trial, TrialState

from autotune.space.sampling import suggest
from autotune.study.storage import GRACE_S, counted
from autotune.sweep.backends.base import Backend, BackendOptions, register
from autotune.sweep.backends.lifecycle import (
    Heartbeat,
    baseline_limits,
    failed_on_error,
    place,
    tell_outcome,
    tell_reused,
    this_worker,
    trial_id,
    trial_monitor,
    whose,
)
from autotune.trial.evaluation import evaluate
from autotune.trial.record import is_baseline, set_worker, skip


@register("optuna")
class OptunaBackend(Backend):
    def __init__(self, opts: BackendOptions) -> None:
        super().__init__(opts)
        self.deadline = math.inf  # --timeout counts from the first ask: start-up and another's baseline are not
        self.defaults = opts.adapter.defaults(opts.space.base_config)
        self._baseline_limits: dict[str, float] | None = None

    def run(self) -> optuna.Study:
        self.opts.fidelity.prepare(
            self.opts.adapter, self.opts.space
        )  # warm parent, Ray head: before any trial's clock
        study = self.open_study()
        self.wait_for_baseline(study)
        if self.opts.timeout_s:  # from here: a loaded machine's start-up took all of `--timeout 1` (0 trials ran)
            self.deadline = time.monotonic() + self.opts.timeout_s
        n_trials = self.opts.n_trials
        while time.monotonic() < self.deadline:
            snapshot = study.get_trials(deepcopy=False)  # one read per trial: this loop runs hundreds of times in sims
            self.progress.know_best(snapshot)  # other workers' trials too
            done = sum(1 for t in snapshot if counted(t))
            running = sum(1 for t in snapshot if t.state == TrialState.RUNNING)
            if done >= n_trials:
                break
            if done + running >= n_trials:  # the rest run in other workers: until they end, one whose worker
                if self.wait_for_others(study, self.deadline):  # dies is queued again, to be run here
                    continue
                break
            self.wait_for_measurements()
            trial = study.ask()
            place = self.place(study, trial, done)
            if place is None:
                continue
            self.run_one(study, trial, place, snapshot)
        else:  # the deadline, not the budget, ended the loop: said, with the way on
            self.say_timeout(study)
        return study

    def place(self, study: optuna.Study, trial: Trial, done: int) -> int | None:
        """`lifecycle.place`; a trial with no place is given back (told FAIL, never counted)."""
        where = place(study, trial, self.opts.n_trials, done)
        if where is None:
            skip(trial)
            study.tell(trial, state=TrialState.FAIL)
        return where

    def wait_for_measurements(self) -> None:
        """Another worker on this host measuring on the study's winner (confirmation, the quality stage, `autotune
        explain`) shares this host's cores with a trial: a trial timed beside it read slow and was pruned (the
        sweep's best configuration among them), and its runs slowed (audit 22 F2). Wait until it ends, saying whom
        for; a worker on another host has its own cores. Predictions are not timed: never waited for."""
        if self.opts.fidelity.deterministic:
            return
        here = f" on {socket.gethostname()}"
        said = False
        while (held := self.opts.paths.measuring_now()) is not None and held[0].endswith(here):
            if held[0] == f"worker pid {os.getpid()}{here}":
                return  # this worker's own hold (it runs what it measures itself)
            if not said:
                self.progress.note(
                    f"waiting for {held[0]}, which {held[1]} of study `{self.opts.paths.name}`: a trial timed "
                    "beside it would share its cores"
                )
                said = True
            time.sleep(1.0)

    def run_one(self, study: optuna.Study, trial: Trial, done: int, snapshot: list[FrozenTrial]) -> None:
        set_worker(trial, this_worker())  # first: a trial waiting below without a worker would look abandoned
        if not is_baseline(trial) and not self.wait_for_baseline(study):  # the other worker took it and died: it
            skip(trial)  # is queued again, and this trial is given back so that the next ask runs the baseline
            study.tell(trial, state=TrialState.FAIL)
            return
        params = suggest(trial, self.opts.space, self.defaults)
        copy_of = self.finished_duplicate(study, trial, params, snapshot)
        if copy_of is not None:
            tell_reused(study, trial, self.opts.space, copy_of)
            self.progress.reused(done + 1, trial.number, copy_of.number)
            return
        self.evaluate_one(study, trial, done, params)
        for hook in self.opts.hooks:
            hook(study, trial.number)

    def evaluate_one(self, study: optuna.Study, trial: Trial, done: int, params: dict[str, Any]) -> None:
        """Run the trial with its heartbeat and the pruner, then tell its outcome."""
        assert self.storage is not None  # opened by run()
        space, baseline = self.opts.space, is_baseline(trial)
        tid = trial_id(self.storage, study.study_name, trial.number)
        retried = self.storage.get_trial_system_attrs(tid).get("failed_trial")  # Optuna's retry callback sets it
        note = "baseline" if baseline else ""
        if retried is not None:  # its place can repeat the one the dead trial had: "trial 5/5" twice (audit 28 F10)
            note = ", ".join(filter(None, [note, f"a retry of interrupted trial #{retried}"]))
        self.progress.started(done, trial.number, params, note)
        started = time.monotonic()
        try:
            with (
                Heartbeat(self.storage, trial_id(self.storage, study.study_name, trial.number)),
                failed_on_error(study, trial, self.storage),
            ):
                evaluation = evaluate(
                    space,
                    self.opts.adapter,
                    params,
                    self.opts.paths.trial_dir(trial.number),
                    self.baseline_limits(study),
                    monitor=trial_monitor(space, trial),
                    is_baseline=baseline,
                    on_start=lambda pgid: set_worker(trial, this_worker(pgid)),
                    fidelity=self.opts.fidelity,
                )
            told = tell_outcome(study, trial, space, evaluation.record(), evaluation.objectives)
        except optuna.exceptions.UpdateFinishedTrialError:  # written to while it ran (its worker, its pgid)
            told = False
        if not told:
            self.progress.note(
                f"[yellow]trial #{trial.number} was ended by another worker while it ran (no heartbeat from it for "
                f"{GRACE_S} s: this worker was suspended, its disk stalled, or the database was away) and queued "
                "again: its result here is dropped, and the retry runs it again[/]"
            )
            return
        self.progress.know_baseline(study)  # another worker may have run it
        # the run's own wall time, as `trials`, wandb and the Ray backend's lines give it: the controller's first
        # trial also imported the trainer's adapter (5 s more on the baseline's line; audit 24 F9)
        ran = evaluation.runs and not self.opts.fidelity.deterministic
        seconds = evaluation.record().wall_s if ran else time.monotonic() - started
        self.progress.finished(done + 1, trial.number, evaluation, seconds, baseline)

    def baseline_limits(self, study: optuna.Study) -> dict[str, float] | None:
        """The baseline's limit values (read once it has finished; they never change after)."""
        if self._baseline_limits is None:
            self._baseline_limits = baseline_limits(study)
        return self._baseline_limits

    def finished_duplicate(
        self, study: optuna.Study, trial: Trial, params: dict[str, Any], snapshot: list[FrozenTrial]
    ) -> FrozenTrial | None:
        """An earlier trial with these params; one still running elsewhere is waited for, said once (it waited
        without a word, audit 17 F3). Its worker dead on this host is known at once: that trial is failed and queued
        again, and this one runs the configuration; elsewhere Optuna's heartbeat grace decides."""
        trials, said = snapshot, False
        while True:
            same = [t for t in trials if t.number < trial.number and t.params == params]
            done = [t for t in same if counted(t)]
            if done:
                return done[0]
            running = [t for t in same if t.state == TrialState.RUNNING]
            if not running:
                return None
            if not said:
                self.progress.note(
                    f"waiting for trial #{running[0].number}{whose(running[0])}: the same configuration as trial "
                    f"#{trial.number}, whose result it takes"
                )
                said = True
            self.pause(study)
            trials = study.get_trials(deepcopy=False)
