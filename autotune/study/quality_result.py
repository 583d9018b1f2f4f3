"""The quality stage's conclusion: `runs/<study>/quality.json`, the one module that reads or writes it
(`sweep/quality.py` measures it; `best`, the export and the report read it).
"""

from __future__ import annotations

import math
import statistics
from dataclasses import dataclass, field
from typing import Any, ClassVar

from autotune.study.ratios import LEVEL, short_value
from autotune.study.result_files import Conclusion, build_from, fields_of
from autotune.study.storage import StudyPaths

BROKEN_BOUND = (
    "the algorithm values exported are the baseline's, which break the quality stage's KL bound (no setting it "
    "confirmed over seeds kept it; the search stops a setting at `search_margin` × the bound): widen the quality "
    "search (`quality:` in the space), or set them by hand"
)
"""Said wherever the decision is (best, the export's header, the report) when nothing ships and the baseline's
algorithm values, which the export keeps, broke the bound (audit 24 F5)."""


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


@dataclass(kw_only=True)
class Quality(Conclusion):
    """The quality stage's conclusion: the algorithm knobs judged on learning over a horizon, over seeds.

    The rule (`decide`): only a setting that keeps the KL bound in every seed can win; among those
    the best mean score wins. If the baseline keeps the bound too, a change ships only when its
    paired score gain over the baseline (same seeds) has a `LEVEL` interval above zero. If the
    baseline breaks the bound, the best setting that keeps it ships. If none keeps it, nothing ships.
    """

    FILE: ClassVar[str] = "quality.json"

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
    not_measured: list[str] = field(default_factory=list)
    """Searched settings whose run failed before breaking a rule (`#N (why)`: a crash, a timeout), not yet run
    again: the next run of the stage runs them again."""
    failed_twice: list[str] = field(default_factory=list)
    """Searched settings whose run failed, and whose run again failed too (`#N (as #M: why)`): not run a third time
    (a setting that crashes every time left every run of the stage undecided, exit 1), counted as not keeping the
    bound, and said beside the decision."""

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
        if best is None and self.not_measured:  # it said "widen the search" of a search whose keeper crashed
            n = len(self.not_measured)
            self.verdict = (
                f"no setting measured keeps the KL bound in every seed, and {n} searched setting{'s' if n > 1 else ''} "
                f"ended early without breaking a rule ({'; '.join(self.not_measured)}): nothing is decided; run the "
                "same command again (it runs them again)"
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
        elif high < 0:  # "does not hold across seeds" read as noise of a setting measurably worse (audit 32 F9)
            self.verdict = (
                f"the baseline keeps the KL bound and learns more than {best.label}, the best other setting that "
                f"keeps it ({best.label}'s gain {mean:+.4f}, its interval [{low:+.4f}, {high:+.4f}] below zero): the "
                "baseline's values stay"
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
    def undecided(self) -> bool:
        """Runs that ended early without breaking a rule (a crash, a timeout) left the decision open: the baseline
        unmeasured, or no setting keeping the bound while a searched one was never measured. A rerun decides."""
        base = self.baseline if self.candidates else None
        return base is not None and (not base.measured or (self.winner is None and bool(self.not_measured)))

    @property
    def exports_a_broken_bound(self) -> bool:
        """Nothing ships and the baseline's values, which the export keeps, broke the KL bound (the search done)."""
        base = self.baseline if self.candidates else None
        return self.winner is None and base is not None and not self.undecided and not base.keeps_bound

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
            # a run that stopped early has no KL at the horizon: its last step's is said as such
            last = " ".join(
                f"{r.kl_last:.3f}" + (f" (step {r.steps})" if r.steps < self.horizon else "") for r in c.runs
            )
            out.append(
                f"  {c.label:<9} {values}: score {c.mean_score:.4f} (seeds {scores}); KL peak {kls}, "
                f"at the horizon {last}: {c.status}"
            )
        out.append(f"  decision: {self.verdict}")
        if self.failed_twice:
            out.append(f"  failed twice, not run again: {'; '.join(self.failed_twice)}")
        if self.exports_a_broken_bound:  # in the export's header and the report too: it was said on a terminal only
            out.append(f"  {BROKEN_BOUND}")
        if self.shipped:  # exactly the value that ran: the export writes it so
            out.append(
                "  ships: " + ", ".join(f"{k}: {v}" for k, v in sorted(self.shipped.items()))
            )  # as the file keeps them
        return out

    def to_json(self) -> dict[str, Any]:
        data = fields_of(self)
        data["candidates"] = [
            {**fields_of(c, ("runs",)), "runs": [fields_of(r) for r in c.runs]} for c in self.candidates
        ]
        data["gain"] = list(self.gain) if self.gain else None
        return data

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Quality:
        values = dict(data)
        values["candidates"] = [
            build_from(QualityCandidate, {**c, "runs": [build_from(QualityRun, r) for r in c.get("runs", [])]})
            for c in data["candidates"]
        ]
        values["gain"] = tuple(data["gain"]) if data.get("gain") else None
        result = build_from(cls, values)
        if "not_measured" not in data:  # an earlier version's file: its failed search runs were never run again, and
            result.not_measured = [  # its decision read as final beside them ("widen the search"; audit 33 F3)
                f"#{row['number']} ({row.get('detail') or 'failed'})"
                for row in result.ladder
                if row.get("outcome") == "failed" and not str(row.get("detail") or "").startswith("invalid")
            ]
            if result.not_measured and result.candidates:
                result.decide()  # by this version's rule, as confirmation's rounds are
        return result

    @classmethod
    def redo(cls, paths: StudyPaths) -> str:
        return "run the quality stage again (`autotune run --space ... --stage quality`): finished runs are kept"


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
