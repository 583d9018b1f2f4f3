"""A study as pandas: one row per trial, and per-step metrics of any trial (public API for notebooks)."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import optuna
import pandas as pd

from autotune.study.storage import counted
from autotune.trial.record import outcome_of as outcome


def trials_frame(study: optuna.Study) -> pd.DataFrame:
    """Finished and running trials: number, outcome, reason, objective values, key metrics, params."""
    rows = []
    for t in study.get_trials(deepcopy=False):
        if t.user_attrs.get("outcome") == "skipped":
            continue
        attrs = t.user_attrs
        row: dict[str, Any] = {
            "number": t.number,
            "outcome": outcome(t) or ("running" if not t.state.is_finished() else t.user_attrs.get("reason", "failed")),
            "reason": attrs.get("reason"),
            "detail": attrs.get("detail", ""),
            "baseline": bool(attrs.get("baseline")),
            "duplicate_of": attrs.get("duplicate_of"),
            "counted": counted(t),
            "optuna_state": t.state.name,
            "dir": attrs.get("dir"),
            "wall_s": attrs.get("wall_s", math.nan),
            "startup_s": attrs.get("startup_s", math.nan),
            "train_s": attrs.get("train_s", math.nan),
        }
        values = t.values if t.values is not None and outcome(t) in ("complete", "infeasible") else None
        partial = attrs.get("partial_objectives") if outcome(t) == "pruned" else None
        row["partial"] = bool(partial)  # a pruned trial's objective over the steps it ran
        for i, name in enumerate(objective_names(study)):
            row[f"objective:{name}"] = values[i] if values else partial[i] if partial else math.nan
        for key, value in (attrs.get("key_metrics") or {}).items():
            row[key] = value
        for key, value in t.params.items():
            row[f"param:{key}"] = value
        rows.append(row)
    frame = pd.DataFrame(rows)
    return frame.sort_values("number").reset_index(drop=True) if not frame.empty else frame


def objective_names(study: optuna.Study) -> list[str]:
    stored = study.user_attrs.get("objectives")
    return [o[0] for o in stored] if stored else [f"objective_{i}" for i in range(len(study.directions))]


def step_frame(trial_dir: str | Path) -> pd.DataFrame:
    """Per-step metrics of one trial folder (its metrics.jsonl), indexed by step."""
    path = Path(trial_dir) / "metrics.jsonl"
    if not path.exists():
        return pd.DataFrame()
    rows = []
    for line in path.read_text().splitlines():
        try:
            record = json.loads(line)
        except ValueError:
            continue
        rows.append({"step": record["step"], **record["metrics"]})
    return pd.DataFrame(rows).set_index("step") if rows else pd.DataFrame()


def predictions(study: optuna.Study, sim_study: optuna.Study) -> list[dict[str, Any]]:
    """Real trials beside the simulated trial with the same params: predicted vs measured.

    A simulated sweep keeps knobs the cost model does not read at their baseline, so its trials carry a
    subset of the params: a real trial matches the simulated one whose params it all shares."""
    sims = [t for t in sim_study.get_trials(deepcopy=False) if t.user_attrs.get("outcome")]
    rows = []
    for t in study.get_trials(deepcopy=False):
        sim = next((s for s in sims if s.params and all(t.params.get(k) == v for k, v in s.params.items())), None)
        if sim is None or t.user_attrs.get("outcome") not in ("complete", "infeasible"):
            continue
        measured = (t.user_attrs.get("key_metrics") or {}).get("throughput", math.nan)
        predicted = (sim.user_attrs.get("key_metrics") or {}).get("throughput", math.nan)
        step_m = (t.user_attrs.get("key_metrics") or {}).get("step_s", math.nan)
        step_p = (sim.user_attrs.get("key_metrics") or {}).get("step_s", math.nan)
        rows.append(
            {
                "trial": t.number,
                "sim_trial": sim.number,
                "baseline": bool(t.user_attrs.get("baseline")),
                "throughput_predicted": predicted,
                "throughput_measured": measured,
                "step_s_predicted": step_p,
                "step_s_measured": step_m,
                "step_error": abs(step_p - step_m) / step_m if step_m else math.nan,
            }
        )
    return rows
