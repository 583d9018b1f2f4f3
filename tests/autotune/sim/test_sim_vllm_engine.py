"""Which vLLM engine a space's version means: before 0.8 (V1 became the default in 0.8.0) the V0 engine, whose step
the cost model costs as rollout.STEP_BASE_V0, whether or not the space sets VLLM_USE_V1=0."""

from __future__ import annotations

import statistics
from typing import Any

import pytest

from tests.autotune.conftest import import_benchmark

pytest.importorskip("hydra")


def test_the_engine_a_version_means() -> None:
    from autotune.sim.workload import v0_only_vllm

    assert v0_only_vllm("0.6.3") and v0_only_vllm("0.7.3") and v0_only_vllm("0.5.4")
    assert not v0_only_vllm("0.8.0") and not v0_only_vllm("0.8.5.post1") and not v0_only_vllm(None)


@pytest.fixture(scope="module")
def sp() -> Any:
    return import_benchmark("sim_published")


def _gen_error(sp: Any, run: dict[str, Any], env: dict[str, str]) -> tuple[float, Any]:
    from autotune.sim.fit import published_prediction, relative_errors
    from autotune.sim.model import default_weights

    view = {**sp.with_measured_longest(run), "env": env, "name": f"{run['name']}-{'-'.join(env.values()) or 'bare'}"}
    obs, trial = sp.observation(view)
    return relative_errors(published_prediction(default_weights(), obs), obs.measured)["gen"], trial


def test_a_version_alone_gets_the_v0_engine_and_it_fits_the_published_runs(sp: Any) -> None:
    """The published runs of vLLM 0.6.3 (their logs' versions; the benchmark sets VLLM_USE_V1=0 for them) predicted
    from the version alone, as a user's space would give it: the V0 engine's step, the same generation as with
    VLLM_USE_V1=0, and far closer than V1's step (0.7's opt-in, VLLM_USE_V1=1), which puts the five without the xformers
    backend 27-69% too fast (the figures workload.v0_only_vllm states)."""
    from autotune.sim import rollout

    runs = [r for r in [*sp.RUNS, *(r for _, rs, _ in sp.frozen_rounds() for r in rs)] if r.get("vllm") == "0.6.3"]
    assert len(runs) == 8
    v0, v1 = [], []
    for run in runs:
        backend = {k: v for k, v in run.get("env", {}).items() if k == "VLLM_ATTENTION_BACKEND"}
        bare, trial = _gen_error(sp, run, backend)
        assert trial.prediction.workload.vllm_v0 and not trial.prediction.workload.vllm_legacy
        assert bare == pytest.approx(_gen_error(sp, run, {**backend, "VLLM_USE_V1": "0"})[0], rel=1e-12)
        v0.append(bare)
        if not backend:  # the xformers backend is V0 whatever VLLM_USE_V1 says
            opted_in, trial = _gen_error(sp, run, {"VLLM_USE_V1": "1"})
            assert not trial.prediction.workload.vllm_v0
            v1.append(opted_in)
    assert rollout.STEP_BASE_V0 > 5 * rollout.STEP_BASE
    assert (
        min(v0) > -0.32 and max(v0) < 0.32 and statistics.median(abs(e) for e in v0) == pytest.approx(0.17, abs=0.005)
    )
    assert len(v1) == 5 and min(v1) > -0.70 and max(v1) < -0.26
