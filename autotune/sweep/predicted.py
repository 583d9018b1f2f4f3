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

The result is a `PredictedWinner` (study/predicted_winner.py), written to `runs/<study>/predicted.json` and read by
`find_winner`, so `best`, `export --predicted` and the report show the credited changes; the
configurations predicted are in `runs/<study>/predicted/<n>-<knob>/`. A few dozen predictions: seconds.

`--fidelity sim,real` picks the configurations it runs for real by the same rule (`distinct_candidates`):
the best predicted trials that still differ once each is cut to its credited changes, so its real trials
do not measure one configuration twice (`runs/<study>-sim/distinct/`).
"""

from __future__ import annotations

import math
import re
import shutil
from pathlib import Path
from typing import Any

import optuna

from autotune.adapters.base import TrainerAdapter
from autotune.sim.sim_fidelity import read_prediction
from autotune.space.schema import Space
from autotune.study.predicted_winner import PREDICTED_FLOOR, PredictedChange, PredictedWinner
from autotune.study.progress import SweepProgress
from autotune.study.results import best_trial
from autotune.study.storage import StudyPaths, baseline_trial
from autotune.sweep.ablation import reset
from autotune.sweep.explain import Knob, configure, knobs
from autotune.trial.evaluation import evaluate
from autotune.trial.fidelity import Fidelity
from autotune.trial.record import TrialRecord


class Crediting:
    """The cost model's credit for a configuration's changes from the baseline (the module's rule), against
    one study's baseline, limits and space; each configuration it predicts goes to `folder/<n>-<label>/`."""

    def __init__(
        self,
        space: Space,
        adapter: TrainerAdapter,
        fidelity: Fidelity,
        base: optuna.trial.FrozenTrial,
        folder: Path,
        floor: float = PREDICTED_FLOOR,
    ) -> None:
        self.space, self.adapter, self.fidelity, self.folder, self.floor = space, adapter, fidelity, folder, floor
        self.maximize = space.objectives[0].direction == "maximize"
        self.defaults = adapter.defaults(space.base_config)
        self.base_params = dict(base.params)
        self.limits = dict(TrialRecord.of(base).limits)
        self.count = 0
        self.metrics: dict[str, float] = {}
        """The last prediction's key metrics (of what ships, once `credit` is done: memory, comm share, MFU)."""
        self.shipped_metrics: dict[str, float] = {}
        shutil.rmtree(folder, ignore_errors=True)

    def predict(self, params: dict[str, Any], label: str) -> tuple[float, str]:
        """(the objective, "" when the configuration completes inside the limits, else why not)."""
        self.count += 1
        trial_dir = self.folder / f"{self.count:03d}-{re.sub(r'[^A-Za-z0-9_.-]+', '_', label)[:60]}"
        ev = evaluate(self.space, self.adapter, params, trial_dir, self.limits, fidelity=self.fidelity)
        self.metrics = dict(ev.score.key_metrics) if ev.score else {}
        if ev.outcome != "complete" or ev.objectives is None:
            return math.nan, f"{ev.reason or ev.outcome}: {ev.detail}" if ev.detail else str(ev.reason or ev.outcome)
        return ev.objectives[0], ""

    def gain(self, with_it: float, without: float) -> float:
        return with_it / without if self.maximize else without / with_it

    def credit(self, params: dict[str, Any]) -> tuple[dict[str, Any], float, list[PredictedChange]] | None:
        """(the params that ship, their predicted objective, every change: kept ones credited at what ships,
        dropped ones at the step that dropped them); None when `params` do not predict inside the limits.
        `self.shipped_metrics` is then the prediction of what ships."""
        space, defaults, base = self.space, self.defaults, self.base_params
        shipped = configure(space, defaults, dict(params))
        kept: list[Knob] = knobs(space, base, shipped)[0]
        value, why = self.predict(shipped, "winner")
        self.shipped_metrics = self.metrics
        if why:
            return None
        dropped: list[PredictedChange] = []
        while True:
            credited = []
            for knob in kept:
                other, why = self.predict(reset(space, defaults, base, shipped, knob.params), f"without-{knob.name}")
                credited.append(
                    PredictedChange(
                        knob=knob.name,
                        label=knob.label,
                        params=dict(knob.params),
                        baseline={k: base.get(k) for k in knob.params},
                        gain=math.nan if why else self.gain(value, other),
                        without=why,
                    )
                )
            free = [c for c in credited if not c.without and c.gain < 1.0 + self.floor]
            if not free:
                return shipped, value, [*credited, *dropped]
            least = min(free, key=lambda c: c.gain)
            least.kept = False
            dropped.append(least)
            kept = [k for k in kept if k.name != least.knob]
            shipped = reset(space, defaults, base, shipped, least.params)
            value, _ = self.predict(shipped, f"shipped-{len(dropped)}")
            self.shipped_metrics = self.metrics


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
    from autotune.sweep.confirmation import top_candidates

    base = baseline_trial(study)
    best = best_trial(study, [o.direction for o in space.objectives])
    if base is None or not base.values or best is None:
        return None
    crediting = Crediting(space, adapter, fidelity, base, paths.root / "predicted", floor)
    refused: dict[int, str] = {}
    # the trainer's own check on what would ship (verl's validate_config, a second each: not on every prediction):
    # a configuration verl refuses is passed over, not shipped (one won, and `run --export` wrote it)
    ranked = [best, *(t for t in top_candidates(study, space, REFUSED_AT_MOST) if t.number != best.number)]
    ranked += (
        [] if any(t.number == base.number for t in ranked) else [base]
    )  # the baseline's configuration, which the space's check took, last
    for best in ranked:  # the first whose shipped configuration the trainer takes is the winner
        credited = crediting.credit(dict(best.params))
        if credited is None:  # the sweep's trial completed; a prediction that does not is a fault, not a winner
            progress.note(f"[yellow]the best predicted trial #{best.number} no longer predicts inside the limits[/]")
            return None
        why = _refused(space, adapter, credited[0], crediting.defaults)
        if why is None:
            break
        refused[best.number] = why
        progress.note(f"[yellow]predicted trial #{best.number} passed over: {why}[/]")
    else:
        progress.note(
            f"[yellow]the trainer refuses what each of the best {len(refused)} predicted trials would ship[/]"
        )
        return None
    shipped, value, changes = credited
    predicted_for = read_prediction(TrialRecord.of(best).dir)
    result = PredictedWinner(
        study=paths.name,
        winner=best.number,
        objective=space.objectives[0].metric,
        maximize=crediting.maximize,
        device=str(predicted_for.get("device", "")),
        weights=str(predicted_for.get("weights", "")),
        floor=floor,
        changes=changes,
        shipped=shipped,
        baseline_value=base.values[0],
        winner_value=best.values[0],
        shipped_value=value,
        shipped_metrics=crediting.shipped_metrics,
        refused=refused,
    )
    result.write(paths)
    return result


REFUSED_AT_MOST = 20
"""Predicted trials tried, best first, before a simulated sweep says the trainer refuses what each would ship."""


def _refused(space: Space, adapter: TrainerAdapter, params: dict[str, Any], defaults: dict[str, Any]) -> str | None:
    """Why the trainer refuses the configuration (its own check, as a real trial's), or None: it takes it, or it
    cannot say (verl, an optional extra, not installed)."""
    from autotune.adapters.base import InvalidConfig
    from autotune.adapters.verl_config import VerlNotInstalled
    from autotune.space.sampling import trial_config

    try:
        adapter.check(space.base_config, trial_config(space, adapter, params, defaults).flat, space.trial.world_size)
    except InvalidConfig as exc:
        from autotune.space.loader import older_verl_excuses

        if older_verl_excuses(space, str(exc)):
            return None
        return f"the trainer refuses what it would ship ({str(exc)[:300]})"
    except VerlNotInstalled:
        return None
    return None


def distinct_candidates(
    study: optuna.Study, space: Space, adapter: TrainerAdapter, paths: StudyPaths, fidelity: Fidelity, k: int
) -> tuple[list[optuna.trial.FrozenTrial], int]:
    """The `k` best predicted trials that differ once each is cut to the changes the cost model credits (the
    sampler draws many near-copies of a good configuration, alike but for knobs the model says do nothing;
    real trials of two such copies would measure one configuration twice), and how many were passed over.
    A trial whose credited changes are none (the baseline's configuration) is passed over too."""
    from autotune.sweep.confirmation import top_candidates

    base = baseline_trial(study)
    ranked = top_candidates(study, space, len(study.trials))
    if base is None or not base.values:
        return ranked[:k], 0
    crediting = Crediting(space, adapter, fidelity, base, paths.root / "distinct")
    chosen: list[optuna.trial.FrozenTrial] = []
    seen: list[dict[str, Any]] = [configure(space, crediting.defaults, dict(base.params))]
    skipped = 0
    for trial in ranked[: 10 * k]:  # each costs a few dozen predictions; the best 10k are plenty
        credited = crediting.credit(dict(trial.params))
        if credited is None or credited[0] in seen:
            skipped += 1
            continue
        chosen.append(trial)
        seen.append(credited[0])
        if len(chosen) == k:
            break
    return chosen, skipped
