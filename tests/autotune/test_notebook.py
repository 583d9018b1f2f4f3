"""The analysis notebook executes end to end on a real (small) study and prints what the study holds."""

from __future__ import annotations

import json
import math
import re
import shutil
from collections import Counter

import nbformat
from nbclient import NotebookClient

from autotune.study.storage import StudyPaths, counted, load_study
from tests.autotune.conftest import autotune, write_space
from tests.conftest import ROOT


def executed(runs, study: str, monkeypatch) -> list:  # type: ignore[no-untyped-def, type-arg]
    """The notebook run top to bottom on `study` (as its README says: the two variables, then Jupyter): its code
    cells' outputs, none an error."""
    monkeypatch.setenv("AUTOTUNE_RUNS_DIR", str(runs))
    monkeypatch.setenv("AUTOTUNE_STUDY", study)
    notebook = nbformat.read(ROOT / "notebooks" / "sweep_analysis.ipynb", as_version=4)
    NotebookClient(
        notebook, timeout=300, kernel_name="python3", resources={"metadata": {"path": str(ROOT / "notebooks")}}
    ).execute()
    outputs = [o for cell in notebook.cells if cell.cell_type == "code" for o in cell.get("outputs", [])]
    assert not [o for o in outputs if o.get("output_type") == "error"]
    return outputs


def test_sweep_analysis_notebook_executes_and_reports_the_studys_numbers(small_study, monkeypatch):
    runs, _, _ = small_study
    outputs = executed(runs, "small", monkeypatch)
    text = "".join(o.get("text", "") for o in outputs)
    # the winner and its speedup, as confirmation.json (read here, not through the notebook's API) has them
    confirmation = json.loads((runs / "small" / "confirmation.json").read_text())
    winner = confirmation["winner"]
    speedup = confirmation["candidates"][str(winner)]["speedup_mean"]
    assert f"winner #{winner} (confirmed): {speedup:.2f}x the baseline" in text
    # the outcome counts are those of the study's finished trials
    study = load_study(StudyPaths(runs, "small"))
    counts = Counter(t.user_attrs["outcome"] for t in study.get_trials() if counted(t))
    for outcome, n in counts.items():
        assert re.search(rf"^{outcome}\s+{n}$", text, re.M), (outcome, n, text[:2000])
    # four completed trials are too few to rank knobs: the notebook says so instead of drawing noise
    assert "fewer than 8 completed trials: no ranking" in json.dumps([o.get("data", {}) for o in outputs])
    # the checklist says its values as the report's does, MFU 6.9% and memory 1.02x, where it printed 0.06924 and
    # 1.024; complete trials' reason is blank, not `None` (audit 38 F14)
    from autotune.report.data import summary
    from autotune.study.storage import stored_space

    s = summary(study, StudyPaths(runs, "small"), stored_space(StudyPaths(runs, "small")))
    said = {c.name: v for c in s.checks for v in [re.search(rf"^  {re.escape(c.name)}\s+(\S+)", text, re.M)]}
    for c in s.checks:
        value = (
            "–"
            if math.isnan(c.value)
            else f"{c.value * 100:.1f}%"
            if c.percent
            else f"{c.value:.2f}x"
            if c.times
            else None
        )
        if value is not None:
            assert said[c.name] is not None and said[c.name].group(1) == value, (c, text[:3000])
    assert any(c.percent for c in s.checks) and any(c.times for c in s.checks)
    table = next(o["data"]["text/plain"] for o in outputs if "reason" in o.get("data", {}).get("text/plain", ""))
    assert "reason" in table and "None" not in table, table
    # the quality stage's decision, or why there is none (the notebook said nothing of it, audit 38 F15)
    assert "no quality stage: the space has no `quality:` section" in text


def test_the_notebook_on_a_simulated_study_labels_predictions_and_draws_no_steps(tmp_path, monkeypatch):
    """On a `--fidelity sim` study it printed `KL nan`, `peak RSS nanx` and drew the one prediction copied to every
    step as "throughput per step", nothing said predicted."""
    from tests.autotune.conftest import simulated_study

    # its trials in a database outside the folder, as a `--storage` sweep's: the notebook could not be told it
    elsewhere = f"sqlite:///{tmp_path / 'elsewhere.db'}"  # (audit 34 N3)
    simulated_study(tmp_path / "runs", "fsdp3d-8gpu", 6, storage=elsewhere)
    monkeypatch.setenv("AUTOTUNE_STORAGE", elsewhere)
    outputs = executed(tmp_path / "runs", "fsdp3d-8gpu", monkeypatch)
    text = "".join(o.get("text", "") for o in outputs) + json.dumps([o.get("data", {}) for o in outputs])
    assert "(predicted): " in text and "as the cost model predicts it" in text
    assert "KL nan" not in text and "peak RSS nan" not in text and "throughput per step" not in text
    assert "median seconds per step, by phase (predicted by the cost model)" in text
    assert "a simulated study: each trial is one prediction of the cost model" in text
    # why it has no explain path, as the report says (it said "not measured yet: autotune explain", which refuses it)
    assert "a simulated study is not explained by running its configurations" in text and "not measured yet" not in text


