"""`autotune explain`: knobs from the baseline to the winner, the path's arithmetic, and a real path on
the small study (each step re-measured by real trainer runs)."""

from __future__ import annotations

import json
import math
import statistics
from pathlib import Path

import pytest

from autotune.report import data
from autotune.space.loader import load_space
from autotune.study.ablation_result import Ablation, ExplainStep, Explanation
from autotune.study.confirmation_result import Confirmation, ConfirmedCandidate, ConfirmedSpeedup
from autotune.study.ratios import Ratios
from autotune.study.results import Winner, find_winner
from autotune.study.storage import StudyPaths, load_study
from autotune.sweep.explain import (
    ExplainOptions,
    Knob,
    configure,
    knobs,
    order_candidates,
    sent_back,
    summarize_path,
)
from tests.autotune.conftest import autotune

DYN = "actor_rollout_ref.actor.use_dynamic_bsz"
MICRO = "actor_rollout_ref.actor.ppo_micro_batch_size_per_gpu"
TP = "actor_rollout_ref.rollout.tensor_model_parallel_size"
RESHARD = "actor_rollout_ref.actor.fsdp_config.reshard_after_forward"
KL = "algorithm.kl_ctrl.kl_coef"


def test_knobs_group_conditional_params_with_their_switch_and_skip_equal_and_inert():
    space = load_space("fsdp3d")
    baseline = dict(space.baseline)
    winner = {
        **baseline,
        TP: 1,
        RESHARD: False,
        DYN: True,
        "actor_token_mult": 4.0,
        "logprob_token_mult": 6.0,
        "env.NCCL_PROTO": "LL",
        KL: 0.02,
    }
    del winner[MICRO]  # inactive under dynamic batching
    units, same, inert = knobs(space, baseline, winner, inert=["env.NCCL_PROTO"])
    assert [u.name for u in units] == [TP, RESHARD, DYN, KL]
    dyn = next(u for u in units if u.name == DYN)
    assert dyn.params == {DYN: True, "actor_token_mult": 4.0, "logprob_token_mult": 6.0}
    assert inert == ["env.NCCL_PROTO"]
    assert "actor_rollout_ref.actor.fsdp_config.forward_prefetch" in same and TP not in same
    # after an ablation sent forward_prefetch back, what ships equals the baseline there: listed as sent back,
    # not as a knob the winner never changed (it read "the winner keeps the baseline's value")
    prefetch = "actor_rollout_ref.actor.fsdp_config.forward_prefetch"
    whole = {**winner, prefetch: not baseline[prefetch]}
    assert sent_back(same, whole, baseline) == ([n for n in same if n != prefetch], [prefetch])
    assert sent_back(same, winner, baseline) == (same, [])
    # applying the dynamic-batching knob drops the fixed micro-batch and derives the token budgets
    applied = configure(space, {}, {**baseline, **dyn.params})
    assert MICRO not in applied and applied["actor_token_mult"] == 4.0
    # a token multiplier alone (dynamic batching already on in the baseline) is its own knob
    dyn_base = {k: v for k, v in {**baseline, DYN: True, "actor_token_mult": 2.0, "logprob_token_mult": 6.0}.items()}
    dyn_base.pop(MICRO)
    units, _, _ = knobs(space, dyn_base, {**dyn_base, "actor_token_mult": 5.0})
    assert [(u.name, u.params) for u in units] == [("actor_token_mult", {"actor_token_mult": 5.0})]


def test_an_ordering_steps_runs_are_named_for_what_they_are():
    """Its progress lines read `current` and `k2-reshard_after_forward`: what `current` held after a step was not
    said, nor that a k-run is it plus one knob (audit 22 F5)."""
    space = load_space("fsdp3d")
    baseline = dict(space.baseline)
    units, _, _ = knobs(space, baseline, {**baseline, TP: 1, RESHARD: False, KL: 0.02})
    tp, reshard, kl = units
    first = order_candidates(space, {}, baseline, [], units)
    assert [c.says for c in first] == ["baseline", *(f"k{i}: baseline + {u.label}" for i, u in enumerate(units, 1))]
    assert first[0].is_baseline and not any(c.is_baseline for c in first[1:])
    current = configure(space, {}, {**baseline, **tp.params})
    second = order_candidates(space, {}, current, [tp], [reshard, kl])
    assert [c.says for c in second] == [
        f"current (the baseline + {tp.label})",
        f"k1: current + {reshard.label}",
        f"k2: current + {kl.label}",
    ]
    assert second[0].params == current and second[2].params == {**current, KL: 0.02}
    assert [c.stem for c in second] == ["current", "k1-reshard_after_forward", "k2-kl_coef"]  # the runs' folders


