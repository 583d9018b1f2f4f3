"""The Ray Tune backend: the same sweep on a Ray cluster.

A Ray Tune `Tuner` drives the trials with `OptunaSearch` on the *same* Optuna study storage the
local backend uses (same sampler settings, baseline enqueued as trial 0), the local backend's
one-decision pruner inside each trainable (Tune's scheduler stays FIFO), per-trial resources equal to the trial's world size (GPUs, or CPUs on a
CPU cluster) and a cap on concurrent trials. Each Tune trial runs `evaluate()` — the same trial
runner, watchdog and scoring as the local backend — inside a Ray worker, and its outcome is told
to Optuna by the same rules (`tell_outcome`). So `trials`, `report` and `export` do not know which
backend ran a sweep, and a driver restart resumes from the storage like the local backend.

Departures from a plain Tune setup, on purpose:
* A trial's torchrun runs as a child process of the Ray worker (no nested Ray, no placement
  group inside the trial); Ray's `RAY_*` variables are removed from its environment and
  `OMP_NUM_THREADS` is set to the space's threads per rank (Ray sets it to the trial's CPUs).
* Ray Tune has no hard per-trial timeout or hang detection; the runner's watchdog provides both.
* Ray Tune's own experiment state is not used for resuming: the Optuna storage is the record.
"""

from __future__ import annotations

import json
import logging
import math
import os
import socket
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

import optuna
from optuna.trial import TrialState
from ray.tune.search.optuna import OptunaSearch

from autotune.adapters.base import TrainerAdapter, device_kind
from autotune.backends.optuna_backend import create_or_load, recover_interrupted, tell_outcome
from autotune.backends.pruning import make_pruner, pruning_monitor
from autotune.backends.samplers import make_sampler
from autotune.space.schema import Space
from autotune.study.progress import SweepProgress
from autotune.study.storage import StudyPaths, baseline_trial, counted, open_storage, running_trials
from autotune.trial.record import TrialRecord, read_rows
from autotune.trial.scoring import key_metrics

NUMBER = "__autotune_trial_number"
TRIAL_ID = "__autotune_trial_id"


class _Define:
    """The define-by-run space OptunaSearch samples with (a class, so Tune can pickle it)."""

    def __init__(self, space: Space, defaults: dict[str, Any]) -> None:
        self.space = space
        self.defaults = defaults

    def __call__(self, trial: Any) -> dict[str, Any]:
        from autotune.space.sampling import suggest

        return suggest(trial, self.space, self.defaults)


class StudySearch(OptunaSearch):  # type: ignore[misc]
    """OptunaSearch on the sweep's study, telling outcomes the way the local backend does.

    Tune's searcher checkpoints are switched off: the Optuna storage is the sweep's record.
    """

    def __init__(
        self,
        space: Space,
        defaults: dict[str, Any],
        study: optuna.Study,
        paths: StudyPaths,
        worker: int,
        note: Any = None,
    ) -> None:
        self._autotune_space = space
        self._autotune_study = study
        self._autotune_paths = paths
        self._autotune_note = note
        modes = ["max" if o.direction == "maximize" else "min" for o in space.objectives]
        super().__init__(
            space=_Define(space, defaults),
            metric="objective" if len(modes) == 1 else [f"objective_{i}" for i in range(len(modes))],
            mode=modes[0] if len(modes) == 1 else modes,
            sampler=make_sampler(space, worker),
            study_name=study.study_name,
            storage=study._storage,
        )

    def __getstate__(self) -> dict[str, Any]:
        state = self.__dict__.copy()
        state["_autotune_note"] = None  # the console printer stays with the driver
        return state

    def save_to_dir(self, *args: Any, **kwargs: Any) -> None:
        return None

    def restore_from_dir(self, *args: Any, **kwargs: Any) -> None:
        return None

    def suggest(self, trial_id: str) -> dict[str, Any] | None:
        params = super().suggest(trial_id)
        if params is None:
            return None
        ot_trial = self._ot_trials[trial_id]
        ot_trial.set_user_attr("worker", {"host": socket.gethostname(), "pid": os.getpid()})
        ot_trial.set_user_attr("dir", str(self._autotune_paths.trial_dir(ot_trial.number)))
        return {**params, NUMBER: ot_trial.number, TRIAL_ID: ot_trial._trial_id}

    def on_trial_complete(self, trial_id: str, result: dict[str, Any] | None = None, error: bool = False) -> None:
        if trial_id in self._completed_trials or trial_id not in self._ot_trials:
            return
        ot_trial = self._ot_trials[trial_id]
        raw = (result or {}).get("autotune_record")
        if raw is not None:
            objectives = json.loads((result or {}).get("autotune_objectives") or "null")
            tell_outcome(
                self._autotune_study,
                ot_trial,
                self._autotune_space,
                TrialRecord.from_attrs(json.loads(raw)),
                objectives,
            )
        elif error:
            ot_trial.set_user_attr("outcome", "failed")
            ot_trial.set_user_attr("reason", "crash")
            ot_trial.set_user_attr("detail", "the Ray trial raised an error (see the Ray logs)")
            self._autotune_study.tell(ot_trial, state=TrialState.FAIL)
        else:
            step = (result or {}).get("step")
            rows = read_rows(self._autotune_paths.trial_dir(ot_trial.number))
            if rows:
                ot_trial.set_user_attr("key_metrics", key_metrics(rows, self._autotune_space.trial.warmup_steps))
            ot_trial.set_user_attr("outcome", "pruned")
            ot_trial.set_user_attr("reason", "stopped")
            ot_trial.set_user_attr("detail", f"stopped by Ray Tune at step {step}")
            self._autotune_study.tell(ot_trial, state=TrialState.PRUNED)
        self._completed_trials.add(trial_id)
        if self._autotune_note is not None:
            self._autotune_note(describe(self._autotune_study.trials[ot_trial.number], self._autotune_space))


