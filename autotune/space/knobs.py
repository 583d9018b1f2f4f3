"""The sections that name knobs: `params`, `derived` and `constraints`.

A name in a term or a `when` must be a param, a config key of the trainer, or a trial setting;
those checks need all three sections at once, so they live here rather than on the dataclasses
(which check each value on its own: ranges, choices, kinds).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Collection
from typing import Any, cast

from autotune.adapters.base import TrainerAdapter
from autotune.names import env_name_problem
from autotune.space import expr
from autotune.space.schema import (
    CONSTRAINT_KINDS,
    Constraint,
    ConstraintKind,
    Derived,
    Param,
    SpaceRuleError,
    TrialSettings,
)
from autotune.space.yaml_reader import Reader
from verl_keys.keys import coerce, suggest_key

PARAM_FIELDS = ("type", "choices", "low", "high", "log", "step", "when", "role")
_NOT_FOR = {
    "bool": (
        ("choices", "low", "high", "log", "step"),
        "it searches false and true; for one value, set it under `base:`; for a list, use `type: categorical`",
    ),
    "categorical": (("low", "high", "log", "step"), "it searches its `choices`; for a range, use `type: int` or float"),
    "int": (("choices",), "it searches `low`..`high`; for a list of values, use `type: categorical`"),
    "float": (("choices",), "it searches `low`..`high`; for a list of values, use `type: categorical`"),
}
"""The fields each type does not read, and what to write instead."""
NO_PARAMS = (
    "the space tunes nothing: add `params:` with at least one knob, e.g. "
    "`actor_rollout_ref.actor.fsdp_config.reshard_after_forward: {type: bool}`"
)


def parse_params(r: Reader, raw: Any, adapter: TrainerAdapter) -> list[Param]:
    keys = adapter.keys()
    specs = r.mapping(raw, "params")
    if not specs and not r.problems:
        r.error(r.at("params"), NO_PARAMS)
    params = []
    for name, spec in specs.items():
        if _known_name(r, name, keys, adapter.open_map):
            param = _param(r, name, spec, adapter)
            if param is not None:
                params.append(param)
    return params


def _known_name(r: Reader, name: str, keys: dict[str, Any], open_map: Callable[[str], str | None]) -> bool:
    """A param names an environment variable, a trainer key (dotted; one in a map the trainer leaves open, verl's
    `actor_rollout_ref.rollout.engine_kwargs.vllm.swap_space`, too), or a variable (no dots)."""
    if name.startswith("env."):
        trouble = env_name_problem(name.removeprefix("env."))
        if trouble:
            r.error(r.at("params", name), f"param `{name}`: {trouble}")
        return not trouble
    if "." in name and name not in keys and open_map(name) is None:
        hint = suggest_key(name, keys)
        fix = (
            f"; did you mean `{hint}`?" if hint else
            ": not a key of the trainer's config (a dotted name is one; a name without dots is a variable for "
            "`derived:`); check its spelling against `autotune validate --space` of a shipped space"
        )  # fmt: skip
        r.error(r.at("params", name), f"unknown key `{name}`{fix}")
        return False
    return True


def _param(r: Reader, name: str, spec: Any, adapter: TrainerAdapter) -> Param | None:
    where = r.at("params", name)
    if not isinstance(spec, dict):
        r.error(where, f"param `{name}` must be a mapping like {{type: int, low: 1, high: 8}}")
        return None
    unknown = sorted(set(spec) - set(PARAM_FIELDS), key=str)
    for extra in unknown:
        hint = suggest_key(str(extra), PARAM_FIELDS)
        r.error(
            r.at("params", name, extra),
            f"param `{name}`: unknown field `{extra}`"
            + (f"; did you mean `{hint}`?" if hint else f" (fields: {', '.join(sorted(PARAM_FIELDS))})"),
        )
    if unknown:  # its other problems follow from the misspelling (`choises`: "needs a non-empty `choices`")
        return None
    ptype: Any = spec.get("type")  # checked by Param
    unused = [f for f in _NOT_FOR[ptype][0] if f in spec] if ptype in _NOT_FOR else []
    if unused:  # read and dropped without a word: `{type: bool, choices: [true]}` searched both (audit 25 F17)
        r.error(where, f"param `{name}`: {', '.join(f'`{f}`' for f in unused)} does not apply to a {ptype} "
                       f"({_NOT_FOR[ptype][1]})")  # fmt: skip
        return None
    if name.startswith("env.") and ptype == "categorical" and isinstance(spec.get("choices"), list):
        nested = [c for c in spec["choices"] if isinstance(c, (dict, list))]
        if nested:  # a trial's variable read "{'a': 1}"
            r.error(where, f"param `{name}`: an environment variable's value is a string, a number or null (unset), "
                           f"got {nested[0]!r}")  # fmt: skip
            return None
    domain: dict[str, Any] = {}
    if ptype == "categorical":
        domain = {"choices": spec.get("choices")}
    elif ptype in ("int", "float"):
        domain = {k: spec.get(k) for k in ("low", "high", "step")} | {"log": bool(spec.get("log", False))}
    try:
        param = Param(name, ptype, **domain, when=spec.get("when") or {}, where=where, role=spec.get("role"))
    except SpaceRuleError as exc:
        at = r.at("params", name, exc.field) if exc.field else where
        for problem in exc.problems:
            r.error(at, problem)
        return None
    _check_key_type(r, param, adapter)
    return param


def _check_key_type(r: Reader, p: Param, adapter: TrainerAdapter) -> None:
    """The param's values must be values of the trainer key it sets."""
    known = adapter.keys()
    key_type = known[p.name].type if p.name in known else None
    if key_type is None:
        return
    if p.type == "categorical":
        for choice in p.choices or ():
            try:
                coerce(choice, key_type)
            except TypeError as exc:
                r.error(r.at("params", p.name, "choices"), f"param `{p.name}`: choice {choice!r} {exc}")
    elif p.type == "float" and key_type is int:
        r.error(p.where, f"param `{p.name}`: the key is an integer; use `type: int`")


