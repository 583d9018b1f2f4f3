"""The cost model's rollout, training-phase and device terms against hand-computed values."""

from __future__ import annotations

import math

import pytest

from autotune.sim import rollout, terms
from autotune.sim.hardware import DEVICES, GIB, calibrated_device, cluster, device_from_file, device_to_json
from autotune.sim.model import CostModel
from autotune.sim.workload import PRESETS, Workload

H100 = cluster("H100", 8)


def workload(**overrides) -> Workload:
    base = dict(
        world=8, tp=2, prompts=1024, n=1, prompt_tokens=100, response_tokens=200, max_response=1024, mini_batches=4,
        epochs=1, critic_epochs=1, update_micro_per_mini=4, logprob_micro=8, critic_micro_per_mini=4, values_micro=8,
        has_critic=True, grad_ckpt=True, reshard_after_forward=True, forward_prefetch=False, param_offload=False,
        optimizer_offload=False, gpu_memory_utilization=0.5, free_cache_engine=True, nccl_proto=None, nccl_channels=None,
        reshard_mode="zero_redundancy", response_spread=200, max_prompt=512,
    )  # fmt: skip
    base.update(overrides)
    return Workload(**base)  # type: ignore[arg-type]


def test_decode_steps_follow_the_longest_response_not_the_mean():
    w = workload()
    # by hand: mean 200 + spread 200 · √(2 ln 1024) = 200 + 200 · 3.7233 = 944.7 tokens
    assert w.longest_response == pytest.approx(200 + 200 * math.sqrt(2 * math.log(1024)))
    assert workload(response_spread=2000).longest_response == 1024  # capped at the limit
    assert workload(response_spread=0).longest_response == 200
    shape = PRESETS["Qwen2.5-7B"]
    plan = rollout.rollout_plan(w, shape, H100)
    # 1024 responses over 4 DP groups = 256 each, under max_num_seqs (256): all decode together
    assert plan.sequences == 256 and plan.concurrent == 256
    assert plan.steps == pytest.approx(w.longest_response)
    waves = rollout.rollout_plan(workload(max_num_seqs=64), shape, H100)
    # 256 sequences, 64 at a time: 256·200/64 = 800 throughput-bound steps, then the tail of the longest
    assert waves.steps == pytest.approx(800 + (w.longest_response - 200))


def test_eager_mode_pays_kernel_launches_every_decode_step():
    shape = PRESETS["Qwen2.5-7B"]
    eager = rollout.generation_features(workload(enforce_eager=True), shape, H100)
    graphs = rollout.generation_features(workload(enforce_eager=False), shape, H100)
    plan = rollout.rollout_plan(workload(), shape, H100)
    steps = plan.steps + plan.prefill_chunks
    # by hand: 28 layers × (0.15 ms eager vs 0.01 ms with CUDA graphs) on top of the 3 ms engine step
    assert eager["step_overhead_s"] == pytest.approx(steps * (3e-3 + 28 * 0.15e-3))
    assert graphs["step_overhead_s"] == pytest.approx(steps * (3e-3 + 28 * 0.01e-3))
    v0 = rollout.generation_features(workload(vllm_v0=True), shape, H100)
    assert v0["step_overhead_s"] == pytest.approx(steps * (20e-3 + 28 * 0.01e-3))
    # vLLM before 0.6 (verl's 0.5.4 fork): 40 ms of engine work per step, V0 or not
    legacy = rollout.generation_features(workload(vllm_v0=True, vllm_legacy=True), shape, H100)
    assert legacy["step_overhead_s"] == pytest.approx(steps * (40e-3 + 28 * 0.01e-3))
    # decode reads the TP shard's weights once per step: 2 bytes × params / TP 2, at 3.35 TB/s
    assert eager["decode_weights_s"] == pytest.approx(plan.steps * shape.params / 3.35e12)


