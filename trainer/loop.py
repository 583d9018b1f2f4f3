"""The KL-PPO training loop: one `train_step` is rollout, log-probs, advantages, updates.

Departures from verl's `RayPPOTrainer.fit`, each deliberate:
* The reference pass always runs, even without a KL loss or KL reward, because the tuner's
  health limit is the KL to the reference; `actor/kl_loss` (estimator `kl_loss_type`) and
  `actor/reward_kl_penalty` (estimator `algorithm.kl_penalty`) are always reported, and enter
  the objective only when `use_kl_loss` / `use_kl_in_reward` say so.
* `timing_s/gen` is generation alone; the weight resharding before it is `timing_s/reshard`.
"""

from __future__ import annotations

import copy
import hashlib
import json
import os
import platform
import sys
import time
from typing import Any

import torch
import torch.distributed as dist
import transformers

from trainer import algos, metrics, task, warm_start
from trainer.batch import StepBatch
from trainer.config.loader import to_flat
from trainer.config.schema import Config
from trainer.distributed import CommMeter, DistEnv
from trainer.failures import inject
from trainer.model import Critic as CriticModel
from trainer.model import build_policy, policy_config
from trainer.platform import inert_table
from trainer.roles.actor import Actor
from trainer.roles.common import Runtime
from trainer.roles.critic import Critic
from trainer.roles.reference import Reference
from trainer.rollout.engine import HybridEngine
from trainer.rollout.sampler import SamplingParams

COMM_PHASES = ("all_gather", "reduce_scatter", "reshard", "tp_all_reduce", "gather")
"""FSDP training all-gather and reduce-scatter, weight resharding, rollout TP all-reduce, batch gathers."""


def config_hash(config: Config) -> str:
    flat = {k: v for k, v in to_flat(config).items() if not k.startswith("builtin.fault")}
    return hashlib.sha256(json.dumps(flat, sort_keys=True, default=str).encode()).hexdigest()[:16]


