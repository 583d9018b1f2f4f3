"""The study's winner, decided in one place (`find_winner`), from what the sweep's phases concluded.

    runs/<study>/confirmation.json   `Confirmation` (confirmation_result.py): the top-k and the baseline re-run
    runs/<study>/explain.json        `Explanation` (ablation_result.py): the path from the baseline to the winner
    runs/<study>/ablation.json       `Ablation` (ablation_result.py): the minimal winner, every change it keeps measured
    runs/<study>/predicted.json      `PredictedWinner` (predicted_winner.py): a simulated sweep's winner
    runs/<study>/quality.json        `Quality` (quality_result.py): the quality stage's decision

`trial/record.py` is the one module that knows how a trial's result is stored; each conclusion has
one module that reads and writes its file (above; `ratios.py` holds the per-round ratios and
intervals they share, `result_files.py` keeps them all as JSON). `find_winner` is the one place
that decides which trial won (`Confirmation.decide` is the rule among confirmed candidates), and
`why_unconfirmed` what is said of a winner no confirmation measured. Everything else (best, export,
the report, explain, benchmarks, notebooks) uses the fields. The files keep the layout earlier
versions wrote, so theirs load unchanged; a file that cannot be read says how to measure it again.
"""

from __future__ import annotations

import collections
import math
from dataclasses import dataclass
from typing import Any, Literal

import optuna

from autotune.space.schema import Space
from autotune.study.ablation_result import Ablation, Explanation, ablation_asked
from autotune.study.confirmation_result import Confirmation, ConfirmedCandidate, beaten_line
from autotune.study.predicted_winner import PredictedWinner
from autotune.study.result_files import null_for_nan
from autotune.study.storage import StudyInfo, StudyPaths, baseline_trial, counted, feasible_trials
from autotune.trial.record import TrialRecord, is_baseline, outcome_of

WinnerSource = Literal["confirmed", "sweep", "predicted"]


class NoWinner(LookupError):
    """The study has no feasible trial yet."""


def current_explanation(study: optuna.Study, paths: StudyPaths, space: Space) -> tuple[Explanation | None, bool]:
    """(the stored explanation when it leads to the winner as it ships now, compared with the winner's
    measurement as it stands; whether that comparison changed since it was written). A re-confirmation or a new
    ablation changes what the path is compared with, not the path: it is compared again, not re-measured. None
    when `explain` has not run, or ran for another winner."""
    stored = Explanation.read(paths)
    if stored is None:
        return None, False
    try:
        winner = find_winner(study, paths, space)
    except NoWinner:
        return None, False
    if stored.winner_params != winner.params:
        return None, False
    current = stored.compared(*Explanation.reference(winner, Confirmation.read(paths)))
    return current, null_for_nan(current.to_json()) != null_for_nan(stored.to_json())


UNCHECKED = " and no equivalence check (`export --check` runs it)"
"""How UNCONFIRMED ends; a passing `export --check` takes it out of the export's header."""
UNCONFIRMED = (
    "not confirmed (no confirmation ran: --confirm 0, the sweep was cut short, or another worker of the study has "
    "yet to confirm it, which `autotune best` then shows): one run of each configuration, so its speedup may be the "
    "machine's noise; no ablation" + UNCHECKED
)
"""Said by `best` and in the export's header when a real sweep's winner is its best single run."""

BASELINE_ONLY = (
    "the throughput stage ran only its baseline (the systems values the quality stage used): no systems change was "
    "swept, so none ships (`autotune run --stage throughput` sweeps them)"
)
"""Said instead of UNCONFIRMED when the study holds its baseline trial alone (`--stage quality` on a new study)."""


ONLY_BASELINE = (
    "only the baseline ran: nothing was compared with it (a larger --trials, or no --timeout, runs the sweep on)"
)
"""Said instead of UNCONFIRMED when the study holds its baseline trial alone and no quality stage ran."""