def text_of(outputs: list) -> str:  # type: ignore[type-arg]
    """What the executed cells printed and showed, figures' JSON included."""
    return "".join(o.get("text", "") for o in outputs) + json.dumps([o.get("data", {}) for o in outputs])


def test_the_explain_cell_reads_the_path_as_the_report_does(small_study, tmp_path, monkeypatch):
    """It printed explain.json as stored: a path measured before confirmation read "no confirmation of the winner to
    compare with" after the sweep had confirmed it, and a path to an earlier winner was shown as this one's
    (audit 30 F5)."""
    from autotune.study.ablation_result import ExplainStep, Explanation
    from autotune.study.results import current_explanation, find_winner
    from autotune.study.storage import stored_space

    runs = tmp_path / "runs"
    shutil.copytree(small_study[0], runs)  # a copy: explain.json is written into it
    paths = StudyPaths(runs, "small")
    study, space = load_study(paths), stored_space(paths)
    winner = find_winner(study, paths, space)
    step = ExplainStep(step=1, label="k", gain=1.5, speedup_mean=1.5, speedup_min=1.4, speedup_max=1.6, rounds=2,
                       cumulative=1.5, verdict="matters")  # fmt: skip
    # measured before the sweep's confirmation finished: nothing to compare with then
    Explanation(study="small", baseline=0, winner=winner.number, repeats=2, steps=[step], product=1.5,
                product_min=1.4, product_max=1.6, winner_params=winner.params).write(paths)  # fmt: skip
    current, changed = current_explanation(study, paths, space)
    assert current is not None and changed  # compared with the confirmation now
    text = text_of(executed(runs, "small", monkeypatch))
    assert "\n".join(current.lines()) in text, text[:3000]
    assert "no confirmation of the winner to compare with" not in text
    # measured for another configuration than the one that ships now: not this winner's path
    Explanation(study="small", baseline=0, winner=winner.number, repeats=2, steps=[step], product=1.5,
                product_min=1.4, product_max=1.6, winner_params={**winner.params, "x": 1}).write(paths)  # fmt: skip
    text = text_of(executed(runs, "small", monkeypatch))
    assert "explain: study" not in text
    assert f"not measured yet: `autotune explain small --runs-dir {runs.resolve()}` walks from the baseline to" in text


def test_the_notebook_on_a_study_with_no_feasible_trial_says_what_best_says(tmp_path, monkeypatch):
    """It printed "winner #None (none): nanx the baseline", then px.bar raised a ValueError on the empty phase
    frame and the comparison never ran (audit 30 F6). Its one trial crashes at its first step: no metric at all."""
    space = write_space(tmp_path, steps=3)
    space.write_text(
        space.read_text().replace("  builtin.warm_start.steps: 15\n", "  builtin.warm_start.steps: 15\n"
                                  "  builtin.fault.kind: crash\n  builtin.fault.at_step: 1\n")
    )  # fmt: skip
    runs = tmp_path / "runs"
    swept = autotune("run", "--space", str(space), "--runs-dir", str(runs), "--trials", "1", "--confirm", "0",
                     "--report-dir", str(tmp_path / "report"))  # fmt: skip
    assert swept.returncode == 1, swept.stdout[-2000:] + swept.stderr[-2000:]
    best = autotune("best", "small", "--runs-dir", str(runs))
    said = best.stderr.strip().splitlines()[0]
    assert best.returncode == 1 and "has no feasible trial" in said, best.stderr
    text = text_of(executed(runs, "small", monkeypatch))  # every cell ran
    assert said in text
    assert "#None" not in text and "nan" not in text.replace("NaN", "")
    assert "no winner to explain (the summary above says why)" in text and "not measured yet" not in text
    assert "no phases to draw: no trial of this study ran a step" in text
    assert "no winner: nothing to compare with the baseline" in text and "throughput per step" not in text


def test_the_notebook_does_not_compare_a_baseline_winner_with_itself(tmp_path, monkeypatch):
    """A table of `ratio 1.0` columns and two identical lines, "baseline #0" and "winner #0", and "not measured yet:
    autotune explain", which refuses it (audit 30 F5, F8): it says why the baseline's values ship instead."""
    space = write_space(tmp_path, steps=3)
    runs = tmp_path / "runs"
    swept = autotune("run", "--space", str(space), "--runs-dir", str(runs), "--trials", "1", "--confirm", "0",
                     "--report-dir", str(tmp_path / "report"))  # fmt: skip
    assert swept.returncode == 0, swept.stdout[-2000:] + swept.stderr[-2000:]
    text = text_of(executed(runs, "small", monkeypatch))
    ships = "the winner is the baseline trial: only the baseline ran: nothing was compared with it"
    assert "winner #0 (sweep): 1.00x the baseline" in text and ships in text
    assert f"nothing to explain: {ships}" in text and "not measured yet" not in text
    assert "the winner is the baseline #0: nothing to compare (its values ship" in text
    assert "ratio" not in text and "winner #0" not in text.replace("winner #0 (sweep)", "")
