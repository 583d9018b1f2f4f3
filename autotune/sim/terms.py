"""The cost model's terms, each a small function of the workload, the model shape and the cluster.

Every phase's time is a weighted sum of *features* (model.py holds the weights): ideal seconds at
the device's datasheet rate (FLOPs / peak, bytes / bandwidth), collective seconds from the NCCL
model (nccl.py), and counts of things with a fixed cost each (micro-batches, optimizer steps). An
efficiency curve in micro-batch tokens, t = F/(peak·e·T/(T+T½)), is exactly "F/(peak·e)" plus a
constant per micro-batch, which is how it appears here. Rollout and verl's weight sync are in rollout.py.

Training and log-prob passes see packed tokens with `use_remove_padding`, and otherwise every sequence
padded to max_prompt + max_response (verl's batch tensors have that fixed width); gradient checkpointing
recomputes the forward (4/3 of the FLOPs); offloaded parameters (4 bytes each) and Adam state (8 bytes)
cross PCIe to the GPU and back every time a phase needs them.

Memory is analytic and not fitted: parameters, gradients and Adam state under FSDP sharding and
offload, the unsharded bf16 layers in flight, activations of one micro-batch (with or without
gradient checkpointing), the fp32 logits, and vLLM's `gpu_memory_utilization` reservation during
rollout while the training state (without gradients, freed after each optimizer step) stays resident.
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass

from autotune.sim.hardware import MATMUL_EFFICIENCY, Cluster
from autotune.sim.nccl import collective_seconds
from autotune.sim.rollout import (
    builtin_generation_features,
    builtin_rollout_bytes,
    generation_features,
    update_weights_features,
)
from autotune.sim.workload import Shape, Workload

ACTIVATION_BYTES_PER_TOKEN_HIDDEN = 34
"""Per layer, bytes of saved activations per token per hidden unit in 16-bit training (Korthikanti et
al., arXiv 2205.05198: 34·s·b·h without recomputation)."""


def dense_params_verl(shape: Shape) -> int:
    """verl's flops_counter N: (3·H·I + H·(q+k+v+o))·L + 2·V·H."""
    h, d = shape.hidden, shape.head_dim
    q, kv = shape.heads * d, shape.kv_heads * d
    return (3 * h * shape.intermediate + h * (q + 2 * kv + q)) * shape.layers + 2 * shape.vocab * h


def critic_params(shape: Shape) -> int:
    """The N of verl's formula for the value model (verl's critic: the actor's decoder with a head of H × 1).

    verl's 2·V·H stands for all of the actor's vocabulary-sized work per token: the LM head's GEMM, and the fp32
    log-softmax, log-prob gather and entropy over V logits (and their backward), memory-bound passes of ~4·V bytes
    each that take as long as the GEMM or longer (the embedding is a lookup, no FLOPs). The value model does none
    of it, so its N is the decoder's plus its head's H. On the 10 published PPO runs of
    benchmarks/sim_published.py, counting the critic with the actor's N put its update a median 43% and its value
    pass 19% too slow while the actor's update and reference pass were +9% and +1%; with its own N, +24% and +4%.
    """
    return dense_params_verl(shape) - 2 * shape.vocab * shape.hidden + shape.hidden


def flop_params(shape: Shape, critic: bool = False) -> int:
    """The N of verl's FLOP formula for the actor (and reference) or the critic."""
    return critic_params(shape) if critic else dense_params_verl(shape)


def train_flops(shape: Shape, sequences: float, seq_tokens: float, critic: bool = False) -> float:
    """verl's formula: 6·N·Σtokens + 6·Σ(seqlen²)·head_dim·heads·L (forward + backward)."""
    return (
        6 * flop_params(shape, critic) * sequences * seq_tokens
        + 6 * sequences * seq_tokens**2 * shape.head_dim * shape.heads * shape.layers
    )


def forward_flops(shape: Shape, sequences: float, seq_tokens: float, critic: bool = False) -> float:
    return train_flops(shape, sequences, seq_tokens, critic) / 3


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
        busbw = c.strided_busbw(replicas, group)
        rs += collective_seconds("all_reduce", shard, replicas, busbw, w.nccl_proto, w.nccl_channels)
    return ag, rs


