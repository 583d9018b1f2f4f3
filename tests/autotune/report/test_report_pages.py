"""The report's plots and wording as a reader meets them (audit 27): a simulated study's page, the history plot,
the training-health note, the trial table and the browser check's empty plots."""

from __future__ import annotations

import warnings
from pathlib import Path
from typing import Any

import pytest

from autotune.report import data, render, write_report
from autotune.report.browser import inspect
from autotune.study.storage import load_study
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
    old = render.Page()
    render.health_section(old, frame)
    path = tmp / "old.html"
    path.write_text(old.html("t", "t"))
    seen = inspect(path)
    assert seen.rendered == seen.plots == 2 and seen.empty == ["plot-0", "plot-1"] and not seen.ok, seen
    with pytest.raises(typer.Exit):  # what `autotune report --check` runs on each page
        _check_page(path, tmp / "old.png")
