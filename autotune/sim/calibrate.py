"""Fit the cost model's weights to measured trials, and say how well it predicts held-back ones.

For every finished trial of a study the features of each phase are computed from the trial's
config (with its measured prompt and response lengths) and paired with the measured median phase
time after warm-up. Each phase's weights are then a non-negative least-squares fit on relative
errors (Lawson-Hanson NNLS with a small ridge, so features that never vary between trials stay
near zero instead of absorbing noise). Trials of the builtin trainer on a CPU use the CPU as the
"device": its peak is the measured matmul peak the trainer printed in its run header.
Real verl runs (console logs and their configs, on their own GPU) are fitted by verl_log.py and fit.py.
"""

from __future__ import annotations

import json
import math
import statistics
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import optuna
import yaml

from autotune.adapters.base import TrainerAdapter
from autotune.sim.fit import POOR_FIT, too_few_trials
from autotune.sim.hardware import GIB, Cluster, cpu_device
from autotune.sim.model import PHASE_METRICS, CostModel
from autotune.sim.terms import phase_features
from autotune.sim.workload import find_shape, spread_from_longest, workload
from autotune.space.schema import Space
from autotune.study.storage import StudyPaths
from autotune.trial.record import TrialRecord, read_rows
from verl_keys.keys import to_flat_dict


@dataclass
class Sample:
    number: int
    flat: dict[str, Any]
    env: dict[str, str]
    phases: dict[str, float]
    step: float
    prompt_tokens: float
    response_tokens: float
    peak_flops: float
    response_max: float = math.nan


def _median(rows: list[dict[str, Any]], key: str, warmup: int) -> float:
    values = [r["metrics"][key] for r in rows if r["step"] > warmup and key in r["metrics"]]
    return float(statistics.median(values)) if values else math.nan


def _peak_from_header(trial_dir: Path) -> float | None:
    for line in (trial_dir / "stdout.log").read_text(errors="replace").splitlines()[:5]:
        if line.startswith("trainer: run header "):
            return float(json.loads(line.removeprefix("trainer: run header "))["peak_flops_per_device"])
    return None


def samples(
    study: optuna.Study, space: Space, adapter: TrainerAdapter, paths: StudyPaths | None = None
) -> list[Sample]:
    """Measured trials of a study with their configs (pruned ones too, if they ran 3 steps past warm-up), each
    config resolved as the trainer resolved it (verl's defaults and interpolations), as a simulated trial is."""
    out = []
    for t in study.get_trials(deepcopy=False):
        rec = TrialRecord.of(t)
        if rec.outcome not in ("complete", "infeasible", "pruned") or not rec.dir or rec.duplicate_of is not None:
            continue
        trial_dir = paths.located(rec.dir) if paths is not None else Path(rec.dir)
        rows = read_rows(trial_dir)
        if not rows:
            continue
        enough = min(3, space.trial.steps - space.trial.warmup_steps)
        if sum(1 for r in rows if r["step"] > space.trial.warmup_steps) < enough:
            continue  # a pruned trial that stopped too early says little
        keys = to_flat_dict(yaml.safe_load((trial_dir / "config.yaml").read_text()) or {})
        flat = adapter.resolved(space.base_config, keys)
        env = dict(line.split("=", 1) for line in (trial_dir / "env").read_text().splitlines() if "=" in line)
        warm = space.trial.warmup_steps
        peak = _peak_from_header(trial_dir) if (trial_dir / "stdout.log").exists() else None
        out.append(
            Sample(
                number=t.number,
                flat=flat,
                env=env,
                phases={p: _median(rows, f"timing_s/{p}", warm) for p in PHASE_METRICS},
                step=_median(rows, "timing_s/step", warm),
                prompt_tokens=_median(rows, "prompt_length/mean", warm),
                response_tokens=_median(rows, "response_length/mean", warm),
                response_max=_median(rows, "response_length/max", warm),
                peak_flops=peak or 989e12,
            )
        )
    return out


