"""Temperature sampling with a KV cache, reproducible whatever the world size or TP layout.

Each sample's randomness is a pure function of (seed, step, global sample index, position):
the Gumbel noise for a token comes from a counter-based hash, not from a stateful generator.
So the same prompt gets the same response whether it is generated on 1 rank or 4, and the
ranks of a tensor-parallel group, which hold identical logits after their all-reduce, sample
identical tokens without exchanging anything. Gumbel-max with temperature τ,
argmax(logits/τ + G), is exact categorical sampling from softmax(logits/τ).
"""

from __future__ import annotations

from dataclasses import dataclass

import torch

from trainer.packing import token_logprobs
from trainer.rollout.decoder import AllReduce, DecoderShape, KVCache, RolloutWeights, forward
from trainer.task import EOS, PAD


def _signed(c: int) -> int:
    return c - (1 << 64) if c >= 1 << 63 else c


_GOLDEN, _MIX1, _MIX2 = _signed(0x9E3779B97F4A7C15), _signed(0xBF58476D1CE4E5B9), _signed(0x94D049BB133111EB)


def _shr(z: torch.Tensor, k: int) -> torch.Tensor:
    """Logical right shift of int64 (torch's >> is arithmetic)."""
    return (z >> k) & ((1 << (64 - k)) - 1)


def _mix(z: torch.Tensor) -> torch.Tensor:
    """splitmix64's finaliser on int64 (two's-complement wrapping multiply)."""
    z = z + _GOLDEN
    z = (z ^ _shr(z, 30)) * _MIX1
    z = (z ^ _shr(z, 27)) * _MIX2
    return z ^ _shr(z, 31)


def uniform_noise(seed: int, step: int, sample_B: torch.Tensor, position: int, vocab: int) -> torch.Tensor:
    """U(0,1) noise [B, V], one value per (seed, step, sample, position, vocab id)."""
    base = _mix(torch.tensor(seed, dtype=torch.int64))
    base = _mix(base ^ step)
    per_sample = _mix(base ^ sample_B.to(torch.int64))
    per_pos = _mix(per_sample ^ position)
    z = _mix(per_pos[:, None] ^ torch.arange(vocab, dtype=torch.int64, device=sample_B.device)[None])
    bits = _shr(z, 40)
    return (bits.double() + 0.5) / float(1 << 24)


@dataclass(frozen=True)
class SamplingParams:
    max_new_tokens: int
    temperature: float = 1.0
    do_sample: bool = True
    seed: int = 0
    step: int = 0


def pick_tokens(logits_BV: torch.Tensor, params: SamplingParams, sample_B: torch.Tensor, position: int) -> torch.Tensor:
    if not params.do_sample:
        return logits_BV.argmax(-1)
    u = uniform_noise(params.seed, params.step, sample_B, position, logits_BV.shape[-1]).to(logits_BV.device)
    gumbel = -torch.log(-torch.log(u))
    return (logits_BV.double() / params.temperature + gumbel).argmax(-1)


@torch.no_grad()
def generate(
    weights: RolloutWeights,
    shape: DecoderShape,
    prompts: list[list[int]],
    sample_ids: list[int],
    params: SamplingParams,
    all_reduce: AllReduce,
) -> tuple[list[list[int]], int]:
    """Responses (ending in <eos> unless cut at max_new_tokens) and the KV-cache bytes used."""
    if not prompts:
        return [], 0
    device = weights.embed.device
    B, P = len(prompts), max(len(p) for p in prompts)
    ids_BT = torch.full((B, P), PAD, dtype=torch.long, device=device)
    valid_BS = torch.zeros(B, P + params.max_new_tokens, dtype=torch.bool, device=device)
    for i, p in enumerate(prompts):
        ids_BT[i, P - len(p) :] = torch.tensor(p, device=device)
        valid_BS[i, P - len(p) : P] = True
    pos_BT = (valid_BS[:, :P].long().cumsum(-1) - 1).clamp(min=0)
    sample_B = torch.tensor(sample_ids, dtype=torch.long, device=device)
    cache = KVCache(weights, shape, B, P + params.max_new_tokens)
    logits = forward(weights, shape, ids_BT, pos_BT, valid_BS, cache, all_reduce)
    next_pos_B = pos_BT[:, -1] + 1
    out_BR = torch.full((B, params.max_new_tokens), PAD, dtype=torch.long, device=device)
    done_B = torch.zeros(B, dtype=torch.bool, device=device)
    for t in range(params.max_new_tokens):
        token_B = torch.where(done_B, PAD, pick_tokens(logits, params, sample_B, t))
        out_BR[:, t] = token_B
        done_B |= token_B == EOS
        if bool(done_B.all()) or t + 1 == params.max_new_tokens:
            break
        valid_BS[:, P + t] = True
        logits = forward(weights, shape, token_B[:, None], next_pos_B[:, None], valid_BS, cache, all_reduce)
        next_pos_B = next_pos_B + 1
    responses = []
    for row in out_BR.tolist():
        cut = row.index(EOS) + 1 if EOS in row else len(row)
        responses.append(row[:cut])
    return responses, cache.nbytes()


@torch.no_grad()
def response_logprobs(
    weights: RolloutWeights,
    shape: DecoderShape,
    prompts: list[list[int]],
    responses: list[list[int]],
    temperature: float,
    all_reduce: AllReduce,
) -> torch.Tensor:
    """Log-probs [B, R] of given responses under the rollout weights, 0 past each response's end:
    the responses are fed token by token through the KV cache, exactly as `generate` reads its own."""
    device = weights.embed.device
    B, P = len(prompts), max(len(p) for p in prompts)
    R = max(1, max(len(r) for r in responses))
    ids_BT = torch.full((B, P), PAD, dtype=torch.long, device=device)
    valid_BS = torch.zeros(B, P + R, dtype=torch.bool, device=device)
    forced_BR = torch.full((B, R), PAD, dtype=torch.long, device=device)
    mask_BR = torch.zeros(B, R, device=device)
    for i, (p, r) in enumerate(zip(prompts, responses, strict=True)):
        ids_BT[i, P - len(p) :] = torch.tensor(p, device=device)
        valid_BS[i, P - len(p) : P] = True
        forced_BR[i, : len(r)] = torch.tensor(r, dtype=torch.long, device=device)
        mask_BR[i, : len(r)] = 1.0
    pos_BT = (valid_BS[:, :P].long().cumsum(-1) - 1).clamp(min=0)
    cache = KVCache(weights, shape, B, P + R)
    logits_BV = forward(weights, shape, ids_BT, pos_BT, valid_BS, cache, all_reduce)
    next_pos_B = pos_BT[:, -1] + 1
    logits = []
    for t in range(R):
        logits.append(logits_BV)
        if t + 1 == R:
            break
        valid_BS[:, P + t] = True
        logits_BV = forward(weights, shape, forced_BR[:, t : t + 1], next_pos_B[:, None], valid_BS, cache, all_reduce)
        next_pos_B = next_pos_B + 1
    logp_BR, _ = token_logprobs(torch.stack(logits, dim=1), forced_BR, temperature)
    return logp_BR * mask_BR
