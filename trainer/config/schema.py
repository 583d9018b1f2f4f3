"""The trainer's configuration: the subset of verl's config tree it implements.

Every field carries verl's dotted name and verl's default (verl 0.9.x,
``verl/trainer/config/ppo_trainer.yaml``), so a trial's config *is* a production config.
Departures from verl, each deliberate:

* ``None`` stands for verl's ``${oc.select:...}`` interpolations (e.g. the reference's
  ``log_prob_max_token_len_per_gpu`` follows the actor's ``ppo_max_token_len_per_gpu``); the root
  resolves them in ``__post_init__``.
* ``actor_rollout_ref.model.path = None`` builds the tiny Qwen2 described by ``builtin.model``.
* ``trainer.metrics_file`` and the whole ``builtin`` section exist only in this trainer; they are
  marked ``builtin_only`` and never exported to verl.

The CPU defaults a trial actually runs with live in ``cpu_tiny.yaml`` next to this file, not here:
this module stays a faithful mirror of verl's defaults.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

KLEstimator = Literal[
    "kl", "k1", "abs", "mse", "k2", "low_var_kl", "k3", "full",
    "kl+", "k1+", "abs+", "mse+", "k2+", "low_var_kl+", "k3+",
]  # fmt: skip
"""verl's estimators; a `+` suffix (verl 0.9.1+) keeps the value and takes k2's gradient (straight-through)."""


class FieldError(ValueError):
    """A value that breaks a field's rule; the loader adds the dotted key and the file:line."""

    def __init__(self, field_name: str, rule: str, value: Any) -> None:
        self.field_name = field_name
        self.rule = rule
        self.value = value
        super().__init__(f"`{field_name}` {rule}, got {value!r}")


def builtin_only(default: Any = None, **kwargs: Any) -> Any:
    """A field verl does not have: kept out of exported verl configs."""
    return field(default=default, metadata={"builtin_only": True}, **kwargs)


def _positive(obj: Any, *names: str) -> None:
    for name in names:
        value = getattr(obj, name)
        if value is not None and value <= 0:
            raise FieldError(name, "must be > 0", value)


def _in_range(obj: Any, name: str, low: float, high: float) -> None:
    value = getattr(obj, name)
    if not low <= value <= high:
        raise FieldError(name, f"must lie in [{low}, {high}]", value)


@dataclass
class OptimConfig:
    lr: float = 1e-6
    """AdamW learning rate."""
    weight_decay: float = 0.01
    """AdamW decoupled weight decay."""
    betas: list[float] = field(default_factory=lambda: [0.9, 0.999])
    """AdamW (beta1, beta2)."""

    def __post_init__(self) -> None:
        _positive(self, "lr")
        if len(self.betas) != 2 or not all(0.0 <= b < 1.0 for b in self.betas):
            raise FieldError("betas", "must be two numbers in [0, 1)", self.betas)


@dataclass
class FSDPConfig:
    param_offload: bool = False
    """Keep sharded parameters on the CPU between uses (FSDP2 CPUOffloadPolicy). Inert on a CPU run."""
    optimizer_offload: bool = False
    """Keep optimizer state on the CPU. Inert on a CPU run."""
    offload_policy: bool = False
    """verl's FSDP2 switch for CPUOffloadPolicy (params, grads and optimizer state). Inert on a CPU run."""
    reshard_after_forward: bool = True
    """Free the gathered parameters after each block's forward (re-gather for backward)."""
    forward_prefetch: bool = False
    """Issue the next block's all-gather before the current block's forward runs."""
    model_dtype: Literal["fp32", "bf16"] = "fp32"
    """Dtype of the sharded master parameters."""
    fsdp_size: int = -1
    """Shard group size; -1 shards over the whole world (the only value this trainer supports)."""

    def __post_init__(self) -> None:
        if self.fsdp_size != -1:
            raise FieldError("fsdp_size", "must be -1 (shard over all ranks; HSDP is not implemented)", self.fsdp_size)


