"""Turn the report's data into one self-contained HTML file (plotly.js inlined once, no network).

Rendering is thin on purpose: every number comes from `data.py`. Each plot marks its div with
`data-rendered="1"` once Plotly has drawn it, and page errors are collected in `#js-errors`,
so a headless browser can check the page (tests/autotune/report/test_report.py).
"""

from __future__ import annotations

import datetime
import html
import math

import pandas as pd
import plotly.graph_objects as go

from autotune.report import data
from autotune.report.knob_plots import ablation_section, importance_section, minimal_winner_section, parallel_section
from autotune.report.page import Page, fmt, table_html, with_code
from autotune.study.ablation_result import Ablation, Explanation
from autotune.study.frames import units_line
from autotune.study.predicted_winner import PredictedWinner
from autotune.study.quality_result import Quality
from autotune.study.ratios import LEVEL
from autotune.trial.scoring import unit_of

__all__ = ["Page", "ablation_section", "importance_section", "minimal_winner_section", "parallel_section", "render"]

OUTCOME_COLORS = {"complete": "#2a9d8f", "infeasible": "#e9c46a", "pruned": "#8ab6d6", "failed": "#e76f51"}
MEMORY_NAMES = {
    "perf/max_memory_allocated_gb": "device memory",
    "actor/perf/max_memory_allocated_gb": "device memory",
    "perf/tensor_memory_gb": "tensor memory",
    "perf/cpu_memory_used_gb": "peak RSS",
}
PHASE_COLORS = [
    "#264653", "#2a9d8f", "#457b9d", "#a8dadc", "#8ab17d", "#e9c46a", "#f4a261", "#e76f51", "#9c89b8", "#b56576",
]  # fmt: skip
"""Colours of the phases, in the trainer's order (`data.phase_names`)."""


def times(ratio: float) -> str:
    """A ratio to the baseline as `best` prints it, two decimals ("1.00×": "1×" sat beside "1.000×" and `best`'s
    "1.00×"; audit 27 F13); "–" when missing."""
    return "–" if math.isnan(ratio) else f"{ratio:.2f}×"


def summary_section(page: Page, s: data.Summary) -> None:
    if s.winner is None:  # why, and what to do (the YAML box's comment alone said it; audit 27 F9)
        page.section(
            "summary", "Summary", f'<p class="note warn">{html.escape(s.caveat or "No feasible trial yet.")}</p>'
        )
        return
    spread = ""
    if s.baseline_ships:  # its rounds against themselves say nothing
        spread = f" ({s.baseline_ships})"
    elif not math.isnan(s.speedup_min):
        low, high = s.speedup_interval
        held = "one round: no interval" if math.isnan(low + high) else f"{LEVEL:.0%} interval [{low:.2f}, {high:.2f}]"
        spread = f" ({held}; rounds {s.speedup_min:.2f}–{s.speedup_max:.2f}, std {s.speedup_std:.2f})"
    whose = f" ({s.whole})" if s.whole else ""  # what ships dropped a change: these were measured of more
    sent_back = bool(s.baseline_ships) and s.winner != s.baseline  # the ablation sent every change back
    cards = [
        ("winner", f"#{s.winner} ({s.source})" + ("; the baseline's values ship" if sent_back else "")),
        ("speedup vs baseline" + (" (what ships)" if s.whole else ""), f"{times(s.speedup)}{spread}"),
        (s.objective + whose, f"{fmt(s.winner_value)} vs {fmt(s.baseline_value)}{unit_of(s.objective)}"),  # 38 F14
        (f"memory vs baseline ({MEMORY_NAMES.get(s.memory_metric, s.memory_metric)})", times(s.memory_ratio)),
        ("peak RSS vs baseline", times(s.rss_ratio)),
        ("KL to reference" + whose, fmt(s.kl)),
        ("comm share" + whose, percent(s.comm_share)),  # as the health checklist below says them (0.443 beside
        ("MFU" + whose, percent(s.mfu)),  # 44.3% on one page; audit 24 F8)
    ]
    if not math.isnan(s.outside_steps_share):
        cards.append(
            (
                "time outside training steps",
                f"{s.outside_steps_share:.0%} of the sweep's {s.trials_span_s:.0f} s (first trial's start to last trial's end)",
            )  # audit 27 F15
        )
    if s.predicted:
        cards = predicted_cards(cards, s)
    html_cards = "".join(
        f'<div class="card"><div class="label">{html.escape(k)}</div><div>{html.escape(v)}</div></div>'
        for k, v in cards
    )
    rows = []
    for c in s.checks:
        if c.passed is not None:
            verdict = '<span class="pass">pass</span>' if c.passed else '<span class="fail">fail</span>'
        else:
            verdict = f'<span class="na">{"not measured" if math.isnan(c.value) else "not judged"}</span>'
        value = fmt(c.value)
        if c.percent and not math.isnan(c.value):
            value = f"{c.value:.1%}"
        elif c.times and not math.isnan(c.value):
            value = times(c.value)
        rows.append(
            f"<tr><td>{html.escape(c.name)}</td><td>{value}</td><td>{html.escape(c.rule)}</td><td>{verdict}</td></tr>"
        )
    heading = "Health checklist" + (" (on the cost model's predictions; nothing measured)" if s.predicted else "")
    checklist = f"<h3>{heading}</h3><table><thead><tr><th>check</th><th>value</th><th>rule</th><th>verdict</th></tr></thead><tbody>{''.join(rows)}</tbody></table>"
    title = "Summary: the winner against the baseline" + (", as the cost model predicts them" if s.predicted else "")
    equivalence = ""
    if s.equivalence:  # the check of what ships, passed or not (a failed one read nowhere: audit 26 F1)
        mark = "pass" if s.equivalence_ok else "fail"
        equivalence = f'<p class="note"><span class="{mark}">{html.escape(s.equivalence)}</span></p>'
    caveat = f'<p class="note warn">{html.escape(s.caveat)}</p>' if s.caveat else ""  # audit 27 F2, F3
    page.section(
        "summary", title, f'<div class="cards">{html_cards}</div>{caveat}{equivalence}{checklist}{model_error(s)}'
    )


