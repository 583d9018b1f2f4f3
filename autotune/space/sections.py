"""One parser per section of a space file that stands on its own: name, trials, command, base,
base_config, env, objectives, limits and baseline (params, derived and constraints: `knobs.py`).

Each takes the section's raw value, reports problems to the Reader at their file:line, and
returns what the Space holds. A rule about a single value lives on the dataclass it builds
(`schema.py`); what is checked here needs the trainer's keys or metrics, or the file's layout.
"""

from __future__ import annotations

import dataclasses
import difflib
from collections.abc import Callable
from pathlib import Path
from typing import Any

from autotune.adapters.base import InvalidConfig, TrainerAdapter
from autotune.names import env_name_problem, env_value_problem, study_name_problem
from autotune.space.quality_section import QualitySettings
from autotune.space.roles import table_role
from autotune.space.schema import METRIC_ALIASES, Limit, Objective, Param, SpaceRuleError, trials_problem
from autotune.space.yaml_reader import Reader
from verl_keys.keys import coerce, suggest_key
from verl_keys.yaml_lines import flatten


def parse_name(r: Reader, raw: Any, path: Path) -> str:
    name = path.stem if raw is None else raw
    trouble = study_name_problem(name)
    if trouble:
        r.error(r.at("name") if raw is not None else f"{path}:1", f"`name`: {trouble}")
        return "invalid"
    return str(name)


def parse_trials(r: Reader, raw: Any) -> int:
    trouble = trials_problem(raw)
    if trouble:
        r.error(r.at("trials"), trouble)
        return 1
    return int(raw)


def parse_command(r: Reader, raw: Any) -> list[str] | None:
    if raw is not None and (not isinstance(raw, list) or not all(isinstance(c, str) for c in raw)):
        r.error(r.at("command"), "`command` must be a list of strings (the verl launcher prefix)")
        return None
    return list(raw) if raw else None


def parse_base(
    r: Reader, raw: Any, keys: dict[str, Any], open_map: Callable[[str], str | None] = lambda key: None
) -> tuple[dict[str, Any], dict[str, str]]:
    """The config every trial shares, typed by the trainer's keys, and where each key was written. A key in one of
    the trainer's open maps (`open_map`, the adapter's: verl's `actor_rollout_ref.model.override_config: {}`) is
    kept as written: its map takes any key and value (audit 37 F1)."""
    tree = r.mapping(raw, "base")
    flat = flatten(tree, {k[1:]: v for k, v in r.where.items() if k[:1] == ("base",)}, r.path)
    base: dict[str, Any] = {}
    base_where: dict[str, str] = {}
    for key, located in flat.items():
        base_where[key] = located.where
        if key not in keys and open_map(key) is not None:
            base[key] = coerce(located.value, Any)
            continue
        if key not in keys:
            hint = suggest_key(key, keys)
            r.error(located.where, f"unknown key `{key}` in base" + (f"; did you mean `{hint}`?" if hint else ""))
            continue
        try:
            base[key] = coerce(located.value, keys[key].type)
        except TypeError as exc:
            r.error(located.where, f"`{key}` {exc}, got {located.value!r}")
    return base, base_where


def parse_base_config(r: Reader, raw: Any, adapter: TrainerAdapter, path: Path) -> list[str]:
    """The config files the trainer layers the base on (its presets, or files relative to the space file)."""
    names = None if raw is None else [raw] if isinstance(raw, str) else raw
    if names is not None and (not isinstance(names, list) or not all(isinstance(n, str) for n in names)):
        r.error(
            r.at("base_config"), f"`base_config` must be a preset name or a list of them (e.g. [cpu_tiny]), got {raw!r}"
        )
        names = None
    out = []
    for name in names if names is not None else [None]:
        try:
            out += adapter.base_config(None if name is None else [name], path.parent)
        except InvalidConfig as exc:
            r.error(r.at("base_config"), f"`base_config`: {exc}")
    return out


def parse_env(r: Reader, raw: Any) -> dict[str, str]:
    env: dict[str, str] = {}
    for name, value in r.mapping(raw, "env").items():
        trouble = env_name_problem(name) or env_value_problem(str(name), value)
        if trouble:
            r.error(r.at("env", str(name)), f"env: {trouble}")
            continue
        env[name] = str(value).lower() if isinstance(value, bool) else str(value)
    return env


