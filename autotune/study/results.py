"""What the sweep's phases conclude, typed: a confirmation, an explanation, the ablation, and the winner.

    runs/<study>/confirmation.json   `Confirmation`: the top-k and the baseline re-run, interleaved
    runs/<study>/explain.json        `Explanation`: the ablation path from the baseline to the winner
    runs/<study>/ablation.json       `Ablation`: the minimal winner, every change it keeps measured

`trial/record.py` is the one module that knows how a trial's result is stored; this is the one
module that knows how these conclusions are: only it reads or writes these files, and
`find_winner` is the one place that decides which trial won (`Confirmation.decide` is the rule
among confirmed candidates). Two conclusions have a module of their own, each the one reader and
writer of its file: `predicted_winner.py` (`predicted.json`, a simulated sweep's winner, each change
credited by the cost model) and `quality_result.py` (`quality.json`, the quality stage's decision);
`result_files.py` keeps all of them as JSON. Everything else (best, export, the report, explain,
benchmarks, notebooks) uses the fields. The files keep the layout earlier versions wrote, so theirs
load unchanged; a file that cannot be read says how to measure it again.
"""

from __future__ import annotations

import dataclasses
import math
import statistics
from dataclasses import dataclass, field
from typing import Any, ClassVar, Literal

import optuna

from autotune.space.schema import Space
from autotune.study.predicted_winner import PredictedWinner
from autotune.study.result_files import Conclusion, build_from, fields_of, null_for_nan, same_figure
from autotune.study.storage import StudyInfo, StudyPaths, baseline_trial, counted, feasible_trials
from autotune.trial.record import TrialRecord, outcome_of

WinnerSource = Literal["confirmed", "sweep", "predicted"]


LEVEL = 0.90
"""Two-sided level of the interval a measured gain is judged with (`gain_interval`)."""


def interval(low: float, high: float) -> str:
    """An interval as the lines print it; one round has none (its bounds are nan), and says so."""
    if math.isnan(low) or math.isnan(high):
        return "(one round: no interval)"
    return f"[{low:.3f}, {high:.3f}]"


def wide(low: float, high: float, agrees: bool | None) -> str:
    """A note when an agreement rests on an interval spanning more than a factor of 2 (two rounds on a busy
    machine gave [0.09, 26]): it would agree with almost any measurement."""
    if agrees is not True or not low > 0 or high / low <= 2.0:
        return ""
    return " (its interval spans more than a factor of 2, so it agrees with almost anything: more rounds narrow it)"


def gain_interval(ratios: list[float], level: float = LEVEL) -> tuple[float, float]:
    """The `level` interval of the geometric mean of per-round ratios (Student t on their logs).

    Paired, interleaved rounds make the rounds' log ratios independent draws around the true log
    gain; unlike the rounds' min–max, the interval narrows as rounds are added, so more rounds can
    resolve a smaller gain. (nan, nan) with fewer than two usable rounds.
    """
    from scipy.stats import t

    logs = [math.log(r) for r in ratios if r > 0 and not math.isnan(r)]
    if len(logs) < 2:
        return math.nan, math.nan
    mean = statistics.fmean(logs)
    half = float(t.ppf(0.5 + level / 2, len(logs) - 1)) * statistics.stdev(logs) / math.sqrt(len(logs))
    return math.exp(mean - half), math.exp(mean + half)


class NoWinner(LookupError):
    """The study has no feasible trial yet."""


@dataclass(kw_only=True)
class Ratios:
    """Per-round ratios of one configuration to a reference measured in the same rounds."""

    speedup_mean: float = math.nan
    speedup_geomean: float = math.nan
    speedup_min: float = math.nan
    speedup_max: float = math.nan
    speedup_std: float = math.nan
    """Sample standard deviation of the per-round speedups (0.0 with one round)."""
    speedup_low: float = math.nan
    speedup_high: float = math.nan
    """The `LEVEL` interval of the geometric mean over the rounds (`gain_interval`; nan with one round)."""
    memory_ratio: float = math.nan
    rss_ratio: float = math.nan
    """Peak host RSS over the reference's."""


