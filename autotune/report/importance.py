"""Parameter importances with their noise: PED-ANOVA point estimates and bootstrap intervals above noise.

At sweep sizes (tens of trials) PED-ANOVA ranks knobs that cannot matter above knobs that do; the
intervals say which rankings the data supports.
"""

from __future__ import annotations

import math
from collections import Counter

import numpy as np
import optuna
import pandas as pd

from autotune.space.schema import Space
from autotune.trial.record import TrialRecord, outcome_of

MIN_TRIALS_FOR_IMPORTANCE = 8
"""Completed trials below which no importance is shown (PED-ANOVA's top decile would be one trial)."""
IMPORTANCE_COLUMNS = ["param", "importance", "excess", "low", "high", "noise", "settled"]
TOP_SHARE = 0.1
"""The best trials PED-ANOVA contrasts with the rest (its `target_quantile`, Optuna's default)."""


def _oriented(study: optuna.Study, space: Space) -> tuple[list[optuna.trial.FrozenTrial], list[float]]:
    """Completed trials and their first objective, negated when maximised (PED-ANOVA ranks for minimisation). A
    trial that reused an earlier one's result is left out: the same configuration counted twice."""
    complete = [
        t
        for t in study.get_trials(deepcopy=False)
        if outcome_of(t) == "complete" and t.values and TrialRecord.of(t).duplicate_of is None
    ]
    sign = -1.0 if space.objectives[0].direction == "maximize" else 1.0
    return complete, [sign * t.values[0] for t in complete]


def importance_count(study: optuna.Study, space: Space) -> int:
    """How many trials the importances are computed over (completed, each configuration once)."""
    return len(_oriented(study, space)[0])


def _settled(trials: list[optuna.trial.FrozenTrial], values: list[float], name: str) -> str:
    """`value in N%` when a choice knob's most sampled value is also the value of every one of the best trials:
    the sampler settled on it, and PED-ANOVA, which contrasts the best trials with the trials sampled, cannot
    rank the knob (a 300-trial simulated sweep called `use_dynamic_bsz`, on in 88% of its trials and worth its
    whole 1.85x, "no better than chance"; a share cut at 80% missed it at 150 trials, on in 79.7%). Empty
    otherwise; `values` are oriented, lower better. A value left unset reads `unset`, as everywhere else."""
    having = [(t, v) for t, v in zip(trials, values, strict=True) if name in t.params]
    if not having or not isinstance(having[0][0].distributions[name], optuna.distributions.CategoricalDistribution):
        return ""
    counts = Counter(repr(t.params[name]) for t, _ in having)
    top, n = counts.most_common(1)[0]
    best = sorted(having, key=lambda tv: tv[1])[: max(2, math.ceil(TOP_SHARE * len(having)))]
    if n * 2 <= len(having) or any(repr(t.params[name]) != top for t, _ in best):
        return ""
    return f"{'unset' if top == 'None' else top} in {n / len(having):.0%}"  # "None in 67%" (audit 27 F16)


def _ped_anova(trials: list[optuna.trial.FrozenTrial], values: list[float]) -> dict[str, float]:
    """Raw (unnormalised) PED-ANOVA importance of each param for `values` (lower is better)."""
    view = optuna.create_study(directions=["minimize"])
    view.add_trials(
        [
            optuna.trial.create_trial(params=t.params, distributions=t.distributions, values=[v])
            for t, v in zip(trials, values, strict=True)
        ]
    )
    try:
        return dict(optuna.importance.PedAnovaImportanceEvaluator().evaluate(view))
    except (ValueError, RuntimeError, ZeroDivisionError):
        return {}


def importances(study: optuna.Study, space: Space) -> pd.Series:
    """PED-ANOVA importance of each param for the first objective (normalised shares, point estimates).

    PED-ANOVA ranks for minimisation; a maximised objective is negated first so the important
    params are the ones that separate the *fastest* trials from the rest.
    """
    complete, values = _oriented(study, space)
    if len(complete) < 4:
        return pd.Series(dtype=float)
    raw = _ped_anova(complete, values)
    total = sum(raw.values())
    if not raw or total <= 0:
        return pd.Series(dtype=float)
    return pd.Series({k: v / total for k, v in raw.items()}, dtype=float).sort_values(ascending=False)


def importance_intervals(
    study: optuna.Study, space: Space, resamples: int = 30, level: float = 0.9, seed: int = 0
) -> pd.DataFrame:
    """Each param's PED-ANOVA importance above noise, with a bootstrap interval.

    For each bootstrap resample of the completed trials the importance is computed twice: on the
    resample, and on the same resample with its objective values shuffled (what pure noise scores
    at this sample size). The difference is the importance *above noise*; `low`/`high` are its
    central `level` interval and `noise` is True when that interval includes zero. Empty with fewer
    than MIN_TRIALS_FOR_IMPORTANCE completed trials.
    """
    complete, values = _oriented(study, space)
    if len(complete) < MIN_TRIALS_FOR_IMPORTANCE:
        return pd.DataFrame(columns=IMPORTANCE_COLUMNS)
    point = _ped_anova(complete, values)
    resamples = max(10, min(resamples, 1500 // len(complete)))  # a 200-trial sim sweep: 10, so a refresh stays cheap
    rng = np.random.default_rng(seed)
    excess: dict[str, list[float]] = {k: [] for k in point}
    for _ in range(resamples):
        pick = rng.integers(0, len(complete), len(complete))
        trials, vals = [complete[i] for i in pick], [values[i] for i in pick]
        real, null = _ped_anova(trials, vals), _ped_anova(trials, list(rng.permutation(vals)))
        for k in excess:
            excess[k].append(real.get(k, 0.0) - null.get(k, 0.0))
    tail = (1.0 - level) / 2 * 100
    rows = []
    for k, diffs in excess.items():
        low, high = (float(np.percentile(diffs, q)) for q in (tail, 100 - tail))
        rows.append([k, point[k], float(np.median(diffs)), low, high, low <= 0.0, _settled(complete, values, k)])
    frame = pd.DataFrame(rows, columns=IMPORTANCE_COLUMNS)
    return frame.sort_values("excess", ascending=False).reset_index(drop=True)
