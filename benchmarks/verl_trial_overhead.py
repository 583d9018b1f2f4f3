"""Where does a real verl trial's wall time go, with a Ray cluster per trial and with one per sweep?

Runs the verl-cpu space's baseline configuration `--trials` times in each mode, interleaved in one
invocation (own cluster, shared head, own cluster, ...), each trial exactly as a sweep runs it
(`evaluate`, the real runner):

* `per-trial` (before): every trial's `main_ppo` starts a Ray cluster of its own (`AUTOTUNE_SHARED_RAY=0`);
* `shared` (after, the default): the trials join one Ray head started once (`autotune/adapters/ray_head.py`).

Each trial's wall time is split into parts from verl's own timestamped log lines (Ray's `Started a
local Ray instance`/`Connected to Ray cluster`, verl's `Platform override` in each new process,
`dataloader initialized`, `create worker group`, `actor and ref model engine initialized`, `all
initialize finished, ready to fit`) and the runner's clock (launch, first step, wall time) and verl's
`timing_s/step`. "outside steps" is everything but the steps' own time (the shared head's start-up,
paid once, is counted against the shared trials). It also samples the CPU seconds every process of the trial
uses (`CpuSampler`), outside steps and per process: that work spread over every core, with no process ever
waiting on another, is the least time outside steps any scheduling of these processes could reach, and so the
least share outside steps (`outside_share_floor`). `--sweep-trials N` also runs `autotune run --space
verl-cpu --trials N --confirm 0` both ways, as a user would (the acceptance measure).

    python benchmarks/verl_trial_overhead.py [--trials 2] [--steps N] [--sweep-trials 4]
"""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import threading
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


class CpuSampler:
    """CPU seconds used by a trial's processes, sampled every 0.2 s: the driver and everything under this process
    (a per-trial cluster's GCS, raylet and workers), and every process of the shared head's session (where a shared
    trial's workers run). Each process counts from its first sample (a process alive before the trial counts only
    what it used during it); what a process uses after its last sample is missed, so the totals are a lower bound."""

    PERIOD_S = 0.2

    def __init__(self, head: Any | None) -> None:
        self.head = head
        """The shared Ray head (`ray_head.Head`) whose processes count too, or None."""
        self.names: dict[int, str] = {}
        self.by_pid: dict[int, list[tuple[float, float]]] = {}
        """Each process's (time, CPU seconds so far) samples."""
        self.series: list[tuple[float, float]] = []
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def __enter__(self) -> CpuSampler:
        self._sample()
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()

    def _pids(self) -> set[int]:
        import psutil

        pids = {p.pid for p in psutil.Process().children(recursive=True)}
        if self.head is not None:
            from autotune.adapters import ray_head

            pids |= set(ray_head.members(self.head))
        return pids

    def _sample(self) -> None:
        import psutil

        for pid in self._pids():
            with contextlib.suppress(psutil.Error):
                proc = psutil.Process(pid)
                cpu = sum(proc.cpu_times()[:2])
                name = proc.name()
                self.names[pid] = name if name.startswith("ray::") else " ".join(proc.cmdline()[:3])[-60:]
                self.by_pid.setdefault(pid, []).append((time.time(), cpu))
        self.series.append((time.time(), self.used()))

    def _run(self) -> None:
        while not self._stop.wait(self.PERIOD_S):
            self._sample()

    def _used(self, pid: int) -> float:
        samples = self.by_pid[pid]
        return samples[-1][1] - samples[0][1]

    def used(self) -> float:
        return sum(self._used(pid) for pid in self.by_pid)

    def used_between(self, start: float, end: float, pid: int | None = None) -> float:
        """CPU seconds used between two wall-clock times (the nearest samples before them), by all the processes
        or by one."""
        series = self.series if pid is None else self.by_pid[pid]

        def at(t: float) -> float:
            before = [cpu for stamp, cpu in series if stamp <= t]
            return before[-1] if before else series[0][1] if pid is not None else 0.0

        return at(end) - at(start)

    def by_process(self, start: float, end: float) -> list[tuple[str, float, float]]:
        """(name, CPU seconds in the trial, of them between `start` and `end`) per process, the busiest first."""
        rows = [(self.names[pid], self._used(pid), self.used_between(start, end, pid)) for pid in self.by_pid]
        return sorted((r for r in rows if r[1] >= 0.05), key=lambda r: -r[1])


