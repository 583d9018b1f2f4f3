"""A CPU-scale sweep with confirmation: how much faster is the winner than verl's defaults, and at
what cost in memory and KL? Also: how much of the sweep's wall time was not training.

Runs `autotune run --space fsdp3d --stage throughput --ablate 0` (or --space) into a fresh runs folder: the sweep,
its confirmation and the equivalence check (the quality stage's runs and the ablation's are not sweep time, and
have benchmarks of their own: quality_stage.py, ablation_stopping.py). Then it reads the study:

* the confirmed speedup of the winner over the baseline (mean of per-round ratios, with min/max
  and std over the interleaved confirmation rounds), its memory ratio and KL to the reference;
* the share of sweep wall time spent outside training steps (process start, imports, model
  build, warm-start load, teardown, scoring): 1 - Σ timing_s/step / sweep wall time, and where
  that time went: controller start-up until the first launch, each run's launch to its first step
  and its last step to its exit, the controller between runs (scoring, storage, report refreshes,
  the next ask), and the end (confirmation summary, the equivalence check, report, winner); with the load average, since
  the machine may be shared;
* where this stands against the FSDP3D recipe's claim: 1.4× at memory < 1.2× and KL < 0.05 (memory:
  the trainer's tensor memory on CPU, device memory on GPU; peak RSS printed beside it);
* which knobs made the winner faster: `autotune explain` walks from the baseline to the winner one
  knob at a time, each step re-measured, and the product of the step gains is set against the
  confirmed speedup (skip with --explain-repeats 0).

    python benchmarks/sweep_speedup.py [--space fsdp3d] [--trials 16] [--confirm 2] [--top-k 2]
                                       [--explain-repeats 2] [--explain-max-rounds N]
"""

from __future__ import annotations

import argparse
import itertools
import json
import math
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from autotune.report.data import memory_metric  # noqa: E402
from autotune.study.ablation_result import Explanation  # noqa: E402
from autotune.study.confirmation_result import Confirmation, ConfirmedCandidate  # noqa: E402
from autotune.study.storage import StudyPaths, counted, load_study  # noqa: E402

RECIPE = {"speedup": 1.4, "memory_ratio": 1.2, "kl": 0.05}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--space", default="fsdp3d")
    parser.add_argument("--trials", type=int, default=None)
    parser.add_argument("--confirm", type=int, default=3)
    parser.add_argument("--top-k", type=int, default=2)
    parser.add_argument("--out", type=Path, default=ROOT / "benchmarks" / "results" / "sweep_speedup.json")
    parser.add_argument("--keep", action="store_true", help="keep the runs folder")
    parser.add_argument("--explain-repeats", type=int, default=2, help="rounds per explain step (0: no explain)")
    parser.add_argument("--explain-max-rounds", type=int, default=None, help="cap on greedy explain rounds")
    args = parser.parse_args()
    runs = Path(tempfile.mkdtemp(prefix="autotune-bench-"))
    cmd = [sys.executable, "-m", "autotune.cli", "run", "--space", args.space, "--runs-dir", str(runs)]
    cmd += ["--confirm", str(args.confirm), "--top-k", str(args.top_k), "--freeze-inert"]
    cmd += ["--stage", "throughput", "--ablate", "0"]  # the command ran the quality stage too, counted as sweep time
    if args.trials:
        cmd += ["--trials", str(args.trials)]
    load_before = os.getloadavg()
    start, started_at = time.monotonic(), time.time()
    proc = subprocess.run(cmd, cwd=ROOT, text=True)
    wall = time.monotonic() - start
    ended_at, load_after = time.time(), os.getloadavg()
    if proc.returncode != 0:
        raise SystemExit(f"sweep failed (exit {proc.returncode})")
    name = next(p.name for p in runs.iterdir() if (p / "study.db").exists())
    paths = StudyPaths(runs, name)
    study = load_study(paths)
    trials = [t for t in study.get_trials() if counted(t)]
    train_s = sum(sum(step_times(f)) for f in [*(paths.root / "trials").glob("*"), *paths.confirm_dir.glob("*")])
    breakdown = overhead_breakdown(paths, started_at, ended_at)
    path = explain_path(name, runs, args.explain_repeats, args.explain_max_rounds)
    confirmation = Confirmation.read(paths)
    winner_id = confirmation.winner if confirmation else None
    none = ConfirmedCandidate(number=-1, params={}, values=[], feasible_rounds=0, rounds=0, mean=math.nan)
    row = (confirmation.row(winner_id) if confirmation else None) or none
    base = (confirmation.row(confirmation.baseline) if confirmation else None) or none
    result = {
        "space": args.space,
        "trials": len(trials),
        "outcomes": {
            o: sum(1 for t in trials if t.user_attrs.get("outcome") == o)
            for o in ("complete", "infeasible", "pruned", "failed")
        },
        "confirm_rounds": args.confirm,
        "sweep_wall_s": wall,
        "training_steps_s": train_s,
        "outside_training_share": 1 - train_s / wall,
        "overhead_breakdown_s": breakdown,
        "load_average": {"before": load_before, "after": load_after},
        "winner": winner_id,
        "winner_params": row.params if winner_id is not None else None,
        "speedup_mean": row.speedup_mean,
        "speedup_min": row.speedup_min,
        "speedup_max": row.speedup_max,
        "speedup_std": row.speedup_std,
        "memory_ratio": row.memory_ratio,
        "memory_metric": memory_metric(study),
        "rss_ratio": row.rss_ratio,
        "kl": row.kl,
        "baseline_kl": base.kl,
        "comm_share": row.comm_share,
        "recipe_claim": RECIPE,
        "explain": path.to_json() if path else None,
    }
    meets = (
        result["speedup_mean"] >= RECIPE["speedup"]
        and result["memory_ratio"] < RECIPE["memory_ratio"]
        and result["kl"] < RECIPE["kl"]
    )
    result["meets_recipe_claim"] = bool(meets)
    print("\n== sweep speedup ==")
    print(f"trials: {result['trials']} {result['outcomes']}, confirmation rounds: {args.confirm}")
    print(
        f"winner #{winner_id}: {result['speedup_mean']:.2f}x the baseline "
        f"(rounds {result['speedup_min']:.2f}-{result['speedup_max']:.2f}, std {result['speedup_std']:.2f}), "
        f"memory {result['memory_ratio']:.2f}x ({result['memory_metric']}), peak RSS {result['rss_ratio']:.2f}x, "
        f"KL {result['kl']:.4f} (baseline {result['baseline_kl']:.4f})"
    )
    print(
        f"sweep wall {wall:.0f} s, training steps {train_s:.0f} s: {result['outside_training_share']:.0%} outside training steps"
    )
    parts = ", ".join(f"{k.replace('_', ' ')} {v:.1f} s" for k, v in breakdown.items() if k != "runs")
    print(f"  outside steps ({breakdown['runs']} runs): {parts}")
    print(f"  load average: {load_before[0]:.1f} before, {load_after[0]:.1f} after")
    print(f"FSDP3D recipe: 1.4x at memory < 1.2x and KL < 0.05 -> {'met' if meets else 'not met'} here")
    if path:
        print("\n".join(path.lines()))
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(result, indent=2, default=str))
    print(f"wrote {args.out}")
    if not args.keep:
        shutil.rmtree(runs, ignore_errors=True)


