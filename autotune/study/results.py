"""What the sweep's phases conclude, typed: a confirmation, an explanation, and the winner.

    runs/<study>/confirmation.json   `Confirmation`: the top-k and the baseline re-run, interleaved
    runs/<study>/explain.json        `Explanation`: the ablation path from the baseline to the winner
    runs/<study>/ablation.json       `Ablation`: the minimal winner, every change it keeps measured
    runs/<study>/predicted.json      `PredictedWinner`: a simulated sweep's winner, each change credited by the cost model

`trial/record.py` is the one module that knows how a trial's result is stored; this is the one
module that knows how the study's conclusions are: only it reads or writes these files, and
`find_winner` is the one place that decides which trial won (`Confirmation.decide` is the rule
among confirmed candidates). Everything else (best, export, the report, explain, benchmarks,
notebooks) uses the fields. The files keep the layout earlier versions wrote, so theirs load
unchanged; a file that cannot be read says how to measure it again.
"""

from __future__ import annotations

import dataclasses
import json
import math
import statistics
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar, Literal, TypeVar

import optuna

from autotune.space.schema import Space
from autotune.study.storage import StudyInfo, StudyPaths, baseline_trial, feasible_trials
from autotune.trial.record import TrialRecord, outcome_of, write_json

WinnerSource = Literal["confirmed", "sweep", "predicted"]


LEVEL = 0.90
"""Two-sided level of the interval a measured gain is judged with (`gain_interval`)."""


def interval(low: float, high: float) -> str:
    """An interval as the lines print it; one round has none (its bounds are nan), and says so."""
    if math.isnan(low) or math.isnan(high):
        return "(one round: no interval)"
    return f"[{low:.3f}, {high:.3f}]"


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


