"""The critic (GAE only): a value model under FSDP2 with its own AdamW; values and value updates."""

from __future__ import annotations

from collections import defaultdict

import torch

from trainer import algos, batching, packing
from trainer.batch import StepBatch
from trainer.config.schema import Config
from trainer.model import Critic as CriticModel
from trainer.roles.common import Runtime, accumulate, adamw, clip_and_step, forward_pass, shard, token_means


class Critic:
    def __init__(self, model: CriticModel, config: Config, rt: Runtime) -> None:
        self.config = config
        self.cfg = config.critic
        self.rt = rt
        self.model = shard(model, rt, config.actor_rollout_ref.actor.fsdp_config, trainable=True)
        self.optimizer = adamw(self.model, self.cfg.optim)
        rt.memory.track_optimizer(self.optimizer)
        self.remove_padding = config.actor_rollout_ref.model.use_remove_padding

    def _values(self, mb: packing.MicroBatch) -> torch.Tensor:
        out = self.model(mb.input_ids, mb.position_ids, mb.attention_mask)
        return packing.gather_positions(out, mb) * mb.mask_NR

    def compute_values(self, batch: StepBatch) -> None:
        cfg = self.cfg
        assert cfg.use_dynamic_bsz is not None and cfg.forward_max_token_len_per_gpu is not None
        spec = batching.PassSpec(
            cfg.use_dynamic_bsz, cfg.ppo_micro_batch_size_per_gpu, cfg.forward_max_token_len_per_gpu
        )
        self.model.eval()
        (batch.values,) = forward_pass(
            batch, self.rt, spec, self.remove_padding, lambda mb: [self._values(mb)], [()], "gather"
        )

    def update(self, batch: StepBatch, step: int) -> dict[str, float]:
        cfg = self.cfg
        assert cfg.use_dynamic_bsz is not None and cfg.ppo_mini_batch_size is not None and cfg.ppo_epochs is not None
        n = self.config.actor_rollout_ref.rollout.n
        spec = batching.PassSpec(cfg.use_dynamic_bsz, cfg.ppo_micro_batch_size_per_gpu, cfg.ppo_max_token_len_per_gpu)
        sums: dict[str, float] = defaultdict(float)
        norms = []
        self.model.train()
        shuffle = self.config.actor_rollout_ref.actor.shuffle
        for epoch in range(cfg.ppo_epochs):
            seed = (self.config.data.seed or 0) * 7907 + step * 37 + epoch
            for mini in batching.mini_batches(batch.size, cfg.ppo_mini_batch_size * n, shuffle, seed):
                accumulate(
                    batch,
                    mini,
                    self.rt,
                    spec,
                    lambda items, denom: self._micro_step(batch, items, denom, sums),
                )
                norms.append(clip_and_step(self.model, self.optimizer, cfg.grad_clip, "critic"))
        metrics = token_means(sums, self.rt, "critic")
        metrics["critic/grad_norm"] = sum(norms) / len(norms)
        return metrics

    def _micro_step(self, batch: StepBatch, items: list[int], denom: float, sums: dict[str, float]) -> None:
        real = bool(items)
        items = items or [0]  # an empty pack joins FSDP's collectives with a zero gradient
        dev = self.rt.env.device
        mb = packing.to_device(batch.micro_batch(items, self.remove_padding), dev)
        memory = self.rt.memory
        with memory.forward():
            vpred = self._values(mb)
            old = batch.rows(batch.values, items).to(dev)
            returns = batch.rows(batch.returns, items).to(dev)
            loss, clipfrac = algos.value_loss(vpred, returns, old, mb.mask_NR, self.cfg.cliprange_value, denom=1.0)
            memory.sample()
        (loss / denom * (1.0 if real else 0.0)).backward()
        memory.backward_done()
        if real:
            tokens = float(mb.mask_NR.sum())
            sums["tokens"] += tokens
            sums["vf_loss"] += float(loss.detach())
            sums["vf_clipfrac"] += float(clipfrac) * tokens
            sums["vpred_mean"] += float(algos.masked_sum(vpred.detach(), mb.mask_NR))
