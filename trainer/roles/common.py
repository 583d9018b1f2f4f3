"""Helpers the roles share: FSDP2 wrapping, forward-only passes over a rank's micro-batches, and
the gather that gives every rank the whole step's results.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable
from dataclasses import dataclass, field

import torch
import torch.distributed as dist
from torch import nn
from torch.distributed.fsdp import (
    CPUOffloadPolicy,
    FSDPModule,
    MixedPrecisionPolicy,
    OffloadPolicy,
    fully_shard,
)

from trainer import batching, packing
from trainer.batch import StepBatch
from trainer.config.schema import FSDPConfig, LogProbConfig, OptimConfig
from trainer.distributed import CommMeter, DistEnv, fsdp_comm_hooks
from trainer.memory import TensorMemory
from trainer.model import decoder_blocks


@dataclass
class Runtime:
    """What every role needs from its surroundings."""

    env: DistEnv
    meter: CommMeter
    memory: TensorMemory = field(default_factory=TensorMemory)


def shard(model: nn.Module, rt: Runtime, cfg: FSDPConfig, trainable: bool) -> nn.Module:
    """FSDP2: each decoder block is a unit, the root holds embedding, final norm and head.

    `forward_prefetch` sets explicit prefetching of block i+1's all-gather when block i starts
    (FSDP2's own default prefetches only in backward). Offloading needs a GPU: on a CPU run the
    parameters already live in host memory, so the offload knobs change nothing there.
    """
    model.to(rt.env.device)
    offload = cfg.offload_policy or cfg.param_offload or cfg.optimizer_offload
    policy = CPUOffloadPolicy(pin_memory=True) if offload and rt.env.is_cuda else OffloadPolicy()
    dtype = torch.bfloat16 if cfg.model_dtype == "bf16" else None
    mp = MixedPrecisionPolicy(param_dtype=dtype, reduce_dtype=torch.float32 if dtype else None)
    blocks = decoder_blocks(model)
    for block in blocks:
        fully_shard(
            block,
            mesh=rt.env.mesh,
            reshard_after_forward=cfg.reshard_after_forward,
            offload_policy=policy,
            mp_policy=mp,
        )
    fully_shard(
        model,
        mesh=rt.env.mesh,
        reshard_after_forward=cfg.reshard_after_forward,
        offload_policy=policy,
        mp_policy=mp,
    )
    if cfg.forward_prefetch:
        for current, following in itertools.pairwise(blocks):
            current.set_modules_to_forward_prefetch([following])  # type: ignore[operator]
    all_gather, reduce_scatter = fsdp_comm_hooks(rt.meter)
    for module in [*blocks, model]:
        assert isinstance(module, FSDPModule)
        module.set_custom_all_gather(all_gather)
        module.set_custom_reduce_scatter(reduce_scatter)
    if not trainable:
        model.requires_grad_(False)
        model.eval()
    rt.memory.track(model, [*blocks, model])
    return model


def forward_pass(
    batch: StepBatch,
    rt: Runtime,
    spec: batching.PassSpec,
    remove_padding: bool,
    run: Callable[[packing.MicroBatch], list[torch.Tensor]],
    widths: list[tuple[int, ...]],
    phase: str,
) -> list[torch.Tensor]:
    """Run `run` over this rank's share of the batch, then gather so every rank holds [B, R, ...].

    `run` returns, per output, a tensor [N, R, *width] for the micro-batch's N responses.
    Ranks own equal numbers of responses, so the gather is a fixed-shape all_gather.
    """
    env = rt.env
    rank_items = batching.spread(range(batch.size), batch.lengths, env.world)
    mine = rank_items[env.rank]
    local = [torch.zeros(len(mine), batch.width, *w, device=env.device) for w in widths]
    row = {item: i for i, item in enumerate(mine)}
    with torch.no_grad():
        for items in batching.micro_batches(rank_items, env.rank, batch.lengths, spec):
            if not items:
                run_empty(batch, run, remove_padding, env.device)
                continue
            mb = packing.to_device(batch.micro_batch(items, remove_padding), env.device)
            outs = run(mb)
            rows = torch.tensor([row[i] for i in items], device=env.device)
            for buf, out in zip(local, outs, strict=True):
                buf[rows] = out.to(buf.dtype)
    results = []
    for buf, w in zip(local, widths, strict=True):
        full = torch.zeros(batch.size, batch.width, *w)
        if env.world == 1:
            full[mine] = buf.cpu()
        else:
            parts = [torch.empty_like(buf) for _ in range(env.world)]
            rt.meter.run(
                phase,
                dist.all_gather,
                parts,
                buf,
                received=buf.numel() * buf.element_size() * (env.world - 1),
            )
            for items, part in zip(rank_items, parts, strict=True):
                full[items] = part.cpu()
        results.append(full)
    return results


def run_empty(
    batch: StepBatch,
    run: Callable[[packing.MicroBatch], list[torch.Tensor]],
    remove_padding: bool,
    device: torch.device,
) -> None:
    """A rank with no responses left still joins the pass's collectives (FSDP all-gathers) with a dummy pack."""
    dummy = packing.to_device(
        packing.build([batch.prompts[0]], [batch.responses[0]], batch.width, remove_padding), device
    )
    run(dummy)


def micro_logits(model: nn.Module, mb: packing.MicroBatch) -> torch.Tensor:
    """Policy logits at the scoring positions, [N, R, V] (zeros at padding positions)."""
    valid = mb.mask_NR.bool()
    if mb.attention_mask is None and mb.input_ids.shape[0] == 1:  # one packed row: only the scoring positions
        keep = mb.score_index[valid]
        logits = model(input_ids=mb.input_ids, position_ids=mb.position_ids, logits_to_keep=keep).logits[0]
    else:
        full = model(input_ids=mb.input_ids, position_ids=mb.position_ids, attention_mask=mb.attention_mask).logits
        logits = full.reshape(-1, full.shape[-1])[mb.score_index[valid]]
    out = logits.new_zeros(*mb.mask_NR.shape, logits.shape[-1])
    out[valid] = logits
    return out


def accumulate(
    batch: StepBatch,
    mini: list[int],
    rt: Runtime,
    spec: batching.PassSpec,
    micro_step: Callable[[list[int], float], None],
) -> None:
    """Backward over this rank's micro-batches of one global mini-batch (gradients accumulate).

    `micro_step(items, denom)` gets the response indices (empty: join the collectives with a zero
    gradient) and the token-mean denominator: the mini-batch's tokens divided by the world size.
    """
    env = rt.env
    rank_items = batching.spread(mini, batch.lengths, env.world)
    denom = float(batch.mask[mini].sum()) / env.world
    for items in batching.micro_batches(rank_items, env.rank, batch.lengths, spec):
        micro_step(items, denom)


def clip_and_step(model: nn.Module, optimizer: torch.optim.Optimizer, max_norm: float, who: str) -> float:
    """Clip the global gradient norm, step, zero the gradients; a non-finite norm is a NaN failure."""
    from trainer.failures import NonFiniteError

    norm = torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm)
    value = float(norm.full_tensor() if hasattr(norm, "full_tensor") else norm)
    if not torch.isfinite(torch.tensor(value)):
        raise NonFiniteError(f"{who} gradient norm is {value} (NaN/Inf loss)")
    optimizer.step()
    optimizer.zero_grad(set_to_none=True)
    return value


