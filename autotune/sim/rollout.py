"""Rollout (vLLM) and verl's weight sync: how long generation takes, and whether it fits at all.

Generation is synchronous: a step's rollout ends when the longest response of the batch ends, so the number
of decode steps is set by the longest response, not the mean (`Workload.longest_response`). While more
sequences wait than vLLM runs at once (`max_num_seqs`, or what the KV cache holds), decoding proceeds in a
throughput-bound phase of Σlengths / concurrency steps, then the tail of the longest one.

Each decode step of a TP rank reads its weight shard and the KV cache of every running sequence from HBM,
does 2·N/TP FLOPs per running sequence, runs two all-reduces per layer over the TP group (row-parallel
outputs, NCCL latency + size / bandwidth), and pays fixed overheads:
* kernel launches: in eager mode (`enforce_eager`) every layer launches tens of kernels from Python at
  ~5-10 µs each (CUDA's documented launch latency); CUDA graphs replay a whole step for about the cost of
  one launch per layer. Constants below: EAGER_LAUNCH_PER_LAYER, GRAPH_LAUNCH_PER_LAYER;
* the engine's per-step scheduling and sampling (STEP_BASE; more in vLLM's V0 engine, and more again before
  vLLM 0.6), and bookkeeping per running sequence (PER_SEQUENCE_STEP). From vLLM 0.14 on, async scheduling (on by
  default) prepares step N+1 while the GPU runs step N, so only the CPU time the GPU's work does not cover is
  added (`Workload.vllm_async`; see the note at generation_features).
Prefill is compute-bound: 2·N FLOPs per prompt token, in chunks of `max_num_batched_tokens`, each chunk a
step with the same fixed overheads. EAGER_LAUNCH_PER_LAYER, PER_SEQUENCE_STEP, STEP_BASE_V0 and STEP_BASE_LEGACY were set
while comparing with published runs (benchmarks/sim_published.py's INFORMED_BY names them); the others
follow from the launch latencies above.

vLLM reserves `gpu_memory_utilization` of the device for its weights, activations and KV cache; when the
TP shard's weights plus the KV cache of one full-length sequence do not fit in that share, vLLM refuses to
start (an `oom`), which is what happens to a 70B actor at TP 1 or 2 on 80 GB GPUs.

verl (0.4+) syncs the trained weights into the rollout engine every step (`timing_s/update_weights`, inside
`timing_s/gen` in older versions): every rank all-gathers the full bf16 model from its FSDP shards layer by
layer and loads its TP shard into vLLM; with `param_offload` the shards first cross PCIe. From verl 0.7.1 on, vLLM
runs in processes of its own and the full tensors reach it through CUDA IPC buckets, at a fixed cost and a rate
measured on published runs (SYNC_IPC_FIXED, SYNC_IPC_BYTES_PER_S).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from autotune.sim.hardware import GIB, MATMUL_EFFICIENCY, Cluster
from autotune.sim.nccl import collective_seconds
from autotune.sim.workload import Shape, Workload

EAGER_LAUNCH_PER_LAYER = 0.15e-3
"""Seconds of kernel launches per decoder layer per eager decode step (~20 kernels × ~7 µs)."""
GRAPH_LAUNCH_PER_LAYER = 0.01e-3
"""With CUDA graphs: one graph replay per step, a few µs per layer of residual work."""
STEP_BASE = 3e-3
"""Per engine step of vLLM's V1 engine: scheduling, sampling and the Python loop around the model."""
STEP_BASE_V0 = 20e-3
"""The same in vLLM's V0 engine (VLLM_USE_V1=0, the xformers attention backend V1 does not support, or any vLLM before
0.8, whose default it was), whose
CPU-side scheduling and sampling per step V1 was built to remove (vLLM's V1 announcement)."""
STEP_BASE_LEGACY = 40e-3
"""The same before vLLM 0.6 (the forks of 0.3-0.5 that verl used until early 2025): 0.6 was a release about CPU
overhead per step (the vLLM team's "v0.6.0: 2.7x throughput" post found scheduling and output processing, not
the GPU, bounding small-model decoding). Twice STEP_BASE_V0, set from the published gemma-2-2b run (42 ms would
match it exactly); the other pre-0.6 run, the 0.5B prompt-512 one, then comes within 8% (sim_published.py)."""
PER_SEQUENCE_STEP = 30e-6
"""Per running sequence per step: the scheduler's block bookkeeping and per-sequence sampling state."""
DECODE_HBM_EFFICIENCY = 0.8
"""Share of HBM bandwidth decode's weight and KV-cache reads reach (an assumption, as for ring busbw)."""
ACTIVATION_BYTES = 1.0 * GIB
"""vLLM's profiled activation peak outside the KV cache (a forward of max_num_batched_tokens)."""


