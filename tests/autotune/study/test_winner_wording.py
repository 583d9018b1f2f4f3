"""What `best`, the export's header and the report say of a winner no confirmation measured, on studies made
through the same storage and outcome calls a sweep uses (no trainer runs: the outcomes are given)."""

from __future__ import annotations

import optuna

from autotune.space.loader import load_space
from autotune.study.results import ONLY_BASELINE, ONLY_BASELINE_PICKED, UNCONFIRMED, find_winner, why_unconfirmed
from autotune.study.storage import StudyInfo, StudyPaths, open_storage
from autotune.sweep.backends.lifecycle import tell_outcome
from autotune.trial.record import TrialRecord, baseline_attrs, predicted_attrs
from tests.autotune.conftest import write_space


def _study(tmp_path, outcomes: list[tuple[str, float]], picked: bool = False) -> tuple[optuna.Study, StudyPaths]:
    """A study whose trial 0 is the baseline, then one trial per (outcome, throughput); `picked`: each of those
    enqueued as `--fidelity sim,real` enqueues the cost model's picks."""
    space = load_space("fsdp3d", device="cpu")
    paths = StudyPaths(tmp_path / "runs", "w")
    paths.root.mkdir(parents=True)
    study = optuna.create_study(study_name="w", storage=open_storage(f"sqlite:///{paths.db}"), direction="maximize")
    StudyInfo(objectives=[["perf/throughput", "maximize", "median"]]).save(study, "objectives")
    for n, (outcome, value) in enumerate([("complete", 500.0), *outcomes]):
        trial = study.ask()
        attrs = baseline_attrs() if n == 0 else predicted_attrs(10 + n) if picked else {}
        for key, attr in attrs.items():
            trial.set_user_attr(key, attr)
        reason = {"infeasible": "limits", "failed": "oom"}.get(outcome)
        over = {"memory": 0.25, "perf/comm_share": -0.1} if outcome == "infeasible" else {}  # > 0: broken
        record = TrialRecord(outcome=outcome, reason=reason, key_metrics={"throughput": value}, violations=over)  # type: ignore[arg-type]
        tell_outcome(study, trial, space, record, [value])
    return study, paths


def test_a_baseline_that_won_because_nothing_else_kept_the_limits_is_not_called_unconfirmed_noise(tmp_path):
    """Every other trial broke a limit (or ran out of memory): confirmation had nothing to confirm. It said "no
    confirmation ran: --confirm 0, or the sweep was cut short ... its speedup may be the machine's noise" of the
    baseline's own 1x (audit 15 F2)."""
    space = load_space("fsdp3d", device="cpu")
    study, paths = _study(tmp_path, [("infeasible", 1000.0), ("infeasible", 1100.0), ("failed", 0.0), ("pruned", 9.0)])
    winner = find_winner(study, paths, space)
    assert winner.number == 0
    said = why_unconfirmed(study, winner, paths)
    assert said.startswith(
        "no trial besides the baseline finished inside the limits (1 failed, 2 infeasible, 1 pruned (stopped early: "
    ), said
    assert "the baseline's systems values ship; 2 broke the `memory` limit: loosen it in the space's `limits:`" in said
    assert f"`autotune trials w --runs-dir {tmp_path / 'runs'}` says how each ended" in said, said  # from anywhere
    assert "noise" not in said and "--confirm 0" not in said
    # swept with --storage: the command names it (pasted without it: "whose trials are in another storage", F9)
    paths.storage_file.write_text("postgresql://u:***@db/w\n")
    said = why_unconfirmed(study, winner, paths)
    assert f"`autotune trials w --runs-dir {tmp_path / 'runs'} --storage postgresql://u:***@db/w` says" in said, said
    paths.storage_file.unlink()
    with paths.finishing(print):  # a worker confirming: `best` meanwhile said "no confirmation ran" (audit 16 F5)
        said = why_unconfirmed(study, winner, paths)
    assert said.startswith("the stages after the sweep (confirmation first) are running in worker pid "), said
    assert why_unconfirmed(study, winner, paths).startswith("no trial besides the baseline")  # released


