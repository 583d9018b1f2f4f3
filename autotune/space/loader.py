"""Read and check a search-space file; every problem is reported at once with file:line and a fix."""

from __future__ import annotations

import dataclasses
import difflib
from pathlib import Path
from typing import Any, Literal, cast

from autotune.adapters.base import DeviceKind, TrainerAdapter
from autotune.names import env_name_problem, env_value_problem, study_name_problem
from autotune.space import expr
from autotune.space.grid import sampler_problem
from autotune.space.schema import (
    METRIC_ALIASES,
    REDUCERS,
    ConfirmSettings,
    Constraint,
    Derived,
    Limit,
    Objective,
    Param,
    SamplerSettings,
    Space,
    TrialSettings,
)
from autotune.space.sim_section import SimSettings
from trainer.config.loader import ConfigError, coerce, resolve_preset, suggest_key
from trainer.config.yaml_lines import YamlError, flatten, load_tree

SPACE_DIR = Path(__file__).resolve().parents[2] / "search_spaces"
TOP_LEVEL = (
    "name", "trainer", "command", "base_config", "base", "env", "trial", "params", "derived", "constraints",
    "objectives", "limits", "baseline", "confirm", "sampler", "trials", "sim",
)  # fmt: skip


RENAMED = {
    "pruner_warmup_steps": "the pruner now decides once, at `sampler.prune_at` (a fraction of `trial.steps`, "
    "e.g. prune_at: 0.5)",
}
"""Settings of earlier versions, with what replaced them."""


class SpaceError(ValueError):
    """A search-space file with problems; `problems` lists each as 'file:line: message'."""

    def __init__(self, problems: list[str]) -> None:
        self.problems = problems
        super().__init__("\n".join(problems))


def find_space(name_or_path: str) -> Path:
    """A space by path, or a shipped one by bare name (`fsdp3d` or `fsdp3d.yaml`)."""
    path = Path(name_or_path)
    if path.exists():
        return path
    for candidate in (SPACE_DIR / name_or_path, SPACE_DIR / f"{name_or_path}.yaml"):
        if candidate.exists():
            return candidate
    shipped = ", ".join(sorted(p.stem for p in SPACE_DIR.glob("*.yaml")))
    raise SpaceError([f"{name_or_path}: no such file, and not a shipped space (shipped: {shipped})"])


class _Reader:
    """Collects problems while parsing, so the user sees every one in a single run."""

    def __init__(self, path: str, where: dict[tuple[str, ...], str]) -> None:
        self.path = path
        self.where = where
        self.problems: list[str] = []

    def at(self, *keys: str) -> str:
        for n in range(len(keys), 0, -1):
            if keys[:n] in self.where:
                return self.where[keys[:n]]
        return f"{self.path}:1"

    def error(self, where: str, message: str) -> None:
        self.problems.append(f"{where}: {message}")

    def mapping(self, value: Any, *keys: str) -> dict[str, Any]:
        if value is None:
            return {}
        if not isinstance(value, dict):
            self.error(self.at(*keys), f"`{'.'.join(keys)}` must be a mapping, got {type(value).__name__}")
            return {}
        return value

    def settings(self, cls: type, value: Any, key: str) -> Any:
        """A settings dataclass from a mapping, type-checked field by field."""
        raw = self.mapping(value, key)
        fields = {f.name: f for f in dataclasses.fields(cls)}
        kwargs = {}
        for name, item in raw.items():
            if name in RENAMED:
                self.error(self.at(key, name), f"`{key}.{name}` is gone: {RENAMED[name]}")
                continue
            if name not in fields:
                close = difflib.get_close_matches(name, list(fields), n=1)
                fix = f"; did you mean `{close[0]}`?" if close else f" (known: {', '.join(fields)})"
                self.error(self.at(key, name), f"unknown setting `{key}.{name}`{fix}")
                continue
            tp = {"int": int, "float": float, "int | None": int | None, "float | None": float | None}.get(
                str(fields[name].type), Any
            )
            try:
                kwargs[name] = coerce(item, tp) if tp is not Any else item
            except TypeError as exc:
                self.error(self.at(key, name), f"`{key}.{name}` {exc}, got {item!r}")
        try:
            return cls(**kwargs)
        except ValueError as exc:  # the rules live on the dataclass; point at the setting they name
            message = str(exc)
            mentioned = [n for n in kwargs if f"`{key}.{n}`" in message]
            named = min(mentioned, key=lambda n: message.index(f"`{key}.{n}`")) if mentioned else None
            self.error(self.at(key, named) if named else self.at(key), message)
            return cls()