CONFIRMATION_CUT = (
    "not confirmed yet: its confirmation did not finish (cut short?); the same `autotune run` command goes on from "
    "its finished rounds (a round cut short runs again whole). Until then this is the sweep's best single run"
)
"""Said instead of UNCONFIRMED when confirmation started and did not finish: it said "no confirmation ran: --confirm
0, or the sweep was cut short" of a controller killed mid-round (audit 18 F1)."""


def confirmation_cut(paths: StudyPaths) -> bool:
    """Whether a confirmation began and did not finish: its runs keep their results (`kept.json`) until it is
    written, and a finished one removes them."""
    return any(paths.confirm_dir.glob("*/kept.json"))


def quality_started(paths: StudyPaths) -> bool:
    """Whether the quality stage has runs in its folder (finished or not: `Quality.read` says whether it decided)."""
    folder = paths.root / "quality"
    return folder.is_dir() and any(folder.iterdir())


def unfinished_quality(paths: StudyPaths, space: Space) -> str | None:
    """For a space with a quality stage that has not decided: the algorithm knobs are the baseline's, not judged
    yet (best and the export listed them as held by the throughput stage, and said nothing of the stage a kill had
    cut short, audit 18 F2). None when the stage decided, or the space has none."""
    from autotune.study.quality_result import Quality

    if space.quality is None or Quality.read(paths) is not None:
        return None
    from autotune.study.live import QUALITY, STAGES_AFTER, running_stage

    holder, stage = running_stage(paths) or (None, None)
    if holder is not None and stage not in (STAGES_AFTER, QUALITY):  # a `--stage throughput` worker's too: no
        return (  # quality stage promised (audit 34 F8)
            f"{holder} runs {stage} (a stage after the sweep): the algorithm knobs are the baseline's, not judged "
            "yet; ask again when it finishes"
        )
    if holder is not None:  # it read "did not finish (cut short?)" while a worker ran it (audit 19 C1)
        return (
            f"the stages after the sweep (the quality stage last) are running in {holder}: the algorithm knobs are "
            "the baseline's until it decides; ask again when it finishes"
        )
    if quality_started(paths):
        return (
            "the quality stage did not finish (cut short?): the algorithm knobs are still the baseline's, not judged "
            "yet; `autotune run` without `--stage throughput` finishes it, keeping its finished runs"
        )
    return (
        "the space's quality stage has not run: the algorithm knobs are the baseline's, not judged (`autotune run` "
        "without `--stage throughput` runs it after the sweep)"
    )


def quality_deciding(paths: StudyPaths, space: Space) -> bool:
    """The space's quality stage has started and not decided (a worker runs it, or it was cut short): what it
    decides replaces the baseline's algorithm values an export would carry now."""
    from autotune.study.quality_result import Quality

    if space.quality is None or Quality.read(paths) is not None:
        return False
    return paths.finishing_now() is not None or quality_started(paths)


def not_final_because(paths: StudyPaths, space: Space, winner: Winner | None) -> str | None:
    """Why an export of `winner` now would not be the study's decision (the export writes `NOT FINAL`, the wandb
    summary `final: false`, the report's YAML the same line), or None: a worker still at the study (its decision
    may replace this winner; audit 34), or a quality stage running, cut short, or undecided (its decision replaces
    the algorithm values the export carries: the overrides carried the baseline's KL coefficient unsaid, audit 22
    F8). A quality stage that has not started (`--stage throughput`) leaves the export final, said apart."""
    from autotune.study.live import in_progress
    from autotune.study.quality_result import Quality

    running = in_progress(paths)
    if running:
        return f"{running}; export again when it finishes"
    if winner is not None and winner.behind:
        return winner.behind
    quality = Quality.read(paths)
    if quality is not None and quality.undecided:  # a crash left it open: a rerun's decision replaces these values
        return f"the quality stage decided nothing: {quality.verdict}"
    if quality is None and winner is not None and winner.source != "predicted" and quality_deciding(paths, space):
        return unfinished_quality(paths, space)
    return None


