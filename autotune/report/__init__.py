"""The sweep report: `reports/<study>/index.html`, computed from the study (data.py), then drawn (render.py)."""

from __future__ import annotations

from pathlib import Path

import optuna

from autotune.report import data, render
from autotune.space.schema import Space
from autotune.study.quality_result import Quality
from autotune.study.results import unfinished_quality
from autotune.study.storage import StudyPaths
from autotune.trial.record import write_atomically


def write_report(study: optuna.Study, paths: StudyPaths, space: Space, out_dir: Path) -> Path:
    """Compute every section and write one self-contained HTML file; returns its path."""
    summary = data.summary(study, paths, space)
    quality = Quality.read(paths)
    trials = data.trial_table(study)
    open_ = int(trials["outcome"].isin(data.UNFINISHED).sum()) if not trials.empty else 0
    ended = len(trials) - open_  # a trial a killed worker left running is not counted among them, but said
    count = f"{ended} trial{'' if ended == 1 else 's'}" + (f" ({open_} not finished)" if open_ else "")
    page = render.render(
        title=f"autotune · {paths.name}",
        subtitle=f"{space.trainer} trainer · {count} · world {space.trial.world_size} · {space.path}",
        summary=summary,
        history=data.history(study, space),
        pareto=data.pareto(study),
        parameters=data.parameters(study),
        importances=data.importance_intervals(study, space),
        direction=space.objectives[0].direction,
        inert=data.inert_knobs(study, space, quality.shipped if quality is not None else None),
        phases=data.phase_breakdown(study, space, paths),
        health=data.health_curves(study, space, paths=paths, winner=summary.winner),
        failures=data.failures(study),
        trials=trials,
        exported=data.exported_yaml(study, paths, space),
        provenance=data.provenance(study, space, paths=paths),
        predicted=data.predicted_vs_measured(study, paths),
        ablation=data.ablation(study, paths, space),
        minimal=data.minimal_winner(study, paths, space),
        completed=data.importance_count(study, space),
        study=paths.name,
        quality=quality,
        quality_pending=unfinished_quality(paths, space) if not summary.predicted else None,
        quality_other_systems=summary.quality_other_systems,
    )
    path = out_dir / "index.html"
    write_atomically(path, page)  # each writer its own temporary file: two workers may end together
    return path


__all__ = ["data", "render", "write_report"]