def _check_metric(r: _Reader, metric: Any, where: str, adapter: TrainerAdapter) -> str:
    exact, prefixes = adapter.metric_names()
    if not isinstance(metric, str):
        r.error(where, f"`metric` must be a metric name, got {metric!r}")
        return ""
    if metric in METRIC_ALIASES or metric in exact or metric.startswith(prefixes):
        return metric
    close = difflib.get_close_matches(metric, [*exact, *METRIC_ALIASES], n=1)
    fix = f"; did you mean `{close[0]}`?" if close else ""
    r.error(where, f"unknown metric `{metric}` (the {adapter.name} trainer does not log it){fix}")
    return metric


def _param(r: _Reader, name: str, spec: Any, adapter: TrainerAdapter) -> Param | None:
    where = r.at("params", name)
    if not isinstance(spec, dict):
        r.error(where, f"param `{name}` must be a mapping like {{type: int, low: 1, high: 8}}")
        return None
    allowed = {"type", "choices", "low", "high", "log", "step", "when"}
    for extra in set(spec) - allowed:
        r.error(
            r.at("params", name, extra),
            f"param `{name}`: unknown field `{extra}` (fields: {', '.join(sorted(allowed))})",
        )
    ptype = spec.get("type")
    if ptype not in ("categorical", "int", "float", "bool"):
        r.error(where, f"param `{name}`: `type` must be categorical, int, float or bool, got {ptype!r}")
        return None
    known = adapter.keys()
    key_type = known[name].type if name in known else None
    choices = spec.get("choices")
    low, high, step, log = spec.get("low"), spec.get("high"), spec.get("step"), bool(spec.get("log", False))
    if ptype == "categorical":
        if not isinstance(choices, list) or not choices:
            r.error(where, f"param `{name}`: a categorical needs a non-empty `choices` list")
            return None
        if key_type is not None:
            for choice in choices:
                try:
                    coerce(choice, key_type)
                except TypeError as exc:
                    r.error(r.at("params", name, "choices"), f"param `{name}`: choice {choice!r} {exc}")
        return Param(name, "categorical", tuple(choices), when=spec.get("when") or {}, where=where)
    if ptype == "bool":
        return Param(name, "bool", (False, True), when=spec.get("when") or {}, where=where)
    numbers = [x for x in (low, high) if isinstance(x, (int, float)) and not isinstance(x, bool)]
    if len(numbers) != 2:
        r.error(where, f"param `{name}`: {ptype} needs numeric `low` and `high`, got low={low!r} high={high!r}")
        return None
    assert isinstance(low, (int, float)) and isinstance(high, (int, float))
    if low >= high:
        r.error(r.at("params", name, "low"), f"param `{name}`: bad range, `low` ({low}) must be < `high` ({high})")
        return None
    if log and low <= 0:
        r.error(r.at("params", name, "log"), f"param `{name}`: a log-scale range needs low > 0, got low={low}")
        return None
    if step is not None and (not isinstance(step, (int, float)) or step <= 0 or log):
        r.error(
            r.at("params", name, "step"),
            f"param `{name}`: `step` must be > 0 and cannot be combined with log",
        )
        return None
    if ptype == "int" and not all(isinstance(x, int) for x in (low, high)):
        r.error(where, f"param `{name}`: an int range needs integer bounds, got {low!r}..{high!r}")
        return None
    if key_type is not None and ptype == "float" and key_type is int:
        r.error(where, f"param `{name}`: the key is an integer; use `type: int`")
    return Param(name, ptype, None, float(low), float(high), log, step, spec.get("when") or {}, where)


