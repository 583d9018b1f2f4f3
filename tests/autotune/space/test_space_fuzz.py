"""Fuzzing the space loader: random mutations of the shipped CPU space either load as a valid space
or are refused with every problem located (file:line) — never a traceback, never a hang."""

from __future__ import annotations

import json
import re
import tempfile
import time
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from autotune.space.loader import SPACE_DIR, SpaceError, load_space
from autotune.space.schema import Space

SHIPPED = (SPACE_DIR / "fsdp3d.yaml").read_text().splitlines()
HOSTILE_VALUES = (
    "-1", "0", "1e999", ".nan", "many", "null", "~", "[]", "{}", "[1, [2, [3]]]", "true", "''", '"\\0"',
    "!!python/name:os.system", "!!binary aGk=", "*missing", "&a 1", "{a: *a}", "2001-01-01", "0x10", "'a: b'",
    "|\n  text", "[null, Simple, 3]", "{type: int, low: 5, high: 1}", "{type: float, low: 0, high: 1, log: true}",
    "\t1", "../../etc", "ÿþ", "a=b", "{when: {x: 1}}",
)  # fmt: skip
LOCATED = re.compile(r"^\S+\.yaml:\d+: \S")


def _replace_value(lines: list[str], index: int, value: str) -> list[str]:
    line = lines[index]
    if ":" not in line:
        return [*lines[:index], value, *lines[index + 1 :]]
    head = line[: line.index(":") + 1]
    return [*lines[:index], f"{head} {value}", *lines[index + 1 :]]


@st.composite
def mutated(draw: st.DrawFn) -> str:
    lines = list(SHIPPED)
    for _ in range(draw(st.integers(1, 3))):
        if not lines:
            break
        i = draw(st.integers(0, len(lines) - 1))
        op = draw(st.sampled_from(["value", "drop", "duplicate", "swap", "indent", "chars", "truncate"]))
        if op == "value":
            lines = _replace_value(lines, i, draw(st.sampled_from(HOSTILE_VALUES)))
        elif op == "drop":
            del lines[i]
        elif op == "duplicate":
            lines.insert(i, lines[i])
        elif op == "swap":
            j = draw(st.integers(0, len(lines) - 1))
            lines[i], lines[j] = lines[j], lines[i]
        elif op == "indent":
            lines[i] = draw(st.sampled_from(["  ", "\t", " "])) + lines[i] if draw(st.booleans()) else lines[i].lstrip()
        elif op == "chars":
            pos = draw(st.integers(0, len(lines[i])))
            junk = draw(st.text(alphabet=":{}[]&*!|>#'\"-,? \t%@`", min_size=1, max_size=3))
            lines[i] = lines[i][:pos] + junk + lines[i][pos:]
        else:
            lines = lines[:i]
    return "\n".join(lines) + "\n"


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow], derandomize=True)
@given(text=mutated())
def test_mutated_spaces_load_or_fail_located(text: str) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "fuzz.yaml"
        path.write_text(text)
        start = time.monotonic()
        try:
            space = load_space(str(path), device="cpu")
        except SpaceError as exc:
            assert exc.problems
            for problem in exc.problems:
                assert LOCATED.match(problem), f"unlocated problem {problem!r} for:\n{text}"
        else:
            assert isinstance(space, Space) and space.params and space.trials >= 1
        assert time.monotonic() - start < 30.0, "loading a space must never hang"


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow], derandomize=True)
@given(text=mutated())
def test_mutated_spaces_that_load_round_trip_through_json(text: str) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "fuzz.yaml"
        path.write_text(text)
        try:
            space = load_space(str(path), device="cpu")
        except SpaceError:
            return
    assert Space.from_data(json.loads(json.dumps(space.to_data(), allow_nan=False))) == space
