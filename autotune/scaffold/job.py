"""The user's own verl job (read from how they launch it by `read.py`) and the checks it goes through.

Every key is checked against the installed verl's own config, as `autotune export --check` does: each key verl
does not know is refused at its line, with the closest key verl has (where one is close), all at once with the
words refused as the command was read; a key added to one of verl's open maps (`verl_config.open_map`) is known. `check_starts` then puts the job through
verl's start-up checks before init writes anything. An engine other than FSDP is refused here, for both readers.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from autotune.adapters.verl_config import (
    VerlRejected,
    check_types,
    compose,
    defaults_config,
    hydra_value,
    overrides,
)
from verl_keys.keys import suggest_key

__all__ = ["ENGINES", "Job", "JobError", "check_keys", "check_starts", "engine_of", "engine_refused", "unset_said"]


class JobError(ValueError):
    """The job cannot become a space; the message names the source, the key or line, and the fix."""


@dataclass
class Job:
    flat: dict[str, Any]
    """Every verl key the job sets, as verl reads it."""
    env: dict[str, str]
    """The job's environment: `export` lines of the script, `NAME=value` before the command, and
    `+ray_kwargs.ray_init.runtime_env.env_vars.NAME` overrides."""
    command: list[str]
    """The launcher up to and including `verl.trainer.main_ppo` (e.g. python3 -m verl.trainer.main_ppo)."""
    source: str
    notes: list[str] = field(default_factory=list)
    """What was read differently from the text, said aloud (nothing is dropped silently)."""
    unset: tuple[str, ...] = ()
    """Variables the command uses that the script does not set (left as written)."""
    lines: dict[str, int] = field(default_factory=dict)
    """The source's line (from 1) that sets each key, where it can be found: errors point at it."""
    refused: list[str] = field(default_factory=list)
    """The command's words refused as it was read, each at its line (a `+key` verl does not declare, a sweep, a
    deletion): said by `check_keys` with the unknown keys, all at once (audit 37 F3)."""
    from_yaml: bool = False
    """Read from a verl YAML, not a script: a key it lacks is added nested, not as `key=value` (audit 39 F5)."""

    def at(self, key: str) -> str:
        line = self.lines.get(key)
        return f"{self.source}:{line}" if line else self.source


ENGINES = ("megatron", "torchtitan", "veomni", "automodel")
"""verl's engines other than FSDP, as a role's `strategy` names them."""


def engine_of(key: str, value: Any) -> str | None:
    """The engine other than FSDP a job's key chooses: verl's `model_engine=megatron` (what its
    `ppo_megatron_trainer.yaml` overrides), or a role's `strategy: megatron` (a dumped Megatron config)."""
    if key.lstrip("+") == "model_engine" and str(value) not in ("dp", "fsdp"):
        return str(value)
    if key.rsplit(".", 1)[-1] == "strategy" and str(value) in ENGINES:  # not `fsdp`, `fsdp2` or a `${...}`
        return str(value)
    return None


def engine_refused(at: str, said: str, engine: str) -> JobError:
    what = "a Megatron job" if engine == "megatron" else f"a job on verl's `{engine}` engine"
    return JobError(
        f"{at}: `{said}`: {what}; autotune init reads FSDP jobs on verl's ppo_trainer config only (`model_engine=dp`, "
        "verl's default: its knobs are FSDP's), so this job cannot be tuned by init as it stands"
    )


def check_keys(job: Job) -> None:
    """verl's own config accepts every key and the type of every value: each unknown key is named at its line
    with the closest key verl has (hydra's own message names neither), all of them at once, with the words refused
    as the command was read (`Job.refused`). A key added to one of verl's open maps (`open_map`) is known."""
    from autotune.adapters.verl_config import open_map
    from autotune.adapters.verl_trainer import verl_tree

    known = verl_tree()[0]
    said = list(job.refused)
    try:
        compose(overrides(job.flat))
    except VerlRejected as exc:
        unknown = [k for k in job.flat if k not in known and open_map(k) is None]
        said += [_unknown_key(job, key) for key in unknown] or [f"{job.source}: verl rejects the job: {exc}"]
        raise JobError("\n".join(said)) from None
    problems = check_types(defaults_config(), job.flat)
    if problems:
        hint = f" ({unset_said(job.unset)}; write the value instead)" if job.unset else ""
        keys = [re.match(r"`([^`]+)`", problem) for problem in problems]  # each at its line (audit 29 F14)
        said += [
            f"{job.at(k.group(1)) if k else job.source}: {problem}" for k, problem in zip(keys, problems, strict=True)
        ]
        raise JobError("\n".join(said) + hint)
    if said:
        raise JobError("\n".join(said))


def unset_said(names: Iterable[str], only_arguments: bool = False) -> str:
    """The variables a command uses that the script does not set, a positional one (`$1`) said to be the script's
    argument (it was "not set in the script", audit 29 F12)."""
    plain = [f"${n}" for n in sorted(names) if not n.isdigit()]
    arguments = [f"${n}" for n in sorted(names) if n.isdigit()]
    said = [] if only_arguments or not plain else [f"{', '.join(plain)}: not set in the script"]
    if arguments:
        said.append(f"{', '.join(arguments)}: the script's own argument(s), which init is not given")
    return "; ".join(said)


