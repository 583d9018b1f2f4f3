"""Turn the report's data into one self-contained HTML file (plotly.js inlined once, no network).

Rendering is thin on purpose: every number comes from `data.py`. Each plot marks its div with
`data-rendered="1"` once Plotly has drawn it, and page errors are collected in `#js-errors`,
so a headless browser can check the page (tests/autotune/test_report.py).
"""

from __future__ import annotations

import html
import math
import time
from typing import Any

import pandas as pd
import plotly.graph_objects as go
from plotly.offline import get_plotlyjs

from autotune.report import data

OUTCOME_COLORS = {"complete": "#2a9d8f", "infeasible": "#e9c46a", "pruned": "#8ab6d6", "failed": "#e76f51"}
PHASE_COLORS = ["#264653", "#2a9d8f", "#8ab17d", "#e9c46a", "#f4a261", "#e76f51", "#9c89b8", "#b56576"]

STYLE = """
body{font-family:system-ui,-apple-system,Segoe UI,Roboto,sans-serif;margin:0;color:#1d2021;background:#fafafa}
header{background:#264653;color:#fff;padding:18px 32px} header h1{margin:0;font-size:22px}
header p{margin:4px 0 0;opacity:.85} main{padding:8px 32px 48px;max-width:1300px}
section{background:#fff;border:1px solid #e3e3e3;border-radius:8px;padding:16px 20px;margin:18px 0}
h2{font-size:18px;margin:0 0 10px} table{border-collapse:collapse;font-size:13px;width:100%}
th,td{border-bottom:1px solid #eee;padding:4px 8px;text-align:left;vertical-align:top}
th{background:#f3f3f3;cursor:pointer;position:sticky;top:0} .pass{color:#2a7d2a;font-weight:600}
.fail{color:#c0392b;font-weight:600} .na{color:#888} .big{font-size:28px;font-weight:700}
.cards{display:flex;gap:14px;flex-wrap:wrap} .card{border:1px solid #e3e3e3;border-radius:8px;padding:10px 14px;min-width:150px}
.card .label{font-size:12px;color:#666} pre{background:#f6f8fa;padding:12px;overflow:auto;font-size:12px}
button{cursor:pointer} .note{color:#666;font-size:13px} .scroll{max-height:480px;overflow:auto}
"""

SCRIPT = """
document.querySelectorAll('table.sortable th').forEach(function (th, col) {
  th.addEventListener('click', function () {
    var table = th.closest('table'), body = table.tBodies[0];
    var rows = Array.from(body.rows), asc = th.dataset.asc !== '1';
    rows.sort(function (a, b) {
      var x = a.cells[col].innerText, y = b.cells[col].innerText, nx = parseFloat(x), ny = parseFloat(y);
      var c = (!isNaN(nx) && !isNaN(ny)) ? nx - ny : x.localeCompare(y);
      return asc ? c : -c;
    });
    th.dataset.asc = asc ? '1' : '0';
    rows.forEach(function (r) { body.appendChild(r); });
  });
});
function copyYaml() {
  var text = document.getElementById('export-yaml').innerText;
  if (navigator.clipboard) { navigator.clipboard.writeText(text).catch(function () {}); }
  document.getElementById('copy-status').innerText = 'copied';
}
"""


def _fmt(value: Any, digits: int = 4) -> str:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "–"
    if isinstance(value, float):
        return f"{value:.{digits}g}"
    return str(value)


def _table(frame: pd.DataFrame, sortable: bool = True) -> str:
    if frame.empty:
        return '<p class="note">none</p>'
    head = "".join(f"<th>{html.escape(str(c))}</th>" for c in frame.columns)
    body = "".join(
        "<tr>" + "".join(f"<td>{html.escape(_fmt(v))}</td>" for v in row) + "</tr>"
        for row in frame.itertuples(index=False)
    )
    cls = ' class="sortable"' if sortable else ""
    return f'<div class="scroll"><table{cls}><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table></div>'


class Page:
    """Collects sections and figures; `html()` assembles the file."""

    def __init__(self) -> None:
        self.sections: list[str] = []
        self.figures: list[tuple[str, str]] = []

    def figure(self, fig: go.Figure, height: int = 380) -> str:
        div = f"plot-{len(self.figures)}"
        fig.update_layout(height=height, margin={"l": 60, "r": 20, "t": 40, "b": 50}, template="plotly_white")
        self.figures.append((div, fig.to_json()))
        return f'<div id="{div}" class="plot"></div>'

    def section(self, anchor: str, title: str, body: str) -> None:
        self.sections.append(f'<section id="{anchor}"><h2>{html.escape(title)}</h2>{body}</section>')

    def html(self, title: str, subtitle: str) -> str:
        plots = ",".join(f'["{div}", {spec}]' for div, spec in self.figures)
        return f"""<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>{html.escape(title)}</title>
<script>window.__errors=[];window.addEventListener('error',function(e){{window.__errors.push(String(e.message));
var el=document.getElementById('js-errors');if(el)el.textContent=window.__errors.join('\\n');}});</script>
<style>{STYLE}</style></head><body>
<header><h1>{html.escape(title)}</h1><p>{html.escape(subtitle)}</p></header><main>
{"".join(self.sections)}
<pre id="js-errors" hidden></pre></main>
<script>{get_plotlyjs()}</script>
<script>{SCRIPT}
[{plots}].forEach(function (item) {{
  var div = document.getElementById(item[0]), spec = item[1];
  Plotly.newPlot(div, spec.data, spec.layout, {{responsive: true, displaylogo: false}})
    .then(function () {{ div.dataset.rendered = '1'; }})
    .catch(function (err) {{ window.__errors.push('plot ' + item[0] + ': ' + err);
      document.getElementById('js-errors').textContent = window.__errors.join('\\n'); }});
}});
</script></body></html>"""