def token_means(sums: dict[str, float], rt: Runtime, prefix: str) -> dict[str, float]:
    """Sum the per-rank accumulators over ranks and divide by the token count (`sums['tokens']`)."""
    keys = sorted(sums)
    totals = torch.tensor([sums[k] for k in keys], dtype=torch.float64)
    if rt.env.world > 1:
        rt.meter.run("gather", dist.all_reduce, totals)
    merged = dict(zip(keys, totals.tolist(), strict=True))
    tokens = merged.pop("tokens")
    return {f"{prefix}/{k}": v / tokens for k, v in merged.items()}


def adamw(model: nn.Module, cfg: OptimConfig) -> torch.optim.Optimizer:
    """AdamW over a sharded model, from a role's `optim` section."""
    return torch.optim.AdamW(
        model.parameters(), lr=cfg.lr, betas=(cfg.betas[0], cfg.betas[1]), weight_decay=cfg.weight_decay
    )


def log_prob_pass(
    model: nn.Module,
    batch: StepBatch,
    rt: Runtime,
    section: LogProbConfig,
    temperature: float,
    remove_padding: bool,
    need_full: bool,
) -> tuple[torch.Tensor, torch.Tensor | None]:
    """Log-probs of every response under `model` (and the full distributions when a `full` KL needs them).

    `section` is the pass's micro-batching (the reference's or the rollout's log-prob settings).
    """
    dynamic, budget = section.log_prob_use_dynamic_bsz, section.log_prob_max_token_len_per_gpu
    assert dynamic is not None and budget is not None, "Config resolves the log-prob interpolations"
    spec = batching.PassSpec(dynamic, section.log_prob_micro_batch_size_per_gpu, budget)
    vocab = int(model.config.vocab_size)  # type: ignore[union-attr,arg-type]

    def run(mb: packing.MicroBatch) -> list[torch.Tensor]:
        logp, full = packing.token_logprobs(micro_logits(model, mb), mb.response_ids_NR, temperature)
        return [logp, full] if need_full else [logp]

    widths: list[tuple[int, ...]] = [(), (vocab,)] if need_full else [()]
    outs = forward_pass(batch, rt, spec, remove_padding, run, widths, "gather")
    return outs[0], outs[1] if need_full else None