@dataclass
class ActorConfig:
    strategy: Literal["fsdp", "fsdp2"] = "fsdp"
    """Training engine. This trainer always runs FSDP2 (`fully_shard`); `fsdp` is accepted as a synonym."""
    ppo_mini_batch_size: int = 256
    """Prompts per optimizer step (multiplied by rollout.n for responses), across all ranks."""
    ppo_micro_batch_size_per_gpu: int | None = None
    """Responses per forward/backward when dynamic batching is off."""
    use_dynamic_bsz: bool = False
    """Pack variable-length sequences into micro-batches of at most `ppo_max_token_len_per_gpu` tokens."""
    ppo_max_token_len_per_gpu: int = 16384
    """Token budget of one micro-batch under dynamic batching."""
    clip_ratio: float = 0.2
    """Default PPO clip range for both sides."""
    clip_ratio_low: float | None = 0.2
    """Lower clip range (ratio >= 1 - clip_ratio_low); None uses clip_ratio."""
    clip_ratio_high: float | None = 0.2
    """Upper clip range (ratio <= 1 + clip_ratio_high); None uses clip_ratio."""
    clip_ratio_c: float = 3.0
    """Dual-clip bound on the loss for negative advantages (arXiv 1912.09729); must exceed 1."""
    loss_agg_mode: Literal["token-mean"] = "token-mean"
    """Loss aggregation; token-mean over the whole mini-batch, invariant to micro-batching and world size."""
    entropy_coeff: float = 0.0
    """Entropy bonus coefficient."""
    use_kl_loss: bool = False
    """Add a KL(actor || reference) term to the actor loss."""
    kl_loss_coef: float = 0.001
    """Weight of the KL loss."""
    kl_loss_type: KLEstimator = "low_var_kl"
    """KL estimator used in the loss (kl/k1, abs, mse/k2, low_var_kl/k3, full; `k1+`, `k3+`, ...: straight-through)."""
    ppo_epochs: int = 1
    """Passes over each batch of rollouts."""
    shuffle: bool = False
    """Shuffle responses before splitting into mini-batches."""
    grad_clip: float = 1.0
    """Clip the global gradient norm to this value."""
    optim: OptimConfig = field(default_factory=OptimConfig)
    fsdp_config: FSDPConfig = field(default_factory=FSDPConfig)

    def __post_init__(self) -> None:
        _positive(self, "ppo_mini_batch_size", "ppo_micro_batch_size_per_gpu", "ppo_max_token_len_per_gpu")
        _positive(self, "ppo_epochs", "grad_clip")
        for name in ("clip_ratio", "clip_ratio_low", "clip_ratio_high"):
            value = getattr(self, name)
            if value is not None and not 0.0 < value < 1.0:
                raise FieldError(name, "must lie in (0, 1)", value)
        if self.clip_ratio_c <= 1.0:
            raise FieldError("clip_ratio_c", "must be > 1.0 (dual-clip lower bound)", self.clip_ratio_c)
        for name in ("kl_loss_coef", "entropy_coeff"):
            if getattr(self, name) < 0:
                raise FieldError(name, "must be >= 0", getattr(self, name))

    @property
    def clip_low(self) -> float:
        return self.clip_ratio if self.clip_ratio_low is None else self.clip_ratio_low

    @property
    def clip_high(self) -> float:
        return self.clip_ratio if self.clip_ratio_high is None else self.clip_ratio_high


@dataclass
class LogProbConfig:
    """Micro-batching of a forward-only log-prob pass (reference, or old log-probs in `rollout`)."""

    log_prob_micro_batch_size_per_gpu: int | None = None
    """Responses per forward when dynamic batching is off; None follows the actor's micro-batch size."""
    log_prob_use_dynamic_bsz: bool | None = None
    """Token-budgeted micro-batches; None follows `actor.use_dynamic_bsz`."""
    log_prob_max_token_len_per_gpu: int | None = None
    """Token budget per forward; None follows `actor.ppo_max_token_len_per_gpu`."""

    def __post_init__(self) -> None:
        _positive(self, "log_prob_micro_batch_size_per_gpu", "log_prob_max_token_len_per_gpu")


@dataclass
class RefConfig(LogProbConfig):
    fsdp_config: FSDPConfig = field(default_factory=FSDPConfig)


@dataclass
class RolloutConfig(LogProbConfig):
    name: str = "vllm"
    """verl's inference engine. Inert here: this trainer always samples with its own KV-cache loop."""
    temperature: float = 1.0
    """Sampling temperature."""
    do_sample: bool = True
    """Sample (True) or decode greedily (False)."""
    n: int = 1
    """Responses per prompt (GRPO groups)."""
    tensor_model_parallel_size: int = 2
    """Ranks per rollout tensor-parallel group."""
    free_cache_engine: bool = True
    """Free rollout weights and KV cache when leaving rollout mode."""
    gpu_memory_utilization: float = 0.5
    """vLLM's KV-cache share of GPU memory. Inert in this trainer."""
    max_num_batched_tokens: int = 8192
    """vLLM's prefill token budget. Inert in this trainer."""
    enable_chunked_prefill: bool = True
    """vLLM chunked prefill. Inert in this trainer."""

    def __post_init__(self) -> None:
        super().__post_init__()
        _positive(self, "temperature", "n", "tensor_model_parallel_size", "max_num_batched_tokens")
        _in_range(self, "gpu_memory_utilization", 0.0, 1.0)


