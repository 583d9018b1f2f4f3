"""The quality stage end to end: real trainer runs (world 1, two at a time), a real Optuna study, the
decision written and reported, and a resumed stage that re-runs nothing.

The bound here is put on `actor/reward_kl_penalty_coeff`, the in-reward KL coefficient the trainer
logs at every step (with `algorithm.use_kl_in_reward`): it equals the setting's `kl_coef`, so which settings keep the bound is known
before anything runs (0.001 breaks 0.0005, 0.0002 keeps it), and the test does not depend on how
fast a tiny model drifts in a few steps. Everything else (scores, curves, the rule) is recomputed
here from the runs' own metrics files.
"""

from __future__ import annotations

import html
import json
import math
import re
from pathlib import Path

import optuna
import pytest
import yaml

from autotune.adapters.verl_config import flatten_tree
from autotune.space.loader import load_space
from autotune.study.quality_result import Quality
from autotune.study.results import BASELINE_ONLY, find_winner
from autotune.study.storage import StudyPaths, baseline_trial, open_storage
from tests.autotune.conftest import autotune, wandb_summary, write_space

KL = "algorithm.kl_ctrl.kl_coef"
BASELINE_SYSTEMS = {  # write_space's baseline, written out
    "actor_rollout_ref.actor.use_dynamic_bsz": False,
    "actor_rollout_ref.actor.ppo_micro_batch_size_per_gpu": 4,
}
QUALITY = """
quality:
  steps: 8
  min_steps: 4
  reduction_factor: 2
  trials: 3
  seeds: 2
  top_k: 1
  score_last: 4
  kl_metric: actor/reward_kl_penalty_coeff
  kl_window: 2
  kl_max: 0.0005
  world_size: 1
  parallel: 2
"""


def tail_mean(metrics_file: Path, metric: str, last: int) -> tuple[int, float, float]:
    """(steps, mean of the last `last` values of `metric`, the highest 2-step mean of the bounded KL)."""
    rows = sorted((json.loads(line) for line in metrics_file.read_text().splitlines()), key=lambda r: r["step"])
    values = [r["metrics"][metric] for r in rows]
    kl = [r["metrics"]["actor/reward_kl_penalty_coeff"] for r in rows]
    means = [sum(kl[max(0, i - 1) : i + 1]) / len(kl[max(0, i - 1) : i + 1]) for i in range(len(kl))]
    return len(rows), sum(values[-last:]) / len(values[-last:]), max(means)


