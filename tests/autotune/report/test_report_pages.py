"""The report's plots and wording as a reader meets them (audit 27): a simulated study's page, the history plot,
the training-health note, the trial table and the browser check's empty plots."""

from __future__ import annotations

import json
import math
import re
import warnings
from pathlib import Path
from typing import Any

import pandas as pd
import plotly.graph_objects as go
import pytest

from autotune.report import data, render, write_report
from autotune.report.browser import inspect
from autotune.space.loader import load_space
from autotune.study.ablation_result import ExplainStep
from autotune.study.storage import StudyPaths, load_study
from autotune.sweep.explain import ExplainOptions, summarize_path
from tests.autotune.conftest import simulated_study


def section(page: str, anchor: str) -> str:
    """The HTML of one section of a page."""
    return page.split(f'<section id="{anchor}">')[1].split("</section>")[0]


@pytest.fixture(scope="module")
def simulated(tmp_path_factory: pytest.TempPathFactory) -> tuple[Any, Any, Any, Path, Path]:
    """A 30-trial simulated study of the 8-GPU space, its report written: (space, paths, study, folder, page)."""
    tmp = tmp_path_factory.mktemp("simulated")
    space, paths = simulated_study(tmp / "runs", "simpage", 30)
    study = load_study(paths)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        page = write_report(study, paths, space, tmp / "report")
    return space, paths, study, tmp, page


def test_a_simulated_report_draws_no_empty_health_plot_and_the_check_fails_one(simulated):
    """A prediction has no KL or score: its two "Training health" plots drew blank axes under a legend of four
    trials, and `report --check` passed them as rendered (audit 27 F6)."""
    import typer

    from autotune.cli.reading import _check_page

    space, paths, study, tmp, page = simulated
    health = section(page.read_text(), "health")
    assert 'class="plot' not in health and "A prediction has no learning curves" in health, health
    seen = inspect(page)
    assert seen.empty == [] and seen.ok, seen
    # the section as it was drawn before, from the same predicted trials: every KL and score is NaN
    frame = data.health_curves(study, space, paths=paths)
    assert not frame.empty and frame["kl"].isna().all() and frame["score"].isna().all()
    old = render.Page()  # as health_section drew them: one line per trial, from these NaN values
    body = ""
    for metric in ("kl", "score"):
        drawn = [go.Scatter(x=g["step"], y=g[metric], mode="lines+markers", name=t) for t, g in frame.groupby("trial")]
        body += old.figure(go.Figure(drawn))
    old.section("health", "Training health", body)
    path = tmp / "old.html"
    path.write_text(old.html("t", "t"))
    seen = inspect(path)
    assert (
        seen.rendered == seen.plots == 2
        and seen.empty == ["plot-0 (section health)", "plot-1 (section health)"]
        and not seen.ok
    ), seen
    with pytest.raises(typer.Exit):  # what `autotune report --check` runs on each page
        _check_page(path, tmp / "old.png")


def traces(page: render.Page, index: int = -1) -> dict[str, dict[str, Any]]:
    """The traces of one of a page's figures, by legend name."""
    return {t["name"]: t for t in json.loads(page.figures[index][1])["data"]}


def test_the_history_draws_every_trial_and_marks_the_winner_and_the_baseline(simulated):
    """The simulated history listed "failed" in its legend and drew none of its OOM trials (NaN values; audit 27 F7),
    and neither the winner nor the baseline was marked (audit 27 F8)."""
    space, paths, study, _, _ = simulated
    outcomes = {t.number: t.user_attrs.get("outcome") for t in study.trials}
    failed = sorted(
        n for n, o in outcomes.items() if o == "failed" and not study.trials[n].user_attrs.get("duplicate_of")
    )
    assert failed  # the 8-GPU space's sweep predicts some configurations out of memory
    summary = data.summary(study, paths, space)
    page = render.Page()
    render.history_section(page, data.history(study, space), summary)
    drawn = traces(page)
    cross = drawn[f"failed, no value ({len(failed)}): at the bottom"]
    assert cross["x"] == failed and cross["marker"]["symbol"] == "x", cross
    values = [t.values[0] for t in study.trials if t.values and t.values[0] == t.values[0]]
    assert set(cross["y"]) == {min(values)}  # at the bottom of the drawn values
    assert drawn[f"winner #{summary.winner}"]["x"] == [summary.winner]
    assert drawn["baseline #0"]["x"] == [0] and drawn["baseline #0"]["y"] == [study.trials[0].values[0]]
    note = section(page.html("t", "t"), "history")
    assert "the cost model&#x27;s prediction for one trial" in note and f"{len(failed)} failed" in note, note
    # no feasible trial (every value failed or infeasible, as the tight study's): no line listed in the legend
    frame = data.history(study, space)
    frame = frame[frame["outcome"] != "complete"].assign(best_so_far=float("nan"))
    page = render.Page()
    render.history_section(page, frame, summary._replace(winner=None))
    assert "best feasible so far" not in traces(page) and "there is no best-so-far line" in page.html("t", "t")
    assert json.loads(page.figures[-1][1])["layout"]["xaxis"]["tickformat"] == "d"  # whole trial numbers


