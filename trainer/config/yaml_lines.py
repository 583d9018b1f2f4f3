"""YAML that remembers where each key was written, so errors can name file:line.

Nested mappings and dotted keys are both accepted and flattened to dotted keys
(``a: {b: 1}`` and ``a.b: 1`` are the same key).
"""

from __future__ import annotations

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


def _node_where(path: str, node: yaml.Node) -> str:
    return f"{path}:{node.start_mark.line + 1}"


def load_tree(path: str | Path) -> tuple[Any, dict[tuple[str, ...], str]]:
    """Parse a YAML file into Python objects plus `where` for every mapping key path."""
    text = Path(path).read_text()
    loader = yaml.SafeLoader(text)
    try:
        root = loader.get_single_node()
    except yaml.YAMLError as exc:
        raise YamlError(f"{path}: not valid YAML: {exc}") from exc
    finally:
        loader.dispose()
    where: dict[tuple[str, ...], str] = {}
    if root is None:
        return {}, where
    builder = yaml.SafeLoader("")

    def build(node: yaml.Node, prefix: tuple[str, ...]) -> Any:
        if isinstance(node, yaml.MappingNode):
            out: dict[str, Any] = {}
            for key_node, value_node in node.value:
                key = str(builder.construct_object(key_node, deep=True))
                if key in out:
                    raise YamlError(f"{_node_where(str(path), key_node)}: key {key!r} appears twice")
                where[(*prefix, key)] = _node_where(str(path), key_node)
                out[key] = build(value_node, (*prefix, key))
            return out
        if isinstance(node, yaml.SequenceNode):
            return [build(item, (*prefix, str(i))) for i, item in enumerate(node.value)]
        return builder.construct_object(node, deep=True)

    return build(root, ()), where


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
    """A YAML mapping file as {dotted key: Located}."""
    tree, where = load_tree(path)
    if not isinstance(tree, dict):
        raise YamlError(f"{path}: expected a mapping of config keys at the top level, got {type(tree).__name__}")
    return flatten(tree, where, str(path))


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
