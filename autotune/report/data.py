"""The report's data, computed before anything is drawn (tests assert on these).

Every function takes what `autotune report` can always reach — the Optuna study, the study's
folder (trial folders, and what the sweep concluded: `study.results.find_winner` and the conclusions' owners) and the space the sweep
ran — and returns plain DataFrames or named tuples. Nothing here runs a trial.
"""

from __future__ import annotations

import datetime
import hashlib
import math
import os
import platform
import sys
from importlib import metadata
from pathlib import Path
from typing import Any, NamedTuple

import optuna
import pandas as pd

from autotune.adapters import get_adapter
from autotune.export.winner import ExportError, exported, sweep_device
from autotune.names import short_labels
from autotune.report.health import (  # noqa: F401  (health_curves, curves_coincide: re-exported)
    Check,
    curves_coincide,
    health_checks,
    health_curves,
)
from autotune.report.importance import (  # noqa: F401  (re-exported: the report's data lives here)
    MIN_TRIALS_FOR_IMPORTANCE,
    importance_count,
    importance_intervals,
    importances,
)
from autotune.space.freeze import inert_params
from autotune.space.schema import Space
from autotune.study.ablation_result import Ablation, ExplainStep, Explanation
from autotune.study.frames import NOT_FINISHED, QUEUED, objective_names, step_frame, trials_frame, unfinished_lines
from autotune.study.live import worker_flags
from autotune.study.predicted_winner import PredictedWinner
from autotune.study.results import (
    NoWinner,
    Winner,
    current_explanation,
    find_winner,
    why_unconfirmed,
    winner_caveat,
)
from autotune.study.storage import StudyInfo, StudyPaths, baseline_trial
from autotune.trial.record import SKIPPED, TrialRecord, read_rows
from autotune.trial.scoring import resolve_metric

PHASE_FRAME = ("number", "baseline", "outcome")
"""The columns of `phase_breakdown` before its phases (then `comm` and `step`)."""


class Summary(NamedTuple):
    winner: int | None
    source: str
    baseline: int | None
    objective: str
    winner_value: float
    baseline_value: float
    speedup: float
    speedup_min: float
    speedup_max: float
    speedup_std: float
    """The rounds' spread of the per-round speedups (min, max, std), beside `speedup_interval`."""
    memory_ratio: float
    kl: float
    comm_share: float
    mfu: float
    checks: list[Check]
    memory_metric: str = "memory"
    """The concrete metric behind `memory` (device memory on GPU, the trainer's tensor memory on CPU)."""
    rss_ratio: float = math.nan
    """Peak host RSS of the winner over the baseline's, shown beside the memory ratio."""
    trials_span_s: float = math.nan
    """Wall time from the first trial's start to the last trial's end (confirmation re-runs not included)."""
    outside_steps_share: float = math.nan
    """Share of `trials_span_s` not spent in training steps: start-up, teardown, the controller between trials."""
    predicted: bool = False
    """Every trial was predicted by the cost model (`--fidelity sim`): the numbers are predictions, and what a
    prediction cannot have (wall time of trials, host RSS, KL) is left out."""
    predicted_oom: int = 0
    """Configurations the cost model predicts to run out of device memory (failed trials with reason `oom`)."""
    predicted_lengths: str = ""
    predicted_error: str = ""
    """The error of the model this study was predicted by, when it is not the published runs' (a calibration's own,
    or none known for the built-in trainer): `StudyInfo.sim_error`."""
    """The response lengths the cost model assumed, and where each came from (StudyInfo.sim_lengths)."""
    whole: str = ""
    """Where the objective's value, KL, comm share and MFU come from after an ablation: confirmation ("in
    confirmation"; "the whole winner #N's, in confirmation" when it dropped a change), beside a speedup the
    ablation measured (empty: no ablation, all from one measurement). Speedup, its rounds, memory and RSS are
    always what ships."""
    baseline_ships: str = ""
    equivalence: str = ""
    """What the equivalence check found of the winner that ships (empty when none is kept for it)."""
    equivalence_ok: bool = True
    """Why the baseline's systems values ship, when it does (`Winner.why_baseline`; the beaten candidate too)."""
    speedup_interval: tuple[float, float] = (math.nan, math.nan)
    """The `LEVEL` interval of `speedup` (a confirmed winner's, or what ships as the ablation measured it)."""
    quality_other_systems: str = ""
    """When the quality stage's runs used other systems values than the winner ships (`Quality.ran_on_other_systems`):
    `best`, the report and the export say it (the report did not; audit 27 F10)."""
    caveat: str = ""
    """What to know of the winner before its figures (`results.winner_caveat`, as `best` says it), or why there is
    none (`NoWinner`'s message: the page said "No feasible trial yet." of a finished sweep whose baseline broke a
    limit; audit 27 F9)."""


