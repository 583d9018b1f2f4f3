"""Declarative arithmetic for derived keys and constraints (no `eval` of user text).

A term is a number, a name (a space variable, a config key, or `trial.world_size`), or a
one-key mapping `{sum: [terms]}`, `{product: [terms]}`, `{max: [terms]}`, `{min: [terms]}`.

    actor_rollout_ref.actor.ppo_max_token_len_per_gpu:
      product: [actor_token_mult, {sum: [data.max_prompt_length, data.max_response_length]}]
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from typing import Any

OPS: dict[str, Callable[[list[float]], float]] = {"sum": sum, "product": math.prod, "max": max, "min": min}
"""Integers stay integers (a micro-batch derived from one is `2`, not `2.0`, which verl's batching cannot take)."""


class ExprError(ValueError):
    """A malformed expression or a name that is not defined."""


def names(term: Any) -> list[str]:
    """Every name a term refers to."""
    if isinstance(term, bool):
        raise ExprError(f"a boolean ({term}) is not a number")
    if isinstance(term, (int, float)):
        return []
    if isinstance(term, str):
        return [term]
    if isinstance(term, Mapping) and len(term) == 1:
        ((op, args),) = term.items()
        if op not in OPS:
            raise ExprError(f"unknown operation {op!r} (use one of {', '.join(OPS)})")
        if not isinstance(args, list) or not args:
            raise ExprError(f"`{op}` takes a non-empty list of terms")
        return [n for a in args for n in names(a)]
    raise ExprError(f"{term!r} is not a term (a number, a name, or {{sum|product|max|min: [terms]}})")


def value_of(term: Any, values: Mapping[str, Any]) -> float:
    """The term's value: an int when every number in it is one (int-valued ops keep them), else a float."""
    if isinstance(term, (int, float)) and not isinstance(term, bool):
        return term
    if isinstance(term, str):
        if term not in values:
            raise ExprError(f"`{term}` has no value here")
        value = values[term]
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise ExprError(f"`{term}` = {value!r} is not a number")
        return value
    ((op, args),) = term.items()
    return OPS[op]([value_of(a, values) for a in args])


def render(term: Any) -> str:
    if isinstance(term, Mapping):
        ((op, args),) = term.items()
        sep = {"sum": " + ", "product": " × "}.get(op)
        inner = [render(a) for a in args]
        return f"({sep.join(inner)})" if sep else f"{op}({', '.join(inner)})"
    return str(term)