class ResultsFileError(ValueError):
    """A conclusions file that exists but cannot be read: the message says how to measure it again."""


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
class Confirmation:
    """The confirmation phase's result: every candidate's rounds and the winner among them."""

    baseline: int
    winner: int | None
    """The eligible candidate with the best confirmed mean (None: no candidate qualified)."""
    candidates: dict[int, ConfirmedCandidate]

    @classmethod
    def decide(cls, rows: list[ConfirmedCandidate], baseline: int, maximize: bool) -> Confirmation:
        """The winner is the best confirmed mean among the eligible candidates (never a single round)."""
        sign = 1.0 if maximize else -1.0
        eligible = [r for r in rows if r.eligible]
        winner = max(eligible, key=lambda r: sign * r.mean).number if eligible else None
        return cls(baseline, winner, {r.number: r for r in rows})

    def row(self, number: int | None) -> ConfirmedCandidate | None:
        return self.candidates.get(number) if number is not None else None

    def to_json(self) -> dict[str, Any]:
        rows = {}
        for number, row in self.candidates.items():
            data = _fields(row, skip=("number",))
            if row.limits_mean is None:  # judged without the space: the file has no verdict on means
                for key in ("limits_mean", "violations_mean", "feasible_on_mean"):
                    data.pop(key)
            rows[str(number)] = data
        return {"baseline": self.baseline, "winner": self.winner, "candidates": rows}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Confirmation:
        rows = {int(n): _build(ConfirmedCandidate, {**row, "number": int(n)}) for n, row in data["candidates"].items()}
        winner = data.get("winner")
        return cls(int(data["baseline"]), int(winner) if winner is not None else None, rows)

    @staticmethod
    def file(paths: StudyPaths) -> Path:
        return paths.root / "confirmation.json"

    def write(self, paths: StudyPaths) -> None:
        write_json(self.file(paths), _null_for_nan(self.to_json()))

    @classmethod
    def read(cls, paths: StudyPaths) -> Confirmation | None:
        """The study's confirmation, or None when it has not run."""
        how = "run the sweep again (`autotune run --space ...`): finished trials are kept and confirmation re-runs"
        return _read(cls.file(paths), cls.from_json, how)


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
class Explanation:
    """The explain phase's result: the path from the baseline to the winner, each step re-measured."""

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
        data = _fields(self)
        data["steps"] = [_fields(s) for s in self.steps]
        data["confirmed"] = _fields(self.confirmed) if self.confirmed else None
        if self.end_to_end is None:
            data.pop("end_to_end")
        else:
            data["end_to_end"] = _fields(self.end_to_end)
        return data

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Explanation:
        values = dict(data)
        values["steps"] = [_build(ExplainStep, s) for s in data["steps"]]
        values["confirmed"] = _build(ConfirmedSpeedup, data["confirmed"]) if data.get("confirmed") else None
        values["end_to_end"] = _build(Ratios, data["end_to_end"]) if data.get("end_to_end") else None
        return _build(cls, values)

    @staticmethod
    def file(paths: StudyPaths) -> Path:
        return paths.root / "explain.json"

    def write(self, paths: StudyPaths) -> None:
        write_json(self.file(paths), _null_for_nan(self.to_json()))

    @classmethod
    def read(cls, paths: StudyPaths) -> Explanation | None:
        """The study's explanation, or None when `autotune explain` has not run."""
        how = f"measure it again with `autotune explain {paths.name} --rerun{paths.flags()}`"
        return _read(cls.file(paths), cls.from_json, how)

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
class Ablation:
    """The minimal winner: the confirmed winner's changes from the baseline, each left out in
    interleaved rounds; only those whose gain clears the noise ship, and what ships is measured
    against the baseline in interleaved rounds of its own."""

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
        return c.rounds == row.rounds and _same(c.speedup_geomean, row.speedup_geomean)

    @property
    def dropped(self) -> list[AblatedKnob]:
        return [k for k in self.knobs if not k.kept]

    def to_json(self) -> dict[str, Any]:
        data = _fields(self)
        data["knobs"] = [_fields(k) for k in self.knobs]
        data["winner_speedup"] = _fields(self.winner_speedup)
        data["shipped_speedup"] = _fields(self.shipped_speedup)
        data["confirmed"] = _fields(self.confirmed) if self.confirmed else None
        return data

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Ablation:
        values = dict(data)
        values["knobs"] = [_build(AblatedKnob, k) for k in data["knobs"]]
        values["winner_speedup"] = _build(Ratios, data["winner_speedup"])
        values["shipped_speedup"] = _build(Ratios, data["shipped_speedup"])
        values["confirmed"] = _build(ConfirmedSpeedup, data["confirmed"]) if data.get("confirmed") else None
        return _build(cls, values)

    @staticmethod
    def file(paths: StudyPaths) -> Path:
        return paths.root / "ablation.json"

    def write(self, paths: StudyPaths) -> None:
        write_json(self.file(paths), _null_for_nan(self.to_json()))

    @classmethod
    def read(cls, paths: StudyPaths) -> Ablation | None:
        """The study's ablation, or None when it has not run."""
        how = "run the sweep again (`autotune run --space ...`): finished trials are kept and the ablation re-runs"
        return _read(cls.file(paths), cls.from_json, how)

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
            out.append("no change cleared the noise: the baseline's configuration ships")
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
    return current, _null_for_nan(current.to_json()) != _null_for_nan(stored.to_json())


def measure_predicted(space_path: str, study: str, flags: str = "") -> str:
    """How a simulated winner gets measured: the model's best and the baseline run for real, confirmed and
    ablated, in a study of their own (a simulated study takes no measured trials)."""
    from autotune.space.loader import shipped_spaces

    shipped = {str(path): name for name, path in shipped_spaces().items()}
    space = shipped.get(space_path, space_path)
    return f"autotune run --space {space} --study {study}-real --fidelity sim,real --top-k 3{flags}"


UNCONFIRMED = (
    "not confirmed (no confirmation ran: --confirm 0, or the sweep was cut short): one run of each configuration, "
    "so its speedup may be the machine's noise; no ablation and no equivalence check (`export --check` runs it)"
)
"""Said by `best` and in the export's header when a real sweep's winner is its best single run."""

PREDICTED_FLOOR = 0.01
"""A simulated winner's change ships only when the cost model credits it with at least this share of the
objective (1%): a change the model says does nothing has no reason to be in a production config."""


@dataclass(kw_only=True)
class PredictedChange:
    """One change of a simulated winner from the baseline, and what the cost model predicts without it."""

    knob: str
    label: str
    params: dict[str, Any]
    baseline: dict[str, Any]
    gain: float = math.nan
    """What the change is predicted to gain at the configuration that ships: the objective with it over without
    it (without over with, for a minimised objective), so above 1.0 is a gain either way; nan when the
    configuration without it fails or breaks a limit."""
    without: str = ""
    """Why the configuration without it cannot ship (`oom: ...`, `outside limits: ...`); empty when it can."""
    kept: bool = True


