"""The minimal winner: after confirmation, keep only the winner's changes whose gain clears the noise.

A sweep's winner differs from the baseline in every knob the sampler happened to draw, and most of
those differences are whatever came along with the few that matter. Shipping them all would change
a production job for nothing (or for noise). This phase is a leave-one-out ablation, measured the
way confirmation is (every configuration once per round, rotated order, ratios within a round):

    each round   the baseline, the winner, and for every knob the winner changes the winner with
                 that knob back at its baseline value
    a knob       its gain is the winner over the winner without it, per round; the knob stays when
                 the `LEVEL` interval of the geometric mean (Student t over the rounds) lies above
                 1.0 (below it, for a minimised objective); otherwise it goes back to its baseline
                 value: within noise, or slower
    more rounds  with `confirm.ablation_max_repeats`, a knob still within noise whose gain points up
                 gets one more round at a time (the baseline, the winner and the winner without it),
                 up to that many rounds in all: a 10% gain needs about 8 paired rounds on a 2-core
                 machine (`benchmarks/noise_floor.py`), and only the undecided knobs pay for them.
                 Judging after every extra round lets a change without effect ship more often
                 (simulated at that noise, `benchmarks/ablation_stopping.py`: 12.7% against 4.8%
                 with 3 fixed rounds) and a real 10% gain far more often (68% against 24%)
    one change   a winner with one change has the baseline as its leave-one-out: the ablation measures again
                 what confirmation measured, the winner over the baseline. When confirmation ran no other
                 candidate beside it, its rounds pool with the ablation's (`confirmation_ratios`): they did not
                 choose the winner, so a change without effect passes the pooled interval no more often than
                 the ablation's own (at most (1 - LEVEL) / 2: shipping needs that interval above 1.0, and
                 confirmation letting it through first only lowers it). A confirmed ×1.85 [1.15, 2.97] was
                 dropped by two noisier ablation rounds (audit 38 F17). With other candidates beside it,
                 confirmation's rounds picked the best of several, which reads high by chance (the winner's
                 curse): not reused then.
    what ships   the winner with every dropped knob at baseline. When that is a configuration the
                 rounds already ran (the winner itself, or the winner without its one dropped knob),
                 its speedup over the baseline comes from the same rounds; else the reduced
                 configuration gets interleaved rounds of its own against the baseline.

Knobs inert on the platform (NCCL variables on a gloo run) are not run: they go back to baseline,
and the winner is measured with them there. A param that exists only under another param's `when`
travels with it (`explain.knobs`). Leave-one-out reads each knob's gain in the presence of all the
others: two knobs that each give the same gain alone would both look redundant; the reduced
configuration's own measurement against the baseline is what ships, so such a loss shows there.

The result is an `Ablation` (study/ablation_result.py), written to `runs/<study>/ablation.json` and read by
`find_winner`, so `best`, `export` and the report ship and show the minimal winner.

    runs/<study>/ablation/r<round>-<stem>/    the rounds (base, winner, without-<knob>)
    runs/<study>/ablation/more-<round>/r1-<stem>/    the extra rounds of the undecided knobs
    runs/<study>/ablation/reduced/r<round>-<stem>/   the reduced configuration's own rounds
"""

from __future__ import annotations

import dataclasses
import math
import statistics
from collections.abc import Collection
from typing import Any

import optuna
from rich.markup import escape

from autotune.adapters.base import TrainerAdapter
from autotune.export.winner import sweep_device
from autotune.space.freeze import inert_params
from autotune.space.schema import Space
from autotune.study.ablation_result import AblatedKnob, Ablation, AblationVerdict, ask_ablation
from autotune.study.confirmation_result import Confirmation, ConfirmedSpeedup
from autotune.study.progress import SweepProgress
from autotune.study.ratios import LEVEL, Ratios, gain_interval, intervals_overlap
from autotune.study.storage import StudyPaths, baseline_trial
from autotune.sweep.confirmation import (
    Candidate,
    compare,
    finish_kept,
    kept_key,
    measure_interleaved,
    outside_limits,
    start_kept,
)
from autotune.sweep.explain import Knob, configure, knobs
from autotune.trial.record import TrialRecord