@dataclass(frozen=True)
class RolloutPlan:
    sequences: float
    """Responses one DP group (one vLLM engine) generates."""
    concurrent: float
    """Sequences decoding at once (max_num_seqs, the KV cache, or all of them)."""
    steps: float
    prefill_chunks: float
    weights_bytes: float
    """bf16 weights of one TP shard."""
    kv_bytes_per_token: float
    """KV cache bytes per token on one TP rank."""
    kv_budget: float
    """Bytes vLLM has for the KV cache on one rank (negative when even the weights do not fit)."""
    oom: str | None


def rollout_plan(w: Workload, shape: Shape, c: Cluster, dtype_bytes: int = 2) -> RolloutPlan:
    weights = shape.params * dtype_bytes / w.tp
    kv_token = shape.kv_bytes_per_token(dtype_bytes) / min(w.tp, shape.kv_heads)
    share = w.gpu_memory_utilization * c.device.memory_bytes
    budget = share - weights - ACTIVATION_BYTES
    longest = w.longest_response
    full_sequence = (w.prompt_tokens + longest) * kv_token
    oom = None
    if budget < full_sequence:
        oom = (
            f"rollout: vLLM's share ({w.gpu_memory_utilization:g} × {c.device.memory_bytes / GIB:.0f} GiB = "
            f"{share / GIB:.1f} GiB) cannot hold the TP-{w.tp} weight shard ({weights / GIB:.1f} GiB) plus the KV cache "
            f"of one {w.prompt_tokens + longest:.0f}-token sequence; raise rollout.tensor_model_parallel_size or "
            "gpu_memory_utilization"
        )
    sequences = w.responses / w.dp
    mean_context = w.prompt_tokens + w.response_tokens
    kv_fits = max(1.0, budget / max(kv_token * mean_context, 1.0))
    concurrent = max(1.0, min(sequences, float(w.max_num_seqs), kv_fits))
    if sequences <= concurrent:
        steps = longest
    else:
        steps = sequences * w.response_tokens / concurrent + (longest - w.response_tokens)
    chunks = math.ceil(sequences * w.prompt_tokens / max(w.max_num_batched_tokens, 1))
    return RolloutPlan(sequences, concurrent, steps, chunks, weights, kv_token, budget, oom)