CURVE_TOKENS = 2048
"""T½ of the efficiency curve e(T) = e·T/(T + T½) in micro-batch tokens: each micro-batch costs as if it had
T½ more tokens (torchtitan's 33-39% MFU on 8×H100 at 8-16k tokens/GPU against ~45% for long sequences)."""
BYTES_PER_FLOP = 0.0035
"""Device-independent non-GEMM work of FSDP training (norms, activations, attention memory traffic, softmax,
launch gaps), expressed as HBM bytes per model FLOP: GEMMs at 85% of peak plus this at the device's HBM rate
gives torchtitan's ~45% MFU on H100 (1/(0.85·989e12) + 0.0035/3.35e12 = 1/(0.45·989e12)). On a GPU with less
compute per byte the same work is a smaller share (H20: ~77% MFU), as verl reports on such GPUs."""


def compute_features(flops: float, curve_flops: float, c: Cluster) -> dict[str, float]:
    """GEMM seconds at peak, the non-GEMM work at HBM rate, and the per-micro-batch curve term (both rates)."""
    d = c.device
    return {
        "flops_s": flops / d.gemm_peak_flops,
        "memory_s": flops * BYTES_PER_FLOP / d.hbm_bytes_per_s,
        "curve_s": curve_flops * (1 / (MATMUL_EFFICIENCY * d.gemm_peak_flops) + BYTES_PER_FLOP / d.hbm_bytes_per_s),
    }


ENGINE_WORKER_FORWARD_CALL = 0.6
"""Seconds each forward-only pass (old log-probs, reference, values) costs beyond its compute in verl 0.7 and
later, whatever its size: its training calls go through the engine workers (a TensorDict per call, converted to and
from the no-padding layout, dispatched to and gathered from every rank through Ray, the model switched into eval
mode and resharded after). Evidence (benchmarks/sim_published.py): on the six published configurations of verl
0.7-2026 the passes took 0.4-1.1 s more than compute accounts for (3.2-4.6 s on a 4-H200 fork with a 36-98k-token
budget), median over configurations ~0.6 s, however small the batch (64 responses of a 0.5B model: 1.19 s measured
for 0.10 s of compute); none of the 18 runs of verl 0.1-0.5 shows such a floor."""
ENGINE_WORKER_UPDATE_CALL = 2.3
"""The same for each update call (actor or critic) in verl 0.7 and later: the median over the same configurations
of what the updates took beyond their compute (2.1-2.9 s; 3.0-4.5 s on the H200 fork; ~0 on the compute-bound
Qwen3-8B H20 runs once the H20's GEMM rate is right), train mode, zero_grad and the loss and metric gathering
around the micro-batches."""


def call_features(w: Workload) -> dict[str, float]:
    """One training call's fixed cost in verl 0.7+ (weights ENGINE_WORKER_FORWARD_CALL / _UPDATE_CALL)."""
    return {"calls": 1.0 if w.engine_workers else 0.0}


def offload_seconds(shape: Shape, c: Cluster, group: int, bytes_per_param: float) -> float:
    """Moving offloaded state (fp32 parameters 4 B, Adam 8 B, bf16 reference 2 B) to the GPU and back once."""
    return 2 * shape.params * bytes_per_param / group / c.device.pcie_bytes_per_s


def host_shard_seconds(shape: Shape, c: Cluster, group: int, copies: float) -> float:
    """FSDP2's CPUOffloadPolicy (verl's `fsdp_config.offload_policy`): the rank's shard of every parameter lives in host
    memory, in fp32, and is copied to the GPU before each all-gather; each reduce-scatter's gradient shard is copied
    back. `copies`: all-gathers plus reduce-scatters, each the fp32 shard (4 B a parameter over the group) over PCIe.

    Evidence: verl PR 6317 profiled one update of a Qwen3-32B on 2 × 8 H200 at 44.03 s, 61.31 s with the policy
    (+17.3 s). Costed once a phase, as verl's own offload is, the model added 0.8 s; per copy it is 0.13 s a copy
    (32.8B × 4 B / 16 / 64 GB/s), so the measured cost is about 130 copies: ~45 micro-batches of an all-gather
    forward and backward and a reduce-scatter. The PR gives no batch sizes, so the count of micro-batches could
    not be checked. Not modelled: the optimizer's step on the CPU, which the policy also implies."""
    return copies * 4 * shape.params / group / c.device.pcie_bytes_per_s


