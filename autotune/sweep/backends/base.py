"""The backend contract: what runs a sweep's trials, and how to add a backend.

A backend is a `Backend` subclass registered under a name; it receives one `BackendOptions` and
its `run()` returns the study once the study holds `n_trials` counted (finished, not interrupted or
skipped) trials, or when `timeout_s` has passed. `trials`, `report`, `export`, confirmation and
resume read only the study storage and the trial folders, so they never know which backend ran a
sweep. For that, every backend must:

1. Open the study through `Backend.open_study()`: the shared set-up (`lifecycle.join_study`: the
   baseline enqueued once as trial 0, this worker's sampler seed offset, kept as `Backend.worker` for a
   sampler made later, the study's `StudyInfo`) and the recovery of trials a dead driver left running
   (`lifecycle.recover_interrupted`: killed, failed `interrupted`, retried once; a backend that counts or
   asks again later recovers again first, so a dead worker's trial is neither counted as running nor lost).
2. Run the baseline first and let it finish before any other trial starts: relative limits compare
   with its values (`lifecycle.baseline_limits`).
3. Evaluate every trial with `autotune.trial.evaluation.evaluate` in `paths.trial_dir(number)`, with
   `opts.fidelity`, the sampled params (`space.sampling.suggest`), the baseline's limits, the
   monitor from `lifecycle.trial_monitor` (the pruner's one decision) and the trial's heartbeat
   running (`lifecycle.Heartbeat`, so a dead worker's trial is failed and retried).
4. Record where the trial runs (`record.set_worker` before launch, again with the process group from
   `evaluate`'s `on_start`), so a rerun can kill an orphaned trial.
5. Tell every outcome through `lifecycle.tell_outcome` (constraints, penalties, pruned, failed), and a
   failure of the backend itself through `record.fail` (`lifecycle.failed_on_error`).
6. Stop at exactly `n_trials` counted trials, also with other workers on the same storage.
7. Call each of `hooks(study, number)` after trials finish (the live report, wandb).
8. Use only Optuna's public API: the storage object is `self.storage`, trial ids come from
   `lifecycle.trial_id`.

Adding a launcher (e.g. SLURM `srun` per trial) is one file,
`autotune/sweep/backends/<name>_backend.py`, holding a `Backend` subclass decorated `@register("<name>")`: `BACKENDS` lists it from the file name
(nothing is imported until it is chosen, so an optional dependency costs nothing), `--backend <name>`
selects it, and `tests/autotune/sweep/test_backend_contract.py` runs the contract on every registered
backend once it has one entry saying how to start this one.

How a trial is *measured* (a real run, or the cost model's prediction) is the fidelity's business,
not the backend's: a backend passes `opts.fidelity` to `evaluate`, and a simulated sweep is the
optuna backend with the cost model's fidelity.
"""

from __future__ import annotations

import importlib
import math
import time
from abc import ABC, abstractmethod
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import ClassVar, TypeVar

import optuna
from optuna.storages import BaseStorage
from optuna.trial import TrialState

from autotune.adapters.base import TrainerAdapter
from autotune.names import modules_named
from autotune.space.schema import Space
from autotune.study.progress import SweepProgress
from autotune.study.storage import (
    StudyPaths,
    absolute_url,
    baseline_trial,
    counted,
    open_storage,
    running_trials,
    storage_url,
)
from autotune.study.storage_errors import redact
from autotune.sweep.backends.lifecycle import TrialHook, join_study, recover_interrupted, whose
from autotune.trial.fidelity import Fidelity, RealRun
from autotune.trial.record import is_baseline

MODULE_SUFFIX = "_backend"
"""A backend named NAME lives in `autotune/sweep/backends/NAME_backend.py`."""


def backend_names() -> tuple[str, ...]:
    """Every backend in this package, found by file name without importing it (Ray is heavy)."""
    return modules_named(Path(__file__).parent, MODULE_SUFFIX)


