"""The verl adapter: each trial runs `python -m verl.trainer.main_ppo` (or a launcher prefix) with
the trial's overrides, and its console lines are parsed back into the same metrics stream.

* Overrides are checked before launch by composing verl's own hydra config (the installed verl):
  a key verl does not declare never reaches the cluster; values are type-checked against the type
  of verl's default.
* Environment variables travel as `+ray_kwargs.ray_init.runtime_env.env_vars.NAME=value` (verl
  hands them to every Ray worker) and are also set for the launcher process.
* A key of a map verl leaves open (`actor_rollout_ref.model.override_config.max_position_embeddings`, kept by
  `autotune init` from a job's `+key=value`) is a known key of a space's `base:` and travels as `+key=value`,
  as hydra needs to add to the map (`verl_config.open_map`).
* Each trial is short and side-effect free: `trainer.total_training_steps`, console logging only,
  no checkpoints, no validation, no resume.
* verl does not log communication time, so `perf/comm_share` is missing for verl trials; limits
  on it are skipped (and said so) rather than failing every trial.
* Before launch the composed config also goes through verl's own `validate_config` (what main_ppo
  runs before Ray starts): a config it rejects is recorded `invalid` with verl's message.
* Paths starting with `~` are expanded (trials run without a shell; verl does not expand them).
* A trial with `trainer.device: cpu` runs on this repository's CPU platform plugin (`verl_cpu`):
  its overrides and environment (`VERL_USE_EXTERNAL_MODULES`, `VERL_PLATFORM=cpu`, ...) are added
  for the trial's rank count (`trainer.n_gpus_per_node` x `trainer.nnodes`), keys the trial sets
  itself win. GPU trials get nothing of it.
* Environment values are strings and quoted in the overrides (hydra reads `16` as a number and
  Ray refuses it); the trial's `command` file carries the plugin's environment through `env`.
* CPU-plugin trials of one sweep join one Ray head (`ray_head.py`) through verl's own
  `ray_kwargs.ray_init.address` instead of each starting a cluster: their overrides lose the
  cluster-start settings Ray refuses from a joining driver (`num_cpus`, `num_gpus`, ...), and every
  variable the launcher gets (the plugin's, the thread count, the trial's) also goes into the job's
  runtime env, the only way it reaches workers the trial did not start. `AUTOTUNE_SHARED_RAY=0`, a
  GPU trial, or a trial that names its own `ray_kwargs.ray_init.address` starts (or joins) its own.
"""

from __future__ import annotations

import re
import sys
from dataclasses import dataclass
from functools import cache
from typing import Any

from autotune.adapters import ray_head
from autotune.adapters.base import (
    DeviceKind,
    InvalidConfig,
    KeyInfo,
    Launch,
    TrainerAdapter,
    TrialRun,
    crash_detail,
    register,
)
from autotune.adapters.verl_config import ENV_PREFIX, FILE_LISTS, flatten_tree, float_keys, hydra_value, overrides
from autotune.adapters.verl_console import ConsoleParser

VERL_PREFIXES = (
    "timing_s/", "timing_per_token_ms/", "perf/", "actor/", "critic/", "response_length/", "prompt_length/",
    "training/", "val-core/", "val-aux/", "rollout_corr/", "global_seqlen/", "response/",
)  # fmt: skip
UNMEASURED = ("perf/comm_share", "timing_s/comm")
"""Metrics the builtin trainer logs and verl does not."""


@dataclass(frozen=True)
class VersionMetrics:
    """Where a verl version logs the numbers autotune scores (read from that version's code)."""

    memory: tuple[str, ...]
    throughput: str
    mfu: str
    phases: tuple[str, ...]
    """`timing_s/<phase>` names the trainer's step timer emits."""


