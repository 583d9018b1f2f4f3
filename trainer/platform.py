"""Which knobs act on this platform and which are inert, so nobody tunes a knob blind.

The run header carries this table, and the autotune controller asks it (without launching a
trainer) before a sweep, to warn about tuned keys that cannot change anything here.
"""

from __future__ import annotations

from typing import Literal

DeviceKind = Literal["cpu", "cuda"]

ENV_PREFIXES = ("NCCL_", "CUDA_DEVICE_MAX_CONNECTIONS", "TORCH_NCCL_")

_ALWAYS_INERT = {
    "actor_rollout_ref.rollout.name": "this trainer always samples with its own KV-cache loop",
    "actor_rollout_ref.rollout.gpu_memory_utilization": "vLLM setting; this trainer's KV cache is sized per batch",
    "actor_rollout_ref.rollout.max_num_batched_tokens": "vLLM setting; this trainer prefills each batch at once",
    "actor_rollout_ref.rollout.enable_chunked_prefill": "vLLM setting; not implemented here",
    "trainer.n_gpus_per_node": "the world size comes from torchrun",
    "trainer.nnodes": "the world size comes from torchrun",
}

_CPU_INERT = {
    "actor_rollout_ref.actor.fsdp_config.param_offload": "parameters already live in host memory on a CPU run",
    "actor_rollout_ref.actor.fsdp_config.optimizer_offload": "optimizer state already lives in host memory on a CPU run",
    "actor_rollout_ref.actor.fsdp_config.offload_policy": "offloading to the CPU is a no-op on a CPU run",
    "actor_rollout_ref.ref.fsdp_config.param_offload": "parameters already live in host memory on a CPU run",
    "actor_rollout_ref.ref.fsdp_config.offload_policy": "offloading to the CPU is a no-op on a CPU run",
    "actor_rollout_ref.actor.fsdp_config.model_dtype": "bf16 matmuls on CPU are emulated; measured cost is not a GPU's",
}

_CPU_PARTIAL = {
    "actor_rollout_ref.actor.fsdp_config.forward_prefetch": (
        "active, but gloo collectives run on the calling thread, so prefetch cannot overlap compute on CPU"
    ),
    "actor_rollout_ref.ref.fsdp_config.forward_prefetch": (
        "active, but gloo collectives run on the calling thread, so prefetch cannot overlap compute on CPU"
    ),
}


def knob_status(key: str, device: DeviceKind, world: int = 1) -> tuple[bool, str]:
    """(active, why) for a dotted config key or an `env.NAME` environment variable."""
    if key.startswith("env."):
        name = key[4:]
        if any(name.startswith(p) for p in ENV_PREFIXES):
            if device == "cpu":
                return False, f"{name} configures NCCL/CUDA; a CPU run uses gloo"
            if world == 1 and name.startswith("NCCL_"):
                return False, f"{name} has no effect with a single rank (no collectives cross devices)"
        return True, "passed to every rank's environment"
    if key in _ALWAYS_INERT:
        return False, _ALWAYS_INERT[key]
    if device == "cpu" and key in _CPU_INERT:
        return False, _CPU_INERT[key]
    if device == "cpu" and key in _CPU_PARTIAL:
        return True, _CPU_PARTIAL[key]
    if world == 1 and key.endswith(("forward_prefetch", "reshard_after_forward")):
        return False, "FSDP with a single rank has nothing to gather"
    return True, "honoured"


def inert_table(device: DeviceKind, world: int, env_names: list[str]) -> dict[str, str]:
    """Every inert knob of this platform with its reason (for the run header)."""
    keys = [*_ALWAYS_INERT, *_CPU_INERT, *_CPU_PARTIAL, *(f"env.{n}" for n in env_names)]
    keys += [
        "actor_rollout_ref.actor.fsdp_config.forward_prefetch",
        "actor_rollout_ref.actor.fsdp_config.reshard_after_forward",
    ]
    table = {}
    for key in dict.fromkeys(keys):
        active, why = knob_status(key, device, world)
        if not active or key in _CPU_PARTIAL:
            table[key] = ("partial: " if active else "inert: ") + why
    return table
