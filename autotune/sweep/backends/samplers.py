"""Optuna samplers by name, each fed the same feasibility signal.

tpe, gp, nsga2 and nsga3 read every limit (and `run_failed`) as an Optuna constraint
(`trial.set_constraint`), so they learn where the feasible region is. CMA-ES cannot take
constraints: it is told the worst objective seen for an infeasible trial instead (the measured
value stays in the trial's key metrics). qmc, random and grid do not learn from results at all.
Each worker of a study gets its own random stream (seed + 1000 × its arrival order), so parallel
workers do not propose the same configurations; a lone worker is reproducible.
"""

from __future__ import annotations

import logging
import math
from typing import Any

import optuna

from autotune.space.grid import grid
from autotune.space.schema import Space


def make_sampler(space: Space, worker: int = 0) -> optuna.samplers.BaseSampler:
    settings = space.sampler
    seed = None if settings.seed is None else settings.seed + 1000 * worker
    startup = settings.n_startup_trials
    name = settings.name
    if name == "tpe":  # multivariate, constraint-aware; MOTPE when there are several objectives
        return optuna.samplers.TPESampler(seed=seed, n_startup_trials=startup, multivariate=True, constant_liar=True)
    if name == "gp":
        return optuna.samplers.GPSampler(seed=seed, n_startup_trials=startup, warn_independent_sampling=False)
    if name == "cmaes":
        return optuna.samplers.CmaEsSampler(seed=seed, n_startup_trials=startup, warn_independent_sampling=False)
    if name in ("nsga2", "nsga3"):
        population = max(4, startup)  # Optuna's 50 is larger than most sweeps here
        cls = optuna.samplers.NSGAIISampler if name == "nsga2" else optuna.samplers.NSGAIIISampler
        return cls(seed=seed, population_size=population)
    if name == "qmc":
        return optuna.samplers.QMCSampler(seed=seed, warn_independent_sampling=False, warn_asynchronous_seeding=False)
    if name == "grid":
        return _AskTellGrid(grid(space), seed=seed)
    return optuna.samplers.RandomSampler(seed=seed)


def told_penalty(space: Space) -> bool:
    """Whether an infeasible trial's objective is replaced by the worst seen (samplers without constraints)."""
    return space.sampler.name == "cmaes"


class _AskTellGrid(optuna.samplers.GridSampler):
    """Optuna's grid sampler calls `study.stop()` once the grid is walked, which only works inside
    `study.optimize`; this sweep drives ask/tell and stops at its trial count (a repeated grid point
    reuses the earlier result)."""

    def after_trial(self, study: Any, trial: Any, state: Any, values: Any) -> None:
        return None


class _ExhaustedGridSaid(logging.Filter):
    """Optuna warns at every trial past a walked grid ("re-evaluating a configuration because the grid has been
    exhausted ... a timing issue during distributed optimization"): 16 such lines for `--sim-trials 20` over a
    3-point grid. Such a trial repeats a point, its result reused and nothing run; the sweep says so once."""

    def filter(self, record: logging.LogRecord) -> bool:
        return "grid has been exhausted" not in record.getMessage()


logging.getLogger("optuna.samplers._grid").addFilter(_ExhaustedGridSaid())


def grid_repeats(space: Space, n_trials: int, flag: str = "--trials") -> str | None:
    """The sweep's one line when its trial count (`flag`: --sim-trials for sim,real's first stage) walks past the
    grid (None when it does not, or the sampler is not grid)."""
    if space.sampler.name != "grid":
        return None
    size = math.prod(len(v) for v in grid(space).values())
    if n_trials <= size:
        return None
    more = n_trials - size
    return (
        f"the grid holds {size} configurations: the other {more} trial{'s' if more > 1 else ''} repeat"
        f"{'' if more > 1 else 's'} one of them (its result reused, nothing run); {flag} {size} runs the same sweep"
    )