def _metric(rec: TrialRecord, key: str) -> float:
    value = rec.key_metrics.get(key)
    return float(value) if value is not None else math.nan


def time_outside_steps(
    study: optuna.Study, since: datetime.datetime | None = None, worker: tuple[str, int] | None = None
) -> tuple[float, float]:
    """(span of the finished trials in seconds, share of it outside training steps), over the trials
    started at `since` or later (all by default) and run by `worker` (host, pid; all by default); NaN when
    none has finished. The span is each controller's own, from its first trial's start to its last one's end,
    summed over the controllers (the `autotune run` that ran each trial: a Ray driver for its Ray workers'): a resumed study's pause between runs, and
    the quality stage and confirmation after a run's trials, are no trial's time (a resumed study read 97%
    outside steps). A trial that reused another's result ran no step: its copied train_s is not counted (it
    read "14 s in training steps" of 10 s, "-43% outside them", audit 17 F7)."""
    runs: dict[Any, list[tuple[datetime.datetime, datetime.datetime, float]]] = {}
    for t in study.get_trials(deepcopy=False):
        if t.datetime_start is None or t.datetime_complete is None or (since is not None and t.datetime_start < since):
            continue
        rec = TrialRecord.of(t)
        controller = rec.controller
        if (worker is not None and controller != worker) or rec.outcome == SKIPPED:  # given back: never ran
            continue
        train = 0.0 if rec.duplicate_of is not None else rec.train_s
        runs.setdefault(controller, []).append((t.datetime_start, t.datetime_complete, train))
    if not runs:
        return math.nan, math.nan
    span = sum((max(e for _, e, _ in ran) - min(b for b, _, _ in ran)).total_seconds() for ran in runs.values())
    train = sum(s for ran in runs.values() for _, _, s in ran if not math.isnan(s))
    return span, (1 - train / span if span > 0 else math.nan)