def _unknown_key(job: Job, key: str) -> str:
    from importlib.metadata import PackageNotFoundError, version

    from autotune.adapters import get_adapter

    hint = suggest_key(key, get_adapter("verl").keys())
    try:  # a key of another verl (verl's NPU examples' `trainer.use_legacy_worker_impl`, gone from 0.9) was told to
        # "fix its name" with no word of the version it was checked against (audit 39 F4); a misspelling, which has
        # a close key, is told that key only
        installed = f"verl {version('verl')}'s, the verl installed here"
    except PackageNotFoundError:
        installed = "the installed verl's"
    return (
        f"{job.at(key)}: verl has no key `{key}`"
        + (f"; did you mean `{hint}`?" if hint else "")
        + " (fix its name; a key your run adds as `+key=value` goes in the exported `.overrides`, not in the job "
        + ("given to init)" if hint else f"given to init; the keys are {installed}: a key only another verl version has "
           "is refused so: leave it out)")
    )  # fmt: skip


def check_starts(job: Job, flat: dict[str, Any], world: int) -> None:
    """verl's start-up checks (what main_ppo runs before Ray starts, and `autotune validate` on the space's
    baseline) on the job's baseline `flat`, before init writes the space: a refusal is the job's, so it names the
    script's keys and verl's defaults involved, not the file init would write (which then needs `--force`)."""
    from autotune.adapters import get_adapter
    from autotune.adapters.base import InvalidConfig

    try:
        get_adapter("verl", job.command).check([], flat, world)
    except InvalidConfig as exc:
        reason = str(exc).removeprefix("verl's validate_config rejects it: ").rstrip(".")
        if _ENGINE_MISSING.search(reason):  # verl imports the rollout engine's LoRA support, absent here
            raise JobError(
                f"{job.source}: verl's check of this job needs vLLM or SGLang installed here, and neither is (verl: "
                f"{reason}); the job is not at fault: run init where its rollout engine is installed, or install it "
                "here (`pip install vllm`), and rerun init; nothing was written"
            ) from None
        involved = "; ".join(_origin(job, key, flat) for key in _keys_named(reason, flat))
        raise JobError(
            f"{job.source}: verl refuses the job: {reason}"
            + (f" ({involved})" if involved else "")
            + f"; fix it in {job.source} (a key it does not set: "
            + ("add it, nested under its sections as verl's config nests it" if job.from_yaml else "add `key=value`")
            + ") and rerun init; nothing was written"
        ) from None


_ENGINE_MISSING = re.compile(r"vllm version None|SGLang also not Found|No module named '(vllm|sglang)", re.I)
"""verl's check failing because neither rollout engine is installed where init runs (verl[verl-core] has neither)."""

VERL_WORDS = {
    "n_gpus": ("trainer.n_gpus_per_node", "trainer.nnodes"),
    "real_train_batch_size": ("data.train_batch_size", "actor_rollout_ref.rollout.n"),
}
"""Names verl's validation messages use for products of keys, not keys themselves."""


def _keys_named(reason: str, flat: dict[str, Any]) -> list[str]:
    """The verl keys a validation message names (`actor.ppo_mini_batch_size (256)`: the key ending so), told
    apart by the value in brackets, then by whether the job sets them."""
    from autotune.adapters.verl_trainer import verl_tree

    defaults = verl_tree()[1]
    out: list[str] = []
    for word, shown in re.findall(r"([A-Za-z_][\w.]*\w)'?(?:\s*\(([^)]*)\))?", reason):
        if "_" not in word and "." not in word:  # prose (`must`, `set`), not a field
            continue
        if word in VERL_WORDS:
            found = list(VERL_WORDS[word])
        else:
            found = [k for k in defaults if k == word or k.endswith(f".{word}")]
            by_value = [k for k in found if shown and str(flat.get(k, defaults.get(k))) == shown]
            found = by_value or [k for k in found if k in flat] or found
        if not found and "." in word:  # verl's message names a field its config spells otherwise
            section = word.split(".", 1)[0] + "."  # (`critic.micro_batch_size_per_gpu`: ppo_micro_..., in critic)
            guess = suggest_key(word, [k for k in defaults if k.startswith(section)])
            found = [guess] if guess else []
        out += [k for k in found if k not in out]
    return out


def _origin(job: Job, key: str, flat: dict[str, Any]) -> str:
    from autotune.adapters.verl_trainer import verl_tree

    default = verl_tree()[1].get(key)
    if key in job.flat:
        return f"`{key}`={hydra_value(job.flat[key])} set at {job.at(key)}"
    where = "the YAML" if job.from_yaml else "the script"
    if key in flat and flat[key] != default:
        return f"`{key}`={hydra_value(flat[key])} init's baseline, not in {where}"
    return f"`{key}`={hydra_value(default)} verl's default, not in {where}"
