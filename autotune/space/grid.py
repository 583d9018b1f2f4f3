"""Rules between a space and its sampler, and the grid a grid sampler walks."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from autotune.space.schema import Param, Space

GRID_MAX = 10_000
"""Configurations a grid may hold (a grid sweep that never ends is a mistake, not a plan)."""


def sampler_problem(space: Space) -> str | None:
    """Why this space cannot use its sampler, or None."""
    name = space.sampler.name
    if name == "cmaes" and len(space.objectives) > 1:
        return "`sampler.name: cmaes` optimises one objective; use tpe, gp, nsga2 or nsga3 for several"
    if name == "grid":
        try:
            grid(space)
        except ValueError as exc:
            return str(exc)
    return None


def grid(space: Space) -> dict[str, list[Any]]:
    """Every param's values: choices, both booleans, or a range with its `step`."""
    out = {p.name: _values(p) for p in space.params}
    size = math.prod(len(v) for v in out.values())
    if size > GRID_MAX:
        raise ValueError(
            f"`sampler.name: grid` would hold {size} configurations (at most {GRID_MAX}); coarsen the steps"
        )
    return out


def _values(p: Param) -> list[Any]:
    if p.type == "categorical":
        return list(p.choices or ())
    if p.type == "bool":
        return [False, True]
    assert p.low is not None and p.high is not None
    if p.type == "int":
        step = int(p.step or 1)
        return list(range(int(p.low), int(p.high) + 1, step))
    if p.step is None:
        raise ValueError(f"`sampler.name: grid` needs a finite set of values: give param `{p.name}` a `step`")
    count = math.floor((p.high - p.low) / p.step + 1e-9) + 1
    return [float(v) for v in np.round(p.low + p.step * np.arange(count), 12)]
