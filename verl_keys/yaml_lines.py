"""YAML that remembers where each key was written, so errors can name file:line.

Nested mappings and dotted keys are both accepted and flattened to dotted keys
(``a: {b: 1}`` and ``a.b: 1`` are the same key).
"""

from __future__ import annotations

import copy
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml


@dataclass(frozen=True)
class Located:
    """A value and where it was written ("file.yaml:14", or "override 'k=v'")."""

    value: Any
    where: str


class YamlError(ValueError):
    """A file that is not valid YAML, or not a mapping where one is required."""


MAX_FILE_BYTES = 1 << 20
"""A config or space file is a few KB; anything past 1 MiB is not one."""
MAX_NODES = 100_000
"""Nodes built from one file: anchors and aliases can expand a small file exponentially."""
MAX_DEPTH = 64
"""Nesting depth of one file (PyYAML composes recursively: deeper input ends in RecursionError)."""


def _node_where(path: str, node: yaml.Node) -> str:
    return f"{path}:{node.start_mark.line + 1}"


def yaml_error(path: str, exc: yaml.YAMLError) -> YamlError:
    """PyYAML's error as `file:line: rule; fix` (its own text has neither the file nor a fix)."""
    mark = getattr(exc, "problem_mark", None) or getattr(exc, "context_mark", None)
    line = f":{mark.line + 1}" if mark is not None else ""
    problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
    context = getattr(exc, "context", None)
    text = f"{problem} ({context})" if context else str(problem)
    if "\t" in text or "\\t" in text:  # PyYAML quotes the tab it found as '\t'
        fix = "indent with spaces: YAML does not allow tabs for indentation"
    elif isinstance(exc, yaml.constructor.ConstructorError):
        fix = "only plain YAML is read: remove the `!!`/`!` tag and write the value itself"
    else:
        fix = "check the indentation and the `key: value` syntax on that line and the one before"
    return YamlError(f"{path}{line}: not valid YAML: {text}; fix: {fix}")


def _read_text(path: str | Path) -> str:
    p = Path(path)
    try:
        size = p.stat().st_size
        if size > MAX_FILE_BYTES:
            raise YamlError(f"{path}:1: file is {size} bytes; a YAML config is at most {MAX_FILE_BYTES} bytes")
        data = p.read_bytes()
    except OSError as exc:
        raise YamlError(f"{path}:1: cannot read the file: {exc.strerror or exc}") from None
    if b"\0" in data:
        raise YamlError(f"{path}:1: not a text file (it contains NUL bytes); give a YAML file")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        raise YamlError(f"{path}:{line}: not UTF-8 text ({exc.reason}); save the file as UTF-8 YAML") from None


def _check_depth(path: str, text: str) -> None:
    """Refuse deep nesting from the event stream, which PyYAML produces without recursion (its
    composer recurses once per level: thousands of levels end in RecursionError, slowly)."""
    depth = 0
    try:
        for event in yaml.parse(text, Loader=yaml.SafeLoader):
            if isinstance(event, yaml.CollectionStartEvent):
                depth += 1
                if depth > MAX_DEPTH:
                    line = event.start_mark.line + 1 if event.start_mark else 1
                    raise YamlError(f"{path}:{line}: nested more than {MAX_DEPTH} levels deep; a config nests a few")
            elif isinstance(event, yaml.CollectionEndEvent):
                depth -= 1
    except yaml.YAMLError as exc:
        raise yaml_error(path, exc) from None