def generation_features(w: Workload, shape: Shape, c: Cluster, dtype_bytes: int = 2) -> dict[str, float]:
    """Rollout seconds by cause (the weights of model.py scale each; defaults are 1/efficiency)."""
    plan = rollout_plan(w, shape, c, dtype_bytes)
    peak = c.device.gemm_peak_flops
    dense = 2 * shape.params / w.tp
    generated = plan.sequences * w.response_tokens
    # KV read: token t of a response reads the prompt and t earlier tokens; E[L²] = mean² + spread²
    second_moment = w.response_tokens**2 + min(w.response_spread, w.max_response) ** 2
    kv_reads = plan.sequences * (w.prompt_tokens * w.response_tokens + second_moment / 2) * plan.kv_bytes_per_token
    launch = EAGER_LAUNCH_PER_LAYER if w.enforce_eager else GRAPH_LAUNCH_PER_LAYER
    base = STEP_BASE_LEGACY if w.vllm_legacy else STEP_BASE_V0 if w.vllm_v0 else STEP_BASE
    per_step = base + shape.layers * launch
    busbw = c.busbw(w.tp)
    mean_active = generated / max(plan.steps, 1.0)
    allreduce = collective_seconds(
        "all_reduce", mean_active * shape.hidden * dtype_bytes, w.tp, busbw, w.nccl_proto, w.nccl_channels
    )
    prefill_message = w.max_num_batched_tokens * shape.hidden * dtype_bytes
    prefill_ar = collective_seconds("all_reduce", prefill_message, w.tp, busbw, w.nccl_proto, w.nccl_channels)
    out = {
        "prefill_flops_s": dense * plan.sequences * w.prompt_tokens / peak,
        "decode_flops_s": dense * generated / peak,
        "decode_weights_s": plan.steps * plan.weights_bytes / c.device.hbm_bytes_per_s,
        "decode_kv_s": kv_reads / c.device.hbm_bytes_per_s,
        "step_overhead_s": (plan.steps + plan.prefill_chunks) * per_step,
        "sequence_overhead_s": generated * PER_SEQUENCE_STEP,
        "tp_allreduce_s": 2 * shape.layers * (plan.steps * allreduce + plan.prefill_chunks * prefill_ar),
    }
    if w.vllm_async:
        # the tail: the (longest - mean) steps after the batch has thinned out, costed as one sequence decoding
        # (its weight read and its KV at the middle of the tail's context) against the engine's step
        past_mean = max(0.0, w.longest_response - w.response_tokens)
        tail_steps = min(plan.steps, past_mean)
        tail_context = w.prompt_tokens + w.response_tokens + past_mean / 2
        tail_bytes = tail_steps * (plan.weights_bytes + tail_context * plan.kv_bytes_per_token)
        tail_cpu = tail_steps * (per_step + PER_SEQUENCE_STEP)
        _overlap_cpu_with_gpu(out, tail_cpu, tail_bytes / c.device.hbm_bytes_per_s / DECODE_HBM_EFFICIENCY)
    return out


BUILTIN_OPS_PER_LAYER = 39
"""PyTorch operations (not views) the builtin trainer's decoder runs per layer in one decode step (trainer/rollout/
decoder.py: two RMS norms, three projections with their biases, rotary embeddings of q and k, the KV-cache writes,
attention, the output projection, the gated MLP, two residual adds). Counted with a TorchDispatchMode over one
decode step of the 2- and 4-layer built-in model (193 and 271 operations: 115 + 39 a layer; tests hold both
counts to the decoder's)."""
BUILTIN_OPS_PER_STEP = 115
"""The same outside the layers: embedding, masks, rotary tables, final norm and head, and the sampler's
counter-based Gumbel noise (most of them), the token choice and the done test that syncs with the device each step
(counted as BUILTIN_OPS_PER_LAYER: 193 operations in a 2-layer decode step)."""
BUILTIN_OP_SECONDS = 7e-6
"""CPU time to dispatch and launch one eager operation on a GPU (~7 µs, the figure EAGER_LAUNCH_PER_LAYER uses)."""
BUILTIN_WEIGHT_BYTES = 4
"""The builtin rollout decodes with the fp32 master weights its resharding gathers (and an fp32 KV cache)."""


def builtin_rollout_bytes(w: Workload, shape: Shape) -> tuple[float, float]:
    """Bytes per rank the builtin engine holds while it generates (trainer/rollout), the trainer's
    `rollout/weights_gb` and `rollout/kv_cache_gb`: its fp32 rollout weights (the TP shard of the attention and MLP
    projections, the embedding, norms and head whole) and the fp32 KV cache it allocates up front for its data-parallel
    group's whole batch, every row as wide as the padded prompt plus the response limit. No memory share as vLLM's
    gpu_memory_utilization: the builtin engine allocates what it needs."""
    split = shape.tp_split_params
    weights = (split / w.tp + shape.params - split) * BUILTIN_WEIGHT_BYTES
    slots = max(w.max_prompt, w.prompt_tokens) + w.max_response
    kv_token = shape.kv_bytes_per_token(BUILTIN_WEIGHT_BYTES) / min(w.tp, shape.kv_heads)
    return weights, math.ceil(w.responses / w.dp) * slots * kv_token


