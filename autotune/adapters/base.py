"""The trainer adapter contract: turn a trial config into a command line, say which keys act here,
and read failures back; and the registry of trainers.

A trainer named NAME is one file, `autotune/adapters/NAME_trainer.py`, holding a `TrainerAdapter`
subclass decorated `@register("NAME")`: `TRAINERS` lists it from the file name (nothing is imported
until it is chosen, so verl's config libraries cost nothing to a builtin sweep), a space's
`trainer: NAME` and `--trainer NAME` select it. How a trial is measured (run, or predicted by the
cost model) is not the adapter's business: that is the fidelity (`autotune/trial/fidelity.py`).
"""

from __future__ import annotations

import contextlib
import ctypes
import importlib
import os
import re
import signal
import sys
from abc import ABC, abstractmethod
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar, Literal, TypeVar

from autotune.names import modules_named

DeviceKind = Literal["cpu", "cuda"]
METRICS_FILE = "metrics.jsonl"
"""What every trainer writes (or the runner writes from its console) in a run's folder: one JSON step per line."""


def metrics_path(trial_dir: str | Path) -> Path:
    """A run folder's metrics stream (`trial/record.py` holds its one reader)."""
    return Path(trial_dir) / METRICS_FILE


class InvalidConfig(ValueError):
    """A trial config the trainer would reject: never launched, recorded as `invalid`."""


@dataclass(frozen=True)
class KeyInfo:
    key: str
    type: Any
    default: Any
    doc: str = ""


@dataclass(frozen=True)
class Launch:
    argv: list[str]
    env: dict[str, str]
    parse_console: bool = False
    """The trainer prints metrics on stdout only: the runner converts them into metrics.jsonl."""


@dataclass(frozen=True)
class TrialRun:
    """One run of a trial, resolved once by the controller: what an adapter's `launch` needs."""

    base_config: list[str]
    config_file: Path
    """The trial's config.yaml (`flat`, nested), for trainers that read a file."""
    flat: dict[str, Any]
    """The trial's keys (the space's base and its tuned values), exactly what `config_file` holds."""
    env: dict[str, str]
    """The trial's own environment (the space's `env` and its `env.*` knobs)."""
    process_env: dict[str, str]
    """What the runner adds for the launched processes (thread count, unbuffered output)."""
    trial_dir: Path
    steps: int
    world: int


class TrainerAdapter(ABC):
    name: ClassVar[str]
    """The trainer's name (set by `register`): what a space's `trainer:` says."""
    warm_starts: ClassVar[bool] = False
    """Whether its trials launch from the warm parent (`warm.launch_argv`)."""
    seed_keys: ClassVar[tuple[str, ...]] = ("data.seed",)
    """The config keys that seed a run (the quality stage's default `seed_keys`): a seed must reach every
    source of randomness the trainer has, or the seeds' spread understates the noise."""

    def __init__(self, command: list[str] | None = None) -> None:
        self.command = command
        """The space's `command:`, a launcher prefix (for trainers that take one)."""

    @abstractmethod
    def keys(self) -> dict[str, KeyInfo]:
        """Every config key this trainer understands."""

    def open_map(self, key: str) -> str | None:
        """The open map of the trainer's config (a mapping whose keys are the user's) that a key outside `keys()`
        goes into, or None: such a key is kept in a space's `base:` as written. Default: the trainer has none."""
        return None

    def ranks(self, flat: dict[str, Any], world: int) -> int:
        """The ranks a trial of `flat` (its config as the trainer resolves it) runs on, given the space's
        `trial.world_size`. Default: that world (the built-in trainer's torchrun starts as many)."""
        return world

    @abstractmethod
    def defaults(self, base_config: list[str]) -> dict[str, Any]:
        """Every key's value before the trial's own settings (trainer defaults, then presets)."""

    def resolved(self, base_config: list[str], keys: dict[str, Any]) -> dict[str, Any]:
        """Every key's value as the trainer would run a trial of these keys: its defaults, the keys, and
        whatever the trainer derives from them (verl's config interpolations). Default: defaults, then keys."""
        return {**self.defaults(base_config), **keys}

    @abstractmethod
    def metric_names(self) -> tuple[tuple[str, ...], tuple[str, ...]]:
        """(exact metric names, prefixes of metric families) this trainer emits."""

    @abstractmethod
    def phases(self) -> tuple[str, ...]:
        """The phases of a step this trainer times (`timing_s/<phase>`, `step` and `comm` aside), in order."""

    @abstractmethod
    def knob_status(self, key: str, device: DeviceKind, world: int) -> tuple[bool, str]:
        """(active, why) for a config key or `env.NAME` on this platform."""

    @abstractmethod
    def check(self, base_config: list[str], flat: dict[str, Any], world: int) -> None:
        """Raise InvalidConfig if the trainer would reject this trial config."""

    @abstractmethod
    def launch(self, run: TrialRun) -> Launch:
        """The command (and extra environment) that runs one trial writing `metrics_path(run.trial_dir)`."""

    @abstractmethod
    def failure(self, exit_code: int, stderr: str) -> tuple[str, str]:
        """(reason, detail) of a failed run: oom, nan, crash, invalid."""

    def prepare(self, base: dict[str, Any], world: int) -> None:
        """Called once before a sweep's first trial, with the space's base keys and its trials' world size
        (default: nothing to prepare); returns at once (what it starts, the first launch waits for)."""
        return None

    def base_config(self, names: list[str] | None, folder: Path) -> list[str]:
        """The config files a space's `base_config` names for this trainer, checked (`folder`: the space
        file's, for relative paths); InvalidConfig names one that cannot be used. Default: this trainer
        takes none, and the setting is ignored."""
        return []

    def failure_reported(self, output: str) -> bool:
        """Whether the run's output holds the trainer's own report of a failure (an error line it
        prints when it fails). A run that logged every step and reported no failure but exited
        non-zero died in teardown: the runner records it complete, with a note."""
        return False

    def quick_check(self, base_config: list[str], flat: dict[str, Any], world: int) -> None:
        """A cheaper `check` for many variations of an already checked config (default: the full one)."""
        self.check(base_config, flat, world)

    def console_parser(self) -> Any:
        """A parser of the trainer's console metrics (adapters whose Launch sets parse_console)."""
        return None

    def unmeasured_metrics(self) -> tuple[str, ...]:
        """Metrics a space may name that this trainer does not log (their limits are skipped)."""
        return ()

    def exportable(self, key: str) -> bool:
        """Whether a key belongs in the verl config exported for production."""
        return True

    def filled_in(self, base_config: list[str], flat: dict[str, Any]) -> dict[str, Any]:
        """Keys verl requires that this trainer fills in itself when unset, at the values it used
        (so an export states what ran, and verl's validation finds every required key)."""
        return {}

    def cluster_resources(self, world: int, threads_per_rank: int, device: DeviceKind) -> dict[str, float]:
        """What one trial asks a cluster for (Ray Tune): its ranks' GPUs, else their cores."""
        if device == "cuda":
            return {"gpu": world, "cpu": 1}
        return {"cpu": world * threads_per_rank}


