"""Micro-batch tensors: packed without padding (verl's `use_remove_padding`) or padded.

A sequence is prompt + response. The logits at position j predict token j+1, so the response
token at absolute position P+t is scored by the logits (or value) at position P+t-1.

Packed: the sequences of the micro-batch are concatenated into ⌈tokens / ROW_TOKENS⌉ rows of
near-equal length, position ids restarting at 0 for each sequence; transformers then builds a
block-diagonal causal mask per row.
The linear layers cost the real token count (plus the few pad tokens closing each row, each its
own one-token sequence); attention costs rows × ROW_TOKENS² instead of (all tokens)² for a single
row, which at 64 responses per micro-batch was most of a forward. Padded: one row per sequence,
right-padded to the longest, with an attention mask; the cost is rows × longest.

Shape suffixes: N sequences in the micro-batch, L packed/padded length, R response positions, V vocab.
"""

from __future__ import annotations

import heapq
from collections.abc import Sequence
from dataclasses import dataclass

import torch

from trainer.task import PAD

ROW_TOKENS = 128
"""Target length of a packed row: attention is quadratic in a row's length, so rows are kept short."""


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
        rows, placed = pack_rows(seqlens, ROW_TOKENS)
        width_L = max(sum(seqlens[i] for i in row) for row in rows)
        ids = torch.full((len(rows), width_L), PAD, dtype=torch.long)
        pos = torch.zeros(len(rows), width_L, dtype=torch.long)  # a pad token at position 0 is its own sequence
        attention = None
        starts = [0] * n
        for i, (row, offset) in enumerate(placed):
            length = seqlens[i]
            ids[row, offset : offset + length] = torch.tensor([*prompts[i], *responses[i]])
            pos[row, offset : offset + length] = torch.arange(length)
            starts[i] = row * width_L + offset
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


def pack_rows(seqlens: Sequence[int], capacity: int) -> tuple[list[list[int]], list[tuple[int, int]]]:
    """Sequences into ⌈total / capacity⌉ rows of near-equal length (longest first into the shortest
    row), so rows need little padding: (the sequences in each row, (row, offset) of each sequence).

    Deterministic (ties broken by index), so every rank and every pass packs a micro-batch alike.
    """
    count = max(1, min(len(seqlens), -(-sum(seqlens) // capacity)))
    heap = [(0, r) for r in range(count)]
    rows: list[list[int]] = [[] for _ in range(count)]
    placed: list[tuple[int, int]] = [(0, 0)] * len(seqlens)
    for i in sorted(range(len(seqlens)), key=lambda i: (-seqlens[i], i)):
        used, row = heapq.heappop(heap)
        placed[i] = (row, used)
        rows[row].append(i)
        heapq.heappush(heap, (used + seqlens[i], row))
    return rows, placed


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
