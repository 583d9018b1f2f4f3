"""Sweeps with real trainer processes: outcomes, failure classification, export, tables."""

from __future__ import annotations

import json
import re
from pathlib import Path

import optuna
import pytest

from autotune.adapters import get_adapter
from autotune.space.loader import load_space
from autotune.study.storage import StudyNotFound, StudyPaths, load_study, storage_url
from autotune.sweep import equivalence as eq
from autotune.sweep.backends.base import BackendOptions
from autotune.sweep.backends.lifecycle import create_or_load
from autotune.sweep.backends.optuna_backend import OptunaBackend
from tests.autotune.conftest import autotune, wandb_summary, write_space

FAULTS = """\
  builtin.fault.kind: {type: categorical, choices: [none, oom, crash, nan]}
"""


def test_injected_failures_are_classified_and_the_sweep_goes_on(tmp_path):
    path = write_space(tmp_path, steps=3, extra_params=FAULTS, extra_baseline="  builtin.fault.kind: none\n")
    text = path.read_text().replace(
        "  builtin.warm_start.steps: 15\n", "  builtin.warm_start.steps: 15\n  builtin.fault.at_step: 2\n"
    )
    path.write_text(text)
    space = load_space(str(path))
    paths = StudyPaths(tmp_path / "runs", "small")
    url = storage_url(paths, None)
    study = create_or_load(space, paths, url)
    for kind in ("oom", "crash", "nan"):  # a hang is in the backend contract tests
        study.enqueue_trial({**space.baseline, "builtin.fault.kind": kind})
    OptunaBackend(BackendOptions(space, get_adapter("builtin"), paths, url, n_trials=4)).run()
    trials = load_study(paths).get_trials()
    by_kind = {t.params["builtin.fault.kind"]: t for t in trials}
    assert by_kind["none"].user_attrs["outcome"] == "complete" and by_kind["none"].user_attrs["baseline"]
    for kind, reason in (("oom", "oom"), ("crash", "crash"), ("nan", "nan")):
        attrs = by_kind[kind].user_attrs
        assert (attrs["outcome"], attrs["reason"]) == ("failed", reason), (kind, attrs)
        trial_dir = Path(attrs["dir"])
        for name in ("config.yaml", "env", "metrics.jsonl", "stdout.log", "stderr.log", "outcome.json", "command"):
            assert (trial_dir / name).exists(), (kind, name)
    # out-of-memory and NaN feed back as infeasible (COMPLETE + violated constraint), crash/hang as FAIL
    assert by_kind["oom"].state == optuna.trial.TrialState.COMPLETE
    assert by_kind["oom"].system_attrs["constraints:run_failed"] == 1.0
    assert by_kind["nan"].state == optuna.trial.TrialState.COMPLETE
    assert by_kind["crash"].state == optuna.trial.TrialState.FAIL


def test_small_sweep_runs_baseline_first_and_confirms(small_study):
    runs, _, proc = small_study
    study = load_study(StudyPaths(runs, "small"))
    trials = [t for t in study.get_trials() if t.user_attrs.get("outcome")]
    assert len(trials) == 4
    assert trials[0].number == 0 and trials[0].user_attrs["baseline"]
    assert "trial 1/4 (#0) (baseline)" in proc.stdout
    confirmation = json.loads((runs / "small" / "confirmation.json").read_text())
    assert str(confirmation["baseline"]) in confirmation["candidates"]
    assert "winner:" in proc.stdout


def test_export_writes_verl_yaml_and_overrides_that_verl_accepts(small_study, tmp_path):
    runs, _, _ = small_study
    out = tmp_path / "best.yaml"
    proc = autotune("export", "small", "--runs-dir", str(runs), "-o", str(out), "--check")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "verl accepts it" in proc.stdout
    checked = eq.EquivalenceResult.load(runs / "small" / "equivalence.json")
    assert checked.ok and proc.stdout.count("equivalence check") == 1
    if checked.changes:  # the winner changed micro-batching: both ran and agreed
        assert checked.compared and "equivalence check passed" in proc.stdout
    text = out.read_text()
    assert "defaults:\n- ppo_trainer\n- _self_" in text
    assert "builtin" not in text.split("\n", 5)[-1]  # builtin-only keys are not exported
    overrides = (tmp_path / "best.overrides").read_text().split()
    assert "data.train_batch_size=8" in overrides
    assert any(o.startswith("algorithm.kl_ctrl.kl_coef=") for o in overrides)
    # the keys verl's config check needs, which no param sets, are named apart in the header, as `best` shows them
    from autotune.adapters.builtin_trainer import VERL_REQUIRED

    [line] = [line for line in text.splitlines() if line.startswith("# not searched: the value the trials ran with")]
    named = line.split("config check needs: ", 1)[1].split(", ")
    assert {item.split("=")[0] for item in named} <= set(VERL_REQUIRED), line
    assert any(item.startswith("critic.use_dynamic_bsz=") for item in named), line
    assert set(named) <= set(overrides), line  # as the overrides file writes them