def nnls(a: np.ndarray, b: np.ndarray, iterations: int = 500) -> np.ndarray:
    """Lawson-Hanson non-negative least squares: argmin ||a x - b|| subject to x >= 0."""
    n = a.shape[1]
    x = np.zeros(n)
    passive = np.zeros(n, dtype=bool)
    for _ in range(iterations):
        gradient = a.T @ (b - a @ x)
        if passive.all() or gradient[~passive].max(initial=-np.inf) <= 1e-12:
            break
        candidates = np.where(~passive, gradient, -np.inf)
        passive[int(np.argmax(candidates))] = True
        while True:
            z = np.zeros(n)
            z[passive] = np.linalg.lstsq(a[:, passive], b, rcond=None)[0]
            if (z[passive] > 0).all():
                x = z
                break
            blocked = passive & (z <= 0)
            alpha = np.min(x[blocked] / (x[blocked] - z[blocked] + 1e-300))
            x = x + alpha * (z - x)
            passive &= x > 1e-12
    return x


def _spread(sample: Sample) -> float | None:
    """The response-length spread implied by a trial's measured longest and mean response."""
    responses = int(sample.flat.get("data.train_batch_size") or 1) * int(
        sample.flat.get("actor_rollout_ref.rollout.n") or 1
    )
    if math.isnan(sample.response_max):
        return None
    return spread_from_longest(sample.response_tokens, sample.response_max, responses)


def cluster_for(sample: Sample, world: int) -> Cluster:
    return Cluster(cpu_device(sample.peak_flops, 24 * GIB), gpus_per_node=world, nodes=1)


def fit(study_samples: list[Sample], space: Space, model: str | None = None, ridge: float = 1e-3) -> dict[str, Any]:
    """Weights per phase from measured samples (CPU device for builtin-trainer trials)."""
    if len(study_samples) < 2:
        raise ValueError(f"calibration needs at least 2 measured trials, got {len(study_samples)}")
    world = space.trial.world_size
    prompt = statistics.fmean(s.prompt_tokens for s in study_samples)
    response = statistics.fmean(s.response_tokens for s in study_samples)
    features = []
    for s in study_samples:
        w = workload(s.flat, s.env, world, s.prompt_tokens, s.response_tokens, response_spread=_spread(s))
        shape = find_shape(model or s.flat.get("actor_rollout_ref.model.path"), s.flat)
        features.append(phase_features(w, shape, cluster_for(s, world), param_bytes=4))
    weights: dict[str, dict[str, float]] = {}
    for phase in (*PHASE_METRICS, "step"):
        names = sorted({name for f in features if phase in f for name in f[phase]})
        if not names:
            continue
        rows, targets = [], []
        for s, f in zip(study_samples, features, strict=True):
            measured = (
                s.step - sum(v for v in s.phases.values() if not math.isnan(v)) if phase == "step" else s.phases[phase]
            )
            if phase not in f or math.isnan(measured):
                continue
            scale = 1.0 / max(abs(measured), 1e-6)
            rows.append([f[phase].get(n, 0.0) * scale for n in names])
            targets.append(measured * scale)
        if not rows:
            continue
        a, b = np.array(rows), np.array(targets)
        column = np.maximum(np.abs(a).max(axis=0), 1e-30)
        augmented = np.vstack([a / column, math.sqrt(ridge) * np.eye(len(names))])
        x = nnls(augmented, np.concatenate([b, np.zeros(len(names))])) / column
        weights[phase] = {n: float(v) for n, v in zip(names, x, strict=True)}
    return {
        "weights": weights,
        "prompt_tokens": prompt,
        "response_tokens": response,
        "response_spread": statistics.fmean(_spread(s) or 0.0 for s in study_samples),
        "param_bytes": 4,
        "device": "cpu",
        "peak_flops": statistics.fmean(s.peak_flops for s in study_samples),
        "source": f"fitted on {len(study_samples)} trials",
        "trials": [s.number for s in study_samples],
    }