@dataclass(kw_only=True)
class ConfirmedCandidate(Ratios):
    """One configuration's confirmation rounds, against the baseline's rounds (`Ratios`)."""

    number: int
    """Its trial number (the key of its row in the file)."""
    params: dict[str, Any]
    values: list[float]
    """First objective per round (NaN when the run failed)."""
    feasible_rounds: int
    rounds: int
    mean: float
    """Mean of `values` over the rounds that produced one."""
    kl: float = math.nan
    comm_share: float = math.nan
    mfu: float = math.nan
    is_baseline: bool = False
    limits_mean: dict[str, float] | None = None
    """Each limit's metric averaged over the rounds (None: judged without the space's limits)."""
    violations_mean: dict[str, float] | None = None
    """Each limit's violation of those averages (> 0: violated)."""
    feasible_on_mean: bool | None = None
    """Finished every round and inside every limit on the averages."""

    @property
    def eligible(self) -> bool:
        """Can win: not the baseline, inside the limits (on the round means, or in every round), measured."""
        inside = self.feasible_on_mean if self.feasible_on_mean is not None else self.feasible_rounds == self.rounds
        return not self.is_baseline and bool(inside) and not math.isnan(self.mean)


@dataclass
class Confirmation(Conclusion):
    """The confirmation phase's result: every candidate's rounds and the winner among them."""

    FILE: ClassVar[str] = "confirmation.json"

    baseline: int
    winner: int | None
    """The eligible candidate with the best confirmed mean, or the baseline when that mean is no better than the
    baseline's (None: no candidate qualified)."""
    candidates: dict[int, ConfirmedCandidate]

    @classmethod
    def decide(cls, rows: list[ConfirmedCandidate], baseline: int, maximize: bool) -> Confirmation:
        """The winner is the best confirmed mean among the eligible candidates (never a single round), unless it
        does not beat the baseline: then the baseline wins (with no ablation to send its changes back, a candidate
        confirmed at 0.32x the baseline was the winner and was exported). It beats the baseline on the figure every
        line prints, its speedup over the rounds it ran beside it (the geometric mean of the per-round ratios: a
        round the machine ran slow or fast for both cancels), else, without one, on the means."""
        sign = 1.0 if maximize else -1.0
        result = cls(baseline, None, {r.number: r for r in rows})
        best, base = result.best_candidate(maximize), result.row(baseline)
        if best is not None and base is not None and not math.isnan(base.mean):
            paired = best.speedup_geomean
            beats = sign * math.log(paired) > 0 if paired > 0 else sign * best.mean > sign * base.mean
            best = best if beats else base
        result.winner = best.number if best else None
        return result

    def decided(self, maximize: bool) -> Confirmation:
        """This confirmation's rounds decided by this version's rule (a file an earlier version wrote keeps its
        own winner: one confirmed at 0.31x the baseline went on being exported)."""
        return Confirmation.decide(list(self.candidates.values()), self.baseline, maximize)

    def row(self, number: int | None) -> ConfirmedCandidate | None:
        return self.candidates.get(number) if number is not None else None

    @property
    def baseline_won(self) -> bool:
        """No candidate's confirmed mean beat the baseline's: the baseline's systems values ship."""
        return self.winner is not None and self.winner == self.baseline

    def best_candidate(self, maximize: bool) -> ConfirmedCandidate | None:
        """The eligible candidate with the best confirmed mean, the baseline aside (when the baseline won: the
        candidate it beat)."""
        sign = 1.0 if maximize else -1.0
        eligible = [r for r in self.candidates.values() if r.eligible]
        return max(eligible, key=lambda r: sign * r.mean) if eligible else None

    def to_json(self) -> dict[str, Any]:
        rows = {}
        for number, row in self.candidates.items():
            data = fields_of(row, skip=("number",))
            if row.limits_mean is None:  # judged without the space: the file has no verdict on means
                for key in ("limits_mean", "violations_mean", "feasible_on_mean"):
                    data.pop(key)
            rows[str(number)] = data
        return {"baseline": self.baseline, "winner": self.winner, "candidates": rows}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Confirmation:
        rows = {
            int(n): build_from(ConfirmedCandidate, {**row, "number": int(n)}) for n, row in data["candidates"].items()
        }
        winner = data.get("winner")
        return cls(int(data["baseline"]), int(winner) if winner is not None else None, rows)

    @classmethod
    def redo(cls, paths: StudyPaths) -> str:
        return "run the sweep again (`autotune run --space ...`): finished trials are kept and confirmation re-runs"


