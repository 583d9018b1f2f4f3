"""The FSDP3D recipe's knobs, with ranges valid for one job on one cluster, each with the reason for its range.

Systems knobs only are tuned (they change speed and memory, never the math): rollout tensor
parallelism, FSDP prefetch, resharding, offload and shard group, fixed micro-batches or dynamic
token budgets, vLLM's memory share, NCCL settings. Algorithm knobs are listed at the job's values
for a later quality stage, not tuned here. The KL bound (0.05) and a memory limit (1.2x the
baseline's) guard every trial.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from autotune.scaffold.job import Job, JobError

__all__ = ["ALGORITHM_KEYS", "KL_BOUND", "Cluster", "Knob", "Recipe", "recipe"]

KL_BOUND = 0.05
MEMORY_RATIO = 1.2

ALGORITHM_KEYS = {
    "algorithm.adv_estimator": "advantage estimator (gae needs a critic, grpo a group per prompt)",
    "algorithm.kl_ctrl.type": "KL controller: fixed or adaptive",
    "algorithm.kl_ctrl.kl_coef": "KL penalty coefficient: score against distance from the reference",
    "algorithm.kl_ctrl.target_kl": "adaptive controller's target KL",
    "algorithm.use_kl_in_reward": "KL as a reward penalty",
    "actor_rollout_ref.actor.use_kl_loss": "KL as a loss term (GRPO's usual choice)",
    "actor_rollout_ref.actor.kl_loss_coef": "coefficient of the KL loss",
    "actor_rollout_ref.actor.kl_loss_type": "KL estimator of the loss",
    "actor_rollout_ref.actor.clip_ratio_low": "PPO clip below",
    "actor_rollout_ref.actor.clip_ratio_high": "PPO clip above",
    "actor_rollout_ref.actor.entropy_coeff": "entropy bonus",
    "actor_rollout_ref.actor.ppo_epochs": "passes over each batch",
    "actor_rollout_ref.actor.optim.lr": "actor learning rate",
    "actor_rollout_ref.rollout.n": "samples per prompt",
    "actor_rollout_ref.rollout.temperature": "sampling temperature",
}
"""Knobs that change what is learned: judged over a real horizon, on the throughput winner."""

TP = "actor_rollout_ref.rollout.tensor_model_parallel_size"
DYNAMIC = "actor_rollout_ref.actor.use_dynamic_bsz"
MICRO = "actor_rollout_ref.actor.ppo_micro_batch_size_per_gpu"
GLOBAL_MICRO = "actor_rollout_ref.actor.ppo_micro_batch_size"
ACTOR_BUDGET = "actor_rollout_ref.actor.ppo_max_token_len_per_gpu"
LOGPROB_BUDGETS = (
    "actor_rollout_ref.ref.log_prob_max_token_len_per_gpu",
    "actor_rollout_ref.rollout.log_prob_max_token_len_per_gpu",
)
LOGPROB_MICRO = (
    "actor_rollout_ref.ref.log_prob_micro_batch_size_per_gpu",
    "actor_rollout_ref.rollout.log_prob_micro_batch_size_per_gpu",
)
LOGPROB_DYNAMIC = (
    "actor_rollout_ref.rollout.log_prob_use_dynamic_bsz",
    "actor_rollout_ref.ref.log_prob_use_dynamic_bsz",
)
"""verl's defaults follow the actor's `use_dynamic_bsz`; its actor worker asserts the rollout's equals it."""
CRITIC_MICRO = "critic.ppo_micro_batch_size_per_gpu"
FSDP = "actor_rollout_ref.actor.fsdp_config."
NCCL: dict[str, list[Any]] = {
    "NCCL_PROTO": [None, "Simple", "LL", "LL128"],
    "NCCL_ALGO": [None, "Ring", "Tree"],
    "NCCL_MAX_NCHANNELS": [None, 8, 16, 32],
    "CUDA_DEVICE_MAX_CONNECTIONS": [None, 1, 8],
}  # fmt: skip


@dataclass(frozen=True)
class Cluster:
    gpus_per_node: int
    nodes: int = 1
    gpu: str | None = None
    """A cost-model preset (H100, A100, ...) or a device YAML; None: unknown."""

    @property
    def world(self) -> int:
        return self.gpus_per_node * self.nodes


@dataclass
class Knob:
    name: str
    spec: dict[str, Any]
    baseline: Any
    why: str
    in_baseline: bool = True