def load_tree(path: str | Path) -> tuple[Any, dict[tuple[str, ...], str]]:
    """Parse a YAML file into Python objects plus `where` for every mapping key path.

    Hostile input ends in a located YamlError, never a hang or a traceback: the file size, the
    nesting depth and the number of nodes built (alias expansion) are bounded, keys must be scalars,
    and only plain YAML types are constructed (no `!!python/...` tags).
    """
    text = _read_text(path)
    _check_depth(str(path), text)
    loader = yaml.SafeLoader(text)
    try:
        root = loader.get_single_node()
    except RecursionError:
        raise YamlError(f"{path}:1: nested deeper than Python can parse; a config nests a few levels") from None
    except yaml.YAMLError as exc:
        raise yaml_error(str(path), exc) from None
    finally:
        loader.dispose()
    where: dict[tuple[str, ...], str] = {}
    if root is None:
        return {}, where
    builder = yaml.SafeLoader("")
    built = [0]

    def scalar(node: yaml.Node) -> Any:
        try:
            return builder.construct_object(node, deep=True)
        except yaml.YAMLError as exc:
            raise yaml_error(str(path), exc) from None

    def build(node: yaml.Node, prefix: tuple[str, ...]) -> Any:
        built[0] += 1
        if built[0] > MAX_NODES:
            raise YamlError(
                f"{_node_where(str(path), node)}: the file expands to more than {MAX_NODES} values "
                "(anchors and aliases repeated); write the values out, without `*alias` chains"
            )
        if len(prefix) > MAX_DEPTH:
            raise YamlError(
                f"{_node_where(str(path), node)}: nested more than {MAX_DEPTH} levels deep; a config nests a few"
            )
        if isinstance(node, yaml.MappingNode):
            out: dict[str, Any] = {}
            for key_node, value_node in node.value:
                if not isinstance(key_node, yaml.ScalarNode):
                    raise YamlError(
                        f"{_node_where(str(path), key_node)}: a key must be a plain name, got a "
                        f"{'list' if isinstance(key_node, yaml.SequenceNode) else 'mapping'}"
                    )
                if key_node.tag == "tag:yaml.org,2002:merge":
                    raise YamlError(f"{_node_where(str(path), key_node)}: `<<` merge keys are not supported; "
                                    "write the keys out")  # fmt: skip
                key = key_node.value  # as written: an env variable `ON:` is named ON, not True (audit 29 F5)
                if key in out:
                    raise YamlError(f"{_node_where(str(path), key_node)}: key {key!r} appears twice")
                where[(*prefix, key)] = _node_where(str(path), key_node)
                out[key] = build(value_node, (*prefix, key))
            return out
        if isinstance(node, yaml.SequenceNode):
            return [build(item, (*prefix, str(i))) for i, item in enumerate(node.value)]
        return scalar(node)

    try:
        return build(root, ()), where
    except RecursionError:
        raise YamlError(f"{path}:1: nested deeper than Python can parse; a config nests a few levels") from None


def flatten(tree: dict[str, Any], where: dict[tuple[str, ...], str], source: str) -> dict[str, Located]:
    """Nested/dotted mapping -> {dotted key: Located}. Lists and empty dicts are leaf values."""
    out: dict[str, Located] = {}

    def walk(node: dict[str, Any], prefix: tuple[str, ...], dotted: str) -> None:
        for key, value in node.items():
            full = f"{dotted}.{key}" if dotted else key
            loc = where.get((*prefix, key), source)
            if isinstance(value, dict) and value:
                walk(value, (*prefix, key), full)
            else:
                out[full] = Located(value, loc)

    walk(tree, (), "")
    return out


def load_flat(path: str | Path) -> dict[str, Located]:
    """A YAML mapping file as {dotted key: Located}.

    Parsed once per version of the file (path, size, modification time) in a process: checking a
    space reads the same preset files once for every choice of every knob. A copy comes back, so a
    caller may change it freely.
    """
    try:
        st = os.stat(path)
    except OSError:
        return _parse_flat(path)  # load_tree names the file and the problem
    key = (str(path), st.st_size, st.st_mtime_ns)
    if key not in _FLAT:
        _FLAT[key] = _parse_flat(path)
    return copy.deepcopy(_FLAT[key])


def _parse_flat(path: str | Path) -> dict[str, Located]:
    tree, where = load_tree(path)
    if not isinstance(tree, dict):
        raise YamlError(f"{path}: expected a mapping of config keys at the top level, got {type(tree).__name__}")
    return flatten(tree, where, str(path))


_FLAT: dict[tuple[str, int, int], dict[str, Located]] = {}


def parse_override(text: str) -> tuple[str, Located]:
    """`key=value` with the value read as a YAML scalar (true, 3, 0.5, null, [1, 2])."""
    key, sep, raw = text.partition("=")
    if not sep or not key.strip():
        raise YamlError(f"override {text!r} is not of the form key=value (e.g. trainer.total_training_steps=20)")
    try:
        value = yaml.safe_load(raw) if raw.strip() else ""
    except yaml.YAMLError:
        value = raw
    return key.strip(), Located(RawScalar(raw, value), f"override '{text}'")


@dataclass(frozen=True)
class RawScalar:
    """An override's text and its YAML reading; a str-typed key keeps the text as written."""

    text: str
    parsed: Any