def test_vllm_0_14_and_later_overlap_the_engine_step_with_the_gpu():
    """vLLM 0.14 made async scheduling the default: the CPU step of decode N+1 runs while the GPU runs step N, so
    only the CPU time beyond the GPU's remains; before 0.14, or on the V0 engine, the two add."""
    from autotune.sim.workload import async_vllm
    from autotune.sim.workload import workload as build

    assert [async_vllm(v) for v in (None, "0.14.0", "0.20.2", "0.24", "1.0")] == [True] * 5
    assert [async_vllm(v) for v in ("0.13.1", "0.8.5", "0.5.4")] == [False] * 3
    flat = {"data.train_batch_size": 8, "data.max_prompt_length": 8, "data.max_response_length": 8,
            "actor_rollout_ref.actor.ppo_mini_batch_size": 8}  # fmt: skip
    assert build(flat, {}, 1).vllm_async and not build(flat, {}, 1, vllm_version="0.8.5").vllm_async
    assert not build(flat, {"VLLM_USE_V1": "0"}, 1).vllm_async
    for shape in (PRESETS["Qwen2.5-0.5B"], PRESETS["Qwen2.5-7B"]):  # CPU-bound, then GPU-bound at 256 sequences
        serial = rollout.generation_features(workload(response_spread=0), shape, H100)
        overlapped = rollout.generation_features(workload(response_spread=0, vllm_async=True), shape, H100)
        # by hand: GPU seconds at 85% of peak and 80% of HBM, CPU seconds as before; what CPU exceeds GPU stays
        gpu = (serial["prefill_flops_s"] + serial["decode_flops_s"]) / 0.85 + serial["tp_allreduce_s"]
        gpu += (serial["decode_weights_s"] + serial["decode_kv_s"]) / 0.8
        cpu = serial["step_overhead_s"] + serial["sequence_overhead_s"]
        left = overlapped["step_overhead_s"] + overlapped["sequence_overhead_s"]
        assert left == pytest.approx(max(0.0, cpu - gpu))
        assert {k: v for k, v in overlapped.items() if "overhead" not in k} == {
            k: v for k, v in serial.items() if "overhead" not in k
        }
    assert 0 < left < cpu / 2  # the 7B decode hides most of the engine step


def test_the_tail_of_the_longest_response_shows_the_engine_step_the_full_batch_hid():
    """Past the mean length only the long responses still decode: a step's GPU work is one weight read, shorter than
    the engine's CPU step, so Σ max(GPU, CPU) is taken over the tail apart from the rest of the rollout."""
    shape = PRESETS["Qwen2.5-7B"]
    long = dict(prompts=64, response_tokens=4000, response_spread=1000, max_response=8192)
    w = workload(vllm_async=True, **long)  # 16 sequences per engine; longest 4000 + 1000·√(2 ln 64) = 6884 tokens
    assert w.longest_response == pytest.approx(4000 + 1000 * math.sqrt(2 * math.log(64)))
    serial = rollout.generation_features(workload(**long), shape, H100)
    overlapped = rollout.generation_features(w, shape, H100)
    gpu = (serial["prefill_flops_s"] + serial["decode_flops_s"]) / 0.85 + serial["tp_allreduce_s"]
    gpu += (serial["decode_weights_s"] + serial["decode_kv_s"]) / 0.8
    cpu = serial["step_overhead_s"] + serial["sequence_overhead_s"]
    assert gpu > cpu  # over the whole rollout the GPU's work would hide the engine step entirely
    # by hand, the tail: 2884 steps of one sequence; its weight shard (2 bytes × params / TP 2) and its KV at the
    # tail's middle context (100 + 4000 + 2884 / 2 tokens × 2·28 layers·4 KV heads/2·128·2 bytes) at 80% of 3.35 TB/s;
    # CPU: the 3 ms engine step, 28 × 0.01 ms of graph launch and 30 µs for the sequence
    tail = w.longest_response - 4000
    tail_gpu = tail * (shape.params + (4100 + tail / 2) * 2 * 28 * 2 * 128 * 2) / 3.35e12 / 0.8
    tail_cpu = tail * (3e-3 + 28 * 0.01e-3 + 30e-6)
    assert tail_cpu > tail_gpu  # ~3.3 ms of engine step against ~2.9 ms of reads per tail step
    left = overlapped["step_overhead_s"] + overlapped["sequence_overhead_s"]
    assert left == pytest.approx(max(0.0, (cpu - tail_cpu) - (gpu - tail_gpu)) + (tail_cpu - tail_gpu))
    assert left > 0.5


