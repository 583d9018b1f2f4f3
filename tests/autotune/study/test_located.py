"""A study is read from wherever its runs folder is: the records keep each trial's folder as the controller had
it (relative to the folder `autotune run` ran in), and the notebook (in notebooks/), `--runs-dir` from elsewhere
or a runs folder copied off the cluster found no steps ("trial #0 has no steps"; calibrate "got 0 trials")."""

from __future__ import annotations

import json
import shutil

from autotune.sim.calibrate import held_back
from autotune.study.storage import StudyPaths
from tests.autotune.conftest import autotune, write_space


def test_a_study_made_with_a_relative_runs_folder_is_read_from_another_folder_and_after_a_move(tmp_path):
    import autotune as api

    made = tmp_path / "made"
    made.mkdir()
    space = write_space(made, steps=3, extra_params="  actor_rollout_ref.actor.fsdp_config.forward_prefetch: {type: bool}",
                        extra_baseline="  actor_rollout_ref.actor.fsdp_config.forward_prefetch: false")  # fmt: skip
    run = autotune("run", "--space", space.name, "--trials", "6", "--confirm", "0", "--ablate", "0", cwd=made)
    assert run.returncode == 0, run.stdout[-2000:] + run.stderr[-2000:]
    elsewhere = tmp_path / "elsewhere"
    shutil.move(made / "runs", elsewhere)  # copied off the cluster: the recorded relative folders name nothing here
    sweep = api.open_study("small", runs_dir=elsewhere)  # from the tests' folder, not `made`
    assert len(sweep.steps(0)) == 3
    assert not sweep.phases().empty
    assert StudyPaths(elsewhere, "small").located("runs/small/trials/0000") == elsewhere / "small/trials/0000"
    cal = autotune("calibrate", "small", "--runs-dir", str(elsewhere), "-o", str(tmp_path / "cal.json"),
                   "--holdout", "0.5", cwd=tmp_path)  # fmt: skip
    assert cal.returncode == 0, cal.stdout + cal.stderr
    n = len(json.loads((tmp_path / "cal.json").read_text())["trials"])  # measured ones: duplicates are not
    assert n >= 4 and f"fitted on {n} trials" in cal.stdout, cal.stdout
    # the held-back test measures the error on trials the fit did not see; the file is still the fit on all (it
    # was the fit on the rest, written and recommended without a word)
    held = len(held_back(n, 0.5))
    assert f"held back {held} of {n} trials ({held / n:.0%}; a fit on the other {n - held} predicted" in cal.stdout
    assert f"the fit written is on all {n}" in cal.stdout
    report = autotune("report", "small", "--runs-dir", str(elsewhere), "-o", str(tmp_path / "rep"), cwd=tmp_path)
    assert report.returncode == 0, report.stderr
    assert "No trial ran steps yet" not in (tmp_path / "rep" / "index.html").read_text()
