"""The digit-sorting reward as a verl custom reward function (`reward.custom_reward_function`)."""

from __future__ import annotations

import re
from typing import Any

SPECIAL = re.compile(r"<[^<>\s]+>")


def symbols(text: str) -> list[str]:
    """A decoded response as task symbols: `"9 7 3<eos>"` and `"973"` both give ["9", "7", "3"].

    Everything from `<eos>` on is dropped; `<pad>`/`<bos>` are dropped; any other `<...>` symbol is
    one (wrong) token; every other non-space character is one token (the task's digits and `=`
    are single characters, and a Qwen2 tokenizer decodes them without spaces).
    """
    body = text.split("<eos>")[0]
    out: list[str] = []
    for piece in re.split(r"(<[^<>\s]+>)", body):
        if SPECIAL.fullmatch(piece):
            if piece not in ("<pad>", "<bos>"):
                out.append(piece)
        else:
            out.extend(ch for ch in piece if not ch.isspace())
    return out


def compute_score(data_source: str, solution_str: str, ground_truth: str, extra_info: Any = None, **_: Any) -> float:
    """Partial credit, as `trainer.task.score`: correct positions / max(answer length, response length)."""
    body = symbols(solution_str)
    want = ground_truth.split()
    hits = sum(1 for got, exp in zip(body, want, strict=False) if got == exp)
    return hits / max(len(want), len(body), 1)
