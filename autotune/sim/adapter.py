"""The sim adapter: a trial is evaluated by the cost model instead of being run.

It wraps the space's real trainer adapter (keys, defaults and export stay that trainer's) and
writes the predicted per-step metrics to the trial folder's `metrics.jsonl`, so scoring, limits,
the report and export work unchanged. A configuration whose predicted memory exceeds the device
is a failed trial with reason `oom`, as a real one would be. Metrics a cost model cannot predict
(KL, reward) are unmeasured: limits on them are skipped, and said so.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

from autotune.adapters.base import DeviceKind, KeyInfo, Launch, TrainerAdapter, TrialRun
from autotune.sim.hardware import Cluster
from autotune.sim.model import CostModel
from autotune.sim.workload import find_shape, modelled_keys
from autotune.space.freeze import fixed_at_baseline
from autotune.trial.runner import RunResult

if TYPE_CHECKING:
    from autotune.space.schema import Space
    from autotune.space.sim_section import SimSettings

UNPREDICTED = (
    "actor/kl_loss", "actor/reward_kl_penalty", "actor/ppo_kl", "actor/entropy", "actor/pg_loss", "actor/grad_norm",
    "critic/score/mean", "critic/rewards/mean", "critic/vf_loss",
)  # fmt: skip


class SimAdapter(TrainerAdapter):
    simulated = True

    def __init__(
        self,
        inner: TrainerAdapter,
        cluster: Cluster,
        calibration: dict[str, Any] | None = None,
        model: str | None = None,
        sim: SimSettings | None = None,
    ) -> None:
        self.inner = inner
        self.name = inner.name
        self.cluster = cluster
        self.calibration = calibration or {}
        self.model = model
        self.sim = sim

    def keys(self) -> dict[str, KeyInfo]:
        return self.inner.keys()

    def defaults(self, base_config: list[str]) -> dict[str, Any]:
        return self.inner.defaults(base_config)

    def resolved(self, base_config: list[str], keys: dict[str, Any]) -> dict[str, Any]:
        return self.inner.resolved(base_config, keys)

    def metric_names(self) -> tuple[tuple[str, ...], tuple[str, ...]]:
        return self.inner.metric_names()

    def unmeasured_metrics(self) -> tuple[str, ...]:
        return UNPREDICTED

    def knob_status(self, key: str, device: DeviceKind, world: int) -> tuple[bool, str]:
        """Whether the cost model reads the knob at all; a knob it never reads cannot change a prediction."""
        if key in modelled_keys():
            return True, "modelled by the cost model"
        return False, "the cost model does not use it (a simulated sweep keeps it at its baseline value)"

    def check(self, base_config: list[str], flat: dict[str, Any], world: int) -> None:
        """Keys were checked when the space loaded; a simulated trial needs no trainer-side check."""

    def launch(self, run: TrialRun) -> Launch:
        raise RuntimeError("a simulated trial is not launched")

    def failure(self, exit_code: int, stderr: str) -> tuple[str, str]:
        return "crash", stderr[-300:]

    def exportable(self, key: str) -> bool:
        return self.inner.exportable(key)

    def cost_model(self, flat: dict[str, Any]) -> CostModel:
        shape = find_shape(self.model or flat.get("actor_rollout_ref.model.path"), flat)
        cal = self.calibration
        stated = self.sim.lengths() if self.sim is not None else {}

        def length(key: str) -> float | None:  # the space's `sim:` section, else the calibration runs' means
            value = stated.get(key)
            return value if value is not None else cal.get(key)

        return CostModel(
            self.cluster,
            shape,
            weights=cal.get("weights", {}),
            param_bytes=int(cal.get("param_bytes", 2)),
            prompt_tokens=length("prompt_tokens"),
            response_tokens=length("response_tokens"),
            response_spread=length("response_spread"),
            source=cal.get("source", "defaults from public figures"),
            vllm_version=self.sim.vllm_version if self.sim is not None else None,
        )

    def simulate(self, flat: dict[str, Any], env: dict[str, str], world: int, steps: int, trial_dir: Path) -> RunResult:
        """`flat`: the trial's config as the trainer resolves it (`resolved`), every key present, as
        `predict.predict_trial` builds it."""
        cost = self.cost_model(flat)
        prediction = cost.predict(flat, env, world)
        record = {
            "phases": prediction.phases,
            "comm": prediction.comm,
            "memory_gib": prediction.memory.peak / 2**30,
            "device": self.cluster.device.name,  # what the numbers are predicted for, and with which weights
            "gpus": world,
            "weights": cost.source,
        }
        (trial_dir / "prediction.json").write_text(json.dumps(record, indent=1))
        if prediction.oom:
            return RunResult("failed", "oom", prediction.oom, None, [], 0.0, None)
        rows = prediction.rows(steps)
        with (trial_dir / "metrics.jsonl").open("w") as f:
            for row in rows:
                f.write(json.dumps(row) + "\n")
        return RunResult("complete", None, "", 0, rows, 0.0, 0.0)


def freeze_unmodelled(space: Space, adapter: TrainerAdapter) -> tuple[Space, list[str]]:
    """The space with the knobs the cost model does not read fixed at their baseline values, and their names."""
    world = space.trial.world_size
    names = sorted(
        p.name for p in space.params if not p.is_variable and not adapter.knob_status(p.name, "cuda", world)[0]
    )
    return fixed_at_baseline(space, names), names
