"""The progress line names each knob by a label that tells it apart from the other knobs shown."""

from __future__ import annotations

import math

from autotune.names import short_labels
from autotune.study.progress import short_params

ROLLOUT = "actor_rollout_ref.rollout.log_prob_micro_batch_size_per_gpu"
REF = "actor_rollout_ref.ref.log_prob_micro_batch_size_per_gpu"


def test_keys_that_share_a_last_part_keep_the_part_that_tells_them_apart():
    labels = short_labels([ROLLOUT, REF, "algorithm.kl_ctrl.kl_coef", "a.b.x", "c.b.x", "x"])
    assert labels == {
        ROLLOUT: "rollout.log_prob_micro_batch_size_per_gpu",
        REF: "ref.log_prob_micro_batch_size_per_gpu",
        "algorithm.kl_ctrl.kl_coef": "kl_coef",
        "a.b.x": "a.b.x",  # differ only in their first part
        "c.b.x": "c.b.x",
        "x": "x",
    }


def test_the_progress_line_shows_the_rollout_and_reference_micro_batches_apart():
    # the line a verl-cpu trial printed: `log_prob_micro_batch_size_per_gpu=2` twice, for two knobs
    line = short_params({ROLLOUT: 2, REF: 4, "actor_rollout_ref.actor.ppo_micro_batch_size_per_gpu": 8})
    assert line == (
        "rollout.log_prob_micro_batch_size_per_gpu=2 ref.log_prob_micro_batch_size_per_gpu=4 "
        "ppo_micro_batch_size_per_gpu=8"
    )


def test_a_quiet_sweep_prints_a_tally_every_20_trials_not_one_trial_s_outcome():
    """A simulated sweep prints one line per 20 trials; it printed the 20th trial's own outcome ('infeasible ...'),
    which read as if the sweep were infeasible. Now the tally: 20 = 12 complete + 5 failed (oom) + 2 infeasible + 1
    reused, the best 150 against the baseline's 100."""
    from pathlib import Path

    from rich.console import Console

    from autotune.study.progress import SweepProgress
    from autotune.trial.evaluation import Evaluation
    from autotune.trial.scoring import Score

    def ev(outcome: str, value: float, reason: str | None = None) -> Evaluation:
        return Evaluation(outcome, reason, reason or "", None, Path("."), Score([value], {}, {}, {}))  # type: ignore[arg-type]

    console = Console(record=True, width=200)
    progress = SweepProgress(40, "perf/throughput", console=console)
    progress.quiet = True
    trials = [ev("complete", 100.0)] + [ev("complete", 100.0 + i) for i in range(1, 12)]
    trials[5] = ev("complete", 150.0)
    trials += [ev("failed", math.nan, "oom")] * 5 + [ev("infeasible", 300.0, "limits")] * 2
    for done, e in enumerate(trials, 1):
        progress.finished(done, done - 1, e, 0.0, is_baseline=done == 1)
    assert console.export_text() == ""  # 19 trials: nothing yet
    progress.reused(20, 19, 3)
    text = console.export_text()
    assert (
        "20/40 trials (12 complete, 5 failed (oom), 2 infeasible, 1 reused): best perf/throughput=150 ×1.50 vs baseline"
        in text
    )
    assert "infeasible (" not in text


def test_a_ray_trials_line_gives_the_time_it_ran_not_the_time_it_waited_in_tunes_queue():
    """Tune starts a trial (Optuna's datetime_start) when it queues it: with --max-concurrent over what the cluster
    holds, a trial that ran 3.9 s read "in 13.0 s". The run's own wall time is shown (a reused copy's is not)."""
    import datetime
    import io

    import optuna
    from rich.console import Console

    from autotune.study.progress import SweepProgress

    start = datetime.datetime(2026, 12, 5, 12, 0, 0)
    attrs = {"outcome": "complete", "wall_s": 3.9}
    ran = optuna.trial.create_trial(values=[100.0], user_attrs=attrs)
    ran.datetime_start, ran.datetime_complete = start, start + datetime.timedelta(seconds=13)
    copy = optuna.trial.create_trial(values=[100.0], user_attrs={**attrs, "duplicate_of": 0})
    copy.datetime_start, copy.datetime_complete = start, start + datetime.timedelta(seconds=0.2)
    out = io.StringIO()
    progress = SweepProgress(5, "perf/throughput", True, Console(file=out, width=200))
    progress.finished_trial(ran, 1)
    progress.finished_trial(copy, 2)
    first, second = out.getvalue().splitlines()
    assert " in 3.9 s" in first and " in 0.2 s" in second, out.getvalue()


def test_a_line_s_best_is_never_below_the_baseline_it_compares_with():
    """A second worker whose snapshot missed the baseline another worker had just finished printed "×0.84 vs
    baseline ..., best 363.2", its own value, beside the baseline's 431.9 (audit 31 F8)."""
    from pathlib import Path

    from rich.console import Console

    from autotune.study.progress import SweepProgress
    from autotune.trial.evaluation import Evaluation
    from autotune.trial.scoring import Score

    console = Console(record=True, width=200)
    progress = SweepProgress(4, "perf/throughput", console=console)
    progress.baseline = 431.9  # as `know_baseline` sets it from another worker's finished baseline
    slower = Evaluation("complete", None, "", None, Path("."), Score([363.2], {}, {}, {}))  # type: ignore[arg-type]
    progress.finished(2, 1, slower, 7.2, is_baseline=False)
    assert "×0.84 vs baseline in 7.2 s, best 431.9 |" in console.export_text(), console.export_text()


def test_a_ray_trials_line_says_it_retries_an_interrupted_trial():
    """The local backend's line says "(a retry of interrupted trial #N)"; a Ray driver's said nothing (audit 33 F4)."""
    import optuna
    from rich.console import Console

    from autotune.study.progress import SweepProgress

    console = Console(record=True, width=200)
    progress = SweepProgress(4, "perf/throughput", console=console)
    trial = optuna.trial.create_trial(
        value=120.0, params={}, distributions={}, user_attrs={"outcome": "complete"}, system_attrs={"failed_trial": 2}
    )
    progress.finished_trial(trial, 3)
    assert ") (a retry of interrupted trial #2) : complete" in console.export_text(), console.export_text()


def test_a_resumed_sweep_with_more_trials_finished_than_it_asks_for_does_not_say_7_of_6():
    """A worker started with `--trials 6` beside one with `--trials 7` said "resuming: 7 of 6 trials finished"
    (audit 38 F13). Said as the quality stage says it: more than it asks for, nothing left to run."""
    import io

    import optuna
    from rich.console import Console

    from autotune.study.progress import SweepProgress

    study = optuna.create_study(direction="maximize")
    for value in range(100, 107):  # 7 finished trials, none the baseline
        study.add_trial(optuna.trial.create_trial(values=[float(value)], user_attrs={"outcome": "complete"}))
    out = io.StringIO()
    SweepProgress(6, "perf/throughput", True, Console(file=out, width=200)).resume_from(study)
    said = " ".join(out.getvalue().split())
    assert said == (
        "resuming: 7 trials finished (more than the 6 this run asks for), best perf/throughput=106; nothing left to "
        "run (a larger --trials runs more)"
    ), said
