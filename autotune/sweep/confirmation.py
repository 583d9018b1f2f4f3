"""Confirmation: re-run the top-k configurations and the baseline, interleaved, and pick the winner
on its confirmed speedup over the baseline's rounds beside it.

A sweep's ranking is one noisy measurement per configuration; on a shared machine the noise
drifts over time. Re-running every candidate once per round, in a rotated order, and comparing
each with the baseline of the same round, gives a speedup with a spread that drift does not bias.
The result is a `Confirmation` (study/confirmation_result.py), written to `runs/<study>/confirmation.json` and
read by `best`, `export` and the report. Each run keeps its result as it finishes (`KEPT`): a
confirmation cut short goes on from its finished rounds (`start_kept`), a finished one's are not
reused (`finish_kept`); the ablation and explain keep theirs the same way.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import math
import shutil
import statistics
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import optuna

from autotune.adapters.base import TrainerAdapter
from autotune.space.schema import Space
from autotune.study.confirmation_result import Confirmation, ConfirmedCandidate
from autotune.study.progress import SweepProgress
from autotune.study.ratios import Ratios, gain_interval
from autotune.study.results import top_candidates
from autotune.study.storage import StudyPaths, baseline_trial
from autotune.trial.evaluation import evaluate
from autotune.trial.record import TrialRecord


@dataclass
class Candidate:
    number: int
    """Trial number (confirmation) or position in an ablation round."""
    params: dict[str, Any]
    values: list[float] = field(default_factory=list)
    """First objective per round (NaN when the run failed)."""
    feasible: list[bool] = field(default_factory=list)
    """Per round: the run completed inside every limit."""
    ran: list[bool] = field(default_factory=list)
    """Per round: the run finished its steps (complete or infeasible; not crashed, timed out or stopped)."""
    limits: list[dict[str, float]] = field(default_factory=list)
    """Per round: each limit's metric value (empty when the run produced none)."""
    details: list[str] = field(default_factory=list)
    """Per round: why the run was not feasible (`outside limits: memory ...`); empty when it was."""
    key_metrics: list[dict[str, float]] = field(default_factory=list)
    label: str = ""
    """Folder stem of its runs (default `t<number>`)."""
    says: str = ""
    """What its progress lines call it (default: its label, or `#<number>`)."""
    is_baseline: bool = False
    """Run as the study's baseline: its ratio limits compare with itself."""

    @property
    def stem(self) -> str:
        return self.label or f"t{self.number:04d}"


def measure_interleaved(
    space: Space,
    adapter: TrainerAdapter,
    candidates: list[Candidate],
    folder: Path,
    repeats: int,
    baseline_limits: dict[str, float] | None,
    progress: SweepProgress,
    title: str = "confirm",
    of: tuple[int, int] | None = None,
    keep: str | None = None,
) -> None:
    """Run every candidate once per round, in an order rotated each round, into `folder/r<round>-<stem>`.

    Results are appended to each candidate; comparing candidates round by round cancels the drift
    of a shared machine. `of` (first round's number, rounds in all) numbers the progress lines of
    rounds that continue earlier ones. With `keep` (a key of what the runs are measured under), each
    run's result is kept in its folder (`KEPT`), and a round whose every run was kept under the same key
    with the same params is read back instead of run again: an interrupted measurement goes on from
    its finished rounds (a round cut short runs again whole, so its runs stay side by side in time).
    """
    first, total = of or (1, repeats)
    for round_ in range(repeats):
        shift = round_ % len(candidates)
        order = candidates[shift:] + candidates[:shift]
        kept = [_kept(folder / f"r{round_ + 1}-{c.stem}", c, keep) for c in order] if keep else []
        if kept and all(k is not None for k in kept):
            progress.note(f"{title} round {first + round_}/{total}: kept from an earlier run ({folder})")
            for c, result in zip(order, kept, strict=True):
                _append(c, **result)  # type: ignore[arg-type]
            continue
        if any(k is not None for k in kept):  # said: the rerun's lines read as a fresh run's (audit 18 F4)
            done = sum(k is not None for k in kept)
            progress.note(
                f"{title} round {first + round_}/{total} was cut short ({done} of {len(kept)} runs finished): it runs "
                "again whole, so its runs stay side by side in time"
            )
        for c in order:
            name = "baseline" if c.is_baseline else (c.says or c.label or f"#{c.number}")
            progress.note(f"{title} round {first + round_}/{total}: {name}")
            run_dir = folder / f"r{round_ + 1}-{c.stem}"
            (run_dir / KEPT).unlink(missing_ok=True)  # a run cut short keeps nothing
            ev = evaluate(space, adapter, c.params, run_dir, baseline_limits, is_baseline=c.is_baseline)
            result = {
                "value": ev.objectives[0] if ev.objectives and ev.outcome in ("complete", "infeasible") else math.nan,
                "feasible": ev.outcome == "complete",
                "ran": ev.outcome in ("complete", "infeasible"),
                "limits": dict(ev.score.limits) if ev.score else {},
                "key_metrics": dict(ev.score.key_metrics) if ev.score else {},
                "detail": "" if ev.outcome == "complete" else ev.detail or ev.outcome,
            }
            _append(c, **result)
            if keep and result["ran"]:  # a failed run is run again next time, not read back as a round (audit 30 F3)
                (run_dir / KEPT).write_text(json.dumps({"key": keep, "params": _canonical(c.params), **result}))


