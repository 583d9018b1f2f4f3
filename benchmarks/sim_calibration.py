"""How well does the calibrated cost model predict trials it has not seen?

Runs a CPU sweep of the builtin trainer (or reads an existing study with --study/--runs-dir),
fits the cost model's weights on two thirds of its trials (`autotune calibrate`), predicts the
step time of the held-back third from their configurations alone, and prints the median relative
error (the goal: under 20%). Writes the numbers to a JSON file.

    python benchmarks/sim_calibration.py [--space fsdp3d] [--trials 14] [--holdout 0.34]
    python benchmarks/sim_calibration.py --runs-dir runs --study fsdp3d      # an existing sweep
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from autotune.adapters import get_adapter  # noqa: E402
from autotune.sim.calibrate import calibrate_study  # noqa: E402
from autotune.space.loader import load_space  # noqa: E402
from autotune.study.storage import StudyPaths, load_study  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--space", default="fsdp3d")
    parser.add_argument("--trials", type=int, default=14)
    parser.add_argument("--holdout", type=float, default=0.34)
    parser.add_argument("--runs-dir", type=Path, default=None, help="read an existing study instead of running one")
    parser.add_argument("--study", default=None)
    parser.add_argument("--out", type=Path, default=ROOT / "benchmarks" / "results" / "sim_calibration.json")
    args = parser.parse_args()
    runs = args.runs_dir
    if runs is None:
        runs = Path(tempfile.mkdtemp(prefix="autotune-calib-"))
        cmd = [
            sys.executable,
            "-m",
            "autotune.cli",
            "run",
            "--space",
            args.space,
            "--runs-dir",
            str(runs),
            "--trials",
            str(args.trials),
        ]
        cmd += ["--confirm", "0", "--freeze-inert", "--report-dir", str(runs / "report")]
        cmd += ["--stage", "throughput"]  # the sweep's trials are what it fits; the quality stage took minutes more
        if subprocess.run(cmd, cwd=ROOT).returncode != 0:
            raise SystemExit("the sweep failed")
    name = args.study or next(p.name for p in runs.iterdir() if (p / "study.db").exists())
    paths = StudyPaths(runs, name)
    space = load_space(str(paths.space_copy))
    result = calibrate_study(paths, load_study(paths), space, get_adapter(space.trainer, space.command), args.holdout)
    held = result.get("holdout_errors", [])
    print("\n== cost-model calibration on CPU trials of the builtin trainer ==")
    print(
        f"fitted on {len(result['trials'])} trials: median step-time error {result['fit_error_median']:.1%} (in sample)"
    )
    if held:
        print(f"held back {len(held)} trials: errors {', '.join(f'{e:.1%}' for e in held)}")
        print(f"median held-back step-time error: {statistics.median(held):.1%} (goal < 20%)")
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(result, indent=2, default=str))
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
