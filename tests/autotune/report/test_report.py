"""The sweep report: section data on a study with every kind of outcome, then the page in Chromium."""

from __future__ import annotations

import dataclasses
import itertools
import json
import re
import socket
import warnings
from pathlib import Path

import numpy as np
import optuna
import pandas as pd
import plotly.graph_objects as go
import pytest
import yaml

from autotune.adapters import get_adapter
from autotune.report import data, health, render, write_report
from autotune.report.browser import inspect
from autotune.space.loader import load_space
from autotune.study.storage import StudyPaths, load_study, storage_url
from autotune.sweep.backends.base import BackendOptions
from autotune.sweep.backends.lifecycle import create_or_load
from autotune.sweep.backends.optuna_backend import OptunaBackend
from tests.autotune.conftest import autotune, import_benchmark, wandb_summary

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
  - {metric: perf/time_per_step, reducer: median, max_ratio_to_baseline: 3.0}  # the slow fault: 10x
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
    OptunaBackend(BackendOptions(space, get_adapter("builtin"), paths, url, n_trials=7)).run()
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
    page = render.Page()
    render.failures_section(page, frame)
    cells = re.findall(r"<td>([^<]*)</td>", page.html("t", "t"))
    assert "failed (crash)" in cells and "infeasible" in cells, cells  # how each ended, once a row
    assert "infeasible" not in [b for a, b in itertools.pairwise(cells) if a == "infeasible"], cells  # read twice


def test_section_data(mixed):
    study, paths, space, _ = mixed
    summary = data.summary(study, paths, space)
    assert summary.winner is not None and summary.baseline == 0
    # no confirmation ran: the speedup is the winner's sweep value over the baseline's, by hand from the trials
    trials = {t.number: t for t in study.get_trials()}
    complete = [t for t in trials.values() if t.user_attrs.get("outcome") == "complete"]
    best = max(complete, key=lambda t: t.values[0])
    assert summary.winner == best.number and summary.source == "sweep"
    assert summary.speedup == pytest.approx(best.values[0] / trials[0].values[0])
    assert summary.objective == "perf/throughput"
    # memory on CPU is the trainer's tensor memory, and the report's ratio is the winner's figure over the
    # baseline's; peak RSS stays its own number
    assert summary.memory_metric == "perf/tensor_memory_gb"
    memory = {n: t.user_attrs["key_metrics"]["memory_gb"] for n, t in trials.items() if t.user_attrs.get("key_metrics")}
    assert summary.memory_ratio == pytest.approx(memory[best.number] / memory[0])
    rss = trials[0].user_attrs["key_metrics"]["rss_gb"]
    assert rss > 10 * memory[0]  # the process, not the model: why RSS cannot be the memory figure on CPU
    assert [c.name for c in summary.checks] == ["KL to reference", "comm share", "memory vs baseline", "MFU"]
    mfu = summary.checks[-1]  # a CPU's MFU is against its own matmul peak: shown, not judged by a GPU's target
    assert mfu.value > 0 and mfu.passed is None and "not judged on a CPU" in mfu.rule
    assert [c.percent for c in summary.checks] == [False, True, False, True]  # as their rules are written
    assert [c.times for c in summary.checks] == [False, False, True, False]
    page = render.Page()
    render.summary_section(page, summary)
    row = re.search(r"<td>memory vs baseline</td><td>([^<]*)</td>", page.html("t", "t"))
    assert row and row.group(1) == f"{summary.memory_ratio:.2f}×", row  # "1" beside "< 1.2×" (audit 21 F17, 27 F13)
    # the cards say comm share and MFU as the checklist does: 0.443 above 44.3% on one page (audit 24 F8)
    for name, value in (("comm share", summary.comm_share), ("MFU", summary.mfu)):
        card = re.search(rf'<div class="label">{name}</div><div>([^<]*)</div>', page.html("t", "t"))
        assert card and card.group(1) == f"{value:.1%}", (name, card)
    history = data.history(study, space)
    assert len(history) == 7 and history["best_so_far"].notna().any()
    assert history["best_so_far"].dropna().is_monotonic_increasing
    phases = data.phase_breakdown(study, space)
    # the builtin trainer's phases (it reshards; verl's `update_weights` is not one of them), then comm and step
    assert data.phase_names(phases) == ["gen", "reshard", "old_log_prob", "ref", "values", "adv", "update_critic", "update_actor"]  # fmt: skip
    assert list(phases.columns)[-2:] == ["comm", "step"]
    assert (phases["step"] > 0).all()
    health = data.health_curves(study, space)
    assert "#0 (baseline)" in set(health["trial"])
    assert data.pareto(study).empty  # one objective
    assert len(data.parameters(study)) >= 2
    completed = sum(1 for t in study.get_trials() if t.user_attrs.get("outcome") == "complete")
    assert completed < data.MIN_TRIALS_FOR_IMPORTANCE  # too few to rank knobs: nothing is shown
    assert data.importance_intervals(study, space).empty
    assert "ppo_trainer" in data.exported_yaml(study, paths, space)
    prov = data.provenance(study, space)
    assert prov["world size"] == "1" and prov["torch"].startswith("2.")
    host = socket.gethostname()  # every trial ran here, by this test's own sweep; a reused repeat ran nothing
    ran = [t for t in trials.values() if t.user_attrs.get("outcome") and t.user_attrs.get("duplicate_of") is None]
    assert prov["trials ran on"] == f"{host} ({len(ran)} trials)"