def test_a_winner_unconfirmed_while_the_quality_stage_runs_is_not_promised_a_confirmation(tmp_path):
    """`--confirm 0`, then the quality stage running: the export's header said "the stages after the sweep
    (confirmation first) are running" below "(the quality stage last) are running", promising a confirmation that
    never comes (audit 20 F6). Once the quality stage has runs, confirmation is over: the winner's own reason."""
    from autotune.study.results import unfinished_quality

    space = load_space("fsdp3d", device="cpu")
    study, paths = _study(tmp_path, [("complete", 1000.0)])
    winner = find_winner(study, paths, space)
    with paths.finishing(print):
        assert why_unconfirmed(study, winner, paths).startswith("the stages after the sweep (confirmation first)")
        (paths.root / "quality" / "search" / "0000").mkdir(parents=True)  # the quality stage's first run
        assert why_unconfirmed(study, winner, paths) == UNCONFIRMED
        assert "(the quality stage last) are running in worker pid " in str(unfinished_quality(paths, space))


def test_a_slower_feasible_trial_leaves_the_baseline_unconfirmed_and_a_lone_baseline_says_so(tmp_path):
    space = load_space("fsdp3d", device="cpu")
    study, paths = _study(tmp_path / "a", [("complete", 400.0), ("infeasible", 900.0)])
    assert why_unconfirmed(study, find_winner(study, paths, space), paths) == UNCONFIRMED  # --confirm 0, or cut short
    alone, alone_paths = _study(tmp_path / "b", [])
    assert why_unconfirmed(alone, find_winner(alone, alone_paths, space), alone_paths) == ONLY_BASELINE
    StudyInfo(sim_study="w-sim").save(alone, "sim_study")  # sim,real: the model picked nothing (audit 15 F6)
    said = why_unconfirmed(alone, find_winner(alone, alone_paths, space), alone_paths)
    assert said == ONLY_BASELINE_PICKED and "--trials" not in said and "--fidelity real" in said


def test_under_sim_real_picks_that_all_broke_a_limit_blame_the_model_and_name_its_fixes(tmp_path):
    """The shipped CPU space under `--fidelity sim,real` without a calibration: both picks (predicted for an H100)
    broke the CPU's memory limit, and the fix named was "loosen it ... or search other values", as if a search
    had run (stop 53, left open)."""
    space = load_space("fsdp3d", device="cpu")
    study, paths = _study(tmp_path / "a", [("infeasible", 1000.0), ("infeasible", 900.0)], picked=True)
    StudyInfo(sim_study="w-sim").save(study, "sim_study")
    said = why_unconfirmed(study, find_winner(study, paths, space), paths)
    assert "2 broke the `memory` limit" in said, said
    assert "each was a pick of the cost model (study `w-sim`), whose ranking did not carry over" in said, said
    assert "`--fidelity real`" in said and "`autotune calibrate STUDY`" in said and "`--calibration`" in said
    plain, plain_paths = _study(tmp_path / "b", [("infeasible", 1000.0)])  # a search's own trials: not the model
    assert "cost model" not in why_unconfirmed(plain, find_winner(plain, plain_paths, space), plain_paths)


