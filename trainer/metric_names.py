"""The names of the per-step metrics this trainer writes (torch-free, for the controller to import)."""

from __future__ import annotations

PHASES = ("gen", "reshard", "old_log_prob", "ref", "values", "adv", "update_critic", "update_actor")

METRIC_NAMES = (
    *(f"timing_s/{p}" for p in (*PHASES, "step", "comm")),
    "perf/throughput",
    "perf/time_per_step",
    "perf/total_num_tokens",
    "perf/mfu/actor",
    "perf/cpu_memory_used_gb",
    "perf/tensor_memory_gb",
    "perf/max_memory_allocated_gb",
    "perf/max_memory_reserved_gb",
    "perf/comm_share",
    *(
        f"actor/{k}"
        for k in (
            "ppo_kl", "kl_loss", "kl_coef", "pg_loss", "pg_clipfrac", "pg_clipfrac_lower", "entropy", "grad_norm", "lr",
            "reward_kl_penalty", "reward_kl_penalty_coeff",
        )
    ),
    *(f"critic/{k}" for k in ("score/mean", "score/max", "rewards/mean", "advantages/mean", "returns/mean", "values/mean")),
    *(f"critic/{k}" for k in ("vf_loss", "vf_clipfrac", "vpred_mean", "grad_norm")),
    "response_length/mean",
    "response_length/max",
    "response_length/clip_ratio",
    "prompt_length/mean",
    "rollout/kv_cache_gb",
    "rollout/weights_gb",
)  # fmt: skip
"""Every per-step metric this trainer writes (plus the `timing_s/comm/<phase>` and `rollout/*` families)."""
METRIC_PREFIXES = ("timing_s/comm/", "rollout/")

REASON_PREFIX = "trainer: FAILED "
"""Start of the one-line failure reason a failing rank prints on stderr (see trainer/failures.py)."""


def killed_by(signum: int) -> str:
    """How a rank killed by a signal is said (the warm run's leader; the controller reading torchrun's report)."""
    import signal

    try:
        name = signal.Signals(signum).name
    except ValueError:
        name = f"signal {signum}"
    oom = " (the kernel's OOM killer sends it when the machine runs out of memory)" if signum == signal.SIGKILL else ""
    return f"killed by {name}{oom}"
