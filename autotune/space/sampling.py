"""From a space to one trial's config: sample params, apply derived keys, check constraints."""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any, Protocol

from autotune.adapters.base import TrainerAdapter
from autotune.space import expr
from autotune.space.schema import Constraint, Param, Space


class Suggester(Protocol):
    """The subset of optuna.Trial a space needs (also satisfied by fixed values, for replays)."""

    def suggest_categorical(self, name: str, choices: Any) -> Any: ...
    def suggest_int(self, name: str, low: int, high: int, *, step: int = 1, log: bool = False) -> int: ...
    def suggest_float(
        self, name: str, low: float, high: float, *, step: float | None = None, log: bool = False
    ) -> float: ...


@dataclass
class TrialConfig:
    """What one trial runs: verl-keyed config (base + tuned), its environment, and the sampled params."""

    params: dict[str, Any]
    flat: dict[str, Any]
    env: dict[str, str]
    tuned: dict[str, Any] = field(default_factory=dict)
    """Keys beyond the base (params and derived), the part that distinguishes this trial."""


class ConstraintViolation(ValueError):
    """A sampled combination that breaks a space constraint (never launched)."""


def holds(condition: dict[str, Any], values: dict[str, Any]) -> bool:
    return all(values.get(k) == v for k, v in condition.items())


def suggest(trial: Suggester, space: Space, defaults: dict[str, Any]) -> dict[str, Any]:
    """Sample every param whose `when` holds, in file order (later params may depend on earlier)."""
    context = {**defaults, **space.base}
    values: dict[str, Any] = {}
    for p in space.params:
        if not holds(p.when, {**context, **values}):
            continue
        values[p.name] = _suggest_one(trial, p)
    return values


def _suggest_one(trial: Suggester, p: Param) -> Any:
    if p.type in ("categorical", "bool"):
        return trial.suggest_categorical(p.name, list(p.choices or (False, True)))
    assert p.low is not None and p.high is not None
    if p.type == "int":
        return trial.suggest_int(p.name, int(p.low), int(p.high), step=int(p.step or 1), log=p.log)
    return trial.suggest_float(p.name, p.low, p.high, step=p.step, log=p.log)


def _on_step(p: Param | None, value: Any) -> Any:
    """A stepped float param's value at the step's decimals: Optuna's low + k·step carries float noise
    (0.4 + 4 · 0.05 = 0.6000000000000001), which would reach the trial's config and the exported YAML."""
    if p is None or p.type != "float" or p.step is None or not isinstance(value, float):
        return value
    return round(value, _decimals(p.step))


def _decimals(step: float) -> int:
    """Decimal places of a step as written (0.05 -> 2, 0.1 -> 1, 2.0 -> 0)."""
    exponent = Decimal(repr(float(step))).normalize().as_tuple().exponent
    return max(0, -exponent) if isinstance(exponent, int) else 0


def materialize(
    space: Space, values: dict[str, Any], defaults: dict[str, Any], key_types: dict[str, Any]
) -> TrialConfig:
    """The trial's config: base, then param values, then derived keys; the env from `env.*` params."""
    flat = dict(space.base)
    tuned: dict[str, Any] = {}
    env = dict(space.env)
    by_name = {p.name: p for p in space.params}
    values = {name: _on_step(by_name.get(name), value) for name, value in values.items()}
    for name, value in values.items():
        if name.startswith("env."):
            if value is None:
                env.pop(name[4:], None)
            else:
                env[name[4:]] = str(value)
            tuned[name] = value
        elif "." in name:
            flat[name] = value
            tuned[name] = value
    context = {**defaults, **flat, **values, **_trial_fields(space)}
    for d in space.derived:
        if not holds(d.when, context):
            continue
        try:
            number: float | int = expr.value_of(d.term, context)
        except expr.ExprError as exc:  # e.g. a conditional param used outside its condition
            raise ConstraintViolation(
                f"{d.where}: derived `{d.key}`: {exc}; give it a `when` under which every name it uses has a value"
            ) from None
        if (isinstance(number, int) and abs(number) > 2**63) or not math.isfinite(number):
            raise ConstraintViolation(
                f"{d.where}: derived `{d.key}` is {number}: its terms overflow; narrow their ranges"
            )
        if key_types.get(d.key) is int or (key_types.get(d.key) == int | None):
            number = math.floor(number + 0.5)
        flat[d.key] = number
        tuned[d.key] = number
        context[d.key] = number
    return TrialConfig(params=dict(values), flat=flat, env=env, tuned=tuned)