METRICS_BY_VERSION = {
    # verl <= 0.8 (ray_trainer.py, dp_actor.py): memory logged unprefixed by the trainer.
    "0.8": VersionMetrics(
        memory=("perf/max_memory_allocated_gb", "perf/max_memory_reserved_gb", "perf/cpu_memory_used_gb"),
        throughput="perf/throughput",
        mfu="perf/mfu/actor",
        phases=("gen", "reshard", "old_log_prob", "ref", "values", "adv", "update_critic", "update_actor", "step"),
    ),
    # verl 0.9 (engine_workers.py: final_metrics["perf/max_memory_allocated_gb"] under the role's prefix;
    # trainer/ppo/v1/trainer_base.py + trainer_sync.py: marked_timer names; metric_utils.py: throughput).
    "0.9": VersionMetrics(
        memory=(
            "actor/perf/max_memory_allocated_gb",
            "critic/perf/max_memory_allocated_gb",
            "actor/perf/max_memory_reserved_gb",
            "actor/perf/cpu_memory_used_gb",
            "critic/perf/cpu_memory_used_gb",
        ),
        throughput="perf/throughput",
        mfu="perf/mfu/actor",
        phases=("gen", "reward", "old_log_prob", "ref", "values", "adv", "update_critic", "update_actor",
                "update_weights", "step"),
    ),
}  # fmt: skip

TRIAL_OVERRIDES = {
    "trainer.logger": "[console]",
    "trainer.save_freq": "-1",
    "trainer.test_freq": "-1",
    "trainer.val_before_train": "false",
    "trainer.resume_mode": "disable",
}
"""Every trial is short and side-effect free."""

OOM = (
    r"CUDA out of memory|OutOfMemoryError|CUDA error: out of memory"
    r"|cumem_allocator.*out of memory|No available memory for the cache blocks"
    r"|less than desired GPU memory utilization|To serve at least one request with the models's max seq len"
)
NCCL = (
    r"NCCL (?:error|timeout)|Watchdog caught collective operation timeout|ProcessGroupNCCL.*(?:timeout|error)"
    r"|nccl(?:UnhandledCudaError|InvalidUsage|SystemError|InternalError|RemoteError|InvalidArgument)"
)
INVALID = (
    r"Could not override|ConfigCompositionException|Error merging override|MissingMandatoryValue"
    r"|validate_config rejects|runtime_env\['env_vars'\] must be of type|Please set at least one of"
    r"|must be divisible by|real_train_batch_size"
)
CONFIG_FRAMES = re.compile(r"verl/(?:utils/config\.py|workers/config/|trainer/config/)")
ERROR_LINE = re.compile(r"^\s*(?:\S+\s+)?(?:ValueError|AssertionError|TypeError): .+")
FAILURES = (
    ("oom", re.compile(OOM)),
    ("nccl", re.compile(NCCL, re.I)),
    ("invalid", re.compile(INVALID)),
    ("actor_died", re.compile(r"RayActorError|ActorDiedError|The actor died|actor died unexpectedly|Worker exit type: SYSTEM_ERROR")),
    ("nan", re.compile(r"NaN or Inf found|loss (?:is|became) (?:nan|inf)|non-finite loss|detected nan", re.I)),
)  # fmt: skip
"""(reason, pattern) in priority order, matched against the output's non-metric lines."""
METRIC_LINE = re.compile(r"(?:^|\s)step:\d+\s+-\s")


def version_metrics(version: str | None = None) -> VersionMetrics:
    """The metric names of the installed (or given) verl version."""
    if version is None:
        from importlib.metadata import PackageNotFoundError
        from importlib.metadata import version as installed

        try:  # the installed distribution's version: importing verl takes seconds (torch, tensordict)
            version = installed("verl")
        except PackageNotFoundError:
            version = "0.9"
    major_minor = tuple(int(x) for x in re.findall(r"\d+", version)[:2])
    return METRICS_BY_VERSION["0.9" if major_minor >= (0, 9) else "0.8"]


@cache
def verl_tree() -> tuple[dict[str, Any], dict[str, Any]]:
    """(raw values with interpolations, resolved values) of verl's default ppo_trainer config."""
    from autotune.extras import require

    require("verl", "the verl trainer (`trainer: verl`)")
    from omegaconf import OmegaConf

    from autotune.adapters.verl_config import compose

    cfg = compose([])
    raw = flatten_tree(OmegaConf.to_container(cfg, resolve=False))
    try:
        resolved = flatten_tree(OmegaConf.to_container(cfg, resolve=True, throw_on_missing=False))
    except Exception:  # an interpolation that needs runtime context: keep what resolves
        resolved = {}
        for key in raw:
            try:
                resolved[key] = OmegaConf.select(cfg, key, throw_on_missing=False)
            except Exception:
                resolved[key] = None
    return raw, resolved