def check_metric(r: Reader, metric: Any, where: str, adapter: TrainerAdapter) -> str | None:
    """The metric name if it is one (a known metric or alias, even if misspelt), None if not a name."""
    exact, prefixes = adapter.metric_names()
    if not isinstance(metric, str):
        r.error(where, f"`metric` must be a metric name, got {metric!r}")
        return None
    if metric in METRIC_ALIASES or metric in exact or metric.startswith(prefixes):
        return metric
    close = difflib.get_close_matches(metric, [*exact, *METRIC_ALIASES], n=1)
    fix = f"; did you mean `{close[0]}`?" if close else ""
    r.error(where, f"unknown metric `{metric}` (the {adapter.name} trainer does not log it){fix}")
    return metric


def parse_objectives(r: Reader, raw: Any, adapter: TrainerAdapter) -> list[Objective]:
    objectives: list[Objective] = []
    for i, item in enumerate(r.sequence(raw or None, "objectives") or [{"metric": "perf/throughput"}]):
        at = r.at("objectives", str(i))
        if not isinstance(item, dict):
            r.error(at, "an objective is a mapping {metric, direction, reducer}")
            continue
        metric = check_metric(r, item.get("metric"), r.at("objectives", str(i), "metric"), adapter)
        try:
            objective = Objective(
                metric or "", item.get("direction", "maximize"), item.get("reducer", "median"), where=at
            )
        except SpaceRuleError as exc:
            for problem in exc.problems:
                r.error(at, problem)
            continue
        objectives.append(objective)
    return objectives


LIMIT_FIELDS = tuple(f.name for f in dataclasses.fields(Limit) if f.name != "where")


def parse_limits(r: Reader, raw: Any, adapter: TrainerAdapter) -> list[Limit]:
    limits: list[Limit] = []
    for i, item in enumerate(r.sequence(raw or None, "limits")):
        at = r.at("limits", str(i))
        if not isinstance(item, dict):
            r.error(at, "a limit is a mapping {metric, reducer, max | min | max_ratio_to_baseline, alarm_above}")
            continue
        unknown = sorted(set(item) - set(LIMIT_FIELDS), key=str)
        for extra in unknown:
            hint = suggest_key(str(extra), LIMIT_FIELDS)
            r.error(at, f"limit: unknown field `{extra}`"
                        + (f"; did you mean `{hint}`?" if hint else f" (fields: {', '.join(sorted(LIMIT_FIELDS))})"))  # fmt: skip
        if unknown:  # "sets no bound" followed from `maximum:` for `max:`
            continue
        metric = check_metric(r, item.get("metric"), r.at("limits", str(i), "metric"), adapter)
        settings = {k: v for k, v in item.items() if k in LIMIT_FIELDS and k != "metric"}
        try:
            limit = Limit(metric if metric is not None else str(item.get("metric")), **settings, where=at)
        except SpaceRuleError as exc:
            for problem in exc.problems:
                r.error(at, problem)
            continue
        if metric is not None:
            limits.append(limit)
    return limits


