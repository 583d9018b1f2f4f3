"""The quality stage's page (reports/<study>/quality.html): the decision and its evidence.

Learning curves (the score's and the KL's moving means against steps, per seed, the baseline beside
the confirmed settings, the KL bound drawn), the halving ladder (every searched setting, how far it
ran and why it stopped), and the decision as `Quality.lines` states it. Every number comes from
runs/<study>/quality.json and the runs' own metrics files.
"""

from __future__ import annotations

import html
from pathlib import Path

import pandas as pd
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from autotune.report.page import Page, table_html
from autotune.space.schema import Space
from autotune.study.quality_result import Quality
from autotune.study.ratios import short_value
from autotune.study.storage import StudyPaths
from autotune.trial.learning import Curve, moving_means
from autotune.trial.record import read_rows, write_atomically

COLORS = ["#6c757d", "#2a9d8f", "#e76f51", "#457b9d", "#e9c46a", "#9c89b8"]
"""The baseline in grey, then each confirmed setting."""


def write_quality_report(paths: StudyPaths, space: Space, out_dir: Path) -> Path | None:
    """Write quality.html beside the sweep's report; None when the stage has not decided yet."""
    result = Quality.read(paths)
    if result is None or space.quality is None:
        return None
    page = Page()
    decision = "".join(f"<div>{html.escape(line)}</div>" for line in result.lines())
    back = '<p><a href="index.html">the sweep\'s report</a></p>'  # it had no way back (audit 27 F16)
    page.section("quality-decision", "Quality stage: the decision", f'<pre class="wrap">{decision}</pre>{back}')
    page.section("quality-curves", "Learning curves over seeds", curves(page, result, space, paths))
    page.section("quality-ladder", "The halving ladder", ladder(result))
    path = out_dir / "quality.html"
    title = f"autotune · {paths.name} · quality stage"
    subtitle = f"{result.horizon}-step horizon · seeds {result.seeds} · {result.steps_trained} steps trained in all"
    write_atomically(path, page.html(title, subtitle))  # as index.html: two workers may write it at once
    return path


def curves(page: Page, result: Quality, space: Space, paths: StudyPaths) -> str:
    q = space.quality
    assert q is not None
    fig = make_subplots(
        rows=1,
        cols=2,
        subplot_titles=(
            f"{result.score_metric} ({q.kl_window}-step mean)",
            f"{result.kl_metric} ({result.kl_window}-step mean) and the bound",
        ),
    )
    for i, cand in enumerate(result.candidates):
        color = COLORS[i % len(COLORS)]
        drawn = []
        for run in cand.runs:
            folder = paths.located(run.dir) if run.dir else None
            curve = Curve.of(read_rows(folder), q) if folder and folder.exists() else Curve()
            if curve.steps:
                drawn.append((run.seed, curve))
        # one legend entry per setting names all its seeds: "baseline seed 1" stood for three lines (audit 27 F11)
        name = f"{cand.label} (seed{'s' if len(drawn) > 1 else ''} {', '.join(str(seed) for seed, _ in drawn)})"
        for j, (seed, curve) in enumerate(drawn):
            common = {"legendgroup": cand.label, "line": {"color": color, "width": 1.5}, "name": name,
                      "hovertext": f"{cand.label} seed {seed}"}  # fmt: skip
            fig.add_trace(
                go.Scatter(x=curve.steps, y=moving_means(curve.score, q.kl_window), showlegend=j == 0, **common),
                row=1,
                col=1,
            )
            fig.add_trace(
                go.Scatter(x=curve.steps, y=moving_means(curve.kl, q.kl_window), showlegend=False, **common),
                row=1,
                col=2,
            )
    fig.add_hline(y=result.kl_max, line={"color": "#c0392b", "dash": "dash"}, row=1, col=2)
    margin = ""
    if q.search_margin < 1:  # where the one-seed search stopped runs, under the bound (audit 27 F11)
        at = f"search margin: {q.search_margin:g} × the bound"
        fig.add_hline(y=result.kl_max * q.search_margin, line={"color": "#e67e22", "dash": "dot"}, row=1, col=2,
                      annotation_text=at, annotation_position="bottom right")  # fmt: skip
        margin = (
            f"; the dotted line, {q.search_margin:g} × the bound, is the search's margin, where the one-seed search "
            "stopped a setting (<code>kl_margin</code> in the ladder)"
        )
    fig.update_xaxes(title_text="step")
    note = (
        f'<p class="note">Each line is one seed; the dashed line is the KL bound{margin}. A setting wins only if '
        "every one of its seeds stays under the bound for the whole horizon.</p>"
    )
    return note + page.figure(fig, height=420)


def ladder(result: Quality) -> str:
    rows = []
    for r in result.ladder:
        values = ", ".join(f"{k.rsplit('.', 1)[-1]}={short_value(v)}" for k, v in r["params"].items())
        rungs = " ".join(f"{s}:{v:.3f}" for s, v in sorted(r.get("rungs", {}).items(), key=lambda kv: int(kv[0])))
        label = "baseline" if r.get("baseline") else f"#{r['number']}"
        if r.get("rerun_of") is not None:  # the numbers between read as missing runs (audit 24 F10)
            label += f" (#{r['rerun_of']} cut short, run again)"
        if r.get("retry_of") is not None:
            label += f" (#{r['retry_of']} failed, run again)"
        if r.get("copy_of") is not None:  # the search drew a setting it had run: that run's result, not a new run
            label += f" (= #{r['copy_of']}, reused)"
        outcome = r["outcome"]
        if outcome == "kl_bound" and "search_margin" in r.get("detail", ""):  # stopped under the bound, at the
            outcome = "kl_margin"  # search's margin: "kl_bound" beside a KL peak under it read wrong (audit 27 F11)
        rows.append([label, values, r["steps"], outcome, rungs, r.get("score"), r.get("kl_peak"), r.get("detail", "")])
    frame = pd.DataFrame(
        rows, columns=["trial", "setting", "steps run", "outcome", "score at rungs", "score", "KL peak", "why"]
    )
    return table_html(frame)
