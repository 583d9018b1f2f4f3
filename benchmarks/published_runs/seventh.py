"""The seventh round: SEVENTH_RUNS, predicted with the cost model of SEVENTH_FROZEN_REV."""

from __future__ import annotations

from typing import Any

from ._common import _OLD_ROLLOUT

SEVENTH_FROZEN_REV = "b01142b"
"""The revision whose cost model the seventh round of runs (SEVENTH_RUNS) is predicted with, committed before any of
them was looked at: the reference pass's own micro-batching (set after the sixth round) is in it; nothing in
autotune/sim/ changed after it."""

CLUSTER = "https://github.com/sunzx8/cluster_verl/blob/ef144f3affa430cc4bb09daa7b20053f8d5910cd/"

_CLUSTER_H20X64_7B = {
    # train.out line 48 (the `set -x` trace of the `python3 -m verl.trainer.main_ppo` command of
    # recipe/dapo/run_dapo_analysis.sh) and the printed config below it, the keys the model reads; verl 0.4.1's
    # rollout defaults (eager, free_cache_engine, max_num_seqs 1024) as the log prints them. No KL anywhere, so verl
    # builds no reference worker (its log has no `timing_s/ref`)
    **_OLD_ROLLOUT,
    "algorithm.adv_estimator": "grpo",
    "algorithm.use_kl_in_reward": False,
    "actor_rollout_ref.actor.use_kl_loss": False,
    "data.train_batch_size": 512,
    "data.max_prompt_length": 2048,
    "data.max_response_length": 8192,
    "actor_rollout_ref.rollout.n": 16,
    "actor_rollout_ref.rollout.tensor_model_parallel_size": 4,
    "actor_rollout_ref.rollout.gpu_memory_utilization": 0.8,
    "actor_rollout_ref.rollout.enable_chunked_prefill": True,
    "actor_rollout_ref.rollout.max_num_batched_tokens": 10240,
    "actor_rollout_ref.rollout.log_prob_use_dynamic_bsz": True,
    "actor_rollout_ref.rollout.log_prob_max_token_len_per_gpu": 30720,
    "actor_rollout_ref.model.use_remove_padding": True,
    "actor_rollout_ref.model.enable_gradient_checkpointing": True,
    "actor_rollout_ref.actor.strategy": "fsdp",
    "actor_rollout_ref.actor.ppo_mini_batch_size": 32,
    "actor_rollout_ref.actor.ppo_epochs": 1,
    "actor_rollout_ref.actor.use_dynamic_bsz": True,
    "actor_rollout_ref.actor.ppo_max_token_len_per_gpu": 20480,
    "actor_rollout_ref.actor.ulysses_sequence_parallel_size": 4,
    "actor_rollout_ref.actor.fsdp_config.fsdp_size": 32,
    "actor_rollout_ref.actor.fsdp_config.param_offload": True,
    "actor_rollout_ref.actor.fsdp_config.optimizer_offload": True,
    "actor_rollout_ref.actor.loss_agg_mode": "token-mean",
}