def summary_section(page: Page, s: data.Summary) -> None:
    if s.winner is None:
        page.section("summary", "Summary", '<p class="note">No feasible trial yet.</p>')
        return
    spread = ""
    if not math.isnan(s.speedup_min):
        spread = f" (rounds {s.speedup_min:.2f}–{s.speedup_max:.2f}, std {s.speedup_std:.2f})"
    cards = [
        ("winner", f"#{s.winner} ({s.source})"),
        ("speedup vs baseline", f"{_fmt(s.speedup, 3)}×{spread}"),
        (s.objective, f"{_fmt(s.winner_value)} vs {_fmt(s.baseline_value)}"),
        ("memory vs baseline", f"{_fmt(s.memory_ratio, 3)}×"),
        ("KL to reference", _fmt(s.kl)),
        ("comm share", _fmt(s.comm_share, 3)),
        ("MFU", _fmt(s.mfu, 3)),
    ]
    html_cards = "".join(
        f'<div class="card"><div class="label">{html.escape(k)}</div><div>{html.escape(v)}</div></div>'
        for k, v in cards
    )
    rows = []
    for c in s.checks:
        verdict = (
            '<span class="na">not measured</span>'
            if c.passed is None
            else ('<span class="pass">pass</span>' if c.passed else '<span class="fail">fail</span>')
        )
        rows.append(
            f"<tr><td>{html.escape(c.name)}</td><td>{_fmt(c.value)}</td><td>{html.escape(c.rule)}</td><td>{verdict}</td></tr>"
        )
    checklist = f"<h3>Health checklist</h3><table><thead><tr><th>check</th><th>value</th><th>rule</th><th>verdict</th></tr></thead><tbody>{''.join(rows)}</tbody></table>"
    page.section(
        "summary", "Summary: the winner against the baseline", f'<div class="cards">{html_cards}</div>{checklist}'
    )


def history_section(page: Page, frame: pd.DataFrame, objective: str) -> None:
    if frame.empty:
        page.section("history", "Optimisation history", '<p class="note">No finished trials yet.</p>')
        return
    fig = go.Figure()
    for outcome, group in frame.groupby("outcome"):
        fig.add_trace(
            go.Scatter(
                x=group["number"],
                y=group["value"],
                mode="markers",
                name=str(outcome),
                marker={"color": OUTCOME_COLORS.get(str(outcome), "#999"), "size": 9},
            )
        )
    fig.add_trace(
        go.Scatter(
            x=frame["number"],
            y=frame["best_so_far"],
            mode="lines",
            name="best feasible so far",
            line={"color": "#264653"},
        )
    )
    fig.update_layout(xaxis_title="trial", yaxis_title=objective)
    page.section("history", "Optimisation history", page.figure(fig))


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


def parallel_section(page: Page, frame: pd.DataFrame, objective: str) -> None:
    if len(frame) < 2:
        page.section("parallel", "Parallel coordinates", '<p class="note">Needs at least two completed trials.</p>')
        return
    dims = []
    for column in frame.columns[1:]:
        series = frame[column]
        if series.isna().all():
            continue
        if pd.api.types.is_numeric_dtype(series) and not pd.api.types.is_bool_dtype(series):
            dims.append(
                {"label": column.rsplit(".", 1)[-1], "values": series.fillna(series.min()).astype(float).tolist()}
            )
        else:
            labels = sorted({str(v) for v in series})
            codes = [labels.index(str(v)) for v in series]
            dims.append(
                {
                    "label": column.rsplit(".", 1)[-1],
                    "values": codes,
                    "tickvals": list(range(len(labels))),
                    "ticktext": labels,
                }
            )
    fig = go.Figure(
        go.Parcoords(
            line={"color": frame["objective"].astype(float), "colorscale": "Viridis", "showscale": True},
            dimensions=dims,
        )
    )
    page.section("parallel", f"Parallel coordinates (colour: {objective})", page.figure(fig, 440))