def test_vllm_version_selects_the_legacy_engine():
    from autotune.sim.workload import legacy_vllm
    from autotune.sim.workload import workload as build

    assert legacy_vllm("0.5.4") and legacy_vllm("0.4") and not legacy_vllm("0.6.3") and not legacy_vllm("0.10.1")
    assert not legacy_vllm("1.0")
    with pytest.raises(ValueError, match=r"vllm_version 'latest': expected a version like '0.5.4'"):
        legacy_vllm("latest")
    flat = {"data.train_batch_size": 8, "data.max_prompt_length": 8, "data.max_response_length": 8,
            "actor_rollout_ref.actor.ppo_mini_batch_size": 8}  # fmt: skip
    assert build(flat, {}, 1, vllm_version="0.5.4").vllm_legacy
    assert not build(flat, {}, 1).vllm_legacy and not build(flat, {}, 1, vllm_version="0.8.5.post1").vllm_legacy


def test_a_measured_longest_response_sets_the_spread():
    from autotune.sim.workload import workload as build

    flat = {"data.train_batch_size": 128, "actor_rollout_ref.rollout.n": 8, "data.max_prompt_length": 512,
            "data.max_response_length": 1024, "actor_rollout_ref.actor.ppo_mini_batch_size": 64}  # fmt: skip
    w = build(flat, {}, 8, 100, 200, response_max=700)
    # by hand: 1024 responses; spread = (700 - 200) / √(2 ln 1024) = 500 / 3.7233 = 134.29 tokens
    assert w.response_spread == pytest.approx(134.29, abs=0.01)
    assert w.longest_response == pytest.approx(700)
    assert build(flat, {}, 8, 100, 200, response_max=5000).longest_response == 1024  # no longer than the limit
    # a stated spread (a calibration's) keeps the Gaussian extreme: 200 + 134.29 · 3.7233 = 700
    assert build(flat, {}, 8, 100, 200, response_spread=134.29).longest_response == pytest.approx(700, abs=0.01)


def test_without_a_measured_longest_response_lengths_are_geometric():
    import random

    from autotune.sim.workload import workload as build

    flat = {"data.train_batch_size": 128, "actor_rollout_ref.rollout.n": 8, "data.max_prompt_length": 512,
            "data.max_response_length": 4096, "actor_rollout_ref.actor.ppo_mini_batch_size": 64}  # fmt: skip
    w = build(flat, {}, 8, 100, 200)
    # by hand: the longest of 1024 exponential lengths of mean 200 is 200 · H_1024 = 200 · 7.5094 = 1501.9 tokens
    harmonic = sum(1 / k for k in range(1, 1025))
    assert w.longest_response == pytest.approx(200 * harmonic, rel=1e-4)
    # and a slow reference: the mean longest of 300 batches of 1024 geometric lengths (a stop chance of 1/200 a token)
    rng = random.Random(0)
    stop = 1 / 200
    batches = [max(1 + int(math.log(1 - rng.random()) / math.log(1 - stop)) for _ in range(1024)) for _ in range(300)]
    assert w.longest_response == pytest.approx(sum(batches) / len(batches), rel=0.04)
    assert w.response_spread == pytest.approx(200)  # a geometric length's standard deviation is about its mean
    assert build({**flat, "data.max_response_length": 1024}, {}, 8, 100, 200).longest_response == 1024  # capped


def test_rollout_oom_when_weights_and_one_sequence_do_not_fit_the_vllm_share():
    shape = PRESETS["Llama-3-70B"]
    tp1 = rollout.rollout_plan(workload(tp=1), shape, H100)
    tp8 = rollout.rollout_plan(workload(tp=8), shape, H100)
    assert tp1.oom is not None and "tensor_model_parallel_size" in tp1.oom
    # by hand: 70.6e9 params × 2 bytes = 131 GiB of weights against 0.5 × 80 GiB
    assert tp1.weights_bytes / GIB > 0.5 * 80
    assert tp8.oom is None and tp8.kv_budget == pytest.approx(
        40 * GIB - shape.params * 2 / 8 - rollout.ACTIVATION_BYTES
    )


