"""A sweep's study: its storage and folders, what its phases concluded (`confirmation_result`,
`ablation_result`, `quality_result`, `predicted_winner`, over `ratios`; the winner: `results`), its progress
line and its tables (`frames`, imported on use: it needs pandas)."""

from __future__ import annotations

from autotune.study.ablation_result import ExplainStep, Explanation
from autotune.study.confirmation_result import Confirmation, ConfirmedCandidate
from autotune.study.progress import SweepProgress
from autotune.study.result_files import ResultsFileError
from autotune.study.results import NoWinner, Winner, find_winner
from autotune.study.storage import StudyInfo, StudyNotFound, StudyPaths, baseline_trial, load_study, stored_space

__all__ = [
    "Confirmation",
    "ConfirmedCandidate",
    "ExplainStep",
    "Explanation",
    "NoWinner",
    "ResultsFileError",
    "StudyInfo",
    "StudyNotFound",
    "StudyPaths",
    "SweepProgress",
    "Winner",
    "baseline_trial",
    "find_winner",
    "load_study",
    "stored_space",
]