def model_error(s: data.Summary) -> str:
    """A simulated sweep's table of the cost model's error on each round of published runs it had never seen."""
    if not s.predicted:
        return ""
    from autotune.sim.accuracy import by_round

    note = (
        '<p class="note">Each round scored with the model as it was frozen before the round was gathered '
        "(benchmarks/sim_published.py): uncalibrated, then calibrated on the earlier rounds' runs first "
        "(<code>autotune calibrate</code>), and the other way round, weights fitted on the round scoring the earlier "
        "runs. A negative generation error is a rollout predicted faster than it ran.</p>"
    )
    if s.predicted_error:  # another model than the one these rounds scored
        note = (
            '<p class="note">These rounds scored the uncalibrated model on published verl runs, not the model this '
            f"study was predicted by: {html.escape(s.predicted_error)}</p>" + note
        )
    return f"<h3>The cost model's error on published verl runs</h3>{note}{missing_rounds()}" + table_html(
        pd.DataFrame(by_round()), False
    )


def missing_rounds() -> str:
    """Why the error table's round numbers skip some: round 1 lists the runs the model was fitted on (not unseen),
    and a search that found no usable run has no row (the table read 2-7, 9, 10 with no word why; audit 27 F16)."""
    from autotune.sim.accuracy import UNSEEN

    numbers = [r.number for r in UNSEEN]
    empty = [n for n in range(2, max(numbers)) if n not in numbers]
    said = "Round 1 is the runs the model's constants were set on, not unseen: it has no row"
    if empty:
        said += f"; round {', '.join(map(str, empty))} found no usable run"
    return f'<p class="note">{said}.</p>'


def percent(share: float) -> str:
    """A share (comm share, MFU) as a percentage, "–" when not measured."""
    return "–" if math.isnan(share) else f"{share:.1%}"


