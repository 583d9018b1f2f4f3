"""`autotune init` on jobs whose batching a knob turns: every configuration the space can sample is one verl
starts (the log-prob and critic micro-batches it needs, as integers, and the log-prob passes following the actor),
and verl's start-up rules that its `validate_config` does not hold are checked before a trial launches."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

pytest.importorskip("omegaconf", reason="autotune init checks keys with verl's config (the `verl` extra)")

from autotune.adapters import get_adapter
from autotune.adapters.base import InvalidConfig
from autotune.adapters.verl_config import check_types, defaults_config, render_yaml
from autotune.adapters.verl_trainer import verl_tree
from autotune.scaffold import Cluster, read_job, recipe, render_space
from autotune.scaffold.space_yaml import baseline
from autotune.space.loader import load_space
from autotune.space.sampling import trial_config

JOB = """\
python3 -m verl.trainer.main_ppo algorithm.adv_estimator={estimator} \\
    data.train_batch_size=512 data.max_prompt_length=512 data.max_response_length=1024 \\
    actor_rollout_ref.model.path=Qwen/Qwen2.5-7B-Instruct critic.model.path=Qwen/Qwen2.5-7B-Instruct \\
    actor_rollout_ref.actor.ppo_mini_batch_size=128 \\
    actor_rollout_ref.actor.use_dynamic_bsz={dynamic} actor_rollout_ref.actor.ppo_max_token_len_per_gpu=16384 \\
    actor_rollout_ref.rollout.tensor_model_parallel_size=2 actor_rollout_ref.rollout.n=5 {extra} \\
    trainer.n_gpus_per_node=8 trainer.nnodes=1
"""
DYNAMIC = "actor_rollout_ref.actor.use_dynamic_bsz"
MICRO = "actor_rollout_ref.actor.ppo_micro_batch_size_per_gpu"
LOGPROB_MICROS = ("actor_rollout_ref.rollout.log_prob_micro_batch_size_per_gpu",
                  "actor_rollout_ref.ref.log_prob_micro_batch_size_per_gpu")  # fmt: skip
PINNED = ("actor_rollout_ref.rollout.log_prob_use_dynamic_bsz", "actor_rollout_ref.ref.log_prob_use_dynamic_bsz")
CRITIC_MICRO = "critic.ppo_micro_batch_size_per_gpu"


def space_of(tmp_path: Path, text: str) -> Any:
    job = read_job(text, "job.sh")
    cluster = Cluster(8, 1, "H100")
    path = tmp_path / "job.yaml"
    rec = recipe(job, cluster, verl_tree()[1])
    path.write_text(render_space(job, cluster, rec, "job"))
    return job, rec, load_space(str(path)), baseline(job, cluster, rec)


def dynamic_off(space: Any, micro: int = 4) -> dict[str, Any]:
    """The trial config of the space's baseline with dynamic batching turned off at `micro` per GPU."""
    adapter = get_adapter("verl")
    params = {**space.baseline, DYNAMIC: False, MICRO: micro}
    params = {k: v for k, v in params.items() if not k.endswith("token_len_per_gpu") and k != "logprob_token_budget"}
    return trial_config(space, adapter, params, adapter.defaults(space.base_config)).flat


def test_derived_micro_batches_are_integers_and_a_float_one_is_refused_before_launch(tmp_path: Path) -> None:
    """They were `4.0`: verl's batching failed on them after Ray and the workers started ("'float' object cannot
    be interpreted as an integer", a real verl_cpu trial) and verl's validate_config passed them."""
    _, _, space, _ = space_of(tmp_path, JOB.format(estimator="grpo", dynamic="True", extra=""))
    flat = dynamic_off(space)
    assert [(flat[k], type(flat[k])) for k in LOGPROB_MICROS] == [(4, int), (4, int)]
    problems = check_types(defaults_config(), {LOGPROB_MICROS[1]: 4.0})
    assert problems == [f"`{LOGPROB_MICROS[1]}`: verl counts with it, got 4.0; write an integer"]
    assert check_types(defaults_config(), {LOGPROB_MICROS[1]: 4}) == []


def test_a_job_without_dynamic_batching_gets_no_log_prob_micro_batch_it_never_set(tmp_path: Path) -> None:
    """Its export added `ref.log_prob_micro_batch_size_per_gpu=16.0` though the baseline shipped unchanged."""
    extra = f"{MICRO}=8 {LOGPROB_MICROS[0]}=16"  # no reference policy (no KL loss or reward): no ref micro-batch
    _, rec, space, _ = space_of(tmp_path, JOB.format(estimator="grpo", dynamic="False", extra=extra))
    assert not set(LOGPROB_MICROS) & set(rec.derived)
    assert not set(LOGPROB_MICROS) & {d.key for d in space.derived}
    adapter = get_adapter("verl")
    flat = trial_config(space, adapter, dict(space.baseline), adapter.defaults(space.base_config)).flat
    assert LOGPROB_MICROS[1] not in flat and flat[LOGPROB_MICROS[0]] == 16


