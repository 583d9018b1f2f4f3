"""The analytic cost model: phase time = Σ weight × feature, plus analytic memory and OOM.

The weights are dimensionless inverse efficiencies for "ideal seconds" features and seconds per
occurrence for count features, the same for every model and device. Defaults come from public figures
(below); `autotune calibrate` fits them to a study's trials (calibrate.py) or to real verl runs' logs
(verl_log.py, fit.py) and the fitted weights replace them.

Default weights, and why:
* training/forward: GEMM FLOPs at 85% of peak, plus non-GEMM work at the HBM rate (terms.BYTES_PER_FLOP):
  ~45% MFU on H100 for long micro-batches; each micro-batch adds T½ = 2048 tokens of that cost (torchtitan:
  33-39% MFU on 8×H100 at 8-16k tokens/GPU) and 5 ms, plus a fixed cost per decoder layer and micro-batch
  (1.5 ms forward-only, 6 ms forward + backward): FSDP's per-layer hooks and the eager kernel launches of a
  layer, which small models cannot hide behind GPU work. These two values were set from the published 0.5B
  runs (benchmarks/sim_published.py lists which), where update time barely changes when the padded
  sequence length halves.
* rollout (rollout.py): prefill and decode FLOPs at 85% of peak (the GEMM rate); decode weight and KV-cache
  reads at 80% of HBM bandwidth (an assumption, as for ring busbw); per-step launch and scheduling
  overheads in seconds as rollout.py computes them (weight 1).
* weight sync and offload: collectives at the NCCL model's busbw; PCIe transfers at 80% of the line rate;
  1 ms per tensor loaded into the rollout engine (an assumption: a Python-level copy per parameter); verl 0.7.1+'s
  CUDA IPC sync at a fixed cost and a rate measured on published runs (rollout.SYNC_IPC_*).
* FSDP collectives (busbw from nccl.py): forward all-gathers 50% exposed without explicit prefetch,
  10% with; backward all-gathers 15% (FSDP2 prefetches in backward); reduce-scatters 25%.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from autotune.sim.hardware import GIB, MATMUL_EFFICIENCY, Cluster
from autotune.sim.rollout import DECODE_HBM_EFFICIENCY, SYNC_IPC_FIXED, rollout_plan
from autotune.sim.terms import (
    COMM_FEATURES,
    ENGINE_WORKER_FORWARD_CALL,
    ENGINE_WORKER_UPDATE_CALL,
    Memory,
    memory,
    phase_features,
    train_flops,
)
from autotune.sim.workload import Shape, Workload, workload

PHASE_METRICS = (
    "gen", "update_weights", "reshard", "old_log_prob", "ref", "values", "adv", "update_critic", "update_actor",
)  # fmt: skip
COMM_PHASE = {
    "fsdp_ag_fwd_s": "all_gather",
    "fsdp_ag_fwd_prefetch_s": "all_gather",
    "fsdp_ag_bwd_s": "all_gather",
    "fsdp_ag_s": "all_gather",
    "fsdp_rs_s": "reduce_scatter",
    "tp_allreduce_s": "tp_all_reduce",
    "reshard_bytes_s": "reshard",
}


def default_weights() -> dict[str, dict[str, float]]:
    """Dimensionless (or seconds-per-count) weights, the same for every model and device."""
    flops = 1 / MATMUL_EFFICIENCY
    forward = {"flops_s": flops, "memory_s": 1.0, "curve_s": 1.0, "micro_batches": 0.005, "micro_layers": 1.5e-3,
               "fsdp_ag_s": 0.3, "offload_s": 1 / 0.8, "calls": ENGINE_WORKER_FORWARD_CALL}  # fmt: skip
    update = {
        "flops_s": flops,
        "memory_s": 1.0,
        "curve_s": 1.0,
        "micro_batches": 0.005,
        "micro_layers": 6e-3,
        "optimizer_steps": 0.05,
        "fsdp_ag_fwd_s": 0.5,
        "fsdp_ag_fwd_prefetch_s": 0.1,
        "fsdp_ag_bwd_s": 0.15,
        "fsdp_rs_s": 0.25,
        "optimizer_s": 1.0,
        "offload_s": 1 / 0.8,
        "calls": ENGINE_WORKER_UPDATE_CALL,
    }
    return {
        "gen": {
            "prefill_flops_s": 1 / MATMUL_EFFICIENCY,
            "decode_flops_s": 1 / MATMUL_EFFICIENCY,
            "decode_weights_s": 1 / DECODE_HBM_EFFICIENCY,
            "decode_kv_s": 1 / DECODE_HBM_EFFICIENCY,
            "step_overhead_s": 1.0,
            "sequence_overhead_s": 1.0,
            "tp_allreduce_s": 1.0,
        },
        "update_weights": {
            "sync_gather_s": 1.0,
            "sync_load_s": 1 / 0.8,
            "sync_tensors": 1e-3,
            "offload_s": 1 / 0.8,
            "ipc_fixed": SYNC_IPC_FIXED,
            "ipc_bytes_s": 1.0,
        },
        "reshard": {"reshard_bytes_s": 1.0, "reshard_tensors": 2e-4},
        "old_log_prob": dict(forward),
        "ref": dict(forward),
        "values": dict(forward),
        "adv": {"const": 0.2, "builtin_positions": 1.5e-4, "builtin_const": 1e-3},
        "update_actor": dict(update),
        "update_critic": dict(update),
        "step": {"const": 1.0, "builtin_responses": 7e-5},
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
    response_spread: float | None = None
    response_max: float | None = None
    """The longest response of a step (verl's response_length/max), when known; overrides response_spread."""
    source: str = "defaults from public figures"
    vllm_version: str | None = None
    """The rollout's vLLM version when known (a log says it); None = a current one (0.14 or later: async scheduling)."""
    verl_version: str | None = None
    """verl's version when known; None = a current one (0.7 or later, whose training calls carry a fixed cost)."""

    def __post_init__(self) -> None:
        merged = default_weights()
        for phase, ws in self.weights.items():
            merged.setdefault(phase, {}).update(ws)
        self.weights = merged

    def features(
        self, flat: dict[str, Any], env: dict[str, str], world: int
    ) -> tuple[Workload, dict[str, dict[str, float]]]:
        w = workload(flat, env, world, self.prompt_tokens, self.response_tokens, response_spread=self.response_spread,
                     vllm_version=self.vllm_version, response_max=self.response_max,
                     verl_version=self.verl_version, positions=self.shape.positions)  # fmt: skip
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
        seq = w.seq_tokens if w.actor_rmpad else w.padded_tokens
        micro_tokens = w.responses / w.world * seq / max(w.mini_batches * w.update_micro_per_mini, 1)
        mem = memory(w, self.shape, self.cluster, micro_tokens)
        limit = self.cluster.device.memory_bytes
        # vLLM's share must hold its weights and one sequence's KV cache; the builtin engine has no share to fit
        oom = None if w.engine == "builtin" else rollout_plan(w, self.shape, self.cluster, self.param_bytes).oom
        if oom is None and mem.peak > limit:
            engine = "the builtin engine's fp32 weights and KV cache" if w.engine == "builtin" else "vLLM reservation"
            where = (
                f"rollout ({engine} on top of resident training state)"
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
            "response_spread": self.response_spread,
            "response_max": self.response_max,
            "param_bytes": self.param_bytes,
            "source": self.source,
        }


def load_calibration(path: str | Path) -> Calibration:
    """A calibration `autotune calibrate` wrote; ValueError naming the first key that is not one (a mistyped or
    hand-edited file crashed the sweep in a traceback after its study folder was made, audit 21 F8)."""
    try:
        data = json.loads(Path(path).read_text())
    except json.JSONDecodeError as exc:
        raise ValueError(f"not JSON ({exc}); give the file `autotune calibrate` wrote") from None
    return Calibration.from_json(data)


def calibration_problem(data: Any) -> str | None:
    """What makes `data` something the cost model cannot take as a calibration, or None."""
    if not isinstance(data, dict):
        return f"a JSON object with `weights`, got {type(data).__name__}"
    weights = data.get("weights")
    if not isinstance(weights, dict):
        return "no `weights`" if weights is None else f"`weights` maps phases to weights, got {weights!r:.40}"
    known = default_weights()
    for phase, values in weights.items():
        if phase not in known:
            return f"`weights.{phase}`: no such phase (the cost model's: {', '.join(known)})"
        if not isinstance(values, dict):
            return f"`weights.{phase}` maps weight names to numbers, got {values!r:.40}"
        for name, value in values.items():
            if name not in known[phase]:
                return f"`weights.{phase}.{name}`: no such weight (the phase's: {', '.join(known[phase])})"
            if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 <= value < float("inf"):
                return f"`weights.{phase}.{name}` = {value!r:.40} is not a number >= 0"
    for key in ("prompt_tokens", "response_tokens", "response_spread", "peak_flops"):
        if (problem := _not_a_length(data, key)) is not None:
            return problem
    runs = data.get("runs") or []
    if not isinstance(runs, list):
        return f"`runs` lists the logged runs, got {runs!r:.40}"
    for i, run in enumerate(runs):
        if not isinstance(run, dict):
            return f"`runs[{i}]` describes a logged run, got {run!r:.40}"
        for key in LENGTH_KEYS:
            if (problem := _not_a_length(run, key, f"runs[{i}].")) is not None:
                return problem
    if data.get("device") == "cpu" and not data.get("peak_flops"):  # it is the device the weights predict
        return "a CPU study's calibration without its CPU's `peak_flops`"
    return None


def _not_a_length(data: dict[str, Any], key: str, where: str = "") -> str | None:
    value = data.get(key)
    if value is not None and (isinstance(value, bool) or not isinstance(value, (int, float)) or value < 0):
        return f"`{where}{key}` = {value!r:.40} is not a number >= 0"
    return None


LENGTH_KEYS = ("prompt_tokens", "response_tokens", "response_spread")
"""A calibration's lengths (its runs' mean, and each logged run's own): what a sweep with it predicts at."""

JOB_KEYS = (
    "actor_rollout_ref.model.path", "data.train_files", "data.max_prompt_length", "data.max_response_length",
    "data.train_batch_size", "actor_rollout_ref.rollout.n", "actor_rollout_ref.rollout.temperature",
    "algorithm.adv_estimator",
)  # fmt: skip
"""The keys that make a run's job, and so its lengths: the model, the data, the length limits, the batch, the
sampling and the algorithm; none is a knob a throughput sweep turns. A space whose baseline has a logged run's
values of them is that run's job, and a sweep of it predicts at that run's lengths: a sweep of one of several
logged runs predicted at their mean, its generation 27-30% off the fit's own prediction (audit 32 F6)."""


def job_of(flat: dict[str, Any]) -> dict[str, Any]:
    """A config's values of `JOB_KEYS` (resolved as verl runs them), as a calibration's JSON keeps them."""
    return {key: json.loads(json.dumps(flat.get(key), default=str)) for key in JOB_KEYS}


@dataclass(frozen=True)
class CalibratedRun:
    """What one run a calibration was fitted on was (a log's: `autotune calibrate --verl-log`)."""

    name: str
    model: str | None
    """The model's shape in words (`workload.shape_words`)."""
    critic: bool
    gpus: int | None
    job: dict[str, Any] | None = None
    """Its values of `JOB_KEYS` (`job_of`); None in files of earlier versions."""
    prompt_tokens: float | None = None
    """Its own mean lengths and spread (the calibration's are the mean over its runs); None in earlier files."""
    response_tokens: float | None = None
    response_spread: float | None = None

    @classmethod
    def from_json(cls, run: dict[str, Any]) -> CalibratedRun:
        def number(key: str) -> float | None:
            return None if run.get(key) is None else float(run[key])

        job = run.get("job")
        return cls(str(run.get("name")), run.get("model"), bool(run.get("critic")), run.get("gpus"),
                   job if isinstance(job, dict) else None, number("prompt_tokens"), number("response_tokens"),
                   number("response_spread"))  # fmt: skip


@dataclass(frozen=True)
class Calibration:
    """A calibration `autotune calibrate` wrote, read once (`from_json` checks it): the fitted weights and what
    they were fitted on. A study's is fitted on its trials' step times (on the CPU they ran on: `on_cpu`); a verl
    log's on each logged run's phases, on the GPU named."""

    raw: dict[str, Any]
    """The file's JSON as written (its digest names the cost model a study was predicted with)."""
    weights: dict[str, dict[str, float]]
    source: str
    study: str | None
    """The study fitted on (a study's calibration), else None."""
    on_cpu: bool
    device: dict[str, Any] | None
    """A log calibration's GPU (`hardware.device_to_json`), else None."""
    gpu: str | None
    peak_flops: float | None
    param_bytes: int | None
    prompt_tokens: float | None
    response_tokens: float | None
    response_spread: float | None
    vllm_version: str | None
    verl_version: str | None
    of_logs: bool
    """Fitted on verl logs: its errors are per phase, its held-back error leave-one-out over the runs; a study's
    are per trial's step time, its held-back error on a share of its trials."""
    fit_error: float | None
    """The median error on what it was fitted on (in sample)."""
    held_error: float | None
    held_count: int
    """Runs left out one at a time (logs) or trials held back (a study's `--holdout`)."""
    phase_errors: dict[str, float]
    """A log calibration's signed in-sample error per phase (median over its runs)."""
    runs: tuple[CalibratedRun, ...]
    """What each logged run was (empty for a study's, and for files of earlier versions)."""

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Calibration:
        """The calibration in `data`; ValueError when it is not one (`calibration_problem`)."""
        problem = calibration_problem(data)
        if problem:
            raise ValueError(f"not an autotune calibration: {problem}; write it with `autotune calibrate`")
        g = data.get
        of_logs = g("error_of") == "phase" or "verl log" in str(g("source"))  # files before `error_of` too
        held = g("holdout_errors") if of_logs else g("holdout_trials")
        device = g("device")

        def number(key: str) -> float | None:
            value = g(key)
            return None if value is None or value != value else float(value)  # a study's NaN: not measured

        return cls(
            raw=data,
            weights=data["weights"],
            source=str(g("source") or "a calibration"),
            study=g("study"),
            on_cpu=device == "cpu",
            device=device if isinstance(device, dict) else None,
            gpu=g("gpu"),
            peak_flops=number("peak_flops"),
            param_bytes=int(bytes_) if (bytes_ := g("param_bytes")) is not None else None,
            prompt_tokens=number("prompt_tokens"),
            response_tokens=number("response_tokens"),
            response_spread=number("response_spread"),
            vllm_version=g("vllm_version"),
            verl_version=g("verl_version"),
            of_logs=of_logs,
            fit_error=number("fit_error_median"),
            held_error=number("holdout_error_median"),
            held_count=len(held or ()),
            phase_errors=dict(g("phase_errors") or {}),
            runs=tuple(CalibratedRun.from_json(r) for r in g("runs") or ()),
        )

    def named(self) -> str:
        """Its source in words, with the study fitted on."""
        return self.source + (f" of study {self.study}" if self.study else "")