def resolved_config(keys: dict[str, Any]) -> dict[str, Any]:
    """verl's config as `main_ppo` would run these keys, flat: its defaults with the keys set, and every
    interpolation resolved against them. verl derives many keys from others when they are not given
    (`ref.log_prob_use_dynamic_bsz` and `rollout.log_prob_max_token_len_per_gpu` follow the actor's
    `use_dynamic_bsz` and `ppo_max_token_len_per_gpu`; the critic's `use_dynamic_bsz`, `ppo_mini_batch_size`
    and `ppo_epochs` follow the actor's; `critic.forward_max_token_len_per_gpu` its own
    `ppo_max_token_len_per_gpu`), so `defaults()`, resolved once against verl's own defaults, would keep
    them at the defaults' values.

    An interpolated value depends only on the keys interpolations read, so the derived values are resolved
    once per distinct setting of those keys (`resolved_exactly`, ~60 ms) and reused: a sweep's trials mostly
    differ in keys no interpolation reads (the result equals `resolved_exactly`'s, as tested)."""
    inputs = _interpolation_inputs()
    relevant = {k: v for k, v in keys.items() if _read_by_interpolation(k, inputs) or isinstance(v, (dict, list))}
    signature = tuple(sorted((k, repr(v)) for k, v in relevant.items()))
    derived = _DERIVED.get(signature)
    if derived is None:
        full = resolved_exactly(relevant)
        interpolated = frozenset(_interpolated())
        derived = {k: v for k, v in full.items() if _read_by_interpolation(k, interpolated)}
        derived.update({k: _ABSENT for k in interpolated if k not in full})  # resolved to a node, flattened away
        if len(_DERIVED) > 1024:
            _DERIVED.clear()
        _DERIVED[signature] = derived
    out = {**verl_tree()[1], **derived, **(flatten_tree(keys) if keys else {})}
    return {k: v for k, v in out.items() if v is not _ABSENT}


_DERIVED: dict[tuple[tuple[str, str], ...], dict[str, Any]] = {}
_CHECKED: dict[tuple[tuple[str, ...], tuple[tuple[str, str], ...]], str | None] = {}
"""`VerlAdapter.check`'s verdicts (None: accepted) by overrides and values: composing and validating one
configuration takes about a second, and a space's choices, a sweep's and the report's checks repeat them."""


def _problem(lines: list[str], flat: dict[str, Any]) -> str | None:
    """Why verl would refuse this trial's overrides (hydra's composition, the values' types, Ray's env, verl's
    validate_config), or None."""
    from autotune.adapters.verl_config import (
        VerlRejected,
        check_types,
        compose,
        defaults_config,
        env_problems,
        validate,
    )

    try:
        cfg = compose(lines)
    except VerlRejected as exc:
        return f"verl rejects the overrides: {exc}"
    problems = check_types(defaults_config(), {k: v for k, v in flat.items() if not k.startswith(ENV_PREFIX)})
    problems += env_problems(cfg)
    if problems:
        return "; ".join(problems)
    try:
        validate(cfg)
    except VerlRejected as exc:
        return str(exc)
    return None


def _verdict(
    signature: tuple[tuple[str, ...], tuple[tuple[str, str], ...]], lines: list[str], flat: dict[str, Any]
) -> str | None:
    """`_problem`'s answer, from an earlier command's when one asked the same (`verdict_cache`)."""
    from autotune.adapters import verdict_cache

    found, problem = verdict_cache.recalled(signature)
    if not found:
        problem = _problem(lines, flat)
        verdict_cache.keep(signature, problem)
    return problem


def _remember(signature: tuple[tuple[str, ...], tuple[tuple[str, str], ...]], problem: str | None) -> None:
    if len(_CHECKED) > 4096:
        _CHECKED.clear()
    _CHECKED[signature] = problem


_ABSENT = object()
_REFERENCE = re.compile(r"\$\{(?:oc\.select:)?\s*(\.*[A-Za-z_][\w.]*)")


