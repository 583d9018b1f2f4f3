"""What one training step of a trial has to do: model shape, tokens, batches, layouts.

The model's architecture comes from a Hugging Face `config.json` (a local file or directory), a
preset matched by name (`Qwen/Qwen2.5-7B-Instruct` -> Qwen2.5-7B), or the builtin trainer's tiny
model (`builtin.model.*`). Everything else comes from the trial's verl config (defaults filled in).
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from autotune.space.sim_section import older_than, verl_engine_workers


@dataclass(frozen=True)
class Shape:
    hidden: int
    intermediate: int
    layers: int
    heads: int
    kv_heads: int
    vocab: int
    head_dim: int
    tied_embeddings: bool = False
    positions: int = 0
    """`max_position_embeddings` of its config.json (a multimodal model's `text_config`'s), the context verl's rollout
    gives vLLM (`context_tokens`); 0: not known (a preset, or a config.json without it)."""
    vision: bool = False
    """Its config.json has a `vision_config` (Qwen2.5-VL, Qwen3-VL): a vision tower the cost model has no terms for."""

    @property
    def layer_params(self) -> int:
        h, d = self.hidden, self.head_dim
        attention = h * (self.heads * d) * 2 + h * (self.kv_heads * d) * 2 + (self.heads + 2 * self.kv_heads) * d
        return attention + 3 * h * self.intermediate + 2 * h

    @property
    def params(self) -> int:
        embeddings = self.vocab * self.hidden * (1 if self.tied_embeddings else 2)
        return self.layers * self.layer_params + embeddings + self.hidden

    @property
    def tp_split_params(self) -> int:
        """Parameters split by rollout tensor parallelism (attention and MLP projections)."""
        return self.layers * (self.layer_params - 2 * self.hidden)

    def kv_bytes_per_token(self, dtype_bytes: int = 2) -> int:
        return 2 * self.layers * self.kv_heads * self.head_dim * dtype_bytes


PRESETS = {
    "Qwen2.5-0.5B": Shape(896, 4864, 24, 14, 2, 151936, 64, True),
    "Qwen2.5-1.5B": Shape(1536, 8960, 28, 12, 2, 151936, 128, True),
    "Qwen2.5-3B": Shape(2048, 11008, 36, 16, 2, 151936, 128, True),
    "Qwen2.5-7B": Shape(3584, 18944, 28, 28, 4, 152064, 128),
    "Qwen2-7B": Shape(3584, 18944, 28, 28, 4, 152064, 128),
    "Qwen2.5-14B": Shape(5120, 13824, 48, 40, 8, 152064, 128),
    "Qwen2.5-32B": Shape(5120, 27648, 64, 40, 8, 152064, 128),
    "Qwen2.5-72B": Shape(8192, 29568, 80, 64, 8, 152064, 128),
    "Llama-3-8B": Shape(4096, 14336, 32, 32, 8, 128256, 128),
    "Llama-3.1-8B": Shape(4096, 14336, 32, 32, 8, 128256, 128),
    "Llama-3-70B": Shape(8192, 28672, 80, 64, 8, 128256, 128),
    "Llama-2-7B": Shape(4096, 11008, 32, 32, 32, 32000, 128),
    "Llama-2-13B": Shape(5120, 13824, 40, 40, 40, 32000, 128),
    "Llama-2-70B": Shape(8192, 28672, 80, 64, 8, 32000, 128),
    "gemma-2-2b": Shape(2304, 9216, 26, 8, 4, 256000, 256, True),
}
"""Architecture numbers from each model's published config.json."""


def text_numbers(raw: dict[str, Any]) -> dict[str, Any]:
    """The language model's numbers of a Hugging Face config.json: a multimodal model's `text_config` (Qwen3-VL's
    holds all of them, its top level none) over its top level (where Qwen2.5-VL's are, and Qwen3-VL's
    `tie_word_embeddings`)."""
    text = raw.get("text_config")
    return {**raw, **text} if isinstance(text, dict) else raw


