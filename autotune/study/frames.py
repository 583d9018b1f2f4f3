"""A study as pandas: one row per trial, and per-step metrics of any trial (public API for notebooks)."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import optuna
import pandas as pd
from optuna.trial import FrozenTrial, TrialState

from autotune.study.storage import StudyInfo, StudyPaths, counted
from autotune.trial.record import SKIPPED, TrialRecord, read_rows


def trials_frame(study: optuna.Study, paths: StudyPaths | None = None) -> pd.DataFrame:
    """Finished and running trials: number, outcome, reason, objective values, key metrics, params. With `paths`,
    each trial's `dir` is its folder as found from here (`StudyPaths.located`), else as the records keep it."""
    names = objective_names(study)
    rows = [_row(t, TrialRecord.of(t), names, paths) for t in study.get_trials(deepcopy=False)]
    frame = pd.DataFrame([r for r in rows if r is not None])
    return frame.sort_values("number").reset_index(drop=True) if not frame.empty else frame


STALE = (
    "no outcome recorded: another worker saw no heartbeat from it for the grace period (its worker killed, "
    "suspended, its disk stalled, or the database away over 30 s), failed it and queued it again"
)


MEMORY_COLUMNS = {"memory_gb": "memory", "rss_gb": "RSS (host)"}
"""The memory columns, named as the units line names them."""


def units_line(columns: list[str]) -> str:
    """What a trials table's numbers measure, said once below it (`autotune trials`, the report): verl's `*_gb`
    memory metrics hold GiB, and throughput's name has no unit (audit 21 F17; the report said neither, audit 24)."""
    said = ["throughput: tokens/s per GPU"] if {"throughput", "objective:perf/throughput"} & set(columns) else []
    memory = [name for col, name in MEMORY_COLUMNS.items() if col in columns]
    if memory:
        said.append(f"{', '.join(memory)}: peak GiB per rank")
    return "; ".join(said)


NOT_FINISHED = (
    "not finished ({}): still running, or interrupted; `autotune run` with the same space resumes the sweep and runs "
    "them again"
)
"""What `trials`, `best`, `export` and the report say of trials left RUNNING (`{}`: their numbers)."""
QUEUED = "queued ({}; a retry of an interrupted trial, or enqueued): `autotune run` with the same space runs them"
"""What they say of WAITING trials."""


def unfinished_lines(study: optuna.Study, leave_out: set[int] | frozenset[int] = frozenset()) -> list[str]:
    """What `trials`, `best` and the report say of trials not finished ("1 trial not finished (#2): still running,
    or interrupted; ..."), and of queued ones, leaving out the trials in `leave_out` (those `best` names as running
    now, in a live worker of this host)."""
    said = []
    for state, what in ((TrialState.RUNNING, NOT_FINISHED), (TrialState.WAITING, QUEUED)):
        trials = [t for t in study.get_trials(deepcopy=False, states=(state,)) if t.number not in leave_out]
        if trials:
            numbers = ", ".join(f"#{t.number}" for t in trials)
            said.append(f"{len(trials)} trial{'s' if len(trials) > 1 else ''} {what.format(numbers)}")
    return said


def _unfinished(t: FrozenTrial) -> str | None:
    """A WAITING trial is queued (a retry of an interrupted one, say), not running: no process runs it."""
    return None if t.state.is_finished() else "queued" if t.state == TrialState.WAITING else "running"


def _row(t: FrozenTrial, rec: TrialRecord, names: list[str], paths: StudyPaths | None) -> dict[str, Any] | None:
    if rec.outcome == SKIPPED:
        return None
    reason, detail = rec.reason, rec.detail
    if t.state == TrialState.FAIL and not rec.outcome and not rec.reason:  # Optuna's stale-trial check ended it:
        reason, detail = "stale", STALE  # it read "failed" with no reason (audit 16 F9)
    row: dict[str, Any] = {
        "number": t.number,
        "outcome": rec.outcome or _unfinished(t) or rec.reason or "failed",
        "reason": reason,
        "detail": detail,
        "baseline": rec.baseline,
        "duplicate_of": rec.duplicate_of,
        "counted": counted(t),
        "optuna_state": t.state.name,
        "dir": str(paths.located(rec.dir)) if paths is not None and rec.dir else rec.dir,
        "wall_s": rec.wall_s,
        "startup_s": rec.startup_s,
        "train_s": rec.train_s,
    }
    values = t.values if t.values is not None and rec.scored else None
    partial = rec.partial_objectives if rec.outcome == "pruned" else None
    row["partial"] = bool(partial)  # a pruned trial's objective over the steps it ran
    for i, name in enumerate(names):
        row[f"objective:{name}"] = values[i] if values else partial[i] if partial else math.nan
    row.update(rec.key_metrics)
    row.update({f"param:{key}": value for key, value in t.params.items()})
    return row


def objective_names(study: optuna.Study) -> list[str]:
    stored = StudyInfo.of(study).objectives
    return [o[0] for o in stored] if stored else [f"objective_{i}" for i in range(len(study.directions))]


def step_frame(trial_dir: str | Path) -> pd.DataFrame:
    """Per-step metrics of one trial folder (its metrics.jsonl), indexed by step."""
    rows = [{"step": r["step"], **r["metrics"]} for r in read_rows(trial_dir)]
    return pd.DataFrame(rows).set_index("step") if rows else pd.DataFrame()


def predictions(study: optuna.Study, sim_study: optuna.Study) -> list[dict[str, Any]]:
    """Real trials beside the simulated trial with the same params: predicted vs measured.

    A simulated sweep keeps knobs the cost model does not read at their baseline, so its trials carry a
    subset of the params: a real trial matches the simulated one whose params it all shares."""
    sims = [(s, TrialRecord.of(s)) for s in sim_study.get_trials(deepcopy=False)]
    sims = [(s, rec) for s, rec in sims if rec.outcome]
    rows = []
    for t in study.get_trials(deepcopy=False):
        match = next(
            ((s, rec) for s, rec in sims if s.params and all(t.params.get(k) == v for k, v in s.params.items())), None
        )
        real = TrialRecord.of(t)
        if match is None or not real.outcome or real.duplicate_of is not None:
            continue  # unfinished, or a copy (its twin's row says it)
        sim, predicted = match
        step_m = real.key_metrics.get("step_s", math.nan)
        step_p = predicted.key_metrics.get("step_s", math.nan)
        rows.append(
            {  # a measured OOM or limit beside a prediction that fit is the row that matters most: kept
                "trial": t.number,
                "sim_trial": sim.number,
                "baseline": real.baseline,
                "outcome_predicted": predicted.reason if predicted.outcome == "failed" else predicted.outcome,
                "outcome_measured": real.reason if real.outcome == "failed" else real.outcome,
                "throughput_predicted": predicted.key_metrics.get("throughput", math.nan),
                "throughput_measured": real.key_metrics.get("throughput", math.nan),
                "step_s_predicted": step_p,
                "step_s_measured": step_m,
                "step_error": abs(step_p - step_m) / step_m if step_m else math.nan,
                "memory_gb_predicted": predicted.key_metrics.get("memory_gb", math.nan),
                "memory_gb_measured": real.key_metrics.get("memory_gb", math.nan),
            }
        )
    return rows
