"""The quality stage against a scan of the KL coefficient and against full-length random search.

1. scan      the KL coefficient over a grid, every other algorithm knob at its baseline, each value over
             `--seeds` seeds at the full horizon (no run stopped): score (mean over the last
             `quality.score_last` steps) and the KL's worst moving mean. The scan's best is the value
             that learns most while keeping the bound in every seed.
2. layout    one full-length run at the throughput stage's world size alone, then a pair at the quality
             section's world size side by side (`quality.parallel`): training steps per minute of each.
3. compare   `--repeats` times (sampler seeds 0, 1, ...): the quality stage as `autotune run --stage
             quality` runs it, then full-length random search given the same number of training steps:
             random settings, every run the whole horizon (no rung, no stop at the bound), picked on the
             same rule (the best seed-1 score within the bound with the stage's search margin). Each
             method's pick is scored over the same seeds at the horizon; printed: its mean score,
             whether it keeps the bound in every seed, and the steps each method trained.

    python benchmarks/quality_stage.py [--space fsdp3d] [--scan 0.03,0.1,0.2,0.3,0.5,1] [--seeds 3]
        [--repeats 3] [--first-repeat 0] [--skip-scan] [--skip-layout] [--skip-compare] [--out benchmarks/results/quality_stage.json]
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import math
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import optuna

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from autotune.adapters import get_adapter  # noqa: E402
from autotune.space.loader import load_space  # noqa: E402
from autotune.space.sampling import suggest  # noqa: E402
from autotune.space.schema import Space  # noqa: E402
from autotune.study.progress import SweepProgress  # noqa: E402
from autotune.study.quality_result import QualityCandidate  # noqa: E402
from autotune.study.storage import StudyPaths  # noqa: E402
from autotune.sweep.quality import QualityStage, _Job, _quality_run  # noqa: E402
from autotune.trial.learning import CurveWatch, summarize  # noqa: E402

KL_KEY = "algorithm.kl_ctrl.kl_coef"


def stage_for(space: Space, runs: Path, name: str, sampler_seed: int = 0, quiet: bool = True) -> QualityStage:
    space = dataclasses.replace(space, sampler=dataclasses.replace(space.sampler, seed=sampler_seed))
    progress = SweepProgress(1, "score", True)
    progress.quiet = quiet
    adapter = get_adapter(space.trainer, space.command)
    return QualityStage(space, adapter, StudyPaths(runs, name), progress)


def over_seeds(stage: QualityStage, settings: list[dict[str, Any]], folder: str) -> list[QualityCandidate]:
    """Each setting (the stage space's params) at the full horizon over the stage's seeds, no run stopped."""
    jobs = [
        (i, _Job(params, seed, stage.root / folder / f"{i:02d}-seed{seed}", search=False))
        for i, params in enumerate(settings)
        for seed in stage.q.seed_values()
    ]
    queue, results = list(jobs), {}

    def claim():  # type: ignore[no-untyped-def]
        with stage.lock:
            return queue.pop(0) if queue else None

    def run(item):  # type: ignore[no-untyped-def]
        i, job = item
        curve, _, _ = stage._run(job, CurveWatch(stage.q, stop_on_limits=False), f"{folder} {i} seed {job.seed}")
        results[(i, job.seed)] = _quality_run(curve, stage.q, job)

    stage._pool(claim, run)
    return [
        QualityCandidate(label=f"{i}", number=None, params=p, runs=[results[(i, s)] for s in stage.q.seed_values()])
        for i, p in enumerate(settings)
    ]


def scan(space: Space, runs: Path, values: list[float]) -> dict[str, Any]:
    stage = stage_for(space, runs, "scan")
    base = stage.baseline_params()
    settings = [{**base, KL_KEY: v} for v in values]
    started = time.monotonic()
    cands = over_seeds(stage, settings, "scan")
    rows = [_row(c) for c in cands]
    keepers = [r for r in rows if r["keeps_bound"]]
    best = max(keepers, key=lambda r: r["mean_score"], default=None)
    print(
        f"\n== scan of {KL_KEY} at {stage.q.steps} steps, seeds {stage.q.seed_values()} ({time.monotonic() - started:.0f} s) =="
    )
    for r in rows:
        print(
            f"  {r['params'][KL_KEY]:<8g} score {r['mean_score']:.4f} (seeds {' '.join(f'{s:.3f}' for s in r['scores'])}); "
            f"KL peak {' '.join(f'{k:.3f}' for k in r['kl_peaks'])}: {'keeps' if r['keeps_bound'] else 'BREAKS'} the bound"
        )
    print(f"  best that keeps the bound: {best['params'][KL_KEY] if best else 'none'}")
    return {"values": rows, "best": best, "seconds": time.monotonic() - started}


def _row(c: QualityCandidate) -> dict[str, Any]:
    return {
        "params": c.params,
        "scores": [r.score for r in c.runs],
        "kl_peaks": [r.kl_peak for r in c.runs],
        "kl_last": [r.kl_last for r in c.runs],
        "mean_score": c.mean_score,
        "keeps_bound": c.keeps_bound,
    }


def layout(space: Space, runs: Path) -> dict[str, Any]:
    """Steps per minute: one run at `trial.world_size`, then `quality.parallel` runs at `quality.world_size`."""
    q = space.quality
    assert q is not None
    out = {}
    for name, world, parallel in (
        ("alone", space.trial.world_size, 1),
        ("quality", q.world_size or space.trial.world_size, q.parallel),
    ):
        base = dict(q.base) if name == "quality" else {}
        s = dataclasses.replace(
            space, quality=dataclasses.replace(q, world_size=world, parallel=parallel, base=base, seeds=1)
        )
        stage = stage_for(s, runs, f"layout-{name}")
        started = time.monotonic()
        cands = over_seeds(stage, [stage.baseline_params()] * parallel, f"layout-{name}")
        wall = time.monotonic() - started
        steps = sum(r.steps for c in cands for r in c.runs)
        out[name] = {
            "world_size": world,
            "parallel": parallel,
            "steps": steps,
            "wall_s": wall,
            "steps_per_min": 60 * steps / wall,
        }
        print(
            f"layout {name}: {parallel} run(s) at world {world}: {steps} steps in {wall:.0f} s = {60 * steps / wall:.0f} steps/min"
        )
    out["ratio"] = out["quality"]["steps_per_min"] / out["alone"]["steps_per_min"]
    print(f"layout: the quality layout trains {out['ratio']:.2f}x the steps per minute")
    return out


def random_search(space: Space, runs: Path, budget: int, sampler_seed: int) -> dict[str, Any]:
    """Full-length random search: random settings (the baseline's first), every run the whole horizon
    (no rung, no stop at the bound), `quality.parallel` at a time, as many as `budget` steps pay for.
    The pick: the best seed-1 score among the runs that kept the bound with the search margin."""
    stage = stage_for(space, runs, f"full-{sampler_seed}", sampler_seed)
    sampler = optuna.samplers.RandomSampler(seed=sampler_seed)
    study = optuna.create_study(direction="maximize", sampler=sampler)
    n = max(1, round(budget / stage.q.steps))
    settings = [stage.baseline_params()]
    while len(settings) < n:
        settings.append(suggest(study.ask(), stage.stage, stage.defaults))
    jobs = [
        _Job(p, stage.q.first_seed, stage.root / "search" / f"{i:04d}", search=False) for i, p in enumerate(settings)
    ]
    queue, tried = list(jobs), []

    def claim():  # type: ignore[no-untyped-def]
        with stage.lock:
            return queue.pop(0) if queue else None

    def run(job):  # type: ignore[no-untyped-def]
        curve, _, _ = stage._run(job, CurveWatch(stage.q, stop_on_limits=False), "full-length random")
        s = summarize(curve, stage.search_q)
        with stage.lock:
            tried.append({"params": job.params, "steps": s.steps, "score": s.score, "feasible": s.broke is None,
                          "kl_peak": s.kl_peak, "dir": str(job.trial_dir)})  # fmt: skip

    stage._pool(claim, run)
    feasible = [t for t in tried if t["feasible"]]
    pick = max(feasible, key=lambda t: t["score"], default=None)
    spent = sum(t["steps"] for t in tried)
    return {"tried": tried, "steps_trained": spent, "pick": pick["params"] if pick else None, "stage": stage}


def compare(space: Space, runs: Path, repeats: int, on_repeat: Any = None, first: int = 0) -> list[dict[str, Any]]:
    out = []
    for r in range(first, first + repeats):
        started = time.monotonic()
        stage = stage_for(space, runs, f"stage-{r}", r, quiet=False)
        result = stage.run()
        winner = next((c for c in result.candidates if c.label == result.winner), None)
        stage_pick = winner or (result.candidates[0] if result.candidates[0].keeps_bound else None)
        rand = random_search(space, runs, result.steps_trained, r)
        rand_eval = over_seeds(rand["stage"], [rand["pick"]], "pick")[0] if rand["pick"] else None
        row = {
            "repeat": r,
            "stage": {
                "pick": stage_pick.params if stage_pick else None,
                "steps_trained": result.steps_trained,
                "mean_score": stage_pick.mean_score if stage_pick else math.nan,
                "keeps_bound": bool(stage_pick and stage_pick.keeps_bound),
                "verdict": result.verdict,
            },
            "random": {
                "pick": rand["pick"],
                "steps_trained": rand["steps_trained"] + (sum(x.steps for x in rand_eval.runs) if rand_eval else 0),
                "search_steps": rand["steps_trained"],
                "mean_score": rand_eval.mean_score if rand_eval else math.nan,
                "keeps_bound": bool(rand_eval and rand_eval.keeps_bound),
                "tried": rand["tried"],
            },
            "seconds": time.monotonic() - started,
        }
        s, x = row["stage"], row["random"]
        print(
            f"repeat {r}: quality stage {s['mean_score']:.4f} ({'keeps' if s['keeps_bound'] else 'no pick keeps'} the bound, "
            f"{s['steps_trained']} steps) | random search {x['mean_score']:.4f} "
            f"({'keeps' if x['keeps_bound'] else 'no pick keeps'} the bound, {x['search_steps']} search steps)"
        )
        out.append(row)
        if on_repeat is not None:
            on_repeat(out)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--space", default="fsdp3d")
    parser.add_argument("--scan", default="0.03,0.1,0.2,0.3,0.5,1")
    parser.add_argument(
        "--seeds", type=int, default=None, help="seeds per setting (default: the space's quality.seeds)"
    )
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--first-repeat", type=int, default=0, help="sampler seed of the first repeat (to add repeats)")
    parser.add_argument("--skip-scan", action="store_true")
    parser.add_argument("--skip-layout", action="store_true")
    parser.add_argument("--skip-compare", action="store_true")
    parser.add_argument("--runs", type=Path, default=None, help="keep the runs here (a rerun resumes the stages)")
    parser.add_argument("--out", type=Path, default=ROOT / "benchmarks" / "results" / "quality_stage.json")
    args = parser.parse_args()
    space = load_space(args.space)
    if space.quality is None:
        sys.exit(f"{space.path}: no `quality:` section")
    if args.seeds:
        space = dataclasses.replace(space, quality=dataclasses.replace(space.quality, seeds=args.seeds))
    results: dict[str, Any] = {"space": space.name, "quality": dataclasses.asdict(space.quality)}
    with tempfile.TemporaryDirectory(prefix="quality-bench-") as tmp:
        runs = args.runs or Path(tmp)
        if not args.skip_scan:
            results["scan"] = scan(space, runs, [float(v) for v in args.scan.split(",")])
        if not args.skip_layout:
            results["layout"] = layout(space, runs)
        if not args.skip_compare:

            def partial(rows: list[dict[str, Any]]) -> None:  # each repeat is written as it ends
                args.out.parent.mkdir(parents=True, exist_ok=True)
                clean = [{**r, "random": {k: v for k, v in r["random"].items() if k != "stage"}} for r in rows]
                args.out.write_text(json.dumps({**results, "compare": clean}, indent=2, default=str))

            rows = compare(space, runs, args.repeats, partial, args.first_repeat)
            for row in rows:
                row["random"].pop("stage", None)
            results["compare"] = rows
            results["summary"] = {
                "stage_mean_score": statistics.fmean(r["stage"]["mean_score"] for r in rows),
                "random_mean_score": statistics.fmean(r["random"]["mean_score"] for r in rows),
                "stage_keeps_bound": sum(r["stage"]["keeps_bound"] for r in rows),
                "random_keeps_bound": sum(r["random"]["keeps_bound"] for r in rows),
                "stage_steps": statistics.fmean(r["stage"]["steps_trained"] for r in rows),
                "random_steps": statistics.fmean(r["random"]["steps_trained"] for r in rows),
            }
            print(json.dumps(results["summary"], indent=2))
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(results, indent=2, default=str))
    print(f"written: {args.out}")


if __name__ == "__main__":
    main()
