"""The minimal winner: the decision rule on recorded rounds (hand-computed), the conclusion's file and
what `find_winner` ships from it, and a real ablation on a tiny space where a knob with no effect on
speed is dropped and a real gain is kept."""

from __future__ import annotations

import dataclasses
import json
import math
import os
import socket

import optuna
import pytest

from autotune.adapters import get_adapter
from autotune.report import data
from autotune.space.loader import load_space
from autotune.space.stages import throughput_stage
from autotune.study.ablation_result import AblatedKnob, Ablation
from autotune.study.confirmation_result import Confirmation, ConfirmedCandidate, ConfirmedSpeedup
from autotune.study.progress import SweepProgress
from autotune.study.ratios import Ratios, gain_interval, intervals_overlap
from autotune.study.results import find_winner
from autotune.study.storage import StudyPaths, load_study
from autotune.sweep.ablation import _paired, _undecided, reset, run_ablation, verdict
from autotune.sweep.confirmation import Candidate
from autotune.sweep.explain import configure
from tests.autotune.conftest import autotune, write_space

EPOCHS = "actor_rollout_ref.actor.ppo_epochs"
KL = "algorithm.kl_ctrl.kl_coef"
MICRO = "actor_rollout_ref.actor.ppo_micro_batch_size_per_gpu"
DYN = "actor_rollout_ref.actor.use_dynamic_bsz"
PREFETCH = "actor_rollout_ref.actor.fsdp_config.forward_prefetch"


def test_interval_of_the_geometric_mean_by_hand():
    # logs of 1.2, 1.3, 1.25: mean 0.222614, sample sd 0.040021; t(0.95, 2 df) = 2.919986
    low, high = gain_interval([1.2, 1.3, 1.25])
    half = 2.919986 * 0.040021 / math.sqrt(3)
    assert low == pytest.approx(math.exp(0.222614 - half), abs=1e-4)
    assert high == pytest.approx(math.exp(0.222614 + half), abs=1e-4)
    assert (round(low, 3), round(high, 3)) == (1.168, 1.337)
    assert all(math.isnan(v) for v in gain_interval([1.5]))  # one round: no interval


@pytest.mark.parametrize(
    ("ratios", "maximize", "expected"),
    [
        ([1.2, 1.3, 1.25], True, "kept"),  # [1.168, 1.337]: above 1.0
        ([0.9, 1.1, 1.05], True, "within noise"),  # straddles 1.0
        ([0.8, 0.82, 0.79], True, "slower"),  # wholly below 1.0
        ([0.8, 0.82, 0.79], False, "kept"),  # a minimised objective (step time) gains below 1.0
        ([1.5], True, "not measured"),  # one round: nothing shows it earns its place
        ([1.3, math.nan, 1.2], True, "within noise"),  # a failed round is left out: 2 rounds, t(1 df) = 6.31
    ],
)
def test_verdict_on_recorded_rounds(ratios, maximize, expected):
    assert verdict(ratios, maximize)[3] == expected


def test_a_wide_round_spread_keeps_nothing_a_narrow_one_resolves_ten_percent():
    # the same 10% geometric gain: rounds spread ±25% do not resolve it, rounds spread ±2% do
    wide = [1.1 * f for f in (0.75, 1.25, 0.8, 1.2)]
    narrow = [1.1 * f for f in (0.98, 1.02, 0.99, 1.01)]
    assert verdict(wide, True)[3] == "within noise"
    assert verdict(narrow, True)[3] == "kept" and verdict(narrow, True)[1] > 1.0


def test_a_knob_back_at_baseline_brings_back_what_it_switched_off():
    space = load_space("fsdp3d")
    base = configure(space, {}, dict(space.baseline))
    tp = "actor_rollout_ref.rollout.tensor_model_parallel_size"
    winner = {k: v for k, v in base.items() if k != MICRO}
    winner.update({DYN: True, "actor_token_mult": 4.0, "logprob_token_mult": 5.0, tp: 1})
    winner = configure(space, {}, winner)
    assert MICRO not in winner
    without_dyn = reset(space, {}, base, winner, [DYN, "actor_token_mult", "logprob_token_mult"])
    assert without_dyn == {**base, tp: 1}  # the fixed micro-batch is back at the baseline's 4
    assert reset(space, {}, base, winner, [tp]) == {**winner, tp: 2}


def test_only_a_gain_still_within_noise_asks_for_more_rounds():
    up = [1.16 * f for f in (0.85, 1.15, 1.0)]  # x1.16, the interval reaches below 1.0 in 3 rounds
    assert verdict(up, True)[3] == "within noise"
    assert _undecided(verdict(up, True), maximize=True) is True
    assert _undecided(verdict([1 / r for r in up], True), maximize=True) is False  # points down: no more rounds
    assert _undecided(verdict([1 / r for r in up], False), maximize=False) is True  # a minimised objective
    assert _undecided(verdict([1.5, 1.52, 1.49], True), maximize=True) is False  # already kept
    # the same spread over 8 rounds (what ablation_max_repeats 8 allows) resolves it
    eight = [1.16 * f for f in (0.85, 1.15, 1.0, 0.9, 1.1, 0.88, 1.12, 1.0)]
    assert verdict(eight, True)[3] == "kept"