def shape_from_hf(raw: dict[str, Any]) -> Shape:
    vision = isinstance(raw.get("vision_config"), dict)
    raw = text_numbers(raw)
    heads = int(raw["num_attention_heads"])
    hidden = int(raw["hidden_size"])
    return Shape(
        hidden=hidden,
        intermediate=int(raw["intermediate_size"]),
        layers=int(raw["num_hidden_layers"]),
        heads=heads,
        kv_heads=int(raw.get("num_key_value_heads", heads)),
        vocab=int(raw["vocab_size"]),
        head_dim=int(raw.get("head_dim") or hidden // heads),
        tied_embeddings=bool(raw.get("tie_word_embeddings", False)),
        positions=int(raw.get("max_position_embeddings") or 0),
        vision=vision,
    )


MAX_MODEL_LEN = "actor_rollout_ref.rollout.max_model_len"
POSITIONS_OVERRIDE = "actor_rollout_ref.model.override_config.max_position_embeddings"
"""verl applies the model's `override_config` to its Hugging Face config before the rollout reads its context (verl's
DAPO scripts raise a 4k-context model's to 32k so): given by a job as `+key=value`, a key of an open map."""


def context_tokens(flat: dict[str, Any], positions: int) -> int | None:
    """The context verl 0.9's vLLM rollout runs with: `rollout.max_model_len`, else the model's max_position_embeddings
    (`positions`, or the job's `override_config` of it) (`vLLMHttpServer._validate_configs`); None when not known."""
    given = flat.get(MAX_MODEL_LEN)
    return int(given) if given else (_model_positions(flat, positions) or None)


def _model_positions(flat: dict[str, Any], positions: int) -> int:
    """The model's max_position_embeddings as verl's rollout sees it: the job's `override_config` of it (as a key of
    `base:`, or calibrate's `+key`), else `positions` (0: not known)."""
    override = flat.get(POSITIONS_OVERRIDE, flat.get("+" + POSITIONS_OVERRIDE))
    return int(override) if override else positions


def context_problem(flat: dict[str, Any], positions: int) -> str | None:
    """Why verl's rollout refuses the job at start-up, or None: a `rollout.max_model_len` above the model's
    max_position_embeddings (verl: 'max_model_len (N) should be less than or equal to max_position_embeddings (M)')."""
    given, model = flat.get(MAX_MODEL_LEN), _model_positions(flat, positions)
    if not given or not model or int(given) <= model:
        return None
    return (
        f"verl's rollout refuses {MAX_MODEL_LEN}={given}: the model's max_position_embeddings is {model} ('max_model_len "
        f"({given}) should be less than or equal to max_position_embeddings ({model})'); lower it, or raise the model's "
        f"with `+{POSITIONS_OVERRIDE}=N` if the model handles that context"
    )


def context_cut_words(flat: dict[str, Any], positions: int) -> str | None:
    """Where the model's context cuts responses shorter than data.max_response_length allows (a Qwen2.5-Math-7B's 4,096
    positions under DAPO's 2k prompts and 8k responses): what the job does, said; None where it does not."""
    context = context_tokens(flat, positions)
    prompt, response = flat.get("data.max_prompt_length"), flat.get("data.max_response_length")
    if context is None or prompt is None or response is None or int(prompt) + int(response) <= context:
        return None
    return (
        f"responses end at the model's context, {context:,} tokens less each prompt's (at most {context - int(prompt):,} "
        f"after a {int(prompt):,}-token prompt), not at data.max_response_length's {int(response):,}: verl's rollout "
        f"runs vLLM with the model's max_position_embeddings as its context and cuts each response there; raise it with "
        f"`+{POSITIONS_OVERRIDE}={int(prompt) + int(response)}` (as verl's DAPO scripts do) if the model handles that"
    )


ARCHITECTURE = ("num_attention_heads", "hidden_size", "intermediate_size", "num_hidden_layers", "vocab_size")
"""The numbers of a Hugging Face config.json the cost model cannot do without (whole numbers above 0)."""


EXPERTS = ("num_experts", "num_local_experts", "n_routed_experts")
"""A mixture-of-experts model's expert count, as Qwen's (Qwen3-30B-A3B, Qwen3-VL-30B-A3B), Mixtral's and DeepSeek's
config.json name it."""


def _read_shape(config: Path) -> Shape:
    """A model's shape from its Hugging Face config.json; ValueError naming the file and what it lacks."""
    try:
        raw = json.loads(config.read_text())
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise ValueError(f"{config}: not a readable JSON file ({exc})") from None
    if not isinstance(raw, dict):
        raise ValueError(f"{config}: not a model's config.json (a JSON object with its architecture's numbers)")
    text = text_numbers(raw)  # a multimodal model's under `text_config` (Qwen3-VL: audit 39 F2)
    missing = [k for k in ARCHITECTURE if k not in text]
    if missing:
        raise ValueError(
            f"{config}: no {', '.join(f'`{k}`' for k in missing)} (at its top level or in its `text_config`); give the "
            "config.json of the model's Hugging Face checkpoint (a decoder's has them)"
        )
    experts = [k for k in EXPERTS if isinstance(text.get(k), int) and text[k] > 1]
    if experts:  # read as a dense model of its `intermediate_size`: Qwen3-VL-30B-A3B sized at 4B (audit 39 F9)
        raise ValueError(
            f"{config}: a mixture-of-experts model (`{experts[0]}`: {text[experts[0]]}): the cost model has no terms "
            "for experts (it would size a dense model of `intermediate_size`, its experts' parameters and memory "
            "left out)"
        )
    wrong = [
        k for k in ARCHITECTURE if not (isinstance(text[k], int) and not isinstance(text[k], bool) and text[k] > 0)
    ]
    if wrong:
        raise ValueError(
            f"{config}: {', '.join(f'`{k}`: {text[k]!r}' for k in wrong)}: each must be a whole number above 0"
        )
    try:
        return shape_from_hf(raw)
    except (TypeError, ValueError, ZeroDivisionError) as exc:
        raise ValueError(f"{config}: an architecture number is not a number ({exc})") from None


def find_shape(model: str | None, flat: dict[str, Any]) -> Shape:
    """The actor's shape: config.json path, preset name (matched inside a hub id), or the builtin tiny model."""
    if model is None:
        if flat.get("builtin.model.hidden_size") is None:
            raise ValueError("no model: set actor_rollout_ref.model.path (a config.json or a preset name) or --model")
        heads = int(flat["builtin.model.num_attention_heads"])
        hidden = int(flat["builtin.model.hidden_size"])
        return Shape(
            hidden, int(flat["builtin.model.intermediate_size"]), int(flat["builtin.model.num_hidden_layers"]),
            heads, int(flat["builtin.model.num_key_value_heads"]), 16, hidden // heads,
        )  # fmt: skip
    path = Path(model).expanduser()
    config = path / "config.json" if path.is_dir() else path
    if config.is_file():
        return _read_shape(config)
    for name in sorted(PRESETS, key=len, reverse=True):
        if name.lower() in model.lower():
            return PRESETS[name]
    raise ValueError(f"model {model!r}: no config.json there and no preset matches (presets: {', '.join(PRESETS)})")


EULER_GAMMA = 0.5772156649015329
DEFAULT_SPREAD_RATIO = 1.0
"""Response-length standard deviation / mean when the space does not say: answers to math prompts are long-tailed
(a few responses run to the length limit while the mean stays short), which a spread equal to the mean describes:
the spread of geometric lengths (a response stops at each token with the same small chance), whose longest of N
`Workload.longest_response` takes."""


@dataclass(frozen=True)
class Workload:
    """One step of a trial, as counts the cost terms need (per rank where it says so)."""

    world: int
    tp: int
    prompts: int
    n: int
    prompt_tokens: float
    response_tokens: float
    max_response: int
    mini_batches: int
    epochs: int
    critic_epochs: int
    update_micro_per_mini: int
    logprob_micro: int
    """Micro-batches of the old log-prob pass (the rollout's log_prob_* keys)."""
    critic_micro_per_mini: int
    values_micro: int
    has_critic: bool
    grad_ckpt: bool
    reshard_after_forward: bool
    forward_prefetch: bool
    param_offload: bool
    optimizer_offload: bool
    gpu_memory_utilization: float
    free_cache_engine: bool
    nccl_proto: str | None
    nccl_channels: int | None
    reshard_mode: str
    fsdp_size: int = -1
    """FSDP shard group (verl's fsdp_size; -1 = all ranks). Smaller groups are replicated (HSDP)."""
    response_spread: float = 0.0
    """Standard deviation of response lengths (decode runs until the longest response of the batch ends)."""
    geometric_tail: bool = False
    """No measured spread or longest response: lengths taken as geometric, of the mean (see `longest_response`)."""
    max_prompt: int = 0
    """data.max_prompt_length (padded sequences are max_prompt + max_response long); 0 = the mean prompt."""
    response_cap: float = 0.0
    """Where responses end: max_response, or less where the model's context ends first (`context_tokens`, less the
    mean prompt); 0 = max_response. Sequences are still padded to max_response."""
    enforce_eager: bool = False
    """vLLM without CUDA graphs: every decode step pays the kernel launches of every layer."""
    max_num_seqs: int = 256
    max_num_batched_tokens: int = 8192
    chunked_prefill: bool = True
    actor_rmpad: bool = True
    """use_remove_padding: packed sequences; without it every sequence is padded to max_prompt + max_response."""
    critic_rmpad: bool = True
    critic_grad_ckpt: bool = True
    ref_param_offload: bool = False
    critic_param_offload: bool = False
    critic_optimizer_offload: bool = False
    offload_policy: bool = False
    """The actor's FSDP2 CPUOffloadPolicy (`fsdp_config.offload_policy`): its parameter and optimizer shards live in
    host memory (so param_offload and optimizer_offload are set too, for memory), and cross PCIe at every all-gather
    and reduce-scatter rather than once a phase (terms.host_shard_seconds)."""
    has_ref: bool = True
    vllm_v0: bool = False
    """vLLM's V0 engine (VLLM_USE_V1=0, VLLM_ATTENTION_BACKEND=XFORMERS, or a vLLM before 0.8 without VLLM_USE_V1=1):
    more CPU overhead per step."""
    vllm_legacy: bool = False
    """vLLM before 0.6 (older verl's forks of 0.3-0.5): the V0 engine before 0.6's CPU-overhead work."""
    vllm_async: bool = False
    """vLLM 0.14 or later on its V1 engine: async scheduling, on by default, overlaps the engine's CPU step with the
    GPU's (rollout.generation_features)."""
    engine: str = "verl"
    """'verl' syncs weights into the rollout server (update_weights); 'builtin' reshards with this project's engine."""
    engine_workers: bool = False
    """verl 0.7 or later: every training call goes through its engine workers (terms.ENGINE_WORKER_CALL)."""
    ref_micro: int = 0
    """Micro-batches of the reference pass (the ref's log_prob_* keys); 0: as the old log-prob pass."""
    rollout_ipc: bool = False
    """verl 0.7.1 or later: vLLM runs in processes of its own and takes the synced weights over CUDA IPC
    (rollout.update_weights_features)."""
    old_log_prob_bypassed: bool = False
    """The builtin trainer skips the old log-prob pass when the update is provably on-policy (one epoch over one
    mini-batch, `builtin.on_policy_bypass`, no KL in the reward): its `timing_s/old_log_prob` is then 0."""

    @property
    def ref_micro_batches(self) -> int:
        return self.ref_micro or self.logprob_micro

    @property
    def responses(self) -> int:
        return self.prompts * self.n

    @property
    def seq_tokens(self) -> float:
        return self.prompt_tokens + self.response_tokens

    @property
    def padded_tokens(self) -> float:
        """Length of a padded sequence (verl pads prompts to max_prompt and responses to max_response)."""
        return max(self.max_prompt, self.prompt_tokens) + self.max_response

    @property
    def tokens(self) -> float:
        """All tokens of the step (prompt + response, every response)."""
        return self.responses * self.seq_tokens

    @property
    def tokens_per_rank(self) -> float:
        return self.tokens / self.world

    @property
    def fsdp_group(self) -> int:
        return self.world if self.fsdp_size <= 0 else min(self.fsdp_size, self.world)

    @property
    def dp(self) -> int:
        return max(1, self.world // self.tp)

    @property
    def longest_response(self) -> float:
        """Expected longest of the step's N responses, capped at the limit.

        Measured (a spread from a measured longest response, `spread_from_longest`, or a calibration): the Gaussian
        extreme mean + spread·√(2 ln N), which puts it back where it was measured. Not measured (`geometric_tail`):
        the longest of N geometric lengths of the mean, mean·H_N ≈ mean·(ln N + γ + 1/2N): the extreme of the
        distribution whose spread is the mean (DEFAULT_SPREAD_RATIO). The Gaussian extreme of that spread, used
        before, put the longest of a 64-GPU GRPO run's 8,192 responses (sunzx8/cluster_verl, the seventh round of
        benchmarks/sim_published.py) at 5.3x the mean where it was 8.5-9.8x (at the 8k cap): generation -35..-39%;
        the geometric extreme puts it at 9.6x (-4..-10%). On the 20 published runs whose measured or predicted
        longest is under the cap, the two are as close to the measured longest (median 20% apart each: the geometric
        one longer for 1k-response batches, the Gaussian one shorter for 8k); generation errors beyond ±30% over
        all 47 runs 14 -> 11, and the short-tailed countdown runs (a longest of 1.1-1.4x the mean) +85/+120% ->
        +149/+139%: a task whose answers stop early needs `sim.response_max`. Set after the seventh round; out of
        sample (benchmarks/longest_response.py, 25 runs of other repositories, 9 not all at the cap) the median
        error of the longest is 13% (Gaussian: 26%).
        """
        count, cap = self.responses, self.response_cap or self.max_response  # the context may end them first
        if self.geometric_tail and count > 1:
            return float(min(cap, self.response_tokens * (math.log(count) + EULER_GAMMA + 0.5 / count)))
        if count <= 1 or self.response_spread <= 0:
            return float(min(cap, self.response_tokens))
        return float(min(cap, self.response_tokens + self.response_spread * math.sqrt(2 * math.log(count))))


def spread_from_longest(mean: float, longest: float, count: int) -> float:
    """The spread that makes `Workload.longest_response` equal a measured longest response."""
    if count <= 1:
        return 0.0
    return max(0.0, (longest - mean) / math.sqrt(2 * math.log(count)))


def legacy_vllm(version: str) -> bool:
    """Whether a vLLM version string ("0.5.4", "0.6.3", "0.8.5.post1") is older than 0.6."""
    return older_than(version, (0, 6), "vllm_version", "'0.5.4' or '0.8.5'")


def v0_only_vllm(version: str | None) -> bool:
    """Whether vLLM of this version runs its V0 engine by default: before 0.8 (March 2025), whose release made V1 the
    default; in 0.7 V1 was opt-in (VLLM_USE_V1=1). Before this rule a space that gave only `sim.vllm_version: '0.6.3'`
    got V1's engine step (3 ms, not V0's 20 ms). The eight published runs of vLLM 0.6.3, given their measured longest
    responses, come out -31% to +31% in generation with V0's step (median |error| 17%); with V1's, the five of them
    without the xformers backend (V0 whatever the version) -69% to -27% (benchmarks/sim_published.py's runs set
    VLLM_USE_V1=0 themselves, so none of its figures moved; tests/autotune/sim/test_sim_vllm_engine.py)."""
    return version is not None and older_than(version, (0, 8), "vllm_version", "'0.5.4' or '0.8.5'")


def async_vllm(version: str | None) -> bool:
    """Whether vLLM of this version (None = a current one) schedules asynchronously by default: 0.14 (January 2026)
    and later ("Async scheduling is now enabled by default", vLLM 0.14.0's release notes)."""
    return version is None or not older_than(version, (0, 14), "vllm_version", "'0.5.4' or '0.8.5'")


def verl_rollout_ipc(version: str | None) -> bool:
    """Whether verl of this version (None = a current one) runs the colocated vLLM in processes of its own and
    syncs weights into it over CUDA IPC: verl PR 4280, merged 2026-01-24, first released in 0.7.1."""
    return version is None or not older_than(version, (0, 7, 1), "verl_version", "'0.5.0' or '0.7.1'")


class _Recorder(dict):  # type: ignore[type-arg]
    """A config that remembers which keys were read."""

    def __init__(self, data: dict[str, Any], seen: set[str], prefix: str = "") -> None:
        super().__init__(data)
        self.seen, self.prefix = seen, prefix

    def get(self, key: Any, default: Any = None) -> Any:
        self.seen.add(self.prefix + str(key))
        return super().get(key, default)


_MODELLED: set[str] = set()


def modelled_keys() -> frozenset[str]:
    """Every verl key and `env.NAME` the cost model reads (found by recording a workload's reads)."""
    if not _MODELLED:
        seen: set[str] = set()
        flat = {"data.train_batch_size": 8, "data.max_prompt_length": 8, "data.max_response_length": 8,
                "actor_rollout_ref.actor.ppo_mini_batch_size": 8}  # fmt: skip
        workload(_Recorder(flat, seen), _Recorder({}, seen, "env."), 1)
        _MODELLED.update(seen | {"actor_rollout_ref.model.path"})
    return frozenset(_MODELLED)


def _micro(samples: float, tokens: float, dynamic: bool, micro: Any, budget: Any) -> int:
    if dynamic:
        return max(1, math.ceil(tokens / float(budget)))
    return max(1, math.ceil(samples / float(micro or samples)))


def has_critic(flat: dict[str, Any]) -> bool:
    """Whether verl's config trains a critic, as verl's `need_critic` decides: `critic.enable` when set, else a GAE
    advantage (verl's default estimator). `critic.enable` was not read: a GAE run with the critic off was predicted
    with one, a GRPO run with it on without."""
    enable = flat.get("critic.enable")
    if enable is not None and str(enable).lower() not in ("null", "none", "~"):
        return str(enable).lower() in ("true", "1") if isinstance(enable, str) else bool(enable)
    return str(flat.get("algorithm.adv_estimator", "gae")) == "gae"


VERL_GPUS_PER_NODE = 8
"""verl's default `trainer.n_gpus_per_node`, and the layout the cost model gives a world it knows no layout of."""


def gpus_per_node(flat: dict[str, Any], world: int) -> int:
    """The GPUs per node a verl config's `world` runs on: the cost model's cluster layout, which decides which
    collectives cross nodes. `trainer.n_gpus_per_node` (verl's default 8), but the whole world where
    `trainer.nnodes` is 1 (a space's `trial.world_size` may exceed the baseline's ranks: `verl-cpu` tunes them).
    Every cluster was once 8 a node, so a 2 x 4-GPU job was predicted as 1 x 8, its inter-node all-gathers at NVLink
    speed (audit 36 F3)."""
    if str(flat.get("trainer.nnodes")) == "1":
        return world
    value = str(flat.get("trainer.n_gpus_per_node"))
    return int(value) if value.isdigit() and int(value) > 0 else VERL_GPUS_PER_NODE


REWARD_MODEL_KEYS = ("reward_model.enable", "reward.reward_model.enable")
"""verl's switch of a model-based reward model: the legacy key (verl 0.9 copies it to the second when it is set),
then its own."""


def has_reward_model(flat: dict[str, Any]) -> bool:
    """Whether verl scores responses with a reward model (a model served beside the rollout), which the cost model
    does not model: its scoring time and memory are in no prediction."""
    for key in REWARD_MODEL_KEYS:
        value = flat.get(key)
        if value is not None and str(value).lower() not in ("null", "none", "~"):
            return str(value).lower() in ("true", "1") if isinstance(value, str) else bool(value)
    return False


def reward_model_words(flat: dict[str, Any]) -> str:
    """`reward model (PATH)`, PATH its model where the config names one: for the notes that say it is not modelled."""
    path = flat.get("reward_model.model.path") or flat.get("reward.reward_model.model_path")  # verl's precedence
    return f"reward model ({path})" if path else "reward model"


VISION_WORDS = (
    "its vision tower not modelled (its weights, its memory and its encoding of each prompt's images, in the rollout "
    "and in every training pass, are in no prediction; the images' tokens are predicted as prompt tokens only)"
)
"""Said where the model's config.json has a `vision_config` (Qwen2.5-VL, Qwen3-VL): the cost model predicts the
language model alone, as if the job had no images (audit 39 F1)."""


def dynamic_sampling_words(flat: dict[str, Any]) -> str | None:
    """DAPO's group filtering (`algorithm.filter_groups.enable` on verl 0.9's V1 trainer, `trainer.use_v1`, its default)
    said where the job turns it on, else None: the trainer evicts each group whose answers all score alike and
    generates a new prompt's group in its place until the batch is full (`verl.trainer.ppo.v1.replay_buffer`), as many
    times as the answers fail to differ, which depends on the model and the data; the cost model predicts one
    generation of the train batch, so its generation time is a floor (audit 37 F5)."""
    if not _flag(flat, "algorithm.filter_groups.enable") or not _flag(flat, "trainer.use_v1", default=True):
        return None
    return (
        "DAPO's group filtering (algorithm.filter_groups) generates a new group for each one it filters out, as often "
        "as the answers do not differ: the cost model predicts one generation of the train batch, a floor (a run's "
        "filter_groups/evicted_samples says how many more it generated)"
    )


def _flag(flat: dict[str, Any], *keys: str, default: bool = False) -> bool:
    """The first key that is set (not None) among `keys`, as a bool."""
    for key in keys:
        value = flat.get(key)
        if value is not None:
            return bool(value)
    return default


def workload(
    flat: dict[str, Any],
    env: dict[str, str],
    world: int,
    prompt_tokens: float | None = None,
    response_tokens: float | None = None,
    response_fraction: float = 0.5,
    response_spread: float | None = None,
    vllm_version: str | None = None,
    response_max: float | None = None,
    verl_version: str | None = None,
    positions: int = 0,
) -> Workload:
    """Counts from a resolved verl config; token lengths measured (or stated in the space's `sim:`), or a fraction
    of the limits. `positions`: the model's max_position_embeddings (0: not known), whose context cuts responses
    (`context_tokens`)."""
    g = flat.get
    prompts = _need(flat, "data.train_batch_size")
    n = int(g("actor_rollout_ref.rollout.n") or 1)
    max_prompt, max_response = _need(flat, "data.max_prompt_length"), _need(flat, "data.max_response_length")
    p_tok = prompt_tokens if prompt_tokens is not None else 0.8 * max_prompt
    context = context_tokens(flat, positions)
    cap = float(max_response) if context is None else float(max(1.0, min(max_response, context - p_tok)))
    r_tok = response_tokens if response_tokens is not None else response_fraction * cap
    r_tok = min(r_tok, cap)  # a mean measured on runs allowed longer responses than this config (verl cuts)
    if response_max is not None:  # a measured longest response: the spread that puts longest_response there
        spread = spread_from_longest(r_tok, min(response_max, cap), int(prompts) * n)
    else:
        spread = response_spread if response_spread is not None else DEFAULT_SPREAD_RATIO * r_tok
    mini = _need(flat, "actor_rollout_ref.actor.ppo_mini_batch_size")
    algorithm_kl = _flag(flat, "algorithm.use_kl_in_reward") or _flag(flat, "actor_rollout_ref.actor.use_kl_loss")
    builtin = any(k.startswith("builtin.") for k in flat)
    epochs = int(g("actor_rollout_ref.actor.ppo_epochs") or 1)
    bypassed = (
        builtin
        and _flag(flat, "builtin.on_policy_bypass", default=True)
        and not _flag(flat, "algorithm.use_kl_in_reward")
        and epochs == 1
        and mini >= prompts
    )
    return Workload(
        world=world,
        tp=int(g("actor_rollout_ref.rollout.tensor_model_parallel_size") or 1),
        prompts=prompts,
        n=n,
        prompt_tokens=p_tok,
        response_tokens=r_tok,
        max_response=max_response,
        mini_batches=max(1, prompts // mini),
        epochs=epochs,
        critic_epochs=int(g("critic.ppo_epochs") or g("actor_rollout_ref.actor.ppo_epochs") or 1),
        **_micro_batches(flat, world, prompts, n, mini, p_tok + r_tok),
        has_critic=has_critic(flat),
        **_training_memory(flat),
        **_rollout_engine(flat, env, vllm_version),
        response_spread=float(spread),
        geometric_tail=response_max is None and response_spread is None,
        max_prompt=max_prompt,
        response_cap=cap,
        has_ref=builtin or algorithm_kl,
        engine="builtin" if builtin else "verl",
        engine_workers=not builtin and verl_engine_workers(verl_version),
        rollout_ipc=not builtin and verl_rollout_ipc(verl_version),
        old_log_prob_bypassed=bypassed,
    )


def shape_words(shape: Shape) -> str:
    """A model's size in words, as a sweep's line and a calibration's runs name it."""
    return f"{shape.layers} layers × hidden {shape.hidden}, {shape.heads} heads"


ROLLOUT_TP = "actor_rollout_ref.rollout.tensor_model_parallel_size"
ENGINE_NAMES = {"vllm": "vLLM", "sglang": "SGLang"}


def rollout_tp_problem(flat: dict[str, Any], model: str | None = None) -> str | None:
    """Why verl's rollout engine refuses the trial's rollout TP at start-up, or None: vLLM and SGLang split the
    attention heads over the TP ranks, so the heads must divide evenly (vLLM's `verify_with_parallel_config`).
    A real trial of it fails there; a predicted one was ranked like any other (TP 8 for Qwen2.5-7B's 28 heads,
    audit 21 F9). None too when the model's shape cannot be read (the prediction says why)."""
    engine = flat.get("actor_rollout_ref.rollout.name")
    if any(k.startswith("builtin.") for k in flat) or engine not in ENGINE_NAMES:
        return None
    tp = int(flat.get(ROLLOUT_TP) or 1)
    try:
        heads = find_shape(model or flat.get("actor_rollout_ref.model.path"), flat).heads
    except (ValueError, OSError, KeyError, TypeError):
        return None
    if heads % tp == 0:
        return None
    return (
        f"{ENGINE_NAMES[engine]} refuses rollout tensor_model_parallel_size={tp}: the model's {heads} attention heads do not "
        f"divide by it (vLLM: 'Total number of attention heads ({heads}) must be divisible by tensor parallel size "
        f"({tp})'); choose a TP that divides {heads}"
    )


def _need(flat: dict[str, Any], key: str) -> int:
    value = flat.get(key)
    if value is None:
        raise ValueError(f"the cost model needs `{key}`")
    return int(value)


def _micro_batches(flat: dict[str, Any], world: int, prompts: int, n: int, mini: int, seq_len: float) -> dict[str, Any]:
    """Micro-batches per mini-batch (updates) and per batch (log-prob and value passes), by verl's
    fallback rules: ref/rollout settings fall back to the actor's, the critic's to the actor's."""
    g = flat.get
    per_rank_mini = mini * n / world
    per_rank_critic_mini = int(g("critic.ppo_mini_batch_size") or mini) * n / world
    per_rank_all = prompts * n / world
    actor_dyn = bool(g("actor_rollout_ref.actor.use_dynamic_bsz"))
    actor_budget = g("actor_rollout_ref.actor.ppo_max_token_len_per_gpu")
    # the old log-prob pass (the rollout's log_prob_* keys) and the reference pass (the ref's) each have their own
    # micro-batching; verl defaults both to the actor's dynamic batching and budget (a micro-batch size left unset
    # falls back to the other pass's, then the actor's: a partial config still predicts)
    passes = {}
    for role, other in (("rollout", "ref"), ("ref", "rollout")):
        own, alt = f"actor_rollout_ref.{role}.", f"actor_rollout_ref.{other}."
        dynamic = _flag(flat, own + "log_prob_use_dynamic_bsz", default=actor_dyn)
        budget = g(own + "log_prob_max_token_len_per_gpu") or actor_budget
        micro = (
            g(own + "log_prob_micro_batch_size_per_gpu")
            or g(alt + "log_prob_micro_batch_size_per_gpu")
            or g("actor_rollout_ref.actor.ppo_micro_batch_size_per_gpu")
        )
        passes[role] = _micro(per_rank_all, per_rank_all * seq_len, dynamic, micro, budget)
    critic_dyn = g("critic.use_dynamic_bsz")
    critic_dyn = actor_dyn if critic_dyn is None else bool(critic_dyn)
    critic_micro = g("critic.ppo_micro_batch_size_per_gpu") or g("actor_rollout_ref.actor.ppo_micro_batch_size_per_gpu")
    values_budget = g("critic.forward_max_token_len_per_gpu") or g("critic.ppo_max_token_len_per_gpu")
    return {
        "update_micro_per_mini": _micro(
            per_rank_mini,
            per_rank_mini * seq_len,
            actor_dyn,
            g("actor_rollout_ref.actor.ppo_micro_batch_size_per_gpu"),
            actor_budget,
        ),
        "logprob_micro": passes["rollout"],
        "ref_micro": passes["ref"],
        "critic_micro_per_mini": _micro(
            per_rank_critic_mini,
            per_rank_critic_mini * seq_len,
            critic_dyn,
            critic_micro,
            g("critic.ppo_max_token_len_per_gpu"),
        ),
        "values_micro": _micro(
            per_rank_all,
            per_rank_all * seq_len,
            critic_dyn,
            g("critic.forward_micro_batch_size_per_gpu") or critic_micro,
            values_budget,
        ),
    }


def _training_memory(flat: dict[str, Any]) -> dict[str, Any]:
    """What the training phases keep and move: checkpointing, FSDP resharding and prefetch, offload, padding."""
    g = flat.get
    fsdp = "actor_rollout_ref.actor.fsdp_config."
    critic_fsdp = ("critic.model.fsdp_config.", "critic.fsdp.")
    return {
        "grad_ckpt": bool(g("actor_rollout_ref.model.enable_gradient_checkpointing")),
        "reshard_after_forward": bool(g(fsdp + "reshard_after_forward", True)),
        "forward_prefetch": bool(g(fsdp + "forward_prefetch")),
        "param_offload": bool(g(fsdp + "param_offload") or g(fsdp + "offload_policy")),
        "optimizer_offload": bool(g(fsdp + "optimizer_offload") or g(fsdp + "offload_policy")),
        "offload_policy": bool(g(fsdp + "offload_policy")),
        "reshard_mode": str(g("builtin.rollout_reshard") or "zero_redundancy"),
        "fsdp_size": int(g(fsdp + "fsdp_size") or -1),
        "actor_rmpad": _flag(flat, "actor_rollout_ref.model.use_remove_padding", default=True),
        "critic_rmpad": _flag(flat, "critic.model.use_remove_padding", default=True),
        "critic_grad_ckpt": _flag(flat, "critic.model.enable_gradient_checkpointing", default=True),
        "ref_param_offload": _flag(flat, "actor_rollout_ref.ref.fsdp_config.param_offload"),
        "critic_param_offload": any(_flag(flat, p + "param_offload") for p in critic_fsdp),
        "critic_optimizer_offload": any(_flag(flat, p + "optimizer_offload") for p in critic_fsdp),
    }


def _rollout_engine(flat: dict[str, Any], env: dict[str, str], vllm_version: str | None) -> dict[str, Any]:
    """The rollout engine's settings (vLLM's memory share, batching, graphs, version) and NCCL's."""
    g = flat.get
    channels = env.get("NCCL_MAX_NCHANNELS")
    v0 = (
        env.get("VLLM_USE_V1") == "0"
        or env.get("VLLM_ATTENTION_BACKEND", "").upper() == "XFORMERS"
        or (v0_only_vllm(vllm_version) and env.get("VLLM_USE_V1") != "1")
    )
    return {
        "gpu_memory_utilization": float(g("actor_rollout_ref.rollout.gpu_memory_utilization") or 0.5),
        "free_cache_engine": bool(g("actor_rollout_ref.rollout.free_cache_engine", True)),
        "nccl_proto": env.get("NCCL_PROTO"),
        "nccl_channels": int(channels) if channels else None,
        "enforce_eager": _flag(flat, "actor_rollout_ref.rollout.enforce_eager"),
        "max_num_seqs": int(g("actor_rollout_ref.rollout.max_num_seqs") or 256),
        "max_num_batched_tokens": int(g("actor_rollout_ref.rollout.max_num_batched_tokens") or 8192),
        "chunked_prefill": _flag(flat, "actor_rollout_ref.rollout.enable_chunked_prefill", default=True),
        "vllm_v0": v0,
        "vllm_legacy": vllm_version is not None and legacy_vllm(vllm_version),
        "vllm_async": not v0 and async_vllm(vllm_version),
    }