@dataclass
class Recipe:
    knobs: list[Knob]
    derived: dict[str, dict[str, Any]]
    constraints: list[dict[str, Any]]
    algorithm: list[tuple[str, Any, str]]
    limits: list[tuple[dict[str, Any], str]]
    cpu: bool
    notes: list[str] = field(default_factory=list)
    follow: list[str] = field(default_factory=list)
    """Keys of the job left out of `base:` so that they follow a knob as verl's defaults derive them."""


def _divisors(n: int) -> list[int]:
    return [d for d in range(1, n + 1) if n % d == 0]


def model_heads(job: Job, model: str | None) -> tuple[int | None, str]:
    """The actor's attention heads and where they were read (a local config.json, else a preset)."""
    from autotune.sim.workload import find_shape

    path = model or job.flat.get("actor_rollout_ref.model.path")
    if not isinstance(path, str):
        return None, "no model path"
    local = Path(path).expanduser()
    config = local / "config.json" if local.is_dir() else local
    try:
        heads = find_shape(path, {}).heads
    except ValueError as exc:
        if model is not None:  # given to be read: a typo or a broken file is refused, not left for TP 8 to meet
            raise JobError(
                f"--model {model}: {exc}"
                if config.is_file()
                else f"--model {model}: no such file, no config.json "
                "in that folder, and no cost-model preset matches; give the model's config.json (or its folder)"
            ) from None
        return (
            None,
            f"{config} cannot be read ({exc})" if config.is_file() else f"{path} is not local and matches no preset",
        )
    return heads, f"{config}" if config.is_file() else f"the cost model's preset for {path}"


VLLM_KWARGS = "actor_rollout_ref.rollout.engine_kwargs.vllm."
"""vLLM's engine settings in verl's config, which its SGLang rollout does not read (it reads `engine_kwargs.sglang`)."""