@dataclass(kw_only=True)
class ConfirmedSpeedup:
    """The winner's confirmed speedup, as the explanation compares its path with it."""

    speedup_mean: float
    speedup_min: float
    speedup_max: float
    speedup_std: float
    rounds: int
    speedup_geomean: float = math.nan
    speedup_low: float = math.nan
    speedup_high: float = math.nan
    """Its `LEVEL` interval over the rounds (nan in files written before intervals were stored)."""

    @classmethod
    def of_ratios(cls, ratios: Ratios, rounds: int) -> ConfirmedSpeedup:
        """A speedup measured elsewhere (the ablation's shipped configuration) in the same shape."""
        return cls(
            speedup_geomean=ratios.speedup_geomean,
            speedup_low=ratios.speedup_low,
            speedup_high=ratios.speedup_high,
            speedup_mean=ratios.speedup_mean,
            speedup_min=ratios.speedup_min,
            speedup_max=ratios.speedup_max,
            speedup_std=ratios.speedup_std,
            rounds=rounds,
        )

    @classmethod
    def of(cls, row: ConfirmedCandidate) -> ConfirmedSpeedup:
        return cls(
            speedup_geomean=row.speedup_geomean,
            speedup_low=row.speedup_low,
            speedup_high=row.speedup_high,
            speedup_mean=row.speedup_mean,
            speedup_min=row.speedup_min,
            speedup_max=row.speedup_max,
            speedup_std=row.speedup_std,
            rounds=row.rounds,
        )


@dataclass(kw_only=True)
class ExplainStep(Ratios):
    """One step of the ablation path: a knob applied on top of the steps before it (`Ratios` against
    the configuration before, per round)."""

    step: int
    gain: float
    """Geometric mean over rounds of this step's configuration over the one before."""
    rounds: int
    knob: str = ""
    label: str = ""
    params: dict[str, Any] = field(default_factory=dict)
    value: float = math.nan
    reference: float = math.nan
    feasible_rounds: int = 0
    tried: dict[str, float] = field(default_factory=dict)
    """The gain every candidate knob showed in the ordering round that chose this one."""
    runs: list[str] = field(default_factory=list)
    reference_runs: list[str] = field(default_factory=list)
    cumulative: float = math.nan
    """Product of the gains up to this step: × the baseline."""
    verdict: str = ""
    """matters | within noise (its rounds straddle 1.0) | one run: no spread."""

    TABLE: ClassVar[tuple[str, ...]] = ("step", "label", "gain", "speedup_min", "speedup_max", "cumulative", "verdict")
    """The fields the report's table of the path shows, in order."""

    def table_row(self) -> dict[str, Any]:
        return {name: getattr(self, name) for name in self.TABLE}


