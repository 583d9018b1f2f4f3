"""The quality stage's pruner: Optuna's successive halving over steps, vetoed when the gap is within noise."""

from __future__ import annotations

from types import SimpleNamespace

import optuna
from optuna.trial import TrialState

from autotune.space.quality_section import QualitySettings
from autotune.sweep.quality_pruner import CurvePruner
from autotune.trial.record import QualityRecord

Q = QualitySettings(steps=60, min_steps=20, reduction_factor=3)


def study_with(scores_at_20):
    """Finished trials that reported `score` (with a standard error of 0.01) at the first rung."""
    study = optuna.create_study(direction="maximize", pruner=CurvePruner(Q))
    for score in scores_at_20:
        trial = study.ask()
        QualityRecord(se={"20": 0.01}).save(trial, ("se",))
        trial.report(score, 20)
        trial.should_prune()  # as every stage run does at a rung: halving records its value there
        study.tell(trial, score)
    return study


def rung_verdict(study, score, se):
    trial = study.ask()
    QualityRecord(se={"20": se}).save(trial, ("se",))
    trial.report(score, 20)
    values = sorted([t.intermediate_values[20] for t in study.get_trials(deepcopy=False)], reverse=True)
    halving_alone = score < values[max(len(values) // 3 - 1, 0)]  # the top third goes on (computed by hand)
    verdict = (halving_alone, trial.should_prune())
    study.tell(trial, state=TrialState.PRUNED)
    return verdict


def test_a_run_far_below_the_cut_off_is_pruned_at_the_rung():
    study = study_with([0.50, 0.52, 0.55, 0.60, 0.58])
    # 6 runs at the rung, factor 3: the top 2 go on; the cut-off is the 2nd best, 0.58
    assert rung_verdict(study, 0.40, se=0.01) == (True, True)


def test_a_slow_starter_within_the_noise_of_the_cut_off_goes_on():
    study = study_with([0.50, 0.52, 0.55, 0.60, 0.58])
    # halving alone would stop it (0.57 < 0.58), but 0.57 + 1.28 × hypot(0.02, 0.01) = 0.599 > 0.58
    assert rung_verdict(study, 0.57, se=0.02) == (True, False)
    # the same gap with tight errors is real: 0.57 + 1.28 × hypot(0.001, 0.01) = 0.583 ... still above
    assert rung_verdict(study, 0.565, se=0.001) == (True, True)  # 0.565 + 0.0129 = 0.578 < 0.58


def test_a_run_above_the_cut_off_is_never_pruned():
    study = study_with([0.50, 0.52, 0.55])
    assert rung_verdict(study, 0.70, se=0.0)[1] is False


def test_the_sampler_learns_how_early_a_setting_broke_the_bound_not_by_how_little():
    from autotune.sweep.quality import _kl_violation
    from autotune.trial.learning import CurveSummary

    q = QualitySettings(steps=150, kl_max=0.05)

    def summary(peak, step, broke):
        return CurveSummary(steps=step, score=0.4, score_se=0.01, kl_peak=peak, kl_peak_step=step, kl_last=peak,
                            entropy_low=1.0, broke=broke)  # fmt: skip

    early = _kl_violation(summary(0.0501, 9, "kl_bound"), q)
    late = _kl_violation(summary(0.0501, 146, "kl_bound"), q)
    assert early == (150 - 9 + 1) / 150 and late == (150 - 146 + 1) / 150 and early > late > 0
    assert abs(_kl_violation(summary(0.03, 150, None), q) - (0.03 - 0.05)) < 1e-12  # kept: its peak minus the bound


def test_the_polish_splits_the_segment_to_the_bound_in_each_params_own_scale():
    from autotune.space.schema import Param
    from autotune.sweep.quality import _between

    stage = SimpleNamespace(
        params=[
            Param("algorithm.kl_ctrl.kl_coef", "float", low=1e-4, high=1.0, log=True),
            Param("actor_rollout_ref.actor.clip_ratio_high", "float", low=0.2, high=0.3, step=0.02),
            Param("actor_rollout_ref.actor.ppo_epochs", "int", low=1, high=3),
            Param("algorithm.kl_ctrl.type", "categorical", choices=("fixed", "adaptive")),
        ]
    )

    a = {"algorithm.kl_ctrl.kl_coef": 0.5, "actor_rollout_ref.actor.clip_ratio_high": 0.2,
         "actor_rollout_ref.actor.ppo_epochs": 1, "algorithm.kl_ctrl.type": "fixed"}  # fmt: skip
    b = {"algorithm.kl_ctrl.kl_coef": 0.125, "actor_rollout_ref.actor.clip_ratio_high": 0.3,
         "actor_rollout_ref.actor.ppo_epochs": 3, "algorithm.kl_ctrl.type": "adaptive"}  # fmt: skip
    mid = _between(stage, a, b, 0.5)  # type: ignore[arg-type]
    assert abs(mid["algorithm.kl_ctrl.kl_coef"] - 0.25) < 1e-9  # the geometric midpoint of 0.5 and 0.125
    assert abs(mid["actor_rollout_ref.actor.clip_ratio_high"] - 0.24) < 1e-9  # 0.25 snapped to the 0.02 grid
    assert mid["actor_rollout_ref.actor.ppo_epochs"] == 2
    assert mid["algorithm.kl_ctrl.type"] == "fixed"  # a categorical keeps the feasible setting's value
    third = _between(stage, a, b, 1 / 3)  # type: ignore[arg-type]
    assert abs(third["algorithm.kl_ctrl.kl_coef"] - 0.5 * 0.25 ** (1 / 3)) < 1e-9
