"""The page skeleton of the report: style, scripts, tables and the Page that collects sections and plots.

Each plot marks its div with `data-rendered="1"` once Plotly has drawn it and with `data-points`, the data
points it drew (a plot drawn with none is an empty plot: audit 27 F6), parallel-coordinates plots record
overlapping axis titles in `data-label-overlaps`, and page errors are collected in `#js-errors`, so a
headless browser can check the page (autotune/report/browser.py).
"""

from __future__ import annotations

import html
import math
import re
from typing import Any

import numpy as np
import pandas as pd
import plotly.graph_objects as go
from plotly.offline import get_plotlyjs

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
nav{margin:12px 0 0} button{cursor:pointer} .note{color:#666;font-size:13px} .warn{color:#8a5a00;font-weight:600} .scroll{max-height:480px;overflow:auto}
pre.wrap{white-space:pre-wrap;overflow-wrap:anywhere}
"""
"""`pre.wrap`: a decision's lines wrap at the section's edge: "...: BREAKS the" hid "bound" (audit 27 F16)."""

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
// Parallel-coordinates axis titles: count pairs whose drawn (possibly rotated) boxes overlap (the
// browser check reads data-label-overlaps) and give each short title its full key as a tooltip.
function titleCorners(t) {
  var b = t.getBBox(), m = t.getScreenCTM(), svg = t.ownerSVGElement;
  return [[b.x, b.y], [b.x + b.width, b.y], [b.x + b.width, b.y + b.height], [b.x, b.y + b.height]].map(function (c) {
    var p = svg.createSVGPoint(); p.x = c[0]; p.y = c[1]; p = p.matrixTransform(m); return [p.x, p.y];
  });
}
function separated(a, b) {  // separating-axis test for two convex quadrilaterals, 1 px slack
  return [a, b].some(function (poly) {
    return poly.some(function (p, i) {
      var q = poly[(i + 1) % 4], len = Math.hypot(q[0] - p[0], q[1] - p[1]) || 1;
      var nx = (q[1] - p[1]) / len, ny = (p[0] - q[0]) / len;
      var pa = a.map(function (v) { return v[0] * nx + v[1] * ny; });
      var pb = b.map(function (v) { return v[0] * nx + v[1] * ny; });
      return Math.max.apply(null, pa) < Math.min.apply(null, pb) + 1 || Math.max.apply(null, pb) < Math.min.apply(null, pa) + 1;
    });
  });
}
function labelCheck(div) {
  var titles = Array.from(div.querySelectorAll('.axis-title'));
  if (!titles.length) { return; }
  var quads = titles.map(titleCorners), n = 0;
  for (var i = 0; i < quads.length; i++) {
    for (var j = i + 1; j < quads.length; j++) { if (!separated(quads[i], quads[j])) { n++; } }
  }
  div.dataset.labelOverlaps = String(n);
  var keys = div.dataset.axisKeys ? JSON.parse(div.dataset.axisKeys) : {};
  titles.forEach(function (t) {
    var full = keys[t.textContent];
    if (full) {
      var tip = document.createElementNS('http://www.w3.org/2000/svg', 'title');
      tip.textContent = full;
      t.appendChild(tip);
    }
  });
}
// The data points a plot drew, for the browser check: two "Training health" plots of NaN values drew blank axes
// and passed it as rendered (audit 27 F6). A scatter's point counts when its y is a number, a bar's when its
// size is; a trace of another kind (parallel coordinates) counts as drawn.
function pointsOf(div) {
  return (div.calcdata || []).reduce(function (n, trace) {
    var type = trace.length && trace[0].trace ? trace[0].trace.type : '';
    if (type !== 'scatter' && type !== 'bar') { return n + trace.length; }
    return n + trace.filter(function (p) { return Number.isFinite(p.y) || Number.isFinite(p.s); }).length;
  }, 0);
}
function copyYaml() {
  var text = document.getElementById('export-yaml').innerText;
  if (navigator.clipboard) { navigator.clipboard.writeText(text).catch(function () {}); }
  document.getElementById('copy-status').innerText = 'copied';
}
"""


def fmt(value: Any, digits: int = 4) -> str:
    """A table cell or card: "–" when missing, a float at `digits` significant digits, a flag as yes/no (Python's
    True/False read in the trial table and the minimal winner's `ships`; audit 27 F13)."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "–"
    if isinstance(value, (bool, np.bool_)):
        return "yes" if value else "no"
    if isinstance(value, float):
        return f"{value:.{digits}g}"
    return str(value)


def with_code(text: str) -> str:
    """Text that quotes commands in Markdown backticks, as HTML: each `span` in <code> (they read as literal
    backticks on the page; audit 27 F16)."""
    return re.sub(r"`([^`]+)`", r"<code>\1</code>", html.escape(text))


def table_html(frame: pd.DataFrame, sortable: bool = True) -> str:
    if frame.empty:
        return '<p class="note">none</p>'
    head = "".join(f"<th>{html.escape(str(c))}</th>" for c in frame.columns)
    body = "".join(
        "<tr>" + "".join(f"<td>{html.escape(fmt(v))}</td>" for v in row) + "</tr>"
        for row in frame.itertuples(index=False)
    )
    cls = ' class="sortable"' if sortable else ""
    return f'<div class="scroll"><table{cls}><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table></div>'


class Page:
    """Collects sections and figures; `html()` assembles the file."""

    def __init__(self) -> None:
        self.sections: list[str] = []
        self.figures: list[tuple[str, str]] = []
        self.contents: list[tuple[str, str]] = []
        """(anchor, short title) of each section, for the links at the top."""

    def figure(self, fig: go.Figure, height: int = 380, top: int = 40, attrs: str = "") -> str:
        div = f"plot-{len(self.figures)}"
        fig.update_layout(height=height, margin={"l": 60, "r": 20, "t": top, "b": 50}, template="plotly_white")
        self.figures.append((div, fig.to_json()))
        return f'<div id="{div}" class="plot"{attrs}></div>'

    def section(self, anchor: str, title: str, body: str) -> None:
        self.sections.append(f'<section id="{anchor}"><h2>{html.escape(title)}</h2>{body}</section>')
        self.contents.append((anchor, re.split(r"[:(]", title)[0].strip()))

    def nav(self) -> str:
        """Links to the page's sections, by the head of each title: 15 sections had none (audit 27 F16)."""
        if len(self.contents) < 2:
            return ""
        links = " · ".join(f'<a href="#{anchor}">{html.escape(name)}</a>' for anchor, name in self.contents)
        return f'<nav class="note">{links}</nav>'

    def html(self, title: str, subtitle: str) -> str:
        plots = ",".join(f'["{div}", {spec}]' for div, spec in self.figures)
        return f"""<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>{html.escape(title)}</title>
<script>window.__errors=[];window.addEventListener('error',function(e){{window.__errors.push(String(e.message));
var el=document.getElementById('js-errors');if(el)el.textContent=window.__errors.join('\\n');}});</script>
<style>{STYLE}</style></head><body>
<header><h1>{html.escape(title)}</h1><p>{html.escape(subtitle)}</p></header><main>
{self.nav()}
{"".join(self.sections)}
<pre id="js-errors" hidden></pre></main>
<script>{get_plotlyjs()}</script>
<script>{SCRIPT}
[{plots}].forEach(function (item) {{
  var div = document.getElementById(item[0]), spec = item[1];
  Plotly.newPlot(div, spec.data, spec.layout, {{responsive: true, displaylogo: false}})
    .then(function () {{ labelCheck(div); div.dataset.points = String(pointsOf(div)); div.dataset.rendered = '1'; }})
    .catch(function (err) {{ window.__errors.push('plot ' + item[0] + ': ' + err);
      document.getElementById('js-errors').textContent = window.__errors.join('\\n'); }});
}});
</script></body></html>"""