def recipe(job: Job, cluster: Cluster, defaults: dict[str, Any], model: str | None = None) -> Recipe:
    """The knobs for this job on this cluster (JobError when the job itself cannot run there)."""

    def value(key: str) -> Any:
        return job.flat.get(key, defaults.get(key))

    g, world = cluster.gpus_per_node, cluster.world
    cpu = str(value("trainer.device")) == "cpu"
    heads, heads_from = model_heads(job, model)
    seq = int(value("data.max_prompt_length")) + int(value("data.max_response_length"))
    knobs: list[Knob] = []
    notes: list[str] = []

    if not cpu:  # the CPU plugin's rollout is a Hugging Face `generate` per rank: no TP, no offload
        knobs.append(_rollout_tp(job, value, g, world, heads, heads_from))
    fsdp = [
        ("forward_prefetch", "FSDP all-gathers the next block during this one: memory for speed"),
        ("reshard_after_forward", "false keeps gathered weights from forward to backward: memory for speed"),
    ]
    if not cpu:
        fsdp += [
            ("param_offload", "parameters in host memory: frees GPU memory, costs PCIe time"),
            ("optimizer_offload", "Adam state in host memory: frees GPU memory, costs PCIe time"),
        ]
    for key, why in fsdp:
        knobs.append(Knob(FSDP + key, {"type": "bool"}, bool(value(FSDP + key)), why))
    groups = [-1, *sorted((d for d in _divisors(g) if d < world), reverse=True)][:5]
    fsdp_size = int(value(FSDP + "fsdp_size"))
    if fsdp_size not in groups:
        groups.append(fsdp_size)
    knobs += (
        []
        if len(groups) == 1
        else [
            Knob(
                FSDP + "fsdp_size",
                {"type": "categorical", "choices": groups},
                fsdp_size,
                f"shard group: -1 = all {world} GPUs; groups dividing the {g} per node keep all-gathers in a node, at more memory",
            )
        ]
    )

    dynamic = bool(value(DYNAMIC))
    knobs.append(
        Knob(DYNAMIC, {"type": "bool"}, dynamic, "token budgets per GPU (packed) instead of fixed micro-batches")
    )
    knobs += _micro_batches(job, value, world, dynamic)
    budgets = _token_budgets(job, value, seq, dynamic)
    knobs += budgets
    derived: dict[str, Any] = (
        {key: {"when": {DYNAMIC: True}, "value": "logprob_token_budget"} for key in LOGPROB_BUDGETS}
        if any(k.name == "logprob_token_budget" for k in budgets)
        else {}
    )  # one budget for both log-prob passes
    for key in LOGPROB_MICRO:  # without dynamic batching verl needs them: the job (dynamic) set none. A job
        # without dynamic batching that sets none runs without them: nothing is added to it (audit 29 F1)
        if dynamic and not any(k in job.flat for k in (key, key.removesuffix("_per_gpu"))):
            derived[key] = {"when": {DYNAMIC: False}, "value": MICRO}
    if dynamic and _critic_follows_actor(job, value):  # and the critic's (audit 29 F3)
        derived[CRITIC_MICRO] = {"when": {DYNAMIC: False}, "value": MICRO}
    follow = [k for k in LOGPROB_DYNAMIC if k in job.flat and bool(job.flat[k]) == dynamic]
    if follow:  # pinned to the actor's value, they stayed when the knob turned it (verl asserts: audit 29 F2)
        notes.append(
            f"the job sets {', '.join(f'`{k}`' for k in follow)} to `{DYNAMIC}`'s value, as verl's defaults "
            "derive them: left out of `base:` so that they follow the actor's when a trial turns dynamic batching "
            f"{'off' if dynamic else 'on'} (verl's actor worker refuses a rollout that differs from the actor)"
        )

    if not cpu:
        sglang = value("actor_rollout_ref.rollout.name") == "sglang"
        engine = "SGLang (mem_fraction_static)" if sglang else "vLLM"
        if sglang:
            notes.append("an SGLang rollout: the cost model (pre-screen, `--fidelity sim`) predicts it as vLLM's")
            inert = [k for k in job.flat if k.startswith(VLLM_KWARGS)]
            if inert:  # verl's Qwen2.5-VL SGLang example sets vLLM's, said nowhere (audit 39 F10)
                notes.append(
                    f"{', '.join(f'`{k}`' for k in inert)}: vLLM's engine settings, which an SGLang rollout does not "
                    "read (verl hands SGLang `actor_rollout_ref.rollout.engine_kwargs.sglang`): kept as the job sets "
                    "them, inert in every trial"
                )
        from autotune.sim.workload import REWARD_MODEL_KEYS, has_reward_model, reward_model_words

        rm = {k: value(k) for k in (*REWARD_MODEL_KEYS, "reward.reward_model.model_path", "reward_model.model.path")}
        if has_reward_model(rm):  # predicted as if it had none, said nowhere (audit 36 F10)
            notes.append(
                f"a {reward_model_words(rm)}: the cost model (pre-screen, `--fidelity sim`) does not model it; its "
                "scoring time and its memory are in no predicted step time or peak"
            )
        tool = value("global_profiler.tool")
        if tool not in (None, "null", "None", ""):  # profiled trials, the profiler shipped, said nowhere (audit 39 F3)
            records = (
                " (torch_memory records each worker's allocation history from its start, whatever "
                "`global_profiler.steps` says)"
                if tool == "torch_memory"
                else ""
            )
            notes.append(
                f"the job runs verl's `{tool}` profiler (`global_profiler.tool`): so does every trial, and the export "
                f"ships it; its cost{records} is in each measured step time and in no prediction: leave the "
                "`global_profiler.*` keys out of `base:` to tune and ship the job without it"
            )
        from autotune.sim.workload import VISION_WORDS, context_cut_words, dynamic_sampling_words, find_shape

        merged = {**defaults, **job.flat}
        try:
            shape = find_shape(model or merged.get("actor_rollout_ref.model.path"), {})
            positions, vision = shape.positions, shape.vision
        except (ValueError, OSError, TypeError):
            positions, vision = 0, False
        if vision:  # predicted as its language model alone, said nowhere (audit 39 F1)
            notes.append(
                "a vision-language model (its config.json has a `vision_config`): the cost model (pre-screen, "
                f"`--fidelity sim`) predicts its language model alone; {VISION_WORDS}"
            )
        if cut := context_cut_words(merged, positions):  # the job's own responses, cut (audit 37 F14)
            notes.append(f"the job: {cut}")
        if sampling := dynamic_sampling_words(merged):  # predicted as one generation, said nowhere (audit 37 F5)
            notes.append(f"{sampling}: the pre-screen's and `--fidelity sim`'s step times are so too")
        util = float(value("actor_rollout_ref.rollout.gpu_memory_utilization"))
        low, high = min(0.3, util), max(0.9, util)
        knobs.append(
            Knob(
                "actor_rollout_ref.rollout.gpu_memory_utilization",
                {"type": "float", "low": low, "high": high, "step": 0.05} if _on_grid(util, low, 0.05) and _on_grid(high, low, 0.05) else {"type": "float", "low": low, "high": high},
                util,
                f"{engine}'s share of each GPU (weights + KV cache); the trainer's state stays resident beside it",
            )
        )  # fmt: skip
        for name, choices in NCCL.items():
            current = job.env.get(name)
            base: Any = None if current is None else int(current) if current.isdigit() else current
            options = choices if base in choices else [*choices, base]
            why = (
                "null: NCCL's own choice"
                if name.startswith("NCCL")
                else "null: CUDA's default; 1 orders kernels for overlap"
            )
            knobs.append(Knob(f"env.{name}", {"type": "categorical", "choices": options}, base, why))
    else:
        notes.append(
            "a CPU job (`trainer.device: cpu`, verl_cpu plugin): no rollout TP, offload, vLLM memory share or NCCL to tune"
        )

    constraints: list[dict[str, Any]] = [] if cpu else [{"divides": [TP, "trial.world_size"]}]
    constraints.append({"at_least": [ACTOR_BUDGET, seq], "when": {DYNAMIC: True}})
    algorithm = [(k, value(k), role) for k, role in ALGORITHM_KEYS.items()]
    return Recipe(knobs, derived, constraints, algorithm, _limits(value), cpu, notes, follow)