def test_export_check_fails_on_a_key_verl_rejects():
    from autotune.adapters.verl_config import VerlRejected, compose

    try:
        compose(["actor_rollout_ref.actor.ppo_epoch=2"])
    except VerlRejected as exc:
        assert "Could not override 'actor_rollout_ref.actor.ppo_epoch'" in str(exc)
    else:
        raise AssertionError("verl accepted a misspelled key")


def test_trials_and_best_commands(small_study):
    runs, _, _ = small_study
    table = autotune("trials", "small", "--runs-dir", str(runs))
    assert table.returncode == 0, table.stderr
    assert "0 base " in table.stdout and "complete" in table.stdout
    best = autotune("best", "small", "--runs-dir", str(runs))
    assert best.returncode == 0 and "winner: trial #" in best.stdout
    # the keys verl's config check needs, which no param sets, are shown apart from the tuned ones
    from autotune.adapters.builtin_trainer import VERL_REQUIRED

    filled = [
        line.split(" = ")[0].strip()
        for line in best.stdout.splitlines()
        if "not searched: the value the trials ran with" in line
    ]
    assert filled and set(filled) <= set(VERL_REQUIRED), best.stdout
    assert "critic.use_dynamic_bsz" in filled  # never a param of this space


def test_resuming_a_finished_sweep_runs_nothing_more(small_study):
    runs, space, _ = small_study
    proc = autotune("run", "--space", str(space), "--runs-dir", str(runs), "--confirm", "0")
    assert proc.returncode == 0, proc.stderr
    assert "trial " not in proc.stdout.split("\n", 1)[1].split("winner")[0]
    assert "resuming: 4 of 4 trials finished, best " in proc.stdout and "; nothing left to run" in proc.stdout
    assert len([t for t in load_study(StudyPaths(runs, "small")).get_trials() if t.user_attrs.get("outcome")]) == 4


def test_running_a_finished_sweep_again_keeps_its_confirmation_and_equivalence_check(small_study, tmp_path):
    """The same command again (the same candidates and rounds) re-measures nothing: on a GPU each is minutes."""
    import shutil

    runs, space, _ = small_study
    copy = tmp_path / "runs"
    shutil.copytree(runs, copy)
    confirmed = (copy / "small" / "confirmation.json").read_text()
    proc = autotune("run", "--space", str(space), "--runs-dir", str(copy), "--report-dir", str(tmp_path / "report"))
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    assert (
        "confirmation measured already (an earlier run, or the worker this one waited for), kept: the same 3 candidates, 1 round"
        in proc.stdout
    ), proc.stdout
    assert "equivalence check run already, kept" in proc.stdout
    assert " started" not in proc.stdout  # no trial, round or check ran
    assert (copy / "small" / "confirmation.json").read_text() == confirmed


def test_a_study_in_another_storage_is_named_when_read_without_it(tmp_path):
    """A study swept with --storage has its folder under runs/ but its trials elsewhere: `best` without --storage said
    "no studies there" beside runs/<study>/; it names the storage the sweep used (password masked), for the CLI and
    for Python."""
    space = write_space(tmp_path, steps=3)
    runs, url = tmp_path / "runs", f"sqlite:///{tmp_path / 'shared.db'}"
    swept = autotune("run", "--space", str(space), "--runs-dir", str(runs), "--storage", url, "--trials", "1",
                     "--confirm", "0", "--report-dir", str(tmp_path / "report"))  # fmt: skip
    assert swept.returncode == 0, swept.stdout[-2000:] + swept.stderr[-2000:]
    said = f"{runs.resolve()}/small/ holds study `small`, whose trials are in another storage: add --storage {url}"
    best = autotune("best", "small", "--runs-dir", str(runs))
    assert best.returncode == 2 and said in best.stderr, best.stderr
    assert autotune("best", "small", "--runs-dir", str(runs), "--storage", url).returncode == 0
    import autotune as api

    with pytest.raises(StudyNotFound, match=re.escape(said) + r".*in the Python API, storage= and runs_dir=\)"):
        api.open_study("small", runs_dir=runs)


