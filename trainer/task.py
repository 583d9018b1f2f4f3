"""The built-in verifiable task: sort a list of digits in descending order.

A prompt is ``<bos> d1 d2 ... dk =`` and the correct response is the same digits sorted from
largest to smallest, then ``<eos>``. The reward is rule-based with partial credit:

    score = (# positions i < k where response[i] == target[i]) / max(k, len(response))

where ``len(response)`` counts tokens before ``<eos>`` (a response that never stops counts every
token up to the length limit). Why this task: a random policy earns a small non-zero score (≈ 1/V
per position), the first position (the maximum) is learnable within tens of PPO steps by a tiny
transformer, stopping at the right length is learnable, and the later positions leave headroom,
so KL control and clip ratios visibly matter. Responses have a natural length (k) that varies per
prompt, which is what makes dynamic batching worth tuning.
"""

from __future__ import annotations

from dataclasses import dataclass

import torch

PAD, BOS, EOS, EQ = 0, 1, 2, 3
DIGIT0 = 4
VOCAB_SIZE = 16
"""Token ids 0..15: specials, '=', the digits 0-9 at 4..13, and two unused ids."""


class DigitTokenizer:
    """The task's own tokenizer: whitespace-separated symbols <-> ids."""

    symbols = ("<pad>", "<bos>", "<eos>", "=", *(str(d) for d in range(10)), "<unused0>", "<unused1>")

    def encode(self, text: str) -> list[int]:
        index = {s: i for i, s in enumerate(self.symbols)}
        return [index[s] for s in text.split()]

    def decode(self, ids: list[int]) -> str:
        return " ".join(self.symbols[i] for i in ids)


@dataclass(frozen=True)
class Prompt:
    """One prompt: its token ids and the digits it asks to sort."""

    ids: tuple[int, ...]
    digits: tuple[int, ...]


def make_prompts(seed: int, step: int, count: int, min_digits: int, max_digits: int) -> list[Prompt]:
    """`count` prompts for a training step, a pure function of (seed, step): every rank agrees."""
    gen = torch.Generator().manual_seed(seed * 1_000_003 + step)
    lengths = torch.randint(min_digits, max_digits + 1, (count,), generator=gen).tolist()
    prompts = []
    for k in lengths:
        digits = tuple(torch.randint(0, 10, (k,), generator=gen).tolist())
        prompts.append(Prompt(ids=(BOS, *(DIGIT0 + d for d in digits), EQ), digits=digits))
    return prompts


def target(digits: tuple[int, ...]) -> list[int]:
    """The correct response tokens (without <eos>)."""
    return [DIGIT0 + d for d in sorted(digits, reverse=True)]


def score(prompt: Prompt, response: list[int]) -> float:
    """Partial-credit reward of one response (token ids, possibly ending in <eos>)."""
    body = response[: response.index(EOS)] if EOS in response else response
    want = target(prompt.digits)
    hits = sum(1 for got, exp in zip(body, want, strict=False) if got == exp)
    return hits / max(len(want), len(body))
