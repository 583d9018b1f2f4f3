"""autotune: find the fastest healthy configuration of a verl KL-PPO job.

Public API (see `autotune.api`): `open_study(name, runs_dir="runs")` returns a view with
`trials()`, `steps(n)`, `compare(a, b)`, `summary()`, `history()`, `phases()`, `importances()`, `winner()` (what
`autotune best` shows) and `export(path)` (what `autotune export` writes);
`predict(space, params=None, gpu=None, calibration=None, model=None)` is one configuration predicted by the
cost model exactly as `autotune run --fidelity sim` predicts that trial.
Imported lazily, so `import autotune.<module>` in a trial worker does not pull in pandas/plotly.
"""

from __future__ import annotations

from typing import Any

__all__ = ["StudyView", "load_space", "open_study", "predict", "step_frame", "trials_frame"]


def __getattr__(name: str) -> Any:
    if name in ("StudyView", "open_study"):
        from autotune import api

        return getattr(api, name)
    if name in ("step_frame", "trials_frame"):
        from autotune.study import frames

        return getattr(frames, name)
    if name == "load_space":
        from autotune.space.loader import load_space

        return load_space
    if name == "predict":
        from autotune.sim.predict import predict_space

        return predict_space
    raise AttributeError(f"module 'autotune' has no attribute {name!r}")
