"""The second round: NEW_RUNS, the first runs gathered to test the cost model on runs it never saw."""

from __future__ import annotations

from typing import Any

from ._common import _DEC_2024, _OLD_ROLLOUT, DEVICES_DIR, MODELS, _verl_before_0_7

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
        "gpu": str(DEVICES_DIR / "rtx4090.yaml"),
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
        "model": str(MODELS / "Llama-3.2-1B-Instruct.json"),
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

_verl_before_0_7(NEW_RUNS)