def summary(study: optuna.Study, paths: StudyPaths, space: Space) -> Summary:
    """The winner against the baseline (confirmed numbers when confirmation ran) and the health checklist."""
    objective = space.objectives[0].metric
    base = baseline_trial(study)
    try:
        winner, no_winner = find_winner(study, paths, space), ""
    except NoWinner as exc:
        winner, no_winner = None, str(exc)
    row = winner.confirmed if winner else None
    trial = next((t for t in study.get_trials(deepcopy=False) if winner and t.number == winner.number), None)
    base_rec = TrialRecord.of(base) if base else TrialRecord()
    if row is not None:
        memory, kl, comm, mfu, rss = row.memory_ratio, row.kl, row.comm_share, row.mfu, row.rss_ratio
        spread = (row.speedup_min, row.speedup_max, row.speedup_std)
    else:
        rec = TrialRecord.of(trial) if trial else TrialRecord()
        if winner is not None and winner.credited is not None and winner.credited.shipped_metrics:
            rec = TrialRecord(key_metrics=winner.credited.shipped_metrics)  # the prediction of what ships
        base_mem, base_rss = _metric(base_rec, "memory_gb"), _metric(base_rec, "rss_gb")
        memory = _metric(rec, "memory_gb") / base_mem if base_mem else math.nan
        rss = _metric(rec, "rss_gb") / base_rss if base_rss else math.nan
        kl, comm, mfu = _metric(rec, "kl"), _metric(rec, "comm_share"), _metric(rec, "mfu")
        spread = (math.nan, math.nan, math.nan)
    whole = ""  # the figures measured only of the whole winner, when what ships is less than it
    if winner is not None and winner.ablation is not None:  # what ships was measured by the ablation
        shipped = winner.ablation.shipped_speedup
        spread = (shipped.speedup_min, shipped.speedup_max, shipped.speedup_std)
        memory = shipped.memory_ratio if not math.isnan(shipped.memory_ratio) else memory
        rss = shipped.rss_ratio if not math.isnan(shipped.rss_ratio) else rss
        # the value, KL, comm and MFU are confirmation's means, beside a speedup the ablation measured: said
        whole = f"the whole winner #{winner.number}'s, in confirmation" if winner.ships_less else "in confirmation"
    value = winner.value if winner else math.nan
    if winner and winner.ships_baseline and not winner.baseline_won and winner.baseline_confirmed is not None:
        shipped_row = winner.baseline_confirmed  # every change went back: what ships is the baseline, and the
        kl, comm, mfu = shipped_row.kl, shipped_row.comm_share, shipped_row.mfu  # checklist judged the sent-back
        value, whole = shipped_row.mean, "the baseline's, in confirmation"  # winner's beside its 1× (audit 27 F4)
    base_row = winner.baseline_confirmed if winner and base else None
    if base_row is not None:  # the confirmed means, side by side (the winner's value is its confirmed mean)
        base_value = base_row.mean
    else:  # an infeasible baseline (e.g. over a comm-share limit) was still measured
        measured = base and base.values and base_rec.scored
        base_value = base.values[0] if base and measured else math.nan
    predicted = StudyInfo.of(study).fidelity == "sim"
    # a simulated study's device is the one its cost model predicts: a calibration fitted on CPU trials predicts
    # a CPU, whose MFU was judged against the GPU target ("3.9% ≥ 35% fail", audit 15 F4)
    checks = health_checks(space, kl, comm, memory, mfu, StudyInfo.of(study).device == "cuda", predicted=predicted)
    span, outside = time_outside_steps(study)
    if predicted:  # predicted step times against the trials' wall time would mean nothing; no process ran
        span, outside, rss = math.nan, math.nan, math.nan
    return Summary(
        winner=winner.number if winner else None,
        source=winner.source if winner else "none",
        baseline=base.number if base else None,
        objective=objective,
        winner_value=value,
        baseline_value=base_value,
        speedup=winner.speedup if winner and winner.speedup is not None else math.nan,
        speedup_min=spread[0],
        speedup_max=spread[1],
        speedup_std=spread[2],
        memory_ratio=memory,
        kl=kl,
        comm_share=comm,
        mfu=mfu,
        checks=checks,
        memory_metric=memory_metric(study, paths),
        rss_ratio=rss,
        trials_span_s=span,
        outside_steps_share=outside,
        predicted=predicted,
        predicted_oom=predicted_ooms(study) if predicted else 0,
        predicted_lengths=(StudyInfo.of(study).sim_lengths or "") if predicted else "",
        predicted_error=(StudyInfo.of(study).sim_error or "") if predicted else "",
        whole=whole,
        baseline_ships=_baseline_ships(study, winner, paths, space),
        **_equivalence(paths, winner),
        speedup_interval=winner.speedup_spread if winner and winner.source == "confirmed" and winner.speedup_spread
        else (math.nan, math.nan),
        quality_other_systems=_quality_other_systems(study, paths, space, winner),
        caveat="; ".join(
            x
            for x in (_running(paths), winner_caveat(study, winner, paths) if winner else no_winner,
                      *unfinished_lines(study))
            if x
        ),
    )  # fmt: skip


