"""Run under torchrun by test_hybrid_engine.py: build the actor under FSDP2, then for each requested
layout enter the hybrid engine, generate, and dump what every rank saw. Not a test module itself.

    torchrun --nproc_per_node W engine_worker.py OUT.json tp:mode:sample|greedy:free|keep ...
"""

from __future__ import annotations

import json
import sys

import torch
import torch.distributed as dist

from trainer import distributed, warm_start
from trainer.config.loader import load_config
from trainer.distributed import CommMeter
from trainer.model import build_policy
from trainer.roles.actor import Actor
from trainer.roles.common import Runtime
from trainer.rollout import sampler
from trainer.rollout.engine import HybridEngine
from trainer.task import make_prompts


def run_layout(actor: Actor, policy: torch.nn.Module, env: distributed.DistEnv, spec: str) -> dict:
    tp_text, mode, how, cache = spec.split(":")
    tp = int(tp_text)
    config = load_config(
        [],
        [
            f"actor_rollout_ref.rollout.tensor_model_parallel_size={tp}",
            f"actor_rollout_ref.rollout.free_cache_engine={str(cache == 'free').lower()}",
        ],
    )
    meter = CommMeter()
    rt = Runtime(env, meter)
    before = {n: p.detach().to_local().clone() for n, p in actor.model.named_parameters()}
    engine = HybridEngine(actor.model, policy.config, config.actor_rollout_ref.rollout, rt, mode)  # type: ignore[arg-type]
    prompts = [list(p.ids) for p in make_prompts(3, 1, 8, 2, 6)]
    params = sampler.SamplingParams(8, temperature=1.0, do_sample=how == "sample", seed=3, step=1)
    with engine:
        responses, _ = engine.generate(prompts, params)
        group = env.rank // tp
        per_group = -(-len(prompts) // (env.world // tp))
        lo, hi = group * per_group, min(len(prompts), (group + 1) * per_group)
        assert engine.weights is not None
        local_rows, _ = sampler.generate(
            engine.weights, engine.shape, prompts[lo:hi], list(range(lo, hi)), params, engine._all_reduce()
        )
        weights_bytes = engine.weights.nbytes()
    after = {n: p.detach().to_local() for n, p in actor.model.named_parameters()}
    _, received = meter.take()
    return {
        "rank": env.rank,
        "responses": responses,
        "local": local_rows,
        "weights_bytes": weights_bytes,
        "peak_bytes": engine.stats["rollout/reshard_peak_gb"] * 1024**3,
        "full_bytes": sum(p.numel() * p.element_size() for p in policy.parameters()),
        "received_bytes": received.get("reshard", 0),
        "unchanged": all(torch.equal(before[n], after[n]) for n in before),
        "kept_weights": engine.weights is not None,
    }


def main(out_path: str, specs: list[str]) -> None:
    env = distributed.init()
    config = load_config([], ["actor_rollout_ref.rollout.tensor_model_parallel_size=1"])
    policy = build_policy(config, seed=0)
    warm_start.apply(policy, config, 0)
    actor = Actor(policy, config, Runtime(env, CommMeter()))
    results = {spec: run_layout(actor, policy, env, spec) for spec in specs}
    gathered: list = [None] * env.world
    dist.all_gather_object(gathered, results)
    if env.rank == 0:
        with open(out_path, "w") as f:
            json.dump({spec: [g[spec] for g in gathered] for spec in specs}, f)
    distributed.finish()


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2:])
    distributed.leave(0)  # as the trainer does: never let gloo's threads race interpreter finalisation
