"""Dynamic batching and fixed micro-batching give the same gradients (FSDP2, in-process world 1)."""

from __future__ import annotations

from collections import defaultdict

import pytest
import torch

from trainer import batching
from trainer.batch import StepBatch
from trainer.config.loader import load_config
from trainer.distributed import CommMeter
from trainer.model import build_policy
from trainer.roles.actor import Actor
from trainer.roles.common import Runtime
from trainer.task import make_prompts


def make_batch(seed: int) -> StepBatch:
    g = torch.Generator().manual_seed(seed)
    prompts = make_prompts(seed, 1, 12, 2, 6)
    responses = [
        torch.randint(4, 14, (int(torch.randint(1, 8, (1,), generator=g)),), generator=g).tolist() for _ in prompts
    ]
    batch = StepBatch.from_rollout(prompts, 1, responses)
    shape = batch.mask.shape
    batch.old_logp = -torch.rand(shape, generator=g) * 3
    batch.ref_logp = -torch.rand(shape, generator=g) * 3
    batch.advantages = torch.randn(shape, generator=g) * batch.mask
    return batch


def grads(actor: Actor) -> dict[str, torch.Tensor]:
    out = {}
    for name, p in actor.model.named_parameters():
        g = p.grad
        out[name] = (g.full_tensor() if hasattr(g, "full_tensor") else g).clone()
        p.grad = None
    return out


@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize("remove_padding", [True, False])
def test_dynamic_equals_fixed_micro_batching(dist_world1, seed, remove_padding):
    config = load_config(
        [],
        [
            "data.train_batch_size=12",
            "actor_rollout_ref.actor.ppo_mini_batch_size=12",
            "actor_rollout_ref.actor.use_kl_loss=true",
            "actor_rollout_ref.actor.kl_loss_coef=0.1",
            "actor_rollout_ref.actor.entropy_coeff=0.01",
            f"actor_rollout_ref.model.use_remove_padding={str(remove_padding).lower()}",
        ],
    )
    actor = Actor(build_policy(config, seed=0), config, Runtime(dist_world1, CommMeter()))
    batch = make_batch(seed)
    mini = list(range(batch.size))
    specs = {
        "one pack": batching.PassSpec(False, 12, 0),
        "fixed 5": batching.PassSpec(False, 5, 0),
        "dynamic 30 tokens": batching.PassSpec(True, None, 30),
        "dynamic 17 tokens": batching.PassSpec(True, None, 17),
    }
    results = {}
    for name, spec in specs.items():
        sums: dict[str, float] = defaultdict(float)
        actor.accumulate_gradients(batch, mini, step=1, sums=sums, spec=spec)
        results[name] = grads(actor)
        assert sums["tokens"] == batch.mask.sum().item()
    reference = results.pop("one pack")
    for name, got in results.items():
        for key in reference:
            torch.testing.assert_close(got[key], reference[key], atol=1e-6, rtol=1e-5, msg=f"{name}: {key}")
