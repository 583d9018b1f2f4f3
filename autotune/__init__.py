"""autotune: find the fastest healthy configuration of a verl KL-PPO job.

Public API (see `autotune.api`): `open_study(name, runs_dir="runs")` returns a view with
`trials()`, `steps(n)`, `compare(a, b)`, `summary()`, `history()`, `phases()`, `importances()`.
"""

from __future__ import annotations

from autotune.api import StudyView, open_study
from autotune.frame import step_frame, trials_frame
from autotune.space.loader import load_space

__all__ = ["StudyView", "load_space", "open_study", "step_frame", "trials_frame"]
