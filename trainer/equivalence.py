"""`torchrun ... -m trainer.equivalence --out FILE [--config FILE ...] key=value ...`: what one
training step computes from a fixed batch, so that two configurations' math can be compared.

A systems setting (micro-batch sizes, dynamic batching and its token budgets, FSDP resharding and
prefetch, the rollout's tensor parallelism) is meant to change speed and memory only. This mode
builds the roles exactly as training does (`loop.Trainer`, at the launcher's world size), but
replaces generation with a batch that no setting can change: the task's seeded prompts, and
responses and rewards drawn from a seeded generator of their own (`fixed_batch`). On it, rank 0
writes, as JSON:

    rollout_logp   [B, R]  the rollout engine's log-probs of the fixed responses, at its TP layout
    old_logp       [B, R]  the actor's log-prob pass (the old policy)
    ref_logp       [B, R]  the reference's log-prob pass
    values         [B, R]  the critic's values (GAE only)
    advantages     [B, R]
    new_logp       [B, R]  the actor's log-probs after the update (the whole update, optimizer step included)
    new_values     [B, R]  the critic's values after its update (GAE only)
    actor/pg_loss, actor/kl_loss, actor/entropy, actor/grad_norm, ... (the update's metrics)

Per-token values are 0 at padding. `Trainer.learn` runs the step (the first after `trainer.critic_warmup`, so the
actor updates), so the old-log-prob pass is
skipped where training skips it (the on-policy bypass); `old_logp` is computed beside it for the
record. One step from the initial policy shows what it shows: a knob that only acts once the policy
has left the reference (a KL coefficient) or the ratio has left the clip range is not seen here.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from typing import Any

import torch

from trainer import task
from trainer.batch import StepBatch
from trainer.config.schema import Config

BATCH_SEED = 20_241
"""Seeds the fixed responses and rewards (with `data.seed`), apart from every seed training uses."""

STEP = 1


def fixed_batch(config: Config) -> StepBatch:
    """The task's prompts for step 1, with seeded responses (digits, some ending in <eos>) of 1 to
    `data.max_response_length` tokens and seeded rewards in [0, 1): the same for every configuration
    that shares the data, task and rollout.n settings."""
    seed = config.data.seed or 0
    rollout_n = config.actor_rollout_ref.rollout.n
    prompts = task.make_prompts(
        seed, STEP, config.data.train_batch_size, config.builtin.task.min_digits, config.builtin.task.max_digits
    )
    gen = torch.Generator().manual_seed(seed * 1_000_003 + BATCH_SEED)
    longest = config.data.max_response_length
    responses = []
    for _ in range(len(prompts) * rollout_n):
        length = int(torch.randint(1, longest + 1, (1,), generator=gen))
        tokens = (task.DIGIT0 + torch.randint(0, 10, (length,), generator=gen)).tolist()
        if bool(torch.rand(1, generator=gen) < 0.5):
            tokens[-1] = task.EOS
        responses.append(tokens)
    batch = StepBatch.from_rollout(prompts, rollout_n, responses)
    batch.score = torch.rand(batch.size, generator=gen)
    return batch


def measure(config: Config, env: Any) -> dict[str, Any]:
    """Every quantity of the module docstring, for this configuration."""
    from trainer.loop import Trainer

    trainer = Trainer(config, env)
    batch = fixed_batch(config)
    mask = batch.mask
    with trainer.engine:
        rollout_logp = trainer.engine.score(
            batch.prompts, batch.responses, config.actor_rollout_ref.rollout.temperature
        )
    trainer.actor.compute_log_prob(batch)
    assert batch.old_logp is not None
    old_logp = batch.old_logp.clone()
    batch.old_logp = batch.old_logp_full = None  # `learn` decides, as in training, whether to pass them
    # the step the actor updates at: at step 1 a `trainer.critic_warmup` of 1 or more left it out, and the check
    # compared no actor update at all, silently (audit 26 F6); the prompts stay step 1's, the batch is fixed
    update, adv_metrics = trainer.learn(batch, max(STEP, config.trainer.critic_warmup + 1))
    assert batch.ref_logp is not None and batch.advantages is not None
    after = StepBatch(batch.prompts, batch.responses, batch.group, batch.score)
    trainer.actor.compute_log_prob(after)
    assert after.old_logp is not None
    if trainer.critic is not None:  # the critic after its update: a dropped last critic step passed (audit 26 F4)
        trainer.critic.compute_values(after)
    tensors = {
        "rollout_logp": rollout_logp.cpu(),
        "old_logp": old_logp,
        "ref_logp": batch.ref_logp,
        "advantages": batch.advantages,
        "new_logp": after.old_logp,
    }
    if batch.values is not None:
        tensors["values"] = batch.values
    if after.values is not None:
        tensors["new_values"] = after.values
    scalars = {k: v for k, v in {**adv_metrics, **update}.items() if isinstance(v, float) and k != "actor/lr"}
    return {
        "world_size": env.world,
        "device": env.device.type,
        "dtype": config.actor_rollout_ref.actor.fsdp_config.model_dtype,
        "tensors": {name: (t.double() * mask).tolist() for name, t in tensors.items()},
        "scalars": scalars,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m trainer.equivalence", description=__doc__.splitlines()[0])
    parser.add_argument("--out", required=True, help="JSON file rank 0 writes")
    parser.add_argument("--config", action="append", default=[], metavar="FILE")
    parser.add_argument("overrides", nargs="*", metavar="key=value")
    args = parser.parse_args(sys.argv[1:] if argv is None else argv)
    from trainer.config.checks import check_world
    from trainer.config.loader import ConfigError, load_config

    rank, world = int(os.environ.get("RANK", "0")), int(os.environ.get("WORLD_SIZE", "1"))
    try:
        config = load_config(args.config, ["trainer.total_training_steps=1", *args.overrides])
        check_world(config, world)
    except ConfigError as exc:
        if rank == 0:
            print(f"trainer: config error: {exc}", file=sys.stderr)
        return 2
    threads = os.environ.get("OMP_NUM_THREADS")
    if threads:
        torch.set_num_threads(int(threads))
    from trainer import distributed

    result = measure(config, distributed.init())
    distributed.finish()
    if rank == 0:
        with open(args.out, "w") as f:
            json.dump(result, f)
    distributed.leave(0)


if __name__ == "__main__":
    sys.exit(main())