ONLY_BASELINE_PICKED = (
    "only the baseline ran: the cost model credited no change with enough gain to run it for real "
    "(`--fidelity real` measures the space's changes)"
)
"""ONLY_BASELINE for a multi-fidelity sweep (`--fidelity sim,real`): its real trials are the model's picks, so
more --trials would run nothing more."""


def none_feasible(others: list[optuna.trial.FrozenTrial], paths: StudyPaths, sim_study: str | None = None) -> str:
    """Said instead of UNCONFIRMED when the baseline won because no other trial was feasible (confirmation needs
    one): it said "--confirm 0, or the sweep was cut short" and that a 1x "speedup may be the machine's noise".
    Names the limit most of them broke (the fix is there), and the `trials` command with the study's flags. Under
    `--fidelity sim,real` the trials were the cost model's picks (`sim_study`): its ranking is what failed."""
    outcomes = collections.Counter(outcome_of(t) or "failed" for t in others)
    counts = ", ".join(
        f"{n} {what}" + (" (stopped early: slower than the trials before them)" if what == "pruned" else "")
        for what, n in sorted(outcomes.items())
    )
    measured = [  # a crash reports no limit (each stored as broken) and a repeat ran nothing (audit 28 F6)
        TrialRecord.of(t) for t in others if outcome_of(t) == "infeasible" and TrialRecord.of(t).duplicate_of is None
    ]
    broken = collections.Counter(m for rec in measured for m, v in (rec.violations or {}).items() if v > 0)
    fix = ""
    if broken:
        metric, n = broken.most_common(1)[0]
        fix = (
            f"; {n} broke the `{metric}` limit: loosen it in the space's `limits:` if that is acceptable, or search "
            "other values"
        )
    if sim_study and all(TrialRecord.of(t).predicted_by is not None for t in others):
        fix += (
            f"; each was a pick of the cost model (study `{sim_study}`), whose ranking did not carry over to this "
            "machine: `--fidelity real` measures the space's changes here, or fit the model to this machine "
            "(`autotune calibrate STUDY` on a real study of it) and pass `--calibration`"
        )
    return (
        f"no trial besides the baseline finished inside the limits ({counts}), so nothing was confirmed: the "
        f"baseline's systems values ship{fix} (`autotune trials {paths.name}{paths.flags()}` says how each ended)"
    )


def why_not_ablated(winner: Winner, paths: StudyPaths) -> str:
    """Why a confirmed winner was not ablated, the reason that held (`best`): both were said as advice before, and
    "the ablation was off: --ablate 0" of an `--ablate 2` stopped by Ctrl-C (audit 16 F4, F11)."""
    rounds = winner.confirmed.rounds if winner.confirmed else 0
    holder = _before_quality(paths)
    if holder is not None:  # running, not cut short (audit 27 F1: "cut short?" and "run it again")
        return f"the stages after the sweep are running in {holder}: ask again when they finish"
    if confirmation_cut(paths):  # a new confirmation cut short: "ran 1 round ... (`--confirm 2`)" of a --confirm 2
        return (
            "a new confirmation did not finish (cut short?): the same `autotune run` command finishes it, keeping "
            "its finished rounds, and then ablates"
        )
    cut = (
        "the ablation did not finish (cut short?): the same `autotune run` command finishes it, keeping its "
        "finished rounds"
    )
    # the rounds the worker that confirmed asked for: it said "the ablation needs 2 or more (`--confirm 2`)" of an
    # `--ablate 0` worker's (`--confirm 1` ablates too) and "cut short" beside another winner's finished ablation
    # (audit 38 F3, F4)
    asked = ablation_asked(paths)
    if asked is not None:
        ablate, worker = asked
        who = f" in {worker}, which confirmed it" if worker else ""
        if ablate == 0:
            return f"the ablation was off{who}: `--ablate 0`, or the space's `confirm.ablation_repeats: 0`"
        if ablate < 2:
            return (
                f"the ablation was asked for {ablate} round{who}: it needs 2 or more (`--ablate 2`); without "
                "`--ablate` it runs the space's `confirm.ablation_repeats`, else as many rounds as confirmation "
                f"(`--confirm {ablate}`)"
            )
        return cut
    # a study of an earlier version, which recorded only an ask of 2 rounds or more: runs kept as they finished, or
    # runs with no result written, are an ablation cut short; a finished ablation's runs (of another winner, or of
    # this one before it was confirmed again) are not this one's
    folder = paths.root / "ablation"
    if any(folder.rglob("kept.json")) or (
        folder.is_dir() and any(folder.iterdir()) and not Ablation.file(paths).exists()
    ):
        return cut
    if rounds < 2:
        return (
            f"its confirmation ran {rounds} round, and the ablation runs as many unless `--ablate` or the space's "
            "`confirm.ablation_repeats` says otherwise: it needs 2 or more (`--ablate 2`), or it was off (`--ablate 0`)"
        )
    return "the ablation was off: `--ablate 0`, or the space's `confirm.ablation_repeats: 0`"