def test_unknown_study_and_bad_flags_are_clear_errors(tmp_path):
    missing = autotune("trials", "nope", "--runs-dir", str(tmp_path))
    assert (
        missing.returncode == 2 and f"no study `nope` under {tmp_path.resolve()}/ (no studies there;" in missing.stderr
    )
    for name in ("small", "other"):  # a typo among studies: the closest named, all listed
        (tmp_path / name).mkdir()
        (tmp_path / name / "study.db").touch()
    typo = autotune("best", "smal", "--runs-dir", str(tmp_path))
    assert typo.returncode == 2 and "(did you mean `small`? studies there: other, small;" in typo.stderr, typo.stderr
    flag = autotune("run", "--space", "fsdp3d", "--trails", "3")
    assert flag.returncode == 2 and "No such option" in flag.stderr
    for command in ("run", "validate", "trials", "best", "export"):
        helped = autotune(command, "--help")
        assert helped.returncode == 0 and "Usage" in helped.stdout


def test_a_winner_no_confirmation_measured_says_so_in_best_and_the_export(small_study, tmp_path):
    """With --confirm 0 the winner is one 12-step run against another: `best` and the export's header said
    "1.48x the baseline" and nothing else, where a simulated winner is refused without --predicted."""
    import shutil

    runs, _, _ = small_study
    copy = tmp_path / "runs"
    shutil.copytree(runs, copy)
    (copy / "small" / "confirmation.json").unlink()  # what --confirm 0 leaves: no confirmation, no check
    (copy / "small" / "equivalence.json").unlink()
    best = autotune("best", "small", "--runs-dir", str(copy))
    assert best.returncode == 0 and "(sweep," in best.stdout, best.stdout + best.stderr
    said = " ".join(best.stderr.split())
    assert "not confirmed (no confirmation ran: --confirm 0, the sweep was cut short, or another worker" in said, said
    out = tmp_path / "best.yaml"
    assert autotune("export", "small", "--runs-dir", str(copy), "-o", str(out)).returncode == 0
    assert "# not confirmed (no confirmation ran" in out.read_text()
    assert "no equivalence check (`export --check` runs it)" in out.read_text()
    # after `export --check` the header says what it found, no longer that no equivalence check ran
    checked = autotune("export", "small", "--runs-dir", str(copy), "-o", str(out), "--check")
    assert checked.returncode == 0, checked.stdout + checked.stderr
    header = [line for line in out.read_text().splitlines() if line.startswith("#")]
    assert "no equivalence check" not in "\n".join(header) and "; no ablation" in "\n".join(header), header
    assert header[-1].startswith("# export --check passed: verl accepts its ") and "equivalence check" in header[-1]
    confirmed = autotune("best", "small", "--runs-dir", str(runs))  # the confirmed study says none of it
    assert "not confirmed" not in confirmed.stdout + confirmed.stderr


def test_the_python_api_reads_the_winner_and_exports_it_as_the_cli_does(small_study, tmp_path):
    """A notebook user gets what `best` and `export` give (the API read only the trials before), and a wrong trial
    number is named with the range, not an IndexError (or, for -1, the last trial's steps)."""
    import autotune as api

    runs, _, _ = small_study
    view = api.open_study("small", runs_dir=runs)
    winner = view.winner()
    best = autotune("best", "small", "--runs-dir", str(runs))
    assert best.returncode == 0 and f"trial #{winner.number}" in best.stdout, best.stdout
    assert winner.speedup is not None and f"{winner.speedup:.2f}" in best.stdout, best.stdout
    # one confirmation round has no interval (it printed "[1.92, 1.92]")
    assert f"{winner.speedup:.2f}× the baseline (one round: no interval)" in best.stdout, best.stdout
    assert winner.ablation is None and "not ablated: every change of the winner ships" in best.stdout  # said
    (tmp_path / "cli").mkdir()
    (tmp_path / "api").mkdir()
    exported = autotune("export", "small", "--runs-dir", str(runs), "-o", str(tmp_path / "cli" / "best.yaml"))
    assert exported.returncode == 0, exported.stderr
    same, yaml_path, overrides = view.export(tmp_path / "api" / "best.yaml")
    assert same.number == winner.number and yaml_path.read_text() == (tmp_path / "cli" / "best.yaml").read_text()
    assert overrides.read_text() == (tmp_path / "cli" / "best.overrides").read_text()
    assert "x the baseline (one round: no interval)" in yaml_path.read_text()
    last = len(view.study.trials) - 1
    for wrong in (last + 1, -1, "2", True):
        with pytest.raises(ValueError, match=rf"study `small` has trials #0 to #{last}; got {re.escape(repr(wrong))}"):
            view.steps(wrong)  # type: ignore[arg-type]
    assert not view.steps(0).empty
    with pytest.raises(TypeError, match=r"runs_dir is the folder of the studies .* got int 5"):
        api.open_study("small", runs_dir=5)  # type: ignore[arg-type]


