"""The public Python API for notebooks and scripts: open a study and read it as pandas.

from autotune import open_study
sweep = open_study("fsdp3d")               # runs/fsdp3d/ by default
sweep.trials()                             # one row per trial
sweep.steps(4)                             # per-step metrics of trial #4
sweep.compare(0, 4)                        # two trials step by step
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass
from pathlib import Path

import optuna
import pandas as pd

from autotune.report import data
from autotune.space.schema import Space
from autotune.study.frames import step_frame, trials_frame
from autotune.study.storage import StudyPaths, load_study, stored_space
from autotune.trial.record import TrialRecord


@dataclass
class StudyView:
    study: optuna.Study
    paths: StudyPaths
    space: Space

    def trials(self) -> pd.DataFrame:
        return trials_frame(self.study)

    def steps(self, number: int) -> pd.DataFrame:
        folder = TrialRecord.of(self.study.trials[number]).dir
        return step_frame(folder) if folder else pd.DataFrame()

    def summary(self) -> data.Summary:
        return data.summary(self.study, self.paths, self.space)

    def history(self) -> pd.DataFrame:
        return data.history(self.study, self.space)

    def phases(self) -> pd.DataFrame:
        return data.phase_breakdown(self.study, self.space)

    def importances(self) -> pd.Series:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return data.importances(self.study, self.space)

    def failures(self) -> pd.DataFrame:
        return data.failures(self.study)

    def compare(
        self,
        a: int,
        b: int,
        metrics: tuple[str, ...] = ("perf/throughput", "timing_s/step", "actor/kl_loss", "critic/score/mean"),
    ) -> pd.DataFrame:
        """Two trials side by side per step: columns (metric, trial) plus the ratio b/a."""
        left, right = self.steps(a), self.steps(b)
        out = {}
        for metric in metrics:
            if metric in left and metric in right:
                out[(metric, f"#{a}")] = left[metric]
                out[(metric, f"#{b}")] = right[metric]
                out[(metric, "ratio")] = right[metric] / left[metric]
        return pd.DataFrame(out)


def open_study(name: str, runs_dir: str | Path = "runs", storage: str | None = None) -> StudyView:
    paths = StudyPaths(Path(runs_dir), name)
    return StudyView(load_study(paths, storage), paths, stored_space(paths))
