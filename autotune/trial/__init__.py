"""One trial: measure the configuration (`fidelity`: a real run through `runner`, or a prediction),
score its metrics (`scoring`), classify and record it (`evaluation`, `record`).

The public names load on first use: what only reads trials (report, export) imports `record` and
`scoring` without pulling in the modules that launch them.
"""

from __future__ import annotations

import importlib
from typing import Any

_HOMES = {
    "Evaluation": "evaluation",
    "evaluate": "evaluation",
    "Fidelity": "fidelity",
    "FidelitySettings": "fidelity",
    "REAL_RUN": "fidelity",
    "RealRun": "fidelity",
    "TrialJob": "fidelity",
    "OUTCOMES": "record",
    "TrialRecord": "record",
    "read_rows": "record",
    "RunResult": "runner",
    "Score": "scoring",
    "score": "scoring",
}
__all__ = sorted(_HOMES)


def __getattr__(name: str) -> Any:
    if name in _HOMES:
        return getattr(importlib.import_module(f"{__name__}.{_HOMES[name]}"), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
