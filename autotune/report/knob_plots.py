"""Report sections about the knobs: parallel coordinates, importances with their noise, and the
ablation path from the baseline to the winner."""

from __future__ import annotations

import html
import json
import math

import pandas as pd
import plotly.graph_objects as go

from autotune.names import short_labels
from autotune.report import data
from autotune.report.page import Page, table_html
from autotune.study.ablation_result import Ablation, Explanation
from autotune.study.predicted_winner import PredictedWinner, measure_predicted
from autotune.study.ratios import interval, short_value


def parallel_section(page: Page, frame: pd.DataFrame, objective: str) -> None:
    if len(frame) < 2:
        page.section("parallel", "Parallel coordinates", '<p class="note">Needs at least two completed trials.</p>')
        return
    columns = [c for c in frame.columns[1:] if not frame[c].isna().all()]
    labels = data.axis_labels(columns)
    dims = []
    for column in columns:
        series = frame[column]
        numeric = pd.api.types.is_numeric_dtype(series) and not pd.api.types.is_bool_dtype(series)
        if numeric and not series.isna().any() and series.nunique() > 1:  # one value: its level, not a 1.8-2.2 scale
            dims.append({"label": labels[column], "values": series.astype(float).tolist()})
            continue
        # a knob a trial did not set (its condition off, an unset variable) is an `unset` level of its own: it
        # was drawn at the column's minimum, a value the trial never ran
        order = sorted(series.dropna().unique(), key=float) if numeric else sorted({_level(v) for v in series})
        texts = (
            ["unset"] + [_level(v) for v in order if _level(v) != "unset"]
            if series.isna().any()
            else [_level(v) for v in order]
        )
        texts = list(dict.fromkeys(texts))
        codes = [texts.index(_level(v)) for v in series]
        dims.append({"label": labels[column], "values": codes, "tickvals": list(range(len(texts))), "ticktext": texts})
    angled = len(dims) > 8  # beyond ~8 axes level labels run into each other
    fig = go.Figure(
        go.Parcoords(
            line={"color": frame["objective"].astype(float), "colorscale": "Viridis", "showscale": True},
            dimensions=dims,
            labelangle=-60 if angled else 0,
            labelfont={"size": 11},
        )
    )
    keys = html.escape(json.dumps({labels[c]: c for c in columns}), quote=True)
    plot = page.figure(fig, 520 if angled else 440, top=150 if angled else 40, attrs=f' data-axis-keys="{keys}"')
    legend = pd.DataFrame([{"axis": labels[c], "key": c} for c in columns if labels[c] != c])
    note = '<p class="note">Hover an axis title for its full key.</p>'
    body = plot + (note + "<details><summary>axis keys</summary>" + table_html(legend, False) + "</details>")
    page.section("parallel", f"Parallel coordinates (colour: {objective})", body)


def _level(value: object) -> str:
    """A parallel-coordinates tick: the value at a glance, or `unset` (None or NaN, not the text `nan`)."""
    if value is None or (isinstance(value, float) and value != value):
        return "unset"
    return short_value(value)


def importance_section(
    page: Page, frame: pd.DataFrame, objective: str, direction: str, completed: int, simulated: bool = False
) -> None:
    if frame.empty:
        need = data.MIN_TRIALS_FOR_IMPORTANCE
        page.section(
            "importance",
            "Parameter importances",
            f'<p class="note">Shown from {need} completed trials on ({completed} so far): below that the ranking is noise.</p>',
        )
        return
    rows = frame.iloc[::-1]
    labels = short_labels(rows["param"])
    grey_label = " (chance)" if simulated else " (noise)"
    settled = rows.get("settled", [""] * len(rows))
    names = [
        labels[k] + ((f" (settled: {s})" if s else grey_label) if n else "")
        for k, n, s in zip(rows["param"], rows["noise"], settled, strict=True)
    ]
    fig = go.Figure(
        go.Bar(
            x=rows["excess"],
            y=names,
            orientation="h",
            marker={"color": ["#c8c8c8" if n else "#2a9d8f" for n in rows["noise"]]},
            error_x={
                "type": "data",
                "symmetric": False,
                "array": (rows["high"] - rows["excess"]).tolist(),
                "arrayminus": (rows["excess"] - rows["low"]).tolist(),
            },
            hovertext=rows["param"],
        )
    )
    fig.update_layout(xaxis_title="PED-ANOVA importance above noise (90% bootstrap interval)")
    goal = "maximising" if direction == "maximize" else "minimising"
    grey_rows = frame[frame["noise"]]
    settled_of = dict(zip(frame["param"], frame.get("settled", [""] * len(frame)), strict=True))
    noisy = ", ".join(k.rsplit(".", 1)[-1] for k in grey_rows["param"] if not settled_of[k])
    settled_names = ", ".join(f"{k.rsplit('.', 1)[-1]} ({settled_of[k]})" for k in grey_rows["param"] if settled_of[k])
    # a prediction has no measurement noise: what a grey bar lacks there is trials, not repeatability
    grey = "<b>no better than chance over these trials</b>" if simulated else "<b>not distinguishable from noise</b>"
    fewer = " (the predictions are exact: more simulated trials sharpen the intervals)" if simulated else ""
    note = (
        f'<p class="note">For {goal} {html.escape(objective)}, over {completed} completed '
        f"{'predicted ' if simulated else ''}trials: each bar is how much more a knob separates the best trials "
        f"than it does with the objective values shuffled; grey bars, whose interval includes zero, are {grey}"
        + (f": {html.escape(noisy)}" if noisy else "")
        + f"{fewer}."
        + (
            f" <b>The sampler settled on one value</b> of {html.escape(settled_names)}: the best trials and the rest "
            "share it, so these trials cannot rank the knob, whatever it is worth (the minimal winner below says what "
            "each change of the winner is worth)."
            if settled_names
            else ""
        )
        + "</p>"
    )
    page.section("importance", "Parameter importances", note + page.figure(fig, 80 + 28 * len(frame)))


