"""The quality search's pruner: successive halving over training steps, with a noise veto (`CurvePruner`)."""

from __future__ import annotations

import math

import optuna
from optuna.trial import FrozenTrial

from autotune.space.quality_section import QualitySettings
from autotune.trial.record import QualityRecord

Z_NOISE = 1.28
"""A rung prunes a run only when its score is below the cut-off by more than this many standard
errors (one-sided 90%): a slow starter within the noise of the runs that go on is not a loser."""


class CurvePruner(optuna.pruners.BasePruner):
    """Optuna's successive halving (asynchronous: ASHA) over training steps, with a noise veto.

    At a rung (min_steps × factor^k), Optuna's `SuccessiveHalvingPruner` keeps the top 1/factor of
    the runs that reached it. A learning curve is noisy, and a slow starter is not a loser unless
    the data say so: when halving would stop a run, it is stopped only if its score plus `Z_NOISE`
    combined standard errors (its own and the cut-off run's, from the steps each score averages)
    still falls below the cut-off. The runs report their score's standard error at each rung as a
    record (`QualityRecord.se`). Runs that broke the KL bound do not count among the competition
    (they learn fastest precisely because they drift furthest).
    """

    def __init__(self, q: QualitySettings) -> None:
        self.inner = optuna.pruners.SuccessiveHalvingPruner(
            min_resource=q.min_steps, reduction_factor=q.reduction_factor, min_early_stopping_rate=0
        )
        self.factor = q.reduction_factor

    def prune(self, study: optuna.Study, trial: FrozenTrial) -> bool:
        step = trial.last_step
        if step is None or not self.inner.prune(study, trial):
            return False
        value, se = trial.intermediate_values[step], _se(trial, step)
        reached = [  # a run that broke the bound is no competition: it cannot win, however fast it learned
            t
            for t in study.get_trials(deepcopy=False)
            if step in t.intermediate_values
            and not math.isnan(t.intermediate_values[step])
            and QualityRecord.of(t).feasible is not False
        ]
        ranked = sorted(reached, key=lambda t: t.intermediate_values[step], reverse=True)
        cut = ranked[max(len(ranked) // self.factor - 1, 0)]
        margin = Z_NOISE * math.hypot(se, _se(cut, step))
        return value + margin < cut.intermediate_values[step]


def _se(trial: FrozenTrial, step: int) -> float:
    se = QualityRecord.of(trial).se.get(str(step))
    return float(se) if isinstance(se, (int, float)) and not math.isnan(se) else 0.0