BACKENDS: tuple[str, ...] = backend_names()
"""The registered backends' names (`optuna`, `ray`)."""


@dataclass
class BackendOptions:
    """Everything a backend runs a sweep with."""

    space: Space
    """The resolved space (after --trainer, --sampler, freezing and the cost model's adjustments)."""
    adapter: TrainerAdapter
    """The space's trainer (keys, defaults, launch)."""
    paths: StudyPaths
    storage_url: str
    """The Optuna storage (`study.storage.storage_url`: SQLite in the study folder unless --storage)."""
    n_trials: int
    """Counted trials the study should hold when `run()` returns (other workers' included)."""
    timeout_s: float | None = None
    """Stop starting trials after this many seconds (None or 0: no limit)."""
    progress: SweepProgress | None = None
    """The console progress; None prints with a default one."""
    hooks: list[TrialHook] = field(default_factory=list)
    device: str | None = None
    """The device recorded on a new study (cpu | cuda); None: this machine's. A simulated sweep says cuda."""
    fidelity: Fidelity = field(default_factory=RealRun)
    """How each trial is measured: a real run (default) or the cost model's prediction."""
    address: str | None = None
    """A cluster to submit trials to (Ray: `--address`); None starts a local one where that applies."""
    max_concurrent: int | None = None
    """Trials running at once on a cluster backend (None: as many as its resources allow)."""

    def __post_init__(self) -> None:
        if self.n_trials < 0:
            raise ValueError(f"n_trials must be 0 or more, got {self.n_trials}; pass --trials N with N >= 0")
        if self.timeout_s is not None and self.timeout_s < 0:
            raise ValueError(f"timeout_s must be 0 or more seconds, got {self.timeout_s}; pass --timeout SECONDS")
        if self.max_concurrent is not None and self.max_concurrent < 1:
            raise ValueError(
                f"max_concurrent must be 1 or more, got {self.max_concurrent}; pass --max-concurrent N with N >= 1"
            )