def breakdown(trial_dir: Path, launched: float, cpu: CpuSampler | None = None) -> dict[str, Any]:
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
    cores = len(os.sched_getaffinity(0))
    cpu_parts: dict[str, Any] = {}
    if cpu is not None:
        start, end = at["first_step_start"], at["first_step_start"] + sum(steps)
        outside = cpu.used() - cpu.used_between(start, end)
        floor = outside / cores
        cpu_parts = {
            "cpu_s": cpu.used(),
            "cpu_outside_steps_s": outside,
            "cpu_by_process": cpu.by_process(start, end),
            # all of the CPU work outside steps spread over every core, none of it waiting on another
            "outside_floor_s": floor,
            "outside_share_floor": floor / (floor + sum(steps)),
        }
    return {
        **cpu_parts,
        "outcome": outcome["outcome"],
        "wall_s": wall,
        "first_step_s": first_step_s,
        "train_s": sum(steps),
        "outside_share": 1 - sum(steps) / wall,
        "parts": parts,
        "memory_gb": outcome["key_metrics"].get("memory_gb"),
    }


def interleaved(trials: int, steps: int | None, folder: Path) -> dict[str, dict[str, Any]]:
    """`trials` rounds of (a trial with its own cluster, a trial on the shared head), interleaved so the
    machine's load drifts over both alike; the head starts once, as in a sweep (the adapter's prepare)."""
    from autotune.adapters import get_adapter, ray_head
    from autotune.space.loader import load_space
    from autotune.trial.evaluation import evaluate

    space = load_space("verl-cpu")
    if steps is not None:
        space.trial = dataclasses.replace(space.trial, steps=steps)
    adapter = get_adapter(space.trainer, space.command)
    os.environ["AUTOTUNE_SHARED_RAY"] = "1"
    adapter.prepare(space.base, space.trial.world_size)  # as a sweep does: the shared head starts here
    rows: dict[str, list[dict[str, Any]]] = {"per_trial": [], "shared": []}
    for n in range(trials):
        for mode in ("per_trial", "shared"):
            os.environ["AUTOTUNE_SHARED_RAY"] = "1" if mode == "shared" else "0"
            launched: list[float] = []
            trial_dir = folder / mode / f"{n:04d}"
            stamp = launched.append
            head = ray_head.current() if mode == "shared" else None
            with CpuSampler(head) as cpu:
                evaluate(
                    space, adapter, dict(space.baseline), trial_dir, None, on_start=lambda _, s=stamp: s(time.time())
                )
            rows[mode].append(breakdown(trial_dir, launched[0], cpu))
    head = ray_head.current()
    head_s = head.ready_s if head is not None else None
    ray_head.stop()
    out = {}
    for mode, trial_rows in rows.items():
        wall = sum(r["wall_s"] for r in trial_rows) + ((head_s or 0.0) if mode == "shared" else 0.0)
        train = sum(r["train_s"] for r in trial_rows)
        out[mode] = {"trials": trial_rows, "wall_s": wall, "train_s": train, "outside_share": 1 - train / wall}
    out["shared"]["head_start_s"] = head_s
    return out


def sweep(shared: bool, trials: int, folder: Path) -> dict[str, Any]:
    """`autotune run --space verl-cpu --trials N --confirm 0` as a user runs it: the share of the trials'
    span outside training steps (as `trial_overhead.py` counts it) and the command's own wall time."""
    from autotune.study.storage import StudyPaths, load_study

    env = {**os.environ, "AUTOTUNE_SHARED_RAY": "1" if shared else "0"}
    runs = folder / ("sweep-shared" if shared else "sweep-per-trial")
    cmd = [sys.executable, "-m", "autotune.cli", "run", "--space", "verl-cpu", "--trials", str(trials), "--confirm", "0",
           "--study", "bench", "--runs-dir", str(runs), "--report-dir", str(folder / "report")]  # fmt: skip
    started = time.monotonic()
    proc = subprocess.run(cmd, capture_output=True, text=True, env=env, cwd=ROOT)
    command_s = time.monotonic() - started
    if proc.returncode != 0:
        raise SystemExit(f"sweep failed:\n{proc.stdout[-2000:]}\n{proc.stderr[-2000:]}")
    study = load_study(StudyPaths(runs, "bench"))
    done = [t for t in study.get_trials() if t.datetime_complete is not None and t.user_attrs.get("outcome")]
    span = (max(t.datetime_complete for t in done) - min(t.datetime_start for t in done)).total_seconds()
    train = sum(float(t.user_attrs.get("train_s") or 0.0) for t in done)
    return {
        "trials": len(done),
        "outcomes": [t.user_attrs.get("outcome") for t in done],
        "memory_gb": [t.user_attrs.get("key_metrics", {}).get("memory_gb") for t in done],
        "command_s": command_s,
        "span_s": span,
        "train_s": train,
        "outside_share": 1 - train / span,
        "outside_share_of_command": 1 - train / command_s,
    }


