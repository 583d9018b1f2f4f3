"""A stand-in for `python -m verl.trainer.main_ppo` (not verl), only for the failures that cannot
happen on a CPU machine: CUDA out of memory and NCCL errors. Everything else is tested against real
verl. It takes hydra overrides, prints verl-format console lines (`np.float64(...)` values behind
Ray's `(TaskRunnerV1 pid=N)` prefix, some wrapped) and exits like verl does.
FAKE_VERL_MODE=ok|oom|nccl picks the ending.
"""

from __future__ import annotations

import os
import random
import sys
import time


def main() -> int:
    overrides = dict(arg.lstrip("+").split("=", 1) for arg in sys.argv[1:] if "=" in arg)
    mode = os.environ.get("FAKE_VERL_MODE", "ok")
    if overrides.get("ray_kwargs.ray_init.runtime_env.env_vars.FAKE_VERL_MODE", mode) != mode:
        print("env var not forwarded to ray_kwargs", file=sys.stderr)
        return 2
    if overrides.get("trainer.logger") != "[console]" or overrides.get("trainer.save_freq") != "-1":
        print(f"missing trial overrides: {overrides}", file=sys.stderr)
        return 2
    steps = int(overrides["trainer.total_training_steps"])
    micro = int(overrides.get("actor_rollout_ref.actor.ppo_micro_batch_size_per_gpu", 4))
    rng = random.Random(micro)
    pid = os.getpid()
    print(f"\x1b[36m(TaskRunnerV1 pid={pid})\x1b[0m INFO vllm engine started", flush=True)
    for step in range(1, steps + 1):
        if mode in ("oom", "nccl") and step == 2:
            return fail(mode)
        throughput = 1000.0 * (1 + 0.1 * micro) * (1 + 0.01 * rng.random())
        pairs = [
            ("actor/pg_loss", rng.uniform(-0.1, 0.1)),
            ("actor/reward_kl_penalty", 0.001 * step),
            ("critic/score/mean", 0.1 * step),
            ("perf/throughput", throughput),
            ("actor/perf/max_memory_allocated_gb", 40.0 + micro),
            ("perf/mfu/actor", 0.3),
            ("timing_s/gen", 10.0 / micro),
            ("timing_s/update_actor", 5.0),
            ("timing_s/step", 20.0),
        ]
        line = f"step:{step} - " + " - ".join(f"{k}:np.float64({v!r})" for k, v in pairs)
        prefix = f"\x1b[36m(TaskRunnerV1 pid={pid})\x1b[0m "
        if step % 2:
            cut = len(line) // 2
            print(prefix + line[:cut], flush=True)
            print(f"(WorkerDict pid={pid + 1}) INFO an interleaved line from another process", flush=True)
            print(prefix + line[cut:], flush=True)
        else:
            print(prefix + line, flush=True)
        time.sleep(0.05)
    return 0


def fail(mode: str) -> int:
    messages = {
        "oom": "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB (GPU 0; 79.1 GiB total capacity)",
        "nccl": "torch.distributed.DistBackendError: NCCL error in: ProcessGroupNCCL.cpp:1970, unhandled cuda error "
        "(run with NCCL_DEBUG=INFO for details), NCCL version 2.21.5\nncclUnhandledCudaError: Call to CUDA function failed.",
    }
    print("Traceback (most recent call last):", file=sys.stderr)
    print(messages[mode], file=sys.stderr, flush=True)
    return 1


if __name__ == "__main__":
    sys.exit(main())
