"""What the two ablations conclude, typed: the explain path (the baseline to the winner, the knob that gains most
applied first) and the minimal winner (each change of the winner left out; only those that earn their place ship).

    runs/<study>/explain.json        `Explanation`: the ablation path from the baseline to the winner
    runs/<study>/ablation.json       `Ablation`: the minimal winner, every change it keeps measured

The one reader and writer of these files (`result_files.py` keeps them as JSON; `results.find_winner` reads the
ablation, `results.current_explanation` the path).
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, ClassVar, Literal

from autotune.study.confirmation_result import Confirmation, ConfirmedSpeedup
from autotune.study.ratios import LEVEL, Ratios, interval, wide
from autotune.study.result_files import Conclusion, build_from, fields_of, same_figure
from autotune.study.storage import StudyPaths

if TYPE_CHECKING:
    from autotune.study.results import Winner


ASKED = "requested"
"""`runs/<study>/ablation/requested`: the ablation rounds the worker that confirmed last asked for (`--ablate N`, 0:
off) and that worker, written before its confirmation. An ablation that starts afresh clears its folder, this file
with it; its runs then keep their results (`kept.json`) until it finishes."""


def ask_ablation(paths: StudyPaths, rounds: int) -> None:
    """Record the rounds this worker's ablation asks for, before its confirmation (a kill between the two read as
    "the ablation was off", audit 18 F5; a `--ablate 0` worker's winner beside another worker's finished ablation
    read as "cut short", audit 38 F4)."""
    import os
    import socket

    path = paths.root / "ablation" / ASKED
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(f"--ablate {rounds}\nworker pid {os.getpid()} on {socket.gethostname()}\n")


def ablation_asked(paths: StudyPaths) -> tuple[int, str] | None:
    """(the rounds, the worker) `ask_ablation` recorded; None when nothing is recorded (the ablation began, which
    clears it, or a study of an earlier version, which recorded only `--ablate N` of 2 or more)."""
    try:
        lines = (paths.root / "ablation" / ASKED).read_text().splitlines()
        rounds = int(lines[0].removeprefix("--ablate "))
    except (OSError, ValueError, IndexError):
        return None
    return rounds, lines[1] if len(lines) > 1 else ""


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
    measured_rounds: int | None = None
    """Rounds in which both this step's run and the one before it measured (None: a file from before it was
    kept, whose `rounds` counted failed runs too)."""
    outside: str = ""
    """How this step's configuration broke a limit in rounds it ran (`outside limits: memory ... in 2 of 2
    rounds`); empty when it stayed inside them."""
    tried: dict[str, float] = field(default_factory=dict)
    """The gain every candidate knob showed in the ordering round that chose this one."""
    runs: list[str] = field(default_factory=list)
    reference_runs: list[str] = field(default_factory=list)
    cumulative: float = math.nan
    """Product of the gains up to this step: × the baseline."""
    verdict: str = ""
    """matters | slower | within noise (its rounds straddle 1.0) | one run: no spread | not measured: its runs failed."""

    TABLE: ClassVar[tuple[str, ...]] = (
        "step", "label", "gain", "speedup_min", "speedup_max", "cumulative", "verdict", "outside",
    )  # fmt: skip
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

    @property
    def reference_words(self) -> str:
        """What the path is compared with, in a sentence: "the confirmed speedup", "what ships, measured by the
        ablation" (not "the what ships")."""
        label = self.compared_with.rstrip(",")
        return label if label.startswith("what") else f"the {label}"

    def measured_with(self, repeats: int, max_rounds: int | None, select_repeats: int) -> bool:
        return (self.repeats, self.max_rounds, self.select_repeats) == (repeats, max_rounds, select_repeats)

    @staticmethod
    def reference(winner: Winner, confirmation: Confirmation | None) -> tuple[ConfirmedSpeedup | None, str]:
        """What the path is compared with: after an ablation, what ships as the ablation measured it (the
        configuration the path reaches); else the winner's confirmed speedup; None without either."""
        if winner.ablation is not None:
            ratios = winner.ablation.shipped_speedup
            return (
                ConfirmedSpeedup.of_ratios(ratios, winner.ablation.shipped_round_count),
                "what ships, measured by the ablation,",
            )
        row = confirmation.row(winner.number) if confirmation else None
        return (ConfirmedSpeedup.of(row) if row else None), "confirmed speedup"

    def compared(self, reference: ConfirmedSpeedup | None, label: str) -> Explanation:
        """This path against `reference`: it agrees when the product of its gains lies in the reference's
        interval, the one `best` prints; one round has no interval, and is not compared."""
        agrees = None  # a path with an unmeasured step has no product to compare (NaN read "does NOT agree")
        if (
            reference is not None
            and self.steps
            and not math.isnan(reference.speedup_low + reference.speedup_high + self.product)
        ):
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
        how = "one knob" if len(self.steps) == 1 else "the knob that gains most applied first, then the next"
        out = [f"explain: study `{self.study}`'s baseline #{self.baseline} → {target}, {how}"]
        for s in self.steps:  # not the minimal winner's ablation (each change taken out of the winner): its own lines
            if math.isnan(s.gain):
                out.append(f"  {s.step}. {s.label}: [{s.verdict}]")
                continue
            measured = s.rounds if s.measured_rounds is None else s.measured_rounds
            some = f", measured in {measured} of {s.rounds} rounds: the others failed" if measured < s.rounds else ""
            out.append(
                f"  {s.step}. {s.label}: ×{s.gain:.3f} (rounds {s.speedup_min:.3f}–{s.speedup_max:.3f}{some})"
                f" → {s.cumulative:.3f}× the baseline  [{s.verdict}]" + (f"  ({s.outside})" if s.outside else "")
            )
        if self.steps and not math.isnan(self.product):
            out.append(
                f"product of step gains {self.product:.3f}× (range {self.product_min:.3f}–{self.product_max:.3f})"
            )
        elif self.steps:
            out.append("product of step gains: not known, a step's runs all failed (`--rerun` measures it again)")
        end = self.end_to_end
        if end and not math.isnan(end.speedup_geomean):
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
        else:  # "run the sweep with --confirm 2" to a sweep that did, cut short (audit 30 F7)
            out.append(
                f"no confirmation of the winner to compare with: `autotune best {self.study}` says why (a sweep "
                "cut short goes on with the same `autotune run` command; then explain again to compare)"
            )
        for names, text in (
            (self.same_as_baseline, "not run, the winner keeps the baseline's value"),
            (self.dropped, "not run, the ablation sent them back to the baseline"),
            (self.inert, "not run, inert here"),
        ):
            if names:
                out.append(f"{text}: {', '.join(n.rsplit('.', 1)[-1] for n in names)}")
        return out


AblationVerdict = Literal["kept", "needed", "within noise", "slower", "inert here", "not measured"]
"""What the ablation concluded about one change: kept (its interval lies above 1.0), needed (the winner
without it broke a limit: it ships whatever its speed), or back to baseline because its interval reaches
1.0, it lies below 1.0, the knob is inert on this platform (not run), or its runs failed."""


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
    without: str = ""
    """When needed: how the winner without it broke a limit (`outside limits: memory ... in 3 of 3 rounds`)."""
    confirmation_rounds: int = 0
    """How many of the first `ratios` are confirmation's rounds: the winner's one change, whose leave-one-out is
    the baseline, measured there too when confirmation ran no other candidate (`sweep.ablation.confirmation_ratios`)."""

    @property
    def kept(self) -> bool:
        return self.verdict in ("kept", "needed")

    @property
    def said(self) -> str:
        """The verdict in words, with the broken limit of a needed change."""
        return f"needed: without it {self.without}" if self.verdict == "needed" else self.verdict


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
    ablation's configurations), `reduced` (its own interleaved rounds against the baseline) or `pooled` (the
    winner's one change, over confirmation's rounds and the ablation's)."""
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

    @property
    def shipped_round_count(self) -> int:
        """The rounds `shipped_speedup` is over: the ablation's, and confirmation's too where they were pooled."""
        pooled = max((k.confirmation_rounds for k in self.knobs), default=0) if self.shipped_rounds == "pooled" else 0
        return self.rounds + pooled

    @property
    def where_measured(self) -> str:
        """Where `shipped_speedup` comes from, in words."""
        return {"reduced": "its own rounds", "pooled": "confirmation's rounds and the ablation's"}.get(
            self.shipped_rounds, "same rounds"
        )

    def lines(self) -> list[str]:
        """The minimal winner as plain text lines (`best`, the CLI after a sweep, the benchmark)."""
        pct = f"{self.level:.0%}"
        out = [f"minimal winner of #{self.winner} ({self.rounds} interleaved rounds, {pct} intervals):"]
        counts = {len(k.ratios) for k in self.knobs if k.ratios}
        for k in self.knobs:
            spread = f"×{k.gain:.3f} {interval(k.low, k.high)}" if not math.isnan(k.gain) else "not run"
            if k.confirmation_rounds:
                spread += f" in {len(k.ratios)} rounds, {k.confirmation_rounds} of them confirmation's"
            elif len(counts) > 1 and k.ratios:  # extra rounds went to the undecided changes
                spread += f" in {len(k.ratios)} rounds"
            out.append(f"  {'kept   ' if k.kept else 'dropped'} {k.label}: {spread}  ({k.said})")
        s, w = self.shipped_speedup, self.winner_speedup
        whole = f"whole winner ×{w.speedup_geomean:.3f} {interval(w.speedup_low, w.speedup_high)}"
        if not self.kept:  # not "ships ×1.000 [1.000, 1.000]": the baseline against itself (audit 27 F5)
            out.append(f"no change cleared the noise: the baseline's systems values ship; {whole}")
        else:
            out.append(
                f"ships ×{s.speedup_geomean:.3f} {interval(s.speedup_low, s.speedup_high)} over the baseline"
                f" ({self.where_measured}); {whole}"
            )
        if self.confirmed:
            c = self.confirmed
            verdict = {True: "agrees", False: "does NOT agree", None: "not compared"}[self.agrees]
            out.append(
                f"confirmation measured the winner ×{c.speedup_geomean:.3f} "
                f"{interval(c.speedup_low, c.speedup_high)}: the ablation {verdict}"
                + wide(c.speedup_low, c.speedup_high, self.agrees)
            )
            if not self.kept and c.speedup_low > 1.0:  # "agrees" read as support for shipping nothing (audit 20 F7)
                out.append(
                    f"confirmation's interval lies above 1, but no single change cleared the noise in {self.rounds} "
                    "ablation rounds: more rounds may keep one (`--ablate N`, or the space's "
                    "`confirm.ablation_max_repeats`)"
                    + (
                        "; a one-change winner's confirmation rounds count too when confirmation runs no other "
                        "candidate (`--top-k 1`)"
                        if len(self.knobs) == 1 and not self.knobs[0].confirmation_rounds
                        else ""
                    )
                )
        return out
