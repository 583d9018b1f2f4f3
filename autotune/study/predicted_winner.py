"""A simulated sweep's winner, each change credited by the cost model: `runs/<study>/predicted.json`, the
one module that reads or writes it (`sweep/predicted.py` computes it, `find_winner` ships it).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, ClassVar

from autotune.study.result_files import Conclusion, build_from, fields_of
from autotune.study.storage import StudyPaths


def measure_predicted(space_path: str, study: str, flags: str = "") -> str:
    """How a simulated winner gets measured: the model's best and the baseline run for real, confirmed and
    ablated, in a study of their own (a simulated study takes no measured trials)."""
    from autotune.space.loader import shipped_spaces

    shipped = {str(path): name for name, path in shipped_spaces().items()}
    space = shipped.get(space_path, space_path)
    return f"autotune run --space {space} --study {study}-real --fidelity sim,real --top-k 3{flags}"


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
class PredictedWinner(Conclusion):
    """A simulated sweep's winner with only the changes the cost model credits: each change of the best
    predicted trial is put back at its baseline value and the configuration predicted again (the same
    fidelity, limits and baseline as the sweep's trials). The change whose reversal costs least goes back
    when that costs under `floor` and the configuration without it still fits and keeps the limits; the
    rest are then predicted again, until every remaining change carries at least `floor`. Nothing here is
    measured: it is what the model expects, to be run before it is shipped."""

    FILE: ClassVar[str] = "predicted.json"

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
    refused: dict[int, str] = field(default_factory=dict)
    """Better predicted trials passed over, and why: the trainer refuses what they would ship (verl's check)."""
    """The prediction of what ships: its memory, comm share, MFU (empty in files written before they were kept)."""

    @property
    def baseline_ran(self) -> bool:
        """The baseline's configuration is predicted to run: a value to compare with (a baseline predicted out of
        memory has none; its speedup divided by zero in `run`, `best` and `export`: audit 39 F6)."""
        return math.isfinite(self.baseline_value) and self.baseline_value > 0

    @property
    def speedup(self) -> float | None:
        """What ships over the baseline, predicted (above 1.0 is better, whatever the objective's direction); None
        when the baseline is predicted not to run."""
        if not self.baseline_ran:
            return None
        ratio = self.shipped_value / self.baseline_value
        return ratio if self.maximize else 1.0 / ratio

    def to_json(self) -> dict[str, Any]:
        data = fields_of(self)
        data["changes"] = [fields_of(c) for c in self.changes]
        return data

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> PredictedWinner:
        values = dict(data)
        values["changes"] = [build_from(PredictedChange, c) for c in data["changes"]]
        values["refused"] = {int(k): str(v) for k, v in (data.get("refused") or {}).items()}  # JSON keys are strings
        return build_from(cls, values)

    @classmethod
    def redo(cls, paths: StudyPaths) -> str:
        return "run the simulated sweep again (`autotune run --space ... --fidelity sim`): it rewrites this file"

    def lines(self) -> list[str]:
        """Plain text lines (`best`, `export --predicted`'s header, the CLI after a simulated sweep)."""
        where = f" on {self.device}" if self.device else ""
        out = [f"predicted by the cost model{where} ({self.weights or 'its shipped weights'}), not measured:"]
        out += [f"  passed over: trial #{n}: {why}" for n, why in self.refused.items()]
        for c in self.changes:
            if c.without:
                why = f"needed: without it {c.without}"
            else:
                # ×0.987 read "under 1%" (audit 21 F13); a ×0.9996, printed ×1.000, read "slower" (audit 28 F11)
                dropped = ", slower" if round(c.gain, 3) < 1 else f", under {self.floor:.0%}"
                why = f"×{c.gain:.3f} predicted" + ("" if c.kept else dropped)
            out.append(f"  {'kept   ' if c.kept else 'dropped'} {c.label}: {why}")
        if not self.changes:
            out.append("  the best predicted trial is the baseline's configuration")
        elif not any(c.kept for c in self.changes):
            out.append(f"  no change is credited with {self.floor:.0%}: the baseline's configuration ships")
        if self.speedup is None:
            out.append(
                "the baseline's own configuration is predicted not to run (see `autotune trials`): no speedup over "
                "it; a change without which what ships does not run either is `needed`"
            )
            return out
        whole = self.winner_value / self.baseline_value
        whole = whole if self.maximize else 1.0 / whole
        out.append(
            f"ships ×{self.speedup:.3f} over the baseline, predicted (the whole trial #{self.winner}: ×{whole:.3f})"
        )
        return out