def test_the_lines_name_each_knobs_rounds_when_extra_rounds_went_to_some():
    def knob(name: str, ratios: list[float], said: str) -> AblatedKnob:
        gain, low, high, _ = verdict(ratios, True)
        return AblatedKnob(knob=name, label=name, params={name: 1}, baseline={name: 2}, ratios=ratios, gain=gain,
                           low=low, high=high, verdict=said)  # fmt: skip

    ablation = Ablation(
        baseline=0, winner=3, rounds=5, knobs=[knob("tp", [1.1, 1.2, 1.0, 1.15, 1.1], "kept"),
        knob("mb", [1.6, 1.7, 1.65], "kept")], shipped={}, winner_speedup=_ratios(1.8, 1.6, 2.0),
        shipped_speedup=_ratios(1.8, 1.6, 2.0),
    )  # fmt: skip
    lines = ablation.lines()
    assert lines[0] == "minimal winner of #3 (5 interleaved rounds, 90% intervals):"
    assert lines[1].endswith("in 5 rounds  (kept)") and lines[2].endswith("in 3 rounds  (kept)")
    same = dataclasses.replace(ablation, knobs=[knob("mb", [1.6, 1.7, 1.65], "kept")], rounds=3)
    assert "rounds  (kept)" not in same.lines()[1]


def test_extra_rounds_pair_with_the_reference_over_the_rounds_both_ran():
    winner = Candidate(1, {}, values=[2.0, 2.2, 2.4, 2.6], key_metrics=[{}] * 4, feasible=[True] * 4, ran=[True] * 4,
                       limits=[{}] * 4)  # fmt: skip
    ref = Candidate(2, {}, values=[1.0, 1.1, 1.2], key_metrics=[{}] * 3, feasible=[True] * 3, ran=[True] * 3,
                    limits=[{}] * 3)  # fmt: skip
    a, b = _paired(winner, ref)
    assert a.values == [2.0, 2.2, 2.4] and b.values == [1.0, 1.1, 1.2]
    assert len(a.key_metrics) == len(a.feasible) == len(a.ran) == len(a.limits) == 3
    assert winner.values == [2.0, 2.2, 2.4, 2.6]  # the candidate itself keeps every round


def test_intervals_overlap():
    assert intervals_overlap((1.1, 1.4), (1.3, 1.8)) is True
    assert intervals_overlap((1.1, 1.2), (1.3, 1.8)) is False
    assert intervals_overlap((math.nan, 1.2), (1.3, 1.8)) is None


def _ratios(geo: float, low: float, high: float) -> Ratios:
    return Ratios(speedup_mean=geo, speedup_geomean=geo, speedup_low=low, speedup_high=high, speedup_min=low)


