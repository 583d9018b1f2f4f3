"""The published verl runs `sim_published.py` holds the cost model against, and every public source checked for them.

Five rounds: RUNS (the constants were first set on them), NEW_RUNS, THIRD_RUNS, FOURTH_RUNS and FIFTH_RUNS (each
gathered after the model was frozen at a revision, THIRD_FROZEN_REV / FOURTH_FROZEN_REV / FIFTH_FROZEN_REV), SOURCES_CHECKED (what was searched and why
each other source was rejected) and HYBRIDFLOW (the paper's TP-ranking setting). Each entry says where it comes from,
how its GPU is known, its config as verl overrides, its measured lengths and its published `timing_s/*`; the
conventions are in `sim_published.py`'s docstring. Data only: nothing here imports the project.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

PLAY = "https://github.com/dingxianzhong/play-verl/blob/main/logs/"
DATA = "https://github.com/eric-haibin-lin/verl-data/blob/experiments/gsm8k/"

# verl defaults of 2024-2025 that differ from today's, written out so the overrides are explicit
_OLD_ROLLOUT = {
    "actor_rollout_ref.rollout.name": "vllm",
    "actor_rollout_ref.rollout.enforce_eager": True,
    "actor_rollout_ref.rollout.max_num_seqs": 1024,
    "actor_rollout_ref.rollout.max_num_batched_tokens": 8192,
    "actor_rollout_ref.rollout.free_cache_engine": True,
}
_DEC_2024 = {  # verl of December 2024: no remove-padding, no checkpointing, KL in the reward, no chunked prefill
    **_OLD_ROLLOUT,
    "actor_rollout_ref.rollout.enable_chunked_prefill": False,
    "actor_rollout_ref.model.use_remove_padding": False,
    "actor_rollout_ref.model.enable_gradient_checkpointing": False,
    "critic.model.use_remove_padding": False,
    "critic.model.enable_gradient_checkpointing": False,
    "algorithm.use_kl_in_reward": True,
    "actor_rollout_ref.ref.fsdp_config.param_offload": True,
}

_PPO_05B_1GPU = {  # the two 1-GPU Qwen2.5-0.5B PPO logs of verl-data: the same command but for the lengths
    **_DEC_2024,
    "algorithm.adv_estimator": "gae",
    "data.train_batch_size": 256,
    "actor_rollout_ref.rollout.n": 1,
    "actor_rollout_ref.rollout.tensor_model_parallel_size": 1,
    "actor_rollout_ref.rollout.gpu_memory_utilization": 0.4,
    "actor_rollout_ref.rollout.log_prob_micro_batch_size_per_gpu": 4,
    "actor_rollout_ref.ref.log_prob_micro_batch_size_per_gpu": 4,
    "actor_rollout_ref.actor.ppo_mini_batch_size": 64,
    "actor_rollout_ref.actor.ppo_micro_batch_size_per_gpu": 2,
    "critic.ppo_mini_batch_size": 64,
    "critic.ppo_micro_batch_size_per_gpu": 2,
}

RUNS: list[dict[str, Any]] = [
    {
        "name": "h100-ppo-qwen2-7b-tp2",
        "source": PLAY + "verl_qwen2_7b_recommended.log",
        "gpu": "H100",
        "world": 8,
        "model": "Qwen2-7B",
        "step": 14,
        "overrides": {
            **_OLD_ROLLOUT,
            "algorithm.adv_estimator": "gae",
            "data.train_batch_size": 1024,
            "data.max_prompt_length": 512,
            "data.max_response_length": 1024,
            "actor_rollout_ref.rollout.n": 5,
            "actor_rollout_ref.rollout.tensor_model_parallel_size": 2,
            "actor_rollout_ref.rollout.gpu_memory_utilization": 0.6,
            "actor_rollout_ref.rollout.enable_chunked_prefill": True,
            "actor_rollout_ref.actor.ppo_mini_batch_size": 64,
            "actor_rollout_ref.actor.ppo_micro_batch_size_per_gpu": 1,
            "actor_rollout_ref.actor.use_dynamic_bsz": True,
            "actor_rollout_ref.actor.ppo_max_token_len_per_gpu": 12000,
            "actor_rollout_ref.ref.log_prob_max_token_len_per_gpu": 12000,
            "actor_rollout_ref.rollout.log_prob_max_token_len_per_gpu": 12000,
            "actor_rollout_ref.rollout.log_prob_use_dynamic_bsz": True,
            "actor_rollout_ref.ref.log_prob_use_dynamic_bsz": True,
            "actor_rollout_ref.actor.use_kl_loss": True,
            "actor_rollout_ref.model.use_remove_padding": True,
            "actor_rollout_ref.model.enable_gradient_checkpointing": True,
            "critic.ppo_mini_batch_size": 64,
            "critic.ppo_micro_batch_size_per_gpu": 1,
            "critic.use_dynamic_bsz": True,
            "critic.ppo_max_token_len_per_gpu": 32768,
            "critic.forward_max_token_len_per_gpu": 32768,
            "critic.model.use_remove_padding": False,
            "critic.model.enable_gradient_checkpointing": True,
        },
        "prompt_tokens": 93.892,
        "response_tokens": 183.347,
        "response_max": 1024,
        "published": {
            "gen": 26.991,
            "old_log_prob": 6.594,
            "ref": 6.412,
            "values": 27.991,
            "update_critic": 100.556,
            "update_actor": 31.803,
            "step": 201.453,
        },
        "gen_includes": ("update_weights",),
    },
    {
        "name": "h100-ppo-qwen2-7b-tp1-offload",
        "source": PLAY + "verl_qwen2_7b_min.log",
        "gpu": "H100",
        "world": 8,
        "model": "Qwen2-7B",
        "step": 14,
        "overrides": {
            **_OLD_ROLLOUT,
            "algorithm.adv_estimator": "gae",
            "data.train_batch_size": 512,
            "data.max_prompt_length": 512,
            "data.max_response_length": 1024,
            "actor_rollout_ref.rollout.n": 1,
            "actor_rollout_ref.rollout.tensor_model_parallel_size": 1,
            "actor_rollout_ref.rollout.gpu_memory_utilization": 0.5,
            "actor_rollout_ref.rollout.enable_chunked_prefill": True,
            "actor_rollout_ref.actor.ppo_mini_batch_size": 32,
            "actor_rollout_ref.actor.ppo_micro_batch_size_per_gpu": 1,
            "actor_rollout_ref.actor.use_dynamic_bsz": True,
            "actor_rollout_ref.actor.ppo_max_token_len_per_gpu": 8192,
            "actor_rollout_ref.ref.log_prob_max_token_len_per_gpu": 8192,
            "actor_rollout_ref.rollout.log_prob_max_token_len_per_gpu": 8192,
            "actor_rollout_ref.rollout.log_prob_use_dynamic_bsz": True,
            "actor_rollout_ref.ref.log_prob_use_dynamic_bsz": True,
            "actor_rollout_ref.actor.use_kl_loss": True,
            "actor_rollout_ref.model.use_remove_padding": True,
            "actor_rollout_ref.model.enable_gradient_checkpointing": True,
            "actor_rollout_ref.actor.fsdp_config.param_offload": True,
            "actor_rollout_ref.actor.fsdp_config.optimizer_offload": True,
            "actor_rollout_ref.ref.fsdp_config.param_offload": True,
            "critic.ppo_mini_batch_size": 32,
            "critic.ppo_micro_batch_size_per_gpu": 1,
            "critic.use_dynamic_bsz": True,
            "critic.ppo_max_token_len_per_gpu": 32768,
            "critic.forward_max_token_len_per_gpu": 32768,
            "critic.model.use_remove_padding": False,
            "critic.model.enable_gradient_checkpointing": True,
            "critic.fsdp.param_offload": True,  # the log's critic.model.fsdp_config.*, as verl 0.9 names it
            "critic.fsdp.optimizer_offload": True,
        },
        "prompt_tokens": 93.027,
        "response_tokens": 191.523,
        "response_max": 934,
        "published": {
            "gen": 12.389,
            "old_log_prob": 1.436,
            "ref": 0.992,
            "values": 3.895,
            "update_critic": 15.289,
            "update_actor": 11.961,
            "step": 46.088,
        },
        "gen_includes": ("update_weights",),
    },
    {
        "name": "h100-ppo-qwen2.5-0.5b-padded",
        "env": {"VLLM_ATTENTION_BACKEND": "XFORMERS"},
        "source": PLAY + "verl_ppo_qwen2.5b_8gpu.log",
        "gpu": "H100",
        "world": 8,
        "model": "Qwen2.5-0.5B",
        "step": 15,
        "overrides": {
            **_OLD_ROLLOUT,
            "algorithm.adv_estimator": "gae",
            "data.train_batch_size": 2048,
            "data.max_prompt_length": 512,
            "data.max_response_length": 256,
            "actor_rollout_ref.rollout.n": 1,
            "actor_rollout_ref.rollout.tensor_model_parallel_size": 1,
            "actor_rollout_ref.rollout.gpu_memory_utilization": 0.6,
            "actor_rollout_ref.rollout.enable_chunked_prefill": True,
            "actor_rollout_ref.rollout.log_prob_micro_batch_size_per_gpu": 8,
            "actor_rollout_ref.ref.log_prob_micro_batch_size_per_gpu": 4,
            "actor_rollout_ref.actor.ppo_mini_batch_size": 512,
            "actor_rollout_ref.actor.ppo_micro_batch_size_per_gpu": 4,
            "actor_rollout_ref.model.use_remove_padding": False,
            "actor_rollout_ref.model.enable_gradient_checkpointing": False,
            "critic.ppo_mini_batch_size": 512,
            "critic.ppo_micro_batch_size_per_gpu": 4,
            "critic.model.use_remove_padding": False,
            "critic.model.enable_gradient_checkpointing": False,
        },
        "prompt_tokens": 103.573,
        "response_tokens": 226.907,
        "response_max": 256,
        "published": {
            "gen": 9.133,
            "old_log_prob": 2.312,
            "values": 3.422,
            "update_critic": 12.922,
            "update_actor": 13.020,
            "step": 41.167,
        },
        "gen_includes": ("update_weights",),
    },
    {
        "name": "h100-grpo-qwen2.5-0.5b",
        "env": {"VLLM_ATTENTION_BACKEND": "XFORMERS"},
        "source": PLAY + "verl_grpo_qwen2.5b_8gpu.log",
        "gpu": "H100",
        "world": 8,
        "model": "Qwen2.5-0.5B",
        "step": 20,
        "overrides": {
            **_OLD_ROLLOUT,
            "algorithm.adv_estimator": "grpo",
            "data.train_batch_size": 256,
            "data.max_prompt_length": 512,
            "data.max_response_length": 192,
            "actor_rollout_ref.rollout.n": 2,
            "actor_rollout_ref.rollout.tensor_model_parallel_size": 1,
            "actor_rollout_ref.rollout.gpu_memory_utilization": 0.6,
            "actor_rollout_ref.rollout.enable_chunked_prefill": True,
            "actor_rollout_ref.actor.ppo_mini_batch_size": 64,
            "actor_rollout_ref.actor.ppo_micro_batch_size_per_gpu": 4,
            "actor_rollout_ref.actor.use_dynamic_bsz": True,
            "actor_rollout_ref.actor.ppo_max_token_len_per_gpu": 8000,
            "actor_rollout_ref.ref.log_prob_max_token_len_per_gpu": 8000,
            "actor_rollout_ref.rollout.log_prob_max_token_len_per_gpu": 8000,
            "actor_rollout_ref.rollout.log_prob_use_dynamic_bsz": True,
            "actor_rollout_ref.ref.log_prob_use_dynamic_bsz": True,
            "actor_rollout_ref.actor.use_kl_loss": True,
            "actor_rollout_ref.model.use_remove_padding": True,
            "actor_rollout_ref.model.enable_gradient_checkpointing": True,
        },
        "prompt_tokens": 105.285,
        "response_tokens": 145.701,
        "response_max": 192,
        "published": {"gen": 5.196, "old_log_prob": 0.310, "ref": 0.243, "update_actor": 1.006, "step": 6.842},
        "gen_includes": ("update_weights",),
    },
    {
        "name": "h20-grpo-qwen2-7b-tp2-offload",
        "source": DATA + "qwen2-7b-fsdp2.log",
        "gpu": "H20",
        "world": 8,
        "model": "Qwen2-7B",
        "step": 3,
        "overrides": {
            **_OLD_ROLLOUT,
            "algorithm.adv_estimator": "grpo",
            "data.train_batch_size": 1024,
            "data.max_prompt_length": 512,
            "data.max_response_length": 1024,
            "actor_rollout_ref.rollout.n": 5,
            "actor_rollout_ref.rollout.tensor_model_parallel_size": 2,
            "actor_rollout_ref.rollout.gpu_memory_utilization": 0.6,
            "actor_rollout_ref.rollout.enable_chunked_prefill": True,
            "actor_rollout_ref.rollout.log_prob_micro_batch_size_per_gpu": 40,
            "actor_rollout_ref.ref.log_prob_micro_batch_size_per_gpu": 40,
            "actor_rollout_ref.actor.ppo_mini_batch_size": 256,
            "actor_rollout_ref.actor.ppo_micro_batch_size_per_gpu": 40,
            "actor_rollout_ref.actor.use_kl_loss": True,
            "actor_rollout_ref.model.use_remove_padding": True,
            "actor_rollout_ref.model.enable_gradient_checkpointing": False,
            "actor_rollout_ref.actor.fsdp_config.param_offload": True,
            "actor_rollout_ref.actor.fsdp_config.optimizer_offload": True,
            "actor_rollout_ref.ref.fsdp_config.param_offload": True,
        },
        "prompt_tokens": 93.695,
        "response_tokens": 193.117,
        "response_max": 1024,
        "published": {"gen": 42.974, "old_log_prob": 25.030, "ref": 24.679, "update_actor": 74.740, "step": 168.591},
        "gen_includes": ("update_weights",),
    },
    {
        "name": "h100nvl-ppo-qwen2.5-0.5b-1gpu-long",
        "env": {"VLLM_USE_V1": "0"},
        "vllm": "0.6.3",
        "source": DATA + "Qwen2.5-0.5B-bsz256_2-prompt1024-resp512-0.567.log",
        "gpu": "H100-NVL",
        "world": 1,
        "model": "Qwen2.5-0.5B",
        "step": 5,
        "overrides": {**_PPO_05B_1GPU, "data.max_prompt_length": 1024, "data.max_response_length": 512},
        "prompt_tokens": 104.191,
        "response_tokens": 302.629,
        "response_max": 512,
        "published": {"gen": 18.167, "ref": 5.374, "values": 5.753, "update_critic": 17.147, "update_actor": 20.852},
        "gen_includes": ("update_weights", "old_log_prob"),
    },
    {
        "name": "h100nvl-ppo-qwen2.5-0.5b-1gpu-short",
        "env": {"VLLM_USE_V1": "0"},
        "vllm": "0.5.4",
        "source": DATA + "Qwen2.5-0.5B-bsz256_2-prompt512-resp256-0.538.log",
        "gpu": "H100-NVL",
        "world": 1,
        "model": "Qwen2.5-0.5B",
        "step": 5,
        "overrides": {**_PPO_05B_1GPU, "data.max_prompt_length": 512, "data.max_response_length": 256},
        "prompt_tokens": 104.066,
        "response_tokens": 231.465,
        "response_max": 256,
        "published": {"gen": 18.708, "ref": 4.470, "values": 5.764, "update_critic": 15.167, "update_actor": 19.948},
        "gen_includes": ("update_weights", "old_log_prob"),
    },
    {
        "name": "h800-ppo-gemma-2-2b-tp2",
        "env": {"VLLM_USE_V1": "0"},
        "vllm": "0.5.4",
        "source": DATA + "gemma-2-2b-it-ppo-bsz512_4-prompt1024-resp-512-0.640.log",
        "gpu": "H800",
        "world": 2,
        "model": "gemma-2-2b",
        "step": 10,
        "overrides": {
            **_DEC_2024,
            "algorithm.adv_estimator": "gae",
            "data.train_batch_size": 512,
            "data.max_prompt_length": 1024,
            "data.max_response_length": 512,
            "actor_rollout_ref.rollout.n": 1,
            "actor_rollout_ref.rollout.tensor_model_parallel_size": 2,
            "actor_rollout_ref.rollout.gpu_memory_utilization": 0.4,
            "actor_rollout_ref.rollout.log_prob_micro_batch_size_per_gpu": 2,
            "actor_rollout_ref.ref.log_prob_micro_batch_size_per_gpu": 2,
            "actor_rollout_ref.actor.ppo_mini_batch_size": 128,
            "actor_rollout_ref.actor.ppo_micro_batch_size_per_gpu": 2,
            "critic.ppo_mini_batch_size": 128,
            "critic.ppo_micro_batch_size_per_gpu": 2,
        },
        "prompt_tokens": 83.670,
        "response_tokens": 138.158,
        "response_max": 512,
        "published": {"gen": 43.735, "ref": 11.334, "values": 9.620, "update_critic": 32.624, "update_actor": 37.748},
        "gen_includes": ("update_weights", "old_log_prob"),
    },
]

DSTACK = "https://github.com/Bihan/dstack-configs/blob/136d6ade6f904d3096ed5b393128e8c25b2b39b2/"


def _tinyzero_l40s(
    name: str, response_tokens: float, response_max: float, published: dict[str, float], reward: str
) -> dict[str, Any]:
    """The reward-design study of Limpidjunewind/tinyzero-experiments: PPO, Qwen2.5-3B, 4 L40S (46 GB), Countdown,
    TinyZero's verl (January 2025: no `old_log_prob` timer, vLLM 0.6.3 as TinyZero pins it), 15 epochs (~1920
    steps). The report states the hardware, the batch, the response cap and that the runs differ only in their
    reward; the rest of the config is the study's launch scripts (reward_study/scripts/run_*.sh, identical in every
    knob but the reward), with TinyZero's defaults made explicit (its ref, rollout and critic take the actor's
    `use_dynamic_bsz`; its critic keeps padding). The timings and the mean response length are the report's averages
    over the whole run (from its wandb), not steady-state medians; the mean prompt (143.8 tokens) is TinyZero's
    Countdown template with the Qwen2.5 tokenizer as another public log measures it (143.2-143.8, range 140-146)."""
    return {
        "name": name,
        "env": {"VLLM_USE_V1": "0", "VLLM_ATTENTION_BACKEND": "XFORMERS"},
        "vllm": "0.6.3",
        "source": "https://github.com/Limpidjunewind/tinyzero-experiments/blob/07e010a676392d3f44d6f9174e25aa570e8bc63e/"
        "reports/experiment_report_reward.md (section 4.5; config: reward_study/scripts/ at 665a43d) " + reward,
        "gpu": "L40S",
        "world": 4,
        "model": "Qwen2.5-3B",
        "step": "averages over the whole run (~1920 steps)",
        "overrides": {
            **_DEC_2024,
            "algorithm.adv_estimator": "gae",
            "data.train_batch_size": 256,
            "data.max_prompt_length": 256,
            "data.max_response_length": 1024,
            "actor_rollout_ref.rollout.n": 1,
            "actor_rollout_ref.rollout.tensor_model_parallel_size": 2,
            "actor_rollout_ref.rollout.gpu_memory_utilization": 0.4,
            "actor_rollout_ref.rollout.log_prob_micro_batch_size_per_gpu": 1,
            "actor_rollout_ref.rollout.log_prob_use_dynamic_bsz": True,
            "actor_rollout_ref.rollout.log_prob_max_token_len_per_gpu": 16384,
            "actor_rollout_ref.ref.log_prob_micro_batch_size_per_gpu": 1,
            "actor_rollout_ref.ref.log_prob_use_dynamic_bsz": True,
            "actor_rollout_ref.ref.log_prob_max_token_len_per_gpu": 16384,
            "actor_rollout_ref.ref.fsdp_config.param_offload": False,
            "actor_rollout_ref.actor.ppo_mini_batch_size": 64,
            "actor_rollout_ref.actor.ppo_micro_batch_size_per_gpu": 1,
            "actor_rollout_ref.actor.use_dynamic_bsz": True,
            "actor_rollout_ref.actor.ppo_max_token_len_per_gpu": 16384,
            "actor_rollout_ref.actor.use_kl_loss": False,
            "actor_rollout_ref.model.use_remove_padding": True,
            "actor_rollout_ref.model.enable_gradient_checkpointing": True,
            "critic.ppo_mini_batch_size": 64,
            "critic.ppo_micro_batch_size_per_gpu": 1,
            "critic.forward_micro_batch_size_per_gpu": 1,
            "critic.use_dynamic_bsz": True,
            "critic.ppo_max_token_len_per_gpu": 32768,
            "critic.forward_max_token_len_per_gpu": 32768,
            "critic.model.use_remove_padding": False,
            "critic.model.enable_gradient_checkpointing": True,
        },
        "prompt_tokens": 143.8,
        "response_tokens": response_tokens,
        "response_max": response_max,  # the report's median over the run of each step's longest response
        "published": published,
        "gen_includes": ("update_weights", "old_log_prob"),
    }


_GRPO_GSM8K_EXAMPLE = {
    # verl's examples/grpo_trainer GSM8K template of mid 2025 (run_qwen2-7b.sh and its siblings), that time's rollout
    # defaults included; runs launched from it differ in the rollout TP and the log-prob micro-batch
    **_OLD_ROLLOUT,
    "algorithm.adv_estimator": "grpo",
    "algorithm.use_kl_in_reward": False,
    "data.train_batch_size": 1024,
    "data.max_prompt_length": 512,
    "data.max_response_length": 1024,
    "actor_rollout_ref.rollout.n": 5,
    "actor_rollout_ref.rollout.gpu_memory_utilization": 0.6,
    "actor_rollout_ref.rollout.enable_chunked_prefill": True,
    "actor_rollout_ref.ref.fsdp_config.param_offload": True,
    "actor_rollout_ref.actor.ppo_mini_batch_size": 256,
    "actor_rollout_ref.actor.ppo_micro_batch_size_per_gpu": 4,
    "actor_rollout_ref.actor.use_kl_loss": True,
    "actor_rollout_ref.actor.fsdp_config.param_offload": False,
    "actor_rollout_ref.actor.fsdp_config.optimizer_offload": False,
    "actor_rollout_ref.model.use_remove_padding": True,
    "actor_rollout_ref.model.enable_gradient_checkpointing": True,
}


TENCENT = "https://github.com/haolinyan/verl/tree/35cee0caba9f852cfe62c39f738f096f55c8cbd0/recipe/async_reward_agent/"


def _async_reward_h20(
    name: str, model: str, prompt: float, response: float, response_max: float, published: dict[str, float], run: str
) -> dict[str, Any]:
    """The synchronous FSDP2 baselines of Tencent's async-reward-agent recipe (verl PR #2854, commit 35cee0c of the
    author's fork; the TensorBoard event files it committed and later deleted, every scalar of 105 steps): GRPO on
    GSM8K, 1 node × 8 H20 (the recipe's README: "1 node with 8xH20 GPUs"; `perf/mfu/actor` 0.36 for verl's
    6·N·tokens over 8 GPUs implies verl's 148 TFLOP/s peak, which its table gives only to the H20). verl of late
    July 2025 (`timing_s/reshard` inside `gen`, no `update_weights` key; that time's rollout defaults as in the GRPO
    run below). The config is the recipe's one launch script (qwen2_7b_instruct_gsm8k.sh, FSDP2 branch, written as
    its e2e test): not a printed record of these runs, but the logged tokens confirm batch 1024 × n 5 and the
    512/1024 caps. Each sample's reward sleeps 1-40 s (a simulated remote reward), waited for in `timing_s/adv`,
    which is not compared. Timings: medians of steps 2-105 without the validation steps (every 5th), lengths the
    means of those steps' means, the longest response the median of their per-step maxima."""
    return {
        "name": name,
        "source": TENCENT + f"assets/tensorboard/{run} (config: {TENCENT}qwen2_7b_instruct_gsm8k.sh)",
        "gpu": "H20",
        "world": 8,
        "model": model,
        "step": "2-105 without every 5th (medians)",
        "overrides": {
            **_GRPO_GSM8K_EXAMPLE,
            "actor_rollout_ref.rollout.tensor_model_parallel_size": 1,
            "actor_rollout_ref.rollout.log_prob_micro_batch_size_per_gpu": 32,
            "actor_rollout_ref.ref.log_prob_micro_batch_size_per_gpu": 32,
            "actor_rollout_ref.actor.strategy": "fsdp2",
            "critic.strategy": "fsdp2",
        },
        "prompt_tokens": prompt,
        "response_tokens": response,
        "response_max": response_max,
        "published": published,
        "gen_includes": ("update_weights",),
    }


