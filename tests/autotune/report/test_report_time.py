"""The report's share of the trials' time outside training steps, on crafted trials."""

from __future__ import annotations

import datetime
import math

import optuna
import pytest
from optuna.distributions import FloatDistribution
from optuna.trial import FrozenTrial, TrialState

from autotune.report.data import time_outside_steps


def _trial(start_s: float, end_s: float, train_s: float | None, pid: int | None = None, **attrs: object) -> FrozenTrial:
    t0 = datetime.datetime(2026, 11, 30, 12, 0, 0)
    attrs = {"outcome": "complete", **attrs} | ({"train_s": train_s} if train_s is not None else {})
    attrs |= {"worker": {"host": "h", "pid": pid}} if pid is not None else {}
    return FrozenTrial(
        number=0, state=TrialState.COMPLETE, value=1.0, values=None,
        datetime_start=t0 + datetime.timedelta(seconds=start_s), datetime_complete=t0 + datetime.timedelta(seconds=end_s),
        params={"x": 0.5}, distributions={"x": FloatDistribution(0, 1)}, user_attrs=attrs, system_attrs={},
        intermediate_values={}, trial_id=0,
    )  # fmt: skip


def test_the_share_outside_steps_is_over_the_span_from_the_first_start_to_the_last_end():
    study = optuna.create_study()
    assert all(math.isnan(v) for v in time_outside_steps(study))
    for trial in (_trial(0, 10, 6.0), _trial(12, 20, 6.0), _trial(21, 40, None)):  # a trial without train_s adds 0
        study.add_trial(trial)
    span, share = time_outside_steps(study)
    assert span == pytest.approx(40.0)
    assert share == pytest.approx(1 - 12.0 / 40.0)


def test_a_resumed_studys_share_leaves_out_the_pause_between_its_runs():
    """Two `autotune run`s an hour apart (each trial records its controller): each run's span, summed. Over
    the whole span, 3 600 s of pause made a 20 s run read as 99% outside training steps."""
    study = optuna.create_study()
    for trial in (_trial(0, 10, 6.0, pid=11), _trial(12, 20, 6.0, pid=11), _trial(3600, 3610, 8.0, pid=22)):
        study.add_trial(trial)
    span, share = time_outside_steps(study)
    assert span == pytest.approx(20.0 + 10.0)  # by hand: run 1 from 0 s to 20 s, run 2 from 3 600 s to 3 610 s
    assert share == pytest.approx(1 - 20.0 / 30.0)


def test_a_workers_share_is_of_its_own_trials_run_not_reused_nor_given_back():
    """Worker 11 ran trials from 0 to 20 s (6 s of steps each); worker 22 ran one beside it. Worker 11's third trial
    reused a result (its copied 9 s of steps ran nothing) and its fourth was given back. It read "14 s in training
    steps" of 10 s, "-43% outside them" (reused counted), and every worker counted the others' trials (audit 17 F7, F8)."""
    study = optuna.create_study()
    for trial in (
        _trial(0, 10, 6.0, pid=11),
        _trial(10, 20, 6.0, pid=11),
        _trial(20, 20.5, 9.0, pid=11, duplicate_of=5),
        _trial(20.5, 20.6, None, pid=11, outcome="skipped"),
        _trial(0, 30, 25.0, pid=22),
    ):
        study.add_trial(trial)
    span, share = time_outside_steps(study, worker=("h", 11))
    assert span == pytest.approx(20.5)  # by hand: from 0 s to the reused trial's end; the given-back one never ran
    assert share == pytest.approx(1 - 12.0 / 20.5)
    span, share = time_outside_steps(study)  # the report: every worker's span, summed
    assert span == pytest.approx(20.5 + 30.0) and share == pytest.approx(1 - 37.0 / 50.5)
    # the line `autotune run` ends with, for the worker it runs in (this process as worker 11)
    import os
    import socket

    from autotune.cli.run import _time_summary

    mine = optuna.create_study()
    for trial in study.trials:
        worker = trial.user_attrs["worker"]
        trial.user_attrs["worker"] = {"host": socket.gethostname(), "pid": os.getpid() if worker["pid"] == 11 else 1}
        mine.add_trial(trial)
    said = _time_summary(mine, datetime.datetime(2026, 11, 30, 12, 0, 0))
    assert said == "time: 2 sweep trials (and 1 reused, not run) in 20 s, 12 s in training steps: 41% outside them", (
        said
    )