def predicted_cards(cards: list[tuple[str, str]], s: data.Summary) -> list[tuple[str, str]]:
    """A simulated sweep's cards: each number labelled a prediction, those a prediction cannot have (host RSS,
    KL, time outside steps) left out, and the configurations predicted to run out of memory and the model's
    stated error added."""
    from autotune.sim.accuracy import STATED_ERROR, STATED_SPEEDUPS

    unpredictable = ("peak RSS vs baseline", "KL to reference", "time outside training steps")
    kept = [(f"{label} (predicted)", value) for label, value in cards if label not in unpredictable]
    kept[0] = cards[0]  # the winner's number is not a prediction
    kept.append(("predicted to run out of memory", f"{s.predicted_oom} configurations (listed under Failures)"))
    if s.predicted_lengths:
        kept.append(("response lengths the cost model assumed", s.predicted_lengths))
    kept.append(("cost model's error", s.predicted_error or STATED_ERROR))
    kept.append(("cost model's speed-ups", STATED_SPEEDUPS))
    return kept


def integer_axis(largest: float) -> dict[str, object]:
    """An axis of whole numbers (trial numbers, counts of trials): Plotly ticked 0.5 and 1.5 on a short range
    (audit 27 F16); up to 10 every integer is ticked, past it Plotly's own steps are whole already."""
    return {"tickformat": "d", **({"dtick": 1} if largest <= 10 else {})}


def history_section(page: Page, frame: pd.DataFrame, summary: data.Summary) -> None:
    """Each trial's value in the order run, the best feasible one so far, the winner and the baseline marked. A trial
    with no value (failed, timed out) is drawn as a cross at the bottom of the axis: 70 predicted OOMs were not drawn
    under a legend that listed "failed" (audit 27 F7)."""
    objective = summary.objective
    if frame.empty:
        page.section("history", "Optimisation history", '<p class="note">No finished trials yet.</p>')
        return
    values = [float(v) for v in frame["value"]]
    measured = [v for v in values if math.isfinite(v)]
    floor = min(measured) if measured else 0.0  # the crosses of trials without a value sit at the axis's bottom
    fig = go.Figure()
    unmeasured: dict[str, int] = {}
    for outcome, group in frame.groupby("outcome"):
        color = OUTCOME_COLORS.get(str(outcome), "#999")
        has = group["value"].map(lambda v: math.isfinite(float(v)))
        drawn, missing = group[has], group[~has]
        if not drawn.empty:
            fig.add_trace(
                go.Scatter(
                    x=drawn["number"].tolist(),
                    y=drawn["value"].tolist(),
                    mode="markers",
                    name=f"{outcome} ({len(drawn)})",
                    marker={"color": color, "size": 9},
                )
            )
        if not missing.empty:
            unmeasured[str(outcome)] = len(missing)
            fig.add_trace(
                go.Scatter(
                    x=missing["number"].tolist(),
                    y=[floor] * len(missing),
                    mode="markers",
                    name=f"{outcome}, no value ({len(missing)}): at the bottom",
                    marker={"color": color, "size": 9, "symbol": "x"},
                )
            )
    best = frame["best_so_far"].map(lambda v: math.isfinite(float(v)))
    if best.any():  # the tight study listed the line in its legend with no feasible trial to draw it (audit 27 F7)
        fig.add_trace(
            go.Scatter(
                x=frame["number"].tolist(),
                y=frame["best_so_far"].tolist(),
                mode="lines",
                name="best feasible so far",
                line={"color": "#264653"},
            )
        )
    # the winner and the baseline marked: the line's best single run read as the winner, whom confirmation can
    # re-rank (audit 27 F8)
    for number, name, symbol in ((summary.baseline, "baseline", "diamond-open"), (summary.winner, "winner", "star")):
        row = frame[frame["number"] == number]
        if number is None or row.empty or not math.isfinite(float(row["value"].iloc[0])):
            continue
        fig.add_trace(
            go.Scatter(
                x=[number],
                y=[float(row["value"].iloc[0])],
                mode="markers",
                name=f"{name} #{number}",
                marker={"color": "#000", "size": 16, "symbol": symbol, "line": {"width": 2}},
            )
        )
    fig.update_layout(
        xaxis_title="trial",
        yaxis_title=objective + unit_of(objective),
        xaxis=integer_axis(float(frame["number"].max())),
    )
    page.section("history", "Optimisation history", history_note(frame, summary, unmeasured) + page.figure(fig))