def test_a_confirmation_or_quality_stage_cut_short_is_said_so_with_the_command_that_finishes_it(tmp_path):
    """A controller killed mid-confirmation left `best` saying "no confirmation ran: --confirm 0, or the sweep was
    cut short"; killed in the quality stage, `best` and the export listed the algorithm knobs as held by the
    throughput stage and said nothing of the stage; a `--stage quality` study cut short was told "a larger
    --trials ... runs the sweep on" (audit 18 F1-F3)."""
    from autotune.study.results import CONFIRMATION_CUT, unfinished_quality

    space = load_space("fsdp3d", device="cpu")
    assert space.quality is not None
    study, paths = _study(tmp_path / "a", [("complete", 1000.0)])
    winner = find_winner(study, paths, space)
    assert winner.number == 1 and why_unconfirmed(study, winner, paths) == UNCONFIRMED
    (paths.confirm_dir / "r1-t0001").mkdir(parents=True)  # a finished confirmation's runs (then deleted)
    assert why_unconfirmed(study, winner, paths) == UNCONFIRMED
    (paths.confirm_dir / "r1-t0000").mkdir(parents=True)  # round 1's baseline run kept, the candidate's cut
    (paths.confirm_dir / "r1-t0000" / "kept.json").write_text("{}")
    said = why_unconfirmed(study, winner, paths)
    assert said == CONFIRMATION_CUT and "the same `autotune run` command goes on from its finished rounds" in said
    assert "--confirm 0" not in said
    assert "has not run" in str(unfinished_quality(paths, space))  # no stage yet (e.g. --stage throughput)
    (paths.root / "quality" / "search" / "0000").mkdir(parents=True)
    assert "the quality stage did not finish (cut short?)" in str(unfinished_quality(paths, space))
    # the worker that said it may be a `--stage throughput` one, whose own command never runs the stage (a verify
    # pass of audit 38 F6): not "the same command"
    assert "`autotune run` without `--stage throughput` finishes it" in str(unfinished_quality(paths, space))
    with paths.finishing(print):  # a worker runs it now: not "cut short?", and who runs it (audit 19 C1)
        running = str(unfinished_quality(paths, space))
    assert "(the quality stage last) are running in worker pid " in running and "cut short" not in running, running
    small = load_space(str(write_space(tmp_path)))
    assert small.quality is None and unfinished_quality(paths, small) is None  # no stage to speak of
    alone, alone_paths = _study(tmp_path / "b", [])  # `--stage quality`: its baseline trial, then the stage, cut
    (alone_paths.root / "quality" / "search" / "0000").mkdir(parents=True)
    said = why_unconfirmed(alone, find_winner(alone, alone_paths, space), alone_paths)
    assert "the quality stage did not finish" in said and "--trials" not in said, said
    with alone_paths.finishing(print):  # running now: not "cut short?" beside "running in" (audit 34 F7)
        said = why_unconfirmed(alone, find_winner(alone, alone_paths, space), alone_paths)
    assert "the quality stage is running in worker pid " in said and "cut short" not in said, said


def test_a_simulated_change_predicted_slower_is_not_called_under_the_floor():
    """A change the model predicts at ×0.987 was dropped "under 1%", as if it gained a little (audit 21 F13)."""
    from autotune.study.predicted_winner import PredictedChange, PredictedWinner

    def change(knob: str, gain: float) -> PredictedChange:
        return PredictedChange(
            knob=knob, label=f"{knob}=x", params={knob: 1}, baseline={knob: 0}, gain=gain, kept=False
        )

    result = PredictedWinner(
        winner=3, changes=[change("a", 0.987), change("b", 1.004), change("c", 0.9996)], shipped={},
        baseline_value=100.0, winner_value=99.1, shipped_value=100.0,
    )  # fmt: skip
    lines = result.lines()
    assert "  dropped a=x: ×0.987 predicted, slower" in lines and "  dropped b=x: ×1.004 predicted, under 1%" in lines
    assert "  dropped c=x: ×1.000 predicted, under 1%" in lines, lines  # not "×1.000 ..., slower" (audit 28 F11)


