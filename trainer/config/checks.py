"""Rules that need the world size, checked before anything starts (no torch, no transformers).

The world size is known from torchrun's environment (WORLD_SIZE) before the process group
exists, so a bad layout exits 2 with nothing run; the autotune controller runs the same checks
before launching a trial.
"""

from __future__ import annotations

import json
from pathlib import Path

from trainer.config.loader import ConfigError
from trainer.config.schema import Config


def model_dims(config: Config) -> dict[str, int]:
    """Heads, kv heads and MLP width of the policy, from `builtin.model` or the checkpoint's config.json."""
    path = config.actor_rollout_ref.model.path
    if path is None:
        tiny = config.builtin.model
        return {
            "num_attention_heads": tiny.num_attention_heads,
            "num_key_value_heads": tiny.num_key_value_heads,
            "intermediate_size": tiny.intermediate_size,
        }
    config_json = Path(path).expanduser() / "config.json"
    try:
        raw = json.loads(config_json.read_text())
    except (OSError, ValueError) as exc:
        raise ConfigError(
            f"actor_rollout_ref.model.path={path!r}: cannot read {config_json} ({exc}); give a local Hugging Face "
            "checkpoint directory (nothing is downloaded), or leave it unset for the built-in tiny model"
        ) from None
    heads = int(raw["num_attention_heads"])
    return {
        "num_attention_heads": heads,
        "num_key_value_heads": int(raw.get("num_key_value_heads", heads)),
        "intermediate_size": int(raw["intermediate_size"]),
    }


def check_world(config: Config, world: int) -> None:
    n = config.actor_rollout_ref.rollout.n
    responses = config.data.train_batch_size * n
    mini = config.actor_rollout_ref.actor.ppo_mini_batch_size * n
    if responses % world:
        raise ConfigError(
            f"data.train_batch_size × rollout.n = {responses} responses must divide over world size {world}"
        )
    if mini % world:
        raise ConfigError(
            f"actor.ppo_mini_batch_size × rollout.n = {mini} responses must divide over world size {world}"
        )
    tp = config.actor_rollout_ref.rollout.tensor_model_parallel_size
    if world % tp:
        raise ConfigError(
            f"actor_rollout_ref.rollout.tensor_model_parallel_size={tp} must divide the world size {world}"
        )
    for key, value in model_dims(config).items():
        if value % tp:
            raise ConfigError(
                f"actor_rollout_ref.rollout.tensor_model_parallel_size={tp} must divide the model's {key}={value}"
            )