def test_the_checklist_judges_only_the_limits_the_space_sets(mixed):
    """A space with a KL max of 5 and no comm-share limit read "KL < 5 (alarm > 0.1)" and "comm share < 10%": an
    alarm it does not have, and a made-up rule that fails a world-2 winner at its usual 55% (audit 15 F5)."""
    from autotune.space.schema import Limit

    _, _, space, _ = mixed
    kl, comm, memory, mfu = 0.016, 0.55, 1.1, 0.04
    only_kl = dataclasses.replace(space, limits=[Limit(metric="actor/kl_loss", reducer="last", max=5.0)])
    checks = {c.name: c for c in health.health_checks(only_kl, kl, comm, memory, mfu, on_gpu=False)}
    assert (checks["KL to reference"].rule, checks["KL to reference"].passed) == ("< 5", True)
    for name in ("comm share", "memory vs baseline"):
        assert checks[name].rule == health.NO_LIMIT and checks[name].passed is None, checks[name]
    limited = [
        Limit(metric="actor/kl_loss", reducer="last", max=0.01, alarm_above=0.1),
        Limit(metric="perf/comm_share", reducer="median", max=0.5),
        Limit(metric="memory", reducer="max", max_ratio_to_baseline=1.2),
    ]
    checks = {
        c.name: c for c in health.health_checks(dataclasses.replace(space, limits=limited), kl, comm, memory, mfu)
    }
    assert (checks["KL to reference"].rule, checks["KL to reference"].passed) == ("< 0.01 (alarm > 0.1)", False)
    assert (checks["comm share"].rule, checks["comm share"].passed) == ("< 50%", False)
    assert (checks["memory vs baseline"].rule, checks["memory vs baseline"].passed) == ("< 1.2×", True)
    # limits of another form are the space's, judged on every trial: named, not "no limit" (audit 16 F3: a policy
    # KL as `autotune init` writes it, memory in GB, comm share against the baseline's)
    other = [
        Limit(metric="actor/ppo_kl", reducer="last", max=0.05),
        Limit(metric="perf/comm_share", reducer="median", max_ratio_to_baseline=2.0),
        Limit(metric="memory", reducer="max", max=1.0),
    ]
    checks = {c.name: c for c in health.health_checks(dataclasses.replace(space, limits=other), kl, comm, memory, mfu)}
    assert checks["KL to reference"].rule == "limited as `actor/ppo_kl` < 0.05 (judged on each trial, not here)"
    assert (
        checks["comm share"].rule == "limited as `perf/comm_share` < 2× the baseline's (judged on each trial, not here)"
    )
    assert checks["memory vs baseline"].rule == "limited as `memory` < 1 GiB (judged on each trial, not here)"
    assert all(checks[n].passed is None for n in ("KL to reference", "comm share", "memory vs baseline"))
    # beside a quality stage, whose verdict on the same KL bound is over its longer horizon, the row says whose it is:
    # "0.033 < 0.05 pass" read as a contradiction of the quality section's "the baseline breaks the bound" (audit 20 F8)
    from autotune.space.loader import load_space

    shipped = load_space("fsdp3d", device="cpu")
    assert shipped.quality is not None
    [kl_check] = [
        c for c in health.health_checks(shipped, kl, comm, memory, mfu, on_gpu=False) if c.name == "KL to reference"
    ]
    assert kl_check.rule == (
        f"< 0.05 (alarm > 0.1); over a {shipped.trial.steps}-step throughput trial, where the quality stage judges "
        f"{shipped.quality.steps} steps"
    ), kl_check.rule


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
    # the trials table says its units below it, as `autotune trials` does (its headers read memory_gb, wall_s)
    section = report.read_text().split('<section id="trials">')[1].split("</section>")[0]
    said = (
        "throughput: tokens/s per GPU; memory, RSS (host): peak GiB per rank; wall_s: seconds; "
        "mfu, comm_share: fractions (0.25 is 25%)"  # as the summary says them in percent (audit 27 F13)
    )
    assert f'<p class="note">{said}</p>' in section, section[-500:]
    checked = autotune("report", "small", "--runs-dir", str(runs), "-o", str(tmp_path / "r"), "--check")
    assert checked.returncode == 0, checked.stdout + checked.stderr
    assert (tmp_path / "r" / "screenshot.png").exists()
    again = autotune("report", "small", "--runs-dir", str(runs), "--report-dir", str(tmp_path / "r2"))  # run's name
    assert again.returncode == 0 and (tmp_path / "r2" / "index.html").exists(), again.stderr


