"""A search that finds the best: how close does the demo's own budget get to the best known configuration?

1. best known    every configuration of the throughput stage's knobs that can act on this platform (a grid:
                 categoricals and bools whole, each int or float range at `--levels` evenly spaced values;
                 knobs inert here at their baseline values), one trial each; the `--top` fastest feasible
                 ones and the baseline are then run in `--rounds` interleaved rounds, and the best known is
                 the one with the best confirmed geometric-mean speedup (among those inside the limits).
2. seeds         `--seeds` sweeps exactly as `make demo` runs its throughput stage (`autotune run --stage
                 throughput`: the space's trials, confirmation and ablation), sampler seeds 0, 1, ...;
                 each ships a configuration (the minimal winner).
3. side by side  the baseline, the best known and every seed's shipped configuration, `--rounds`
                 interleaved rounds in one run (this machine's load drifts over minutes; only ratios
                 measured in the same rounds compare): each seed's fraction of the best known is the
                 geometric mean over the rounds of shipped / best known, with its 90% interval.

Printed and written to the JSON: the best known configuration and its confirmed speedup, each seed's shipped
configuration, its speedup and its fraction; the median and the minimum fraction (goal: >= 0.95 and >= 0.85).

    python benchmarks/search_quality.py [--space fsdp3d] [--seeds 5] [--levels 3] [--top 6] [--rounds 4]
        [--best-known FILE.json] [--runs DIR] [--run-args "--freeze-inert"] [--out benchmarks/results/search_quality.json]

`--best-known` reuses step 1 from an earlier output; `--runs` keeps every run (a rerun resumes the sweeps).
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import math
import shlex
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import yaml

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from autotune.adapters import device_kind, get_adapter  # noqa: E402
from autotune.space.freeze import fixed_at_baseline, inert_params  # noqa: E402
from autotune.space.loader import load_space  # noqa: E402
from autotune.space.sampling import holds  # noqa: E402
from autotune.space.schema import Param, Space  # noqa: E402
from autotune.space.stages import throughput_stage  # noqa: E402
from autotune.study.progress import SweepProgress  # noqa: E402
from autotune.study.results import find_winner  # noqa: E402
from autotune.study.storage import StudyPaths, load_study  # noqa: E402
from autotune.sweep.ablation import verdict  # noqa: E402
from autotune.sweep.confirmation import Candidate, measure_interleaved, summarize  # noqa: E402
from autotune.trial.evaluation import evaluate  # noqa: E402


def levels(p: Param, n: int) -> list[Any]:
    """The values the grid takes for `p`: every choice, or `n` evenly spaced points of its range on its step."""
    if p.choices is not None:
        return list(p.choices)
    assert p.low is not None and p.high is not None
    if p.log:
        points = [p.low * (p.high / p.low) ** (i / (n - 1)) for i in range(n)]
    else:
        points = [p.low + (p.high - p.low) * i / (n - 1) for i in range(n)]
    if p.step:
        points = [p.low + round((x - p.low) / p.step) * p.step for x in points]
    out = [round(x) if p.type == "int" else float(x) for x in points]
    return list(dict.fromkeys(out))


def grid(space: Space, n: int, defaults: dict[str, Any]) -> list[dict[str, Any]]:
    """Every combination of the params' levels, each param only where its `when` holds (file order)."""
    context = {**defaults, **space.base}
    combos: list[dict[str, Any]] = [{}]
    for p in space.params:
        grown = []
        for values in combos:
            if holds(p.when, {**context, **values}):
                grown.extend({**values, p.name: v} for v in levels(p, n))
            else:
                grown.append(values)
        combos = grown
    return combos


def searched_space(space: Space) -> tuple[Space, list[str]]:
    """The throughput stage's space with the knobs inert on this platform at their baseline values."""
    stage = throughput_stage(space)
    adapter = get_adapter(stage.trainer, stage.command)
    inert = inert_params(stage, adapter.knob_status, device_kind())
    return fixed_at_baseline(stage, inert), inert


def candidates_over_rounds(
    space: Space, configs: list[tuple[str, dict[str, Any]]], folder: Path, rounds: int, title: str
) -> dict[str, Candidate]:
    """`configs` (label, params; the first is the baseline) run once per round, in a rotated order."""
    adapter = get_adapter(space.trainer, space.command)
    adapter.prepare(space.base, space.trial.world_size)  # the warm parent, as a sweep starts it
    cands = [Candidate(i, p, label=label, is_baseline=i == 0) for i, (label, p) in enumerate(configs)]
    progress = SweepProgress(len(cands) * rounds, space.objectives[0].metric)
    measure_interleaved(space, adapter, cands, folder, rounds, None, progress, title)
    return {c.label: c for c in cands}


