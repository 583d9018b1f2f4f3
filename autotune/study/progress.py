"""Live progress of a sweep on the terminal: trial n/N, outcome, best so far, elapsed and remaining."""

from __future__ import annotations

import math
import time
from typing import TYPE_CHECKING, Any

import optuna
from rich.console import Console
from rich.markup import escape

from autotune.names import short_labels

if TYPE_CHECKING:  # the type only: reading a study never loads what launches trials
    from autotune.trial.evaluation import Evaluation

STYLE = {"complete": "green", "infeasible": "yellow", "pruned": "cyan", "failed": "red"}


def short_params(params: dict[str, Any], limit: int = 6) -> str:
    items = []
    labels = short_labels(params)
    for key, value in params.items():
        name = labels[key]
        items.append(f"{name}={value:.3g}" if isinstance(value, float) else f"{name}={value}")
    text = " ".join(items[:limit])
    return text + (" …" if len(items) > limit else "")


class SweepProgress:
    def __init__(self, total: int, objective: str, maximize: bool = True, console: Console | None = None) -> None:
        self.console = console or Console(highlight=False)
        self.total = total
        self.objective = objective
        self.sign = 1.0 if maximize else -1.0
        self.start = time.monotonic()
        self.durations: list[float] = []
        self.best: float | None = None
        self.baseline: float | None = None
        self.quiet = False
        """Print one line per 20 trials (simulated sweeps finish hundreds of trials a minute)."""

    def resume_from(self, study: optuna.Study) -> None:
        """A resumed sweep's lines compare with its finished trials too: the baseline's value (for `×N vs
        baseline`) and the best so far, from the study, not only from the trials this process ran."""
        from autotune.study.storage import baseline_trial
        from autotune.trial.record import TrialRecord

        for t in study.get_trials(deepcopy=False, states=(optuna.trial.TrialState.COMPLETE,)):
            if TrialRecord.of(t).outcome != "complete" or not t.values or math.isnan(t.values[0]):
                continue
            if self.best is None or self.sign * t.values[0] > self.sign * self.best:
                self.best = t.values[0]
        base = baseline_trial(study)
        if base is not None and base.values and TrialRecord.of(base).outcome == "complete":
            self.baseline = base.values[0]

    def _clock(self, remaining_trials: int) -> str:
        elapsed = time.monotonic() - self.start
        avg = sum(self.durations) / len(self.durations) if self.durations else math.nan
        eta = "?" if math.isnan(avg) else _fmt_s(avg * remaining_trials)
        return f"{_fmt_s(elapsed)} elapsed, ~{eta} left"

    def started(self, done: int, number: int, params: dict[str, Any], note: str = "") -> None:
        if self.quiet:
            return
        tag = f" ({note})" if note else ""
        self.console.print(f"[bold]trial {done + 1}/{self.total}[/] (#{number}){tag} {escape(short_params(params))}")

    def finished(self, done: int, number: int, ev: Evaluation, seconds: float, is_baseline: bool) -> None:
        self.durations.append(seconds)
        value = ev.objectives[0] if ev.objectives else math.nan
        if is_baseline and ev.outcome == "complete":
            self.baseline = value
        better = self.best is None or self.sign * value > self.sign * self.best
        if ev.outcome == "complete" and not math.isnan(value) and better:
            self.best = value
        if self.quiet and done % 20 and done != self.total:
            return
        style = STYLE.get(ev.outcome, "white")
        reason = f" ({escape(ev.detail or ev.reason or '')})" if ev.reason else ""
        shown = f"{self.objective}={value:.4g}" if not math.isnan(value) else ""
        versus = f" ×{value / self.baseline:.2f} vs baseline" if self.baseline and not math.isnan(value) else ""
        best = f", best {self.best:.4g}" if self.best is not None else ""
        self.console.print(
            f"  [{style}]{ev.outcome}[/]{reason} {shown}{versus} in {seconds:.1f} s{best} | {self._clock(self.total - done)}"
        )

    def note(self, message: str) -> None:
        self.console.print(message)


def _fmt_s(seconds: float) -> str:
    seconds = max(0, int(seconds))
    return f"{seconds // 60}:{seconds % 60:02d}"