@pytest.mark.slow  # a minute on 2 quiet cores: the default suite reached 7 min 38 s (2026-12-07)
def test_the_quality_stage_ships_the_setting_that_keeps_the_bound_and_resumes_without_rerunning(tmp_path):
    mult = "  actor_mult: {type: categorical, choices: [2, 3]}"  # a systems variable: pinned, not searched
    space = write_space(tmp_path, extra_params=mult, extra_baseline="  actor_mult: 2")
    text = space.read_text().replace("base:\n", "base:\n  algorithm.use_kl_in_reward: true\n", 1)
    derived = "derived:\n  actor_rollout_ref.actor.ppo_max_token_len_per_gpu: {value: {product: [actor_mult, 256]}}\n"
    space.write_text(text + QUALITY + derived)
    runs, reports = tmp_path / "runs", tmp_path / "reports"
    paths = StudyPaths(runs, "small")
    paths.root.mkdir(parents=True)
    study = optuna.create_study(
        study_name="small-quality", storage=open_storage(f"sqlite:///{paths.db}"), direction="maximize"
    )
    study.enqueue_trial({KL: 0.001}, user_attrs={"baseline": True})  # what the stage enqueues itself
    study.enqueue_trial({KL: 0.0002})  # a candidate known to keep the bound
    args = ["run", "--space", str(space), "--stage", "quality", "--runs-dir", str(runs), "--report-dir", str(reports),
            "--wandb"]  # fmt: skip
    proc = autotune(*args)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    out = proc.stdout
    assert "no throughput study yet: its baseline trial alone first" in out  # so best and export can read it
    assert "quality stage on the baseline's systems values (trial #0; no other throughput winner)" in out
    # the baseline's search run stops at once, at the search's margin under the bound (said so: audit 24 F4)
    assert "the search's KL margin crossed at step 1" in out and "(0.7 × the bound 0.0005, search_margin)" in out
    # it names the one knob it searches; every systems value is held at the winner's (it named only the variable)
    assert f"quality stage: 3 searched settings of {KL} over up to 8 steps" in out, out
    assert "systems values held: use_dynamic_bsz=False ppo_micro_batch_size_per_gpu=4 actor_mult=2" in out, out
    assert not [line for line in out.splitlines() if " started" in line and "actor_mult" in line], out

    result = Quality.read(paths)
    assert result is not None and result.candidates[0].label == "baseline" and len(result.candidates) >= 2
    assert len(result.ladder) == 3 and result.seeds == [1, 2]
    for cand in result.candidates:  # every confirmed run recomputed from its metrics file
        assert [r.seed for r in cand.runs] == [1, 2]
        for run in cand.runs:
            steps, score, peak = tail_mean(Path(run.dir) / "metrics.jsonl", "critic/score/mean", 4)
            assert steps == 8 and math.isclose(run.score, score) and math.isclose(run.kl_peak, peak)
            assert (run.broke is None) == (peak <= 0.0005)
    baseline = result.candidates[0]
    assert not baseline.keeps_bound and all(math.isclose(r.kl_peak, 0.001) for r in baseline.runs)
    keepers = [c for c in result.candidates[1:] if all(r.kl_peak <= 0.0005 for r in c.runs)]
    best = max(keepers, key=lambda c: sum(r.score for r in c.runs))
    assert result.winner == best.label and result.shipped == {KL: best.params[KL]}
    assert "the baseline breaks the KL bound" in result.verdict
    assert "decision: the baseline breaks the KL bound" in out and f"ships: {KL}: {best.params[KL]}" in out
    # wandb's summary holds the decision and ships what the export ships (it held the baseline trial alone; audit 24)
    said = wandb_summary(paths.root, "small")
    assert said["quality_decision"] == result.verdict and said["quality_ships"] == {KL: best.params[KL]}, said
    assert said["ships"][KL] == best.params[KL] and "quality_warning" not in said, said
    assert said["final"] is True and "not_final" not in said, said  # the stage decided: what ships is the decision
    index = (reports / "index.html").read_text()  # the held kl_coef's row says what ships, not "baseline" alone
    assert f"held at its baseline value 0.001; the quality stage ships {best.params[KL]!r}, which the export" in index
    page = (reports / "quality.html").read_text()
    for row in result.ladder:  # the ladder reads each sampled value at 4 digits (0.004426, not 0.0044259...)
        value = row["params"][KL]
        assert f"kl_coef={value:.4g}" in page and (f"kl_coef={value}<" not in page or repr(value) == f"{value:.4g}")
    assert "Learning curves over seeds" in page and "The halving ladder" in page
    # one legend entry per setting names its seeds ("baseline seed 1" stood for both lines), the search's margin is
    # drawn, and a run it stopped under the bound reads kl_margin, not kl_bound (audit 27 F11)
    assert '"name":"baseline (seeds 1, 2)"' in page and '"name":"baseline seed 1"' not in page
    assert "search margin: 0.7 × the bound" in page
    [base_row] = [r for r in result.ladder if r["baseline"]]
    assert base_row["outcome"] == "kl_bound" and "search_margin" in base_row["detail"]  # as stored
    assert re.search(r"<tr><td>baseline</td><td>[^<]*</td><td>\d+</td><td>kl_margin</td>", page), page[-3000:]
    # the decision wraps at the section's edge, and the page links back to the sweep's report (audit 27 F16)
    assert '<pre class="wrap">' in page and '<a href="index.html">' in page and '<pre class="wrap">' in index
    from autotune.report.browser import inspect

    seen = inspect(reports / "quality.html", tmp_path / "quality.png", height=1600)  # a real Chromium
    assert seen.ok and seen.plots == seen.rendered == 1, seen
    # a `--stage throughput` run's report links to the quality page too: written beside it (a new folder had none)
    throughput = [
        *args[:4],
        "throughput",
        "--trials",
        "1",
        "--runs-dir",
        str(runs),
        "--report-dir",
        str(tmp_path / "t"),
    ]
    assert autotune(*throughput).returncode == 0 and (tmp_path / "t" / "quality.html").exists()
    assert '<a href="quality.html">' in (tmp_path / "t" / "index.html").read_text()

    # a confirmed setting's search run at seed 1 reached the horizon: it is that seed's confirmation run
    assert Path(result.candidates[1].runs[0].dir).parent.name == "search"
    assert Path(result.candidates[1].runs[1].dir).parent.name == "seeds"
    best_out = autotune("best", "small", "--runs-dir", str(runs))
    assert best_out.returncode == 0 and f"ships: {KL}: {best.params[KL]}" in best_out.stdout, best_out.stderr
    # it says the throughput stage ran its baseline alone, not that a confirmation was left out or cut short
    assert BASELINE_ONLY in " ".join(best_out.stderr.split()) and "not confirmed" not in best_out.stderr
    exported = autotune("export", "small", "--runs-dir", str(runs), "-o", str(tmp_path / "best.yaml"))
    assert exported.returncode == 0, exported.stdout + exported.stderr
    assert f"kl_coef: {best.params[KL]}" in (tmp_path / "best.yaml").read_text()
    assert BASELINE_ONLY in " ".join((tmp_path / "best.yaml").read_text().replace("# ", "").split())
    checked = autotune("export", "small", "--runs-dir", str(runs), "-o", str(tmp_path / "c.yaml"), "--check")
    assert checked.returncode == 0, checked.stdout + checked.stderr
    said = " ".join(checked.stdout.split())
    assert "nothing to compare, the systems values that ship are the baseline's" in said, said  # not "the winner is"
    assert "# export --check passed: verl accepts its" in (tmp_path / "c.yaml").read_text()
    # the report's copy-paste YAML is the export's, the shipped kl_coef included (it showed the baseline's 0.001)
    from autotune.report.data import exported_yaml
    from autotune.study.storage import load_study, stored_space

    shown = exported_yaml(load_study(paths), paths, stored_space(paths))
    assert shown == (tmp_path / "best.yaml").read_text() and f"kl_coef: {best.params[KL]}" in shown, shown
    again = autotune(*args)
    assert again.returncode == 0, again.stdout[-3000:] + again.stderr[-3000:]
    assert " started" not in again.stdout  # every search trial and seed run is kept
    assert "quality stage: 3 of 3 searched settings finished already; nothing left to search" in again.stdout
    # another bound or horizon: the finished runs' verdicts and scores were of the old ones (a rerun kept runs stopped
    # by a bound it had raised tenfold, and read 40-step runs as 20-step ones): refused before anything runs
    edited = space.read_text()
    space.write_text(edited.replace("  kl_max: 0.0005\n", "  kl_max: 0.005\n").replace("  steps: 8\n", "  steps: 6\n"))
    refused = autotune(*args)
    assert refused.returncode == 2 and " started" not in refused.stdout, refused.stdout[-2000:] + refused.stderr
    assert "the `quality:` section's steps, kl_max changed since study `small`'s quality stage ran" in refused.stderr
    assert "steps: 8 -> 6, kl_max: 0.0005 -> 0.005" in refused.stderr and "delete-study" in refused.stderr
    space.write_text(edited.replace("  seeds: 2\n", "  seeds: 2\n  first_seed: 1\n"))  # what may change, does
    assert autotune(*args).returncode == 0
    space.write_text(edited)
    assert Quality.read(paths).to_json()["shipped"] == result.shipped
    # the stage's runs ran on the systems values kept with its study; when the throughput winner's differ (the
    # sweep went on; here the record is edited to differ), the kept decision is not relabelled with the new ones
    ran = optuna.load_study(study_name="small-quality", storage=f"sqlite:///{paths.db}")
    assert ran.user_attrs["quality_systems"] == result.systems == Quality.read(paths).systems
    ran.set_user_attr("quality_systems", {**result.systems, "actor_mult": 3})
    moved = autotune(*args)
    assert moved.returncode == 0 and " started" not in moved.stdout, moved.stdout[-3000:] + moved.stderr[-3000:]
    assert (
        "quality stage kept on the systems values its runs used, not the baseline's systems values (trial #0"
        in moved.stdout
    )
    assert "(actor_mult: 3 -> 2)" in moved.stdout and Quality.read(paths).systems["actor_mult"] == 3
    # best and the export say it after the run too (only the run's log did): no run combined them
    said = "the quality stage's runs used other systems values than ship (actor_mult: 3 -> 2: ran -> ships)"
    assert said in autotune("best", "small", "--runs-dir", str(runs)).stdout
    assert autotune("export", "small", "--runs-dir", str(runs), "-o", str(tmp_path / "moved.yaml")).returncode == 0
    assert said in (tmp_path / "moved.yaml").read_text()
    report = autotune("report", "small", "--runs-dir", str(runs), "-o", str(tmp_path / "moved-report"))
    assert report.returncode == 0, report.stdout + report.stderr  # and the report's quality section (audit 27 F10)
    page = (tmp_path / "moved-report" / "index.html").read_text()
    quality_html = page[page.index('<section id="quality">') :]
    assert html.escape(said) in quality_html[: quality_html.index("</section>")], quality_html[:3000]
    # cut short in the seed runs (a killed controller): the last seed run's folder gone, no decision written. The
    # rerun runs that one again and says which finished seed runs it keeps (it said "(up to 1 runs)", audit 18 F4)
    import shutil

    seeds = sorted((paths.root / "quality" / "seeds").iterdir(), key=lambda p: p.stat().st_mtime)
    shutil.rmtree(seeds[-1])
    Quality.file(paths).unlink()
    # exported meanwhile, the overrides file (no comment can mark it) carried the baseline's algorithm values, which
    # the stage was about to replace (audit 22 F8): the YAML says it is not final, no overrides file, exit 1
    (tmp_path / "cut.overrides").write_text("stale\n")
    early = autotune("export", "small", "--runs-dir", str(runs), "-o", str(tmp_path / "cut.yaml"))
    assert early.returncode == 1 and not (tmp_path / "cut.overrides").exists(), early.stdout + early.stderr
    assert (tmp_path / "cut.yaml").read_text().startswith("# NOT FINAL: the quality stage did not finish (cut short?)")
    assert "marked NOT FINAL and" in early.stderr, early.stderr
    # the report said nothing of the stage cut short (audit 22 F6)
    shown = autotune("report", "small", "--runs-dir", str(runs), "-o", str(tmp_path / "cut-report"))
    assert shown.returncode == 0, shown.stdout + shown.stderr
    page = (tmp_path / "cut-report" / "index.html").read_text()
    assert "Quality stage: algorithm knobs judged on learning" in page
    assert "the quality stage did not finish (cut short?)" in page
    # its search, named as a study: `trials` read it as a sweep ("objective 0" over blank rows; audit 22 F7)
    for command in ("trials", "best"):
        asked = autotune(command, "small-quality", "--runs-dir", str(runs), "--storage", f"sqlite:///{paths.db}")
        assert asked.returncode == 2, asked.stdout + asked.stderr
        assert "is study `small`'s quality search, not a sweep: its decision is in `autotune best small`" in " ".join(
            asked.stderr.split()
        ), asked.stderr
    cut = autotune(*args)
    assert cut.returncode == 0, cut.stdout[-3000:] + cut.stderr[-3000:]
    line = next(x for x in cut.stdout.splitlines() if x.startswith("quality stage: confirming"))
    assert "(up to 1 run; kept from an earlier run: " in line and len(seeds) > 1, line
    assert Quality.read(paths) is not None