NO_CANDIDATE_INSIDE = "confirmation found no candidate inside the limits; this is the sweep's best single run"
"""Said of a sweep winner when confirmation ran and none of its candidates stayed inside the limits."""


def _before_quality(paths: StudyPaths) -> str | None:
    """Who runs the stages after the sweep, while they are before the quality stage (confirmation, the ablation,
    the equivalence check); None otherwise. A resumed study's `quality/` folder from its earlier run read as "in the
    quality stage", so a running ablation was said to be "cut short?" (audit 34 F5)."""
    from autotune.study.live import QUALITY, STAGES_AFTER, running_stage

    holder, stage = running_stage(paths) or (None, None)
    if stage is None or stage == QUALITY or (stage == STAGES_AFTER and quality_started(paths)):
        return None  # STAGES_AFTER: a worker of an older version, which names no stage: judged by the folder
    return holder


def winner_caveat(study: optuna.Study, winner: Winner, paths: StudyPaths, behind: bool = True) -> str:
    """What a reader must know of the winner before its figures, as `best` says it: why a sweep's winner is its best
    single run (no confirmation, one running now or cut short, or none inside the limits), why a confirmed one was
    not ablated; empty otherwise. The report's summary said neither: a 1.57x single run mid-confirmation, later
    1.13x, then 1x, read as the result (audit 27 F2, F3). First, with `behind`, that the sweep went on past its
    confirmation (`Winner.behind`), as the export's `NOT FINAL` says: the report's summary and the notebook said
    nothing of the better unconfirmed trial (audit 38 F2); `best` prints it apart, first."""
    if winner.source == "sweep":
        return why_unconfirmed(study, winner, paths) if Confirmation.read(paths) is None else NO_CANDIDATE_INSIDE
    said = [f"NOT FINAL: {winner.behind}"] if behind and winner.behind else []
    if winner.source == "confirmed" and winner.ablation is None and not winner.baseline_won:
        reason = why_not_ablated(winner, paths)
        said.append(f"not ablated: every change of the winner ships, none measured alone ({reason})")
    return "; ".join(said)