def _median(rows: list[dict[str, Any]], label: str) -> float | None:
    values = [r["parts"][label] for r in rows if r["parts"].get(label) is not None]
    return statistics.median(values) if values else None


def report(trials: int, load: float, before: dict[str, Any], after: dict[str, Any]) -> None:
    labels = [label for label, _, _ in PARTS] + ["step 1", "steps 2..", "after the last step: shutdown"]
    print(
        f"verl-cpu baseline, {trials} interleaved rounds of (own cluster, shared head); load average before: {load:.2f}"
    )
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
    cores = len(os.sched_getaffinity(0))
    for key, label, fmt in (
        ("cpu_s", "CPU seconds of the trial's processes", ".1f"),
        ("cpu_outside_steps_s", "  of them outside steps", ".1f"),
        ("outside_floor_s", f"  that, spread over all {cores} cores (s)", ".1f"),
        ("outside_share_floor", "  the least share outside steps it allows", ".0%"),
    ):
        b = statistics.median(r[key] for r in before["trials"])
        a = statistics.median(r[key] for r in after["trials"])
        print(f"{label:56s} {format(b, fmt):>14s} {format(a, fmt):>11s}")
    print("CPU seconds per process in the last shared trial, and of them during its steps (a process alive before the")
    print("trial counts what it used during it):")
    for name, used, in_steps in after["trials"][-1]["cpu_by_process"]:
        print(f"  {used:6.1f} {in_steps:6.1f}  {name}")
    print(f"{'sweep: shared head start-up (once), s':56s} {'-':>14s} {after['head_start_s'] or 0:11.1f}")
    print(f"{'all trials + head start, s':56s} {before['wall_s']:14.1f} {after['wall_s']:11.1f}")
    print(f"{'share of that outside steps':56s} {before['outside_share']:14.0%} {after['outside_share']:11.0%}")


def report_sweeps(trials: int, sweeps: dict[str, dict[str, Any]]) -> None:
    b, a = sweeps["per_trial"], sweeps["shared"]
    print(f"autotune run --space verl-cpu --trials {trials} --confirm 0 (the space's steps per trial)")
    print(f"{'':40s} {'per-trial Ray':>14s} {'shared Ray':>11s}")
    rows = (
        ("command wall, s", "command_s", ".1f"),
        ("span of the trials, s", "span_s", ".1f"),
        ("in training steps, s", "train_s", ".1f"),
        ("outside steps, share of the span", "outside_share", ".0%"),
        ("outside steps, share of the command", "outside_share_of_command", ".0%"),
    )
    for label, key, fmt in rows:
        print(f"{label:40s} {format(b[key], fmt):>14s} {format(a[key], fmt):>11s}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--trials", type=int, default=2, help="trials per mode (default 2; 0: none)")
    parser.add_argument("--steps", type=int, default=None, help="steps per trial (default: the space's)")
    parser.add_argument("--sweep-trials", type=int, default=0, help="also `autotune run` N trials both ways")
    parser.add_argument("--keep", type=Path, default=None, help="keep the trials' folders here")
    parser.add_argument("--out", type=Path, default=ROOT / "benchmarks" / "results" / "verl_trial_overhead.json")
    args = parser.parse_args()
    load = os.getloadavg()[0]
    with tempfile.TemporaryDirectory() as tmp:
        folder = args.keep or Path(tmp)
        modes = interleaved(args.trials, args.steps, folder) if args.trials else None
        before, after = (modes["per_trial"], modes["shared"]) if modes else (None, None)
        sweeps = None
        if args.sweep_trials:
            sweeps = {
                "per_trial": sweep(False, args.sweep_trials, folder),
                "shared": sweep(True, args.sweep_trials, folder),
            }
    if before is not None and after is not None:
        report(args.trials, load, before, after)
    if sweeps is not None:
        report_sweeps(args.sweep_trials, sweeps)
    uptime = subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip()
    result = {"trials": args.trials, "steps": args.steps, "load_before": load, "uptime_after": uptime,
              "per_trial": before, "shared": after, "sweeps": sweeps}  # fmt: skip
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(result, indent=2))
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