@cache
def _interpolated() -> tuple[str, ...]:
    """verl's keys whose default is an interpolation."""
    raw = verl_tree()[0]
    return tuple(k for k, v in raw.items() if isinstance(v, str) and "${" in v)


@cache
def _interpolation_inputs() -> frozenset[str]:
    """Every key (absolute) that one of verl's interpolations reads."""
    raw = verl_tree()[0]
    read = set()
    for key in _interpolated():
        parent = key.split(".")[:-1]
        for ref in _REFERENCE.findall(str(raw[key])):
            dots = len(ref) - len(ref.lstrip("."))
            if dots:  # `.x` is a sibling, `..x` the parent's sibling
                ref = ".".join([*parent[: len(parent) - dots + 1], ref.lstrip(".")])
            read.add(ref)
    return frozenset(read)


def _read_by_interpolation(key: str, inputs: frozenset[str]) -> bool:
    """Whether an interpolation reads the key, a node above it, or a node below it."""
    parts = key.split(".")
    if any(".".join(parts[:i]) in inputs for i in range(1, len(parts) + 1)):
        return True
    return any(ref.startswith(key + ".") for ref in inputs)


def resolved_exactly(keys: dict[str, Any]) -> dict[str, Any]:
    """`resolved_config` the long way: the keys set on verl's composed config and the whole tree resolved.
    Setting the keys on the composed config is what hydra's overrides do (the same values as composing with
    them, as tested), about five times faster than composing."""
    from omegaconf import OmegaConf

    from autotune.adapters.verl_config import compose

    cfg = compose([])  # a copy of the cached composition
    OmegaConf.set_struct(cfg, False)
    for key, value in keys.items():
        OmegaConf.update(cfg, key, value, merge=False, force_add=True)
    try:
        return flatten_tree(OmegaConf.to_container(cfg, resolve=True, throw_on_missing=False))
    except Exception:  # an interpolation that needs runtime context: resolve key by key, keep what resolves
        out: dict[str, Any] = {}
        for key in flatten_tree(OmegaConf.to_container(cfg, resolve=False)):
            try:
                value = OmegaConf.select(cfg, key, throw_on_missing=False)
            except Exception:
                value = None
            out[key] = OmegaConf.to_container(value, resolve=True) if OmegaConf.is_config(value) else value
        return out


@cache
def _verl_keys() -> dict[str, KeyInfo]:
    """verl's keys with their types and defaults (built once: a space's load asks for them several times)."""
    raw, resolved = verl_tree()
    floats = float_keys()
    return {
        k: KeyInfo(k, Any if k in FILE_LISTS else float if k in floats else _key_type(v), resolved.get(k))
        for k, v in raw.items()
        if not k.endswith("._target_")
    }


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


