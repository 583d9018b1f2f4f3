"""Who computes what: splitting a step's responses over ranks, mini-batches and micro-batches.

Every rank holds the whole step's batch (responses are gathered after rollout, as verl's
single controller does), so every rank computes the same plan without talking to the others.
That also gives the guarantee FSDP needs: all ranks run the same number of micro-batches
(forwards) in each pass.

The order of operations keeps the maths independent of the world size: the batch is split into
mini-batches *globally* first, and only then is each mini-batch spread over the ranks, balanced
by tokens (verl's `balance_batch`). Micro-batches are either a fixed number of responses or
(dynamic batching) as few token-budgeted packs as fit, with the count taken as the maximum over
ranks and the packs balanced by tokens (verl's `rearrange_micro_batches`).
"""

from __future__ import annotations

import heapq
import math
from collections.abc import Sequence
from dataclasses import dataclass

import torch


class BatchingError(ValueError):
    """A batch that cannot be split as configured (e.g. not divisible by the world size)."""


def balanced_partition(weights: Sequence[int], items: Sequence[int], parts: int, equal_size: bool) -> list[list[int]]:
    """Split `items` (with `weights`) into `parts` groups with near-equal weight sums.

    Greedy longest-processing-time: heaviest item first into the lightest group that still has
    room (with `equal_size`, every group gets len(items)/parts items). Groups keep items sorted.
    """
    if equal_size and len(items) % parts:
        raise BatchingError(f"{len(items)} responses cannot be split evenly over {parts} ranks")
    capacity = len(items) // parts if equal_size else len(items)
    heap = [(0, g) for g in range(parts)]
    groups: list[list[int]] = [[] for _ in range(parts)]
    order = sorted(range(len(items)), key=lambda i: (-weights[i], items[i]))
    for i in order:
        skipped = []
        while True:
            load, g = heapq.heappop(heap)
            if len(groups[g]) < capacity:
                break
            skipped.append((load, g))
        groups[g].append(items[i])
        heapq.heappush(heap, (load + weights[i], g))
        for entry in skipped:
            heapq.heappush(heap, entry)
    return [sorted(g) for g in groups]


def fixed_micro_batches(items: Sequence[int], micro_batch_size: int) -> list[list[int]]:
    return [list(items[i : i + micro_batch_size]) for i in range(0, len(items), micro_batch_size)]


def dynamic_micro_batches(items: Sequence[int], lengths: Sequence[int], budget: int, count: int) -> list[list[int]]:
    """At least `count` packs of `items`, each holding at most `budget` tokens, balanced by tokens."""
    weights = [lengths[i] for i in items]
    if weights and max(weights) > budget:
        raise BatchingError(f"a {max(weights)}-token sequence does not fit a micro-batch budget of {budget} tokens")
    count = max(count, 1)
    while True:
        packs = balanced_partition(weights, list(items), min(count, max(len(items), 1)), equal_size=False)
        if all(sum(lengths[i] for i in pack) <= budget for pack in packs):
            return [p for p in packs if p] or [[]]
        count += 1


def micro_batch_count(rank_items: Sequence[Sequence[int]], lengths: Sequence[int], budget: int) -> int:
    """The number of packs every rank uses: enough for the rank with the most tokens."""
    return max(math.ceil(sum(lengths[i] for i in items) / budget) for items in rank_items)


@dataclass(frozen=True)
class PassSpec:
    """How one pass (log-prob, value or update) splits its work."""

    dynamic: bool
    micro_batch_size: int | None
    token_budget: int


def micro_batches(rank_items: list[list[int]], rank: int, lengths: Sequence[int], spec: PassSpec) -> list[list[int]]:
    """This rank's micro-batches, the same count on every rank (padding with empty packs)."""
    if spec.dynamic:
        count = micro_batch_count(rank_items, lengths, spec.token_budget)
        per_rank = [dynamic_micro_batches(items, lengths, spec.token_budget, count) for items in rank_items]
    else:
        assert spec.micro_batch_size is not None
        per_rank = [fixed_micro_batches(items, spec.micro_batch_size) for items in rank_items]
    most = max(len(p) for p in per_rank)
    mine = per_rank[rank]
    return mine + [[] for _ in range(most - len(mine))]


def spread(items: Sequence[int], lengths: Sequence[int], world: int) -> list[list[int]]:
    """Items over ranks, equal counts, balanced tokens."""
    return balanced_partition([lengths[i] for i in items], list(items), world, equal_size=True)


def mini_batches(batch_size: int, mini_batch_size: int, shuffle: bool, seed: int) -> list[list[int]]:
    """Global mini-batches of response indices (optionally shuffled with a seed all ranks share)."""
    if batch_size % mini_batch_size:
        raise BatchingError(f"{batch_size} responses do not split into mini-batches of {mini_batch_size}")
    order = list(range(batch_size))
    if shuffle:
        order = torch.randperm(batch_size, generator=torch.Generator().manual_seed(seed)).tolist()
    return [order[i : i + mini_batch_size] for i in range(0, batch_size, mini_batch_size)]