def ablation_section(
    page: Page,
    frame: pd.DataFrame,
    info: Explanation | None,
    study: str,
    simulated: bool = False,
    baseline_ships: str = "",
    has_winner: bool = True,
) -> None:
    if not has_winner and info is None:  # `autotune explain` has no winner to walk to (audit 27 F9)
        page.section(
            "ablation",
            "Which knobs made the winner faster",
            '<p class="note">No winner to explain (the summary above says why).</p>',
        )
        return
    if baseline_ships and info is None:
        page.section(
            "ablation",
            "Which knobs made the winner faster",
            f'<p class="note">Nothing to explain: {html.escape(baseline_ships)}.</p>',
        )
        return
    if simulated and info is None:  # its trials never ran: `explain` would have to run them
        page.section(
            "ablation",
            "Which knobs made the winner faster",
            '<p class="note">A simulated study is not explained by running its configurations: the minimal '
            "winner above gives the cost model's credit for each change.</p>",
        )
        return
    if frame.empty or info is None:
        page.section(
            "ablation",
            "Which knobs made the winner faster",
            f'<p class="note">Not measured yet: <code>autotune explain {html.escape(study)}</code> walks from the '
            "baseline to the winner one knob at a time, re-measuring each step.</p>",
        )
        return
    steps = info.steps
    if all(math.isnan(s.gain) for s in steps):  # a plot of NaN bars is an empty plot (report --check fails it)
        page.section(
            "ablation",
            "Which knobs made the winner faster",
            f'<p class="note">Not measured: every run of the path failed, so no step has a gain. '
            f"<code>autotune explain {html.escape(study)} --rerun</code> measures it again.</p>"
            + table_html(frame, False),
        )
        return
    fig = go.Figure()
    labels = [s.label for s in steps]
    fig.add_trace(
        go.Bar(
            x=labels,
            y=[s.gain for s in steps],
            name="× the step before (step gain)",
            marker={
                "color": [
                    "#e9c46a"
                    if s.outside
                    else {"within noise": "#c8c8c8", "slower": "#e76f51"}.get(s.verdict, "#2a9d8f")
                    for s in steps
                ]
            },
            error_y={
                "type": "data",
                "symmetric": False,
                "array": [s.speedup_max - s.gain for s in steps],
                "arrayminus": [s.gain - s.speedup_min for s in steps],
            },
        )
    )
    fig.add_trace(
        go.Scatter(x=labels, y=[s.cumulative for s in steps], mode="lines+markers", name="× the baseline (cumulative)")
    )  # the axis title named both and was clipped: the legend names each
    fig.update_layout(yaxis_title="gain", xaxis_tickangle=-20)
    confirmed = info.confirmed
    compare = ""
    if confirmed:
        verdict = {True: "agrees with", False: "does not agree with", None: "cannot be compared with"}
        compare = (
            f" The product of the step gains, {info.product:.3f}×, {verdict[info.agrees]} "
            f"{info.reference_words} ×{confirmed.speedup_geomean:.3f} "
            f"{interval(confirmed.speedup_low, confirmed.speedup_high)}."
        )
    skipped = [
        f"{text}: {', '.join(n.rsplit('.', 1)[-1] for n in names)}"
        for names, text in (
            (info.same_as_baseline, "Same as the baseline, not run"),
            (info.dropped, "sent back to the baseline by the ablation, not run"),
            (info.inert, "inert here, not run"),
        )
        if names
    ]
    end = info.end_to_end
    same_rounds = (
        f" On the same runs the winner ran {end.speedup_geomean:.3f}× the baseline (geometric mean over rounds)."
        if end and end.speedup_geomean
        else ""
    )
    note = (
        '<p class="note">The knobs were ordered greedily (each round applied the knob that gained most on top of '
        f"the steps before it), then the whole path was run again in {info.repeats} interleaved rounds: a "
        "step's gain is its configuration over the one before, round by round. Grey steps are within noise (the "
        f"knob rides along), red ones slower in every round.{same_rounds}{compare} {html.escape('; '.join(skipped))}</p>"
    )
    page.section(
        "ablation", "Which knobs made the winner faster", note + page.figure(fig, 380) + table_html(frame, False)
    )


