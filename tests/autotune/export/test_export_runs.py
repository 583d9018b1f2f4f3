"""The exported YAML runs as is in the built-in trainer: hydra's composition keys are ignored and the
environment verl passes to its workers is set for the run (item: re-running the sweep's own winner)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import yaml

from autotune.adapters import get_adapter
from autotune.adapters.verl_config import render_yaml
from autotune.export.winner import export_settings
from autotune.space.loader import load_space
from autotune.space.stages import throughput_stage
from tests.conftest import ROOT, trainer_env

WINNER = {
    "actor_rollout_ref.rollout.tensor_model_parallel_size": 1,
    "actor_rollout_ref.actor.ppo_micro_batch_size_per_gpu": 8,
    "actor_rollout_ref.actor.fsdp_config.reshard_after_forward": False,
    "env.NCCL_PROTO": "Simple",
}


def exported(tmp_path: Path) -> Path:
    """What `autotune export` writes for a fsdp3d winner (NCCL_PROTO kept: as a GPU sweep exports it)."""
    space = throughput_stage(load_space("fsdp3d", device="cpu"))
    flat = export_settings(space, get_adapter("builtin"), {**space.baseline, **WINNER})
    path = tmp_path / "best.yaml"
    path.write_text(render_yaml(flat, ["a winner"]))
    return path


def trainer(*args: str, world: int = 1, timeout: float = 300) -> subprocess.CompletedProcess[str]:
    launcher = ["-m", "torch.distributed.run", "--standalone", f"--nproc_per_node={world}"] if world > 1 else []
    cmd = [sys.executable, *launcher, "-m", "trainer", *args]
    return subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, env=trainer_env(), cwd=ROOT)


def test_the_export_holds_hydra_keys_and_the_environment(tmp_path: Path) -> None:
    text = yaml.safe_load(exported(tmp_path).read_text())
    assert text["hydra"] == {"searchpath": ["pkg://verl.trainer.config"]} and text["defaults"][0] == "ppo_trainer"
    assert text["ray_kwargs"]["ray_init"]["runtime_env"]["env_vars"] == {"NCCL_PROTO": "Simple"}


def test_the_built_in_trainer_reads_the_export_with_the_winners_settings(tmp_path: Path) -> None:
    proc = trainer("--config", "cpu_tiny", "--config", str(exported(tmp_path)), "--print-config")
    assert proc.returncode == 0, proc.stderr
    config = yaml.safe_load(proc.stdout)
    actor = config["actor_rollout_ref"]["actor"]
    assert config["actor_rollout_ref"]["rollout"]["tensor_model_parallel_size"] == 1
    assert actor["ppo_micro_batch_size_per_gpu"] == 8 and actor["fsdp_config"]["reshard_after_forward"] is False
    assert config["algorithm"]["kl_ctrl"]["kl_coef"] == 0.001 and actor["optim"]["lr"] == 5.0e-5  # the space's base
    assert "hydra" not in config and "ray_kwargs" not in config


def test_torchrun_trains_the_export_as_is(tmp_path: Path) -> None:
    metrics = tmp_path / "metrics.jsonl"
    proc = trainer(
        "--config", "cpu_tiny", "--config", str(exported(tmp_path)),
        "trainer.total_training_steps=2", f"trainer.metrics_file={metrics}", world=2,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr[-3000:]
    steps = [json.loads(line) for line in metrics.read_text().splitlines()]
    assert [s["step"] for s in steps] == [1, 2]
    line = next(ln for ln in proc.stdout.splitlines() if ln.startswith("trainer: run header "))
    header = json.loads(line.removeprefix("trainer: run header "))
    assert header["world_size"] == 2
    assert "env.NCCL_PROTO" in header["inert_knobs"]  # the file's environment reached the ranks


def test_hydra_keys_stay_refused_as_overrides_and_unknown_keys_in_files(tmp_path: Path) -> None:
    proc = trainer("--print-config", "hydra.searchpath=[x]")
    assert proc.returncode == 2
    assert "unknown key `hydra.searchpath`" in proc.stderr
    bad = tmp_path / "bad.yaml"
    bad.write_text("hydra:\n  searchpath: [x]\nactor_rollout_ref:\n  actor:\n    ppo_epoch: 2\n")
    proc = trainer("--config", str(bad), "--print-config")
    assert proc.returncode == 2
    assert f"{bad}:5: unknown key `actor_rollout_ref.actor.ppo_epoch`" in proc.stderr
