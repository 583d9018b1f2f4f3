"""The fourth round: FOURTH_RUNS, predicted with the cost model of FOURTH_FROZEN_REV."""

from __future__ import annotations

from typing import Any

from ._common import MODELS

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
