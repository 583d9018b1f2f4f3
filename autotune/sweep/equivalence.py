"""The equivalence check: the winner's systems changes keep the training math.

Baseline and winner each run `python -m trainer.equivalence` (the built-in trainer, under torchrun
at the trial's world size, with the trial's environment): one training step on a fixed, seeded
batch of rollouts that no setting can change. Their log-prob passes (rollout at its TP layout,
old, reference, after the update), values, advantages, losses and gradient norms must agree within
a stated tolerance, element by element: |winner - baseline| <= atol + rtol * |baseline|. A metric
outside it is reported by name with the size of the difference: the change that caused it moves
the math, whatever its declared role.

Tolerances: fp32 on a CPU, the differences come only from summation order (micro-batch boundaries,
packing, the TP all-reduce); the measured worst over the shipped systems knobs is in the README, and
the bound sits above it with room. On a GPU the same order changes and non-deterministic kernels
(atomics, split-K) act, and bf16 rounds at 8 bits: the GPU bounds are stated, not measured here.
"""

from __future__ import annotations

import json
import math
import os
import subprocess
from dataclasses import replace
from pathlib import Path
from typing import Any, Literal

import optuna
import yaml
from rich.markup import escape

from autotune.adapters import warm
from autotune.adapters.base import TrainerAdapter
from autotune.space.sampling import TrialConfig, trial_config
from autotune.space.schema import Space
from autotune.study.equivalence_result import (
    TOLERANCES,
    Difference,
    EquivalenceResult,
    Outcome,
    Tolerance,
    as_stored,
    result_file,
)
from autotune.study.progress import SweepProgress
from autotune.study.storage import StudyPaths
from trainer.config.loader import to_nested


class EquivalenceRunFailed(RuntimeError):
    """The trainer could not measure a configuration (its stderr says why)."""


def changes(baseline: TrialConfig, winner: TrialConfig) -> dict[str, list[Any]]:
    """The keys and environment variables whose values differ between two trial configs."""
    out: dict[str, list[Any]] = {}
    for key in dict.fromkeys([*baseline.flat, *winner.flat]):
        if baseline.flat.get(key) != winner.flat.get(key):
            out[key] = [baseline.flat.get(key), winner.flat.get(key)]
    for name in dict.fromkeys([*baseline.env, *winner.env]):
        if baseline.env.get(name) != winner.env.get(name):
            out[f"env.{name}"] = [baseline.env.get(name), winner.env.get(name)]
    return out


def measure(
    base_config: list[str],
    config: TrialConfig,
    world: int,
    workdir: Path,
    threads_per_rank: int = 1,
    timeout_s: float = 600.0,
) -> dict[str, Any]:
    """Run the trainer's equivalence mode on one configuration; its JSON (see trainer/equivalence.py)."""
    workdir.mkdir(parents=True, exist_ok=True)
    config_file, out = workdir / "config.yaml", workdir / "equivalence.json"
    config_file.write_text(yaml.safe_dump(to_nested(config.flat), sort_keys=False))
    out.unlink(missing_ok=True)
    args = [
        "--out",
        str(out),
        *(arg for name in base_config for arg in ("--config", name)),
        "--config",
        str(config_file),
    ]
    argv = warm.launch_argv(world, args, ("-m", "trainer.equivalence"))  # the sweep's warm parent, when it is up
    env = {**os.environ, **config.env, "OMP_NUM_THREADS": str(threads_per_rank), "PYTHONUNBUFFERED": "1"}
    with (workdir / "stdout.log").open("w") as stdout, (workdir / "stderr.log").open("w") as stderr:
        try:
            proc = subprocess.run(argv, stdout=stdout, stderr=stderr, env=env, timeout=timeout_s, check=False)
        except subprocess.TimeoutExpired:  # a traceback, not a result (audit 26 F2)
            raise EquivalenceRunFailed(f"{workdir}: no result within {timeout_s:.0f} s") from None
    if proc.returncode != 0 or not out.exists():
        lines = (workdir / "stderr.log").read_text(errors="replace").strip().splitlines()
        raise EquivalenceRunFailed(f"{workdir}: exit code {proc.returncode}: {lines[-1] if lines else 'no output'}")
    result: dict[str, Any] = json.loads(out.read_text())
    return result


def compare(
    baseline: dict[str, Any], winner: dict[str, Any], tolerance: Tolerance
) -> tuple[list[str], list[Difference], dict[str, float]]:
    """(metrics compared, those outside the tolerance, the largest difference of each)."""
    import torch

    compared, differences, worst = [], [], {}
    for kind in ("tensors", "scalars"):
        for name in dict.fromkeys([*baseline[kind], *winner[kind]]):
            compared.append(name)
            if name not in baseline[kind] or name not in winner[kind]:
                missing = "the winner" if name not in winner[kind] else "the baseline"
                differences.append(
                    Difference(name, math.nan, math.nan, math.nan, f"computed by one only (not by {missing})")
                )
                continue
            a = torch.tensor(baseline[kind][name], dtype=torch.float64)
            b = torch.tensor(winner[kind][name], dtype=torch.float64)
            if a.shape != b.shape:
                shapes = f"of shape {tuple(a.shape)} at the baseline, {tuple(b.shape)} in the winner"
                differences.append(Difference(name, math.nan, math.nan, math.nan, shapes))
                continue
            gap = (a - b).abs()
            allowed = tolerance.atol + tolerance.rtol * a.abs()
            worst[name] = float(gap.max()) if gap.numel() else 0.0
            excess = gap - allowed
            if excess.numel() and float(excess.max()) > 0:
                at = int(excess.argmax())
                differences.append(Difference(name, worst[name], float(a.flatten()[at]), float(allowed.flatten()[at])))
    return compared, differences, worst


