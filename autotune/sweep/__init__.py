"""Every phase that launches trials: the search (`driver`, over a registered backend in `backends/`
and a registered fidelity in `fidelities`), confirmation, the minimal-winner ablation, explain and the
quality stage. What they conclude is written through its owner in `autotune.study` (confirmation_result,
ablation_result, quality_result, predicted_winner); report and export only read it."""

from __future__ import annotations

from autotune.sweep.confirmation import run_confirmation
from autotune.sweep.driver import SweepOptions, run_sweep
from autotune.sweep.explain import ExplainError, ExplainOptions, explain
from autotune.sweep.fidelities import FIDELITIES, get_fidelity

__all__ = [
    "FIDELITIES",
    "ExplainError",
    "ExplainOptions",
    "SweepOptions",
    "explain",
    "get_fidelity",
    "run_confirmation",
    "run_sweep",
]
