"""How precisely can a paired, interleaved comparison of two configurations be measured here?

Runs real trials of the space, interleaved round by round in a rotated order (as confirmation and
the ablation do): the baseline twice (a configuration against itself: every difference is noise)
and, with `--gain KEY=VALUE`, the baseline with one change (a real difference to resolve). From the
same runs it compares several ways of timing a trial, each reduced over the post-warm-up steps:

    median    median of the per-step `perf/throughput` (the fsdp3d objective)
    mean      mean of the per-step throughput
    best      the fastest step (interference on a shared machine only ever slows a step down)
    trial     whole-run throughput: Σ tokens / Σ step time

For each: the per-round ratio of the pair, its log standard deviation (σ, the noise of one paired
round), the 90% interval of the geometric mean over the rounds (Student t on the log ratios, the
rule the ablation decides with), and the rounds a 10% gain needs for its interval to lie above 1.0.

    python benchmarks/noise_floor.py [--space fsdp3d] [--rounds 8] [--steps N] [--gain actor_rollout_ref.actor.ppo_micro_batch_size_per_gpu=8]
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import math
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import yaml

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from autotune.adapters import get_adapter  # noqa: E402
from autotune.space.loader import load_space  # noqa: E402
from autotune.study.ratios import gain_interval  # noqa: E402
from autotune.sweep.explain import configure  # noqa: E402
from autotune.trial.evaluation import evaluate  # noqa: E402
from autotune.trial.scoring import series  # noqa: E402

STATISTICS = ("median", "mean", "best", "trial")


def timings(rows: list[dict[str, Any]], warmup: int) -> dict[str, float]:
    tput = series(rows, "perf/throughput", warmup)
    step_s = series(rows, "perf/time_per_step", warmup)
    tokens = [t * s for t, s in zip(tput, step_s, strict=False)]
    return {
        "median": statistics.median(tput),
        "mean": statistics.fmean(tput),
        "best": max(tput),
        "trial": sum(tokens) / sum(step_s[: len(tokens)]),
    }


def rounds_for(sigma: float, gain: float = 1.10, most: int = 200) -> int | None:
    """Fewest rounds whose 90% interval around a true `gain` lies above 1.0 (None: more than `most`)."""
    for n in range(2, most + 1):
        if gain_interval([gain * math.exp(d) for d in _spread(sigma, n)])[0] > 1.0:
            return n
    return None


def _spread(sigma: float, n: int) -> list[float]:
    """n log-ratios with mean 0 and sample standard deviation exactly `sigma`."""
    base = [(-1) ** i for i in range(n)] if n % 2 == 0 else [(-1) ** i for i in range(n - 1)] + [0.0]
    mean = statistics.fmean(base)
    sd = statistics.stdev(base) or 1.0
    return [(b - mean) / sd * sigma for b in base]


def pair_stats(a: list[float], b: list[float]) -> dict[str, Any]:
    ratios = [x / y for x, y in zip(a, b, strict=True) if y and not math.isnan(x) and not math.isnan(y)]
    logs = [math.log(r) for r in ratios]
    sigma = statistics.stdev(logs) if len(logs) > 1 else math.nan
    low, high = gain_interval(ratios)
    return {
        "ratios": ratios,
        "geomean": math.exp(statistics.fmean(logs)) if logs else math.nan,
        "min": min(ratios, default=math.nan),
        "max": max(ratios, default=math.nan),
        "low90": low,
        "high90": high,
        "sigma_log": sigma,
        "rounds_for_10pct": rounds_for(sigma) if not math.isnan(sigma) else None,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--space", default="fsdp3d")
    parser.add_argument("--rounds", type=int, default=8)
    parser.add_argument("--steps", type=int, default=None, help="steps per trial (default: the space's)")
    parser.add_argument("--gain", default="actor_rollout_ref.actor.ppo_micro_batch_size_per_gpu=8")
    parser.add_argument(
        "--out", type=Path, default=None, help="default: benchmarks/results/noise_floor[_<steps>steps].json"
    )
    args = parser.parse_args()
    space = load_space(args.space)
    if args.steps:
        space = dataclasses.replace(space, trial=dataclasses.replace(space.trial, steps=args.steps))
    adapter = get_adapter(space.trainer, space.command)
    adapter.prepare(space.base, space.trial.world_size)  # the warm parent, as a sweep starts it
    defaults = adapter.defaults(space.base_config)
    base = configure(space, defaults, dict(space.baseline))
    key, _, raw = args.gain.partition("=")
    changed = configure(space, defaults, {**base, key: yaml.safe_load(raw)}) if key else None
    configs = {"A": base, "A'": dict(base), **({"B": changed} if changed else {})}
    values: dict[str, dict[str, list[float]]] = {name: {s: [] for s in STATISTICS} for name in configs}
    load: list[float] = []
    started = time.monotonic()
    names = list(configs)
    with tempfile.TemporaryDirectory() as tmp:
        for r in range(args.rounds):
            load.append(os.getloadavg()[0])
            shift = r % len(names)
            for name in names[shift:] + names[:shift]:
                ev = evaluate(space, adapter, configs[name], Path(tmp) / f"r{r}-{name}", None, is_baseline=True)
                rows = ev.runs[-1].rows if ev.runs and ev.outcome in ("complete", "infeasible") else []
                t = timings(rows, space.trial.warmup_steps) if rows else dict.fromkeys(STATISTICS, math.nan)
                for s in STATISTICS:
                    values[name][s].append(t[s])
                print(f"round {r + 1}/{args.rounds} {name}: {ev.outcome} median {t['median']:.0f} tok/s", flush=True)
    result: dict[str, Any] = {
        "space": args.space,
        "rounds": args.rounds,
        "steps": space.trial.steps,
        "warmup_steps": space.trial.warmup_steps,
        "gain_change": args.gain if changed else None,
        "cpus": os.cpu_count(),
        "load_avg_1min_per_round": load,
        "wall_s": time.monotonic() - started,
        "self": {s: pair_stats(values["A'"][s], values["A"][s]) for s in STATISTICS},
        "gain": {s: pair_stats(values["B"][s], values["A"][s]) for s in STATISTICS} if changed else None,
        "values": values,
    }
    print(
        f"\n{args.space}: {args.rounds} interleaved rounds of {space.trial.steps}-step trials, "
        f"{os.cpu_count()} CPUs, 1-min load average {min(load):.1f}-{max(load):.1f} (other jobs beside it)"
    )
    print(
        f"{'statistic':10s} {'self σ(log)':>11s} {'self 90% interval':>18s} {'rounds for 10%':>15s}"
        + (f" {'gain ×':>7s} {'gain 90% interval':>18s}" if changed else "")
    )
    for s in STATISTICS:
        me = result["self"][s]
        line = (
            f"{s:10s} {me['sigma_log']:11.3f} {me['low90']:8.3f}–{me['high90']:<9.3f} "
            f"{me['rounds_for_10pct'] if me['rounds_for_10pct'] else '>200':>15}"
        )
        if changed:
            g = result["gain"][s]
            line += f" {g['geomean']:7.3f} {g['low90']:8.3f}–{g['high90']:<9.3f}"
        print(line)
    if args.out is None:
        suffix = f"_{args.steps}steps" if args.steps else ""
        args.out = ROOT / "benchmarks" / "results" / f"noise_floor{suffix}.json"
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(result, indent=2))
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
