"""The pruner: one decision per trial, at the step the space names, never once the work is done.

A trial reports the running median of its first objective at every step after warm-up (so later
trials can be compared with it at any step), but the pruner is consulted once, at
`sampler.prune_at` × `trial.steps`: a trial in the bottom quarter of the finished trials' values at
that same step is stopped there; any trial past it runs to the end. Per-step throughput on a
shared machine is noisy and a trial's start-up costs more than its steps, hence one late, lenient
decision instead of a check at every step. A pruned trial keeps its partial objective (shown in the
trials table and the report); the sampler is told PRUNED with the reported values, which TPE ranks
by their last step.
"""

from __future__ import annotations

import statistics
from typing import Any

import optuna
from optuna.trial import Trial

from autotune.space.schema import Space
from autotune.trial.record import is_baseline
from autotune.trial.runner import Monitor

KEEP_PERCENT = 75.0
"""Optuna's PercentilePruner(p) *keeps the best p percent*: 75 keeps the top three quarters, i.e.
stops a trial below the 25th percentile of the finished ones at the decision step (with 25 it
would stop everything outside the top quarter)."""
MIN_FINISHED = 5
"""Finished trials needed before the pruner judges anyone."""


def make_pruner(space: Space) -> optuna.pruners.BasePruner:
    if len(space.objectives) > 1 or space.sampler.prune_step(space.trial) is None:
        return optuna.pruners.NopPruner()  # Optuna prunes single-objective studies only
    return optuna.pruners.PercentilePruner(KEEP_PERCENT, n_startup_trials=MIN_FINISHED, n_warmup_steps=0)


ENDED_ELSEWHERE = (
    "ended by another worker: it saw no heartbeat from this trial for the grace period and queued it again"
)
"""The verdict that stops a trial whose Optuna trial another worker failed as stale (this worker was suspended: a
laptop asleep, a stalled disk); its result is dropped, and the queued retry runs the configuration again."""


def pruning_monitor(space: Space, trial: Trial) -> Monitor | None:
    """Reports the running median each step; asks the pruner once, at the decision step."""
    decide_at = space.sampler.prune_step(space.trial)
    if len(space.objectives) > 1 or is_baseline(trial):
        return None
    metric = space.objectives[0].metric
    warmup = space.trial.warmup_steps
    seen: list[float] = []

    def monitor(step: int, metrics: dict[str, Any]) -> str | None:
        if step <= warmup or metric not in metrics:
            return None
        seen.append(float(metrics[metric]))
        try:
            trial.report(statistics.median(seen), step)
        except optuna.exceptions.UpdateFinishedTrialError:  # another worker failed it as stale: stop, not a traceback
            return ENDED_ELSEWHERE
        if step != decide_at or not trial.should_prune():
            return None
        return f"pruner: running median in the bottom quarter (at step {step} of {space.trial.steps})"

    return monitor