def step(gains: list[float]) -> ExplainStep:
    return ExplainStep(
        gain=math.exp(statistics.fmean(map(math.log, gains))),
        speedup_mean=statistics.fmean(gains),
        speedup_min=min(gains),
        speedup_max=max(gains),
        rounds=len(gains),
        label="k",
        step=1,
    )


def confirmed(winner: int, **speedup: float) -> Confirmation:
    row = ConfirmedCandidate(number=winner, params={}, values=[], feasible_rounds=2, rounds=2, mean=1.0, **speedup)
    return Confirmation(0, winner, {winner: row})


def ablation_with(shipped: Ratios) -> Ablation:
    return Ablation(
        baseline=0, winner=7, rounds=3, knobs=[], shipped={}, winner_speedup=shipped, shipped_speedup=shipped
    )


def test_path_product_verdicts_and_agreement_with_confirmation():
    steps = [step([1.20, 1.30]), step([1.10, 1.14]), step([0.97, 1.05])]
    result = summarize_path(steps, 7, ExplainOptions(repeats=2))
    # gains are geometric means of the rounds: sqrt(1.2 x 1.3) x sqrt(1.1 x 1.14) x sqrt(0.97 x 1.05) = 1.4139
    assert result.product == pytest.approx(math.sqrt(1.20 * 1.30 * 1.10 * 1.14 * 0.97 * 1.05))
    assert result.product_min == pytest.approx(1.20 * 1.10 * 0.97)
    assert result.product_max == pytest.approx(1.30 * 1.14 * 1.05)
    g = [math.sqrt(1.20 * 1.30), math.sqrt(1.10 * 1.14), math.sqrt(0.97 * 1.05)]
    assert [s.cumulative for s in steps] == pytest.approx([g[0], g[0] * g[1], g[0] * g[1] * g[2]])
    assert [s.verdict for s in steps] == ["matters", "matters", "within noise"]
    # compared with the interval `best` prints (its geometric mean's), not the rounds' min-max
    winner = Winner(7, {}, "confirmed", 1.0, 1.47, None)
    ref, label = Explanation.reference(winner, confirmed(7, speedup_mean=1.48, speedup_geomean=1.47,
                                                         speedup_low=1.40, speedup_high=1.55, speedup_min=1.3,
                                                         speedup_max=1.6, speedup_std=0.05))  # fmt: skip
    assert label == "confirmed speedup" and ref is not None and ref.speedup_geomean == 1.47 and ref.rounds == 2
    against = result.compared(ref, label)
    assert against.agrees is True and against.confirmed == ref  # 1.4139 lies within 1.40-1.55
    above = ConfirmedSpeedup(speedup_mean=1.5, speedup_min=1.3, speedup_max=1.7, speedup_std=0.1, rounds=3,
                             speedup_geomean=1.5, speedup_low=1.42, speedup_high=1.6)  # fmt: skip
    assert result.compared(above, label).agrees is False  # 1.414 < 1.42, though inside the rounds' 1.3-1.7
    assert result.compared(None, label).agrees is None
    one_round = ConfirmedSpeedup(speedup_mean=1.41, speedup_min=1.41, speedup_max=1.41, speedup_std=0.0, rounds=1,
                                 speedup_geomean=1.41)  # fmt: skip
    assert result.compared(one_round, label).agrees is None  # no interval: not compared (it could only disagree)
    assert (
        "confirmed speedup ×1.410 (one round: no interval): the path not compared"
        in result.compared(one_round, label).lines()
    )
    # after the ablation the path leads to what ships: it is compared with that measurement
    shipped = Ratios(speedup_mean=1.41, speedup_geomean=1.41, speedup_low=1.405, speedup_high=1.42,
                     speedup_min=1.40, speedup_max=1.43, speedup_std=0.01)  # fmt: skip
    ablated = Winner(7, {}, "confirmed", 1.0, 1.41, None, ablation=ablation_with(shipped))
    ref, label = Explanation.reference(ablated, confirmed(7, speedup_mean=1.6, speedup_min=1.5, speedup_max=1.7))
    reduced = result.compared(ref, label)
    assert reduced.agrees is True and reduced.confirmed is not None and reduced.confirmed.speedup_geomean == 1.41
    assert any(line.startswith("what ships, measured by the ablation, ×1.410 [1.405, 1.420]: the path agrees")
               for line in reduced.lines())  # fmt: skip
    single = summarize_path([step([1.2])], 7, ExplainOptions(repeats=1))
    assert single.steps[0].verdict == "one run: no spread"
    slower = summarize_path([step([0.988, 0.997])], 7, ExplainOptions())
    assert slower.steps[0].verdict == "slower"  # below 1.0 in every round: not "matters"
    # a step no round measured (its runs failed) is not "matters", which every comparison with NaN made it
    unmeasured = ExplainStep(gain=math.nan, speedup_mean=math.nan, speedup_min=math.nan, speedup_max=math.nan,
                             rounds=2, label="k", step=1)  # fmt: skip
    assert summarize_path([unmeasured], 7, ExplainOptions()).steps[0].verdict == "not measured: its runs failed"
    result = against
    # explain.json keeps its layout: the step's ratios and verdict at the top level of each step
    written = result.to_json()
    layout = {"speedup_mean": 1.48, "speedup_min": 1.3, "speedup_max": 1.6, "speedup_std": 0.05, "rounds": 2}
    # plus the geometric mean and its interval, which older files lack
    assert {k: v for k, v in written["confirmed"].items() if k in layout} == layout
    assert set(written["confirmed"]) - set(layout) == {"speedup_geomean", "speedup_low", "speedup_high"}
    assert written["compared_with"] == "confirmed speedup" and written["dropped"] == []
    assert {"gain", "speedup_min", "speedup_max", "cumulative", "verdict", "rounds"} <= set(written["steps"][0])
    again = Explanation.from_json(json.loads(json.dumps(written)))
    assert "end_to_end" not in written and json.dumps(again.to_json()) == json.dumps(written)  # NaN != NaN


