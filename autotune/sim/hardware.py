"""Devices and clusters the cost model knows, every constant with its public source, and user device files.

Figures are per GPU, dense bf16 (no sparsity), per direction for links. Sources:
* H100 SXM: https://www.nvidia.com/en-us/data-center/h100/ (989 TFLOP/s, 3.35 TB/s, 80 GB, NVLink 900 GB/s
  bidirectional, PCIe Gen5 128 GB/s bidirectional); verl's flops_counter uses 989e12 for H100/H800/H200.
* H100 NVL: same page (835 TFLOP/s dense bf16, 94 GB at 3.9 TB/s, NVLink bridge 600 GB/s bidirectional).
* H800 SXM: as H100 with NVLink 400 GB/s bidirectional (DeepSeek-V3 report / DeepEP: ~160 GB/s measured).
* H200 SXM: https://www.nvidia.com/en-us/data-center/h200/ (141 GB, 4.8 TB/s, NVLink 900 GB/s bidirectional).
* H20: verl's flops_counter (148e12); 96 GB HBM3 at 4.0 TB/s and NVLink 900 GB/s bidirectional as reported
  for NVIDIA's HGX H20 (no public NVIDIA datasheet page; treat as reported figures).
* A100 SXM 80GB: https://www.nvidia.com/en-us/data-center/a100/ (312 TFLOP/s, 2.039 TB/s, NVLink 600 GB/s
  bidirectional, PCIe Gen4 64 GB/s bidirectional); ~230 GB/s usable all-reduce busbw (NVIDIA/nccl-tests #149).
* A800 SXM 80GB: as A100 with NVLink 400 GB/s bidirectional (NVIDIA A800 datasheet).
* L40S: https://resources.nvidia.com/en-us-l40s/l40s-datasheet-28413 (362 TFLOP/s dense bf16, 48 GB GDDR6 at
  864 GB/s, no NVLink: collectives cross PCIe Gen4 x16, 32 GB/s per direction).
* B200 (HGX): https://www.nvidia.com/en-us/data-center/hgx/ (2.25 PFLOP/s dense bf16 per GPU, 180 GB HBM3e at
  8 TB/s, NVLink 5 at 1.8 TB/s bidirectional, PCIe Gen5).
* MI300X: https://www.amd.com/en/products/accelerators/instinct/mi300/mi300x.html (1307 TFLOP/s dense bf16,
  192 GB HBM3 at 5.3 TB/s, 7 Infinity Fabric links of 64 GB/s per direction each, PCIe Gen5).
* Ring busbw ≈ 80% of the NVLink line rate for large messages (NVIDIA/nccl-tests #212, maintainer).
"""

from __future__ import annotations

from dataclasses import dataclass, fields, replace
from pathlib import Path
from typing import Any

import yaml

from verl_keys.yaml_lines import yaml_error

GIB = 1024**3
MATMUL_EFFICIENCY = 0.85
"""Share of the dense bf16 peak large GEMMs reach (measured on H200: 788 of 989 TFLOP/s for an 8192³ bf16
matmul; cuBLAS reaches 80-90% on A100/H100-class parts)."""