def fit_warnings(calibration: dict[str, Any], holdout: float = 0.0) -> list[str]:
    """What makes a study's fit untrustworthy: as many weights in a phase as trials, or more (such a fit
    matches its trials whatever the model, so its in-sample error says nothing of other configurations),
    and a fit far off even its own trials (timings disturbed by other work on the machine). `--holdout` is
    suggested only when it was not given (given, and too few trials to hold any back, it is said apart)."""
    out = []
    trials = len(calibration["trials"])
    most = max((len(w) for w in calibration["weights"].values()), default=0)
    if too_few_trials(calibration):
        check = (
            ""
            if calibration.get("holdout_trials") or holdout > 0
            else "; `--holdout 0.25` (4 trials or more) tests the fit on trials it did not see"
        )
        out.append(
            f"fitted up to {most} weights per phase on {trials} trials: that many weights can match {trials} trials "
            f"whatever the model, so the in-sample error says little. Calibrate on a study of more than {most} "
            f"measured trials (`autotune run --trials N`){check}"
        )
    error = calibration.get("fit_error_median", math.nan)
    if error > POOR_FIT:
        out.append(
            f"a poor fit ({error:.0%} median step-time error on its own trials, above {POOR_FIT:.0%}): were the "
            "trials timed beside other work on this machine? A calibration from them predicts no better; re-run "
            "the study on a quiet machine"
        )
    return out


def predict_step(calibration: dict[str, Any], sample: Sample, space: Space, model: str | None = None) -> float:
    """The calibrated model's step time for a sample's config (its own measured lengths are not used)."""
    world = space.trial.world_size
    shape = find_shape(model or sample.flat.get("actor_rollout_ref.model.path"), sample.flat)
    device = cpu_device(float(calibration.get("peak_flops", sample.peak_flops)), 24 * GIB)
    cost = CostModel(
        Cluster(device, gpus_per_node=world, nodes=1),
        shape,
        weights=calibration["weights"],
        param_bytes=int(calibration.get("param_bytes", 4)),
        prompt_tokens=calibration.get("prompt_tokens"),
        response_tokens=calibration.get("response_tokens"),
        response_spread=calibration.get("response_spread"),
    )
    return cost.predict(sample.flat, sample.env, world).step


def errors(calibration: dict[str, Any], held: list[Sample], space: Space) -> list[float]:
    """Relative step-time errors |predicted - measured| / measured."""
    return [abs(predict_step(calibration, s, space) - s.step) / s.step for s in held if s.step > 0]


def held_back(n: int, share: float) -> list[int]:
    """The positions of the trials held back: the share asked of `n` (at least one; two or more left to fit on),
    spread evenly over them (every k-th held back any share of 0.5 or more as half)."""
    wanted = min(max(1, round(n * share)), n - 2)
    return [(2 * i + 1) * n // (2 * wanted) for i in range(wanted)]


def calibrate_study(
    paths: StudyPaths, study: optuna.Study, space: Space, adapter: TrainerAdapter, holdout: float = 0.0
) -> dict[str, Any]:
    """Fit on all the study's trials and record the errors. With `holdout` > 0 the error on trials the fit did not
    see is measured first (a fit on the others, scoring the held-back ones); what is written is the fit on all
    (the held-back test's fit, on fewer trials, replaced it without a word)."""
    all_samples = samples(study, space, adapter, paths)
    held: list[Sample] = []
    if holdout > 0 and len(all_samples) >= 4:
        held = [all_samples[i] for i in held_back(len(all_samples), holdout)]
        tested = fit([s for s in all_samples if s not in held], space)
        held_err = errors(tested, held, space)
    fit_on = all_samples
    calibration = fit(fit_on, space)
    fit_err = errors(calibration, fit_on, space)
    calibration["fit_error_median"] = statistics.median(fit_err) if fit_err else math.nan
    default_err = errors({**calibration, "weights": {}}, fit_on, space)  # the public, GPU-derived weights
    calibration["uncalibrated_error_median"] = statistics.median(default_err) if default_err else math.nan
    if held:
        calibration["holdout_trials"] = [s.number for s in held]
        calibration["holdout_error_median"] = statistics.median(held_err)
        calibration["holdout_errors"] = held_err
    calibration["study"] = paths.name
    return calibration
