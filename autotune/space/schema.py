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

Every error names file:line, the rule, and the fix. A rule about one value lives on its dataclass
(`__post_init__`); rules that need the trainer's keys or other sections live in `sections.py` and
`knobs.py`, which `loader.py` composes. `Space.to_data`/`Space.from_data` store the space that ran.
"""

from __future__ import annotations

import decimal
import math
from dataclasses import dataclass, field, fields, replace
from typing import Any, Literal, get_args

from autotune.adapters.base import TRAINERS
from autotune.names import study_name_problem
from autotune.space import serialize
from autotune.space.quality_section import QualitySettings
from autotune.space.roles import ROLES, Role, role_fix, table_role
from autotune.space.sim_section import SimSettings

ParamType = Literal["categorical", "int", "float", "bool"]
Direction = Literal["maximize", "minimize"]
Reducer = Literal["median", "mean", "min", "max", "last"]
REDUCERS: tuple[Reducer, ...] = get_args(Reducer)
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


class SpaceRuleError(ValueError):
    """A value that breaks a rule of the space; `field` names the setting the rule is about (None: the
    whole entry), so the loader can point at that setting's line."""

    def __init__(self, *problems: str, field: str | None = None) -> None:
        super().__init__("; ".join(problems))
        self.problems = list(problems)
        self.field = field


PARAM_TYPES: tuple[ParamType, ...] = get_args(ParamType)
ConstraintKind = Literal["divides", "at_least", "at_most"]
CONSTRAINT_KINDS: tuple[ConstraintKind, ...] = get_args(ConstraintKind)


def _number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def number_text_hint(value: Any) -> str:
    """Why a number the user wrote is text here, and the fix ("" when it is not such a number): YAML 1.1 reads
    `1e-4` (no dot) as a string, where Python and the user read a number (audit 25 F9)."""
    if isinstance(value, str) and _float_text(value):
        return f"; YAML reads {value} as text, not a number: write {_with_dot(value)}"
    return ""


def _float_text(text: str) -> bool:
    """`text` is a number Python reads and YAML 1.1 does not (`1e-4`, `5E3`: an exponent without a dot)."""
    try:
        float(text)
    except ValueError:
        return False
    return text.strip().lower() not in ("nan", "inf", "-inf", "+inf", "infinity", "-infinity")


def _with_dot(text: str) -> str:
    """`1e-4` as YAML 1.1 reads it as a number: `1.0e-4` (a dot, and a sign on the exponent: `5.0e+3`)."""
    mantissa, _, exponent = text.strip().lower().partition("e")
    if not exponent:
        return text
    sign = "" if exponent[0] in "+-" else "+"
    return f"{mantissa if '.' in mantissa else mantissa + '.0'}e{sign}{exponent}"


def _finite(value: float) -> bool:
    try:
        return math.isfinite(value)
    except OverflowError:  # an int past a float's range
        return False


def _check_distinct(label: str, choices: list[Any] | tuple[Any, ...]) -> None:
    """A repeated choice is sampled twice as often as the others and listed twice in the report."""
    seen: list[Any] = []
    for choice in choices:
        if any(choice == s and isinstance(choice, bool) == isinstance(s, bool) for s in seen):  # True is not 1
            raise SpaceRuleError(f"{label}: choice {choice!r} is listed twice in `choices`; list each value once")
        seen.append(choice)


def _check_step_divides(label: str, kind: str, low: Any, high: Any, step: Any) -> None:
    """Optuna would quietly narrow a range `step` does not divide (its own warning names no file), so a
    value the file promises would never be tried. Decimal on the written numbers, as Optuna checks it."""
    if kind == "int" and not float(step).is_integer():
        raise SpaceRuleError(f"{label}: an int range needs an integer `step`, got {step!r}", field="step")
    d_low, d_high, d_step = (decimal.Decimal(str(v)) for v in (low, high, step))
    if (d_high - d_low) % d_step != 0:
        below = (d_high - d_low) // d_step * d_step + d_low
        raise SpaceRuleError(
            f"{label}: `step` {step} does not divide the range {low}..{high}, so {high} would never be tried; "
            f"set `high` to {_plain(below)} or {_plain(below + d_step)}, or choose a step that divides "
            f"{_plain(d_high - d_low)}",
            field="step",
        )


def _plain(d: decimal.Decimal) -> str:
    """A decimal as written by hand: 6.5 and 0.3, not 6.50 and 0.30 (nor 1E+1)."""
    return format(d.normalize(), "f")


