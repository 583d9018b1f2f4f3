"""The fifth round: FIFTH_RUNS, predicted with the cost model of FIFTH_FROZEN_REV."""

from __future__ import annotations

from typing import Any

from ._common import MODELS

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
