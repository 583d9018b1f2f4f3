"""The verl adapter: each trial runs `python -m verl.trainer.main_ppo` (or a launcher prefix) with
the trial's overrides, and its console lines are parsed back into the same metrics stream.

* Overrides are checked before launch by composing verl's own hydra config (the installed verl):
  a key verl does not declare never reaches the cluster; values are type-checked against the type
  of verl's default.
* Environment variables travel as `+ray_kwargs.ray_init.runtime_env.env_vars.NAME=value` (verl
  hands them to every Ray worker) and are also set for the launcher process.
* Each trial is short and side-effect free: `trainer.total_training_steps`, console logging only,
  no checkpoints, no validation, no resume.
* verl does not log communication time, so `perf/comm_share` is missing for verl trials; limits
  on it are skipped (and said so) rather than failing every trial.
"""

from __future__ import annotations

import re
import sys
from functools import cache
from pathlib import Path
from typing import Any

from autotune.adapters.base import DeviceKind, InvalidConfig, KeyInfo, Launch, TrainerAdapter
from autotune.adapters.verl_console import ConsoleParser
from autotune.export import ENV_PREFIX, overrides

VERL_PREFIXES = (
    "timing_s/", "timing_per_token_ms/", "perf/", "actor/", "critic/", "response_length/", "prompt_length/",
    "training/", "val-core/", "val-aux/", "rollout_corr/", "global_seqlen/", "response/",
)  # fmt: skip
UNMEASURED = ("perf/comm_share", "timing_s/comm")
"""Metrics the builtin trainer logs and verl does not."""

TRIAL_OVERRIDES = (
    "trainer.logger=[console]",
    "trainer.save_freq=-1",
    "trainer.test_freq=-1",
    "trainer.val_before_train=false",
    "trainer.resume_mode=disable",
)

FAILURES = (
    ("oom", re.compile(r"CUDA out of memory|OutOfMemoryError|torch\.cuda\.OutOfMemoryError|CUDA error: out of memory")),
    ("invalid", re.compile(r"Could not override|ConfigCompositionException|Error merging override|MissingMandatoryValue")),
    ("nccl", re.compile(r"NCCL (?:error|timeout)|Watchdog caught collective operation timeout|ProcessGroupNCCL.*(?:timeout|error)", re.I)),
    ("actor_died", re.compile(r"RayActorError|ActorDiedError|The actor died|actor died unexpectedly|Worker exit type: SYSTEM_ERROR")),
    ("nan", re.compile(r"\bnan\b.*loss|loss.*\bnan\b|NaN or Inf found", re.I)),
)  # fmt: skip


def _flatten(node: Any, prefix: str = "") -> dict[str, Any]:
    out: dict[str, Any] = {}
    if isinstance(node, dict) and node:
        for key, value in node.items():
            out.update(_flatten(value, f"{prefix}{key}."))
    else:
        out[prefix[:-1]] = node
    return out


@cache
def verl_tree() -> tuple[dict[str, Any], dict[str, Any]]:
    """(raw values with interpolations, resolved values) of verl's default ppo_trainer config."""
    from omegaconf import OmegaConf

    from autotune.verl_config import compose

    cfg = compose([])
    raw = _flatten(OmegaConf.to_container(cfg, resolve=False))
    try:
        resolved = _flatten(OmegaConf.to_container(cfg, resolve=True, throw_on_missing=False))
    except Exception:  # an interpolation that needs runtime context: keep what resolves
        resolved = {}
        for key in raw:
            try:
                resolved[key] = OmegaConf.select(cfg, key, throw_on_missing=False)
            except Exception:
                resolved[key] = None
    return raw, resolved


def _key_type(value: Any) -> Any:
    if isinstance(value, str) and value.startswith("${"):
        return Any
    if value is None or value == "???":
        return Any
    if isinstance(value, bool):
        return bool
    if isinstance(value, int):
        return int
    if isinstance(value, float):
        return float
    if isinstance(value, list):
        return list
    return str if isinstance(value, str) else Any


