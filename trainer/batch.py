"""One training step's data: every response of the step, held by every rank.

Per-token tensors are [B, R] (B responses of the step, R = longest response of the step) with
`mask` marking real response tokens. Each phase fills in its fields: rollout the responses and
scores, the log-prob passes `old_logp`/`ref_logp`, the critic `values`, the advantage phase
`advantages`/`returns`.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import torch

from trainer import packing
from trainer.task import Prompt, score


@dataclass
class StepBatch:
    prompts: list[list[int]]
    """Prompt ids per response (a prompt appears rollout.n times, consecutively)."""
    responses: list[list[int]]
    group: torch.Tensor
    """[B] index of the prompt each response answers (GRPO groups)."""
    score: torch.Tensor
    """[B] task reward of each response."""
    mask: torch.Tensor = field(init=False)
    response_ids: torch.Tensor = field(init=False)
    old_logp: torch.Tensor | None = None
    ref_logp: torch.Tensor | None = None
    old_logp_full: torch.Tensor | None = None
    ref_logp_full: torch.Tensor | None = None
    values: torch.Tensor | None = None
    advantages: torch.Tensor | None = None
    returns: torch.Tensor | None = None

    def __post_init__(self) -> None:
        width = max(1, max(len(r) for r in self.responses))
        self.mask = torch.zeros(len(self.responses), width)
        self.response_ids = torch.zeros(len(self.responses), width, dtype=torch.long)
        for i, r in enumerate(self.responses):
            self.mask[i, : len(r)] = 1.0
            self.response_ids[i, : len(r)] = torch.tensor(r, dtype=torch.long)

    @classmethod
    def from_rollout(cls, prompts: list[Prompt], n: int, responses: list[list[int]]) -> StepBatch:
        expanded = [p for p in prompts for _ in range(n)]
        return cls(
            prompts=[list(p.ids) for p in expanded],
            responses=responses,
            group=torch.arange(len(prompts)).repeat_interleave(n),
            score=torch.tensor([score(p, r) for p, r in zip(expanded, responses, strict=True)]),
        )

    @property
    def size(self) -> int:
        return len(self.responses)

    @property
    def width(self) -> int:
        return self.mask.shape[1]

    @property
    def lengths(self) -> list[int]:
        """Prompt + response tokens per response (what micro-batch token budgets count)."""
        return [len(p) + len(r) for p, r in zip(self.prompts, self.responses, strict=True)]

    def micro_batch(self, items: list[int], remove_padding: bool) -> packing.MicroBatch:
        return packing.build(
            [self.prompts[i] for i in items], [self.responses[i] for i in items], self.width, remove_padding
        )

    def rows(self, tensor: torch.Tensor | None, items: list[int]) -> torch.Tensor:
        assert tensor is not None, "a phase read a field its producer has not filled"
        return tensor[items]