SHAMANEZ = "https://github.com/shamanez/verl/blob/"


def _compression_fork_h200(
    name: str,
    source: str,
    budget: int,
    prompt: float,
    response: float,
    response_max: float,
    published: dict[str, float],
) -> dict[str, Any]:
    """The dense controls of a gradient-compression research fork of verl (shamanez/verl, "verl-compression-research"):
    the fork's compression hook is off (`actor.comm_eff.enabled=false`, every `actor/comm_eff/*` counter 0), so the
    actor update is upstream verl's but for `use_orig_params=true`, which the hook needs. GRPO on GSM8K, Qwen2.5-1.5B-
    Instruct, no KL (no reference pass), 4 H200 on one vast.ai box: the harness rents only `gpu_name=H200
    num_gpus=4`, the runs' box records say so, and a wandb-metadata.json of the same box lists 4 × NVIDIA H200. verl of
    2026 (agent-loop rollout, TransferQueue off, `timing_s/update_weights` timed apart from `gen`). Per-step metrics
    as JSON lines (wandb history); timings are medians of the steps after the first (without any step that validates
    or checkpoints), lengths the means of those steps' means, the longest response the median of their maxima."""
    return {
        "name": name,
        "source": SHAMANEZ + source,
        "gpu": "H200",
        "world": 4,
        "model": "Qwen2.5-1.5B",
        "verl": "0.7",  # verl of 2026: 0.7 (released 2026-01-05) or later
        "step": "2-47 / 2-24 (medians)",
        "overrides": {
            "algorithm.adv_estimator": "grpo",
            "algorithm.use_kl_in_reward": False,
            "data.train_batch_size": 128,
            "data.max_prompt_length": 1024,
            "data.max_response_length": 16384,
            "actor_rollout_ref.rollout.name": "vllm",
            "actor_rollout_ref.rollout.n": 8,
            "actor_rollout_ref.rollout.tensor_model_parallel_size": 2,
            "actor_rollout_ref.rollout.gpu_memory_utilization": 0.4,
            "actor_rollout_ref.rollout.enable_chunked_prefill": False,
            "actor_rollout_ref.rollout.max_num_seqs": 1024,
            "actor_rollout_ref.rollout.log_prob_micro_batch_size_per_gpu": 1,
            "actor_rollout_ref.rollout.log_prob_use_dynamic_bsz": True,
            "actor_rollout_ref.rollout.log_prob_max_token_len_per_gpu": budget,
            "actor_rollout_ref.ref.log_prob_micro_batch_size_per_gpu": 1,
            "actor_rollout_ref.ref.log_prob_use_dynamic_bsz": True,
            "actor_rollout_ref.ref.log_prob_max_token_len_per_gpu": budget,
            "actor_rollout_ref.ref.fsdp_config.param_offload": True,
            "actor_rollout_ref.actor.ppo_mini_batch_size": 64,
            "actor_rollout_ref.actor.ppo_micro_batch_size_per_gpu": 1,
            "actor_rollout_ref.actor.use_dynamic_bsz": True,
            "actor_rollout_ref.actor.ppo_max_token_len_per_gpu": budget,
            "actor_rollout_ref.actor.use_kl_loss": False,
            "actor_rollout_ref.actor.fsdp_config.use_orig_params": True,
            "actor_rollout_ref.model.use_remove_padding": True,
            "actor_rollout_ref.model.enable_gradient_checkpointing": True,
        },
        "prompt_tokens": prompt,
        "response_tokens": response,
        "response_max": response_max,
        "published": published,
        "gen_includes": (),
    }


NEW_RUNS: list[dict[str, Any]] = [
    {
        # verl of May 2025 (vLLM 0.8.5, V1 engine: the image whatcanyousee/verl:ngc-cu124-vllm0.8.5-... in the same
        # commit's verl.train.dstack.yml; the log shows vllm.v1.worker), resumed at step 101: the timings are the
        # medians of steps 102-131 and the lengths the means of those steps' means (each phase of a step that also
        # validates or checkpoints is timed apart from those). GPU: the fleet files of the same commit ask for
        # `gpu: 80GB:8` on 2 nodes (Lambda and Nebius H100 fleets); `perf/mfu/actor` 0.068-0.075 for
        # 6·N·(256 × 228 tokens) in ~2.4 s over 16 GPUs implies verl's 989 TFLOP/s peak (an A100 would read ~0.22).
        "name": "h100x16-ppo-qwen2.5-7b-2nodes",
        "source": DSTACK + "verl_demo.log",
        "gpu": "H100",
        "world": 16,
        "model": "Qwen2.5-7B",
        "step": "102-131 (medians)",
        "vllm": "0.8.5",
        "overrides": {
            **_OLD_ROLLOUT,
            "algorithm.adv_estimator": "gae",
            "algorithm.use_kl_in_reward": False,
            "data.train_batch_size": 256,
            "data.max_prompt_length": 512,
            "data.max_response_length": 256,
            "actor_rollout_ref.rollout.n": 1,
            "actor_rollout_ref.rollout.tensor_model_parallel_size": 1,
            "actor_rollout_ref.rollout.gpu_memory_utilization": 0.4,
            "actor_rollout_ref.rollout.enable_chunked_prefill": True,
            "actor_rollout_ref.rollout.log_prob_micro_batch_size_per_gpu": 8,
            "actor_rollout_ref.ref.log_prob_micro_batch_size_per_gpu": 4,
            "actor_rollout_ref.actor.ppo_mini_batch_size": 64,
            "actor_rollout_ref.actor.ppo_micro_batch_size_per_gpu": 4,
            "actor_rollout_ref.actor.use_kl_loss": False,
            "actor_rollout_ref.model.use_remove_padding": False,
            "actor_rollout_ref.model.enable_gradient_checkpointing": True,
            "critic.ppo_mini_batch_size": 64,
            "critic.ppo_micro_batch_size_per_gpu": 4,
            "critic.forward_micro_batch_size_per_gpu": 4,
            "critic.model.use_remove_padding": False,
            "critic.model.enable_gradient_checkpointing": True,
        },
        "prompt_tokens": 103.683,
        "response_tokens": 130.545,
        "response_max": 256,
        "published": {
            "gen": 4.385,
            "old_log_prob": 0.591,
            "values": 0.704,
            "update_critic": 2.377,
            "update_actor": 2.595,
            "step": 11.076,
        },
        "gen_includes": ("update_weights",),
    },
    {
        # TinyZero's fork of verl (January 2025: `timing_s/*` keys, no `old_log_prob` timer, so the old log-probs are
        # computed inside generation as in RUNS' December 2024 logs), vLLM 0.6.3 (its "async output processing"
        # warning; TinyZero pins 0.6.3), a code-execution reward (timed in `adv`, which is not compared). Timings:
        # medians of steps 522-529 (no validation or checkpoint in them), lengths the means of those steps' means.
        # GPU: `mfu/actor` 0.33-0.36 for verl's 6·N·tokens (N = 1.78e9 as its Qwen2 counter counts, ~18.7k tokens)
        # in under 1.9 s is >= 105 TFLOP/s achieved, so a ~300-320 TFLOP/s peak: verl's table gives 312 to the A100
        # and A800 only; vLLM reserved 16.0 GB of KV cache at gpu_memory_utilization 0.25 after 18.6 GB of training
        # state (~64 GB free), so an 80 GB card. A100 and A800 80 GB share every figure the model uses on one GPU.
        "name": "a100-ppo-qwen2.5-1.5b-1gpu-longprompt",
        "env": {"VLLM_USE_V1": "0"},
        "vllm": "0.6.3",
        "source": "https://github.com/houkawa2/CodeGenerate_RL_Pipeline/blob/f638591e7d61e8f1bee6104c3cd609faf1132e69/verl_demo.log",
        "gpu": "A100",
        "world": 1,
        "model": "Qwen2.5-1.5B",
        "step": "522-529 (medians)",
        "overrides": {
            **_DEC_2024,
            "algorithm.adv_estimator": "gae",
            "data.train_batch_size": 32,
            "data.max_prompt_length": 1024,
            "data.max_response_length": 512,
            "actor_rollout_ref.rollout.n": 1,
            "actor_rollout_ref.rollout.tensor_model_parallel_size": 1,
            "actor_rollout_ref.rollout.gpu_memory_utilization": 0.25,
            "actor_rollout_ref.rollout.log_prob_micro_batch_size_per_gpu": 1,
            "actor_rollout_ref.rollout.log_prob_use_dynamic_bsz": True,
            "actor_rollout_ref.rollout.log_prob_max_token_len_per_gpu": 16384,
            "actor_rollout_ref.ref.log_prob_micro_batch_size_per_gpu": 1,
            "actor_rollout_ref.ref.log_prob_use_dynamic_bsz": True,
            "actor_rollout_ref.ref.log_prob_max_token_len_per_gpu": 16384,
            "actor_rollout_ref.ref.fsdp_config.param_offload": False,
            "actor_rollout_ref.actor.ppo_mini_batch_size": 16,
            "actor_rollout_ref.actor.ppo_micro_batch_size_per_gpu": 1,
            "actor_rollout_ref.actor.use_dynamic_bsz": True,
            "actor_rollout_ref.actor.ppo_max_token_len_per_gpu": 16384,
            "actor_rollout_ref.actor.use_kl_loss": False,
            "actor_rollout_ref.model.use_remove_padding": True,
            "actor_rollout_ref.model.enable_gradient_checkpointing": True,
            "critic.ppo_mini_batch_size": 16,
            "critic.ppo_micro_batch_size_per_gpu": 1,
            "critic.forward_micro_batch_size_per_gpu": 1,
            "critic.use_dynamic_bsz": True,
            "critic.ppo_max_token_len_per_gpu": 32768,
            "critic.forward_max_token_len_per_gpu": 32768,
            "critic.model.use_remove_padding": False,
            "critic.model.enable_gradient_checkpointing": True,
        },
        "prompt_tokens": 485.094,
        "response_tokens": 98.117,
        "response_max": 268,
        "published": {
            "gen": 12.038,
            "ref": 0.473,
            "values": 0.911,
            "update_critic": 3.362,
            "update_actor": 1.942,
        },
        "gen_includes": ("update_weights", "old_log_prob"),
    },
    # the report's table "per-phase time from wandb": v2 (continuous outcome reward) and v3 (v2 plus a 4.8M-parameter
    # process reward model on the CPU, timed in the reward, not compared); v2's longest response hits the 1024 cap in
    # most steps (median of the per-step max 1024), v3's does not (220)
    _tinyzero_l40s(
        "l40sx4-ppo-qwen2.5-3b-tinyzero-v2",
        284.0,
        1024.0,
        {"gen": 30.4, "ref": 2.0, "values": 4.5, "update_critic": 17.8, "update_actor": 10.1},
        "(v2)",
    ),
    _tinyzero_l40s(
        "l40sx4-ppo-qwen2.5-3b-tinyzero-v3",
        158.0,
        220.0,
        {"gen": 13.5, "ref": 1.5, "values": 4.6, "update_critic": 17.9, "update_actor": 8.3},
        "(v3)",
    ),
    {
        # A blog note committed as Markdown (TinyZero on AutoDL): its author moved from an RTX 5090 (unsupported by
        # its torch) to one RTX 4090 ("GPU 0 has a total capacity of 23.55 GiB" in its OOM message; mfu 0.000, as verl's
        # table has no 4090), and pasted the launch command of the run that then trained (pid 19799, started
        # 21:56:34) and its steps 383-389: timings are their medians, lengths the means of their means (responses
        # had collapsed to ~35 tokens by then, longest 37-39). TinyZero's verl (January 2025, old log-probs inside
        # generation), vLLM 0.6.3 as TinyZero pins it. The GPU is a device file written from the 4090's datasheet,
        # as a user would pass it (`--gpu benchmarks/devices/rtx4090.yaml`). The actor's and critic's mini-batch of
        # 128 exceeds the batch of 32, which verl then trains as one mini-batch of 32 (written as 32: today's verl
        # rejects a mini-batch larger than the batch).
        "name": "rtx4090-ppo-qwen2.5-0.5b-1gpu-tinyzero",
        "env": {"VLLM_USE_V1": "0"},
        "vllm": "0.6.3",
        "source": "a TinyZero reproduction note committed to GitHub as Markdown (53 kB; the file index's id 4406744086) "
        "and its companion log note with steps 383-389 (60 kB, id 3902241921); found by `find_string timing_s/values:`",
        "gpu": str(Path(__file__).resolve().parent / "devices" / "rtx4090.yaml"),
        "world": 1,
        "model": "Qwen2.5-0.5B",
        "step": "383-389 (medians)",
        "overrides": {
            **_DEC_2024,
            "algorithm.adv_estimator": "gae",
            "data.train_batch_size": 32,
            "data.max_prompt_length": 256,
            "data.max_response_length": 256,
            "actor_rollout_ref.rollout.n": 1,
            "actor_rollout_ref.rollout.tensor_model_parallel_size": 1,
            "actor_rollout_ref.rollout.gpu_memory_utilization": 0.35,
            "actor_rollout_ref.rollout.log_prob_micro_batch_size_per_gpu": 4,
            "actor_rollout_ref.ref.log_prob_micro_batch_size_per_gpu": 4,
            "actor_rollout_ref.ref.fsdp_config.param_offload": False,
            "actor_rollout_ref.actor.ppo_mini_batch_size": 32,
            "actor_rollout_ref.actor.ppo_micro_batch_size_per_gpu": 4,
            "actor_rollout_ref.actor.use_kl_loss": False,
            "critic.ppo_mini_batch_size": 32,
            "critic.ppo_micro_batch_size_per_gpu": 8,
            "critic.forward_micro_batch_size_per_gpu": 8,
            "critic.model.enable_gradient_checkpointing": True,
        },
        "prompt_tokens": 143.951,
        "response_tokens": 34.973,
        "response_max": 37,
        "published": {"gen": 1.962, "ref": 0.500, "values": 0.221, "update_critic": 1.213, "update_actor": 1.671},
        "gen_includes": ("update_weights", "old_log_prob"),
    },
    {
        # GRPO, the first run here without a critic. A benchmark report committed as Markdown ("veRL Benchmark Report:
        # GRPO + LLaMA3.2-1B on GSM8K"): its launch command (verl's examples/grpo_trainer template with Llama-3.2-1B-
        # Instruct) and wandb's console run summary of the last step, 105 of 105 (lr decayed to 0; the sparklines show
        # no trend in the phase timers after the first steps). ONE steady step, not a median: the report prints no
        # other step's values. verl of mid 2025 (timing_s/generate_sequences, reshard and start_profile keys, no
        # update_weights key: the weight sync is timed inside `gen` as `reshard`), so today's defaults of that time
        # as in the 2-node run above (eager vLLM V1 engine, chunked prefill). GPU: the report states "GPU H100 × 8";
        # 52.7 GB reserved fits it and `perf/mfu/actor` 0.065 cannot tell H100 from H200 (both 989 TFLOP/s in verl's
        # table). Less sure than it reads: the same author's Qwen2.5-7B report, also headed "H100 × 8", reserves
        # 109.5 GB, more than an H100 holds (an H200 would); the benchmark also prints this run on the H200 preset.
        # The model is given as its config.json (benchmarks/models/), as a user would pass a model with no preset.
        "name": "h100-grpo-llama3.2-1b",
        "source": "a veRL benchmark report committed to GitHub as Markdown (17.9 kB; the file index's id 37843108617; "
        "wandb run haoyugao-google/verl_grpo_example_gsm8k/w73j5mdv); found by `search code` for verl GRPO reports",
        "gpu": "H100",
        "world": 8,
        "model": str(Path(__file__).resolve().parent / "models" / "Llama-3.2-1B-Instruct.json"),
        "step": "105 (the last; one step)",
        "vllm": "0.8.5",
        "overrides": {
            **_GRPO_GSM8K_EXAMPLE,
            "actor_rollout_ref.rollout.tensor_model_parallel_size": 2,
            "actor_rollout_ref.rollout.log_prob_micro_batch_size_per_gpu": 4,
            "actor_rollout_ref.ref.log_prob_micro_batch_size_per_gpu": 4,
        },
        "prompt_tokens": 106.774,
        "response_tokens": 183.242,
        "response_max": 1024,
        "published": {"gen": 21.701, "old_log_prob": 7.864, "ref": 13.008, "update_actor": 27.339},
        "gen_includes": ("update_weights",),
    },
    # added 2026-12-03 with the constants unchanged (found by fetching verl's repository with its PR branches and
    # listing every file ever committed: find_string does not index logs)
    _async_reward_h20(
        "h20x8-grpo-qwen2-7b-async-reward-baseline",
        "Qwen2-7B",
        93.586,
        162.462,
        1024.0,
        {"gen": 30.982, "old_log_prob": 23.563, "ref": 22.025, "update_actor": 139.038},
        "q7b_fsdp_base",
    ),
    _async_reward_h20(
        "h20x8-grpo-qwen2.5-3b-async-reward-baseline",
        "Qwen2.5-3B",
        103.586,
        269.386,
        946.0,
        {"gen": 29.356, "old_log_prob": 20.907, "ref": 23.394, "update_actor": 107.873},
        "q3b_fsdp_base",
    ),
    # the run's full wandb config dump (EXP-18/metrics/...config.json at 8a17dab) printed every key; 48 of its 50 steps
    # are stored (the file ends at step 48)
    _compression_fork_h200(
        "h200x4-grpo-qwen2.5-1.5b-dense-36k",
        "7c4c10c84b9f1712a828331ea05162e9cbb5790b/research/runs/EXP-18/metrics/curvematch_dense_ref_50step.jsonl",
        36864,
        103.863,
        198.761,
        789.5,
        {"gen": 9.9015, "old_log_prob": 5.3120, "update_actor": 7.6126},
    ),
    # 25 steps (the last also validates and checkpoints: left out); its token budget is not printed for this run but
    # taken from the next experiment's resolved parameters (EXP-17/resolved_params.txt, the same launcher a day
    # later, compared against this run as its baseline); its 66.6 GB allocated against the 36k run's 40.7 fits it
    _compression_fork_h200(
        "h200x4-grpo-qwen2.5-1.5b-dense-98k",
        "0eb08665d44e44a9f164e601dafc4e3d215e57cb/research/runs/EXP-17/baseline_EXP16_dense/metrics/train.jsonl",
        98304,
        104.032,
        223.484,
        842.0,
        {"gen": 7.8336, "old_log_prob": 3.8746, "update_actor": 5.8877},
    ),
]
"""Published runs gathered to test the cost model on runs it never saw: no constant was set, and no default
changed, while looking at them (the constants were frozen on RUNS first). Same fields as RUNS; a run's timings
may be medians over several steady steps (its `step` says which)."""


