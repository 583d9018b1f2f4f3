"""Parity with verl's own functions (verl 0.9.1, installed by the `verl` extra): KL estimators with
their straight-through `+` variants (values and gradients), and entropy at the rollout temperature,
both in `algos` and in what the actor reports."""

from __future__ import annotations

import copy
from collections import defaultdict

import pytest
import torch

from trainer import algos
from trainer.config.loader import ConfigError, load_config
from trainer.distributed import CommMeter
from trainer.model import build_policy
from trainer.roles.actor import Actor
from trainer.roles.common import Runtime

core_algos = pytest.importorskip("verl.trainer.ppo.core_algos", reason="verl is not installed (the `verl` extra)")
verl_F = pytest.importorskip("verl.utils.torch_functional")

ESTIMATORS = ["kl", "k1", "abs", "mse", "k2", "low_var_kl", "k3"]


def log_probs(seed: int) -> tuple[torch.Tensor, torch.Tensor]:
    g = torch.Generator().manual_seed(seed)
    logp = torch.log_softmax(torch.randn(5, 9, 7, generator=g), -1)[..., 0]
    ref = torch.log_softmax(torch.randn(5, 9, 7, generator=g) * 2, -1)[..., 0]
    return logp, ref


@pytest.mark.parametrize("seed", [0, 1])
@pytest.mark.parametrize("kind", [*ESTIMATORS, *(k + "+" for k in ESTIMATORS)])
def test_kl_estimators_match_verl_in_value_and_gradient(seed, kind):
    logp, ref = log_probs(seed)
    ours_in, verl_in = logp.clone().requires_grad_(), logp.clone().requires_grad_()
    ours = algos.kl_estimate(ours_in, ref, kind)
    theirs = core_algos.kl_penalty(verl_in, ref, kind)
    torch.testing.assert_close(ours, theirs, atol=0, rtol=0)
    weights = torch.linspace(0.5, 1.5, ours.numel()).reshape(ours.shape)  # any fixed upstream gradient
    (ours * weights).sum().backward()
    (theirs * weights).sum().backward()
    torch.testing.assert_close(ours_in.grad, verl_in.grad, atol=0, rtol=0)


def test_straight_through_keeps_the_value_and_takes_k2s_gradient():
    logp, ref = log_probs(3)
    x = logp.clone().requires_grad_()
    algos.kl_estimate(x, ref, "k3+").sum().backward()
    torch.testing.assert_close(x.grad, logp - ref)  # d/dx ½(x - ref)² = x - ref, by hand
    torch.testing.assert_close(algos.kl_estimate(logp, ref, "k3+"), algos.kl_estimate(logp, ref, "k3"))


def test_plus_estimators_are_accepted_by_the_config_and_full_plus_is_not():
    config = load_config([], ["actor_rollout_ref.actor.kl_loss_type=k3+", "algorithm.kl_penalty=k1+"])
    assert config.actor_rollout_ref.actor.kl_loss_type == "k3+" and config.algorithm.kl_penalty == "k1+"
    with pytest.raises(ConfigError, match=r"kl_loss_type.*one of"):
        load_config([], ["actor_rollout_ref.actor.kl_loss_type=full+"])


@pytest.mark.parametrize("temperature", [0.6, 1.0, 1.7])
def test_entropy_is_verls_at_the_rollout_temperature(temperature):
    logits = torch.randn(4, 6, 11, generator=torch.Generator().manual_seed(7)) * 3
    expected = verl_F.entropy_from_logits(logits / temperature)  # verl's actor divides, then takes entropy
    torch.testing.assert_close(algos.entropy_from_logits(logits, temperature), expected, atol=1e-5, rtol=1e-5)


def test_the_actor_reports_the_entropy_of_the_tempered_policy(dist_world1):
    """actor/entropy from a real FSDP2 update equals verl's entropy of an unsharded copy's logits / T."""
    temperature = 0.5
    config = load_config(
        [],
        [
            f"actor_rollout_ref.rollout.temperature={temperature}",
            "data.train_batch_size=12",
            "actor_rollout_ref.actor.ppo_mini_batch_size=12",
        ],
    )
    policy = build_policy(config, seed=0)
    plain = copy.deepcopy(policy).eval()
    actor = Actor(policy, config, Runtime(dist_world1, CommMeter()))
    from tests.trainer.test_gradients import make_batch

    batch = make_batch(4)
    expected_sum, tokens = 0.0, 0
    with torch.no_grad():
        for prompt, response in zip(batch.prompts, batch.responses, strict=True):
            logits = plain(input_ids=torch.tensor([prompt + response])).logits[0]
            scoring = logits[len(prompt) - 1 : len(prompt) - 1 + len(response)]  # position j predicts token j+1
            expected_sum += float(verl_F.entropy_from_logits(scoring / temperature).sum())
            tokens += len(response)
    sums: dict[str, float] = defaultdict(float)
    actor.accumulate_gradients(batch, list(range(batch.size)), step=1, sums=sums)
    assert sums["tokens"] == tokens
    assert sums["entropy"] / tokens == pytest.approx(expected_sum / tokens, rel=1e-4)