def history_note(frame: pd.DataFrame, summary: data.Summary, unmeasured: dict[str, int]) -> str:
    """What the history plot's points are: one run each (or a prediction), the winner as the Summary names it, and
    the trials drawn without a value."""
    if summary.predicted:
        said = "Each point is the cost model's prediction for one trial."
    else:
        said = "Each point is one run of a trial: the sweep measures each configuration once."
        if summary.source == "confirmed":
            said += (
                " Confirmation then re-measured the top trials beside the baseline in interleaved rounds, and the "
                "Summary's values are its means: they can rank the trials otherwise than these single runs."
            )
    if summary.winner is not None:
        said += f" The winner, #{summary.winner} ({summary.source}), is the star; the baseline the open diamond."
    if unmeasured:
        counts = ", ".join(f"{n} {outcome}" for outcome, n in unmeasured.items())
        said += f" Trials with no value ({counts}) are crosses at the bottom of the axis."
    if not frame["best_so_far"].map(lambda v: math.isfinite(float(v))).any():
        said += " No trial was feasible: there is no best-so-far line."
    return f'<p class="note">{html.escape(said)}</p>'


def pareto_section(page: Page, frame: pd.DataFrame) -> None:
    if frame.empty:
        page.section("pareto", "Pareto front", '<p class="note">One objective: no Pareto front to show.</p>')
        return
    a, b = frame.columns[1], frame.columns[2]
    fig = go.Figure(
        go.Scatter(
            x=frame[a],
            y=frame[b],
            mode="markers+text",
            text=[f"#{n}" for n in frame["number"]],
            textposition="top center",
        )
    )
    fig.update_layout(xaxis_title=a, yaxis_title=b)
    page.section("pareto", "Pareto front", page.figure(fig))


def inert_section(page: Page, frame: pd.DataFrame) -> None:
    body = (
        '<p class="note">The sweep tuned every knob of the space: each could act on this platform.</p>'
        if frame.empty
        else (
            '<p class="note">In the space, but not tuned by this sweep, each for the reason given: inert where '
            "the sweep ran (its values changed nothing), not read by the cost model (a simulated sweep kept it at "
            "its baseline: a prediction says nothing of it), or an algorithm knob, which the throughput stage "
            "holds at its baseline and the quality stage judges. Each is exported at its baseline value unless "
            "its row says what ships instead.</p>" + table_html(frame, sortable=False)
        )
    )
    page.section("inert", "Knobs the sweep did not tune", body)


def phases_section(page: Page, frame: pd.DataFrame, summary: data.Summary) -> None:
    if frame.empty:
        page.section("phases", "Where the time goes", '<p class="note">No trial ran steps yet.</p>')
        return
    labels = [f"#{n}" + (" base" if b else "") for n, b in zip(frame["number"], frame["baseline"], strict=True)]
    fig = go.Figure()
    phases = data.phase_names(frame)
    for i, phase in enumerate(phases):
        color = PHASE_COLORS[i % len(PHASE_COLORS)]
        fig.add_trace(go.Bar(x=labels, y=frame[phase], name=phase, marker={"color": color}))
    fig.add_trace(
        go.Scatter(
            x=labels,
            y=frame["comm"],
            mode="markers",
            name="comm (exposed)",
            marker={"symbol": "diamond", "color": "#000"},
        )
    )
    fig.update_layout(barmode="stack", xaxis_title="trial", yaxis_title="median seconds per step")
    pick = frame[frame["number"].isin([summary.winner, summary.baseline])]
    body = page.figure(fig, 420)
    if len(pick) == 2:
        side = go.Figure()
        columns = [*phases, "comm", "step"]
        for _, row in pick.sort_values("baseline", ascending=False).iterrows():
            name = ("baseline" if row["baseline"] else "winner") + f" #{row['number']}"
            color = "#8d99ae" if row["baseline"] else "#2a9d8f"
            side.add_trace(go.Bar(x=columns, y=[row[c] for c in columns], name=name, marker={"color": color}))
        side.update_layout(
            barmode="group", yaxis_title="median seconds per step", title="winner vs baseline, phase by phase"
        )
        body += page.figure(side, 360)
    what = "phases predicted by the cost model" if summary.predicted else "per-step phase medians"
    page.section("phases", f"Where the time goes ({what})", body)