def test_a_sweep_stopped_by_its_timeout_says_so(tmp_path):
    """`--timeout` ended the search without a word: what followed read as a finished study of the whole budget."""
    space = write_space(tmp_path, steps=3)
    runs = tmp_path / "runs"
    proc = autotune("run", "--space", str(space), "--runs-dir", str(runs), "--trials", "3", "--timeout", "1",
                    "--confirm", "1", "--report-dir", str(tmp_path / "report"))  # fmt: skip
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-2000:]
    assert "--timeout reached: 1 of 3 trials finished; the same command without --timeout" in proc.stdout, proc.stdout
    assert (
        "confirmation skipped: it needs a finished baseline and at least one feasible trial besides it" in proc.stdout
    )


def test_explain_on_a_study_whose_winner_is_the_baseline_has_nothing_to_explain(tmp_path):
    """It printed an empty path, advised `--confirm 2` (which changes nothing) and wrote explain.json."""
    space = write_space(tmp_path, steps=3)
    runs = tmp_path / "runs"
    swept = autotune("run", "--space", str(space), "--runs-dir", str(runs), "--trials", "1", "--confirm", "0",
                     "--report-dir", str(tmp_path / "report"))  # fmt: skip
    assert swept.returncode == 0, swept.stdout[-2000:] + swept.stderr[-2000:]
    proc = autotune("explain", "small", "--runs-dir", str(runs))
    assert proc.returncode == 1 and "nothing to explain (the winner is the baseline); run more trials" in proc.stderr
    assert not (runs / "small" / "explain.json").exists() and "--confirm 2" not in proc.stdout + proc.stderr


def test_a_baseline_that_breaks_a_limit_is_named_as_why_there_is_no_winner(tmp_path):
    """`best` said "no feasible trial yet", as if more trials would help: the baseline broke the limit itself."""
    space = write_space(tmp_path, steps=3)
    space.write_text(space.read_text().replace("reducer: last, max: 5.0", "reducer: last, max: -100.0"))
    runs = tmp_path / "runs"
    swept = autotune("run", "--space", str(space), "--runs-dir", str(runs), "--trials", "1", "--confirm", "0",
                     "--report-dir", str(tmp_path / "report"))  # fmt: skip
    # run says it and exits 1 as best does: `run ... && export ...` went on after it (audit 25 F4)
    assert swept.returncode == 1, swept.stdout[-2000:] + swept.stderr[-2000:]
    assert "has no feasible trial (its baseline breaks a limit: " in swept.stderr, swept.stderr
    assert "report: " in swept.stdout  # written all the same: it shows why
    best = autotune("best", "small", "--runs-dir", str(runs))
    assert best.returncode == 1 and "has no feasible trial (its baseline breaks a limit: " in best.stderr, best.stderr
    assert "actor/kl_loss" in best.stderr and "check the space's limits" in best.stderr


def test_explain_with_other_options_measures_again_and_reuses_the_rounds_it_kept(small_study, tmp_path):
    """`explain --repeats 2` after a 1-round explain measured nothing (the options typed were never seen: typer's
    own click copy) and showed the old path; now it measures, keeping round 1's runs (as after a Ctrl-C)."""
    import shutil

    runs, _, _ = small_study
    copy = tmp_path / "runs"
    shutil.copytree(runs, copy)
    first = autotune("explain", "small", "--runs-dir", str(copy), "--repeats", "1", "--max-rounds", "1")
    assert first.returncode == 0, first.stdout[-3000:] + first.stderr[-3000:]
    path = copy / "small" / "explain" / "path"
    stamps = {p: (p / "metrics.jsonl").stat().st_mtime_ns for p in path.glob("r1-*")}
    assert stamps and all((p / "kept.json").is_file() for p in stamps)
    more = autotune("explain", "small", "--runs-dir", str(copy), "--repeats", "2", "--max-rounds", "1")
    assert more.returncode == 0, more.stdout[-3000:] + more.stderr[-3000:]
    assert "measured earlier" not in more.stdout and "round 1/2: kept from an earlier run" in more.stdout
    assert {p: (p / "metrics.jsonl").stat().st_mtime_ns for p in stamps} == stamps
    assert json.loads((copy / "small" / "explain.json").read_text())["repeats"] == 2
    bare = autotune("explain", "small", "--runs-dir", str(copy))
    assert "measured earlier with --repeats 2 --select-repeats 1, --max-rounds 1" in bare.stdout, bare.stdout