def test_find_winner_ships_the_minimal_winner_and_the_file_round_trips(tmp_path):
    space = load_space(str(write_space(tmp_path)))
    paths = StudyPaths(tmp_path / "runs", "small")
    paths.root.mkdir(parents=True)
    base = {DYN: False, MICRO: 4, KL: 0.001}
    winner = {DYN: False, MICRO: 8, KL: 0.05}
    rows = [
        ConfirmedCandidate(number=0, params=base, values=[1.0, 1.0], feasible_rounds=2, rounds=2, mean=1.0,
                           is_baseline=True),
        ConfirmedCandidate(number=3, params=winner, values=[1.5, 1.6], feasible_rounds=2, rounds=2, mean=1.55,
                           speedup_mean=1.55, speedup_geomean=1.549, speedup_low=1.2, speedup_high=2.0),
    ]  # fmt: skip
    confirmation = Confirmation.decide(rows, 0, maximize=True)
    confirmation.write(paths)
    study = optuna.create_study()
    assert find_winner(study, paths, space).params == winner  # no ablation yet: the whole winner
    ablation = Ablation(
        study="small", baseline=0, winner=3, rounds=4,
        knobs=[
            AblatedKnob(knob=MICRO, label="ppo_micro_batch_size_per_gpu=8", params={MICRO: 8}, baseline={MICRO: 4},
                        ratios=[1.4, 1.5, 1.45, 1.5], gain=1.46, low=1.38, high=1.55, verdict="kept"),
            AblatedKnob(knob=KL, label="kl_coef=0.05", params={KL: 0.05}, baseline={KL: 0.001},
                        ratios=[0.9, 1.1, 1.0, 1.05], gain=1.01, low=0.9, high=1.13, verdict="within noise"),
        ],
        shipped={**winner, KL: 0.001}, winner_speedup=_ratios(1.5, 1.4, 1.6), shipped_speedup=_ratios(1.47, 1.35, 1.6),
        confirmed=ConfirmedSpeedup.of(rows[1]), agrees=True,
    )  # fmt: skip
    ablation.write(paths)
    read = Ablation.read(paths)
    assert read is not None and json.dumps(read.to_json(), sort_keys=True) == json.dumps(
        ablation.to_json(), sort_keys=True
    )
    shipped = find_winner(study, paths, space)
    assert shipped.params == {DYN: False, MICRO: 8, KL: 0.001}
    assert shipped.speedup == 1.47 and shipped.speedup_spread == (1.35, 1.6)
    # the summary beside it is what ships too: its rounds and memory (the report showed the whole winner's
    # "rounds 1.43-1.43" beside a 1.31x headline); the value is said to be the whole winner's
    ablation.shipped_speedup.speedup_max, ablation.shipped_speedup.memory_ratio = 1.62, 0.93
    rows[1].memory_ratio, rows[1].speedup_max = 1.06, 1.6
    ablation.write(paths)
    s = data.summary(study, paths, space)
    assert (s.speedup, s.speedup_min, s.speedup_max, s.memory_ratio) == (1.47, 1.35, 1.62, 0.93), s
    assert shipped.ships_less and s.whole == "the whole winner #3's, in confirmation" and s.winner_value == 1.55
    inert_only = dataclasses.replace(ablation, knobs=[ablation.knobs[0], dataclasses.replace(ablation.knobs[1],
                                                                                             verdict="inert here")])  # fmt: skip
    inert_only.write(paths)  # only an inert change dropped: the value is still confirmation's, beside the ablation's
    s = data.summary(study, paths, space)  # speedup (a reader divided the two and got another speedup): said
    assert not find_winner(study, paths, space).ships_less and s.whole == "in confirmation" and s.speedup == 1.47
    ablation.write(paths)
    from autotune.export.winner import _whose

    assert _whose(find_winner(study, paths, space)) == (
        " (mean of 2 confirmation rounds; the whole winner #3's, before the ablation's drops)"
    )
    text = "\n".join(shipped.ablation.lines()) if shipped.ablation else ""
    assert "kept    ppo_micro_batch_size_per_gpu=8: ×1.460 [1.380, 1.550]" in text
    assert "dropped kl_coef=0.05: ×1.010 [0.900, 1.130]  (within noise)" in text
    assert "the ablation agrees" in text and "no change cleared the noise" not in text
    one_round = ConfirmedSpeedup(speedup_mean=1.43, speedup_min=1.43, speedup_max=1.43, speedup_std=0.0, rounds=1,
                                 speedup_geomean=1.43)  # --confirm 1: no interval (it printed "[nan, nan]")  # fmt: skip
    unmeasured = Ablation(**{**ablation.__dict__, "confirmed": one_round, "agrees": None})
    said = unmeasured.lines()
    assert "confirmation measured the winner ×1.430 (one round: no interval): the ablation not compared" in said
    # two rounds on a busy machine: [0.09, 26] "agrees" with the ablation's ×0.75, and says what that is worth
    busy = ConfirmedSpeedup(speedup_mean=1.54, speedup_min=0.5, speedup_max=4.7, speedup_std=2.0, rounds=2,
                            speedup_geomean=1.539, speedup_low=0.090, speedup_high=26.178)  # fmt: skip
    wide = Ablation(**{**ablation.__dict__, "confirmed": busy, "agrees": True}).lines()
    assert any(line.endswith("the ablation agrees (its interval spans more than a factor of 2, so it agrees with "
                             "almost anything: more rounds narrow it)") for line in wide), wide  # fmt: skip
    assert not any("factor of 2" in line for line in ablation.lines())  # [1.38, 1.55]: a real agreement
    # every change dropped within noise while confirmation's interval lies above 1: "the ablation agrees" read as
    # support for shipping nothing; said, with the way to more rounds (audit 20 F7). Not said where a change ships,
    # nor where confirmation's own interval reaches 1
    dropped = [dataclasses.replace(k, verdict="within noise") for k in ablation.knobs]
    nothing = Ablation(**{**ablation.__dict__, "knobs": dropped})
    advice = "confirmation's interval lies above 1, but no single change cleared the noise in"
    assert ablation.confirmed is not None and ablation.confirmed.speedup_low > 1
    assert any(line.startswith(advice) and "`--ablate N`" in line for line in nothing.lines()), nothing.lines()
    assert not any(line.startswith(advice) for line in ablation.lines())
    assert not any(line.startswith(advice) for line in Ablation(**{**nothing.__dict__, "confirmed": busy}).lines())
    # and its file is strict JSON (a bare NaN, which a browser's JSON.parse refuses, is written as null), read back
    unmeasured.write(paths)

    def refuse(constant: str) -> None:
        raise ValueError(f"{constant} in {Ablation.file(paths)}")

    json.loads(Ablation.file(paths).read_text(), parse_constant=refuse)
    back = Ablation.read(paths)
    assert back is not None and math.isnan(back.confirmed.speedup_low) and back.lines() == said
    assert json.dumps(back.to_json(), sort_keys=True) == json.dumps(unmeasured.to_json(), sort_keys=True)
    nothing = Ablation(**{**ablation.__dict__, "knobs": [ablation.knobs[1]]})
    assert any(line.startswith("no change cleared the noise: the baseline's systems values ship; whole winner ×")
               for line in nothing.lines()), nothing.lines()  # fmt: skip
    ablation.write(paths)
    frame, info = data.minimal_winner(study, paths, space)  # the report's table, built before it is rendered
    assert info is not None and list(frame["ships"]) == [True, False]
    assert list(frame["verdict"]) == ["kept", "within noise"] and frame["baseline"][1] == "kl_coef=0.001"
    # an ablation of another winner (the sweep went on since) is not applied
    Ablation(**{**ablation.__dict__, "winner": 7}).write(paths)
    assert find_winner(study, paths, space).ablation is None
    assert data.minimal_winner(study, paths, space)[1] is None  # nor shown as what ships (audit 13 F3)
    # nor one of the same winner under an earlier confirmation: a `--confirm 3` rerun measured it again (3 rounds,
    # another mean) and was cut short before its own ablation; the old ablation's figures are not this one's
    ablation.write(paths)
    assert ablation.measured_on(confirmation) and find_winner(study, paths, space).ablation is not None
    again = ConfirmedCandidate(
        **{**rows[1].__dict__, "values": [1.7, 1.8, 1.75], "rounds": 3, "feasible_rounds": 3, "speedup_geomean": 1.74}
    )
    Confirmation.decide([rows[0], again], 0, maximize=True).write(paths)
    remeasured = Confirmation.read(paths)
    assert remeasured is not None and remeasured.winner == 3 and not ablation.measured_on(remeasured)
    assert find_winner(study, paths, space).ablation is None
    # what `best` says of it: not "the ablation was off: --ablate 0" when an ablation began and was cut short
    from autotune.study.results import why_not_ablated

    unablated = find_winner(study, paths, space)
    assert why_not_ablated(unablated, paths).startswith("the ablation was off: `--ablate 0`")
    (paths.root / "ablation").mkdir(parents=True)  # asked for, then the run killed before its first run (F5)
    (paths.root / "ablation" / "requested").write_text("--ablate 2\n")
    assert why_not_ablated(unablated, paths).startswith("the ablation did not finish (cut short?)")
    (paths.root / "ablation" / "requested").unlink()
    (paths.root / "ablation" / "r1-base").mkdir(parents=True)  # the earlier ablation's runs, finished: not this one's
    assert why_not_ablated(unablated, paths).startswith("the ablation was off: `--ablate 0`")
    (paths.root / "ablation" / "r1-base" / "kept.json").write_text("{}")  # a run of an ablation cut short
    assert why_not_ablated(unablated, paths).startswith("the ablation did not finish (cut short?): the same `autot")
    (paths.root / "ablation" / "r1-base" / "kept.json").unlink()
    # the rounds the confirming worker asked for, as it records them (`ask_ablation`): a `--confirm 1 --ablate 0`
    # worker was told "the ablation needs 2 or more (`--confirm 2`)", which --confirm 1 does not stop, and one beside
    # another worker's finished ablation of another winner "cut short ... the same command" (audit 38 F3, F4)
    from autotune.study.ablation_result import ask_ablation

    me = f"worker pid {os.getpid()} on {socket.gethostname()}"
    one_round = dataclasses.replace(unablated, confirmed=dataclasses.replace(unablated.confirmed, rounds=1))
    ask_ablation(paths, 0)
    off = (
        f"the ablation was off in {me}, which confirmed it: `--ablate 0`, or the space's `confirm.ablation_repeats: 0`"
    )
    assert why_not_ablated(one_round, paths) == off and why_not_ablated(unablated, paths) == off
    ask_ablation(paths, 1)  # --confirm 1 and no --ablate: the ablation's rounds default to confirmation's
    assert why_not_ablated(one_round, paths) == (
        f"the ablation was asked for 1 round in {me}, which confirmed it: it needs 2 or more (`--ablate 2`); without "
        "`--ablate` it runs the space's `confirm.ablation_repeats`, else as many rounds as confirmation (`--confirm 1`)"
    )
    ask_ablation(paths, 2)  # asked, and killed before its ablation finished
    assert why_not_ablated(one_round, paths).startswith("the ablation did not finish (cut short?): the same `autot")


