"""What one training step of a trial has to do: model shape, tokens, batches, layouts.

The model's architecture comes from a Hugging Face `config.json` (a local file or directory), a
preset matched by name (`Qwen/Qwen2.5-7B-Instruct` -> Qwen2.5-7B), or the builtin trainer's tiny
model (`builtin.model.*`). Everything else comes from the trial's verl config (defaults filled in).
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any


@dataclass(frozen=True)
class Shape:
    hidden: int
    intermediate: int
    layers: int
    heads: int
    kv_heads: int
    vocab: int
    head_dim: int
    tied_embeddings: bool = False

    @property
    def layer_params(self) -> int:
        h, d = self.hidden, self.head_dim
        attention = h * (self.heads * d) * 2 + h * (self.kv_heads * d) * 2 + (self.heads + 2 * self.kv_heads) * d
        return attention + 3 * h * self.intermediate + 2 * h

    @property
    def params(self) -> int:
        embeddings = self.vocab * self.hidden * (1 if self.tied_embeddings else 2)
        return self.layers * self.layer_params + embeddings + self.hidden

    @property
    def tp_split_params(self) -> int:
        """Parameters split by rollout tensor parallelism (attention and MLP projections)."""
        return self.layers * (self.layer_params - 2 * self.hidden)

    def kv_bytes_per_token(self, dtype_bytes: int = 2) -> int:
        return 2 * self.layers * self.kv_heads * self.head_dim * dtype_bytes


PRESETS = {
    "Qwen2.5-0.5B": Shape(896, 4864, 24, 14, 2, 151936, 64, True),
    "Qwen2.5-1.5B": Shape(1536, 8960, 28, 12, 2, 151936, 128, True),
    "Qwen2.5-3B": Shape(2048, 11008, 36, 16, 2, 151936, 128, True),
    "Qwen2.5-7B": Shape(3584, 18944, 28, 28, 4, 152064, 128),
    "Qwen2-7B": Shape(3584, 18944, 28, 28, 4, 152064, 128),
    "Qwen2.5-14B": Shape(5120, 13824, 48, 40, 8, 152064, 128),
    "Qwen2.5-32B": Shape(5120, 27648, 64, 40, 8, 152064, 128),
    "Qwen2.5-72B": Shape(8192, 29568, 80, 64, 8, 152064, 128),
    "Llama-3-8B": Shape(4096, 14336, 32, 32, 8, 128256, 128),
    "Llama-3.1-8B": Shape(4096, 14336, 32, 32, 8, 128256, 128),
    "Llama-3-70B": Shape(8192, 28672, 80, 64, 8, 128256, 128),
}
"""Architecture numbers from each model's published config.json."""