def test_a_confirmation_cut_short_goes_on_from_its_finished_rounds(small_study, tmp_path):
    """Ctrl-C in confirmation's second round, then the same command: round 1 is read back (on a GPU each round is
    minutes), round 2 runs, and once it is written nothing is kept for a later re-confirmation."""
    import shutil
    import signal
    import socket
    import subprocess
    import sys
    import time

    from tests.conftest import ROOT, trainer_env

    runs, space, _ = small_study
    copy = tmp_path / "runs"
    shutil.copytree(runs, copy)
    confirm_dir = copy / "small" / "confirm"
    host = socket.gethostname()
    args = ["run", "--space", str(space), "--runs-dir", str(copy), "--confirm", "2", "--ablate", "0",
            "--report-dir", str(tmp_path / "report")]  # fmt: skip
    asked = [*args[:-3], "2", *args[-2:]]  # --ablate 2: the interrupted run asked for an ablation
    assert asked[asked.index("--ablate") + 1] == "2"
    proc = subprocess.Popen(
        [sys.executable, "-m", "autotune.cli", *asked],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=trainer_env(), cwd=ROOT,
    )  # fmt: skip
    assert proc.stdout is not None
    seen = []
    deadline = time.monotonic() + 180
    for line in proc.stdout:  # the line is printed as round 2's first run starts
        seen.append(line)
        if "confirm round 2/2" in line or time.monotonic() > deadline:
            break
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=120)
    assert proc.returncode == 130, "".join(seen) + out + err
    assert "finished rounds of confirmation" in err
    kept = sorted(p.parent.name for p in confirm_dir.glob("*/kept.json"))
    assert kept and all(name.startswith("r1-") for name in kept), kept
    # before the rerun `best` says confirmation was cut short and how to finish it, not "no confirmation ran:
    # --confirm 0" (audit 18 F1); the asked ablation is on record for it (F5)
    between = autotune("best", "small", "--runs-dir", str(copy))  # the earlier 1-round confirmation's winner
    said = " ".join(between.stdout.split())
    assert "(a new confirmation did not finish (cut short?): the same `autotune run` command finishes it" in said, said
    assert "its confirmation ran 1 round" not in said
    assert (copy / "small" / "ablation" / "requested").read_text() == f"--ablate 2\nworker pid {proc.pid} on {host}\n"
    stamps = {p: p.stat().st_mtime_ns for p in confirm_dir.glob("r1-*/metrics.jsonl")}
    again = autotune(*args)
    assert again.returncode == 0, again.stdout[-3000:] + again.stderr[-3000:]
    assert f"confirm round 1/2: kept from an earlier run ({confirm_dir})" in again.stdout, again.stdout
    assert {p: p.stat().st_mtime_ns for p in stamps} == stamps and len(stamps) == len(kept)
    confirmation = json.loads((copy / "small" / "confirmation.json").read_text())
    assert all(len(c["values"]) == 2 for c in confirmation["candidates"].values())
    assert not list(confirm_dir.rglob("kept.json"))  # a finished confirmation's rounds are not reused
    asked = (copy / "small" / "ablation" / "requested").read_text()
    assert asked.startswith("--ablate 0\nworker pid "), asked  # this run asked for none
    if confirmation["winner"] != confirmation["baseline"]:  # the reason that held (both were said, as advice)
        said = "not ablated: every change of the winner ships, none measured alone (the ablation was off in worker pid "
        assert said in again.stdout and "which confirmed it: `--ablate 0`" in again.stdout, again.stdout[-3000:]