def test_an_ablation_running_now_is_not_called_cut_short(tmp_path):
    """While a worker ablated the confirmed winner, `best` said "the ablation did not finish (cut short?): the same
    `autotune run` command finishes it", which starts a second controller on the study (audit 27 F1)."""
    from autotune.study.confirmation_result import ConfirmedCandidate
    from autotune.study.results import Winner, why_not_ablated

    _, paths = _study(tmp_path, [("complete", 1000.0)])
    confirmed = ConfirmedCandidate(number=1, params={}, values=[1.0, 1.0], feasible_rounds=2, rounds=2, mean=1.0)
    winner = Winner(1, {}, "confirmed", 1.0, 1.5, (1.4, 1.6), confirmed=confirmed)
    (paths.root / "ablation" / "r1-t0001").mkdir(parents=True)  # its first round's run
    assert "the ablation did not finish (cut short?)" in why_not_ablated(winner, paths)  # nobody runs it
    with paths.finishing(print):
        running = why_not_ablated(winner, paths)
    assert running.startswith("the stages after the sweep are running in worker pid ") and "cut short" not in running


def test_the_reports_summary_says_why_its_winner_is_unconfirmed_or_why_there_is_none(tmp_path):
    """The page headlined a sweep's single run as "winner #1 (sweep) 1.37×" with no word that nothing confirmed it
    (`--confirm 0`, or confirmation running), its minimal-winner section promised "the confirmed winner ships";
    a finished sweep without a feasible trial read "No feasible trial yet." and pointed at `autotune explain`
    (audit 27 F2, F3, F9). The page now says what `best` says."""
    import html

    from autotune.report import write_report
    from autotune.study.results import NoWinner

    space = load_space("fsdp3d", device="cpu")
    study, paths = _study(tmp_path / "a", [("complete", 1000.0)])
    page = write_report(study, paths, space, tmp_path / "ra").read_text()
    assert html.escape(UNCONFIRMED) in _section(page, "summary"), _section(page, "summary")  # not only in the YAML
    assert "the confirmed winner ships with every change" not in page
    assert f"Not measured: {html.escape(UNCONFIRMED)}." in page  # the minimal winner's section, the same reason
    with paths.finishing(print):  # a worker confirming now: the headline is the sweep's best single run so far
        page = write_report(study, paths, space, tmp_path / "rb").read_text()
    said = _section(page, "summary")
    assert "(confirmation first) are running in worker pid " in said and "best single run so far" in said, said

    # no feasible trial: the baseline broke a limit, so does every trial
    bad = load_space("fsdp3d", device="cpu")
    none_paths = StudyPaths(tmp_path / "c" / "runs", "w")
    none_paths.root.mkdir(parents=True)
    none = optuna.create_study(study_name="w", storage=open_storage(f"sqlite:///{none_paths.db}"), direction="maximize")
    StudyInfo(objectives=[["perf/throughput", "maximize", "median"]]).save(none, "objectives")
    for n in range(2):
        trial = none.ask()
        for key, attr in (baseline_attrs() if n == 0 else {}).items():
            trial.set_user_attr(key, attr)
        record = TrialRecord(outcome="infeasible", reason="limits", key_metrics={"throughput": 500.0},  # type: ignore[arg-type]
                             violations={"perf/comm_share": 0.3}, detail="outside limits: perf/comm_share 0.6 > max 0.3")  # fmt: skip
        tell_outcome(none, trial, bad, record, [500.0])
    try:
        find_winner(none, none_paths, bad)
        raise AssertionError("a study without a feasible trial has a winner")
    except NoWinner as exc:
        why = str(exc)
    page = write_report(none, none_paths, bad, tmp_path / "rc").read_text()
    assert "its baseline breaks a limit" in why and html.escape(why) in _section(page, "summary"), why
    assert "No feasible trial yet" not in page and "autotune explain w" not in page
    assert "No winner to explain" in page and "Not measured: no winner, so nothing to ablate" in page


def _section(page: str, name: str) -> str:
    """The HTML of the report's section `name` (the exported YAML's comments say some of the same)."""
    start = page.index(f'<section id="{name}">')
    return page[start : page.index("</section>", start)]


