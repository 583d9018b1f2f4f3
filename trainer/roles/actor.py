"""The actor: the policy under FSDP2 with AdamW; computes old log-probs and runs the PPO update."""

from __future__ import annotations

from collections import defaultdict

import torch
from torch import nn

from trainer import algos, batching, packing
from trainer.batch import StepBatch
from trainer.config.schema import Config
from trainer.failures import inject
from trainer.roles.common import (
    Runtime,
    accumulate,
    adamw,
    clip_and_step,
    log_prob_pass,
    micro_logits,
    shard,
    token_means,
)


class Actor:
    def __init__(self, model: nn.Module, config: Config, rt: Runtime) -> None:
        self.config = config
        self.cfg = config.actor_rollout_ref.actor
        self.rt = rt
        self.model = shard(model, rt, self.cfg.fsdp_config, trainable=True)
        self.optimizer = adamw(self.model, self.cfg.optim)
        rt.memory.track_optimizer(self.optimizer)
        self.temperature = config.actor_rollout_ref.rollout.temperature
        self.remove_padding = config.actor_rollout_ref.model.use_remove_padding
        self.need_full = "full" in (self.cfg.kl_loss_type, config.algorithm.kl_penalty)

    def compute_log_prob(self, batch: StepBatch) -> None:
        """Old log-probs π_old(token) of every response (verl's `old_log_prob` phase)."""
        batch.old_logp, batch.old_logp_full = log_prob_pass(
            self.model,
            batch,
            self.rt,
            self.config.actor_rollout_ref.rollout,
            self.temperature,
            self.remove_padding,
            self.need_full,
        )

    def on_policy(self, batch_size: int) -> bool:
        """One PPO epoch over one mini-batch: every forward of the update sees the rollout's weights."""
        return self.cfg.ppo_epochs == 1 and self.mini_batch_responses >= batch_size

    def update(self, batch: StepBatch, step: int) -> dict[str, float]:
        """PPO epochs over global mini-batches; returns token-weighted means over the whole update.

        Without old log-probs (`batch.old_logp is None`, the on-policy bypass) the update's own
        log-probs, detached, are the old ones (ratio 1, verl's on-policy path), and the in-reward KL
        estimate `actor/reward_kl_penalty` is measured from them.
        """
        cfg = self.cfg
        assert batch.old_logp is not None or self.on_policy(batch.size), "the bypass needs an on-policy update"
        sums: dict[str, float] = defaultdict(float)
        grad_norms = []
        self.model.train()
        for epoch in range(cfg.ppo_epochs):
            seed = (self.config.data.seed or 0) * 7919 + step * 31 + epoch
            for mini in batching.mini_batches(batch.size, self.mini_batch_responses, cfg.shuffle, seed):
                self.accumulate_gradients(batch, mini, step, sums)
                grad_norms.append(clip_and_step(self.model, self.optimizer, cfg.grad_clip, "actor"))
        metrics = token_means(sums, self.rt, "actor")
        if "actor/reward_kl_seq" in metrics:  # both divided by the token count: their ratio is the per-sequence mean
            metrics["actor/reward_kl_penalty"] = metrics.pop("actor/reward_kl_seq") / metrics.pop("actor/sequences")
        metrics["actor/grad_norm"] = sum(grad_norms) / len(grad_norms)
        metrics["actor/lr"] = cfg.optim.lr
        return metrics

    @property
    def mini_batch_responses(self) -> int:
        return self.cfg.ppo_mini_batch_size * self.config.actor_rollout_ref.rollout.n

    @property
    def update_spec(self) -> batching.PassSpec:
        cfg = self.cfg
        return batching.PassSpec(cfg.use_dynamic_bsz, cfg.ppo_micro_batch_size_per_gpu, cfg.ppo_max_token_len_per_gpu)

    def accumulate_gradients(
        self,
        batch: StepBatch,
        mini: list[int],
        step: int,
        sums: dict[str, float],
        spec: batching.PassSpec | None = None,
    ) -> None:
        """Backward of the PPO loss over one global mini-batch (this rank's share), no optimizer step."""
        accumulate(
            batch,
            mini,
            self.rt,
            spec or self.update_spec,
            lambda items, denom: self._micro_step(batch, items, denom, step, sums),
        )

    def _micro_step(self, batch: StepBatch, items: list[int], denom: float, step: int, sums: dict[str, float]) -> None:
        cfg = self.cfg
        real = bool(items)
        if not real:  # an empty pack still joins FSDP's collectives, contributing a zero gradient
            items = [0]
        mb = packing.to_device(batch.micro_batch(items, self.remove_padding), self.rt.env.device)
        mask = mb.mask_NR
        dev = self.rt.env.device
        memory = self.rt.memory
        with memory.forward():
            logits = micro_logits(self.model, mb)
            logp, logp_full = packing.token_logprobs(logits, mb.response_ids_NR, self.temperature)
            bypass = batch.old_logp is None
            old = logp.detach() if bypass else batch.rows(batch.old_logp, items).to(dev)
            adv = batch.rows(batch.advantages, items).to(dev)
            pg = algos.policy_loss(old, logp, adv, mask, cfg.clip_low, cfg.clip_high, cfg.clip_ratio_c, denom=1.0)
            entropy = algos.masked_sum(algos.entropy_from_logits(logits, self.temperature), mask)
            ref = batch.rows(batch.ref_logp, items).to(dev)
            ref_full = batch.rows(batch.ref_logp_full, items).to(dev) if cfg.kl_loss_type == "full" else None
            kl = algos.masked_sum(algos.kl_estimate(logp, ref, cfg.kl_loss_type, logp_full, ref_full), mask)
            loss = pg.loss - cfg.entropy_coeff * entropy
            if cfg.use_kl_loss:
                loss = loss + cfg.kl_loss_coef * kl
            loss = loss / denom * (1.0 if real else 0.0)
            memory.sample()  # the forward's peak: every activation the backward needs is alive
        fault = self.config.builtin.fault
        poisoned = inject(fault.kind, step, fault.at_step, fault.rank, self.rt.env.rank, loss)
        assert poisoned is not None
        poisoned.backward()
        memory.backward_done()
        if real:
            tokens = float(mask.sum())
            sums["tokens"] += tokens
            sums["pg_loss"] += float(pg.loss.detach())
            sums["pg_clipfrac"] += float(pg.clipfrac) * tokens
            sums["pg_clipfrac_lower"] += float(pg.clipfrac_lower) * tokens
            sums["ppo_kl"] += float(pg.ppo_kl) * tokens
            sums["entropy"] += float(entropy.detach())
            sums["kl_loss"] += float(kl.detach())
            if bypass:
                self._reward_kl(batch, items, logp.detach(), logp_full, mask, sums)

    def _reward_kl(
        self,
        batch: StepBatch,
        items: list[int],
        logp: torch.Tensor,
        logp_full: torch.Tensor,
        mask: torch.Tensor,
        sums: dict[str, float],
    ) -> None:
        """The in-reward KL estimate (`algorithm.kl_penalty`) of the old policy, from the update's log-probs."""
        dev = self.rt.env.device
        kind = self.config.algorithm.kl_penalty
        ref = batch.rows(batch.ref_logp, items).to(dev)
        ref_full = batch.rows(batch.ref_logp_full, items).to(dev) if kind == "full" else None
        full = logp_full.detach() if kind == "full" else None
        kl = algos.kl_estimate(logp, ref, kind, full, ref_full) * mask
        sums["reward_kl_seq"] += float((kl.sum(-1) / mask.sum(-1).clamp(min=1)).sum())
        sums["sequences"] += len(items)