def one_round_confirmation(base, winner):
    """A confirmation of one round in which trial #1 (`winner`) ran twice the baseline #0 (`base`)."""
    rows = [
        ConfirmedCandidate(number=0, params=base, values=[1.0], feasible_rounds=1, rounds=1, mean=1.0,
                           is_baseline=True),
        ConfirmedCandidate(number=1, params=winner, values=[2.0], feasible_rounds=1, rounds=1, mean=2.0,
                           speedup_mean=2.0, speedup_geomean=2.0),
    ]  # fmt: skip
    return Confirmation.decide(rows, 0, maximize=True)


@pytest.mark.slow  # 35-55 s of real runs; the verdict rule is tested above on recorded rounds (make test-slow)
def test_real_ablation_keeps_a_real_gain_and_drops_a_knob_without_effect(tmp_path):
    """ppo_epochs 4 → 1 cuts the update passes (a large real gain; marked `systems` in this space only
    so the throughput stage searches it: the ablation judges speed, whatever a knob's role);
    forward_prefetch has no measurable effect on a CPU. Four interleaved rounds of real world-1 runs;
    the interval's level is 95% so a knob without effect is wrongly kept in at most 2.5% of runs."""
    space_path = write_space(
        tmp_path,
        steps=4,
        extra_params=f"  {EPOCHS}: {{type: int, low: 1, high: 4, role: systems}}\n  {PREFETCH}: {{type: bool}}",
        extra_baseline=f"  {EPOCHS}: 4\n  {PREFETCH}: false",
    )
    text = space_path.read_text()
    assert "confirm: {top_k: 1, repeats: 1}" in text
    space_path.write_text(
        text.replace("confirm: {top_k: 1, repeats: 1}", "confirm: {top_k: 1, repeats: 1, ablation_max_repeats: 6}")
    )
    runs = tmp_path / "runs"
    proc = autotune("run", "--space", str(space_path), "--runs-dir", str(runs), "--trials", "2", "--confirm", "0",
                    "--report-dir", str(tmp_path / "report"))  # fmt: skip
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-2000:]
    space = throughput_stage(load_space(str(space_path)))  # the space the sweep's phases run on
    paths = StudyPaths(runs, "small")
    study = load_study(paths)
    assert len(study.trials) == 2  # the baseline and one sampled trial, whose number the winner's row takes
    base = {DYN: False, MICRO: 4, EPOCHS: 4, PREFETCH: False}
    winner = {**base, PREFETCH: True, EPOCHS: 1}
    confirmation = one_round_confirmation(base, winner)
    confirmation.write(paths)
    progress = SweepProgress(0, "perf/throughput")
    adapter = get_adapter(space.trainer, space.command)
    result = run_ablation(study, space, adapter, paths, confirmation, 4, progress, level=0.95)
    assert result is not None
    by_knob = {k.knob: k for k in result.knobs}
    assert by_knob[EPOCHS].verdict == "kept", result.lines()
    assert by_knob[EPOCHS].low > 1.0
    assert not by_knob[PREFETCH].kept, result.lines()
    assert result.shipped == {**base, EPOCHS: 1}
    assert result.shipped_rounds == "ablation"  # the winner without forward_prefetch ran in the same rounds
    assert result.shipped_speedup.speedup_low > 1.0
    assert len(list((paths.root / "ablation").glob("r*-*"))) == 4 * 4  # base, winner, 2 leave-one-outs
    # the decided gain gets no more rounds; prefetch gets more only while it points up within noise
    assert len(by_knob[EPOCHS].ratios) == 4
    extra = sorted((paths.root / "ablation").glob("more-*/r1-*"))
    assert 4 <= len(by_knob[PREFETCH].ratios) <= 6 and len(extra) == 3 * (len(by_knob[PREFETCH].ratios) - 4)
    assert result.rounds == len(by_knob[PREFETCH].ratios)
    best = autotune("best", "small", "--runs-dir", str(runs))
    assert best.returncode == 0, best.stderr
    assert "kept    ppo_epochs=1" in best.stdout and "dropped forward_prefetch=True" in best.stdout
    out = tmp_path / "best.yaml"
    exported = autotune("export", "small", "--runs-dir", str(runs), "-o", str(out))
    assert exported.returncode == 0, exported.stdout + exported.stderr
    text = out.read_text()
    assert "ppo_epochs: 1" in text and "forward_prefetch: true" not in text
    assert f"# minimal winner of #1 ({result.rounds} interleaved rounds, 95% intervals):" in text
    report = autotune("report", "small", "--runs-dir", str(runs), "-o", str(tmp_path / "report"))
    assert report.returncode == 0, report.stderr
    page = (tmp_path / "report" / "index.html").read_text()
    assert "The minimal winner: what ships, and why" in page and "ppo_epochs=1" in page