def test_the_limit_most_trials_broke_counts_measured_breaches_only(tmp_path):
    """ "3 broke the `memory` limit" of 2 infeasible trials, a crash (its unreported limits are stored as broken) and a
    repeat that ran nothing (audit 28 F6)."""
    from autotune.sweep.backends.lifecycle import tell_reused

    space = load_space("fsdp3d", device="cpu")
    study, paths = _study(tmp_path, [("infeasible", 1000.0), ("infeasible", 1100.0)])
    crash = study.ask()
    record = TrialRecord(outcome="failed", reason="crash", violations={"memory": 1.0, "perf/comm_share": 1.0})
    tell_outcome(study, crash, space, record, None)
    tell_reused(study, study.ask(), space, study.trials[1])
    said = why_unconfirmed(study, find_winner(study, paths, space), paths)
    assert "2 broke the `memory` limit" in said, said


def test_a_study_a_live_worker_still_runs_is_said_so_and_its_export_is_not_final(tmp_path, capsys):
    """Mid-sweep, `export` wrote the sweep's best single run (x2.14, later x1.51 shipped) with its overrides, exit 0,
    and `best` said "no confirmation ran: --confirm 0, the sweep was cut short, ..." and to run the `autotune run`
    that was running; a resumed study's readers showed the earlier decision as final while a worker re-decided it
    (audit 34 F1, F3, F5). A real process holds the study as an `autotune run` does; killed, it holds nothing."""
    import os
    import signal
    import socket
    import subprocess
    import sys

    import pytest
    import typer

    from autotune.cli.reading import export_winner, summary_fields
    from autotune.study.live import in_progress
    from autotune.study.storage import save_space

    space = load_space("fsdp3d", device="cpu")
    study, paths = _study(tmp_path, [("complete", 1000.0)])
    save_space(paths, space)
    plan = {"stage": "all", "trials": 8, "top_k": 2, "confirm": 2, "ablate": 2, "fidelity": "real"}
    worker = subprocess.Popen(
        [sys.executable, "-c", "import sys, time; from pathlib import Path; from autotune.study.storage import "
         "StudyPaths; from autotune.study.live import working\n"
         f"with working(StudyPaths(Path({str(paths.runs_dir)!r}), 'w'), {plan!r}):\n"
         "    print('in', flush=True); time.sleep(60)"],
        stdout=subprocess.PIPE, text=True,
    )  # fmt: skip
    try:
        assert worker.stdout is not None and worker.stdout.readline() == "in\n"
        running = f"study `w` is still running: worker pid {worker.pid} on {socket.gethostname()} sweeps it"
        assert in_progress(paths) == running
        from autotune.study.live import other_workers

        mine = {**plan, "stage": "throughput", "confirm": 1}  # an interrupted worker names who goes on, and its
        assert other_workers(paths, mine) == [  # flags where they differ (it went on with another plan, 38 F6)
            f"worker pid {worker.pid} on {socket.gethostname()} (started with --stage all --confirm 2)"]  # fmt: skip
        assert other_workers(paths, plan) == [f"worker pid {worker.pid} on {socket.gethostname()}"]
        said = why_unconfirmed(study, find_winner(study, paths, space), paths)
        assert said.startswith(f"the sweep is still running in worker pid {worker.pid}") and "--confirm 0" not in said
        from autotune.cli.reading import say_unfinished
        from autotune.trial.record import Worker

        running_trial = study.ask()  # its trial, not "still running, or interrupted; `autotune run` ..." (34 N2)
        TrialRecord(worker=Worker(host=socket.gethostname(), pid=worker.pid)).save(running_trial, ("worker",))
        capsys.readouterr()
        say_unfinished(study)
        said = " ".join(capsys.readouterr().err.split())
        assert f"running now: #{running_trial.number} (worker pid {worker.pid})" in said and "interrupted" not in said
        out = tmp_path / "mid.yaml"
        with pytest.raises(typer.Exit) as ended:
            export_winner(paths, None, out, check=False)
        assert ended.value.exit_code == 1 and out.read_text().startswith(f"# NOT FINAL: {running}; export again")
        assert not out.with_suffix(".overrides").exists()
        fields = summary_fields(study, paths, space)  # the wandb summary: not `ships` read as the decision
        assert fields["final"] is False and fields["not_final"] == f"{running}; export again when it finishes"
        assert fields["caveat"].startswith("the sweep is still running in worker pid"), fields  # as `best` says it
        from autotune.report import write_report

        page = write_report(study, paths, space, tmp_path / "r").read_text()  # the report's summary says it first
        assert f"{running}: what follows is the study as it stands now" in _section(page, "summary")
        assert f"# NOT FINAL: {running}; export again" in page  # the YAML its copy button copies (audit 34 N1)
        from autotune.study.live import closing_on_own_decision

        with closing_on_own_decision(plan):  # a worker that ran the stages itself closes on its own decision:
            assert in_progress(paths) is None  # another alive then with its flags only keeps it (its closing
            assert not why_unconfirmed(study, find_winner(study, paths, space), paths).startswith("the sweep is still")
        # export was NOT FINAL, exit 1); one started with another --top-k or a larger --trials decides again: both
        # closing exports were final, exit 0, shipping different values (audit 35 F1)
        with closing_on_own_decision({**plan, "trials": 4, "top_k": 1}):
            again = f"worker pid {worker.pid} on {socket.gethostname()} (started with --trials 8 --top-k 2)"
            assert in_progress(paths) == f"study `w` is still running: {again} may decide it again"
            with pytest.raises(typer.Exit) as ended:
                export_winner(paths, None, out, check=False)
            assert ended.value.exit_code == 1 and out.read_text().startswith("# NOT FINAL: study `w` is still running")
    finally:
        os.kill(worker.pid, signal.SIGKILL)
        worker.wait()
    assert in_progress(paths) is None  # its file is left behind, unlocked; the next worker removes it
    from autotune.study.live import working

    with working(paths):
        assert [f.name for f in (paths.root / ".workers").iterdir()] == [f"{socket.gethostname()}-{os.getpid()}"]
        assert (
            in_progress(paths)
            == f"study `w` is still running: worker pid {os.getpid()} on {socket.gethostname()} sweeps it"
        )
    assert not any((paths.root / ".workers").iterdir())
    export_winner(paths, None, tmp_path / "after.yaml", check=False)
    assert "NOT FINAL" not in (tmp_path / "after.yaml").read_text() and (tmp_path / "after.overrides").exists()
    assert summary_fields(study, paths, space)["final"] is True