@dataclass(kw_only=True)
class Explanation(Conclusion):
    """The explain phase's result: the path from the baseline to the winner, each step re-measured."""

    FILE: ClassVar[str] = "explain.json"

    study: str = ""
    baseline: int | None = None
    winner: int
    objective: str = ""
    repeats: int
    max_rounds: int | None = None
    select_repeats: int = 1
    steps: list[ExplainStep]
    product: float
    product_min: float
    product_max: float
    confirmed: ConfirmedSpeedup | None = None
    agrees: bool | None = None
    """Whether the product of the gains lies within the interval of `confirmed` (None: one round has none)."""
    compared_with: str = "confirmed speedup"
    """What `confirmed` is: the confirmed winner's speedup, or what ships measured by the ablation."""
    end_to_end: Ratios | None = None
    """The winner over the baseline on the path's own runs."""
    same_as_baseline: list[str] = field(default_factory=list)
    dropped: list[str] = field(default_factory=list)
    """Changes of the whole winner that the ablation sent back to the baseline (the path leads to what ships)."""
    inert: list[str] = field(default_factory=list)
    winner_params: dict[str, Any] = field(default_factory=dict)
    source: str = ""

    def measured_with(self, repeats: int, max_rounds: int | None, select_repeats: int) -> bool:
        return (self.repeats, self.max_rounds, self.select_repeats) == (repeats, max_rounds, select_repeats)

    @staticmethod
    def reference(winner: Winner, confirmation: Confirmation | None) -> tuple[ConfirmedSpeedup | None, str]:
        """What the path is compared with: after an ablation, what ships as the ablation measured it (the
        configuration the path reaches); else the winner's confirmed speedup; None without either."""
        if winner.ablation is not None:
            ratios = winner.ablation.shipped_speedup
            return ConfirmedSpeedup.of_ratios(ratios, winner.ablation.rounds), "what ships, measured by the ablation,"
        row = confirmation.row(winner.number) if confirmation else None
        return (ConfirmedSpeedup.of(row) if row else None), "confirmed speedup"

    def compared(self, reference: ConfirmedSpeedup | None, label: str) -> Explanation:
        """This path against `reference`: it agrees when the product of its gains lies in the reference's
        interval, the one `best` prints; one round has no interval, and is not compared."""
        agrees = None
        if reference is not None and self.steps and not math.isnan(reference.speedup_low + reference.speedup_high):
            agrees = bool(reference.speedup_low <= self.product <= reference.speedup_high)
        return dataclasses.replace(self, confirmed=reference, agrees=agrees, compared_with=label)

    def to_json(self) -> dict[str, Any]:
        data = fields_of(self)
        data["steps"] = [fields_of(s) for s in self.steps]
        data["confirmed"] = fields_of(self.confirmed) if self.confirmed else None
        if self.end_to_end is None:
            data.pop("end_to_end")
        else:
            data["end_to_end"] = fields_of(self.end_to_end)
        return data

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Explanation:
        values = dict(data)
        values["steps"] = [build_from(ExplainStep, s) for s in data["steps"]]
        values["confirmed"] = build_from(ConfirmedSpeedup, data["confirmed"]) if data.get("confirmed") else None
        values["end_to_end"] = build_from(Ratios, data["end_to_end"]) if data.get("end_to_end") else None
        return build_from(cls, values)

    @classmethod
    def redo(cls, paths: StudyPaths) -> str:
        return f"measure it again with `autotune explain {paths.name} --rerun{paths.flags()}`"

    def lines(self) -> list[str]:
        """The path as plain text lines (the CLI, the benchmark and the notebook print these)."""
        target = f"what ships of winner #{self.winner}" if self.dropped else f"winner #{self.winner}"
        out = [  # not the minimal winner's ablation (each change taken out of the winner): its own lines
            f"explain: study `{self.study}`'s baseline #{self.baseline} → {target}, the knob that gains "
            "most applied first, then the next"
        ]
        for s in self.steps:
            out.append(
                f"  {s.step}. {s.label}: ×{s.gain:.3f} (rounds {s.speedup_min:.3f}–{s.speedup_max:.3f})"
                f" → {s.cumulative:.3f}× the baseline  [{s.verdict}]"
            )
        if self.steps:
            out.append(
                f"product of step gains {self.product:.3f}× (range {self.product_min:.3f}–{self.product_max:.3f})"
            )
        end = self.end_to_end
        if end:
            out.append(
                f"winner over baseline in the same path rounds {end.speedup_geomean:.3f}× (geometric mean) "
                f"(rounds {end.speedup_min:.3f}–{end.speedup_max:.3f})"
            )
        confirmed = self.confirmed
        if confirmed:
            verdict = {True: "agrees", False: "does NOT agree", None: "not compared"}[self.agrees]
            out.append(
                f"{self.compared_with} ×{confirmed.speedup_geomean:.3f} "
                f"{interval(confirmed.speedup_low, confirmed.speedup_high)}: the path {verdict}"
                + wide(confirmed.speedup_low, confirmed.speedup_high, self.agrees)
                + (
                    " (other jobs on the machine, or too few rounds: `--repeats` more narrows it)"
                    if self.agrees is False
                    else ""
                )
            )
        else:
            out.append("no confirmation of the winner to compare with (run the sweep with --confirm 2)")
        for names, text in (
            (self.same_as_baseline, "not run, the winner keeps the baseline's value"),
            (self.dropped, "not run, the ablation sent them back to the baseline"),
            (self.inert, "not run, inert here"),
        ):
            if names:
                out.append(f"{text}: {', '.join(n.rsplit('.', 1)[-1] for n in names)}")
        return out


AblationVerdict = Literal["kept", "within noise", "slower", "inert here", "not measured"]
"""What the ablation concluded about one change: kept (its interval lies above 1.0), or back to
baseline because its interval reaches 1.0, it lies below 1.0, the knob is inert on this platform
(not run), or its runs failed."""