def load_space(
    name_or_path: str,
    adapter: TrainerAdapter | None = None,
    device: DeviceKind = "cpu",
    trainer: str | None = None,
    sampler: str | None = None,
) -> Space:
    """Parse and check a space file against the trainer it targets (`trainer` and `sampler` override
    the file's `trainer` and `sampler.name`)."""
    path = find_space(name_or_path)
    try:
        tree, where = load_tree(path)
    except YamlError as exc:
        raise SpaceError([str(exc)]) from None
    r = _Reader(str(path), where)
    top = _top(r, tree)
    for key in top:
        if key not in TOP_LEVEL:
            close = difflib.get_close_matches(key, TOP_LEVEL, n=1)
            r.error(r.at(key), f"unknown section `{key}`" + (f"; did you mean `{close[0]}`?" if close else ""))
    trainer_name = trainer or top.get("trainer", "builtin")
    command = top.get("command")
    if command is not None and (not isinstance(command, list) or not all(isinstance(c, str) for c in command)):
        r.error(r.at("command"), "`command` must be a list of strings (the verl launcher prefix)")
        command = None
    if adapter is None:
        from autotune.adapters import get_adapter

        try:
            adapter = get_adapter(trainer_name, command)
        except ValueError as exc:
            raise SpaceError([f"{r.at('trainer')}: {exc}"]) from None
    try:
        keys = adapter.keys()
    except RuntimeError as exc:  # e.g. the verl trainer without verl installed
        raise SpaceError([f"{r.at('trainer')}: {exc}"]) from None

    base_tree = r.mapping(top.get("base"), "base")
    base_flat = flatten(base_tree, {k[1:]: v for k, v in where.items() if k[:1] == ("base",)}, str(path))
    base: dict[str, Any] = {}
    base_where: dict[str, str] = {}
    for key, located in base_flat.items():
        base_where[key] = located.where
        if key not in keys:
            hint = suggest_key(key, keys)
            r.error(located.where, f"unknown key `{key}` in base" + (f"; did you mean `{hint}`?" if hint else ""))
            continue
        try:
            base[key] = coerce(located.value, keys[key].type)
        except TypeError as exc:
            r.error(located.where, f"`{key}` {exc}, got {located.value!r}")
    env = _env(r, top.get("env"))
    base_config = _base_config(r, top.get("base_config"), adapter.name, path)

    trial = r.settings(TrialSettings, top.get("trial"), "trial")

    params: list[Param] = []
    raw_params = r.mapping(top.get("params"), "params")
    if not raw_params and not r.problems:
        r.error(r.at("params"), "the space tunes nothing: add `params:` with at least one knob, e.g. "
                "`actor_rollout_ref.actor.fsdp_config.reshard_after_forward: {type: bool}`")  # fmt: skip
    for name, spec in raw_params.items():
        if name.startswith("env."):
            trouble = env_name_problem(name.removeprefix("env."))
            if trouble:
                r.error(r.at("params", name), f"param `{name}`: {trouble}")
                continue
        if not name.startswith("env.") and "." in name and name not in keys:
            hint = suggest_key(name, keys)
            r.error(r.at("params", name), f"unknown key `{name}`" + (f"; did you mean `{hint}`?" if hint else ""))
            continue
        param = _param(r, name, spec, adapter)
        if param is not None:
            params.append(param)
    variables = {p.name for p in params if p.is_variable}
    known_names = {*keys, *variables, *(f"trial.{f.name}" for f in dataclasses.fields(TrialSettings))}

    def check_term(term: Any, at: str, label: str) -> None:
        try:
            for n in expr.names(term):
                if n not in known_names:
                    hint = suggest_key(n, known_names)
                    r.error(
                        at,
                        f"{label}: `{n}` is not a param, config key or trial setting"
                        + (f"; did you mean `{hint}`?" if hint else ""),
                    )
        except expr.ExprError as exc:
            r.error(at, f"{label}: {exc}")

    def check_when(cond: Any, at: str, label: str) -> dict[str, Any]:
        if not cond:
            return {}
        if not isinstance(cond, dict):
            r.error(at, f"{label}: `when` must map keys to values")
            return {}
        for k in cond:
            if k not in known_names and not k.startswith("env."):
                r.error(at, f"{label}: `when` refers to `{k}`, which is neither a param nor a config key")
        return cond

    for p in params:
        check_when(p.when, p.where, f"param `{p.name}`")

    derived: list[Derived] = []
    for key, spec in r.mapping(top.get("derived"), "derived").items():
        at = r.at("derived", key)
        if key not in keys:
            hint = suggest_key(key, keys)
            r.error(at, f"derived: unknown key `{key}`" + (f"; did you mean `{hint}`?" if hint else ""))
            continue
        when = {}
        if isinstance(spec, dict) and "value" in spec:
            when = check_when(spec.get("when"), at, f"derived `{key}`")
            spec = spec["value"]
        check_term(spec, at, f"derived `{key}`")
        derived.append(Derived(key, spec, when, at))
    used = {n for d in derived for n in (expr.names(d.term) if not r.problems else [])}
    for p in params:
        if p.is_variable and p.name not in used and not r.problems:
            r.error(p.where, f"param `{p.name}` is not a config key (no dots) and no derived key uses it; "
                    "name a verl key, `env.NAME`, or use it in `derived`")  # fmt: skip

    constraints: list[Constraint] = []
    raw_constraints = top.get("constraints") or []
    if not isinstance(raw_constraints, list):
        r.error(r.at("constraints"), "`constraints` must be a list")
        raw_constraints = []
    for i, item in enumerate(raw_constraints):
        at = r.at("constraints", str(i))
        kinds = [k for k in ("divides", "at_least", "at_most") if isinstance(item, dict) and k in item]
        if len(kinds) != 1 or not isinstance(item[kinds[0]], list) or len(item[kinds[0]]) != 2:
            r.error(at, "a constraint is one of {divides|at_least|at_most: [term, term]}, optionally with `when`")
            continue
        left, right = item[kinds[0]]
        check_term(left, at, "constraint")
        check_term(right, at, "constraint")
        kind = cast(Literal["divides", "at_least", "at_most"], kinds[0])
        constraints.append(Constraint(kind, left, right, check_when(item.get("when"), at, "constraint"), at))

    objectives: list[Objective] = []
    for i, item in enumerate(top.get("objectives") or [{"metric": "perf/throughput"}]):
        at = r.at("objectives", str(i))
        if not isinstance(item, dict):
            r.error(at, "an objective is a mapping {metric, direction, reducer}")
            continue
        metric = _check_metric(r, item.get("metric"), r.at("objectives", str(i), "metric"), adapter)
        direction = item.get("direction", "maximize")
        reducer = item.get("reducer", "median")
        if direction not in ("maximize", "minimize"):
            r.error(at, f"objective `{metric}`: direction must be maximize or minimize, got {direction!r}")
        if reducer not in REDUCERS:
            r.error(at, f"objective `{metric}`: reducer must be one of {', '.join(REDUCERS)}, got {reducer!r}")
        objectives.append(Objective(metric, direction, reducer, at))

    limits: list[Limit] = []
    limit_fields = {f.name for f in dataclasses.fields(Limit)} - {"where"}
    for i, item in enumerate(top.get("limits") or []):
        at = r.at("limits", str(i))
        if not isinstance(item, dict):
            r.error(at, "a limit is a mapping {metric, reducer, max | min | max_ratio_to_baseline, alarm_above}")
            continue
        for extra in set(item) - limit_fields:
            r.error(at, f"limit: unknown field `{extra}` (fields: {', '.join(sorted(limit_fields))})")
        _check_metric(r, item.get("metric"), r.at("limits", str(i), "metric"), adapter)
        bounds = [item.get(k) for k in ("max", "min", "max_ratio_to_baseline", "alarm_above", "alarm_below")]
        if all(b is None for b in bounds):
            r.error(
                at,
                f"limit `{item.get('metric')}` sets no bound (max, min, max_ratio_to_baseline, alarm_above, alarm_below)",
            )
        if item.get("reducer", "median") not in REDUCERS:
            r.error(at, f"limit `{item.get('metric')}`: reducer must be one of {', '.join(REDUCERS)}")
        limits.append(Limit(**{k: v for k, v in item.items() if k in limit_fields}, where=at))

    baseline = _baseline(r, top.get("baseline"), params, keys)
    space = Space(
        name=_name(r, top.get("name"), path),
        path=str(path),
        text=_with_trainer(path.read_text(), trainer),
        trainer=cast(Literal["builtin", "verl"], adapter.name),
        base_config=list(base_config),
        base=base,
        base_where=base_where,
        env=env,
        trial=trial,
        params=params,
        derived=derived,
        constraints=constraints,
        objectives=objectives,
        limits=limits,
        baseline=baseline,
        confirm=r.settings(ConfirmSettings, top.get("confirm"), "confirm"),
        sampler=_sampler(r, top.get("sampler"), sampler),
        sim=r.settings(SimSettings, top.get("sim"), "sim"),
        trials=_trials(r, top.get("trials", 20)),
        command=list(command) if command else None,
        unmeasured=tuple(m for m in adapter.unmeasured_metrics() if any(lim.metric == m for lim in limits)),
    )
    if r.problems:
        raise SpaceError(r.problems)
    trouble = sampler_problem(space)
    if trouble:
        r.error(
            r.at("sampler", "name") if sampler is None else f"{path}:1", trouble + (" (--sampler)" if sampler else "")
        )
    _check_feasible_choices(r, space, adapter)
    if r.problems:
        raise SpaceError(r.problems)
    for metric in space.unmeasured:
        space.warnings.append(f"{space.path}: the {adapter.name} trainer does not log `{metric}`: its limit is skipped")
    for key in space.tuned_keys:
        active, why = adapter.knob_status(key, device, trial.world_size)
        if not active:
            space.warnings.append(f"{space.base_where.get(key) or _where_of(space, key)}: `{key}` is inert here: {why}")
    return space


