"""verl's dotted-key vocabulary, shared by the trainer's config loader and the controller's space
loader: a typed value checked against an annotation, the closest valid key for a typo, and nested
mappings to dotted keys and back. Nothing here knows a schema."""

from __future__ import annotations

import difflib
import types
import typing
from collections.abc import Iterable
from typing import Any, Literal, get_args, get_origin

from verl_keys.yaml_lines import RawScalar

LEAF_CUTOFF = 0.6
"""How alike a suggestion's last name must be to the key's (difflib's ratio) when the whole keys are alike only
through the section they share: `reward_model.overlong_buffer.len` is 0.63 like `reward_model.rollout.name` as a
whole, 0.29 by its last name, and was suggested it (audit 37 F13)."""

WHOLE_CUTOFF = 0.85
"""How alike two whole keys must be for a suggestion whatever their last names (a misspelt section)."""


def suggest_key(key: str, valid: Iterable[str]) -> str | None:
    """The closest valid dotted key: same leaf name elsewhere first, then by spelling; None where nothing is
    close (a key alike only by the section it is in, `LEAF_CUTOFF`, is no suggestion)."""
    valid = list(valid)
    leaf = key.rsplit(".", 1)[-1]
    same_leaf = [k for k in valid if k.rsplit(".", 1)[-1] == leaf]
    if len(same_leaf) >= 1:
        return difflib.get_close_matches(key, same_leaf, n=1, cutoff=0.0)[0]
    close = difflib.get_close_matches(key, valid, n=1, cutoff=0.6)
    if close and (
        difflib.SequenceMatcher(None, leaf, close[0].rsplit(".", 1)[-1]).ratio() >= LEAF_CUTOFF
        or difflib.SequenceMatcher(None, key, close[0]).ratio() >= WHOLE_CUTOFF
    ):
        return close[0]
    leaves = {k.rsplit(".", 1)[-1]: k for k in valid}
    close_leaf = difflib.get_close_matches(leaf, list(leaves), n=1, cutoff=0.75)
    return leaves[close_leaf[0]] if close_leaf else None


def _type_name(tp: Any) -> str:
    origin = get_origin(tp)
    if origin is Literal:
        return "one of " + ", ".join(repr(a) for a in get_args(tp))
    if origin in (types.UnionType, typing.Union):
        return " or ".join(_type_name(a) for a in get_args(tp))
    if tp is type(None):
        return "null"
    if origin is list:
        return f"a list of {_type_name(get_args(tp)[0])}"
    words = {float: "a number", int: "an integer", bool: "true or false", str: "a string"}
    return words.get(tp, getattr(tp, "__name__", str(tp)))


def coerce(value: Any, tp: Any) -> Any:
    """Check `value` against the annotation `tp`; returns the typed value or raises TypeError(rule)."""
    raw_text: str | None = None
    if isinstance(value, RawScalar):
        raw_text, value = value.text, value.parsed
    if tp is Any:
        return value
    if tp is list:
        if isinstance(value, list):
            return value
        raise TypeError("must be a list")
    origin = get_origin(tp)
    if origin in (types.UnionType, typing.Union):
        args = get_args(tp)
        if value is None and type(None) in args:
            return None
        errors = []
        for arg in args:
            if arg is type(None):
                continue
            try:
                return coerce(RawScalar(raw_text, value) if raw_text is not None else value, arg)
            except TypeError as exc:
                errors.append(str(exc))
        raise TypeError(f"must be {_type_name(tp)}")
    if origin is Literal:
        choices = get_args(tp)
        if value in choices:
            return value
        hint = difflib.get_close_matches(str(value), [str(c) for c in choices], n=1)
        extra = f" (did you mean {hint[0]!r}?)" if hint else ""
        raise TypeError(f"must be {_type_name(tp)}{extra}")
    if origin is list:
        if not isinstance(value, list):
            raise TypeError(f"must be {_type_name(tp)}")
        (item_tp,) = get_args(tp)
        return [coerce(v, item_tp) for v in value]
    if tp is bool:
        if isinstance(value, bool):
            return value
        raise TypeError("must be true or false")
    if tp is int:
        if isinstance(value, int) and not isinstance(value, bool):
            return value
        if isinstance(value, float) and value.is_integer():
            return int(value)
        raise TypeError("must be an integer")
    if tp is float:
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            return float(value)
        if isinstance(value, str):
            try:
                return float(value)
            except ValueError:
                pass
        raise TypeError("must be a number")
    if tp is str:
        if raw_text is not None:
            return raw_text.strip()
        if isinstance(value, str):
            return value
        raise TypeError("must be a string")
    raise TypeError(f"has unsupported type {tp}")


def to_nested(flat: dict[str, Any]) -> dict[str, Any]:
    """{dotted key: value} -> nested dicts (for YAML)."""
    out: dict[str, Any] = {}
    for key, value in flat.items():
        node = out
        *parents, leaf = key.split(".")
        for part in parents:
            node = node.setdefault(part, {})
        node[leaf] = value
    return out


def to_flat_dict(tree: dict[str, Any], prefix: str = "") -> dict[str, Any]:
    """Nested (or dotted) mapping -> {dotted key: value}; lists and empty mappings are leaves."""
    out: dict[str, Any] = {}
    for key, value in tree.items():
        full = f"{prefix}{key}"
        if isinstance(value, dict) and value:
            out.update(to_flat_dict(value, full + "."))
        else:
            out[full] = value
    return out
