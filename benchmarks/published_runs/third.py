"""The third round: THIRD_RUNS, predicted with the cost model of THIRD_FROZEN_REV."""

from __future__ import annotations

from typing import Any

from ._common import DEVICES_DIR, MODELS

THIRD_FROZEN_REV = "023bf29"
"""The revision whose cost model the third round of runs (THIRD_RUNS) is predicted with, committed before any of them
was looked at: the last model change (the critic's own N, terms.critic_params) is in it. No constant, default or term
of the model changed after it; a change would need a fourth round to test."""

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
