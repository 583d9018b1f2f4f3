"""VLLM_DOCS: a published A/B comparison of one verl job's settings, found by the fourteenth search (one helper, not
shown the model, 2026-12-04, looking for measured comparisons of systems knobs rather than whole logs), with the model
for verl jobs as committed at NINTH_FROZEN_REV apart from reading a vLLM before 0.8 as its V0 engine."""

from __future__ import annotations

from typing import Any

VLLM_DOCS: dict[str, Any] = {
    "source": "https://github.com/verl-project/verl/blob/f8b4d0857f8a80be996bca4bc8f1a1463d7cf1aa/docs/README_vllm0.7.md "
    "(verl PR 209, 2025-02-15; the same sentence stayed in the doc until 2025-06-29)",
    "quote": "For a typical job like examples/ppo_trainer/run_qwen2-7b_seq_balance.sh, the rollout generation time is "
    "115 seconds with vLLM0.6.3, while it is 85 seconds with vLLM0.7.0. By enabling the cudagraph, the generation "
    "duration is further reduced to 62 seconds.",
    "world": 8,
    "model": "Qwen2-7B",
    # examples/ppo_trainer/run_qwen2-7b_seq_balance.sh at the PR's commit (GSM8K and MATH, PPO with a critic), with
    # verl's defaults of the time for what it does not set (rollout.n 1, eager vLLM, chunked prefill, 8192 batched
    # tokens); the micro-batch sizes verl's validation needs are not read under dynamic batching
    "overrides": {
        "algorithm.adv_estimator": "gae",
        "data.train_batch_size": 4096,
        "data.max_prompt_length": 4096,
        "data.max_response_length": 4096,
        "actor_rollout_ref.model.use_remove_padding": True,
        "actor_rollout_ref.model.enable_gradient_checkpointing": True,
        "actor_rollout_ref.actor.ppo_mini_batch_size": 512,
        "actor_rollout_ref.actor.use_dynamic_bsz": True,
        "actor_rollout_ref.actor.ppo_max_token_len_per_gpu": 24000,
        "actor_rollout_ref.actor.ppo_micro_batch_size_per_gpu": 2,
        "actor_rollout_ref.rollout.name": "vllm",
        "actor_rollout_ref.rollout.n": 1,
        "actor_rollout_ref.rollout.tensor_model_parallel_size": 2,
        "actor_rollout_ref.rollout.gpu_memory_utilization": 0.5,
        "actor_rollout_ref.rollout.enforce_eager": True,
        "actor_rollout_ref.rollout.free_cache_engine": True,
        "actor_rollout_ref.rollout.enable_chunked_prefill": True,
        "actor_rollout_ref.rollout.max_num_batched_tokens": 8192,
        "actor_rollout_ref.rollout.log_prob_use_dynamic_bsz": True,
        "actor_rollout_ref.rollout.log_prob_max_token_len_per_gpu": 24000,
        "actor_rollout_ref.ref.fsdp_config.param_offload": True,
        "actor_rollout_ref.ref.log_prob_use_dynamic_bsz": True,
        "actor_rollout_ref.ref.log_prob_max_token_len_per_gpu": 24000,
        "critic.model.use_remove_padding": True,
        "critic.model.enable_gradient_checkpointing": True,
        "critic.use_dynamic_bsz": True,
        "critic.ppo_max_token_len_per_gpu": 98304,
        "critic.ppo_mini_batch_size": 512,
        "critic.ppo_micro_batch_size_per_gpu": 2,
    },
    "verl": "0.2",
    "arms": {  # the rollout's `timing_s/gen` as the doc gives it (round figures; the PR's commit message said 90 and 65)
        "vLLM 0.6.3": {"vllm": "0.6.3", "overrides": {}, "gen": 115.0},
        "vLLM 0.7.0": {"vllm": "0.7.0", "overrides": {}, "gen": 85.0},
        "vLLM 0.7.0 with CUDA graphs": {
            "vllm": "0.7.0",
            "overrides": {
                "actor_rollout_ref.rollout.enforce_eager": False,
                "actor_rollout_ref.rollout.free_cache_engine": False,
            },
            "gen": 62.0,
        },
    },
    # not given: the GPU (the verl team's were H100, H800 and A100 80GB) and the lengths (GSM8K and MATH prompts with
    # Qwen2's chat template, responses of a 7B instruct model): predicted over these
    "gpus": ("H100", "A100"),
    "prompt_tokens": 150.0,
    "response_tokens": (250.0, 400.0, 600.0),
}
"""Usable only as ratios between its arms: the doc gives neither the GPU nor the lengths, so the benchmark predicts
every arm over a grid of both (sim_speedups.vllm_docs_comparison)."""
