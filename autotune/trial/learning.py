"""A run's learning curve, judged the way the quality stage judges it.

score     the mean of the reward metric over the last `score_last` steps (of the horizon, or of a rung)
KL        the bounded KL's moving mean over `kl_window` steps; the bound holds at every step
entropy   its moving mean; below `min_entropy` the policy has collapsed
NaN       any NaN in the score, the KL or the entropy ends the run

Early in a run the moving means cover the steps there are (a 10-step mean at step 4 is the mean of
4 steps). `CurveWatch` applies the same rules step by step while a run is going, so a run that
breaks the bound stops there; `summarize` applies them to a finished run's rows.
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from autotune.space.quality_section import QualitySettings

Stop = str
"""Why a run was stopped: `kl_bound`, `entropy`, `nan` or `pruned`."""


def moving_means(values: list[float], window: int) -> list[float]:
    """Trailing means over `window` values (fewer at the start)."""
    return [math.fsum(values[max(0, i + 1 - window) : i + 1]) / min(i + 1, window) for i in range(len(values))]


def tail(values: list[float], last: int) -> tuple[float, float]:
    """(mean, standard error) of the last `last` values; se is nan with fewer than two."""
    part = values[-last:]
    if not part or any(math.isnan(v) for v in part):
        return math.nan, math.nan
    mean = statistics.fmean(part)
    if len(part) < 2:
        return mean, math.nan
    var = sum((v - mean) ** 2 for v in part) / (len(part) - 1)  # statistics.stdev fails on some float inputs in 3.11
    return mean, math.sqrt(var / len(part))


@dataclass
class Curve:
    """One run's learning, in step order."""

    steps: list[int] = field(default_factory=list)
    score: list[float] = field(default_factory=list)
    kl: list[float] = field(default_factory=list)
    entropy: list[float] = field(default_factory=list)

    @classmethod
    def of(cls, rows: list[dict[str, Any]], q: QualitySettings) -> Curve:
        curve = cls()
        for row in sorted(rows, key=lambda r: r["step"]):
            curve.add(int(row["step"]), row["metrics"], q)
        return curve

    def add(self, step: int, metrics: dict[str, Any], q: QualitySettings) -> None:
        def value(name: str) -> float:
            v = metrics.get(name)
            return math.nan if v is None else float(v)

        self.steps.append(step)
        self.score.append(value(q.score_metric))
        self.kl.append(value(q.kl_metric))
        self.entropy.append(value(q.entropy_metric) if q.entropy_metric in metrics else math.nan)


@dataclass
class CurveSummary:
    """What the stage decides on for one run."""

    steps: int
    score: float
    """Mean score over the last `score_last` steps."""
    score_se: float
    kl_peak: float
    """The highest moving-mean KL over the run."""
    kl_peak_step: int
    kl_last: float
    """The moving-mean KL at the run's last step."""
    entropy_low: float
    """The lowest moving-mean entropy (nan when the trainer does not log entropy)."""
    broke: Stop | None
    """The first rule the run broke (None: none)."""

    def keeps(self, q: QualitySettings) -> bool:
        return self.broke is None and self.kl_peak <= q.kl_max


def summarize(curve: Curve, q: QualitySettings, upto: int | None = None) -> CurveSummary:
    """The run's summary over its steps up to `upto` (all by default)."""
    n = len(curve.steps) if upto is None else sum(1 for s in curve.steps if s <= upto)
    score, kl, entropy = curve.score[:n], curve.kl[:n], curve.entropy[:n]
    kl_means = moving_means(kl, q.kl_window)
    ent_known = [e for e in entropy if not math.isnan(e)]
    ent_means = moving_means(ent_known, q.kl_window) if ent_known else []
    mean, se = tail(score, q.score_last)
    peak_i = max(range(n), key=lambda i: -math.inf if math.isnan(kl_means[i]) else kl_means[i]) if n else 0
    return CurveSummary(
        steps=n,
        score=mean,
        score_se=se,
        kl_peak=max((v for v in kl_means if not math.isnan(v)), default=math.nan),
        kl_peak_step=curve.steps[peak_i] if n else 0,
        kl_last=kl_means[-1] if kl_means else math.nan,
        entropy_low=min(ent_means) if ent_means else math.nan,
        broke=_broken(score, kl, kl_means, ent_known, ent_means, q),
    )


def _broken(
    score: list[float],
    kl: list[float],
    kl_means: list[float],
    ent: list[float],
    ent_means: list[float],
    q: QualitySettings,
) -> Stop | None:
    if any(math.isnan(v) for v in (*score, *kl)) or any(math.isnan(v) or math.isinf(v) for v in ent):
        return "nan"
    if any(v > q.kl_max for v in kl_means):
        return "kl_bound"
    if q.min_entropy is not None and any(v < q.min_entropy for v in ent_means):
        return "entropy"
    return None


class CurveWatch:
    """Follows a running run step by step: stops it when it breaks a rule (`stop_on_limits`), and at
    each rung hands its running summary to `at_rung`, which may stop it as pruned."""

    def __init__(
        self,
        q: QualitySettings,
        stop_on_limits: bool = True,
        at_rung: Callable[[int, CurveSummary], bool] | None = None,
        bound: float | None = None,
    ) -> None:
        self.q = q
        self.bound = bound
        """The KL bound the stage states, where `q.kl_max` is the search's margin under it (`search_margin`): a run
        stopped at 0.086 read "KL bound broken ... > 0.084" on a page that drew the bound at 0.12 (audit 24 F4)."""
        self.curve = Curve()
        self.stop_on_limits = stop_on_limits
        self.at_rung = at_rung
        self.rungs = set(q.rungs())
        self.stopped: Stop | None = None
        self.detail = ""

    def __call__(self, step: int, metrics: dict[str, Any]) -> str | None:
        self.curve.add(step, metrics, self.q)
        s = summarize(self.curve, self.q)
        if s.broke == "nan" or (self.stop_on_limits and s.broke):
            self.stopped = s.broke
            self.detail = self.describe(s, step)
            return self.detail
        if self.at_rung is not None and step in self.rungs and self.at_rung(step, s):
            self.stopped = "pruned"
            self.detail = f"pruned at rung {step} of {self.q.steps}: score {s.score:.3f} ± {s.score_se:.3f}"
            return self.detail
        return None

    def describe(self, s: CurveSummary, step: int) -> str:
        q = self.q
        if s.broke == "kl_bound" and self.bound is not None and self.bound != q.kl_max:
            return (
                f"the search's KL margin crossed at step {step}: {q.kl_window}-step mean {q.kl_metric} "
                f"{s.kl_peak:.4f} > {q.kl_max:g} ({q.kl_max / self.bound:g} × the bound {self.bound:g}, search_margin)"
            )
        if s.broke == "kl_bound":
            return (
                f"KL bound broken at step {step}: {q.kl_window}-step mean {q.kl_metric} {s.kl_peak:.4f} > {q.kl_max:g}"
            )
        if s.broke == "entropy":
            return f"entropy collapsed at step {step}: {q.kl_window}-step mean {s.entropy_low:.4f} < {q.min_entropy:g}"
        return f"NaN at step {step}"