def health_section(page: Page, frame: pd.DataFrame, predicted: bool = False) -> None:
    """KL and score per step of the baseline, the winner and the top trials. A prediction has neither: its two plots
    drew blank axes under a legend of four trials (audit 27 F6), so a simulated sweep gets one line instead, and a
    metric the trials did not log (verl without `use_kl_loss` logs no `actor/kl_loss`) is named, not drawn."""
    if predicted:
        note = (
            '<p class="note">A prediction has no learning curves: the cost model predicts times and memory, not KL '
            "or score, and the systems knobs it ranks do not change them.</p>"
        )
        page.section("health", "Training health", note)
        return
    if frame.empty:
        page.section("health", "Training health", '<p class="note">No steps recorded yet.</p>')
        return
    body, unlogged = "", []
    for metric, title in (("kl", "KL to the reference (actor/kl_loss)"), ("score", "task score (critic/score/mean)")):
        if frame[metric].isna().all():  # drawn, it is blank axes, which `report --check` fails (audit 27 F6)
            unlogged.append(title)
            continue
        fig = go.Figure()
        for trial, group in frame.groupby("trial"):
            fig.add_trace(go.Scatter(x=group["step"], y=group[metric], mode="lines+markers", name=str(trial)))
        fig.update_layout(title=title, xaxis_title="step")
        body += page.figure(fig, 320)
    if data.curves_coincide(frame):  # four trials drew one line, with no word of why (audit 27 F12)
        body += (
            '<p class="note">The curves coincide: every trial here has the baseline\'s KL and score at every step, to '
            "4 significant digits. Systems knobs do not change the math, so their lines lie on one another.</p>"
        )
    if unlogged:
        body += f'<p class="note">Not logged by these trials, so not drawn: {html.escape("; ".join(unlogged))}.</p>'
    page.section("health", "Training health: the baseline, the winner and the top trials", body)


def failures_section(page: Page, frame: pd.DataFrame) -> None:
    if frame.empty:
        page.section("failures", "Failures", '<p class="note">Every trial completed within its limits.</p>')
        return
    counts = frame["kind"].value_counts()
    fig = go.Figure(go.Bar(x=counts.index.tolist(), y=counts.values.tolist(), marker={"color": "#e76f51"}))
    fig.update_layout(xaxis_title="reason", yaxis_title="trials", yaxis=integer_axis(float(counts.max())))
    # one column for how each ended ("failed (oom)", "infeasible"): the kind beside the outcome read twice
    ended = [
        kind if kind == outcome else f"{outcome} ({kind})"
        for kind, outcome in zip(frame["kind"], frame["outcome"], strict=True)
    ]
    table = frame.assign(outcome=ended).drop(columns=["kind"])
    page.section("failures", "Failures by reason", page.figure(fig, 300) + table_html(table))


def prediction_section(page: Page, frame: pd.DataFrame) -> None:
    if frame.empty:
        return
    fig = go.Figure()
    fig.add_trace(
        go.Scatter(
            x=frame["step_s_predicted"],
            y=frame["step_s_measured"],
            mode="markers+text",
            text=[f"#{n}" for n in frame["trial"]],
            textposition="top center",
            name="trials",
        )
    )
    top = float(max(frame["step_s_predicted"].max(), frame["step_s_measured"].max()))
    fig.add_trace(go.Scatter(x=[0, top], y=[0, top], mode="lines", name="exact", line={"dash": "dot", "color": "#999"}))
    fig.update_layout(xaxis_title="predicted seconds per step", yaxis_title="measured seconds per step")
    median = float(frame["step_error"].median())
    differ = frame[frame["outcome_predicted"] != frame["outcome_measured"]]
    ended = "; ".join(
        f"#{r.trial} predicted {r.outcome_predicted}, measured {r.outcome_measured}" for r in differ.itertuples()
    )
    note = (
        '<p class="note">The cost model ranked the space; these configurations then ran for real. Median step-time '
        f"error {median:.1%}"
        + (f" (over those that ran steps). Ended otherwise than predicted: {html.escape(ended)}" if ended else "")
        + ".</p>"
    )
    page.section(
        "prediction", "Predicted vs measured (multi-fidelity)", note + page.figure(fig, 360) + table_html(frame)
    )


