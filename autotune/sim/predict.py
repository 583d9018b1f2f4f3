"""One configuration of a space predicted by the cost model: the path every entry point takes.

`autotune run --fidelity sim` predicts each trial this way (the sweep's fidelity is `sim_fidelity`'s, and
every trial's config is resolved as the trainer resolves it before the cost model sees it),
`autotune.predict` is this module's `predict_space`, and `benchmarks/sim_published.py` writes each published
run as a space and predicts it here, so the accuracy it measures is the accuracy a user of the CLI gets.

The steps: the space's base and the trial's params become the trial's keys (as for a real trial); the
trainer resolves them (verl: its defaults and its config interpolations, `adapters.verl.resolved_config`);
the device comes from `--gpu`, else the space's `sim.gpu`, else the calibration's, else H100; the model shape
from `--model` or `actor_rollout_ref.model.path`; expected lengths and the vLLM version from `sim:`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from autotune.adapters import get_adapter
from autotune.sim.model import Calibration, CostModel, Prediction
from autotune.sim.sim_fidelity import CostModelFidelity
from autotune.sim.workload import context_problem, rollout_tp_problem
from autotune.space.sampling import given_params, trial_config
from autotune.space.schema import Space
from autotune.trial.fidelity import FidelitySettings


def sim_fidelity(
    space: Space, gpu: str | None = None, calibration: dict[str, Any] | None = None, model: str | None = None
) -> CostModelFidelity:
    """The cost model on the device a simulated sweep predicts for (`CostModelFidelity.for_sweep`)."""
    return CostModelFidelity.for_sweep(space, FidelitySettings(gpu=gpu, model=model, calibration=calibration))


@dataclass(frozen=True)
class PredictedTrial:
    """A configuration as the cost model saw it, and what it predicts."""

    flat: dict[str, Any]
    """Every key as the trainer resolves the trial (defaults and interpolations included)."""
    env: dict[str, str]
    world: int
    cost: CostModel
    prediction: Prediction

    def features(self) -> dict[str, dict[str, float]]:
        """The cost model's features per phase (what calibration fits weights to)."""
        return self.cost.features(self.flat, self.env, self.world)[1]


def predict_trial(space: Space, fidelity: CostModelFidelity, params: dict[str, Any] | None = None) -> PredictedTrial:
    """One trial of the space (default: its baseline) predicted as a simulated sweep predicts it."""
    adapter = get_adapter(space.trainer, space.command)
    config = trial_config(space, adapter, dict(space.baseline if params is None else params))
    flat = adapter.resolved(space.base_config, config.flat)
    world = adapter.ranks(flat, space.trial.world_size)  # as a simulated trial: the ranks the trainer starts
    cost = fidelity.cost_model(flat, world)
    return PredictedTrial(flat, dict(config.env), world, cost, cost.predict(flat, config.env, world))


def predict_space(
    space: Space | str,
    params: dict[str, Any] | None = None,
    gpu: str | None = None,
    calibration: dict[str, Any] | Calibration | None = None,
    model: str | None = None,
) -> PredictedTrial:
    """A space (or its file or shipped name) predicted at its baseline, or at `params` (the others at their
    baseline values), as `autotune run --space ... --fidelity sim [--gpu ...] [--calibration ...]` predicts that
    trial; a setting the sweep could not sample (an unknown param, a value outside its domain, a broken
    constraint, a rollout TP the engine refuses) is refused with a ValueError naming it, as is a calibration that
    is not one (the check `--calibration FILE` gets)."""
    if isinstance(space, str):
        from autotune.space.loader import load_space

        space = load_space(space)
    if isinstance(calibration, Calibration):  # `autotune.sim.load_calibration(path)`'s
        calibration = calibration.raw
    if calibration is not None:  # as `--calibration FILE` is checked: a wrong weight crashed the prediction
        from autotune.sim.model import calibration_problem

        problem = calibration_problem(calibration)
        if problem:
            raise ValueError(f"calibration: not an autotune calibration: {problem}")
    fidelity = sim_fidelity(space, gpu, calibration, model)
    if params is not None:  # a setting the sweep could sample: refused otherwise (ValueError naming the param)
        params = given_params(space, get_adapter(space.trainer, space.command), params)
    trial = predict_trial(space, fidelity, params)
    problem = rollout_tp_problem(trial.flat, model) or context_problem(
        trial.flat, fidelity.model_positions(trial.flat)
    )  # a simulated sweep's trial of it is `invalid`
    if problem:
        raise ValueError(problem)
    return trial
