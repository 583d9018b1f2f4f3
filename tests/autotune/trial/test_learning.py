"""Learning curves judged as the quality stage judges them: moving means, the tail score, the KL bound."""

from __future__ import annotations

import math

import pytest

from autotune.space.quality_section import QualitySettings
from autotune.trial.learning import Curve, CurveWatch, moving_means, summarize, tail

Q = QualitySettings(steps=8, min_steps=2, reduction_factor=2, score_last=3, kl_window=2, kl_max=0.05, min_entropy=0.5)


def rows(scores, kls, entropies=None):
    entropies = entropies or [1.0] * len(scores)
    return [
        {"step": i + 1, "metrics": {"critic/score/mean": s, "actor/kl_loss": k, "actor/entropy": e}}
        for i, (s, k, e) in enumerate(zip(scores, kls, entropies, strict=True))
    ]


def test_moving_means_cover_the_steps_there_are_at_the_start():
    assert moving_means([1.0, 3.0, 5.0, 7.0], 2) == [1.0, 2.0, 4.0, 6.0]
    assert moving_means([2.0, 4.0, 6.0], 5) == [2.0, 3.0, 4.0]


def test_the_tail_score_is_the_mean_of_the_last_steps_with_its_standard_error():
    mean, se = tail([0.0, 0.0, 1.0, 2.0, 3.0], 3)
    assert mean == 2.0
    assert se == pytest.approx(1.0 / math.sqrt(3))  # stdev of 1, 2, 3 is 1


def test_a_run_keeps_the_bound_when_every_moving_mean_stays_under_it():
    # 2-step means of the KL: .01 .02 .04 .05 .05 .04 .045 .05 -> never above 0.05
    s = summarize(Curve.of(rows([0.1] * 8, [0.01, 0.03, 0.05, 0.05, 0.05, 0.03, 0.06, 0.04]), Q), Q)
    assert s.broke is None and s.keeps(Q)
    assert s.kl_peak == pytest.approx(0.05) and s.kl_last == pytest.approx(0.05)
    assert s.score == pytest.approx(0.1) and s.steps == 8


def test_one_high_step_does_not_break_the_bound_but_two_do():
    one = summarize(Curve.of(rows([0.1] * 4, [0.0, 0.09, 0.0, 0.0]), Q), Q)  # means .0 .045 .045 .0
    two = summarize(Curve.of(rows([0.1] * 4, [0.0, 0.06, 0.06, 0.0]), Q), Q)  # means .0 .03 .06 .03
    assert one.broke is None
    assert two.broke == "kl_bound" and two.kl_peak == pytest.approx(0.06) and two.kl_peak_step == 3


def test_nan_and_entropy_collapse_break_a_run():
    assert summarize(Curve.of(rows([0.1, math.nan], [0.0, 0.0]), Q), Q).broke == "nan"
    collapsed = summarize(Curve.of(rows([0.1] * 3, [0.0] * 3, [1.0, 0.3, 0.3]), Q), Q)
    assert collapsed.broke == "entropy" and collapsed.entropy_low == pytest.approx(0.3)


def test_the_watch_stops_a_run_at_the_step_it_breaks_the_bound():
    watch = CurveWatch(Q)
    verdicts = [watch(r["step"], r["metrics"]) for r in rows([0.1] * 4, [0.0, 0.06, 0.06, 0.0])]
    assert verdicts[:2] == [None, None]
    assert verdicts[2] is not None and "KL bound broken at step 3" in verdicts[2] and "0.0600 > 0.05" in verdicts[2]
    assert watch.stopped == "kl_bound"


def test_a_search_run_stopped_by_the_margin_under_the_bound_says_so():
    """The search asks for kl_max × search_margin: its stop read "KL bound broken ... > 0.035" where the bound the
    page states and draws is 0.05 (audit 24 F4)."""
    import dataclasses

    margin = dataclasses.replace(Q, kl_max=Q.kl_max * 0.7)
    watch = CurveWatch(margin, bound=Q.kl_max)
    said = [watch(r["step"], r["metrics"]) for r in rows([0.1] * 4, [0.0, 0.04, 0.04, 0.0])][2]
    assert said == (
        "the search's KL margin crossed at step 3: 2-step mean actor/kl_loss 0.0400 > 0.035 "
        "(0.7 × the bound 0.05, search_margin)"
    ), said
    assert watch.stopped == "kl_bound"


def test_the_watch_asks_at_each_rung_and_stops_a_pruned_run_there():
    asked = []

    def at_rung(step, summary):
        asked.append((step, round(summary.score, 6)))
        return step == 4

    watch = CurveWatch(Q, at_rung=at_rung)
    verdicts = [watch(r["step"], r["metrics"]) for r in rows([0.1, 0.2, 0.3, 0.4, 0.5], [0.0] * 5)]
    assert Q.rungs() == [2, 4]
    assert asked == [(2, 0.15), (4, 0.3)]  # mean of the last 3 (or fewer) scores at each rung
    assert verdicts[3] is not None and verdicts[3].startswith("pruned at rung 4") and watch.stopped == "pruned"


def test_without_stopping_on_limits_only_nan_stops_a_run():
    watch = CurveWatch(Q, stop_on_limits=False)
    verdicts = [watch(r["step"], r["metrics"]) for r in rows([0.1, 0.1, math.nan], [0.5, 0.5, 0.5])]
    assert verdicts[:2] == [None, None] and verdicts[2] == "NaN at step 3"