def test_a_critic_on_the_actors_dynamic_batching_gets_its_micro_batch_when_a_trial_turns_it_off(
    tmp_path: Path,
) -> None:
    """verl's critic follows the actor's `use_dynamic_bsz`: every dynamic-off trial of a GAE job lacked
    `critic.ppo_micro_batch_size_per_gpu`, a configuration verl refuses (a simulated sweep called them complete)."""
    _, rec, space, _ = space_of(tmp_path, JOB.format(estimator="gae", dynamic="True", extra=""))
    assert rec.derived[CRITIC_MICRO] == {"when": {DYNAMIC: False}, "value": MICRO}
    flat = dynamic_off(space, 2)
    assert flat[CRITIC_MICRO] == 2
    get_adapter("verl").check(space.base_config, flat, 8)  # verl's validate_config takes it
    without = {k: v for k, v in flat.items() if k != CRITIC_MICRO}
    with pytest.raises(InvalidConfig, match=r"critic\.micro_batch_size"):
        get_adapter("verl").check(space.base_config, without, 8)
    # a critic with its own batching, or none (GRPO), gets nothing
    _, rec, _, _ = space_of(tmp_path, JOB.format(estimator="gae", dynamic="True", extra="critic.use_dynamic_bsz=True"))
    assert CRITIC_MICRO not in rec.derived
    _, rec, _, _ = space_of(tmp_path, JOB.format(estimator="grpo", dynamic="True", extra=""))
    assert CRITIC_MICRO not in rec.derived


def test_log_prob_passes_pinned_to_the_actors_batching_follow_the_knob(tmp_path: Path) -> None:
    """verl's NPU examples pin `rollout/ref.log_prob_use_dynamic_bsz=${use_dynamic_bsz}`: the knob turned the
    actor's alone, and verl's actor worker asserts the rollout's equals it (a real verl_cpu trial: AssertionError
    after start-up), which its validate_config does not check."""
    pins = " ".join(f"{k}=True" for k in PINNED)
    job, rec, space, base = space_of(tmp_path, JOB.format(estimator="grpo", dynamic="True", extra=pins))
    assert set(PINNED) <= set(job.flat) and not set(PINNED) & set(space.base)
    assert not set(PINNED) & set(base)
    assert any("left out of `base:` so that they follow the actor's" in n for n in rec.notes), rec.notes
    adapter = get_adapter("verl")
    adapter.check(space.base_config, dynamic_off(space), 8)
    mismatch = {**dynamic_off(space), PINNED[0]: True}
    with pytest.raises(InvalidConfig, match="actor worker asserts at start-up"):
        adapter.check(space.base_config, mismatch, 8)


def test_an_export_quotes_what_hydra_reads_otherwise_and_env_names_keep_their_text(tmp_path: Path) -> None:
    """`TORCH_NCCL_TIMEOUT=1e3` came back 1000.0 from the exported YAML (OmegaConf reads `1e3` as a float, PyYAML
    writes it plain), and an env variable named `ON` was written unquoted into the space and read as True."""
    from omegaconf import OmegaConf

    env = "ray_kwargs.ray_init.runtime_env.env_vars."
    text = render_yaml({env + "TORCH_NCCL_TIMEOUT": "1e3", env + "ON": "1", "data.train_batch_size": 8}, [])
    read = OmegaConf.create(text)
    assert read.ray_kwargs.ray_init.runtime_env.env_vars == {"TORCH_NCCL_TIMEOUT": "1e3", "ON": "1"}
    assert read.data.train_batch_size == 8
    script = "export ON=1\nexport NO=0\n" + JOB.format(estimator="grpo", dynamic="True", extra="")
    _, _, space, _ = space_of(tmp_path, script)
    assert space.env == {"ON": "1", "NO": "0"}
    assert yaml.safe_load((tmp_path / "job.yaml").read_text())["env"] == {"ON": "1", "NO": "0"}


def test_an_sglang_rollout_is_said_to_be_predicted_as_vllm(tmp_path: Path) -> None:
    from autotune.scaffold.prescreen import assumed_lengths

    _, rec, space, _ = space_of(
        tmp_path, JOB.format(estimator="grpo", dynamic="True", extra="actor_rollout_ref.rollout.name=sglang")
    )
    assert "an SGLang rollout: the cost model (pre-screen, `--fidelity sim`) predicts it as vLLM's" in rec.notes
    [util] = [k for k in rec.knobs if k.name.endswith("gpu_memory_utilization")]
    assert util.why.startswith("SGLang (mem_fraction_static)'s share")
    assert "SGLang rollout predicted as vLLM's" in assumed_lengths(space, "H100")