def _running(paths: StudyPaths) -> str:
    """The worker still at the study (`live.in_progress`), said first: a resumed study's report showed its earlier
    decision as the result while a worker re-decided it (audit 34 F5)."""
    from autotune.study.live import AS_IT_STANDS, in_progress

    running = in_progress(paths)
    return f"{running}: {AS_IT_STANDS}" if running else ""


def _equivalence(paths: StudyPaths, winner: Winner | None) -> dict[str, Any]:
    """The kept equivalence check of what ships, as the summary says it (a failed one read nowhere: audit 26 F1)."""
    from autotune.study.equivalence_result import shipping_verdict

    kept = shipping_verdict(paths, winner.params) if winner is not None else None
    if kept is None or (kept.ok and not kept.changes):
        return {}
    said = kept.summary()[0] if kept.ok else f"NOT FOR SHIPPING: {kept.headline}"
    return {"equivalence": said, "equivalence_ok": kept.ok}


def _quality_other_systems(study: optuna.Study, paths: StudyPaths, space: Space, winner: Winner | None) -> str:
    from autotune.export.winner import shipped_params
    from autotune.space.stages import systems_values
    from autotune.study.quality_result import Quality

    quality = Quality.read(paths) if winner is not None else None
    if quality is None or winner is None:
        return ""
    # the values as they ship: knobs inert on the sweep's device at their baseline (it said NCCL_ALGO ran None but
    # shipped Ring, where the export writes None, audit 32 F3)
    adapter = get_adapter(space.trainer, space.command)
    ships = shipped_params(space, adapter, winner.params, sweep_device(study))
    return quality.ran_on_other_systems(systems_values(space, ships)) or ""


def _baseline_ships(study: optuna.Study, winner: Winner | None, paths: StudyPaths, space: Space) -> str:
    """Why the baseline's systems values ship, when they do: it won confirmation, the ablation sent every change
    back, or the winner is the baseline trial itself (nothing beat it, or only it ran: a quality-only study)."""
    if winner is None:
        return ""
    if winner.ships_baseline:
        return winner.baseline_ships
    base = baseline_trial(study)
    if winner.source == "sweep" and base is not None and winner.number == base.number:
        return f"the winner is the baseline trial: {why_unconfirmed(study, winner, paths)}"
    return ""


def predicted_ooms(study: optuna.Study) -> int:
    """Trials the cost model predicts to run out of device memory."""
    records = (TrialRecord.of(t) for t in study.get_trials(deepcopy=False))
    return sum(1 for r in records if r.outcome == "failed" and r.reason == "oom")


def memory_metric(study: optuna.Study, paths: StudyPaths | None = None) -> str:
    """Which metric `memory` resolved to in this study (read from the baseline's steps)."""
    base = baseline_trial(study)
    folder = TrialRecord.of(base).dir if base else None
    rows = read_rows(paths.located(folder) if paths else folder) if folder else []
    return resolve_metric(rows, "memory") if rows else "memory"


def history(study: optuna.Study, space: Space) -> pd.DataFrame:
    """Per finished trial: its first-objective value, outcome, and the best feasible value so far."""
    frame = trials_frame(study)
    if frame.empty:
        return frame
    frame = frame[frame["counted"]].copy()
    column = f"objective:{objective_names(study)[0]}"
    sign = 1.0 if space.objectives[0].direction == "maximize" else -1.0
    best, running = [], math.nan
    for outcome, value in zip(frame["outcome"], frame[column], strict=True):
        if outcome == "complete" and not math.isnan(value) and (math.isnan(running) or sign * value > sign * running):
            running = value
        best.append(running)
    frame["value"] = frame[column]
    frame["best_so_far"] = best
    return frame[["number", "outcome", "reason", "baseline", "value", "best_so_far"]]


