"""The quality stage on real verl (the verl_cpu plugin): searched settings at two fidelities (the rungs
at 5 and 15 steps, then the 20-step horizon), confirmation over seeds, the decision and its report."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from autotune.study.quality_result import Quality
from autotune.study.storage import StudyPaths
from tests.autotune.conftest import autotune


@pytest.mark.slow  # four to six real verl runs of 20 steps (verl and Ray start in each): ~6 min on 2 quiet cores
@pytest.mark.xdist_group("verl")
def test_the_quality_stage_runs_real_verl_at_two_fidelities_and_reports(tmp_path):
    pytest.importorskip("verl")
    runs, reports = tmp_path / "runs", tmp_path / "reports"
    proc = autotune(
        "run", "--space", "verl-cpu", "--stage", "quality", "--trials", "2", "--runs-dir", str(runs),
        "--report-dir", str(reports), timeout=3000,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    result = Quality.read(StudyPaths(runs, "verl-cpu"))
    assert result is not None and result.horizon == 20 and len(result.ladder) == 2
    for row in result.ladder:  # each searched run was judged at the rungs it reached
        assert set(row["rungs"]) <= {"5", "15"} and "5" in row["rungs"]
    for cand in result.candidates:
        for run in cand.runs:
            stdout = (Path(run.dir) / "stdout.log").read_text()
            kl = [float(v) for v in re.findall(r"actor/kl_loss:([0-9.e+-]+)", stdout)]
            scores = [float(v) for v in re.findall(r"critic/score/mean:([0-9.e+-]+)", stdout)]
            assert len(kl) == run.steps == 20
            means = [sum(kl[max(0, i - 4) : i + 1]) / len(kl[max(0, i - 4) : i + 1]) for i in range(len(kl))]
            assert run.kl_peak == pytest.approx(max(means))
            assert run.score == pytest.approx(sum(scores[-5:]) / 5)
    assert "decision:" in proc.stdout
    assert (reports / "quality.html").exists()
    seeds = [str(p) for c in result.candidates for r in c.runs for p in [Path(r.dir) / "command"]]
    assert any(
        "data.seed=2" in Path(s).read_text() and "actor_rollout_ref.rollout.seed=2" in Path(s).read_text()
        for s in seeds
    )
