"""The builtin adapter: trials run this project's trainer under torchrun (gloo on CPU, nccl on GPUs)."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from autotune.adapters import warm
from autotune.adapters.base import (
    DeviceKind,
    InvalidConfig,
    KeyInfo,
    Launch,
    TrainerAdapter,
    TrialRun,
    crash_detail,
    metrics_path,
    register,
)
from trainer.config.loader import (
    DEFAULT_PRESET,
    ConfigError,
    build,
    collect,
    is_builtin_only,
    raw_defaults,
    resolve_preset,
    schema_keys,
    to_flat,
)
from trainer.metric_names import METRIC_NAMES, METRIC_PREFIXES, PHASES, REASON_PREFIX, killed_by
from trainer.platform import knob_status
from verl_keys.yaml_lines import Located

_REASON_LINE = re.compile(re.escape(REASON_PREFIX) + r"(\w+) rank=(\d+) step=(-?\d+): (.*)")
_REASON_PRIORITY = {"nan": 0, "oom": 1, "crash": 2, "peer_lost": 3}
_TORCHRUN_KILLED = re.compile(
    r"Root Cause \(first observed failure\):\s*\[\d+\]:[^\[]*?rank\s*:\s*(?P<rank>\d+)[^\[]*?exitcode\s*:\s*(?P<code>-\d+)"
)
"""torchrun's report of the first rank to fail, when a signal ended it (a cold run; the warm leader says it itself)."""
VERL_REQUIRED = (
    "actor_rollout_ref.actor.ppo_micro_batch_size_per_gpu",
    "actor_rollout_ref.ref.log_prob_micro_batch_size_per_gpu",
    "actor_rollout_ref.rollout.log_prob_micro_batch_size_per_gpu",
    "critic.ppo_micro_batch_size_per_gpu",
    "critic.use_dynamic_bsz",
)
"""Settings verl's validate_config demands (micro-batch sizes without dynamic batching) that this
trainer derives from the actor's when unset; exported at the values the trial used."""
DYNAMIC_FLAG = {
    "actor_rollout_ref.actor.ppo_micro_batch_size_per_gpu": "actor_rollout_ref.actor.use_dynamic_bsz",
    "actor_rollout_ref.ref.log_prob_micro_batch_size_per_gpu": "actor_rollout_ref.ref.log_prob_use_dynamic_bsz",
    "actor_rollout_ref.rollout.log_prob_micro_batch_size_per_gpu": "actor_rollout_ref.rollout.log_prob_use_dynamic_bsz",
    "critic.ppo_micro_batch_size_per_gpu": "critic.use_dynamic_bsz",
}
"""Each micro-batch size and the flag that, on, leaves it unused (verl checks the size only when it is off)."""


@register("builtin")
class BuiltinAdapter(TrainerAdapter):
    warm_starts = True

    def keys(self) -> dict[str, KeyInfo]:
        return {k: KeyInfo(k, s.type, s.default, s.doc) for k, s in schema_keys().items()}

    def defaults(self, base_config: list[str]) -> dict[str, Any]:
        try:
            return raw_defaults(base_config)
        except ConfigError as exc:  # a preset file with problems of its own
            raise InvalidConfig(str(exc)) from None

    def base_config(self, names: list[str] | None, folder: Path) -> list[str]:
        """This trainer's presets (bare names such as `cpu_tiny`, the default) or YAML files beside the space."""
        out = []
        for name in [DEFAULT_PRESET] if names is None else names:
            beside = folder / name
            candidate = str(beside) if beside.is_file() else name
            try:
                resolve_preset(candidate)
            except ConfigError as exc:
                raise InvalidConfig(str(exc)) from None
            out.append(candidate)
        return out

    def metric_names(self) -> tuple[tuple[str, ...], tuple[str, ...]]:
        return tuple(METRIC_NAMES), METRIC_PREFIXES

    def phases(self) -> tuple[str, ...]:
        return PHASES

    def knob_status(self, key: str, device: DeviceKind, world: int) -> tuple[bool, str]:
        return knob_status(key, device, world)

    def check(self, base_config: list[str], flat: dict[str, Any], world: int) -> None:
        from trainer.config.checks import check_world

        try:
            values = collect(base_config, [])
            values.update({k: Located(v, "trial config") for k, v in flat.items()})
            config = build(values)
            check_world(config, world)
        except ConfigError as exc:
            raise InvalidConfig(str(exc)) from None

    def launch(self, run: TrialRun) -> Launch:
        configs = [arg for name in run.base_config for arg in ("--config", name)]
        world, trial_dir = run.world, run.trial_dir
        args = [
            *configs,
            "--config",
            str(run.config_file),
            f"trainer.total_training_steps={run.steps}",
            f"trainer.metrics_file={metrics_path(trial_dir)}",
        ]
        argv = warm.launch_argv(world, args)  # from the warm parent when it is up: torch already imported
        return Launch(argv, {})

    def prepare(self, base: dict[str, Any], world: int) -> None:
        if warm.enabled():
            warm.start()  # imports in the background; the first launch waits until it is ready

    def failure(self, exit_code: int, stderr: str) -> tuple[str, str]:
        if exit_code == 2 or "trainer: config error:" in stderr:
            line = next((ln for ln in stderr.splitlines() if "config error" in ln), "config error")
            return "invalid", line.strip()
        found = [m.groups() for m in _REASON_LINE.finditer(stderr)]
        if found:
            reason, rank, step, detail = min(found, key=lambda g: _REASON_PRIORITY.get(g[0], 9))
            root = _TORCHRUN_KILLED.search(stderr) if reason == "peer_lost" else None
            if root is not None:  # a cold run's rank killed outright: torchrun names it, the survivor names its peer
                return "crash", f"rank {root['rank']}: {killed_by(-int(root['code']))}"  # (audit 28 F5)
            reason = "crash" if reason == "peer_lost" else reason
            when = f", step {step}" if int(step) >= 0 else ""  # -1: before its first step, or killed outright
            return reason, f"rank {rank}{when}: {detail.strip()}"
        if "OutOfMemoryError" in stderr or "out of memory" in stderr.lower():
            return "oom", "out of memory"
        return "crash", crash_detail(stderr, exit_code)

    def failure_reported(self, output: str) -> bool:
        return bool(_REASON_LINE.search(output)) or "trainer: config error:" in output

    def filled_in(self, base_config: list[str], flat: dict[str, Any]) -> dict[str, Any]:
        values = collect(base_config, [])
        values.update({k: Located(v, "trial config") for k, v in flat.items()})
        resolved = to_flat(build(values))
        unused = {k for k, flag in DYNAMIC_FLAG.items() if resolved.get(flag)}  # a preset's size, never used
        return {k: resolved[k] for k in VERL_REQUIRED if resolved.get(k) is not None and k not in unused}

    def exportable(self, key: str) -> bool:
        return not is_builtin_only(key)
