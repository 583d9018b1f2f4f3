"""The critic (GAE only): a value model under FSDP2 with its own AdamW; values and value updates."""

from __future__ import annotations

from collections import defaultdict

import torch
import torch.distributed as dist

from trainer import algos, batching, packing
from trainer.batch import StepBatch
from trainer.config.schema import Config
from trainer.failures import NonFiniteError
from trainer.model import Critic as CriticModel
from trainer.roles.common import Runtime, forward_pass, shard


class Critic:
    def __init__(self, model: CriticModel, config: Config, rt: Runtime) -> None:
        self.config = config
        self.cfg = config.critic
        self.rt = rt
        self.model = shard(model, rt, config.actor_rollout_ref.actor.fsdp_config, trainable=True)
        optim = self.cfg.optim
        self.optimizer = torch.optim.AdamW(
            self.model.parameters(), lr=optim.lr, betas=(optim.betas[0], optim.betas[1]), weight_decay=optim.weight_decay
        )
        self.remove_padding = config.actor_rollout_ref.model.use_remove_padding

    def _values(self, mb: packing.MicroBatch) -> torch.Tensor:
        out = self.model(mb.input_ids, mb.position_ids, mb.attention_mask)
        return packing.gather_positions(out, mb) * mb.mask_NR

    def compute_values(self, batch: StepBatch) -> None:
        cfg = self.cfg
        assert cfg.use_dynamic_bsz is not None and cfg.forward_max_token_len_per_gpu is not None
        spec = batching.PassSpec(cfg.use_dynamic_bsz, cfg.ppo_micro_batch_size_per_gpu, cfg.forward_max_token_len_per_gpu)
        self.model.eval()
        (batch.values,) = forward_pass(batch, self.rt, spec, self.remove_padding, lambda mb: [self._values(mb)], [()], "gather")

    def update(self, batch: StepBatch, step: int) -> dict[str, float]:
        cfg, env = self.cfg, self.rt.env
        assert cfg.use_dynamic_bsz is not None and cfg.ppo_mini_batch_size is not None and cfg.ppo_epochs is not None
        n = self.config.actor_rollout_ref.rollout.n
        spec = batching.PassSpec(cfg.use_dynamic_bsz, cfg.ppo_micro_batch_size_per_gpu, cfg.ppo_max_token_len_per_gpu)
        sums: dict[str, float] = defaultdict(float)
        norms: list[float] = []
        self.model.train()
        dev = env.device
        for epoch in range(cfg.ppo_epochs):
            seed = self.config.data.seed * 7907 + step * 37 + epoch  # type: ignore[operator]
            for mini in batching.mini_batches(batch.size, cfg.ppo_mini_batch_size * n, self.config.actor_rollout_ref.actor.shuffle, seed):
                rank_items = batching.spread(mini, batch.lengths, env.world)
                denom = float(batch.mask[mini].sum()) / env.world
                for items in batching.micro_batches(rank_items, env.rank, batch.lengths, spec):
                    real = bool(items)
                    mb = packing.to_device(batch.micro_batch(items or [0], self.remove_padding), dev)
                    vpred = self._values(mb)
                    old = batch.rows(batch.values, items or [0]).to(dev)
                    returns = batch.rows(batch.returns, items or [0]).to(dev)
                    loss, clipfrac = algos.value_loss(vpred, returns, old, mb.mask_NR, cfg.cliprange_value, denom=1.0)
                    (loss / denom * (1.0 if real else 0.0)).backward()
                    if real:
                        tokens = float(mb.mask_NR.sum())
                        sums["tokens"] += tokens
                        sums["vf_loss"] += float(loss.detach())
                        sums["vf_clipfrac"] += float(clipfrac) * tokens
                        sums["vpred_mean"] += float(algos.masked_sum(vpred.detach(), mb.mask_NR))
                norm = torch.nn.utils.clip_grad_norm_(self.model.parameters(), cfg.grad_clip)
                value = float(norm.full_tensor() if hasattr(norm, "full_tensor") else norm)
                if not torch.isfinite(torch.tensor(value)):
                    raise NonFiniteError(f"critic gradient norm is {value}")
                norms.append(value)
                self.optimizer.step()
                self.optimizer.zero_grad(set_to_none=True)
        keys = sorted(sums)
        totals = torch.tensor([sums[k] for k in keys], dtype=torch.float64)
        if env.world > 1:
            self.rt.meter.run("gather", dist.all_reduce, totals)
        merged = dict(zip(keys, totals.tolist(), strict=True))
        tokens = merged.pop("tokens")
        metrics = {f"critic/{k}": v / tokens for k, v in merged.items()}
        metrics["critic/grad_norm"] = sum(norms) / len(norms)
        return metrics
