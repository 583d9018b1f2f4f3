"""One trial: measure the configuration (`fidelity`: a real run through `runner`, or a prediction),
score its metrics (`scoring`), classify and record it (`evaluation`, `record`)."""

from __future__ import annotations

from autotune.trial.evaluation import Evaluation, evaluate
from autotune.trial.fidelity import REAL_RUN, Fidelity, FidelitySettings, RealRun, TrialJob
from autotune.trial.record import OUTCOMES, TrialRecord, read_rows
from autotune.trial.runner import RunResult

__all__ = [
    "OUTCOMES",
    "REAL_RUN",
    "Evaluation",
    "Fidelity",
    "FidelitySettings",
    "RealRun",
    "RunResult",
    "TrialJob",
    "TrialRecord",
    "evaluate",
    "read_rows",
]