class Backend(ABC):
    """Runs a sweep's trials (the contract is this module's docstring)."""

    name: ClassVar[str]

    def __init__(self, opts: BackendOptions) -> None:
        self.opts = opts
        first = opts.space.objectives[0]
        self.progress = opts.progress or SweepProgress(opts.n_trials, first.metric, first.direction == "maximize")
        self.storage: BaseStorage | None = None
        """The storage `open_study` opened: pass it on, never read it back from a study."""
        self.worker = 0
        """This worker's index among the study's workers, assigned as `open_study` joined it (its sampler's seed
        offset): a sampler made later takes it from here, not from the study's worker count then."""

    def open_study(self) -> optuna.Study:
        """Join the study (created with the baseline enqueued on first use) and recover its interrupted trials."""
        opts = self.opts
        with opts.paths.lock():  # creates the study folder, where the default SQLite file lives
            # under the lock: two workers creating one new database would both write its schema
            self.storage = open_storage(opts.storage_url)
        study, self.worker = join_study(
            opts.space, opts.paths, self.storage, opts.device, opts.fidelity.name, opts.fidelity.model_key()
        )  # the folder checked there (`check_one_folder`), before the space's copy is written
        if opts.storage_url != storage_url(opts.paths, None):  # what `best` without --storage names
            opts.paths.storage_file.write_text(redact(absolute_url(opts.storage_url)) + "\n")
        recover_interrupted(study, self.storage, self.progress.note)
        self.progress.resume_from(study)
        return study

    def pause(self, study: optuna.Study) -> None:
        """A second of waiting on other workers; then a trial of one that died meanwhile is failed and queued again."""
        time.sleep(1.0)
        assert self.storage is not None  # opened by run()
        recover_interrupted(study, self.storage, self.progress.note)

    def wait_for_baseline(self, study: optuna.Study) -> bool:
        """Everyone's limits compare with the baseline: let it finish first (another worker may run it). Said once;
        a dead worker on this host is known at once (the baseline is failed and queued again), elsewhere after the
        heartbeat grace (it waited 30 s without a word for a worker already killed, audit 16 F8). False when the
        baseline is queued (again, after its worker died): it is to be asked for, before anything else."""
        said = False
        while True:
            waiting = [t for t in study.get_trials(deepcopy=False, states=(TrialState.WAITING,)) if is_baseline(t)]
            if waiting:
                return False
            if baseline_trial(study) is not None:
                return True
            running = [t for t in running_trials(study) if is_baseline(t)]
            if not running:
                return True
            if not said:
                self.progress.note(
                    f"waiting for the baseline (trial #{running[0].number}{whose(running[0])}) before this worker's "
                    "first trial: every trial's limits compare with it"
                )
                said = True
            self.pause(study)

    def wait_for_others(self, study: optuna.Study, deadline: float = math.inf) -> bool:
        """Out of trials to ask while other workers run the last ones: wait for them, so that one whose worker dies
        (on this host at once, elsewhere after the heartbeat grace) is queued again and run here. A survivor counted
        a killed colleague's trial as running, stopped one short of --trials and confirmed without it, exit 0
        (audit 17 F2). True when one of them ended (finished, or failed and queued again): count again. False when
        none runs, or at `deadline` (`time.monotonic()`)."""
        assert self.storage is not None  # opened by run()
        said = False
        while time.monotonic() < deadline:
            before = running_trials(study)
            if not before:
                return False
            recover_interrupted(study, self.storage, self.progress.note)  # a dead worker's: at once
            if {t.number for t in before} - {t.number for t in running_trials(study)}:
                return True
            if not said:
                numbers = ", ".join(f"#{t.number}" for t in before)
                self.progress.note(
                    f"waiting for trial {numbers} of another worker: one whose worker dies is run again here"
                )
                said = True
            time.sleep(1.0)
        return False

    def say_timeout(self, study: optuna.Study) -> None:
        """--timeout, not the budget, ended the sweep (no trial starts after it, counted from the first trial: start-up
        and a wait for another worker's baseline are not sweeping; a trial running then runs to its end): said, with
        the way on."""
        done = sum(1 for t in study.get_trials(deepcopy=False) if counted(t))
        if done < self.opts.n_trials:
            self.progress.note(
                f"[yellow]--timeout reached: {done} of {self.opts.n_trials} trials finished; the same command without "
                "--timeout (or with a longer one) runs the rest[/] (what follows is on these trials)"
            )

    @abstractmethod
    def run(self) -> optuna.Study:
        """Run trials until the study holds `n_trials` counted ones (or the timeout); return the study."""


B = TypeVar("B", bound=type[Backend])
_REGISTRY: dict[str, type[Backend]] = {}


def register(name: str) -> Callable[[B], B]:
    """Class decorator: the backend `--backend NAME` selects (its file must be NAME_backend.py)."""

    def add(cls: B) -> B:
        cls.name = name
        _REGISTRY[name] = cls
        return cls

    return add


def get_backend(name: str) -> type[Backend]:
    """The backend class registered as `name` (its module is imported on first use)."""
    if name not in BACKENDS:
        raise ValueError(f"unknown backend {name!r}: choose one of {', '.join(BACKENDS)}")
    if name not in _REGISTRY:
        importlib.import_module(f"{__package__}.{name}{MODULE_SUFFIX}")
    if name not in _REGISTRY:
        raise ValueError(
            f"autotune/sweep/backends/{name}{MODULE_SUFFIX}.py registers no backend: "
            f'decorate its Backend subclass with @register("{name}")'
        )
    return _REGISTRY[name]


class RayUnreachable(RuntimeError):
    """`ray.init` could not join the cluster at --address (what answered there is not a Ray head)."""

    def __init__(self, address: str, reason: str) -> None:
        super().__init__(f"--address {address}: Ray could not join a cluster there ({reason})")
        self.address = address