def _base_config(r: _Reader, raw: Any, trainer: str, path: Path) -> list[str]:
    """The builtin trainer's presets (bare names, or files relative to the space file)."""
    if trainer != "builtin":
        return []  # presets of the builtin trainer only
    names = ["cpu_tiny"] if raw is None else [raw] if isinstance(raw, str) else raw
    if not isinstance(names, list) or not all(isinstance(n, str) for n in names):
        r.error(
            r.at("base_config"), f"`base_config` must be a preset name or a list of them (e.g. [cpu_tiny]), got {raw!r}"
        )
        return ["cpu_tiny"]
    out = []
    for name in names:
        beside = path.parent / name
        candidate = str(beside) if beside.is_file() else name
        try:
            resolve_preset(candidate)
        except ConfigError as exc:
            r.error(r.at("base_config"), f"`base_config`: {exc}")
            continue
        out.append(candidate)
    return out


def _sampler(r: _Reader, raw: Any, override: str | None) -> SamplerSettings:
    if override is None:
        return r.settings(SamplerSettings, raw, "sampler")
    settings = r.mapping(raw, "sampler")
    return r.settings(SamplerSettings, {**settings, "name": override}, "sampler")


def _top(r: _Reader, tree: Any) -> dict[str, Any]:
    """The file's sections; a space is a non-empty mapping."""
    if tree is None or tree == {}:
        r.error(f"{r.path}:1", "the file is empty: a space needs at least `params:` (see search_spaces/fsdp3d.yaml)")
        raise SpaceError(r.problems)
    if not isinstance(tree, dict):
        r.error(
            f"{r.path}:1",
            f"a search space is a mapping of sections (name, base, params, ...), got a {type(tree).__name__}; "
            "see search_spaces/fsdp3d.yaml",
        )
        raise SpaceError(r.problems)
    return tree