def test_ablation_rounds_default_to_confirmation_and_refuse_negatives():
    from autotune.space.schema import ConfirmSettings

    assert ConfirmSettings(repeats=2).ablation_rounds == 2
    assert ConfirmSettings(repeats=2, ablation_repeats=3).ablation_rounds == 3
    assert ConfirmSettings(repeats=2, ablation_repeats=0).ablation_rounds == 0
    with pytest.raises(ValueError, match=r"`confirm.ablation_repeats` must be >= 0 \(0: no ablation\), got -1"):
        ConfirmSettings(ablation_repeats=-1)
    assert load_space("fsdp3d").confirm.ablation_rounds == 3
    assert load_space("fsdp3d").confirm.ablation_max_repeats == 8
    with pytest.raises(ValueError, match=r"`confirm.ablation_max_repeats` must be >= 2, got 1"):
        ConfirmSettings(ablation_max_repeats=1)


def test_a_winner_whose_ablation_sent_every_change_back_ships_the_baseline_not_one_round():
    """After 2 confirmation and 2 ablation rounds that sent every change back, `best` said "1.00x the baseline (one
    round: no interval)": the shipped speedup is exactly 1 whatever the rounds, and it read equal bounds as one."""
    from autotune.study.ablation_result import AblatedKnob
    from autotune.study.results import Winner

    unity = Ratios(speedup_mean=1.0, speedup_geomean=1.0, speedup_min=1.0, speedup_max=1.0, speedup_std=0.0,
                   speedup_low=1.0, speedup_high=1.0)  # fmt: skip
    dropped = AblatedKnob(knob="k", label="k=1", params={"k": 1}, baseline={"k": 0}, ratios=[0.97, 0.99],
                          verdict="slower")  # fmt: skip
    sent_back = Ablation(baseline=0, winner=6, rounds=2, knobs=[dropped], shipped={"k": 0}, winner_speedup=unity,
                         shipped_speedup=unity)  # fmt: skip
    winner = Winner(6, {"k": 0}, "confirmed", 1.0, 1.0, (1.0, 1.0), ablation=sent_back)
    assert winner.ships_baseline and not winner.one_round
    inert = dataclasses.replace(dropped, verdict="inert here")  # every change sent back, each inert: its value is
    assert Winner(6, {"k": 0}, "confirmed", 1.0, 1.0, (1.0, 1.0),  # the whole winner's, not what ships (audit 13 F5)
                  ablation=dataclasses.replace(sent_back, knobs=[inert])).ships_less  # fmt: skip
    kept = dataclasses.replace(dropped, verdict="kept")
    two_rounds = Winner(
        6, {"k": 1}, "confirmed", 1.0, 1.2, (1.2, 1.2), ablation=dataclasses.replace(sent_back, knobs=[kept])
    )
    assert not two_rounds.ships_baseline and not two_rounds.one_round  # equal bounds over 2 rounds: still 2 rounds
    one = Winner(
        6, {"k": 1}, "confirmed", 1.0, 1.2, (1.2, 1.2), ablation=dataclasses.replace(sent_back, knobs=[kept], rounds=1)
    )
    assert one.one_round


