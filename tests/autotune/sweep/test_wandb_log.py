"""What a trial's wandb run holds, read back from the real offline run file."""

from __future__ import annotations

import time
from typing import Any

import optuna
import yaml

from autotune.study.storage import StudyPaths
from autotune.sweep.wandb_log import WandbLogger
from autotune.trial.record import TrialRecord
from tests.autotune.conftest import import_benchmark


def test_a_trials_wandb_run_leaves_out_the_secrets_its_environment_holds(tmp_path, monkeypatch):
    """A space's `env:` written by hand with `WANDB_API_KEY` went into every trial's W&B run, online a shared place:
    in its `env` and, under `verl/`, in the verl config the trial ran (its Ray env_vars). They stay out; the other
    variables and keys are logged as before."""
    monkeypatch.setenv("WANDB_MODE", "offline")
    paths = StudyPaths(tmp_path / "runs", "s")
    trial_dir = paths.root / "trials" / "0000"
    trial_dir.mkdir(parents=True)
    env_vars = {"WANDB_API_KEY": "wk-123", "NCCL_IB_HCA": "mlx5"}
    config = {"data": {"train_batch_size": 8}, "ray_kwargs": {"ray_init": {"runtime_env": {"env_vars": env_vars}}}}
    (trial_dir / "config.yaml").write_text(yaml.safe_dump(config))
    study = optuna.create_study(direction="maximize")
    trial = study.ask()
    TrialRecord(outcome="complete", dir=str(trial_dir), env={"HF_TOKEN": "hf_abc", "NCCL_IB_HCA": "mlx5"}).save(trial)
    study.tell(trial, 1.0)

    WandbLogger("autotune-test", paths).log_trial(study, 0)

    [run_file] = (paths.root / "wandb" / "wandb").glob("offline-run-*-trial-0000/*.wandb")
    reader, deadline = import_benchmark("wandb_run_file"), time.monotonic() + 60
    logged: dict[str, Any] = reader.read_run(run_file)["config"]
    while not logged and time.monotonic() < deadline:  # wandb's own process writes the file: read once it has
        time.sleep(0.5)
        logged = reader.read_run(run_file)["config"]
    assert "wk-123" not in str(logged) and "hf_abc" not in str(logged), logged
    assert logged["env"] == {"NCCL_IB_HCA": "mlx5"}
    assert logged["verl/ray_kwargs.ray_init.runtime_env.env_vars.NCCL_IB_HCA"] == "mlx5"
    assert logged["verl/data.train_batch_size"] == 8