class Trainer:
    def __init__(self, config: Config, env: DistEnv) -> None:
        self.config = config
        self.env = env
        sync = torch.cuda.synchronize if env.is_cuda else (lambda: None)
        self.meter = CommMeter(sync=sync)
        self.timer = metrics.PhaseTimer(sync)
        rt = self.rt = Runtime(env, self.meter)
        seed = config.data.seed
        assert seed is not None
        self.hf_config = policy_config(config)
        policy = build_policy(config, seed)
        self.warm_start_s, self.warm_start_cached = 0.0, False
        if config.actor_rollout_ref.model.path is None and config.builtin.warm_start.steps > 0:
            self.warm_start_s, self.warm_start_cached = warm_start.apply(policy, config, seed)
        reference = copy.deepcopy(policy)
        self.critic = None
        if config.algorithm.adv_estimator == "gae":
            self.critic = Critic(CriticModel(copy.deepcopy(policy)), config, rt)
        self.actor = Actor(policy, config, rt)
        self.reference = Reference(reference, config, rt)
        self.engine = HybridEngine(
            self.actor.model,
            self.hf_config,
            config.actor_rollout_ref.rollout,
            rt,
            config.builtin.rollout_reshard,
        )
        kl = config.algorithm.kl_ctrl
        self.kl_ctrl = algos.KLController(kl.type, kl.kl_coef, kl.target_kl, kl.horizon)
        self.peak, self.peak_source = metrics.peak_flops(env.device, config.builtin.peak_flops)

    def header(self) -> dict[str, Any]:
        env_names = sorted(k for k in os.environ if k.startswith(("NCCL_", "CUDA_DEVICE_MAX_CONNECTIONS")))
        return {
            "world_size": self.env.world,
            "backend": self.env.backend,
            "device": torch.cuda.get_device_name(self.env.device)
            if self.env.is_cuda
            else platform.processor() or "cpu",
            "device_type": self.env.device.type,
            "versions": {
                "python": sys.version.split()[0],
                "torch": torch.__version__,
                "transformers": transformers.__version__,
            },
            "peak_flops_per_device": self.peak,
            "peak_flops_source": self.peak_source,
            "config_hash": config_hash(self.config),
            "threads_per_rank": torch.get_num_threads(),
            "warm_start_s": round(self.warm_start_s, 3),
            "warm_start_cached": self.warm_start_cached,
            "inert_knobs": inert_table(self.env.device.type, self.env.world, env_names),  # type: ignore[arg-type]
        }

    def train_step(self, step: int) -> dict[str, Any]:
        cfg, timer = self.config, self.timer
        rollout = cfg.actor_rollout_ref.rollout
        start = time.perf_counter()
        with timer.phase("step"):
            prompts = task.make_prompts(
                cfg.data.seed or 0,
                step,
                cfg.data.train_batch_size,
                cfg.builtin.task.min_digits,
                cfg.builtin.task.max_digits,
            )
            expanded = [list(p.ids) for p in prompts for _ in range(rollout.n)]
            params = SamplingParams(
                cfg.data.max_response_length, rollout.temperature, rollout.do_sample, cfg.data.seed or 0, step
            )
            with self.engine, timer.phase("gen"):
                responses, kv_bytes = self.engine.generate(expanded, params)
                self.memory_in_rollout(kv_bytes)
            self.rt.memory.rollout_bytes = 0 if self.engine.weights is None else self.engine.weights.nbytes()
            batch = StepBatch.from_rollout(prompts, rollout.n, responses)
            update, adv_metrics = self.learn(batch, step)
            fault = cfg.builtin.fault
            inject(fault.kind, step, fault.at_step, fault.rank, self.env.rank)
            if fault.kind == "slow" and step >= fault.at_step:
                time.sleep(9 * (time.perf_counter() - start))
        return self.collect(step, batch, update, adv_metrics, kv_bytes)

    def learn(self, batch: StepBatch, step: int) -> tuple[dict[str, float], dict[str, float]]:
        """Everything after rollout: log-probs, values, advantages, the critic's and the actor's
        updates. Returns (update metrics, advantage metrics)."""
        timer = self.timer
        if not self.bypass_old_log_prob(step, batch.size):
            with timer.phase("old_log_prob"):
                self.actor.compute_log_prob(batch)
        with timer.phase("ref"):
            self.reference.compute_ref_log_prob(batch)
        if self.critic is not None:
            with timer.phase("values"):
                self.critic.compute_values(batch)
        with timer.phase("adv"):
            adv_metrics = self.compute_advantages(batch)
        update: dict[str, float] = {}
        if self.critic is not None:
            with timer.phase("update_critic"):
                update.update(self.critic.update(batch, step))
        if step > self.config.trainer.critic_warmup:
            with timer.phase("update_actor"):
                update.update(self.actor.update(batch, step))
        return update, adv_metrics

    def memory_in_rollout(self, kv_bytes: int) -> None:
        """Rollout's tensor memory: the resharding peak, then the rollout weights with a full KV cache."""
        memory, stats = self.rt.memory, self.engine.stats
        memory.rollout_bytes = 0
        memory.sample(int(stats["rollout/reshard_peak_gb"] * 1024**3))
        memory.sample(int(stats["rollout/weights_gb"] * 1024**3) + kv_bytes)

    def bypass_old_log_prob(self, step: int, batch_size: int) -> bool:
        """The old-log-prob pass is redundant when this step's actor update is provably on-policy and
        no KL enters the reward (which needs the old log-probs before the update); the actor then
        uses its own detached log-probs as the old ones (verl's on-policy path)."""
        cfg = self.config
        return (
            cfg.builtin.on_policy_bypass
            and not cfg.algorithm.use_kl_in_reward
            and step > cfg.trainer.critic_warmup
            and self.actor.on_policy(batch_size)
        )

    def compute_advantages(self, batch: StepBatch) -> dict[str, float]:
        """Rewards (with the in-reward KL if configured) and advantages, on the whole batch, on every rank.

        Without old log-probs (bypassed) the in-reward KL is not used, and the actor's update reports it.
        """
        algo = self.config.algorithm
        assert batch.ref_logp is not None
        scores = algos.token_level_scores(batch.score, batch.mask)
        out: dict[str, float] = {}
        rewards = scores
        coef = 0.0
        if batch.old_logp is not None:
            kl = algos.kl_in_reward(
                scores, batch.old_logp, batch.ref_logp, batch.mask, self.kl_ctrl.value, algo.kl_penalty,
                batch.old_logp_full, batch.ref_logp_full,
            )  # fmt: skip
            out["actor/reward_kl_penalty"] = float(kl.mean_kl)
            if algo.use_kl_in_reward:
                coef, rewards = self.kl_ctrl.value, kl.rewards_BT
                self.kl_ctrl.update(float(kl.mean_kl), batch.size)
        if algo.adv_estimator == "gae":
            assert batch.values is not None
            batch.advantages, batch.returns = algos.gae(rewards, batch.values, batch.mask, algo.gamma, algo.lam)
        else:
            batch.advantages = algos.grpo_advantages(
                rewards.sum(-1), batch.group, batch.mask, algo.norm_adv_by_std_in_grpo
            )
            batch.returns = batch.advantages
        return out | {
            "actor/reward_kl_penalty_coeff": coef,
            "critic/rewards/mean": float(rewards.sum(-1).mean()),
            "critic/advantages/mean": float(algos.masked_mean(batch.advantages, batch.mask)),
            "critic/returns/mean": float(algos.masked_mean(batch.returns, batch.mask)),
        }

    def collect(
        self,
        step: int,
        batch: StepBatch,
        update: dict[str, float],
        adv_metrics: dict[str, float],
        kv_bytes: int,
    ) -> dict[str, Any]:
        """The step's metrics under verl's names (timings and memory: max over ranks)."""
        cfg, env = self.config, self.env
        timing = self.timer.take()
        timing["reshard"] = self.engine.reshard_seconds
        timing["gen"] = timing.get("gen", 0.0)
        timing["old_log_prob"] = timing.get("old_log_prob", 0.0)  # 0 when the on-policy bypass skipped it
        comm, received = self.meter.take()
        comm = {phase: comm.get(phase, 0.0) for phase in (*COMM_PHASES, *comm)}
        received = {phase: received.get(phase, 0) for phase in (*COMM_PHASES, *received)}
        per_rank = {f"timing_s/{k}": v for k, v in timing.items()}
        per_rank.update({f"timing_s/comm/{k}": v for k, v in comm.items()})
        per_rank["timing_s/comm"] = sum(comm.values())
        per_rank["perf/cpu_memory_used_gb"] = metrics.cpu_peak_rss_gb()
        per_rank["perf/tensor_memory_gb"] = self.rt.memory.take()
        if env.is_cuda:
            per_rank["perf/max_memory_allocated_gb"] = torch.cuda.max_memory_allocated(env.device) / 1024**3
            per_rank["perf/max_memory_reserved_gb"] = torch.cuda.max_memory_reserved(env.device) / 1024**3
        per_rank["perf/comm_share"] = per_rank["timing_s/comm"] / max(timing["step"], 1e-9)
        per_rank["rollout/kv_cache_gb"] = kv_bytes / 1024**3
        per_rank.update(self.engine.stats)
        per_rank.update({f"rollout/received_mb/{k}": v / 1024**2 for k, v in received.items()})
        out = self._max_over_ranks(per_rank)
        step_time = out["timing_s/step"]
        seqlens = batch.lengths
        out["perf/time_per_step"] = step_time
        out["perf/total_num_tokens"] = sum(seqlens)
        out["perf/throughput"] = sum(seqlens) / (step_time * env.world)
        update_time = out.get("timing_s/update_actor", 0.0)
        flops = metrics.decoder_flops(self.hf_config, seqlens) * cfg.actor_rollout_ref.actor.ppo_epochs
        out["perf/mfu/actor"] = flops / update_time / self.peak / env.world if update_time > 0 else 0.0
        lengths = batch.mask.sum(-1)
        out["response_length/mean"] = float(lengths.mean())
        out["response_length/max"] = float(lengths.max())
        out["response_length/clip_ratio"] = float((lengths >= cfg.data.max_response_length).float().mean())
        out["prompt_length/mean"] = sum(len(p) for p in batch.prompts) / batch.size
        out["critic/score/mean"] = float(batch.score.mean())
        out["critic/score/max"] = float(batch.score.max())
        out["actor/kl_coef"] = (
            cfg.actor_rollout_ref.actor.kl_loss_coef if cfg.actor_rollout_ref.actor.use_kl_loss else 0.0
        )
        if batch.values is not None:
            out["critic/values/mean"] = float(algos.masked_mean(batch.values, batch.mask))
        out.update(adv_metrics)
        out.update(update)
        out["training/global_step"] = step
        return out

    def _max_over_ranks(self, values: dict[str, float]) -> dict[str, float]:
        if self.env.world == 1:
            return dict(values)
        keys = sorted(values)
        tensor = torch.tensor([values[k] for k in keys], dtype=torch.float64, device=self.env.device)
        dist.all_reduce(tensor, op=dist.ReduceOp.MAX)
        return dict(zip(keys, tensor.tolist(), strict=True))


def run(config: Config, env: DistEnv) -> None:
    """Build the roles, then train for `trainer.total_training_steps` steps, streaming metrics.

    Returns with the metrics file closed and no reference left to the models, optimizers or the
    rollout meshes it built, so the caller's exit (`distributed.leave`) can collect them.
    """
    trainer = Trainer(config, env)
    sink = metrics.MetricsSink(config.trainer.metrics_file if env.rank == 0 else None)
    if env.rank == 0:
        sink.header(trainer.header())
    try:
        assert config.trainer.total_training_steps is not None
        for step in range(1, config.trainer.total_training_steps + 1):
            try:
                step_metrics = trainer.train_step(step)
            except BaseException as exc:
                exc.trainer_step = step  # type: ignore[attr-defined]  # for the failure reason line
                raise
            if env.rank == 0:
                sink.step(step, step_metrics)
    finally:
        sink.close()
        del trainer
