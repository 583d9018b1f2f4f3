"""The reference policy: a frozen copy of the initial policy under FSDP2, forward only."""

from __future__ import annotations

from torch import nn

from trainer.batch import StepBatch
from trainer.config.schema import Config
from trainer.roles.common import Runtime, log_prob_pass, shard


class Reference:
    def __init__(self, model: nn.Module, config: Config, rt: Runtime) -> None:
        self.config = config
        self.rt = rt
        self.model = shard(model, rt, config.actor_rollout_ref.ref.fsdp_config, trainable=False)
        self.temperature = config.actor_rollout_ref.rollout.temperature
        self.remove_padding = config.actor_rollout_ref.model.use_remove_padding
        self.need_full = "full" in (config.actor_rollout_ref.actor.kl_loss_type, config.algorithm.kl_penalty)

    def compute_ref_log_prob(self, batch: StepBatch) -> None:
        batch.ref_logp, batch.ref_logp_full = log_prob_pass(
            self.model,
            batch,
            self.rt,
            self.config.actor_rollout_ref.ref,
            self.temperature,
            self.remove_padding,
            self.need_full,
        )