def _critic_follows_actor(job: Job, value: Any) -> bool:
    """The job has a critic (verl's `need_critic`) on the actor's dynamic batching (verl's default for
    `critic.use_dynamic_bsz`) and sets no critic micro-batch: a trial turning dynamic batching off needs one."""
    enabled = value("critic.enable")
    critic = bool(enabled) if enabled is not None else str(value("algorithm.adv_estimator")) == "gae"
    return (
        critic
        and "critic.use_dynamic_bsz" not in job.flat
        and not any(k in job.flat for k in (CRITIC_MICRO, CRITIC_MICRO.removesuffix("_per_gpu")))
    )


def _rollout_tp(job: Job, value: Any, g: int, world: int, heads: int | None, heads_from: str) -> Knob:
    """Choices dividing the GPUs of one node (a rollout kept in a node); a job's own TP that spans whole nodes
    (TP 16 on 8-GPU nodes: verl places such a replica on TP / GPUs-per-node nodes) is kept as its baseline."""
    fits_heads = [d for d in _divisors(g) if heads is None or heads % d == 0]
    whole_nodes = [
        g * n for n in range(2, world // g + 1) if world % (g * n) == 0 and (heads is None or heads % (g * n) == 0)
    ]
    tp = int(value(TP))
    spans_nodes = tp in whole_nodes
    if tp not in fits_heads and not spans_nodes:
        raise JobError(
            f"{job.at(TP)}: `{TP}`={tp} must divide the {g} GPUs per node"
            + (f" and the model's {heads} attention heads ({heads_from})" if heads else "")
            + f", or be a multiple of {g} that divides the {world} GPUs (a rollout on whole nodes); "
            + f"choose one of {fits_heads + whole_nodes}"
        )
    why = f"divide the {g} GPUs per node (a rollout stays in a node)"
    if spans_nodes:
        why += f", or {tp}, the job's own, on {tp // g} whole nodes"
    why += f" and the {heads} attention heads ({heads_from})" if heads else f"; attention heads unknown: {heads_from}"
    choices = fits_heads + ([tp] if spans_nodes else [])
    return Knob(TP, {"type": "categorical", "choices": choices}, tp, why)


def _on_grid(x: float, low: float, step: float) -> bool:
    """Stepped only where the step divides the range (a space refuses one that does not) and hits the job's value."""
    return abs((x - low) / step - round((x - low) / step)) < 1e-9


def _micro_batches(job: Job, value: Any, world: int, dynamic: bool) -> list[Knob]:
    n = int(value("actor_rollout_ref.rollout.n"))
    mini = int(value("actor_rollout_ref.actor.ppo_mini_batch_size"))
    sp = int(value("actor_rollout_ref.actor.ulysses_sequence_parallel_size") or 1)
    per_gpu = mini * n // max(world // sp, 1)
    if per_gpu < 1:
        raise JobError(
            f"{job.source}: `actor_rollout_ref.actor.ppo_mini_batch_size`={mini} × rollout.n {n} gives less than "
            f"one sequence per GPU on {world} GPUs; raise the mini-batch or use fewer GPUs"
        )
    choices = [d for d in (1, 2, 4, 8, 16, 32, 64) if per_gpu % d == 0][-5:]
    if MICRO not in job.flat and job.flat.get(GLOBAL_MICRO) is not None:  # verl refuses both set: the tuned one
        total = int(job.flat[GLOBAL_MICRO])
        at = job.at(GLOBAL_MICRO)
        if total * sp < world or mini % total:  # verl's own rules for the global size (ActorConfig.validate)
            rule = (
                f"ppo_micro_batch_size ({total}) × ulysses_sequence_parallel_size ({sp}) must be >= the {world} GPUs"
                if total * sp < world
                else f"ppo_mini_batch_size ({mini}) must be divisible by ppo_micro_batch_size ({total})"
            )
            raise JobError(f"{at}: verl refuses the job: {rule}; set `{MICRO}` instead (a size per GPU)")
        job.flat.pop(GLOBAL_MICRO)
        job.flat[MICRO] = total * sp // world
        if GLOBAL_MICRO in job.lines:
            job.lines[MICRO] = job.lines.pop(GLOBAL_MICRO)
        job.notes.append(
            f"`{GLOBAL_MICRO}`={total} (deprecated: over all {world} GPUs) is written as `{MICRO}`="
            f"{job.flat[MICRO]} ({total} × SP {sp} / {world} GPUs, as verl divides it): the key tuned here"
        )
    current = value(MICRO)
    if current is None:
        current = choices[len(choices) // 2]
        if not dynamic:
            job.notes.append(
                f"`{MICRO}` not set (verl requires it without dynamic batching): the baseline uses {current}"
            )
    elif int(current) not in choices:
        choices = sorted({*choices, int(current)})
    why = f"divide the mini-batch per GPU: {mini} prompts × n {n} / ({world} GPUs / SP {sp}) = {per_gpu}"
    return [
        Knob(
            MICRO, {"type": "categorical", "choices": choices, "when": {DYNAMIC: False}}, int(current), why, not dynamic
        )
    ]


def _token_budgets(job: Job, value: Any, seq: int, dynamic: bool) -> list[Knob]:
    """The actor's token budget, and one for both log-prob passes (the ref's and the rollout's), each with the
    job's own value as its baseline. When the job gives the two passes different budgets (one set, the other
    following the actor's, as verl's defaults do), one knob cannot keep both: they stay as the job has them."""
    actor = sorted({m * seq for m in (2, 3, 4)} | ({int(value(ACTOR_BUDGET))} if dynamic else set()))
    seq_why = f"× (max prompt + max response = {seq})"
    actor_knob = Knob(
        ACTOR_BUDGET,
        {"type": "categorical", "choices": actor, "when": {DYNAMIC: True}},
        int(value(ACTOR_BUDGET)) if dynamic else None,
        f"2-4 {seq_why}: at least one full sequence; verl's guide: 2 or more",
        dynamic,
    )
    # verl's log-prob budgets follow the actor's unless set: read them against the job, not verl's defaults
    now = {key: value(key) if key in job.flat else value(ACTOR_BUDGET) for key in LOGPROB_BUDGETS}
    if len({int(v) for v in now.values() if v}) > 1:
        given = ", ".join(f"{k.split('.')[1]} {v}" for k, v in now.items())
        job.notes.append(
            f"the job's log-prob passes have different token budgets ({given}): kept as the job sets them, not "
            "tuned (one knob sets both)"
        )
        return [actor_knob]
    logprob_now = int(next(iter(now.values())) or 4 * seq)
    logprob = sorted({m * seq for m in (2, 4, 6, 8)} | ({logprob_now} if dynamic else set()))
    return [
        actor_knob,
        Knob(
            "logprob_token_budget",
            {"type": "categorical", "choices": logprob, "when": {DYNAMIC: True}},
            logprob_now if dynamic else None,
            f"2-8 {seq_why} for both log-prob passes: no gradients kept, so larger than the actor's",
            dynamic,
        ),
    ]


def _limits(value: Any) -> list[tuple[dict[str, Any], str]]:
    if value("algorithm.use_kl_in_reward"):
        kl, why = (
            "actor/reward_kl_penalty",
            "KL to the reference (in the reward): a faster configuration must not drift",
        )
    elif value("actor_rollout_ref.actor.use_kl_loss"):
        kl, why = "actor/kl_loss", "KL to the reference (the loss term): a faster configuration must not drift"
    else:
        kl, why = "actor/ppo_kl", "the job has no KL to a reference: the policy's KL per update is bounded instead"
    return [
        ({"metric": kl, "reducer": "last", "max": KL_BOUND, "alarm_above": 2 * KL_BOUND}, why),
        (
            {"metric": "memory", "reducer": "max", "max_ratio_to_baseline": MEMORY_RATIO},
            "no more than 1.2x the baseline's peak memory",
        ),
    ]
