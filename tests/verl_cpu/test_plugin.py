"""The verl CPU plugin's pieces, checked in this process without Ray: version pin, settings (composed
and validated by verl's own config code), the offline task files, the reward, the hf rollout server."""

from __future__ import annotations

import asyncio
from types import SimpleNamespace

import pytest
import torch

from trainer.task import BOS, DIGIT0, EOS, EQ
from verl_cpu import UnsupportedVerl, build, check_verl_version, plugin_settings
from verl_cpu.reward import compute_score, symbols


def test_version_pin_names_installed_and_supported_versions():
    assert check_verl_version("0.9.1") == "0.9.1"
    assert check_verl_version("0.9.7") == "0.9.7"
    for bad in ("0.8.5", "0.10.0", "0.9.0", "weird"):
        with pytest.raises(UnsupportedVerl, match=rf"verl_cpu supports verl >=0.9.1,<0.10, found verl {bad}"):
            check_verl_version(bad)
    import verl

    assert check_verl_version() == verl.__version__


@pytest.fixture(scope="module")
def assets(tmp_path_factory):
    return build(tmp_path_factory.mktemp("assets"), train_rows=32, val_rows=4)


def test_settings_compose_and_pass_verls_validation(assets):
    from autotune.adapters.verl_config import compose, env_problems, validate

    job = [
        "algorithm.adv_estimator=grpo",
        "data.train_batch_size=8",
        "actor_rollout_ref.rollout.n=2",
        "actor_rollout_ref.actor.ppo_mini_batch_size=8",
        "actor_rollout_ref.actor.ppo_micro_batch_size_per_gpu=2",
        "actor_rollout_ref.rollout.log_prob_micro_batch_size_per_gpu=2",
    ]
    for world in (1, 2):
        settings = plugin_settings(world, assets=assets)
        assert all(isinstance(v, str) for v in settings.env.values())
        assert settings.env["VERL_PLATFORM"] == "cpu"
        assert settings.env["VERL_USE_EXTERNAL_MODULES"] == "verl_cpu.plugin"
        cfg = compose([*settings.overrides, *job])
        assert cfg.trainer.n_gpus_per_node == world and cfg.ray_kwargs.ray_init.num_gpus == world
        assert cfg.actor_rollout_ref.model.path == str(assets.model_dir)
        assert env_problems(cfg) == []
        validate(cfg)  # raises on a config main_ppo would refuse
    with pytest.raises(ValueError, match="world_size must be at least 1, got 0"):
        plugin_settings(0, assets=assets)


def test_task_files_are_built_offline_and_consistent(assets):
    import pandas as pd
    from transformers import AutoTokenizer

    tok = AutoTokenizer.from_pretrained(assets.model_dir, local_files_only=True)
    prompt = tok.apply_chat_template([{"role": "user", "content": "<bos> 3 1 4"}], add_generation_prompt=True)
    ids = prompt["input_ids"] if hasattr(prompt, "keys") else prompt  # a BatchEncoding in transformers 5
    assert list(ids) == [BOS, DIGIT0 + 3, DIGIT0 + 1, DIGIT0 + 4, EQ]  # the task's own prompt
    assert tok.eos_token_id == EOS and tok.encode("\n", add_special_tokens=False) == [15]
    rows = pd.read_parquet(assets.train_file)
    assert len(rows) == 32
    for _, row in rows.iterrows():
        digits = row["prompt"][0]["content"].split()[1:]
        assert row["reward_model"]["ground_truth"].split() == sorted(digits, reverse=True)
    assert build(assets.model_dir.parent.parent, train_rows=32, val_rows=4) == assets  # cached


def test_reward_matches_the_tasks_partial_credit_rule():
    assert symbols("9 7 3<eos>1 1") == ["9", "7", "3"]
    assert symbols("97<|im_end|>3") == ["9", "7", "<|im_end|>", "3"]
    assert compute_score("x", "9 7 3", "9 7 3") == 1.0
    assert compute_score("x", "973<eos>", "9 7 3") == 1.0
    assert compute_score("x", "9 3", "9 7 3") == pytest.approx(1 / 3)  # position 0 only
    assert compute_score("x", "9 7 3 3 5", "9 7 3") == pytest.approx(3 / 5)  # too long: / its length
    assert compute_score("x", "", "9 7 3") == 0.0


def test_gloo_backend_string_and_memory_stats():
    from verl_cpu.platform import PlatformCPU, gloo_backend

    assert gloo_backend("cpu:gloo,cpu:gloo") == "gloo"
    assert gloo_backend("cpu:gloo,cuda:nccl") == "cpu:gloo,cuda:nccl"
    assert gloo_backend("gloo") == "gloo"
    platform = PlatformCPU()
    assert platform.device_name == "cpu" and platform.current_device() == "cpu"
    assert platform.communication_backend_name() == "gloo" and platform.ray_resource_name() == "GPU"
    assert not platform.is_platform_available(use_smi_check=True)  # only VERL_PLATFORM=cpu selects it
    import resource

    peak = platform.device_module.max_memory_allocated()
    assert peak == resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024 > 0


def test_hf_rollout_server_generates_like_transformers_and_takes_new_weights(assets):
    from transformers import AutoModelForCausalLM

    from verl_cpu.rollout import HFServer

    server = HFServer(
        SimpleNamespace(response_length=6, prompt_length=8), SimpleNamespace(local_path=str(assets.model_dir)), 0
    )
    prompts = [[BOS, DIGIT0 + 3, DIGIT0 + 1, EQ], [BOS, DIGIT0 + 9, DIGIT0 + 2, DIGIT0 + 5, DIGIT0 + 7, EQ]]
    greedy = {"temperature": 0.0, "logprobs": True, "ignore_eos": True}

    async def both():
        return await asyncio.gather(*(server.generate(p, dict(greedy), f"r{i}") for i, p in enumerate(prompts)))

    outputs = asyncio.run(both())
    reference = AutoModelForCausalLM.from_pretrained(assets.model_dir, dtype=torch.float32)
    for prompt, out in zip(prompts, outputs, strict=True):
        ids = torch.tensor([prompt])
        expected = reference.generate(ids, max_new_tokens=6, min_new_tokens=6, do_sample=False, pad_token_id=0)
        assert out.token_ids == expected[0, len(prompt) :].tolist()  # batched + left-padded == one by one
        full = torch.tensor([prompt + out.token_ids])
        logp = torch.log_softmax(reference(full).logits[0, len(prompt) - 1 : -1], -1)
        want = logp.gather(-1, torch.tensor(out.token_ids)[:, None])[:, 0]
        assert torch.allclose(torch.tensor(out.log_probs), want, atol=1e-4)
    # a weight push changes what it generates: zero lm_head bias-free logits -> argmax is token 0
    state = {k: torch.zeros_like(v) if k == "lm_head.weight" else v for k, v in reference.state_dict().items()}
    assert server.update_weights(state, global_steps=3) == len(state)
    again = asyncio.run(server.generate(prompts[0], dict(greedy), "r9"))
    assert again.token_ids == [0] * 6 and again.extra_fields["global_steps"] == 3