def why_unconfirmed(study: optuna.Study, winner: Winner, paths: StudyPaths) -> str:
    """What `best` and the export's header say of a winner no confirmation measured."""
    from autotune.study.quality_result import Quality

    holder = _before_quality(paths)
    if holder is not None:  # in the quality stage, confirmation is over or was off
        return (
            f"the stages after the sweep (confirmation first) are running in {holder}: this is the sweep's best "
            "single run so far; ask again when they finish"
        )
    from autotune.study.live import live_workers

    sweeping = live_workers(paths)
    if sweeping and Confirmation.read(paths) is None:  # it listed "--confirm 0, or the sweep was cut short" (34 F1)
        return (
            f"the sweep is still running in {' and '.join(sweeping)}: this is its best single run so far; ask again "
            "when it finishes"
        )
    if Confirmation.read(paths) is None and confirmation_cut(paths):
        return CONFIRMATION_CUT
    base = baseline_trial(study)
    counted_trials = [t for t in study.get_trials(deepcopy=False) if counted(t)]
    if base is None or winner.number != base.number:
        return UNCONFIRMED
    others = [t for t in counted_trials if t.number != base.number]
    if others:
        if any(outcome_of(t) == "complete" for t in others):
            return UNCONFIRMED
        return none_feasible(others, paths, StudyInfo.of(study).sim_study)
    if Quality.read(paths) is not None:
        return BASELINE_ONLY
    holder = paths.finishing_now()
    if holder is not None:  # `--stage quality` running: it said "cut short?" beside "running in" (audit 34 F7)
        return (
            "only the baseline ran in the throughput stage (the systems values the quality stage uses); the quality "
            f"stage is running in {holder}: ask again when it finishes"
        )
    if quality_started(paths):  # `--stage quality` cut short: "a larger --trials" was wrong advice
        return (
            "only the baseline ran in the throughput stage (the systems values the quality stage uses); the quality "
            "stage did not finish (cut short?): `autotune run` without `--stage throughput` finishes it, keeping its "
            "finished runs"
        )
    return ONLY_BASELINE_PICKED if StudyInfo.of(study).sim_study else ONLY_BASELINE


