"""Build a `Config` from YAML layers and `key=value` overrides, with errors a user can act on.

Every error names the dotted key, where it was written (file:line or the override), the rule,
and, for an unknown key, the closest valid one.
"""

from __future__ import annotations

import dataclasses
import itertools
import typing
from collections.abc import Sequence
from functools import cache
from pathlib import Path
from typing import Any

from trainer.config.schema import Config, ConfigRuleError, FieldError
from verl_keys.keys import coerce, suggest_key, to_flat_dict, to_nested
from verl_keys.yaml_lines import Located, RawScalar, YamlError, load_flat, parse_override

__all__ = [  # the shared helpers are re-exported: the trainer's callers import them from here
    "ConfigError",
    "KeySpec",
    "build",
    "coerce",
    "collect",
    "is_builtin_only",
    "load_config",
    "raw_defaults",
    "resolve_preset",
    "schema_keys",
    "suggest_key",
    "to_flat",
    "to_flat_dict",
    "to_nested",
]

PRESET_DIR = Path(__file__).parent
DEFAULT_PRESET = "cpu_tiny"


class ConfigError(ValueError):
    """Bad user configuration; the message says what, where and how to fix it."""


@dataclasses.dataclass(frozen=True)
class KeySpec:
    """One leaf key of the schema."""

    key: str
    type: Any
    default: Any
    builtin_only: bool
    doc: str


@cache
def _hints(cls: type) -> dict[str, Any]:
    return typing.get_type_hints(cls)


def _is_dataclass_type(tp: Any) -> bool:
    return isinstance(tp, type) and dataclasses.is_dataclass(tp)


@cache
def _field_docs(cls: type) -> dict[str, str]:
    """Attribute docstrings (the string literal under each field)."""
    import ast
    import inspect
    import textwrap

    docs: dict[str, str] = {}
    for klass in reversed(cls.__mro__):
        if not dataclasses.is_dataclass(klass):
            continue
        try:
            tree = ast.parse(textwrap.dedent(inspect.getsource(klass)))
        except (OSError, TypeError):
            continue
        body = tree.body[0].body if tree.body and isinstance(tree.body[0], ast.ClassDef) else []
        for prev, node in itertools.pairwise(body):
            if (
                isinstance(prev, ast.AnnAssign)
                and isinstance(prev.target, ast.Name)
                and isinstance(node, ast.Expr)
                and isinstance(node.value, ast.Constant)
                and isinstance(node.value.value, str)
            ):
                docs[prev.target.id] = " ".join(node.value.value.split())
    return docs


@cache
def schema_keys(root: type = Config) -> dict[str, KeySpec]:
    """Every leaf key of the schema, dotted, in declaration order."""
    out: dict[str, KeySpec] = {}

    def walk(cls: type, prefix: str, inherited_builtin: bool) -> None:
        docs = _field_docs(cls)
        for fld in dataclasses.fields(cls):
            tp = _hints(cls)[fld.name]
            key = f"{prefix}{fld.name}"
            builtin = inherited_builtin or bool(fld.metadata.get("builtin_only")) or key == "builtin"
            if _is_dataclass_type(tp):
                walk(tp, key + ".", builtin)
            else:
                out[key] = KeySpec(key, tp, _leaf_default(root, key), builtin, docs.get(fld.name, ""))

    walk(root, "", False)
    return out


def _field_default(fld: dataclasses.Field[Any]) -> Any:
    if fld.default is not dataclasses.MISSING:
        return fld.default
    if fld.default_factory is not dataclasses.MISSING:
        return fld.default_factory()
    raise TypeError(f"field {fld.name} has no default")


def _leaf_default(root: type, key: str) -> Any:
    """A leaf's default as its section's default factory sets it (critic.optim.lr is 1e-5, not 1e-6)."""
    *parents, leaf = key.split(".")
    cls, obj = root, None
    for part in parents:
        fld = {f.name: f for f in dataclasses.fields(cls)}[part]
        obj = getattr(obj, part) if obj is not None else _field_default(fld)
        cls = type(obj)
    if obj is not None:
        return getattr(obj, leaf)
    return _field_default({f.name: f for f in dataclasses.fields(cls)}[leaf])


def _section_prefixes(root: type = Config) -> set[str]:
    return {k.rsplit(".", i)[0] for k in schema_keys(root) for i in range(1, k.count(".") + 1)}


def resolve_preset(name_or_path: str) -> Path:
    """A config file by path, or a packaged preset by bare name (`cpu_tiny`)."""
    path = Path(name_or_path)
    if path.exists():
        return path
    preset = PRESET_DIR / f"{name_or_path}.yaml"
    if preset.exists():
        return preset
    presets = sorted(p.stem for p in PRESET_DIR.glob("*.yaml"))
    raise ConfigError(f"config file {name_or_path!r} not found (packaged presets: {', '.join(presets)})")


HYDRA_KEYS = ("hydra", "defaults")
"""Top-level keys of hydra's composition (`hydra.searchpath`, the `defaults` list) that a verl config
file carries, as an autotune export does to compose on verl's `ppo_trainer`: they tell hydra where the
rest of verl's defaults come from. This trainer has its own defaults, so a config file's hydra keys
are accepted and ignored (an override may not set them: it has no file to compose)."""

