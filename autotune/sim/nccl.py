"""Collective time from message size and protocol: latency + size / bandwidth, per NCCL protocol.

NCCL's own model (src/graph/tuning.cc), NVLink: per-hop latency LL 0.6, LL128 1.9, Simple 3.4 µs
plus a base latency of 6.6, 14 and 8.4 µs; LL reaches ~0.5 of the bandwidth, LL128 ~0.92, Simple
all of it. NCCL picks the fastest protocol per size unless NCCL_PROTO forces one. Ring busbw
relates to algorithm bandwidth by (n-1)/n for all-gather and reduce-scatter and by 2(n-1)/n for
all-reduce (nccl-tests' PERFORMANCE.md). NCCL_MAX_NCHANNELS below NCCL's default scales bandwidth
down proportionally (an assumption of this model; calibration corrects it).
"""

from __future__ import annotations

from typing import Literal

Kind = Literal["all_gather", "reduce_scatter", "all_reduce"]
PROTOCOLS = {
    # name: (base latency s, per-hop latency s, bandwidth factor)
    "LL": (6.6e-6, 0.6e-6, 0.5),
    "LL128": (14e-6, 1.9e-6, 0.92),
    "Simple": (8.4e-6, 3.4e-6, 1.0),
}
DEFAULT_CHANNELS = 16


def bus_factor(kind: Kind, n: int) -> float:
    """Bytes each rank moves per byte of the collective's full buffer, in busbw terms."""
    if n <= 1:
        return 0.0
    return (2 if kind == "all_reduce" else 1) * (n - 1) / n


def collective_seconds(
    kind: Kind, nbytes: float, n: int, busbw: float, protocol: str | None = None, channels: int | None = None
) -> float:
    """Time of one collective whose full (gathered / reduced) buffer is `nbytes`, over `n` ranks.

    `protocol` None lets NCCL choose (the fastest); otherwise NCCL_PROTO forces it.
    """
    if n <= 1 or nbytes <= 0:
        return 0.0
    scale = min(1.0, (channels or DEFAULT_CHANNELS) / DEFAULT_CHANNELS)
    hops = (2 if kind == "all_reduce" else 1) * (n - 1)
    candidates = [protocol] if protocol in PROTOCOLS else list(PROTOCOLS)
    times = []
    for name in candidates:
        base, per_hop, factor = PROTOCOLS[name]
        times.append(base + hops * per_hop + nbytes * bus_factor(kind, n) / (busbw * factor * scale))
    return min(times)


def latency_seconds(kind: Kind, n: int, protocol: str | None = None) -> float:
    """The size-independent part (what many small messages cost)."""
    return collective_seconds(kind, 1.0, n, 1e30, protocol)