def test_the_export_carries_the_quality_stages_values_and_says_why(tmp_path):
    """The throughput stage holds kl_coef in the base at its baseline value; what the quality stage
    ships replaces it there, and only there."""
    from autotune.adapters import get_adapter
    from autotune.export.winner import export_settings
    from autotune.space.loader import load_space
    from autotune.space.stages import throughput_stage

    staged = throughput_stage(load_space(str(write_space(tmp_path))))
    adapter = get_adapter("builtin")
    params = {
        "actor_rollout_ref.actor.use_dynamic_bsz": False,
        "actor_rollout_ref.actor.ppo_micro_batch_size_per_gpu": 8,
    }
    plain = export_settings(staged, adapter, params)
    shipped = export_settings(staged, adapter, params, algorithm={KL: 0.0002})
    assert plain[KL] == 0.001 and shipped[KL] == 0.0002
    assert {k: v for k, v in shipped.items() if k != KL} == {k: v for k, v in plain.items() if k != KL}


@pytest.mark.slow  # a throughput sweep, then the quality stage, then export (a minute on 2 quiet cores)
def test_both_stages_then_export_ships_the_systems_and_the_algorithm_changes(tmp_path):
    space = write_space(tmp_path)
    text = space.read_text().replace("base:\n", "base:\n  algorithm.use_kl_in_reward: true\n", 1)
    space.write_text(text + QUALITY.replace("trials: 3", "trials: 2"))
    runs = tmp_path / "runs"
    paths = StudyPaths(runs, "small")
    paths.root.mkdir(parents=True)
    study = optuna.create_study(
        study_name="small-quality", storage=open_storage(f"sqlite:///{paths.db}"), direction="maximize"
    )
    study.enqueue_trial({KL: 0.001}, user_attrs={"baseline": True})
    study.enqueue_trial({KL: 0.0002})
    proc = autotune("run", "--space", str(space), "--runs-dir", str(runs), "--report-dir", str(tmp_path / "reports"))
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    # what the throughput stage ships is measured (4 short trials on 2 noisy cores): a systems winner, or the
    # baseline's values when confirmation or the ablation found no gain. The stage runs on whichever ships
    swept = optuna.load_study(study_name="small", storage=f"sqlite:///{paths.db}")
    winner = find_winner(swept, paths, load_space(str(space)))
    on = next(x for x in proc.stdout.splitlines() if x.startswith("quality stage on "))
    if winner.ships_baseline or winner.number == baseline_trial(swept).number:
        assert on.startswith("quality stage on the baseline's systems values ("), on
        ships = BASELINE_SYSTEMS
    else:
        assert on == f"quality stage on the throughput winner #{winner.number}'s systems values", on
        ships = {k: v for k, v in winner.params.items() if k != KL}
    # said up front: --trials and --confirm do not set what the second stage costs
    said = (
        "then the quality stage: 2 settings of the algorithm knobs, up to 8 steps each, the best checked over 2 seeds"
    )
    assert said in proc.stdout.split("trial 1/")[0], proc.stdout[:3000]
    best = tmp_path / "best.yaml"
    exported = autotune("export", "small", "--runs-dir", str(runs), "-o", str(best))
    assert exported.returncode == 0, exported.stdout + exported.stderr
    text = best.read_text()
    assert "kl_coef: 0.0002" in text
    shipped = flatten_tree(yaml.safe_load(text))
    assert {k: shipped[k] for k in ships} == ships and shipped[KL] == 0.0002, text
    assert "# quality stage: critic/score/mean over the last 4 of 8 steps" in text
    assert "decision: the baseline breaks the KL bound" in text
    shown = autotune("best", "small", "--runs-dir", str(runs))
    assert "ships: algorithm.kl_ctrl.kl_coef: 0.0002" in shown.stdout
    assert "quality stage" in (tmp_path / "reports" / "index.html").read_text()


