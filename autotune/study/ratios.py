"""Per-round ratios of a configuration to a reference measured beside it, and the intervals they are judged with.

Confirmation, the explain path and the minimal-winner ablation all measure gains this way
(`confirmation_result.py`, `ablation_result.py`); this module is what they share.
"""

from __future__ import annotations

import math
import statistics
from dataclasses import dataclass
from typing import Any

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


def intervals_overlap(a: tuple[float, float], b: tuple[float, float]) -> bool | None:
    """Two measurements agree when their intervals overlap (None: either is not an interval)."""
    if any(math.isnan(v) for v in (*a, *b)):
        return None
    return a[0] <= b[1] and b[0] <= a[1]


def short_value(value: Any) -> str:
    """A sampled value read at a glance (`0.3308`, not `0.330780781455`; `0.24`, not `0.24000000000000002`)."""
    return f"{value:.4g}" if isinstance(value, float) else str(value)