THIRD_FROZEN_REV = "023bf29"
"""The revision whose cost model the third round of runs (THIRD_RUNS) is predicted with, committed before any of them
was looked at: the last model change (the critic's own N, terms.critic_params) is in it. No constant, default or term
of the model changed after it; a change would need a fourth round to test."""

MODELS = Path(__file__).resolve().parent / "models"
DEVICES_DIR = Path(__file__).resolve().parent / "devices"

TERRENSE = "https://github.com/terrense/qwen3-8b-grpo-dapo-lab/blob/"

_TERRENSE_H20_GRPO = {
    # the launcher of every arm (scripts/training/run_r1_grpo_baseline.sh at b013f88) and the overrides the first arm
    # printed (analysis/R1_audit.json "launch_overrides") agree on all of these; verl of September 2026 (commit
    # 1252cc7): agent-loop vLLM server rollout, `update_weights` timed apart from `gen`. Rollout keys not overridden
    # keep verl's defaults (max_num_seqs is 256 or 1024 depending on the exact verl commit: either exceeds the 64
    # sequences an engine runs here)
    "algorithm.adv_estimator": "grpo",
    "algorithm.use_kl_in_reward": False,
    "data.train_batch_size": 16,
    "data.max_prompt_length": 2048,
    "data.max_response_length": 8192,
    "actor_rollout_ref.rollout.name": "vllm",
    "actor_rollout_ref.rollout.n": 8,
    "actor_rollout_ref.rollout.tensor_model_parallel_size": 2,
    "actor_rollout_ref.rollout.gpu_memory_utilization": 0.6,
    "actor_rollout_ref.rollout.log_prob_use_dynamic_bsz": True,
    "actor_rollout_ref.rollout.log_prob_max_token_len_per_gpu": 32768,
    "actor_rollout_ref.ref.log_prob_use_dynamic_bsz": True,
    "actor_rollout_ref.ref.log_prob_max_token_len_per_gpu": 32768,
    "actor_rollout_ref.ref.fsdp_config.param_offload": True,
    "actor_rollout_ref.actor.ppo_mini_batch_size": 8,
    "actor_rollout_ref.actor.ppo_epochs": 1,
    "actor_rollout_ref.actor.use_dynamic_bsz": True,
    "actor_rollout_ref.actor.ppo_max_token_len_per_gpu": 32768,
    "actor_rollout_ref.actor.use_kl_loss": True,
    "actor_rollout_ref.actor.kl_loss_coef": 0.001,
    "actor_rollout_ref.actor.kl_loss_type": "low_var_kl",
    "actor_rollout_ref.actor.fsdp_config.param_offload": False,
    "actor_rollout_ref.actor.fsdp_config.optimizer_offload": False,
    "actor_rollout_ref.model.use_remove_padding": True,
    "actor_rollout_ref.model.enable_gradient_checkpointing": True,
}


def _terrense_h20(
    name: str,
    run: str,
    commit: str,
    prompt: float,
    response: float,
    response_max: float,
    published: dict[str, float],
    step: str = "2-19 without 10 (medians of 17 steps)",
) -> dict[str, Any]:
    """GRPO-family arms of an instrumented Qwen3-8B lab (terrense/qwen3-8b-grpo-dapo-lab, September 2026): DAPO-Math-17k,
    thinking off, 16 prompts × 8 samples per update, 8192-token cap, 20 updates each, validation at updates 10 and 20.
    The arms differ only in the loss (GRPO, GSPO's sequence ratio, Dr.GRPO's advantage): the same computation per
    phase, so they are one configuration measured four times, not four shapes. GPU: 4 × NVIDIA H20 96 GB on one node
    (the repository's docs/hardware_environment.md and its preflight output; `mfu_actor` 0.64-0.67 under verl's
    148 TFLOP/s H20 peak). vLLM 0.24 (the repository's version manifest). Per-step numbers are the run's
    metrics/training_metrics.csv, which the lab's recorder writes from verl's metrics (t_rollout, t_old_logprob,
    t_ref_logprob, t_actor_update are timing_s/gen, old_log_prob, ref, update_actor); timings are medians of the
    steps after the first without step 10 (validation), lengths the means of those steps' means, the mean prompt
    perf/total_num_tokens / 128 minus the mean response (the CSV has no prompt column), the longest response the
    median of the per-step maxima (at the 8192 cap on about a third of the steps). Transcribed by a search helper
    from the stored CSVs; the M20_grpo medians were recomputed here from the file and agree."""
    return {
        "name": name,
        "source": TERRENSE + f"{commit}/experiments/{run}/metrics/training_metrics.csv (config: {TERRENSE}"
        "b013f88488d4ab7ddf3cc7f85da24de4b71825f4/scripts/training/run_r1_grpo_baseline.sh)",
        "gpu": "H20",
        "world": 4,
        "model": str(MODELS / "Qwen3-8B.json"),
        "step": step,
        "vllm": "0.24",
        "verl": "0.9",  # commit 1252cc7 of September 2026, after 0.9.0 (2026-08-14)
        "overrides": dict(_TERRENSE_H20_GRPO),
        "prompt_tokens": prompt,
        "response_tokens": response,
        "response_max": response_max,
        "published": published,
        "gen_includes": (),
    }


CAMBRICON = "https://github.com/THisisPX/verl_cambricon/blob/8f0d48cc71c2b3d542d11eb58dfe74c98b2a04d0/"
AGENTSDK = "https://github.com/Codekiing/AgentSDK/blob/66d989b6581a328474aece48ac39d9a1f01e0eee/"

THIRD_RUNS: list[dict[str, Any]] = [
    _terrense_h20(
        "h20x4-grpo-qwen3-8b-8k-M20",
        "M20_grpo",
        "25ba57b4152d4f955c7dce8abbbda37dd101ac2b",
        156.449,
        1655.626,
        6226,
        {"gen": 38.353, "old_log_prob": 8.462, "ref": 8.242, "update_actor": 30.823},
    ),
    _terrense_h20(
        "h20x4-gspo-qwen3-8b-8k-M20",
        "M20_gspo",
        "25ba57b4152d4f955c7dce8abbbda37dd101ac2b",
        156.449,
        1668.755,
        6205,
        {"gen": 38.356, "old_log_prob": 8.424, "ref": 8.188, "update_actor": 30.291},
    ),
    _terrense_h20(
        "h20x4-grpo-qwen3-8b-8k-A",
        "A_grpo",
        "317ffd8665bdaef99c26dc0d1a02347d8ff64d0b",
        159.562,
        1884.283,
        6395.5,
        {"gen": 41.370, "old_log_prob": 9.148, "ref": 8.973, "update_actor": 33.399},
        step="2-18 without 10 (medians of 16 steps; step 19's row is cut off in the stored copy)",
    ),
    _terrense_h20(
        "h20x4-drgrpo-qwen3-8b-8k-E",
        "E_drgrpo_scaled",
        "56ec6025ae20c547c2c5fa21f202491d8bcdf4ab",
        160.294,
        1841.159,
        7695,
        {"gen": 46.371, "old_log_prob": 9.130, "ref": 8.946, "update_actor": 33.664},
    ),
    {
        # A personal verl fork used to benchmark verl against slime: commit 8f0d48c ("finish verl qwen3 4b fsdp sync
        # train", 2026-06-11) adds this run's TensorBoard event file (15 steps; removed again later) with its launch
        # script examples/grpo_trainer/run_qwen3_4b_fsdp_perf_test.sh, whose overrides these are (keys the script
        # leaves unset: the fork's defaults, as the helper read them). verl 0.9.0.dev: agent-loop vLLM server rollout,
        # `update_weights` timed apart from `gen`; the vLLM version is not recorded (V1 in any case). GPU: "8x A100
        # 40GB" in the script's header and the fork's PERF_TEST_README; perf/mfu/actor 0.12-0.19 fits verl's 312
        # TFLOP/s peak (an H100 would read ~0.04), and 32.0 GB reserved fits 40 GB. A 40 GB card: a datasheet device
        # file (benchmarks/devices/a100-40gb.yaml). The data are broken in a way that leaves the timings real: every
        # prompt is the chat template alone (8 tokens) and every score -1, so the model free-generates ~500 tokens on
        # average while one response of the 128 often runs to the 8192 cap, and generation is bimodal (~58 s on steps
        # whose longest response is 8192, 14-36 s otherwise). Timings: medians of steps 2-14 (step 15 validates and
        # checkpoints); lengths the means of those steps' means; the longest response the median of the per-step maxima.
        "name": "a100-40gbx8-grpo-qwen3-4b-8k-emptyprompt",
        "source": CAMBRICON
        + "tensorboard_log/verl_perf_test/qwen3_4b_grpo_n16_resp8192/ (config: "
        + CAMBRICON
        + "examples/grpo_trainer/run_qwen3_4b_fsdp_perf_test.sh)",
        "gpu": str(DEVICES_DIR / "a100-40gb.yaml"),
        "world": 8,
        "model": str(MODELS / "Qwen3-4B.json"),
        "verl": "0.9.0.dev",
        "step": "2-14 (medians of 13 steps)",
        "overrides": {
            "algorithm.adv_estimator": "grpo",
            "algorithm.use_kl_in_reward": False,
            "data.train_batch_size": 8,
            "data.max_prompt_length": 1024,
            "data.max_response_length": 8192,
            "actor_rollout_ref.rollout.name": "vllm",
            "actor_rollout_ref.rollout.n": 16,
            "actor_rollout_ref.rollout.tensor_model_parallel_size": 2,
            "actor_rollout_ref.rollout.gpu_memory_utilization": 0.45,
            "actor_rollout_ref.rollout.enable_chunked_prefill": False,
            "actor_rollout_ref.rollout.enforce_eager": False,
            "actor_rollout_ref.rollout.max_num_batched_tokens": 8192,
            "actor_rollout_ref.rollout.max_num_seqs": 1024,
            "actor_rollout_ref.rollout.log_prob_micro_batch_size_per_gpu": 1,
            "actor_rollout_ref.rollout.log_prob_use_dynamic_bsz": True,
            "actor_rollout_ref.rollout.log_prob_max_token_len_per_gpu": 12000,
            "actor_rollout_ref.ref.log_prob_micro_batch_size_per_gpu": 1,
            "actor_rollout_ref.ref.log_prob_use_dynamic_bsz": True,
            "actor_rollout_ref.ref.log_prob_max_token_len_per_gpu": 12000,
            "actor_rollout_ref.ref.fsdp_config.param_offload": True,
            "actor_rollout_ref.actor.strategy": "fsdp",
            "actor_rollout_ref.actor.ppo_mini_batch_size": 8,
            "actor_rollout_ref.actor.ppo_micro_batch_size_per_gpu": 1,
            "actor_rollout_ref.actor.use_dynamic_bsz": True,
            "actor_rollout_ref.actor.ppo_max_token_len_per_gpu": 12000,
            "actor_rollout_ref.actor.use_kl_loss": True,
            "actor_rollout_ref.actor.kl_loss_coef": 0.001,
            "actor_rollout_ref.actor.kl_loss_type": "low_var_kl",
            "actor_rollout_ref.actor.fsdp_config.param_offload": False,
            "actor_rollout_ref.actor.fsdp_config.optimizer_offload": False,
            "actor_rollout_ref.model.use_remove_padding": True,
            "actor_rollout_ref.model.enable_gradient_checkpointing": True,
        },
        "prompt_tokens": 8.0,
        "response_tokens": 498.370,
        "response_max": 5132,
        "published": {"gen": 36.333, "old_log_prob": 1.362, "ref": 1.229, "update_actor": 4.723},
        "gen_includes": (),
    },
    {
        # An agent-SDK project's GSM8K round (single commit 66d989b, 2026-06-02): the console log of run_1780283875 (the
        # launch command with every override, the printed config, 128 `step:N - ...` lines). Plain verl main_ppo GRPO
        # (single-turn agent loop; a rule reward), Qwen2.5-0.5B-Instruct, 1 node × 4 GPUs, no reference pass (no KL).
        # GPU: the repository's setup notes say 4x A100-SXM4-80GB, some run scripts' headers 4x A800-SXM4-80GB (the
        # same compute and memory, slower NVLink); verl's memory log prints 79.25 GB per device. Versions: its
        # requirements file "verified: torch 2.10.0+cu128, vllm 0.19.1, verl 0.7.1". Tiny batches (8 prompts × 8), so
        # fixed overheads dominate every phase (perf/mfu/actor ~0.02). Timings: medians of steps 2-127 without the
        # validation steps (every 10th): 114 steps; lengths the means of those steps' means.
        "name": "a100x4-grpo-qwen2.5-0.5b-gsm8k-b8n8",
        "source": AGENTSDK + "skill-bank/packages/task-packages/gsm8k_qwen0.5b_round2/docs/training_log.txt",
        "gpu": "A100",
        "world": 4,
        "model": "Qwen2.5-0.5B",
        "step": "2-127 without every 10th (medians of 114 steps)",
        "vllm": "0.19.1",
        "verl": "0.7.1",
        "overrides": {
            "algorithm.adv_estimator": "grpo",
            "algorithm.use_kl_in_reward": False,
            "data.train_batch_size": 8,
            "data.max_prompt_length": 1024,
            "data.max_response_length": 1536,
            "actor_rollout_ref.rollout.name": "vllm",
            "actor_rollout_ref.rollout.n": 8,
            "actor_rollout_ref.rollout.tensor_model_parallel_size": 1,
            "actor_rollout_ref.rollout.gpu_memory_utilization": 0.25,
            "actor_rollout_ref.rollout.enable_chunked_prefill": True,
            "actor_rollout_ref.rollout.enforce_eager": False,
            "actor_rollout_ref.rollout.max_num_batched_tokens": 8192,
            "actor_rollout_ref.rollout.max_num_seqs": 1024,
            "actor_rollout_ref.rollout.log_prob_use_dynamic_bsz": True,
            "actor_rollout_ref.rollout.log_prob_max_token_len_per_gpu": 16384,
            "actor_rollout_ref.actor.strategy": "fsdp",
            "actor_rollout_ref.actor.ppo_mini_batch_size": 8,
            "actor_rollout_ref.actor.use_dynamic_bsz": True,
            "actor_rollout_ref.actor.ppo_max_token_len_per_gpu": 16384,
            "actor_rollout_ref.actor.use_kl_loss": False,
            "actor_rollout_ref.actor.entropy_coeff": 0.001,
            "actor_rollout_ref.actor.fsdp_config.param_offload": False,
            "actor_rollout_ref.actor.fsdp_config.optimizer_offload": False,
            "actor_rollout_ref.model.use_remove_padding": True,
            "actor_rollout_ref.model.enable_gradient_checkpointing": True,
        },
        "prompt_tokens": 88.042,
        "response_tokens": 315.522,
        "response_max": 940.5,
        "published": {"gen": 3.304, "old_log_prob": 1.185, "update_actor": 3.359},
        "gen_includes": (),
    },
    {
        # The same repository and commit: the event file tensorboard_log/verl_grpo_gsm8k/qwen2.5-0.5b-instruct_fsdp/
        # events.out.tfevents.1780314953... (120 steps) and its launch script run_grpo_gsm8k_v1_0.5b.sh (the v2 script
        # differs only in kl_loss_coef), whose header says "Hardware: 4x A800-SXM4-80GB". No printed config: keys it
        # leaves unset are verl 0.7's defaults. GRPO on GSM8K, Qwen2.5-0.5B-Instruct, KL loss (reference pass), fixed
        # micro-batches. Timings: medians of steps 2-119 without the validation steps (every 5th): 95 steps.
        "name": "a800x4-grpo-qwen2.5-0.5b-gsm8k-b32n8",
        "source": AGENTSDK
        + "tensorboard_log/verl_grpo_gsm8k/qwen2.5-0.5b-instruct_fsdp/ (config: "
        + AGENTSDK
        + "run_grpo_gsm8k_v1_0.5b.sh)",
        "gpu": "A800",
        "world": 4,
        "model": "Qwen2.5-0.5B",
        "step": "2-119 without every 5th (medians of 95 steps)",
        "vllm": "0.19.1",
        "verl": "0.7.1",
        "overrides": {
            "algorithm.adv_estimator": "grpo",
            "algorithm.use_kl_in_reward": False,
            "data.train_batch_size": 32,
            "data.max_prompt_length": 512,
            "data.max_response_length": 512,
            "actor_rollout_ref.rollout.name": "vllm",
            "actor_rollout_ref.rollout.n": 8,
            "actor_rollout_ref.rollout.tensor_model_parallel_size": 1,
            "actor_rollout_ref.rollout.gpu_memory_utilization": 0.5,
            "actor_rollout_ref.rollout.log_prob_micro_batch_size_per_gpu": 2,
            "actor_rollout_ref.ref.log_prob_micro_batch_size_per_gpu": 2,
            "actor_rollout_ref.actor.strategy": "fsdp",
            "actor_rollout_ref.actor.ppo_mini_batch_size": 16,
            "actor_rollout_ref.actor.ppo_micro_batch_size_per_gpu": 2,
            "actor_rollout_ref.actor.use_kl_loss": True,
            "actor_rollout_ref.actor.kl_loss_type": "low_var_kl",
        },
        "prompt_tokens": 86.329,
        "response_tokens": 282.598,
        "response_max": 512,
        "published": {"gen": 2.771, "old_log_prob": 2.551, "ref": 2.366, "update_actor": 9.208},
        "gen_includes": (),
    },
]
"""Runs gathered after THIRD_FROZEN_REV (2026-12-04, by two search helpers): seen by neither the constants nor the
two rounds' error analysis. Seven runs of four configurations: Qwen3-8B GRPO on 4 H20 with 1.7-1.9k-token responses
(one configuration, four loss arms), Qwen3-4B on 8 A100 40GB with an 8k cap, and two Qwen2.5-0.5B GRPO runs on 4
A100/A800 80GB."""


