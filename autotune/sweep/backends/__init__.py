"""What runs a sweep's trials: the backend contract and registry (`base`), the trial lifecycle every
backend shares (`lifecycle`), samplers, pruning, and one `NAME_backend.py` per backend (Ray's Tune searcher in
`ray_search`)."""

from __future__ import annotations

from autotune.sweep.backends.base import BACKENDS, Backend, BackendOptions, get_backend, register

__all__ = ["BACKENDS", "Backend", "BackendOptions", "get_backend", "register"]
