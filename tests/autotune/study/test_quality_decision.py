"""The quality stage's rule: only a setting that keeps the KL bound in every seed wins; a change over a
baseline that keeps it too ships only when its paired gain holds across seeds."""

from __future__ import annotations

import dataclasses
import json
import math

import pytest
from scipy import stats

from autotune.study.quality_result import BROKEN_BOUND, Quality, QualityCandidate, QualityRun
from autotune.study.storage import StudyPaths

KL = "algorithm.kl_ctrl.kl_coef"


def cand(label, kl_coef, scores, kl_peaks):
    runs = [
        QualityRun(seed=i + 1, steps=150, score=s, kl_peak=k, kl_peak_step=100, kl_last=k,
                   broke=None if k <= 0.05 else "kl_bound")
        for i, (s, k) in enumerate(zip(scores, kl_peaks, strict=True))
    ]  # fmt: skip
    return QualityCandidate(label=label, number=None if label == "baseline" else 1, params={KL: kl_coef}, runs=runs)


def decided(*candidates):
    q = Quality(horizon=150, seeds=[1, 2, 3], score_metric="critic/score/mean", score_last=20,
                kl_metric="actor/kl_loss", kl_window=10, kl_max=0.05, candidates=list(candidates))  # fmt: skip
    q.decide()
    return q


def test_when_the_baseline_breaks_the_bound_the_best_setting_that_keeps_it_ships():
    q = decided(
        cand("baseline", 0.001, [0.56, 0.55, 0.57], [0.21, 0.19, 0.23]),
        cand("#3", 0.3, [0.48, 0.47, 0.49], [0.04, 0.045, 0.041]),
        cand("#5", 0.2, [0.50, 0.51, 0.50], [0.048, 0.049, 0.047]),
        cand("#6", 0.1, [0.53, 0.52, 0.53], [0.049, 0.055, 0.05]),  # learns most, breaks the bound in one seed
    )
    assert q.winner == "#5" and q.shipped == {KL: 0.2} and not q.exports_a_broken_bound
    assert "the baseline breaks the KL bound" in q.verdict and "0.2300 > 0.05" in q.verdict


def test_when_no_setting_keeps_the_bound_nothing_ships():
    q = decided(cand("baseline", 0.001, [0.56] * 3, [0.2] * 3), cand("#1", 0.01, [0.55] * 3, [0.1, 0.04, 0.04]))
    assert q.winner is None and q.shipped == {}
    assert "nothing is exported" in q.verdict
    assert q.exports_a_broken_bound  # best and export say it on stderr (only a header comment did)
    # and every output of the decision carries it (best, the export's header, the report): the export's header said
    # "left at baseline by the quality stage", as if the stage had chosen them (audit 24 F5)
    assert f"  {BROKEN_BOUND}" in q.lines()
    kept = decided(cand("baseline", 0.5, [0.46] * 3, [0.02] * 3), cand("#1", 0.3, [0.46] * 3, [0.03] * 3))
    assert kept.winner is None and not kept.exports_a_broken_bound and f"  {BROKEN_BOUND}" not in kept.lines()


def test_over_a_baseline_that_keeps_the_bound_a_change_ships_only_when_its_gain_holds_across_seeds():
    base = cand("baseline", 0.5, [0.45, 0.47, 0.46], [0.02] * 3)
    steady = cand("#2", 0.3, [0.47, 0.49, 0.485], [0.03] * 3)  # +0.02, +0.02, +0.025
    noisy = cand("#4", 0.3, [0.50, 0.44, 0.49], [0.03] * 3)  # +0.05, -0.03, +0.03
    q = decided(base, steady)
    diffs = [0.02, 0.02, 0.025]
    half = stats.t.ppf(0.95, 2) * stats.tstd(diffs) / math.sqrt(3)
    mean = sum(diffs) / 3
    assert q.gain == pytest.approx((mean, mean - half, mean + half))
    assert q.gain[1] > 0 and q.winner == "#2" and q.shipped == {KL: 0.3}
    q = decided(base, noisy)
    assert q.gain[1] < 0 < q.gain[0] and q.winner is None and q.shipped == {}
    assert "does not hold across seeds" in q.verdict