KEPT = "kept.json"
"""A run's result beside it, when its measurement keeps its runs (`measure_interleaved(keep=...)`)."""


def kept_key(space: Space, limits: dict[str, float] | None) -> str:
    """What kept runs must have been measured under to be reused: the same limits, and the space as its trials
    measure it (a comment, or `confirm:`'s rounds, changed in the file threw the finished rounds away)."""
    import yaml

    from autotune.study.resume_checks import what_trials_measure

    measured = what_trials_measure(yaml.safe_load(space.text))
    return hashlib.sha256(json.dumps([measured, limits], sort_keys=True, default=str).encode()).hexdigest()[:16]


def start_kept(folder: Path) -> None:
    """Before a measurement in `folder` that keeps its runs: one cut short there (its runs still kept) goes on
    from them; a finished one's runs (`finish_kept`) are removed, so its rounds do not mix in."""
    if not any(folder.rglob(KEPT)):
        shutil.rmtree(folder, ignore_errors=True)


def finish_kept(folder: Path) -> None:
    """The measurement in `folder` concluded and its result is written: its runs are no longer reused (measuring
    it again, or deleting the result file, measures afresh)."""
    for path in folder.rglob(KEPT):
        path.unlink()


def outside_limits(c: Candidate) -> str:
    """How a configuration broke a limit in rounds it ran (`outside limits: memory ... in 2 of 3 rounds`), or ""
    (inside them, or it never ran)."""
    bad = [d or "outside its limits" for d, ran, ok in zip(c.details, c.ran, c.feasible, strict=True) if ran and not ok]
    return f"{bad[0]} in {len(bad)} of {sum(c.ran)} rounds" if bad else ""


def _append(
    c: Candidate,
    value: float,
    feasible: bool,
    ran: bool,
    limits: dict[str, float],
    key_metrics: dict[str, float],
    detail: str = "",
) -> None:
    c.values.append(value)
    c.feasible.append(feasible)
    c.ran.append(ran)
    c.limits.append(limits)
    c.key_metrics.append(key_metrics)
    c.details.append(detail)


def _canonical(params: dict[str, Any]) -> str:
    return json.dumps(params, sort_keys=True, default=str)


def _kept(run_dir: Path, c: Candidate, keep: str | None) -> dict[str, Any] | None:
    """The run's kept result, when it was measured under `keep` with `c`'s params (else None: run it)."""
    try:
        data = json.loads((run_dir / KEPT).read_text())
    except (OSError, ValueError):
        return None
    if not isinstance(data, dict) or data.get("key") != keep or data.get("params") != _canonical(c.params):
        return None
    if not data.get("ran"):  # kept before failed runs were left out: not a measured round (audit 30 F3)
        return None
    try:
        return {
            "value": float(data["value"]),
            "feasible": bool(data["feasible"]),
            "ran": bool(data["ran"]),
            "limits": {str(k): float(v) for k, v in data["limits"].items()},
            "key_metrics": {str(k): float(v) for k, v in data["key_metrics"].items()},
            "detail": str(data.get("detail", "")),
        }
    except (KeyError, TypeError, ValueError, AttributeError):
        return None


def run_confirmation(
    study: optuna.Study,
    space: Space,
    adapter: TrainerAdapter,
    paths: StudyPaths,
    top_k: int,
    repeats: int,
    progress: SweepProgress,
) -> Confirmation | None:
    base = baseline_trial(study)
    top = top_candidates(study, space, top_k)
    if base is None or not top or repeats <= 0:
        progress.note(
            "[yellow]confirmation skipped: it needs a finished baseline and at least one feasible trial besides it[/]"
        )
        return None
    candidates = [Candidate(t.number, dict(t.params), is_baseline=t.number == base.number) for t in [base, *top]]
    baseline_limits = dict(TrialRecord.of(base).limits)
    keep = kept_key(space, baseline_limits)
    start_kept(paths.confirm_dir)  # a confirmation cut short goes on from its finished rounds
    measure_interleaved(space, adapter, candidates, paths.confirm_dir, repeats, baseline_limits, progress, keep=keep)
    summary = summarize(candidates, base.number, space.objectives[0].direction == "maximize", space)
    summary.write(paths)
    finish_kept(paths.confirm_dir)
    return summary