def test_options_reject_nonsense():
    with pytest.raises(ValueError, match="repeats must be at least 1, got 0"):
        ExplainOptions(repeats=0)
    with pytest.raises(ValueError, match="max_rounds must be at least 1"):
        ExplainOptions(max_rounds=0)
    with pytest.raises(ValueError, match="select_repeats must be at least 1, got 0"):
        ExplainOptions(select_repeats=0)


def median_throughput(folder, warmup: int) -> float:
    rows = [json.loads(line) for line in (folder / "metrics.jsonl").read_text().splitlines()]
    return statistics.median(r["metrics"]["perf/throughput"] for r in rows if r["step"] > warmup)


@pytest.mark.slow  # six real runs (2-3 minutes on a loaded 2-core machine)
def test_explain_on_the_small_study_walks_from_baseline_to_winner(small_study):
    runs, space_path, _ = small_study
    proc = autotune("explain", "small", "--runs-dir", str(runs), "--repeats", "1", "--max-rounds", "1")
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    paths = StudyPaths(runs, "small")
    result = json.loads((paths.root / "explain.json").read_text())  # the file itself: its layout is the contract
    study = load_study(paths)
    base = next(t for t in study.get_trials() if t.user_attrs.get("baseline"))
    winner = json.loads((paths.root / "confirmation.json").read_text())["winner"]
    winner_params = study.trials[winner].params
    space = load_space(str(space_path))
    # the path ends at the winner: every knob it applied is the winner's value
    applied = {k: v for s in result["steps"] for k, v in s["params"].items()}
    changed = {k: v for k, v in winner_params.items() if v != base.params.get(k)}
    assert applied == changed
    assert len(result["steps"]) == len(knobs(space, base.params, winner_params)[0])
    # each gain is the ratio of the measured medians of that step's runs (recomputed from their folders)
    warm = space.trial.warmup_steps
    product = 1.0
    for s in result["steps"]:
        (run,), (reference,) = s["runs"], s["reference_runs"]
        gain = median_throughput(Path(run), warm) / median_throughput(Path(reference), warm)
        assert s["gain"] == pytest.approx(gain, rel=1e-9)
        product *= gain
    assert result["product"] == pytest.approx(product)
    # the step gains telescope to the winner over the baseline measured on the same runs
    assert result["end_to_end"]["speedup_geomean"] == pytest.approx(product)
    assert Path(result["steps"][-1]["runs"][0]).name == f"r1-p{len(result['steps'])}"
    assert "product of step gains" in proc.stdout
    # its progress lines say what each run is: a bare "p1" named nothing (audit 22 F5)
    step1 = Knob(result["steps"][0]["knob"], result["steps"][0]["params"]).label
    assert f"explain path round 1/1: p1, step 1: + {step1}" in proc.stdout, proc.stdout
    # a second call prints the stored path without running anything
    again = autotune("explain", "small", "--runs-dir", str(runs), "--repeats", "1", "--max-rounds", "1")
    assert "measured earlier" in again.stdout and again.stdout.count("×") >= len(result["steps"])
    bare = autotune("explain", "small", "--runs-dir", str(runs))  # no options: the stored path, whatever it took
    assert "measured earlier with --repeats 1 --select-repeats 1, --max-rounds 1" in bare.stdout, bare.stdout
    read = Explanation.read(paths)
    assert read is not None and math.isfinite(read.product) and read.lines()[0].startswith("explain: study `")
    # the report reads the stored path: one row per step, and a plot in its section
    frame, info = data.ablation(study, paths, space)
    assert frame["label"].tolist() == [s["label"] for s in result["steps"]] and info.product == result["product"]
    report = autotune("report", "small", "--runs-dir", str(runs), "-o", str(runs.parent / "explained"))
    assert report.returncode == 0, report.stderr
    section = (runs.parent / "explained" / "index.html").read_text().split('<section id="ablation">')[1]
    assert 'class="plot"' in section.split("</section>")[0]


