"""benchmarks/longest_response.py: the cost model's own guess of the longest response, scored on well-formed data that
no published run supplied."""

from __future__ import annotations

from typing import Any

import pytest

from tests.autotune.conftest import import_benchmark


@pytest.fixture(scope="module")
def bench() -> Any:
    return import_benchmark("longest_response")


def test_the_benchmark_scores_the_models_own_guess(bench):
    # by hand: 1,024 responses of mean 200 under a 4,096 cap: 200 · H_1024 = 200 · 7.50918 = 1,501.8 tokens
    assert bench.shipped_guess(200.0, 1024, 4096) == pytest.approx(1501.84, abs=0.05)
    assert bench.shipped_guess(200.0, 1024, 1024) == 1024  # the cap
    # the Gaussian extreme it replaced: 200 + 200 · √(2 ln 1024) = 200 + 200 · 3.72330 = 944.7
    assert bench.gaussian_guess(200.0, 1024, 4096) == pytest.approx(944.66, abs=0.05)


def test_the_length_data_is_well_formed(bench):
    from published_lengths import LENGTH_RUNS

    assert len(LENGTH_RUNS) >= 20
    for r in LENGTH_RUNS:
        assert r["responses"] == r["train_batch_size"] * r["n"], r["run"]
        assert 0 < r["response_mean"] <= r["response_max"] <= r["max_response_length"], r["run"]
        assert r["source"] and r["steps"], r["run"]


def test_out_of_sample_leaves_out_the_repositories_of_published_runs(bench):
    published = bench.published_tuples()
    used = next(r["source"] for r in published if "github.com/" in r["source"])
    rows = [
        {"run": "a", "source": used.replace("/blob/", "/tree/") + " (another run)"},
        {"run": "b", "source": "https://github.com/someone/elsewhere/blob/0/log.txt"},
        {"run": "c", "source": "https://github.com/someone/other/blob/0/log.txt", "same_as_published": "a copy"},
    ]
    kept, left = bench.out_of_sample(rows, published)
    assert [r["run"] for r in kept] == ["b"]
    assert left[0].startswith("a: from ") and left[1] == "c: a copy"
