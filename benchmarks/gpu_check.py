"""The checks that need a CUDA GPU, in one short run (CI has none; run this on a GPU node).

1. `python -m trainer` and `torchrun --nproc_per_node 1 -m trainer` on the GPU: the run header names
   the nccl backend and the GPU, every step reports `perf/max_memory_allocated_gb` (CUDA's own
   allocator peak) beside the trainer's `perf/tensor_memory_gb` accounting, and `perf/mfu/actor`
   against the GPU's bf16 peak from the table.
2. A larger built-in model (fp32, so its MFU against the bf16 peak is a lower bound): the same
   metrics at a size where the accounting and CUDA's peak can be compared.
3. An injected out-of-memory error on the GPU exits with code 4 and the reason line.
4. `autotune run` on a one-GPU copy of `fsdp3d` (world 1, rollout TP 1, a few trials, one
   confirmation round), then `trials`, `best`, `export` and `report` on it.

    python benchmarks/gpu_check.py [--out benchmarks/results/gpu_check.json] [--trials 6]

Prints what it measured and writes it as JSON; exits 1 if a check failed.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import yaml

ROOT = Path(__file__).resolve().parents[1]
LARGE = [
    "builtin.model.hidden_size=1024",
    "builtin.model.intermediate_size=2816",
    "builtin.model.num_hidden_layers=8",
    "builtin.model.num_attention_heads=16",
    "builtin.model.num_key_value_heads=16",
    "data.train_batch_size=256",
    "actor_rollout_ref.actor.ppo_mini_batch_size=256",
    "actor_rollout_ref.actor.ppo_micro_batch_size_per_gpu=64",
    "builtin.warm_start.steps=0",
]


def trainer_run(name: str, work: Path, overrides: list[str], torchrun: bool = False) -> dict[str, Any]:
    """One trainer run: exit code, run header, last step's metrics, wall time."""
    metrics = work / f"{name}.jsonl"
    launcher = (
        [sys.executable, "-m", "torch.distributed.run", "--standalone", "--nproc_per_node", "1", "-m", "trainer"]
        if torchrun
        else [sys.executable, "-m", "trainer"]
    )
    cmd = [*launcher, f"trainer.metrics_file={metrics}", *overrides]
    start = time.monotonic()
    try:
        proc = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=300)
    except subprocess.TimeoutExpired as e:
        out = (e.stdout or b"").decode() if isinstance(e.stdout, bytes) else (e.stdout or "")
        proc = subprocess.CompletedProcess(cmd, -9, out, "timed out after 300 s")
    wall = time.monotonic() - start
    (work / f"{name}.log").write_text(proc.stdout + proc.stderr)
    header: dict[str, Any] = {}
    for line in proc.stdout.splitlines():
        if line.startswith("trainer: run header "):
            header = json.loads(line.removeprefix("trainer: run header "))
            break
    rows = [json.loads(line) for line in metrics.read_text().splitlines()] if metrics.exists() else []
    reasons = [line for line in proc.stderr.splitlines() if "trainer: FAILED" in line]
    last = rows[-1]["metrics"] if rows else {}
    keep = (
        "perf/max_memory_allocated_gb",
        "perf/max_memory_reserved_gb",
        "perf/tensor_memory_gb",
        "perf/mfu/actor",
        "perf/throughput",
        "perf/comm_share",
        "timing_s/step",
        "timing_s/gen",
        "timing_s/update_actor",
        "actor/kl_loss",
    )
    return {
        "exit": proc.returncode,
        "wall_s": round(wall, 1),
        "steps": len(rows),
        "backend": header.get("backend"),
        "device": header.get("device"),
        "peak_flops": header.get("peak_flops_per_device"),
        "peak_flops_source": header.get("peak_flops_source"),
        "metrics": {k: last.get(k) for k in keep},
        "failed_line": reasons[0] if reasons else None,
        "stderr_tail": proc.stderr[-1500:] if proc.returncode not in (0, 4) else "",
    }


def gpu_space(path: Path, trials: int) -> Path:
    """`fsdp3d` on one GPU: world 1, rollout TP 1 (the only TP one rank allows)."""
    data = yaml.safe_load((ROOT / "search_spaces" / "fsdp3d.yaml").read_text())
    data["name"] = "fsdp3d-gpu1"
    data["trial"]["world_size"] = 1
    data["params"].pop("actor_rollout_ref.rollout.tensor_model_parallel_size")
    data["constraints"] = [c for c in data["constraints"] if "divides" not in c]
    data["baseline"].pop("actor_rollout_ref.rollout.tensor_model_parallel_size")
    data["base"]["actor_rollout_ref.rollout.tensor_model_parallel_size"] = 1
    data["trials"] = trials
    data["confirm"] = {"top_k": 1, "repeats": 1}
    path.write_text(yaml.safe_dump(data, sort_keys=False))
    return path