@dataclasses.dataclass(frozen=True)
class Names:
    """What a term or a `when` may refer to."""

    keys: dict[str, Any]
    """The trainer's config keys."""
    known: frozenset[str]
    """Config keys, the space's variables and `trial.*` settings."""
    declared: frozenset[str] = frozenset()
    """Every name under `params:`, also those refused (their own error says why)."""

    @classmethod
    def of(cls, keys: dict[str, Any], declared: set[str], open_keys: Collection[str] = frozenset()) -> Names:
        """`declared`: every name under `params:`, also those refused (their own error says why); `open_keys`: keys
        the space sets in the trainer's open maps (in `base:` or as params)."""
        variables = {name for name in declared if "." not in name}
        trial = {f"trial.{f.name}" for f in dataclasses.fields(TrialSettings)}
        return cls(keys, frozenset({*keys, *open_keys, *variables, *trial}), frozenset(declared))

    def check_term(self, r: Reader, term: Any, at: str, label: str) -> None:
        try:
            for n in expr.names(term):
                if n not in self.known:
                    hint = suggest_key(n, self.known)
                    r.error(
                        at,
                        f"{label}: `{n}` is not a param, config key or trial setting"
                        + (f"; did you mean `{hint}`?" if hint else ""),
                    )
        except expr.ExprError as exc:
            r.error(at, f"{label}: {exc}")

    def check_when(self, r: Reader, cond: dict[str, Any], at: str, label: str) -> None:
        for k in cond:
            if k not in self.known and not k.startswith("env."):
                hint = suggest_key(k, self.known)
                r.error(at, f"{label}: `when` refers to `{k}`, which is neither a param nor a config key"
                            + (f"; did you mean `{hint}`?" if hint else ""))  # fmt: skip


def check_param_conditions(
    r: Reader, params: list[Param], names: Names, fixed: Callable[[str], tuple[Any, str]] | None = None
) -> None:
    """Each param's `when` names known keys and can hold: a param it names can take the value, and a key that is
    not a param (`fixed(key)`: its value in this space and where it comes from) has it. A `when` that can never
    hold leaves its knob never sampled, though the space lists it as searched."""
    by_name = {p.name: p for p in params}
    for p in params:
        label = f"param `{p.name}`"
        names.check_when(r, p.when, p.where, label)
        for key, wanted in p.when.items():
            never = f"{label}: `when` can never hold, so the knob is never sampled: `{key}`"
            other = by_name.get(key)
            if other is not None:
                takes = _never_takes(other, wanted)
                if takes is not None:
                    r.error(p.where, f"{never} takes {takes} and never {wanted!r}")
            elif fixed is not None and key in names.keys and key not in names.declared:  # a refused param: said
                value, where = fixed(key)
                if value != wanted:
                    r.error(p.where, f"{never} is not a param and is {value!r} ({where}), never {wanted!r}; make it a "
                                     "param, set it in `base:`, or drop the `when`")  # fmt: skip


def _never_takes(p: Param, value: Any) -> str | None:
    """What `p` takes, when `value` is not among it (None when it can take `value`)."""
    if p.type in ("categorical", "bool"):
        choices = list(p.choices or (False, True))
        if any(value == c and isinstance(value, bool) == isinstance(c, bool) for c in choices):  # True is not 1
            return None
        return "only " + ", ".join(repr(c) for c in choices)
    assert p.low is not None and p.high is not None
    if isinstance(value, (int, float)) and not isinstance(value, bool) and p.low <= value <= p.high:
        return None
    return f"values in [{p.low:g}, {p.high:g}]"