def check(
    base_config: list[str],
    baseline: TrialConfig,
    winner: TrialConfig,
    world: int,
    workdir: Path,
    device: str = "cpu",
    threads_per_rank: int = 1,
    tolerance: Tolerance | None = None,
) -> EquivalenceResult:
    """Measure both configurations on the fixed batch and compare them."""
    tol = tolerance or TOLERANCES["cuda" if device == "cuda" else "cpu"]
    changed = changes(baseline, winner)
    if not changed:
        return EquivalenceResult(
            "equivalent", {}, tol, world_size=world, detail="the systems values that ship are the baseline's"
        )
    a = measure(base_config, baseline, world, workdir / "baseline", threads_per_rank)
    b = measure(base_config, winner, world, workdir / "winner", threads_per_rank)
    compared, differences, worst = compare(a, b, tol)
    outcome: Outcome = "changes_math" if differences else "equivalent"
    return EquivalenceResult(outcome, changed, tol, compared, differences, worst, world)


def check_winner(
    space: Space,
    adapter: TrainerAdapter,
    baseline_params: dict[str, Any],
    winner_params: dict[str, Any],
    workdir: Path,
    device: str = "cpu",
) -> EquivalenceResult:
    """The check for a study's winner against its baseline (params as a trial holds them)."""
    tol = TOLERANCES["cuda" if device == "cuda" else "cpu"]
    if space.trainer != "builtin":
        return EquivalenceResult(
            "not_run",
            {},
            tol,
            detail=f"it runs on the built-in trainer; space `{space.name}` runs the {space.trainer} trainer",
        )
    base = trial_config(space, adapter, baseline_params)
    win = trial_config(space, adapter, winner_params)
    return check(
        space.base_config, base, win, space.trial.world_size, workdir, device, space.trial.threads_per_rank, tol
    )


def moved_by(
    space: Space,
    adapter: TrainerAdapter,
    baseline_params: dict[str, Any],
    winner_params: dict[str, Any],
    workdir: Path,
    failed: EquivalenceResult,
) -> dict[str, str]:
    """After a failed check of several changes: each alone (with the params it switches on, as the ablation and
    `explain` apply it) against the baseline measured by that check, {change: its first difference} for those that
    move the math. One change is its own answer; a few seconds a change on a CPU."""
    from autotune.sweep.explain import configure, knobs

    changes = knobs(space, baseline_params, winner_params)[0]
    if len(changes) < 2:
        return {}
    base = json.loads((workdir / "baseline" / "equivalence.json").read_text())
    defaults = adapter.defaults(space.base_config)
    out = {}
    for i, knob in enumerate(changes):
        alone = trial_config(space, adapter, configure(space, defaults, {**baseline_params, **knob.params}))
        measured = measure(space.base_config, alone, space.trial.world_size, workdir / f"alone-{i}",
                           space.trial.threads_per_rank)  # fmt: skip
        differences = compare(base, measured, failed.tolerance)[1]
        if differences:
            out[knob.label] = differences[0].describe()
    return out


def checked_winner(
    space: Space, adapter: TrainerAdapter, paths: StudyPaths, winner_params: dict[str, Any], device: str
) -> EquivalenceResult:
    """The check of the winner that ships (its params as `find_winner` gives them), kept in equivalence.json with
    those params: a measurement that failed is kept as `could_not_run`, replacing an earlier result (an `equivalent`
    one stayed beside an export marked for a math change, audit 26 F2)."""
    from autotune.export.winner import shipped_params

    kind: Literal["cpu", "cuda"] = "cuda" if device == "cuda" else "cpu"
    params = shipped_params(space, adapter, winner_params, kind)
    workdir = paths.root / "equivalence"
    try:
        result = check_winner(space, adapter, dict(space.baseline), params, workdir, device)
        if result.outcome == "changes_math":
            result = replace(result, moved_by=moved_by(space, adapter, dict(space.baseline), params, workdir, result))
    except EquivalenceRunFailed as exc:
        result = EquivalenceResult("could_not_run", {}, TOLERANCES[kind], detail=str(exc))
    result = replace(result, winner_params=as_stored(winner_params))
    result.save(result_file(paths))
    return result


def run_equivalence(
    study: optuna.Study, space: Space, adapter: TrainerAdapter, paths: StudyPaths, device: str, progress: SweepProgress
) -> EquivalenceResult | None:
    """After confirmation (and the ablation): the winner that ships against the baseline on the fixed batch."""
    from autotune.study.results import NoWinner, find_winner

    try:
        winner = find_winner(study, paths, space)
    except NoWinner:
        return None
    progress.note("equivalence check: the winner that ships against the baseline on a fixed batch")
    result = checked_winner(space, adapter, paths, winner.params, device)
    for line in result.summary():
        progress.note(
            ("[green]" if result.outcome == "equivalent" else "[red]" if not result.ok else "") + escape(line)
        )
    return result