def test_the_path_in_words_names_kept_at_baseline_and_a_disagreement_with_its_fix() -> None:
    """Explanation.lines: a knob the winner holds at the baseline's value is named as such (not 'same as the
    baseline', which read as if the sweep found it equal), and a path that misses the confirmed range says what
    narrows it."""
    path = Explanation(winner=3, repeats=2, steps=[], product=1.5, product_min=1.4, product_max=1.6,
                       confirmed=ConfirmedSpeedup(speedup_mean=1.1, speedup_min=1.05, speedup_max=1.15,
                                                  speedup_std=0.05, rounds=2),
                       agrees=False, same_as_baseline=["actor_rollout_ref.actor.fsdp_config.forward_prefetch"],
                       inert=["env.NCCL_PROTO"])  # fmt: skip
    text = "\n".join(path.lines())
    assert "not run, the winner keeps the baseline's value: forward_prefetch" in text
    assert "not run, inert here: NCCL_PROTO" in text
    assert "the path does NOT agree (other jobs on the machine, or too few rounds: `--repeats` more narrows it)" in text
    agreeing = "\n".join(Explanation(**{**vars(path), "agrees": True}).lines())
    assert "the path agrees" in agreeing and "narrows" not in agreeing


def test_a_stored_path_is_compared_again_with_the_measurement_as_it_stands_and_dropped_for_another_winner(tmp_path):
    """After a re-confirmation (or a new ablation) `explain` and the report kept the old "confirmed speedup": the
    stored path, which leads to the same configuration, is compared with what stands now, without measuring it
    again; a path to another winner is not shown as this one's."""
    import optuna

    from autotune.study.results import current_explanation
    from tests.autotune.conftest import write_space

    dyn, micro = "actor_rollout_ref.actor.use_dynamic_bsz", "actor_rollout_ref.actor.ppo_micro_batch_size_per_gpu"
    space = load_space(str(write_space(tmp_path)))
    paths = StudyPaths(tmp_path / "runs", "small")
    paths.root.mkdir(parents=True)
    base, winner = {dyn: False, micro: 4}, {dyn: False, micro: 8}

    def confirm(low: float, high: float) -> None:
        rows = [
            ConfirmedCandidate(number=0, params=base, values=[1.0, 1.0], feasible_rounds=2, rounds=2, mean=1.0,
                               is_baseline=True),
            ConfirmedCandidate(number=3, params=winner, values=[1.5, 1.6], feasible_rounds=2, rounds=2, mean=1.55,
                               speedup_mean=1.55, speedup_geomean=1.5, speedup_low=low, speedup_high=high),
        ]  # fmt: skip
        Confirmation.decide(rows, 0, maximize=True).write(paths)

    study = optuna.create_study()
    confirm(1.2, 1.3)
    path = summarize_path([step([1.35, 1.45])], 3, ExplainOptions())  # product 1.399
    path.winner_params = winner
    assert Explanation.file(paths).name == "explain.json"
    stored = path.compared(*Explanation.reference(find_winner(study, paths, space), Confirmation.read(paths)))
    assert stored.agrees is False  # 1.399 outside [1.2, 1.3]
    stored.write(paths)
    assert current_explanation(study, paths, space) == (stored, False)  # nothing changed: shown as stored
    confirm(1.3, 1.6)  # the sweep re-confirmed: the same winner, another interval
    again, changed = current_explanation(study, paths, space)
    assert changed and again is not None and again.agrees is True and again.confirmed is not None
    assert (again.confirmed.speedup_low, again.confirmed.speedup_high) == (1.3, 1.6) and again.steps == stored.steps
    winner[micro] = 16  # another configuration won since: the stored path is not this winner's
    confirm(1.3, 1.6)
    assert current_explanation(study, paths, space) == (None, False)


