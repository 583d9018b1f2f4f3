"""The tenth round: TENTH_RUNS, predicted with the cost model of NINTH_FROZEN_REV (unchanged since)."""

from __future__ import annotations

from typing import Any

from ._common import _OLD_ROLLOUT, DEVICES_DIR, MODELS

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
