"""The cluster's layout reaches the cost model on every path: a verl job's `trainer.n_gpus_per_node` decides which
collectives cross nodes, in `autotune run --fidelity sim` (and `autotune.predict`), in `autotune calibrate --verl-log`
and in init's pre-screen. Every path but the pre-screen took 8 a node (audit 36 F3): a 2 x 4-GPU job was predicted
exactly as 1 x 8, its inter-node all-gathers at NVLink speed."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

pytest.importorskip("omegaconf", reason="a verl space's keys are resolved with verl's config (the `verl` extra)")

KEYS = {
    "data.train_batch_size": 256, "data.max_prompt_length": 512, "data.max_response_length": 256,
    "actor_rollout_ref.model.path": "Qwen/Qwen2.5-7B-Instruct", "algorithm.adv_estimator": "grpo",
    "actor_rollout_ref.actor.ppo_mini_batch_size": 64, "actor_rollout_ref.actor.ppo_micro_batch_size_per_gpu": 8,
    "actor_rollout_ref.rollout.log_prob_micro_batch_size_per_gpu": 8, "actor_rollout_ref.rollout.n": 4,
}  # fmt: skip
"""A GRPO job of a 7B (the FSDP all-gathers of its 15 GB of weights are what crossing nodes slows)."""
TP = "actor_rollout_ref.rollout.tensor_model_parallel_size"


def write_space(tmp_path: Path, per_node: int, nodes: int) -> Path:
    space = {
        "name": f"layout-{nodes}x{per_node}",
        "trainer": "verl",
        "base": {**KEYS, "trainer.n_gpus_per_node": per_node, "trainer.nnodes": nodes},
        "trial": {"steps": 3, "warmup_steps": 1, "world_size": per_node * nodes},
        "params": {TP: {"type": "categorical", "choices": [1, 2]}},
        "baseline": {TP: 2},
        "sim": {"prompt_tokens": 300, "response_tokens": 200, "gpu": "H100"},
    }
    path = tmp_path / f"{space['name']}.yaml"
    path.write_text(yaml.safe_dump(space, sort_keys=False))
    return path


def by_hand(flat: dict[str, Any], env: dict[str, str], per_node: int) -> Any:
    """The prediction on a cluster built directly, `hardware.cluster(H100, 8, gpus_per_node=per_node)`."""
    from autotune.sim.hardware import cluster
    from autotune.sim.model import CostModel
    from autotune.sim.workload import find_shape

    shape = find_shape(flat["actor_rollout_ref.model.path"], flat)
    cost = CostModel(cluster("H100", 8, gpus_per_node=per_node), shape, prompt_tokens=300, response_tokens=200)
    return cost.predict(flat, env, 8)


def test_a_2x4_job_is_predicted_on_4_gpus_a_node_and_not_as_1x8(tmp_path: Path) -> None:
    from autotune.sim.predict import predict_space, sim_fidelity
    from autotune.space.loader import load_space

    two_by_four = load_space(str(write_space(tmp_path, 4, 2)))
    one_by_eight = load_space(str(write_space(tmp_path, 8, 1)))
    split, whole = predict_space(two_by_four), predict_space(one_by_eight)
    assert split.cost.cluster.gpus_per_node == 4 and whole.cost.cluster.gpus_per_node == 8
    # the FSDP all-gathers over 8 ranks cross the nodes: slower than over NVLink, not the same
    assert sum(split.prediction.comm.values()) > sum(whole.prediction.comm.values()) * 1.2, (
        split.prediction.comm,
        whole.prediction.comm,
    )
    for trial, per_node in ((split, 4), (whole, 8)):
        direct = by_hand(trial.flat, trial.env, per_node)
        assert trial.prediction.comm == pytest.approx(direct.comm, rel=1e-12)
        assert trial.prediction.step == pytest.approx(direct.step, rel=1e-12)
    # the study's model names the layout where it is not 8 a node: a study predicted as 1 x 8 is not resumed as 2 x 4
    assert sim_fidelity(two_by_four).model_key().startswith("H100 SXM × 8 (2 nodes × 4), model")
    assert sim_fidelity(one_by_eight).model_key().startswith("H100 SXM × 8, model")


def test_calibrate_fits_a_logged_2x4_run_on_its_own_layout(tmp_path: Path) -> None:
    """`autotune calibrate --verl-log` sees a 2 x 4 run with the features the cost model gives it on 4 GPUs a node
    (a 2 x 4 log was fitted as one 8-GPU node)."""
    from autotune.adapters import get_adapter
    from autotune.sim.hardware import cluster
    from autotune.sim.model import CostModel
    from autotune.sim.verl_log import log_observation, logged_run
    from autotune.sim.workload import find_shape

    verl = get_adapter("verl")
    line = "timing_s/gen:20.0 - timing_s/update_weights:2.0 - timing_s/old_log_prob:3.0 - timing_s/update_actor:9.0"
    line += " - prompt_length/mean:300 - response_length/mean:200"
    features = {}
    for per_node, nodes in ((4, 2), (8, 1)):
        log, config = tmp_path / f"{nodes}x{per_node}.log", tmp_path / f"{nodes}x{per_node}.txt"
        log.write_text("".join(f"step:{s} - {line}\n" for s in (1, 2, 3)))
        keys = {**KEYS, TP: 2, "trainer.n_gpus_per_node": per_node, "trainer.nnodes": nodes}
        config.write_text(" ".join(f"{k}={v}" for k, v in keys.items()) + "\n")
        run = logged_run(log, config, lambda k: verl.resolved([], k))
        assert run.world == 8
        observation, _ = log_observation(run, "H100")
        shape = find_shape(run.flat["actor_rollout_ref.model.path"], run.flat)
        direct = CostModel(cluster("H100", 8, gpus_per_node=per_node), shape, prompt_tokens=300, response_tokens=200)
        assert observation.features == direct.features(run.flat, run.env, 8)[1]
        features[per_node] = observation.features
    assert features[4] != features[8]


def test_a_single_node_space_is_one_node_of_its_world() -> None:
    """`verl-cpu` sets `trainer.nnodes: 1` and tunes `trainer.n_gpus_per_node` (1 or 2, baseline 1) under a world of 2:
    one node of 2, not two nodes of 1 (its study's model key is the one it had)."""
    from autotune.sim.predict import sim_fidelity
    from autotune.sim.sim_fidelity import space_gpus_per_node
    from autotune.space.loader import load_space

    space = load_space("verl-cpu")
    assert space.base["trainer.nnodes"] == 1 and space.baseline["trainer.n_gpus_per_node"] == 1
    assert space.trial.world_size == 2
    assert space_gpus_per_node(space) == 2
    assert sim_fidelity(space).model_key().startswith("H100 SXM × 2, model")
