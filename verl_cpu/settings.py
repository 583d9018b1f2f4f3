"""The overrides and environment a verl run needs to use this plugin (one call, for a world size)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from verl_cpu.assets import Assets, build

PACKAGE_PARENT = Path(__file__).resolve().parent.parent
REWARD_FILE = Path(__file__).resolve().parent / "reward.py"


@dataclass(frozen=True)
class PluginSettings:
    """What to add to `python -m verl.trainer.main_ppo` for a CPU run."""

    overrides: list[str]
    """hydra overrides: platform and resources (always needed) then the offline task (`task=True`)."""
    env: dict[str, str]
    """environment for the launcher (Ray's workers inherit it); every value a string."""

    def __post_init__(self) -> None:
        bad = [k for k, v in self.env.items() if not isinstance(v, str)]
        if bad:
            raise ValueError(f"environment values must be strings, got {bad}")


def plugin_settings(
    world_size: int, assets: Assets | None = None, ray_temp_dir: str | None = None, task: bool = True
) -> PluginSettings:
    """Overrides + environment that run verl's main_ppo on `world_size` CPU ranks (gloo).

    `task=True` also points the model, data and reward at the offline digit-sorting task (built
    on first use under `assets`' root, ~/.cache/autotune/verl_cpu by default).
    """
    if world_size < 1:
        raise ValueError(f"world_size must be at least 1, got {world_size}")
    overrides = [
        "trainer.device=cpu",
        "trainer.nnodes=1",
        f"trainer.n_gpus_per_node={world_size}",
        f"+ray_kwargs.ray_init.num_gpus={world_size}",  # verl's resource check counts GPUs only
        "ray_kwargs.ray_init.num_cpus=64",  # logical slots for verl's many small actors
        "+ray_kwargs.ray_init.include_dashboard=false",
        "actor_rollout_ref.rollout.name=hf",
        "actor_rollout_ref.rollout.free_cache_engine=false",
        "actor_rollout_ref.rollout.tensor_model_parallel_size=1",  # the hf rollout runs one model per replica
        "+actor_rollout_ref.model.override_config.attn_implementation=sdpa",
        "actor_rollout_ref.model.use_remove_padding=false",  # flash-attn varlen kernels are CUDA-only
        "actor_rollout_ref.actor.strategy=fsdp2",  # FSDP1's sync_module_states needs a GPU
        "critic.strategy=fsdp2",
        "actor_rollout_ref.actor.use_torch_compile=false",
        "actor_rollout_ref.actor.fsdp_config.use_torch_compile=false",
        "actor_rollout_ref.ref.fsdp_config.use_torch_compile=false",
        "actor_rollout_ref.actor.fsdp_config.dtype=float32",
        "actor_rollout_ref.ref.fsdp_config.dtype=float32",
        "transfer_queue.backend.SimpleStorage.num_data_storage_units=1",  # more actors than cores hung
        "reward.num_workers=1",
        "actor_rollout_ref.rollout.agent.num_workers=1",  # one agent-loop process, not 8
        "data.dataloader_num_workers=0",
    ]
    if ray_temp_dir is not None:
        overrides.append(f"+ray_kwargs.ray_init._temp_dir={ray_temp_dir}")
    if task:
        built = assets or build()
        overrides += [
            f"actor_rollout_ref.model.path={built.model_dir}",
            f"data.train_files={built.train_file}",
            f"data.val_files={built.val_file}",
            f"reward.custom_reward_function.path={REWARD_FILE}",
            "reward.custom_reward_function.name=compute_score",
        ]
    env = {
        "VERL_USE_EXTERNAL_MODULES": "verl_cpu.plugin",
        "VERL_PLATFORM": "cpu",
        "VERL_ENGINE_DEVICE": "cuda",  # verl registers its FSDP engine for cuda/npu only
        "RAY_DEDUP_LOGS": "0",  # every rank's lines reach the console
        "TOKENIZERS_PARALLELISM": "false",
        "PYTHONPATH": str(PACKAGE_PARENT),
    }
    return PluginSettings(overrides, env)
