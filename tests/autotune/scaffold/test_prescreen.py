"""init's pre-screen predicts the job as `autotune run --fidelity sim` does, and says what the cost model leaves out."""

from __future__ import annotations

import json
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


def _qwen_math_7b(tmp_path: Path, positions: int) -> Path:
    """A local config.json of Qwen2.5-Math-7B's published shape (its 4,096 positions), as `--model` gives one."""
    config = tmp_path / "Qwen2.5-Math-7B" / "config.json"
    config.parent.mkdir(parents=True)
    config.write_text(json.dumps({
        "hidden_size": 3584, "intermediate_size": 18944, "num_hidden_layers": 28, "num_attention_heads": 28,
        "num_key_value_heads": 4, "vocab_size": 152064, "max_position_embeddings": positions,
    }))  # fmt: skip
    return config.parent


def test_responses_cut_by_the_models_context_are_said_and_predicted_so(tmp_path: Path) -> None:
    """verl 0.9's vLLM rollout runs with the model's max_position_embeddings as its context and cuts each response
    there (vLLMHttpServer: max_tokens <= max_model_len - prompt): DAPO's 2k prompts and 8k responses on a 4k-context
    Qwen2.5-Math-7B (verl's own script raises it to 32k with an override) were pre-screened as 8k responses, "27 of
    27 fit", with no word (audit 37 F14). Said in init's notes and the lengths line; the longest response is where
    the context ends: 4,096 less the mean prompt (0.8 x 2,048), by hand 2,457.6 tokens, not 8,192's geometric guess."""
    from autotune.adapters import get_adapter
    from autotune.sim.predict import sim_fidelity

    model = _qwen_math_7b(tmp_path, 4096)
    lengths = "data.max_prompt_length=2048 data.max_response_length=8192 actor_rollout_ref.rollout.n=1"
    job = read_job(GAE_JOB.format(per_node=8, nodes=1, extra="").replace(
        "data.max_prompt_length=512 data.max_response_length=512", lengths), "job.sh")  # fmt: skip
    rec = recipe(job, Cluster(8, 1, "H100"), verl_tree()[1], str(model))
    said = "responses end at the model's context, 4,096 tokens less each prompt's (at most 2,048 after a 2,048-token"
    assert any(n.startswith("the job: " + said) for n in rec.notes), rec.notes
    assert "`+actor_rollout_ref.model.override_config.max_position_embeddings=10240`" in " ".join(rec.notes)
    path = tmp_path / "job.yaml"
    path.write_text(render_space(job, Cluster(8, 1, "H100"), rec, "job"))
    space = load_space(str(path))
    cut = predict_space(space, gpu="H100", model=str(model))
    assert cut.prediction.workload.longest_response == pytest.approx(4096 - 0.8 * 2048)
    assert said in sim_fidelity(space, "H100", model=str(model)).lengths_note(space, get_adapter("verl"))
    roomy = predict_space(space, gpu="H100", model=str(_qwen_math_7b(tmp_path / "r", 32768)))  # the override's room
    assert roomy.prediction.workload.longest_response > 8000
    assert roomy.prediction.phases["gen"] > 2 * cut.prediction.phases["gen"]


def test_a_max_model_len_beyond_the_models_context_is_an_invalid_trial(tmp_path: Path) -> None:
    """verl refuses `rollout.max_model_len` above the model's max_position_embeddings at start-up ('max_model_len
    (8192) should be less than or equal to max_position_embeddings (4096)'): predicted, it is refused, as a real
    trial of it fails; the job's override of the positions (`+...override_config.max_position_embeddings`) lifts it."""
    from autotune.sim.workload import context_problem

    model = _qwen_math_7b(tmp_path, 4096)
    _, space = space_of(tmp_path, extra="actor_rollout_ref.rollout.max_model_len=8192")
    with pytest.raises(ValueError, match=r"max_model_len \(8192\) should be less than or equal to max_position_embed"):
        predict_space(space, gpu="H100", model=str(model))
    assert predict_space(space, gpu="H100").prediction.step > 0  # a preset: its positions not known, not refused
    key = "actor_rollout_ref.model.override_config.max_position_embeddings"
    assert context_problem({"actor_rollout_ref.rollout.max_model_len": 8192, f"+{key}": 32768}, 4096) is None


def test_dapos_group_filtering_is_said_to_be_predicted_as_one_generation(tmp_path: Path) -> None:
    """verl 0.9's V1 trainer (its default) refills each group DAPO's filtering evicts with a new prompt's group:
    generation the cost model does not predict; it predicted 1950.8 s with the filtering on or off, said nowhere
    (audit 37 F5). Said in init's notes and the lengths line; the legacy trainer (`trainer.use_v1=False`) does not
    filter: nothing said."""
    from autotune.adapters import get_adapter
    from autotune.sim.predict import sim_fidelity

    dapo = "algorithm.filter_groups.enable=True algorithm.filter_groups.metric=acc"
    rec, space = space_of(tmp_path, extra=dapo)
    said = "DAPO's group filtering (algorithm.filter_groups) generates a new group for each one it filters out"
    assert any(n.startswith(said) for n in rec.notes), rec.notes
    assert said in sim_fidelity(space, "H100").lengths_note(space, get_adapter("verl"))
    (tmp_path / "v0").mkdir()
    legacy, _ = space_of(tmp_path / "v0", extra=dapo + " trainer.use_v1=False")
    assert not any("group filtering" in n for n in legacy.notes)
