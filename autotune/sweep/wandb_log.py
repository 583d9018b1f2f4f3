"""Weights & Biases logging: one run per trial (config, per-step metrics, outcome) and a study summary.

Without an API key the runs are written offline (`WANDB_MODE=offline`) under
`runs/<study>/wandb/`, to be uploaded later with `wandb sync runs/<study>/wandb/wandb/offline-run-*`.
wandb's offline files are not meant to be read back, so reports keep reading our own
`metrics.jsonl`; wandb is for people who already live in its UI.
"""

from __future__ import annotations

import json
import math
import os
from pathlib import Path
from typing import Any

import optuna

from autotune.study.frames import trials_frame
from autotune.study.storage import StudyPaths


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
        import wandb

        return wandb.init(
            project=self.project,
            name=name,
            group=self.paths.name,
            job_type=job_type,
            config=config,
            dir=str(self.dir),
            mode=self.mode,  # type: ignore[arg-type]
            reinit="finish_previous",
        )

    def log_trial(self, study: optuna.Study, number: int) -> None:
        trial = study.trials[number]
        attrs = trial.user_attrs
        run = self._init(
            f"{self.paths.name}-trial-{number:04d}",
            {
                **trial.params,
                "trial_number": number,
                "baseline": bool(attrs.get("baseline")),
                "env": attrs.get("env", {}),
            },
            "trial",
        )
        metrics_path = Path(attrs.get("dir", "")) / "metrics.jsonl"
        if metrics_path.exists():
            for line in metrics_path.read_text().splitlines():
                record = json.loads(line)
                run.log({k: _clean(v) for k, v in record["metrics"].items()}, step=int(record["step"]))
        run.summary.update(
            {
                "outcome": attrs.get("outcome"),
                "reason": attrs.get("reason"),
                "detail": attrs.get("detail"),
                **{f"objective/{i}": _clean(v) for i, v in enumerate(trial.values or [])},
                **{f"key/{k}": _clean(v) for k, v in (attrs.get("key_metrics") or {}).items()},
            }
        )
        run.finish()

    def log_summary(self, study: optuna.Study, winner: dict[str, Any]) -> None:
        import wandb

        run = self._init(f"{self.paths.name}-summary", {"study": self.paths.name}, "summary")
        frame = trials_frame(study).astype(str)
        run.log({"trials": wandb.Table(dataframe=frame)})
        run.summary.update({k: _clean(v) for k, v in winner.items()})
        run.finish()