def pareto(study: optuna.Study) -> pd.DataFrame:
    """The Pareto front (several objectives only): trial number and objective values."""
    if len(study.directions) < 2:
        return pd.DataFrame()
    names = objective_names(study)
    rows = [
        {"number": t.number, **dict(zip(names, t.values, strict=True))}
        for t in study.best_trials
        if TrialRecord.of(t).outcome == "complete"
    ]
    return pd.DataFrame(rows)


def parameters(study: optuna.Study) -> pd.DataFrame:
    """Completed trials' params (categoricals as text) and first objective, for parallel coordinates."""
    frame = trials_frame(study)
    if frame.empty:
        return frame
    frame = frame[frame["outcome"] == "complete"]
    cols = [c for c in frame.columns if c.startswith("param:")]
    out = frame[["number", *cols, f"objective:{objective_names(study)[0]}"]].copy()
    out.columns = ["number", *(c.removeprefix("param:") for c in cols), "objective"]
    return out


def axis_labels(keys: list[str], width: int = 16) -> dict[str, str]:
    """A short, unique axis label per key: its shortest unique dotted tail (`names.short_labels`), its
    middle cut to `width`."""
    labels: dict[str, str] = {}
    for key, label in short_labels(keys).items():
        if len(label) > width:  # keep both ends: names differ at the start (role) or the end (suffix)
            head = (width - 1) // 2
            label = label[:head] + "…" + label[len(label) - (width - 1 - head) :]
        stem, n = label, 1
        while label in labels.values():  # two keys cut to the same text: number the later one
            n += 1
            label = f"{stem[: width - len(str(n)) - 1]}~{n}"
        labels[key] = label
    return labels


def ablation(study: optuna.Study, paths: StudyPaths, space: Space) -> tuple[pd.DataFrame, Explanation | None]:
    """The path `autotune explain` measured to the winner as it ships now, compared with the winner's measurement
    as it stands (empty frame when it has not run, or ran for another winner): its steps, and the whole."""
    result, _ = current_explanation(study, paths, space)
    if result is None or not result.steps:
        return pd.DataFrame(), result
    return pd.DataFrame([s.table_row() for s in result.steps], columns=list(ExplainStep.TABLE)), result


MINIMAL_COLUMNS = ("change", "baseline", "gain", "low", "high", "verdict", "ships")


def _baseline_values(values: dict[str, Any]) -> str:
    """A change's baseline values, short: a param the baseline leaves unset (an env variable, or one active only
    under a condition the baseline does not meet) reads `unset`, not `None`."""
    return ", ".join(f"{n.rsplit('.', 1)[-1]}={'unset' if v is None else v}" for n, v in values.items())


def minimal_winner(
    study: optuna.Study, paths: StudyPaths, space: Space
) -> tuple[pd.DataFrame, Ablation | PredictedWinner | None]:
    """The ablation of the winner as it stands (empty frame when it has not run): every change of the winner
    from the baseline, its measured gain and interval, and whether it ships. A simulated study has the
    cost model's credit for each change instead (`PredictedWinner`): its predicted gain, no interval. An
    ablation of an earlier winner (confirmation measured again since) is not shown as what ships."""
    try:
        result = find_winner(study, paths, space).ablation
    except NoWinner:
        result = None
    if result is None:
        credited = PredictedWinner.read(paths)
        if credited is None:
            return pd.DataFrame(columns=list(MINIMAL_COLUMNS)), None
        rows = [
            {
                "change": c.label,
                "baseline": _baseline_values(c.baseline),
                "predicted gain": "–" if math.isnan(c.gain) else f"×{c.gain:.3f}",  # as `best` prints it, not "1"
                "verdict": f"needed: without it {c.without}"
                if c.without
                else ("kept" if c.kept else f"under {credited.floor:.0%}"),
                "ships": c.kept,
            }
            for c in credited.changes
        ]
        return pd.DataFrame(rows, columns=["change", "baseline", "predicted gain", "verdict", "ships"]), credited
    rows = [
        {
            "change": k.label,
            "baseline": _baseline_values(k.baseline),
            "gain": k.gain,
            "low": k.low,
            "high": k.high,
            "verdict": k.said,
            "ships": k.kept,
        }
        for k in result.knobs
    ]
    return pd.DataFrame(rows, columns=list(MINIMAL_COLUMNS)), result