def test_a_study_of_its_baseline_alone_says_so_and_names_no_quality_stage(tmp_path):
    """`--trials 1` without a quality stage: `best` said the throughput stage ran only its baseline "(the systems
    values the quality stage used)" and advised `--stage throughput`, which runs nothing more (audit 13 F7); the
    report's minimal winner said the confirmed winner ships with every change it made."""
    from autotune.study.results import ONLY_BASELINE

    space, runs = write_space(tmp_path, steps=3), tmp_path / "runs"
    ran = autotune("run", "--space", str(space), "--runs-dir", str(runs), "--trials", "1", "--confirm", "0",
                   "--report-dir", str(tmp_path / "report"))  # fmt: skip
    assert ran.returncode == 0, ran.stdout[-2000:] + ran.stderr[-2000:]
    best = autotune("best", "small", "--runs-dir", str(runs))
    said = " ".join(best.stderr.split())
    assert ONLY_BASELINE in said and "quality stage" not in said, said
    assert said.count("only the baseline") == 1, said  # said once, not again as "only the baseline has finished"
    page = (tmp_path / "report" / "index.html").read_text()
    assert "Nothing to ablate: the winner is the baseline trial: only the baseline ran" in page
    explained = autotune("explain", "small", "--runs-dir", str(runs))
    assert explained.returncode == 1 and "nothing to explain (the winner is the baseline)" in explained.stderr


def test_a_failed_equivalence_check_keeps_the_winner_from_shipping_everywhere(small_study, tmp_path):
    """`run` printed "equivalence check FAILED" and went on: exit 0, `run --export` and a plain export wrote a
    shippable YAML and overrides, and `best` and the report never said it (audit 26 F1). The failed result here is
    a real one: the check run on a change that moves the math (two PPO epochs), kept for the study's winner."""
    import dataclasses
    import shutil

    from autotune.adapters import get_adapter
    from autotune.space.loader import load_space
    from autotune.study.equivalence_result import as_stored, shipping_verdict
    from autotune.study.results import find_winner

    runs, space_path, _ = small_study
    copy = tmp_path / "runs"
    shutil.copytree(runs, copy)
    paths = StudyPaths(copy, "small")
    space = load_space(str(space_path))
    winner = find_winner(load_study(paths), paths, space)
    epochs = {**space.baseline, "actor_rollout_ref.actor.ppo_epochs": 2}  # what a systems change must never do
    failed = eq.check_winner(space, get_adapter("builtin"), dict(space.baseline), epochs, tmp_path / "check")
    assert failed.outcome == "changes_math", failed
    dataclasses.replace(failed, winner_params=as_stored(winner.params)).save(eq.result_file(paths))
    assert shipping_verdict(paths, winner.params) is not None
    first = failed.differences[0].describe()

    best = autotune("best", "small", "--runs-dir", str(copy))
    said = " ".join(best.stderr.split())
    assert (
        f"NOT FOR SHIPPING: the equivalence check failed: the systems changes change the training math ({first}" in said
    )
    out = tmp_path / "best.yaml"
    plain = autotune("export", "small", "--runs-dir", str(copy), "-o", str(out))
    assert plain.returncode == 1, plain.stdout + plain.stderr
    assert out.read_text().startswith(f"# NOT FOR SHIPPING: the equivalence check failed: the systems changes change "
                                      f"the training math ({first}")  # fmt: skip
    assert not out.with_suffix(".overrides").exists()
    report = autotune("report", "small", "--runs-dir", str(copy), "-o", str(tmp_path / "report"))
    assert (
        report.returncode == 0
        and "NOT FOR SHIPPING: the equivalence check failed" in (tmp_path / "report" / "index.html").read_text()
    )
    # the same `run` again keeps the check's result, says it, writes the export marked, and exits 1
    again = autotune("run", "--space", str(space_path), "--runs-dir", str(copy), "--report-dir", str(tmp_path / "r2"),
                     "--export", str(tmp_path / "run.yaml"), "--wandb", "autotune-test")  # fmt: skip
    assert again.returncode == 1 and "equivalence check run already, kept" in again.stdout, again.stdout + again.stderr
    assert (tmp_path / "run.yaml").read_text().startswith("# NOT FOR SHIPPING: the equivalence check failed")
    said = wandb_summary(paths.root, "small")["equivalence"]  # and the wandb summary, as `best` says it
    assert said.startswith("NOT FOR SHIPPING: the equivalence check failed: the systems changes change"), said
    # another winner since (here: the check kept for other params) is not read as this one's
    dataclasses.replace(failed, winner_params={"other": 1}).save(eq.result_file(paths))
    assert autotune("export", "small", "--runs-dir", str(copy), "-o", str(out)).returncode == 0
    assert "NOT FOR SHIPPING" not in out.read_text()
