"""How a trial is measured: a fidelity is the object `evaluate` is given to turn a checked trial
config into runs (`RunResult`s), which `evaluate` then scores the same way whatever produced them.

`RealRun` launches the trainer (its adapter's command) as a watched process group, once per
`trial.repeats`; the cost model's prediction is another fidelity (`autotune/sim/sim_fidelity.py`).
A fidelity also says which knobs act and which metrics exist under it, since a cost model reads
fewer knobs and predicts fewer metrics than the trainer has. The trainer adapter stays what it is
(keys, defaults, export) whichever fidelity measures its trials; the sweep picks the fidelity by
name from its registry (`autotune/sweep/fidelities.py`).
"""

from __future__ import annotations

import shlex
from abc import ABC, abstractmethod
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar

from autotune.adapters.base import DeviceKind, TrainerAdapter, TrialRun
from autotune.space.sampling import TrialConfig
from autotune.space.schema import Space
from autotune.trial.runner import Monitor, RunResult, run_trial_process


@dataclass(frozen=True)
class TrialJob:
    """One checked trial, ready to be measured."""

    space: Space
    adapter: TrainerAdapter
    config: TrialConfig
    config_file: Path
    """The trial's config.yaml (written and checked)."""
    defaults: dict[str, Any]
    """The trainer's defaults, resolved once for this trial."""
    trial_dir: Path
    monitor: Monitor
    """Called on every step (alarms, the pruner); a returned string stops the run as pruned."""
    on_start: Callable[[int], None] | None = None
    """Called with a launched run's process group."""


class Fidelity(ABC):
    """How trials are measured (the contract is this module's docstring)."""

    name: ClassVar[str]
    """What `--fidelity` calls it and the study records (`StudyInfo.fidelity`)."""
    deterministic: ClassVar[bool] = False
    """The same configuration always measures the same: re-measuring (confirmation) tells nothing new."""

    @classmethod
    def for_sweep(cls, space: Space, settings: FidelitySettings) -> Fidelity:
        """The fidelity a sweep of `space` uses, from the command line's settings."""
        return cls()

    @property
    def device(self) -> DeviceKind | None:
        """The device its numbers are for, recorded on a new study (None: this machine's)."""
        return None

    def prepare(self, adapter: TrainerAdapter, space: Space) -> None:
        """Called once before a sweep's first trial."""
        adapter.prepare(space.base, space.trial.world_size)

    def check(self, adapter: TrainerAdapter, base_config: list[str], flat: dict[str, Any], world: int) -> None:
        """Raise InvalidConfig for a trial config that cannot be measured."""
        adapter.check(base_config, flat, world)

    def knob_status(self, adapter: TrainerAdapter, key: str, device: DeviceKind, world: int) -> tuple[bool, str]:
        """(active, why) for a knob under this fidelity."""
        return adapter.knob_status(key, device, world)

    def unmeasured_metrics(self, adapter: TrainerAdapter) -> tuple[str, ...]:
        """Metrics a space may name that this fidelity does not produce (their limits are skipped)."""
        return adapter.unmeasured_metrics()

    def space_for(self, space: Space, adapter: TrainerAdapter) -> tuple[Space, list[str]]:
        """The space as this fidelity sweeps it, and the knobs it fixed at their baseline (none by default)."""
        return space, []

    def lengths_note(self, space: Space, adapter: TrainerAdapter) -> str | None:
        """What this fidelity assumes about the data's lengths, to print and keep for the report (None: it
        measures them)."""
        return None

    def weights_note(self, space: Space) -> str | None:
        """What this fidelity's numbers rest on, when a user should know it before trusting them (None: measured)."""
        return None

    def error_note(self, space: Space) -> str | None:
        """The error of this fidelity's model when the README's published-runs figures are not it (None: they are,
        or it measures)."""
        return None

    def model_key(self) -> str | None:
        """The model that produces this fidelity's numbers, in words (device, model, weights): a study keeps it,
        and its trials are ranked together only under one (None: measured)."""
        return None

    @abstractmethod
    def measure(self, job: TrialJob) -> list[RunResult]:
        """The trial's runs, in order; the last one that did not complete ends the list."""


@dataclass(frozen=True)
class FidelitySettings:
    """What the command line says about how to measure (used by the fidelities that need it)."""

    gpu: str | None = None
    """A GPU preset or device file (`--gpu`)."""
    model: str | None = None
    """A model config or preset (`--model`)."""
    calibration: dict[str, Any] | None = None
    """Fitted cost-model weights (`--calibration`)."""


class RealRun(Fidelity):
    """The trainer runs: every repeat launched and watched until one does not complete."""

    name = "real"

    def measure(self, job: TrialJob) -> list[RunResult]:
        runs = []
        for repeat in range(job.space.trial.repeats):
            run_dir = job.trial_dir if repeat == 0 else job.trial_dir / f"repeat-{repeat + 1}"
            result = self.run_once(job, run_dir)
            runs.append(result)
            if result.state != "complete":
                break
        return runs

    def run_once(self, job: TrialJob, run_dir: Path) -> RunResult:
        """One launch of the trial (one repeat), watched until it ends."""
        space, config = job.space, job.config
        from autotune.adapters.verl_config import expand_home

        # `~/x` (a job's `$HOME/x`) expanded here, as keys are: neither a process's environment nor Ray's expands it
        trial_env = {k: expand_home(v) for k, v in config.env.items() if k != "TORCHELASTIC_ERROR_FILE"}
        process_env = {"OMP_NUM_THREADS": str(space.trial.threads_per_rank), "PYTHONUNBUFFERED": "1"}
        run = TrialRun(
            space.base_config, job.config_file, config.flat, trial_env, process_env, run_dir, space.trial.steps,
            space.trial.world_size,
        )  # fmt: skip
        launch = job.adapter.launch(run)
        env = {**trial_env, **process_env}
        launch.env.update(env)
        (run_dir / "command").parent.mkdir(parents=True, exist_ok=True)
        (run_dir / "command").write_text(shell_line(launch.argv, env) + "\n")
        return run_trial_process(
            launch,
            run_dir,
            job.adapter,
            expected_steps=space.trial.steps,
            timeout_s=space.trial.timeout_s,
            hang_timeout_s=space.trial.hang_timeout_s,
            startup_grace_s=space.trial.startup_grace_s,
            monitor=job.monitor,
            on_start=job.on_start,
        )


REAL_RUN = RealRun()
"""The default fidelity: trials run."""


def shell_line(argv: list[str], env: dict[str, str]) -> str:
    """The command as one shell line, its environment in front (the trial's `command` file)."""
    prefix = " ".join(f"{k}={shlex.quote(v)}" for k, v in sorted(env.items()))
    return f"{prefix} {shlex.join(argv)}".strip()