def verdict(ratios: list[float], maximize: bool, level: float = LEVEL) -> tuple[float, float, float, AblationVerdict]:
    """(gain, low, high, verdict) of one knob from its per-round ratios (the winner over the winner without it).

    Kept only when the whole interval lies on the gaining side of 1.0; an interval on the losing
    side is "slower", one that reaches 1.0 "within noise"; fewer than two usable rounds give no
    interval and the knob is "not measured" (it goes back to baseline: nothing shows it earns its place).
    """
    usable = [r for r in ratios if r > 0 and not math.isnan(r)]
    gain = math.exp(sum(map(math.log, usable)) / len(usable)) if usable else math.nan
    low, high = gain_interval(usable, level)
    if math.isnan(low):
        return gain, low, high, "not measured"
    if (low > 1.0) if maximize else (high < 1.0):
        return gain, low, high, "kept"
    if (high < 1.0) if maximize else (low > 1.0):
        return gain, low, high, "slower"
    return gain, low, high, "within noise"


def reset(
    space: Space, defaults: dict[str, Any], baseline: dict[str, Any], winner: dict[str, Any], names: Collection[str]
) -> dict[str, Any]:
    """The winner with the params `names` at their baseline values, re-applied through the space: a
    param the winner had switched off (a fixed micro-batch under dynamic batching) comes back at its
    baseline value when its condition does."""
    return configure(space, defaults, {**baseline, **{k: v for k, v in winner.items() if k not in names}})