def overhead_breakdown(paths: StudyPaths, started_at: float, ended_at: float) -> dict[str, float]:
    """Where the sweep's time outside training steps went, in seconds (from the runs' folders).

    A run's launch is when its `command` file was written (just before the process starts) and
    its end is launch + `wall_s`; its start-up is launch to the first step's start (`startup_s`,
    when the controller saw the first step, minus that step's time; so it includes the controller's
    polling delay) and its teardown is the rest of `wall_s` after its steps (with the milliseconds
    per step spent logging metrics outside `timing_s/step`, and a stopped run's kill). Between runs,
    and before the first and after the last, the time is the controller's.
    """
    folders = [*(paths.root / "trials").glob("*"), *paths.confirm_dir.glob("*")]
    runs = []
    for folder in folders:
        if not (folder / "outcome.json").exists() or not (folder / "command").exists():
            continue  # invalid configurations never launch
        outcome = json.loads((folder / "outcome.json").read_text())
        steps = step_times(folder)
        launch = (folder / "command").stat().st_mtime
        wall = float(outcome["wall_s"])
        startup = float(outcome.get("startup_s") or 0.0) - (steps[0] if steps else 0.0) if steps else wall
        runs.append((launch, wall, max(startup, 0.0), sum(steps)))
    runs.sort()
    if not runs:
        return {"runs": 0}
    between = sum(max(0.0, nxt[0] - (cur[0] + cur[1])) for cur, nxt in itertools.pairwise(runs))
    return {
        "runs": len(runs),
        "controller_start": runs[0][0] - started_at,
        "run_start_up": sum(r[2] for r in runs),
        "run_teardown": sum(max(0.0, r[1] - r[2] - r[3]) for r in runs),
        "controller_between_runs": between,
        "controller_end": ended_at - (runs[-1][0] + runs[-1][1]),
    }


def step_times(folder: Path) -> list[float]:
    metrics = folder / "metrics.jsonl"
    if not metrics.exists():
        return []
    return [json.loads(line)["metrics"].get("timing_s/step", 0.0) for line in metrics.read_text().splitlines()]


def explain_path(study: str, runs: Path, repeats: int, max_rounds: int | None) -> Explanation | None:
    """Run `autotune explain` on the finished sweep; its stored path (None when skipped or failed)."""
    if repeats <= 0:
        return None
    cmd = [sys.executable, "-m", "autotune.cli", "explain", study, "--runs-dir", str(runs), "--repeats", str(repeats)]
    if max_rounds:
        cmd += ["--max-rounds", str(max_rounds)]
    if subprocess.run(cmd, cwd=ROOT, text=True).returncode != 0:
        print("explain failed: no ablation path")
        return None
    return Explanation.read(StudyPaths(runs, study))


if __name__ == "__main__":
    main()