def test_the_reports_exported_yaml_is_the_text_export_writes(small_study, tmp_path):
    """The report's copy-button YAML is "the text `export` writes, header included": it lacked the line saying the
    equivalence check `autotune run` kept passed (audit 38 F10)."""
    from autotune.export.winner import export
    from autotune.report import data
    from autotune.study.storage import stored_space

    runs, _, _ = small_study
    paths = StudyPaths(runs, "small")
    study, space = load_study(paths), stored_space(paths)
    export(study, paths, space, get_adapter(space.trainer, space.command), tmp_path / "best.yaml")  # `export`'s own
    written = (tmp_path / "best.yaml").read_text()
    assert "# equivalence check passed" in written, written[:1500]
    assert data.exported_yaml(study, paths, space) == written


def test_wandb_offline_runs_hold_every_trial(small_study):
    runs, _, _ = small_study
    offline = sorted((runs / "small" / "wandb" / "wandb").glob("offline-run-*"))
    trials = [t for t in load_study(StudyPaths(runs, "small")).get_trials() if t.user_attrs.get("outcome")]
    ran = [t for t in trials if t.user_attrs.get("duplicate_of") is None]  # a repeat reuses a result: no run
    assert len(offline) == len(ran) + 1  # one run per trial that ran and the study summary
    for run in offline:
        assert list(run.glob("*.wandb")), run
    # runs have their names as ids: a resumed sweep's summary updates the same run (it added another one)
    summary = next(r for r in offline if r.name.endswith("-small-summary"))
    # ... and the study's folder id before the name: another study named `small` (a study started over, the next
    # `make demo`'s) has runs of its own, where it resumed this one's (audit 28 F18)
    folder = (runs / "small" / ".study-id").read_text().strip()[:8]
    assert len(folder) == 8 and all(f"-{folder}-small-" in r.name for r in offline), [r.name for r in offline]
    assert {r.name.split("-small-trial-")[-1] for r in offline if "-small-trial-" in r.name} == {
        f"{t.number:04d}" for t in ran
    }
    assert summary.name.endswith("-small-summary")
    said = wandb_summary(runs / "small", "small")
    assert said["objective_of"] == "the whole winner, mean of its confirmation rounds" and "ships" in said, said
    # `ships` is what the export writes, keys and values (it held the sampled helper params; audit 28 F7)
    exported = autotune("export", "small", "--runs-dir", str(runs), "-o", str(runs.parent / "w.yaml"))
    assert exported.returncode == 0, exported.stderr
    written = dict(line.split("=", 1) for line in (runs.parent / "w.overrides").read_text().split())
    assert said["ships"] == {k: yaml.safe_load(v) for k, v in written.items()}, (said["ships"], written)
    assert said["quality_decision"] == "the space has no quality stage", said
    reader = import_benchmark("wandb_run_file")
    # a trial's config holds the verl config it ran, derived keys and held algorithm values included (audit 24 F7)
    first = next(r for r in offline if r.name.endswith(f"-small-trial-{ran[0].number:04d}"))
    config = reader.read_run(next(first.glob("*.wandb")))["config"]
    ran_with = yaml.safe_load((StudyPaths(runs, "small").located(ran[0].user_attrs["dir"]) / "config.yaml").read_text())
    assert config["verl/algorithm.kl_ctrl.kl_coef"] == ran_with["algorithm"]["kl_ctrl"]["kl_coef"], config
    assert "verl/actor_rollout_ref.actor.ppo_mini_batch_size" in config, sorted(config)
    # the trials table keeps its numbers as numbers (every cell was text: W&B sorted throughput as text; audit 24)
    table = json.loads(next(summary.glob("files/media/table/trials_*.table.json")).read_text())
    column = table["columns"].index("throughput")
    assert all(isinstance(row[column], (int, float)) for row in table["data"]), table["data"]


