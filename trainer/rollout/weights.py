"""Turning a policy's parameters into rollout weights (a TP shard per rank).

`shard_rows`/`shard_cols` define the layout: q/k/v/gate/up keep rows [r·n/k, (r+1)·n/k) (column
parallel), o/down keep those columns (row parallel). Embedding, final norm and LM head are
replicated. The hybrid engine (trainer/rollout/engine.py) decides *how* the bytes get here.
"""

from __future__ import annotations

from collections.abc import Mapping

import torch
from transformers import PretrainedConfig

from trainer.rollout.decoder import DecoderShape, LayerWeights, RolloutWeights

COLUMN = ("q_proj", "k_proj", "v_proj", "gate_proj", "up_proj")
ROW = ("o_proj", "down_proj")


def decoder_shape(hf_config: PretrainedConfig) -> DecoderShape:
    head_dim = getattr(hf_config, "head_dim", None) or hf_config.hidden_size // hf_config.num_attention_heads
    rope = getattr(hf_config, "rope_parameters", None) or {}
    theta = rope.get("rope_theta", getattr(hf_config, "rope_theta", 10000.0))
    return DecoderShape(head_dim=head_dim, rope_theta=float(theta), rms_eps=float(hf_config.rms_norm_eps))


def tp_slice(name: str, full_shape: torch.Size, tp_rank: int, tp_size: int) -> tuple[int, int, int] | None:
    """(dim, start, stop) of the slice rank `tp_rank` keeps of parameter `name`; None = replicated."""
    if tp_size == 1:
        return None
    kind = name.split(".")[-2]
    if kind in COLUMN:
        dim = 0
    elif kind in ROW and name.endswith("weight"):
        dim = 1
    else:
        return None
    n = full_shape[dim]
    if n % tp_size:
        raise ValueError(f"{name} dimension {n} is not divisible by rollout tensor_model_parallel_size={tp_size}")
    size = n // tp_size
    return dim, tp_rank * size, (tp_rank + 1) * size


def check_tp_divisible(hf_config: PretrainedConfig, tp_size: int) -> None:
    """Heads must split evenly over the TP group."""
    for key in ("num_attention_heads", "num_key_value_heads", "intermediate_size"):
        value = getattr(hf_config, key)
        if value % tp_size:
            raise ValueError(
                f"actor_rollout_ref.rollout.tensor_model_parallel_size={tp_size} must divide the model's {key}={value}"
            )


def assemble(tensors: Mapping[str, torch.Tensor], num_layers: int) -> RolloutWeights:
    """RolloutWeights from {HF parameter name: (already sliced) tensor}."""

    def layer(i: int) -> LayerWeights:
        p = f"model.layers.{i}."
        return LayerWeights(
            q_w=tensors[p + "self_attn.q_proj.weight"],
            q_b=tensors[p + "self_attn.q_proj.bias"],
            k_w=tensors[p + "self_attn.k_proj.weight"],
            k_b=tensors[p + "self_attn.k_proj.bias"],
            v_w=tensors[p + "self_attn.v_proj.weight"],
            v_b=tensors[p + "self_attn.v_proj.bias"],
            o_w=tensors[p + "self_attn.o_proj.weight"],
            gate_w=tensors[p + "mlp.gate_proj.weight"],
            up_w=tensors[p + "mlp.up_proj.weight"],
            down_w=tensors[p + "mlp.down_proj.weight"],
            in_norm=tensors[p + "input_layernorm.weight"],
            post_norm=tensors[p + "post_attention_layernorm.weight"],
        )

    lm_head = tensors.get("lm_head.weight", tensors["model.embed_tokens.weight"])
    return RolloutWeights(
        embed=tensors["model.embed_tokens.weight"],
        layers=[layer(i) for i in range(num_layers)],
        norm=tensors["model.norm.weight"],
        lm_head=lm_head,
    )


def from_full_model(model: torch.nn.Module, tp_rank: int = 0, tp_size: int = 1) -> RolloutWeights:
    """Rollout weights by slicing a full (unsharded) model's parameters: the reference layout."""
    sliced = {}
    for name, param in model.named_parameters():
        data = param.detach()
        cut = tp_slice(name, data.shape, tp_rank, tp_size)
        sliced[name] = data if cut is None else data.narrow(cut[0], cut[1], cut[2] - cut[1]).clone()
    return assemble(sliced, model.config.num_hidden_layers)  # type: ignore[union-attr,arg-type]