FOURTH_FROZEN_REV = "9314143"
"""The revision whose cost model the fourth round of runs (FOURTH_RUNS) is predicted with, committed before any of
them was looked at: the fixed cost per training call of verl 0.7+ (terms.ENGINE_WORKER_*) and the H20's GEMM rate
(hardware.H20_GEMM_EFFICIENCY), both set on the three rounds before, are in it."""

LEARNERAF = "https://github.com/Learneraf/ascend_npu_measure_verl/blob/a99f789660f5f16b6eabf403f753642d42fddff4/"

_LEARNERAF_A100_8B = {
    # run_qwen3_8b_a100.sh at a99f789 (the repository's first commit, 2026-06-23; its header: "GRPO | Qwen3-8B | veRL
    # 0.8.0 main_ppo_sync | 8xA100 80GB"): every key here is an explicit override of that script; GSM8K (verl's
    # preprocessing), the rest verl 0.8.0's defaults
    "algorithm.adv_estimator": "grpo",
    "algorithm.use_kl_in_reward": False,
    "data.train_batch_size": 256,
    "data.max_prompt_length": 512,
    "data.max_response_length": 1024,
    "actor_rollout_ref.model.use_remove_padding": True,
    "actor_rollout_ref.model.enable_gradient_checkpointing": True,
    "actor_rollout_ref.actor.strategy": "fsdp",
    "actor_rollout_ref.actor.ppo_mini_batch_size": 64,
    "actor_rollout_ref.actor.use_dynamic_bsz": False,
    "actor_rollout_ref.actor.ppo_micro_batch_size_per_gpu": 2,
    "actor_rollout_ref.actor.use_kl_loss": True,
    "actor_rollout_ref.actor.kl_loss_coef": 0.001,
    "actor_rollout_ref.actor.kl_loss_type": "low_var_kl",
    "actor_rollout_ref.actor.entropy_coeff": 0,
    "actor_rollout_ref.actor.use_torch_compile": False,
    "actor_rollout_ref.actor.fsdp_config.param_offload": False,
    "actor_rollout_ref.actor.fsdp_config.optimizer_offload": False,
    "actor_rollout_ref.rollout.name": "vllm",
    "actor_rollout_ref.rollout.tensor_model_parallel_size": 1,
    "actor_rollout_ref.rollout.n": 4,
    "actor_rollout_ref.rollout.gpu_memory_utilization": 0.4,
    "actor_rollout_ref.rollout.log_prob_micro_batch_size_per_gpu": 4,
    "actor_rollout_ref.ref.fsdp_config.param_offload": False,
    "actor_rollout_ref.ref.log_prob_micro_batch_size_per_gpu": 4,
    "trainer.balance_batch": True,
}


def _learneraf_a100(
    name: str,
    changes: dict[str, Any],
    response: float,
    published: dict[str, float],
    step: str = "2-20 (means: the study prints each arm's mean and std, not its steps)",
    table: str = "",
) -> dict[str, Any]:
    """A system-performance study of verl GRPO (Learneraf/ascend_npu_measure_verl, results_tables_a100.md as first
    committed in a99f789 and unchanged since; later commits port the study to Ascend NPUs): Qwen3-8B on GSM8K, 8 ×
    A100-SXM4-80GB (the report's header and setup notes; `perf/mfu/actor` 0.27-0.29 against verl's 312 TFLOP/s
    peak), verl 0.8.0's `main_ppo_sync` (agent-loop vLLM server rollout, `update_weights` timed apart from `gen`),
    vLLM 0.20.2, both pinned by the study's setup script. The tables were filled from verl's console log by the
    study's script. Its ablation arms change one key each (ablation/*.sh), run 20 steps, and publish only `gen` and
    `update_actor`, as means over steps 2-20. Lengths: the report prints the baseline's per-step mean response;
    neither run prints its mean prompt, which is derived from verl's `perf/throughput` (all tokens, prompt and
    response, per GPU per second of the step): ~105 tokens per prompt on the baseline's steps (101.6-107.7), and
    104.6 from the 256-token arm whose every response is at the cap, which checks the derivation; an arm's mean
    response is derived the same way from its mean throughput and step time with that prompt (±1%). The longest
    response is the cap wherever the report's clip ratio is above zero (every step of the baseline: 43-68% of
    responses at the cap), and taken as the cap on the arms with the baseline's cap and ~88% of it on average."""
    return {
        "name": name,
        "source": LEARNERAF
        + f"results_tables_a100.md ({table}; config: {LEARNERAF}run_qwen3_8b_a100.sh and ablation/*.sh; versions: "
        + f"{LEARNERAF}other_scripts/setup.sh)",
        "gpu": "A100",
        "world": 8,
        "model": str(MODELS / "Qwen3-8B.json"),
        "step": step,
        "vllm": "0.20.2",
        "verl": "0.8.0",
        "overrides": {**_LEARNERAF_A100_8B, **changes},
        "prompt_tokens": 104.9,
        "response_tokens": response,
        "response_max": float(changes.get("data.max_response_length", 1024)),
        "published": published,
        "gen_includes": (),
    }


VERLDATA = "https://github.com/diqiuzhuanzhuan/verldata/blob/42e31cd07ea08b66e709a74e9aed2bd740589c34/"

_VERLDATA_GPG_QWEN2_7B = {
    # The launch command the log echoes at its top (`++ python3 -m verl.trainer.main_ppo algorithm.adv_estimator=gpg
    # ...`), and for keys it leaves unset the config the log prints; verl's fork of June 2025 (~0.4: SPMD vLLM rollout,
    # the weight sync timed inside `gen` as `reshard`, FSDP1). GSM8K + MATH, a rule reward, no reference pass and no
    # critic. The GPG loss (`use_gpg_loss` then) is verl 0.9's `policy_loss.loss_mode: gpg`: the same computation.
    "algorithm.adv_estimator": "gpg",
    "algorithm.use_kl_in_reward": False,
    "data.train_batch_size": 1024,
    "data.max_prompt_length": 1024,
    "data.max_response_length": 1024,
    "actor_rollout_ref.model.use_remove_padding": True,
    "actor_rollout_ref.model.enable_gradient_checkpointing": True,
    "actor_rollout_ref.actor.strategy": "fsdp",
    "actor_rollout_ref.actor.ppo_mini_batch_size": 256,
    "actor_rollout_ref.actor.ppo_micro_batch_size_per_gpu": 16,
    "actor_rollout_ref.actor.use_dynamic_bsz": False,
    "actor_rollout_ref.actor.ppo_epochs": 1,
    "actor_rollout_ref.actor.use_kl_loss": False,
    "actor_rollout_ref.actor.policy_loss.loss_mode": "gpg",
    "actor_rollout_ref.actor.entropy_coeff": 0,
    "actor_rollout_ref.actor.fsdp_config.param_offload": False,
    "actor_rollout_ref.actor.fsdp_config.optimizer_offload": False,
    "actor_rollout_ref.rollout.name": "vllm",
    "actor_rollout_ref.rollout.n": 5,
    "actor_rollout_ref.rollout.tensor_model_parallel_size": 2,
    "actor_rollout_ref.rollout.gpu_memory_utilization": 0.6,
    "actor_rollout_ref.rollout.log_prob_micro_batch_size_per_gpu": 16,
    "actor_rollout_ref.rollout.log_prob_use_dynamic_bsz": False,
    "actor_rollout_ref.rollout.enforce_eager": True,
    "actor_rollout_ref.rollout.free_cache_engine": True,
    "actor_rollout_ref.rollout.enable_chunked_prefill": True,
    "actor_rollout_ref.rollout.max_num_batched_tokens": 8192,
    "actor_rollout_ref.rollout.max_num_seqs": 1024,
}


def _verldata_gpg(name: str, step: str, prompt: float, response: float, published: dict[str, float]) -> dict[str, Any]:
    """verl's GPG baseline log, linked from verl's docs/algo/baseline.md (Qwen2-7B-Instruct, GPG): repository
    diqiuzhuanzhuan/verldata at 42e31cd (2025-06-19, "add gpg running logs"), run_logs/qwen2-7b_math.log, a run of
    2025-06-18 with 210 `step:N - ...` lines (every timing_s/*, lengths, perf/*). GPU: not named; A100 or A800 80GB,
    fairly sure: 6 × verl's N × perf/total_num_tokens / update_actor / 8 / perf/mfu/actor gives a peak of 304-309
    TFLOP/s on every step (verl's 312 for A100/A800; an H100 would give 989, an H20 148), and the allocated memory
    fits an 80 GB card beside vLLM's 0.6 share. A800 rather than A100 is a guess (the Ray head's address is a China
    Telecom one); the two differ here only in NVLink rate. vLLM: the V1 engine, its version not printed (verl 0.4's
    pins of the time, 0.8-0.9: "0.8" here, which the model costs as any 0.6-0.13). The run's responses jump at step
    ~157 (mean 220 → 610 tokens, clip ratio 0.004 → 0.45) with the same config: two length regimes of one
    configuration, given as two entries. Validation steps (every 5th; checkpoints fall on them too) are left out;
    timings are medians, lengths the means of the steps' means, and the longest response the median of the per-step
    maxima (1024, the cap, in both windows). Transcribed by a search helper from the stored log, per step."""
    return {
        "name": name,
        "source": VERLDATA + "run_logs/qwen2-7b_math.log",
        "gpu": "A800",
        "world": 8,
        "model": "Qwen2-7B",
        "step": step,
        "vllm": "0.8",
        "verl": "0.4",
        "overrides": dict(_VERLDATA_GPG_QWEN2_7B),
        "prompt_tokens": prompt,
        "response_tokens": response,
        "response_max": 1024,
        "published": published,
        "gen_includes": ("update_weights",),
    }


_N = "actor_rollout_ref.rollout.n"
_BATCH, _MINI = "data.train_batch_size", "actor_rollout_ref.actor.ppo_mini_batch_size"
_CAP = "data.max_response_length"

FOURTH_RUNS: list[dict[str, Any]] = [
    # The baseline: per-step timings of 20 steps (表 1), medians of steps 2-19 without the validating 5, 10 and 15;
    # the mean response the mean of those steps' means (表 5), the prompt derived as the docstring says. `gen` is
    # printed in whole seconds on 19 of 20 steps (±1 s). Its reference pass takes 28.5 s where the old log-probs, with
    # the same micro-batch and no offload, take 15.5 s: as measured.
    _learneraf_a100(
        "a100x8-grpo-qwen3-8b-gsm8k-b256n4",
        {},
        885.4,
        {"gen": 23.0, "old_log_prob": 15.5, "ref": 28.5, "update_actor": 72.8},
        step="2-19 without 5, 10, 15 (medians of 15 steps)",
        table="表 1, 3, 5",
    ),
    *(
        _learneraf_a100(
            f"a100x8-grpo-qwen3-8b-gsm8k-{name}", changes, response, {"gen": gen, "update_actor": update}, table=table
        )
        for name, changes, response, gen, update, table in (
            # arm, its one changed key, mean response (derived), gen and update_actor (means of steps 2-20), table
            ("b256n1", {_N: 1}, 901.3, 15.2, 19.0, "表 7"),
            ("b256n2", {_N: 2}, 899.6, 17.8, 36.9, "表 7"),
            ("b256n8", {_N: 8}, 867.4, 49.1, 149.0, "表 7"),
            ("b256n16", {_N: 16}, 855.7, 98.4, 300.2, "表 7"),
            ("b64n4", {_BATCH: 64, _MINI: 16}, 904.6, 15.3, 19.0, "表 9"),
            ("b128n4", {_BATCH: 128, _MINI: 32}, 894.2, 17.8, 37.0, "表 9"),
            ("b512n4", {_BATCH: 512, _MINI: 128}, 885.0, 49.8, 149.2, "表 9"),
            ("b256n4-256cap", {_CAP: 256}, 255.5, 9.1, 51.1, "表 11"),
            ("b256n4-512cap", {_CAP: 512}, 508.6, 13.7, 59.2, "表 11"),
            ("b256n4-2kcap", {_CAP: 2048}, 1163.2, 41.3, 85.3, "表 11"),
        )
    ),
    # verl's GPG baseline: steps 2-155 without the validating multiples of 5 (123 steps). Its generation is bimodal at
    # a steady response length (55-60 s in steps 2-50, 113-118 and 141-155; 75-100 s in 61-111 and 121-136) while the
    # training phases stay flat; the log does not say why; the median is given.
    _verldata_gpg(
        "a800x8-gpg-qwen2-7b-gsm8k-math-1k",
        "2-155 without multiples of 5 (medians of 123 steps)",
        100.948,
        219.395,
        {"gen": 69.283, "old_log_prob": 30.785, "update_actor": 124.971},
    ),
    # the same run after its responses lengthened: steps 166-210 without multiples of 5 (36 steps)
    _verldata_gpg(
        "a800x8-gpg-qwen2-7b-gsm8k-math-1k-late",
        "166-210 without multiples of 5 (medians of 36 steps)",
        101.130,
        612.996,
        {"gen": 130.747, "old_log_prob": 50.499, "update_actor": 191.663},
    ),
]
"""The fourth round: gathered after FOURTH_FROZEN_REV by search helpers who were not shown the model. Two sources,
12 configurations. One study's baseline and its ten one-key ablations (rollout.n 1-16, batch 64-512, response caps
256-2048) of Qwen3-8B GRPO on 8 A100 80GB with verl 0.8 and vLLM 0.20, a GPU, model size and verl version no earlier
run had together, responses of 256-1,163 tokens: only the baseline publishes every phase, the ablations `gen` and
`update_actor`. And verl's own GPG baseline log: Qwen2-7B on 8 A100/A800 with verl 0.4, in two length regimes."""

FIFTH_FROZEN_REV = "a789d50"
"""The revision whose cost model the fifth round of runs (FIFTH_RUNS) is predicted with, committed before any of
them was looked at: vLLM 0.14+'s CPU/GPU overlap (rollout._overlap_cpu_with_gpu, c0e7761), set after the fourth
round, is in it; nothing in autotune/sim/ changed between c0e7761 and it."""

RTS = "https://github.com/aishukamal/rl-time-slicing/blob/c5b193b44beb50ca62cc62f3f9fdf5a22d73b99e/rl-elastic-scaling/"

_RTS_R1_DISTILL_CODE = {
    # code/m3/k8s-job-m3a2-colocated.yaml at c5b193b: the explicit overrides of its `python3 -m verl.trainer.main_ppo`
    # (data files, paths, logging and learning rate left out); the printed config agrees, and every key it leaves
    # unset is verl's default (the rollout's log-prob pass inherits the actor's dynamic batching and 32768 budget)
    "algorithm.adv_estimator": "grpo",
    "algorithm.use_kl_in_reward": False,
    "data.max_prompt_length": 2048,
    "data.max_response_length": 16384,
    "data.train_batch_size": 64,
    "actor_rollout_ref.hybrid_engine": True,
    "actor_rollout_ref.model.use_remove_padding": True,
    "actor_rollout_ref.model.enable_gradient_checkpointing": True,
    "actor_rollout_ref.actor.strategy": "fsdp",
    "actor_rollout_ref.actor.ppo_mini_batch_size": 64,
    "actor_rollout_ref.actor.ppo_micro_batch_size_per_gpu": 1,
    "actor_rollout_ref.actor.use_kl_loss": False,
    "actor_rollout_ref.actor.entropy_coeff": 0,
    "actor_rollout_ref.actor.loss_agg_mode": "token-mean",
    "actor_rollout_ref.actor.use_dynamic_bsz": True,
    "actor_rollout_ref.actor.ppo_max_token_len_per_gpu": 32768,
    "actor_rollout_ref.actor.fsdp_config.param_offload": False,
    "actor_rollout_ref.actor.fsdp_config.optimizer_offload": False,
    "actor_rollout_ref.ref.log_prob_use_dynamic_bsz": True,
    "actor_rollout_ref.ref.log_prob_max_token_len_per_gpu": 32768,
    "actor_rollout_ref.rollout.name": "vllm",
    "actor_rollout_ref.rollout.mode": "async",
    "actor_rollout_ref.rollout.n": 8,
    "actor_rollout_ref.rollout.calculate_log_probs": True,
    "actor_rollout_ref.rollout.gpu_memory_utilization": 0.6,
    "actor_rollout_ref.rollout.tensor_model_parallel_size": 1,
    "actor_rollout_ref.rollout.enable_chunked_prefill": True,
}


def _rts_h100(
    name: str, folder: str, job: str, batch: int, step: str, prompt: float, response: float, published: dict[str, float]
) -> dict[str, Any]:
    """The synchronous colocated baseline of an RL time-slicing study (aishukamal/rl-time-slicing, rl-elastic-scaling,
    "M3 RUN A", committed 2026-08-08 at c5b193b): GRPO of DeepSeek-R1-Distill-Qwen-1.5B on Eurus-2-RL code prompts
    (a code-execution reward), 8 samples per prompt, 16384-token cap, no KL, one optimizer step per training step.
    Stock verl at commit 983cb0f (`verl_commit` beside each log; pip reports verl-0.9.0.dev0) in hybrid-engine mode,
    the agent-loop vLLM server rollout (`update_weights` timed apart from `gen`), vLLM 0.20.2 (the pod's pip log).
    GPU: 2 × "NVIDIA H100 80GB HBM3" on one node, sure: nvidia-smi in experiment.log, the job's GKE node selector
    nvidia-h100-80gb, `perf/mfu/actor` 0.30-0.31 against verl's 989 TFLOP/s. The reward runs inside the agent loop as
    each response finishes, so `gen` holds its scoring of the last responses (no `timing_s/reward` is logged); `gen`
    is printed to ~2 s (the agent loop's polling). No step validates or checkpoints (test_freq = save_freq = -1).
    Timings are medians of the steps from step 3 on, lengths the means of the steps' means, the longest response the
    median of the per-step maxima (the 16384 cap on every step but one). Found by a search helper; the medians were
    recomputed here from train.log, and the log checked byte for byte against the commit."""
    return {
        "name": name,
        "source": RTS
        + f"results/m3/{folder}/train.log (config: {RTS}code/m3/{job}; versions: "
        + f"{RTS}results/m3/{folder}/experiment.log and verl_commit)",
        "gpu": "H100",
        "world": 2,
        "model": str(MODELS / "DeepSeek-R1-Distill-Qwen-1.5B.json"),
        "step": step,
        "vllm": "0.20.2",
        "verl": "0.9.0",  # verl-0.9.0.dev0 at commit 983cb0f (2026-07-25)
        "overrides": {
            **_RTS_R1_DISTILL_CODE,
            "data.train_batch_size": batch,
            "actor_rollout_ref.actor.ppo_mini_batch_size": batch,
        },
        "prompt_tokens": prompt,
        "response_tokens": response,
        "response_max": 16384.0,
        "published": published,
        "gen_includes": (),
    }


GKE = "https://github.com/esaaren/verl-on-gke/blob/928b868e20780d1786b6efa339e5de79680ad7a0/"