def inert_knobs(study: optuna.Study, space: Space, shipped: dict[str, Any] | None = None) -> pd.DataFrame:
    """The knobs the throughput sweep did not tune, each with why: inert on the platform, not read by the
    cost model (a simulated sweep), or an algorithm knob held at its baseline (`shipped`: what the quality
    stage ships instead)."""
    shipped = shipped or {}
    adapter = get_adapter(space.trainer, space.command)
    device = sweep_device(study)
    rows = []
    for name in inert_params(space, adapter.knob_status, device):
        rows.append({"knob": name, "why": adapter.knob_status(name, device, space.trial.world_size)[1]})
    listed = {row["knob"] for row in rows}
    for name in StudyInfo.of(study).sim_unmodelled:  # a simulated sweep froze these
        if name not in listed:
            rows.append({"knob": name, "why": "not modelled by the cost model: kept at its baseline value"})
    from autotune.space.stages import NOT_SEARCHED, held_values

    for name, value in held_values(space).items():
        why = f"algorithm knob, {NOT_SEARCHED}: held at its baseline value {value!r}"
        if name in shipped:
            why += f"; the quality stage ships {shipped[name]!r}, which the export writes"
        rows.append({"knob": name, "why": why})
    return pd.DataFrame(rows, columns=["knob", "why"])


def phase_breakdown(study: optuna.Study, space: Space, paths: StudyPaths | None = None) -> pd.DataFrame:
    """Median seconds per phase of the study's trainer (and exposed comm) of every trial that ran steps,
    post warm-up (its folders found under `paths`, else where the records say)."""
    phases = get_adapter(space.trainer, space.command).phases()
    rows = []
    frame = trials_frame(study, paths)
    for _, trial in frame.iterrows():
        if not isinstance(trial["dir"], str) or _is_number(trial.get("duplicate_of")):
            continue
        steps = step_frame(trial["dir"])
        if steps.empty:
            continue
        steps = steps[steps.index > space.trial.warmup_steps]
        if steps.empty:
            continue
        row: dict[str, Any] = {"number": trial["number"], "baseline": trial["baseline"], "outcome": trial["outcome"]}
        for phase in phases:
            row[phase] = float(steps.get(f"timing_s/{phase}", pd.Series([0.0])).median())
        row["comm"] = float(steps.get("timing_s/comm", pd.Series([0.0])).median())
        row["step"] = float(steps.get("timing_s/step", pd.Series([math.nan])).median())
        rows.append(row)
    return pd.DataFrame(rows)


def phase_names(frame: pd.DataFrame) -> list[str]:
    """The phases a `phase_breakdown` frame holds, in the trainer's order."""
    return [c for c in frame.columns if c not in (*PHASE_FRAME, "comm", "step")]