def _predicted_at(info: PredictedWinner) -> str:
    """What ships, over the baseline, predicted; a baseline predicted not to run has no ratio (audit 39 F6)."""
    if info.speedup is None:
        return "The baseline's own configuration is predicted not to run: no speedup over it."
    return f"What ships is predicted at {info.speedup:.3f}× the baseline."


def minimal_winner_section(
    page: Page,
    frame: pd.DataFrame,
    info: Ablation | PredictedWinner | None,
    study: str = "STUDY",
    space: str = "SPACE",
    baseline_ships: str = "",
    caveat: str = "",
    has_winner: bool = True,
) -> None:
    """What ships: each change of the confirmed winner from the baseline with its leave-one-out gain (a
    simulated study's: the cost model's predicted gain of each change). Not measured: why (`caveat`), not a
    promise of an ablation that a `--confirm 0` sweep, or one without a winner, never runs (audit 27 F3, F9)."""
    if isinstance(info, PredictedWinner):
        note = (
            f'<p class="note"><b>Predicted, not measured.</b> Each change of the best predicted trial #{info.winner} '
            "from the baseline was put back at its baseline value and the configuration predicted again; a change "
            f"the cost model credits with less than {info.floor:.0%} goes back to its baseline value (the least "
            "first, then the rest predicted again), unless the configuration without it runs out of memory or "
            f"breaks a limit. {_predicted_at(info)} Run it before shipping "
            f"it: <code>{html.escape(measure_predicted(space, study))}</code> measures the model's best "
            f"and ablates them for real; <code>autotune export {html.escape(study)} --predicted</code> writes this "
            "one, labelled.</p>"
        )
        page.section("minimal", "The minimal winner, as the cost model sees it", note + table_html(frame, False))
        return
    if info is None and baseline_ships:
        page.section(
            "minimal", "The minimal winner", f'<p class="note">Nothing to ablate: {html.escape(baseline_ships)}.</p>'
        )
        return
    if info is None:
        why = (
            "no winner, so nothing to ablate (the summary above says why)"
            if not has_winner
            else caveat
            or "the ablation runs after confirmation (at least 2 rounds); until it has, the confirmed winner ships "
            "with every change it made"
        )
        page.section("minimal", "The minimal winner", f'<p class="note">Not measured: {html.escape(why)}.</p>')
        return
    s, w = info.shipped_speedup, info.winner_speedup
    where = {
        "reduced": "in rounds of its own against the baseline",
        "pooled": "over confirmation's rounds and the ablation's (its one change, measured in both)",
    }.get(info.shipped_rounds, "in the same rounds")
    agree = {True: "agrees with", False: "does NOT agree with", None: "cannot be compared with"}[info.agrees]
    confirmed = info.confirmed
    compare = (
        f" The whole winner measured {w.speedup_geomean:.3f}× {interval(w.speedup_low, w.speedup_high)} here, "
        f"which {agree} confirmation's {confirmed.speedup_geomean:.3f}× "
        f"{interval(confirmed.speedup_low, confirmed.speedup_high)}."
        if confirmed
        else ""
    )
    note = (
        f'<p class="note">Each change of winner #{info.winner} from the baseline was left out in {info.rounds} '
        f"interleaved rounds; its gain is the winner over the winner without it, with the {info.level:.0%} "
        "interval of the geometric mean over the rounds. Only changes whose interval lies above 1.0 ship; the "
        "others (within noise, slower, or inert here and not run) go back to their baseline value. "
        + (
            f"What ships measured {s.speedup_geomean:.3f}× {interval(s.speedup_low, s.speedup_high)} the baseline "
            f"{where}."
            if info.kept
            else "No change cleared the noise: what ships is the baseline's systems values."  # not "1.000× [1.000,
        )  # 1.000]", the baseline against itself (audit 27 F5)
        + f"{compare}</p>"
    )
    page.section("minimal", "The minimal winner: what ships, and why", note + table_html(frame, False))