def _cluster_h20x64(
    name: str, step: str, prompt: float, response: float, response_max: float, published: dict[str, float]
) -> dict[str, Any]:
    """A DAPO-style GRPO run (verl's main_ppo with the dapo reward manager and its overlong buffer, clip-higher 0.28,
    no KL, no dynamic sampling) of Qwen2.5-Math-7B on DAPO-Math, 8 nodes × 8 H20 (64 GPUs), run 2025-08-14: the repo's
    train.out is its whole nohup console (the shell trace, the printed config, 201 `step:N` lines). verl 0.4.1.dev
    (main of 2025-07-16, its version file) with the author's driver-side analysis metrics, which sit between `adv` and
    `update_actor`, outside every timed phase; vLLM's V1 engine in eager mode (its log), the version not printed
    (verl's pins of July 2025: 0.8.5-0.9). Sync rollout: `gen` holds the weight reshard (`timing_s/reshard`, 2.05-2.10
    s, printed apart as well). GPU: H20, sure of the family: 6 × 7.615e9 (verl's Qwen2 count) × the step's tokens /
    update_actor / 64 / perf/mfu/actor gives 139-143 TFLOP/s on every early step, verl's 148 TFLOP/s H20 entry with
    attention's share added (this verl's table would give 989 for an H100/H800/H200, 312 for an A100/A800); the 96 GB
    H20, fairly sure (86 GiB allocated at its peak with vLLM's pool counted; on a 141 GB card vLLM's 0.8 alone would
    exceed 108 GiB). The model is Qwen2.5-7B's architecture (Qwen2.5-Math-7B's config.json: hidden 3584, 28 layers, 4
    KV heads, untied 152064 vocabulary). Steps that validate and checkpoint (every 10th) are left out; the run
    degenerates after ~step 110 (validation outputs junk, responses collapse by ~138), so nothing after 103 is used.
    Timings are medians of the window, lengths the means of its steps' means, the longest response the median of
    the per-step maxima. Found by a search helper (round 7); the medians were recomputed here from the file in its
    fetched snapshot."""
    return {
        "name": name,
        "source": CLUSTER + "train.out (launch script: " + CLUSTER + "recipe/dapo/run_dapo_analysis.sh)",
        "gpu": "H20",
        "world": 64,
        "model": "Qwen2.5-7B",  # Qwen2.5-Math-7B: the same architecture
        "step": step,
        "vllm": "0.8",  # V1 engine, version not printed (verl's pins of July 2025)
        "verl": "0.5",  # verl 0.4.1.dev: "0.5" stands for "before 0.7"
        "env": {"VLLM_USE_V1": "1"},
        "overrides": dict(_CLUSTER_H20X64_7B),
        "prompt_tokens": prompt,
        "response_tokens": response,
        "response_max": response_max,
        "published": published,
        "gen_includes": ("update_weights",),
    }


SEVENTH_RUNS: list[dict[str, Any]] = [
    # steps 2-9 (step 1 warms up, 10 validates); responses 761-882
    _cluster_h20x64(
        "h20x64-grpo-qwen2.5-math-7b-8k-early",
        "2-9 (medians of 8 steps)",
        124.833,
        836.557,
        8192.0,
        {"gen": 112.877, "old_log_prob": 19.195, "update_actor": 85.879},
    ),
    # steps 26-49 without 30 and 40; responses 514-566, per-step longest 4098-6162
    _cluster_h20x64(
        "h20x64-grpo-qwen2.5-math-7b-8k-mid",
        "26-49 without 30, 40 (medians of 22 steps)",
        123.431,
        538.182,
        4590.5,
        {"gen": 68.189, "old_log_prob": 13.622, "update_actor": 57.348},
    ),
    # steps 83-93 without 90; responses 1144-2462 (wide: its medians are rough), every step's longest at the cap
    _cluster_h20x64(
        "h20x64-grpo-qwen2.5-math-7b-8k-long",
        "83-93 without 90 (medians of 10 steps)",
        123.813,
        1649.928,
        8192.0,
        {"gen": 154.922, "old_log_prob": 32.643, "update_actor": 176.216},
    ),
    # steps 94-103 without 100; responses 747-982
    _cluster_h20x64(
        "h20x64-grpo-qwen2.5-math-7b-8k-late",
        "94-103 without 100 (medians of 9 steps)",
        124.145,
        881.526,
        8192.0,
        {"gen": 114.756, "old_log_prob": 19.648, "update_actor": 109.407},
    ),
]
"""The seventh round: gathered after SEVENTH_FROZEN_REV by two search helpers who were not shown the model (executed
notebooks in repositories not fetched before; consoles committed as nohup.out / train.out). One source: a 64-GPU
(8 nodes × 8 H20) GRPO run of a 7B with an 8k cap, verl 0.4.1, Ulysses sequence parallelism 4 and full offload; one
configuration in four windows of the run (mean responses 538-1,650 tokens). The first multi-node H20 run and the
largest world of any round."""