def run_trial(config: dict[str, Any], space: Space, runs_dir: str, study_name: str, storage_url: str) -> None:
    """The Tune trainable: one trial, evaluated exactly as the local backend evaluates it.

    It receives the driver's resolved space (after `--trainer`, `--freeze-inert` and `--sampler`),
    not the space file: re-reading the file would undo what the driver resolved.
    """
    from ray import tune

    from autotune.adapters import get_adapter
    from autotune.trial.evaluation import evaluate

    for name in [k for k in os.environ if k.startswith("RAY_") and k != "RAY_AUTH_MODE"]:
        os.environ.pop(name, None)  # the trial's trainer must not join this Ray cluster
    os.environ["AUTOTUNE_WARM_TRIALS"] = "0"  # one trial per Ray worker: a warm parent would not pay off
    adapter = get_adapter(space.trainer, space.command)
    number, trial_id = int(config[NUMBER]), int(config[TRIAL_ID])
    params = {k: v for k, v in config.items() if k not in (NUMBER, TRIAL_ID)}
    paths = StudyPaths(Path(runs_dir), study_name)
    storage = open_storage(storage_url)
    study = optuna.load_study(study_name=study_name, storage=storage, pruner=make_pruner(space))
    prune = pruning_monitor(space, optuna.trial.Trial(study, trial_id))
    base = baseline_trial(study)
    baseline_limits = dict(base.user_attrs.get("limits") or {}) if base else None
    is_baseline = bool(storage.get_trial(trial_id).user_attrs.get("baseline"))
    metric = space.objectives[0].metric
    seen: list[float] = []
    last_beat = [0.0]

    def worker_attr(pgid: int | None = None) -> None:
        value = {"host": socket.gethostname(), "pid": os.getpid(), **({"pgid": pgid} if pgid else {})}
        storage.set_trial_user_attr(trial_id, "worker", value)

    def monitor(step: int, metrics: dict[str, Any]) -> str | None:
        if time.monotonic() - last_beat[0] > 5:
            storage.record_heartbeat(trial_id)
            last_beat[0] = time.monotonic()
        if step > space.trial.warmup_steps and metric in metrics:
            seen.append(float(metrics[metric]))
            tune.report({"objective": statistics.median(seen), "step": step})
        return prune(step, metrics) if prune else None  # the local backend's pruner, same decision

    worker_attr()
    storage.record_heartbeat(trial_id)
    ev = evaluate(
        space,
        adapter,
        params,
        paths.trial_dir(number),
        baseline_limits,
        monitor=monitor,
        on_start=lambda pid: worker_attr(pid),
        is_baseline=is_baseline,
    )
    objectives = ev.objectives if ev.objectives and not any(map(math.isnan, ev.objectives)) else None
    # one step past the last real step, so the scheduler's max_t is reached only by this final result
    final: dict[str, Any] = {
        "autotune_record": json.dumps(ev.record().attrs(), default=str),  # a string: Tune flattens nested results
        "autotune_objectives": json.dumps(objectives),
        "step": space.trial.steps + 1,
    }
    final["objective"] = objectives[0] if objectives else (seen[-1] if seen else 0.0)
    tune.report(final)