@dataclass
class ModelConfig:
    path: str | None = None
    """Local Hugging Face checkpoint (offline). None builds the tiny Qwen2 of `builtin.model`."""
    enable_gradient_checkpointing: bool = True
    """Recompute each decoder block's activations in backward."""
    use_remove_padding: bool = True
    """Pack micro-batches into one row without padding (position ids reset per sequence)."""


@dataclass
class ActorRolloutRefConfig:
    model: ModelConfig = field(default_factory=ModelConfig)
    actor: ActorConfig = field(default_factory=ActorConfig)
    ref: RefConfig = field(default_factory=RefConfig)
    rollout: RolloutConfig = field(default_factory=RolloutConfig)


@dataclass
class CriticConfig:
    ppo_mini_batch_size: int | None = None
    """Prompts per critic optimizer step; None follows the actor."""
    ppo_micro_batch_size_per_gpu: int | None = None
    """Responses per forward/backward; None follows the actor."""
    use_dynamic_bsz: bool | None = None
    """None follows `actor.use_dynamic_bsz`."""
    ppo_max_token_len_per_gpu: int = 32768
    """Token budget of one critic training micro-batch."""
    forward_max_token_len_per_gpu: int | None = None
    """Token budget of one value forward; None follows `ppo_max_token_len_per_gpu`."""
    ppo_epochs: int | None = None
    """None follows the actor."""
    cliprange_value: float = 0.5
    """Clip range of the value loss around the old values."""
    grad_clip: float = 1.0
    """Clip the critic's global gradient norm to this value."""
    optim: OptimConfig = field(default_factory=lambda: OptimConfig(lr=1e-5))

    def __post_init__(self) -> None:
        _positive(self, "ppo_mini_batch_size", "ppo_micro_batch_size_per_gpu", "ppo_max_token_len_per_gpu")
        _positive(self, "forward_max_token_len_per_gpu", "ppo_epochs", "cliprange_value", "grad_clip")


@dataclass
class DataConfig:
    train_batch_size: int = 1024
    """Prompts per training step, across all ranks."""
    max_prompt_length: int = 512
    """Longest prompt in tokens."""
    max_response_length: int = 512
    """Longest response in tokens (generation stops there)."""
    seed: int | None = None
    """Seed of prompts, model initialisation and sampling; None means 42."""

    def __post_init__(self) -> None:
        _positive(self, "train_batch_size", "max_prompt_length", "max_response_length")


@dataclass
class KLControlConfig:
    type: Literal["fixed", "adaptive"] = "fixed"
    """Fixed coefficient, or the adaptive controller of Ziegler et al. (arXiv 1909.08593)."""
    kl_coef: float = 0.001
    """(Initial) coefficient of the KL penalty in the reward."""
    horizon: int = 10000
    """Adaptive controller horizon in samples."""
    target_kl: float = 0.1
    """Adaptive controller target KL."""

    def __post_init__(self) -> None:
        _positive(self, "horizon", "target_kl")
        if self.kl_coef < 0:
            raise FieldError("kl_coef", "must be >= 0", self.kl_coef)


@dataclass
class AlgorithmConfig:
    gamma: float = 1.0
    """Discount factor."""
    lam: float = 1.0
    """GAE lambda."""
    adv_estimator: Literal["gae", "grpo"] = "gae"
    """gae (critic) or grpo (group-normalised outcome advantages over rollout.n samples, no critic)."""
    norm_adv_by_std_in_grpo: bool = True
    """Divide GRPO advantages by the group's std (False is Dr.GRPO)."""
    use_kl_in_reward: bool = False
    """Subtract kl_coef × KL(old || ref) from the per-token reward."""
    kl_penalty: KLEstimator = "kl"
    """KL estimator for the in-reward penalty."""
    kl_ctrl: KLControlConfig = field(default_factory=KLControlConfig)

    def __post_init__(self) -> None:
        _in_range(self, "gamma", 0.0, 1.0)
        _in_range(self, "lam", 0.0, 1.0)


@dataclass
class TrainerConfig:
    total_training_steps: int | None = None
    """Training steps to run (required)."""
    critic_warmup: int = 0
    """Steps that update only the critic."""
    project_name: str = "verl_examples"
    experiment_name: str = "gsm8k"
    n_gpus_per_node: int = 8
    """verl's world layout. Inert here: the world size comes from torchrun."""
    nnodes: int = 1
    """Inert here (see n_gpus_per_node)."""
    metrics_file: str | None = builtin_only(None)
    """Append one JSON object per step here; None writes none."""

    def __post_init__(self) -> None:
        _positive(self, "total_training_steps", "n_gpus_per_node", "nnodes")


