"""Scoring on crafted step rows: which metric `memory` means, limits against the baseline, and the
percentile pruner's direction on crafted step curves (expected values worked out by hand)."""

from __future__ import annotations

import math

import optuna
import pytest

from autotune.space.loader import load_space
from autotune.space.schema import Limit
from autotune.sweep.backends.pruning import make_pruner, pruning_monitor
from autotune.trial.scoring import describe_violation, key_metrics, resolve_metric, score


def rows(**series: list[float]) -> list[dict]:
    """Steps 1..n with the given metric series."""
    n = len(next(iter(series.values())))
    return [{"step": i + 1, "metrics": {k: v[i] for k, v in series.items()}} for i in range(n)]


def test_memory_is_tensor_memory_on_cpu_device_memory_on_gpu_and_rss_stays_its_own_number():
    cpu = rows(**{"perf/tensor_memory_gb": [0.01, 0.03, 0.02], "perf/cpu_memory_used_gb": [0.9, 0.9, 0.95]})
    gpu = rows(**{"perf/max_memory_allocated_gb": [30.0, 31.0, 32.0], "perf/tensor_memory_gb": [20.0] * 3})
    rss_only = rows(**{"perf/cpu_memory_used_gb": [0.5, 0.7, 0.6]})
    assert resolve_metric(cpu, "memory") == "perf/tensor_memory_gb"
    assert resolve_metric(gpu, "memory") == "perf/max_memory_allocated_gb"
    assert resolve_metric(rss_only, "memory") == "perf/cpu_memory_used_gb"
    # warm-up step 1 excluded; max over steps 2..3
    assert key_metrics(cpu, warmup_steps=1)["memory_gb"] == 0.03
    assert key_metrics(cpu, warmup_steps=1)["rss_gb"] == 0.95
    assert key_metrics(gpu, warmup_steps=1)["memory_gb"] == 32.0
    assert math.isnan(key_metrics(gpu, warmup_steps=1)["rss_gb"])


def test_memory_ratio_limit_sees_tensor_memory_even_when_rss_is_flat(tmp_path):
    """The CPU failure the tensor metric fixes: RSS is the same for both, tensor memory is 1.5x."""
    space = load_space("fsdp3d")  # limit: memory, reducer max, max_ratio_to_baseline 1.2
    flat_rss = [0.9] * 4
    base = rows(**{"perf/tensor_memory_gb": [0.02] * 4, "perf/cpu_memory_used_gb": flat_rss})
    bigger = rows(**{"perf/tensor_memory_gb": [0.03] * 4, "perf/cpu_memory_used_gb": flat_rss})
    base_score = score(space, base, None, is_baseline=True)
    assert base_score.violations["memory"] == pytest.approx(1.0 - 1.2)
    trial = score(space, bigger, base_score.limits)
    assert trial.limits["memory"] == 0.03
    assert trial.violations["memory"] == pytest.approx(0.03 / 0.02 - 1.2)  # 1.5x > 1.2x: violated by 0.3
    assert "memory" in trial.violated()


def test_a_broken_limit_says_its_value_bound_and_baseline():
    """What `outside limits: ...` prints: 0.03 against a baseline of 0.02 is 1.5x, over 1.2x."""
    ratio = Limit(metric="memory", reducer="max", max_ratio_to_baseline=1.2)
    assert describe_violation(ratio, 0.03, {"memory": 0.02}) == "memory 0.03 GiB, 1.50× the baseline's 0.02 GiB > 1.2×"
    capped = Limit(metric="perf/max_memory_allocated_gb", reducer="max", max=70)  # verl's `_gb` is GiB (audit 21 F17)
    assert describe_violation(capped, 71.5, None) == "perf/max_memory_allocated_gb 71.5 GiB > max 70 GiB"
    kl = Limit(metric="actor/reward_kl_penalty", max=0.05, min=0.0)
    assert describe_violation(kl, 0.08, None) == "actor/reward_kl_penalty 0.08 > max 0.05"
    assert describe_violation(kl, -0.01, None) == "actor/reward_kl_penalty -0.01 < min 0"
    assert describe_violation(kl, math.nan, None) == "actor/reward_kl_penalty not reported"


def judged(space, curve: list[float]) -> int | None:
    """Feed a crafted throughput curve (steps 1, 2, ...) through the pruning monitor after five finished
    flat curves at 100..500; the step at which it is stopped, or None."""
    study = optuna.create_study(direction="maximize", pruner=make_pruner(space))
    for level in (100.0, 200.0, 300.0, 400.0, 500.0):
        trial = study.ask()
        for step in range(1, space.trial.steps + 1):
            trial.report(level, step)
        study.tell(trial, level)
    trial = study.ask()
    monitor = pruning_monitor(space, trial)
    assert monitor is not None
    for step, value in enumerate(curve, start=1):
        if monitor(step, {"perf/throughput": value}):
            return step
    return None


def test_percentile_pruner_stops_only_the_bottom_quarter():
    """By hand: the bottom-quarter line of {100, 200, 300, 400, 500} is 200 (linear interpolation,
    100 + 0.25 x 400); fsdp3d decides once, at step 6 of 12, on the running median."""
    space = load_space("fsdp3d")
    assert space.sampler.prune_step(space.trial) == 6
    assert judged(space, [150.0] * 12) == 6  # below the line: stopped at the decision step
    assert judged(space, [190.0] * 12) == 6
    assert judged(space, [210.0] * 12) is None  # just above the bottom quarter: kept
    assert judged(space, [350.0] * 12) is None  # below the median but far from the bottom: kept


def test_two_objective_studies_are_never_pruned(tmp_path):
    space = load_space("fsdp3d")
    two = type(space)(**{**vars(space), "objectives": [*space.objectives, *space.objectives]})
    assert isinstance(make_pruner(two), optuna.pruners.NopPruner)