def _name(r: _Reader, raw: Any, path: Path) -> str:
    name = path.stem if raw is None else raw
    trouble = study_name_problem(name)
    if trouble:
        r.error(r.at("name") if raw is not None else f"{path}:1", f"`name`: {trouble}")
        return "invalid"
    return str(name)


def _trials(r: _Reader, raw: Any) -> int:
    if isinstance(raw, bool) or not isinstance(raw, int) or raw < 1:
        r.error(r.at("trials"), f"`trials` must be a whole number >= 1 (finished trials per sweep), got {raw!r}")
        return 1
    return raw


def _env(r: _Reader, raw: Any) -> dict[str, str]:
    env: dict[str, str] = {}
    for name, value in r.mapping(raw, "env").items():
        trouble = env_name_problem(name) or env_value_problem(str(name), value)
        if trouble:
            r.error(r.at("env", str(name)), f"env: {trouble}")
            continue
        env[name] = str(value).lower() if isinstance(value, bool) else str(value)
    return env


def _where_of(space: Space, key: str) -> str:
    for p in space.params:
        if p.name == key:
            return p.where
    for d in space.derived:
        if d.key == key:
            return d.where
    return space.path


def _baseline(r: _Reader, raw: Any, params: list[Param], keys: dict[str, Any]) -> dict[str, Any]:
    """Trial 0's values: given ones, else verl's default for the key (when it lies in the domain)."""
    given = r.mapping(raw, "baseline")
    by_name = {p.name: p for p in params}
    out: dict[str, Any] = {}
    for name, value in given.items():
        if name not in by_name:
            r.error(r.at("baseline", name), f"baseline sets `{name}`, which is not a param of this space")
            continue
        p = by_name[name]
        unset_allowed = value is None and p.type == "categorical" and None in (p.choices or ())
        if not unset_allowed and not p.contains(value):
            r.error(r.at("baseline", name), f"baseline value {value!r} of `{name}` lies outside its domain")
        out[name] = value
    for p in params:
        if p.name in out:
            continue
        default = keys[p.name].default if p.name in keys else None
        if p.name in keys and p.contains(default):
            out[p.name] = default
        elif p.is_env and p.type == "categorical" and None in (p.choices or ()):
            out[p.name] = None
        elif p.when:
            continue  # conditional: only needed when its condition holds at the baseline
        else:
            r.error(
                p.where,
                f"baseline: no value for `{p.name}` and no verl default in its domain; set `baseline.{p.name}`",
            )
    return out


