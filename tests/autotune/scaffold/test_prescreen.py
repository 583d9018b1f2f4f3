"""init's pre-screen predicts the job as `autotune run --fidelity sim` does, and says what the cost model leaves out."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("omegaconf", reason="autotune init checks keys with verl's config (the `verl` extra)")

from autotune.adapters.verl_trainer import verl_tree
from autotune.scaffold import Cluster, prescreen, read_job, recipe, render_space
from autotune.scaffold.prescreen import assumed_lengths
from autotune.sim.predict import predict_space
from autotune.space.loader import load_space

GAE_JOB = """\
python3 -m verl.trainer.main_ppo algorithm.adv_estimator=gae \\
    data.train_batch_size=256 data.max_prompt_length=512 data.max_response_length=512 \\
    actor_rollout_ref.model.path=Qwen/Qwen2.5-7B-Instruct critic.model.path=Qwen/Qwen2.5-7B-Instruct \\
    actor_rollout_ref.actor.ppo_mini_batch_size=64 actor_rollout_ref.actor.ppo_micro_batch_size_per_gpu=4 \\
    actor_rollout_ref.rollout.log_prob_micro_batch_size_per_gpu=8 actor_rollout_ref.ref.log_prob_micro_batch_size_per_gpu=8 \\
    critic.ppo_micro_batch_size_per_gpu=4 actor_rollout_ref.rollout.tensor_model_parallel_size=2 {extra} \\
    trainer.n_gpus_per_node={per_node} trainer.nnodes={nodes}
"""
"""A PPO job with a critic whose actor mini-batch (64) is not verl's default (256): verl interpolates the critic's
`ppo_mini_batch_size` from the actor's."""


def space_of(tmp_path: Path, per_node: int = 8, nodes: int = 1, extra: str = "") -> tuple[Any, Any]:
    """(init's recipe, the space it writes, loaded) for the job on `nodes` x `per_node` GPUs."""
    job = read_job(GAE_JOB.format(per_node=per_node, nodes=nodes, extra=extra), "job.sh")
    cluster = Cluster(per_node, nodes, "H100")
    rec = recipe(job, cluster, verl_tree()[1])
    path = tmp_path / "job.yaml"
    path.write_text(render_space(job, cluster, rec, "job"))
    return rec, load_space(str(path))


@pytest.mark.parametrize("per_node,nodes", [(8, 1), (4, 2)])
def test_the_prescreens_job_is_the_simulated_sweeps_baseline(tmp_path: Path, per_node: int, nodes: int) -> None:
    """The pre-screen read verl's bare defaults: the critic's mini-batch 256 where verl runs the actor's 64, and a
    step 36.5 s against the sweep's 27.1 s for one job (audit 36 F4)."""
    _, space = space_of(tmp_path, per_node, nodes)
    swept = predict_space(space, gpu="H100")  # the trial `autotune run --fidelity sim --gpu H100` predicts
    assert swept.flat["critic.ppo_mini_batch_size"] == 64  # verl's `${actor_rollout_ref.actor.ppo_mini_batch_size}`
    assert swept.cost.cluster.gpus_per_node == per_node
    [job] = [s for s in prescreen(space, "H100") if s.change == "baseline"]
    assert job.oom is None and swept.prediction.oom is None
    assert job.step_s == pytest.approx(swept.prediction.step, rel=1e-12)
    assert job.peak_gib == pytest.approx(swept.prediction.memory.peak / 2**30, rel=1e-12)


RM = "sfairXC/FsfairX-LLaMA3-RM-v0.1"


@pytest.mark.parametrize(
    "extra",
    [f"reward_model.enable=True reward_model.model.path={RM}", f"reward.reward_model.enable=True "
     f"reward.reward_model.model_path={RM}"],
)  # fmt: skip
def test_a_reward_model_is_said_to_be_left_out_of_the_predictions(tmp_path: Path, extra: str) -> None:
    """A job with a model-based reward model was pre-screened and predicted as if it had none, without a word, where
    an SGLang rollout is said to be predicted as vLLM's (audit 36 F10)."""
    from autotune.adapters import get_adapter
    from autotune.sim.predict import sim_fidelity

    rec, space = space_of(tmp_path, extra=extra)
    note = (
        f"a reward model ({RM}): the cost model (pre-screen, `--fidelity sim`) does not model it; its scoring time and "
        "its memory are in no predicted step time or peak"
    )
    assert note in rec.notes  # init's notes
    said = f"its reward model ({RM}) not modelled (its scoring time and memory are in no prediction)"
    assert said in assumed_lengths(space, "H100")  # the pre-screen's line
    assert said in sim_fidelity(space, "H100").lengths_note(space, get_adapter("verl"))  # `run --fidelity sim`'s


def test_a_job_without_a_reward_model_gets_no_such_note(tmp_path: Path) -> None:
    rec, space = space_of(tmp_path, extra="reward_model.enable=False")
    assert not any("reward model" in n for n in rec.notes), rec.notes
    assert "reward model" not in assumed_lengths(space, "H100")
