"""How a trainer run ends: distinct exit codes and one parseable reason line on stderr.

The reason line is ``trainer: FAILED <reason> rank=<r> step=<s>: <detail>``. Under torchrun the
job's own exit status is 1 whatever went wrong (torchrun's "Root Cause" block shows the rank's
code); the reason line is what the autotune controller reads.
"""

from __future__ import annotations

import enum
import sys
import time
from typing import TYPE_CHECKING

from trainer.metric_names import REASON_PREFIX

if TYPE_CHECKING:
    import torch


class ExitCode(enum.IntEnum):
    OK = 0
    CRASH = 1
    CONFIG = 2
    NAN = 3
    OOM = 4
    PEER_LOST = 5


REASONS = {ExitCode.CRASH: "crash", ExitCode.NAN: "nan", ExitCode.OOM: "oom", ExitCode.PEER_LOST: "peer_lost"}


class NonFiniteError(RuntimeError):
    """A loss or gradient norm that is NaN or Inf."""


class InjectedFault(RuntimeError):
    """A failure injected by `builtin.fault` (tests only)."""


_PEER_MARKERS = (
    "connection closed",
    "connection reset",
    "broken pipe",
    "nccl",
    "timed out",
    "timeout",
    "peer",
)


def classify(exc: BaseException) -> ExitCode:
    import torch

    if isinstance(exc, NonFiniteError):
        return ExitCode.NAN
    if isinstance(exc, (MemoryError, torch.OutOfMemoryError)):
        return ExitCode.OOM
    text = str(exc).lower()
    if isinstance(exc, (RuntimeError, dist_error_types())) and any(m in text for m in _PEER_MARKERS):
        return ExitCode.PEER_LOST
    return ExitCode.CRASH


def dist_error_types() -> tuple[type[BaseException], ...]:
    import torch

    errors: list[type[BaseException]] = []
    for name in ("DistError", "DistBackendError", "DistNetworkError", "DistStoreError"):
        err = getattr(torch.distributed, name, None)
        if isinstance(err, type):
            errors.append(err)
    return tuple(errors)


def report(code: ExitCode, rank: int, step: int, detail: str) -> None:
    line = " ".join(detail.split())[:400]
    print(
        f"{REASON_PREFIX}{REASONS.get(code, 'crash')} rank={rank} step={step}: {line}",
        file=sys.stderr,
        flush=True,
    )


def inject(
    kind: str, step: int, at_step: int, rank: int, my_rank: int, loss: torch.Tensor | None = None
) -> torch.Tensor | None:
    """Fire the configured test fault on its rank and step; a NaN fault poisons the returned loss."""
    if kind == "none" or step != at_step or rank != my_rank:
        return loss
    if kind == "nan" and loss is not None:
        return loss * float("nan")
    if kind == "oom":
        import torch

        raise torch.OutOfMemoryError("injected out-of-memory (builtin.fault.kind=oom)")
    if kind == "crash":
        raise InjectedFault("injected crash (builtin.fault.kind=crash)")
    if kind == "hang":
        while True:
            time.sleep(3600)
    return loss