def update_features(
    w: Workload,
    shape: Shape,
    c: Cluster,
    micro_per_mini: int,
    epochs: int,
    param_bytes: int = 2,
    grad_bytes: int = 4,
    critic: bool = False,
) -> dict[str, float]:
    """One PPO update (actor or critic): compute, per-micro-batch FSDP collectives, optimizer steps, offload.

    FSDP2 all-gathers every block in forward, again in backward when `reshard_after_forward`, and
    reduce-scatters gradients after each micro-batch's backward. Forward all-gathers are exposed
    unless prefetched; the fitted weights say how much of each is hidden behind compute.
    """
    rmpad, ckpt = (w.critic_rmpad, w.critic_grad_ckpt) if critic else (w.actor_rmpad, w.grad_ckpt)
    p_off, o_off = (
        (w.critic_param_offload, w.critic_optimizer_offload) if critic else (w.param_offload, w.optimizer_offload)
    )
    micro = w.mini_batches * micro_per_mini * epochs
    seq = w.seq_tokens if rmpad else w.padded_tokens
    flops = train_flops(shape, w.responses / w.world, seq, critic) * epochs * (4 / 3 if ckpt else 1)
    ag, rs = fsdp_collectives(w, shape, c, param_bytes, grad_bytes)
    out = {
        **compute_features(flops, micro * 6 * flop_params(shape, critic) * CURVE_TOKENS, c),
        "micro_batches": float(micro),
        "micro_layers": float(micro * shape.layers),
        "optimizer_steps": float(w.mini_batches * epochs),
        "fsdp_ag_bwd_s": micro * ag if w.reshard_after_forward else 0.0,
        "fsdp_rs_s": micro * rs,
        "optimizer_s": 16 * shape.params / w.fsdp_group / c.device.hbm_bytes_per_s * w.mini_batches * epochs,
        "offload_s": offload_seconds(shape, c, w.fsdp_group, (4 if p_off else 0) + (8 if o_off else 0)),
        **call_features(w),
    }
    out["fsdp_ag_fwd_prefetch_s" if w.forward_prefetch else "fsdp_ag_fwd_s"] = micro * ag
    if w.offload_policy and not critic:
        gathers = micro * (2 if w.reshard_after_forward else 1)
        out["offload_s"] = host_shard_seconds(shape, c, w.fsdp_group, gathers + micro)
    return out