def test_the_decision_round_trips_through_its_file(tmp_path):
    q = decided(cand("baseline", 0.001, [0.56] * 3, [0.2] * 3), cand("#1", 0.3, [0.5] * 3, [0.04] * 3))
    q.ladder = [{"number": 0, "params": {KL: 0.001}, "steps": 30, "outcome": "kl_bound", "rungs": {"20": 0.45}}]
    paths = StudyPaths(tmp_path, "s")
    paths.root.mkdir()
    q.write(paths)
    back = Quality.read(paths)
    assert back is not None and json.dumps(back.to_json(), sort_keys=True) == json.dumps(
        q.to_json(), sort_keys=True
    )  # NaN != NaN: compare text
    assert back.candidates[1].keeps_bound and not back.baseline.keeps_bound
    assert any("ships: algorithm.kl_ctrl.kl_coef: 0.3" in line for line in back.lines())


def test_a_sampled_value_reads_short_in_the_candidates_and_exact_in_what_ships():
    q = decided(cand("baseline", 0.001, [0.56] * 3, [0.2] * 3), cand("#1", 0.330780781455, [0.5] * 3, [0.04] * 3))
    lines = q.lines()
    assert any(line.startswith("  #1        kl_coef=0.3308: score") for line in lines), lines
    assert "  ships: algorithm.kl_ctrl.kl_coef: 0.330780781455" in lines  # the value that ran, as exported


def test_what_ships_reads_the_same_after_the_run_and_from_its_file(tmp_path):
    """The run's decision listed kl_coef first, `best` (reading the file, whose keys are sorted) clip first."""
    clip = "actor_rollout_ref.actor.clip_ratio_high"
    base, setting = cand("baseline", 0.001, [0.56] * 3, [0.2] * 3), cand("#1", 0.3, [0.5] * 3, [0.04] * 3)
    base.params, setting.params = {KL: 0.001, clip: 0.2}, {KL: 0.3, clip: 0.28}  # the stage's order: kl_coef first
    q = decided(base, setting)
    paths = StudyPaths(tmp_path, "s")
    paths.root.mkdir()
    q.write(paths)
    back = Quality.read(paths)
    said = [line for line in q.lines() if "ships:" in line]
    assert said == [f"  ships: {clip}: 0.28, {KL}: 0.3"] and back is not None
    assert said == [line for line in back.lines() if "ships:" in line]


def test_a_seed_that_ended_early_without_breaking_a_rule_is_not_measured_and_decides_nothing():
    """A crashed (or invalid, or timed-out) run read "BREAKS the bound" ("peaks at nan > 0.05"), and a baseline seed
    that crashed let a candidate ship without the paired test, as if the baseline broke the bound."""
    base = cand("baseline", 0.5, [0.45, 0.47, 0.46], [0.02] * 3)
    crashed = QualityRun(seed=2, steps=19, score=0.40, kl_peak=0.02, kl_peak_step=19, kl_last=0.02, broke="incomplete")
    base.runs[1] = crashed
    better = cand("#2", 0.3, [0.60, 0.61, 0.62], [0.03] * 3)
    q = decided(base, better)
    assert q.winner is None and q.shipped == {}, q.verdict  # it shipped #2 without the paired test
    assert "the baseline was not measured in every seed (seed 2 at step 19" in q.verdict and "run the same" in q.verdict
    lines = "\n".join(q.lines())
    assert "NOT MEASURED (seed 2 at step 19" in lines and "BREAKS" not in lines
    invalid = cand("#3", 0.2, [math.nan], [math.nan])
    invalid.runs[0] = QualityRun(seed=1, steps=0, score=math.nan, kl_peak=math.nan, kl_peak_step=0,
                                 kl_last=math.nan, broke="incomplete")  # fmt: skip
    assert invalid.status.startswith("NOT MEASURED (seed 1 at step 0")
    broken = cand("#4", 0.01, [0.5, 0.5, 0.5], [0.02, 0.2, 0.02])
    broken.runs[0] = crashed
    assert broken.status == "BREAKS the bound"  # one seed broke it: that is known whatever the crash


def test_one_seed_cannot_test_a_gain_and_says_so():
    """With `seeds: 1` the verdict printed `[+nan, +nan]`."""
    q = decided(cand("baseline", 0.5, [0.45], [0.02]), cand("#2", 0.3, [0.47], [0.03]))
    assert q.winner is None and "cannot be tested with one seed" in q.verdict and "nan" not in q.verdict, q.verdict


