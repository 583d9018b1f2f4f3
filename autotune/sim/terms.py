"""The cost model's terms, each a small function of the workload, the model shape and the cluster.

Every phase's time is a weighted sum of *features* (model.py holds the weights): ideal seconds at
the device's datasheet rate (FLOPs / peak, bytes / bandwidth), collective seconds from the NCCL
model (nccl.py), and counts of things with a fixed cost each (micro-batches, decode steps,
optimizer steps). An efficiency curve in micro-batch tokens, t = F/(peak·e·T/(T+T½)), is exactly
"F/(peak·e)" plus a constant per micro-batch, which is how it appears here.

Memory is analytic and not fitted: parameters, gradients and Adam state under FSDP sharding and
offload, the unsharded bf16 layers in flight, activations of one micro-batch (with or without
gradient checkpointing), the fp32 logits, and vLLM's `gpu_memory_utilization` reservation during
rollout while the training state stays resident.
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass

from autotune.sim.hardware import Cluster
from autotune.sim.nccl import collective_seconds
from autotune.sim.workload import Shape, Workload

ACTIVATION_BYTES_PER_TOKEN_HIDDEN = 34
"""Per layer, bytes of saved activations per token per hidden unit in 16-bit training (Korthikanti et
al., arXiv 2205.05198: 34·s·b·h without recomputation)."""


def dense_params_verl(shape: Shape) -> int:
    """verl's flops_counter N: (3·H·I + H·(q+k+v+o))·L + 2·V·H."""
    h, d = shape.hidden, shape.head_dim
    q, kv = shape.heads * d, shape.kv_heads * d
    return (3 * h * shape.intermediate + h * (q + 2 * kv + q)) * shape.layers + 2 * shape.vocab * h


def train_flops(shape: Shape, sequences: float, seq_tokens: float) -> float:
    """verl's formula: 6·N·Σtokens + 6·Σ(seqlen²)·head_dim·heads·L (forward + backward)."""
    return (
        6 * dense_params_verl(shape) * sequences * seq_tokens
        + 6 * sequences * seq_tokens**2 * shape.head_dim * shape.heads * shape.layers
    )


def forward_flops(shape: Shape, sequences: float, seq_tokens: float) -> float:
    return train_flops(shape, sequences, seq_tokens) / 3


def fsdp_collectives(w: Workload, shape: Shape, c: Cluster, param_bytes: int, grad_bytes: int) -> tuple[float, float]:
    """(one all-gather of every parameter, one reduce-scatter of every gradient) over the FSDP group, seconds.

    With a shard group smaller than the world (HSDP), the reduce-scatter is followed by an
    all-reduce of the shard across the replicas.
    """
    group = w.fsdp_group
    busbw = c.busbw(group)
    ag = collective_seconds("all_gather", shape.params * param_bytes, group, busbw, w.nccl_proto, w.nccl_channels)
    rs = collective_seconds("reduce_scatter", shape.params * grad_bytes, group, busbw, w.nccl_proto, w.nccl_channels)
    replicas = w.world // group
    if replicas > 1:
        shard = shape.params * grad_bytes / group
        rs += collective_seconds("all_reduce", shard, replicas, c.busbw(w.world), w.nccl_proto, w.nccl_channels)
    return ag, rs


def update_features(
    w: Workload, shape: Shape, c: Cluster, micro_per_mini: int, epochs: int, param_bytes: int = 2, grad_bytes: int = 4
) -> dict[str, float]:
    """One PPO update (actor or critic): compute, per-micro-batch FSDP collectives, optimizer steps.

    FSDP2 all-gathers every block in forward, again in backward when `reshard_after_forward`, and
    reduce-scatters gradients after each micro-batch's backward. Forward all-gathers are exposed
    unless prefetched; the fitted weights say how much of each is hidden behind compute.
    """
    micro = w.mini_batches * micro_per_mini * epochs
    flops = train_flops(shape, w.responses / w.world, w.seq_tokens) * epochs * (4 / 3 if w.grad_ckpt else 1)
    ag, rs = fsdp_collectives(w, shape, c, param_bytes, grad_bytes)
    out = {
        "flops_s": flops / c.device.peak_flops,
        "micro_batches": float(micro),
        "optimizer_steps": float(w.mini_batches * epochs),
        "fsdp_ag_bwd_s": micro * ag if w.reshard_after_forward else 0.0,
        "fsdp_rs_s": micro * rs,
        "optimizer_s": 16 * shape.params / w.fsdp_group / c.device.hbm_bytes_per_s * w.mini_batches * epochs,
    }
    out["fsdp_ag_fwd_prefetch_s" if w.forward_prefetch else "fsdp_ag_fwd_s"] = micro * ag
    return out