def test_a_confirmed_winners_history_says_the_points_are_single_runs(small_study):
    """The line climbed to a single run's 681 while the Summary named a confirmed #4 at 430 (audit 27 F8)."""
    runs, _, proc = small_study
    report = Path(proc.stdout.split("report: ")[1].split()[0])
    note = section(report.read_text(), "history")
    winner = json.loads((runs / "small" / "confirmation.json").read_text())["winner"]
    assert "one run of a trial" in note and "Confirmation then re-measured the top trials" in note, note
    assert f"The winner, #{winner} (confirmed), is the star" in note, note


def test_the_health_plots_say_when_the_curves_coincide_and_only_then(small_study):
    """Four trials' identical curves drew one line with no word of why (audit 27 F12): said when the data has them
    equal, not always."""
    runs, space_file, proc = small_study
    study = load_study(StudyPaths(runs, "small"))
    # by hand from the runs' own metrics files: each complete trial's KL and score per step, to 4 digits
    curves = set()
    for t in study.trials:
        if t.user_attrs.get("outcome") == "complete" and t.user_attrs.get("dir"):
            rows = [json.loads(line) for line in (Path(t.user_attrs["dir"]) / "metrics.jsonl").read_text().splitlines()]
            metrics = [(r["step"], r["metrics"]["actor/kl_loss"], r["metrics"]["critic/score/mean"]) for r in rows]
            curves.add(tuple((s, f"{kl:.4g}", f"{score:.4g}") for s, kl, score in sorted(metrics)))
    assert len(curves) == 1  # systems knobs only: every trial learnt the same, to 4 digits
    report = Path(proc.stdout.split("report: ")[1].split()[0])
    said = "The curves coincide: every trial here has the baseline's KL and score at every step"
    assert said in section(report.read_text(), "health")
    frame = data.health_curves(study, load_space(str(space_file)), paths=StudyPaths(runs, "small"))
    assert data.curves_coincide(frame)
    other = frame.copy()
    other.loc[other.index[-1], "score"] *= 1.01  # one trial's last score 1% off: two lines, not one
    assert not data.curves_coincide(other) and not data.curves_coincide(frame[frame["trial"] == "#0 (baseline)"])
    page = render.Page()
    render.health_section(page, other)
    assert "coincide" not in page.html("t", "t")
    # a metric no trial logged (verl without use_kl_loss) is named, not drawn as blank axes (audit 27 F6)
    page = render.Page()
    render.health_section(page, frame.assign(kl=float("nan")))
    said = section(page.html("t", "t"), "health")
    assert said.count('class="plot"') == 1 and "Not logged by these trials, so not drawn: KL to the reference" in said


def table(html_text: str) -> list[dict[str, str]]:
    """The rows of the first table in some HTML, as header -> cell text."""
    heads = re.findall(r"<th>([^<]*)</th>", html_text.split("</thead>")[0])
    body = html_text.split("<tbody>")[1].split("</tbody>")[0]
    return [
        dict(zip(heads, re.findall(r"<td>([^<]*)</td>", row), strict=True))
        for row in re.findall(r"<tr>(.*?)</tr>", body)
    ]


def test_the_trial_table_says_what_its_numbers_are(simulated):
    """Fractions beside the summary's percentages, Python's True/False, a simulated table titled as if measured and
    its OOM rows' predicted train time read 0 (audit 27 F13)."""
    _, _, study, _, page = simulated
    trials = section(page.read_text(), "trials")
    assert "<h2>All trials, as the cost model predicted them: nothing ran (click a header to sort)</h2>" in trials
    rows = table(trials)
    assert {"mfu", "comm_share"} <= set(rows[0]), rows[0]
    assert "mfu, comm_share: fractions (0.25 is 25%)" in trials
    assert {r["baseline"] for r in rows} == {"yes", "no"} and {r["partial"] for r in rows} == {"no"}
    failed = {t.number for t in study.trials if t.user_attrs.get("outcome") == "failed"}
    assert failed and {r["train_s (predicted)"] for r in rows if int(r["number"]) in failed} == {"–"}
    assert all(float(r["train_s (predicted)"]) > 0 for r in rows if r["outcome"] == "complete")