@dataclass(kw_only=True)
class AblatedKnob:
    """One change of the winner from the baseline, and what leaving it out cost in the same rounds."""

    knob: str
    """The param's key (its conditional params travel with it)."""
    label: str
    params: dict[str, Any]
    """The winner's values of the knob's params."""
    baseline: dict[str, Any]
    """The baseline's values of the same params (absent params: None)."""
    ratios: list[float] = field(default_factory=list)
    """Per round: the winner over the winner with this knob at its baseline value."""
    gain: float = math.nan
    """Geometric mean of `ratios` (for a minimised objective, below 1.0 is a gain)."""
    low: float = math.nan
    high: float = math.nan
    """The `LEVEL` interval of `gain`."""
    verdict: AblationVerdict = "not measured"

    @property
    def kept(self) -> bool:
        return self.verdict == "kept"


@dataclass(kw_only=True)
class Ablation(Conclusion):
    """The minimal winner: the confirmed winner's changes from the baseline, each left out in
    interleaved rounds; only those whose gain clears the noise ship, and what ships is measured
    against the baseline in interleaved rounds of its own."""

    FILE: ClassVar[str] = "ablation.json"

    study: str = ""
    baseline: int
    winner: int
    """The confirmed winner's trial number."""
    objective: str = ""
    rounds: int
    level: float = LEVEL
    knobs: list[AblatedKnob]
    same_as_baseline: list[str] = field(default_factory=list)
    shipped: dict[str, Any]
    """The params that ship: the winner's, with every change that did not earn its place at its baseline value."""
    winner_speedup: Ratios
    """The whole winner (inert params at baseline) over the baseline in the ablation's rounds."""
    shipped_speedup: Ratios
    """The shipped configuration over the baseline, interleaved in the same rounds."""
    shipped_rounds: str = "ablation"
    """Where `shipped_speedup` was measured: `ablation` (the shipped configuration was one of the
    ablation's configurations) or `reduced` (its own interleaved rounds against the baseline)."""
    confirmed: ConfirmedSpeedup | None = None
    agrees: bool | None = None
    """The winner's intervals in confirmation and in the ablation overlap (None: not both measured)."""

    @property
    def kept(self) -> list[AblatedKnob]:
        return [k for k in self.knobs if k.kept]

    def measured_on(self, confirmation: Confirmation) -> bool:
        """Whether this ablation was of `confirmation`'s winner as confirmed there: a confirmation measured
        again (other rounds, another mean) makes an earlier ablation stale, even of the same trial."""
        row = confirmation.row(confirmation.winner)
        if row is None or row.number != self.winner or self.confirmed is None:
            return False
        c = self.confirmed
        return c.rounds == row.rounds and same_figure(c.speedup_geomean, row.speedup_geomean)

    @property
    def dropped(self) -> list[AblatedKnob]:
        return [k for k in self.knobs if not k.kept]

    def to_json(self) -> dict[str, Any]:
        data = fields_of(self)
        data["knobs"] = [fields_of(k) for k in self.knobs]
        data["winner_speedup"] = fields_of(self.winner_speedup)
        data["shipped_speedup"] = fields_of(self.shipped_speedup)
        data["confirmed"] = fields_of(self.confirmed) if self.confirmed else None
        return data

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Ablation:
        values = dict(data)
        values["knobs"] = [build_from(AblatedKnob, k) for k in data["knobs"]]
        values["winner_speedup"] = build_from(Ratios, data["winner_speedup"])
        values["shipped_speedup"] = build_from(Ratios, data["shipped_speedup"])
        values["confirmed"] = build_from(ConfirmedSpeedup, data["confirmed"]) if data.get("confirmed") else None
        return build_from(cls, values)

    @classmethod
    def redo(cls, paths: StudyPaths) -> str:
        return "run the sweep again (`autotune run --space ...`): finished trials are kept and the ablation re-runs"

    def lines(self) -> list[str]:
        """The minimal winner as plain text lines (`best`, the CLI after a sweep, the benchmark)."""
        pct = f"{self.level:.0%}"
        out = [f"minimal winner of #{self.winner} ({self.rounds} interleaved rounds, {pct} intervals):"]
        counts = {len(k.ratios) for k in self.knobs if k.ratios}
        for k in self.knobs:
            spread = f"×{k.gain:.3f} {interval(k.low, k.high)}" if not math.isnan(k.gain) else "not run"
            if len(counts) > 1 and k.ratios:  # extra rounds went to the undecided changes
                spread += f" in {len(k.ratios)} rounds"
            out.append(f"  {'kept   ' if k.kept else 'dropped'} {k.label}: {spread}  ({k.verdict})")
        s, w = self.shipped_speedup, self.winner_speedup
        if not self.kept:
            out.append("no change cleared the noise: the baseline's systems values ship")
        out.append(
            f"ships ×{s.speedup_geomean:.3f} {interval(s.speedup_low, s.speedup_high)} over the baseline"
            f" ({'its own rounds' if self.shipped_rounds == 'reduced' else 'same rounds'});"
            f" whole winner ×{w.speedup_geomean:.3f} {interval(w.speedup_low, w.speedup_high)}"
        )
        if self.confirmed:
            c = self.confirmed
            verdict = {True: "agrees", False: "does NOT agree", None: "not compared"}[self.agrees]
            out.append(
                f"confirmation measured the winner ×{c.speedup_geomean:.3f} "
                f"{interval(c.speedup_low, c.speedup_high)}: the ablation {verdict}"
                + wide(c.speedup_low, c.speedup_high, self.agrees)
            )
        return out


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
    "not confirmed (no confirmation ran: --confirm 0, or the sweep was cut short): one run of each configuration, "
    "so its speedup may be the machine's noise; no ablation" + UNCHECKED
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


