"""The ninth round: NINTH_RUNS, predicted with the cost model of NINTH_FROZEN_REV."""

from __future__ import annotations

from typing import Any

from ._common import _OLD_ROLLOUT

NINTH_FROZEN_REV = "6bf5f96"
"""The revision whose cost model any run of a ninth search is predicted with, committed before that search's
helpers (who are not shown the model) reported: for verl jobs the model is b5499f6's (the geometric longest
response); what changed after it is the built-in trainer's terms only."""

R360 = "https://github.com/LLM360/Reasoning360/blob/3a830ea7f81dc5639779a470754ebd367c06f946/wandb/"

_R360_H200X8_7B = {
    # the resolved config of each run's W&B record (the same in both runs but for the data files), the keys the model
    # reads; verl 0.3.1's rollout defaults as the record prints them (eager, free_cache_engine, max_num_seqs 1024)
    **_OLD_ROLLOUT,
    "algorithm.adv_estimator": "grpo",
    "algorithm.use_kl_in_reward": False,
    # No KL (kl_loss_coef 0), but the fork's main_dapo (verl/recipe/dapo/src/main_dapo.py at bf5c3dc) builds the
    # reference worker whatever the KL settings, and the log times `ref`: stock verl builds it only with a KL term, so
    # the KL loss is switched on at coefficient 0 to make the model run the pass the run ran (the loss term is free)
    "actor_rollout_ref.actor.use_kl_loss": True,
    "actor_rollout_ref.actor.kl_loss_coef": 0.0,
    "data.train_batch_size": 512,
    "data.max_prompt_length": 4096,
    "data.max_response_length": 8192,
    "actor_rollout_ref.rollout.n": 16,
    "actor_rollout_ref.rollout.tensor_model_parallel_size": 4,
    "actor_rollout_ref.rollout.gpu_memory_utilization": 0.7,
    "actor_rollout_ref.rollout.enable_chunked_prefill": True,
    "actor_rollout_ref.rollout.max_num_batched_tokens": 24576,
    "actor_rollout_ref.rollout.log_prob_use_dynamic_bsz": True,
    "actor_rollout_ref.rollout.log_prob_max_token_len_per_gpu": 24576,
    "actor_rollout_ref.ref.log_prob_use_dynamic_bsz": True,
    "actor_rollout_ref.ref.log_prob_max_token_len_per_gpu": 24576,
    "actor_rollout_ref.ref.ulysses_sequence_parallel_size": 4,
    "actor_rollout_ref.ref.fsdp_config.param_offload": True,
    "actor_rollout_ref.model.use_remove_padding": True,
    "actor_rollout_ref.model.enable_gradient_checkpointing": True,
    "actor_rollout_ref.actor.strategy": "fsdp",
    "actor_rollout_ref.actor.ppo_mini_batch_size": 64,
    "actor_rollout_ref.actor.ppo_epochs": 1,
    "actor_rollout_ref.actor.use_dynamic_bsz": True,
    "actor_rollout_ref.actor.ppo_max_token_len_per_gpu": 24576,
    "actor_rollout_ref.actor.ulysses_sequence_parallel_size": 4,
    "actor_rollout_ref.actor.use_torch_compile": True,
    "actor_rollout_ref.actor.fsdp_config.param_offload": True,
    "actor_rollout_ref.actor.fsdp_config.optimizer_offload": True,
    "actor_rollout_ref.actor.loss_agg_mode": "token-mean",
}


def _r360_h200x8(
    name: str, run: str, step: str, prompt: float, response: float, published: dict[str, float]
) -> dict[str, Any]:
    """GRPO of Qwen2.5-7B-Instruct on SynLogic logic puzzles, one node of 8 H200 (the runs' wandb-metadata.json:
    "NVIDIA H200" × 8, 141 GB), 2025-08-05, LLM360's Reasoning360 fork of verl 0.3.1.dev0 (commit bf5c3dc) through its
    DAPO entry point with dynamic sampling off (one generation batch a step, a plain synchronous GRPO step); vLLM
    0.8.3, torch 2.6.0 (the runs' requirements.txt). The engine: V0 — every training script of the fork at the runs'
    commit exports VLLM_USE_V1=0, as does the single-node SynLogic launch script committed on 2025-08-11 (90b4399),
    which matches these runs' every knob but the batch sizes; the runs' own environment is not recorded. Sync rollout: `gen` holds the weight sync. The
    console (W&B `output_raw` records of the binary run file, committed on 2025-08-12 and deleted in the next commit)
    prints `timing_s/reward` (rule rewards on the CPU, 14-21 s) and `adv`, which the model does not predict; its
    `perf/mfu/actor` (2.5) and `perf/max_memory_reserved_gb` (204) are wrong (Ulysses, vLLM's sleep-mode pool) and
    not used. Timings are medians of the window, lengths the means of its steps' means; the longest response is at
    the 8,192 cap on most steps (median of the per-step maxima: 8,192). Found by a search helper (round 9, who decoded
    the W&B files); the medians were recomputed here from the decoded step lines."""
    return {
        "name": name,
        "source": R360 + run + " (W&B run file; config, console, wandb-metadata.json, requirements.txt)",
        "gpu": "H200",
        "world": 8,
        "model": "Qwen2.5-7B",  # Qwen2.5-7B-Instruct: the same architecture
        "step": step,
        "vllm": "0.8.3",
        "verl": "0.5",  # verl 0.3.1.dev0: "0.5" stands for "before 0.7"
        "env": {"VLLM_USE_V1": "0"},
        "overrides": dict(_R360_H200X8_7B),
        "prompt_tokens": prompt,
        "response_tokens": response,
        "response_max": 8192.0,
        "published": published,
        "gen_includes": ("update_weights",),
    }


NINTH_RUNS: list[dict[str, Any]] = [
    # steps 2-10 (step 1 warms up; 5 and 10 also validate and save, outside the phases); responses 570-652
    _r360_h200x8(
        "h200x8-grpo-qwen2.5-7b-synlogic-8k-a",
        "run-20250805_113046-phayu0dj/run-phayu0dj.wandb",
        "2-10 (medians of 9 steps)",
        411.110,
        595.991,
        {"gen": 630.115, "old_log_prob": 47.214, "ref": 44.662, "update_actor": 133.266},
    ),
    # steps 2-4 (the run file ends there); responses 577-599; other training data, longer prompts
    _r360_h200x8(
        "h200x8-grpo-qwen2.5-7b-synlogic-8k-b",
        "run-20250805_142649-47bzde4v/run-47bzde4v.wandb",
        "2-4 (medians of 3 steps)",
        649.014,
        589.410,
        {"gen": 722.853, "old_log_prob": 57.207, "ref": 53.935, "update_actor": 164.243},
    ),
]
"""The ninth round: gathered after NINTH_FROZEN_REV by two search helpers who were not shown the model (verl pull
requests and discussions; pages, papers and committed logs, binary files included). One source: W&B run files
committed to LLM360's Reasoning360 (a verl 0.3.1 fork), one configuration (a 7B on 8 H200, 8k cap, Ulysses 4, full
offload, rollout TP 4) in two runs on different data."""