def parse_derived(r: Reader, raw: Any, names: Names, params: set[str] | None = None) -> list[Derived]:
    """The `derived:` section, computed in the order listed (`sampling.materialize`). `params`: the names under
    `params:`; a key searched there and computed here ran the computed value while `validate`, `best` and the
    export said the param's (audit 25 F1)."""
    derived: list[Derived] = []
    for key, spec in r.mapping(raw, "derived").items():
        at, label = r.at("derived", key), f"derived `{key}`"
        if key not in names.keys:
            hint = suggest_key(key, names.keys)
            r.error(at, f"derived: unknown key `{key}`" + (f"; did you mean `{hint}`?" if hint else ""))
            continue
        if key in (params or ()):
            r.error(at, f"{label} is also a param ({r.at('params', key)}): every trial would run the computed value, "
                        "not the sampled one; search it under `params:` or compute it here, not both")  # fmt: skip
            continue
        when: Any = {}
        role: Any = None
        if isinstance(spec, dict) and "value" in spec:
            when, role, spec = spec.get("when") or {}, spec.get("role"), spec["value"]
        names.check_term(r, spec, at, label)
        try:
            item = Derived(key, spec, when, at, role)
        except SpaceRuleError as exc:
            r.error(at, str(exc))
            continue
        names.check_when(r, item.when, at, label)
        derived.append(item)
    _check_derived_order(r, derived)
    return derived


def _check_derived_order(r: Reader, derived: list[Derived]) -> None:
    """A derived key uses only derived keys listed above it: they are computed in order, so one that used itself or a
    key computed after it read that key's `base:` or default value, and two that used each other failed every trial
    with advice to add a `when` (audit 25 F5)."""
    uses = {d.key: _names_or_none(d.term) for d in derived}
    for i, d in enumerate(derived):
        label = f"derived `{d.key}`"
        if d.key in uses[d.key]:
            r.error(d.where, f"{label} uses itself: it would read its `base:` or default value, not a computed one; "
                             "compute it from params and other keys")  # fmt: skip
        for later in derived[i + 1 :]:
            if later.key not in uses[d.key]:
                continue
            if d.key in uses[later.key]:
                r.error(d.where, f"{label} and derived `{later.key}` ({later.where}) use each other: neither can be "
                                 "computed first; compute one of them from params and other keys only")  # fmt: skip
            else:
                r.error(d.where, f"{label} uses derived `{later.key}`, listed below it ({later.where}): derived keys "
                                 f"are computed in the order listed, so it would read `{later.key}`'s `base:` or "
                                 f"default value; move `{later.key}` above it")  # fmt: skip


def _names_or_none(term: Any) -> list[str]:
    """The names a term uses; none for a term that is not one (refused already, by `Names.check_term`)."""
    try:
        return expr.names(term)
    except expr.ExprError:
        return []


def check_variables_used(r: Reader, params: list[Param], derived: list[Derived]) -> None:
    """A variable (a param without dots) only means something through a derived key."""
    if r.problems:
        return
    used = {n for d in derived for n in expr.names(d.term)}
    for p in params:
        if p.is_variable and p.name not in used:
            r.error(p.where, f"param `{p.name}` is not a config key (no dots) and no derived key uses it; "
                    "name a verl key, `env.NAME`, or use it in `derived`")  # fmt: skip


def check_roles(r: Reader, params: list[Param], derived: list[Derived]) -> None:
    """An algorithm key derived from systems params would let a systems change alter the math."""
    if r.problems:
        return
    systems = {p.name for p in params if p.role == "systems"}
    for d in derived:
        if d.role != "algorithm":
            continue
        used = sorted(systems & {*expr.names(d.term), *d.when})
        if used:
            r.error(
                d.where,
                f"derived `{d.key}` changes what is learned (role algorithm) but depends on systems "
                f"param(s) {', '.join(f'`{n}`' for n in used)}: a speed setting would change the math; "
                "give them `role: algorithm`",
            )


def parse_constraints(r: Reader, raw: Any, names: Names) -> list[Constraint]:
    constraints: list[Constraint] = []
    for i, item in enumerate(r.sequence(raw or None, "constraints")):
        at = r.at("constraints", str(i))
        kinds = [k for k in CONSTRAINT_KINDS if isinstance(item, dict) and k in item]
        if len(kinds) != 1 or not isinstance(item[kinds[0]], list) or len(item[kinds[0]]) != 2:
            r.error(at, "a constraint is one of {divides|at_least|at_most: [term, term]}, optionally with `when`")
            continue
        left, right = item[kinds[0]]
        names.check_term(r, left, at, "constraint")
        names.check_term(r, right, at, "constraint")
        try:
            constraint = Constraint(cast(ConstraintKind, kinds[0]), left, right, item.get("when") or {}, at)
        except SpaceRuleError as exc:
            r.error(at, str(exc))
            continue
        names.check_when(r, constraint.when, at, "constraint")
        constraints.append(constraint)
    return constraints