def test_padding_offload_and_checkpointing_in_training_phases():
    shape = PRESETS["Qwen2.5-7B"]
    packed = terms.update_features(workload(), shape, H100, 4, 1)
    padded = terms.update_features(workload(actor_rmpad=False), shape, H100, 4, 1)
    # by hand: packed sequences are 100 + 200 tokens, padded ones 512 + 1024
    assert packed["flops_s"] == pytest.approx(terms.train_flops(shape, 128, 300) * 4 / 3 / 989e12)
    assert padded["flops_s"] == pytest.approx(terms.train_flops(shape, 128, 1536) * 4 / 3 / 989e12)
    no_ckpt = terms.update_features(workload(grad_ckpt=False), shape, H100, 4, 1)
    assert packed["flops_s"] == pytest.approx(no_ckpt["flops_s"] * 4 / 3)
    assert packed["offload_s"] == 0.0
    both = terms.update_features(workload(param_offload=True, optimizer_offload=True), shape, H100, 4, 1)
    # by hand: (4 B params + 8 B Adam) / 8 ranks, to the GPU and back, over 64 GB/s PCIe
    assert both["offload_s"] == pytest.approx(2 * shape.params * 12 / 8 / 64e9)
    ref = terms.forward_features(workload(), shape, H100, 8, 2, True, 2.0)
    assert ref["offload_s"] == pytest.approx(2 * shape.params * 2 / 8 / 64e9)


def test_fsdp2_offload_policy_copies_host_shards_at_every_collective():
    """verl's `fsdp_config.offload_policy` (FSDP2's CPUOffloadPolicy) keeps the fp32 shards in host memory: each
    micro-batch's forward and backward all-gathers copy them to the GPU and its reduce-scatter copies gradients back,
    where verl's own offload crosses once a phase. By hand, from the resolved config as a space gives it."""
    from autotune.sim.workload import _training_memory

    read = _training_memory({"actor_rollout_ref.actor.fsdp_config.offload_policy": True})
    assert read["offload_policy"] and read["param_offload"] and read["optimizer_offload"]  # held in host memory
    assert not _training_memory({"actor_rollout_ref.actor.fsdp_config.param_offload": True})["offload_policy"]
    shape = PRESETS["Qwen2.5-7B"]
    policy = workload(param_offload=True, optimizer_offload=True, offload_policy=True)
    update = terms.update_features(policy, shape, H100, 4, 1)
    micro = 4 * 4  # 4 mini-batches of 4 micro-batches
    shard_copy = shape.params * 4 / 8 / 64e9  # the rank's fp32 shard over 64 GB/s
    assert update["offload_s"] == pytest.approx(micro * 3 * shard_copy)  # forward + backward gathers, one scatter
    # 48 copies of 4 B a parameter against verl's own offload, 12 B there and back once: 8 times as much here
    once = terms.update_features(workload(param_offload=True, optimizer_offload=True), shape, H100, 4, 1)["offload_s"]
    assert update["offload_s"] == pytest.approx(8 * once)
    no_reshard = terms.update_features(
        workload(param_offload=True, optimizer_offload=True, offload_policy=True, reshard_after_forward=False),
        shape, H100, 4, 1,
    )  # fmt: skip
    assert no_reshard["offload_s"] == pytest.approx(micro * 2 * shard_copy)
    phases = terms.phase_features(policy, shape, H100)
    assert phases["old_log_prob"]["offload_s"] == pytest.approx(8 * shard_copy)  # logprob_micro 8, a gather each
    assert phases["update_actor"]["offload_s"] == pytest.approx(update["offload_s"])
    assert phases["update_critic"]["offload_s"] == 0.0  # the critic's own fsdp_config does not set it


def test_verl_jobs_sync_weights_the_builtin_trainer_reshards():
    shape = PRESETS["Qwen2.5-0.5B"]
    verl = terms.phase_features(workload(engine="verl"), shape, H100)
    builtin = terms.phase_features(workload(engine="builtin"), shape, H100)
    assert "update_weights" in verl and "reshard" not in verl
    assert "reshard" in builtin and "update_weights" not in builtin
    assert "ref" not in terms.phase_features(workload(has_ref=False), shape, H100)