def best_known(space: Space, runs: Path, n_levels: int, top: int, rounds: int) -> dict[str, Any]:
    adapter = get_adapter(space.trainer, space.command)
    adapter.prepare(space.base, space.trial.world_size)  # the warm parent, as a sweep starts it
    defaults = adapter.defaults(space.base_config)
    base_params = {p.name: space.baseline[p.name] for p in space.params if p.name in space.baseline}
    configs = grid(space, n_levels, defaults)
    print(f"best known: a grid of {len(configs)} configurations, one {space.trial.steps}-step trial each")
    started = time.monotonic()
    baseline = evaluate(space, adapter, base_params, runs / "grid" / "baseline", None, is_baseline=True)
    base_limits = dict(baseline.score.limits) if baseline.score else None
    tried = []
    for i, params in enumerate(configs):
        ev = evaluate(space, adapter, params, runs / "grid" / f"g{i:03d}", base_limits)
        value = ev.objectives[0] if ev.objectives else math.nan
        tried.append({"params": params, "outcome": ev.outcome, "value": value})
        eta = (time.monotonic() - started) / (i + 1) * (len(configs) - i - 1)
        print(f"  grid {i + 1}/{len(configs)}: {ev.outcome:<10} {value:8.1f}  ~{eta / 60:.0f} min left  {params}")
    ranked = sorted((t for t in tried if t["outcome"] == "complete"), key=lambda t: -t["value"])[:top]
    configs_run = [("baseline", base_params)] + [(f"g{tried.index(t):03d}", t["params"]) for t in ranked]
    cands = candidates_over_rounds(space, configs_run, runs / "grid-confirm", rounds, "best known")
    confirmation = summarize(list(cands.values()), 0, space.objectives[0].direction == "maximize", space)
    rows = [r for r in confirmation.candidates.values() if not r.is_baseline]
    for r in rows:
        print(
            f"  confirmed {cands_label(cands, r.number)}: x{r.speedup_geomean:.2f} "
            f"[{r.speedup_low:.2f}, {r.speedup_high:.2f}] {'eligible' if r.eligible else 'outside a limit'}"
        )
    best = max((r for r in rows if r.eligible), key=lambda r: r.speedup_geomean)
    print(f"best known: x{best.speedup_geomean:.2f} [{best.speedup_low:.2f}, {best.speedup_high:.2f}]  {best.params}")
    return {
        "grid_size": len(configs),
        "grid": tried,
        "baseline_value": baseline.objectives[0] if baseline.objectives else math.nan,
        "confirmed": [dataclasses.asdict(r) for r in rows],
        "params": best.params,
        "speedup": best.speedup_geomean,
        "interval": [best.speedup_low, best.speedup_high],
        "seconds": time.monotonic() - started,
    }


def cands_label(cands: dict[str, Candidate], number: int) -> str:
    return next(label for label, c in cands.items() if c.number == number)


def seed_sweep(space: Space, runs: Path, seed: int, run_args: list[str]) -> dict[str, Any]:
    """`autotune run --stage throughput` on the space with sampler seed `seed`: what it ships."""
    raw = yaml.safe_load(Path(space.path).read_text())
    name = f"{space.name}-seed{seed}"
    raw["name"] = name
    raw.setdefault("sampler", {})["seed"] = seed
    file = runs / f"{name}.yaml"
    file.write_text(yaml.safe_dump(raw, sort_keys=False))
    started = time.monotonic()
    cmd = [str(Path(sys.executable).parent / "autotune"), "run", "--space", str(file), "--stage", "throughput"]
    cmd += ["--runs-dir", str(runs), *run_args]
    print(f"seed {seed}: {shlex.join(cmd)}")
    subprocess.run(cmd, check=True, cwd=ROOT)
    paths = StudyPaths(runs, name)
    winner = find_winner(load_study(paths), paths, load_space(file))
    print(f"seed {seed}: ships {winner.params} at x{winner.speedup:.2f} ({winner.source})")
    return {
        "seed": seed,
        "shipped": winner.params,
        "source": winner.source,
        "speedup": winner.speedup,
        "interval": list(winner.speedup_spread) if winner.speedup_spread else None,
        "seconds": time.monotonic() - started,
    }