def _check_when(label: str, when: Any) -> None:
    if not isinstance(when, dict):
        raise SpaceRuleError(f"{label}: `when` must map keys to values")


@dataclass(frozen=True)
class Param:
    """One knob a trial samples: a config key, `env.NAME`, or a variable used by derived keys."""

    name: str
    type: ParamType
    choices: tuple[Any, ...] | None = None
    """The values of a categorical (a bool's are False and True)."""
    low: float | None = None
    """Lower bound of an int or float range (inclusive)."""
    high: float | None = None
    """Upper bound of an int or float range (inclusive)."""
    log: bool = False
    """Sample the range on a log scale (needs low > 0)."""
    step: float | None = None
    """Spacing of the sampled values (not with log)."""
    when: dict[str, Any] = field(default_factory=dict)
    """Sampled only when these keys hold these values."""
    where: str = ""
    """file:line of the param in the space file."""
    role: Role | None = None
    """systems or algorithm (see roles.py); None takes the built-in table's role for a config key or
    `env.NAME`, and for a variable the role of the derived keys it feeds (set by the Space)."""

    def __post_init__(self) -> None:
        label = f"param `{self.name}`"
        self._resolve_role(label)
        if self.type not in PARAM_TYPES:
            raise SpaceRuleError(f"{label}: `type` must be categorical, int, float or bool, got {self.type!r}")
        _check_when(label, self.when)
        if self.type == "categorical":
            if not isinstance(self.choices, (list, tuple)) or not self.choices:
                raise SpaceRuleError(f"{label}: a categorical needs a non-empty `choices` list")
            _check_distinct(label, self.choices)
            object.__setattr__(self, "choices", tuple(self.choices))
        elif self.type == "bool":
            object.__setattr__(self, "choices", (False, True))
        else:
            low, high = self._checked_range(label)
            object.__setattr__(self, "low", float(low))
            object.__setattr__(self, "high", float(high))

    def _resolve_role(self, label: str) -> None:
        if self.role is not None:
            if self.role not in ROLES:
                raise SpaceRuleError(f"{label}: `role` must be systems or algorithm, got {self.role!r}", field="role")
            return
        if self.is_variable:
            return  # the Space gives it the role of the derived keys it feeds
        role = table_role(self.name)
        if role is None:
            raise SpaceRuleError(
                f"{label}: `{self.name}` is not in the built-in table of roles; {role_fix(self.name)} "
                "(systems: changes speed or memory, never the math; algorithm: changes what is learned)"
            )
        object.__setattr__(self, "role", role)

    def _checked_range(self, label: str) -> tuple[float, float]:
        low, high, step = self.low, self.high, self.step
        if low is None or high is None or not (_number(low) and _number(high)):
            why = number_text_hint(low) or number_text_hint(high)
            raise SpaceRuleError(
                f"{label}: {self.type} needs numeric `low` and `high`, got low={low!r} high={high!r}{why}"
            )
        if not (_finite(low) and _finite(high)):
            raise SpaceRuleError(f"{label}: `low` and `high` must be finite numbers, got low={low!r} high={high!r}")
        if low >= high:
            fixed = f"; to hold it at {low}, set it under `base:` instead of searching it" if low == high else ""
            raise SpaceRuleError(f"{label}: bad range, `low` ({low}) must be < `high` ({high}){fixed}", field="low")
        if self.log and low <= 0:
            raise SpaceRuleError(f"{label}: a log-scale range needs low > 0, got low={low}", field="log")
        if step is not None and (not isinstance(step, (int, float)) or step <= 0 or self.log):
            raise SpaceRuleError(f"{label}: `step` must be > 0 and cannot be combined with log", field="step")
        if self.type == "int" and not (float(low).is_integer() and float(high).is_integer()):
            raise SpaceRuleError(f"{label}: an int range needs integer bounds, got {low!r}..{high!r}")
        if step is not None:
            _check_step_divides(label, self.type, low, high, step)
        return low, high

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


def _variable_role(p: Param, derived: list[Derived]) -> Param:
    """A variable is an algorithm knob when any derived key it feeds is one (else systems)."""
    from autotune.space.expr import ExprError, names

    def uses(d: Derived) -> set[str]:
        try:
            return {*names(d.term), *d.when}
        except ExprError:  # a malformed term is reported where it is parsed
            return set(d.when)

    feeds = [d for d in derived if p.name in uses(d)]
    role: Role = "algorithm" if any(d.role == "algorithm" for d in feeds) else "systems"
    return replace(p, role=role)


