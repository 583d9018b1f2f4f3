"""Micro-batch tensors: packed without padding (verl's `use_remove_padding`) or padded.

A sequence is prompt + response. The logits at position j predict token j+1, so the response
token at absolute position P+t is scored by the logits (or value) at position P+t-1.

Packed: all sequences of the micro-batch are concatenated into one row whose position ids
restart at 0 for each sequence; transformers then builds a block-diagonal causal mask, so the
cost is the real token count. Padded: one row per sequence, right-padded to the longest, with an
attention mask; the cost is rows × longest.

Shape suffixes: N sequences in the micro-batch, L packed/padded length, R response positions, V vocab.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import torch

from trainer.task import PAD


@dataclass
class MicroBatch:
    input_ids: torch.Tensor
    position_ids: torch.Tensor
    attention_mask: torch.Tensor | None
    score_index: torch.Tensor
    """[N, R] flat index into the output positions (row-major over input_ids) that score each response token."""
    response_ids_NR: torch.Tensor
    """[N, R] response tokens, PAD beyond each response."""
    mask_NR: torch.Tensor
    seqlens: list[int]


def build(
    prompts: Sequence[Sequence[int]], responses: Sequence[Sequence[int]], width: int, remove_padding: bool
) -> MicroBatch:
    """Tensors for one micro-batch; `width` is the response width R of the step's batch."""
    n = len(prompts)
    seqlens = [len(p) + len(r) for p, r in zip(prompts, responses, strict=True)]
    response_ids = torch.full((n, width), PAD, dtype=torch.long)
    mask = torch.zeros(n, width)
    score_index = torch.zeros(n, width, dtype=torch.long)
    if remove_padding:
        total = sum(seqlens)
        ids = torch.empty(1, total, dtype=torch.long)
        pos = torch.empty(1, total, dtype=torch.long)
        attention = None
        offset = 0
        starts = []
        for p, r, length in zip(prompts, responses, seqlens, strict=True):
            ids[0, offset : offset + length] = torch.tensor([*p, *r])
            pos[0, offset : offset + length] = torch.arange(length)
            starts.append(offset)
            offset += length
    else:
        longest = max(seqlens)
        ids = torch.full((n, longest), PAD, dtype=torch.long)
        attention = torch.zeros(n, longest, dtype=torch.long)
        starts = []
        for i, (p, r, length) in enumerate(zip(prompts, responses, seqlens, strict=True)):
            ids[i, :length] = torch.tensor([*p, *r])
            attention[i, :length] = 1
            starts.append(i * longest)
        pos = (torch.arange(longest)[None].expand(n, longest)).clone()
    for i, (p, r) in enumerate(zip(prompts, responses, strict=True)):
        k = len(r)
        response_ids[i, :k] = torch.tensor(r, dtype=torch.long)
        mask[i, :k] = 1.0
        score_index[i, :k] = starts[i] + len(p) - 1 + torch.arange(k)
    return MicroBatch(ids, pos, attention, score_index, response_ids, mask, seqlens)


def to_device(mb: MicroBatch, device: torch.device) -> MicroBatch:
    return MicroBatch(
        mb.input_ids.to(device),
        mb.position_ids.to(device),
        None if mb.attention_mask is None else mb.attention_mask.to(device),
        mb.score_index.to(device),
        mb.response_ids_NR.to(device),
        mb.mask_NR.to(device),
        mb.seqlens,
    )


def gather_positions(x_L_: torch.Tensor, mb: MicroBatch) -> torch.Tensor:
    """Pick the scoring positions: [rows, L, ...] -> [N, R, ...]."""
    flat = x_L_.reshape(-1, *x_L_.shape[2:])
    return flat[mb.score_index.reshape(-1)].reshape(*mb.score_index.shape, *x_L_.shape[2:])


def token_logprobs(
    logits_NRV: torch.Tensor, ids_NR: torch.Tensor, temperature: float
) -> tuple[torch.Tensor, torch.Tensor]:
    """(log π(token), full log π) at temperature (verl divides logits by the rollout temperature)."""
    logp_NRV = torch.log_softmax(logits_NRV.float() / temperature, dim=-1)
    return logp_NRV.gather(-1, ids_NR[..., None]).squeeze(-1), logp_NRV