MODULE_SUFFIX = "_trainer"
"""A trainer named NAME lives in `autotune/adapters/NAME_trainer.py`."""


def trainer_names() -> tuple[str, ...]:
    """Every trainer in this package, found by file name without importing it."""
    return modules_named(Path(__file__).parent, MODULE_SUFFIX)


TRAINERS: tuple[str, ...] = trainer_names()
"""The registered trainers' names (`builtin`, `verl`)."""

A = TypeVar("A", bound=type[TrainerAdapter])
_REGISTRY: dict[str, type[TrainerAdapter]] = {}


def register(name: str) -> Callable[[A], A]:
    """Class decorator: the trainer a space's `trainer: NAME` selects (its file must be NAME_trainer.py)."""

    def add(cls: A) -> A:
        cls.name = name
        _REGISTRY[name] = cls
        return cls

    return add


def get_adapter(name: str, command: list[str] | None = None) -> TrainerAdapter:
    """The adapter for `trainer:` in a space; `command` is the space's launcher prefix."""
    if name not in TRAINERS:
        raise ValueError(f"unknown trainer {name!r} (available: {', '.join(TRAINERS)})")
    if name not in _REGISTRY:
        importlib.import_module(f"{__package__}.{name}{MODULE_SUFFIX}")
    if name not in _REGISTRY:
        raise ValueError(
            f"autotune/adapters/{name}{MODULE_SUFFIX}.py registers no trainer: "
            f'decorate its TrainerAdapter subclass with @register("{name}")'
        )
    return _REGISTRY[name](command)


GPU_DEVICE_FILES = ("/dev/nvidiactl", "/dev/kfd")
"""The NVIDIA driver's control device and ROCm's: without either, torch cannot see a GPU."""


def device_kind() -> DeviceKind:
    """ "cuda" when torch sees a GPU, else "cpu". A machine with neither GPU driver's device file
    answers without importing torch (seconds of start-up for every command that reads a space)."""
    if not any(os.path.exists(f) for f in GPU_DEVICE_FILES):
        return "cpu"
    import torch

    return "cuda" if torch.cuda.is_available() else "cpu"


_CAUSES = (
    re.compile(r"terminate called[^\n]*"),
    re.compile(r"Fatal Python error:[^\n]*"),
    re.compile(r"Signal \d+ \(SIG\w+\) received[^\n]*"),
    re.compile(r"^(?:[\w.]+\.)?\w*(?:Error|Exception|Interrupt)\b:?[^\n]*", re.M),
    re.compile(r"exitcode\s*:\s*-?\d+[^\n]*"),
)
"""Lines that say why a process died, most telling first (C++ abort, interpreter abort, torchrun's
signal report, the last exception of a traceback, torchrun's exit code)."""


def crash_detail(output: str, exit_code: int | None) -> str:
    """The real cause of a crash from its output: never the last metrics line the run printed."""
    for pattern in _CAUSES:
        found = pattern.findall(output)
        if found:
            cause = found[-1].strip()
            break
    else:
        lines = [ln.strip() for ln in output.splitlines() if ln.strip() and not set(ln.strip()) <= set("=-*_ ")]
        lines = [ln for ln in lines if not ln.startswith(("step:", "trainer: run header"))]  # 2 KB of JSON
        cause = lines[-1] if lines else ""
    if exit_code is not None and exit_code < 0:
        try:
            name = signal.Signals(-exit_code).name
        except ValueError:
            name = f"signal {-exit_code}"
        return (f"killed by {name}" + (f": {cause}" if cause else ""))[:300]
    return (cause or f"exit code {exit_code}")[:300]


def die_with_parent() -> None:
    """Linux: the trial's launcher gets SIGKILL if the controller dies (no orphaned trials)."""
    if sys.platform.startswith("linux"):
        with contextlib.suppress(OSError, AttributeError):
            ctypes.CDLL("libc.so.6", use_errno=True).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
