"""Drop knobs that are inert on this platform from a space, fixing them at their baseline values."""

from __future__ import annotations

import dataclasses

from autotune.adapters import DeviceKind, get_adapter
from autotune.space.schema import Space


def freeze(space: Space, device: DeviceKind) -> Space:
    adapter = get_adapter(space.trainer, space.command)
    frozen = [
        p
        for p in space.params
        if not p.is_variable and not adapter.knob_status(p.name, device, space.trial.world_size)[0]
    ]
    if not frozen:
        return space
    base, env = dict(space.base), dict(space.env)
    for p in frozen:
        value = space.baseline.get(p.name)
        if p.is_env:
            if value is not None:
                env[p.name[4:]] = str(value)
        elif p.name in space.baseline:
            base[p.name] = value
    names = {p.name for p in frozen}
    return dataclasses.replace(
        space,
        base=base,
        env=env,
        params=[p for p in space.params if p.name not in names],
        baseline={k: v for k, v in space.baseline.items() if k not in names},
        warnings=[w for w in space.warnings if not any(f"`{n}`" in w for n in names)],
    )