def test_a_running_ablation_of_a_resumed_study_is_not_called_cut_short_beside_the_earlier_quality_runs(tmp_path):
    """A resumed study keeps its earlier run's `quality/` folder: a worker ablating the new winner was read as being
    in the quality stage, so `best` said "the ablation did not finish (cut short?)" of the ablation it ran (audit 34
    F5). The worker names its stage (`set_stage`)."""
    from autotune.study.confirmation_result import ConfirmedCandidate
    from autotune.study.live import ABLATION, QUALITY, set_stage
    from autotune.study.results import Winner, why_not_ablated

    _, paths = _study(tmp_path, [("complete", 1000.0)])
    confirmed = ConfirmedCandidate(number=1, params={}, values=[1.0, 1.0], feasible_rounds=2, rounds=2, mean=1.0)
    winner = Winner(1, {}, "confirmed", 1.0, 1.5, (1.4, 1.6), confirmed=confirmed)
    (paths.root / "ablation" / "r1-t0001").mkdir(parents=True)
    (paths.root / "quality" / "search" / "0000").mkdir(parents=True)  # the earlier run's quality stage
    with paths.finishing(print):
        set_stage(paths, ABLATION)
        running = why_not_ablated(winner, paths)
        set_stage(paths, QUALITY)  # in the quality stage, the ablation is over: its own reason
        over = why_not_ablated(winner, paths)
    assert running.startswith("the stages after the sweep are running in worker pid ") and "cut short" not in running
    assert "cut short" in over
    from autotune.study.live import CONFIRMATION
    from autotune.study.results import unfinished_quality

    space = load_space("fsdp3d", device="cpu")
    (paths.root / "quality").rename(paths.root / "quality-earlier")
    with paths.finishing(print):  # a `--stage throughput` worker confirming: no quality stage promised (34 F8)
        set_stage(paths, CONFIRMATION)
        said = str(unfinished_quality(paths, space))
    assert " runs confirmation (a stage after the sweep)" in said and "quality stage last" not in said, said


