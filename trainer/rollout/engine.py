"""The hybrid engine: the actor's FSDP2 shards become rollout weights for the duration of rollout.

    with engine:                 # enter: reshard (timed as timing_s/reshard)
        responses = engine.generate(prompts, ...)
                                 # exit: free the rollout weights (rollout.free_cache_engine)

At rollout tensor-parallel size 1 every rank holds a full copy, gathered from the FSDP shards
each step. Prompts are split over the rollout data-parallel groups and the responses gathered
back, so every rank leaves rollout holding the whole step's responses.
"""

from __future__ import annotations

import time
from types import TracebackType

import torch
from torch import nn
from transformers import PretrainedConfig

from trainer.config.schema import RolloutConfig
from trainer.distributed import all_gather_objects
from trainer.roles.common import Runtime
from trainer.rollout import sampler
from trainer.rollout.decoder import RolloutWeights
from trainer.rollout.weights import assemble, decoder_shape


class RolloutConfigError(ValueError):
    """A rollout layout this trainer cannot run."""


class HybridEngine:
    def __init__(
        self, actor_model: nn.Module, hf_config: PretrainedConfig, cfg: RolloutConfig, rt: Runtime
    ) -> None:
        if cfg.tensor_model_parallel_size != 1:
            raise RolloutConfigError(
                "actor_rollout_ref.rollout.tensor_model_parallel_size > 1 is not supported by this trainer yet "
                f"(got {cfg.tensor_model_parallel_size}); set it to 1"
            )
        self.model = actor_model
        self.hf_config = hf_config
        self.shape = decoder_shape(hf_config)
        self.cfg = cfg
        self.rt = rt
        self.weights: RolloutWeights | None = None
        self.reshard_seconds = 0.0
        self.stats: dict[str, float] = {}

    def __enter__(self) -> HybridEngine:
        start = time.perf_counter()
        with self.rt.meter.phase("reshard"):
            self.weights = self._reshard()
        self.reshard_seconds = time.perf_counter() - start
        self.stats["rollout/weights_gb"] = self.weights.nbytes() / 1024**3
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        if self.cfg.free_cache_engine:
            self.weights = None

    @torch.no_grad()
    def _reshard(self) -> RolloutWeights:
        """Full copy per rank: all-gather every FSDP shard (DTensor.full_tensor)."""
        tensors = {}
        for name, param in self.model.named_parameters():
            data = param.detach()
            full = self.rt.meter.run("reshard", data.full_tensor) if hasattr(data, "full_tensor") else data
            tensors[name] = full
        return assemble(tensors, self.hf_config.num_hidden_layers)

    def generate(
        self, prompts: list[list[int]], params: sampler.SamplingParams
    ) -> tuple[list[list[int]], int]:
        """Responses for all `prompts` (global list; response i has sample id i), on every rank."""
        assert self.weights is not None, "generate() outside the engine's context"
        env = self.rt.env
        per_rank = -(-len(prompts) // env.world)
        lo, hi = env.rank * per_rank, min(len(prompts), (env.rank + 1) * per_rank)
        mine, kv_bytes = sampler.generate(
            self.weights, self.shape, prompts[lo:hi], list(range(lo, hi)), params, all_reduce=lambda t: None
        )
        gathered = all_gather_objects(mine, env.world, self.rt.meter, "gather")
        return [r for part in gathered for r in part], kv_bytes
