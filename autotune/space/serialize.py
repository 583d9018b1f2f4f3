"""A space's dataclasses as plain data and back, guided by their type annotations.

Plain data is what JSON holds: str, int, float, bool, None, lists and mappings with string keys.
Tuples become lists and come back as tuples where the annotation says so. Decoding checks every
value against its annotation and builds each dataclass through its constructor, so the rules in
`__post_init__` run again: a stored space that was edited or damaged is refused with the field's
path, never half-built. Nothing here reads a file or asks a trainer.
"""

from __future__ import annotations

import dataclasses
import types
import typing
from functools import cache
from typing import Any, Literal, get_args, get_origin

FORMAT = 1
"""Version of the stored layout; bump it when a field changes meaning."""


class SpaceDataError(ValueError):
    """A stored space that does not match the layout `Space.to_data` writes."""


def to_stored(obj: Any) -> dict[str, Any]:
    """A dataclass as plain data, tagged with the layout's version."""
    return {"format": FORMAT, **encode(obj)}


def from_stored(cls: type, stored: Any) -> Any:
    """What `to_stored` wrote, as `cls` again (every value checked, every rule run)."""
    if not isinstance(stored, dict):
        raise SpaceDataError(f"stored space: expected a mapping, got {type(stored).__name__}")
    if stored.get("format") != FORMAT:
        raise SpaceDataError(
            f"stored space: `format` is {stored.get('format')!r}, this version reads format {FORMAT}; "
            "re-run the sweep with this version"
        )
    return decode(cls, {k: v for k, v in stored.items() if k != "format"}, "")


def encode(value: Any, path: str = "") -> Any:
    """`value` (dataclasses, tuples, lists, dicts, scalars) as plain data."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: encode(getattr(value, f.name), _join(path, f.name)) for f in dataclasses.fields(value)}
    if isinstance(value, (list, tuple)):
        return [encode(item, f"{path}[{i}]") for i, item in enumerate(value)]
    if isinstance(value, dict):
        for key in value:
            if not isinstance(key, str):
                raise SpaceDataError(f"`{path}`: key {key!r} is not a string; plain data has string keys")
        return {key: encode(item, _join(path, key)) for key, item in value.items()}
    if value is None or isinstance(value, (str, int, float, bool)):
        return value
    raise SpaceDataError(f"`{path}`: {value!r} ({type(value).__name__}) is not plain data")


def decode(tp: Any, value: Any, path: str) -> Any:
    """`value` read as the annotation `tp`; SpaceDataError names the path of the first mismatch."""
    origin = get_origin(tp)
    if tp is Any:
        return _plain(value, path)
    if isinstance(tp, type) and dataclasses.is_dataclass(tp):
        return _dataclass(tp, value, path)
    if origin in (types.UnionType, typing.Union):
        return _union(tp, value, path)
    if origin is Literal:
        if value not in get_args(tp):
            raise _mismatch(path, "one of " + ", ".join(repr(a) for a in get_args(tp)), value)
        return value
    if origin in (list, tuple):
        return _sequence(tp, value, path)
    if origin is dict:
        _, item_tp = get_args(tp)
        if not isinstance(value, dict) or not all(isinstance(k, str) for k in value):
            raise _mismatch(path, "a mapping with string keys", value)
        return {k: decode(item_tp, v, _join(path, k)) for k, v in value.items()}
    return _scalar(tp, value, path)


def _join(path: str, name: str) -> str:
    return f"{path}.{name}" if path else name


def _mismatch(path: str, expected: str, value: Any) -> SpaceDataError:
    return SpaceDataError(f"stored space: `{path or 'space'}` must be {expected}, got {value!r}")


@cache
def _hints(cls: type) -> dict[str, Any]:
    return typing.get_type_hints(cls)


def _dataclass(cls: type, value: Any, path: str) -> Any:
    if not isinstance(value, dict):
        raise _mismatch(path, f"a mapping of {cls.__name__} fields", value)
    fields = {f.name: f for f in dataclasses.fields(cls)}
    unknown = sorted(set(value) - set(fields))
    if unknown:
        raise SpaceDataError(
            f"stored space: unknown field `{_join(path, unknown[0])}` (fields of {cls.__name__}: {', '.join(fields)})"
        )
    missing = [
        name
        for name, f in fields.items()
        if name not in value and f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING
    ]
    if missing:
        raise SpaceDataError(f"stored space: `{_join(path, missing[0])}` is missing")
    hints = _hints(cls)
    kwargs = {name: decode(hints[name], item, _join(path, name)) for name, item in value.items()}
    try:
        return cls(**kwargs)
    except ValueError as exc:  # a rule of the dataclass
        raise SpaceDataError(f"stored space: `{path or 'space'}`: {exc}") from None


def _union(tp: Any, value: Any, path: str) -> Any:
    args = [a for a in get_args(tp) if a is not type(None)]
    if value is None and len(args) < len(get_args(tp)):
        return None
    for arg in args:
        try:
            return decode(arg, value, path)
        except SpaceDataError:
            continue
    raise _mismatch(path, " or ".join(_name(a) for a in get_args(tp)), value)


def _sequence(tp: Any, value: Any, path: str) -> Any:
    if not isinstance(value, (list, tuple)):
        raise _mismatch(path, "a list", value)
    item_tp = get_args(tp)[0]  # list[X] and tuple[X, ...] are the only sequences of a space
    items = [decode(item_tp, item, f"{path}[{i}]") for i, item in enumerate(value)]
    return tuple(items) if get_origin(tp) is tuple else items


def _scalar(tp: Any, value: Any, path: str) -> Any:
    if tp is bool:
        ok = isinstance(value, bool)
    elif tp is int:
        ok = isinstance(value, int) and not isinstance(value, bool)
    elif tp is float:
        ok = isinstance(value, (int, float)) and not isinstance(value, bool)
    elif tp is str:
        ok = isinstance(value, str)
    else:
        raise AssertionError(f"no plain-data reading for annotation {tp!r} at `{path}`")
    if not ok:
        raise _mismatch(path, _name(tp), value)
    return value


def _plain(value: Any, path: str) -> Any:
    """A value of any plain type, checked all the way down."""
    if isinstance(value, list):
        return [_plain(item, f"{path}[{i}]") for i, item in enumerate(value)]
    if isinstance(value, dict):
        if not all(isinstance(k, str) for k in value):
            raise _mismatch(path, "a mapping with string keys", value)
        return {k: _plain(v, _join(path, k)) for k, v in value.items()}
    if value is None or isinstance(value, (str, int, float, bool)):
        return value
    raise _mismatch(path, "plain data (str, int, float, bool, null, list or mapping)", value)


def _name(tp: Any) -> str:
    if tp is type(None):
        return "null"
    return {bool: "true or false", int: "an integer", float: "a number", str: "a string"}.get(tp, str(tp))
