"""Where does the built-in trainer's start-up go on this machine, cold and warm?

A cold trial is `torchrun --standalone` starting fresh interpreters; a warm one (the default) forks
its ranks from `trainer.zygote`, which has imported torch, transformers and the trainer already. This
runs the trainer's own start-up, phase by phase, in fresh ranks under torchrun (rank 0's clock) and
prints each phase: launcher and interpreter start, `import torch`, `import transformers`, the
trainer's modules, the process group (gloo here, NCCL on a GPU), the roles (models, FSDP2, optimizer,
rollout), the first step and the second. The first three are what the warm parent removes; the rest
every run pays.

    python benchmarks/builtin_startup.py [--world 2] [--repeats 3]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

PROBE = """
import json, os, sys, time
marks = {"interpreter": time.time()}
import torch
marks["torch"] = time.time()
import transformers
marks["transformers"] = time.time()
from trainer import distributed, loop
from trainer.config.loader import load_config
marks["trainer modules"] = time.time()
torch.set_num_threads(1)
env = distributed.init()
marks["process group"] = time.time()
config = load_config([], ["trainer.total_training_steps=2"])
trainer = loop.Trainer(config, env)
marks["roles: models, FSDP2, optimizer, rollout"] = time.time()
trainer.train_step(1)
marks["step 1"] = time.time()
trainer.train_step(2)
marks["step 2"] = time.time()
if env.rank == 0:
    with open(sys.argv[1], "w") as f:
        json.dump(marks, f)
distributed.finish()
distributed.leave(0)
"""
PHASES = (
    "interpreter",
    "torch",
    "transformers",
    "trainer modules",
    "process group",
    "roles: models, FSDP2, optimizer, rollout",
    "step 1",
    "step 2",
)
WARM_REMOVES = ("interpreter", "torch", "transformers", "trainer modules")
"""What a rank forked from the warm parent no longer pays (the parent imported it all)."""


def one_run(world: int, folder: Path) -> dict[str, float]:
    probe = folder / "probe.py"
    probe.write_text(PROBE)
    out = folder / "marks.json"
    env = {**os.environ, "OMP_NUM_THREADS": "1", "PYTHONPATH": str(ROOT)}
    argv = [sys.executable, "-m", "torch.distributed.run", "--standalone", f"--nproc_per_node={world}", str(probe), str(out)]  # fmt: skip
    launched = time.time()
    subprocess.run(argv, check=True, env=env, cwd=folder, capture_output=True)
    marks = json.loads(out.read_text())
    previous, parts = launched, {}
    for name in PHASES:
        parts[name] = marks[name] - previous
        previous = marks[name]
    return parts


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--world", type=int, default=2)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--out", type=Path, default=ROOT / "benchmarks" / "results" / "builtin_startup.json")
    args = parser.parse_args()
    load = os.getloadavg()[0]
    with tempfile.TemporaryDirectory() as tmp:
        runs = [one_run(args.world, Path(tmp)) for _ in range(args.repeats)]
    median = {name: statistics.median(r[name] for r in runs) for name in PHASES}
    to_first = sum(median[name] for name in PHASES[:-1])
    print(f"built-in trainer, world {args.world}, median of {args.repeats} cold runs (load average {load:.2f})")
    print(f"{'phase':44s} {'seconds':>8s}  warm start")
    for name in PHASES:
        print(f"{name:44s} {median[name]:8.2f}  {'removed' if name in WARM_REMOVES else 'paid'}")
    removed = sum(median[name] for name in WARM_REMOVES)
    print(f"{'launch -> step 1 done (cold)':44s} {to_first:8.2f}")
    print(f"{'of which the warm parent removes':44s} {removed:8.2f}")
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps({"world": args.world, "load": load, "runs": runs, "median": median}, indent=2))
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