_GKE_B200_32B = {
    # README.md's launch command at 928b868 (the same in all four commits, 2026-03-02), its model-relevant keys; the
    # rest is verl's default (no KL loss, so no reference pass; remove-padding and checkpointing on; the rollout's
    # log-prob pass without dynamic batching, at the micro-batch given)
    "algorithm.adv_estimator": "grpo",
    "data.train_batch_size": 256,
    "data.max_prompt_length": 512,
    "data.max_response_length": 512,
    "actor_rollout_ref.actor.strategy": "fsdp2",
    "actor_rollout_ref.actor.ppo_mini_batch_size": 256,
    "actor_rollout_ref.actor.ppo_micro_batch_size_per_gpu": 64,
    "actor_rollout_ref.rollout.name": "vllm",
    "actor_rollout_ref.rollout.n": 8,
    "actor_rollout_ref.rollout.log_prob_micro_batch_size_per_gpu": 8,
    "actor_rollout_ref.rollout.tensor_model_parallel_size": 8,
    "actor_rollout_ref.rollout.gpu_memory_utilization": 0.6,
    "actor_rollout_ref.ref.log_prob_micro_batch_size_per_gpu": 4,
}

FIFTH_RUNS: list[dict[str, Any]] = [
    # 64 prompts × 8 = 512 responses per step; 17 steps before the job's planned 9000 s timeout
    _rts_h100(
        "h100x2-grpo-r1distill-qwen1.5b-code-16k-b64n8",
        "colocated-b64",
        "k8s-job-m3a2-colocated.yaml",
        64,
        "3-17 (medians of 15 steps)",
        465.0,
        11505.6,
        {"gen": 333.128, "old_log_prob": 41.246, "update_actor": 145.763},
    ),
    # the study's batch-8 arm, otherwise the same command: 64 responses per step, 69 steps; its `gen` ranges 55-159 s
    # (quartiles 73 and 123 s), hardly with the step's mean length or share at the cap (correlations 0.21, 0.04)
    _rts_h100(
        "h100x2-grpo-r1distill-qwen1.5b-code-16k-b8n8",
        "colocated",
        "k8s-job-m3a-colocated.yaml",
        8,
        "3-69 (medians of 67 steps)",
        459.7,
        11330.2,
        {"gen": 94.615, "old_log_prob": 5.132, "update_actor": 18.114},
    ),
    # verl on GKE: Qwen2.5-32B GRPO on 2 nodes × 8 B200 (FSDP2, rollout TP 8), GSM8K with 512-token caps; the run's
    # every `step:` line as the guide's parser wrote them (results/parsed_metrics.csv; the console log itself is not
    # committed). GPU: B200, sure: the guide's .env (GPU_TYPE nvidia-b200, MACHINE_TYPE a4-highgpu-8g) and the worker
    # group's GKE node selector nvidia-b200; the CSV's allocated peak, 172.9 GB, is more than an H200 has, and
    # `perf/mfu/actor` 0.31 is against verl's 2250 TFLOP/s B200 peak. verl: main installed editable into the image
    # verlai/verl:vllm011.latest (vLLM 0.11, its patch not recorded), dated by the CSV's keys to 2026-01-17..27
    # (`timing_s/agent_loop/num_preempted` exists, `timing_s/update_weights` does not yet): between 0.7.0 and 0.7.1,
    # so `gen` holds the weight sync (the agent loop wakes and puts vLLM to sleep inside it) and the rule reward,
    # scored per sample inside the agent loop (`timing_s/reward` ~0). Steps 2-57 without the validating and
    # checkpointing 10, 20, 30, 40, 50; timings are medians, lengths the means of the steps' means (responses drift
    # 151-262 tokens over the run), the longest response the median of the per-step maxima (the 512 cap on 41 of 51
    # steps). Found by a search helper; the medians were recomputed here from the CSV, checked against the commit.
    {
        "name": "b200x16-grpo-qwen2.5-32b-gsm8k-2nodes",
        "source": GKE
        + "results/parsed_metrics.csv (config: "
        + GKE
        + "README.md; cluster: "
        + GKE
        + ".env and "
        + GKE
        + "k8s/ray_cluster_setup.yaml)",
        "gpu": "B200",
        "world": 16,
        "model": "Qwen2.5-32B",
        "step": "2-57 without 10, 20, 30, 40, 50 (medians of 51 steps)",
        "vllm": "0.11",
        "verl": "0.7.0",  # main of 2026-01-17..27, after 0.7.0
        "overrides": dict(_GKE_B200_32B),
        "prompt_tokens": 103.51,
        "response_tokens": 195.34,
        "response_max": 512.0,
        "published": {"gen": 26.585, "old_log_prob": 6.486, "update_actor": 10.778},
        "gen_includes": ("update_weights",),
    },
]
"""The fifth round: gathered after FIFTH_FROZEN_REV by search helpers who were not shown the model. Two sources,
three configurations: GRPO of a 1.5B model on 2 H100 with verl 0.9 and vLLM 0.20 and responses averaging 11.3-11.5k
tokens (16k cap), the longest responses any round has, at 512 and 64 responses per step; and GRPO of a 32B model on
2 nodes × 8 B200 with verl 0.7 and vLLM 0.11, short responses (195 tokens): the first model above 8B, the first
B200 and the second multi-node run of any round."""

SIXTH_FROZEN_REV = "2aeb3d9"
"""The revision whose cost model the sixth round of runs (SIXTH_RUNS) is predicted with, committed before any of them
was looked at: the tail of vLLM 0.14+'s overlap (d820d06) and verl 0.7.1+'s CUDA IPC weight sync (61cc3d2), both set
after the fifth round, are in it."""

NOTEBOOK = "https://github.com/verl-project/verl/blob/e08c428c6/examples/ppo_trainer/verl_getting_started.ipynb"

_NOTEBOOK_05B_1GPU = {
    # the config the run printed at its start (cell 15's output; the cell's command was edited after the run and says
    # micro-batches of 1): verl of 2025-01-10 (0.1, before remove-padding), the first round's 1-GPU 0.5B PPO command
    # but for the lengths and the micro-batches, and a reference kept on the GPU
    **_PPO_05B_1GPU,
    "data.max_prompt_length": 512,
    "data.max_response_length": 256,
    "actor_rollout_ref.rollout.log_prob_micro_batch_size_per_gpu": 1,
    "actor_rollout_ref.ref.fsdp_config.param_offload": False,
    "actor_rollout_ref.actor.ppo_micro_batch_size_per_gpu": 4,
    "critic.ppo_micro_batch_size_per_gpu": 4,
    "critic.forward_micro_batch_size_per_gpu": 4,
}


def _notebook_l40s(name: str, step: str, prompt: float, response: float, published: dict[str, float]) -> dict[str, Any]:
    """verl's own getting-started notebook (examples/ppo_trainer/verl_getting_started.ipynb, added 2025-01-10, its
    outputs unchanged in every revision until the notebook was removed), run on Lightning Studio on 2025-01-10: PPO of
    Qwen2.5-0.5B-Instruct on GSM8K on 1 GPU, its cell output keeping the printed config and 61 `step:N` lines in verl
    0.1's format (`timing/gen`, ...). vLLM 0.5.4 (the install cell: "vllm<=0.6.3 ... (0.5.4)"), torch 2.4.0. In this
    verl `gen` holds the weight sync and the old log-probs (micro-batch 1), as in the first round's verl-data runs.
    GPU: not named; an L40S, fairly sure: the run's host is an AWS VM (ip-10-... host name, NCCL's aws-ofi-nccl
    plugin), verl's vLLM 0.5.4 worker sizes the KV cache as 0.4 × the free memory, and the log's 15.66 GB cache
    (allocated 5.94 → 21.61 GB around "init cache") means ~39.2 GB free beside 6.07 GB reserved: a ~48 GB device,
    which on AWS is the L40S (g6e; A10G and L4 have 24 GB, A100 40 or 80 GB, H100 80 GB); the notebook's prose says
    "free L4", which the memory rules out for this run. Step 0 warms up; steps 9, 19, ... validate and checkpoint and
    the step after each generates ~1 s slower, so both are left out. Responses drift from ~234 to ~150 tokens over the
    run, so two windows (one configuration). Found by a search helper (round 6); the medians were recomputed here from
    the notebook in verl's history."""
    return {
        "name": name,
        "source": NOTEBOOK + " (cell 15's output)",
        "gpu": "L40S",
        "world": 1,
        "model": "Qwen2.5-0.5B",
        "step": step,
        "vllm": "0.5.4",
        "verl": "0.5",  # verl 0.1 of 2025-01-10: "0.5" stands for "before 0.7"
        "env": {"VLLM_USE_V1": "0"},
        "overrides": dict(_NOTEBOOK_05B_1GPU),
        "prompt_tokens": prompt,
        "response_tokens": response,
        "response_max": 256.0,  # every step's response_length/max is the 256 cap
        "published": published,
        "gen_includes": ("update_weights", "old_log_prob"),
    }


SIXTH_RUNS: list[dict[str, Any]] = [
    # medians of steps 1-8 and 11-18 (16 steps); lengths the means of their means (responses 220-237)
    _notebook_l40s(
        "l40s-ppo-qwen2.5-0.5b-1gpu-notebook",
        "1-8 and 11-18 (medians of 16 steps)",
        103.746,
        230.212,
        {"gen": 24.133, "ref": 3.414, "values": 3.195, "update_critic": 9.148, "update_actor": 10.866},
    ),
    # the same run late: steps 51-58 (8 steps), responses 153-171
    _notebook_l40s(
        "l40s-ppo-qwen2.5-0.5b-1gpu-notebook-late",
        "51-58 (medians of 8 steps)",
        103.531,
        163.246,
        {"gen": 21.797, "ref": 3.421, "values": 3.194, "update_critic": 9.075, "update_actor": 10.782},
    ),
]
"""The sixth round: gathered after SIXTH_FROZEN_REV by search helpers who were not shown the model (three helpers:
executed notebooks and blog walk-throughs, performance-comparison threads, efficiency papers' artefacts). One source:
verl's own getting-started notebook, PPO of a 0.5B model on 1 L40S with verl 0.1 and vLLM 0.5.4, one configuration
in two length windows."""

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

SYNC_MEASURED: dict[str, float] = {
    # Qwen2.5-0.5B on 4 A100, verl 0.7.1: `timing_s/update_weights` of the console log's 128 step lines (AGENTSDK),
    # the median of steps 2-127 without every 10th (114 steps; 1.43-6.48 s)
    "a100x4-grpo-qwen2.5-0.5b-gsm8k-b8n8": 2.337,
    # DeepSeek-R1-Distill-Qwen-1.5B on 2 H100, verl 0.9: train.log's `timing_s/update_weights` (RTS), medians of the
    # steps from 3 on (15 steps, 1.86-1.95 s; 67 steps, 1.82-1.93 s)
    "h100x2-grpo-r1distill-qwen1.5b-code-16k-b64n8": 1.91,
    "h100x2-grpo-r1distill-qwen1.5b-code-16k-b8n8": 1.87,
    # Qwen3-8B on 4 H20 at rollout TP 2, verl 0.9: the CSV's t_weight_sync (TERRENSE, M20_grpo at 25ba57b), the
    # median of steps 2-19 without 10 (17 steps, 3.82-4.20 s)
    "h20x4-grpo-qwen3-8b-8k-M20": 3.910,
    # Qwen3-8B on 8 A100 at rollout TP 1, verl 0.8: 表 1's update_weights(s) column (LEARNERAF), the median of steps
    # 2-19 without 5, 10 and 15 (15 steps, 4.8-5.7 s)
    "a100x8-grpo-qwen3-8b-gsm8k-b256n4": 5.0,
}
"""Weight-sync seconds (`timing_s/update_weights`) of the published runs of verl 0.7.1+ that time it apart from
`gen`, read from the same files and steps as their other phases (added on 2026-12-04, after all five rounds). They
set rollout.SYNC_IPC_FIXED and SYNC_IPC_BYTES_PER_S; sim_published.py prints the model against them (in sample)."""


for _run in RUNS + NEW_RUNS:
    # Every run of the first two rounds but the H200 fork's is of verl 0.1-0.5 (December 2024 to July 2025): their logs
    # time the weight sync inside `gen`, which verl stopped doing before 0.7. "0.5" stands for "before 0.7", which is
    # all the model asks (terms.ENGINE_WORKER_*). Those whose vLLM is not recorded ran one of verl's pins of that time
    # (0.6-0.8, after the pre-0.6 forks the logs would name): "0.8" stands for "0.6 to 0.13", which the model costs
    # alike (rollout.STEP_BASE, no async scheduling).
    _run.setdefault("verl", "0.5")
    if _run["verl"] == "0.5":
        _run.setdefault("vllm", "0.8")

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

CELLO1 = "https://github.com/PraMamba/cell-o1/blob/bb8ad6f27fc94f7fce2929d2b6c52bf6d7bc5cbc/src/verl/wandb/"
DISCO = "https://github.com/MYC000801/DisCO/blob/6e1610f1fe9c941640bcb654953e42e57da48004/wandb/"
TRAVEL = "https://github.com/Luo-feng-hitsz/TRAVEL/blob/633528a2811060fa45d889caedd2cadbcd8d152c/verl/wandb/"

_DISCO_A100X4_15B = {
    # the resolved config of each run's W&B record (the two runs alike), the keys the model reads
    **_OLD_ROLLOUT,
    "algorithm.adv_estimator": "grpo",  # the fork's "wgrpo": a weighted GRPO advantage on the driver
    "algorithm.use_kl_in_reward": False,
    "actor_rollout_ref.actor.use_kl_loss": False,
    "data.train_batch_size": 128,
    "data.max_prompt_length": 256,
    "data.max_response_length": 4096,
    "actor_rollout_ref.rollout.n": 8,
    "actor_rollout_ref.rollout.tensor_model_parallel_size": 1,
    "actor_rollout_ref.rollout.gpu_memory_utilization": 0.85,
    "actor_rollout_ref.rollout.enable_chunked_prefill": True,
    "actor_rollout_ref.rollout.max_num_batched_tokens": 10240,
    "actor_rollout_ref.rollout.log_prob_use_dynamic_bsz": True,
    "actor_rollout_ref.rollout.log_prob_max_token_len_per_gpu": 36864,
    "actor_rollout_ref.rollout.log_prob_micro_batch_size": 32,  # as recorded; dynamic batching overrides it
    "actor_rollout_ref.model.use_remove_padding": True,
    "actor_rollout_ref.model.enable_gradient_checkpointing": True,
    "actor_rollout_ref.actor.strategy": "fsdp",
    "actor_rollout_ref.actor.ppo_mini_batch_size": 32,
    "actor_rollout_ref.actor.ppo_epochs": 1,
    # the fork's use_max_seq_len: the update splits each mini-batch into fixed micro-batches of
    # ppo_max_token_len_per_gpu // (max prompt + max response) = 36864 // 4352 = 8 sequences (remove-padding on), not
    # stock verl's token-balanced ones; the old log-prob pass keeps stock dynamic batching
    "actor_rollout_ref.actor.use_dynamic_bsz": False,
    "actor_rollout_ref.actor.ppo_micro_batch_size_per_gpu": 8,
}


def _disco_a100x4(
    name: str, run: str, step: str, prompt: float, response: float, published: dict[str, float]
) -> dict[str, Any]:
    """GRPO-style training (DisCO's fork of DeepScaleR's verl 0.1/0.2: stock clipped objective, a weighted GRPO
    advantage) of DeepSeek-R1-Distill-Qwen-1.5B with a 4k cap on 4 A100-SXM4-80GB (wandb-metadata.json), 2025-07-11;
    vLLM 0.6.3 (the repository's environment.yml: verl 0.1, torch 2.4.0), so V0, eager, TP 1. No reference pass, no
    critic. The fork's timers differ from stock verl's: `adv` holds the reward and the old log-prob pass, whose own
    timer `old_log_prob` is nested inside it (used); the sync rollout's `gen` holds the weight sync. Responses hit the
    4,096 cap on 30-66% of the responses, so the longest is the cap on every step. Timings are medians of the steady
    steps (step 20 validates), lengths the means of their means. Found by a search helper (round 10, who decoded the
    W&B files); the medians were recomputed here from the decoded history records."""
    return {
        "name": name,
        "source": DISCO + run + " (W&B run file; config, history, wandb-metadata.json)",
        "gpu": "A100",
        "world": 4,
        "model": str(MODELS / "DeepSeek-R1-Distill-Qwen-1.5B.json"),
        "step": step,
        "vllm": "0.6.3",
        "verl": "0.5",  # verl 0.1-0.2: "0.5" stands for "before 0.7"
        "env": {"VLLM_USE_V1": "0"},  # 0.6.3 has only the V0 engine
        "overrides": dict(_DISCO_A100X4_15B),
        "prompt_tokens": prompt,
        "response_tokens": response,
        "response_max": 4096.0,
        "published": published,
        "gen_includes": ("update_weights",),
    }