def baseline_study(tmp_path, steps, extra_params, extra_baseline):
    """A real study of the small space with these params that ran its baseline only: (its throughput stage,
    paths, study)."""
    space_path = write_space(tmp_path, steps=steps, extra_params=extra_params, extra_baseline=extra_baseline)
    runs = tmp_path / "runs"
    proc = autotune("run", "--space", str(space_path), "--runs-dir", str(runs), "--trials", "1", "--confirm", "0",
                    "--report-dir", str(tmp_path / "report"))  # fmt: skip
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-2000:]
    paths = StudyPaths(runs, "small")
    return throughput_stage(load_space(str(space_path))), paths, load_study(paths)


def test_an_ablation_that_sends_every_change_back_ships_the_baseline_at_one(tmp_path, capsys, monkeypatch):
    """A winner whose one change is inert here (an NCCL variable on a CPU) is, with it at baseline, the baseline
    itself: what ships was read from the winner's runs against the baseline's, and said ×0.94 [0.59, 1.50] of the
    baseline it is (audit 12 F2). Two interleaved rounds of real world-1 runs."""
    proto = "env.NCCL_PROTO"
    space, paths, study = baseline_study(
        tmp_path, 3, f"  {proto}: {{type: categorical, choices: [null, LL128]}}", f"  {proto}: null"
    )
    base = dict(study.trials[0].params)
    rows = [
        ConfirmedCandidate(number=0, params=base, values=[1.0], feasible_rounds=1, rounds=1, mean=1.0,
                           is_baseline=True),
        ConfirmedCandidate(number=1, params={**base, proto: "LL128"}, values=[1.1], feasible_rounds=1, rounds=1,
                           mean=1.1, speedup_mean=1.1, speedup_geomean=1.1),
    ]  # fmt: skip
    confirmation = Confirmation.decide(rows, 0, maximize=True)
    assert confirmation.winner == 1
    confirmation.write(paths)
    adapter = get_adapter(space.trainer, space.command)
    result = run_ablation(study, space, adapter, paths, confirmation, 2, SweepProgress(0, "perf/throughput"))
    assert result is not None and [k.verdict for k in result.knobs] == ["inert here"], result.lines()
    assert result.shipped == configure(space, adapter.defaults(space.base_config), base)
    s = result.shipped_speedup
    assert (s.speedup_geomean, s.speedup_low, s.speedup_high) == (1.0, 1.0, 1.0), result.lines()
    said = "\n".join(result.lines())  # what ships is the baseline: not "ships ×1.000 [1.000, 1.000]", the baseline
    assert "the baseline's systems values ship; whole winner ×" in said and "ships ×" not in said, said  # vs itself
    # the report's summary is of what ships, the baseline: its confirmed value, not the sent-back winner's 1.1 beside
    # a 1× (the checklist judged the winner's KL, comm share and MFU with the baseline's memory; audit 27 F4)
    from autotune.report.data import summary

    result.write(paths)
    s = summary(study, paths, space)
    assert (s.winner, s.speedup, s.winner_value) == (1, 1.0, 1.0), s
    assert s.whole == "the baseline's, in confirmation" and s.baseline_ships, s
    # `best` printed the whole winner's confirmed mean, 1.1, labelled "the baseline's" beside the report's 1.0 (the
    # baseline's confirmed mean, rows[0] above; audit 38 F1)
    from autotune.cli.reading import print_best

    capsys.readouterr()
    print_best(paths, None, space)
    said = " ".join(capsys.readouterr().out.split())
    assert "perf/throughput = 1 tokens/s/GPU (the baseline's, in confirmation)" in said, said
    # the notebook compared the baseline with the sent-back winner #1 "step by step", as if #1 shipped (audit 38 F15)
    from tests.autotune.test_notebook import executed, text_of

    text = text_of(executed(paths.runs_dir, paths.name, monkeypatch))
    assert "the baseline's systems values ship: winner #1 does not ship, nothing to compare with the baseline #0" in (
        text
    ), text[-3000:]


