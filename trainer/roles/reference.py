"""The reference policy: a frozen copy of the initial policy under FSDP2, forward only."""

from __future__ import annotations

import torch
from torch import nn

from trainer import packing
from trainer.batch import StepBatch
from trainer.config.schema import Config
from trainer.roles.actor import log_prob_spec
from trainer.roles.common import Runtime, forward_pass, micro_logits, shard


class Reference:
    def __init__(self, model: nn.Module, config: Config, rt: Runtime) -> None:
        self.config = config
        self.rt = rt
        self.model = shard(model, rt, config.actor_rollout_ref.ref.fsdp_config, trainable=False)
        self.temperature = config.actor_rollout_ref.rollout.temperature
        self.remove_padding = config.actor_rollout_ref.model.use_remove_padding
        self.need_full = "full" in (config.actor_rollout_ref.actor.kl_loss_type, config.algorithm.kl_penalty)

    def compute_ref_log_prob(self, batch: StepBatch) -> None:
        ref = self.config.actor_rollout_ref.ref
        spec = log_prob_spec(
            ref.log_prob_use_dynamic_bsz,
            ref.log_prob_micro_batch_size_per_gpu,
            ref.log_prob_max_token_len_per_gpu,
        )
        vocab = int(self.model.config.vocab_size)  # type: ignore[union-attr,arg-type]

        def run(mb: packing.MicroBatch) -> list[torch.Tensor]:
            logp, full = packing.token_logprobs(micro_logits(self.model, mb), mb.response_ids_NR, self.temperature)
            return [logp, full] if self.need_full else [logp]

        widths: list[tuple[int, ...]] = [(), (vocab,)] if self.need_full else [()]
        outs = forward_pass(batch, self.rt, spec, self.remove_padding, run, widths, "gather")
        batch.ref_logp = outs[0]
        batch.ref_logp_full = outs[1] if self.need_full else None