@pytest.mark.slow  # two parallel 60-step runs interrupted, then the stage resumed to its end
def test_ctrl_c_during_parallel_quality_runs_leaves_nothing_behind_and_the_stage_resumes(tmp_path):
    import signal
    import subprocess
    import sys
    import time

    import psutil

    from tests.conftest import ROOT, trainer_env

    space = write_space(tmp_path)
    space.write_text(space.read_text() + QUALITY.replace("steps: 8", "steps: 60").replace("trials: 3", "trials: 2"))
    runs = tmp_path / "runs"
    args = [
        "run",
        "--space",
        str(space),
        "--stage",
        "quality",
        "--runs-dir",
        str(runs),
        "--report-dir",
        str(tmp_path / "r"),
    ]
    proc = subprocess.Popen(
        [sys.executable, "-m", "autotune.cli", *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=trainer_env(warm=False),  # its own warm parent: the ranks are its descendants
        cwd=ROOT,
    )
    search = runs / "small" / "quality" / "search"
    deadline = time.monotonic() + 180
    while time.monotonic() < deadline and proc.poll() is None:
        logs = list(search.glob("*/metrics.jsonl"))
        if len(logs) == 2 and all(log.read_text().strip() for log in logs):
            break
        time.sleep(0.5)
    descendants = psutil.Process(proc.pid).children(recursive=True)
    proc.send_signal(signal.SIGINT)
    stdout, stderr = proc.communicate(timeout=60)
    assert proc.returncode == 130, stderr
    # the cut runs read as what they are, not as crashes ("failed ... terminated by signal 15")
    assert stdout.count("interrupted after") == 2 and "failed after" not in stdout, stdout
    assert "run the same command again to resume" in stderr and "Traceback" not in stderr
    _, alive = psutil.wait_procs(descendants, timeout=15)
    assert not alive, [p.cmdline() for p in alive]
    again = autotune(*args)
    assert again.returncode == 0, again.stdout[-3000:] + again.stderr[-3000:]
    result = Quality.read(StudyPaths(runs, "small"))
    assert result is not None and len(result.ladder) == 2  # the interrupted runs were drawn again
    # under new numbers, which the rerun says (audit 19 C4)
    assert "quality stage: runs cut short (a stopped or killed worker) run again: #" in again.stdout, again.stdout
    # the reruns run first, the baseline's among them: Optuna asks the lowest-numbered waiting trial first, so the
    # queued Sobol settings (#2, #3) took the budget and the reruns never ran (the ladder held no baseline row)
    assert [(r["baseline"], r["rerun_of"]) for r in result.ladder] == [(True, 0), (False, 1)], result.ladder
    # and the page says which run each reran: it listed #2 and #3 with no word of #0 and #1
    page = (tmp_path / "r" / "quality.html").read_text()
    assert "baseline (#0 cut short, run again)" in page and "(#1 cut short, run again)" in page


def test_a_throughput_study_named_like_the_quality_search_is_not_resumed_as_one(tmp_path):
    """In a shared storage, `--study x-quality` is a throughput study beside `x`: `x`'s quality stage took its
    finished baseline for a searched setting ("1 of 1 searched settings finished") and confirmed it over seeds."""
    space = write_space(tmp_path)
    space.write_text(space.read_text() + QUALITY)
    runs = tmp_path / "runs"
    paths = StudyPaths(runs, "small")
    paths.root.mkdir(parents=True)
    storage = f"sqlite:///{paths.db}"
    taken = optuna.create_study(study_name="small-quality", storage=open_storage(storage))  # as `run` makes one
    taken.set_user_attr("baseline_enqueued", True)
    taken.tell(taken.ask(), 1.0)
    args = ["run", "--space", str(space), "--stage", "quality", "--runs-dir", str(runs), "--storage", storage]
    proc = autotune(*args)
    assert proc.returncode == 2, proc.stdout[-3000:] + proc.stderr[-3000:]
    assert (
        "study `small-quality` in" in proc.stderr
        and "is a throughput study, not study `small`'s quality" in proc.stderr
    )
    assert " started" not in proc.stdout.split("quality stage on")[-1]  # no quality run began


def test_a_resumed_search_runs_again_what_it_queued_cut_short_or_saw_crash_with_the_same_settings(tmp_path):
    """Opened again after a stop, the search study queues again (no run here: the study as the stage leaves it).
    A queued setting that had not started was queued again with no params, so its rerun was a TPE draw (audit 32 F2);
    a search run that crashed before breaking a rule was never run again: a new draw took its place, and the only
    setting that kept the bound went unconfirmed (audit 32 F1). An invalid setting never runs: not retried."""
    from rich.console import Console

    from autotune.study.progress import SweepProgress
    from autotune.sweep.quality_study import failed_to_retry, failed_twice, open_quality_study
    from autotune.trial.record import QualityRecord

    space = write_space(tmp_path)
    space.write_text(space.read_text() + QUALITY)
    loaded = load_space(space)
    paths = StudyPaths(tmp_path / "runs", "small")
    url = f"sqlite:///{paths.root / 'study.db'}"
    progress = SweepProgress(1, "perf/throughput", console=Console(file=open(tmp_path / "log.txt", "w")))  # noqa: SIM115
    study = open_quality_study(loaded, paths, url, {}, progress)
    for kl in (0.3, 0.2, 0.25, 0.15):
        study.enqueue_trial({KL: kl})
    for detail in ("crash: rank 0, step 15: InjectedFault", "invalid: trial config: kl_coef must be >= 0"):
        trial = study.ask()  # kl 0.3, then 0.2: the queue's order
        QualityRecord(outcome="failed", detail=detail).save(trial, ("outcome", "detail"))
        study.tell(trial, state=optuna.trial.TrialState.FAIL)
    study.ask()  # kl 0.25: running when the worker was stopped; kl 0.15 still queued
    again = open_quality_study(loaded, paths, url, {}, progress)
    queued = [t for t in again.get_trials(deepcopy=False) if t.state == optuna.trial.TrialState.WAITING]
    got = [(t.system_attrs["fixed_params"][KL], QualityRecord.of(t).rerun_of, QualityRecord.of(t).retry_of)
           for t in queued]  # fmt: skip
    assert got == [(0.25, 2, None), (0.3, None, 0), (0.15, None, None)], got  # the cut one, the crash, the queued one
    said = " ".join((tmp_path / "log.txt").read_text().split())
    assert "runs that failed before breaking a rule (a crash, a timeout) run again: #0 as #5" in said, said
    third = open_quality_study(loaded, paths, url, {}, progress)  # each failed run is retried once per run
    assert len(third.get_trials(deepcopy=False)) == len(again.get_trials(deepcopy=False))
    # the retry crashes too: that setting is not run a third time (each run of the stage retried it, exit 1 each)
    while (trial := third.ask()).number != 5:
        third.tell(trial, 0.1)
    QualityRecord(outcome="failed", detail="crash: rank 0, step 15: InjectedFault").save(trial, ("outcome", "detail"))
    third.tell(trial, state=optuna.trial.TrialState.FAIL)
    fourth = open_quality_study(loaded, paths, url, {}, progress)
    assert [t.number for t in failed_to_retry(fourth)] == [] and [t.number for t in failed_twice(fourth)] == [5]
    waiting = fourth.get_trials(deepcopy=False, states=(optuna.trial.TrialState.WAITING,))
    assert [t.number for t in waiting] == [6], waiting  # kl 0.15, queued since the start; no retry of #5


def _quality_space(tmp_path):  # type: ignore[no-untyped-def]
    """(the small space with a quality section, loaded; its study's paths; a log file; a progress writing to it)."""
    from rich.console import Console

    from autotune.study.progress import SweepProgress

    space = write_space(tmp_path)
    space.write_text(space.read_text() + QUALITY)
    log = tmp_path / "log.txt"
    progress = SweepProgress(1, "perf/throughput", console=Console(file=open(log, "w")))  # noqa: SIM115
    return load_space(space), StudyPaths(tmp_path / "runs", "small"), log, progress


def test_the_search_reuses_the_run_of_a_setting_it_drew_again(tmp_path):
    """TPE drew the baseline's setting again, and one setting twice side by side, and each ran: the same setting at
    the same seed is the same run (audit 32 F8). The second draw takes the first's result, rungs and constraints,
    and runs nothing (the old code ran it: an 8-step run of the trainer, its own score)."""

    from autotune.adapters import get_adapter
    from autotune.space.sampling import suggest
    from autotune.sweep.quality import QualityStage, _Job
    from autotune.sweep.quality_study import open_quality_study
    from autotune.trial.record import QualityRecord

    loaded, paths, log, progress = _quality_space(tmp_path)
    stage = QualityStage(loaded, get_adapter("builtin"), paths, progress)
    study = open_quality_study(loaded, paths, f"sqlite:///{paths.db}", {}, progress)
    study.enqueue_trial(stage.baseline_params(), user_attrs=QualityRecord(baseline=True).attrs(("baseline",)))
    study.enqueue_trial(stage.baseline_params())  # as TPE drew it again
    first = study.ask()  # the baseline, measured: it broke the bound at step 6
    params = suggest(first, stage.stage, stage.defaults)
    measured = QualityRecord(outcome="kl_bound", steps=6, score=0.4, kl_peak=0.0009, seed=1, feasible=False)
    measured.save(first, ("outcome", "steps", "score", "kl_peak", "seed", "feasible"))
    first.report(0.35, 4)
    first.set_constraint("kl_bound", 0.375)
    study.tell(first, 0.4)
    again = study.ask()
    assert suggest(again, stage.stage, stage.defaults) == params
    job = _Job(params, 1, paths.root / "quality" / "search" / f"{again.number:04d}", search=True, trial=again)
    stage._search_one(study, job)
    copy = study.trials[again.number]
    assert copy.state == optuna.trial.TrialState.COMPLETE and copy.value == 0.4, copy
    assert QualityRecord.of(copy).copy_of == 0 and QualityRecord.of(copy).outcome == "kl_bound"
    assert copy.intermediate_values == {4: 0.35} and copy.system_attrs["constraints:kl_bound"] == 0.375
    assert not job.trial_dir.exists() and stage.done == 1
    assert "baseline's setting again: its run is reused (kl_bound)" in " ".join(log.read_text().split())


def test_a_resumed_search_runs_the_rerun_of_a_cut_run_even_when_its_budget_is_spent(tmp_path):
    """Killed while a search run ran, the stage resumed with `--trials 2`, which its two finished settings reach:
    it said "run again: #2 as #4" and ran nothing, the cut setting missing from the ladder and the decision, its
    rerun left queued (audit 38 F7). The rerun runs, as a failed run's retry does, and the line says so. No run of
    the trainer here: each search run is told a score at once."""

    from autotune.adapters import get_adapter
    from autotune.sweep.quality import QualityStage
    from autotune.trial.record import QualityRecord

    loaded, paths, log, progress = _quality_space(tmp_path)
    first = QualityStage(loaded, get_adapter("builtin"), paths, progress)
    study = first.open_study()  # the baseline and 3 space-filling settings, queued
    for _ in range(2):  # the baseline and #1 finish
        trial = study.ask()
        QualityRecord(outcome="complete", steps=8, score=0.1, feasible=True).save(trial, ("outcome", "steps", "score"))
        study.tell(trial, 0.1)
    cut = study.ask()  # #2: running when its worker was killed
    cut_kl = cut.suggest_float(KL, 1e-6, 1.0, log=True)
    ran: list[tuple[int, float]] = []
    resumed = QualityStage(loaded, get_adapter("builtin"), paths, progress, n_trials=2)
    resumed.prepared = True  # no trainer runs: nothing to warm up

    def told(study, job):
        ran.append((job.trial.number, job.params[KL]))
        QualityRecord(outcome="complete", steps=8, score=0.2, feasible=True).save(job.trial, ("outcome", "score"))
        study.tell(job.trial, 0.2)
        resumed.done += 1

    resumed._search_one = told
    after = resumed.search()
    assert ran == [(4, cut_kl)], ran  # #3, queued behind, was failed `requeued` and queued again as #5
    rerun = after.trials[4]
    assert rerun.state == optuna.trial.TrialState.COMPLETE and QualityRecord.of(rerun).rerun_of == 2
    said = " ".join(log.read_text().split())
    assert "run again: #2 as #4" in said, said
    assert "2 of 2 searched settings finished already; no new setting to search" in said, said
    assert "but the 1 run cut short or failed runs again (#2 as #4)" in said, said
    assert "nothing left to search" not in said, said
