"""The hybrid engine: the actor's FSDP2 shards become rollout weights for the duration of rollout.

    with engine:                 # enter: reshard (timed as timing_s/reshard)
        responses = engine.generate(prompts, ...)
                                 # exit: free the rollout weights (rollout.free_cache_engine)

Rollout runs on a 2-D layout: W/k data-parallel groups of k tensor-parallel ranks (k =
`rollout.tensor_model_parallel_size`). Entering reshards the FSDP shards into each rank's TP
shard (trainer/rollout/reshard.py: zero-redundancy by default, naive for comparison). Prompts are
split over the data-parallel groups and the responses gathered back, so every rank leaves rollout
holding the whole step's responses.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from types import TracebackType
from typing import Any, Literal

import torch
import torch.distributed as dist
from torch import nn
from torch.distributed.device_mesh import init_device_mesh
from transformers import PretrainedConfig

from trainer.config.schema import RolloutConfig
from trainer.distributed import all_gather_objects
from trainer.roles.common import Runtime
from trainer.rollout import reshard, sampler
from trainer.rollout.decoder import AllReduce, RolloutWeights
from trainer.rollout.weights import assemble, check_tp_divisible, decoder_shape


class HybridEngine:
    def __init__(
        self,
        actor_model: nn.Module,
        hf_config: PretrainedConfig,
        cfg: RolloutConfig,
        rt: Runtime,
        reshard_mode: Literal["zero_redundancy", "naive"] = "zero_redundancy",
    ) -> None:
        env = rt.env
        self.tp = cfg.tensor_model_parallel_size
        if env.world % self.tp:
            raise ValueError(f"rollout tensor_model_parallel_size={self.tp} must divide the world size {env.world}")
        check_tp_divisible(hf_config, self.tp)
        self.model = actor_model
        self.hf_config = hf_config
        self.shape = decoder_shape(hf_config)
        self.cfg = cfg
        self.rt = rt
        self.reshard_mode = reshard_mode
        self.tp_group = None
        if self.tp > 1:
            mesh = init_device_mesh(
                env.device.type, (env.world // self.tp, self.tp), mesh_dim_names=("rollout_dp", "rollout_tp")
            )
            self.tp_group = mesh.get_group("rollout_tp")
        self.shapes = {name: p.shape for name, p in actor_model.named_parameters()}
        self.weights: RolloutWeights | None = None
        self._buffers: dict[str, torch.Tensor] | None = None
        self.reshard_seconds = 0.0
        self.stats: dict[str, float] = {}

    def __enter__(self) -> HybridEngine:
        start = time.perf_counter()
        with self.rt.meter.phase("reshard"), torch.no_grad():
            tensors, stats = self._reshard()
        self.weights = assemble(tensors, self.hf_config.num_hidden_layers)
        self.reshard_seconds = time.perf_counter() - start
        self.stats["rollout/weights_gb"] = self.weights.nbytes() / 1024**3
        self.stats["rollout/reshard_peak_gb"] = stats.peak_bytes / 1024**3
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        """Leave rollout: drop the rollout weights (or keep them for reuse when free_cache_engine=false)."""
        if self.cfg.free_cache_engine:
            self.weights = None
            self._buffers = None

    def _reshard(self) -> tuple[dict[str, torch.Tensor], reshard.ReshardStats]:
        env = self.rt.env
        params = {name: p.detach() for name, p in self.model.named_parameters()}
        meter = self.rt.meter

        def run(fn: Callable[..., object], *args: Any, **kwargs: Any) -> object:
            return meter.run("reshard", fn, *args, **kwargs)

        if self.reshard_mode == "naive":
            return reshard.naive(params, self.shapes, env.rank, env.world, self.tp, run)
        locals_ = {name: _local(p) for name, p in params.items()}
        tensors, stats = reshard.zero_redundancy(
            locals_, self.shapes, env.rank, env.world, self.tp, run, out=self._buffers
        )
        if not self.cfg.free_cache_engine:
            self._buffers = tensors
        return tensors, stats

    def _all_reduce(self) -> AllReduce:
        if self.tp_group is None:
            return lambda t: None
        group = self.tp_group
        return lambda t: self.rt.meter.run("tp_all_reduce", dist.all_reduce, t, group=group)

    def generate(self, prompts: list[list[int]], params: sampler.SamplingParams) -> tuple[list[list[int]], int]:
        """Responses for all `prompts` (global list; response i has sample id i), on every rank.

        Each rollout data-parallel group (the TP ranks g·k .. g·k+k-1) generates one contiguous
        share of the prompts; its ranks sample identical tokens, so one of them reports.
        """
        assert self.weights is not None, "generate() outside the engine's context"
        env = self.rt.env
        groups = env.world // self.tp
        group = env.rank // self.tp
        per_group = -(-len(prompts) // groups)
        lo, hi = group * per_group, min(len(prompts), (group + 1) * per_group)
        mine, kv_bytes = sampler.generate(
            self.weights, self.shape, prompts[lo:hi], list(range(lo, hi)), params, self._all_reduce()
        )
        gathered = all_gather_objects(mine, env.world, self.rt.meter, "gather")
        return [r for rank, part in enumerate(gathered) if rank % self.tp == 0 for r in part], kv_bytes

    def score(self, prompts: list[list[int]], responses: list[list[int]], temperature: float) -> torch.Tensor:
        """Log-probs [B, R] of given responses under the rollout weights (every rank scores them all,
        each TP group through its own all-reduce): what the rollout's layout computes for fixed sequences."""
        assert self.weights is not None, "score() outside the engine's context"
        return sampler.response_logprobs(self.weights, self.shape, prompts, responses, temperature, self._all_reduce())


def _local(param: torch.Tensor) -> torch.Tensor:
    """This rank's FSDP shard of a parameter (the tensor itself when not sharded)."""
    return param.to_local() if hasattr(param, "to_local") else param