def builtin_generation_features(w: Workload, shape: Shape, c: Cluster) -> dict[str, float]:
    """The builtin trainer's own rollout (trainer/rollout): not vLLM. Each data-parallel group left-pads its prompts to
    one batch (the prompt limit's width), prefills it in one forward, then decodes every row each step (finished ones
    too) until the longest response ends or the limit; fp32 weights and KV cache at the plain fp32 rate (PyTorch's
    default: no TF32); eager kernels, BUILTIN_OPS_PER_LAYER a layer and BUILTIN_OPS_PER_STEP more, each
    BUILTIN_OP_SECONDS of CPU. Each step waits for its tokens (the done test), so a step costs the larger of its CPU
    launches and its GPU work (`_overlap_cpu_with_gpu`); no continuous batching, no scheduler, no CUDA graphs.
    Set before any GPU measurement of the builtin trainer (benchmarks/builtin_gpu_phases.py)."""
    batch = w.responses / w.dp
    width = max(w.max_prompt, w.prompt_tokens)
    steps = w.longest_response
    dense = 2 * shape.params / w.tp
    rate = c.device.fp32_peak_flops
    kv_token = shape.kv_bytes_per_token(BUILTIN_WEIGHT_BYTES) / min(w.tp, shape.kv_heads)
    launches = (steps + 1) * (shape.layers * BUILTIN_OPS_PER_LAYER + BUILTIN_OPS_PER_STEP) * BUILTIN_OP_SECONDS
    out = {
        "prefill_flops_s": dense * batch * width / rate,
        "decode_flops_s": dense * batch * steps / rate,
        "decode_weights_s": steps * shape.params * BUILTIN_WEIGHT_BYTES / w.tp / c.device.hbm_bytes_per_s,
        "decode_kv_s": batch * steps * (width + steps / 2) * kv_token / c.device.hbm_bytes_per_s,
        "step_overhead_s": launches,
        "sequence_overhead_s": 0.0,
        "tp_allreduce_s": 0.0,
    }
    if w.tp > 1:
        busbw = c.busbw(w.tp)
        decode = collective_seconds("all_reduce", batch * shape.hidden * BUILTIN_WEIGHT_BYTES, w.tp, busbw)
        prefill = collective_seconds("all_reduce", batch * width * shape.hidden * BUILTIN_WEIGHT_BYTES, w.tp, busbw)
        out["tp_allreduce_s"] = 2 * shape.layers * (steps * decode + prefill)
    _overlap_cpu_with_gpu(out)
    return out