def test_a_simulated_checklist_has_no_kl_row_and_says_it_judges_predictions(simulated):
    """The simulated checklist had a KL row "not measured" (README: KL is left out), gave the real verl trainer as why
    comm share is not judged, and failed a predicted MFU in red as if measured (audit 27 F14)."""
    space, paths, study, _, page = simulated
    assert "perf/comm_share" in space.unmeasured  # the verl trainer does not log it
    checks = {c.name: c for c in data.summary(study, paths, space).checks}
    assert list(checks) == ["comm share", "memory vs baseline", "MFU (predicted)"], list(checks)
    comm = checks["comm share"]
    assert comm.passed is None and "verl trainer" not in comm.rule, comm.rule
    assert (
        comm.rule
        == "< 10%, not judged: this simulated sweep skipped the limit on every prediction, so no trial was held to it"
    )
    assert checks["MFU (predicted)"].rule == "≥ 35% (H100-class target), judged on the cost model's prediction"
    summary = section(page.read_text(), "summary")
    assert "<td>KL to reference</td>" not in summary and "<td>MFU (predicted)</td>" in summary


def test_the_pages_small_words(simulated, small_study, tmp_path):
    """Audit 27 F15 and F16: what the time-outside-steps card is of, "1 trials", the stamp's time zone, the pending
    quality stage's literal backticks, the importance note's "None", the error table's missing rounds and the
    failures chart's half trials."""
    import datetime

    from autotune.report.importance import _settled
    from autotune.study.results import unfinished_quality

    runs, _, proc = small_study
    study = load_study(StudyPaths(runs, "small"))
    ran = [t for t in study.trials if t.datetime_complete is not None and t.user_attrs.get("outcome")]
    span = max(t.datetime_complete for t in ran) - min(t.datetime_start for t in ran)  # one controller ran them
    page = Path(proc.stdout.split("report: ")[1].split()[0]).read_text()
    card = re.search(r"time outside training steps</div><div>(\d+)% of the sweep&#x27;s (\d+) s \(first trial&#x27;s "
                     r"start to last trial&#x27;s end\)</div>", page)  # fmt: skip
    assert card and abs(int(card.group(2)) - span.total_seconds()) <= 1, (card, span)
    stamp = re.search(r"generated (\d{4}-\d\d-\d\d \d\d:\d\d:\d\d) (\S+)</p>", page)
    assert stamp and stamp.group(2) == datetime.datetime.now().astimezone().tzname(), stamp
    # one trial: "1 trial", not "1 trials"
    space, paths = simulated_study(tmp_path / "runs", "one", 1)
    one = write_report(load_study(paths), paths, space, tmp_path / "one").read_text()
    assert " · 1 trial · " in one, re.search(r"<header>.*?</header>", one, re.S)
    # the pending quality stage: a note, its commands as code
    pending = unfinished_quality(StudyPaths(tmp_path / "runs", "one"), load_space("fsdp3d", device="cpu"))
    assert pending and "`autotune run`" in pending
    quality = render.Page()
    render.quality_section(quality, None, pending)
    said = section(quality.html("t", "t"), "quality")
    assert '<p class="note">' in said and "<code>autotune run</code>" in said and "`" not in said, said
    # the cost model's error table: round 1 is the fit set and the eighth search found no run (README's cost model)
    assert "Round 1 is the runs the model's constants were set on, not unseen: it has no row" in one
    assert "round 8 found no usable run" in one
    # a knob the sampler settled on unset reads `unset`, not `None`
    from optuna.distributions import CategoricalDistribution
    from optuna.trial import create_trial

    trials = [
        create_trial(params={"env.NCCL_PROTO": p}, distributions={"env.NCCL_PROTO": CategoricalDistribution([None, "LL"])}, value=v)
        for p, v in ((None, 1.0), (None, 2.0), (None, 3.0), ("LL", 4.0))
    ]  # fmt: skip
    assert _settled(trials, [1.0, 2.0, 3.0, 4.0], "env.NCCL_PROTO") == "unset in 75%"
    # whole trials on the failures chart's count axis
    _, _, sim, _, _ = simulated
    failures = data.failures(sim)
    chart = render.Page()
    render.failures_section(chart, failures.head(3))
    axis = json.loads(chart.figures[0][1])["layout"]["yaxis"]
    assert axis["tickformat"] == "d" and axis["dtick"] == 1, axis