def failures(study: optuna.Study) -> pd.DataFrame:
    """Every trial that did not complete: its outcome, reason, detail and the configuration that caused it."""
    frame = trials_frame(study)
    if frame.empty:
        return frame
    bad = frame[frame["counted"] & (frame["outcome"] != "complete")]
    # an interrupted trial, and one a killed worker left running (or queued): the page said "Every trial completed
    # within its limits" and left it out, where `trials` and `best` name it (audit 38 F8)
    bad = pd.concat([bad, frame[(frame["reason"] == "interrupted") | frame["outcome"].isin(UNFINISHED)]])
    labels = short_labels(c.removeprefix("param:") for c in frame.columns if c.startswith("param:"))
    every = study.get_trials(deepcopy=False)
    sampled = {t.number: t.params for t in every}  # the frame's columns turn 32 into 32.0
    retries = {t.system_attrs["failed_trial"]: t.number for t in every if "failed_trial" in t.system_attrs}
    workers = {t.number: TrialRecord.of(t).worker for t in every}
    rows = []
    for _, t in bad.iterrows():
        config = ", ".join(
            f"{labels[k]}={f'{v:.4g}' if isinstance(v, float) else v}"  # 0.6, not 0.6000000000000001
            for k, v in sampled[t["number"]].items()
            if v is not None
        )
        reason = t["reason"] if t["outcome"] != "infeasible" else "infeasible"
        kind = (
            "interrupted"
            if t["reason"] == "interrupted"
            else UNFINISHED[t["outcome"]]
            if t["outcome"] in UNFINISHED
            else (t["outcome"] if t["outcome"] in ("pruned", "infeasible") else reason)
        )
        detail = t["detail"]
        if t["reason"] == "interrupted" and not detail:  # its story, as the run said it (audit 38 F9)
            worker = workers.get(t["number"])
            who = f"worker pid {worker.pid} on {worker.host}" if worker is not None else "its worker"
            again = retries.get(t["number"])
            detail = f"{who} stopped while it ran; " + (f"run again as #{again}" if again is not None else
                                                         "not run again")  # fmt: skip
        if t["outcome"] in UNFINISHED:
            detail = (NOT_FINISHED if t["outcome"] == "running" else QUEUED).format(f"#{t['number']}")
        rows.append({"number": t["number"], "kind": kind, "outcome": t["outcome"], "detail": detail, "config": config})
    return pd.DataFrame(rows, columns=["number", "kind", "outcome", "detail", "config"])


UNFINISHED = {"running": "not finished", "queued": "queued"}
"""The outcome `trials_frame` gives a trial that has not ended, and the report's kind for it."""


def trial_table(study: optuna.Study) -> pd.DataFrame:
    """Every counted trial (and an interrupted one, and one not finished: running, or left so by a killed worker).
    A simulated study's has no wall or start-up time (a prediction has none: they read 0 s), its train time is
    labelled predicted and is missing where the trial is predicted to fail."""
    frame = trials_frame(study)
    if frame.empty:
        return frame
    frame = frame[frame["counted"] | (frame["reason"] == "interrupted") | frame["outcome"].isin(UNFINISHED)]
    dropped: tuple[str, ...] = ("counted", "optuna_state", "dir")
    if StudyInfo.of(study).fidelity == "sim":
        dropped += ("wall_s", "startup_s")
        # a configuration predicted to fail (out of memory) has no predicted train time: it read 0 (audit 27 F13)
        frame = frame.assign(train_s=frame["train_s"].where(frame["outcome"] != "failed"))
        frame = frame.rename(columns={"train_s": "train_s (predicted)"})
    return frame[[c for c in frame.columns if c not in dropped]]


def exported_yaml(study: optuna.Study, paths: StudyPaths, space: Space) -> str:
    """What `autotune export` writes to best.yaml, header and the quality stage's algorithm values included (a
    simulated winner with its PREDICTED, NOT MEASURED line)."""
    from autotune.export.winner import with_kept_check
    from autotune.study.results import not_final_because

    try:
        adapter = get_adapter(space.trainer, space.command)
        winner, text, _ = exported(study, paths, space, adapter, Path("best.yaml"), predicted=True)
    except ExportError as exc:
        return f"# {exc}"
    text, _ = with_kept_check(text, paths, winner)  # the equivalence check's line, as `export` writes it (38 F10)
    why = not_final_because(paths, space, winner)  # its copy button copied what `export` marks (audit 34 N1)
    return f"# NOT FINAL: {why}\n{text}" if why else text