def shape_from_hf(raw: dict[str, Any]) -> Shape:
    heads = int(raw["num_attention_heads"])
    hidden = int(raw["hidden_size"])
    return Shape(
        hidden=hidden,
        intermediate=int(raw["intermediate_size"]),
        layers=int(raw["num_hidden_layers"]),
        heads=heads,
        kv_heads=int(raw.get("num_key_value_heads", heads)),
        vocab=int(raw["vocab_size"]),
        head_dim=int(raw.get("head_dim") or hidden // heads),
        tied_embeddings=bool(raw.get("tie_word_embeddings", False)),
    )


def find_shape(model: str | None, flat: dict[str, Any]) -> Shape:
    """The actor's shape: config.json path, preset name (matched inside a hub id), or the builtin tiny model."""
    if model is None:
        if flat.get("builtin.model.hidden_size") is None:
            raise ValueError("no model: set actor_rollout_ref.model.path (a config.json or a preset name) or --model")
        heads = int(flat["builtin.model.num_attention_heads"])
        hidden = int(flat["builtin.model.hidden_size"])
        return Shape(
            hidden, int(flat["builtin.model.intermediate_size"]), int(flat["builtin.model.num_hidden_layers"]),
            heads, int(flat["builtin.model.num_key_value_heads"]), 16, hidden // heads,
        )  # fmt: skip
    path = Path(model).expanduser()
    config = path / "config.json" if path.is_dir() else path
    if config.is_file():
        return shape_from_hf(json.loads(config.read_text()))
    for name in sorted(PRESETS, key=len, reverse=True):
        if name.lower() in model.lower():
            return PRESETS[name]
    raise ValueError(f"model {model!r}: no config.json there and no preset matches (presets: {', '.join(PRESETS)})")


@dataclass(frozen=True)
class Workload:
    """One step of a trial, as counts the cost terms need (per rank where it says so)."""

    world: int
    tp: int
    prompts: int
    n: int
    prompt_tokens: float
    response_tokens: float
    max_response: int
    mini_batches: int
    epochs: int
    critic_epochs: int
    update_micro_per_mini: int
    logprob_micro: int
    critic_micro_per_mini: int
    values_micro: int
    has_critic: bool
    grad_ckpt: bool
    reshard_after_forward: bool
    forward_prefetch: bool
    param_offload: bool
    optimizer_offload: bool
    gpu_memory_utilization: float
    free_cache_engine: bool
    nccl_proto: str | None
    nccl_channels: int | None
    reshard_mode: str
    fsdp_size: int = -1
    """FSDP shard group (verl's fsdp_size; -1 = all ranks). Smaller groups are replicated (HSDP)."""

    @property
    def responses(self) -> int:
        return self.prompts * self.n

    @property
    def seq_tokens(self) -> float:
        return self.prompt_tokens + self.response_tokens

    @property
    def tokens(self) -> float:
        """All tokens of the step (prompt + response, every response)."""
        return self.responses * self.seq_tokens

    @property
    def tokens_per_rank(self) -> float:
        return self.tokens / self.world

    @property
    def fsdp_group(self) -> int:
        return self.world if self.fsdp_size <= 0 else min(self.fsdp_size, self.world)

    @property
    def dp(self) -> int:
        return self.world // self.tp


def _micro(samples: float, tokens: float, dynamic: bool, micro: Any, budget: Any) -> int:
    if dynamic:
        return max(1, math.ceil(tokens / float(budget)))
    return max(1, math.ceil(samples / float(micro or samples)))


def workload(
    flat: dict[str, Any],
    env: dict[str, str],
    world: int,
    prompt_tokens: float | None = None,
    response_tokens: float | None = None,
    response_fraction: float = 0.5,
) -> Workload:
    """Counts from a resolved verl config; token lengths measured, or a fraction of the limits."""
    g = flat.get

    def need(key: str) -> int:
        value = flat.get(key)
        if value is None:
            raise ValueError(f"the cost model needs `{key}`")
        return int(value)

    prompts = need("data.train_batch_size")
    n = int(g("actor_rollout_ref.rollout.n") or 1)
    max_prompt, max_response = need("data.max_prompt_length"), need("data.max_response_length")
    p_tok = prompt_tokens if prompt_tokens is not None else 0.8 * max_prompt
    r_tok = response_tokens if response_tokens is not None else response_fraction * max_response
    mini = need("actor_rollout_ref.actor.ppo_mini_batch_size")
    mini_batches = max(1, prompts // mini)
    per_rank_mini = mini * n / world
    tokens_rank_mini = per_rank_mini * (p_tok + r_tok)
    per_rank_all = prompts * n / world
    tokens_rank_all = per_rank_all * (p_tok + r_tok)
    actor_dyn = bool(g("actor_rollout_ref.actor.use_dynamic_bsz"))
    ref_dyn = g("actor_rollout_ref.ref.log_prob_use_dynamic_bsz")
    ref_dyn = actor_dyn if ref_dyn is None else bool(ref_dyn)
    ref_budget = g("actor_rollout_ref.ref.log_prob_max_token_len_per_gpu") or g(
        "actor_rollout_ref.actor.ppo_max_token_len_per_gpu"
    )
    ref_micro = g("actor_rollout_ref.ref.log_prob_micro_batch_size_per_gpu") or g(
        "actor_rollout_ref.actor.ppo_micro_batch_size_per_gpu"
    )
    critic_dyn = g("critic.use_dynamic_bsz")
    critic_dyn = actor_dyn if critic_dyn is None else bool(critic_dyn)
    critic_micro = g("critic.ppo_micro_batch_size_per_gpu") or g("actor_rollout_ref.actor.ppo_micro_batch_size_per_gpu")
    fsdp = "actor_rollout_ref.actor.fsdp_config."
    channels = env.get("NCCL_MAX_NCHANNELS")
    return Workload(
        world=world,
        tp=int(g("actor_rollout_ref.rollout.tensor_model_parallel_size") or 1),
        prompts=prompts,
        n=n,
        prompt_tokens=p_tok,
        response_tokens=r_tok,
        max_response=max_response,
        mini_batches=mini_batches,
        epochs=int(g("actor_rollout_ref.actor.ppo_epochs") or 1),
        critic_epochs=int(g("critic.ppo_epochs") or g("actor_rollout_ref.actor.ppo_epochs") or 1),
        update_micro_per_mini=_micro(
            per_rank_mini,
            tokens_rank_mini,
            actor_dyn,
            g("actor_rollout_ref.actor.ppo_micro_batch_size_per_gpu"),
            g("actor_rollout_ref.actor.ppo_max_token_len_per_gpu"),
        ),
        logprob_micro=_micro(per_rank_all, tokens_rank_all, ref_dyn, ref_micro, ref_budget),
        critic_micro_per_mini=_micro(
            per_rank_mini, tokens_rank_mini, critic_dyn, critic_micro, g("critic.ppo_max_token_len_per_gpu")
        ),
        values_micro=_micro(
            per_rank_all,
            tokens_rank_all,
            critic_dyn,
            critic_micro,
            g("critic.forward_max_token_len_per_gpu") or g("critic.ppo_max_token_len_per_gpu"),
        ),
        has_critic=g("algorithm.adv_estimator", "gae") == "gae",
        grad_ckpt=bool(g("actor_rollout_ref.model.enable_gradient_checkpointing")),
        reshard_after_forward=bool(g(fsdp + "reshard_after_forward", True)),
        forward_prefetch=bool(g(fsdp + "forward_prefetch")),
        param_offload=bool(g(fsdp + "param_offload") or g(fsdp + "offload_policy")),
        optimizer_offload=bool(g(fsdp + "optimizer_offload") or g(fsdp + "offload_policy")),
        gpu_memory_utilization=float(g("actor_rollout_ref.rollout.gpu_memory_utilization") or 0.5),
        free_cache_engine=bool(g("actor_rollout_ref.rollout.free_cache_engine", True)),
        nccl_proto=env.get("NCCL_PROTO"),
        nccl_channels=int(channels) if channels else None,
        reshard_mode=str(g("builtin.rollout_reshard") or "zero_redundancy"),
        fsdp_size=int(g(fsdp + "fsdp_size") or -1),
    )