@dataclass(kw_only=True)
class PredictedWinner:
    """A simulated sweep's winner with only the changes the cost model credits: each change of the best
    predicted trial is put back at its baseline value and the configuration predicted again (the same
    fidelity, limits and baseline as the sweep's trials). The change whose reversal costs least goes back
    when that costs under `floor` and the configuration without it still fits and keeps the limits; the
    rest are then predicted again, until every remaining change carries at least `floor`. Nothing here is
    measured: it is what the model expects, to be run before it is shipped."""

    study: str = ""
    winner: int
    """The best predicted trial's number."""
    objective: str = ""
    maximize: bool = True
    device: str = ""
    """What the prediction is for (the cost model's device) and with which weights."""
    weights: str = ""
    floor: float = PREDICTED_FLOOR
    changes: list[PredictedChange]
    shipped: dict[str, Any]
    """The params that ship: the winner's, with every dropped change at its baseline value."""
    baseline_value: float
    winner_value: float
    shipped_value: float
    shipped_metrics: dict[str, float] = field(default_factory=dict)
    """The prediction of what ships: its memory, comm share, MFU (empty in files written before they were kept)."""

    @property
    def speedup(self) -> float:
        """What ships over the baseline, predicted (above 1.0 is better, whatever the objective's direction)."""
        ratio = self.shipped_value / self.baseline_value
        return ratio if self.maximize else 1.0 / ratio

    def to_json(self) -> dict[str, Any]:
        data = _fields(self)
        data["changes"] = [_fields(c) for c in self.changes]
        return data

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> PredictedWinner:
        values = dict(data)
        values["changes"] = [_build(PredictedChange, c) for c in data["changes"]]
        return _build(cls, values)

    @staticmethod
    def file(paths: StudyPaths) -> Path:
        return paths.root / "predicted.json"

    def write(self, paths: StudyPaths) -> None:
        write_json(self.file(paths), _null_for_nan(self.to_json()))

    @classmethod
    def read(cls, paths: StudyPaths) -> PredictedWinner | None:
        """The simulated winner's credited changes, or None when no simulated sweep wrote them."""
        how = "run the simulated sweep again (`autotune run --space ... --fidelity sim`): it rewrites this file"
        return _read(cls.file(paths), cls.from_json, how)

    def lines(self) -> list[str]:
        """Plain text lines (`best`, `export --predicted`'s header, the CLI after a simulated sweep)."""
        where = f" on {self.device}" if self.device else ""
        out = [f"predicted by the cost model{where} ({self.weights or 'its shipped weights'}), not measured:"]
        for c in self.changes:
            if c.without:
                why = f"needed: without it {c.without}"
            else:
                why = f"×{c.gain:.3f} predicted" + ("" if c.kept else f", under {self.floor:.0%}")
            out.append(f"  {'kept   ' if c.kept else 'dropped'} {c.label}: {why}")
        if not self.changes:
            out.append("  the best predicted trial is the baseline's configuration")
        elif not any(c.kept for c in self.changes):
            out.append(f"  no change is credited with {self.floor:.0%}: the baseline's configuration ships")
        whole = self.winner_value / self.baseline_value
        whole = whole if self.maximize else 1.0 / whole
        out.append(
            f"ships ×{self.speedup:.3f} over the baseline, predicted (the whole trial #{self.winner}: ×{whole:.3f})"
        )
        return out


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

    @property
    def one_round(self) -> bool:
        """`speedup_spread` is of one round, which has no interval (its bounds equal, or nan)."""
        low, high = self.speedup_spread or (math.nan, math.nan)
        return self.speedup_spread is not None and (low == high or math.isnan(low + high))

    @property
    def ships_less(self) -> bool:
        """The ablation sent a change (one that acts here) back to baseline: `value` and the confirmed figures
        are the whole winner's, measured in confirmation, not what ships (`speedup` is what ships)."""
        return self.ablation is not None and any(k.verdict != "inert here" for k in self.ablation.dropped)


def find_winner(study: optuna.Study, paths: StudyPaths, space: Space) -> Winner:
    """The one rule for the winner: confirmation's, else the best feasible trial on the first objective."""
    confirmation = Confirmation.read(paths)
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
        if credited is not None and credited.winner == best.number:
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