def crafted_study(n: int, seed: int = 0) -> optuna.Study:
    """n completed trials over four knobs; throughput = 100 + 50 x `signal` + N(0, 1): the others are noise."""
    rng = np.random.default_rng(seed)
    names = ["a.signal", "b.noise_one", "c.noise_two", "d.noise_three"]
    dists = {k: optuna.distributions.FloatDistribution(0.0, 1.0) for k in names}
    study = optuna.create_study(direction="maximize")
    for _ in range(n):
        params = {k: float(rng.random()) for k in names}
        value = 100.0 + 50.0 * params["a.signal"] + float(rng.normal())
        study.add_trial(
            optuna.trial.create_trial(
                params=params, distributions=dists, values=[value], user_attrs={"outcome": "complete"}
            )
        )
    return study


def test_importances_are_oriented_for_the_objectives_direction():
    """A narrow peak: the fastest trials all sit near `a.signal` = 0.5, the slowest anywhere else. For a
    maximised objective PED-ANOVA must look at the fastest (concentrated: important); read as minimised,
    the best trials are spread out and the knob looks far less important."""
    rng = np.random.default_rng(3)
    dists = {k: optuna.distributions.FloatDistribution(0.0, 1.0) for k in ("a.signal", "b.noise_one")}
    study = optuna.create_study(direction="maximize")
    for _ in range(40):
        params = {k: float(rng.random()) for k in dists}
        value = 100.0 + 50.0 * float(np.exp(-(((params["a.signal"] - 0.5) / 0.08) ** 2))) + float(rng.normal())
        study.add_trial(
            optuna.trial.create_trial(
                params=params, distributions=dists, values=[value], user_attrs={"outcome": "complete"}
            )
        )
    space = load_space("fsdp3d")
    as_max = data.importance_intervals(study, space).set_index("param")
    minimised = dataclasses.replace(space, objectives=[dataclasses.replace(space.objectives[0], direction="minimize")])
    as_min = data.importance_intervals(study, minimised).set_index("param")
    assert not as_max.loc["a.signal", "noise"]
    assert as_max.loc["a.signal", "excess"] > 3 * as_min.loc["a.signal", "excess"], (as_max, as_min)


def test_importance_intervals_separate_the_knob_that_matters_from_noise():
    space = load_space("fsdp3d")  # maximises perf/throughput
    frame = data.importance_intervals(crafted_study(40), space).set_index("param")
    assert not frame.loc["a.signal", "noise"] and frame.loc["a.signal", "low"] > 0
    for name in ("b.noise_one", "c.noise_two", "d.noise_three"):
        assert frame.loc[name, "noise"] and frame.loc[name, "low"] <= 0 <= frame.loc[name, "high"], frame
    assert frame.index[0] == "a.signal"
    # oriented for maximisation: minimising the same numbers makes `signal` separate the *worst* trials,
    # which PED-ANOVA scores just as high; the interval logic must not depend on the direction's sign
    assert (frame["low"] <= frame["excess"]).all() and (frame["excess"] <= frame["high"]).all()
    assert data.importance_intervals(crafted_study(data.MIN_TRIALS_FOR_IMPORTANCE - 1), space).empty