def trials_section(page: Page, trials: pd.DataFrame, predicted: bool = False) -> None:
    """The sortable table of every trial, its units said below it; a simulated sweep's titled as predictions: only
    one of its columns said "predicted" (audit 27 F13)."""
    said_of = [units_line(list(trials.columns))] + (["wall_s: seconds"] if "wall_s" in trials.columns else [])
    fractions = [c for c in ("mfu", "comm_share") if c in trials.columns]
    if fractions:  # the summary says them in percent: 0.6126 beside 59.7% read as two figures (audit 27 F13)
        said_of.append(f"{', '.join(fractions)}: fractions (0.25 is 25%)")
    units = "; ".join(filter(None, said_of))  # as `autotune trials` says them under its table (audit 24 F8)
    said = f'<p class="note">{html.escape(units)}</p>' if units else ""
    title = "All trials" + (", as the cost model predicted them: nothing ran" if predicted else "")
    page.section("trials", f"{title} (click a header to sort)", table_html(trials) + said)


def quality_section(
    page: Page, quality: Quality | None, pending: str | None = None, other_systems: str | None = None
) -> None:
    """The quality stage's decision (its curves and ladder: quality.html beside this page); for a space whose stage
    has not decided, `pending` says why (running in a worker, cut short, not run): the page said nothing of a stage
    a kill had cut short (audit 22 F6)."""
    if quality is None:
        if pending:
            page.section(  # a note, its commands as code (it read body-size, with literal backticks: audit 27 F16)
                "quality",
                "Quality stage: algorithm knobs judged on learning",
                f'<p class="note">{with_code(pending)}</p>',
            )
        return
    lines = "".join(f"<div>{html.escape(line)}</div>" for line in quality.lines())
    other = f'<p class="note warn">{html.escape(other_systems)}</p>' if other_systems else ""
    page.section(
        "quality",
        "Quality stage: algorithm knobs judged on learning",
        f'<pre class="wrap">{lines}</pre>{other}<p><a href="quality.html">learning curves over seeds and the halving ladder</a></p>',
    )


def render(
    title: str,
    subtitle: str,
    summary: data.Summary,
    history: pd.DataFrame,
    pareto: pd.DataFrame,
    parameters: pd.DataFrame,
    importances: pd.DataFrame,
    direction: str,
    inert: pd.DataFrame,
    phases: pd.DataFrame,
    health: pd.DataFrame,
    failures: pd.DataFrame,
    trials: pd.DataFrame,
    exported: str,
    provenance: dict[str, str],
    predicted: pd.DataFrame | None = None,
    ablation: tuple[pd.DataFrame, Explanation | None] | None = None,
    minimal: tuple[pd.DataFrame, Ablation | PredictedWinner | None] | None = None,
    completed: int = 0,
    study: str = "STUDY",
    quality: Quality | None = None,
    quality_pending: str | None = None,
    quality_other_systems: str | None = None,
) -> str:
    page = Page()
    summary_section(page, summary)
    prediction_section(page, predicted if predicted is not None else pd.DataFrame())
    history_section(page, history, summary)
    pareto_section(page, pareto)
    parallel_section(page, parameters, summary.objective)
    importance_section(page, importances, summary.objective, direction, completed, summary.predicted)
    minimal_winner_section(
        page,
        *(minimal or (pd.DataFrame(), None)),
        study,
        provenance.get("space file", "SPACE"),
        summary.baseline_ships,
        summary.caveat,
        summary.winner is not None,
    )
    ablation_section(
        page,
        *(ablation or (pd.DataFrame(), None)),
        study,
        summary.predicted,
        summary.baseline_ships,
        summary.winner is not None,
    )
    quality_section(page, quality, quality_pending, quality_other_systems)
    inert_section(page, inert)
    phases_section(page, phases, summary)
    health_section(page, health, summary.predicted)
    failures_section(page, failures)
    trials_section(page, trials, summary.predicted)
    page.section(
        "export",
        "Exported verl YAML",
        '<button onclick="copyYaml()">copy</button> <span id="copy-status" class="note"></span>'
        f'<pre id="export-yaml">{html.escape(exported)}</pre>',
    )
    prov = pd.DataFrame(list(provenance.items()), columns=["", "value"])
    page.section("provenance", "Provenance", table_html(prov, sortable=False))
    stamp = datetime.datetime.now().astimezone().strftime("%Y-%m-%d %H:%M:%S %Z")  # with its zone (audit 27 F16)
    return page.html(title, f"{subtitle} · generated {stamp}")