def test_device_presets_user_files_and_calibrated_devices(tmp_path):
    assert {"H100", "H800", "H200", "H20", "A100", "A800", "L40S", "B200", "MI300X"} <= set(DEVICES)
    assert cluster("h20", 8).device.peak_flops == 148e12  # case-insensitive; verl's flops_counter figure
    path = tmp_path / "my_gpu.yaml"
    path.write_text("peak_tflops: 500\nhbm_tb_s: 2\nmemory_gib: 64\nlink_gb_s: 100\npcie_gb_s: 32\n")
    device = device_from_file(path)
    assert (device.peak_flops, device.memory_bytes, device.pcie_bytes_per_s) == (500e12, 64 * GIB, 32e9)
    assert cluster(str(path), 8).device == device
    path.write_text("peak_tflops: 500\nhbm_tb_s: fast\nmemory_gib: 64\nlink_gb_s: 100\n")
    with pytest.raises(ValueError, match="hbm_tb_s must be a number"):
        device_from_file(path)
    path.write_text("peak_tflops: 500\n")
    with pytest.raises(ValueError, match="missing hbm_tb_s, memory_gib, link_gb_s"):
        device_from_file(path)
    with pytest.raises(ValueError, match="unknown GPU 'V100'"):
        cluster("V100", 8)
    h20 = device_to_json(DEVICES["H20"])  # as a log calibration keeps the GPU it was fitted on
    assert calibrated_device(None, h20) == DEVICES["H20"]  # a calibrated sweep keeps its GPU
    assert calibrated_device("H100", h20) == DEVICES["H100"]  # unless --gpu says otherwise
    assert calibrated_device(None, None) == DEVICES["H100"]


def test_verl_0_7_1_and_later_sync_full_tensors_over_cuda_ipc_at_a_fixed_cost_and_a_rate():
    """From verl 0.7.1 (PR 4280) vLLM runs in processes of its own: every rank hands each full bf16 tensor to its vLLM
    worker through CUDA IPC buckets, whatever the TP, behind a fixed cost; earlier verl loaded the TP shard in
    process after an all-gather."""
    from autotune.sim.fit import phase_seconds
    from autotune.sim.model import default_weights
    from autotune.sim.workload import verl_rollout_ipc
    from autotune.sim.workload import workload as build

    assert [verl_rollout_ipc(v) for v in (None, "0.7.1", "0.8.0", "0.9.0.dev0", "1.0")] == [True] * 5
    assert [verl_rollout_ipc(v) for v in ("0.7.0", "0.7", "0.6.1", "0.5.0")] == [False] * 4
    flat = {"data.train_batch_size": 8, "data.max_prompt_length": 8, "data.max_response_length": 8,
            "actor_rollout_ref.actor.ppo_mini_batch_size": 8}  # fmt: skip
    assert build(flat, {}, 1).rollout_ipc and not build(flat, {}, 1, verl_version="0.7.0").rollout_ipc
    assert not build({**flat, "builtin.reshard": True}, {}, 1).rollout_ipc  # the builtin trainer reshards instead
    shape = PRESETS["Qwen2.5-7B"]
    for tp in (1, 2, 4):
        ipc = rollout.update_weights_features(workload(rollout_ipc=True, tp=tp), shape, H100)
        # by hand: 1.8 s plus 2 bytes × 7.6B parameters at 6 GB/s (2.5 s), the same at every TP
        assert phase_seconds(default_weights(), ipc, "update_weights") == pytest.approx(1.8 + 2 * shape.params / 6e9)
    old = rollout.update_weights_features(workload(tp=2), shape, H100)
    assert set(old) == {"sync_gather_s", "sync_load_s", "sync_tensors", "offload_s"}
    assert old["sync_load_s"] == pytest.approx(shape.params / 3.35e12)  # the TP-2 shard at the HBM rate
    assert phase_seconds(default_weights(), old, "update_weights") < 1.0


