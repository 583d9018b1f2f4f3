"""Response-length statistics of public verl runs, for `benchmarks/longest_response.py` (out of sample).

Each entry: one run (or one window of a run) with the medians over the steps named of verl's per-step
`response_length/mean` and `response_length/max`, the number of responses a step (data.train_batch_size ×
actor_rollout_ref.rollout.n) and data.max_response_length. Gathered after the cost model's geometric guess of the
longest response was committed; none of these runs set any constant of the model.
"""

from __future__ import annotations

from typing import Any

LENGTH_RUNS: list[dict[str, Any]] = []