def test_short_axis_labels_are_unique_short_and_widen_on_a_clash():
    keys = [
        "actor_rollout_ref.actor.ppo_micro_batch_size_per_gpu",
        "actor_rollout_ref.rollout.log_prob_micro_batch_size_per_gpu",
        "actor_rollout_ref.actor.fsdp_config.param_offload",
        "actor_rollout_ref.ref.fsdp_config.param_offload",
        "env.NCCL_PROTO",
        "actor_token_mult",
        "x.prefix_one_middle_suffix",  # these two cut to the same text: the second is numbered
        "x.prefix_two_middle_suffix",
    ]
    labels = data.axis_labels(keys, width=14)
    assert labels["x.prefix_one_middle_suffix"] == "prefix…_suffix"
    assert labels["x.prefix_two_middle_suffix"] == "prefix…_suff~2"
    assert len(set(labels.values())) == len(keys)
    assert all(len(v) <= 14 for v in labels.values())
    assert labels["env.NCCL_PROTO"] == "NCCL_PROTO" and labels["actor_token_mult"] == "actor_…en_mult"
    assert labels["actor_rollout_ref.actor.fsdp_config.param_offload"].startswith("actor.")


def wide_frame(knobs: int = 16) -> pd.DataFrame:
    rng = np.random.default_rng(1)
    columns = {f"actor_rollout_ref.actor.fsdp_config.some_long_knob_name_{i}": rng.random(12) for i in range(knobs)}
    return pd.DataFrame({"number": range(12), **columns, "objective": rng.random(12)})


@pytest.mark.slow  # 9 s: the default suite ran over its 8-minute budget (README row 132)
def test_parallel_coordinates_stay_readable_at_16_knobs(tmp_path):
    """The browser measures the axis titles' boxes: none overlap with short angled labels, while the same
    16 axes titled with full keys, level, do overlap (so the check can fail)."""
    page = render.Page()
    render.parallel_section(page, wide_frame(), "perf/throughput")
    good = tmp_path / "good.html"
    good.write_text(page.html("16 knobs", "readable"))
    check = inspect(good, tmp_path / "parallel.png", height=900)
    assert check.page_errors == [] and check.rendered == check.plots == 1
    assert check.label_overlaps == 0 and check.ok
    assert "some_long_knob_name_3" in good.read_text()  # the full key travels with the plot (hover, key table)

    frame = wide_frame()
    dims = [{"label": c, "values": frame[c].tolist()} for c in frame.columns[1:]]
    bad = render.Page()
    bad.section("parallel", "unreadable", bad.figure(go.Figure(go.Parcoords(dimensions=dims)), 440))
    path = tmp_path / "bad.html"
    path.write_text(bad.html("16 knobs", "level full keys"))
    overlapping = inspect(path)
    assert overlapping.label_overlaps > 10 and not overlapping.ok


PARETO = """\
name: pareto
trainer: builtin
base_config: [cpu_tiny]
base:
  data.train_batch_size: 8
  builtin.fault.kind: hang
trial: {steps: 3, warmup_steps: 1, world_size: 1, timeout_s: 30, hang_timeout_s: 120, startup_grace_s: 60}
params:
  actor_rollout_ref.actor.ppo_micro_batch_size_per_gpu: {type: categorical, choices: [2, 4, 8]}
  actor_rollout_ref.actor.ppo_mini_batch_size: {type: categorical, choices: [4, 8]}
  builtin.fault.at_step: {type: int, low: 2, high: 1000}   # hangs at that step: only 2 and 3 fire in 3 steps
  algorithm.kl_ctrl.kl_coef: {type: float, low: 1.0e-4, high: 1.0e-1, log: true}
constraints:
  - divides: [actor_rollout_ref.actor.ppo_micro_batch_size_per_gpu, actor_rollout_ref.actor.ppo_mini_batch_size]
objectives:
  - {metric: perf/throughput, direction: maximize, reducer: median}
  - {metric: actor/kl_loss, direction: minimize, reducer: last}
limits:
  - {metric: memory, reducer: max, max_ratio_to_baseline: 3.0}
baseline:
  actor_rollout_ref.actor.ppo_micro_batch_size_per_gpu: 4
  actor_rollout_ref.actor.ppo_mini_batch_size: 8
  builtin.fault.at_step: 1000
  algorithm.kl_ctrl.kl_coef: 0.001
sampler: {seed: 0, n_startup_trials: 10}
trials: 5
"""


def dominated(a: tuple[float, float], b: tuple[float, float]) -> bool:
    """`a` is dominated by `b` (throughput maximised, KL minimised)."""
    return b[0] >= a[0] and b[1] <= a[1] and b != a


