"""The space's `sim:` section: what the cost model (`--backend sim`) cannot know in advance.

    sim:
      prompt_tokens: 100        # expected mean prompt length (tokens)
      response_tokens: 190      # expected mean response length (tokens)
      response_max: 1024        # optional: the longest response of a step (verl logs it as response_length/max)
      response_spread: 190      # optional, instead of response_max: standard deviation of response lengths
      gpu: H100                 # optional: preset or device file; `--gpu` on the command line overrides it
      vllm_version: 0.5.4       # optional: the rollout's vLLM when older than 0.14 (default: a current one); before 0.8 its V0 engine
      verl_version: 0.5.0       # optional: verl when older than 0.7.1 (default: a current one, 0.7.1 or later)

A synchronous rollout lasts until the longest response of the batch ends, and training time follows the
tokens actually generated, so the expected lengths matter more than the limits (`data.max_*_length`).
Generation time follows the longest response; give it as `response_max` when a run has shown it (the median of
verl's per-step `response_length/max`), or as a `response_spread`; without either the model assumes a spread
equal to the mean, which can be far off (answers that all end near the same length, or long tails).
Without this section the model assumes 0.8 × the prompt limit and 0.5 × the response limit.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class SimSettings:
    prompt_tokens: float | None = None
    """Expected mean prompt length in tokens (default: 0.8 × data.max_prompt_length)."""
    response_tokens: float | None = None
    """Expected mean response length in tokens (default: 0.5 × data.max_response_length)."""
    response_spread: float | None = None
    """Standard deviation of response lengths in tokens (default: the mean response length)."""
    response_max: float | None = None
    """The longest response of a step in tokens (verl's `response_length/max`); sets the spread that puts the
    model's expected longest response there. Exclusive with `response_spread`."""
    gpu: str | None = None
    """Device the sim predicts for: a preset (H100, H800, H200, H20, A100, ...) or a device file."""
    vllm_version: str | None = None
    """The rollout's vLLM version ("0.5.4"); before 0.6 its engine costs about twice as much per decode step, before
    0.8 it runs the V0 engine (unless the space's env sets VLLM_USE_V1=1, 0.7's opt-in), and from 0.14 on its CPU
    step overlaps the GPU's (async scheduling). Default: a current vLLM (0.14 or later)."""
    verl_version: str | None = None
    """verl's version ("0.5.0"); from 0.7 on every training call carries a fixed cost (its engine workers), and from
    0.7.1 on the weight sync goes through CUDA IPC into vLLM's own processes. Default: a current verl (0.7.1 or
    later)."""

    def __post_init__(self) -> None:
        for name in ("prompt_tokens", "response_tokens"):
            value = getattr(self, name)
            if value is not None and not (_number(value) and value > 0):
                raise ValueError(f"`sim.{name}` must be a positive number of tokens, got {value!r}; e.g. `{name}: 200`")
        spread = self.response_spread
        if spread is not None and not (_number(spread) and spread >= 0):
            raise ValueError(
                f"`sim.response_spread` must be a number of tokens >= 0 (a standard deviation), got {spread!r}; "
                "e.g. `response_spread: 150`, or leave it out for the default (the mean response length)"
            )
        longest = self.response_max
        if longest is not None:
            if not (_number(longest) and longest > 0):
                raise ValueError(
                    f"`sim.response_max` must be a positive number of tokens (the longest response of a step, verl's "
                    f"response_length/max), got {longest!r}; e.g. `response_max: 1024`"
                )
            if spread is not None:
                raise ValueError(
                    "`sim.response_max` and `sim.response_spread` both describe the longest response; give one "
                    f"(got response_max {longest!r} and response_spread {spread!r})"
                )
            mean = self.response_tokens
            if mean is not None and _number(mean) and longest < mean:
                raise ValueError(
                    f"`sim.response_max` ({longest!r}) is shorter than `sim.response_tokens` ({mean!r}): the longest "
                    "response of a step cannot be shorter than the mean"
                )
        if self.gpu is not None and (not isinstance(self.gpu, str) or not self.gpu.strip()):
            raise ValueError(
                f"`sim.gpu` must be a GPU preset name or a device file path, got {self.gpu!r}; e.g. `gpu: H100`"
            )
        for name, example in (("vllm_version", "'0.5.4' or '0.8.5'"), ("verl_version", "'0.5.0' or '0.7.1'")):
            version = getattr(self, name)
            if version is not None and not (
                isinstance(version, str) and re.fullmatch(r"\d+\.\d+(\.[\w.+]+)?", version)
            ):
                raise ValueError(
                    f"`sim.{name}` must be a quoted version like {example}, got {version!r}; "
                    f"e.g. `{name}: {example.split(' or ')[0]}`"
                )

    def lengths(self) -> dict[str, float | None]:
        """Keyword arguments for the cost model."""
        return {
            "prompt_tokens": self.prompt_tokens,
            "response_tokens": self.response_tokens,
            "response_spread": self.response_spread,
            "response_max": self.response_max,
        }


def _number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


def parse_sim_section(raw: Any) -> SimSettings:
    """A `sim:` mapping (or None) as SimSettings; errors state the rule, the value and the fix."""
    if raw is None:
        return SimSettings()
    if not isinstance(raw, dict):
        raise ValueError(
            "`sim` must be a mapping (prompt_tokens, response_tokens, response_max, response_spread, gpu, vllm_version, "
            f"verl_version), got {raw!r}"
        )
    known = {
        "prompt_tokens",
        "response_tokens",
        "response_max",
        "response_spread",
        "gpu",
        "vllm_version",
        "verl_version",
    }
    unknown = sorted(set(raw) - known)
    if unknown:
        raise ValueError(f"unknown setting(s) `sim.{'`, `sim.'.join(unknown)}` (known: {', '.join(sorted(known))})")
    return SimSettings(**raw)


def older_than(version: str, release: tuple[int, ...], what: str, example: str) -> bool:
    """Whether a version string (`sim.vllm_version`, `sim.verl_version`) is before `release`; ValueError naming
    `what` and an `example` when it is not a version."""
    parts = version.strip().split(".")
    try:
        numbers = [int(parts[0]), int(parts[1]) if len(parts) > 1 else 0]
    except ValueError:
        raise ValueError(f"{what} {version!r}: expected a version like {example}") from None
    for part in parts[2 : len(release)]:  # a patch level ("0.7.1", "0.9.0.dev0"); "0.8.5.post1"'s tail is ignored
        digits = re.match(r"\d+", part)
        numbers.append(int(digits.group()) if digits else 0)
    return tuple(numbers) < release


def verl_engine_workers(version: str | None) -> bool:
    """Whether verl of this version ("0.5.0", "0.7.1"; None = a current one) runs its training calls through the
    engine workers of verl 0.7 (January 2026) and later."""
    return version is None or not older_than(version, (0, 7), "verl_version", "'0.5.0' or '0.7.1'")