def test_explain_beside_a_running_trial_is_refused_naming_it(small_study, tmp_path):
    """explain measured its path while a worker's sweep ran trials on the same cores, and explained the winner of
    that moment, without a word (audit 19 F3): a running trial whose worker lives refuses it, naming the trial."""
    import os
    import shutil

    from autotune.sweep.backends.lifecycle import this_worker
    from autotune.trial.record import set_worker

    runs = tmp_path / "runs"
    shutil.copytree(small_study[0], runs)
    paths = StudyPaths(runs, "small")
    study = load_study(paths)
    trial = study.ask()  # a trial this process runs, as a sweeping worker's would be
    set_worker(trial, this_worker())
    proc = autotune("explain", "small", "--runs-dir", str(runs))
    assert proc.returncode == 1, proc.stdout[-2000:] + proc.stderr[-2000:]
    said = " ".join(proc.stderr.split())
    assert f"study `small` is still sweeping (trial #{trial.number}, run by worker pid {os.getpid()} on " in said, said
    assert "run it once the sweep has ended" in said and not (paths.root / "explain").exists()


def test_a_measurement_cut_short_leaves_the_stored_path_unless_it_is_a_rerun(small_study, tmp_path, monkeypatch):
    """`explain --repeats 8` removed the stored 4-round explain.json as it started: cut short, the report said "Not
    measured yet" and a plain `explain` showed 2 rounds where 4 had been measured (audit 22 F1). Another measurement
    now leaves it until it replaces it; a `--rerun`, whose runs are deleted with it, still removes it (audit 19 F4).
    (The interrupt is raised where the first run would start: no run needed.)"""
    import shutil
    import sys

    from autotune.adapters import get_adapter
    from autotune.study.progress import SweepProgress
    from autotune.study.storage import stored_space

    explain_module = sys.modules["autotune.sweep.explain"]  # `autotune.sweep.explain` is also the function's name

    runs = tmp_path / "runs"
    shutil.copytree(small_study[0], runs)
    paths = StudyPaths(runs, "small")
    space = stored_space(paths)
    stored = Explanation.file(paths)
    stored.write_text('{"an earlier": "measurement"}')

    def cut(*args: object, **kwargs: object) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(explain_module, "choose_order", cut)
    progress = SweepProgress(0, "perf/throughput")
    progress.quiet = True
    for fresh in (False, True):
        with pytest.raises(KeyboardInterrupt):
            explain_module.explain(load_study(paths), space, get_adapter(space.trainer), paths,
                                   ExplainOptions(repeats=8), progress, fresh=fresh)  # fmt: skip
        assert stored.exists() is not fresh, fresh


