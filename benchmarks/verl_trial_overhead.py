"""Where does a real verl trial's wall time go, with a Ray cluster per trial and with one per sweep?

Runs the verl-cpu space's baseline configuration `--trials` times in each mode, side by side in one
invocation, each trial exactly as a sweep runs it (`evaluate`, the real runner):

* `per-trial` (before): every trial's `main_ppo` starts a Ray cluster of its own (`AUTOTUNE_SHARED_RAY=0`);
* `shared` (after, the default): the trials join one Ray head started once (`autotune/adapters/ray_head.py`).

Each trial's wall time is split into parts from verl's own timestamped log lines (Ray's `Started a
local Ray instance`/`Connected to Ray cluster`, verl's `Platform override` in each new process,
`dataloader initialized`, `create worker group`, `actor and ref model engine initialized`, `all
initialize finished, ready to fit`) and the runner's clock (launch, first step, wall time) and verl's
`timing_s/step`. "outside steps" is everything but the steps' own time; the sweep line adds what
happens between trials (the controller, the shared head's start).

    python benchmarks/verl_trial_overhead.py [--trials 2] [--steps N]
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
from datetime import datetime
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

STAMP = r"(\d{4}-\d\d-\d\d \d\d:\d\d:\d\d,\d{3})"
MARKS = {
    "ray_init": re.compile(
        STAMP + r"\s+\w+ \S+ -- (?:Token authentication|Connecting to existing Ray cluster|Started)"
    ),
    "ray_ready": re.compile(STAMP + r"\s+INFO \S+ -- (?:Started a local Ray instance|Connected to Ray cluster)"),
    "runner_up": re.compile(r"TaskRunner\w* pid=\d+\)\S* INFO:" + STAMP + r":Platform override"),
    "data_ready": re.compile(r"INFO:" + STAMP + r":train and validate dataloader initialized"),
    "workers_asked": re.compile(r"INFO:" + STAMP + r":create worker group"),
    "workers_up": re.compile(r"WorkerDict pid=\d+\)\S* INFO:" + STAMP + r":Platform override"),
    "models_ready": re.compile(r"INFO:" + STAMP + r":actor and ref model engine initialized"),
    "fit_ready": re.compile(r"INFO:" + STAMP + r":all initialize finished, ready to fit"),
}
"""verl's (and Ray's) own timestamped lines, in the order a trial reaches them."""
PARTS = (
    ("driver: imports, hydra, validate_config", "launch", "ray_init"),
    ("Ray start / join", "ray_init", "ray_ready"),
    ("TaskRunner spawn + imports", "ray_ready", "runner_up"),
    ("TaskRunner: trainer imports, data", "runner_up", "data_ready"),
    ("worker-group set-up", "data_ready", "workers_asked"),
    ("worker spawn + imports", "workers_asked", "workers_up"),
    ("model build, FSDP", "workers_up", "models_ready"),
    ("reward, checkpoint engine, rollout server, agent loop", "models_ready", "fit_ready"),
    ("fit() to step 1 start", "fit_ready", "first_step_start"),
)


def _epoch(stamp: str) -> float:
    return datetime.strptime(stamp, "%Y-%m-%d %H:%M:%S,%f").timestamp()


def marks(trial_dir: Path) -> dict[str, float]:
    """The first time each mark's line appears in the trial's logs (epoch seconds, verl's clock)."""
    text = (trial_dir / "stderr.log").read_text(errors="replace") + (trial_dir / "stdout.log").read_text(
        errors="replace"
    )
    found = {}
    for name, pattern in MARKS.items():
        hits = [_epoch(m.group(1)) for m in pattern.finditer(text)]
        if hits:
            found[name] = min(hits)
    return found


def breakdown(trial_dir: Path, launched: float) -> dict[str, Any]:
    """One trial's parts (seconds) from its logs, outcome.json and metrics.jsonl."""
    outcome = json.loads((trial_dir / "outcome.json").read_text())
    rows = [json.loads(line) for line in (trial_dir / "metrics.jsonl").read_text().splitlines() if line.strip()]
    steps = [float(r["metrics"]["timing_s/step"]) for r in sorted(rows, key=lambda r: r["step"])]
    first_step_s = float(outcome["startup_s"])
    at = {"launch": launched, **marks(trial_dir), "first_step_start": launched + first_step_s - steps[0]}
    parts: dict[str, float | None] = {}
    for label, a, b in PARTS:
        parts[label] = (at[b] - at[a]) if a in at and b in at else None
    parts["step 1"] = steps[0]
    parts["steps 2.."] = sum(steps[1:])
    parts["after the last step: shutdown"] = float(outcome["wall_s"]) - first_step_s - sum(steps[1:])
    wall = float(outcome["wall_s"])
    return {
        "outcome": outcome["outcome"],
        "wall_s": wall,
        "first_step_s": first_step_s,
        "train_s": sum(steps),
        "outside_share": 1 - sum(steps) / wall,
        "parts": parts,
        "memory_gb": outcome["key_metrics"].get("memory_gb"),
    }


def run_mode(shared: bool, trials: int, steps: int | None, folder: Path) -> dict[str, Any]:
    os.environ["AUTOTUNE_SHARED_RAY"] = "1" if shared else "0"
    from autotune.adapters import get_adapter, ray_head
    from autotune.space.loader import load_space
    from autotune.trial.evaluation import evaluate

    space = load_space("verl-cpu")
    if steps is not None:
        space.trial = dataclasses.replace(space.trial, steps=steps)
    adapter = get_adapter(space.trainer, space.command)
    rows = []
    launched: dict[int, float] = {}
    started = time.time()
    adapter.prepare(space.base, space.trial.world_size)  # as a sweep does: the shared head starts here
    for n in range(trials):
        trial_dir = folder / ("shared" if shared else "per-trial") / f"{n:04d}"
        evaluate(
            space,
            adapter,
            dict(space.baseline),
            trial_dir,
            None,
            on_start=lambda _, n=n: launched.setdefault(n, time.time()),
        )
        rows.append(breakdown(trial_dir, launched[n]))
    span = time.time() - started
    head_s = ray_head._head.ready_s if ray_head._head is not None else None
    ray_head.stop()
    train = sum(r["train_s"] for r in rows)
    return {"trials": rows, "span_s": span, "train_s": train, "outside_share": 1 - train / span, "head_start_s": head_s}


def _median(rows: list[dict[str, Any]], label: str) -> float | None:
    values = [r["parts"][label] for r in rows if r["parts"].get(label) is not None]
    return statistics.median(values) if values else None


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--trials", type=int, default=2, help="trials per mode (default 2)")
    parser.add_argument("--steps", type=int, default=None, help="steps per trial (default: the space's)")
    parser.add_argument("--out", type=Path, default=ROOT / "benchmarks" / "results" / "verl_trial_overhead.json")
    args = parser.parse_args()
    load = os.getloadavg()
    with tempfile.TemporaryDirectory() as tmp:
        before = run_mode(False, args.trials, args.steps, Path(tmp))
        after = run_mode(True, args.trials, args.steps, Path(tmp))
    labels = [label for label, _, _ in PARTS] + ["step 1", "steps 2..", "after the last step: shutdown"]
    print(f"verl-cpu baseline, {args.trials} trials per mode; load average before: {load[0]:.2f}")
    print(f"{'median seconds per trial':56s} {'per-trial Ray':>14s} {'shared Ray':>11s}")
    for label in labels:
        b, a = _median(before["trials"], label), _median(after["trials"], label)
        print(f"{label:56s} {'-' if b is None else f'{b:.1f}':>14s} {'-' if a is None else f'{a:.1f}':>11s}")
    for key, label in (("wall_s", "trial wall"), ("first_step_s", "launch -> step 1 logged")):
        b = statistics.median(r[key] for r in before["trials"])
        a = statistics.median(r[key] for r in after["trials"])
        print(f"{label:56s} {b:14.1f} {a:11.1f}")
    b = statistics.median(r["outside_share"] for r in before["trials"])
    a = statistics.median(r["outside_share"] for r in after["trials"])
    print(f"{'share of a trial outside steps':56s} {b:14.0%} {a:11.0%}")
    print(f"{'sweep: shared head start-up (once), s':56s} {'-':>14s} {after['head_start_s'] or 0:11.1f}")
    print(f"{'sweep: span of the trials, s':56s} {before['span_s']:14.1f} {after['span_s']:11.1f}")
    print(f"{'sweep: share outside steps':56s} {before['outside_share']:14.0%} {after['outside_share']:11.0%}")
    args.out.parent.mkdir(parents=True, exist_ok=True)
    uptime = subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip()
    result = {"trials": args.trials, "steps": args.steps, "uptime_before": uptime, "per_trial": before, "shared": after}
    args.out.write_text(json.dumps(result, indent=2))
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
