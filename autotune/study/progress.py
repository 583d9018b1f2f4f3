"""Live progress of a sweep on the terminal: trial n/N, outcome, best so far, elapsed and remaining."""

from __future__ import annotations

import math
import time
from collections import Counter
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
        self.budget_flag = "--trials"
        """The flag that sets `total` (a multi-fidelity sweep's phases: --sim-trials, --top-k)."""
        self.outcomes: Counter[str] = Counter()
        """Finished trials by how they ended (`_tally_key`; a quiet sweep prints the tally)."""

    def resume_from(self, study: optuna.Study) -> None:
        """A resumed sweep's lines compare with its finished trials too: the baseline's value (for `×N vs
        baseline`) and the best so far, from the study, not only from the trials this process ran."""
        from autotune.study.storage import counted
        from autotune.trial.record import TrialRecord

        for t in study.get_trials(deepcopy=False):  # a quiet sweep's tally counts them too
            if counted(t):
                rec = TrialRecord.of(t)
                reused = rec.duplicate_of is not None
                self.outcomes["reused" if reused else _tally_key(rec.outcome or "failed", rec.reason)] += 1
        for t in study.get_trials(deepcopy=False, states=(optuna.trial.TrialState.COMPLETE,)):
            if TrialRecord.of(t).outcome != "complete" or not t.values or math.isnan(t.values[0]):
                continue
            if self.best is None or self.sign * t.values[0] > self.sign * self.best:
                self.best = t.values[0]
        self.know_baseline(study)
        self._say_resumed(sum(self.outcomes.values()))

    def know_best(self, trials: list[optuna.trial.FrozenTrial]) -> None:
        """The study's best so far from a snapshot of its trials: another worker's too (each worker's lines said its
        own best, 275.9, while the study's was 512.2)."""
        from autotune.trial.record import outcome_of

        values = [t.values[0] for t in trials if t.values and outcome_of(t) == "complete"]
        for value in (v for v in values if not math.isnan(v)):
            if self.best is None or self.sign * value > self.sign * self.best:
                self.best = value

    def know_baseline(self, study: optuna.Study) -> None:
        """The baseline's value, once it has finished (in this process or in another worker), for `×N vs baseline`."""
        from autotune.study.storage import baseline_trial
        from autotune.trial.record import TrialRecord

        if self.baseline is not None:
            return
        base = baseline_trial(study)
        if base is not None and base.values and TrialRecord.of(base).outcome == "complete":
            self.baseline = base.values[0]

    def _say_resumed(self, done: int) -> None:
        """One line on a rerun, before anything runs: how far the study got, and what this run adds."""
        if not done:
            return
        best = f", best {self.objective}={self.best:.4g}" if self.best is not None else ", none feasible"
        if self.best is not None and self.baseline:
            best += f" (×{self.best / self.baseline:.2f} vs baseline)"
        left = self.total - done
        rest = f"{left} to run" if left > 0 else f"nothing left to run (a larger {self.budget_flag} runs more)"
        # more than this run asks: another worker's larger --trials, or an earlier run's ("7 of 6", audit 38 F13)
        finished = (
            f"{done} of {self.total} trials finished"
            if done <= self.total
            else f"{done} trials finished (more than the {self.total} this run asks for)"
        )
        self.note(f"resuming: {finished}{best}; {rest}")

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
        value = ev.objectives[0] if ev.objectives else math.nan
        reason = ev.detail or ev.reason if ev.reason else None
        line = self._outcome(done, ev.outcome, reason, value, seconds, is_baseline, _tally_key(ev.outcome, ev.reason))
        if line is not None:
            self.console.print(f"  {line}")

    def finished_trial(self, trial: optuna.trial.FrozenTrial, done: int) -> None:
        """A trial another process ran and told the study (Ray's trainables), printed as `finished` prints the local
        backend's: its outcome, ×N vs the baseline, the best so far and the clock; the line starts with its number,
        since Ray runs several at once and prints no line when one starts."""
        from autotune.trial.record import TrialRecord

        rec = TrialRecord.of(trial)
        value = trial.values[0] if trial.values else math.nan
        start, end = trial.datetime_start, trial.datetime_complete
        seconds = (end - start).total_seconds() if start and end else math.nan
        if not math.isnan(rec.wall_s) and rec.duplicate_of is None:  # the run: Tune starts a trial when it queues it
            seconds = rec.wall_s
        reason = str(rec.detail or rec.reason) if rec.reason else None
        outcome = rec.outcome or "failed"
        line = self._outcome(done, outcome, reason, value, seconds, bool(rec.baseline), _tally_key(outcome, rec.reason))
        if line is not None:
            retried = trial.system_attrs.get("failed_trial")  # Optuna's retry callback sets it: said, as the local
            notes = [  # backend's line says it (audit 33 F4)
                *(["baseline"] if rec.baseline else []),
                *([f"a retry of interrupted trial #{retried}"] if retried is not None else []),
            ]
            label = f" ({', '.join(notes)})" if notes else ""
            shown = escape(short_params(trial.params))
            self.console.print(f"[bold]trial {done}/{self.total}[/] (#{trial.number}){label} {shown}: {line}")

    def _outcome(
        self,
        done: int,
        outcome: str,
        reason: str | None,
        value: float,
        seconds: float,
        is_baseline: bool,
        tally_key: str,
    ) -> str | None:
        """The outcome part of a finished trial's line (None when a quiet sweep skips it); updates best and clock."""
        if not math.isnan(seconds):
            self.durations.append(seconds)
        if is_baseline and outcome == "complete":
            self.baseline = value
        # the baseline another worker ran, known (its ×N is printed) but missed by the snapshot the best was read
        # from: a second worker's line said "×0.84 vs baseline ..., best 363.2", its own value (audit 31 F8)
        for v in (value, self.baseline) if outcome == "complete" else (self.baseline,):
            if v is not None and not math.isnan(v) and (self.best is None or self.sign * v > self.sign * self.best):
                self.best = v
        self.outcomes[tally_key] += 1
        if self.quiet:
            return None if done % 20 and done != self.total else self._tally(done)
        style = STYLE.get(outcome, "white")
        why = f" ({escape(reason)})" if reason else ""
        shown = f" {self.objective}={value:.4g}" if not math.isnan(value) else ""
        versus = f" ×{value / self.baseline:.2f} vs baseline" if self.baseline and not math.isnan(value) else ""
        best = f", best {self.best:.4g}" if self.best is not None else ""
        took = f" in {seconds:.1f} s" if not math.isnan(seconds) else ""
        return f"[{style}]{outcome}[/]{why}{shown}{versus}{took}{best} | {self._clock(self.total - done)}"

    def reused(self, done: int, number: int, copy_of: int) -> None:
        """A trial that repeats a finished one's parameters: its result is reused, nothing runs."""
        self.outcomes["reused"] += 1
        if not self.quiet:
            self.console.print(f"[bold]trial {done}/{self.total}[/] (#{number}) repeats #{copy_of}: result reused")
        elif done % 20 == 0 or done == self.total:
            self.console.print(f"  {self._tally(done)}")

    def _tally(self, done: int) -> str:
        """A quiet sweep's line every 20 trials: how many ended how, and the best so far."""
        counts = ", ".join(f"{n} {key}" for key, n in self.outcomes.most_common())
        best = f"best {self.objective}={self.best:.4g}" if self.best is not None else "nothing complete yet"
        versus = f" ×{self.best / self.baseline:.2f} vs baseline" if self.best is not None and self.baseline else ""
        return f"{done}/{self.total} trials ({counts}): {best}{versus} | {self._clock(self.total - done)}"

    def note(self, message: str) -> None:
        self.console.print(message)


def _tally_key(outcome: str, reason: str | None) -> str:
    """How a quiet sweep's tally counts a trial: a failed one by its reason ("failed (oom)"), the rest by outcome."""
    return f"{outcome} ({reason})" if outcome == "failed" and reason else outcome


def _fmt_s(seconds: float) -> str:
    seconds = max(0, int(seconds))
    return f"{seconds // 60}:{seconds % 60:02d}"
