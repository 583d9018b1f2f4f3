"""Scoring: per-step metrics -> objective values, limit checks and the key numbers of a trial.

Steps up to `trial.warmup_steps` are excluded. A limit with `max`/`min` compares the reduced
metric with the bound; `max_ratio_to_baseline` compares it with the baseline trial's reduced
value. Each limit yields a violation (> 0 means infeasible) that is fed to the sampler as an
Optuna constraint. Alarm levels are checked on each step while a trial runs.
"""

from __future__ import annotations

import math
import statistics
from dataclasses import dataclass, field
from typing import Any

from autotune.space.schema import METRIC_ALIASES, Limit, Reducer, Space

KEY_METRICS: dict[str, tuple[str, Reducer]] = {
    "throughput": ("perf/throughput", "median"),
    "step_s": ("perf/time_per_step", "median"),
    "mfu": ("perf/mfu/actor", "median"),
    "comm_share": ("perf/comm_share", "median"),
    "kl": ("actor/kl_loss", "last"),
    "memory_gb": ("memory", "max"),
    "rss_gb": ("perf/cpu_memory_used_gb", "max"),
    "score": ("critic/score/mean", "mean"),
}
"""The numbers shown for every trial (column name: (metric, reducer))."""


def resolve_metric(rows: list[dict[str, Any]], metric: str) -> str:
    """The concrete metric name for an alias: the first of its candidates any row reports
    (`memory`: device memory on GPU runs, the trainer's tensor memory on CPU runs, else host RSS)."""
    for candidate in METRIC_ALIASES.get(metric, (metric,)):
        if any(candidate in r["metrics"] for r in rows):
            return candidate
    return metric


def series(rows: list[dict[str, Any]], metric: str, warmup_steps: int) -> list[float]:
    """The metric over post-warm-up steps, in step order (a parsed console may deliver out of order)."""
    name = resolve_metric(rows, metric)
    ordered = sorted(rows, key=lambda r: r["step"])
    return [
        float(r["metrics"][name])
        for r in ordered
        if r["step"] > warmup_steps and name in r["metrics"] and r["metrics"][name] is not None
    ]


def reduce(values: list[float], reducer: Reducer) -> float:
    if not values:
        return math.nan
    if reducer == "median":
        return float(statistics.median(values))
    if reducer == "mean":
        return float(statistics.fmean(values))
    if reducer == "min":
        return min(values)
    if reducer == "max":
        return max(values)
    return values[-1]


@dataclass
class Score:
    objectives: list[float]
    limits: dict[str, float]
    """Reduced value of each limit's metric."""
    violations: dict[str, float]
    """Per limit: > 0 when violated (by how much), <= 0 when satisfied."""
    key_metrics: dict[str, float]
    notes: list[str] = field(default_factory=list)

    @property
    def feasible(self) -> bool:
        return all(v <= 0 for v in self.violations.values())

    def violated(self) -> list[str]:
        return [name for name, v in self.violations.items() if v > 0]


def key_metrics(rows: list[dict[str, Any]], warmup_steps: int) -> dict[str, float]:
    return {name: reduce(series(rows, metric, warmup_steps), red) for name, (metric, red) in KEY_METRICS.items()}


def violation(limit: Limit, value: float, baseline: dict[str, float] | None) -> tuple[float, str | None]:
    """(> 0 if violated, note) for one limit."""
    if math.isnan(value):
        return 1.0, f"`{limit.metric}` was not reported"
    parts = []
    if limit.max is not None:
        parts.append(value - limit.max)
    if limit.min is not None:
        parts.append(limit.min - value)
    note = None
    if limit.max_ratio_to_baseline is not None:
        base = (baseline or {}).get(limit.metric)
        if base is None or math.isnan(base) or base <= 0:
            note = f"`{limit.metric}` ratio not checked: no baseline value yet"
        else:
            parts.append(value / base - limit.max_ratio_to_baseline)
    return (max(parts) if parts else -1.0), note


def describe_violation(limit: Limit, value: float, baseline: dict[str, float] | None) -> str:
    """One broken limit in words: the value, the bound it broke, and for a ratio limit the baseline's value."""
    if math.isnan(value):
        return f"{limit.metric} not reported"
    unit = unit_of(limit.metric)
    parts = []
    if limit.max is not None and value > limit.max:
        parts.append(f"{value:.4g}{unit} > max {limit.max:g}{unit}")
    if limit.min is not None and value < limit.min:
        parts.append(f"{value:.4g}{unit} < min {limit.min:g}{unit}")
    base = (baseline or {}).get(limit.metric)
    if limit.max_ratio_to_baseline is not None and base is not None and base > 0:
        ratio = value / base
        if ratio > limit.max_ratio_to_baseline:
            parts.append(
                f"{value:.4g}{unit}, {ratio:.2f}× the baseline's {base:.4g}{unit} > {limit.max_ratio_to_baseline:g}×"
            )
    return f"{limit.metric} {'; '.join(parts) or f'{value:.4g}{unit}'}"


def unit_of(metric: str) -> str:
    """The unit a metric's value is printed with (a leading space), or "": verl's `*_gb` memory metrics (and the
    `memory` alias of them) hold GiB, bytes / 2**30; throughput is tokens/s per GPU (audit 21 F17)."""
    if metric == "memory" or metric.endswith("_gb"):
        return " GiB"
    return " tokens/s/GPU" if metric == "perf/throughput" else ""


def unmeasured_why(space: Space, metric: str) -> str:
    """Why a trial of the space has no value of `metric`: its trainer does not log it, or the cost model does not
    predict it (a simulated trial said verl does not log the reward KL penalty it logs; audit 21 F16)."""
    from autotune.adapters import get_adapter

    if metric in get_adapter(space.trainer, space.command).unmeasured_metrics():
        return f"not logged by the {space.trainer} trainer"
    return "not predicted by the cost model"


def score(
    space: Space,
    rows: list[dict[str, Any]],
    baseline_limits: dict[str, float] | None,
    is_baseline: bool = False,
) -> Score:
    """Objectives and limits of one run; the baseline's ratio limits compare it with itself."""
    warm = space.trial.warmup_steps
    objectives = [reduce(series(rows, o.metric, warm), o.reducer) for o in space.objectives]
    limits = {limit.metric: reduce(series(rows, limit.metric, warm), limit.reducer) for limit in space.limits}
    reference = dict(limits) if is_baseline else baseline_limits
    violations: dict[str, float] = {}
    notes = []
    for limit in space.limits:
        value = limits[limit.metric]
        if limit.metric in space.unmeasured:
            violations[limit.metric] = -1.0
            notes.append(f"`{limit.metric}` is {unmeasured_why(space, limit.metric)}: limit skipped")
            continue
        v, note = violation(limit, value, reference)
        violations[limit.metric] = v
        if note:
            notes.append(note)
    return Score(objectives, limits, violations, key_metrics(rows, warm), notes)


def alarm(space: Space, step: int, metrics: dict[str, Any]) -> str | None:
    """A reason to stop a running trial now (a limit's alarm level crossed), or None."""
    for limit in space.limits:
        name = next((m for m in METRIC_ALIASES.get(limit.metric, (limit.metric,)) if m in metrics), None)
        if name is None:
            continue
        value = float(metrics[name])
        if math.isnan(value):
            return f"alarm: {name} is NaN"
        if limit.alarm_above is not None and value > limit.alarm_above:
            return f"alarm: {name}={value:.4g} > {limit.alarm_above:g}"
        if limit.alarm_below is not None and value < limit.alarm_below:
            return f"alarm: {name}={value:.4g} < {limit.alarm_below:g}"
    return None