TENTH_RUNS: list[dict[str, Any]] = [
    {
        # steps 2-13 (step 1 is the first; no validation or checkpoint inside any step); responses ~900, the longest
        # at the 3,000 cap on every step; prompts ~2,780 tokens
        "name": "a100-40gbx8-grpo-qwen2.5-7b-cello1-3k",
        "source": CELLO1 + "run-20250604_013856-oydywru9/run-oydywru9.wandb (W&B run file; config, history, "
        "output.log, wandb-metadata.json, requirements.txt; launch script src/verl/examples/grpo_trainer/"
        "run_cello1_grpo.sh of the same commit)",
        "gpu": str(DEVICES_DIR / "a100-40gb.yaml"),
        "world": 8,
        "model": "Qwen2.5-7B",  # Qwen2.5-7B-Instruct: the same architecture
        "step": "2-13 (medians of 12 steps)",
        # Cell-o1's vendored verl 0.2.0.dev (stock main_ppo, a rule-based reward manager), vLLM 0.6.3, torch 2.4.0 (the
        # run's requirements.txt); the launch script exports VLLM_ATTENTION_BACKEND=XFORMERS
        "vllm": "0.6.3",
        "verl": "0.5",  # verl 0.2: "0.5" stands for "before 0.7"
        "env": {"VLLM_USE_V1": "0", "VLLM_ATTENTION_BACKEND": "XFORMERS"},
        "overrides": {
            **_OLD_ROLLOUT,
            "algorithm.adv_estimator": "grpo",
            "algorithm.use_kl_in_reward": False,
            "actor_rollout_ref.actor.use_kl_loss": True,
            "actor_rollout_ref.actor.kl_loss_coef": 0.001,
            "data.train_batch_size": 64,
            "data.max_prompt_length": 3072,
            "data.max_response_length": 3000,
            "actor_rollout_ref.rollout.n": 5,
            "actor_rollout_ref.rollout.tensor_model_parallel_size": 2,
            "actor_rollout_ref.rollout.gpu_memory_utilization": 0.6,
            "actor_rollout_ref.rollout.enable_chunked_prefill": True,
            "actor_rollout_ref.rollout.max_num_batched_tokens": 8192,
            "actor_rollout_ref.rollout.log_prob_micro_batch_size_per_gpu": 2,
            "actor_rollout_ref.ref.log_prob_micro_batch_size_per_gpu": 2,
            "actor_rollout_ref.ref.fsdp_config.param_offload": True,
            "actor_rollout_ref.model.use_remove_padding": True,
            "actor_rollout_ref.model.enable_gradient_checkpointing": True,
            "actor_rollout_ref.actor.strategy": "fsdp",
            "actor_rollout_ref.actor.ppo_mini_batch_size": 64,
            "actor_rollout_ref.actor.ppo_micro_batch_size_per_gpu": 2,
            "actor_rollout_ref.actor.ppo_epochs": 1,
            "actor_rollout_ref.actor.use_dynamic_bsz": False,
            "actor_rollout_ref.actor.use_torch_compile": True,
        },
        "prompt_tokens": 2778.241,
        "response_tokens": 897.542,
        "response_max": 3000.0,
        "published": {"gen": 84.184, "old_log_prob": 13.906, "ref": 14.517, "update_actor": 69.917},
        "gen_includes": ("update_weights",),
    },
    # steps 2-26 without 20 (validation); responses 3,107-3,559
    _disco_a100x4(
        "a100x4-grpo-r1distill-qwen1.5b-disco-4k-a",
        "run-20250711_130728-xxpq76ci/run-xxpq76ci.wandb",
        "2-26 without 20 (medians of 24 steps)",
        93.346,
        3202.727,
        {"gen": 156.803, "old_log_prob": 20.025, "update_actor": 77.387},
    ),
    # steps 2-36 without 20; the same configuration, a second launch
    _disco_a100x4(
        "a100x4-grpo-r1distill-qwen1.5b-disco-4k-b",
        "run-20250711_150844-mmjzfp9z/run-mmjzfp9z.wandb",
        "2-36 without 20 (medians of 34 steps)",
        93.589,
        3062.162,
        {"gen": 145.854, "old_log_prob": 18.575, "update_actor": 75.760},
    ),
    {
        # steps 2-37 without 15 and 30 (validation and checkpoint inside); responses ~450, the longest a median 1,519
        # of the 2,048 cap; prompts ~1,060. `gen` (22.8 s) is more than its worker-side sub-timers generate_sequences
        # (14.6 s) and reshard (2.0 s): the whole of `gen` is compared, as for every run
        "name": "a100-40gbx4-grpo-qwen2.5-3b-travel-2k",
        "source": TRAVEL + "run-20260327_165643-f20c5m3t/run-f20c5m3t.wandb (W&B run file; config, history, "
        "wandb-metadata.json; the repository's requirements.txt and verl/script/rl_run.sh)",
        "gpu": str(DEVICES_DIR / "a100-40gb.yaml"),
        "world": 4,
        "model": "Qwen2.5-3B",  # an SFT checkpoint of Qwen2.5-3B, full fine-tuning (lora_rank 0)
        "step": "2-37 without 15, 30 (medians of 34 steps)",
        # the repository pins vLLM 0.8.5.post1 and vendors verl of about 0.5 (labelled 0.4.1.dev); the launch script sets
        # no VLLM_USE_V1 (0.8.5's default: V1). Sync (SPMD) rollout with CUDA graphs and at most 8 sequences at once. The
        # reward (Rust compilation and an LLM judge on another host, ~129 s) is timed apart and not compared
        "vllm": "0.8.5",
        "verl": "0.5",
        "overrides": {
            "actor_rollout_ref.rollout.name": "vllm",
            "actor_rollout_ref.rollout.enforce_eager": False,
            "actor_rollout_ref.rollout.free_cache_engine": True,
            "actor_rollout_ref.rollout.max_num_seqs": 8,
            "actor_rollout_ref.rollout.max_num_batched_tokens": 4096,
            "actor_rollout_ref.rollout.enable_chunked_prefill": True,
            "algorithm.adv_estimator": "grpo",
            "algorithm.use_kl_in_reward": False,
            "actor_rollout_ref.actor.use_kl_loss": False,
            "data.train_batch_size": 32,
            "data.max_prompt_length": 2048,
            "data.max_response_length": 2048,
            "actor_rollout_ref.rollout.n": 8,
            "actor_rollout_ref.rollout.tensor_model_parallel_size": 1,
            "actor_rollout_ref.rollout.gpu_memory_utilization": 0.6,
            "actor_rollout_ref.rollout.log_prob_use_dynamic_bsz": True,
            "actor_rollout_ref.rollout.log_prob_max_token_len_per_gpu": 16384,
            "actor_rollout_ref.rollout.log_prob_micro_batch_size_per_gpu": 1,  # as recorded; dynamic batching overrides it
            "actor_rollout_ref.actor.ppo_micro_batch_size_per_gpu": 1,  # the same
            "actor_rollout_ref.model.use_remove_padding": True,
            "actor_rollout_ref.model.enable_gradient_checkpointing": True,
            "actor_rollout_ref.actor.strategy": "fsdp",
            "actor_rollout_ref.actor.ppo_mini_batch_size": 8,
            "actor_rollout_ref.actor.ppo_epochs": 1,
            "actor_rollout_ref.actor.use_dynamic_bsz": True,
            "actor_rollout_ref.actor.ppo_max_token_len_per_gpu": 16384,
            "actor_rollout_ref.actor.use_torch_compile": True,
            "actor_rollout_ref.actor.loss_agg_mode": "token-mean",
        },
        "prompt_tokens": 1058.286,
        "response_tokens": 453.793,
        "response_max": 1519.0,
        "published": {"gen": 22.832, "old_log_prob": 5.180, "update_actor": 23.986},
        "gen_includes": ("update_weights",),
    },
]
"""The tenth round: gathered after NINTH_FROZEN_REV (the model unchanged since) by a search helper who was not shown
the model, looking only for W&B run files committed to verl-based repositories (found by path, decoded from the
binary records). Three sources used: a 7B GRPO on 8 A100-40GB with 2.8k-token prompts (Cell-o1), a 1.5B R1-distill
on 4 A100-80GB with 4k responses in two launches (DisCO), a 3B GRPO on 4 A100-40GB with CUDA graphs and 8
sequences at once (TRAVEL). A fourth (four runs of a 0.5B on one A10G) was left out: NVIDIA publishes no figures
for the A10G, and the A10's would be a guess."""