@dataclass(frozen=True)
class Device:
    name: str
    peak_flops: float
    """Dense bf16 FLOP/s (the MFU denominator, as verl's table)."""
    hbm_bytes_per_s: float
    memory_bytes: float
    nvlink_bytes_per_s: float
    """Intra-node link rate per GPU, per direction (NVLink, Infinity Fabric, or PCIe where there is none)."""
    busbw_fraction: float = 0.8
    """Achievable ring bus bandwidth / line rate for large messages (nccl-tests #212: ≈ 80%)."""
    pcie_bytes_per_s: float = 64e9
    """Host link per direction (offloaded parameters and optimizer state cross it)."""
    source: str = ""
    gemm_efficiency: float = MATMUL_EFFICIENCY
    """Share of `peak_flops` large bf16 GEMMs sustain on this device (MATMUL_EFFICIENCY unless measured otherwise)."""
    fp32_flops: float | None = None
    """Plain (non-tensor-core) fp32 FLOP/s: what PyTorch's fp32 matmuls run at by default (TF32 off). The builtin
    trainer's rollout runs on its fp32 master weights. Default: peak_flops / FP32_RATIO_DEFAULT."""

    def __post_init__(self) -> None:
        for name in ("peak_flops", "hbm_bytes_per_s", "memory_bytes", "nvlink_bytes_per_s", "pcie_bytes_per_s"):
            if not getattr(self, name) > 0:
                raise ValueError(f"device {self.name!r}: {name} must be > 0, got {getattr(self, name)!r}")
        if not 0 < self.busbw_fraction <= 1:
            raise ValueError(f"device {self.name!r}: busbw_fraction must be in (0, 1], got {self.busbw_fraction!r}")
        if not 0 < self.gemm_efficiency <= 1:
            raise ValueError(f"device {self.name!r}: gemm_efficiency must be in (0, 1], got {self.gemm_efficiency!r}")

    @property
    def busbw(self) -> float:
        return self.nvlink_bytes_per_s * self.busbw_fraction

    @property
    def fp32_peak_flops(self) -> float:
        return self.fp32_flops if self.fp32_flops is not None else self.peak_flops / FP32_RATIO_DEFAULT

    @property
    def gemm_peak_flops(self) -> float:
        """The rate the cost model's FLOP features divide by: the peak, scaled so that the default weight
        (1 / MATMUL_EFFICIENCY) gives this device's GEMM rate, peak × gemm_efficiency (the peak itself on every
        device whose gemm_efficiency is the default)."""
        return self.peak_flops * self.gemm_efficiency / MATMUL_EFFICIENCY


H20_GEMM_EFFICIENCY = 1.0
"""The H20 sustains its whole 148 TFLOP/s in training GEMMs: a Hopper die whose tensor throughput is capped far
below what its SMs, clocks and 4.0 TB/s of HBM would feed (an H100 reaches 85% of 989), so the cap, not the kernel,
bounds a large GEMM. Evidence (benchmarks/sim_published.py): every training phase of the four published H20
configurations (verl 2025-2026, Qwen2-7B, Qwen2.5-3B, Qwen3-8B, 4 and 8 GPUs) came out 11-31% slower at 85% of 148
(median +21% over 14 timings, compute-bound: the FLOP terms are 80-90% of each phase) while the same terms sat
within a few percent on H100/H800 runs; at 100% the median is near zero. One multiplier for the device, not one per
run."""


FP32_RATIO_DEFAULT = 15.0
"""bf16 dense peak / plain fp32 peak of a device file that gives no `fp32_tflops` (H100 SXM: 989 / 67)."""


def _gpu(
    name: str, tflops: float, hbm_tb: float, gib: float, link_gb: float, pcie_gb: float, fp32: float, **kw: Any
) -> Device:
    return Device(
        name, tflops * 1e12, hbm_tb * 1e12, gib * GIB, link_gb * 1e9, pcie_bytes_per_s=pcie_gb * 1e9,
        fp32_flops=fp32 * 1e12, **kw,
    )  # fmt: skip