T = TypeVar("T")


def _same(a: float, b: float) -> bool:
    """Equal as stored figures (both NaN counts as equal: a file written before the figure was kept)."""
    return (math.isnan(a) and math.isnan(b)) or math.isclose(a, b, rel_tol=1e-9)


def _fields(obj: Any, skip: tuple[str, ...] = ()) -> dict[str, Any]:
    return {f.name: getattr(obj, f.name) for f in dataclasses.fields(obj) if f.name not in skip}


def _build(cls: type[T], data: dict[str, Any]) -> T:
    """`cls` from a file's mapping: keys it does not know are left out (a newer writer's additions), and a
    number the file holds as null (`_null_for_nan`) is NaN again where the field is a float."""
    types = {f.name: str(f.type) for f in dataclasses.fields(cls)}  # type: ignore[arg-type]
    return cls(**{k: _nan_for_null(types[k], v) for k, v in data.items() if k in types})


def _null_for_nan(value: Any) -> Any:
    """A result's data with NaN as null: strict JSON (a browser's `JSON.parse`) refuses a bare NaN."""
    if isinstance(value, float) and math.isnan(value):
        return None
    if isinstance(value, dict):
        return {k: _null_for_nan(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_null_for_nan(v) for v in value]
    return value


def _nan_for_null(annotation: str, value: Any) -> Any:
    """Undo `_null_for_nan` for a field annotated `annotation` (files with a bare NaN read as they are)."""
    if value is None:
        return math.nan if annotation == "float" else None
    if annotation == "list[float]" and isinstance(value, list):
        return [math.nan if v is None else v for v in value]
    if annotation.startswith("dict[str, float]") and isinstance(value, dict):
        return {k: math.nan if v is None else v for k, v in value.items()}
    if annotation.startswith("tuple[float") and isinstance(value, (list, tuple)):
        return tuple(math.nan if v is None else v for v in value)
    return value


def _read(path: Path, parse: Any, how: str) -> Any:
    try:
        text = path.read_text()
    except FileNotFoundError:
        return None
    try:
        return parse(json.loads(text))
    except (ValueError, KeyError, TypeError, AttributeError) as exc:
        raise ResultsFileError(f"{path}: cannot be read ({type(exc).__name__}: {exc}); {how}") from None


@dataclass(kw_only=True)
class QualityRun:
    """One seed of one confirmed setting at the full horizon."""

    seed: int
    steps: int
    score: float
    kl_peak: float
    kl_peak_step: int
    kl_last: float
    entropy_low: float = math.nan
    broke: str | None = None
    dir: str = ""


@dataclass(kw_only=True)
class QualityCandidate:
    """A setting of the algorithm knobs, confirmed over seeds."""

    label: str
    """`baseline` or `#N` (the quality study's trial)."""
    number: int | None
    params: dict[str, Any]
    """Its algorithm values."""
    runs: list[QualityRun] = field(default_factory=list)

    @property
    def keeps_bound(self) -> bool:
        """Every seed ran the whole horizon, and kept the KL bound and every other rule."""
        return bool(self.runs) and all(r.broke is None for r in self.runs)

    @property
    def unmeasured(self) -> list[QualityRun]:
        """Its runs that ended before the horizon without breaking a rule (a crash, a timeout, an invalid
        setting, a stop): nothing was learnt of them, and a rerun runs them again."""
        return [r for r in self.runs if r.broke == "incomplete"]

    @property
    def measured(self) -> bool:
        """Whether its runs say what it does: one broke a rule, or every one reached the horizon."""
        return not (self.unmeasured and all(r.broke in (None, "incomplete") for r in self.runs))

    @property
    def ended_early(self) -> str:
        return ", ".join(f"seed {r.seed} at step {r.steps}" for r in self.unmeasured)

    @property
    def status(self) -> str:
        if self.keeps_bound:
            return "keeps the bound"
        if not self.measured:
            return f"NOT MEASURED ({self.ended_early}: it ended early without breaking a rule; a rerun runs it again)"
        return "BREAKS the bound"

    @property
    def mean_score(self) -> float:
        return statistics.fmean(r.score for r in self.runs) if self.runs else math.nan

    @property
    def worst_kl(self) -> float:
        return max((r.kl_peak for r in self.runs), default=math.nan)


def short_value(value: Any) -> str:
    """A sampled value read at a glance (`0.3308`, not `0.330780781455`; `0.24`, not `0.24000000000000002`)."""
    return f"{value:.4g}" if isinstance(value, float) else str(value)


@dataclass(kw_only=True)
class Quality:
    """The quality stage's conclusion: the algorithm knobs judged on learning over a horizon, over seeds.

    The rule (`decide`): only a setting that keeps the KL bound in every seed can win; among those
    the best mean score wins. If the baseline keeps the bound too, a change ships only when its
    paired score gain over the baseline (same seeds) has a `LEVEL` interval above zero. If the
    baseline breaks the bound, the best setting that keeps it ships. If none keeps it, nothing ships.
    """

    study: str = ""
    horizon: int
    seeds: list[int]
    score_metric: str
    score_last: int
    kl_metric: str
    kl_window: int
    kl_max: float
    level: float = LEVEL
    systems: dict[str, Any] = field(default_factory=dict)
    """The systems values every quality run used (the throughput winner's, or the baseline's)."""
    candidates: list[QualityCandidate] = field(default_factory=list)
    """The baseline first, then the search's top settings."""
    ladder: list[dict[str, Any]] = field(default_factory=list)
    """The search's trials: number, params, steps run, how they ended, score at each rung."""
    steps_trained: int = 0
    """Training steps the stage ran, search and confirmation together."""
    winner: str | None = None
    """The label of the setting that ships (None: nothing ships from this stage)."""
    shipped: dict[str, Any] = field(default_factory=dict)
    """Algorithm values that change from the baseline (empty: nothing changes)."""
    gain: tuple[float, float, float] | None = None
    """(mean, low, high) of the winner's per-seed score gain over the baseline, when both keep the bound."""
    verdict: str = ""

    def decide(self) -> None:
        """Apply the rule (class docstring) to the candidates' runs."""
        base = self.candidates[0]
        others = [c for c in self.candidates[1:] if c.keeps_bound]
        best = max(others, key=lambda c: c.mean_score, default=None)
        self.winner, self.shipped, self.gain = None, {}, None
        if not base.measured:  # a crashed seed is no evidence that the baseline breaks the bound
            self.verdict = (
                f"the baseline was not measured in every seed ({base.ended_early}: it ended early without breaking a "
                "rule; a rerun runs it again): nothing is decided; run the same command again"
            )
            return
        if best is None and base.keeps_bound:
            self.verdict = "no other setting keeps the KL bound in every seed; the baseline's values stay"
            return
        if best is None:
            self.verdict = (
                f"no setting keeps the KL bound in every seed (the baseline's {self.kl_metric} peaks at "
                f"{base.worst_kl:.4f} > {self.kl_max:g}); nothing is exported from this stage"
            )
            return
        changed = {k: v for k, v in best.params.items() if base.params.get(k) != v}
        if not base.keeps_bound:
            self.winner, self.shipped = best.label, changed
            self.verdict = (
                f"the baseline breaks the KL bound ({self.kl_metric} {self.kl_window}-step mean peaks at "
                f"{base.worst_kl:.4f} > {self.kl_max:g}); {best.label} keeps it in every seed "
                f"(peak {best.worst_kl:.4f}) with mean score {best.mean_score:.4f}"
            )
            return
        diffs = _paired(base, best)
        mean, low, high = _mean_interval(diffs, self.level)
        self.gain = (mean, low, high)
        if not math.isnan(low) and low > 0:
            self.winner, self.shipped = best.label, changed
            self.verdict = (
                f"{best.label} gains {mean:+.4f} score over the baseline ({self.level:.0%} interval "
                f"[{low:+.4f}, {high:+.4f}] over {len(diffs)} seeds), both keeping the KL bound"
            )
        elif math.isnan(low):  # one seed: a paired interval needs two
            self.verdict = (
                f"the baseline keeps the KL bound and {best.label}'s gain {mean:+.4f} cannot be tested with one seed "
                "(a paired interval needs 2 or more: `quality.seeds`): the baseline's values stay"
            )
        else:
            self.verdict = (
                f"the baseline keeps the KL bound and {best.label}'s gain {mean:+.4f} "
                f"[{low:+.4f}, {high:+.4f}] does not hold across seeds: the baseline's values stay"
            )

    @property
    def baseline(self) -> QualityCandidate:
        return self.candidates[0]

    @property
    def exports_a_broken_bound(self) -> bool:
        """Nothing ships and the baseline's values, which the export keeps, broke the KL bound."""
        base = self.baseline if self.candidates else None
        return self.winner is None and base is not None and base.measured and not base.keeps_bound

    def ran_on_other_systems(self, shipped: dict[str, Any]) -> str | None:
        """A line when the stage's runs used other systems values than `shipped` (the winner that ships, its
        systems params): no run combined these algorithm values with those; None when they are the same."""
        if not self.systems:  # not recorded (an older file), or the baseline's when there was no trial to read
            return None
        changed = [k for k in sorted({*self.systems, *shipped}) if self.systems.get(k) != shipped.get(k)]
        if not changed:
            return None
        what = ", ".join(f"{k.rsplit('.', 1)[-1]}: {self.systems.get(k)} -> {shipped.get(k)}" for k in changed)
        return (
            f"the quality stage's runs used other systems values than ship ({what}: ran -> ships); systems knobs "
            "leave the training math unchanged (the equivalence check)"
        )

    def lines(self) -> list[str]:
        """The decision and its evidence as plain text lines (the CLI, `best`, the export's comments)."""
        out = [
            f"quality stage: {self.score_metric} over the last {self.score_last} of {self.horizon} steps, "
            f"{self.kl_metric} {self.kl_window}-step mean <= {self.kl_max:g}, seeds {self.seeds}:"
        ]
        for c in self.candidates:
            values = ", ".join(f"{k.rsplit('.', 1)[-1]}={short_value(v)}" for k, v in c.params.items())
            scores = " ".join(f"{r.score:.3f}" for r in c.runs)
            kls = " ".join(f"{r.kl_peak:.3f}" for r in c.runs)
            out.append(
                f"  {c.label:<9} {values}: score {c.mean_score:.4f} (seeds {scores}); KL peak {kls}, "
                f"at the horizon {' '.join(f'{r.kl_last:.3f}' for r in c.runs)}: {c.status}"
            )
        out.append(f"  decision: {self.verdict}")
        if self.shipped:  # exactly the value that ran: the export writes it so
            out.append(
                "  ships: " + ", ".join(f"{k}: {v}" for k, v in sorted(self.shipped.items()))
            )  # as the file keeps them
        return out

    def to_json(self) -> dict[str, Any]:
        data = _fields(self)
        data["candidates"] = [{**_fields(c, ("runs",)), "runs": [_fields(r) for r in c.runs]} for c in self.candidates]
        data["gain"] = list(self.gain) if self.gain else None
        return data

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Quality:
        values = dict(data)
        values["candidates"] = [
            _build(QualityCandidate, {**c, "runs": [_build(QualityRun, r) for r in c.get("runs", [])]})
            for c in data["candidates"]
        ]
        values["gain"] = tuple(data["gain"]) if data.get("gain") else None
        return _build(cls, values)

    @staticmethod
    def file(paths: StudyPaths) -> Path:
        return paths.root / "quality.json"

    def write(self, paths: StudyPaths) -> None:
        write_json(self.file(paths), _null_for_nan(self.to_json()))

    @classmethod
    def read(cls, paths: StudyPaths) -> Quality | None:
        how = "run the quality stage again (`autotune run --space ... --stage quality`): finished runs are kept"
        return _read(cls.file(paths), cls.from_json, how)


def _paired(base: QualityCandidate, other: QualityCandidate) -> list[float]:
    """Per-seed score differences, seed by seed."""
    by_seed = {r.seed: r.score for r in base.runs}
    return [r.score - by_seed[r.seed] for r in other.runs if r.seed in by_seed]


def _mean_interval(values: list[float], level: float) -> tuple[float, float, float]:
    """(mean, low, high): Student t interval of the mean ((mean, nan, nan) with fewer than two)."""
    from scipy.stats import t

    if not values:
        return math.nan, math.nan, math.nan
    mean = statistics.fmean(values)
    if len(values) < 2:
        return mean, math.nan, math.nan
    half = float(t.ppf(0.5 + level / 2, len(values) - 1)) * statistics.stdev(values) / math.sqrt(len(values))
    return mean, mean - half, mean + half