def record_rounds(folder, stem, params, values, key, breach=""):
    """Record one configuration's ablation rounds (r1, r2, ...) as the kept results an interrupted ablation goes on
    from: the real ablation reads them instead of running them. `breach`: each round broke a limit so."""
    from autotune.sweep.confirmation import KEPT, _canonical

    for r, value in enumerate(values, 1):
        run = folder / f"r{r}-{stem}"
        run.mkdir(parents=True, exist_ok=True)
        result = {"value": value, "feasible": not breach, "ran": True, "limits": {}, "key_metrics": {},
                  "detail": breach}  # fmt: skip
        (run / KEPT).write_text(json.dumps({"key": key, "params": _canonical(params), **result}))


def test_a_one_change_winner_pools_confirmations_rounds_only_when_confirmation_ran_no_other_candidate(tmp_path):
    """A winner with one change has the baseline as its leave-one-out: the ablation measures again what confirmation
    measured. Confirmed ×1.85 [1.15, 2.97], it was dropped by two noisier ablation rounds (audit 38 F17). Confirmation's
    rounds pool with the ablation's when confirmation ran no other candidate (they did not choose the winner); beside
    another candidate they picked the best of two and read high by chance: not reused. The ablation's two rounds are
    recorded (1.6 and 1.0 the baseline), read by the real ablation; the study is a real one."""
    from autotune.sweep.confirmation import kept_key
    from autotune.trial.record import TrialRecord

    space, paths, study = baseline_study(tmp_path, 2, f"  {EPOCHS}: {{type: int, low: 1, high: 2, role: systems}}",
                                         f"  {EPOCHS}: 2")  # fmt: skip
    adapter = get_adapter(space.trainer, space.command)
    defaults = adapter.defaults(space.base_config)
    base = dict(study.trials[0].params)
    winner = configure(space, defaults, {**base, EPOCHS: 1})
    key = kept_key(space, dict(TrialRecord.of(study.trials[0]).limits))
    confirmed = [1.3, 1.25, 1.35, 1.3]  # the winner over the baseline, round by round

    def ablate(others):
        folder = paths.root / "ablation"
        record_rounds(folder, "base", base, [1.0, 1.0], key)
        record_rounds(folder, "winner", winner, [1.6, 1.0], key)
        rows = [
            ConfirmedCandidate(number=0, params=base, values=[1.0] * 4, feasible_rounds=4, rounds=4, mean=1.0,
                               is_baseline=True),
            ConfirmedCandidate(number=1, params=winner, values=confirmed, feasible_rounds=4, rounds=4, mean=1.3,
                               speedup_geomean=1.3),
            *(ConfirmedCandidate(number=2, params={**base, EPOCHS: 1, DYN: True}, values=[1.2] * 4,
                                 feasible_rounds=4, rounds=4, mean=1.2, speedup_geomean=1.2) for _ in range(others)),
        ]  # fmt: skip
        confirmation = Confirmation.decide(rows, 0, maximize=True)
        assert confirmation.winner == 1
        result = run_ablation(study, space, adapter, paths, confirmation, 2, SweepProgress(0, "perf/throughput"))
        assert result is not None and [k.knob for k in result.knobs] == [EPOCHS], result.lines()
        (paths.root / "ablation.json").unlink()
        return result, result.knobs[0]

    # alone, 1.6 and 1.0 reach below 1 (t with one degree of freedom): within noise
    result, knob = ablate(others=1)
    assert (knob.verdict, knob.ratios, knob.confirmation_rounds) == ("within noise", [1.6, 1.0], 0), result.lines()
    assert result.shipped == configure(space, defaults, base)
    # pooled: six rounds, geometric mean (1.3 * 1.25 * 1.35 * 1.3 * 1.6 * 1.0) ** (1/6) = 1.2879, kept
    result, knob = ablate(others=0)
    assert (knob.verdict, knob.ratios, knob.confirmation_rounds) == ("kept", [*confirmed, 1.6, 1.0], 4), result.lines()
    assert knob.low > 1.0 and abs(knob.gain - 1.2879) < 1e-3, knob
    assert result.shipped == winner and result.shipped_rounds == "pooled" and result.shipped_round_count == 6
    assert abs(result.shipped_speedup.speedup_geomean - 1.2879) < 1e-3, result.shipped_speedup
    said = "\n".join(result.lines())
    assert "in 6 rounds, 4 of them confirmation's  (kept)" in said, said
    assert "over the baseline (confirmation's rounds and the ablation's)" in said, said


