"""What confirmation concludes, typed: every candidate's interleaved rounds beside the baseline's, and the rule that
picks the winner among them (`Confirmation.decide`).

    runs/<study>/confirmation.json   `Confirmation`: the top-k and the baseline re-run, interleaved

The one reader and writer of that file (`result_files.py` keeps it as JSON; `results.find_winner` reads it).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, ClassVar

from autotune.study.ratios import Ratios, interval
from autotune.study.result_files import Conclusion, build_from, fields_of
from autotune.study.storage import StudyPaths


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
    """The best eligible candidate (`best_candidate`), or the baseline when that one does not beat it (None: no
    candidate qualified)."""
    candidates: dict[int, ConfirmedCandidate]

    @classmethod
    def decide(cls, rows: list[ConfirmedCandidate], baseline: int, maximize: bool) -> Confirmation:
        """The winner is the best eligible candidate on its confirmed rounds (never a single round), unless it
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
        """No candidate beat the baseline in confirmation: the baseline's systems values ship."""
        return self.winner is not None and self.winner == self.baseline

    def best_candidate(self, maximize: bool) -> ConfirmedCandidate | None:
        """The eligible candidate with the best speedup over the baseline's rounds beside it (the figure each line
        prints, the one `decide` compares with the baseline), else, when one has none, the best confirmed mean;
        the baseline aside (when the baseline won: the candidate it beat). On means, a candidate at x0.977 whose
        one fast round outweighed three slow ones was ranked above one at x1.087 and lost to the baseline for it."""
        sign = 1.0 if maximize else -1.0
        eligible = [r for r in self.candidates.values() if r.eligible]
        if not eligible:
            return None
        if all(r.speedup_geomean > 0 for r in eligible):
            return max(eligible, key=lambda r: sign * math.log(r.speedup_geomean))
        return max(eligible, key=lambda r: sign * r.mean)

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
        return cls.of_ratios(row, row.rounds)


def beaten_line(best: ConfirmedCandidate | None) -> str:
    """When the baseline won confirmation: the best candidate it beat, as measured there."""
    if best is None:
        return "no candidate qualified in confirmation"
    return (
        f"the best confirmed candidate, #{best.number}, measured ×{best.speedup_geomean:.3f} "
        f"{interval(best.speedup_low, best.speedup_high)} of the baseline over {best.rounds} rounds"
    )
