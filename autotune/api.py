"""The public Python API for notebooks and scripts: open a study and read it as pandas.

from autotune import open_study
sweep = open_study("fsdp3d")               # runs/fsdp3d/ by default
sweep.trials()                             # one row per trial
sweep.steps(4)                             # per-step metrics of trial #4
sweep.compare(0, 4)                        # two trials step by step
sweep.winner()                             # what `autotune best` shows: the winner, its speedup, what ships
sweep.export("best.yaml")                  # what `autotune export` writes (best.yaml and best.overrides)

It reads a study (and exports its winner); `autotune run` (or `make demo`) runs one.
"""

from __future__ import annotations

import os
import warnings
from dataclasses import dataclass
from pathlib import Path

import optuna
import pandas as pd

from autotune.report import data
from autotune.space.schema import Space
from autotune.study.frames import step_frame, trials_frame
from autotune.study.results import Winner, find_winner
from autotune.study.storage import StudyPaths, load_study, stored_space
from autotune.trial.record import TrialRecord


@dataclass
class StudyView:
    study: optuna.Study
    paths: StudyPaths
    space: Space

    def trials(self) -> pd.DataFrame:
        return trials_frame(self.study, self.paths)

    def steps(self, number: int) -> pd.DataFrame:
        """Trial #`number`'s metrics, a row per step; ValueError for a number the study does not have, or a trial
        that ran no step (interrupted, or refused before launch)."""
        count = len(self.study.trials)
        if isinstance(number, bool) or not isinstance(number, int) or not 0 <= number < count:
            raise ValueError(f"study `{self.paths.name}` has trials #0 to #{count - 1}; got {number!r}")
        record = TrialRecord.of(self.study.trials[number])
        folder = self.paths.located(record.dir) if record.dir else None
        if folder is not None and not folder.exists():  # not "no steps": its steps are elsewhere
            raise ValueError(
                f"trial #{number} of study `{self.paths.name}`: its folder is not under {self.paths.root}/ nor at "
                f"{record.dir}; open the study with the runs folder that holds it (runs_dir=...)"
            )
        frame = step_frame(folder) if folder is not None else pd.DataFrame()
        if frame.empty:
            how = record.outcome or record.reason or "not finished"
            raise ValueError(
                f"trial #{number} of study `{self.paths.name}` has no steps ({how}{': ' + record.detail if record.detail else ''})"
            )
        return frame

    def winner(self) -> Winner:
        """The winner as `autotune best` reads it: after the ablation, `params` are what ships and `speedup` its
        measured speedup; `source` says whether it was confirmed, the sweep's best run or predicted. NoWinner
        while no trial is feasible."""
        return find_winner(self.study, self.paths, self.space)

    def export(self, output: str | Path = "best.yaml", predicted: bool = False) -> tuple[Winner, Path, Path]:
        """Write the winner as `autotune export -o output` writes it: (winner, YAML path, overrides path).
        A simulated study's winner is refused (ExportError) unless `predicted`; one whose equivalence check failed
        (or could not run) is written marked NOT FOR SHIPPING, without overrides, and raises NotForShipping."""
        from autotune.adapters import get_adapter
        from autotune.export.winner import export

        adapter = get_adapter(self.space.trainer, self.space.command)
        return export(self.study, self.paths, self.space, adapter, Path(output), predicted)

    def summary(self) -> data.Summary:
        return data.summary(self.study, self.paths, self.space)

    def quality(self) -> list[str]:
        """The quality stage's decision on the algorithm knobs, as `best` and the export's header say it (each
        setting's scores and KL over seeds, then what ships), or the one line saying why there is none: the space has
        no `quality:` section, or the stage has not run, is running, or was cut short (the notebook said nothing of
        it, audit 38 F15)."""
        from autotune.study.quality_result import Quality
        from autotune.study.results import unfinished_quality

        quality = Quality.read(self.paths)
        if quality is not None:
            return quality.lines()
        why = unfinished_quality(self.paths, self.space)
        return [
            why or "no quality stage: the space has no `quality:` section; the algorithm knobs stay at the baseline's"
        ]

    def history(self) -> pd.DataFrame:
        return data.history(self.study, self.space)

    def phases(self) -> pd.DataFrame:
        return data.phase_breakdown(self.study, self.space, self.paths)

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
    """The study `name` under `runs_dir` (its trials in `storage` when it was swept with --storage)."""
    if not isinstance(runs_dir, (str, os.PathLike)):
        raise TypeError(
            f"runs_dir is the folder of the studies (a str or Path), got {type(runs_dir).__name__} {runs_dir!r}"
        )
    paths = StudyPaths(Path(runs_dir), name)
    return StudyView(load_study(paths, storage), paths, stored_space(paths))
