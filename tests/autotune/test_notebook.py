"""The analysis notebook executes end to end on a real (small) study and prints what the study holds."""

from __future__ import annotations

import json
import re
from collections import Counter

import nbformat
from nbclient import NotebookClient

from autotune.study.storage import StudyPaths, counted, load_study
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


def test_the_notebook_on_a_simulated_study_labels_predictions_and_draws_no_steps(tmp_path, monkeypatch):
    """On a `--fidelity sim` study it printed `KL nan`, `peak RSS nanx` and drew the one prediction copied to every
    step as "throughput per step", nothing said predicted."""
    from tests.autotune.conftest import simulated_study

    simulated_study(tmp_path / "runs", "fsdp3d-8gpu", 6)
    outputs = executed(tmp_path / "runs", "fsdp3d-8gpu", monkeypatch)
    text = "".join(o.get("text", "") for o in outputs) + json.dumps([o.get("data", {}) for o in outputs])
    assert "(predicted): " in text and "as the cost model predicts it" in text
    assert "KL nan" not in text and "peak RSS nan" not in text and "throughput per step" not in text
    assert "median seconds per step, by phase (predicted by the cost model)" in text
    assert "a simulated study: each trial is one prediction of the cost model" in text