def provenance(
    study: optuna.Study, space: Space, backend: str = "optuna", paths: StudyPaths | None = None
) -> dict[str, str]:
    def version(package: str) -> str:
        try:
            return metadata.version(package)
        except metadata.PackageNotFoundError:
            return "not installed"

    info = StudyInfo.of(study)
    return {
        "study": study.study_name,
        "space file": space.path,
        "space sha256": hashlib.sha256(space.text.encode()).hexdigest()[:16],
        "trainer": space.trainer,
        "backend": str(info.backend or backend)
        + (" (trials predicted by the cost model)" if info.fidelity == "sim" else ""),
        "device": info.device + (" (simulated: nothing ran on it)" if info.fidelity == "sim" else ""),
        "world size": str(space.trial.world_size),
        # a prediction ran nowhere: the host that computed it is not where the trials "ran"
        **(
            {"trials predicted on": trial_hosts(study)}
            if info.fidelity == "sim"
            else {"trials ran on": trial_hosts(study)}
        ),
        **({"workers": workers} if (workers := trial_workers(study, paths)) else {}),
        "report written on": f"{platform.node()} ({platform.machine()}, {os.cpu_count()} cores, {platform.system()} {platform.release()})",
        "python": sys.version.split()[0],
        **{name: version(name) for name in ("autotune", "torch", "transformers", "optuna", "plotly", "verl")},
    }


def trial_workers(study: optuna.Study, paths: StudyPaths | None) -> str:
    """Each worker that ran the study's trials, with the flags it was started with and its trials' numbers ("worker
    pid 15383 on vm (--stage all --trials 8 --top-k 1): #0-#4"): nothing said which worker ran what, or with which
    flags, where two decided in turn (audit 38 F5). A repeat whose result was reused ran nothing: not counted."""
    ran: dict[tuple[str, int], list[int]] = {}
    for t in study.get_trials(deepcopy=False):
        rec = TrialRecord.of(t)
        if rec.worker and rec.outcome and rec.duplicate_of is None:
            ran.setdefault((rec.worker.host, rec.worker.pid), []).append(t.number)
    flags = worker_flags(paths) if paths is not None else {}
    out = []
    for (host, pid), numbers in ran.items():
        said = flags.get((host, pid))
        started = f" ({said})" if said else " (flags not recorded)" if said is None else ""
        out.append(f"worker pid {pid} on {host}{started}: {_numbers(numbers)}")
    return "; ".join(out)


def _numbers(numbers: list[int]) -> str:
    """`#0-#4, #7` of trial numbers in order."""
    runs: list[list[int]] = []
    for n in sorted(numbers):
        if runs and n == runs[-1][-1] + 1:
            runs[-1].append(n)
        else:
            runs.append([n])
    return ", ".join(f"#{r[0]}" if len(r) == 1 else f"#{r[0]}-#{r[-1]}" for r in runs)


def trial_hosts(study: optuna.Study) -> str:
    """The hosts whose workers ran the study's trials, with how many each (recorded on every trial); a repeat whose
    result was reused ran nothing there (it counted: "7 trials" where 4 ran, audit 38 F16)."""
    hosts: dict[str, int] = {}
    for t in study.get_trials(deepcopy=False):
        rec = TrialRecord.of(t)
        if rec.worker and rec.outcome and rec.duplicate_of is None:
            hosts[rec.worker.host] = hosts.get(rec.worker.host, 0) + 1
    return ", ".join(f"{h} ({n} trials)" for h, n in sorted(hosts.items())) or "not recorded"


def _is_number(value: Any) -> bool:
    """A real number (not None/NaN): pandas turns missing `duplicate_of` into NaN."""
    return isinstance(value, (int, float)) and not (isinstance(value, float) and math.isnan(value))


def predicted_vs_measured(study: optuna.Study, paths: StudyPaths) -> pd.DataFrame:
    """After `--fidelity sim,real`: each real trial beside its simulated twin (empty otherwise)."""
    from autotune.study.frames import predictions
    from autotune.study.storage import load_study

    name = StudyInfo.of(study).sim_study
    if not name:
        return pd.DataFrame()
    try:
        sim = load_study(StudyPaths(paths.runs_dir, name))
    except Exception:  # the simulated study was moved away: nothing to compare
        return pd.DataFrame()
    return pd.DataFrame(predictions(study, sim))