def test_a_simulated_sweeps_report_reads_as_predictions(tmp_path):
    """A `--fidelity sim` study: no wall-time share or host RSS (no process ran; predicted step times against
    the trials' wall time read -708055%), every number labelled predicted, the configurations predicted to
    run out of memory counted, and the model's stated error shown."""
    from autotune.names import short_labels
    from autotune.report import write_report
    from autotune.report.data import failures, provenance, summary
    from autotune.sim.predict import predict_space
    from autotune.study.storage import load_study
    from tests.autotune.conftest import simulated_study

    space, paths = simulated_study(tmp_path / "runs", "simreport", 30)  # 14 complete: importances shown
    study = load_study(paths)
    s = summary(study, paths, space)
    assert s.predicted and math.isnan(s.outside_steps_share) and math.isnan(s.rss_ratio)
    ooms = sum(predict_space(space, t.params).prediction.oom is not None for t in study.trials)  # independently
    assert ooms > 0 and s.predicted_oom == ooms
    page = write_report(study, paths, space, tmp_path / "report").read_text()
    assert "speedup vs baseline (predicted)" in page and "as the cost model predicts them" in page
    assert f"{ooms} configurations (listed under Failures)" in page and "cost model&#x27;s error" in page
    assert "time outside training steps" not in page and "peak RSS vs baseline" not in page
    assert "Health checklist (on the cost model&#x27;s predictions; nothing measured)" in page or (
        "Health checklist (on the cost model's predictions; nothing measured)" in page
    )
    from autotune.report.data import trial_table

    columns = list(trial_table(study).columns)  # no wall or start-up time (every trial read 0 s), train time predicted
    assert "wall_s" not in columns and "startup_s" not in columns and "train_s (predicted)" in columns, columns
    assert "phases predicted by the cost model" in page
    # a prediction has no noise: grey importance bars lack trials, not repeatability; knobs the model does not
    # read are not called inert ("their values changed nothing": nothing was tried)
    assert "not distinguishable from noise" not in page and "their values changed nothing" not in page
    assert "no better than chance over these trials" in page and "(noise)" not in page
    assert "Knobs the sweep did not tune" in page and "not read by the cost model" in page
    # memory is what ships, predicted: the credit pass sent gpu_memory_utilization back to its baseline, and the
    # whole trial's 1.13x was of a vLLM share that is not shipped (best said 1.13x; what ships predicts 1.00x)
    from autotune.study.predicted_winner import PredictedWinner

    credited = PredictedWinner.read(paths)
    assert credited is not None
    shipped = predict_space(space, credited.shipped).prediction.memory.peak
    whole = predict_space(space, dict(study.trials[credited.winner].params)).prediction.memory.peak
    base_peak = predict_space(space).prediction.memory.peak
    assert s.memory_ratio == pytest.approx(shipped / base_peak, rel=1e-6) and shipped != whole, (shipped, whole)
    from autotune.export.winner import _whose
    from autotune.study.results import find_winner

    winner = find_winner(study, paths, space)  # its value is what ships, not trial #N's (it was labelled as #N's)
    dropped = sum(1 for c in credited.changes if not c.kept)  # 1 with rollout TP 8 offered, 3 without it
    assert dropped >= 1  # what this test is about: a value of what ships, not of trial #N
    changes = f"{dropped} change{'s' if dropped > 1 else ''}"
    assert winner.value == credited.shipped_value and winner.predicted_less.startswith(
        f"predicted for what ships: #{credited.winner} with {changes} the model credits under 1% put back"
    ), winner.predicted_less
    assert _whose(winner) == f" ({winner.predicted_less})"
    failed = failures(
        study
    )  # configs read as sampled: pandas made the integer choices 32.0 where some trials lack them
    trials = {t.number: t for t in study.trials}
    assert not failed.empty
    for _, row in failed.iterrows():
        shown = dict(item.split("=", 1) for item in row["config"].split(", "))
        labels = short_labels(trials[row["number"]].params)
        for key, value in trials[row["number"]].params.items():
            if value is not None:
                assert shown[labels[key]] == (f"{value:.4g}" if isinstance(value, float) else str(value)), row["config"]
    prov = provenance(study, space)  # no trial ran anywhere: the host computed predictions
    predicted = [t for t in study.get_trials() if t.user_attrs.get("duplicate_of") is None]  # a reused repeat: none
    assert "trials ran on" not in prov and prov["trials predicted on"].endswith(f"({len(predicted)} trials)"), prov
    assert prov["device"] == "cuda (simulated: nothing ran on it)", prov
    for knob in study.user_attrs.get("sim_unmodelled", []) or ["env.NCCL_ALGO"]:
        assert knob in page
    # the model's error per round of unseen runs, as a table: the tenth round (4 runs on A100s) among them
    assert "The cost model's error on published verl runs</h3>" in page and "+22% to +112%" in page
    assert "calibrated on the earlier runs first" in page and "15% (49 runs)" in page  # both directions of it
    # and what its predicted speed-ups were worth (benchmarks/sim_speedups.py), beside its error
    assert "cost model&#x27;s speed-ups" in page and "named the faster of two runs more than 10% apart" in page
    # the lengths it assumed, by hand: 1,024 prompts × n 1, the space's mean response 190 tokens; the longest of 1,024
    # geometric lengths is 190 · H_1024 = 1,427 tokens, past the 1,024-token limit
    assert 190 * sum(1 / k for k in range(1, 1025)) > 1024
    assumed = "mean response 190 (sim.response_tokens), the longest of 1,024 responses a step 1,024 (the length limit)"
    assert assumed in s.predicted_lengths and "response lengths the cost model assumed" in page
    assert "a guess: geometric lengths of the mean; set sim.response_max" in s.predicted_lengths


