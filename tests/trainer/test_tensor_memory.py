"""`perf/tensor_memory_gb` moves with the knobs as device memory would on a GPU, by the amount the
model's shapes predict (computed here by hand, not by the meter). Real world-1 runs."""

from __future__ import annotations

import math
import statistics

import pytest

from tests.conftest import run_trainer
from trainer.config.loader import load_config

GRPO = (
    "algorithm.adv_estimator=grpo",
    "actor_rollout_ref.rollout.n=4",
    "data.train_batch_size=16",
    "actor_rollout_ref.actor.ppo_mini_batch_size=8",
    "trainer.total_training_steps=3",
)
MICRO = "actor_rollout_ref.actor.ppo_micro_batch_size_per_gpu"
KNOBS = {
    "base": (f"{MICRO}=8",),
    "micro16": (f"{MICRO}=16",),
    "no_reshard": (f"{MICRO}=8", "actor_rollout_ref.actor.fsdp_config.reshard_after_forward=false"),
}
FP32 = 4


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("memory")
    out = {}
    for name, extra in KNOBS.items():
        run = run_trainer(tmp, *GRPO, *extra)
        assert run.returncode == 0, run.stderr[-3000:]
        out[name] = run
    return out


def shapes() -> tuple[int, int, int, int, int, int]:
    m = load_config().builtin.model
    return m.hidden_size, m.intermediate_size, m.num_hidden_layers, m.num_attention_heads, m.num_key_value_heads, 16


def param_count() -> tuple[int, int]:
    """(one decoder block's parameters, the whole policy's), by hand for a Qwen2 block."""
    H, I, L, heads, kv, V = shapes()  # noqa: E741 (the usual name of the MLP width)
    head_dim = H // heads
    attention = (H * H + H) + 2 * (H * kv * head_dim + kv * head_dim) + H * H  # q, k, v (with bias), o
    block = attention + 3 * H * I + 2 * H  # gate, up, down; two RMSNorms
    return block, L * block + 2 * V * H + H  # + embedding, untied LM head, final norm


def activation_bytes(tokens: float) -> float:
    """What autograd keeps for backward in one packed micro-batch of `tokens` tokens, per Qwen2 layer:
    the inputs of both RMSNorms (2H), the normed input q/k/v share (H), q/k/v after RoPE and
    repeat_kv (3H), the attention output entering o (H), the normed input gate/up share (H); gate,
    SiLU(gate), up and their product entering down (4I); SDPA's softmax probabilities on CPU (heads
    × row length per token: the micro-batch is packed into ⌈tokens / 128⌉ rows of equal length)."""
    H, I, L, heads, _, _ = shapes()  # noqa: E741
    row = tokens / math.ceil(tokens / 128)
    return L * tokens * (8 * H + 4 * I + heads * row) * FP32


def memory(run) -> float:
    return statistics.mean(run.series("perf/tensor_memory_gb")[1:]) * 1024**3


def test_every_step_reports_at_least_the_static_state(runs):
    """Actor + reference parameters, AdamW's two moments and the gradients are live at the update's peak."""
    _, params = param_count()
    base = runs["base"]
    assert all("perf/tensor_memory_gb" in row and "perf/cpu_memory_used_gb" in row for row in base.metrics)
    static = 5 * params * FP32
    tokens_per_response = statistics.mean(base.series("perf/total_num_tokens")) / 64
    upper = static + params * FP32 + 2 * activation_bytes(8 * tokens_per_response) + 2 * 1024**2  # + rollout
    print(f"tensor memory {memory(base) / 1024**2:.2f} MiB; static {static / 1024**2:.2f} MiB")
    assert static < memory(base) < upper


def test_doubling_the_micro_batch_raises_it_by_the_activations(runs):
    tokens_per_response = statistics.mean(runs["base"].series("perf/total_num_tokens")) / 64
    expected = activation_bytes(16 * tokens_per_response) - activation_bytes(8 * tokens_per_response)
    measured = memory(runs["micro16"]) - memory(runs["base"])
    print(f"micro-batch 8 -> 16: +{measured / 1024**2:.2f} MiB (by hand: +{expected / 1024**2:.2f} MiB)")
    assert 0.5 * expected < measured < 2 * expected


def test_keeping_parameters_unsharded_raises_it_by_the_model(runs):
    """reshard_after_forward=false keeps every actor unit all-gathered from forward to backward."""
    _, params = param_count()
    expected = params * FP32
    measured = memory(runs["no_reshard"]) - memory(runs["base"])
    print(f"reshard_after_forward=false: +{measured / 1024**2:.2f} MiB (by hand: +{expected / 1024**2:.2f} MiB)")
    assert 0.5 * expected < measured < 1.5 * expected
