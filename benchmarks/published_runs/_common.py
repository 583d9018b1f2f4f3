"""What several rounds share: verl's defaults of 2024-2025 written out as overrides, the first round's 1-GPU
Qwen2.5-0.5B PPO command (the sixth round's notebook ran it too), the folders of the model and device files
(benchmarks/models, benchmarks/devices), and the versions the first two rounds' runs imply where they give none."""

from __future__ import annotations

from pathlib import Path
from typing import Any

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

MODELS = Path(__file__).resolve().parent.parent / "models"
DEVICES_DIR = Path(__file__).resolve().parent.parent / "devices"


def _verl_before_0_7(runs: list[dict[str, Any]]) -> None:
    """The verl and vLLM versions of the first two rounds' runs, where a run does not give them."""
    for run in runs:
        # Every run of the first two rounds but the H200 fork's is of verl 0.1-0.5 (December 2024 to July 2025): their
        # logs time the weight sync inside `gen`, which verl stopped doing before 0.7. "0.5" stands for "before 0.7",
        # which is all the model asks (terms.ENGINE_WORKER_*). Those whose vLLM is not recorded ran one of verl's pins
        # of that time (0.6-0.8, after the pre-0.6 forks the logs would name): "0.8" stands for "0.6 to 0.13", which the
        # model costs alike (rollout.STEP_BASE, no async scheduling).
        run.setdefault("verl", "0.5")
        if run["verl"] == "0.5":
            run.setdefault("vllm", "0.8")
