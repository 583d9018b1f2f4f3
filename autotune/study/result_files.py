"""How a study's conclusions are kept as JSON files: NaN as null (a browser's `JSON.parse` refuses a bare
NaN), fields a newer writer added left out when read, and a file that cannot be read named with how to
measure it again. Used by the conclusions' owners: `confirmation_result.py`, `ablation_result.py` (explanation, ablation),
`quality_result.py` and `predicted_winner.py`.
"""

from __future__ import annotations

import dataclasses
import json
import math
from pathlib import Path
from typing import Any, ClassVar, TypeVar

from autotune.study.storage import StudyPaths
from autotune.trial.record import write_json


class ResultsFileError(ValueError):
    """A conclusions file that exists but cannot be read: the message says how to measure it again."""


T = TypeVar("T")


def same_figure(a: float, b: float) -> bool:
    """Equal as stored figures (both NaN counts as equal: a file written before the figure was kept)."""
    return (math.isnan(a) and math.isnan(b)) or math.isclose(a, b, rel_tol=1e-9)


def fields_of(obj: Any, skip: tuple[str, ...] = ()) -> dict[str, Any]:
    return {f.name: getattr(obj, f.name) for f in dataclasses.fields(obj) if f.name not in skip}


def build_from(cls: type[T], data: dict[str, Any]) -> T:
    """`cls` from a file's mapping: keys it does not know are left out (a newer writer's additions), and a
    number the file holds as null (`_null_for_nan`) is NaN again where the field is a float."""
    types = {f.name: str(f.type) for f in dataclasses.fields(cls)}  # type: ignore[arg-type]
    return cls(**{k: _nan_for_null(types[k], v) for k, v in data.items() if k in types})


def null_for_nan(value: Any) -> Any:
    """A result's data with NaN as null: strict JSON (a browser's `JSON.parse`) refuses a bare NaN."""
    if isinstance(value, float) and math.isnan(value):
        return None
    if isinstance(value, dict):
        return {k: null_for_nan(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [null_for_nan(v) for v in value]
    return value


def _nan_for_null(annotation: str, value: Any) -> Any:
    """Undo `_null_for_nan` for a field annotated `annotation` (files with a bare NaN read as they are)."""
    if value is None:
        return math.nan if annotation == "float" else None
    if annotation == "list[float]" and isinstance(value, list):
        return [math.nan if v is None else v for v in value]
    if annotation.startswith("dict[str, float]") and isinstance(value, dict):
        return {k: math.nan if v is None else v for k, v in value.items()}
    if annotation.startswith("tuple[float") and isinstance(value, (list, tuple)):
        return tuple(math.nan if v is None else v for v in value)
    return value


def read_file(path: Path, parse: Any, how: str) -> Any:
    try:
        text = path.read_text()
    except FileNotFoundError:
        return None
    try:
        return parse(json.loads(text))
    except (ValueError, KeyError, TypeError, AttributeError) as exc:
        raise ResultsFileError(f"{path}: cannot be read ({type(exc).__name__}: {exc}); {how}") from None


C = TypeVar("C", bound="Conclusion")


class Conclusion:
    """A study's conclusion, kept in one JSON file under its folder (`FILE`): written with NaN as null, read back
    (None when it has not been written; a file that cannot be read says how to measure it again, `redo`)."""

    FILE: ClassVar[str]

    def to_json(self) -> dict[str, Any]:
        raise NotImplementedError

    @classmethod
    def from_json(cls: type[C], data: dict[str, Any]) -> C:
        raise NotImplementedError

    @classmethod
    def redo(cls, paths: StudyPaths) -> str:
        """How a file that cannot be read is measured again (said in the error)."""
        raise NotImplementedError

    @classmethod
    def file(cls, paths: StudyPaths) -> Path:
        return paths.root / cls.FILE

    def write(self, paths: StudyPaths) -> None:
        write_json(self.file(paths), null_for_nan(self.to_json()))

    @classmethod
    def read(cls: type[C], paths: StudyPaths) -> C | None:
        return read_file(cls.file(paths), cls.from_json, cls.redo(paths))  # type: ignore[no-any-return]