@pytest.mark.slow  # a 30 s timeout and two real runs
def test_two_objective_sweep_with_invalid_and_timeout_trials_and_its_pareto_plot(tmp_path):
    path = tmp_path / "pareto.yaml"
    path.write_text(PARETO)
    space = load_space(str(path))
    paths = StudyPaths(tmp_path / "runs", "pareto")
    url = storage_url(paths, None)
    study = create_or_load(space, paths, url)
    invalid = {
        "actor_rollout_ref.actor.ppo_micro_batch_size_per_gpu": 8,
        "actor_rollout_ref.actor.ppo_mini_batch_size": 4,
    }
    study.enqueue_trial({**space.baseline, **invalid})  # 8 does not divide 4: never launched
    study.enqueue_trial({**space.baseline, "builtin.fault.at_step": 2})  # hangs at step 2: hard timeout at 30 s
    OptunaBackend(BackendOptions(space, get_adapter("builtin"), paths, url, n_trials=4)).run()
    study = load_study(paths)
    assert [d.name for d in study.directions] == ["MAXIMIZE", "MINIMIZE"]
    trials = [t for t in study.get_trials() if t.user_attrs.get("outcome")]
    assert len(trials) == 4 and not [t for t in trials if t.state == optuna.trial.TrialState.PRUNED]
    invalid, timeout = trials[1].user_attrs, trials[2].user_attrs
    assert (invalid["outcome"], invalid["reason"]) == ("failed", "invalid")
    assert "must divide" in invalid["detail"] and not (Path(invalid["dir"]) / "metrics.jsonl").exists()
    assert (timeout["outcome"], timeout["reason"]) == ("failed", "timeout"), timeout
    assert "30 s trial timeout" in timeout["detail"] and timeout["wall_s"] >= 30
    for t in trials[1:3]:  # fed back as infeasible: COMPLETE with the run_failed constraint violated
        assert t.state == optuna.trial.TrialState.COMPLETE and t.system_attrs["constraints:run_failed"] == 1.0
    sampled = [t for t in trials if "fixed_params" not in t.system_attrs]
    assert len(sampled) == 1  # drawn by the multi-objective sampler, not enqueued
    # the Pareto front, by hand from the completed trials' two objectives
    points = {t.number: tuple(t.values) for t in trials if t.user_attrs["outcome"] == "complete"}
    front = {n for n, p in points.items() if not any(dominated(p, q) for q in points.values())}
    assert front and set(data.pareto(study)["number"]) == front
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        report = write_report(study, paths, space, tmp_path / "report")
    check = inspect(report, tmp_path / "report" / "screenshot.png")
    assert check.ok and "pareto" in check.sections, check
    pareto_html = report.read_text().split('<section id="pareto">')[1].split("</section>")[0]
    assert 'class="plot"' in pareto_html  # a plot, not the one-objective note
    failures = data.failures(study)
    assert {"invalid", "timeout"} <= set(failures["kind"])


def test_parallel_coordinates_draw_an_unset_knob_as_unset_not_at_the_columns_minimum():
    """A micro-batch a dynamic-batching trial does not set was drawn at 4 (the column's minimum), and a null
    NCCL choice as the tick `nan`: a value the trial never ran."""
    import json
    import re

    frame = pd.DataFrame(
        {
            "number": [0, 1, 2],
            "objective": [1.0, 1.4, 1.2],
            "actor_rollout_ref.actor.ppo_micro_batch_size_per_gpu": [4.0, float("nan"), 8.0],
            "env.NCCL_PROTO": [None, "LL128", "Simple"],
            "actor_rollout_ref.actor.use_dynamic_bsz": [False, True, False],
            "actor_rollout_ref.rollout.tensor_model_parallel_size": [2, 2, 2],  # drawn as a 1.8-2.2 scale
        }
    )
    page = render.Page()
    render.parallel_section(page, frame, "perf/throughput")
    text = page.html("t", "t")
    ticks = [json.loads(f"[{t}]") for t in re.findall(r'"ticktext":\[([^\]]*)\]', text)]
    values = [json.loads(f"[{v}]") for v in re.findall(r'"tickvals":\[[^\]]*\],"values":\[([^\]]*)\]', text)]
    assert ["unset", "4", "8"] in ticks and ["unset", "LL128", "Simple"] in ticks, ticks
    assert [1, 0, 2] in values and [0, 1, 2] in values, values  # trial #1's micro-batch is `unset`, not 4
    assert "nan" not in " ".join(t for tick in ticks for t in tick)
    assert ["2"] in ticks, ticks  # one value: its own level