def parse_baseline(
    r: Reader,
    raw: Any,
    params: list[Param],
    keys: dict[str, Any],
    declared: set[str],
    base: dict[str, Any] | None = None,
    base_where: dict[str, str] | None = None,
) -> dict[str, Any]:
    """Trial 0's values: given ones, else the job's value in `base:`, else the trainer's default for the key (each
    when it lies in the domain). `declared` names every entry of `params:`, also those refused (already reported).
    A param without a `when` runs its value in every trial, so a `base:` value other than the baseline's never ran,
    and the trainer's default ran as the baseline where only `base:` gave one (audit 25 F18)."""
    base, base_where = base or {}, base_where or {}
    by_name = {p.name: p for p in params}
    out: dict[str, Any] = {}
    for name, value in r.mapping(raw, "baseline").items():
        if name not in by_name:
            if name not in declared:
                hint = suggest_key(str(name), declared)
                r.error(r.at("baseline", name), f"baseline sets `{name}`, which is not a param of this space"
                                                + (f"; did you mean `{hint}`?" if hint else ""))  # fmt: skip
            continue
        p = by_name[name]
        unset_allowed = value is None and p.type == "categorical" and None in (p.choices or ())
        if not unset_allowed and not p.contains(value):
            domain = (
                f"one of {list(p.choices or ())}" if p.type in ("categorical", "bool") or p.choices
                else f"{p.type} from {p.low:g} to {p.high:g}"
            )  # fmt: skip
            r.error(
                r.at("baseline", name),
                f"baseline value {value!r} of `{name}` lies outside its domain ({domain}): set the baseline to a value "
                "the param can take, or widen the param",
            )
        elif name in base and base[name] != value and not p.when:
            r.error(base_where.get(name, r.at("base")), f"`{name}` is {base[name]!r} in `base:` and {value!r} in "
                    f"`baseline:` ({r.at('baseline', name)}): it is searched, so every trial, the baseline too, runs "
                    "a param's value and the one in `base:` never runs; give both the job's value, or drop it from "
                    "`base:`")  # fmt: skip
        out[name] = value
    for p in params:
        if p.name in out:
            continue
        if p.name in base and p.contains(base[p.name]):  # the job's own value
            out[p.name] = base[p.name]
            continue
        default = keys[p.name].default if p.name in keys else None
        if p.name in keys and p.contains(default):
            out[p.name] = default
        elif p.is_env and p.type == "categorical" and None in (p.choices or ()):
            out[p.name] = None
        elif p.when:
            continue  # conditional: only needed when its condition holds at the baseline
        elif p.name not in keys and "." in p.name and not p.is_env:  # a key in one of the trainer's open maps
            r.error(p.where, f"baseline: no value for `{p.name}`: a key the space adds to a map verl leaves open has "
                             f"no verl default; set `baseline.{p.name}` to the value the job runs (the engine's own "
                             "default where the job sets none)")  # fmt: skip
        else:
            r.error(
                p.where,
                f"baseline: no value for `{p.name}` and no verl default in its domain; set `baseline.{p.name}`",
            )
    return out


def parse_quality(
    r: Reader, raw: Any, adapter: TrainerAdapter, keys: dict[str, Any], params: list[Param]
) -> QualitySettings:
    """The quality stage's settings: its metrics must be the trainer's, its `base` systems keys only
    (an algorithm key there would change what the stage is judging)."""
    raw = r.mapping(raw, "quality")
    settings = r.settings(QualitySettings, {k: v for k, v in raw.items() if k != "base"}, "quality")
    for name in ("score_metric", "kl_metric", "entropy_metric"):  # as written: the defaults stand in for all
        given = raw.get(name)  # when another setting is wrong, and a typo was then not said
        check_metric(r, given if isinstance(given, str) else getattr(settings, name), r.at("quality", name), adapter)
    tree = r.mapping(raw.get("base"), "quality", "base")
    flat = flatten(tree, {k[2:]: v for k, v in r.where.items() if k[:2] == ("quality", "base")}, r.path)
    base: dict[str, Any] = {}
    roles = {p.name: p.role for p in params}
    for key, located in flat.items():
        if key not in keys and adapter.open_map(key) is not None:  # in a map verl leaves open: any key and value
            base[key] = coerce(located.value, Any)
            continue
        if key not in keys:
            hint = suggest_key(key, keys)
            r.error(
                located.where, f"unknown key `{key}` in quality.base" + (f"; did you mean `{hint}`?" if hint else "")
            )
            continue
        if (roles.get(key) or table_role(key)) == "algorithm":
            r.error(
                located.where,
                f"`{key}` in quality.base is an algorithm knob: the quality stage searches those (as params); "
                "quality.base may set systems keys only",
            )
            continue
        try:
            base[key] = coerce(located.value, keys[key].type)
        except TypeError as exc:
            r.error(located.where, f"`{key}` {exc}, got {located.value!r}")
    if not any(p.role == "algorithm" for p in params):  # the run skipped the stage, and `best` said to run it
        r.error(
            r.at("quality"),
            "`quality:` judges the algorithm params, and the space searches none: add one under `params:` (e.g. "
            "`algorithm.kl_ctrl.kl_coef: {type: float, low: 1.0e-4, high: 1.0, log: true}`), or remove the section",
        )
    given_keys = settings.seed_keys
    seed_keys = (given_keys,) if isinstance(given_keys, str) else tuple(given_keys or adapter.seed_keys)
    for key in seed_keys:
        if key not in keys:
            hint = suggest_key(key, keys)
            r.error(
                r.at("quality", "seed_keys"),
                f"`quality.seed_keys`: the {adapter.name} trainer has no key `{key}`"
                + (f"; did you mean `{hint}`?" if hint else ""),
            )
    return dataclasses.replace(settings, base=base, seed_keys=seed_keys)