def test_the_builtin_rollout_decodes_a_padded_fp32_batch_eagerly():
    """The builtin trainer's own rollout, by hand: 1,024 responses over 4 data-parallel groups (world 8, TP 2) of
    256 rows each, prompts padded to the 512-token limit, decoded for the longest response (1,024, the cap: spread
    200 puts the Gaussian extreme above it), fp32 weights and KV cache at the H100's 67 TFLOP/s fp32 rate, and
    39 operations a layer plus 115 a step at 7 µs each; a step costs its CPU launches or its GPU work, the larger."""
    qwen = PRESETS["Qwen2.5-7B"]
    w = workload(engine="builtin", response_spread=2000)
    assert w.longest_response == 1024
    f = rollout.builtin_generation_features(w, qwen, H100)
    dense = 2 * qwen.params / 2
    kv_token = 2 * qwen.layers * qwen.kv_heads * qwen.head_dim * 4 / 2
    gpu = {
        "prefill_flops_s": dense * 256 * 512 / 67e12,
        "decode_flops_s": dense * 256 * 1024 / 67e12,
        "decode_weights_s": 1024 * qwen.params * 4 / 2 / 3.35e12,
        "decode_kv_s": 256 * 1024 * (512 + 512) * kv_token / 3.35e12,
    }
    cpu = 1025 * (qwen.layers * 39 + 115) * 7e-6
    assert {k: f[k] for k in gpu} == pytest.approx(gpu)
    assert f["tp_allreduce_s"] > 0 and f["sequence_overhead_s"] == 0
    gpu_time = (gpu["prefill_flops_s"] + gpu["decode_flops_s"]) / 0.85 + (
        gpu["decode_weights_s"] + gpu["decode_kv_s"]
    ) / 0.8
    assert gpu_time + f["tp_allreduce_s"] > cpu  # a 7B batch of 256 rows is GPU-bound: no launch time shows
    assert f["step_overhead_s"] == 0
    tiny = workload(engine="builtin", prompts=32, world=1, tp=1, max_prompt=8, prompt_tokens=6, response_tokens=4,
                    max_response=8, response_spread=8)  # fmt: skip
    small = rollout.builtin_generation_features(tiny, PRESETS["Qwen2.5-0.5B"], cluster("H100", 1))
    seconds = sum(CostModel(H100, qwen).weights["gen"].get(k, 0.0) * v for k, v in small.items())
    assert seconds == pytest.approx(9 * (24 * 39 + 115) * 7e-6)  # 32 rows of a 0.5B: launch-bound, 8 steps + prefill


def test_the_builtin_rollouts_operation_counts_are_the_decoders():
    """BUILTIN_OPS_PER_LAYER and _PER_STEP against the real decoder and sampler: the non-view aten operations one
    decode step runs, counted for the 2- and 4-layer built-in model (operations = fixed + per layer x layers)."""
    import torch
    from torch.utils._python_dispatch import TorchDispatchMode

    from trainer.config.loader import load_config
    from trainer.model import build_policy, policy_config
    from trainer.rollout import decoder, sampler
    from trainer.rollout import weights as rollout_weights

    views = {"view", "transpose", "t", "slice", "select", "unsqueeze", "expand", "_unsafe_view", "as_strided",
             "alias", "detach", "reshape", "permute", "squeeze", "lift_fresh"}  # fmt: skip

    class Count(TorchDispatchMode):
        ops = 0

        def __torch_dispatch__(self, func, types, args=(), kwargs=None):  # type: ignore[no-untyped-def]
            if func.__name__.split(".")[0] not in views:
                self.ops += 1
            return func(*args, **(kwargs or {}))

    counts = {}
    for layers in (2, 4):
        config = load_config([], ["trainer.total_training_steps=1", f"builtin.model.num_hidden_layers={layers}"])
        hf = policy_config(config)
        weights = rollout_weights.assemble(dict(build_policy(config, 0).named_parameters()), layers)
        shape = rollout_weights.decoder_shape(hf)
        batch, prompt, new = 8, 6, 4
        cache = decoder.KVCache(weights, shape, batch, prompt + new)
        ids = torch.randint(4, 14, (batch, prompt))
        pos = torch.arange(prompt).expand(batch, prompt)
        valid = torch.zeros(batch, prompt + new, dtype=torch.bool)
        valid[:, :prompt] = True
        params = sampler.SamplingParams(new, 1.0, True, 0, 1)
        with torch.no_grad():
            logits = decoder.forward(weights, shape, ids, pos, valid, cache, lambda t: None)
            count = Count()
            with count:  # one decode step as sampler.generate runs it
                done = torch.zeros(batch, dtype=torch.bool)
                out = torch.zeros(batch, new, dtype=torch.long)
                token = torch.where(done, 0, sampler.pick_tokens(logits, params, torch.arange(batch), 0))
                out[:, 0] = token
                done |= token == 2
                bool(done.all())
                valid[:, prompt] = True
                decoder.forward(weights, shape, token[:, None], pos[:, :1] + prompt, valid, cache, lambda t: None)
        counts[layers] = count.ops
    per_layer = (counts[4] - counts[2]) / 2
    assert (per_layer, counts[2] - 2 * per_layer) == (rollout.BUILTIN_OPS_PER_LAYER, rollout.BUILTIN_OPS_PER_STEP)