def test_a_change_whose_leave_one_out_broke_a_limit_is_needed_and_what_ships_stays_inside_the_limits(tmp_path):
    """Leaving out a change that saves memory is faster: the ablation dropped it, and what shipped broke the memory
    limit in every round (audit 30 F1). The rounds are recorded (each run's kept result, the files an interrupted
    ablation goes on from), so the real ablation reads them instead of running them; the study is a real one."""
    from autotune.sweep.confirmation import kept_key
    from autotune.trial.record import TrialRecord

    space, paths, study = baseline_study(
        tmp_path, 2, f"  {PREFETCH}: {{type: bool}}\n  {EPOCHS}: {{type: int, low: 1, high: 2, role: systems}}",
        f"  {PREFETCH}: false\n  {EPOCHS}: 2",
    )  # fmt: skip
    adapter = get_adapter(space.trainer, space.command)
    defaults = adapter.defaults(space.base_config)
    base = dict(study.trials[0].params)
    winner = configure(space, defaults, {**base, DYN: True, PREFETCH: True, EPOCHS: 1})
    key = kept_key(space, dict(TrialRecord.of(study.trials[0]).limits))
    breach = "outside limits: memory 0.0081 GiB > max 0.0079 GiB"

    def record(folder, stem, params, value, feasible=True):
        record_rounds(folder, stem, params, [value * 1.01, value * 1.02], key, "" if feasible else breach)

    def ablate(loo_values):
        folder = paths.root / "ablation"
        record(folder, "base", base, 1.0)
        record(folder, "winner", winner, 2.0)
        for name, (value, feasible) in loo_values.items():
            record(folder, f"without-{name.rsplit('.', 1)[-1]}", reset(space, defaults, base, winner, [name]), value,
                   feasible)  # fmt: skip
        confirmation = one_round_confirmation(base, winner)
        result = run_ablation(study, space, adapter, paths, confirmation, 2, SweepProgress(0, "perf/throughput"))
        assert result is not None
        return result, {k.knob: k for k in result.knobs}

    # without ppo_epochs=1 (here a stand-in for a memory-saving knob) it runs faster (2.4 vs the winner's 2.0) but out of memory in both rounds: needed
    result, by_knob = ablate({DYN: (1.0, True), PREFETCH: (2.0, True), EPOCHS: (2.4, False)})
    assert by_knob[DYN].verdict == "kept" and by_knob[PREFETCH].verdict == "within noise"
    assert by_knob[EPOCHS].verdict == "needed" and by_knob[EPOCHS].kept, result.lines()
    assert f"(needed: without it {breach} in 2 of 2 rounds)" in "\n".join(result.lines())
    assert result.shipped == configure(space, defaults, {**winner, PREFETCH: False})
    assert result.shipped[EPOCHS] == 1
    # every change left out alone stays inside the limits, but what ships (ppo_epochs and prefetch both back) breaks
    # them in its own rounds: the whole winner ships, and the changes it would have sent back are needed
    (paths.root / "ablation.json").unlink()
    reduced = configure(space, defaults, {**winner, PREFETCH: False, EPOCHS: 2})
    record(paths.root / "ablation" / "reduced", "base", base, 1.0)
    record(paths.root / "ablation" / "reduced", "shipped", reduced, 2.1, feasible=False)
    result, by_knob = ablate({DYN: (1.0, True), PREFETCH: (2.0, True), EPOCHS: (2.0, True)})
    assert result.shipped == winner, result.lines()
    assert [by_knob[k].verdict for k in (DYN, PREFETCH, EPOCHS)] == ["kept", "needed", "needed"]
    assert by_knob[PREFETCH].without == f"with the others sent back, {breach} in 2 of 2 rounds"
