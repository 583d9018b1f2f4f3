"""A simulated sweep's winner, reduced to the changes the cost model credits.

The best trial of a simulated sweep differs from the baseline in every knob the sampler happened to
draw, and the model may predict that most of those differences do nothing. Nothing in it is measured,
so nothing has earned its place the way a real sweep's ablation makes a change earn it; what the model
can still say is how much of its predicted gain each change carries, and a change it credits with
nothing has no reason to be in a production config:

    each change   the configuration that ships so far with that change (a param and those its `when`
                  switches on) back at its baseline value, predicted through the sweep's own fidelity,
                  limits and baseline; its gain is the configuration with it over without it
    drop          the change whose reversal costs least goes back to its baseline value when that
                  costs under `PREDICTED_FLOOR` (1%) and the configuration without it completes and
                  keeps the limits; the others are then predicted again, until every remaining change
                  carries at least the floor (one change at a time: two changes that each do the work
                  of the other would otherwise both look free and both go)
    what ships    the winner with the dropped changes at baseline, and its predicted speedup

The result is a `PredictedWinner` (study/results.py), written to `runs/<study>/predicted.json` and read by
`find_winner`, so `best`, `export --predicted` and the report show the credited changes; the
configurations predicted are in `runs/<study>/predicted/<n>-<knob>/`. A few dozen predictions: seconds.
"""

from __future__ import annotations

import json
import math
import re
import shutil
from pathlib import Path
from typing import Any

import optuna

from autotune.adapters.base import TrainerAdapter
from autotune.space.schema import Space
from autotune.study.progress import SweepProgress
from autotune.study.results import PREDICTED_FLOOR, PredictedChange, PredictedWinner, best_trial
from autotune.study.storage import StudyPaths, baseline_trial
from autotune.sweep.ablation import reset
from autotune.sweep.explain import Knob, configure, knobs
from autotune.trial.evaluation import evaluate
from autotune.trial.fidelity import Fidelity
from autotune.trial.record import TrialRecord


def credit_changes(
    study: optuna.Study,
    space: Space,
    adapter: TrainerAdapter,
    paths: StudyPaths,
    fidelity: Fidelity,
    progress: SweepProgress,
    floor: float = PREDICTED_FLOOR,
) -> PredictedWinner | None:
    """Credit the best predicted trial's changes and write `predicted.json`; None without a baseline or a
    feasible trial."""
    base = baseline_trial(study)
    best = best_trial(study, [o.direction for o in space.objectives])
    if base is None or not base.values or best is None:
        return None
    objective = space.objectives[0]
    maximize = objective.direction == "maximize"
    defaults = adapter.defaults(space.base_config)
    base_params = dict(base.params)
    winner_params = configure(space, defaults, dict(best.params))
    changes, _, _ = knobs(space, base_params, winner_params)
    limits = dict(TrialRecord.of(base).limits)
    folder = paths.root / "predicted"
    shutil.rmtree(folder, ignore_errors=True)
    count = [0]

    def predict(params: dict[str, Any], label: str) -> tuple[float, str]:
        """(the objective, "" when the configuration completes inside the limits, else why not)."""
        count[0] += 1
        trial_dir = folder / f"{count[0]:03d}-{re.sub(r'[^A-Za-z0-9_.-]+', '_', label)[:60]}"
        ev = evaluate(space, adapter, params, trial_dir, limits, fidelity=fidelity)
        if ev.outcome != "complete" or ev.objectives is None:
            return math.nan, f"{ev.reason or ev.outcome}: {ev.detail}" if ev.detail else str(ev.reason or ev.outcome)
        return ev.objectives[0], ""

    def gain(with_it: float, without: float) -> float:
        return with_it / without if maximize else without / with_it

    kept: list[Knob] = list(changes)
    dropped: list[PredictedChange] = []
    shipped = winner_params
    value, why = predict(shipped, "winner")
    if why:  # the sweep's trial completed; a prediction that does not is a fault, not a winner to credit
        progress.note(f"[yellow]the best predicted trial #{best.number} no longer predicts: {why}[/]")
        return None
    credited: list[PredictedChange] = []
    while True:
        credited = []
        for knob in kept:
            without = reset(space, defaults, base_params, shipped, knob.params)
            other, why = predict(without, f"without-{knob.name}")
            credited.append(
                PredictedChange(
                    knob=knob.name,
                    label=knob.label,
                    params=dict(knob.params),
                    baseline={k: base_params.get(k) for k in knob.params},
                    gain=math.nan if why else gain(value, other),
                    without=why,
                )
            )
        free = [c for c in credited if not c.without and c.gain < 1.0 + floor]
        if not free:
            break
        least = min(free, key=lambda c: c.gain)
        least.kept = False
        dropped.append(least)
        kept = [k for k in kept if k.name != least.knob]
        shipped = reset(space, defaults, base_params, shipped, least.params)
        value, _ = predict(shipped, f"shipped-{len(dropped)}")
    record = TrialRecord.of(best)
    result = PredictedWinner(
        study=paths.name,
        winner=best.number,
        objective=objective.metric,
        maximize=maximize,
        device=_prediction_field(record.dir, "device"),
        weights=_prediction_field(record.dir, "weights"),
        floor=floor,
        changes=[*credited, *dropped],
        shipped=shipped,
        baseline_value=base.values[0],
        winner_value=best.values[0],
        shipped_value=value,
    )
    result.write(paths)
    return result


def _prediction_field(trial_dir: str | None, key: str) -> str:
    """What the trial's `prediction.json` says of `key` (the device, the weights), or ""."""
    if not trial_dir:
        return ""
    try:
        return str(json.loads((Path(trial_dir) / "prediction.json").read_text()).get(key, ""))
    except (OSError, ValueError):
        return ""
