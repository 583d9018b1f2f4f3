"""Teardown stress: many consecutive short trainer runs, counting how they end.

A finished run must exit 0, with every step in its metrics file and no abort on the way out
(gloo worker threads racing interpreter finalisation used to end some runs with SIGABRT and
"terminate called without an active exception" after the last step). Runs N consecutive real
runs at world 2 (`torchrun --standalone`, gloo) and N at world 1 (`python -m trainer`), with
`OMP_NUM_THREADS=1`, and counts exit codes, SIGABRTs, "terminate called" in stderr and runs
whose metrics file lacks a step. Prints a table and writes it as JSON. Nothing is asserted.

    python benchmarks/teardown_stress.py [--world2 50] [--world1 50] [--steps 12]
        [--out benchmarks/results/teardown_stress.json] [--root DIR] [--env NAME=VALUE ...]

`--root` runs the trainer package found in another tree (e.g. an older checkout, to measure
"before"); `--env` adds environment variables to every run.
"""

from __future__ import annotations

import argparse
import collections
import json
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
ABORT = re.compile(r"exitcode\s*:\s*-6\b|SIGABRT|Signal 6\b")
"""How torchrun reports a rank that died of SIGABRT."""
TERMINATE = "terminate called"


def one_run(root: Path, world: int, steps: int, env: dict[str, str], tmp: Path, index: int) -> dict:
    metrics = tmp / f"w{world}-{index}.jsonl"
    args = [f"trainer.total_training_steps={steps}", f"trainer.metrics_file={metrics}"]
    if world == 1:
        cmd = [sys.executable, "-m", "trainer", *args]
    else:
        cmd = [
            sys.executable, "-m", "torch.distributed.run", "--standalone", f"--nproc_per_node={world}",
            "-m", "trainer", *args,
        ]  # fmt: skip
    start = time.monotonic()
    proc = subprocess.run(cmd, capture_output=True, text=True, cwd=root, env=env, timeout=600)
    wall = time.monotonic() - start
    lines = metrics.read_text().splitlines() if metrics.exists() else []
    steps_written = sum(1 for line in lines if line.startswith('{"step"'))
    abort = proc.returncode == -6 or bool(ABORT.search(proc.stderr))
    return {
        "world": world,
        "index": index,
        "returncode": proc.returncode,
        "sigabrt": abort,
        "terminate_called": TERMINATE in proc.stderr,
        "steps_written": steps_written,
        "complete": steps_written == steps,
        "wall_s": round(wall, 2),
        "stderr_tail": proc.stderr[-1500:] if proc.returncode != 0 or abort else "",
    }


def summarise(runs: list[dict], world: int, steps: int) -> dict:
    mine = [r for r in runs if r["world"] == world]
    walls = sorted(r["wall_s"] for r in mine)
    return {
        "world": world,
        "runs": len(mine),
        "steps": steps,
        "exit_0": sum(r["returncode"] == 0 for r in mine),
        "nonzero_exit": sum(r["returncode"] != 0 for r in mine),
        "sigabrt": sum(r["sigabrt"] for r in mine),
        "terminate_called": sum(r["terminate_called"] for r in mine),
        "incomplete_metrics": sum(not r["complete"] for r in mine),
        "exit_codes": dict(collections.Counter(str(r["returncode"]) for r in mine)),
        "median_wall_s": walls[len(walls) // 2] if walls else None,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--world2", type=int, default=50, help="runs at world 2 (torchrun)")
    parser.add_argument("--world1", type=int, default=50, help="runs at world 1 (python -m trainer)")
    parser.add_argument("--steps", type=int, default=12)
    parser.add_argument("--root", type=Path, default=ROOT, help="tree whose trainer package runs")
    parser.add_argument("--env", action="append", default=[], metavar="NAME=VALUE")
    parser.add_argument("--label", default="", help="a note stored in the JSON (e.g. 'before fix')")
    parser.add_argument("--out", type=Path, default=ROOT / "benchmarks" / "results" / "teardown_stress.json")
    args = parser.parse_args()
    env = {**os.environ, "OMP_NUM_THREADS": "1", "PYTHONUNBUFFERED": "1"}
    for item in args.env:
        name, sep, value = item.partition("=")
        if not sep or not name:
            parser.error(f"--env takes NAME=VALUE, got {item!r}")
        env[name] = value
    runs: list[dict] = []
    started = time.monotonic()
    with tempfile.TemporaryDirectory() as tmp:
        for world, count in ((2, args.world2), (1, args.world1)):
            for index in range(count):
                run = one_run(args.root.resolve(), world, args.steps, env, Path(tmp), index)
                runs.append(run)
                flag = "ok" if run["returncode"] == 0 and not run["sigabrt"] else "FAILED"
                print(
                    f"world {world} run {index + 1}/{count}: exit {run['returncode']} "
                    f"steps {run['steps_written']}/{args.steps} {run['wall_s']:.1f} s {flag}",
                    flush=True,
                )
    table = [summarise(runs, world, args.steps) for world in (2, 1) if any(r["world"] == world for r in runs)]
    header = ("world", "runs", "exit_0", "nonzero_exit", "sigabrt", "terminate_called", "incomplete_metrics")
    print()
    print("  ".join(f"{h:>18}" for h in (*header, "median_wall_s")))
    for row in table:
        print("  ".join(f"{row[h]!s:>18}" for h in (*header, "median_wall_s")))
    result = {
        "label": args.label,
        "root": str(args.root.resolve()),
        "env": dict(item.partition("=")[::2] for item in args.env),
        "steps": args.steps,
        "total_wall_s": round(time.monotonic() - started, 1),
        "summary": table,
        "failures": [r for r in runs if r["returncode"] != 0 or r["sigabrt"] or r["terminate_called"]],
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(result, indent=2) + "\n")
    print(f"\nwrote {args.out}")


if __name__ == "__main__":
    main()
