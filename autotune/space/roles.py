"""Every knob's role: `systems` (meant to change speed and memory, never the training math) or
`algorithm` (changes what is learned).

The throughput stage searches systems knobs only; algorithm knobs stay at their baseline value in
its trials and in its export, because a short throughput trial cannot see what they do to
learning. A space may set `role:` on a param; otherwise the built-in table below decides, for
verl's keys (0.9.x), the built-in trainer's `builtin.*` keys, and `env.*` (environment variables:
NCCL, CUDA, allocator settings — always systems). A variable (a param without dots) takes the
role of the derived keys it feeds: algorithm when any of them is.

The table is a list of glob patterns (`*` spans dots) matched in order, first match wins: the
specific exceptions sit above the rule for their section. Precision (`dtype`, `*_dtype`,
quantization) counts as algorithm: it changes the numbers computed, beyond any tolerance an
equivalence check could state. Bookkeeping (logging, checkpoints, profiling, the built-in
trainer's fault injection for tests) changes no math and is systems. A key no pattern matches
has no role: the space must say which it is.
"""

from __future__ import annotations

from fnmatch import fnmatchcase
from typing import Literal, get_args

Role = Literal["systems", "algorithm"]
ROLES: tuple[Role, ...] = get_args(Role)

_SYSTEMS: Role = "systems"
_ALGORITHM: Role = "algorithm"

