"""Fixtures for the controller tests: small spaces at world 1 and a finished small study."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from autotune.study.storage import StudyPaths
from tests.conftest import ROOT, trainer_env

SMALL_SPACE = """\
name: small
trainer: builtin
base_config: [cpu_tiny]
base:
  data.train_batch_size: 8
  actor_rollout_ref.actor.ppo_mini_batch_size: 8
  builtin.warm_start.steps: 15
trial:
  steps: {steps}
  warmup_steps: 1
  world_size: 1
  timeout_s: {timeout}
  hang_timeout_s: {hang}
  startup_grace_s: 60
params:
  actor_rollout_ref.actor.use_dynamic_bsz: {{type: bool}}
  actor_rollout_ref.actor.ppo_micro_batch_size_per_gpu:
    type: categorical
    choices: [2, 4, 8]
    when: {{actor_rollout_ref.actor.use_dynamic_bsz: false}}
  algorithm.kl_ctrl.kl_coef: {{type: float, low: 1.0e-4, high: 1.0e-1, log: true}}
{extra_params}
objectives:
  - {{metric: perf/throughput, direction: maximize, reducer: median}}
limits:
  - {{metric: actor/kl_loss, reducer: last, max: 5.0}}
  - {{metric: memory, reducer: max, max_ratio_to_baseline: 3.0}}
baseline:
  actor_rollout_ref.actor.use_dynamic_bsz: false
  actor_rollout_ref.actor.ppo_micro_batch_size_per_gpu: {baseline_micro}
  algorithm.kl_ctrl.kl_coef: 0.001
{extra_baseline}
confirm: {{top_k: {top_k}, repeats: 1}}
sampler: {{seed: 0, n_startup_trials: 10}}
trials: 4
"""


def write_space(
    tmp_path: Path,
    steps: int = 3,
    timeout: float = 120,
    hang: float = 30,
    extra_params: str = "",
    extra_baseline: str = "",
    baseline_micro: int = 4,
    top_k: int = 1,
) -> Path:
    path = tmp_path / "small.yaml"
    path.write_text(
        SMALL_SPACE.format(
            steps=steps,
            timeout=timeout,
            hang=hang,
            extra_params=extra_params,
            extra_baseline=extra_baseline,
            baseline_micro=baseline_micro,
            top_k=top_k,
        )
    )
    return path


def simulated_study(runs: Path, name: str, trials: int, storage: str | None = None) -> tuple[Any, StudyPaths]:
    """`fsdp3d-8gpu` swept on the cost model (seconds), in `storage` (a `--storage` URL; None: the folder's SQLite
    file): (the space as loaded, the study's paths)."""
    from autotune.space.loader import load_space
    from autotune.study.progress import SweepProgress
    from autotune.sweep.driver import SweepOptions, run_sweep

    space = load_space("fsdp3d-8gpu", device="cuda")
    paths = StudyPaths(runs, name)
    progress = SweepProgress(trials, "perf/throughput")
    progress.quiet = True
    run_sweep(SweepOptions(space=space, paths=paths, n_trials=trials, storage=storage, fidelity=("sim",)), progress)
    return space, paths


def wandb_summary(study_root: Path, name: str) -> dict[str, Any]:
    """The summary of study `name`'s wandb summary run (offline, under `study_root`/wandb/), read with wandb's
    own record protobufs (`benchmarks/wandb_run_file.py`)."""
    from wandb.proto import wandb_internal_pb2 as pb

    reader = import_benchmark("wandb_run_file")
    folder = max((study_root / "wandb" / "wandb").glob(f"offline-run-*-{name}-summary"))  # the latest
    said: dict[str, Any] = {}
    for chunk in reader.raw_records(next(folder.glob("*.wandb")).read_bytes()):
        record = pb.Record()
        record.ParseFromString(chunk)
        if record.WhichOneof("record_type") == "summary":
            said.update({item.key: json.loads(item.value_json) for item in record.summary.update})
    return said


def import_benchmark(name: str) -> Any:
    """A script of benchmarks/ as a module (its folder on the path while it imports, as when run)."""
    import importlib

    sys.path.insert(0, str(ROOT / "benchmarks"))
    try:
        return importlib.import_module(name)
    finally:
        sys.path.remove(str(ROOT / "benchmarks"))


def autotune(*args: str, cwd: Path | None = None, timeout: float = 600) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "autotune.cli", *args],
        capture_output=True,
        text=True,
        env=trainer_env(),
        cwd=cwd or ROOT,
        timeout=timeout,
    )


@pytest.fixture(scope="session")
def small_study(tmp_path_factory):
    """A finished 4-trial study with one confirmation round, its report and offline wandb runs:
    (runs_dir, space path, CompletedProcess). Its baseline runs micro-batches of 2, so the sweep's dynamic batching
    wins its one-round confirmation whatever the machine's load (measured x1.58-2.93 over it, where over the
    other tests' micro-batches of 4 it measured x0.90-1.35 and lost once beside other work). Both of the sweep's
    distinct candidates (dynamic batching, micro-batches of 4) are confirmed: the sweep's single runs rank them by
    noise (its first trial, the baseline, runs slow, so both read about x1.85), and with only the top one
    confirmed, micro-batches of 4 (x0.985 of the baseline in confirmation) won the sweep once and the baseline
    shipped, failing the three tests that need a confirmed winner (row 108)."""
    tmp = tmp_path_factory.mktemp("small_study")
    space = write_space(tmp, baseline_micro=2, top_k=2)
    runs = tmp / "runs"
    proc = autotune(
        "run",
        "--space",
        str(space),
        "--runs-dir",
        str(runs),
        "--report-dir",
        str(tmp / "report"),
        "--wandb",
        "autotune-test",
    )
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    return runs, space, proc