def compare(c: Candidate, ref: Candidate) -> Ratios:
    """Per-round ratios of `c` to `ref` (objective, memory, peak RSS): mean, geometric mean, min, max and std
    of the speedup."""
    ratios = [v / b for v, b in zip(c.values, ref.values, strict=True) if b and not math.isnan(v) and not math.isnan(b)]

    def ratio(key: str) -> float:
        pairs = zip(c.key_metrics, ref.key_metrics, strict=True)
        return _mean([m.get(key, math.nan) / bm[key] for m, bm in pairs if m and bm and bm.get(key)])

    low, high = gain_interval(ratios)
    return Ratios(
        speedup_low=low,
        speedup_high=high,
        speedup_mean=_mean(ratios),
        speedup_geomean=math.exp(statistics.fmean(map(math.log, ratios))) if ratios and min(ratios) > 0 else math.nan,
        speedup_min=min(ratios) if ratios else math.nan,
        speedup_max=max(ratios) if ratios else math.nan,
        speedup_std=statistics.stdev(ratios) if len(ratios) > 1 else 0.0,
        memory_ratio=ratio("memory_gb"),
        rss_ratio=ratio("rss_gb"),
    )


def summarize(
    candidates: list[Candidate], baseline_number: int, maximize: bool, space: Space | None = None
) -> Confirmation:
    """Every candidate's rounds against the baseline's, and the winner (`Confirmation.decide`: the eligible
    candidate with the best speedup over the baseline's rounds, when it beats the baseline).

    With `space` (and per-round limit values), a candidate is eligible when it finished its steps in
    every round and its limit values *averaged over the rounds* are inside the limits (ratio limits
    against the baseline's averages over the same rounds): the rule `evaluate` applies to a trial's
    repeats. One noisy round over a limit (a comm share pushed up by another process on a shared
    machine) no longer disqualifies a candidate whose rounds are inside on average, and more rounds
    make the verdict more certain instead of more likely to fail. Deterministic metrics (KL, tensor
    memory) are equal in every round, so their verdict is unchanged. Without `space`: feasible in
    every round.
    """
    base = next(c for c in candidates if c.number == baseline_number)
    base_limits = _mean_limits(base)
    rows = []
    for c in candidates:
        row = ConfirmedCandidate(
            **dataclasses.asdict(compare(c, base)),
            number=c.number,
            params=c.params,
            values=c.values,
            feasible_rounds=sum(c.feasible),
            rounds=len(c.values),
            mean=_mean(c.values),
            kl=_mean([m.get("kl", math.nan) for m in c.key_metrics if m]),
            comm_share=_mean([m.get("comm_share", math.nan) for m in c.key_metrics if m]),
            mfu=_mean([m.get("mfu", math.nan) for m in c.key_metrics if m]),
            is_baseline=c.number == baseline_number,
        )
        if space is not None and c.limits:
            _judge_on_means(row, c, space, base_limits)
        rows.append(row)
    return Confirmation.decide(rows, baseline_number, maximize)


def _mean_limits(c: Candidate) -> dict[str, float]:
    names = {name for limits in c.limits for name in limits}
    return {name: _mean([limits.get(name, math.nan) for limits in c.limits]) for name in sorted(names)}


def _judge_on_means(row: ConfirmedCandidate, c: Candidate, space: Space, base_limits: dict[str, float]) -> None:
    """The candidate's limit values averaged over its rounds, each limit's violation (> 0: violated)
    and the verdict: finished every round and inside every limit on the averages."""
    from autotune.trial.scoring import violation

    means = _mean_limits(c)
    violations = {}
    for limit in space.limits:
        if limit.metric in space.unmeasured:
            continue
        value = means.get(limit.metric, math.nan)
        violations[limit.metric] = violation(limit, value, means if row.is_baseline else base_limits)[0]
    row.limits_mean, row.violations_mean = means, violations
    row.feasible_on_mean = bool(c.ran) and all(c.ran) and all(v <= 0 for v in violations.values())


def _mean(values: list[float]) -> float:
    real = [v for v in values if not math.isnan(v)]
    return statistics.fmean(real) if real else math.nan