RULES: tuple[tuple[str, Role], ...] = (
    ("env.*", _SYSTEMS),
    # precision and quantization change the numbers themselves
    ("*dtype", _ALGORITHM),
    ("*.qat.*", _ALGORITHM),
    ("*.qat", _ALGORITHM),
    ("*.quantization*", _ALGORITHM),
    ("*.lora.*", _ALGORITHM),
    ("*.lora_*", _ALGORITHM),
    ("*.seed", _ALGORITHM),
    ("*data_loader_seed", _ALGORITHM),
    # sharding, parallelism, offload, prefetch, compile, recompute: speed and memory only
    ("*.fsdp_config.*", _SYSTEMS),
    ("critic.fsdp.*", _SYSTEMS),
    ("*.profiler.*", _SYSTEMS),
    ("global_profiler.*", _SYSTEMS),
    ("*.checkpoint.*", _SYSTEMS),
    ("*.checkpoint_engine.*", _SYSTEMS),
    ("*parallel_size", _SYSTEMS),
    ("*.strategy", _SYSTEMS),
    ("*use_dynamic_bsz", _SYSTEMS),
    ("*micro_batch_size*", _SYSTEMS),
    ("*max_token_len_per_gpu", _SYSTEMS),
    ("*use_remove_padding", _SYSTEMS),
    ("*use_torch_compile", _SYSTEMS),
    ("*use_fused_kernels", _SYSTEMS),
    ("*fused_kernel_options.*", _SYSTEMS),
    ("*use_liger", _SYSTEMS),
    ("*enable_gradient_checkpointing", _SYSTEMS),
    ("*enable_activation_offload", _SYSTEMS),
    ("*tiled_mlp.*", _SYSTEMS),
    ("*entropy_checkpointing", _SYSTEMS),
    ("*entropy_from_logits*", _SYSTEMS),
    ("*pad_to_length*", _SYSTEMS),
    ("*use_shm", _SYSTEMS),
    ("*trust_remote_code", _SYSTEMS),
    ("*.n_gpus_per_node", _SYSTEMS),
    ("*.nnodes", _SYSTEMS),
    ("*.num_workers", _SYSTEMS),
    ("*.enable_resource_pool", _SYSTEMS),
    # the rollout engine: memory, batching, caching, graphs, weight sync
    ("*rollout.name", _SYSTEMS),
    ("*rollout.mode", _SYSTEMS),
    ("*.gpu_memory_utilization", _SYSTEMS),
    ("*.free_cache_engine", _SYSTEMS),
    ("*.max_num_batched_tokens", _SYSTEMS),
    ("*.max_num_seqs", _SYSTEMS),
    ("*.max_model_len", _SYSTEMS),
    ("*.enable_chunked_prefill", _SYSTEMS),
    ("*.enable_prefix_caching", _SYSTEMS),
    ("*.enforce_eager", _SYSTEMS),
    ("*.cudagraph_capture_sizes", _SYSTEMS),
    ("*.load_format", _SYSTEMS),
    ("*.layered_summon", _SYSTEMS),
    ("*.disable_log_stats", _SYSTEMS),
    ("*.engine_kwargs*", _SYSTEMS),
    ("*.skip_tokenizer_init", _SYSTEMS),
    ("*.multi_stage_wake_up", _SYSTEMS),
    ("*.disaggregation.*", _SYSTEMS),
    ("*.prometheus.*", _SYSTEMS),
    ("*.trace.*", _SYSTEMS),
    ("*.moe_load_balance_metrics_interval", _SYSTEMS),
    ("*.limit_images", _SYSTEMS),
    ("*.full_determinism", _SYSTEMS),
    ("*.scheduling_policy", _SYSTEMS),
    ("*.router_config_path", _SYSTEMS),
    ("*.agent.num_workers", _SYSTEMS),
    ("*.agent.custom_async_server.*", _SYSTEMS),
    ("actor_rollout_ref.hybrid_engine", _SYSTEMS),
    ("actor_rollout_ref.nccl_timeout", _SYSTEMS),
    ("model_engine", _SYSTEMS),
    # process, data loading and bookkeeping around the math
    ("ray_kwargs.*", _SYSTEMS),
    ("transfer_queue.*", _SYSTEMS),
    ("data.dataloader_num_workers", _SYSTEMS),
    ("data.filter_overlong_prompts_workers", _SYSTEMS),
    ("sandbox_fusion.max_concurrent", _SYSTEMS),
    ("reward.sandbox_fusion.max_concurrent", _SYSTEMS),
    ("trainer.balance_batch", _SYSTEMS),
    ("trainer.device", _SYSTEMS),
    ("trainer.logger", _SYSTEMS),
    ("trainer.project_name", _SYSTEMS),
    ("trainer.experiment_name", _SYSTEMS),
    ("trainer.metrics_file", _SYSTEMS),
    ("trainer.*ckpt*", _SYSTEMS),
    ("trainer.save_freq", _SYSTEMS),
    ("trainer.test_freq", _SYSTEMS),
    ("trainer.val_*", _SYSTEMS),
    ("trainer.log_val_generations", _SYSTEMS),
    ("trainer.validation_data_dir", _SYSTEMS),
    ("trainer.rollout_data_dir", _SYSTEMS),
    ("trainer.default_*_dir", _SYSTEMS),
    ("trainer.resume_*", _SYSTEMS),
    ("trainer.checkpoint_callback_class", _SYSTEMS),
    ("trainer.esi_redundant_time", _SYSTEMS),
    ("trainer.ray_wait_register_center_timeout", _SYSTEMS),
    ("actor_rollout_ref.rollout.val_kwargs.*", _SYSTEMS),  # validation sampling: not the trained policy's data
    ("data.val_*", _SYSTEMS),
    ("data.validation_shuffle", _SYSTEMS),
    # the built-in trainer's own knobs
    ("builtin.fault.*", _SYSTEMS),  # test-only fault injection: changes how a run ends, not what it learns
    ("builtin.rollout_reshard", _SYSTEMS),
    ("builtin.on_policy_bypass", _SYSTEMS),  # skips a pass only when it provably returns what the update uses
    ("builtin.peak_flops", _SYSTEMS),
    ("builtin.*", _ALGORITHM),  # the tiny model, the task, the warm start
    # what is learned, from what, and how fast
    ("algorithm.*", _ALGORITHM),
    ("actor_rollout_ref.actor.*", _ALGORITHM),
    ("actor_rollout_ref.ref.*", _ALGORITHM),
    ("actor_rollout_ref.rollout.*", _ALGORITHM),
    ("actor_rollout_ref.model.*", _ALGORITHM),
    ("critic.*", _ALGORITHM),
    ("data.*", _ALGORITHM),
    ("reward.*", _ALGORITHM),
    ("reward_model.*", _ALGORITHM),
    ("custom_reward_function.*", _ALGORITHM),
    ("sandbox_fusion.*", _ALGORITHM),
    ("distillation.*", _ALGORITHM),
    ("skip.*", _ALGORITHM),  # replays dumped rollouts instead of generating them
    ("trainer.*", _ALGORITHM),  # steps, epochs, critic warm-up, the async (off-policy) trainers
)
"""(pattern, role), first match wins."""


def table_role(key: str) -> Role | None:
    """The built-in role of a config key or `env.NAME`; None when the table does not know it."""
    for pattern, role in RULES:
        if fnmatchcase(key, pattern):
            return role
    return None


def role_fix(name: str) -> str:
    """How to give a knob the table does not know a role (the end of an error message)."""
    return f"add `role: systems` or `role: algorithm` to param `{name}`"