def test_a_limit_no_trial_was_held_to_is_not_judged_and_a_simulated_trial_says_why_it_has_no_kl():
    """On the 8-GPU verl space the comm-share limit is skipped on every trial (verl does not log it), yet the
    checklist judged the winner against it ("3.4% < 10% pass", a "fail" on the 64-GPU space); and a simulated
    trial said verl does not log the reward KL penalty, which it logs: the cost model does not predict it (audit 21
    F16)."""
    from autotune.adapters import get_adapter
    from autotune.report.health import health_checks
    from autotune.sim.predict import sim_fidelity
    from autotune.space.loader import load_space
    from autotune.trial.scoring import score

    space = load_space("fsdp3d-8gpu")
    (comm,) = [c for c in health_checks(space, 0.01, 0.15, 1.0, 0.3) if c.name == "comm share"]
    assert comm.passed is None and comm.rule.startswith("< 10%, not judged: not logged by the verl trainer"), comm
    simulated, _ = sim_fidelity(space).space_for(space, get_adapter(space.trainer, space.command))
    notes = score(simulated, [{"step": 1, "metrics": {"perf/throughput": 1.0}}], None, is_baseline=True).notes
    assert "`actor/reward_kl_penalty` is not predicted by the cost model: limit skipped" in notes, notes
    assert "`perf/comm_share` is not logged by the verl trainer: limit skipped" in notes, notes


def test_a_worker_whose_trials_all_reused_a_result_says_it_ran_none():
    """A second worker whose two trials repeated the baseline's configuration (their results reused, nothing run)
    ended with "time: 0 sweep trials (and 2 reused, not run) in 0 s, 0 s in training steps: 100% outside them"
    (audit 38 F13)."""
    import os
    import socket

    from autotune.cli.run import _time_summary

    me = {"host": socket.gethostname(), "pid": os.getpid()}
    mine = optuna.create_study()
    for start in (0.0, 0.3):
        mine.add_trial(_trial(start, start + 0.2, 9.0, duplicate_of=0, worker=me))
    said = _time_summary(mine, datetime.datetime(2026, 11, 30, 12, 0, 0))
    assert said == "time: no sweep trial ran in this worker (2 reused a finished trial's result)", said