@dataclass
class Winner:
    """The study's winner: the confirmed one when confirmation found one, else the sweep's best single run."""

    number: int
    params: dict[str, Any]
    source: WinnerSource
    """"confirmed" (chosen on its confirmation rounds), "sweep" (best single measurement) or "predicted" (the best
    trial of a simulated sweep: the cost model's prediction, nothing measured)."""
    value: float
    speedup: float | None
    speedup_spread: tuple[float, float] | None
    """The `LEVEL` interval of `speedup` (confirmed winners only: nan with one round; the rounds' min and max for a
    confirmation whose baseline rounds gave no paired ratios)."""
    confirmed: ConfirmedCandidate | None = None
    """Its confirmation rounds (also for a sweep winner that was a candidate)."""
    baseline_confirmed: ConfirmedCandidate | None = None
    """The baseline's confirmation rounds, beside `confirmed`."""
    ablation: Ablation | None = None
    """The minimal winner's ablation: when present, `params` are what it ships and `speedup` its
    measured speedup over the baseline, `speedup_spread` its interval."""
    credited: PredictedWinner | None = None
    """A simulated winner's changes as the cost model credits them: when present, `params` are what it ships
    and `speedup` its predicted speedup over the baseline."""
    beaten: ConfirmedCandidate | None = None
    """When the baseline won confirmation: the best candidate it beat (`Confirmation.best_candidate`)."""
    behind: str | None = None
    """Why its confirmation is no longer of the sweep's best trials (`confirmation_behind`): not final."""

    @property
    def one_round(self) -> bool:
        """`speedup_spread` is of one round, which has no interval (or nan). By the rounds, not equal bounds: after
        an ablation that sent every change back the bounds are exactly 1 over any number of rounds."""
        if self.speedup_spread is None or self.ships_baseline:
            return False
        low, high = self.speedup_spread
        rounds = self.ablation.rounds if self.ablation else self.confirmed.rounds if self.confirmed else 1
        return rounds <= 1 or math.isnan(low + high)

    @property
    def spread_is_interval(self) -> bool:
        """`speedup_spread` is the `LEVEL` interval (else the rounds' min and max: no paired ratios to have one)."""
        return self.ablation is not None or (self.confirmed is not None and self.confirmed.speedup_geomean > 0)

    @property
    def predicted_less(self) -> str:
        """For a simulated winner whose changes the model credits under its floor were put back: what its value is
        of (it was labelled with the whole trial's number, another configuration); empty otherwise."""
        dropped = [c for c in self.credited.changes if not c.kept] if self.credited else []
        if not dropped:
            return ""
        return (
            f"predicted for what ships: #{self.number} with {len(dropped)} change{'s' if len(dropped) > 1 else ''} "
            f"the model credits under {self.credited.floor:.0%} put back"  # type: ignore[union-attr]
        )

    @property
    def baseline_won(self) -> bool:
        """No candidate beat the baseline in confirmation: the winner is the baseline (`Confirmation.decide`)."""
        return self.source == "confirmed" and self.confirmed is not None and self.confirmed.is_baseline

    @property
    def ships_baseline(self) -> bool:
        """The baseline's systems values ship, at exactly 1× (no interval): it won confirmation, or the ablation
        sent every change back."""
        ablated_away = self.ablation is not None and bool(self.ablation.knobs) and not self.ablation.kept
        return self.baseline_won or ablated_away or self._credited_away

    @property
    def _credited_away(self) -> bool:
        """A simulated winner none of whose changes the cost model credits with its floor (it read "winner: trial
        #22 (predicted, 1.00x the baseline)", and the report showed the baseline's figures as #22's; audit 21 F12)."""
        changes = self.credited.changes if self.credited else []
        return bool(changes) and not any(c.kept for c in changes)

    @property
    def why_baseline(self) -> str:
        """Why the baseline's systems values ship, said after its speedup (empty when it does not)."""
        if self.baseline_won:
            return "no confirmed candidate beat it: the baseline's systems values ship"
        if self._credited_away:
            floor = self.credited.floor  # type: ignore[union-attr]
            return f"the cost model credits no change with {floor:.0%}: the baseline's configuration ships"
        return "the ablation sent every change back: the baseline's systems values ship" if self.ships_baseline else ""

    @property
    def baseline_ships(self) -> str:
        """`why_baseline` with the candidate the baseline beat, when it won confirmation (the report, wandb)."""
        return self.why_baseline + (f" ({beaten_line(self.beaten)})" if self.baseline_won else "")

    @property
    def ships_less(self) -> bool:
        """The ablation sent a change (one that acts here, or every change) back to baseline: `value` and the
        confirmed figures are the whole winner's, measured in confirmation, not what ships (`speedup` is what
        ships; with every change sent back, inert ones too, the winner's 896 beside the baseline's 633 read as
        the value of what ships, at 1x)."""
        return self.ablation is not None and (
            self.ships_baseline or any(k.verdict != "inert here" for k in self.ablation.dropped)
        )


def top_candidates(study: optuna.Study, space: Space, k: int) -> list[optuna.trial.FrozenTrial]:
    """The `k` best feasible trials on the first objective, the baseline and repeats of a setting left out: what
    confirmation measures (and what a worker's confirmation must still be of to be kept)."""
    sign = 1.0 if space.objectives[0].direction == "maximize" else -1.0
    ranked = sorted(
        (t for t in feasible_trials(study) if not is_baseline(t) and TrialRecord.of(t).duplicate_of is None),
        key=lambda t: -sign * t.values[0],
    )
    return ranked[:k]


def confirmation_behind(study: optuna.Study, space: Space, confirmation: Confirmation) -> str | None:
    """Why the confirmation is no longer of the sweep's best trials, or None: trials that finished after it (a
    worker started with a larger --trials, or a study resumed with --confirm 0) rank among the top it chose from.
    It was shipped as "confirmed", exit 0, beside a better trial it never ran (audit 35 F2)."""
    ran = {n for n, row in confirmation.candidates.items() if not row.is_baseline}
    if not ran:
        return None
    missed = [t for t in top_candidates(study, space, len(ran)) if t.number not in ran]
    if not missed:
        return None
    names = ", ".join(f"#{t.number} ({t.values[0]:g} in its one run)" for t in missed)
    return (
        f"the sweep went on after its confirmation (of {', '.join(f'#{n}' for n in sorted(ran))}): {names} now "
        f"{'ranks' if len(missed) == 1 else 'rank'} among its top {len(ran)}, unconfirmed; `autotune run` of the study "
        "with confirmation on confirms again"
    )


