from __future__ import annotations

import subprocess
import sys

import pytest

from tests.conftest import ROOT, trainer_env
from trainer.config.loader import ConfigError, build, collect, load_config, schema_keys, suggest_key, to_flat


def test_dataclass_defaults_mirror_verl():
    """Spot-check verl 0.9.x defaults (ppo_trainer.yaml) on the keys the tuner speaks."""
    keys = schema_keys()
    expected = {
        "actor_rollout_ref.rollout.tensor_model_parallel_size": 2,
        "actor_rollout_ref.actor.fsdp_config.forward_prefetch": False,
        "actor_rollout_ref.actor.fsdp_config.reshard_after_forward": True,
        "actor_rollout_ref.actor.fsdp_config.offload_policy": False,
        "actor_rollout_ref.actor.strategy": "fsdp",
        "actor_rollout_ref.actor.use_dynamic_bsz": False,
        "actor_rollout_ref.actor.ppo_max_token_len_per_gpu": 16384,
        "actor_rollout_ref.actor.ppo_mini_batch_size": 256,
        "actor_rollout_ref.actor.ppo_epochs": 1,
        "actor_rollout_ref.actor.clip_ratio_low": 0.2,
        "actor_rollout_ref.actor.clip_ratio_high": 0.2,
        "actor_rollout_ref.actor.clip_ratio_c": 3.0,
        "actor_rollout_ref.actor.kl_loss_type": "low_var_kl",
        "actor_rollout_ref.actor.kl_loss_coef": 0.001,
        "actor_rollout_ref.actor.optim.lr": 1e-6,
        "critic.optim.lr": 1e-5,
        "critic.ppo_max_token_len_per_gpu": 32768,
        "algorithm.kl_ctrl.type": "fixed",
        "algorithm.kl_ctrl.kl_coef": 0.001,
        "algorithm.kl_ctrl.target_kl": 0.1,
        "algorithm.kl_ctrl.horizon": 10000,
        "algorithm.adv_estimator": "gae",
        "actor_rollout_ref.rollout.free_cache_engine": True,
        "actor_rollout_ref.rollout.gpu_memory_utilization": 0.5,
        "actor_rollout_ref.rollout.max_num_batched_tokens": 8192,
        "data.max_prompt_length": 512,
        "data.max_response_length": 512,
        "data.train_batch_size": 1024,
        "actor_rollout_ref.rollout.n": 1,
    }
    for key, value in expected.items():
        assert keys[key].default == value, key


def test_builtin_only_keys_are_marked():
    keys = schema_keys()
    assert keys["trainer.metrics_file"].builtin_only
    assert keys["builtin.fault.kind"].builtin_only
    assert not keys["trainer.total_training_steps"].builtin_only


def test_yaml_layers_then_overrides(tmp_path):
    f = tmp_path / "c.yaml"
    f.write_text("data:\n  train_batch_size: 8\nactor_rollout_ref.actor.ppo_mini_batch_size: 4\n")
    config = load_config(["cpu_tiny", str(f)], ["data.train_batch_size=16", "actor_rollout_ref.actor.optim.lr=1e-3"])
    assert config.data.train_batch_size == 16
    assert config.actor_rollout_ref.actor.ppo_mini_batch_size == 4
    assert config.actor_rollout_ref.actor.optim.lr == pytest.approx(1e-3)


def test_interpolated_defaults_follow_the_actor():
    config = load_config(
        [],
        [
            "actor_rollout_ref.actor.use_dynamic_bsz=true",
            "actor_rollout_ref.actor.ppo_max_token_len_per_gpu=48",
        ],
    )
    assert config.actor_rollout_ref.ref.log_prob_use_dynamic_bsz is True
    assert config.actor_rollout_ref.ref.log_prob_max_token_len_per_gpu == 48
    assert config.critic.use_dynamic_bsz is True
    # a nested default set by its section's factory survives a sibling override
    config = load_config([], ["critic.optim.weight_decay=0.1"])
    assert config.critic.optim.lr == pytest.approx(1e-3)  # cpu_tiny's critic lr, not the actor's