def why_unconfirmed(study: optuna.Study, winner: Winner, paths: StudyPaths) -> str:
    """What `best` and the export's header say of a winner no confirmation measured."""
    from autotune.study.quality_result import Quality

    base = baseline_trial(study)
    counted_trials = [t for t in study.get_trials(deepcopy=False) if counted(t)]
    if base is None or winner.number != base.number or len(counted_trials) != 1:
        return UNCONFIRMED
    return BASELINE_ONLY if Quality.read(paths) is not None else ONLY_BASELINE


def beaten_line(best: ConfirmedCandidate | None) -> str:
    """When the baseline won confirmation: the best candidate it beat, as measured there."""
    if best is None:
        return "no candidate qualified in confirmation"
    return (
        f"the best confirmed candidate, #{best.number}, measured ×{best.speedup_geomean:.3f} "
        f"{interval(best.speedup_low, best.speedup_high)} of the baseline over {best.rounds} rounds"
    )


def intervals_overlap(a: tuple[float, float], b: tuple[float, float]) -> bool | None:
    """Two measurements agree when their intervals overlap (None: either is not an interval)."""
    if any(math.isnan(v) for v in (*a, *b)):
        return None
    return a[0] <= b[1] and b[0] <= a[1]


@dataclass
class Winner:
    """The study's winner: the confirmed one when confirmation found one, else the sweep's best single run."""

    number: int
    params: dict[str, Any]
    source: WinnerSource
    """"confirmed" (chosen on the confirmed mean), "sweep" (best single measurement) or "predicted" (the best
    trial of a simulated sweep: the cost model's prediction, nothing measured)."""
    value: float
    speedup: float | None
    speedup_spread: tuple[float, float] | None
    """(min, max) of the per-round speedups (confirmed winners only)."""
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
        """No candidate's confirmed mean beat the baseline's: the winner is the baseline (`Confirmation.decide`)."""
        return self.source == "confirmed" and self.confirmed is not None and self.confirmed.is_baseline

    @property
    def ships_baseline(self) -> bool:
        """The baseline's systems values ship, at exactly 1× (no interval): it won confirmation, or the ablation
        sent every change back."""
        ablated_away = self.ablation is not None and bool(self.ablation.knobs) and not self.ablation.kept
        return self.baseline_won or ablated_away

    @property
    def why_baseline(self) -> str:
        """Why the baseline's systems values ship, said after its speedup (empty when it does not)."""
        if self.baseline_won:
            return "no confirmed candidate beat it: the baseline's systems values ship"
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
            )
        return Winner(
            row.number,
            row.params,
            "confirmed",
            row.mean,
            row.speedup_mean,
            (row.speedup_min, row.speedup_max),
            row,
            confirmation.row(confirmation.baseline),
            beaten=confirmation.best_candidate(maximize) if confirmation.baseline_won else None,
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


def short_value(value: Any) -> str:
    """A sampled value read at a glance (`0.3308`, not `0.330780781455`; `0.24`, not `0.24000000000000002`)."""
    return f"{value:.4g}" if isinstance(value, float) else str(value)