ENV_PREFIX = "ray_kwargs.ray_init.runtime_env.env_vars."
"""How verl passes environment variables (NCCL, CUDA) to its workers; in a config file this trainer
reads them as environment variables of its own process (`file_env`), not as config keys."""


def _file_values(path: Path) -> dict[str, Located]:
    """A config file's keys, without hydra's composition keys and the environment it sets."""
    flat = load_flat(path)
    return {k: v for k, v in flat.items() if k.split(".", 1)[0] not in HYDRA_KEYS and not k.startswith(ENV_PREFIX)}


def file_env(config_files: Sequence[str]) -> dict[str, str]:
    """The environment variables the files set under verl's `ray_kwargs.ray_init.runtime_env.env_vars`
    (later files win), as strings."""
    env: dict[str, str] = {}
    try:
        for name in config_files:
            for key, located in load_flat(resolve_preset(name)).items():
                if key.startswith(ENV_PREFIX):
                    value = located.value.parsed if isinstance(located.value, RawScalar) else located.value
                    env[key.removeprefix(ENV_PREFIX)] = str(value).lower() if isinstance(value, bool) else str(value)
    except YamlError as exc:
        raise ConfigError(str(exc)) from exc
    return env


def collect(config_files: Sequence[str], overrides: Sequence[str]) -> dict[str, Located]:
    """Layer the files (in order), then the overrides, into {dotted key: Located}."""
    merged: dict[str, Located] = {}
    try:
        for name in config_files:
            merged.update(_file_values(resolve_preset(name)))
        for text in overrides:
            key, located = parse_override(text)
            merged[key] = located
    except YamlError as exc:
        raise ConfigError(str(exc)) from exc
    return merged


def check_keys(values: dict[str, Located], root: type = Config) -> None:
    """Unknown keys -> ConfigError naming the closest valid key."""
    keys = schema_keys(root)
    sections = _section_prefixes(root)
    for key, located in values.items():
        if key in keys:
            continue
        if key in sections:
            raise ConfigError(f"{located.where}: `{key}` is a section, not a value; set one of its keys (e.g. {key}.…)")
        hint = suggest_key(key, keys)
        fix = f"; did you mean `{hint}`?" if hint else ""
        raise ConfigError(f"{located.where}: unknown key `{key}`{fix}")


def build(values: dict[str, Located], root: type = Config) -> Any:
    """Typed, validated dataclass tree from flat values (unknown keys already rejected)."""
    check_keys(values, root)

    def make(cls: type, prefix: str, default: Any) -> Any:
        kwargs: dict[str, Any] = {}
        for fld in dataclasses.fields(cls):
            tp = _hints(cls)[fld.name]
            key = f"{prefix}{fld.name}"
            if _is_dataclass_type(tp):
                child_default = getattr(default, fld.name) if default is not None else _field_default(fld)
                if any(k.startswith(key + ".") for k in values):
                    kwargs[fld.name] = make(tp, key + ".", child_default)
                else:
                    kwargs[fld.name] = child_default
                continue
            if key in values:
                located = values[key]
                try:
                    kwargs[fld.name] = coerce(located.value, tp)
                except TypeError as exc:
                    shown = located.value.text if isinstance(located.value, RawScalar) else located.value
                    raise ConfigError(f"{located.where}: `{key}` {exc}, got {shown!r}") from None
            elif default is not None:
                kwargs[fld.name] = getattr(default, fld.name)
        try:
            return cls(**kwargs)
        except FieldError as exc:
            key = f"{prefix}{exc.field_name}"
            where = values[key].where + ": " if key in values else ""
            raise ConfigError(f"{where}`{key}` {exc.rule}, got {exc.value!r}") from None
        except ConfigRuleError as exc:
            where = values[exc.key].where + ": " if exc.key in values else ""
            raise ConfigError(f"{where}{exc}") from None

    return make(root, "", None)


def load_config(config_files: Sequence[str] = (), overrides: Sequence[str] = ()) -> Config:
    """The trainer's config: verl defaults <- files (or the CPU preset if none) <- overrides."""
    files = list(config_files) or [DEFAULT_PRESET]
    config = build(collect(files, overrides))
    assert isinstance(config, Config)
    return config


def to_flat(config: Any, prefix: str = "") -> dict[str, Any]:
    """A dataclass tree as {dotted key: value}."""
    out: dict[str, Any] = {}
    for fld in dataclasses.fields(config):
        value = getattr(config, fld.name)
        key = f"{prefix}{fld.name}"
        if dataclasses.is_dataclass(value):
            out.update(to_flat(value, key + "."))
        else:
            out[key] = value
    return out


def is_builtin_only(key: str) -> bool:
    """Whether a dotted key exists only in this trainer (never sent to verl)."""
    spec = schema_keys().get(key)
    return spec is not None and spec.builtin_only


def raw_defaults(config_files: Sequence[str]) -> dict[str, Any]:
    """Schema defaults overlaid with the files' values, unvalidated (for deriving values before a build)."""
    out = {key: spec.default for key, spec in schema_keys().items()}
    for key, located in collect(config_files, []).items():
        if key in out:
            out[key] = located.value
    return out