@dataclass(frozen=True)
class Derived:
    """A config key computed from params and other keys (see expr.py)."""

    key: str
    term: Any
    when: dict[str, Any] = field(default_factory=dict)
    """Set only when these keys hold these values."""
    where: str = ""
    role: Role | None = None
    """systems or algorithm; None takes the built-in table's role for the key."""

    def __post_init__(self) -> None:
        label = f"derived `{self.key}`"
        _check_when(label, self.when)
        if self.role is not None and self.role not in ROLES:
            raise SpaceRuleError(f"{label}: `role` must be systems or algorithm, got {self.role!r}")
        role = self.role or table_role(self.key)
        if role is None:
            raise SpaceRuleError(
                f"{label}: `{self.key}` is not in the built-in table of roles; write it as "
                "`{value: ..., role: systems}` or `role: algorithm`"
            )
        object.__setattr__(self, "role", role)


@dataclass(frozen=True)
class Constraint:
    """A rule between two terms that every sampled trial must satisfy (else it is never launched)."""

    kind: ConstraintKind
    left: Any
    right: Any
    when: dict[str, Any] = field(default_factory=dict)
    where: str = ""

    def __post_init__(self) -> None:
        if self.kind not in CONSTRAINT_KINDS:
            raise SpaceRuleError(f"a constraint is one of {'|'.join(CONSTRAINT_KINDS)}, got {self.kind!r}")
        _check_when("constraint", self.when)

    def describe(self) -> str:
        from autotune.space.expr import render

        verb = {"divides": "must divide", "at_least": "must be at least", "at_most": "must be at most"}[self.kind]
        return f"{render(self.left)} {verb} {render(self.right)}"


@dataclass(frozen=True)
class Objective:
    """A metric the sampler optimises, reduced over a trial's scored steps."""

    metric: str
    direction: Direction = "maximize"
    reducer: Reducer = "median"
    where: str = ""

    def __post_init__(self) -> None:
        problems = []
        if self.direction not in ("maximize", "minimize"):
            problems.append(
                f"objective `{self.metric}`: direction must be maximize or minimize, got {self.direction!r}"
            )
        if self.reducer not in REDUCERS:
            problems.append(
                f"objective `{self.metric}`: reducer must be one of {', '.join(REDUCERS)}, got {self.reducer!r}"
            )
        if problems:
            raise SpaceRuleError(*problems)


LIMIT_BOUNDS = ("max", "min", "max_ratio_to_baseline", "alarm_above", "alarm_below")


@dataclass(frozen=True)
class Limit:
    """A bound on a metric: a trial past `max`/`min` is infeasible; past `alarm_*` it is stopped."""

    metric: str
    reducer: Reducer = "median"
    max: float | None = None
    min: float | None = None
    max_ratio_to_baseline: float | None = None
    """At most this multiple of the baseline trial's value."""
    alarm_above: float | None = None
    """Stop the trial as soon as one step's value exceeds this."""
    alarm_below: float | None = None
    """Stop the trial as soon as one step's value falls below this."""
    where: str = ""

    def __post_init__(self) -> None:
        bounds = {name: getattr(self, name) for name in LIMIT_BOUNDS}
        problems = []
        if all(b is None for b in bounds.values()):
            problems.append(f"limit `{self.metric}` sets no bound ({', '.join(LIMIT_BOUNDS)})")
        for name, value in bounds.items():
            if value is not None and not (_number(value) and not (isinstance(value, float) and math.isnan(value))):
                problems.append(f"limit `{self.metric}`: `{name}` must be a number, got {value!r}"
                                + (number_text_hint(value) or f"; e.g. `{name}: 0.5`"))  # fmt: skip
        if self.reducer not in REDUCERS:
            problems.append(f"limit `{self.metric}`: reducer must be one of {', '.join(REDUCERS)}")
        if not problems and self.min is not None and self.max is not None and self.min > self.max:
            # accepted, every trial came back infeasible after the sweep had spent its time (audit 25 F3)
            problems.append(f"limit `{self.metric}`: `min` {self.min:g} > `max` {self.max:g}, so no value can pass; "
                            "swap them, or keep the one you mean")  # fmt: skip
        if problems:
            raise SpaceRuleError(*problems)


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
            if getattr(self, name) <= 0:  # each with an example, as `quality:`'s say (audit 25 F10)
                raise ValueError(f"`trial.{name}` must be > 0, got {getattr(self, name)}; e.g. `{name}: "
                                 f"{_default_of(TrialSettings, name)}` (the default)")  # fmt: skip
        if self.startup_grace_s < 0:
            raise ValueError(f"`trial.startup_grace_s` must be >= 0, got {self.startup_grace_s}; e.g. "
                             "`startup_grace_s: 120` (the default)")  # fmt: skip
        if not 0 <= self.warmup_steps < self.steps:
            raise ValueError(
                f"`trial.warmup_steps` must be >= 0 and < `trial.steps` ({self.steps}), got {self.warmup_steps}; "
                f"e.g. `warmup_steps: {min(2, self.steps - 1)}`"
            )