class RaySweep:
    def __init__(
        self,
        space: Space,
        adapter: TrainerAdapter,
        paths: StudyPaths,
        storage_url: str,
        n_trials: int,
        address: str | None = None,
        max_concurrent: int | None = None,
        timeout_s: float | None = None,
        progress: SweepProgress | None = None,
        trainer_override: str | None = None,
        hooks: list[Any] | None = None,
    ) -> None:
        self.space = space
        self.adapter = adapter
        self.paths = paths
        self.storage_url = storage_url
        self.n_trials = n_trials
        self.address = address
        self.max_concurrent = max_concurrent
        self.timeout_s = timeout_s
        first = space.objectives[0]
        self.progress = progress or SweepProgress(n_trials, first.metric, first.direction == "maximize")
        self.trainer_override = trainer_override
        self.hooks = hooks or []

    def resources(self) -> dict[str, float]:
        world, threads = self.space.trial.world_size, self.space.trial.threads_per_rank
        if device_kind() == "cuda" or self.space.trainer == "verl":
            return {"gpu": world, "cpu": 1}
        return {"cpu": world * threads}

    def start_ray(self) -> None:
        import ray

        os.environ.setdefault("RAY_AIR_NEW_OUTPUT", "0")  # no Tune tables on the console: autotune prints its own

        if ray.is_initialized():
            return
        if self.address:
            ray.init(address=self.address, include_dashboard=False, log_to_driver=False, logging_level=logging.WARNING)
            return
        os.environ.setdefault("RAY_AUTH_MODE", "disabled")  # a private local cluster needs no token
        temp = Path(tempfile.gettempdir()) / f"ray-autotune-{os.getuid()}"
        ray.init(
            num_cpus=os.cpu_count(),
            include_dashboard=False,
            log_to_driver=False,
            logging_level=logging.WARNING,
            _temp_dir=str(temp),
        )

    def run(self) -> optuna.Study:
        study = create_or_load(self.space, self.paths, self.storage_url)
        recover_interrupted(study, self.progress.note)
        remaining = self.n_trials - sum(1 for t in study.get_trials(deepcopy=False) if counted(t))
        remaining -= len(running_trials(study))
        if remaining <= 0:
            return study
        self.start_ray()
        if baseline_trial(study) is None:
            self.progress.note("ray: the baseline first, alone (every limit compares with it)")
            self._fit(study, 1, 1)
            remaining -= 1
        if remaining > 0:
            self._fit(study, remaining, self.max_concurrent)
        study = optuna.load_study(study_name=self.paths.name, storage=open_storage(self.storage_url))
        for hook in self.hooks:
            hook(study, max((t.number for t in study.get_trials(deepcopy=False)), default=0))
        self._report(study)
        return study

    def _fit(self, study: optuna.Study, samples: int, concurrent: int | None) -> None:
        from ray import tune
        from ray.tune.schedulers import FIFOScheduler

        workers = int(study.user_attrs.get("workers", 1)) - 1
        defaults = self.adapter.defaults(self.space.base_config)
        searcher = StudySearch(self.space, defaults, study, self.paths, workers, self.progress.note)
        first = self.space.objectives[0]
        scheduler = FIFOScheduler()  # pruning happens inside the trainable, as in the local backend
        trainable = tune.with_parameters(
            run_trial,
            space=self.space,
            runs_dir=str(self.paths.runs_dir.resolve()),
            study_name=self.paths.name,
            storage_url=self.storage_url,
        )
        self.progress.note(f"ray: {samples} trial(s), {concurrent or 'unlimited'} at a time, {self.resources()} each")
        tuner = tune.Tuner(
            tune.with_resources(trainable, self.resources()),
            tune_config=tune.TuneConfig(
                search_alg=searcher,
                scheduler=scheduler,
                num_samples=samples,
                max_concurrent_trials=concurrent,
                metric="objective",
                mode="max" if first.direction == "maximize" else "min",
                time_budget_s=self.timeout_s,
            ),
            run_config=tune.RunConfig(
                name=f"autotune-{self.paths.name}",
                storage_path=str((self.paths.root / "ray").resolve()),
                verbose=0,
                progress_reporter=None,
            ),
        )
        tuner.fit()

    def _report(self, study: optuna.Study) -> None:
        done = [t for t in study.get_trials(deepcopy=False) if counted(t)]
        self.progress.note(f"ray: the study holds {len(done)} finished trials")


def describe(trial: optuna.trial.FrozenTrial, space: Space) -> str:
    """One progress line for a finished trial."""
    from rich.markup import escape

    attrs = trial.user_attrs
    value = trial.values[0] if trial.values else math.nan
    shown = f" {space.objectives[0].metric}={value:.4g}" if not math.isnan(value) else ""
    reason = f" ({escape(str(attrs.get('detail') or attrs.get('reason')))})" if attrs.get("reason") else ""
    label = " (baseline)" if attrs.get("baseline") else ""
    return f"trial #{trial.number}{label}: {attrs.get('outcome', 'failed')}{reason}{shown}"
