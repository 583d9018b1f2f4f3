"""`perf/tensor_memory_gb`: the trainer's own tensor memory, the figure device memory gives on a GPU.

A CPU process's peak RSS is dominated by the interpreter, torch and transformers (hundreds of MB
against a ~1 MB model), so it barely moves with the knobs. This meter adds up the bytes of the
tensors the trainer itself holds, at the moments each phase peaks, and reports the peak over the
step (the trainer takes the max over ranks):

* parameters: each model's local FSDP shards (counted once, they never change size);
* unsharded parameters: the storages FSDP2 all-gathers into (measured: a resharded parameter's
  storage has size 0), so `reshard_after_forward=false`, which keeps them between forward and
  backward, shows up as a GPU would show it;
* gradients and optimizer state (AdamW's moments), as they exist at the moment;
* activations saved for backward (measured with `saved_tensors_hooks` during each forward, so
  they scale with the micro-batch) plus the output of the module that just ran;
* rollout weights and KV cache (reported by the hybrid engine and the sampler).

Samples are taken at FSDP unit boundaries (after a unit's all-gather, after its forward), after
each backward and around rollout. It is an accounting of live tensors, not of the allocator: it
does not see allocator fragmentation or short-lived temporaries inside one kernel.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import torch
from torch import nn
from torch.distributed.fsdp import FSDPModule


def _nbytes(tensor: torch.Tensor) -> int:
    local = getattr(tensor, "_local_tensor", tensor)  # a DTensor's shard on this rank (to_local() is slower)
    return local.numel() * local.element_size()


def _outputs_bytes(output: Any) -> int:
    if isinstance(output, torch.Tensor):
        return _nbytes(output)
    if isinstance(output, (tuple, list)):
        return sum(_outputs_bytes(o) for o in output)
    logits = getattr(output, "logits", None)
    return _nbytes(logits) if isinstance(logits, torch.Tensor) else 0


def _unsharded_storages(module: nn.Module) -> list[torch.UntypedStorage]:
    """The storages FSDP2 all-gathers this unit's parameters into (size 0 while resharded)."""
    if not isinstance(module, FSDPModule):
        return []
    group = getattr(module._get_fsdp_state(), "_fsdp_param_group", None)  # FSDP2 internals (torch 2.6+)
    if group is None:
        return []
    return [t.untyped_storage() for p in group.fsdp_params for t in getattr(p, "all_gather_outputs", [])]


class TensorMemory:
    """Peak bytes of the trainer's tensors over a step (see the module docstring for what counts)."""

    def __init__(self) -> None:
        self.params: list[torch.Tensor] = []
        """Every tracked model's sharded parameters (FSDP2 puts the gradients on these)."""
        self.units: list[nn.Module] = []
        self.optimizers: list[torch.optim.Optimizer] = []
        self.param_bytes = 0
        self.saved_bytes = 0
        self.rollout_bytes = 0
        """Rollout weights kept between steps (`free_cache_engine=false`), set by the hybrid engine."""
        self.peak_bytes = 0
        self._storages: list[list[torch.UntypedStorage]] = []
        self._saved_ptrs: set[int] = set()
        self._state: int | None = None

    def track(self, model: nn.Module, units: list[nn.Module]) -> None:
        """Count `model`'s parameters; sample at each FSDP unit's forward (after its all-gather, after its output)."""
        sharded = list(model.parameters())  # while unsharded, the module exposes other (unsharded) parameters
        self.params.extend(sharded)
        self.units.extend(units)
        self.param_bytes += sum(_nbytes(p) for p in sharded)
        for unit in units:
            # appended after FSDP's own hooks: the pre-hook sees the unit unsharded, the post-hook resharded
            unit.register_forward_pre_hook(lambda *_: self.sample())
            unit.register_forward_hook(lambda _m, _i, out: self.sample(_outputs_bytes(out)))

    def track_optimizer(self, optimizer: torch.optim.Optimizer) -> None:
        """Count the optimizer's state; sample after each step (the state exists from the first step on)."""
        self.optimizers.append(optimizer)
        optimizer.register_step_post_hook(lambda *_: self._stepped())

    def _stepped(self) -> None:
        self._state = None  # the step created optimizer state (first step)
        self.sample()  # gradients and the new state, both live
        self._state = None  # the caller zeroes the gradients next

    def unsharded_bytes(self) -> int:
        if len(self._storages) < len(self.units):  # FSDP2 creates a unit's all-gather buffers lazily, then reuses them
            self._storages = [s for unit in self.units if (s := _unsharded_storages(unit))]
        return sum(s.nbytes() for unit in self._storages for s in unit)

    def state_bytes(self) -> int:
        """Gradients and optimizer state (recounted only after a backward or an optimizer step changed them)."""
        if self._state is None:
            total = sum(_nbytes(p.grad) for p in self.params if p.grad is not None)
            for optimizer in self.optimizers:
                for state in optimizer.state.values():
                    total += sum(_nbytes(v) for v in state.values() if isinstance(v, torch.Tensor))
            self._state = total
        return self._state

    def sample(self, transient: int = 0) -> None:
        """Record the bytes live now (+ `transient`: tensors only the caller knows about)."""
        now = self.param_bytes + self.unsharded_bytes() + self.state_bytes() + self.saved_bytes + self.rollout_bytes
        now += transient
        self.peak_bytes = max(self.peak_bytes, now)

    @contextmanager
    def forward(self) -> Iterator[None]:
        """Count the activations autograd saves for backward while inside (one micro-batch's forward)."""

        def pack(tensor: torch.Tensor) -> torch.Tensor:
            base = tensor if tensor._base is None else tensor._base
            if not (base.is_leaf and base.requires_grad):  # parameters (and views of them) count as parameters
                ptr = tensor.untyped_storage().data_ptr()
                if ptr not in self._saved_ptrs:
                    self._saved_ptrs.add(ptr)
                    self.saved_bytes += tensor.untyped_storage().nbytes()
            return tensor

        with torch.autograd.graph.saved_tensors_hooks(pack, lambda t: t):
            yield

    def backward_done(self) -> None:
        """The micro-batch's backward ran: its saved activations are freed, its gradients exist."""
        self.saved_bytes = 0
        self._saved_ptrs.clear()
        self._state = None
        self.sample()

    def take(self) -> float:
        """Peak since the last take, in GiB; starts the next step from what is live now."""
        peak = self.peak_bytes
        self.peak_bytes = 0
        self._state = None
        self.sample()
        return peak / 1024**3
