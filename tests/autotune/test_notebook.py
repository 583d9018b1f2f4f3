"""The analysis notebook executes end to end on a real (small) study."""

from __future__ import annotations

import os

import nbformat
from nbclient import NotebookClient

from tests.conftest import ROOT


def test_sweep_analysis_notebook_executes(small_study, monkeypatch):
    runs, _, _ = small_study
    monkeypatch.setenv("AUTOTUNE_RUNS_DIR", str(runs))
    monkeypatch.setenv("AUTOTUNE_STUDY", "small")
    notebook = nbformat.read(ROOT / "notebooks" / "sweep_analysis.ipynb", as_version=4)
    NotebookClient(
        notebook, timeout=300, kernel_name="python3", resources={"metadata": {"path": str(ROOT / "notebooks")}}
    ).execute()
    outputs = [o for cell in notebook.cells if cell.cell_type == "code" for o in cell.get("outputs", [])]
    assert not [o for o in outputs if o.get("output_type") == "error"]
    text = "".join(o.get("text", "") for o in outputs)
    assert "winner #" in text
    assert os.environ["AUTOTUNE_STUDY"] == "small"