def run_ablation(
    study: optuna.Study,
    space: Space,
    adapter: TrainerAdapter,
    paths: StudyPaths,
    confirmation: Confirmation,
    repeats: int,
    progress: SweepProgress,
    level: float = LEVEL,
) -> Ablation | None:
    """Ablate the confirmed winner and write `ablation.json`; None when there is nothing to ablate."""
    base = baseline_trial(study)
    row = confirmation.row(confirmation.winner)
    if base is None or row is None or repeats < 2:
        progress.note("[yellow]ablation skipped: it needs a confirmed winner and at least 2 rounds[/]")
        return None
    maximize = space.objectives[0].direction == "maximize"
    defaults = adapter.defaults(space.base_config)
    base_params = dict(base.params)
    inert = inert_params(space, adapter.knob_status, sweep_device(study))
    changes, same, skipped = knobs(space, base_params, row.params, inert)
    winner_params = configure(space, defaults, {**row.params, **{n: base_params.get(n) for n in skipped}})
    limits = dict(TrialRecord.of(base).limits)

    def back_to_baseline(names: Collection[str]) -> dict[str, Any]:
        return reset(space, defaults, base_params, winner_params, names)

    def without(knob: Knob) -> dict[str, Any]:
        return back_to_baseline(knob.params)

    baseline_c = Candidate(0, base_params, label="base", is_baseline=True)
    winner_c = Candidate(1, winner_params, label="winner")
    loo = [Candidate(i + 2, without(k), label=f"without-{_slug(k.name)}") for i, k in enumerate(changes)]
    # the last knob's leave-one-out is the baseline itself: its rounds are the baseline's
    runs = [baseline_c, winner_c, *(c for c in loo if c.params != base_params)]
    folder = paths.root / "ablation"
    keep = kept_key(space, limits)
    start_kept(folder)  # an ablation cut short goes on from its finished rounds; a finished one's do not mix in
    ask_ablation(paths, repeats)  # cleared with the folder: what `best` reads if this one is cut short
    measure_interleaved(space, adapter, runs, folder, repeats, limits, progress, "ablation", keep=keep)

    def ref_of(c: Candidate) -> Candidate:
        return baseline_c if c.params == base_params else c

    prior = confirmation_ratios(confirmation, row.number)

    def judged(c: Candidate) -> tuple[list[float], tuple[float, float, float, AblationVerdict]]:
        # rounds are appended in order, so the first len(ref) rounds of the winner pair with the ref's
        ratios = [
            w / v if v and not math.isnan(w) else math.nan
            for w, v in zip(winner_c.values, ref_of(c).values, strict=False)
        ]
        if c.params == base_params:  # the winner's one change: confirmation measured this comparison too
            ratios = prior + ratios
        gain, low, high, said = verdict(ratios, maximize, level)
        return ratios, (gain, low, high, "needed" if broke(c) else said)

    def broke(c: Candidate) -> str:
        """How the winner without this change broke a limit in rounds it ran, or "": such a change is needed
        whatever its speed (leaving out one that saves memory is faster: it was dropped, and what shipped broke
        the memory limit in every round, audit 30 F1). The baseline itself is never blamed."""
        return "" if c.params == base_params else outside_limits(c)

    most = max(repeats, space.confirm.ablation_max_repeats or repeats)
    for extra in range(repeats, most):  # undecided changes that point to a gain get more rounds
        undecided = [c for c in loo if _undecided(judged(c)[1], maximize)]
        if not undecided:
            break
        more = [baseline_c, winner_c, *(c for c in undecided if c.params != base_params)]
        names = ", ".join(k.label for k, c in zip(changes, loo, strict=True) if c in undecided)
        progress.note(f"still within noise, one more round: {names}")
        measure_interleaved(
            space, adapter, more, folder / f"more-{extra + 1}", 1, limits, progress, "ablation", (extra + 1, most),
            keep=keep,
        )  # fmt: skip
    rounds = len(winner_c.values)
    ablated = []
    for knob, c in zip(changes, loo, strict=True):
        ratios, (gain, low, high, said) = judged(c)
        ablated.append(
            AblatedKnob(
                knob=knob.name,
                label=knob.label,
                params=knob.params,
                baseline={n: base_params.get(n) for n in knob.params},
                ratios=ratios,
                gain=gain,
                low=low,
                high=high,
                verdict=said,
                without=broke(c),
                confirmation_rounds=len(prior) if c.params == base_params else 0,
            )
        )
    for name in skipped:
        ablated.append(
            AblatedKnob(
                knob=name,
                label=Knob(name, {name: row.params[name]}).label,
                params={name: row.params[name]},
                baseline={name: base_params.get(name)},
                verdict="inert here",
            )
        )
    dropped = {n for k in ablated if not k.kept for n in k.params}
    shipped = back_to_baseline(dropped)
    # the baseline first: when every change went back, what ships is the baseline, at 1x (the winner's runs, equal
    # to it once its inert changes are at baseline, read 0.94x of it: noise said as a speedup)
    measured = next((c for c in [baseline_c, winner_c, *loo] if c.params == shipped), None)
    shipped_rounds = "ablation"
    if measured is None:
        shipped_rounds = "reduced"
        progress.note(f"ablation dropped {len(dropped)} params: measuring what ships against the baseline")
        measured = Candidate(1, shipped, label="shipped")
        ref = Candidate(0, base_params, label="base", is_baseline=True)
        measure_interleaved(
            space, adapter, [ref, measured], folder / "reduced", repeats, limits, progress, "shipped", keep=keep
        )
        shipped_speedup = compare(measured, ref)
    elif measured is winner_c and prior and len(loo) == 1 and loo[0].params == base_params:
        # the one change ships, judged on confirmation's rounds too: its speedup over the baseline is theirs too
        shipped_rounds = "pooled"
        shipped_speedup = pooled(compare(*_paired(winner_c, baseline_c)), ablated[0].ratios, level)
    else:
        shipped_speedup = compare(*_paired(measured, baseline_c)) if measured is not baseline_c else _unity()
    outside = broke(measured) if measured is not winner_c else ""
    if outside:  # every change it sent back was harmless alone, not together: the whole winner ships
        progress.note(f"[yellow]what the ablation would ship broke a limit ({outside}): the whole winner ships[/]")
        shipped, shipped_rounds = winner_params, "ablation"
        shipped_speedup = compare(winner_c, baseline_c)
        for k in ablated:
            if k.verdict in ("within noise", "slower", "not measured"):
                k.verdict, k.without = "needed", f"with the others sent back, {outside}"
    winner_speedup = compare(winner_c, baseline_c)
    confirmed = ConfirmedSpeedup.of(row)
    result = Ablation(
        study=paths.name,
        baseline=base.number,
        winner=row.number,
        objective=space.objectives[0].metric,
        rounds=rounds,
        level=level,
        knobs=ablated,
        same_as_baseline=same,
        shipped=shipped,
        winner_speedup=winner_speedup,
        shipped_speedup=shipped_speedup,
        shipped_rounds=shipped_rounds,
        confirmed=confirmed,
        agrees=intervals_overlap(
            (winner_speedup.speedup_low, winner_speedup.speedup_high), (confirmed.speedup_low, confirmed.speedup_high)
        ),
    )
    result.write(paths)
    finish_kept(folder)
    for line in result.lines():
        progress.note(escape(line))
    return result


