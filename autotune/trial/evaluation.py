"""Evaluate one configuration: write its folder, check it, measure it (its fidelity), score it.

Backend-independent: the Optuna loop, the Ray Tune trainable and the confirmation phase all call
`evaluate`, so every backend runs, classifies and scores trials the same way. How the trial is
measured (a real run, or the cost model's prediction) is the `Fidelity` it is given; the scoring
after it is the same for every fidelity.
"""

from __future__ import annotations

import dataclasses
import json
import statistics
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from autotune.adapters.base import InvalidConfig, TrainerAdapter
from autotune.space.sampling import ConstraintViolation, TrialConfig, check_constraints, trial_config
from autotune.space.schema import Space
from autotune.trial.fidelity import REAL_RUN, Fidelity, TrialJob
from autotune.trial.record import Outcome, TrialRecord
from autotune.trial.runner import Monitor, RunResult
from autotune.trial.scoring import Score, alarm, describe_violation, score
from verl_keys.keys import to_nested


@dataclass
class Evaluation:
    outcome: Outcome
    reason: str | None
    detail: str
    config: TrialConfig
    trial_dir: Path
    score: Score | None = None
    runs: list[RunResult] = field(default_factory=list)

    @property
    def objectives(self) -> list[float] | None:
        return self.score.objectives if self.score else None

    def record(self) -> TrialRecord:
        """What goes on the trial (Optuna user attributes) and into outcome.json."""
        s = self.score
        runs = self.runs
        startups = [r.first_step_s for r in runs if r.first_step_s is not None]
        return TrialRecord(
            outcome=self.outcome,
            reason=self.reason,
            detail=self.detail,
            dir=str(self.trial_dir),
            tuned=self.config.tuned,
            env=self.config.env,
            key_metrics=s.key_metrics if s else {},
            limits=s.limits if s else {},
            violations=s.violations if s else {},
            notes=s.notes if s else [],
            steps=len(runs[0].rows) if runs else 0,
            wall_s=sum(r.wall_s for r in runs),
            startup_s=statistics.fmean(startups) if startups else 0.0,
            train_s=sum(sum(row["metrics"].get("timing_s/step", 0.0) for row in r.rows) for r in runs),
        )


def write_trial_files(trial_dir: Path, config: TrialConfig, params: dict[str, Any]) -> Path:
    """config.yaml (verl keys: base + tuned), env (KEY=VALUE lines), params.json."""
    trial_dir.mkdir(parents=True, exist_ok=True)
    config_file = trial_dir / "config.yaml"
    config_file.write_text(yaml.safe_dump(to_nested(config.flat), sort_keys=False))
    (trial_dir / "env").write_text("".join(f"{k}={v}\n" for k, v in sorted(config.env.items())))
    (trial_dir / "params.json").write_text(json.dumps(params, indent=2, sort_keys=True))
    return config_file


def evaluate(
    space: Space,
    adapter: TrainerAdapter,
    params: dict[str, Any],
    trial_dir: Path,
    baseline_limits: dict[str, float] | None,
    monitor: Monitor | None = None,
    on_start: Callable[[int], None] | None = None,
    is_baseline: bool = False,
    fidelity: Fidelity = REAL_RUN,
) -> Evaluation:
    """Check, measure and score one configuration in `trial_dir`."""
    defaults = adapter.defaults(space.base_config)  # resolved once per trial, used by every step below
    checked = _checked_config(space, adapter, fidelity, params, trial_dir, defaults)
    if isinstance(checked, Evaluation):
        return _finish(checked, is_baseline)
    config, config_file = checked

    def watch(step: int, metrics: dict[str, Any]) -> str | None:
        return alarm(space, step, metrics) or (monitor(step, metrics) if monitor else None)

    runs = fidelity.measure(TrialJob(space, adapter, config, config_file, defaults, trial_dir, watch, on_start))
    last = runs[-1]
    if last.state != "complete":
        partial = score(space, last.rows, baseline_limits, is_baseline) if last.rows else None
        return _finish(Evaluation(last.state, last.reason, last.detail, config, trial_dir, partial, runs), is_baseline)
    return _finish(_scored(space, runs, config, trial_dir, baseline_limits, is_baseline), is_baseline)


def _checked_config(
    space: Space,
    adapter: TrainerAdapter,
    fidelity: Fidelity,
    params: dict[str, Any],
    trial_dir: Path,
    defaults: dict[str, Any],
) -> tuple[TrialConfig, Path] | Evaluation:
    """The trial's config written to its folder and checked, or the `invalid` evaluation that stops it."""
    try:
        config = trial_config(space, adapter, params, defaults)
    except ConstraintViolation as exc:  # a derived key without a value for these params
        bare = TrialConfig(params=dict(params), flat=dict(space.base), env=dict(space.env), tuned={})
        return Evaluation("failed", "invalid", str(exc), bare, trial_dir)
    config_file = write_trial_files(trial_dir, config, params)
    try:
        check_constraints(space, config, defaults)
        fidelity.check(adapter, space.base_config, config.flat, space.trial.world_size)
    except (ConstraintViolation, InvalidConfig) as exc:
        return Evaluation("failed", "invalid", str(exc), config, trial_dir)
    return config, config_file


def _scored(
    space: Space,
    runs: list[RunResult],
    config: TrialConfig,
    trial_dir: Path,
    baseline_limits: dict[str, float] | None,
    is_baseline: bool,
) -> Evaluation:
    """Every repeat completed: their scores averaged, judged against the limits."""
    merged = _average([score(space, r.rows, baseline_limits, is_baseline) for r in runs])
    run_notes = [r.detail for r in runs if r.detail]  # e.g. an abort in teardown after every step
    merged.notes.extend(n for n in run_notes if n not in merged.notes)
    if merged.feasible:
        return Evaluation("complete", None, "; ".join(run_notes), config, trial_dir, merged, runs)
    reference = merged.limits if is_baseline else baseline_limits
    broken = set(merged.violated())
    violated = ", ".join(
        describe_violation(limit, merged.limits[limit.metric], reference)
        for limit in space.limits
        if limit.metric in broken
    )
    return Evaluation("infeasible", "limits", f"outside limits: {violated}", config, trial_dir, merged, runs)


def _average(scores: list[Score]) -> Score:
    if len(scores) == 1:
        return scores[0]
    first = scores[0]
    return Score(
        objectives=[statistics.fmean(s.objectives[i] for s in scores) for i in range(len(first.objectives))],
        limits={k: statistics.fmean(s.limits[k] for s in scores) for k in first.limits},
        violations={k: statistics.fmean(s.violations[k] for s in scores) for k in first.violations},
        key_metrics={k: statistics.fmean(s.key_metrics[k] for s in scores) for k in first.key_metrics},
        notes=sorted({n for s in scores for n in s.notes}),
    )


def _finish(evaluation: Evaluation, is_baseline: bool) -> Evaluation:
    # the file says whether it is the baseline's run (the backend sets that on the trial: it always read false)
    dataclasses.replace(evaluation.record(), baseline=is_baseline).write_file(evaluation.trial_dir / "outcome.json")
    return evaluation
