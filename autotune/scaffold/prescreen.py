"""Which configurations of a new space the cost model predicts to run out of memory, before anything launches.

From the baseline, one knob at a time: every choice of each knob the cost model reads (both ends of a
float range), predicted on the space's GPU. The answer to "why does this OOM?" for the knobs a
sweep will try; `autotune run --fidelity sim` then predicts whole configurations.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from autotune.space.schema import Param, Space

if TYPE_CHECKING:
    from autotune.sim.sim_fidelity import CostModelFidelity

__all__ = ["Screened", "assumed_lengths", "prescreen"]


@dataclass(frozen=True)
class Screened:
    change: str
    """`baseline`, or the one knob changed from it (`tensor_model_parallel_size=1`)."""
    oom: str | None
    """Why it is predicted not to fit; None when it fits."""
    peak_gib: float
    step_s: float


def _values_of(p: Param) -> list[Any]:
    if p.type == "bool":
        return [False, True]
    if p.choices is not None:
        return list(p.choices)
    return [p.low, p.high]


def _completed(space: Space, values: dict[str, Any], context: dict[str, Any]) -> dict[str, Any]:
    """Params whose `when` now holds get their first value (a knob switched on needs its companions)."""
    from autotune.space.sampling import holds

    out = dict(values)
    for p in space.params:
        if p.name not in out and holds(p.when, {**context, **out}):
            out[p.name] = _values_of(p)[0]
    return out


def assumed_lengths(space: Space, gpu: str, model: str | None = None) -> str:
    """The lengths the pre-screen's predictions assume and where each comes from (guessed from the limits when the
    space's `sim:` gives none: its step time was quoted without a word of it, audit 21 F15)."""
    from autotune.adapters import get_adapter

    return _cost_model(space, gpu, model).lengths_note(space, get_adapter(space.trainer, space.command))


def _cost_model(space: Space, gpu: str, model: str | None) -> CostModelFidelity:
    """The cost model `autotune run --space ... --fidelity sim --gpu GPU` predicts by: the space's world of `gpu`s in
    nodes of its `trainer.n_gpus_per_node`, with its `sim:` section."""
    from autotune.sim.sim_fidelity import CostModelFidelity
    from autotune.trial.fidelity import FidelitySettings

    return CostModelFidelity.for_sweep(space, FidelitySettings(gpu=gpu, model=model))


def prescreen(space: Space, gpu: str, model: str | None = None) -> list[Screened]:
    """The baseline and each one-knob change from it, predicted on `gpu` (OOM or not, peak memory, step time) as
    `autotune run --fidelity sim` predicts that trial (`sim.predict.predict_trial`: the trial's keys resolved as verl
    resolves them, a GAE job's critic mini-batch the actor's; from verl's bare defaults it was 256, and the job's
    step time a third longer than the sweep's baseline, audit 36 F4)."""
    from autotune.adapters import get_adapter
    from autotune.sim.predict import predict_trial
    from autotune.sim.sim_fidelity import modelled_status
    from autotune.space.sampling import ConstraintViolation, holds

    inner = get_adapter(space.trainer, space.command)
    world = space.trial.world_size
    sim = _cost_model(space, gpu, model)
    context = {**inner.defaults(space.base_config), **space.base}
    changes: list[tuple[str, dict[str, Any]]] = [("baseline", dict(space.baseline))]
    for p in space.params:
        modelled = p.is_variable or modelled_status(p.name, "cuda", world)[0]
        if not modelled or not holds(p.when, {**context, **space.baseline}):
            continue
        for value in _values_of(p):
            if value != space.baseline.get(p.name):
                label = f"{p.name.rsplit('.', 1)[-1]}={value}"
                changes.append((label, _completed(space, {**space.baseline, p.name: value}, context)))
    out = []
    for label, values in changes:
        try:
            prediction = predict_trial(space, sim, values).prediction
        except ConstraintViolation:
            continue
        out.append(Screened(label, prediction.oom, prediction.memory.peak / 2**30, prediction.step))
    return out