QWEN2_5_VL_7B = {  # Qwen/Qwen2.5-VL-7B-Instruct's config.json, its language model's numbers and its vision tower's
    "architectures": ["Qwen2_5_VLForConditionalGeneration"],
    "hidden_size": 3584,
    "intermediate_size": 18944,
    "max_position_embeddings": 128000,
    "model_type": "qwen2_5_vl",
    "num_attention_heads": 28,
    "num_hidden_layers": 28,
    "num_key_value_heads": 4,
    "tie_word_embeddings": False,
    "vision_config": {"depth": 32, "hidden_size": 1280, "intermediate_size": 3420, "num_heads": 16,
                      "out_hidden_size": 3584, "patch_size": 14, "spatial_merge_size": 2},
    "vocab_size": 152064,
}  # fmt: skip


def test_a_vision_language_model_is_said_to_be_predicted_without_its_vision_tower(tmp_path: Path) -> None:
    """verl's Qwen2.5-VL geo3k examples: the cost model has no term for the vision tower, its memory or the images'
    encoding, and its predictions (`freeze_vision_tower` or not) were those of the language model alone, said nowhere
    (audit 39 F1); a text model's notes say nothing of it (nor its lengths line: test_sim's `.vision`)."""
    import json

    from autotune.scaffold.prescreen import assumed_lengths

    model = tmp_path / "Qwen2.5-VL-7B-Instruct"
    model.mkdir()
    (model / "config.json").write_text(json.dumps(QWEN2_5_VL_7B))
    said = (
        "its vision tower not modelled (its weights, its memory and its encoding of each prompt's images, in the "
        "rollout and in every training pass, are in no prediction; the images' tokens are predicted as prompt tokens "
        "only)"
    )
    text = JOB.format(estimator="grpo", dynamic="True", extra="data.image_key=images")
    vl = text.replace("actor_rollout_ref.model.path=Qwen/Qwen2.5-7B-Instruct", f"actor_rollout_ref.model.path={model}")
    _, rec, space, _ = space_of(tmp_path, vl)
    [note] = [n for n in rec.notes if "vision" in n]
    assert note == (
        "a vision-language model (its config.json has a `vision_config`): the cost model (pre-screen, `--fidelity sim`) "
        "predicts its language model alone; " + said
    )
    assert f"; {said}" in assumed_lengths(space, "H100")
    rec = recipe(read_job(text, "job.sh"), Cluster(8, 1, "H100"), verl_tree()[1])  # on Qwen2.5-7B: nothing said
    assert not [n for n in rec.notes if "vision" in n]


def test_a_profiled_job_is_said_to_profile_every_trial(tmp_path: Path) -> None:
    """verl's Qwen2.5-VL SGLang example profiles its memory (`global_profiler.tool=torch_memory`): kept in `base:`, every
    trial ran profiled and the export shipped the profiler, said nowhere (audit 39 F3); a job without it hears nothing."""
    cluster, tree = Cluster(8, 1, "H100"), verl_tree()[1]
    extra = "global_profiler.tool=torch_memory global_profiler.save_path=./mem_snapshots"
    rec = recipe(read_job(JOB.format(estimator="grpo", dynamic="True", extra=extra), "job.sh"), cluster, tree)
    assert [n for n in rec.notes if "profiler" in n] == [
        "the job runs verl's `torch_memory` profiler (`global_profiler.tool`): so does every trial, and the export "
        "ships it; its cost (torch_memory records each worker's allocation history from its start, whatever "
        "`global_profiler.steps` says) is in each measured step time and in no prediction: leave the "
        "`global_profiler.*` keys out of `base:` to tune and ship the job without it"
    ]
    rec = recipe(read_job(JOB.format(estimator="grpo", dynamic="True", extra=""), "job.sh"), cluster, tree)
    assert not [n for n in rec.notes if "profiler" in n]


def test_vllm_engine_settings_on_an_sglang_rollout_are_said_to_be_inert() -> None:
    """verl's Qwen2.5-VL SGLang example keeps `+...engine_kwargs.vllm.disable_mm_preprocessor_cache=True` from its
    vLLM twin: kept in `base:` and said to be "added by each trial", as if it did something (audit 39 F10); verl's
    SGLang server reads `engine_kwargs.sglang` only. A vLLM rollout's own setting is not called inert."""
    cluster, tree = Cluster(8, 1, "H100"), verl_tree()[1]
    kwarg = "+actor_rollout_ref.rollout.engine_kwargs.vllm.disable_mm_preprocessor_cache=True"
    for engine, inert in (("sglang", True), ("vllm", False)):
        extra = f"actor_rollout_ref.rollout.name={engine} {kwarg}"
        rec = recipe(read_job(JOB.format(estimator="grpo", dynamic="True", extra=extra), "job.sh"), cluster, tree)
        said = [n for n in rec.notes if "inert" in n]
        assert said == (
            [
                "`actor_rollout_ref.rollout.engine_kwargs.vllm.disable_mm_preprocessor_cache`: vLLM's engine settings, "
                "which an SGLang rollout does not read (verl hands SGLang "
                "`actor_rollout_ref.rollout.engine_kwargs.sglang`): kept as the job sets them, inert in every trial"
            ]
            if inert
            else []
        ), (engine, said)