@pytest.mark.slow  # a 2-trial sweep, then explain three times (make test-slow)
def test_a_second_explain_waits_for_the_first_and_a_rerun_cut_short_goes_on_from_its_runs(tmp_path):
    """Two explains at once ran into the same run folders and one printed `×nan ... [matters]`, exit 0 (audit 19
    F2); an interrupted `--rerun` left the old explain.json, which the suggested command then printed while its runs'
    folders held the new measurement, and the finished rounds were never used (F4)."""
    import os
    import signal
    import subprocess
    import sys
    import time

    import optuna

    from tests.autotune.conftest import ROOT, write_space

    space = write_space(tmp_path, steps=4, baseline_micro=2)
    runs = tmp_path / "runs"
    swept = autotune("run", "--space", str(space), "--runs-dir", str(runs), "--trials", "1", "--confirm", "0",
                     "--stage", "throughput")  # fmt: skip
    assert swept.returncode == 0, swept.stderr[-2000:]
    paths = StudyPaths(runs, "small")
    optuna.load_study(study_name="small", storage=f"sqlite:///{paths.db}").enqueue_trial(
        {DYN: True, KL: 0.001}
    )  # dynamic batching against micro-batches of 2: the winner
    swept = autotune("run", "--space", str(space), "--runs-dir", str(runs), "--trials", "2", "--confirm", "0",
                     "--stage", "throughput")  # fmt: skip
    assert swept.returncode == 0 and "winner: trial #1" in swept.stdout, swept.stdout[-2000:]
    holder = subprocess.Popen(
        [sys.executable, "-c", (
            "import time; from pathlib import Path; from autotune.study.storage import StudyPaths\n"
            f"with StudyPaths(Path({str(runs)!r}), 'small').finishing(print, doing='runs `autotune explain`'):\n"
            "    print('held', flush=True); time.sleep(6)\n"
        )], stdout=subprocess.PIPE, text=True, cwd=ROOT,
    )  # fmt: skip
    assert holder.stdout is not None and holder.stdout.readline().strip() == "held"
    # one stopped by SIGTERM while it waits ends as `run` does: exit 143, not typer's 130 of an interrupt
    stopped = subprocess.Popen([sys.executable, "-m", "autotune.cli", "explain", "small", "--runs-dir", str(runs)],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=ROOT)  # fmt: skip
    assert stopped.stdout is not None and "waiting for worker pid" in stopped.stdout.readline()
    time.sleep(0.5)  # into the lock's wait: once in 4 runs a SIGTERM sent at once was lost in an at-fork callback
    stopped.terminate()
    assert stopped.wait(timeout=30) == 143 and "explain stopped by SIGTERM" in stopped.communicate()[1]
    first = autotune("explain", "small", "--runs-dir", str(runs), "--repeats", "1")
    holder.wait(timeout=30)
    assert first.returncode == 0, first.stdout[-2000:] + first.stderr[-2000:]
    assert f"waiting for worker pid {holder.pid} on " in first.stdout, first.stdout[-2000:]
    assert "which runs `autotune explain` of study `small`; this one then explains the winner" in first.stdout
    assert "nan" not in first.stdout and (paths.root / "explain.json").exists()
    # --rerun over 2 rounds, cut short once its first round is kept: the stored path goes, the finished round stays
    rerun = subprocess.Popen([sys.executable, "-m", "autotune.cli", "explain", "small", "--runs-dir", str(runs),
                              "--repeats", "3", "--rerun"], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                             text=True, cwd=ROOT)  # fmt: skip
    kept = [paths.root / "explain" / "path" / f"r1-p{i}" / "kept.json" for i in (0, 1)]
    first_kept = kept[1].stat().st_mtime
    deadline = time.monotonic() + 300
    while not (kept[1].exists() and kept[1].stat().st_mtime > first_kept) and time.monotonic() < deadline:
        time.sleep(0.1)
    os.kill(rerun.pid, signal.SIGINT)
    _, err = rerun.communicate(timeout=60)
    assert "explain interrupted: its finished rounds are kept" in err, err[-2000:]
    # the command that goes on, written out: "with the same options", --rerun among them, measured all again, and
    # the command it quoted dropped --repeats (audit 22 F9)
    said = " ".join(err.split())
    assert f"`autotune explain small --runs-dir {runs} --repeats 3` goes on from them (adding --rerun" in said, said
    assert all(k.exists() for k in kept) and not (paths.root / "explain.json").exists()
    before = [k.stat().st_mtime for k in kept]
    again = autotune("explain", "small", "--runs-dir", str(runs), "--repeats", "3")
    assert again.returncode == 0, again.stdout[-2000:] + again.stderr[-2000:]
    assert "measured earlier" not in again.stdout and "product of step gains" in again.stdout, again.stdout
    assert [k.stat().st_mtime for k in kept] == before, "the finished round of the cut-short --rerun ran again"