@pytest.mark.parametrize(
    "override, message",
    [
        (
            "actor_rollout_ref.actor.kl_los_coef=0.1",
            r"unknown key `actor_rollout_ref.actor.kl_los_coef`; did you mean `actor_rollout_ref.actor.kl_loss_coef`",
        ),
        ("actor.kl_loss_coef=0.1", r"did you mean `actor_rollout_ref.actor.kl_loss_coef`"),
        ("data.train_batch_size=abc", r"`data.train_batch_size` must be an integer, got 'abc'"),
        ("actor_rollout_ref.actor.use_dynamic_bsz=maybe", r"must be true or false"),
        ("algorithm.adv_estimator=grp", r"must be one of 'gae', 'grpo' \(did you mean 'grpo'\?\)"),
        ("actor_rollout_ref.actor.clip_ratio_c=0.5", r"`actor_rollout_ref.actor.clip_ratio_c` must be > 1.0"),
        ("actor_rollout_ref.actor.ppo_mini_batch_size=5", r"must divide data.train_batch_size=32"),
        ("actor_rollout_ref.actor", r"not of the form key=value"),
        ("actor_rollout_ref.actor=3", r"is a section, not a value"),
    ],
)
def test_bad_overrides_name_key_and_rule(override, message):
    with pytest.raises(ConfigError, match=message):
        load_config([], [override])


def test_yaml_errors_carry_file_and_line(tmp_path):
    f = tmp_path / "bad.yaml"
    f.write_text("data:\n  train_batch_size: 16\n  max_promt_length: 4\n")
    with pytest.raises(
        ConfigError,
        match=r"bad.yaml:3: unknown key `data.max_promt_length`; did you mean `data.max_prompt_length`",
    ):
        load_config([str(f)])
    f.write_text("data:\n  train_batch_size: [1, 2\n")
    with pytest.raises(ConfigError, match="not valid YAML"):
        load_config([str(f)])


def test_token_budget_must_hold_a_longest_sequence():
    with pytest.raises(ConfigError, match=r"ppo_max_token_len_per_gpu must hold one longest sequence .* = 16\)"):
        load_config(
            [],
            [
                "actor_rollout_ref.actor.use_dynamic_bsz=true",
                "actor_rollout_ref.actor.ppo_max_token_len_per_gpu=12",
            ],
        )


def test_suggest_key_prefers_same_leaf():
    keys = list(schema_keys())
    assert suggest_key("kl_coef", keys) == "algorithm.kl_ctrl.kl_coef"
    assert suggest_key("totally_unrelated_name", keys) is None


def test_flat_round_trip():
    config = load_config()
    again = build(
        collect([], [f"{k}={v}" for k, v in to_flat(config).items() if v is not None and not isinstance(v, list)])
    )
    assert to_flat(again) == to_flat(config)


def _trainer(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "trainer", *args],
        capture_output=True,
        text=True,
        env=trainer_env(),
        cwd=ROOT,
        timeout=120,
    )


def test_print_config_prints_resolved_yaml():
    proc = _trainer("--print-config", "algorithm.adv_estimator=grpo", "actor_rollout_ref.rollout.n=4")
    assert proc.returncode == 0, proc.stderr
    assert "adv_estimator: grpo" in proc.stdout
    assert "log_prob_max_token_len_per_gpu: 64" in proc.stdout  # resolved from the actor


@pytest.mark.parametrize(
    "override, message",
    [
        ("actor_rollout_ref.actor.ppo_epoch=2", "did you mean `actor_rollout_ref.actor.ppo_epochs`"),
        ("data.train_batch_size=1.5", "must be an integer"),
        ("actor_rollout_ref.rollout.tensor_model_parallel_size=2", "must divide the world size 1"),
        ("actor_rollout_ref.rollout.tensor_model_parallel_size=3", "must divide the world size 1"),
        ("builtin.model.num_key_value_heads=3", "must be divisible by num_key_value_heads=3"),
    ],
)
def test_cli_bad_config_exits_2_and_runs_nothing(tmp_path, override, message):
    metrics = tmp_path / "m.jsonl"
    proc = _trainer(f"trainer.metrics_file={metrics}", override)
    assert proc.returncode == 2
    assert message in proc.stderr
    assert "step:" not in proc.stdout and not metrics.exists()
