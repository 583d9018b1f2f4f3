"""The analytic cost model: phase time = Σ weight × feature, plus analytic memory and OOM.

The weights are dimensionless inverse efficiencies for "ideal seconds" features and seconds per
occurrence for count features. Defaults come from public figures (below); `autotune calibrate`
fits them to measured trials (calibrate.py) and the fitted weights replace them.

Default weights, and why:
* training/forward FLOPs: 1/0.45 — torchtitan reaches 33-39% MFU on 8×H100 at 16k tokens/GPU;
  with the curve e(T) = 0.45·T/(T+2048) that is 40% there. The curve's T½ term is a constant per
  micro-batch: 6·N·T½/(peak·0.45) seconds (plus 5 ms of launch overhead).
* decode memory traffic: 1/0.7 of HBM bandwidth; 4 ms per decode step of scheduling/sampling.
* FSDP collectives (busbw from nccl.py): forward all-gathers 50% exposed without explicit prefetch,
  10% with; backward all-gathers 15% (FSDP2 prefetches in backward); reduce-scatters 25%.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from autotune.sim.hardware import GIB, Cluster
from autotune.sim.terms import COMM_FEATURES, Memory, memory, phase_features, train_flops
from autotune.sim.workload import Shape, Workload, workload

PHASE_METRICS = ("gen", "reshard", "old_log_prob", "ref", "values", "adv", "update_critic", "update_actor")
COMM_PHASE = {
    "fsdp_ag_fwd_s": "all_gather",
    "fsdp_ag_fwd_prefetch_s": "all_gather",
    "fsdp_ag_bwd_s": "all_gather",
    "fsdp_ag_s": "all_gather",
    "fsdp_rs_s": "reduce_scatter",
    "tp_allreduce_s": "tp_all_reduce",
    "reshard_bytes_s": "reshard",
}


def default_weights(shape: Shape, cluster: Cluster) -> dict[str, dict[str, float]]:
    from autotune.sim.terms import dense_params_verl

    flops = 1 / 0.45
    per_micro_train = 6 * dense_params_verl(shape) * 2048 / (cluster.device.peak_flops * 0.45) + 0.005
    per_micro_forward = per_micro_train / 3
    forward = {"flops_s": flops, "micro_batches": per_micro_forward, "fsdp_ag_s": 0.3}
    update = {
        "flops_s": flops,
        "micro_batches": per_micro_train,
        "optimizer_steps": 0.05,
        "fsdp_ag_fwd_s": 0.5,
        "fsdp_ag_fwd_prefetch_s": 0.1,
        "fsdp_ag_bwd_s": 0.15,
        "fsdp_rs_s": 0.25,
        "optimizer_s": 1.0,
    }
    return {
        "gen": {
            "prefill_flops_s": 2.0,
            "decode_flops_s": 0.0,
            "decode_mem_s": 1 / 0.7,
            "decode_steps": 0.004,
            "tp_allreduce_s": 1.0,
        },
        "reshard": {"reshard_bytes_s": 1.0, "reshard_tensors": 2e-4},
        "old_log_prob": dict(forward),
        "ref": dict(forward),
        "values": dict(forward),
        "adv": {"const": 0.2},
        "update_actor": dict(update),
        "update_critic": dict(update),
        "step": {"const": 1.0},
    }


@dataclass
class Prediction:
    phases: dict[str, float]
    comm: dict[str, float]
    step: float
    memory: Memory
    oom: str | None
    workload: Workload
    update_flops: float
    device_memory: float
    peak_flops: float

    def metrics(self) -> dict[str, float]:
        w = self.workload
        out = {f"timing_s/{k}": v for k, v in self.phases.items()}
        out["timing_s/step"] = self.step
        out.update({f"timing_s/comm/{k}": v for k, v in self.comm.items()})
        out["timing_s/comm"] = sum(self.comm.values())
        out["perf/comm_share"] = out["timing_s/comm"] / self.step
        out["perf/time_per_step"] = self.step
        out["perf/total_num_tokens"] = w.tokens
        out["perf/throughput"] = w.tokens / (self.step * w.world)
        update = self.phases.get("update_actor", 0.0)
        out["perf/mfu/actor"] = self.update_flops / update / self.peak_flops / w.world if update > 0 else 0.0
        out["perf/max_memory_allocated_gb"] = self.memory.peak / GIB
        out["response_length/mean"] = w.response_tokens
        out["prompt_length/mean"] = w.prompt_tokens
        return out

    def rows(self, steps: int) -> list[dict[str, Any]]:
        metrics = self.metrics()
        return [{"step": s, "metrics": dict(metrics, **{"training/global_step": s})} for s in range(1, steps + 1)]


@dataclass
class CostModel:
    cluster: Cluster
    shape: Shape
    weights: dict[str, dict[str, float]] = field(default_factory=dict)
    param_bytes: int = 2
    prompt_tokens: float | None = None
    response_tokens: float | None = None
    source: str = "defaults from public figures"

    def __post_init__(self) -> None:
        merged = default_weights(self.shape, self.cluster)
        for phase, ws in self.weights.items():
            merged.setdefault(phase, {}).update(ws)
        self.weights = merged

    def features(
        self, flat: dict[str, Any], env: dict[str, str], world: int
    ) -> tuple[Workload, dict[str, dict[str, float]]]:
        w = workload(flat, env, world, self.prompt_tokens, self.response_tokens)
        return w, phase_features(w, self.shape, self.cluster, self.param_bytes)

    def predict(self, flat: dict[str, Any], env: dict[str, str], world: int) -> Prediction:
        w, features = self.features(flat, env, world)
        phases: dict[str, float] = {}
        comm: dict[str, float] = {}
        for phase, feats in features.items():
            weights = self.weights.get(phase, {})
            total = 0.0
            for name, value in feats.items():
                seconds = weights.get(name, 0.0) * value
                total += seconds
                if name in COMM_FEATURES:
                    comm[COMM_PHASE[name]] = comm.get(COMM_PHASE[name], 0.0) + seconds
            phases[phase] = total
        overhead = phases.pop("step", 0.0)
        step = sum(phases.values()) + overhead
        micro_tokens = w.tokens_per_rank / max(w.mini_batches * w.update_micro_per_mini, 1)
        mem = memory(w, self.shape, self.cluster, micro_tokens)
        limit = self.cluster.device.memory_bytes
        oom = None
        if mem.peak > limit:
            where = (
                "rollout (vLLM reservation on top of resident training state)"
                if mem.rollout_peak >= mem.train_peak
                else "training"
            )
            oom = f"predicted peak {mem.peak / GIB:.1f} GiB > {limit / GIB:.0f} GiB per GPU in {where}"
        update_flops = train_flops(self.shape, w.responses, w.seq_tokens) * w.epochs
        return Prediction(phases, comm, step, mem, oom, w, update_flops, limit, self.cluster.device.peak_flops)

    def to_json(self) -> dict[str, Any]:
        return {
            "weights": self.weights,
            "prompt_tokens": self.prompt_tokens,
            "response_tokens": self.response_tokens,
            "param_bytes": self.param_bytes,
            "source": self.source,
        }


def load_calibration(path: str | Path) -> dict[str, Any]:
    data = json.loads(Path(path).read_text())
    if "weights" not in data:
        raise ValueError(f"{path}: not an autotune calibration (no `weights`)")
    return data