@register("verl")
class VerlAdapter(TrainerAdapter):
    seed_keys = ("data.seed", "actor_rollout_ref.rollout.seed")
    """verl takes the prompts' order from `data.seed` and the rollout's sampling from its own seed (42 by default,
    the same in every run otherwise)."""

    def __init__(self, command: list[str] | None = None) -> None:
        super().__init__(command)
        self.command: list[str] = command or [sys.executable, "-m", "verl.trainer.main_ppo"]

    def keys(self) -> dict[str, KeyInfo]:
        return dict(_verl_keys())  # a copy: the caller may add to it

    def open_map(self, key: str) -> str | None:
        """verl's open maps (`verl_config.open_map`: `actor_rollout_ref.model.override_config: {}` and the like):
        a key added to one is the job's own setting, each trial's overrides add it with `+`."""
        from autotune.adapters.verl_config import open_map

        return open_map(key)

    def ranks(self, flat: dict[str, Any], world: int) -> int:
        """verl starts `trainer.n_gpus_per_node` x `trainer.nnodes` ranks, whatever `trial.world_size` says (a space
        may search either: `verl-cpu` searches 1 or 2 ranks under a world of 2)."""
        return verl_ranks(flat, world)

    def defaults(self, base_config: list[str]) -> dict[str, Any]:
        return dict(verl_tree()[1])

    def resolved(self, base_config: list[str], keys: dict[str, Any]) -> dict[str, Any]:
        return resolved_config(keys)

    def metric_names(self) -> tuple[tuple[str, ...], tuple[str, ...]]:
        names = version_metrics()
        phases = tuple(f"timing_s/{p}" for p in names.phases)
        return (names.throughput, names.mfu, *names.memory, *phases, "timing_s/reshard"), VERL_PREFIXES

    def phases(self) -> tuple[str, ...]:
        return tuple(p for p in version_metrics().phases if p != "step")

    def unmeasured_metrics(self) -> tuple[str, ...]:
        return UNMEASURED

    def cluster_resources(self, world: int, threads_per_rank: int, device: DeviceKind) -> dict[str, float]:
        """verl's own Ray workers ask for the ranks' GPUs, whatever the controller's device."""
        return {"gpu": world, "cpu": 1}

    def knob_status(self, key: str, device: DeviceKind, world: int) -> tuple[bool, str]:
        if key.startswith("env."):
            return True, "passed to every Ray worker through ray_kwargs.ray_init.runtime_env.env_vars"
        return True, "verl config key"

    def trial_overrides(
        self, flat: dict[str, Any], world: int, steps: int | None = None
    ) -> tuple[list[str], dict[str, str]]:
        """(hydra overrides, launcher environment) of one trial: the trial's keys (`~` expanded, env
        under ray_kwargs as strings), the trial settings, and the CPU plugin's when it asks for it."""
        from autotune.adapters.verl_config import coerce_ints, expand_home

        try:
            settings = {k: expand_home(v) for k, v in coerce_ints(flat).items()}
        except ValueError as exc:
            raise InvalidConfig(str(exc)) from None
        lines = dict(_split(line) for line in overrides(settings))
        lines.update({k: v for k, v in TRIAL_OVERRIDES.items() if k not in lines or k == "trainer.logger"})
        if steps is not None:
            lines["trainer.total_training_steps"] = str(steps)
        env: dict[str, str] = {}
        if str(flat.get("trainer.device", "")) == "cpu":
            plugin_lines, env = cpu_plugin(flat, world)
            for key, value in plugin_lines:
                if key.lstrip("+") not in lines and key not in lines:
                    lines[key] = value
        return [f"{k}={v}" for k, v in lines.items()], env

    def check(self, base_config: list[str], flat: dict[str, Any], world: int) -> None:
        lines, _ = self.trial_overrides(flat, world)
        signature = (tuple(lines), tuple(sorted((k, repr(v)) for k, v in flat.items())))  # repr: 1, 1.0 and "1"
        if signature not in _CHECKED:  # checked once: a space's choices and a resumed sweep ask again
            _remember(signature, _verdict(signature, lines, flat))
        problem = _CHECKED[signature]
        if problem is not None:
            raise InvalidConfig(problem)

    def quick_check(self, base_config: list[str], flat: dict[str, Any], world: int) -> None:
        """Types against verl's defaults, keys against verl's tree: no hydra compose (about a second each)."""
        from autotune.adapters.verl_config import check_types, defaults_config

        known = verl_tree()[0]
        unknown = [k for k in flat if not k.startswith(ENV_PREFIX) and k not in known and self.open_map(k) is None]
        if unknown:
            raise InvalidConfig(f"verl has no key {unknown[0]!r}")
        problems = check_types(defaults_config(), {k: v for k, v in flat.items() if not k.startswith(ENV_PREFIX)})
        if problems:
            raise InvalidConfig("; ".join(problems))

    def launch(self, run: TrialRun) -> Launch:
        flat = {
            **run.flat,
            **{ENV_PREFIX + k: str(v) for k, v in run.env.items()},
        }  # the trial's env reaches every Ray worker
        lines, plugin_env = self.trial_overrides(flat, run.world, run.steps)
        if shares_ray(run.flat):
            address = ray_head.address(run.world)
            if address is not None:
                lines = joined(lines, address, {**plugin_env, **run.process_env, **run.env})
        prefix = ["env", *(f"{k}={v}" for k, v in plugin_env.items())] if plugin_env else []
        hydra_dir = f"hydra.run.dir={hydra_value(str(run.trial_dir / 'hydra'))}"  # not ./outputs of the caller
        argv = [*prefix, *self.command, *lines, hydra_dir]
        return Launch(argv, {**run.env, **run.process_env}, parse_console=True)

    def prepare(self, base: dict[str, Any], world: int) -> None:
        """CPU-plugin sweeps: the Ray head every trial joins starts now, in the background."""
        if shares_ray(base):
            ray_head.start(world)

    def console_parser(self) -> ConsoleParser:
        return ConsoleParser()

    def failure_reported(self, output: str) -> bool:
        return "Error executing job with overrides" in output  # hydra's report of main_ppo raising

    def failure(self, exit_code: int, stderr: str) -> tuple[str, str]:
        lines = [ln for ln in stderr.splitlines() if ln.strip() and not METRIC_LINE.search(ln)]
        text = "\n".join(lines)
        for reason, pattern in FAILURES:
            if pattern.search(text):
                line = next(ln for ln in lines if pattern.search(ln))
                mapped = {"nccl": "crash", "actor_died": "crash"}.get(reason, reason)
                label = {"nccl": "NCCL error: ", "actor_died": "Ray actor died: "}.get(reason, "")
                if reason == "invalid":
                    line = next((ln for ln in lines if ERROR_LINE.match(ln)), line)
                return mapped, (label + line.strip())[:300]
        if CONFIG_FRAMES.search(text):  # a ValueError/AssertionError raised by verl's config classes
            error = next((ln for ln in reversed(lines) if ERROR_LINE.match(ln)), None)
            if error is not None:
                return "invalid", error.strip()[:300]
        return "crash", crash_detail(text, exit_code)  # the last exception, not hydra's HYDRA_FULL_ERROR hint