def test_a_step_measured_in_one_round_of_two_and_an_unmeasured_path_are_said_as_such():
    """One of two path rounds failed: the step read "matters" and "the path agrees", exit 0, nothing said; a path
    whose step was never measured printed "nan×" and "does NOT agree (other jobs on the machine...)" (audit 30 F2,
    F4)."""
    ref = ConfirmedSpeedup(speedup_mean=1.5, speedup_min=1.4, speedup_max=1.6, speedup_std=0.1, rounds=2,
                           speedup_geomean=1.5, speedup_low=1.2, speedup_high=1.8)  # fmt: skip
    half = step([1.52])
    half.rounds, half.measured_rounds = 2, 1
    result = summarize_path([half], 7, ExplainOptions()).compared(ref, "what ships, measured by the ablation,")
    assert half.verdict == "one run: no spread"
    said = "\n".join(result.lines())
    assert "(rounds 1.520–1.520, measured in 1 of 2 rounds: the others failed)" in said, said
    assert "explain: study `` baseline" not in said and ", one knob" in said.splitlines()[0]
    assert result.reference_words == "what ships, measured by the ablation"
    unmeasured = ExplainStep(gain=math.nan, speedup_mean=math.nan, speedup_min=math.nan, speedup_max=math.nan,
                             rounds=2, measured_rounds=0, label="k", step=1)  # fmt: skip
    result = summarize_path([unmeasured], 7, ExplainOptions()).compared(ref, "confirmed speedup")
    assert result.agrees is None and result.reference_words == "the confirmed speedup"
    said = "\n".join(result.lines())
    assert "nan" not in said and "does NOT agree" not in said, said
    assert "product of step gains: not known, a step's runs all failed" in said


def test_a_failed_run_is_not_kept_to_be_read_back_as_a_round(tmp_path):
    """After an explain whose runs crashed, `--repeats 3` read the crashed rounds back as finished ones ("kept from
    an earlier run") and measured 1 round of 3 (audit 30 F3). A kept file of a run that did not run (written before
    failed runs were left out) is not read back either."""
    from autotune.sweep.confirmation import KEPT, Candidate, _canonical, _kept

    c = Candidate(1, {"k": 1})
    result = {"value": math.nan, "feasible": False, "ran": False, "limits": {}, "key_metrics": {}}
    (tmp_path / KEPT).write_text(json.dumps({"key": "K", "params": _canonical(c.params), **result}))
    assert _kept(tmp_path, c, "K") is None
    (tmp_path / KEPT).write_text(json.dumps({"key": "K", "params": _canonical(c.params), **result, "ran": True,
                                             "value": 2.0, "detail": "outside limits: memory"}))  # fmt: skip
    assert _kept(tmp_path, c, "K") == {**result, "ran": True, "value": 2.0, "detail": "outside limits: memory"}
