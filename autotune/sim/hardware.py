"""Devices and clusters the cost model knows, every constant with its public source.

Sources (see the project's perf reference): NVIDIA data sheets; verl's `flops_counter.py` peak
table; stas00/ml-engineering (network) for NCCL bus bandwidth on 8×H100/H200; NVIDIA/nccl-tests
#212 for "ring busbw ≈ 80% of NVLink line rate"; DeepSeek-V3/DeepEP discussions for H800's
measured NVLink; NCCL `src/graph/tuning.cc` for protocol latencies and bandwidth factors.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

GIB = 1024**3


@dataclass(frozen=True)
class Device:
    name: str
    peak_flops: float
    """Dense bf16 FLOP/s (the MFU denominator, as verl's table)."""
    hbm_bytes_per_s: float
    memory_bytes: float
    nvlink_bytes_per_s: float
    """NVLink line rate per GPU, per direction."""
    busbw_fraction: float = 0.8
    """Achievable ring bus bandwidth / line rate for large messages (nccl-tests #212: ≈ 80%)."""
    source: str = ""

    @property
    def busbw(self) -> float:
        return self.nvlink_bytes_per_s * self.busbw_fraction


DEVICES = {
    "H100": Device("H100 SXM", 989e12, 3.35e12, 80 * GIB, 450e9, 0.8, "NVIDIA spec; verl flops_counter (989e12)"),
    "H800": Device(
        "H800",
        989e12,
        3.35e12,
        80 * GIB,
        200e9,
        0.8,
        "NVIDIA spec; NVLink 200 GB/s nominal, ~160 GB/s measured (DeepEP)",
    ),
    "H200": Device(
        "H200", 989e12, 4.8e12, 141 * GIB, 450e9, 0.8, "NVIDIA spec; 788 TFLOP/s measured bf16 8192³ matmul"
    ),
    "A100": Device(
        "A100 80GB", 312e12, 2.0e12, 80 * GIB, 300e9, 0.77, "NVIDIA spec; ~230 GB/s usable (nccl-tests #149)"
    ),
}


@dataclass(frozen=True)
class Cluster:
    device: Device
    gpus_per_node: int = 8
    nodes: int = 1
    inter_node_bytes_per_s: float = 50e9
    """Per-GPU network bandwidth between nodes (400 Gb/s InfiniBand per GPU)."""

    @property
    def world(self) -> int:
        return self.gpus_per_node * self.nodes

    def busbw(self, group: int) -> float:
        """Bus bandwidth of a collective over `group` ranks: NVLink inside a node, the network across."""
        if group <= self.gpus_per_node:
            return self.device.busbw
        return min(self.device.busbw, self.inter_node_bytes_per_s * 0.9)


def cluster(gpu: str, world: int, gpus_per_node: int = 8) -> Cluster:
    if gpu not in DEVICES:
        raise ValueError(f"unknown GPU {gpu!r}; presets: {', '.join(DEVICES)}")
    per_node = min(gpus_per_node, world)
    nodes = max(1, -(-world // per_node))
    return Cluster(DEVICES[gpu], per_node, nodes)


def cpu_device(peak_flops: float, memory_bytes: float = 24 * GIB) -> Device:
    """A CPU 'device' for calibrating on this machine's builtin-trainer runs (gloo 'links')."""
    return Device("CPU", peak_flops, 10e9, memory_bytes, 1e9, 1.0, "measured fp32 matmul peak (run header)")


def with_device(c: Cluster, device: Device) -> Cluster:
    return replace(c, device=device)