DEVICES = {
    "H100": _gpu("H100 SXM", 989, 3.35, 80, 450, 64, 67, source="NVIDIA H100 page; verl flops_counter"),
    "H100-NVL": _gpu("H100 NVL", 835, 3.9, 94, 300, 64, 60, source="NVIDIA H100 page (NVL: 94 GB, 3.9 TB/s, bridge)"),
    "H800": _gpu("H800 SXM", 989, 3.35, 80, 200, 64, 67, source="NVIDIA spec; NVLink 400 GB/s bidirectional"),
    "H200": _gpu("H200 SXM", 989, 4.8, 141, 450, 64, 67, source="NVIDIA H200 page"),
    "H20": _gpu(
        "H20", 148, 4.0, 96, 450, 64, 44, gemm_efficiency=H20_GEMM_EFFICIENCY, source="verl flops_counter; HGX H20"
    ),
    "A100": _gpu("A100 SXM 80GB", 312, 2.039, 80, 300, 32, 19.5, busbw_fraction=0.77, source="NVIDIA A100 page"),
    "A800": _gpu("A800 SXM 80GB", 312, 2.039, 80, 200, 32, 19.5, busbw_fraction=0.77, source="NVIDIA A800 datasheet"),
    "L40S": _gpu("L40S", 362, 0.864, 48, 32, 32, 91.6, busbw_fraction=0.7, source="NVIDIA L40S datasheet (PCIe only)"),
    "B200": _gpu("B200 (HGX)", 2250, 8.0, 180, 900, 64, 80, source="NVIDIA HGX B200 page"),
    "MI300X": _gpu("MI300X", 1307, 5.3, 192, 448, 64, 163.4, busbw_fraction=0.7, source="AMD MI300X page"),
}

_FILE_FIELDS = {
    "name": ("name", 1.0),
    "peak_tflops": ("peak_flops", 1e12),
    "hbm_tb_s": ("hbm_bytes_per_s", 1e12),
    "memory_gib": ("memory_bytes", GIB),
    "link_gb_s": ("nvlink_bytes_per_s", 1e9),
    "pcie_gb_s": ("pcie_bytes_per_s", 1e9),
    "busbw_fraction": ("busbw_fraction", 1.0),
    "gemm_efficiency": ("gemm_efficiency", 1.0),
    "fp32_tflops": ("fp32_flops", 1e12),
    "source": ("source", 1.0),
}
_REQUIRED = ("peak_tflops", "hbm_tb_s", "memory_gib", "link_gb_s")


def device_from_file(path: str | Path) -> Device:
    """A user device file (YAML): peak_tflops, hbm_tb_s, memory_gib, link_gb_s (+ pcie_gb_s, busbw_fraction,
    gemm_efficiency, fp32_tflops, name)."""
    p = Path(path)
    try:
        raw = yaml.safe_load(p.read_text())
    except OSError as exc:
        raise ValueError(f"--gpu {path}: cannot read a device file ({exc.strerror or exc})") from None
    except yaml.YAMLError as exc:  # PyYAML's own text named "<unicode string>", not the file (audit 25 F14)
        raise ValueError(f"--gpu {yaml_error(str(path), exc)}") from None
    if not isinstance(raw, dict):
        raise ValueError(
            f"--gpu {path}: a device file is a mapping of {', '.join(_FILE_FIELDS)}; got {type(raw).__name__}"
        )
    unknown = sorted(set(raw) - set(_FILE_FIELDS))
    if unknown:
        raise ValueError(f"--gpu {path}: unknown field(s) {', '.join(unknown)}; allowed: {', '.join(_FILE_FIELDS)}")
    missing = [k for k in _REQUIRED if k not in raw]
    if missing:
        raise ValueError(f"--gpu {path}: missing {', '.join(missing)} (e.g. `peak_tflops: 989`, `hbm_tb_s: 3.35`)")
    values: dict[str, Any] = {"name": p.stem, "source": f"device file {p.name}"}
    for key, value in raw.items():
        field, scale = _FILE_FIELDS[key]
        if key in ("name", "source"):
            values[field] = str(value)
            continue
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise ValueError(f"--gpu {path}: {key} must be a number, got {value!r}")
        values[field] = float(value) * scale
    return Device(**values)


def resolve_device(gpu: str | Device) -> Device:
    """A preset name (case-insensitive), a device file path, or a Device."""
    if isinstance(gpu, Device):
        return gpu
    for name, device in DEVICES.items():
        if name.lower() == str(gpu).lower():
            return device
    if str(gpu).endswith((".yaml", ".yml")) or Path(gpu).is_file():
        return device_from_file(gpu)
    raise ValueError(f"unknown GPU {gpu!r}; presets: {', '.join(DEVICES)}, or a device file (my_gpu.yaml)")


