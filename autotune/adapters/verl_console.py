"""Reading verl's per-step console lines back into metrics.

verl's console logger prints one line per step:

    step:3 - actor/pg_loss:0.123 - timing_s/gen:12.3 ...                        (up to v0.4)
    step:3 - actor/pg_loss:np.float64(0.12345678) - perf/mfu/actor:np.float64(0.05) ...   (v0.5+)

usually behind Ray's `(TaskRunner pid=N)` prefix (`TaskRunnerV1` in verl 0.9, ANSI-coloured),
interleaved with other processes' log lines, and sometimes wrapped over several physical lines by
a log collector, with or without the prefix repeated on the continuation. The parser keeps one
buffer per source (the prefix), joins continuation fragments (a prefix-less fragment continues the
most recent open record), and emits a record when the next line of that source is not a
continuation (or at the end). A continuation must look like part of a metrics line (a ` - `
separator, a `key:value` pair, a number's tail): a one-word log line ends the record instead.

`derive` adds the names the rest of autotune reads where verl's version uses others (verl 0.9:
`timing_s/update_weights` is the trainer-to-rollout weight sync, the builtin trainer's `reshard`;
host memory moved under the `actor/` prefix).
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from typing import Any

ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")
PREFIX = re.compile(r"^\s*\(([\w.]+(?: pid=\d+)?(?:, ip=[\d.]+)?)\)\s?")
STEP_START = re.compile(r"(?:^|\s)step:(\d+)\s+-\s")
PAIR = re.compile(r"([A-Za-z_][\w/@.\-]*):\s*(np\.\w+\([^)]*\)|[^\s]+)")
NUMBER = re.compile(r"^[-+]?(?:\d+\.?\d*(?:[eE][-+]?\d+)?|\.\d+(?:[eE][-+]?\d+)?|nan|inf|-inf)$")
FRAGMENT = re.compile(r"^[\w/@.\-:()+]*(?:\s+-\s*[\w/@.\-:()+]*|\s*-\s+[\w/@.\-:()+]*)*\s*-?\s*$")
"""A physical line made only of `key:value` fragments and ` - ` separators (a wrapped continuation)."""
NUMBER_TAIL = re.compile(r"^[\d.eE+\-]+\)?$")
DERIVED = {"timing_s/reshard": "timing_s/update_weights", "perf/cpu_memory_used_gb": "actor/perf/cpu_memory_used_gb"}
"""builtin-trainer name -> the verl 0.9 metric that measures the same phase."""


def is_continuation(body: str) -> bool:
    """Whether a physical line can be the rest of a wrapped metrics line (not a one-word log line)."""
    text = body.strip()
    if not text or not FRAGMENT.match(text):
        return False
    if " - " in f" {text} " or text.startswith("-") or text.endswith("-") or ":" in text:
        return True
    return bool(NUMBER_TAIL.match(text)) or "(" in text or ")" in text


def derive(metrics: dict[str, float]) -> dict[str, float]:
    """The metrics plus builtin-trainer names for the same measurements (never overriding verl's own)."""
    out = dict(metrics)
    for name, source in DERIVED.items():
        if name not in out and source in out:
            out[name] = out[source]
    return out


def parse_value(text: str) -> float | None:
    """`0.1`, `np.float64(0.1)`, `np.int64(3)`, `nan` -> float; anything else -> None."""
    inner = re.fullmatch(r"np\.\w+\(([^)]*)\)", text)
    if inner:
        text = inner.group(1)
    text = text.rstrip(",")
    if NUMBER.match(text):
        return float(text)
    if text in ("True", "False"):
        return 1.0 if text == "True" else 0.0
    return None


def parse_record(text: str) -> tuple[int, dict[str, float]] | None:
    """One joined console record -> (step, metrics)."""
    start = STEP_START.search(text)
    if start is None:
        return None
    step = int(start.group(1))
    metrics: dict[str, float] = {}
    for key, raw in PAIR.findall(text[start.end() :]):
        value = parse_value(raw)
        if value is not None:
            metrics[key] = value
    return step, metrics


@dataclass
class ConsoleParser:
    """Feed text as it arrives; `records()` returns the completed (step, metrics) since the last call."""

    buffers: dict[str, str] = field(default_factory=dict)
    last: str | None = None
    """The source of the most recently started record (where a prefix-less continuation goes)."""
    pending: str = ""
    done: list[tuple[int, dict[str, float]]] = field(default_factory=list)

    def feed(self, text: str) -> None:
        lines = (self.pending + text).split("\n")
        self.pending = lines.pop()
        for line in lines:
            self._line(line)

    def close(self) -> None:
        if self.pending:
            self._line(self.pending)
            self.pending = ""
        for source in list(self.buffers):
            self._flush(source)

    def records(self) -> list[tuple[int, dict[str, float]]]:
        out, self.done = self.done, []
        return out

    def _line(self, raw: str) -> None:
        line = ANSI.sub("", raw).rstrip("\r")
        prefix = PREFIX.match(line)
        source = prefix.group(1).split(",")[0] if prefix else ""
        body = line[prefix.end() :] if prefix else line
        start = STEP_START.search(body)
        if start:
            self._flush(source)
            self.buffers[source] = body[start.start() :].lstrip()
            self.last = source
            return
        target = source if source in self.buffers else None
        if target is None and prefix is None and self.last in self.buffers:
            target = self.last  # a wrap whose second half lost the prefix
        if target is not None and is_continuation(body):
            self.buffers[target] += body.rstrip() if prefix is None else body.strip()
        elif source in self.buffers:
            self._flush(source)

    def _flush(self, source: str) -> None:
        text = self.buffers.pop(source, None)
        if text is None:
            return
        record = parse_record(text)
        if record is not None:
            self.done.append((record[0], derive(record[1])))


def to_jsonable(metrics: dict[str, float]) -> dict[str, Any]:
    return {k: (None if isinstance(v, float) and math.isinf(v) else v) for k, v in metrics.items()}