def cli(args: list[str], work: Path, name: str) -> dict[str, Any]:
    start = time.monotonic()
    proc = subprocess.run([sys.executable, "-m", "autotune.cli", *args], cwd=ROOT, capture_output=True, text=True)
    (work / f"{name}.log").write_text(proc.stdout + proc.stderr)
    return {
        "exit": proc.returncode,
        "wall_s": round(time.monotonic() - start, 1),
        "tail": (proc.stdout + proc.stderr)[-3000:],
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", type=Path, default=ROOT / "benchmarks" / "results" / "gpu_check.json")
    parser.add_argument("--logs", type=Path, default=None, help="keep the runs' logs here")
    parser.add_argument("--trials", type=int, default=6)
    parser.add_argument("--skip-sweep", action="store_true")
    parser.add_argument("--skip-large", action="store_true", help="skip the larger model (minutes on a CPU)")
    args = parser.parse_args()
    import torch

    work = args.logs or Path(tempfile.mkdtemp(prefix="gpu-check-"))
    work.mkdir(parents=True, exist_ok=True)
    result: dict[str, Any] = {
        "cuda": torch.cuda.is_available(),
        "gpu": torch.cuda.get_device_name(0) if torch.cuda.is_available() else None,
        "torch": torch.__version__,
    }
    short = ["trainer.total_training_steps=6"]
    result["trainer"] = trainer_run("trainer", work, short)
    result["torchrun"] = trainer_run("torchrun", work, short, torchrun=True)
    if not args.skip_large:
        result["large"] = trainer_run("large", work, ["trainer.total_training_steps=4", *LARGE])
    result["oom"] = trainer_run("oom", work, [*short, "builtin.fault.kind=oom", "builtin.fault.at_step=2"])
    for key in ("trainer", "torchrun", "large", "oom"):
        if key in result:
            print(key, json.dumps(result[key], indent=None, default=str)[:1500], flush=True)
    if not args.skip_sweep:
        runs = work / "runs"
        space = gpu_space(work / "fsdp3d-gpu1.yaml", args.trials)
        sweep = ["--space", str(space), "--runs-dir", str(runs)]
        result["sweep"] = cli(["run", *sweep, "--freeze-inert"], work, "sweep")
        study = ["--runs-dir", str(runs)]
        result["trials_table"] = cli(["trials", "fsdp3d-gpu1", *study], work, "trials")
        result["best"] = cli(["best", "fsdp3d-gpu1", *study], work, "best")
        result["export"] = cli(["export", "fsdp3d-gpu1", *study, "-o", str(work / "best.yaml")], work, "export")
        result["report"] = cli(["report", "fsdp3d-gpu1", *study, "-o", str(work / "report")], work, "report")
        for key in ("sweep", "trials_table", "best", "export", "report"):
            print(
                f"== {key}: exit {result[key]['exit']} in {result[key]['wall_s']} s\n{result[key]['tail']}", flush=True
            )
    result["checks"] = checks(result)
    failed = [name for name, ok in result["checks"].items() if not ok]
    print("checks:", ", ".join(f"{k} {'ok' if v else 'FAILED'}" for k, v in result["checks"].items()))
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(result, indent=2, default=str))
    print(f"wrote {args.out}")
    raise SystemExit(1 if failed else 0)


def checks(result: dict[str, Any]) -> dict[str, bool]:
    out: dict[str, bool] = {}
    for key in ("trainer", "torchrun", "large"):
        if key not in result:
            continue
        run, m = result[key], result[key]["metrics"]
        out[f"{key}: exit 0, nccl"] = run["exit"] == 0 and run["backend"] == "nccl"
        allocated, tensors = m.get("perf/max_memory_allocated_gb"), m.get("perf/tensor_memory_gb")
        out[f"{key}: CUDA memory reported"] = bool(allocated) and allocated > 0
        out[f"{key}: tensor accounting <= CUDA peak"] = bool(allocated and tensors) and tensors <= allocated * 1.05
        out[f"{key}: 0 < MFU < 1"] = 0 < (m.get("perf/mfu/actor") or 0) < 1
    out["oom: exit 4"] = result["oom"]["exit"] == 4
    if "sweep" in result:
        for key in ("sweep", "trials_table", "best", "export", "report"):
            out[f"autotune {key}: exit 0"] = result[key]["exit"] == 0
    return out


if __name__ == "__main__":
    os.environ.setdefault("PYTHONUNBUFFERED", "1")
    main()