def test_a_confirmation_the_sweep_went_on_past_is_not_final_and_one_still_of_its_best_trials_is(tmp_path, capsys):
    """A `--confirm 0 --trials 16` worker swept on after another's confirmation of the first trials: `best` and the
    export (exit 0) shipped "trial #6 (confirmed)" beside a later, faster trial #11 it never ran (audit 35 F2)."""
    import pytest
    import typer

    from autotune.cli.reading import export_winner
    from autotune.study.confirmation_result import Confirmation, ConfirmedCandidate
    from autotune.study.storage import save_space
    from autotune.sweep.backends.lifecycle import tell_outcome as tell

    space = load_space("fsdp3d", device="cpu")
    study, paths = _study(tmp_path, [("complete", 600.0), ("complete", 650.0), ("complete", 550.0)])
    save_space(paths, space)

    def row(number: int, mean: float, baseline: bool = False) -> ConfirmedCandidate:
        return ConfirmedCandidate(number=number, params={}, values=[mean, mean], feasible_rounds=2, rounds=2,
                                  mean=mean, is_baseline=baseline, speedup_geomean=mean / 500)  # fmt: skip

    Confirmation.decide([row(0, 500.0, True), row(1, 610.0), row(2, 640.0)], 0, True).write(paths)
    assert find_winner(study, paths, space).behind is None  # of the sweep's top 2: #2 and #1
    export_winner(paths, None, tmp_path / "then.yaml", check=False)
    assert "NOT FINAL" not in (tmp_path / "then.yaml").read_text()

    later = study.ask()  # slower than both confirmed: the confirmation is still of the top 2
    tell(study, later, space, TrialRecord(outcome="complete", key_metrics={"throughput": 580.0}), [580.0])
    assert find_winner(study, paths, space).behind is None
    faster = study.ask()
    tell(study, faster, space, TrialRecord(outcome="complete", key_metrics={"throughput": 700.0}), [700.0])
    winner = find_winner(study, paths, space)
    assert winner.number == 2 and winner.behind == (
        "the sweep went on after its confirmation (of #1, #2): #5 (700 in its one run) now ranks among its top 2, "
        "unconfirmed; `autotune run` of the study with confirmation on confirms again"
    )
    with pytest.raises(typer.Exit) as ended:
        export_winner(paths, None, tmp_path / "now.yaml", check=False)
    assert ended.value.exit_code == 1
    assert (tmp_path / "now.yaml").read_text().startswith(f"# NOT FINAL: {winner.behind}")
    # the report's summary and the notebook's (`open_study(...).summary()`) said nothing of #5 (audit 38 F2)
    from autotune import open_study
    from autotune.report.data import summary

    said = (
        "NOT FINAL: the sweep went on after its confirmation (of #1, #2): #5 (700 in its one run) now ranks among "
        "its top 2, unconfirmed"
    )
    assert said in summary(study, paths, space).caveat
    assert said in open_study("w", runs_dir=tmp_path / "runs").summary().caveat
    from autotune.cli.reading import print_best

    capsys.readouterr()
    print_best(paths, None, space)  # `best` says it once, first, as before
    out, err = capsys.readouterr()
    assert " ".join((out + err).split()).count("the sweep went on after its confirmation") == 1, out + err