def given_params(space: Space, adapter: TrainerAdapter, params: dict[str, Any]) -> dict[str, Any]:
    """A setting given by hand (`autotune.predict(space, params)`) as a sweep's trial would have it: the params
    not given at their baseline values, each given one a param of the space, inside its domain, with its `when`
    holding, and the whole inside the constraints; otherwise ValueError naming the param and the fix."""
    from verl_keys.keys import suggest_key

    by_name = {p.name: p for p in space.params}
    for name in params:
        if name not in by_name:
            hint = suggest_key(name, by_name)
            raise ValueError(
                f"`{name}` is not a param of space `{space.name}`" + (f"; did you mean `{hint}`?" if hint else "")
                + f" (its params: {', '.join(by_name)})"
            )  # fmt: skip
    defaults = adapter.defaults(space.base_config)
    values, context = {**space.baseline, **params}, {**defaults, **space.base}
    chosen: dict[str, Any] = {}
    for p in space.params:  # in file order, as `suggest` samples them
        condition = ", ".join(f"{k} is {v!r}" for k, v in p.when.items())
        if not holds(p.when, {**context, **chosen}):
            if p.name in params:
                raise ValueError(f"`{p.name}` applies only when {condition}: leave it out, or give that too")
            continue
        if p.name not in values:
            raise ValueError(f"`{p.name}` applies when {condition} and the baseline has no value for it: give one")
        if not p.contains(values[p.name]):
            domain = f"choices {list(p.choices or ())}" if p.type == "categorical" else (
                "values true and false" if p.type == "bool" else f"range [{p.low}, {p.high}]")  # fmt: skip
            raise ValueError(f"`{p.name}` = {values[p.name]!r} is outside the param's {domain}")
        if p.type in ("int", "float") and not _sampleable(p, values[p.name]):
            assert p.low is not None and p.step is not None
            grid = ", ".join(f"{p.low + i * p.step:g}" for i in range(3))
            raise ValueError(
                f"`{p.name}` = {values[p.name]!r} is off the param's step {p.step:g}: the sweep samples {grid}, ..."
            )
        chosen[p.name] = values[p.name]
    check_constraints(space, trial_config(space, adapter, chosen, defaults), defaults)
    return chosen


def _sampleable(p: Param, value: float) -> bool:
    """Whether a sweep could sample `value`: on the param's step grid from its low (an int param: a whole number)."""
    if p.type == "int" and not float(value).is_integer():
        return False
    if not p.step or p.low is None:
        return True
    k = (value - p.low) / p.step
    return abs(k - round(k)) < 1e-9


def _trial_fields(space: Space) -> dict[str, Any]:
    return {f"trial.{k}": v for k, v in vars(space.trial).items()}


def check_constraints(space: Space, config: TrialConfig, defaults: dict[str, Any]) -> None:
    context = {**defaults, **config.flat, **config.params, **_trial_fields(space)}
    for c in space.constraints:
        if holds(c.when, context) and not _satisfied(c, context):
            raise ConstraintViolation(f"{c.where}: constraint violated: {c.describe()} ({_values(c, context)})")


def _satisfied(c: Constraint, context: dict[str, Any]) -> bool:
    left, right = expr.value_of(c.left, context), expr.value_of(c.right, context)
    if c.kind == "divides":
        return left != 0 and right % left == 0
    if c.kind == "at_least":
        return left >= right
    return left <= right


def _values(c: Constraint, context: dict[str, Any]) -> str:
    return f"{expr.value_of(c.left, context):g} vs {expr.value_of(c.right, context):g}"


class FixedSuggester:
    """Replays known param values through `suggest` (baseline, confirmations, duplicates)."""

    def __init__(self, values: dict[str, Any]) -> None:
        self.values = values

    def suggest_categorical(self, name: str, choices: Any) -> Any:
        return self.values[name]

    def suggest_int(self, name: str, low: int, high: int, *, step: int = 1, log: bool = False) -> int:
        return int(self.values[name])

    def suggest_float(
        self, name: str, low: float, high: float, *, step: float | None = None, log: bool = False
    ) -> float:
        return float(self.values[name])


def trial_config(
    space: Space, adapter: TrainerAdapter, params: dict[str, Any], defaults: dict[str, Any] | None = None
) -> TrialConfig:
    """The trial's keys and environment from its params (`defaults`: the trainer's, when already resolved)."""
    defaults = adapter.defaults(space.base_config) if defaults is None else defaults
    key_types = {k: info.type for k, info in adapter.keys().items()}
    return materialize(space, params, defaults, key_types)
