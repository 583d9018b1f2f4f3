"""The cost model as it stood when each round of published runs was frozen, restored in place.

Each context manager swaps today's pieces of autotune/sim/ for what they were at a round's revision and puts them
back on exit, so `sim_published.py` reproduces every round's frozen figures rather than quoting them (its
`same_as_frozen` checks each against the revision itself with git). Imports only the project's own modules.
"""

from __future__ import annotations

import contextlib
import math
from collections.abc import Iterator
from typing import Any

LOADED_SPACES: dict[str, Any] = {}
"""`sim_published.published_space`'s cache of loaded spaces (path -> Space), cleared when a restored model changes a
device preset the spaces resolved."""


FROZEN_REV = "bd9152d"
"""The revision at which the first unseen run was added: every constant and default as they stood there (fitted or
set on RUNS only). `frozen_model()` restores the one piece of the model changed since, so the frozen figures are
reproduced by this benchmark rather than quoted."""


def _busbw_at_frozen_rev(self: Any, group: int) -> float:
    """hardware.Cluster.busbw as it was at FROZEN_REV: a group spanning nodes got one NIC's rate."""
    if group <= self.gpus_per_node:
        return float(self.device.busbw)
    return float(min(self.device.busbw, self.inter_node_bytes_per_s * 0.9))


def _strided_busbw_at_frozen_rev(self: Any, group: int, stride: int) -> float:
    return _busbw_at_frozen_rev(self, group * stride)


@contextlib.contextmanager
def _swapped(owner: Any, name: str, value: Any) -> Iterator[None]:
    """`owner.name` replaced by `value` inside the block, put back on exit (a piece of the model as it once was)."""
    saved = getattr(owner, name)
    setattr(owner, name, value)
    try:
        yield
    finally:
        setattr(owner, name, saved)


@contextlib.contextmanager
def _all(*contexts: contextlib.AbstractContextManager[None]) -> Iterator[None]:
    with contextlib.ExitStack() as stack:
        for context in contexts:
            stack.enter_context(context)
        yield


def _gaussian_longest(self: Any) -> float:
    """Workload.longest_response as it was up to SEVENTH_FROZEN_REV: the Gaussian extreme of the spread, which
    defaulted to the mean (the geometric default, Workload.geometric_tail, came after the seventh round)."""
    count = self.responses
    if count <= 1 or self.response_spread <= 0:
        return float(min(self.max_response, self.response_tokens))
    return float(min(self.max_response, self.response_tokens + self.response_spread * math.sqrt(2 * math.log(count))))


def seventh_frozen_model() -> contextlib.AbstractContextManager[None]:
    """The cost model as it stood at SEVENTH_FROZEN_REV, where the seventh round was frozen: without a measured
    longest response, the longest of N taken as mean + mean·√(2 ln N) (see `_gaussian_longest`)."""
    from autotune.sim.workload import Workload

    return _swapped(Workload, "longest_response", property(_gaussian_longest))


def fourth_frozen_model() -> contextlib.AbstractContextManager[None]:
    """The cost model as it stood at FOURTH_FROZEN_REV, where the fourth round was frozen: vLLM's CPU step added to
    the GPU's on every version (the overlap of vLLM 0.14+, rollout._overlap_cpu_with_gpu, came after that round),
    and what `seventh_frozen_model` undoes."""
    from autotune.sim import rollout

    return _all(seventh_frozen_model(), _swapped(rollout, "_overlap_cpu_with_gpu", lambda features, *tail: None))


def fifth_frozen_model() -> contextlib.AbstractContextManager[None]:
    """The cost model as it stood at FIFTH_FROZEN_REV, where the fifth round was frozen: vLLM 0.14+'s overlap taken
    over the whole rollout (its tail taken apart, rollout._overlap_cpu_with_gpu's `tail_cpu`/`tail_gpu`, came after
    that round), and what `seventh_frozen_model` undoes."""
    from autotune.sim import rollout

    whole = rollout._overlap_cpu_with_gpu
    return _all(
        seventh_frozen_model(), _swapped(rollout, "_overlap_cpu_with_gpu", lambda features, *tail: whole(features))
    )


@contextlib.contextmanager
def third_frozen_model() -> Iterator[None]:
    """The cost model as it stood at THIRD_FROZEN_REV, where the third round was frozen: no fixed cost per training
    call of verl 0.7+ (terms.call_features) and the H20's GEMMs at the default efficiency (both set after the third
    round was seen, FOURTH_FROZEN_REV), and what `fourth_frozen_model` undoes."""
    from dataclasses import replace

    from autotune.sim import hardware, terms

    saved = terms.call_features, hardware.DEVICES["H20"]
    terms.call_features = lambda w: {"calls": 0.0}
    hardware.DEVICES["H20"] = replace(saved[1], gemm_efficiency=hardware.MATMUL_EFFICIENCY)
    LOADED_SPACES.clear()
    try:
        with fourth_frozen_model():
            yield
    finally:
        terms.call_features, hardware.DEVICES["H20"] = saved
        LOADED_SPACES.clear()


@contextlib.contextmanager
def frozen_model() -> Iterator[None]:
    """The cost model as it stood at FROZEN_REV (before anything was changed for the unseen runs): one NIC's rate
    across nodes, the critic counted with the actor's N (terms.critic_params came with THIRD_FROZEN_REV), and what
    `third_frozen_model` undoes."""
    from autotune.sim import terms
    from autotune.sim.hardware import Cluster

    saved = Cluster.busbw, Cluster.strided_busbw, terms.critic_params
    Cluster.busbw, Cluster.strided_busbw = _busbw_at_frozen_rev, _strided_busbw_at_frozen_rev  # type: ignore[method-assign]
    terms.critic_params = terms.dense_params_verl
    try:
        with third_frozen_model():
            yield
    finally:
        Cluster.busbw, Cluster.strided_busbw, terms.critic_params = saved  # type: ignore[method-assign]


def sixth_frozen_model() -> contextlib.AbstractContextManager[None]:
    """The cost model as it stood at SIXTH_FROZEN_REV, where the sixth round was frozen: the reference pass micro-batched
    as the old log-prob pass (the rollout's log_prob_* keys); its own keys (Workload.ref_micro) came after that round;
    and what `seventh_frozen_model` undoes."""
    from autotune.sim.workload import Workload

    return _all(
        seventh_frozen_model(), _swapped(Workload, "ref_micro_batches", property(lambda self: self.logprob_micro))
    )
