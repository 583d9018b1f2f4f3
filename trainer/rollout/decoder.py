"""A Qwen2 decoder for rollout: plain tensors, a preallocated KV cache, optional tensor parallelism.

This is the rollout engine's model (the role vLLM plays in verl). It computes exactly what
transformers' Qwen2ForCausalLM computes (tested), but from a `RolloutWeights` holding each
rank's tensor-parallel shard: q/k/v/gate/up split by output rows (column parallel), o/down split
by input columns (row parallel) followed by an all-reduce over the TP group. Embedding, final norm
and LM head are replicated: for the vocabularies used here they are a small share of the model,
and replicating them keeps sampling a purely local operation.

Shape suffixes: B batch, T positions (prompt + response), S cache slots, H hidden, D head dim,
Nq/Nk local query/kv heads, V vocab.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import torch
import torch.nn.functional as F


@dataclass
class LayerWeights:
    q_w: torch.Tensor
    q_b: torch.Tensor
    k_w: torch.Tensor
    k_b: torch.Tensor
    v_w: torch.Tensor
    v_b: torch.Tensor
    o_w: torch.Tensor
    gate_w: torch.Tensor
    up_w: torch.Tensor
    down_w: torch.Tensor
    in_norm: torch.Tensor
    post_norm: torch.Tensor


@dataclass
class RolloutWeights:
    """One rank's rollout weights (a TP shard of the layers; replicated embedding/norm/head)."""

    embed: torch.Tensor
    layers: list[LayerWeights]
    norm: torch.Tensor
    lm_head: torch.Tensor

    def tensors(self) -> list[torch.Tensor]:
        out = [self.embed, self.norm, self.lm_head]
        for layer in self.layers:
            out.extend(vars(layer).values())
        return out

    def nbytes(self) -> int:
        """Bytes held: a tensor in two fields (the head tied to the embedding) is counted once."""
        unique = {t.data_ptr(): t for t in self.tensors()}
        return sum(t.numel() * t.element_size() for t in unique.values())


@dataclass(frozen=True)
class DecoderShape:
    head_dim: int
    rope_theta: float
    rms_eps: float


AllReduce = Callable[[torch.Tensor], None]
"""Sums a tensor in place over the TP group (a no-op at TP size 1)."""


def _rms_norm(x: torch.Tensor, weight: torch.Tensor, eps: float) -> torch.Tensor:
    x32 = x.float()
    return weight * (x32 * torch.rsqrt(x32.pow(2).mean(-1, keepdim=True) + eps)).to(x.dtype)


def _rope_tables(pos_BT: torch.Tensor, dim: int, theta: float, dtype: torch.dtype) -> tuple[torch.Tensor, torch.Tensor]:
    """cos and sin [B, 1, T, D] of the rotary embedding at these positions (once per forward, shared by layers)."""
    inv_freq = 1.0 / (theta ** (torch.arange(0, dim, 2, dtype=torch.float32, device=pos_BT.device) / dim))
    freqs = pos_BT[..., None].float() * inv_freq
    emb = torch.cat((freqs, freqs), dim=-1)
    return emb.cos()[:, None].to(dtype), emb.sin()[:, None].to(dtype)


def _rope(x_BNTD: torch.Tensor, cos: torch.Tensor, sin: torch.Tensor) -> torch.Tensor:
    half = x_BNTD.shape[-1] // 2
    rotated = torch.cat((-x_BNTD[..., half:], x_BNTD[..., :half]), dim=-1)
    return x_BNTD * cos + rotated * sin


class KVCache:
    """Preallocated keys/values for every layer: [B, Nk, S, D], filled up to `length`."""

    def __init__(self, weights: RolloutWeights, shape: DecoderShape, batch: int, slots: int) -> None:
        nk = weights.layers[0].k_w.shape[0] // shape.head_dim
        like = weights.embed
        self.keys = [like.new_zeros(batch, nk, slots, shape.head_dim) for _ in weights.layers]
        self.values = [like.new_zeros(batch, nk, slots, shape.head_dim) for _ in weights.layers]
        self.length = 0

    def nbytes(self) -> int:
        return sum(t.numel() * t.element_size() for t in self.keys + self.values)


def forward(
    weights: RolloutWeights,
    shape: DecoderShape,
    ids_BT: torch.Tensor,
    pos_BT: torch.Tensor,
    valid_BS: torch.Tensor,
    cache: KVCache,
    all_reduce: AllReduce,
) -> torch.Tensor:
    """Run `ids_BT` (appended at cache.length), return logits of the last position [B, V].

    `valid_BS` marks cache slots that hold real tokens (False for left padding); attention is
    causal within the new tokens.
    """
    B, T = ids_BT.shape
    start = cache.length
    end = start + T
    x = F.embedding(ids_BT, weights.embed)
    causal_TS = torch.ones(T, end, dtype=torch.bool, device=ids_BT.device).tril(diagonal=start)
    self_TS = torch.zeros_like(causal_TS)
    self_TS[:, start:end] = torch.eye(T, dtype=torch.bool, device=ids_BT.device)
    # A padding query attends only to itself, so no softmax row is empty (an empty row gives NaN).
    mask_B1TS = (causal_TS[None, None] & valid_BS[:, None, None, :end]) | self_TS[None, None]
    D = shape.head_dim
    cos, sin = _rope_tables(pos_BT, D, shape.rope_theta, x.dtype)
    for i, layer in enumerate(weights.layers):
        h = _rms_norm(x, layer.in_norm, shape.rms_eps)
        q = F.linear(h, layer.q_w, layer.q_b).view(B, T, -1, D).transpose(1, 2)
        k = F.linear(h, layer.k_w, layer.k_b).view(B, T, -1, D).transpose(1, 2)
        v = F.linear(h, layer.v_w, layer.v_b).view(B, T, -1, D).transpose(1, 2)
        q, k = _rope(q, cos, sin), _rope(k, cos, sin)
        cache.keys[i][:, :, start:end] = k
        cache.values[i][:, :, start:end] = v
        keys, values = cache.keys[i][:, :, :end], cache.values[i][:, :, :end]
        # grouped-query attention without materialising repeated keys/values
        attn = F.scaled_dot_product_attention(
            q, keys, values, attn_mask=mask_B1TS, enable_gqa=q.shape[1] != keys.shape[1]
        )
        out = F.linear(attn.transpose(1, 2).reshape(B, T, -1), layer.o_w)
        all_reduce(out)
        x = x + out
        h = _rms_norm(x, layer.post_norm, shape.rms_eps)
        mlp = F.linear(F.silu(F.linear(h, layer.gate_w)) * F.linear(h, layer.up_w), layer.down_w)
        all_reduce(mlp)
        x = x + mlp
    cache.length = end
    last = _rms_norm(x[:, -1], weights.norm, shape.rms_eps)
    return F.linear(last, weights.lm_head)
