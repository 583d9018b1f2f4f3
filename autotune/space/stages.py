"""The stages of a sweep as views of one space: what each searches, and what it holds fixed.

The throughput stage searches the systems knobs only. Its trials are a dozen steps long: what an
algorithm knob (the KL coefficient, a clip ratio, the PPO epochs) does to learning does not show
there, so a value the sampler drew beside a fast systems setting would be exported because of
noise. The stage holds every algorithm param at its baseline value — in every trial, in
confirmation and in the export — and keeps the params it held (`Space.held`) so that `validate`,
`best` and the report say they were not searched. The same mechanism fixes inert knobs
(`freeze.fixed_at_baseline`).
"""

from __future__ import annotations

import dataclasses
from typing import Any

from autotune.space.freeze import fixed_at_baseline
from autotune.space.schema import Param, Space

NOT_SEARCHED = "not searched by the throughput stage"
"""How a held algorithm knob is described wherever it is listed."""


def throughput_stage(space: Space) -> Space:
    """The space the throughput stage searches: algorithm params held at their baseline values.

    Config keys and `env.*` knobs move into `base`/`env` (as `--freeze-inert` does); a variable
    becomes a one-value param at its baseline value (variables have no place in `base`), or is
    dropped when it has none (its condition does not hold at the baseline). Idempotent.
    """
    algorithm = [p for p in space.params if p.role == "algorithm" and not _pinned(p, space)]
    if not algorithm:
        return space
    staged = fixed_at_baseline(space, [p.name for p in algorithm if not p.is_variable])
    params = []
    for p in staged.params:
        if p in algorithm and p.is_variable:
            if p.name in space.baseline:
                params.append(_pin(p, space.baseline[p.name]))
            continue
        params.append(p)
    return dataclasses.replace(staged, params=params, held=[*space.held, *algorithm])


def held_values(space: Space) -> dict[str, Any]:
    """{held param: the value every trial of the stage ran with} (None: left at the trainer's default)."""
    out: dict[str, Any] = {}
    for p in space.held:
        if p.is_env:
            out[p.name] = space.env.get(p.name[4:])
        elif p.is_variable:
            out[p.name] = space.baseline.get(p.name)
        else:
            out[p.name] = space.base.get(p.name)
    return out


def describe_held(space: Space) -> list[str]:
    """One line per held param: `name = value (role, not searched by the throughput stage)`."""
    return [
        f"{name} = {'(trainer default)' if value is None else value} ({NOT_SEARCHED}: an algorithm knob, held at its baseline)"
        for name, value in held_values(space).items()
    ]


def _pin(p: Param, value: Any) -> Param:
    return dataclasses.replace(p, type="categorical", choices=(value,), low=None, high=None, log=False, step=None)


def _pinned(p: Param, space: Space) -> bool:
    """Already held (a variable the stage pinned to its baseline value)."""
    return p.is_variable and any(h.name == p.name for h in space.held)