@dataclass
class TinyModelConfig:
    """The seeded Qwen2 built in code when `actor_rollout_ref.model.path` is unset."""

    hidden_size: int = 128
    intermediate_size: int = 256
    num_hidden_layers: int = 2
    num_attention_heads: int = 4
    num_key_value_heads: int = 2
    rope_theta: float = 10000.0

    def __post_init__(self) -> None:
        _positive(self, "hidden_size", "intermediate_size", "num_hidden_layers")
        _positive(self, "num_attention_heads", "num_key_value_heads")
        if self.hidden_size % self.num_attention_heads:
            raise FieldError(
                "hidden_size",
                f"must be divisible by num_attention_heads={self.num_attention_heads}",
                self.hidden_size,
            )
        if self.num_attention_heads % self.num_key_value_heads:
            raise FieldError(
                "num_attention_heads",
                f"must be divisible by num_key_value_heads={self.num_key_value_heads}",
                self.num_attention_heads,
            )


@dataclass
class TaskConfig:
    name: Literal["sort"] = "sort"
    """The built-in verifiable task (see trainer/task.py)."""
    min_digits: int = 2
    """Shortest list of digits in a prompt."""
    max_digits: int = 6
    """Longest list of digits in a prompt (also bounded by data.max_prompt_length - 2)."""

    def __post_init__(self) -> None:
        _positive(self, "min_digits", "max_digits")
        if self.min_digits > self.max_digits:
            raise FieldError("min_digits", f"must be <= max_digits={self.max_digits}", self.min_digits)


@dataclass
class FaultConfig:
    """Test-only fault injection, so the controller's failure classification can be tested for real."""

    kind: Literal["none", "nan", "oom", "crash", "hang", "slow"] = "none"
    """What to inject: a NaN loss, an out-of-memory error, a crash, a hang, or a 10× slower step."""
    at_step: int = 3
    """The step (1-based) at which the fault fires."""
    rank: int = 0
    """The rank that injects it (a NaN is global: the loss is all-reduced)."""


@dataclass
class WarmStartConfig:
    """Supervised warm start of the built-in tiny model (see trainer/warm_start.py)."""

    steps: int = 15
    """Cross-entropy steps on correct answers before RL (0 = start from random weights)."""
    lr: float = 3e-3
    """AdamW learning rate of the warm start."""
    batch_size: int = 64
    """Prompts per warm-start step."""

    def __post_init__(self) -> None:
        if self.steps < 0:
            raise FieldError("steps", "must be >= 0", self.steps)
        _positive(self, "lr", "batch_size")


@dataclass
class BuiltinConfig:
    """Knobs of this trainer only (never exported to verl)."""

    model: TinyModelConfig = field(default_factory=TinyModelConfig)
    task: TaskConfig = field(default_factory=TaskConfig)
    warm_start: WarmStartConfig = field(default_factory=WarmStartConfig)
    fault: FaultConfig = field(default_factory=FaultConfig)
    rollout_reshard: Literal["zero_redundancy", "naive"] = "zero_redundancy"
    """How rollout weights are built from the FSDP shards (see trainer/rollout/reshard.py)."""
    on_policy_bypass: bool = True
    """Skip the old-log-prob pass when the update is provably on-policy (one PPO epoch over one
    mini-batch, no KL in the reward): the update's own log-probs are the old ones, as verl does."""
    peak_flops: float | None = None
    """Peak FLOP/s per device for MFU; None uses the GPU table or, on CPU, a measured matmul peak."""