def side_by_side(
    space: Space, runs: Path, best: dict[str, Any], seeds: list[dict[str, Any]], rounds: int
) -> dict[str, Any]:
    """The baseline, the best known and each seed's shipped configuration in the same rounds."""
    names = {p.name for p in space.params}
    base_params = {p.name: space.baseline[p.name] for p in space.params if p.name in space.baseline}

    def own(params: dict[str, Any]) -> dict[str, Any]:  # inert knobs (frozen here) dropped
        return {k: v for k, v in params.items() if k in names}

    distinct: list[tuple[str, dict[str, Any]]] = [("baseline", base_params), ("best", own(best["params"]))]
    label_of = {}
    for s in seeds:
        params = own(s["shipped"])
        same = next((label for label, p in distinct if p == params), None)
        if same is None:
            same = f"seed{s['seed']}"
            distinct.append((same, params))
        label_of[s["seed"]] = same
    cands = candidates_over_rounds(space, distinct, runs / "side-by-side", rounds, "side by side")
    maximize = space.objectives[0].direction == "maximize"

    def ratios(a: str, b: str) -> list[float]:
        return [x / y for x, y in zip(cands[a].values, cands[b].values, strict=True)]

    best_speedup = verdict(ratios("best", "baseline"), maximize)
    print(f"best known, side by side: x{best_speedup[0]:.2f} [{best_speedup[1]:.2f}, {best_speedup[2]:.2f}]")
    rows = []
    for s in seeds:
        label = label_of[s["seed"]]
        fraction = verdict(ratios(label, "best"), maximize)
        speedup = verdict(ratios(label, "baseline"), maximize)
        rows.append(
            {
                "seed": s["seed"],
                "measured_as": label,
                "speedup": speedup[0],
                "speedup_interval": [speedup[1], speedup[2]],
                "fraction": fraction[0],
                "fraction_interval": [fraction[1], fraction[2]],
            }
        )
        print(
            f"seed {s['seed']}: x{speedup[0]:.2f} [{speedup[1]:.2f}, {speedup[2]:.2f}] = "
            f"{fraction[0]:.2f} [{fraction[1]:.2f}, {fraction[2]:.2f}] of the best known"
        )
    return {
        "rounds": rounds,
        "values": {label: c.values for label, c in cands.items()},
        "best_speedup": best_speedup[0],
        "best_interval": [best_speedup[1], best_speedup[2]],
        "seeds": rows,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--space", default="fsdp3d")
    parser.add_argument("--seeds", type=int, default=5)
    parser.add_argument("--levels", type=int, default=3, help="values per int or float range in the grid")
    parser.add_argument("--top", type=int, default=6, help="grid configurations confirmed for the best known")
    parser.add_argument("--rounds", type=int, default=4, help="interleaved rounds (best known, side by side)")
    parser.add_argument("--best-known", type=Path, default=None, help="reuse step 1 from this output JSON")
    parser.add_argument("--runs", type=Path, default=None, help="keep the runs here (a rerun resumes the sweeps)")
    parser.add_argument("--run-args", default="", help="extra `autotune run` arguments for the seeds' sweeps")
    parser.add_argument("--out", type=Path, default=ROOT / "benchmarks" / "results" / "search_quality.json")
    args = parser.parse_args()
    space = load_space(args.space)
    stage, inert = searched_space(space)
    print(f"knobs inert here, at their baseline values: {', '.join(inert) or 'none'}")
    results: dict[str, Any] = {"space": space.name, "inert": inert, "run_args": args.run_args}
    args.out.parent.mkdir(parents=True, exist_ok=True)

    def save() -> None:
        args.out.write_text(json.dumps(results, indent=2, default=str))

    with tempfile.TemporaryDirectory(prefix="search-quality-") as tmp:
        runs = (args.runs or Path(tmp)).resolve()
        runs.mkdir(parents=True, exist_ok=True)
        if args.best_known:
            results["best_known"] = json.loads(args.best_known.read_text())["best_known"]
            print(f"best known (from {args.best_known}): {results['best_known']['params']}")
        else:
            results["best_known"] = best_known(stage, runs, args.levels, args.top, args.rounds)
        save()
        results["seeds"] = []
        for seed in range(args.seeds):
            results["seeds"].append(seed_sweep(space, runs, seed, shlex.split(args.run_args)))
            save()
        results["side_by_side"] = side_by_side(stage, runs, results["best_known"], results["seeds"], args.rounds)
        fractions = [r["fraction"] for r in results["side_by_side"]["seeds"]]
        results["summary"] = {
            "median_fraction": statistics.median(fractions),
            "min_fraction": min(fractions),
            "goal": {"median": 0.95, "min": 0.85},
        }
        save()
    s = results["summary"]
    print(
        f"median fraction of the best known {s['median_fraction']:.2f} (goal 0.95), minimum {s['min_fraction']:.2f} (goal 0.85)"
    )
    print(f"written: {args.out}")


if __name__ == "__main__":
    main()
