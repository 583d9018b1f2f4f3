"""How much of a CPU sweep is spent outside training steps, with cold and with warm trial starts?

Runs the same sweep twice, side by side in one invocation: cold (every rank a fresh interpreter
under torchrun: `AUTOTUNE_WARM_TRIALS=0`) and warm (ranks forked from `trainer.zygote`, the
default). For each: the span from the first trial's start to the last trial's end, the time inside
training steps (Σ `timing_s/step`), and the share outside them (start-up, teardown, controller).

    python benchmarks/trial_overhead.py [--space fsdp3d] [--trials 10]
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
sys.path.insert(0, str(ROOT))

from autotune.study.storage import StudyPaths, load_study  # noqa: E402


def sweep(space: str, trials: int, warm: bool, folder: Path) -> dict[str, float]:
    env = {**os.environ, "AUTOTUNE_WARM_TRIALS": "1" if warm else "0", "OMP_NUM_THREADS": "1"}
    runs = folder / ("warm" if warm else "cold")
    cmd = [sys.executable, "-m", "autotune.cli", "run", "--space", space, "--trials", str(trials), "--confirm", "0",
           "--study", "bench", "--runs-dir", str(runs), "--report-dir", str(folder / "report")]  # fmt: skip
    started = time.monotonic()
    proc = subprocess.run(cmd, capture_output=True, text=True, env=env, cwd=ROOT)
    if proc.returncode != 0:
        raise SystemExit(f"sweep failed:\n{proc.stdout[-2000:]}\n{proc.stderr[-2000:]}")
    study = load_study(StudyPaths(runs, "bench"))
    done = [t for t in study.get_trials() if t.datetime_complete is not None and t.user_attrs.get("outcome")]
    span = (max(t.datetime_complete for t in done) - min(t.datetime_start for t in done)).total_seconds()
    train = sum(float(t.user_attrs.get("train_s") or 0.0) for t in done)
    startup = statistics.median(float(t.user_attrs.get("startup_s") or 0.0) for t in done)
    return {
        "trials": len(done),
        "command_s": time.monotonic() - started,
        "span_s": span,
        "train_s": train,
        "outside_share": 1 - train / span,
        "median_first_step_s": startup,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--space", default="fsdp3d")
    parser.add_argument("--trials", type=int, default=10)
    parser.add_argument("--out", type=Path, default=ROOT / "benchmarks" / "results" / "trial_overhead.json")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        cold = sweep(args.space, args.trials, False, Path(tmp))
        warm = sweep(args.space, args.trials, True, Path(tmp))
    print(f"{args.space}, {args.trials} trials each (no confirmation):")
    print(f"{'':6s} {'span s':>8s} {'train s':>8s} {'outside steps':>14s} {'launch->step 1 s':>17s}")
    for label, row in (("cold", cold), ("warm", warm)):
        print(
            f"{label:6s} {row['span_s']:8.0f} {row['train_s']:8.0f} {row['outside_share']:14.0%} "
            f"{row['median_first_step_s']:17.1f}"
        )
    print(f"sweep wall time warm/cold: {warm['span_s'] / cold['span_s']:.2f}x")
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps({"space": args.space, "trials": args.trials, "cold": cold, "warm": warm}, indent=2))
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