def importance_section(page: Page, series: pd.Series, objective: str, direction: str) -> None:
    if series.empty:
        page.section("importance", "Parameter importances", '<p class="note">Needs at least four completed trials.</p>')
        return
    fig = go.Figure(
        go.Bar(
            x=series.values[::-1],
            y=[k.rsplit(".", 1)[-1] for k in series.index[::-1]],
            orientation="h",
            marker={"color": "#2a9d8f"},
        )
    )
    fig.update_layout(xaxis_title="PED-ANOVA importance")
    note = f'<p class="note">For {"maximising" if direction == "maximize" else "minimising"} {html.escape(objective)}: the objective is oriented so the most important knobs are those that separate the best trials.</p>'
    page.section("importance", "Parameter importances", note + page.figure(fig, 60 + 28 * len(series)))


def inert_section(page: Page, frame: pd.DataFrame) -> None:
    body = (
        '<p class="note">Every tuned knob could act on this platform.</p>'
        if frame.empty
        else (
            '<p class="note">Tuned, but inert where the sweep ran: their values changed nothing and are exported at the baseline value.</p>'
            + _table(frame, sortable=False)
        )
    )
    page.section("inert", "Knobs inert on this platform", body)


def phases_section(page: Page, frame: pd.DataFrame, summary: data.Summary) -> None:
    if frame.empty:
        page.section("phases", "Where the time goes", '<p class="note">No trial ran steps yet.</p>')
        return
    labels = [f"#{n}" + (" base" if b else "") for n, b in zip(frame["number"], frame["baseline"], strict=True)]
    fig = go.Figure()
    for phase, color in zip(data.PHASES, PHASE_COLORS, strict=True):
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
        columns = [*data.PHASES, "comm", "step"]
        for _, row in pick.sort_values("baseline", ascending=False).iterrows():
            name = ("baseline" if row["baseline"] else "winner") + f" #{row['number']}"
            color = "#8d99ae" if row["baseline"] else "#2a9d8f"
            side.add_trace(go.Bar(x=columns, y=[row[c] for c in columns], name=name, marker={"color": color}))
        side.update_layout(
            barmode="group", yaxis_title="median seconds per step", title="winner vs baseline, phase by phase"
        )
        body += page.figure(side, 360)
    page.section("phases", "Where the time goes (per-step phase medians)", body)


def health_section(page: Page, frame: pd.DataFrame) -> None:
    if frame.empty:
        page.section("health", "Training health", '<p class="note">No steps recorded yet.</p>')
        return
    body = ""
    for metric, title in (("kl", "KL to the reference (actor/kl_loss)"), ("score", "task score (critic/score/mean)")):
        fig = go.Figure()
        for trial, group in frame.groupby("trial"):
            fig.add_trace(go.Scatter(x=group["step"], y=group[metric], mode="lines+markers", name=str(trial)))
        fig.update_layout(title=title, xaxis_title="step")
        body += page.figure(fig, 320)
    page.section("health", "Training health: the baseline and the top trials", body)


def failures_section(page: Page, frame: pd.DataFrame) -> None:
    if frame.empty:
        page.section("failures", "Failures", '<p class="note">Every trial completed within its limits.</p>')
        return
    counts = frame["kind"].value_counts()
    fig = go.Figure(go.Bar(x=counts.index.tolist(), y=counts.values.tolist(), marker={"color": "#e76f51"}))
    fig.update_layout(xaxis_title="reason", yaxis_title="trials")
    page.section("failures", "Failures by reason", page.figure(fig, 300) + _table(frame))


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
    note = f'<p class="note">The cost model ranked the space; these configurations then ran for real. Median step-time error {median:.1%}.</p>'
    page.section("prediction", "Predicted vs measured (multi-fidelity)", note + page.figure(fig, 360) + _table(frame))


def render(
    title: str,
    subtitle: str,
    summary: data.Summary,
    history: pd.DataFrame,
    pareto: pd.DataFrame,
    parameters: pd.DataFrame,
    importances: pd.Series,
    direction: str,
    inert: pd.DataFrame,
    phases: pd.DataFrame,
    health: pd.DataFrame,
    failures: pd.DataFrame,
    trials: pd.DataFrame,
    exported: str,
    provenance: dict[str, str],
    predicted: pd.DataFrame | None = None,
) -> str:
    page = Page()
    summary_section(page, summary)
    prediction_section(page, predicted if predicted is not None else pd.DataFrame())
    history_section(page, history, summary.objective)
    pareto_section(page, pareto)
    parallel_section(page, parameters, summary.objective)
    importance_section(page, importances, summary.objective, direction)
    inert_section(page, inert)
    phases_section(page, phases, summary)
    health_section(page, health)
    failures_section(page, failures)
    page.section("trials", "All trials (click a header to sort)", _table(trials))
    page.section(
        "export",
        "Exported verl YAML",
        '<button onclick="copyYaml()">copy</button> <span id="copy-status" class="note"></span>'
        f'<pre id="export-yaml">{html.escape(exported)}</pre>',
    )
    prov = pd.DataFrame(list(provenance.items()), columns=["", "value"])
    page.section("provenance", "Provenance", _table(prov, sortable=False))
    stamp = time.strftime("%Y-%m-%d %H:%M:%S")
    return page.html(title, f"{subtitle} · generated {stamp}")