def test_a_knob_the_sampler_settled_on_is_said_so_not_called_chance():
    """A 300-trial simulated sweep's report called `use_dynamic_bsz` (on in 88% of its trials, and its whole 1.85x)
    "no better than chance": PED-ANOVA contrasts the best trials with the trials sampled, which share the value.
    Such a knob is named as settled; trials that reused another's result count once (audit 12 F6)."""
    rng = np.random.default_rng(5)
    dists = {"a.switch": optuna.distributions.CategoricalDistribution([False, True]),
             "b.noise_one": optuna.distributions.FloatDistribution(0.0, 1.0),
             "c.coin": optuna.distributions.CategoricalDistribution(["x", "y"])}  # fmt: skip
    study = optuna.create_study(direction="maximize")
    for i in range(60):
        params = {"a.switch": i % 10 != 0, "b.noise_one": float(rng.random()), "c.coin": "xyyx"[i % 4]}  # on: 90%
        value = (170.0 if params["a.switch"] else 100.0) + float(rng.normal(0, 8))
        attrs = {"outcome": "complete", **({"duplicate_of": i - 1} if i >= 55 else {})}
        study.add_trial(optuna.trial.create_trial(params=params, distributions=dists, values=[value], user_attrs=attrs))
    space = load_space("fsdp3d")
    assert data.importance_count(study, space) == 55  # the 5 reused results are one configuration each, counted once
    frame = data.importance_intervals(study, space).set_index("param")
    assert frame.loc["a.switch", "settled"] == "True in 89%"  # 49 of the 55 counted, worked out by hand
    assert frame.loc["b.noise_one", "settled"] == ""  # a float knob is never "settled"
    assert frame.loc["c.coin", "settled"] == ""  # half and half: the best trials do not share one value
    shown = frame.reset_index()
    shown.loc[shown["param"] == "a.switch", "noise"] = True  # as the sweep's report had it
    page = render.Page()
    render.importance_section(page, shown, "perf/throughput", "maximize", 55, simulated=True)
    html_text = page.html("t", "t")
    assert "switch (settled: True in 89%)" in html_text and "switch (chance)" not in html_text
    assert "The sampler settled on one value</b> of switch (True in 89%)" in html_text


