"""The equivalence check's conclusion, `runs/<study>/equivalence.json`: its one reader and writer. The check itself
(measuring the baseline and the winner on a fixed batch) is `sweep/equivalence.py`'s; `best`, the export and the
report read what it found of the winner that ships now (`shipping_verdict`)."""

from __future__ import annotations

import json
import math
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Literal

from autotune.study.storage import StudyPaths

Outcome = Literal["equivalent", "changes_math", "not_run", "could_not_run"]
"""`not_run`: no check applies (a verl space); `could_not_run`: a measurement failed (a crash, a timeout), so the
changes are not shown to keep the math, nor shown to change it."""


@dataclass(frozen=True)
class Tolerance:
    rtol: float
    atol: float
    basis: str
    """Where the numbers come from (measured here, or stated)."""


TOLERANCES = {
    "cpu": Tolerance(
        1e-5,
        1e-5,
        "fp32 on a CPU, where fsdp3d's systems knobs measured at most 1.9e-6 (log-probs) and 7.2e-7 "
        "(gradient norms) at world 2",
    ),
    "cuda": Tolerance(
        2e-2, 2e-3, "GPU: stated, not measured here (non-deterministic kernels; bf16 keeps 8 bits of mantissa)"
    ),
}


@dataclass(frozen=True)
class Difference:
    """A metric the two configurations compute differently."""

    metric: str
    max_abs: float
    """The largest |winner - baseline| over the metric's values."""
    baseline: float
    """The baseline's value where that difference is."""
    allowed: float
    """atol + rtol * |baseline| there."""
    why: str = ""
    """Set when the two cannot be compared value by value (a metric one of them lacks, another shape)."""

    def describe(self) -> str:
        if self.why:  # it read "differs by inf (allowed 0 at the baseline's nan)" (audit 26 F9)
            return f"{self.metric}: {self.why}"
        return f"{self.metric} differs by {self.max_abs:.3g} (allowed {self.allowed:.3g} at the baseline's {self.baseline:.4g})"


@dataclass(frozen=True)
class EquivalenceResult:
    """What the check concluded, as `runs/<study>/equivalence.json` holds it."""

    outcome: Outcome
    changes: dict[str, list[Any]]
    """{key or env.NAME: [baseline value, winner value]}: the changes checked."""
    tolerance: Tolerance
    compared: list[str] = field(default_factory=list)
    """The metrics compared."""
    differences: list[Difference] = field(default_factory=list)
    worst: dict[str, float] = field(default_factory=dict)
    """{metric: largest |winner - baseline|}, for every compared metric."""
    world_size: int = 1
    detail: str = ""
    moved_by: dict[str, str] = field(default_factory=dict)
    """On a failure of several changes: {change: its first difference} for each that moves the math alone (the one to
    send back; a failure named metrics, never the knob: audit 26 F8)."""
    winner_params: dict[str, Any] | None = None
    """The winner's params as `find_winner` gave them when it was checked: a reader holds the result to the winner
    it ships now (None in files from before it was kept: such a result is not read)."""

    @property
    def ok(self) -> bool:
        """Shown to keep the math, or no check applies; not when it failed, nor when it could not run."""
        return self.outcome in ("equivalent", "not_run")

    @property
    def headline(self) -> str:
        """Why a result that is not `ok` keeps the export from shipping, in one line (the YAML's header carries it:
        it read "it changes the math" for a check that had crashed, audit 26 F2 and F8)."""
        if self.outcome == "could_not_run":
            return f"the equivalence check could not run ({self.detail})"
        first = self.differences[0].describe() if self.differences else "?"
        more = f" and {len(self.differences) - 1} more" if len(self.differences) > 1 else ""
        by = f"; alone, {', '.join(self.moved_by)} moves it" if self.moved_by else ""
        return f"the equivalence check failed: the systems changes change the training math ({first}{more}{by})"

    def summary(self) -> list[str]:
        """Lines for the console."""
        changed = ", ".join(f"{k}: {_said(a)} -> {_said(b)}" for k, (a, b) in self.changes.items()) or "none"
        if self.outcome == "not_run":
            return [f"equivalence check not run: {self.detail}"]
        if self.outcome == "could_not_run":
            return [f"equivalence check could not run: {self.detail}"]
        if not self.changes:
            return [f"equivalence check: nothing to compare, {self.detail}"]
        if self.outcome == "equivalent":
            worst = max(self.worst.values(), default=0.0)
            return [
                f"equivalence check passed: the systems changes ({changed}) compute the same "
                f"{len(self.compared)} quantities on a fixed batch on the built-in trainer at world {self.world_size} "
                "(largest difference "
                f"{worst:.2g}; rtol {self.tolerance.rtol:g}, atol {self.tolerance.atol:g}: {self.tolerance.basis})"
            ]
        return [
            f"equivalence check FAILED: the changes ({changed}) change the training math:",
            *(f"  {d.describe()}" for d in self.differences),
            *(f"  alone, {knob} moves it: {first}" for knob, first in self.moved_by.items()),
        ]

    def save(self, path: Path) -> None:
        from autotune.study.result_files import null_for_nan

        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(null_for_nan(asdict(self)), indent=1, allow_nan=False))

    @classmethod
    def load(cls, path: Path) -> EquivalenceResult:
        raw = json.loads(path.read_text())
        return cls(
            **{
                **raw,
                "tolerance": Tolerance(**raw["tolerance"]),
                "differences": [
                    Difference(**{**d, **{k: math.nan for k in ("max_abs", "baseline", "allowed") if d.get(k) is None}})
                    for d in raw["differences"]
                ],
            }
        )


def _said(value: Any) -> str:
    """A changed key's value as the line says it: one the configuration leaves out (a fixed micro-batch under
    dynamic batching) is `unset`, not Python's `None` (audit 38 F14)."""
    return "unset" if value is None else repr(value)


def result_file(paths: StudyPaths) -> Path:
    """Where a study's equivalence result is kept (written by the sweep and by `export --check`)."""
    return paths.root / "equivalence.json"


def shipping_verdict(paths: StudyPaths, winner_params: dict[str, Any]) -> EquivalenceResult | None:
    """The kept check of the winner that ships now, or None (none kept, unreadable, or of another winner): what
    `best`, the export and the report say of it. A failed check in `autotune run` shipped all the same: `run`
    exited 0, and `best`, a plain export and the report never said it (audit 26 F1)."""
    try:
        result = EquivalenceResult.load(result_file(paths))
    except (OSError, ValueError, TypeError, KeyError):
        return None
    return result if result.winner_params == as_stored(winner_params) else None


def as_stored(params: dict[str, Any]) -> dict[str, Any]:
    """`params` as equivalence.json gives them back (lists for tuples, null for NaN)."""
    from autotune.study.result_files import null_for_nan

    stored: dict[str, Any] = json.loads(json.dumps(null_for_nan(params), default=repr))
    return stored