def _check_feasible_choices(r: _Reader, space: Space, adapter: TrainerAdapter) -> None:
    """The baseline must pass the constraints and the trainer's own checks, and every categorical
    choice must be able to (tried with the other params at their baseline values)."""
    from autotune.adapters.base import InvalidConfig
    from autotune.space.sampling import ConstraintViolation, check_constraints, holds, materialize

    try:
        defaults = adapter.defaults(space.base_config)
    except ConfigError as exc:  # a preset file with problems of its own
        r.error(r.at("base_config"), f"`base_config`: {exc}")
        return
    key_types = {k: info.type for k, info in adapter.keys().items()}

    def problem(params: dict[str, Any], quick: bool = True) -> str | None:
        try:
            config = materialize(space, params, defaults, key_types)
            check_constraints(space, config, defaults)
            checker = adapter.quick_check if quick else adapter.check
            checker(space.base_config, config.flat, space.trial.world_size)
        except (ConstraintViolation, InvalidConfig) as exc:
            return str(exc)
        return None

    baseline_problem = problem(space.baseline, quick=False)
    if baseline_problem:
        r.error(r.at("baseline"), f"the baseline is not a valid trial: {baseline_problem}")
        return
    context = {**defaults, **space.base, **space.baseline}
    for p in space.params:
        if p.type != "categorical" or not holds(p.when, context):
            continue
        for choice in p.choices or ():
            trouble = problem({**space.baseline, p.name: choice})
            if trouble:
                r.error(p.where, f"param `{p.name}`: choice {choice!r} can never run here: {trouble}")


def _with_trainer(text: str, trainer: str | None) -> str:
    """The space text as it will be stored with the study, `trainer:` overridden if asked."""
    import re

    if trainer is None:
        return text
    if re.search(r"(?m)^trainer:.*$", text):
        return re.sub(r"(?m)^trainer:.*$", f"trainer: {trainer}", text, count=1)
    return f"trainer: {trainer}\n{text}"