def _overlap_cpu_with_gpu(features: dict[str, float], tail_cpu: float = 0.0, tail_gpu: float = 0.0) -> None:
    """vLLM 0.14+ (async scheduling): the engine's CPU step overlaps the GPU's, so the CPU features keep only what
    exceeds the GPU's time at the default efficiencies, split between them as before. Σ max(GPU, CPU) per step is
    taken over two parts of the rollout: the tail (`tail_cpu`, `tail_gpu`: the steps after the batch has thinned out,
    where one sequence's GPU step is short and the engine's CPU step shows) and the rest, as a whole.

    Overlap set after the fourth round of benchmarks/sim_published.py, given each run's measured longest response:
    the additive step put generation +15% to +40% on ten Qwen3-8B runs of vLLM 0.20 on A100 (the 256-token-cap arm
    -13%) and +39% to +43% on the four of vLLM 0.24 on H20; overlapped, -12% to +9% (the 256-token arm -33%) and -20%
    to -22%. On the small vLLM 0.19 runs, whose CPU dominates either way, +15% → -3% and -5% → -20%. Against it: runs
    whose vLLM is not recorded are taken as current, and three such runs of 2026 go the wrong way (an A100 40GB run
    +10% → -39%, an H200 fork's -31% → -43% and -4% → -21%).

    The tail split came after the fifth round: with the overlap taken over the whole rollout, the heavy steps' GPU
    time hid the CPU time of the tail's light steps, and the 1.5B run with 64 responses per step, whose longest
    response (16384, the cap) is 5000 tokens past the mean, came out -27% (its 512-response twin +28%). Per part:
    -17% (+30%); given the runs' measured longest responses -32% (unchanged: its full-batch steps are CPU-bound
    too) and -26% → -23%; the third round's four Qwen3-8B runs on H20 (8k cap, longest ~4x the mean) -9..-21% →
    +1..-12% (-20..-22% → -11..-14% given their longest); rounds 1, 2 and 4 unchanged (vLLM before 0.14, or
    short tails). Not yet tested on runs gathered after it."""
    gpu = (
        (features["prefill_flops_s"] + features["decode_flops_s"]) / MATMUL_EFFICIENCY
        + (features["decode_weights_s"] + features["decode_kv_s"]) / DECODE_HBM_EFFICIENCY
        + features["tp_allreduce_s"]
    )
    cpu = features["step_overhead_s"] + features["sequence_overhead_s"]
    if cpu <= 0:
        return
    tail_cpu, tail_gpu = min(tail_cpu, cpu), min(tail_gpu, gpu)
    exposed = (max(0.0, (cpu - tail_cpu) - (gpu - tail_gpu)) + max(0.0, tail_cpu - tail_gpu)) / cpu
    features["step_overhead_s"] *= exposed
    features["sequence_overhead_s"] *= exposed


SYNC_IPC_FIXED = 1.8
"""Seconds of verl 0.7.1+'s weight sync (`timing_s/update_weights`) that do not grow with the model: vLLM's weights and
KV cache mapped back in (its sleep mode), the allocator's caches emptied twice, a barrier over the trainer's ranks, the
Ray calls and the sender/receiver set-up around the CUDA IPC buckets."""
SYNC_IPC_BYTES_PER_S = 6e9
"""Bytes per second each rank pushes through verl 0.7.1+'s sync: every rank gathers each full bf16 tensor from its
FSDP shards and hands it to its own vLLM worker in CUDA IPC buckets (2 GB each, one ZeroMQ hand-shake and copy per
bucket), whatever the rollout's TP. Both constants were set on the four configurations of the published runs that
time `update_weights` apart (benchmarks/sim_published.py prints the check): medians 2.34 s for Qwen2.5-0.5B on 4 A100
(verl 0.7.1), 1.89 s for a 1.78B on 2 H100 (verl 0.9, two arms), 3.91 s and 5.0 s for Qwen3-8B on 4 H20 at TP 2
(verl 0.9) and on 8 A100 at TP 1 (verl 0.8); the least-squares line through them is 1.79 s + 0.16 s per GB. The
in-process sync of earlier versions (an all-gather, the TP shard loaded, 1 ms a tensor) put them at 0.29-0.51 s.
Set in sample; not yet tested on runs gathered after it."""


def update_weights_features(w: Workload, shape: Shape, c: Cluster, dtype_bytes: int = 2) -> dict[str, float]:
    """verl's weight sync: all-gather the bf16 model over the FSDP group, load the TP shard into vLLM; from verl 0.7.1
    on, every rank's full tensors through CUDA IPC into vLLM's own processes (SYNC_IPC_*)."""
    model = shape.params * dtype_bytes
    offload = 4 * shape.params / w.fsdp_group / c.device.pcie_bytes_per_s if w.param_offload else 0.0
    if w.rollout_ipc:
        return {"ipc_fixed": 1.0, "ipc_bytes_s": model / SYNC_IPC_BYTES_PER_S, "offload_s": offload}
    gather = collective_seconds("all_gather", model, w.fsdp_group, c.busbw(w.fsdp_group), w.nccl_proto)
    load = model / w.tp / c.device.hbm_bytes_per_s
    return {
        "sync_gather_s": gather,
        "sync_load_s": load,
        "sync_tensors": float(12 * shape.layers + 3),
        "offload_s": offload,
    }
