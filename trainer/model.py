"""Models: the policy (a transformers Qwen2 causal LM) and the critic (the same backbone + a value head).

The policy is built from `builtin.model` in code (seeded, tiny, seconds on a laptop CPU) or loaded
offline from the local checkpoint in `actor_rollout_ref.model.path` (never from a hub). The task's
token ids (0..15) index into the model's vocabulary, so a loaded model needs a vocabulary of at
least `task.VOCAB_SIZE`.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, cast

import torch
from torch import nn
from transformers import AutoConfig, AutoModelForCausalLM, PretrainedConfig, Qwen2Config, Qwen2ForCausalLM

from trainer.config.schema import Config
from trainer.task import VOCAB_SIZE


class ModelLoadError(ValueError):
    """The configured checkpoint cannot be used."""


def policy_config(config: Config) -> PretrainedConfig:
    """The architecture of the policy: from the local checkpoint or from `builtin.model`."""
    path = config.actor_rollout_ref.model.path
    if path is not None:
        local = Path(path).expanduser()
        if not (local / "config.json").exists():
            raise ModelLoadError(
                f"actor_rollout_ref.model.path={path!r} has no config.json; give a local Hugging Face "
                "checkpoint directory (nothing is downloaded), or leave it unset for the built-in tiny model"
            )
        hf_config = AutoConfig.from_pretrained(local, local_files_only=True)
        if hf_config.vocab_size < VOCAB_SIZE:
            raise ModelLoadError(
                f"the model at {path!r} has vocab_size {hf_config.vocab_size} < {VOCAB_SIZE} (the task's)"
            )
        return hf_config
    tiny = config.builtin.model
    settings: dict[str, Any] = {
        "vocab_size": VOCAB_SIZE,
        "hidden_size": tiny.hidden_size,
        "intermediate_size": tiny.intermediate_size,
        "num_hidden_layers": tiny.num_hidden_layers,
        "num_attention_heads": tiny.num_attention_heads,
        "num_key_value_heads": tiny.num_key_value_heads,
        "max_position_embeddings": max(64, config.data.max_prompt_length + config.data.max_response_length),
        "rope_theta": tiny.rope_theta,
        "tie_word_embeddings": False,
        "attn_implementation": "sdpa",
    }
    return Qwen2Config(**settings)


def build_policy(config: Config, seed: int) -> nn.Module:
    """The policy on the CPU in fp32, initialised from `seed` (same weights on every rank)."""
    path = config.actor_rollout_ref.model.path
    hf_config = policy_config(config)
    model: nn.Module
    if path is not None:
        model = AutoModelForCausalLM.from_pretrained(
            Path(path).expanduser(), local_files_only=True, dtype=torch.float32, attn_implementation="sdpa"
        )
    else:
        torch.manual_seed(seed)
        model = Qwen2ForCausalLM(cast(Qwen2Config, hf_config))
    if config.actor_rollout_ref.model.enable_gradient_checkpointing:
        model.gradient_checkpointing_enable(gradient_checkpointing_kwargs={"use_reentrant": False})  # type: ignore[operator]
    model.config.use_cache = False  # type: ignore[union-attr]
    return model


class Critic(nn.Module):
    """A value model: the policy's backbone with a scalar head, initialised from the policy (as verl does)."""

    def __init__(self, policy: nn.Module) -> None:
        super().__init__()
        self.backbone: nn.Module = policy.model  # type: ignore[assignment]
        hidden = int(policy.config.hidden_size)  # type: ignore[union-attr,arg-type]
        self.value_head = nn.Linear(hidden, 1, bias=False)
        nn.init.zeros_(self.value_head.weight)

    def forward(
        self, input_ids: torch.Tensor, position_ids: torch.Tensor, attention_mask: torch.Tensor | None
    ) -> torch.Tensor:
        hidden = self.backbone(
            input_ids=input_ids, position_ids=position_ids, attention_mask=attention_mask
        ).last_hidden_state
        return self.value_head(hidden).squeeze(-1).clone()  # not a view: FSDP2 hooks the output


def decoder_blocks(model: nn.Module) -> list[nn.Module]:
    """The transformer blocks (the FSDP2 wrapping and prefetch unit)."""
    backbone = model.backbone if isinstance(model, Critic) else model.model  # type: ignore[union-attr]
    return list(backbone.layers)  # type: ignore[union-attr,arg-type]