def confirmation_ratios(confirmation: Confirmation, winner: int) -> list[float]:
    """The winner over the baseline in each of confirmation's rounds (NaN where a run failed), when confirmation
    measured no other candidate beside it; else [] (those rounds chose the winner among several: not reused)."""
    row, base = confirmation.row(winner), confirmation.row(confirmation.baseline)
    if row is None or base is None or set(confirmation.candidates) != {winner, confirmation.baseline}:
        return []
    return [
        w / b if b and not math.isnan(w) and not math.isnan(b) else math.nan
        for w, b in zip(row.values, base.values, strict=False)
    ]


def pooled(measured: Ratios, ratios: list[float], level: float = LEVEL) -> Ratios:
    """`measured` (the ablation's rounds) with its speedup figures taken over `ratios` (confirmation's rounds and
    the ablation's); its memory and RSS ratios stay the ablation's."""
    usable = [r for r in ratios if r > 0 and not math.isnan(r)]
    if not usable:
        return measured
    low, high = gain_interval(usable, level)
    return dataclasses.replace(
        measured,
        speedup_mean=statistics.fmean(usable),
        speedup_geomean=math.exp(statistics.fmean(map(math.log, usable))),
        speedup_min=min(usable),
        speedup_max=max(usable),
        speedup_std=statistics.stdev(usable) if len(usable) > 1 else 0.0,
        speedup_low=low,
        speedup_high=high,
    )


def _undecided(judged: tuple[float, float, float, AblationVerdict], maximize: bool) -> bool:
    """Within noise, with the point estimate on the gaining side: more rounds may resolve it."""
    gain, _, _, said = judged
    return said == "within noise" and (gain > 1.0 if maximize else gain < 1.0)


def _paired(c: Candidate, ref: Candidate) -> tuple[Candidate, Candidate]:
    """`c` and `ref` over the rounds both ran (the first ones: extra rounds are appended)."""
    n = min(len(c.values), len(ref.values))

    def cut(x: Candidate) -> Candidate:
        return dataclasses.replace(x, values=x.values[:n], key_metrics=x.key_metrics[:n], feasible=x.feasible[:n],
                                   ran=x.ran[:n], limits=x.limits[:n], details=x.details[:n])  # fmt: skip

    return cut(c), cut(ref)


def _unity() -> Ratios:
    """The baseline against itself: nothing ships, the speedup is exactly 1."""
    return Ratios(
        speedup_mean=1.0, speedup_geomean=1.0, speedup_min=1.0, speedup_max=1.0, speedup_std=0.0,
        speedup_low=1.0, speedup_high=1.0, memory_ratio=1.0, rss_ratio=1.0,
    )  # fmt: skip


def _slug(name: str) -> str:
    return "".join(ch if ch.isalnum() or ch in "_-" else "_" for ch in name.rsplit(".", 1)[-1])[:60]
