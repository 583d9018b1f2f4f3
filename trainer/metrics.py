"""Per-step metrics under verl's names, the console line, the JSONL stream and the run header.

MFU is computed the verl way (`verl/utils/flops_counter.py`, dense decoder):
N = (3·H·I + H·(q+k+v+o))·L + 2·V·H, flops = 6·N·Σtokens + 6·Σseqlen²·head_dim·heads·L, and
`perf/mfu/actor` = flops × ppo_epochs / update_actor time / peak / world size. The peak comes from
verl's GPU table; a CPU has no datasheet peak, so the trainer measures this machine's fp32 matmul
throughput with the threads one rank uses, caches it, and says so in the run header.
"""

from __future__ import annotations

import json
import math
import os
import platform
import resource
import sys
import time
from collections import defaultdict
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, TextIO

import torch

from trainer.metric_names import METRIC_NAMES, METRIC_PREFIXES, PHASES  # noqa: F401 (re-exported)

GPU_PEAK_FLOPS = {
    "B200": 2250e12,
    "H100": 989e12,
    "H800": 989e12,
    "H200": 989e12,
    "H20": 148e12,
    "A100": 312e12,
    "A800": 312e12,
    "L40S": 362.05e12,
    "L40": 181.05e12,
    "A40": 149.7e12,
    "L20": 119.5e12,
    "A10": 125e12,
}
"""bf16 dense peaks, as verl's flops_counter table."""


def decoder_flops(hf_config: Any, seqlens: list[int]) -> float:
    """Training FLOPs (forward + backward) of a dense decoder over sequences of these lengths."""
    H, V, L = hf_config.hidden_size, hf_config.vocab_size, hf_config.num_hidden_layers
    heads, kv = hf_config.num_attention_heads, hf_config.num_key_value_heads
    head_dim = getattr(hf_config, "head_dim", None) or H // heads
    q, k, v = heads * head_dim, kv * head_dim, kv * head_dim
    dense = (3 * H * hf_config.intermediate_size + H * (q + k + v + heads * head_dim)) * L + 2 * V * H
    attention = 6 * sum(s * s for s in seqlens) * head_dim * heads * L
    return 6 * dense * sum(seqlens) + attention


def _cache_path() -> Path:
    root = Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache"))
    return root / "autotune" / "cpu_peak_flops.json"


def measure_cpu_peak(threads: int, size: int = 384, repeats: int = 6) -> float:
    """fp32 matmul FLOP/s of this CPU with `threads` threads (best of `repeats`)."""
    a, b = torch.randn(size, size), torch.randn(size, size)
    previous = torch.get_num_threads()
    torch.set_num_threads(threads)
    try:
        torch.mm(a, b)
        best = math.inf
        for _ in range(repeats):
            start = time.perf_counter()
            for _ in range(4):
                torch.mm(a, b)
            best = min(best, (time.perf_counter() - start) / 4)
    finally:
        torch.set_num_threads(previous)
    return 2 * size**3 / best


def peak_flops(device: torch.device, override: float | None) -> tuple[float, str]:
    """(peak FLOP/s per device, where it comes from)."""
    if override is not None:
        return override, "builtin.peak_flops"
    if device.type == "cuda":
        name = torch.cuda.get_device_name(device)
        for key in sorted(GPU_PEAK_FLOPS, key=len, reverse=True):
            if key in name:
                return GPU_PEAK_FLOPS[key], f"table ({name}, bf16 dense)"
        return math.inf, f"unknown GPU {name!r}: MFU reported as 0"
    threads = torch.get_num_threads()
    key = f"{platform.node()}|{platform.processor()}|{os.cpu_count()}|{threads}|{torch.__version__}"
    path = _cache_path()
    try:
        cached = json.loads(path.read_text())
    except (OSError, ValueError):
        cached = {}
    if key not in cached:
        cached[key] = measure_cpu_peak(threads)
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            tmp = path.with_suffix(f".{os.getpid()}.tmp")
            tmp.write_text(json.dumps(cached))
            tmp.replace(path)
        except OSError:
            pass
    return float(cached[key]), f"measured fp32 matmul peak of this CPU with {threads} thread(s), cached in {path}"


class PhaseTimer:
    """Wall time per phase within a step; `sync` makes CUDA work count where it was issued."""

    def __init__(self, sync: Callable[[], None]) -> None:
        self.sync = sync
        self.seconds: dict[str, float] = defaultdict(float)

    @contextmanager
    def phase(self, name: str) -> Iterator[None]:
        self.sync()
        start = time.perf_counter()
        try:
            yield
        finally:
            self.sync()
            self.seconds[name] += time.perf_counter() - start

    def take(self) -> dict[str, float]:
        out = dict(self.seconds)
        self.seconds.clear()
        return out


def cpu_peak_rss_gb() -> float:
    """Peak resident set size of this process (Linux reports KiB, macOS bytes)."""
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return peak / (1024**3 if sys.platform == "darwin" else 1024**2)


def _fmt(value: Any) -> str:
    if isinstance(value, float):
        return f"{value:.6g}"
    return str(value)


def console_line(step: int, metrics: dict[str, Any]) -> str:
    """verl's console logger format: `step:N - key:value - key:value ...`."""
    return " - ".join([f"step:{step}", *(f"{k}:{_fmt(v)}" for k, v in sorted(metrics.items()))])


class MetricsSink:
    """Writes each step to stdout (verl format) and, if configured, as a JSON line (the stream autotune reads while the trial runs)."""

    def __init__(self, path: str | None, stdout: TextIO = sys.stdout) -> None:
        self.stdout = stdout
        self.file: TextIO | None = None
        if path:
            Path(path).parent.mkdir(parents=True, exist_ok=True)
            self.file = open(path, "a")  # noqa: SIM115 (closed in close())

    def header(self, record: dict[str, Any]) -> None:
        print("trainer: run header " + json.dumps(record, sort_keys=True), file=self.stdout, flush=True)

    def step(self, step: int, metrics: dict[str, Any]) -> None:
        print(console_line(step, metrics), file=self.stdout, flush=True)
        if self.file is not None:
            self.file.write(json.dumps({"step": step, "metrics": metrics}) + "\n")
            self.file.flush()

    def close(self) -> None:
        if self.file is not None:
            self.file.close()
