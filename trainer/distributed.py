"""Process group set-up and communication accounting.

The backend follows the device: nccl on CUDA, gloo on CPU. `python -m trainer` without torchrun
runs as a world of one (an in-memory store, no ports).

How communication time is measured (`timing_s/comm`, `timing_s/comm/<phase>`): every collective
the trainer issues goes through `CommMeter` — FSDP2's all-gathers and reduce-scatters via its
`set_custom_all_gather` / `set_custom_reduce_scatter` hooks, and the trainer's own collectives
(resharding, rollout TP all-reduce, batch gathers) via `CommMeter.run`. The meter records the
wall time a rank spends *blocked* in a collective: the call itself plus any `wait()` on its
handle. That is the exposed (non-overlapped) communication: work that finishes in the background
while the rank computes costs nothing here. On CUDA the caller synchronises the stream before and
after a timed collective so kernel time is not hidden in later calls; the same synchronisation
makes the overlapped time invisible, which is why only exposed time is reported.
"""

from __future__ import annotations

import contextlib
import gc
import logging
import os
import sys
import time
from collections import defaultdict
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import timedelta
from typing import Any, NoReturn

import torch
import torch.distributed as dist
from torch.distributed.device_mesh import DeviceMesh, init_device_mesh


@dataclass
class DistEnv:
    rank: int
    world: int
    local_rank: int
    device: torch.device
    backend: str
    mesh: DeviceMesh

    @property
    def is_cuda(self) -> bool:
        return self.device.type == "cuda"


def init(timeout_s: float = 120.0) -> DistEnv:
    """Join (or create) the process group and a 1-D mesh over all ranks."""
    cuda = torch.cuda.is_available()
    backend = "nccl" if cuda else "gloo"
    world = int(os.environ.get("WORLD_SIZE", "1"))
    rank = int(os.environ.get("RANK", "0"))
    local_rank = int(os.environ.get("LOCAL_RANK", "0"))
    device = torch.device("cuda", local_rank) if cuda else torch.device("cpu")
    if cuda:
        torch.cuda.set_device(device)
    timeout = timedelta(seconds=timeout_s)
    if "MASTER_ADDR" in os.environ:
        dist.init_process_group(backend, timeout=timeout, device_id=device if cuda else None)
    else:
        dist.init_process_group(backend, store=dist.HashStore(), rank=0, world_size=1, timeout=timeout)
    mesh = init_device_mesh(device.type, (world,), mesh_dim_names=("fsdp",))
    return DistEnv(rank, world, local_rank, device, backend, mesh)


def shutdown() -> None:
    if dist.is_initialized():
        dist.destroy_process_group()


EXIT_THROUGH_INTERPRETER = "TRAINER_EXIT_THROUGH_INTERPRETER"
"""Set to 1 to leave a finished run through normal interpreter finalisation (the old, racy exit);
only `benchmarks/teardown_stress.py` and a slow test use it, to show the race the default avoids."""


def finish() -> None:
    """Every step is done on this rank: wait until every rank is done too.

    Called inside the run's error handling, so a peer lost at the very end is still reported.
    After this barrier no rank needs another rank's sockets, so each may leave on its own.
    """
    if dist.is_initialized() and dist.get_world_size() > 1:
        dist.barrier()


def leave(code: int = 0) -> NoReturn:
    """End a finished rank without racing gloo's threads against interpreter finalisation.

    Why `os._exit`: gloo runs each collective on a worker thread, and that thread drops its
    reference to the finished work (and so to its tensors) *after* the caller's `wait()` returned.
    When that drop is the last one, freeing a tensor that has a Python object needs the GIL; if the
    main thread has meanwhile entered `Py_FinalizeEx`, Python ends the worker thread while it is
    inside a C++ destructor, and the process aborts ("terminate called without an active
    exception", SIGABRT) after all the work was done. `destroy_process_group()` does not stop those
    threads: they are joined only when the last reference to the process group goes, and the
    DeviceMesh holding it stays referenced by the DTensor specs of the FSDP2 parameters (and
    DTensor's sharding caches), which nothing in our control can clear. So: the callers have dropped
    the models, optimizers and meshes (collected here), the process group is destroyed, every
    output stream is flushed (the metrics file was closed by the loop), and the process ends with
    `os._exit`, which never runs finalisation: the kernel ends all threads at once, no thread ever
    waits for the GIL of a dying interpreter. Nothing is lost by skipping finalisation: the trainer
    registers no atexit work whose effect outlives the process (files are written and closed in line).
    """
    gc.collect()
    shutdown()
    gc.collect()
    logging.shutdown()
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(OSError, ValueError):  # a closed or broken pipe: nothing can reach it anyway
            stream.flush()
    if os.environ.get(EXIT_THROUGH_INTERPRETER) == "1":
        sys.exit(code)
    os._exit(code)