def find_winner(study: optuna.Study, paths: StudyPaths, space: Space) -> Winner:
    """The one rule for the winner: confirmation's, else the best feasible trial on the first objective."""
    maximize = space.objectives[0].direction == "maximize"
    confirmation = Confirmation.read(paths)
    if confirmation is not None:
        confirmation = confirmation.decided(maximize)
    base = baseline_trial(study)
    if confirmation is not None and confirmation.winner is not None:
        row = confirmation.candidates[confirmation.winner]
        ablation = Ablation.read(paths)
        if ablation is not None and ablation.measured_on(confirmation):  # the minimal winner ships
            shipped = ablation.shipped_speedup
            return Winner(
                row.number,
                dict(ablation.shipped),
                "confirmed",
                row.mean,
                shipped.speedup_geomean,
                (shipped.speedup_low, shipped.speedup_high),
                row,
                confirmation.row(confirmation.baseline),
                ablation,
                behind=confirmation_behind(study, space, confirmation),
            )
        paired = row.speedup_geomean > 0  # the figure it was chosen on, with its interval (audit 16 F2: the mean of
        return Winner(  # the ratios and their min-max were printed in the brackets where the interval is read)
            row.number,
            row.params,
            "confirmed",
            row.mean,
            row.speedup_geomean if paired else row.speedup_mean,
            (row.speedup_low, row.speedup_high) if paired else (row.speedup_min, row.speedup_max),
            row,
            confirmation.row(confirmation.baseline),
            beaten=confirmation.best_candidate(maximize) if confirmation.baseline_won else None,
            behind=confirmation_behind(study, space, confirmation),
        )
    best = best_trial(study, [o.direction for o in space.objectives])
    if best is None:
        why = "yet"
        if base is not None and outcome_of(base) == "infeasible":  # not too few trials: a limit for every trial
            detail = TrialRecord.of(base).detail or "a limit"
            why = f"(its baseline breaks a limit: {detail}; every trial is held to it: check the space's limits)"
        raise NoWinner(
            f"study `{paths.name}` has no feasible trial {why}; see `autotune trials {paths.name}{paths.flags()}`"
        )
    speedup = None
    if base is not None and base.values and outcome_of(base) == "complete" and base.values[0]:
        speedup = best.values[0] / base.values[0]
    if StudyInfo.of(study).fidelity == "sim":  # predicted, not measured; only the changes the model credits
        credited = PredictedWinner.read(paths)
        if credited is not None and (credited.winner == best.number or best.number in credited.refused):
            best = study.trials[credited.winner]  # the better ones the trainer refuses are passed over
            params, value = dict(credited.shipped), credited.shipped_value
            return Winner(best.number, params, "predicted", value, credited.speedup, None, credited=credited)
        return Winner(best.number, dict(best.params), "predicted", best.values[0], speedup, None)
    tried = confirmation.row(best.number) if confirmation else None
    base_row = confirmation.row(base.number) if confirmation and base and tried else None
    return Winner(best.number, dict(best.params), "sweep", best.values[0], speedup, None, tried, base_row)


def best_trial(study: optuna.Study, directions: list[str]) -> optuna.trial.FrozenTrial | None:
    """The best feasible trial on the first objective (the Pareto front's pick for several objectives)."""
    candidates = feasible_trials(study)
    if not candidates:
        return None
    sign = 1.0 if directions[0] == "maximize" else -1.0
    return max(candidates, key=lambda t: sign * t.values[0] if not math.isnan(t.values[0]) else -math.inf)
