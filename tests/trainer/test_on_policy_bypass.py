"""The on-policy bypass (no old-log-prob pass for one epoch over one mini-batch) trains exactly as
the full path does: same update, same metrics, ratio 1. In-process FSDP2 at world 1."""

from __future__ import annotations

import pytest
import torch

from trainer import loop
from trainer.config.loader import load_config

ON_POLICY = (
    "algorithm.adv_estimator=grpo",
    "actor_rollout_ref.rollout.n=4",
    "data.train_batch_size=8",
    "actor_rollout_ref.actor.ppo_mini_batch_size=8",  # one mini-batch
    "actor_rollout_ref.actor.ppo_micro_batch_size_per_gpu=8",
    "actor_rollout_ref.actor.use_kl_loss=true",
    "actor_rollout_ref.actor.kl_loss_coef=0.1",
    "actor_rollout_ref.actor.entropy_coeff=0.01",
    "builtin.warm_start.steps=0",
)


def one_step(env, *extra: str) -> tuple[loop.Trainer, dict]:
    trainer = loop.Trainer(load_config([], [*ON_POLICY, *extra]), env)
    return trainer, trainer.train_step(1)


@pytest.mark.parametrize("kl_penalty", ["low_var_kl", "full"])
def test_bypass_gives_the_same_update_and_metrics_as_the_old_log_prob_pass(dist_world1, kl_penalty):
    kl = f"algorithm.kl_penalty={kl_penalty}"
    fast, fast_m = one_step(dist_world1, kl)
    full, full_m = one_step(dist_world1, kl, "builtin.on_policy_bypass=false")
    assert fast.bypass_old_log_prob(1, 32) and not full.bypass_old_log_prob(1, 32)
    assert fast_m["timing_s/old_log_prob"] == 0 and full_m["timing_s/old_log_prob"] > 0
    for key in ("actor/pg_loss", "actor/kl_loss", "actor/entropy", "actor/grad_norm", "actor/reward_kl_penalty"):
        assert fast_m[key] == pytest.approx(full_m[key], rel=1e-5, abs=1e-7), key
    assert fast_m["actor/ppo_kl"] == 0 and fast_m["actor/pg_clipfrac"] == 0  # ratio exactly 1
    assert abs(full_m["actor/ppo_kl"]) < 1e-6
    for (name, a), (_, b) in zip(fast.actor.model.named_parameters(), full.actor.model.named_parameters(), strict=True):
        torch.testing.assert_close(a.full_tensor(), b.full_tensor(), atol=1e-6, rtol=1e-5, msg=name)


@pytest.mark.parametrize(
    "extra",
    [
        ("actor_rollout_ref.actor.ppo_mini_batch_size=4",),  # two mini-batches: the second is off-policy
        ("actor_rollout_ref.actor.ppo_epochs=2",),
        ("algorithm.use_kl_in_reward=true",),  # the reward needs the old log-probs before the update
    ],
)
def test_no_bypass_when_the_update_is_not_provably_on_policy(dist_world1, extra):
    trainer = loop.Trainer(load_config([], [*ON_POLICY, *extra]), dist_world1)
    assert not trainer.bypass_old_log_prob(1, 32)