class _TimedWork:
    """A collective handle whose wait() is charged to the meter."""

    def __init__(self, work: Any, meter: CommMeter, phase: str) -> None:
        self._work = work
        self._meter = meter
        self._phase = phase

    def wait(self, *args: Any, **kwargs: Any) -> Any:
        start = time.perf_counter()
        try:
            return self._work.wait(*args, **kwargs)
        finally:
            self._meter.add(self._phase, time.perf_counter() - start)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._work, name)


@dataclass
class CommMeter:
    """Seconds blocked in collectives, per phase, since the last `take()`."""

    sync: Callable[[], None] = lambda: None
    seconds: dict[str, float] = field(default_factory=lambda: defaultdict(float))
    bytes_received: dict[str, int] = field(default_factory=lambda: defaultdict(int))
    phase_override: str | None = None

    def add(self, phase: str, seconds: float) -> None:
        self.seconds[self.phase_override or phase] += seconds

    @contextmanager
    def phase(self, name: str) -> Iterator[None]:
        """Charge every collective inside (FSDP's included) to `name`."""
        previous, self.phase_override = self.phase_override, name
        try:
            yield
        finally:
            self.phase_override = previous

    def run(self, phase: str, fn: Callable[..., Any], *args: Any, received: int = 0, **kwargs: Any) -> Any:
        """Run a blocking collective and charge its time (and received bytes) to `phase`."""
        self.sync()
        start = time.perf_counter()
        try:
            out = fn(*args, **kwargs)
            if out is not None and hasattr(out, "wait"):
                out.wait()
            self.sync()
            return out
        finally:
            self.add(phase, time.perf_counter() - start)
            self.bytes_received[self.phase_override or phase] += received

    def timed_work(self, phase: str, work: Any) -> Any:
        return None if work is None else _TimedWork(work, self, phase)

    def take(self) -> tuple[dict[str, float], dict[str, int]]:
        seconds, received = dict(self.seconds), dict(self.bytes_received)
        self.seconds.clear()
        self.bytes_received.clear()
        return seconds, received


def fsdp_comm_hooks(meter: CommMeter) -> tuple[Any, Any]:
    """An AllGather and a ReduceScatter for FSDP2 that charge their blocking time to the meter."""
    from torch.distributed.fsdp._fully_shard._fsdp_collectives import DefaultAllGather, DefaultReduceScatter

    class TimedAllGather(DefaultAllGather):
        def __call__(
            self, output_tensor: torch.Tensor, input_tensor: torch.Tensor, group: Any, async_op: bool = False
        ) -> Any:
            start = time.perf_counter()
            work = super().__call__(output_tensor, input_tensor, group, async_op)
            meter.add("all_gather", time.perf_counter() - start)
            meter.bytes_received[meter.phase_override or "all_gather"] += (
                output_tensor.numel() * output_tensor.element_size()
            )
            return meter.timed_work("all_gather", work)

    class TimedReduceScatter(DefaultReduceScatter):
        def __call__(
            self,
            output_tensor: torch.Tensor,
            input_tensor: torch.Tensor,
            group: Any,
            op: Any,
            async_op: bool = False,
        ) -> Any:
            start = time.perf_counter()
            work = super().__call__(output_tensor, input_tensor, group, op, async_op)
            meter.add("reduce_scatter", time.perf_counter() - start)
            return meter.timed_work("reduce_scatter", work)

    return TimedAllGather(), TimedReduceScatter()


def all_gather_objects(obj: Any, world: int, meter: CommMeter, phase: str) -> list[Any]:
    out: list[Any] = [None] * world
    if world == 1:
        return [obj]
    meter.run(phase, dist.all_gather_object, out, obj)
    return out


def all_reduce_(tensor: torch.Tensor, meter: CommMeter, phase: str, op: Any = None) -> torch.Tensor:
    if dist.get_world_size() > 1:
        meter.run(phase, dist.all_reduce, tensor, op=op or dist.ReduceOp.SUM)
    return tensor
