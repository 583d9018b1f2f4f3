"""Drop knobs that are inert on this platform from a space, fixing them at their baseline values."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable

from autotune.adapters import DeviceKind, get_adapter
from autotune.space.schema import Space

KnobStatus = Callable[[str, DeviceKind, int], tuple[bool, str]]
"""(key, device, world) -> (active, why): a trainer adapter's `knob_status`, or a fidelity's view of it."""


def inert_params(space: Space, knob_status: KnobStatus, device: DeviceKind) -> list[str]:
    """The tuned knobs (not variables) that cannot act on `device`, in the space's order."""
    world = space.trial.world_size
    return [p.name for p in space.params if not p.is_variable and not knob_status(p.name, device, world)[0]]


def freeze(space: Space, device: DeviceKind) -> Space:
    """The space with the knobs that cannot act on `device` fixed at their baseline values."""
    adapter = get_adapter(space.trainer, space.command)
    return fixed_at_baseline(space, inert_params(space, adapter.knob_status, device))


def fixed_at_baseline(space: Space, names: list[str]) -> Space:
    """The space without the params `names`: each set to its baseline value in the base config (or the
    environment, for `env.*` knobs), so every trial runs it there and an export states it."""
    if not names:
        return space
    frozen = [p for p in space.params if p.name in names]
    base, env = dict(space.base), dict(space.env)
    for p in frozen:
        value = space.baseline.get(p.name)
        if p.is_env:
            if value is not None:
                env[p.name[4:]] = str(value)
        elif p.name in space.baseline:
            base[p.name] = value
    return dataclasses.replace(
        space,
        base=base,
        env=env,
        params=[p for p in space.params if p.name not in names],
        baseline={k: v for k, v in space.baseline.items() if k not in names},
        warnings=[w for w in space.warnings if not any(f"`{n}`" in w for n in names)],
    )
