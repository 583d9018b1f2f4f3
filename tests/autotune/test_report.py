"""The sweep report: section data on a study with every kind of outcome, then the page in Chromium."""

from __future__ import annotations

import warnings
from pathlib import Path

import pytest

from autotune.adapters import get_adapter
from autotune.backends.optuna_backend import OptunaSweep, create_or_load
from autotune.report import data, write_report
from autotune.report.browser import inspect
from autotune.space.loader import load_space
from autotune.study import StudyPaths, load_study, storage_url
from tests.autotune.conftest import autotune

MIXED = """\
name: mixed
trainer: builtin
base_config: [cpu_tiny]
base:
  data.train_batch_size: 8
  actor_rollout_ref.actor.ppo_mini_batch_size: 8
  builtin.fault.at_step: 2
trial: {steps: 4, warmup_steps: 1, world_size: 1, timeout_s: 120, hang_timeout_s: 30}
params:
  builtin.fault.kind: {type: categorical, choices: [none, crash, oom, slow]}
  actor_rollout_ref.actor.optim.lr: {type: categorical, choices: [2.0e-4, 5.0e-2]}
  actor_rollout_ref.actor.ppo_micro_batch_size_per_gpu: {type: categorical, choices: [4, 8]}
objectives:
  - {metric: perf/throughput, direction: maximize, reducer: median}
limits:
  - {metric: perf/time_per_step, reducer: median, max: 0.6}
  - {metric: actor/kl_loss, reducer: last, max: 1.0, alarm_above: 0.05}
baseline:
  builtin.fault.kind: none
  actor_rollout_ref.actor.optim.lr: 2.0e-4
  actor_rollout_ref.actor.ppo_micro_batch_size_per_gpu: 4
sampler: {seed: 0, n_startup_trials: 10}
trials: 7
"""


@pytest.fixture(scope="session")
def mixed(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("mixed")
    path = tmp / "mixed.yaml"
    path.write_text(MIXED)
    space = load_space(str(path))
    paths = StudyPaths(tmp / "runs", "mixed")
    url = storage_url(paths, None)
    study = create_or_load(space, paths, url)
    base = dict(space.baseline)
    for extra in (
        {"builtin.fault.kind": "crash"},
        {"builtin.fault.kind": "oom"},
        {"builtin.fault.kind": "slow"},
        {"actor_rollout_ref.actor.optim.lr": 5.0e-2},
        {"actor_rollout_ref.actor.ppo_micro_batch_size_per_gpu": 8},
        {
            "actor_rollout_ref.actor.ppo_micro_batch_size_per_gpu": 8,
            "actor_rollout_ref.actor.optim.lr": 5.0e-2,
            "builtin.fault.kind": "none",
        },
    ):
        study.enqueue_trial({**base, **extra})
    OptunaSweep(space, get_adapter("builtin"), paths, url, n_trials=7).run()
    return load_study(paths), paths, space, tmp


def test_failures_section_lists_every_kind_with_its_config(mixed):
    study, _, _, _ = mixed
    frame = data.failures(study)
    kinds = set(frame["kind"])
    assert {"crash", "oom", "infeasible", "pruned"} <= kinds, frame
    crash = frame[frame["kind"] == "crash"].iloc[0]
    assert "kind=crash" in crash["config"]
    infeasible = frame[frame["kind"] == "infeasible"].iloc[0]
    assert "perf/time_per_step" in infeasible["detail"]
    pruned = frame[frame["kind"] == "pruned"].iloc[0]
    assert "alarm: actor/kl_loss" in pruned["detail"]


def test_section_data(mixed):
    study, paths, space, _ = mixed
    summary = data.summary(study, paths, space)
    assert summary.winner is not None and summary.baseline == 0
    assert summary.speedup > 0 and summary.objective == "perf/throughput"
    assert [c.name for c in summary.checks] == ["KL to reference", "comm share", "memory vs baseline", "MFU"]
    history = data.history(study, space)
    assert len(history) == 7 and history["best_so_far"].notna().any()
    assert history["best_so_far"].dropna().is_monotonic_increasing
    phases = data.phase_breakdown(study, space)
    assert {"gen", "update_actor", "comm", "step"} <= set(phases.columns)
    assert (phases["step"] > 0).all()
    health = data.health_curves(study, space)
    assert "#0 (baseline)" in set(health["trial"])
    assert data.pareto(study).empty  # one objective
    assert len(data.parameters(study)) >= 2
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        imp = data.importances(study, space)
    assert imp.empty or imp.index.isin([p.name for p in space.params]).all()
    assert "ppo_trainer" in data.exported_yaml(study, paths, space)
    prov = data.provenance(study, space)
    assert prov["world size"] == "1" and prov["torch"].startswith("2.")


def test_report_opens_in_chromium_without_errors_and_renders_every_plot(mixed):
    study, paths, space, tmp = mixed
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        path = write_report(study, paths, space, tmp / "report")
    text = path.read_text()
    assert "https://" not in text.split("<script>", 1)[0]  # no external stylesheet or script before the inline bundle
    check = inspect(path, tmp / "report" / "screenshot.png")
    print(f"{check.rendered}/{check.plots} plots rendered; sections {check.sections}")
    assert check.page_errors == [] and check.console_errors == []
    assert check.external == []
    assert check.plots >= 6 and check.rendered == check.plots
    for section in (
        "summary",
        "history",
        "pareto",
        "parallel",
        "importance",
        "inert",
        "phases",
        "health",
        "failures",
        "trials",
        "export",
        "provenance",
    ):
        assert section in check.sections
    assert check.screenshot is not None and check.screenshot.stat().st_size > 50_000


def test_run_writes_the_report_and_report_command_checks_it(small_study, tmp_path):
    runs, _, proc = small_study
    report = Path(proc.stdout.split("report: ")[1].split()[0])
    assert report.exists() and report.name == "index.html"
    checked = autotune("report", "small", "--runs-dir", str(runs), "-o", str(tmp_path / "r"), "--check")
    assert checked.returncode == 0, checked.stdout + checked.stderr
    assert (tmp_path / "r" / "screenshot.png").exists()


def test_wandb_offline_runs_hold_every_trial(small_study):
    runs, _, _ = small_study
    offline = sorted((runs / "small" / "wandb" / "wandb").glob("offline-run-*"))
    trials = [t for t in load_study(StudyPaths(runs, "small")).get_trials() if t.user_attrs.get("outcome")]
    assert len(offline) == len(trials) + 1  # one run per trial and the study summary
    for run in offline:
        assert list(run.glob("*.wandb")), run