SOURCES_CHECKED: list[tuple[str, str]] = [
    (
        "https://github.com/eric-haibin-lin/verl-data/blob/experiments/math/Qwen2.5-{0.5B,1.5B,3B,7B,14B,32B,72B}-*.log "
        "(13 logs, GRPO, 2 or 8 GPUs, prompts 1024 / responses 512)",
        "LoRA (actor_rollout_ref.model.lora_rank=32 in each command and printed config, also in the files whose names "
        "omit `lorarank32`, checked on the 0.5B and 7B logs): the cost model has no LoRA term (no optimizer state or "
        "weight gradients for the frozen base, the reference pass is the actor without its adapter)",
    ),
    (
        "https://github.com/eric-haibin-lin/verl-data/blob/experiments/gsm8k/Qwen2.5-*-lorarank32-*.log (7 logs)",
        "LoRA, as above",
    ),
    (
        "https://github.com/eric-haibin-lin/verl-data/blob/experiments/gsm8k/deepseek-llm-7b-chat-megatron-*.log, "
        "deepseek7b_llm_math_megatron.log, qwen2-7b_math_megatron.log",
        "Megatron actor and critic: the cost model times FSDP training only",
    ),
    (
        "https://github.com/verl-project/verl/issues/7412 (responses up to 3072 tokens, per-phase timing_s pasted)",
        "the stored thread shows one step's timings but neither the run's config nor its GPU; agent-loop rollout",
    ),
    (
        "https://github.com/verl-project/verl/issues/496 (32B, 8192-token responses, offload)",
        "no per-phase timings or GPU in the stored thread",
    ),
    (
        "https://github.com/llm-d-incubation/py-inference-scheduler integration/verl/README.md (Qwen2.5-32B GRPO, "
        "verl 0.7.1)",
        "step 1 only (warm-up), GPU not stated, agent-loop rollout behind a custom scheduler",
    ),
    (
        "https://github.com/rllm-org/rllm/issues/29 and /issues/6 (DeepScaleR 8k, A100/H100/H200)",
        "step time only (394 s/step on 8xA100), no per-phase timings or full config in the stored thread",
    ),
    ("verl's quickstart log in its docs (`step:0 - timing/gen:21.470 ...`)", "one step (step 0, warm-up)"),
    (
        "a Chinese blog note on verl's quickstart (Qwen2.5-0.5B PPO, 1 GPU on AutoDL, steps 71-74 pasted)",
        "GPU not stated (AutoDL rents several kinds; perf/mfu logged 0.0, so the peak cannot be inferred)",
    ),
    (
        "a TinyZero blog note (Qwen2.5-0.5B countdown PPO on one RTX 4090)",
        "USED on a second look (first rejected: no preset for the 4090): NEW_RUNS' rtx4090-ppo-qwen2.5-0.5b-1gpu-"
        "tinyzero; its keys are verl's of January 2025 (timing_s/*) and the GPU is a datasheet device file",
    ),
    (
        "a SLURM log pasted in a repository note (Qwen3-4B PPO on 2 A100, ray_multistep_trainer)",
        "a custom multi-step environment trainer, no generation timer, 83% of responses aborted",
    ),
    # checked for the generalisation split (issue 27); the one used is NEW_RUNS' source
    (
        "https://github.com/Bihan/dstack-configs verl_demo.log (PPO, Qwen2.5-7B, 2 nodes × 8 H100)",
        "USED: NEW_RUNS' h100x16-ppo-qwen2.5-7b-2nodes (full config printed, 335 steps, lengths and timings per step)",
    ),
    (
        "https://github.com/Chrisytz/verl verl_demo.log (Qwen2.5-0.5B PPO)",
        "run on TPU through a verl fork's XLA strategy (`strategy: 'xla'`, libtpu): not a GPU",
    ),
    (
        "https://github.com/KotoHanon/VERL-Maze verl_demo.log (Qwen2.5-1.5B PPO, 1 GPU)",
        "no training step logged (the run stops before step 1)",
    ),
    ("https://github.com/yuzhaouoe/GUI-Cursor-Moving verl_demo.log", "1.5 kB: Ray start-up only, no step"),
    (
        "https://github.com/chenyiqun/Agentic-RAG verl_demo.log (listed by the file index)",
        "not in the repository's fetched history; an agentic RAG loop with retrieval calls in any case",
    ),
    (
        "https://github.com/johnson7788/RLDecisionAgent backend/char_count/README.md (SmolLM2-135M GRPO log)",
        "GPU not stated (a Supermicro SYS-4028GR-TR2 host, a PCIe server of several possible cards) and no preset "
        "for SmolLM2-135M's shape",
    ),
    (
        "a Chinese note pasting a Qwen3-8B GRPO log on 8 MetaX C550 (280 TFLOP/s, 64 GB; verl 0.7, 4096-token "
        "responses, step 3 before and after tuning)",
        "Megatron actor, a GPU the model has no preset for, and one step (step 3) per configuration",
    ),
    (
        "a Cursor chat export pasting a retool log (Qwen2.5-32B DAPO with tool calls, responses to 10240 tokens)",
        "one step (step 60, with validation and checkpointing in it), multi-turn agent loop with code-sandbox tool "
        "calls, GPU not stated (216 GB reserved: not a preset's memory)",
    ),
    (
        "https://github.com/verl-project/verl/issues/3727 (Qwen3-VL-30B-A3B GSPO, 2 nodes of H100)",
        "vision-language MoE model (no preset, no MoE term), one step's timings",
    ),
    (
        "https://github.com/verl-project/verl/issues/1208 (GH200, SGLang rollout)",
        "SGLang rollout (the model times vLLM), GH200 has no preset, and the stored thread gives one step",
    ),
    (
        "https://github.com/verl-project/verl/issues/2060 (step:1 log, 91 GB reserved)",
        "step 1 only (warm-up) and GPU not stated",
    ),
    (
        "https://github.com/verl-project/verl/issues/3277 (Qwen2.5-1.5B GRPO on GSM8K, 1024-token responses)",
        "the stored thread shows the command but neither a step's timings nor the GPU",
    ),
    (
        "https://github.com/verl-project/verl/pull/5637 (set_numa_affinity; means over 45 of 58 steps)",
        "the stored PR text shows the step statistics but neither the run's config nor its GPU",
    ),
    (
        "https://github.com/ZJU-REAL/SDAR/issues/51 (Qwen2.5-3B on 4 A100, ALFWorld)",
        "step 1 only, a custom trainer (main_sdar, teacher_forward phase) with a multi-turn environment",
    ),
    (
        "https://github.com/verl-project/verl/issues/7412 again, /issues/496 again, /issues/1580 (Qwen3-8B)",
        "as above; #1580 shows its timings only as images",
    ),
    (
        "a TinyZero reproduction note (Qwen2.5-0.5B countdown PPO, RTX 5090 then 4090)",
        "TinyZero's verl fork and consumer GPUs without a preset, as the TinyZero note above",
    ),
    (
        "an AutoDL verl note's second run (the same Chinese note as above, GRPO)",
        "GPU not stated, as above",
    ),
    (
        "https://github.com/eric-haibin-lin/verl-data (fetched: branches main, experiments, neurips)",
        "no logs beyond those above (the 8 runs' sources and the LoRA and Megatron logs)",
    ),
    (
        "three console logs committed as text, found by verl's printed config (Qwen2.5-0.5B and "
        "deepseek-coder-1.3b GRPO on 2 GPUs; Qwen3-4B with SGLang multi-turn on 8)",
        "each crashes (host memory, OOM) before its first training step ends: no step's timings",
    ),
    (
        "https://github.com/HanlinDu/verl verl_examples/gsm8k.jsonl (verl's file logger at its default path; PPO)",
        "a research fork that resizes rollout and training GPUs between steps (resize/* metrics, host staging), "
        "3 steps, asynchronous generation, GPU not stated",
    ),
    (
        "https://github.com/ai-bot-pro/achatbot/pull/155 (verl PPO/GRPO demos on Modal)",
        "the stored PR has no step's timings and the repository commits no log",
    ),
    (
        "web pages (Chinese and English blog posts on verl logs, GRPO handbooks, Ascend best practices)",
        "explanations of the metrics, LoRA or NPU runs, no run's per-phase timings with its config and GPU",
    ),
    (
        "file-index searches for `timing_s/update_actor:`, `timing_s/ref:`, `timing_s/values:`, "
        "`timing_s/update_critic:`, `timing/gen:`, `step:10 - global_seqlen`, `(main_task pid=` (about 80 hits)",
        "parsers, tests with made-up numbers, docs quoting verl's quickstart step 0, and the notes above",
    ),
    # second search (issue 27, continued)
    (
        "https://github.com/houkawa2/CodeGenerate_RL_Pipeline verl_demo.log (TinyZero's verl, PPO, Qwen2.5-1.5B, 1 GPU, "
        "~1000 steps)",
        "USED: NEW_RUNS' a100-ppo-qwen2.5-1.5b-1gpu-longprompt (full config printed, GPU inferred from mfu and the KV "
        "cache as its entry says)",
    ),
    (
        "https://github.com/Limpidjunewind/tinyzero-experiments reports/experiment_report_reward.md (PPO, Qwen2.5-3B, "
        "4 L40S; per-phase averages of reward designs v2 and v3)",
        "USED: NEW_RUNS' l40sx4-ppo-qwen2.5-3b-tinyzero-v2 and -v3 (run averages, config from the study's scripts, as "
        "their entries say); v1 has no per-phase figures, and the repository's other reports (1 A100, 2 H100-96) give "
        "none",
    ),
    (
        "https://github.com/LeiLiLab/WALAR grpo.log (Qwen2.5-3B GRPO, translation reward)",
        "the console logger is off (wandb only): the log has the config but no step's metrics",
    ),
    (
        "https://github.com/zhiyuanhubj/logic-rl-formula grpo.log (Qwen2.5-7B-1M GRPO, 8 GPUs)",
        "crashes at start-up (flash-attn import error) before the first step",
    ),
    (
        "https://github.com/aghyad-deeb/reward_seeker grpo.log and verl.log",
        "stored as Git LFS pointers (no content)",
    ),
    (
        "https://github.com/sii-research/siiRL quickstart (GRPO, Qwen2.5-0.5B, per-step perf/delta_time/*)",
        "siiRL's DAG trainer, not verl's (other timers and workers), and two steps",
    ),
    (
        "a verl stage-tuner trial record (Qwen3-0.6B GRPO on 8 GPUs, verl 0.7, 5120-token responses)",
        "Megatron actor, a 64 GB accelerator without a preset, one step's phase times",
    ),
    (
        "an experiment verdict file summarising 117 steps of a verl GRPO run (means/min/max of every timing_s/*)",
        "a modified actor (gradient-masking experiment), and neither the config nor the GPU stated",
    ),
    (
        "https://github.com/verl-project/verl/issues/795 (DAPO on 128 A800), /issues/2753, /issues/4460, /issues/6010",
        "#795 shows its timings only as images; #2753 and #4460 give no step's timings with the config (#4460 is a "
        "Megatron MoE run); #6010 runs on Ascend 910B",
    ),
    (
        "https://github.com/Arnie-He/BLPO ppo.log, screechingviolet/epic-tikz-diagram-generator train_grpo.log",
        "not verl (a JAX PPO on Atari; a TRL GRPO loop)",
    ),
    (
        "https://github.com/rinconjm/151B_SP26_Competition grpo_train.log",
        "Unsloth's GRPO trainer, not verl",
    ),
    (
        "https://github.com/josephdutoit/probability-aligned-llms, pandanzhe/Hack-RLOO, GuoCheng24/batch-logprob-gap "
        "(logs/grpo.log listed by the file index)",
        "not readable here (absent from the fetched history, or no snapshot could be fetched)",
    ),
    (
        "https://github.com/verl-project/verl/issues/316 (step:5 pasted), https://github.com/rllm-org/rllm/issues/54 "
        "(step:4 pasted)",
        "one step each, pasted just before a crash; no steady window",
    ),
    (
        "https://github.com/verl-project/verl/issues/2566 (DeepScaleR 1.5B on 4 A100 80GB, 8192-token responses)",
        "the stored thread gives the config and step times from the progress bar, no per-phase timings",
    ),
    (
        "https://github.com/zhaochenyang20/Awesome-ML-SYS-Tutorial/issues/106 (verl step logs in an SGLang thread)",
        "SGLang rollout (the model times vLLM)",
    ),
    (
        "https://github.com/verl-project/verl/pull/7833 (Qwen3.5-9B GRPO on 8 B200), /issues/7203 (Qwen3.5-9B, 8 H800)",
        "Qwen3.5's hybrid linear-attention layers have no preset or term; #7203 also runs Megatron and SGLang",
    ),
    (
        "a verl-on-MI355X note (Qwen3-4B GRPO, 8 GPUs, 10 prompts per step) and a vLLM 0.18 note on two GB10 "
        "(DGX Spark) boxes (Qwen3-0.6B)",
        "accelerators without a preset, 1-5 steps of toy batches, partial timings",
    ),
    (
        "a 589 kB log in a notes file of a RAGEN-style agent (env/* metrics, ACTIVE_TRAJ_NUM)",
        "multi-turn environment rollouts, which the model does not time",
    ),
    (
        "https://github.com/volcengine/verl (fetched: docs, recipes, examples)",
        "no per-phase timings with a config except docs/perf/dpsk.md (DeepSeek on Megatron)",
    ),
    (
        "web pages: a MI300X verl tuning blog (yottalabs), Chinese articles claiming verl throughput measurements, "
        "mirror sites of verl's scripts",
        "the page store keeps only a page's opening (no per-phase table reachable); the articles show no log or "
        "config that can be checked",
    ),
    (
        "file-index sweeps for `timing_s/update_actor:0`-`:9`, `timing_s/gen:1`-`:9`, `timing_s/ref:`, "
        "`timing_s/old_log_prob:`, `timing_per_token_ms/{values,ref,update_critic}:`, `perf/mfu/actor:0.`, "
        "`timing_s/reshard:`, `timing_s/update_weights:`, `mfu/critic:0.` (about 150 hits)",
        "the runs used above, the notes listed here, and parsers or tests with made-up numbers",
    ),
    # third search (issue 27, continued)
    (
        "a veRL benchmark report committed as Markdown: GRPO + LLaMA3.2-1B on GSM8K, 8 GPUs (wandb run summary)",
        "USED: NEW_RUNS' h100-grpo-llama3.2-1b (one step, the last; its GPU less sure than stated, as its entry says)",
    ),
    (
        "the same author's report GRPO + Qwen2.5-7B on GSM8K (file index id 37899697233; wandb run summary)",
        "no launch command (micro-batch sizes unknown; only batch 1024 × n 5 follows from perf/total_num_tokens), one "
        "step, and its 109.5 GB reserved contradicts the stated H100 × 8 (80 GB)",
    ),
    (
        "an Ascend VeRL image guide (Qwen3-32B DAPO, step:1 log with 7385-token responses)",
        "Ascend NPUs (A3), Megatron image, one step",
    ),
    (
        "a note quoting Qwen3-4B/8B step-1 metrics on a 192 GB accelerator (update_actor 150 s, 2048-token cap)",
        "one step before a crash, an accelerator without a preset (192 GB: MI300X or B200), no config",
    ),
    (
        "GRPO notes quoting step-1 metrics (Cambrian-S PPO smoke, a 24 GB colocated multi-turn agent, an OPD teacher "
        "run, a 2-GPU SFT/GRPO tool-use note, an LLDS experiment, a Docker-sandbox agent)",
        "each one step (or two) of a smoke test, multi-turn or custom trainers, GPU or config not stated",
    ),
    (
        "https://github.com/verl-project/rl-insight data/verl_data/*.log (a log analyser's sample logs; GRPO with "
        "on-policy distillation, Qwen2.5-0.5B student, 3.1 MB)",
        "Ascend NPUs (torch_npu, vllm_ascend), a distillation teacher in the step; the other samples are fragments",
    ),
    (
        "https://github.com/Wyyyb/critique_rl (a script that tees verl_demo.log), file-index lookups of the paths "
        "verl_demo.log, verl.log, train.log, nohup.out",
        "no committed log, or only the logs already listed (the common names list thousands of unrelated repositories)",
    ),
    (
        "https://github.com/turboweii/Tinyzero_2A800, sunnweiwei/verl-vllm-rollout-benchmark, ztlmememe/VERL-NSCC",
        "no committed log (the first has TinyZero's README and scripts only; the second is a test-generation task)",
    ),
    (
        "issue searches: GRPO/H20/H800/14B/multi-node/DeepSeek-R1-Distill step timings, vLLM-upgrade regressions, "
        "Chinese 'training slow' threads (verl, EasyR1 forks, ROLL#101, rllm, One-Shot-RLVR#3)",
        "the threads already listed, EasyR1 (another trainer), or attachments and images instead of pasted logs",
    ),
    (
        "file-index sweeps for `timing_s/gen:`, `timing_s/generate_sequences:`, `timing_s/start_profile:`, "
        "`timing_s/step:1`, `timing_s/old_log_prob:2`, `perf/throughput:`, `timing_per_token_ms/gen`, JSON keys "
        '(`"timing_s/update_actor":`), wandb summaries (`timing_s/update_actor 1`-`5`, `timing_s/ref 1`), '
        "`step:5|20|50 - global_seqlen/min`, `critic/kl_coeff:0.001 - critic/vf_loss`, `actor/kl_coef:0.001 - ...` "
        "(about 120 hits)",
        "the notes above and those already listed (the AutoDL and RLDecisionAgent notes, the MetaX C550 log, the "
        "RAGEN-style log, the 4090 notes), parsers, dashboards and tests with made-up numbers",
    ),
    # checked 2026-12-03 (two search helpers; the file index does not hold .log files, so the second fetched
    # repositories and listed every file ever committed to them, verl's PR branches included)
    (
        "https://github.com/haolinyan/verl/tree/35cee0caba9f852cfe62c39f738f096f55c8cbd0/recipe/async_reward_agent/"
        "assets/tensorboard (verl PR #2854's event files: q7b_fsdp_base, q3b_fsdp_base, and the others)",
        "USED: NEW_RUNS' h20x8-grpo-qwen2-7b-async-reward-baseline and h20x8-grpo-qwen2.5-3b-async-reward-baseline "
        "(config from the recipe's launch script); its *_off_ppl runs pipeline the next step's rollout into this "
        "step's update (not the synchronous phases) and its *_mcore_* runs are Megatron",
    ),
    (
        "https://github.com/shamanez/verl research/runs/EXP-18/metrics/curvematch_dense_ref_50step.jsonl (+ .config.json) "
        "and research/runs/EXP-17/baseline_EXP16_dense/metrics/train.jsonl",
        "USED: NEW_RUNS' h200x4-grpo-qwen2.5-1.5b-dense-36k and -98k (the fork's dense controls, compression off)",
    ),
    (
        "https://github.com/volcengine/verl/blob/19997f9ec3d0a3c44a941ea09b89eeabf38bf261/recipe/fully_async_policy/"
        "README.md (and README_zh.md): colocate-sync DAPO rows on 32/64/128 H20, Qwen2.5-Math-7B, 28k responses",
        "run-wide per-phase averages with no mean prompt or response length anywhere (README, scripts, PRs); the "
        "English and Chinese tables disagree on one cell",
    ),
    (
        "https://github.com/volcengine/verl/blob/606ed9379364e74e9347cc8a8f33d147954111e4/recipe/one_step_off_policy/"
        "README.md (colocate sync, VLLM+FSDP2, 2 nodes of H20, DAPO 7B)",
        "run averages, no lengths; its colocate script survives only in forks and caps responses at 8192 where the "
        "README says 20,480",
    ),
    (
        "verl docs/advance/fully_async.md (`use_trainer_do_validate` table, 16 H20) and examples/prefix_grouper/"
        "README.md (Qwen3-4B, 4 H800)",
        "run averages without lengths (old_log_prob bypassed in the first); the second has no generation timing and "
        "states only rollout.n of its config",
    ),
    (
        "verl examples/tuning/README.md with scaling/run_qwen3_8b_fsdp.sh (file-index ids 68722574245, 68413756862; "
        "Qwen3-8B GRPO on 4 and 8 A800-80GB PCIe, 2k responses, min/recommended profiles)",
        "phase timings of one step per configuration and no mean prompt or response length (only the share of "
        "responses at the 2048 cap); repository and commit not identified",
    ),
    (
        "https://github.com/verl-project/verl pull 2676 (log/tensorboard/my_DAPO/DAPO-Qwen2-7B-Test, an A800 host)",
        "no config anywhere (the PR adds only event files), a modified trainer (`timing_s/gen_layer2`), GPU count "
        "unknown",
    ),
    (
        "https://github.com/shamanez/verl research/runs/* (a gradient-compression research fork, ~1200 files)",
        "most runs train with the fork's compression hook on (a modified actor update); 62-* are 5-step smoke cells, "
        "63-*'s long-response dense control committed no training log",
    ),
    (
        "https://github.com/Mario928/toolrl-verl-reproduction/blob/2a2ee73ee79bc93fd065075af974910540961c2c/run.log "
        "(ToolRL GRPO, Qwen2.5-3B, 4 H100, full config printed)",
        "17.9 MB printing every one of the 2048 responses per step: ~5 steps, ending mid-step, that the stored text "
        "cannot be searched for",
    ),
    (
        "https://github.com/yushengsu-thu/verl_training_log (linked from verl's docs/algo/baseline.md)",
        "AMD MI300 GPUs",
    ),
    (
        "verl-project/verl fork branches of faradawn (trtllm-qwen2-7b-tp4-8gpus, log-7-h200.txt, game2048) and "
        "JessicaZhong (qwen3-0.6b-function-reward-minimal, Titan_Qwen3_30B_A3B)",
        "TensorRT-LLM rollout or multi-turn games; 6-step smoke tests with every response at the cap, MoE",
    ),
    (
        "https://github.com/rayjang/code-rl-verl experiments/*/train.log (26 code-RL runs with printed configs)",
        "MoE models (Qwen3-30B-A3B, Qwen1.5-MoE-A2.7B) with LoRA rank 32 and GSPO in a custom TaskRunner",
    ),
    (
        "https://github.com/nuzant/verl_benchmark (AReaL's verl throughput scripts), verl-project/verl-recipe, "
        "meituan-search/verl exp/ folders, and fetched with every ref: Jiayi-Pan/TinyZero, SkyworkAI/Skywork-OR1, "
        "Unakar/Logic-RL, PRIME-RL/PRIME, PeterGriffinJin/Search-R1, agentica-project/rllm, eric-haibin-lin/verl, "
        "vermouth1992/verl, tongyx361/verl",
        "launch scripts only; no training log or event file ever committed",
    ),
    (
        "hkust-nlp/simpleRL-reason PR 57 (log1.txt, log2.txt), sksdiw3/hint-ladder-verl logs, file-index notes "
        "66695573296 (TTRL, 8 H100), 55716353258 (1 A100 quickstart), 65973878982 (DualKV), 61409486496 (A800 + "
        "A4000 split rollout), 53464344220 (8 RTX 4090 runbook)",
        "fail before a step; a multi-turn ALFWorld agent with a self-distillation phase; TTRL's 64-vote rollouts "
        "with ranges only; two steps; a custom attention; rollout on separate cards; step 1 only",
    ),
    (
        "https://github.com/verl-project/verl/issues/1224 and /issues/1393; BytedTsinghua-SIA/MemAgent issue 31",
        "one pasted step without config or GPU; warm-up steps only; a recurrent memory agent timed by progress bars",
    ),
    # fourth search (2026-12-04, two helpers), for the third round (THIRD_RUNS)
    (
        "https://github.com/terrense/qwen3-8b-grpo-dapo-lab experiments/{M20_grpo,M20_gspo,A_grpo,E_drgrpo_scaled}/"
        "metrics/training_metrics.csv (Qwen3-8B GRPO-family arms on 4 H20, 8k cap)",
        "USED: THIRD_RUNS' four h20x4-*-qwen3-8b-8k-* runs (one configuration, four loss arms); its M20_dapo and "
        "R2_dapo_smoke arms run DAPO's dynamic sampling (2-3 generation rounds inside one timing_s/gen), R0/R_gspo are "
        "2-update smoke tests, and R1, B_gspo, C_aggonly, D_drgrpo (the same configuration again) were not transcribed",
    ),
    (
        "https://github.com/THisisPX/verl_cambricon tensorboard_log/verl_perf_test/qwen3_4b_grpo_n16_resp8192 (8 A100 "
        "40GB) and the fork's other event files",
        "USED: THIRD_RUNS' a100-40gbx8-grpo-qwen3-4b-8k-emptyprompt; the others are Megatron, SGLang, fully-async or "
        "one-step-off-policy runs, Qwen3-VL, or one resumed step",
    ),
    (
        "https://github.com/Codekiing/AgentSDK (GSM8K GRPO rounds of Qwen2.5-0.5B on 4 A100/A800 80GB)",
        "USED: THIRD_RUNS' a100x4-grpo-qwen2.5-0.5b-gsm8k-b8n8 and a800x4-grpo-qwen2.5-0.5b-gsm8k-b32n8; the other "
        "event files (r3-r9, the agent runs, the 7B rounds) have no launch command or printed config committed",
    ),
    (
        "https://github.com/dingxianzhong/play-verl logs (found again by the issues/pages helper)",
        "the four logs are RUNS' own sources (the 8 runs the constants were set on): not unseen",
    ),
    (
        "verl-project/verl and volcengine/verl, every ref (~5300 PR heads and merges) scanned blob by blob for "
        "timing_s/* with values; verl PR 3389 (DeepSpeed backend, results/*_parsed.csv); the async-reward recipe's "
        "gsm8k_qwen2_7b_* event files; output.txt (gaoziyuan) and examples/sglang_multiturn/nohup.out",
        "only the sources already listed; PR 3389 trains with DeepSpeed, not FSDP; the gsm8k_qwen2_7b_* runs are "
        "Megatron (the recipe's README table); output.txt holds one step; nohup.out is SGLang multi-turn",
    ),
    (
        "reasoning-RL and verl-fork repositories fetched with every ref (PRIME-RL/TTRL, LUFFY, Absolute-Zero-Reasoner, "
        "Spurious_Rewards, Intuitor, Entropy-Mechanism-of-RL, POLARIS, maxent-grpo, hkust-nlp/simpleRL-reason and forks, "
        "Logic-RL forks, verl-SpeCo, vexact, verl-mint, verl-recipe, ten generic verl forks, mini-verl, Time-R1, "
        "cgrpo-verl, SwiftSeal03/verl, rlvr-experiments and others)",
        "no committed log, event file or metrics dump with verl's timing_s (Time-R1's verl_demo.log has no step line; "
        "maxent-grpo's logs are TRL)",
    ),
    (
        "https://github.com/montehoover/verl slurm-6231820.out (PPO, Qwen3-0.6B, 2 GPUs, full config printed)",
        "a 24 GB card that cannot be identified (23.55 GB per device; perf/mfu logged 0.0)",
    ),
    (
        "https://github.com/RLinf/RLinf compare_with_verl.rst (verl 0.5 baselines, 10-14k-token responses)",
        "the 7B figures come from an SGLang script and the GPU is not named; the 1.5B table gives run-level numbers "
        "without the backend, micro-batching or a ref/old-log-prob split",
    ),
    (
        "https://github.com/verl-project/verl/pull/7804 (yue-zeng-yue/verl review artifacts, Qwen2.5-1.5B GRPO on 2 "
        "A800)",
        "an external observer's seconds per step, not verl's timing_s; the rest inside a 16 MB zip",
    ),
    (
        "https://github.com/MianchuWang/mianchuwang.github.io writings/2026-08-grpo-a40-scaling.md (verl 0.8, GRPO "
        "Qwen2.5-1.5B on 1 and 2 A40, means over 232 steps)",
        "no prompt or response lengths published, and an A40 (no preset)",
    ),
    (
        "file-index notes: a DAS speculative-decoding note (Qwen3-32B on GKE H100/H200), a verl x Dynamo x SGLang note, "
        "a segment-rollout note, a MedAgent 14B report, a fully_async Mode 4 report, a verl x Lean note, a Dr.Kernel "
        "note, a disaggregated memory log, a B200 TTRL note; verl PR 3479, issue 6747; ms-swift issue 3302; "
        "mit-han-lab/fastrl issue 6; rllm issues 44 and 105",
        "speculative decoding or disaggregated rollouts, MoE or hybrid-attention models, SGLang, Ascend NPUs, multi-turn "
        "agents, one or two steps, or no config/GPU/lengths; timings as figures or wandb links",
    ),
    (
        "issue and page searches (about 30 queries: per-phase step lines, GRPO on H800/H20/A800/A100, 14B-70B, "
        "multi-node, DAPO/DeepScaleR/DeepCoder/SimpleRL/Skywork-OR1 trackers; RL-systems papers' arXiv pages: RollPacker, "
        "PCL, SortedRL, APRIL, Periodic Asynchrony)",
        "the same threads as before; the page store keeps only a paper's opening, so no per-phase verl baseline table "
        "is reachable",
    ),
    (
        "file-index strings of this search: perf/time_per_step:, timing_s/adv:, | timing_s/gen |, "
        "response_length/max:8192 (and 16384, 4096), tensorboard_log/verl_, VERL_FILE_LOGGER_PATH=, "
        "verl_file_logger.jsonl, 'timing_s/old_log_prob', and others",
        "led to the three used repositories; the other hits are parsers, tests, agent or Megatron notes, or sources "
        "listed above (logs read by indexed scripts but not committed anywhere findable)",
    ),
    # the fourth round (2026-12-04, three search helpers; each line may cover several sources)
    (
        "https://github.com/Learneraf/ascend_npu_measure_verl results_tables_a100.md (8B baseline, its ten ablations)",
        "USED: FOURTH_RUNS' a100x8-grpo-qwen3-8b-gsm8k-* (the ablations publish gen and update_actor only, as means)",
    ),
    (
        "https://github.com/diqiuzhuanzhuan/verldata run_logs/qwen2-7b_math.log (linked from verl's docs/algo/baseline.md)",
        "USED: FOURTH_RUNS' a800x8-gpg-qwen2-7b-gsm8k-math-1k and -late; its Megatron sibling log rejected (Megatron)",
    ),
    (
        "Learneraf/ascend_npu_measure_verl's Qwen3-32B tables (表 2/4/6/8/10/12) and fully-async tables (表 17/18)",
        "LoRA (rank 64) with offload; the fully asynchronous trainer (4 + 4 GPUs overlapped), not the colocated step",
    ),
    (
        "terrense/qwen3-8b-grpo-dapo-lab arms R1_grpo_baseline, B_gspo, C_aggonly, D_drgrpo",
        "the configuration of THIRD_RUNS' four H20 arms, which informed the constants frozen at FOURTH_FROZEN_REV: "
        "not an unseen configuration (transcribed, not used)",
    ),
    (
        "the previous round's unfetchable leads: AlexJJ009/verl-v0.7, sherrywan717/ppo-vs-grpo-math-rlvr, "
        "Aochong-Li/One-Shot-RLVR, uiuc-kang-lab/rlvr-noisy-data, zhanfang/math-rlvr, demon2036/verl_qwen_grpo, "
        "JZhao1122/aidando73/TimS-ml simpleRL-reason, boren-ms/plasmapotatos/zzqbjt/imvladikon/shaoxiongduan verl, ...",
        "not verl (TRL, SkyRL, own scripts), a fused joint-training fork without timings, evaluation outputs only, "
        "start-up failures, or no snapshot and no run artefact in the file index",
    ),
    (
        "file-index ids 67109882755 (lhy101/verl: Qwen2.5-7B/32B on H20 nodes), 3903514712 / 3946110501 (SPEED-RL), "
        "66379434766, 62746187936, 59790210492, 54931530822, and five more notes",
        "scripts and figures only (logs on private paths), metrics never committed, a parser without data, run-wide "
        "means with the reward inside gen, fully-async LoRA runs, 5-10 steps of batch 4-16, MoE or hybrid attention",
    ),
    (
        "about 60 fetched repositories: verl forks and tutorials (zhusq20/verl_dev's 36 empty event files, "
        "verl-recipe, verl-hardware-plugin, verl-community, mengchengTang/verl-data, ...), reasoning-RL papers "
        "(cmu-l3/l1, ThinkPrune, AdaptThink, QwenLong-L1, Light-R1, ...), DAPO/GRPO reproductions, AReaL, DAPO, "
        "LIMR, General-Reasoner, Minimal-RL, ROLL, slime, EasyR1, Open-Reasoner-Zero",
        "no committed console log, event file or metrics dump with verl's timing_s (event files with a header only, "
        "evaluation JSONL, docs, other frameworks' own timers)",
    ),
    (
        "about 20 repositories that cannot be fetched here (garrett4wade/verl-benchmark, mshtelma/verl-on-air, "
        "MiroMindAI/MiroMind-M1, HaFred/verl-GR, verl-project/verl-ascend-recipe, ...)",
        "no snapshot, and the file index lists no run artefact of theirs",
    ),
    (
        "verl PR 3870 (eager vs compiled tables: Qwen2-7B PPO and Qwen3-8B GRPO on 8 H100), PR 3524, issues 5111, "
        "1574, 2751, 1481, 881, 2094, 1304",
        "PR 3870 gives one row per model with no config, lengths or steps (the fork holding its script cannot be "
        "fetched: the most promising lead left); the others are vision-language models, images, or links to logs "
        "already used",
    ),
    (
        "file-index notes: uqcxu9's Qwen2.5-7B GRPO log, mxuax/verl-GR, a MAGI prefix-tree table, a PTD-PO runbook, "
        "Lumen FP8 notes, an agent stage-tuner report, TinyZero logs on AutoDL, Ascend 910B tables, agent run notes",
        "LoRA, a modified fork with run-wide means and no lengths, Megatron, a vision-language model, MI350X with FP8, "
        "no GPU, NPUs, multi-turn agents or reward waits inside gen",
    ),
    (
        "about 60 new file-index strings and exact paths of this round (timing_s/ref:, timing_s/values:, "
        "timing_per_token_ms/update_actor:, response_length/max:6144, JSON and CSV forms, wandb-summary.json, "
        "output.log, training_metrics.csv, ...)",
        "parsers, tests with made-up numbers, smoke tests of one step, agent notes and sources already listed; the "
        "index keeps few .log files and seems not to index JSON/JSONL data: following log links in docs found the one "
        "new log",
    ),
    # a fifth search (2026-12-04, one helper, after c0e7761): nothing usable
    (
        "verl PR 3870's branch (refs/pull/3870/head: one file changed) and the author's fork (no snapshot, not indexed); "
        "log links in every documentation revision of verl, verl-recipe and ~100 fetched repositories; "
        "vermouth1992/verl-data, wucong25/verl-data, Lorenayannnnn/classmate-cot-verl, ChibiQuest/verl_data, a Hugging "
        "Face dataset of verl logs (TAUR-dev/D-ExpTracker__rl_rlonly_AT_fixed__v1, unreachable here)",
        "no launch script or log behind PR 3870's tables (its token totals cannot be split into prompt and response); "
        "every GitHub-hosted log linked from documentation is already used or listed, the rest are images, wandb.ai, "
        "swanlab.cn or Google Drive links that cannot be reached",
    ),
    # the fifth round (2026-12-04, five search helpers; each line may cover several sources)
    (
        "https://github.com/aishukamal/rl-time-slicing rl-elastic-scaling/results/m3/colocated-b64 and /colocated "
        "(found through a log-analysis script in the file index)",
        "USED: FIFTH_RUNS' h100x2-grpo-r1distill-qwen1.5b-code-16k-b64n8 and -b8n8",
    ),
    (
        "aishukamal/rl-time-slicing's other arms (rl-elastic-scaling results m0-m2, m3 regime-shift/no-harm/static12, "
        "async-rl-benchmarks/*, verl-dapo-32gpu on 32 H200)",
        "fully asynchronous or time-sliced trainer/rollout splits, multi-turn and deep-research agents; the 32-GPU DAPO "
        "study is fully asynchronous and its commit is not in the snapshot",
    ),
    (
        "issue and page searches in Chinese, Japanese, Korean and English (~95 look-ups): pasted step lines, speed and "
        "stall threads, DAPO/DeepScaleR/SimpleRL/ORZ/Skywork-OR1/Polaris/QwenLong-L1/LUFFY/Logic-RL/TinyZero/ProRL "
        "issues, vLLM sleep-mode and V0/V1 regressions; Tencent-Hunyuan/UniRL issue 40 (fetched), verl issues 1458, "
        "1422, 4264, 5099, 5119, 5964, 7847, 2009, 538, 1885, 336, 2807; POLARIS 4/16/18, simpleRL 24/69/84, TinyZero "
        "5/63/87; a Fixstars RTX PRO 6000 note, a qiita GRPO article, Chinese SEO pages quoting verl 'measurements'",
        "UniRL's verl baseline logs its own timing keys and step totals only, with no verl config; the verl threads are "
        "Megatron, MoE, hybrid attention, GB200/B200, batch 2, stalls, warm-up steps 1-5 or screenshots; the pages "
        "keep only their openings, no preset for the RTX PRO 6000, an SGLang arm, or unverifiable claims",
    ),
    (
        "file-index strings of this round (~160 look-ups: `timing_s/gen=`, `timing_s/update_actor=`, dict and JSON "
        "reprs, `| old_log_prob |`, `| update_actor (s) |`, `timing/update_actor:`, `perf/cpu_memory_used_gb:`, "
        "`response_length/mean:2`/`:3`/`:5`, `(TaskRunner pid=`, `global_seqlen/balanced_max:`, "
        "`step:{30,100,200} - global_seqlen`, `response/aborted_ratio:0`, ...) and the notes they led to (TTRL, "
        "PowerFlow, influence-trace, Loki step-time scripts, an ES-vs-GRPO 2-H200 note, a hex-move CoT research log, "
        "a Qwen3-4B DeepScaleR replay-buffer study, a 7B 16-GPU signal-fraction note)",
        "one or two steps, agents, LoRA, AMD GPUs, custom trainers or phases, old log-probs and reference summed, "
        "ranges instead of values, scripts without their data, or no repository to be found; the index holds no "
        "steady-state step line past step 30 anywhere",
    ),
    (
        "about 95 repositories by name (52 fetch attempts, 39 snapshots, every ref listed and 26 grepped blob by blob: "
        "verl forks and tutorials, DeepScaleR/TinyZero forks, Spec-RL, Flash-RL, TreePO, FlowRL, DeepMath, "
        "Mathematical-Reasoning-RL-Scaling-Law, ZyQiu6/verl_dev, ...) and find_files on ~30 default log paths",
        "no committed console log, event file with values (ZyQiu6/verl_dev's 36 event files are headers, 3 kB) or "
        "metrics dump; own GRPO loops; nine more repositories cannot be fetched (alibaba/verl-recipe, "
        "niuypei/multi_task_verl, madhu24raj/RLVR-Comparison, ...)",
    ),
    (
        "https://github.com/esaaren/verl-on-gke results/parsed_metrics.csv (a Google Cloud engineer's verl-on-GKE guide)",
        "USED: FIFTH_RUNS' b200x16-grpo-qwen2.5-32b-gsm8k-2nodes",
    ),
    (
        "https://github.com/NaomiEisen/Verl-KubeRay-RL successful_run_example.log (PPO, Qwen2.5-0.5B, 1 GPU, 128-token "
        "cap, full config printed, 29 steps)",
        "the GPU is not named anywhere: `perf/mfu/actor` implies verl's 989 TFLOP/s class (H100, H200 or H800), whose "
        "HBM rates (3.35 or 4.8 TB/s) set a decode-bound generation apart; an OpenShift team's other benchmarks used "
        "H200, which is circumstantial",
    ),
    (
        "systems-research artefacts and cloud repositories (~250 look-ups, 33 fetches): llm-d-incubation/llm-d-rl and "
        "the llm-d time-slicing forks, TKONIY/verl, an RLVRAMBench dictionary, a CS224R B200 project, AReaL issue 165, "
        "FastCuRL, GRESO, Trinity-RFT's verl comparison, Relax, an HPRL AutoHint sweep, async-RL labs and course "
        "projects; nebius, crusoe, coreweave, AI-Hypercomputer, ai-on-gke, LambdaLabsML, datacrunch, "
        "awsome-distributed-training, SkyPilot, Modal and dstack verl examples, rjaditya-2702/alignment-project, a "
        "Chinese 8 × B200 GRPO guide, ~30 exact log paths and ~70 strings (`colocated baseline`, `kind: RayJob`, ...)",
        "llm-d-rl's stock-verl arms publish means of steps 2-10 with `update_actor` as '~550 s' and no log; the rest "
        "are vision-language, SGLang, Megatron, MoE, LoRA, multi-turn agents, a GH200 cluster, disaggregated or "
        "one-step-off arms, their own frameworks, launch scripts without output, or final validation scores only",
    ),
    # the sixth round's search (three helpers, 2026-12-04, after SIXTH_FROZEN_REV)
    (
        "https://github.com/verl-project/verl/blob/e08c428c6/examples/ppo_trainer/verl_getting_started.ipynb",
        "USED (SIXTH_RUNS): the only executed verl notebook with step output among the ~215 repositories mirrored "
        "here (every .ipynb blob of every ref scanned; ~60 forks carry the same output); the file index holds no "
        "notebooks, so others can only be found by fetching",
    ),
    (
        "executed-notebook and walk-through leads: verl's other notebooks, PR 92's earlier revisions (install cells "
        "only), johnrcumming/tinyzero's Colab re-run (its training cell failed at once), TinyZero reproductions "
        "(SambhavG, Aoi-cn, josephqiu123, xiiiiiiiiii), gongyisheng/playground, rodrigobaron.com's verl post, a "
        "Lambda Cloud verl guide, walkinglabs/hands-on-modern-rl, Modal's grpo_verl example, SEO copies",
        "no step output (scripts, plots, one-line summaries), LoRA, or not run",
    ),
    (
        "performance-comparison and regression threads: verl issues 4942, 3733, 1663, 1885, 3660, 1590, 4825, "
        "1982, 3005, 3263, 4495, 2703, 6747; PRs 7461 (Liger kernel), 7095, 7458, 2956, 1026, 4470, 3389's branch "
        "artefacts (results/dp_sp CSVs, REPORT.md), the SGLang weight-update PRs; docs/README_vllm0.7.md; FlowRL 6, "
        "POLARIS 16, ROLL 101, Search-R1/ReCall/DeepResearcher threads; every text file of the mirrored "
        "repositories grepped for `timing_s/gen` with a value (230 hits in 47 repositories, all already used or listed)",
        "questions without pasted timings, screenshots or percentages only, DeepSpeed or SGLang or Megatron arms, "
        "Ascend NPU, multi-turn agents, TRL/NeMo-RL",
    ),
    (
        "efficiency papers' artefact repositories with stock-verl baselines: DUMP, Thinkless, Short-RL, Laser, "
        "PipelineRL, QeRL, M2PO, Elastic-Reasoning, DLER, Reinforce-Ada, efficient-reasoning, PrefixGrouper, "
        "Precision-RL, LC-R1, DisCO, QuestA, KlearReasoner, critique-GRPO, GHPO, SPO (fetched, every ref listed); "
        "HistoSpec (zichongli5/verl), RollPacker (the paper's text), PolyTrace, verl-recipe (partial rollout, PR "
        "96's baseline), verl's fp8 / fully-async / one-step-off / delta-sync docs, Flash-RL issues 28 and 37",
        "no committed logs or metrics; baselines only as plots, stage shares, speedup ratios or run means without "
        "lengths; Megatron, MoE or SGLang arms; logs withheld on purpose (PolyTrace)",
    ),
    (
        "Hugging Face datasets MathMindsAGI/train_cost_data and RL-Forgetting-Experiments-3/mbpp-code-rl-artifacts",
        "only the dataset cards are stored; the rows cannot be read from here, and no config or GPU is given per row",
    ),
    # the seventh round's search (two helpers, 2026-12-04, after SEVENTH_FROZEN_REV)
    (
        "https://github.com/sunzx8/cluster_verl/blob/ef144f3affa430cc4bb09daa7b20053f8d5910cd/train.out",
        "USED (SEVENTH_RUNS), found by an exact-path probe (recipe/dapo/nohup.out) of its repository; its nohup.out "
        "(2 MB, a custom entry point with dynamic sampling and its own loss), output.txt and recipe/dapo/nohup.out (a "
        "step and a start-up crash) are not usable",
    ),
    (
        "committed consoles under other names: exact-path probes for nohup.out, train.out, run.out, *.out under "
        "recipe/, examples/, logs/, scripts/ (the index lists the first 100 repositories of each path); kyeun293/CD-RL, "
        "zhiyuanhubj/logic-rl-formula (start-up crashes), Foo1szz/verl train.out (4 responses a step, garbage "
        "outputs, GPU unidentifiable), LIU-Hao-2002/GRPO_project and Pratic2001/Qwen3-Non-MOE (not verl), "
        "ColorDavid/ARPO (a tool agent), AmongUs, M_GRPO, CriticCoT, RLVR-Decomposed, Verl-main (no output committed)",
        "crashes, toy or garbage runs, other trainers, agents, or nothing committed",
    ),
    (
        "executed notebooks: ~45 more repositories fetched and every blob of every ref scanned (TinyZero forks, "
        "Logic-RL, PRIME, JustRL, Skywork-OR1, ArcherCodeR, code-r1, verl forks), every .ipynb of the ~285 "
        "repositories mirrored here rescanned (248 notebooks with verl timing keys, all copies of verl's "
        "getting-started notebook); uqcxu9/qwen2.5_300step_NEW_CONSIS_RESULT RL/train.log, harishvs/rl_grpo_qwen_math",
        "no executed verl notebook but verl's own (SIXTH_RUNS); the one new log is LoRA (already rejected), the other "
        "repository its own trainer",
    ),
    # the eighth round's search (two helpers, 2026-12-04, after the geometric longest response, b5499f6): nothing usable
    (
        "exact-path probes in subfolders (logs/{grpo,ppo,dapo,main_ppo,verl,run,output,training,train_grpo,train_ppo,"
        "grpo_train}.log, outputs/ output/ results/ log/ train.log, scripts/train.out, root verl.log, ppo.log, "
        "train_log.txt, wandb/latest-run/files/{output.log,config.yaml,wandb-summary.json,wandb-metadata.json}, verl's "
        "file-logger JSONL names) and ~55 repositories fetched and every blob grepped (forks of Logic-RL, DeepScaleR, "
        "Skywork-OR1, Light-R1, ProRL, POLARIS; *-dapo, verl-train, verl-0, r1-repro, rl-math repositories; "
        "Awesome-ML-SYS-Tutorial)",
        "no stock verl console: other trainers (TRL, Unsloth, own GRPO loops, DeepSpeed), SFT runs, molecular dynamics, "
        "config prints with one step, or nothing committed; listings stop at the first 100 repositories of a path",
    ),
    (
        "https://github.com/jianghoucheng/Agent_On_Policy_Distillation wandb/run-*/files/output.log (a copy of "
        "Gen-Verse/Open-AgentRL's verl fork; 4-8 A800-SXM4-40GB)",
        "ReTool on-policy distillation: a multi-turn sandbox tool agent, and the ref is a 32B teacher distilling into "
        "a 1.5B/3B student (its timing_s/ref is a 32B forward pass)",
    ),
    (
        "issues and pages searched for pasted step lines and per-phase tables (verl issues 1885, 6747, PRs 1834, 5770; "
        "Agent-R1 32, marin 8653/9250, Absolute-Zero-Reasoner 13, RLPR 16; dtianyou.com's Qwen3-8B GRPO note on "
        "48 GB RTX 4090s, a zhihu/qingkeai RollPacker note, NVIDIA's verl slides, aiknowledge.cn, Mu-GRPO "
        "(arXiv 2605.17570), abhinavnandwani.com; five content-farm 'verl benchmark' posts and scraped mirrors)",
        "multi-turn or vision-language runs, NPUs, MoE, other stacks, plots or ratios only, pages stored only in part, "
        "or made-up step lines",
    ),
    # the ninth round's search (two helpers, 2026-12-04, after NINTH_FROZEN_REV)
    (
        "https://github.com/LLM360/Reasoning360/blob/3a830ea7f81dc5639779a470754ebd367c06f946/wandb/ (W&B binary run "
        "files committed on 2025-08-12, deleted by the next commit; found by scanning every blob, binaries included)",
        "USED (NINTH_RUNS: phayu0dj and 47bzde4v); its two 2-node runs (g1f0kn0m, rq9wk0jh) have one step after the "
        "first; eight more never trained past validation or start-up; six files of 4 MiB or more are absent from the "
        "snapshot",
    ),
    (
        "verl PRs 7945 (results branch kolehma8/verl: step-metrics.csv of Qwen3 1.7B-32B on 8 H200 / B300), 7461, "
        "7202, 5401, 7554, 6158; issues 3996, 7029, 1481; verl-SpeCo PR 48; vime, RL-Kernel, UniRL, Relax, "
        "Entropy-Mechanism-of-RL 18, RLVR-Decomposed 11, RLPR 16; forks of perf-PR authors (supercharleszhu, "
        "zhangxin81, sheilaliuxl, TarzanZhao); huggingface.co/core123456789/codev-r1-9b-rl-python (train.log not "
        "stored); cnblogs rh-li 19355977; MindSpeed-MM's verl plugin; verl docs' perf pages",
        "Megatron actor (7945), means or ratios only, no config or GPU, SGLang, NPUs, other frameworks, "
        "attachments out of reach, or no run data",
    ),
    (
        "pages (about 25 look-ups in English, Chinese and Japanese: content-farm 'verl 实测' articles, a course replay "
        "on one H800, qiita's SGLang switch, csdn tutorials) and ~45 repositories fetched with every blob scanned, "
        "binaries included (verl_* tutorial and log repositories, EMPO, Co-Reward, GPG, CURE, LUFFY, Online-DPO-R1, "
        "TTRL, LIMR, POLARIS, DeepMath, Absolute-Zero-Reasoner; forks of Reasoning360)",
        "made-up or partial logs, LoRA, Megatron, one step, or nothing committed",
    ),
    # the tenth round's search (one helper, 2026-12-04, after NINTH_FROZEN_REV; the model unchanged): committed W&B run
    # files, found by path (`find_files` on wandb/debug.log, wandb/latest-run and `ext=wandb`) and decoded
    (
        "https://github.com/PraMamba/cell-o1 (src/verl/wandb at bb8ad6f), https://github.com/MYC000801/DisCO (wandb/ at "
        "6e1610f), https://github.com/Luo-feng-hitsz/TRAVEL (verl/wandb at 633528a)",
        "USED (TENTH_RUNS: oydywru9; xxpq76ci and mmjzfp9z; f20c5m3t); their other runs are SFT, LoRA (TRAVEL's r=32 "
        "runs) or have too few steps",
    ),
    (
        "https://github.com/RitxmSaha/adversarial-training (4 W&B runs of verl 0.2's GSM8K quick-start, Qwen2.5-0.5B "
        "PPO and GRPO on one A10G)",
        "the GPU: NVIDIA publishes no figures for the A10G (the A10's datasheet is not the A10G's), so a device file "
        "would be a guess",
    ),
    (
        "committed wandb folders of about 110 verl-based repositories (NPG-Muse, Multiling-reasoning, GFT, TinyV, "
        "darling, simpleRL-reason, maxent-grpo, Backtrack, TON, Tool-N1, PRML-RLHF, llm4math, ProRAG, VEM, "
        "prm_shaping, Orthus, LoopCoT, DynaChain, LUFF05, myrl, and more listed as having no .wandb file)",
        "SFT, other trainers (TRL, OpenRLHF, OAT, slime, LLaMA-Factory, own loops), vision-language, debug logs only, "
        "config without steps, two steps, or files absent from the snapshot",
    ),
    # the eleventh round's search (one helper, 2026-12-04, the same method and freeze): nothing usable
    (
        "committed tracker files of about 150 more verl-based repositories: wandb/debug.log probes under ~25 more "
        "prefixes, repositories vendoring verl (18 layouts of verl/trainer/main_ppo.py, Logic-RL and TinyZero reward "
        "files, find_repos on verl / TinyZero / Logic-RL / DeepScaleR / simpleRL names) checked with ext=wandb, "
        "tensorboard_log/ of 20 forks; tianyang-x/domain-rlhf (8 RTX A6000, two .wandb files)",
        "no training step recorded (domain-rlhf: a config and step-0 validation only), non-verl projects, or no "
        "snapshot (lisadunlap/dementor); listings stop at the first 100 repositories of a path",
    ),
]
"""Public sources searched for more runs (for the generalisation test: constants frozen on RUNS, predicted on runs
they never saw) and why none was usable. Usable needs the config, the GPU, several steady steps with `timing_s/*`
and the measured mean lengths, on the FSDP trainer without LoRA."""


