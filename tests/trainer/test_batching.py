from __future__ import annotations

import random

import pytest

from trainer import batching


@pytest.mark.parametrize("seed", range(5))
def test_balanced_partition_equal_sizes_and_balanced_load(seed):
    rng = random.Random(seed)
    lengths = [rng.randint(3, 20) for _ in range(24)]
    parts = batching.balanced_partition(lengths, list(range(24)), 4, equal_size=True)
    assert sorted(i for p in parts for i in p) == list(range(24))
    assert all(len(p) == 6 for p in parts)
    loads = [sum(lengths[i] for i in p) for p in parts]
    assert max(loads) - min(loads) <= max(lengths)


def test_equal_size_needs_divisibility():
    with pytest.raises(batching.BatchingError, match="cannot be split evenly over 4 ranks"):
        batching.balanced_partition([1] * 6, list(range(6)), 4, equal_size=True)


@pytest.mark.parametrize("seed", range(5))
def test_dynamic_micro_batches_respect_the_budget_and_sync_counts(seed):
    rng = random.Random(seed)
    lengths = [rng.randint(4, 16) for _ in range(32)]
    rank_items = batching.spread(range(32), lengths, 2)
    spec = batching.PassSpec(dynamic=True, micro_batch_size=None, token_budget=40)
    per_rank = [batching.micro_batches(rank_items, r, lengths, spec) for r in range(2)]
    assert len(per_rank[0]) == len(per_rank[1])  # FSDP needs the same number of forwards everywhere
    for r in range(2):
        assert sorted(i for mb in per_rank[r] for i in mb) == rank_items[r]
        assert all(sum(lengths[i] for i in mb) <= 40 for mb in per_rank[r])


def test_a_sequence_longer_than_the_budget_is_an_error():
    with pytest.raises(batching.BatchingError, match="does not fit a micro-batch budget of 10"):
        batching.dynamic_micro_batches([0, 1], [5, 12], 10, 1)


def test_fixed_micro_batches_and_mini_batches():
    assert batching.fixed_micro_batches([5, 6, 7, 8, 9], 2) == [[5, 6], [7, 8], [9]]
    assert batching.mini_batches(8, 4, shuffle=False, seed=0) == [[0, 1, 2, 3], [4, 5, 6, 7]]
    shuffled = batching.mini_batches(8, 4, shuffle=True, seed=3)
    assert sorted(i for m in shuffled for i in m) == list(range(8))
    assert shuffled == batching.mini_batches(8, 4, shuffle=True, seed=3)
