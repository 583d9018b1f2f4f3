"""What keeping verl's verdicts on disk saves a command on a verl space.

Each round runs the same command twice in fresh processes with a new, empty cache folder
(`XDG_CACHE_HOME`): the first asks verl (importing it, composing, `validate_config`) and keeps its
verdicts; the second answers from them. Rounds alternate nothing else, so the pair is side by side.
Commands: `autotune validate --space fsdp3d-8gpu` and a 30-trial simulated sweep of the same space.

    python benchmarks/verdict_cache.py [--rounds 3]
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
COMMANDS = {
    "validate": ["validate", "--space", "fsdp3d-8gpu"],
    "sim sweep, 30 trials": ["run", "--space", "fsdp3d-8gpu", "--fidelity", "sim", "--trials", "30"],
}


def timed(args: list[str], cache: Path, folder: Path) -> float:
    env = {**os.environ, "XDG_CACHE_HOME": str(cache), "WANDB_MODE": "offline"}
    run = ["--runs-dir", str(folder / "runs"), "--report-dir", str(folder / "report")] if args[0] == "run" else []
    start = time.perf_counter()
    proc = subprocess.run([sys.executable, "-m", "autotune.cli", *args, *run], capture_output=True, text=True, env=env)
    seconds = time.perf_counter() - start
    if proc.returncode != 0:
        raise SystemExit(f"autotune {' '.join(args)} failed:\n{proc.stderr[-2000:]}")
    return seconds


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--out", type=Path, default=ROOT / "benchmarks" / "results" / "verdict_cache.json")
    args = parser.parse_args()
    results: dict[str, dict[str, list[float]]] = {name: {"asks verl": [], "from the cache": []} for name in COMMANDS}
    for round_ in range(args.rounds):
        for name, command in COMMANDS.items():
            with tempfile.TemporaryDirectory() as tmp:
                folder = Path(tmp)
                cold = timed(command, folder / "cache", folder / "first")
                warm = timed(command, folder / "cache", folder / "second")
            results[name]["asks verl"].append(round(cold, 2))
            results[name]["from the cache"].append(round(warm, 2))
            print(f"round {round_ + 1}: {name}: {cold:.1f} s asking verl, {warm:.1f} s from the cache", flush=True)
    summary = {}
    for name, runs in results.items():
        cold, warm = statistics.median(runs["asks verl"]), statistics.median(runs["from the cache"])
        summary[name] = {"asks verl_s": cold, "from the cache_s": warm, "ratio": round(warm / cold, 3)}
        print(f"{name}: median {cold:.1f} s -> {warm:.1f} s (x{warm / cold:.2f})")
    load = os.getloadavg()[0]
    print(f"load average {load:.1f} on {os.cpu_count()} cores")
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps({"rounds": results, "median": summary, "load": load}, indent=2))
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
