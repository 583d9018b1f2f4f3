"""How long do 200 trials on the cost model take, end to end, as a user runs them?

    python benchmarks/sim_speed.py [--trials 200] [--space fsdp3d-8gpu] [--gpu H100] [--repeats 2]

Runs `autotune run --space fsdp3d-8gpu --backend sim --gpu H100 --trials 200` in a fresh runs folder and
measures the command's wall time, the CPU time it used (user + system, its children included) and the load
average of the machine before and after (the machine may be shared: wall time on a loaded machine includes
waiting for a core, CPU time does not). Side by side in the same invocation, the same sweep with SQLite in
WAL mode and `synchronous=NORMAL` (no fsync per commit; a study's SQLite file otherwise syncs the disk on
each of the ~50 commits a trial makes), to show what the storage costs. And, in process, the cost model
alone: the time of one prediction of the space's 7B job over its rollout TP and micro-batch choices.

Each setting runs --repeats times, interleaved (the order alternates, as load on a shared machine drifts).
Writes benchmarks/results/sim_speed.json; the goal is under 60 s of wall time for 200 trials.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

GOAL_S = 60.0

_WAL = """
import sqlite3
from sqlalchemy import event
from sqlalchemy.engine import Engine

@event.listens_for(Engine, "connect")
def _no_fsync_per_commit(connection, _record):
    if isinstance(connection, sqlite3.Connection):
        cursor = connection.cursor()
        cursor.execute("PRAGMA journal_mode=WAL")
        cursor.execute("PRAGMA synchronous=NORMAL")
        cursor.close()
"""
_RUN_CLI = "import runpy, sys\nsys.argv = {argv!r}\nrunpy.run_module('autotune.cli', run_name='__main__')\n"


def sweep(args: argparse.Namespace, folder: Path, wal: bool) -> dict[str, Any]:
    """One `autotune run ... --backend sim` in a fresh runs folder: wall and CPU seconds, load, trials done."""
    from autotune.study.storage import StudyPaths, load_study

    runs = folder / ("wal" if wal else "shipped")
    argv = ["autotune", "run", "--space", args.space, "--backend", "sim", "--gpu", args.gpu, "--trials",
            str(args.trials), "--study", "speed", "--runs-dir", str(runs), "--report-dir", str(folder / "report")]  # fmt: skip
    code = (_WAL if wal else "") + _RUN_CLI.format(argv=argv)
    env = {**os.environ, "OMP_NUM_THREADS": "1"}
    load_before = os.getloadavg()
    cpu_before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, cwd=folder)
    wall = time.perf_counter() - started
    cpu_after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if proc.returncode != 0:
        raise SystemExit(f"the sweep failed (exit {proc.returncode}):\n{proc.stdout[-2000:]}\n{proc.stderr[-2000:]}")
    study = load_study(StudyPaths(runs, "speed"))
    finished = [t for t in study.get_trials() if t.state.is_finished()]
    return {
        "storage": "SQLite, WAL + synchronous=NORMAL" if wal else "SQLite as shipped",
        "trials": len(finished),
        "wall_s": wall,
        "cpu_s": (cpu_after.ru_utime - cpu_before.ru_utime) + (cpu_after.ru_stime - cpu_before.ru_stime),
        "load_before": load_before,
        "load_after": os.getloadavg(),
        "under_goal": wall < GOAL_S,
    }


def model_only(repeats: int) -> dict[str, float]:
    """Seconds per prediction of the cost model alone (the space's 7B job over rollout TP and micro-batch)."""
    from autotune.adapters import get_adapter
    from autotune.sim.hardware import cluster
    from autotune.sim.model import CostModel
    from autotune.sim.workload import PRESETS

    base = dict(get_adapter("verl").defaults([]))
    base.update({"data.train_batch_size": 1024, "data.max_prompt_length": 512, "data.max_response_length": 1024,
                 "actor_rollout_ref.actor.ppo_mini_batch_size": 256, "actor_rollout_ref.rollout.name": "vllm",
                 "actor_rollout_ref.model.path": "Qwen2.5-7B"})  # fmt: skip
    configs = []
    for tp in (1, 2, 4, 8):
        for micro in (1, 2, 4, 8, 16):
            configs.append({**base, "actor_rollout_ref.rollout.tensor_model_parallel_size": tp,
                            "actor_rollout_ref.actor.ppo_micro_batch_size_per_gpu": micro})  # fmt: skip
    started = time.perf_counter()
    for i in range(repeats):
        model = CostModel(cluster("H100", 8), PRESETS["Qwen2.5-7B"], prompt_tokens=100, response_tokens=190)
        model.predict(configs[i % len(configs)], {}, 8)
    return {"predictions": repeats, "s_per_prediction": (time.perf_counter() - started) / repeats}


def summary(runs: list[dict[str, Any]]) -> dict[str, Any]:
    walls = sorted(r["wall_s"] for r in runs)
    return {
        "runs": runs,
        "median_wall_s": statistics.median(walls),
        "max_wall_s": walls[-1],
        "median_cpu_s": statistics.median(r["cpu_s"] for r in runs),
        "all_under_goal": all(r["under_goal"] for r in runs),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--space", default="fsdp3d-8gpu")
    parser.add_argument("--gpu", default="H100")
    parser.add_argument("--trials", type=int, default=200)
    parser.add_argument("--repeats", type=int, default=2, help="sweeps per storage setting, interleaved")
    parser.add_argument("--out", type=Path, default=ROOT / "benchmarks" / "results" / "sim_speed.json")
    args = parser.parse_args()
    shipped, wal = [], []
    for i in range(args.repeats):  # interleaved, alternating which goes first: load on a shared machine drifts
        for use_wal in (bool(i % 2), not i % 2):
            with tempfile.TemporaryDirectory(prefix="sim-speed-") as tmp:
                r = sweep(args, Path(tmp), wal=use_wal)
            (wal if use_wal else shipped).append(r)
            print(
                f"{r['storage']:32} {r['trials']} trials: {r['wall_s']:.1f} s wall "
                f"({'under' if r['under_goal'] else 'OVER'} the {GOAL_S:.0f} s goal), {r['cpu_s']:.1f} s CPU; "
                f"load average {r['load_before'][0]:.2f} before, {r['load_after'][0]:.2f} after, on {os.cpu_count()} cores"
            )
    model = model_only(args.trials)
    result = {
        "command": f"autotune run --space {args.space} --backend sim --gpu {args.gpu} --trials {args.trials}",
        "cores": os.cpu_count(),
        "goal_wall_s": GOAL_S,
        "shipped": summary(shipped),
        "sqlite_wal": summary(wal),
        "cost_model_only": model,
    }
    result["wal_speedup_median"] = result["shipped"]["median_wall_s"] / result["sqlite_wal"]["median_wall_s"]
    for name in ("shipped", "sqlite_wal"):
        r = result[name]
        print(
            f"{name}: median {r['median_wall_s']:.1f} s wall (max {r['max_wall_s']:.1f}), {r['median_cpu_s']:.1f} s CPU"
        )
    print(f"WAL: {result['wal_speedup_median']:.2f}x the shipped storage's median wall time")
    print(f"the cost model alone: {model['s_per_prediction'] * 1e3:.2f} ms per prediction "
          f"({model['s_per_prediction'] * args.trials:.2f} s for {args.trials})")  # fmt: skip
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(result, indent=1))
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