def test_the_page_links_to_each_of_its_sections(simulated):
    """Fifteen sections and no way to jump between them (audit 27 F16)."""
    page = simulated[4].read_text()
    anchors = re.findall(r'<section id="([\w-]+)">', page)
    nav = page.split("<nav", 1)[1].split("</nav>")[0]
    assert len(anchors) > 10 and re.findall(r'<a href="#([\w-]+)">', nav) == anchors, nav
    assert (
        '<a href="#summary">Summary</a>' in nav
        and '<a href="#trials">All trials, as the cost model predicted them</a>' in nav
    )


def test_the_health_curves_include_the_winner_whatever_its_sweep_value(small_study):
    """The three top trials by sweep value tied with the winner, which was not among them (audit 27 F6)."""
    runs, space_file, _ = small_study
    paths = StudyPaths(runs, "small")
    study = load_study(paths)
    complete = [
        t for t in study.trials if t.user_attrs.get("outcome") == "complete" and not t.user_attrs.get("baseline")
    ]
    slowest = min(complete, key=lambda t: t.values[0]).number  # by hand: the last of the sweep's ranking
    assert len(complete) >= 2
    frame = data.health_curves(study, load_space(str(space_file)), top=1, paths=paths, winner=slowest)
    best = max(complete, key=lambda t: t.values[0]).number
    assert list(dict.fromkeys(frame["trial"])) == ["#0 (baseline)", f"#{slowest}", f"#{best}"], frame


def test_an_explain_path_whose_runs_all_failed_draws_no_empty_plot():
    """A plot of NaN bars is an empty plot, which `report --check` fails: the section says why it has none."""

    def step(gain: float) -> ExplainStep:
        return ExplainStep(
            gain=gain, speedup_mean=gain, speedup_min=gain, speedup_max=gain, rounds=2, label="k", step=1
        )

    for gains, plots in (([math.nan, math.nan], 0), ([math.nan, 1.2], 1)):
        info = summarize_path([step(g) for g in gains], 7, ExplainOptions())
        frame = pd.DataFrame([s.table_row() for s in info.steps], columns=list(ExplainStep.TABLE))
        page = render.Page()
        render.ablation_section(page, frame, info, "small")
        said = section(page.html("t", "t"), "ablation")
        assert said.count('class="plot"') == plots
        assert ("every run of the path failed" in said) == (plots == 0)
        assert "not measured: its runs failed" in said  # the table names each step's verdict


def test_the_quality_stages_other_systems_line_compares_what_ships_not_what_was_sampled(tmp_path):
    """The winner sampled NCCL_ALGO Ring, inert on the CPU sweep, so exported at its baseline (None), as the quality
    runs ran it; the line said "NCCL_ALGO: None -> Ring: ran -> ships" beside the header's "left at baseline (inert)"
    (audit 32 F3). Only a knob that ships otherwise than it ran is named (the export's header reads the same call)."""
    import optuna

    from autotune.space.stages import systems_values
    from autotune.study.quality_result import Quality
    from autotune.study.results import Winner

    space = load_space("fsdp3d")
    paths = StudyPaths(tmp_path, "q")
    paths.root.mkdir()
    ran = systems_values(space, space.baseline)
    Quality(horizon=30, seeds=[1], score_metric="critic/score/mean", score_last=5, kl_metric="actor/kl_loss",
            kl_window=5, kl_max=0.05, systems=ran).write(paths)  # fmt: skip
    study = optuna.create_study()  # no device recorded: a CPU sweep's
    dyn = "actor_rollout_ref.actor.use_dynamic_bsz"
    sampled = {**space.baseline, "env.NCCL_ALGO": "Ring", "env.NCCL_PROTO": "LL", dyn: not space.baseline[dyn]}
    winner = Winner(number=3, params=sampled, source="sweep", value=1.0, speedup=1.2, speedup_spread=None)
    line = data._quality_other_systems(study, paths, space, winner)
    assert "NCCL" not in line and f"use_dynamic_bsz: {space.baseline[dyn]} -> {sampled[dyn]}" in line, line
