"""Weights & Biases logging: one run per trial (config, per-step metrics, outcome) and a study summary.

Without an API key the runs are written offline (`WANDB_MODE=offline`) under
`runs/<study>/wandb/`, to be uploaded later with `wandb sync runs/<study>/wandb/wandb/offline-run-*`.
wandb's offline files are not meant to be read back, so reports keep reading our own
`metrics.jsonl`; wandb is for people who already live in its UI.
"""

from __future__ import annotations

import math
import os
from pathlib import Path
from typing import Any

import optuna
import yaml

from autotune.adapters.verl_config import ENV_PREFIX
from autotune.names import is_secret
from autotune.study.frames import trials_frame
from autotune.study.storage import StudyInfo, StudyPaths
from autotune.trial.record import TrialRecord, read_rows
from verl_keys.keys import to_flat_dict


def _has_api_key() -> bool:
    if os.environ.get("WANDB_API_KEY"):
        return True
    netrc = Path.home() / ".netrc"
    return netrc.exists() and "api.wandb.ai" in netrc.read_text(errors="ignore")


def _clean(value: Any) -> Any:
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return value


class WandbLogger:
    def __init__(self, project: str, paths: StudyPaths) -> None:
        self.project = project
        self.paths = paths
        self.dir = paths.root / "wandb"
        self.dir.mkdir(parents=True, exist_ok=True)
        self.mode = "online" if _has_api_key() and os.environ.get("WANDB_MODE") != "offline" else "offline"
        os.environ.setdefault("WANDB_SILENT", "true")

    def _init(self, name: str, config: dict[str, Any], job_type: str) -> Any:
        """A run whose id is its name after the study's folder id (`.study-id`): a rerun (a resumed sweep logging its
        summary again) updates the same run, where it added another `<study>-summary` to the project; another study
        of the same name (every `make demo`'s `fsdp3d`, a study started over) gets runs of its own, where it resumed
        the old study's and wrote another configuration over each (audit 28 F18)."""
        import wandb

        marker = self.paths.root / ".study-id"
        folder = marker.read_text().strip()[:8] if marker.exists() else ""
        return wandb.init(
            project=self.project,
            name=name,
            id=f"{folder}-{name}" if folder else name,
            resume="allow",
            group=self.paths.name,
            job_type=job_type,
            config=config,
            dir=str(self.dir),
            mode=self.mode,  # type: ignore[arg-type]
            reinit="finish_previous",
        )

    def log_trial(self, study: optuna.Study, number: int) -> None:
        trial = study.trials[number]
        rec = TrialRecord.of(trial)
        predicted = StudyInfo.of(study).fidelity == "sim"  # nothing ran: its runs said nothing of it (audit 28 F13)
        run = self._init(
            f"{self.paths.name}-trial-{number:04d}",
            {
                **trial.params,
                "trial_number": number,
                "baseline": rec.baseline,
                "predicted": predicted,
                "env": {k: v for k, v in rec.env.items() if not is_secret(k)},  # W&B is a shared place
                **self._ran_with(rec),
            },
            "predicted-trial" if predicted else "trial",
        )
        for row in read_rows(self.paths.located(rec.dir)) if rec.dir else []:
            run.log({k: _clean(v) for k, v in row["metrics"].items()}, step=int(row["step"]))
        run.summary.update(
            {
                "outcome": rec.outcome,
                "reason": rec.reason,
                "detail": rec.detail,
                "wall_s": _clean(rec.wall_s),  # the run is logged after the trial: W&B's runtime is the logging's
                **{f"objective/{i}": _clean(v) for i, v in enumerate(trial.values or [])},
                **{f"key/{k}": _clean(v) for k, v in rec.key_metrics.items()},
            }
        )
        run.finish()

    def _ran_with(self, rec: TrialRecord) -> dict[str, Any]:
        """The verl config the trial ran (its config.yaml: the derived token budgets, the held algorithm values,
        the space's `base:`), under `verl/`: the sampled params alone could not say what a run was (audit 24 F7)."""
        config = self.paths.located(rec.dir) / "config.yaml" if rec.dir else None
        if config is None or not config.exists():  # an invalid configuration never got one
            return {}
        ran = to_flat_dict(yaml.safe_load(config.read_text()) or {})
        secret = {k for k in ran if k.startswith(ENV_PREFIX) and is_secret(k.removeprefix(ENV_PREFIX))}
        return {f"verl/{k}": v for k, v in ran.items() if k not in secret}  # a space's `env.WANDB_API_KEY`: not logged

    def log_summary(self, study: optuna.Study, winner: dict[str, Any]) -> None:
        import wandb

        run = self._init(f"{self.paths.name}-summary", {"study": self.paths.name}, "summary")
        frame = trials_frame(study)
        mixed = frame.select_dtypes(include="object").columns  # params of several types, reasons: text for W&B
        frame[mixed] = frame[mixed].map(lambda v: None if v is None or v != v else str(v))  # v != v: NaN
        run.log({"trials": wandb.Table(dataframe=frame)})  # numbers stay numbers: all text, W&B sorted them as such
        run.summary.update({k: _clean(v) for k, v in winner.items()})
        run.finish()