def forward_features(
    w: Workload,
    shape: Shape,
    c: Cluster,
    micro: int,
    param_bytes: int = 2,
    rmpad: bool = True,
    offload_bytes: float = 0.0,
    critic: bool = False,
) -> dict[str, float]:
    """A forward-only pass over the step's responses (old log-probs, reference, values)."""
    ag, _ = fsdp_collectives(w, shape, c, param_bytes, 4)
    seq = w.seq_tokens if rmpad else w.padded_tokens
    flops = forward_flops(shape, w.responses / w.world, seq, critic)
    return {
        **compute_features(flops, micro * 2 * flop_params(shape, critic) * CURVE_TOKENS, c),
        "micro_batches": float(micro),
        "micro_layers": float(micro * shape.layers),
        "fsdp_ag_s": micro * ag,
        "offload_s": offload_seconds(shape, c, w.fsdp_group, offload_bytes),
        **call_features(w),
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


def driver_features(w: Workload) -> tuple[dict[str, float], dict[str, float]]:
    """The advantage phase and the step's time outside every timed phase.

    verl: a fixed cost each (weights `const`: 0.2 s and 1 s a step, the driver's advantage computation, reward
    and metric gathering between its worker calls). The builtin trainer has no driver: its loop times every
    phase, and what is left is per-response CPU work (making prompts, scoring answers; `builtin_responses`) and,
    for GAE, a loop over the response positions (`builtin_positions`, the longest response of the step, to
    which a batch is padded). Their weights were measured with this project's trainer on a 2-core CPU (world 1,
    3 shapes from 32 x 8 to 1,024 x 49 tokens, GAE and GRPO, medians of steps 3-5; 2026-12-04): GAE 0.14-0.16 ms
    a position, GRPO 0.8-1.5 ms a step, the rest 0.06-0.09 ms a response, where verl's constants predicted 0.2 s
    and 1 s (100-1000x too slow for the built-in trainer).
    """
    if w.engine != "builtin":
        return {"const": 1.0}, {"const": 1.0}
    positions = w.longest_response if w.has_critic else 0.0
    return {"builtin_positions": positions, "builtin_const": 1.0}, {"builtin_responses": float(w.responses)}


def phase_features(w: Workload, actor: Shape, c: Cluster, param_bytes: int = 2) -> dict[str, dict[str, float]]:
    """Features of every phase of one step (the critic, when there is one, has the actor's shape).

    verl jobs sync weights into the rollout engine (`update_weights`); the builtin trainer reshards with
    this project's engine (`reshard`).
    """
    gen = (
        builtin_generation_features(w, actor, c)
        if w.engine == "builtin"
        else generation_features(w, actor, c, param_bytes)
    )
    features: dict[str, dict[str, float]] = {"gen": gen}
    if w.engine == "builtin":
        features["reshard"] = reshard_features(w, actor, c, param_bytes)
    else:
        features["update_weights"] = update_weights_features(w, actor, c, param_bytes)
    features["old_log_prob"] = (
        {}  # the builtin trainer's on-policy bypass: the pass does not run
        if w.old_log_prob_bypassed
        else forward_features(w, actor, c, w.logprob_micro, param_bytes, w.actor_rmpad, 4.0 if w.param_offload else 0.0)
    )
    if w.offload_policy and features["old_log_prob"]:  # one host-to-GPU copy of the shards per micro-batch
        features["old_log_prob"]["offload_s"] = host_shard_seconds(actor, c, w.fsdp_group, w.logprob_micro)
    if w.has_ref:
        features["ref"] = forward_features(
            w, actor, c, w.ref_micro_batches, param_bytes, w.actor_rmpad, 2.0 if w.ref_param_offload else 0.0
        )
    features["adv"], features["step"] = driver_features(w)
    features["update_actor"] = update_features(w, actor, c, w.update_micro_per_mini, w.epochs, param_bytes, 4)
    if w.has_critic:
        features["values"] = forward_features(
            w, actor, c, w.values_micro, param_bytes, w.critic_rmpad, 4.0 if w.critic_param_offload else 0.0, True
        )
        features["update_critic"] = update_features(
            w, actor, c, w.critic_micro_per_mini, w.critic_epochs, param_bytes, 4, critic=True
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
    """Peak bytes per GPU in training and during rollout (the vLLM reservation on top of resident state; for the
    builtin trainer, its engine's fp32 weights and KV cache instead: `rollout.builtin_rollout_bytes`).

    Resident between phases: fp32 parameters (4 B) and Adam state (8 B) of the actor and the critic unless
    offloaded, and the bf16 reference (2 B) unless offloaded; gradients (4 B) exist only while a model trains.
    """
    n, g = shape.params, w.fsdp_group
    actor = n * ((0 if w.param_offload else 4) + (0 if w.optimizer_offload else 8)) / g
    critic = n * ((0 if w.critic_param_offload else 4) + (0 if w.critic_optimizer_offload else 8)) / g
    ref = 0.0 if (w.ref_param_offload or not w.has_ref) else n * 2 / g
    states = actor + (critic if w.has_critic else 0.0) + ref
    in_flight = shape.layer_params * 2 * (2 if w.reshard_after_forward else shape.layers)
    h, layers = shape.hidden, shape.layers
    if w.grad_ckpt:
        activations = layers * micro_tokens * h * 2 + ACTIVATION_BYTES_PER_TOKEN_HIDDEN * micro_tokens * h
    else:
        activations = layers * ACTIVATION_BYTES_PER_TOKEN_HIDDEN * micro_tokens * h
    logits = micro_tokens * shape.vocab * 4 * 2
    train = states + n * 4 / g + in_flight + activations + logits
    if w.engine == "builtin":
        rollout = states + sum(builtin_rollout_bytes(w, shape))
    else:
        rollout = states + w.gpu_memory_utilization * c.device.memory_bytes
    return Memory(train, rollout, states)