def _default_of(settings: type, name: str) -> Any:
    """A settings dataclass's default for `name`, as written in YAML (`300`, not `300.0`)."""
    value = next(f.default for f in fields(settings) if f.name == name)
    return int(value) if isinstance(value, float) and value.is_integer() else value


@dataclass(frozen=True)
class ConfirmSettings:
    top_k: int = 2
    repeats: int = 0
    """Interleaved re-runs of the top-k and the baseline (0: no confirmation)."""
    ablation_repeats: int | None = None
    """Interleaved rounds of the ablation that keeps only the winner's changes that clear the noise
    (None: as many as `repeats`; 0: no ablation, the confirmed winner ships whole)."""
    ablation_max_repeats: int | None = None
    """Rounds a change still within noise may get in all: while its gain points up but its interval
    reaches 1.0, the baseline, the winner and the winner without it run one more round, up to this
    many (None: no more than `ablation_repeats`)."""

    def __post_init__(self) -> None:
        if self.top_k <= 0:
            raise ValueError(f"`confirm.top_k` must be > 0, got {self.top_k}; e.g. `top_k: 2` (the default)")
        if self.repeats < 0:
            raise ValueError(f"`confirm.repeats` must be >= 0 (0: no confirmation), got {self.repeats}")
        if self.ablation_repeats is not None and self.ablation_repeats < 0:
            raise ValueError(f"`confirm.ablation_repeats` must be >= 0 (0: no ablation), got {self.ablation_repeats}")
        if self.ablation_max_repeats is not None and self.ablation_max_repeats < 2:
            raise ValueError(f"`confirm.ablation_max_repeats` must be >= 2, got {self.ablation_max_repeats}")

    @property
    def ablation_rounds(self) -> int:
        return self.repeats if self.ablation_repeats is None else self.ablation_repeats


SamplerName = Literal["tpe", "gp", "cmaes", "nsga2", "nsga3", "qmc", "random", "grid"]
SAMPLERS: tuple[SamplerName, ...] = get_args(SamplerName)
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


def trials_problem(value: Any) -> str | None:
    """Why `value` cannot be a space's `trials`, or None."""
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        return f"`trials` must be a whole number >= 1 (finished trials per sweep), got {value!r}"
    return None


@dataclass
class Space:
    """A checked search space: everything a sweep needs, with no file or trainer left to read."""

    name: str
    path: str
    """The space file it was read from (for messages; never re-read)."""
    text: str
    """The file's text as written."""
    trainer: str
    """The trainer it runs on, `--trainer` applied: a registered one (`autotune.adapters.TRAINERS`)."""
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
    quality: QualitySettings | None = None
    """The quality stage's settings (`quality:`; None: the space has no quality stage)."""
    held: list[Param] = field(default_factory=list)
    """Params of the file this stage does not search, each fixed at its baseline value (in `base`,
    `env`, or as a one-value param for a variable): the throughput stage holds the algorithm knobs
    (see stages.py)."""

    def __post_init__(self) -> None:
        trouble = study_name_problem(self.name) or trials_problem(self.trials)
        if trouble:
            raise ValueError(trouble)
        if self.trainer not in TRAINERS:
            raise ValueError(f"`trainer` must be one of {', '.join(TRAINERS)}, got {self.trainer!r}")
        self.params = [p if p.role else _variable_role(p, self.derived) for p in self.params]

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

    def to_data(self) -> dict[str, Any]:
        """The space as plain data (str, int, float, bool, None, list, dict): what a study stores."""
        return serialize.to_stored(self)

    @classmethod
    def from_data(cls, stored: Any) -> Space:
        """The space `to_data` wrote, rebuilt without reading a file or asking the trainer; a
        malformed value raises `serialize.SpaceDataError` naming the field."""
        space = serialize.from_stored(cls, stored)
        assert isinstance(space, Space)
        return space