def test_two_writers_of_one_file_never_share_a_temporary_name(tmp_path):
    """Two workers ending together wrote the report through one `index.html.tmp`: the second rename found it gone
    ("writing the report failed: [Errno 2]", audit 16 F7). Eight threads write one file 50 times each."""
    import threading

    from autotune.trial.record import write_json

    target, errors = tmp_path / "x.json", []

    def write(k: int) -> None:
        try:
            for i in range(50):
                write_json(target, {"writer": k, "i": i})
        except OSError as exc:
            errors.append(exc)

    threads = [threading.Thread(target=write, args=(k,)) for k in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == [] and json.loads(target.read_text())["i"] == 49
    assert [p.name for p in tmp_path.iterdir()] == ["x.json"]  # no temporary file left behind


def _baseline_only(tmp_path):
    """(space, paths, study) of the small space whose baseline finished at 500 tokens/s/GPU (its outcome given)."""
    from autotune.sweep.backends.lifecycle import tell_outcome
    from autotune.trial.record import TrialRecord
    from tests.autotune.conftest import write_space

    space = load_space(str(write_space(tmp_path)))
    paths = StudyPaths(tmp_path / "runs", "small")
    study = create_or_load(space, paths, storage_url(paths, None))
    base = study.ask()  # the baseline, enqueued as trial 0
    tell_outcome(study, base, space, TrialRecord(outcome="complete", key_metrics={"throughput": 500.0}), [500.0])
    return space, paths, study


def test_the_summary_card_of_the_objective_has_its_unit(tmp_path):
    """The card read `perf/throughput  2000 vs 858.8`, no unit, where the history's axis says tokens/s/GPU (audit 38
    F14)."""
    space, paths, study = _baseline_only(tmp_path)
    page = render.Page()
    render.summary_section(page, data.summary(study, paths, space))
    cards = re.findall(r'<div class="label">([^<]*)</div><div>([^<]*)</div>', page.html("t", "t"))
    assert ("perf/throughput", "500 vs 500 tokens/s/GPU") in cards, cards


def test_a_trial_a_killed_worker_left_running_is_named_not_left_out(tmp_path):
    """A lone worker SIGKILLed mid-trial: `trials`, `best` and `export` named #1 "not finished", while the report
    said "Every trial completed within its limits", counted 1 trial and left #1 out of every table (audit 38 F8).
    No trainer runs: the baseline's outcome is given, #1 is asked and never told, as the kill leaves it."""
    space, paths, study = _baseline_only(tmp_path)
    study.ask()  # #1: running when its worker was killed
    frame = data.failures(study)
    assert list(frame["number"]) == [1] and list(frame["kind"]) == ["not finished"], frame
    said = (
        "not finished (#1): still running, or interrupted; `autotune run` with the same space resumes the sweep and "
        "runs them again"
    )
    assert frame.iloc[0]["detail"] == said
    page = render.Page()
    render.failures_section(page, frame)
    assert "Every trial completed" not in page.html("t", "t")
    table = data.trial_table(study)
    assert list(table["number"]) == [0, 1] and list(table["outcome"]) == ["complete", "running"], table
    assert f"1 trial {said}" in data.summary(study, paths, space).caveat
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        report = write_report(study, paths, space, tmp_path / "report")
    text = report.read_text()
    assert "builtin trainer · 1 trial (1 not finished) · world 1" in text and "Every trial completed" not in text


def test_an_interrupted_trial_says_whose_worker_stopped_and_its_retry(tmp_path):
    """The Failures table showed `| 5 | interrupted |  |`: no detail, nothing of the retry the run said it queued
    ("trial #5 was interrupted (worker pid N is gone): retrying it" -> #6; audit 38 F9). Its worker is a record
    (no process killed here); the interruption and the retry are the sweep's own (`fail_interrupted`, Optuna's
    retry callback)."""
    from autotune.sweep.backends.lifecycle import fail_interrupted, trial_id
    from autotune.trial.record import TrialRecord, Worker

    _, _, study = _baseline_only(tmp_path)
    cut = study.ask()
    TrialRecord(worker=Worker(host="node-a", pid=4242)).save(cut, ("worker",))
    storage = study._storage
    assert fail_interrupted(study, storage, trial_id(storage, study.study_name, cut.number))
    [retry] = [t for t in study.get_trials() if t.system_attrs.get("failed_trial") == cut.number]
    row = data.failures(study).set_index("number").loc[cut.number]
    assert row["kind"] == "interrupted"
    assert row["detail"] == f"worker pid 4242 on node-a stopped while it ran; run again as #{retry.number}"


def test_the_report_names_each_worker_with_its_flags_and_its_trials(tmp_path):
    """Two workers, started with different flags, decided in turn, and the report said only "trials ran on vm (5
    trials)" (audit 38 F5): each worker is named with the flags it was started with (kept in workers.jsonl when it
    ends) and the trials it ran; one the log does not know is said so. Records stand for the trials' runs here."""
    import os

    from autotune.study.live import working
    from autotune.trial.record import TrialRecord, Worker

    space, paths, study = _baseline_only(tmp_path)
    plan = {"stage": "all", "trials": 8, "top_k": 1, "confirm": 2, "ablate": 2, "fidelity": "real"}
    with working(paths, plan):  # this process, a worker of the study
        pass
    host = socket.gethostname()
    for number, worker in ((1, Worker(host=host, pid=os.getpid())), (2, Worker(host=host, pid=os.getpid())),
                           (3, Worker(host="node-b", pid=4242))):  # fmt: skip
        trial = study.ask()
        assert trial.number == number
        TrialRecord(outcome="complete", worker=worker).save(trial, ("outcome", "worker"))
        study.tell(trial, 400.0)
    said = data.provenance(study, space, paths=paths)["workers"]
    assert said == (
        f"worker pid {os.getpid()} on {host} (--stage all --trials 8 --top-k 1 --confirm 2 --ablate 2 --fidelity real): "
        "#1-#2; worker pid 4242 on node-b (flags not recorded): #3"
    )
