"""Loaded inside every verl process through `VERL_USE_EXTERNAL_MODULES=verl_cpu.plugin`.

Importing it registers the CPU platform (selected with `VERL_PLATFORM=cpu`) and the `hf` rollout,
and patches the two things verl does that cannot work on a CPU without editing verl:

* `torch.distributed.init_process_group(backend="cpu:gloo,cpu:gloo")`: verl builds the backend
  string `cpu:gloo,<device>:<backend>`, which on a CPU names the same device twice; it is reduced
  to `gloo`.
* FSDP2's `CPUOffloadPolicy(pin_memory=True)` (verl's reference model): pinned memory needs an
  accelerator; the policy is built with `pin_memory=False`.
* the V1 trainer's replay buffer polls the TransferQueue every 2 s, which on a tiny CPU job is most of
  a step (every `timing_s/gen` a multiple of 2 s, hiding the knobs); it polls every 50 ms here.
* `torch.cuda` calls verl makes directly (synchronize, memory statistics, RNG state): no-ops or
  zeros instead of "Torch not compiled with CUDA enabled".
"""

from __future__ import annotations

import functools
import importlib.abc
import importlib.util
import sys
from typing import Any

import torch
import torch.distributed
import torch.distributed.fsdp
from torch.distributed.fsdp import CPUOffloadPolicy

from verl_cpu.version import check_verl_version

check_verl_version()

from verl_cpu import platform as _platform  # noqa: E402  (registers the platform)


def _register_rollout() -> None:
    """`rollout.name=hf` -> verl_cpu.rollout, by name: that module imports verl, which imports this one."""
    import importlib

    from verl.workers.rollout.base import _ROLLOUT_REGISTRY
    from verl.workers.rollout.replica import RolloutReplicaRegistry

    _ROLLOUT_REGISTRY[("hf", "async")] = "verl_cpu.rollout.HFServerAdapter"
    RolloutReplicaRegistry.register("hf", lambda: importlib.import_module("verl_cpu.rollout").HFReplica)


_register_rollout()

POLL_INTERVAL_S = 0.05


def _patch_replay_buffer(module: Any) -> None:
    original = module.ReplayBuffer.__init__

    @functools.wraps(original)
    def __init__(self: Any, *args: Any, **kwargs: Any) -> None:
        original(self, *args, **kwargs)
        self.poll_interval = min(self.poll_interval, POLL_INTERVAL_S)

    module.ReplayBuffer.__init__ = __init__


class _AfterImport(importlib.abc.MetaPathFinder):
    """Runs a patch right after one module is imported, without importing it early (it pulls in
    verl's trainer and engines, seconds in every Ray worker that never uses it)."""

    def __init__(self, name: str, patch: Any) -> None:
        self.name, self.patch = name, patch

    def find_spec(self, fullname: str, path: Any, target: Any = None) -> Any:
        if fullname != self.name:
            return None
        sys.meta_path.remove(self)
        spec = importlib.util.find_spec(fullname)
        sys.meta_path.insert(0, self)
        if spec is None or spec.loader is None:
            return spec
        exec_module, patch = spec.loader.exec_module, self.patch

        def run(module: Any) -> None:
            exec_module(module)
            patch(module)

        spec.loader.exec_module = run  # type: ignore[method-assign]
        return spec


def _fast_replay_buffer_polls() -> None:
    name = "verl.trainer.ppo.v1.replay_buffer"
    if name in sys.modules:
        _patch_replay_buffer(sys.modules[name])
    else:
        sys.meta_path.insert(0, _AfterImport(name, _patch_replay_buffer))


_fast_replay_buffer_polls()


_init_process_group = torch.distributed.init_process_group


@functools.wraps(_init_process_group)
def init_process_group(*args: Any, **kwargs: Any) -> Any:
    if "backend" in kwargs:
        kwargs["backend"] = _platform.gloo_backend(kwargs["backend"])
    elif args:
        args = (_platform.gloo_backend(args[0]), *args[1:])
    return _init_process_group(*args, **kwargs)


torch.distributed.init_process_group = init_process_group


class HostOffloadPolicy(CPUOffloadPolicy):
    """FSDP2's CPU offload without pinned memory (pinning needs an accelerator)."""

    def __init__(self, pin_memory: bool = False) -> None:
        super().__init__(pin_memory=False)


if not torch.cuda.is_available():
    setattr(torch.distributed.fsdp, "CPUOffloadPolicy", HostOffloadPolicy)  # noqa: B010
    if "verl.utils.fsdp_utils" in sys.modules:
        setattr(sys.modules["verl.utils.fsdp_utils"], "CPUOffloadPolicy", HostOffloadPolicy)  # noqa: B010

if not torch.cuda.is_available():
    _stubs = _platform.device_module()
    for _name in (
        "synchronize",
        "empty_cache",
        "memory_allocated",
        "max_memory_allocated",
        "memory_reserved",
        "max_memory_reserved",
        "reset_peak_memory_stats",
        "mem_get_info",
        "memory_stats",
        "ipc_collect",
        "set_device",
        "current_device",
    ):
        setattr(torch.cuda, _name, getattr(_stubs, _name))
    torch.cuda.get_rng_state = lambda *a, **k: torch.get_rng_state()  # type: ignore[assignment]
    torch.cuda.set_rng_state = lambda *a, **k: None  # type: ignore[assignment]
