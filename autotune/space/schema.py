"""The search-space file: what a sweep tunes, under which rules, scored how.

    name: fsdp3d                 # study name (default: the file name)
    trainer: builtin             # builtin | verl
    command: [python, -m, verl.trainer.main_ppo]   # verl only: the launcher prefix
    base_config: [cpu_tiny]      # builtin trainer presets the base is layered on (not exported)
    base: {verl.key: value}      # the config every trial shares (exported with the winner)
    env: {NAME: value}           # environment every trial shares
    trial: {steps, warmup_steps, world_size, timeout_s, hang_timeout_s, repeats, threads_per_rank}
    params: {verl.key | env.NAME | variable: {type, choices | low/high, log, step, when}}
    derived: {verl.key: term, ...}          # see expr.py; `{when: {...}, value: term}` for conditions
    constraints: [{divides|at_least|at_most: [term, term], when: {...}}]
    objectives: [{metric, direction, reducer}]
    limits: [{metric, reducer, max | min | max_ratio_to_baseline, alarm_above | alarm_below}]
    baseline: {param: value}     # trial 0: verl's defaults for the tuned knobs
    confirm: {top_k, repeats}    # re-run the best and the baseline, interleaved
    sampler: {name, seed, n_startup_trials, prune_at}
    sim: {prompt_tokens, response_tokens, response_spread, gpu}   # what `--backend sim` assumes (sim_section.py)
    trials: 20                   # default trial count

Every error names file:line, the rule, and the fix. Parsing lives in `loader.py`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Literal

from autotune.space.sim_section import SimSettings

ParamType = Literal["categorical", "int", "float", "bool"]
Direction = Literal["maximize", "minimize"]
Reducer = Literal["median", "mean", "min", "max", "last"]
REDUCERS: tuple[Reducer, ...] = ("median", "mean", "min", "max", "last")
METRIC_ALIASES = {
    "memory": (
        "perf/max_memory_allocated_gb",
        "perf/tensor_memory_gb",
        "actor/perf/max_memory_allocated_gb",  # verl 0.9 logs memory under the role's prefix
        "critic/perf/max_memory_allocated_gb",
        "perf/cpu_memory_used_gb",
        "actor/perf/cpu_memory_used_gb",
    )
}
"""`memory`: device memory on a GPU run; on a CPU run the trainer's own tensor memory (params, grads,
optimizer state, activations, rollout weights, KV cache), which responds to the knobs as device
memory does; peak host RSS only for a trainer that logs neither."""


@dataclass(frozen=True)
class Param:
    name: str
    type: ParamType
    choices: tuple[Any, ...] | None = None
    low: float | None = None
    high: float | None = None
    log: bool = False
    step: float | None = None
    when: dict[str, Any] = field(default_factory=dict)
    where: str = ""

    @property
    def is_env(self) -> bool:
        return self.name.startswith("env.")

    @property
    def is_variable(self) -> bool:
        return "." not in self.name

    def contains(self, value: Any) -> bool:
        if self.type == "bool":
            return isinstance(value, bool)
        if self.type == "categorical":
            return value in (self.choices or ())
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            return False
        assert self.low is not None and self.high is not None
        return self.low <= value <= self.high


@dataclass(frozen=True)
class Derived:
    key: str
    term: Any
    when: dict[str, Any] = field(default_factory=dict)
    where: str = ""


@dataclass(frozen=True)
class Constraint:
    kind: Literal["divides", "at_least", "at_most"]
    left: Any
    right: Any
    when: dict[str, Any] = field(default_factory=dict)
    where: str = ""

    def describe(self) -> str:
        from autotune.space.expr import render

        verb = {"divides": "must divide", "at_least": "must be at least", "at_most": "must be at most"}[self.kind]
        return f"{render(self.left)} {verb} {render(self.right)}"


@dataclass(frozen=True)
class Objective:
    metric: str
    direction: Direction = "maximize"
    reducer: Reducer = "median"
    where: str = ""


@dataclass(frozen=True)
class Limit:
    metric: str
    reducer: Reducer = "median"
    max: float | None = None
    min: float | None = None
    max_ratio_to_baseline: float | None = None
    alarm_above: float | None = None
    alarm_below: float | None = None
    where: str = ""


@dataclass(frozen=True)
class TrialSettings:
    steps: int = 12
    """Training steps per trial."""
    warmup_steps: int = 2
    """Leading steps excluded from scoring (start-up, allocator warm-up)."""
    world_size: int = 2
    """Ranks per trial (GPUs, or CPU processes)."""
    timeout_s: float = 300.0
    """Hard wall-clock limit of one trial."""
    hang_timeout_s: float = 60.0
    """A trial that writes no new step for this long is killed as hung."""
    startup_grace_s: float = 120.0
    """Extra time allowed before the first step (process start, imports, model build)."""
    repeats: int = 1
    """Runs per sampled configuration (their scores are averaged)."""
    threads_per_rank: int = 1
    """OMP_NUM_THREADS of each rank, so a trial never oversubscribes the cores."""

    def __post_init__(self) -> None:
        for name in ("steps", "world_size", "repeats", "threads_per_rank", "timeout_s", "hang_timeout_s"):
            if getattr(self, name) <= 0:
                raise ValueError(f"`trial.{name}` must be > 0, got {getattr(self, name)}")
        if self.startup_grace_s < 0:
            raise ValueError(f"`trial.startup_grace_s` must be >= 0, got {self.startup_grace_s}")
        if not 0 <= self.warmup_steps < self.steps:
            raise ValueError(
                f"`trial.warmup_steps` must be >= 0 and < `trial.steps` ({self.steps}), got {self.warmup_steps}"
            )


@dataclass(frozen=True)
class ConfirmSettings:
    top_k: int = 2
    repeats: int = 0
    """Interleaved re-runs of the top-k and the baseline (0: no confirmation)."""

    def __post_init__(self) -> None:
        if self.top_k <= 0:
            raise ValueError(f"`confirm.top_k` must be > 0, got {self.top_k}")
        if self.repeats < 0:
            raise ValueError(f"`confirm.repeats` must be >= 0 (0: no confirmation), got {self.repeats}")


SamplerName = Literal["tpe", "gp", "cmaes", "nsga2", "nsga3", "qmc", "random", "grid"]
SAMPLERS: tuple[SamplerName, ...] = ("tpe", "gp", "cmaes", "nsga2", "nsga3", "qmc", "random", "grid")
CONSTRAINT_AWARE: tuple[SamplerName, ...] = ("tpe", "gp", "nsga2", "nsga3")
"""Samplers that read the limits as Optuna constraints; qmc, random and grid do not learn at all."""


@dataclass(frozen=True)
class SamplerSettings:
    name: SamplerName = "tpe"
    """Optuna sampler: tpe (default), gp, cmaes, nsga2, nsga3, qmc, random or grid."""
    seed: int | None = 0
    n_startup_trials: int = 6
    """Random trials before a model-based sampler (tpe, gp, cmaes) models the space."""
    prune_at: float | None = 0.5
    """Fraction of `trial.steps` after which the pruner decides, once, whether a trial goes on
    (null: never prune). A trial past that step always finishes."""

    def __post_init__(self) -> None:
        if self.name not in SAMPLERS:
            raise ValueError(f"`sampler.name` must be one of {', '.join(SAMPLERS)}, got {self.name!r}")
        if self.n_startup_trials < 0:
            raise ValueError(f"`sampler.n_startup_trials` must be >= 0, got {self.n_startup_trials}")
        if self.prune_at is not None and not 0.0 < self.prune_at < 1.0:
            raise ValueError(
                f"`sampler.prune_at` must be a fraction of the steps in (0, 1), or null, got {self.prune_at}"
            )

    def prune_step(self, trial: TrialSettings) -> int | None:
        """The one step at which the pruner may stop a trial: after warm-up, before the last step."""
        if self.prune_at is None:
            return None
        step = max(trial.warmup_steps + 1, math.ceil(self.prune_at * trial.steps))
        return step if step < trial.steps else None


@dataclass
class Space:
    name: str
    path: str
    text: str
    trainer: Literal["builtin", "verl"]
    base_config: list[str]
    base: dict[str, Any]
    base_where: dict[str, str]
    env: dict[str, str]
    trial: TrialSettings
    params: list[Param]
    derived: list[Derived]
    constraints: list[Constraint]
    objectives: list[Objective]
    limits: list[Limit]
    baseline: dict[str, Any]
    confirm: ConfirmSettings
    sampler: SamplerSettings
    trials: int
    command: list[str] | None = None
    """Launcher prefix of the verl trainer (default: python -m verl.trainer.main_ppo)."""
    unmeasured: tuple[str, ...] = ()
    """Limit metrics the trainer does not log (skipped, with a warning)."""
    warnings: list[str] = field(default_factory=list)
    sim: SimSettings = field(default_factory=SimSettings)
    """Expected lengths and device for the cost model (`--backend sim`)."""

    @property
    def tuned_keys(self) -> list[str]:
        """Config keys and env.NAMEs a trial sets beyond the base (params and derived keys)."""
        keys = [p.name for p in self.params if not p.is_variable]
        return keys + [d.key for d in self.derived if d.key not in keys]

    def param(self, name: str) -> Param:
        for p in self.params:
            if p.name == name:
                return p
        raise KeyError(
            f"`{name}` is not a param of space `{self.name}` (params: {', '.join(p.name for p in self.params)})"
        )
