"""benchmarks/sim_speedups.py: the speed-ups the cost model predicts between runs of one setup, against the published."""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest

from tests.autotune.conftest import import_benchmark

pytest.importorskip("hydra")


@pytest.fixture(scope="module")
def bench() -> Any:
    return import_benchmark("sim_speedups")


@pytest.fixture(scope="module")
def measured(bench: Any) -> Any:
    """~30 s: every setup's runs predicted with the model frozen before their round, both ways of giving lengths."""
    return bench.measure()


def test_the_error_of_a_speedup_is_a_factor_either_way(bench: Any) -> None:
    assert bench.factor_error(1.25, 1.0) == pytest.approx(0.25)
    assert bench.factor_error(0.8, 1.0) == pytest.approx(0.25)
    assert bench.factor_error(1.0, 1.25) == pytest.approx(0.25)
    assert bench.factor_error(2.0, 2.0) == 0.0


def test_a_published_speedup_by_hand(bench: Any, measured: Any) -> None:
    """The 2-H100 code runs: a batch of 8 prompts against 64, 8 responses each, on the three phases both publish."""
    runs = {run["name"]: run for run in bench.sp.FIFTH_RUNS}
    big, small = (
        runs["h100x2-grpo-r1distill-qwen1.5b-code-16k-b64n8"],
        runs["h100x2-grpo-r1distill-qwen1.5b-code-16k-b8n8"],
    )
    seconds_big = 333.128 + 41.246 + 145.763  # gen, old_log_prob, update_actor as published
    seconds_small = 94.615 + 5.132 + 18.114
    tokens_big = 64 * 8 * (big["prompt_tokens"] + big["response_tokens"])
    tokens_small = 8 * 8 * (small["prompt_tokens"] + small["response_tokens"])
    by_hand = (tokens_small / seconds_small) / (tokens_big / seconds_big)
    (pair,) = measured["setups"]["aishukamal/rl-time-slicing H100x2 DeepSeek-R1-Distill-Qwen-1.5B"]["guessed_longest"]
    assert pair["runs"] == [big["name"], small["name"]] and pair["configurations_differ"]
    assert pair["published"] == pytest.approx(by_hand, rel=1e-9)
    assert pair["error_uncalibrated"] == pytest.approx(bench.factor_error(pair["uncalibrated"], by_hand))


def test_pairs_of_one_configuration_are_kept_apart(measured: Any) -> None:
    """The H20 lab's four loss arms share one verl configuration: six pairs, none a pair of configurations; the A100
    study's eleven runs differ in one key each: 55 pairs of configurations."""
    lab = measured["setups"]["terrense/qwen3-8b-grpo-dapo-lab H20x4 Qwen3-8B"]["guessed_longest"]
    assert len(lab) == 6 and not any(p["configurations_differ"] for p in lab)
    study = measured["setups"]["Learneraf/ascend_npu_measure_verl A100x8 Qwen3-8B"]["guessed_longest"]
    assert len(study) == 55 and all(p["configurations_differ"] for p in study)
    assert measured["guessed_longest"]["configurations"]["pairs"] == 57


def test_the_report_states_what_the_benchmark_measures(bench: Any, measured: Any) -> None:
    """autotune.sim.accuracy.SPEEDUPS (the report's "cost model's speed-ups") against the benchmark; a changed figure
    is caught."""
    from autotune.sim.accuracy import SPEEDUPS, STATED_SPEEDUPS

    assert bench.stated_check(measured)["matches"], bench.stated_check(measured)
    assert not bench.stated_check(measured, dataclasses.replace(SPEEDUPS, right=SPEEDUPS.right - 1))["matches"]
    study = dataclasses.replace(SPEEDUPS.between_configurations[1], uncalibrated=0.04)
    changed = (SPEEDUPS.between_configurations[0], study, SPEEDUPS.between_configurations[2])
    assert not bench.stated_check(measured, dataclasses.replace(SPEEDUPS, between_configurations=changed))["matches"]
    # the sentence, by hand from the measured figures
    assert (
        "(Qwen3-8B, 8 A100): 3% off (3% given each run's longest response) where each run's own time was 38% off"
        in (STATED_SPEEDUPS)
    )
    assert "in 39 of 40 pairs" in STATED_SPEEDUPS


def test_the_readme_carries_the_stated_table() -> None:
    """The README's table of speed-ups between configurations is `SPEEDUPS`' (which the test above holds to the
    benchmark), so the two cannot drift."""
    from autotune.sim.accuracy import markdown_table, speedup_rows
    from tests.autotune.conftest import ROOT

    table = markdown_table(speedup_rows())
    assert table.count("\n") == 4 and "| 55 | 3% | 3% | 38% |" in table
    assert table in (ROOT / "README.md").read_text()


def test_verl_docs_comparison_of_vllm_versions_and_cuda_graphs(bench: Any) -> None:
    """verl's docs: one job's generation 115 s on vLLM 0.6.3, 85 s on 0.7.0, 62 s with CUDA graphs. Both old versions
    run vLLM's V0 engine, which the model costs alike (×1.00, not the published ×1.35), and it puts CUDA graphs far
    below the published ×1.37 on every GPU and length of the grid (the README's figures)."""
    docs = bench.vllm_docs_comparison()
    versions = docs["speedups"]["vLLM 0.7.0 over vLLM 0.6.3"]
    graphs = docs["speedups"]["vLLM 0.7.0 with CUDA graphs over vLLM 0.7.0"]
    assert versions["published"] == pytest.approx(115 / 85) and graphs["published"] == pytest.approx(85 / 62)
    assert versions["predicted_range"] == pytest.approx([1.0, 1.0])
    low, high = graphs["predicted_range"]
    assert 1.0 < low <= high < 1.2 and f"×{low:.2f} to ×{high:.2f}" == "×1.12 to ×1.14"
    assert len(docs["grid"]) == 6
