"""Rollout tensor parallelism and resharding, side by side in one run.

Runs the trainer at world 2 for each layout — rollout TP 1 and 2, zero-redundancy and naive
resharding — interleaved over rounds (this machine is noisy), and prints the medians of step
time, `timing_s/gen`, `timing_s/reshard`, comm share, the bytes each rank receives while
resharding and the peak rollout-weight memory. Writes them to a JSON file. Nothing is asserted.

    python benchmarks/rollout_tp.py [--rounds 2] [--steps 8] [--out benchmarks/results/rollout_tp.json]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
LAYOUTS = {
    "tp1 zero_redundancy": ["actor_rollout_ref.rollout.tensor_model_parallel_size=1"],
    "tp2 zero_redundancy": ["actor_rollout_ref.rollout.tensor_model_parallel_size=2"],
    "tp2 naive": ["actor_rollout_ref.rollout.tensor_model_parallel_size=2", "builtin.rollout_reshard=naive"],
    "tp1 naive": ["actor_rollout_ref.rollout.tensor_model_parallel_size=1", "builtin.rollout_reshard=naive"],
}
COLUMNS = {
    "step_s": "timing_s/step",
    "gen_s": "timing_s/gen",
    "reshard_s": "timing_s/reshard",
    "comm_share": "perf/comm_share",
    "reshard_recv_mb": "rollout/received_mb/reshard",
    "reshard_peak_mb": "rollout/reshard_peak_gb",
    "throughput": "perf/throughput",
}


def run(overrides: list[str], steps: int, extra: list[str]) -> list[dict]:
    with tempfile.TemporaryDirectory() as tmp:
        metrics = Path(tmp) / "m.jsonl"
        cmd = [
            sys.executable, "-m", "torch.distributed.run", "--standalone", "--nproc_per_node=2", "-m", "trainer",
            f"trainer.total_training_steps={steps}", f"trainer.metrics_file={metrics}", *overrides, *extra,
        ]  # fmt: skip
        proc = subprocess.run(cmd, capture_output=True, text=True, cwd=ROOT, env={**os.environ, "OMP_NUM_THREADS": "1"})
        if proc.returncode != 0:
            raise SystemExit(f"trainer failed for {overrides}:\n{proc.stderr[-2000:]}")
        return [json.loads(line)["metrics"] for line in metrics.read_text().splitlines()]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--steps", type=int, default=8)
    parser.add_argument("--warmup", type=int, default=2)
    parser.add_argument("--out", type=Path, default=ROOT / "benchmarks" / "results" / "rollout_tp.json")
    parser.add_argument("overrides", nargs="*", help="extra trainer overrides for every layout (e.g. a larger model)")
    args = parser.parse_args()
    samples: dict[str, dict[str, list[float]]] = {name: {c: [] for c in COLUMNS} for name in LAYOUTS}
    for round_ in range(args.rounds):
        for name, overrides in LAYOUTS.items():
            print(f"round {round_ + 1}/{args.rounds}: {name}", flush=True)
            for row in run(overrides, args.steps, args.overrides)[args.warmup :]:
                for column, metric in COLUMNS.items():
                    value = row.get(metric, float("nan"))
                    samples[name][column].append(value * 1024 if column == "reshard_peak_mb" else value)
    results = {name: {c: statistics.median(v) for c, v in cols.items()} for name, cols in samples.items()}
    header = f"{'layout':<22}" + "".join(f"{c:>16}" for c in COLUMNS)
    print("\nmedians over post-warm-up steps, world 2 (gloo), interleaved rounds")
    print(header)
    for name, row in results.items():
        print(f"{name:<22}" + "".join(f"{row[c]:>16.4g}" for c in COLUMNS))
    base = results["tp1 zero_redundancy"]
    ratios = {
        "tp2_vs_tp1_step_time": results["tp2 zero_redundancy"]["step_s"] / base["step_s"],
        "tp2_vs_tp1_gen_time": results["tp2 zero_redundancy"]["gen_s"] / base["gen_s"],
        "tp2_zero_redundancy_vs_naive_received": results["tp2 zero_redundancy"]["reshard_recv_mb"]
        / results["tp2 naive"]["reshard_recv_mb"],
        "tp2_zero_redundancy_vs_naive_peak": results["tp2 zero_redundancy"]["reshard_peak_mb"]
        / results["tp2 naive"]["reshard_peak_mb"],
    }
    for key, value in ratios.items():
        print(f"{key}: {value:.3f}")
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(
        json.dumps({"layouts": results, "ratios": ratios, "rounds": args.rounds, "steps": args.steps}, indent=2)
    )
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