def forward_features(w: Workload, shape: Shape, c: Cluster, micro: int, param_bytes: int = 2) -> dict[str, float]:
    """A forward-only pass over the step's responses (old log-probs, reference, values)."""
    ag, _ = fsdp_collectives(w, shape, c, param_bytes, 4)
    return {
        "flops_s": forward_flops(shape, w.responses / w.world, w.seq_tokens) / c.device.peak_flops,
        "micro_batches": float(micro),
        "fsdp_ag_s": micro * ag,
    }


@dataclass(frozen=True)
class Decode:
    concurrent: int
    rounds: int
    steps: float
    kv_bytes_per_token: float
    weights_bytes: float


def decode_plan(w: Workload, shape: Shape, c: Cluster, dtype_bytes: int = 2) -> Decode:
    """How a rollout group decodes: batch limited by KV-cache capacity (vLLM's reservation minus weights)."""
    weights = shape.params * dtype_bytes / w.tp
    kv_token = shape.kv_bytes_per_token(dtype_bytes) / min(w.tp, shape.kv_heads)
    capacity = max(0.0, w.gpu_memory_utilization * c.device.memory_bytes - weights)
    sequences = w.responses / w.dp
    fits = max(1, int(capacity // max(kv_token * w.seq_tokens, 1)))
    concurrent = int(min(sequences, fits))
    rounds = math.ceil(sequences / concurrent)
    steps = rounds * min(w.max_response, 1.5 * w.response_tokens)
    return Decode(concurrent, rounds, steps, kv_token, weights)


def generation_features(w: Workload, shape: Shape, c: Cluster, dtype_bytes: int = 2) -> dict[str, float]:
    """Rollout: prefill is compute-bound, decode reads the TP shard's weights and the KV cache every step.

    Each decode step also runs 2 all-reduces per layer over the TP group (row-parallel outputs).
    """
    plan = decode_plan(w, shape, c, dtype_bytes)
    sequences = w.responses / w.dp
    peak = c.device.peak_flops * w.tp
    context = w.prompt_tokens + w.response_tokens / 2
    step_bytes = plan.weights_bytes + plan.concurrent * context * plan.kv_bytes_per_token
    message = plan.concurrent * shape.hidden * dtype_bytes
    busbw = c.busbw(w.tp)
    per_token = 2 * shape.layers * collective_seconds("all_reduce", message, w.tp, busbw, w.nccl_proto, w.nccl_channels)
    prefill_message = plan.concurrent * w.prompt_tokens * shape.hidden * dtype_bytes
    prefill_ar = 2 * shape.layers * collective_seconds("all_reduce", prefill_message, w.tp, busbw, w.nccl_proto)
    return {
        "prefill_flops_s": forward_flops(shape, sequences, w.prompt_tokens) / peak,
        "decode_flops_s": 2 * shape.params * sequences * w.response_tokens / peak,
        "decode_mem_s": plan.steps * step_bytes / c.device.hbm_bytes_per_s,
        "decode_steps": plan.steps,
        "tp_allreduce_s": plan.steps * per_token + plan.rounds * prefill_ar,
    }


def hybridflow_volume(model_bytes: float, t: int, p: int, d: int, tg: int, pg: int, mode: str) -> float:
    """HybridFlow (arXiv 2409.19256, Table 2): bytes a GPU gathers to switch training (TP t, PP p,
    DP d) to generation (TP tg, PP pg): naive (tpd-1)/tpd·M, HybridFlow-V (tp-1)/tp·M,
    zero-redundancy (tp - tg·pg)/(tg·pg·t·p)·M."""
    if mode == "naive":
        return (t * p * d - 1) / (t * p * d) * model_bytes
    if mode == "hybridflow_v":
        return (t * p - 1) / (t * p) * model_bytes
    return (t * p - tg * pg) / (tg * pg * t * p) * model_bytes


def reshard_bytes(w: Workload, shape: Shape, dtype_bytes: int = 2) -> float:
    """Bytes a rank receives (mean over ranks) to build its rollout shard from FSDP shards.

    FSDP is data parallel in HybridFlow's terms (t = p = 1, d = W): naive gathers (W-1)/W·M. The
    zero-redundancy volume is what this project's engine actually moves: its own transfer plan
    (trainer/rollout/reshard.py) evaluated on the model's parameter shapes.
    """
    model = shape.params * dtype_bytes
    if w.reshard_mode == "naive" or w.tp == 1:
        return model * (w.world - 1) / w.world
    return zero_redundancy_elements(shape, w.world, w.tp) * dtype_bytes


def parameter_shapes(shape: Shape) -> dict[str, tuple[int, ...]]:
    """The Hugging Face Qwen2/Llama parameter names and shapes of a model shape."""
    h, d = shape.hidden, shape.head_dim
    q, kv = shape.heads * d, shape.kv_heads * d
    out: dict[str, tuple[int, ...]] = {"model.embed_tokens.weight": (shape.vocab, h)}
    for i in range(shape.layers):
        p = f"model.layers.{i}."
        out.update({
            p + "self_attn.q_proj.weight": (q, h), p + "self_attn.q_proj.bias": (q,),
            p + "self_attn.k_proj.weight": (kv, h), p + "self_attn.k_proj.bias": (kv,),
            p + "self_attn.v_proj.weight": (kv, h), p + "self_attn.v_proj.bias": (kv,),
            p + "self_attn.o_proj.weight": (h, q), p + "mlp.gate_proj.weight": (shape.intermediate, h),
            p + "mlp.up_proj.weight": (shape.intermediate, h), p + "mlp.down_proj.weight": (h, shape.intermediate),
            p + "input_layernorm.weight": (h,), p + "post_attention_layernorm.weight": (h,),
        })  # fmt: skip
    out["model.norm.weight"] = (h,)
    if not shape.tied_embeddings:
        out["lm_head.weight"] = (shape.vocab, h)
    return out


@functools.cache
def zero_redundancy_elements(shape: Shape, world: int, tp: int) -> float:
    """Mean over ranks of the elements a rank receives in the zero-redundancy reshard (the engine's plan)."""
    import torch

    from trainer.rollout.reshard import fsdp_rows, needed

    total = 0.0
    for name, dims in parameter_shapes(shape).items():
        size = torch.Size(dims)
        cell = math.prod(dims[2:]) if len(dims) > 2 else 1
        for rank in range(world):
            r0, r1, c0, c1 = needed(name, size, rank % tp, tp)
            own0, own1 = fsdp_rows(dims[0], world, rank)
            local_rows = max(0, min(r1, own1) - max(r0, own0))
            total += ((r1 - r0) - local_rows) * (c1 - c0) * cell  # every needed piece a rank lacks arrives once
    return total / world


def reshard_features(w: Workload, shape: Shape, c: Cluster, dtype_bytes: int = 2) -> dict[str, float]:
    return {
        "reshard_bytes_s": reshard_bytes(w, shape, dtype_bytes) / c.busbw(w.world),
        "reshard_tensors": float(12 * shape.layers + 3),
    }


def phase_features(w: Workload, actor: Shape, c: Cluster, param_bytes: int = 2) -> dict[str, dict[str, float]]:
    """Features of every phase of one step (the critic, when there is one, has the actor's shape)."""
    features = {
        "gen": generation_features(w, actor, c, param_bytes),
        "reshard": reshard_features(w, actor, c, param_bytes),
        "old_log_prob": forward_features(w, actor, c, w.logprob_micro, param_bytes),
        "ref": forward_features(w, actor, c, w.logprob_micro, param_bytes),
        "adv": {"const": 1.0},
        "update_actor": update_features(w, actor, c, w.update_micro_per_mini, w.epochs, param_bytes, 4),
        "step": {"const": 1.0},
    }
    if w.has_critic:
        features["values"] = forward_features(w, actor, c, w.values_micro, param_bytes)
        features["update_critic"] = update_features(
            w, actor, c, w.critic_micro_per_mini, w.critic_epochs, param_bytes, 4
        )
    return features


COMM_FEATURES = (
    "fsdp_ag_fwd_s",
    "fsdp_ag_fwd_prefetch_s",
    "fsdp_ag_bwd_s",
    "fsdp_rs_s",
    "fsdp_ag_s",
    "tp_allreduce_s",
    "reshard_bytes_s",
)


@dataclass(frozen=True)
class Memory:
    train_peak: float
    rollout_peak: float
    states: float

    @property
    def peak(self) -> float:
        return max(self.train_peak, self.rollout_peak)


def memory(w: Workload, shape: Shape, c: Cluster, micro_tokens: float) -> Memory:
    """Peak bytes per GPU in training and during rollout (the vLLM reservation on top of resident state)."""
    n = shape.params
    per_model = n * ((0 if w.param_offload else 4) + 4 + (0 if w.optimizer_offload else 8)) / w.fsdp_group
    states = per_model * (2 if w.has_critic else 1) + n * 2 / w.fsdp_group  # actor (+ critic) + bf16 reference
    in_flight = shape.layer_params * 2 * (2 if w.reshard_after_forward else shape.layers)
    h, layers = shape.hidden, shape.layers
    if w.grad_ckpt:
        activations = layers * micro_tokens * h * 2 + ACTIVATION_BYTES_PER_TOKEN_HIDDEN * micro_tokens * h
    else:
        activations = layers * ACTIVATION_BYTES_PER_TOKEN_HIDDEN * micro_tokens * h
    logits = micro_tokens * shape.vocab * 4 * 2
    train = states + in_flight + activations + logits
    rollout = states + w.gpu_memory_utilization * c.device.memory_bytes
    return Memory(train, rollout, states)