@dataclass
class Config:
    data: DataConfig = field(default_factory=DataConfig)
    actor_rollout_ref: ActorRolloutRefConfig = field(default_factory=ActorRolloutRefConfig)
    critic: CriticConfig = field(default_factory=CriticConfig)
    algorithm: AlgorithmConfig = field(default_factory=AlgorithmConfig)
    trainer: TrainerConfig = field(default_factory=TrainerConfig)
    builtin: BuiltinConfig = field(default_factory=lambda: BuiltinConfig())

    def __post_init__(self) -> None:
        self._resolve_interpolations()
        self._check_cross_section()

    def _resolve_interpolations(self) -> None:
        """verl's `${oc.select:...}` defaults, resolved once here."""
        actor = self.actor_rollout_ref.actor
        for section in (self.actor_rollout_ref.ref, self.actor_rollout_ref.rollout):
            if section.log_prob_use_dynamic_bsz is None:
                section.log_prob_use_dynamic_bsz = actor.use_dynamic_bsz
            if section.log_prob_max_token_len_per_gpu is None:
                section.log_prob_max_token_len_per_gpu = actor.ppo_max_token_len_per_gpu
            if section.log_prob_micro_batch_size_per_gpu is None:
                section.log_prob_micro_batch_size_per_gpu = actor.ppo_micro_batch_size_per_gpu
        critic = self.critic
        if critic.ppo_mini_batch_size is None:
            critic.ppo_mini_batch_size = actor.ppo_mini_batch_size
        if critic.ppo_micro_batch_size_per_gpu is None:
            critic.ppo_micro_batch_size_per_gpu = actor.ppo_micro_batch_size_per_gpu
        if critic.use_dynamic_bsz is None:
            critic.use_dynamic_bsz = actor.use_dynamic_bsz
        if critic.forward_max_token_len_per_gpu is None:
            critic.forward_max_token_len_per_gpu = critic.ppo_max_token_len_per_gpu
        if critic.ppo_epochs is None:
            critic.ppo_epochs = actor.ppo_epochs
        if self.data.seed is None:
            self.data.seed = 42

    def _check_cross_section(self) -> None:
        actor = self.actor_rollout_ref.actor
        if self.trainer.total_training_steps is None:
            raise ConfigRuleError(
                "trainer.total_training_steps", "must be set (e.g. trainer.total_training_steps=20)", None
            )
        if self.data.train_batch_size % actor.ppo_mini_batch_size:
            raise ConfigRuleError(
                "actor_rollout_ref.actor.ppo_mini_batch_size",
                f"must divide data.train_batch_size={self.data.train_batch_size}",
                actor.ppo_mini_batch_size,
            )
        longest = self.data.max_prompt_length + self.data.max_response_length
        budgets = {
            "actor_rollout_ref.actor.ppo_max_token_len_per_gpu": (
                actor.use_dynamic_bsz,
                actor.ppo_max_token_len_per_gpu,
            ),
            "actor_rollout_ref.ref.log_prob_max_token_len_per_gpu": (
                self.actor_rollout_ref.ref.log_prob_use_dynamic_bsz,
                self.actor_rollout_ref.ref.log_prob_max_token_len_per_gpu,
            ),
            "actor_rollout_ref.rollout.log_prob_max_token_len_per_gpu": (
                self.actor_rollout_ref.rollout.log_prob_use_dynamic_bsz,
                self.actor_rollout_ref.rollout.log_prob_max_token_len_per_gpu,
            ),
            "critic.ppo_max_token_len_per_gpu": (
                self.critic.use_dynamic_bsz,
                self.critic.ppo_max_token_len_per_gpu,
            ),
        }
        for key, (dynamic, budget) in budgets.items():
            if dynamic and budget is not None and budget < longest:
                raise ConfigRuleError(
                    key,
                    f"must hold one longest sequence (data.max_prompt_length + data.max_response_length = {longest})",
                    budget,
                )
        micro_keys = {
            "actor_rollout_ref.actor.ppo_micro_batch_size_per_gpu": (
                actor.use_dynamic_bsz,
                actor.ppo_micro_batch_size_per_gpu,
            ),
            "actor_rollout_ref.ref.log_prob_micro_batch_size_per_gpu": (
                self.actor_rollout_ref.ref.log_prob_use_dynamic_bsz,
                self.actor_rollout_ref.ref.log_prob_micro_batch_size_per_gpu,
            ),
        }
        for key, (dynamic, micro) in micro_keys.items():
            if not dynamic and micro is None:
                raise ConfigRuleError(
                    key, "must be set when dynamic batching is off (or set use_dynamic_bsz=true)", None
                )
        task = self.builtin.task
        if self.actor_rollout_ref.model.path is None and task.max_digits + 2 > self.data.max_prompt_length:
            raise ConfigRuleError(
                "builtin.task.max_digits",
                f"must leave room for BOS and '=' within data.max_prompt_length={self.data.max_prompt_length}",
                task.max_digits,
            )
        if self.algorithm.adv_estimator == "grpo" and self.actor_rollout_ref.rollout.n < 2:
            raise ConfigRuleError(
                "actor_rollout_ref.rollout.n", "must be >= 2 for grpo (advantages are group-relative)", 1
            )


class ConfigRuleError(ValueError):
    """A rule across sections, already naming its full dotted key."""

    def __init__(self, key: str, rule: str, value: Any) -> None:
        self.key = key
        self.rule = rule
        self.value = value
        super().__init__(f"{key} {rule}, got {value!r}")
