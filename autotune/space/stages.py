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


def quality_stage(space: Space, systems: dict[str, Any] | None = None) -> Space:
    """The space the quality stage searches: the algorithm params, over its horizon.

    Every systems param is fixed at `systems`' value (the throughput stage's winner; default: the
    baseline), then `quality.base` is applied; the trial settings are the quality section's (its
    steps, world size and a timeout for the horizon). The throughput limits (step time, memory,
    communication) do not apply: the stage judges learning, under its own KL bound.
    """
    from autotune.space.schema import Objective

    q = space.quality
    if q is None:
        raise ValueError(f"space `{space.name}` has no `quality:` section: the quality stage needs one")
    values = {**space.baseline, **(systems or {})}
    fixed = [p for p in space.params if p.role != "algorithm"]
    staged = fixed_at_baseline(
        dataclasses.replace(space, baseline=values), [p.name for p in fixed if not p.is_variable]
    )
    params = []
    for p in staged.params:
        if p in fixed:  # a systems variable: one value (the winner's), or gone when its condition does not hold
            if values.get(p.name) is not None:
                params.append(_pin(p, values[p.name]))
            continue
        params.append(p)
    trial = dataclasses.replace(
        space.trial,
        steps=q.steps,
        warmup_steps=0,
        world_size=q.world_size or space.trial.world_size,
        repeats=1,
        timeout_s=q.run_timeout_s(space.trial.startup_grace_s),
    )
    return dataclasses.replace(
        staged,
        base={**staged.base, **q.base},
        params=params,
        baseline={k: v for k, v in staged.baseline.items() if any(p.name == k for p in params)},
        trial=trial,
        objectives=[Objective(q.score_metric, "maximize", "mean")],
        limits=[],
        held=[],
        warnings=[],
    )


def algorithm_values(space: Space, params: dict[str, Any]) -> dict[str, Any]:
    """The algorithm params among `params` (a quality trial's, or a winner's)."""
    algorithm = {p.name for p in space.params if p.role == "algorithm"}
    return {k: v for k, v in params.items() if k in algorithm}


def systems_values(space: Space, params: dict[str, Any]) -> dict[str, Any]:
    """The systems params among `params` (a winner's, as the quality stage holds them)."""
    algorithm = algorithm_values(space, params)
    return {k: v for k, v in params.items() if k not in algorithm}
