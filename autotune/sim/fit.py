"""Fitting the cost model's weights to measured phase times of real runs, and leave-one-out validation.

Each measured phase is a weighted sum of the model's features (model.py). Published logs sometimes time
several of the model's phases together (older verl timed the weight sync, and before that the old
log-prob pass, inside `timing_s/gen`), so an observation says which model phases each measured phase
includes. Phases measured alone are fitted first; a composite phase is fitted on what is left after the
already-fitted parts it includes.

The fit is a least squares on relative errors over one positive multiplier per group of features and phase
(GROUPS: compute, fixed overheads, data movement), with a ridge on the multipliers' logarithms that pulls
them towards 1 (the public-figure defaults), so a phase seen in few runs keeps physically sensible weights
and a group that never varies cannot absorb the noise: weight_f = default_f × exp(v_g(f)), minimising
Σ_runs ((Σ_f weight_f·x_f − y)/y)² + ridge·Σ_g v_g².
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, field
from typing import Any

import numpy as np

Weights = dict[str, dict[str, float]]

POOR_FIT = 0.30
"""Median error (a fit's own runs or trials, or those left out) above which a calibration is warned of: weights
fitted on one published run predicted the setup's other runs at a median 8% (benchmarks/sim_own_setup.py), so a
fit this far off says the runs and what the fit was told about them (GPU, config, a busy machine) disagree, or,
left out, that it does not carry to runs it did not see."""

GROUPS = {
    "flops_s": "compute", "memory_s": "compute", "curve_s": "compute",
    "prefill_flops_s": "compute", "decode_flops_s": "compute", "decode_weights_s": "compute", "decode_kv_s": "compute",
    "step_overhead_s": "overhead", "sequence_overhead_s": "overhead", "micro_batches": "overhead",
    "micro_layers": "overhead",
    "optimizer_steps": "overhead", "sync_tensors": "overhead", "const": "overhead", "calls": "overhead",
    "fsdp_ag_fwd_s": "transfer", "fsdp_ag_fwd_prefetch_s": "transfer", "fsdp_ag_bwd_s": "transfer", "fsdp_rs_s": "transfer",
    "fsdp_ag_s": "transfer", "tp_allreduce_s": "transfer", "offload_s": "transfer", "optimizer_s": "transfer",
    "sync_gather_s": "transfer", "sync_load_s": "transfer", "reshard_bytes_s": "transfer", "reshard_tensors": "overhead",
    "ipc_fixed": "overhead", "ipc_bytes_s": "transfer",
}  # fmt: skip
"""Features fitted together: one multiplier per group and phase (compute, fixed overheads, data movement), so a
handful of runs determines the fit instead of over-fitting one weight per feature."""


@dataclass
class Observation:
    """One measured run: the model's features per phase, and the measured seconds per published phase."""

    name: str
    features: dict[str, dict[str, float]]
    measured: dict[str, float]
    includes: dict[str, tuple[str, ...]] = field(default_factory=dict)
    """Published phase -> the model phases it times together (default: itself)."""

    def parts(self, phase: str) -> tuple[str, ...]:
        return self.includes.get(phase, (phase,))


def phase_seconds(weights: Weights, features: dict[str, float], phase: str) -> float:
    ws = weights.get(phase, {})
    return sum(ws.get(name, 0.0) * value for name, value in features.items())


def published_prediction(weights: Weights, obs: Observation) -> dict[str, float]:
    """Predicted seconds for every measured phase of an observation, summing the model phases it includes."""
    out = {}
    for phase in obs.measured:
        out[phase] = sum(phase_seconds(weights, obs.features.get(p, {}), p) for p in obs.parts(phase))
    return out


def log_fit(a: np.ndarray, b: np.ndarray, ridge: float, iterations: int = 200) -> np.ndarray:
    """v minimising Σ_i (Σ_g exp(v_g)·a_ig − b_i)² + ridge·Σ_g v_g² (Levenberg-Marquardt on log multipliers)."""
    v = np.zeros(a.shape[1])
    damping = 1e-3

    def cost(x: np.ndarray) -> float:
        return float(np.sum((a @ np.exp(x) - b) ** 2) + ridge * np.sum(x**2))

    current = cost(v)
    for _ in range(iterations):
        u = np.exp(v)
        residual = a @ u - b
        jac = a * u  # d residual / d v
        grad = jac.T @ residual + ridge * v
        hess = jac.T @ jac + ridge * np.eye(len(v))
        step = np.linalg.solve(hess + damping * np.diag(np.diag(hess) + 1e-12), -grad)
        trial = np.clip(v + step, -8.0, 8.0)
        if cost(trial) < current:
            v, current, damping = trial, cost(trial), max(damping / 3, 1e-9)
            if np.max(np.abs(step)) < 1e-8:
                break
        else:
            damping *= 4
            if damping > 1e8:
                break
    return v


def _fit_phase(
    weights: Weights, defaults: Weights, phase: str, rows: list[tuple[dict[str, float], float, float]], ridge: float
) -> None:
    """rows: (features, target seconds for this phase, measured total for the relative error)."""
    base = defaults.get(phase, {})
    names = sorted({n for f, _, _ in rows for n in f if base.get(n, 0.0) > 0})
    groups = sorted({GROUPS.get(n, n) for n in names})
    if not groups or not rows:
        return
    a = np.array([[sum(base[n] * f.get(n, 0.0) for n in names if GROUPS.get(n, n) == g) / y for g in groups]
                  for f, _, y in rows])  # fmt: skip
    b = np.array([target / y for _, target, y in rows])
    u = dict(zip(groups, np.exp(log_fit(a, b, ridge)), strict=True))
    weights.setdefault(phase, {}).update({n: float(base[n] * u[GROUPS.get(n, n)]) for n in names})


def fit_weights(observations: list[Observation], defaults: Weights, ridge: float = 0.3) -> Weights:
    """Weights fitted to the observations (phases alone first, then composites on their remainder)."""
    weights = copy.deepcopy(defaults)
    alone = sorted({p for o in observations for p in o.measured if o.parts(p) == (p,)})
    composite = sorted({p for o in observations for p in o.measured if o.parts(p) != (p,)} - set(alone))
    for phase in alone:
        rows = [(o.features[phase], o.measured[phase], o.measured[phase]) for o in observations
                if phase in o.measured and o.parts(phase) == (phase,) and phase in o.features and o.measured[phase] > 0]  # fmt: skip
        _fit_phase(weights, defaults, phase, rows, ridge)
    for phase in composite:
        rows = []
        for o in observations:
            if phase not in o.measured or phase not in o.features or o.measured[phase] <= 0:
                continue
            others = sum(phase_seconds(weights, o.features.get(p, {}), p) for p in o.parts(phase) if p != phase)
            remainder = o.measured[phase] - others
            if remainder > 0.05 * o.measured[phase]:
                rows.append((o.features[phase], remainder, o.measured[phase]))
        _fit_phase(weights, defaults, phase, rows, ridge)
    return weights


def leave_one_out(
    observations: list[Observation], defaults: Weights, ridge: float = 0.3
) -> dict[str, dict[str, float]]:
    """For every observation: its published phases predicted by weights fitted on all the others."""
    out = {}
    for i, obs in enumerate(observations):
        rest = observations[:i] + observations[i + 1 :]
        out[obs.name] = published_prediction(fit_weights(rest, defaults, ridge), obs)
    return out


def relative_errors(predicted: dict[str, float], measured: dict[str, float]) -> dict[str, float]:
    """Signed (predicted − measured) / measured per phase."""
    return {p: (predicted[p] - m) / m for p, m in measured.items() if m > 0 and p in predicted}


def too_few_trials(calibration: dict[str, Any]) -> bool:
    """A study's fit with as many weights in a phase as trials, or more: it matches its trials whatever the model,
    so its in-sample error says nothing of other configurations (a verl-log calibration has runs, not trials)."""
    trials = calibration.get("trials")
    if not isinstance(trials, list):
        return False
    return len(trials) <= max((len(w) for w in calibration.get("weights", {}).values()), default=0)