RAY_START_KEYS = ("num_cpus", "num_gpus", "include_dashboard", "_temp_dir", "object_store_memory", "resources")
"""`ray_kwargs.ray_init` settings that start a cluster: Ray refuses them from a driver that joins one."""


def shares_ray(flat: dict[str, Any]) -> bool:
    """Whether a trial joins the sweep's Ray head: CPU-plugin trials that name no cluster of their own."""
    return (
        ray_head.enabled()
        and str(flat.get("trainer.device", "")) == "cpu"
        and not flat.get("ray_kwargs.ray_init.address")
    )


def joined(lines: list[str], address: str, env: dict[str, str]) -> list[str]:
    """A trial's overrides rewritten to join the Ray cluster at `address` (verl's `ray_kwargs.ray_init.address`)
    instead of starting one: no cluster-start settings, and every variable the launcher would set in `env`
    also in the job's runtime env (the head was not started with them, so they reach the workers only
    that way; the trial's own values win)."""
    start = {f"ray_kwargs.ray_init.{k}" for k in RAY_START_KEYS}
    out = [ln for ln in lines if _split(ln)[0].lstrip("+") not in start]
    present = {_split(ln)[0].lstrip("+") for ln in out}
    out += [f"+{ENV_PREFIX}{k}={hydra_value(str(v))}" for k, v in env.items() if ENV_PREFIX + k not in present]
    return [*out, f"+ray_kwargs.ray_init.address={hydra_value(address)}"]


def _split(line: str) -> tuple[str, str]:
    key, _, value = line.partition("=")
    return key, value


def verl_ranks(flat: dict[str, Any], world: int) -> int:
    """`trainer.n_gpus_per_node` x `trainer.nnodes` of a trial's config (`world` for a key it lacks)."""
    return int(flat.get("trainer.n_gpus_per_node", world)) * int(flat.get("trainer.nnodes", 1))


def cpu_plugin(flat: dict[str, Any], world: int) -> tuple[list[tuple[str, str]], dict[str, str]]:
    """The `verl_cpu` plugin's (overrides, environment) for this trial's rank count."""
    try:
        from verl_cpu import plugin_settings
    except ImportError as exc:
        raise InvalidConfig(
            f"trainer.device=cpu runs verl on this repository's CPU plugin, which does not import: {exc}; "
            "install the repository (`pip install -e .[verl]`)"
        ) from None
    settings = plugin_settings(verl_ranks(flat, world))
    return [_split(line) for line in settings.overrides], settings.env
