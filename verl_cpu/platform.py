"""verl's platform interface implemented for the host CPU (gloo, no accelerator).

verl asks its platform for a device name, a `torch.<device>`-like module, a collective backend and
Ray resource names. On a CPU the answers are: device "cpu" (the device id is the string "cpu", so
`tensor.to(get_device_id())` stays on the host), backend gloo, and Ray's "GPU" resource (Ray is told
it has as many as there are ranks, because verl's resource check only counts GPUs/NPUs).

Memory statistics are the worker process's own host memory: `max_memory_allocated` is its peak
resident set (so verl's `actor/perf/max_memory_allocated_gb` is the actor's peak RSS, which the
batch-size knobs move), `memory_allocated` its current RSS; free/total device memory is zero.
verl's `perf/cpu_memory_used_gb` is the whole machine's used memory, shared with everything else.
"""

from __future__ import annotations

import types
from contextlib import contextmanager
from typing import Any

import torch
from verl.plugin.platform import PlatformBase, PlatformRegistry

PLATFORM_NAME = "cpu"


def gloo_backend(backend: Any) -> Any:
    """verl's `cpu:gloo,cpu:gloo` (the same device named twice) -> `gloo`; anything else unchanged."""
    if isinstance(backend, str) and "," in backend:
        parts = {part.split(":")[-1] for part in backend.split(",")}
        if parts == {"gloo"}:
            return "gloo"
    return backend


def peak_rss(*args: Any, **kwargs: Any) -> int:
    """This process's peak resident set in bytes (Linux reports kilobytes)."""
    import resource

    return int(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss) * 1024


def current_rss(*args: Any, **kwargs: Any) -> int:
    import psutil

    return int(psutil.Process().memory_info().rss)


def _noop(*args: Any, **kwargs: Any) -> None:
    return None


class _Event:
    """Stand-in for `torch.cuda.Event`: records wall time so elapsed_time still means something."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        self.t = 0.0

    def record(self, *args: Any, **kwargs: Any) -> None:
        import time

        self.t = time.perf_counter()

    def synchronize(self) -> None:
        return None

    def elapsed_time(self, end: _Event) -> float:
        return (end.t - self.t) * 1000.0


def device_module() -> types.ModuleType:
    """A `torch.cuda`-shaped namespace over `torch.cpu`: the calls verl makes, memory stats zero."""
    mod = types.ModuleType("verl_cpu.device")
    for name in ("synchronize", "current_stream", "stream", "Stream", "is_available", "device_count"):
        if hasattr(torch.cpu, name):
            setattr(mod, name, getattr(torch.cpu, name))
    mod.synchronize = _noop  # type: ignore[attr-defined]
    for name in ("memory_allocated", "memory_reserved", "memory_cached"):
        setattr(mod, name, current_rss)
    for name in ("max_memory_allocated", "max_memory_reserved", "max_memory_cached"):
        setattr(mod, name, peak_rss)
    for name in ("empty_cache", "reset_peak_memory_stats", "reset_max_memory_allocated", "set_device", "ipc_collect"):
        setattr(mod, name, _noop)
    mod.memory_stats = lambda *a, **k: {}  # type: ignore[attr-defined]
    mod.mem_get_info = lambda *a, **k: (0, 0)  # type: ignore[attr-defined]
    mod.current_device = lambda: "cpu"  # type: ignore[attr-defined]
    mod.is_available = lambda: True  # type: ignore[attr-defined]
    mod.device_count = lambda: 1  # type: ignore[attr-defined]
    mod.manual_seed = torch.manual_seed  # type: ignore[attr-defined]
    mod.manual_seed_all = torch.manual_seed  # type: ignore[attr-defined]
    mod.get_rng_state = torch.get_rng_state  # type: ignore[attr-defined]
    mod.set_rng_state = torch.set_rng_state  # type: ignore[attr-defined]
    mod.Event = _Event  # type: ignore[attr-defined]
    mod.get_device_name = lambda *a, **k: "cpu"  # type: ignore[attr-defined]
    mod.memory = types.SimpleNamespace(_set_allocator_settings=_noop)  # type: ignore[attr-defined]
    return mod


_DEVICE_MODULE = device_module()


@PlatformRegistry.register(platform=PLATFORM_NAME)
class PlatformCPU(PlatformBase):
    """The host CPU as a verl platform (selected with VERL_PLATFORM=cpu)."""

    @property
    def device_name(self) -> str:
        return "cpu"

    @property
    def vendor_name(self) -> str:
        return "cpu"

    @property
    def device_module(self) -> types.ModuleType:
        return _DEVICE_MODULE

    def is_available(self) -> bool:
        return True

    def is_platform_available(self, use_smi_check: bool = False) -> bool:
        return False  # never auto-detected: only VERL_PLATFORM=cpu selects it

    def current_device(self) -> Any:
        return "cpu"

    def device_count(self) -> int:
        return 1

    def set_device(self, device_index: int) -> None:
        return None

    def synchronize(self, device_index: int | None = None) -> None:
        return None

    def manual_seed(self, seed: int) -> None:
        torch.manual_seed(seed)

    def manual_seed_all(self, seed: int) -> None:
        torch.manual_seed(seed)

    def set_allocator_settings(self, settings: str) -> None:
        return None

    def empty_cache(self) -> None:
        return None

    def get_device_capability(self, device_index: int = 0) -> tuple[int | None, int | None]:
        return None, None

    def communication_backend_name(self) -> str:
        return "gloo"

    def visible_devices_envvar(self) -> str:
        return "CUDA_VISIBLE_DEVICES"

    @contextmanager
    def nvtx_range(self, msg: str):  # type: ignore[override]
        yield

    def profiler_start(self) -> None:
        return None

    def profiler_stop(self) -> None:
        return None

    def ray_resource_name(self) -> str:
        return "GPU"

    def ray_noset_envvars(self) -> list[str]:
        return []

    def is_ipc_supported(self) -> bool:
        return False

    def cudart(self) -> Any:
        return None