class VerlAdapter(TrainerAdapter):
    name = "verl"

    def __init__(self, command: list[str] | None = None) -> None:
        self.command = command or [sys.executable, "-m", "verl.trainer.main_ppo"]

    def keys(self) -> dict[str, KeyInfo]:
        raw, resolved = verl_tree()
        return {k: KeyInfo(k, _key_type(v), resolved.get(k)) for k, v in raw.items() if not k.endswith("._target_")}

    def defaults(self, base_config: list[str]) -> dict[str, Any]:
        return dict(verl_tree()[1])

    def metric_names(self) -> tuple[tuple[str, ...], tuple[str, ...]]:
        return (
            "perf/throughput",
            "perf/mfu/actor",
            "perf/max_memory_allocated_gb",
            "perf/cpu_memory_used_gb",
        ), VERL_PREFIXES

    def unmeasured_metrics(self) -> tuple[str, ...]:
        return UNMEASURED

    def knob_status(self, key: str, device: DeviceKind, world: int) -> tuple[bool, str]:
        if key.startswith("env."):
            return True, "passed to every Ray worker through ray_kwargs.ray_init.runtime_env.env_vars"
        return True, "verl config key"

    def check(self, base_config: list[str], flat: dict[str, Any], world: int) -> None:
        from autotune.verl_config import VerlRejected, check_types, compose

        lines = overrides(flat)
        try:
            compose(lines)
        except VerlRejected as exc:
            raise InvalidConfig(f"verl rejects the overrides: {exc}") from None
        problems = check_types(compose([]), {k: v for k, v in flat.items() if not k.startswith(ENV_PREFIX)})
        if problems:
            raise InvalidConfig("; ".join(problems))

    def quick_check(self, base_config: list[str], flat: dict[str, Any], world: int) -> None:
        """Types against verl's defaults, keys against verl's tree: no hydra compose (about a second each)."""
        from autotune.verl_config import check_types, compose

        known = verl_tree()[0]
        unknown = [k for k in flat if not k.startswith(ENV_PREFIX) and k not in known]
        if unknown:
            raise InvalidConfig(f"verl has no key {unknown[0]!r}")
        problems = check_types(compose([]), {k: v for k, v in flat.items() if not k.startswith(ENV_PREFIX)})
        if problems:
            raise InvalidConfig("; ".join(problems))

    def launch(
        self, base_config: list[str], config_file: Path, trial_dir: Path, steps: int, world: int, env: dict[str, str]
    ) -> Launch:
        import yaml

        from trainer.config.loader import to_flat_dict

        flat = to_flat_dict(yaml.safe_load(config_file.read_text()) or {})
        trial_env = {k: v for k, v in env.items() if k not in ("OMP_NUM_THREADS", "PYTHONUNBUFFERED")}
        flat.update({ENV_PREFIX + k: v for k, v in trial_env.items()})
        argv = [*self.command, *overrides(flat), f"trainer.total_training_steps={steps}", *TRIAL_OVERRIDES]
        return Launch(argv, dict(env), parse_console=True)

    def console_parser(self) -> ConsoleParser:
        return ConsoleParser()

    def failure(self, exit_code: int, stderr: str) -> tuple[str, str]:
        for reason, pattern in FAILURES:
            match = pattern.search(stderr)
            if match:
                line = next((ln for ln in stderr.splitlines() if pattern.search(ln)), match.group(0))
                mapped = {"nccl": "crash", "actor_died": "crash"}.get(reason, reason)
                label = {"nccl": "NCCL timeout/error: ", "actor_died": "Ray actor died: "}.get(reason, "")
                return mapped, (label + line.strip())[:300]
        tail = [ln for ln in stderr.strip().splitlines() if ln.strip()][-1:] or [f"exit code {exit_code}"]
        return "crash", tail[0][:300]