def device_to_json(device: Device) -> dict[str, Any]:
    return {f.name: getattr(device, f.name) for f in fields(Device)}


def device_from_json(data: dict[str, Any]) -> Device:
    return Device(**{f.name: data[f.name] for f in fields(Device) if f.name in data})


@dataclass(frozen=True)
class Cluster:
    device: Device
    gpus_per_node: int = 8
    nodes: int = 1
    inter_node_bytes_per_s: float = 50e9
    """Per-GPU network bandwidth between nodes: one 400 Gb/s NIC per GPU (a rail-optimised HGX node)."""

    @property
    def world(self) -> int:
        return self.gpus_per_node * self.nodes

    def busbw(self, group: int) -> float:
        """Bus bandwidth of a ring collective over `group` consecutive ranks (FSDP's shard group, rollout TP).

        Within a node, the intra-node link. Across nodes, NCCL lays one ring per NIC rail, so each GPU's NIC
        carries one ring's crossing at ~90% of its rate (NVIDIA/nccl-tests#290, maintainer: 46-48 GB/s per
        400 Gb/s NDR NIC) and the rings run side by side: the per-rank bus bandwidth is the node's NICs
        together, up to the intra-node link. Until this was fixed a group spanning nodes got one NIC's rate
        (45 GB/s on H100), and the first run never seen while the constants were set (benchmarks/
        sim_published.py NEW_RUNS: PPO of a 7B on 2 nodes × 8 H100, 16-way FSDP) rules that out: its critic's
        forward pass over 4 micro-batches took 0.70 s, less than the 4 all-gathers of the 15 GB model would
        take at 45 GB/s even if hidden entirely behind compute (4 × 0.32 s), and its actor update (4 micro-
        batches, each an all-gather forward and backward and a reduce-scatter of fp32 gradients) 2.6 s, half
        of those collectives' 5.1 s at that rate."""
        if group <= self.gpus_per_node:
            return self.device.busbw
        return min(self.device.busbw, self.gpus_per_node * self.inter_node_bytes_per_s * 0.9)

    def strided_busbw(self, group: int, stride: int) -> float:
        """Bus bandwidth of a ring over `group` ranks `stride` apart (HSDP's replicas: one rank per shard group):
        across nodes, each node holds ⌈gpus_per_node / stride⌉ of them and their NICs carry the ring."""
        if group * stride <= self.gpus_per_node:
            return self.device.busbw
        per_node = max(1, self.gpus_per_node // stride)
        return min(self.device.busbw, per_node * self.inter_node_bytes_per_s * 0.9)


def cluster(gpu: str | Device, world: int, gpus_per_node: int = 8) -> Cluster:
    device = resolve_device(gpu)
    per_node = min(gpus_per_node, world)
    nodes = max(1, -(-world // per_node))
    return Cluster(device, per_node, nodes)


def cpu_device(peak_flops: float, memory_bytes: float = 24 * GIB) -> Device:
    """A CPU 'device' for calibrating on this machine's builtin-trainer runs (gloo 'links')."""
    return Device(
        "CPU", peak_flops, 10e9, memory_bytes, 1e9, 1.0, 10e9, "measured fp32 matmul peak (run header)",
        fp32_flops=peak_flops,
    )  # fmt: skip


def with_device(c: Cluster, device: Device) -> Cluster:
    return replace(c, device=device)


def calibrated_device(gpu: str | None, fitted_on: dict[str, Any] | None) -> Device:
    """The device a sweep simulates: the one named, else the one a calibration was fitted on (`fitted_on`, as
    `device_to_json` wrote it), else an H100."""
    if gpu:
        return resolve_device(gpu)
    return device_from_json(fitted_on) if fitted_on is not None else DEVICES["H100"]