def test_a_worse_setting_is_called_worse_not_noise():
    """A candidate below the baseline in every seed (its whole interval under zero) read "does not hold across
    seeds", as if noise (audit 32 F9)."""
    q = decided(cand("baseline", 0.5, [0.45, 0.47, 0.46], [0.02] * 3), cand("#1", 1.0, [0.41, 0.44, 0.42], [0.01] * 3))
    assert q.gain is not None and q.gain[2] < 0 and q.winner is None, q.gain  # -0.04, -0.03, -0.04
    assert "learns more than #1" in q.verdict and "below zero" in q.verdict, q.verdict
    assert "does not hold" not in q.verdict


def test_a_searched_setting_that_crashed_leaves_the_decision_open_not_the_search_too_narrow():
    """The only setting that kept the bound crashed in the search: the decision said "no setting keeps the KL bound
    ... widen the quality search" and the run exited 0 (audit 32 F1). A rerun runs it again, so nothing is decided."""
    base = cand("baseline", 0.001, [0.56, 0.55], [0.07, 0.08])  # breaks the bound
    base.runs[1] = dataclasses.replace(base.runs[1], steps=14)  # a seed that broke the bound by step 14
    q = Quality(horizon=150, seeds=[1, 2], score_metric="critic/score/mean", score_last=20, kl_metric="actor/kl_loss",
                kl_window=10, kl_max=0.05, candidates=[base],
                not_measured=["#1 (crash: rank 0, step 15: InjectedFault)"])  # fmt: skip
    q.decide()
    assert q.winner is None and q.undecided and not q.exports_a_broken_bound, q.verdict
    assert "1 searched setting ended early without breaking a rule (#1 (crash: rank 0" in q.verdict, q.verdict
    assert "run the same command again" in q.verdict and "widen" not in "\n".join(q.lines())
    # a run that stopped before the horizon has no KL there: its last step's is said as such
    assert "at the horizon 0.070 0.080 (step 14)" in "\n".join(q.lines()), q.lines()
    q.not_measured = []  # the rerun measured it, and it broke the bound too: the search is what is too narrow
    q.decide()
    assert not q.undecided and q.exports_a_broken_bound and f"  {BROKEN_BOUND}" in q.lines()
    # an earlier version's file (no `not_measured`): its failed search run read as a final "widen the search", and
    # the export shipped the baseline's bound-breaking values (audit 33 F3); read now, it is undecided
    older = q.to_json()
    del older["not_measured"], older["failed_twice"]
    older["ladder"] = [{"number": 1, "outcome": "failed", "detail": "crash: killed by SIGKILL", "params": {}},
                       {"number": 2, "outcome": "failed", "detail": "invalid: kl_coef must be >= 0", "params": {}}]  # fmt: skip
    read = Quality.from_json(older)
    assert read.undecided and read.not_measured == ["#1 (crash: killed by SIGKILL)"], read.not_measured
    assert "nothing is decided" in read.verdict, read.verdict
    q.not_measured, q.failed_twice = [], ["#1 (as #4: crash: rank 0, step 15)"]  # or crashed again: decided, said
    q.decide()
    assert not q.undecided and "  failed twice, not run again: #1 (as #4: crash: rank 0, step 15)" in q.lines()
    assert Quality.from_json(q.to_json()).failed_twice == q.failed_twice


def test_a_run_whose_quality_stage_decided_nothing_exits_1(tmp_path, capsys):
    """It exited 0 beside "nothing is decided; run the same command again", so `autotune run ... && autotune
    export ...` went on to export the baseline's algorithm values (audit 32 F1)."""
    import typer

    from autotune.cli.run import _exit_if_undecided

    paths = StudyPaths(tmp_path, "s")
    paths.root.mkdir()
    q = decided(cand("baseline", 0.001, [0.56, 0.55, 0.57], [0.21, 0.19, 0.23]))
    q.write(paths)
    _exit_if_undecided(paths)  # decided: nothing keeps the bound, the search done
    q.not_measured = ["#1 (crash: rank 0, step 15)"]
    q.decide()
    q.write(paths)
    with pytest.raises(typer.Exit) as ended:
        _exit_if_undecided(paths)
    assert ended.value.exit_code == 1
    assert "the quality stage decided nothing" in " ".join(capsys.readouterr().err.split())
