"""Moving the actor's weights from the training layout (FSDP2 row shards over all W ranks) to the
rollout layout (a tensor-parallel shard per rank, TP size k, W/k data-parallel replicas).

Two ways, both timed as `timing_s/reshard` and counted in `rollout/received_mb/reshard`:

* **naive** — every rank all-gathers every full parameter, then keeps its TP slice. Simple; each
  rank receives (W-1)/W of the model and holds the whole model at its peak.
* **zero_redundancy** (default) — each rank receives only the rows/columns its TP shard needs,
  straight from the ranks whose FSDP shards hold them, in one `all_to_all`. A rank's receive
  volume is about its shard (1/k of the TP-split weights) plus the replicated ones (embedding,
  norms, head), and no rank ever holds the whole model when k > 1. This is HybridFlow's 3D-HybridEngine
  idea (arXiv 2409.19256 §5.4) specialised to FSDP (training TP = PP = 1): its zero-redundancy
  volume (tp - t_g p_g)/(t_g p_g t p)·M is the shard a rank lacks.

FSDP2 shards dim 0 like `torch.chunk`: rank s holds rows [s·c, min((s+1)·c, n)) with c = ceil(n/W).
Peak memory is counted exactly from the buffers each path allocates (weights and transfer buffers
alive at once), not sampled from the allocator.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

import torch
import torch.distributed as dist

from trainer.rollout.weights import tp_slice


@dataclass(frozen=True)
class Piece:
    """Rows [r0, r1) and columns [c0, c1) of parameter `name` (in full-tensor coordinates)."""

    name: str
    r0: int
    r1: int
    c0: int
    c1: int

    def numel(self, row_size: int) -> int:
        return (self.r1 - self.r0) * (self.c1 - self.c0) * row_size


@dataclass
class ReshardStats:
    received_bytes: int = 0
    peak_bytes: int = 0


def fsdp_rows(n: int, world: int, rank: int) -> tuple[int, int]:
    """Rows of dim 0 that FSDP2 rank `rank` holds (torch.chunk semantics)."""
    c = math.ceil(n / world)
    return min(rank * c, n), min((rank + 1) * c, n)


def needed(name: str, shape: torch.Size, tp_rank: int, tp_size: int) -> tuple[int, int, int, int]:
    """(r0, r1, c0, c1) of the full tensor that a rank with this TP index needs (c = dim 1, or 0..1 for 1-D)."""
    cols = shape[1] if len(shape) > 1 else 1
    cut = tp_slice(name, shape, tp_rank, tp_size)
    if cut is None:
        return 0, shape[0], 0, cols
    dim, start, stop = cut
    return (start, stop, 0, cols) if dim == 0 else (0, shape[0], start, stop)


def _row_size(shape: torch.Size) -> int:
    """Elements per (row, column) cell: the product of dims beyond the first two."""
    return math.prod(shape[2:]) if len(shape) > 2 else 1


def plan(shapes: dict[str, torch.Size], world: int, tp_size: int, src: int, dst: int) -> list[Piece]:
    """What rank `src` sends to rank `dst`, in a fixed order both sides agree on."""
    pieces = []
    for name, shape in shapes.items():
        s0, s1 = fsdp_rows(shape[0], world, src)
        r0, r1, c0, c1 = needed(name, shape, dst % tp_size, tp_size)
        lo, hi = max(s0, r0), min(s1, r1)
        if lo < hi and c0 < c1:
            pieces.append(Piece(name, lo, hi, c0, c1))
    return pieces


def _cut(local: torch.Tensor, piece: Piece, row_offset: int) -> torch.Tensor:
    block = local[piece.r0 - row_offset : piece.r1 - row_offset]
    if local.dim() > 1:
        block = block[:, piece.c0 : piece.c1]
    return block.reshape(-1)


def zero_redundancy(
    locals_: dict[str, torch.Tensor],
    shapes: dict[str, torch.Size],
    rank: int,
    world: int,
    tp_size: int,
    run: Callable[..., object],
    out: dict[str, torch.Tensor] | None = None,
) -> tuple[dict[str, torch.Tensor], ReshardStats]:
    """This rank's TP shard of every parameter, from the FSDP shards: one all_to_all per parameter.

    `locals_` are this rank's FSDP shards, `shapes` the full shapes, `run(fn, *args, received=...)`
    runs (and times) a collective; `out` reuses shard tensors kept from the previous step.

    Received blocks arrive in source-rank order, which is row order in the shard, so they land
    directly in the output tensor: the only transient buffer is one parameter's send buffer.
    """
    tp_rank = rank % tp_size
    sample = next(iter(locals_.values()))
    element = sample.element_size()
    if out is None:
        out = {}
        for name, shape in shapes.items():
            r0, r1, c0, c1 = needed(name, shape, tp_rank, tp_size)
            dims = (r1 - r0, *((c1 - c0,) if len(shape) > 1 else ()), *shape[2:])
            out[name] = torch.empty(dims, dtype=sample.dtype, device=sample.device)
    shard_bytes = sum(t.numel() for t in out.values()) * element
    stats = ReshardStats(peak_bytes=shard_bytes)
    for name, shape in shapes.items():
        one = {name: shape}
        sends = [plan(one, world, tp_size, rank, dst) for dst in range(world)]
        recvs = [plan(one, world, tp_size, src, rank) for src in range(world)]
        cell = _row_size(shape)
        send_sizes = [sum(p.numel(cell) for p in pieces) for pieces in sends]
        recv_sizes = [sum(p.numel(cell) for p in pieces) for pieces in recvs]
        row0 = fsdp_rows(shape[0], world, rank)[0]
        blocks = [_cut(locals_[name], p, row0) for pieces in sends for p in pieces]
        send = torch.cat(blocks) if blocks else sample.new_empty(0)
        recv = out[name].view(-1)
        received = (sum(recv_sizes) - recv_sizes[rank]) * element
        stats.received_bytes += received
        stats.peak_bytes = max(stats.peak_bytes, shard_bytes + send.numel() * element)
        if world == 1:
            recv.copy_(send)
        else:
            run(dist.all_to_all_single, recv, send, recv_sizes, send_sizes, received=received)
    return out, stats


def naive(
    params: dict[str, torch.Tensor],
    shapes: dict[str, torch.Size],
    rank: int,
    world: int,
    tp_size: int,
    run: Callable[..., object],
) -> tuple[dict[str, torch.Tensor], ReshardStats]:
    """All-gather every full parameter, then keep a view of the TP slice (the full tensors stay alive).

    The baseline the benchmark compares with: each rank receives (W-1)/W of the model and holds
    all of it, whatever k is.
    """
    stats = ReshardStats()
    out = {}
    for name, shape in shapes.items():
        param = params[name]
        element = param.element_size()
        full_bytes = math.prod(shape) * element
        received = full_bytes * (world - 1) // world
        full = run(param.full_tensor, received=received) if hasattr(param, "full_tensor") else param
        assert isinstance(full, torch.Tensor)
        stats.received_bytes += received
        stats.peak_bytes += full_bytes
        cut = tp_slice(name, full.shape, rank % tp_size, tp_size)
        out[name] = full if cut is None else full.narrow(cut[0], cut[1], cut[2] - cut[1])
    return out, stats
