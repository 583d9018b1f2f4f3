"""Reading a space file: the bounded YAML reader, and the `Reader` that locates and collects problems.

The file itself is read by `trainer.config.yaml_lines.load_tree`, which bounds hostile input (size,
nesting, alias expansion, tags). Here the sections are checked to be a mapping of known names
holding plain values, and every later problem is collected as 'file:line: message' so the user
sees all of them in one run.
"""

from __future__ import annotations

import dataclasses
import difflib
import math
from pathlib import Path
from typing import Any

from verl_keys.keys import coerce
from verl_keys.yaml_lines import YamlError, load_tree

TOP_LEVEL = (
    "name", "trainer", "command", "base_config", "base", "env", "trial", "params", "derived", "constraints",
    "objectives", "limits", "baseline", "confirm", "sampler", "trials", "sim", "quality",
)  # fmt: skip

RENAMED = {
    "pruner_warmup_steps": "the pruner now decides once, at `sampler.prune_at` (a fraction of `trial.steps`, "
    "e.g. prune_at: 0.5)",
}
"""Settings of earlier versions, with what replaced them."""

_SETTING_TYPES: dict[str, Any] = {"int": int, "float": float, "int | None": int | None, "float | None": float | None}
"""Annotations of settings fields that are coerced from YAML (the rest are checked by the dataclass)."""


class SpaceError(ValueError):
    """A search-space file with problems; `problems` lists each as 'file:line: message'."""

    def __init__(self, problems: list[str]) -> None:
        self.problems = problems
        super().__init__("\n".join(problems))


class Reader:
    """Collects problems while parsing, so the user sees every one in a single run."""

    def __init__(self, path: str, where: dict[tuple[str, ...], str]) -> None:
        self.path = path
        self.where = where
        self.problems: list[str] = []

    def at(self, *keys: str) -> str:
        """file:line of the deepest of `keys` the file wrote (the file's first line if none)."""
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

    def sequence(self, value: Any, key: str) -> list[Any]:
        if value is None:
            return []
        if not isinstance(value, list):
            self.error(self.at(key), f"`{key}` must be a list, got {type(value).__name__}")
            return []
        return value

    def settings(self, cls: type, value: Any, key: str) -> Any:
        """A settings dataclass from a mapping, type-checked field by field; its own rules
        (`__post_init__`) are reported at the setting they name."""
        raw = self.mapping(value, key)
        kwargs = self._setting_values(cls, raw, key)
        told = {n for n in raw if any(f"`{key}.{n}`" in p for p in self.problems)}  # a wrong type, a NaN
        try:
            return cls(**kwargs)
        except ValueError as exc:
            for message in getattr(exc, "problems", None) or [str(exc)]:  # each at the setting it names
                if any(f"`{key}.{n}`" in message for n in told):  # about a value already said to be wrong (its
                    continue  # default stood in: "must be <= `quality.steps` (150)" for a file without 150)
                mentioned = [n for n in kwargs if f"`{key}.{n}`" in message]
                named = min(mentioned, key=lambda n: message.index(f"`{key}.{n}`")) if mentioned else None
                self.error(self.at(key, named) if named else self.at(key), message)
            return cls()

    def _setting_values(self, cls: type, raw: dict[str, Any], key: str) -> dict[str, Any]:
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
            tp = _SETTING_TYPES.get(str(fields[name].type), Any)
            try:
                kwargs[name] = coerce(item, tp) if tp is not Any else item
            except TypeError as exc:
                self.error(self.at(key, name), f"`{key}.{name}` {exc}, got {item!r}")
        return kwargs


def read_space_file(path: Path) -> tuple[Reader, dict[str, Any]]:
    """The file's sections and a Reader over its lines; unreadable or non-mapping files raise SpaceError."""
    try:
        tree, where = load_tree(path)
    except YamlError as exc:
        raise SpaceError([str(exc)]) from None
    r = Reader(str(path), where)
    top = _top(r, tree)
    for key in top:
        if key not in TOP_LEVEL:
            close = difflib.get_close_matches(key, TOP_LEVEL, n=1)
            hint = f"did you mean `{close[0]}`?" if close else "a space has " + ", ".join(f"`{k}`" for k in TOP_LEVEL)
            r.error(r.at(key), f"unknown section `{key}`; {hint}")
    _check_plain(r, top, ())
    return r, top


def _top(r: Reader, tree: Any) -> dict[str, Any]:
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


def _check_plain(r: Reader, value: Any, keys: tuple[str, ...]) -> None:
    """Only values a study can store are read: YAML's dates, binary, sets and ordered pairs are not
    settings of anything, and NaN equals nothing, not even itself."""
    if isinstance(value, dict):
        for key, item in value.items():
            _check_plain(r, item, (*keys, key))
    elif isinstance(value, list):
        for i, item in enumerate(value):
            _check_plain(r, item, (*keys, str(i)))
    elif isinstance(value, float) and math.isnan(value):
        r.error(r.at(*keys), f"`{'.'.join(keys)}`: NaN is not a setting; write a number")
    elif value is not None and not isinstance(value, (str, int, float, bool)):
        r.error(
            r.at(*keys),
            f"`{'.'.join(keys)}`: a {type(value).__name__} ({value!r}) is not a setting; write a string "
            "(in quotes), a number, true/false or null",
        )