HYBRIDFLOW: dict[str, Any] = {
    "source": "https://arxiv.org/abs/2409.19256 (HybridFlow, §8: generation TP ablation on 8×A100-80GB)",
    "claim": "the fastest rollout TP for a 7B actor on 8 GPUs is 2 (60% lower generation latency than TP 8); "
    "for 13B it is 4 (36% lower than TP 8)",
    "gpu": "A100",
    "world": 8,
    "models": {"Llama-2-7B": 2, "Llama-2-13B": 4},
    "overrides": {
        "actor_rollout_ref.rollout.name": "vllm",
        "data.train_batch_size": 1024,
        "data.max_prompt_length": 1024,
        "data.max_response_length": 1024,
        "actor_rollout_ref.rollout.gpu_memory_utilization": 0.5,
        # not stated (verl's validation needs them; generation does not read them)
        "actor_rollout_ref.actor.ppo_micro_batch_size_per_gpu": 8,
        "actor_rollout_ref.rollout.log_prob_micro_batch_size_per_gpu": 8,
        "actor_rollout_ref.ref.log_prob_micro_batch_size_per_gpu": 8,
        "critic.ppo_micro_batch_size_per_gpu": 8,
    },
    "prompt_tokens": 1024.0,
    "response_tokens": 1024.0,
    "response_spread": 0.0,
    "vllm": "0.6.3",
}
"""HybridFlow's setup as the paper states it: prompts and responses of 1024 tokens, a global batch of 1024
prompts; the vLLM memory share is not stated (0.5, verl's default), nor is the vLLM version. The ranking depends on
the engine's CPU step per decode step, so the version matters: with the costs of vLLM 0.6-0.13 (here "0.6.3") the
model ranks TP 2 and TP 4 first, as the paper measured; with the pre-0.6 engine's 40 ms step, or with 0.14+'s async
overlap, it ranks TP 4 and TP 8 first. The paper predates 0.14 and verl's first release supported 0.3.1-0.6.3, so
the check holds for one plausible engine, not for every one."""


# ---------------------------------------------------------------------------------------------------------------
# The comparison
# ---------------------------------------------------------------------------------------------------------------
