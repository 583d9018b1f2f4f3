"""The user's own verl job, read from how they launch it: a `main_ppo` command line or run script, or a verl YAML.

A script is read the way verl's example scripts are written, as bash reads it (`script.py`). Every key is then checked against the installed verl's own config,
as `autotune export --check` does: each key verl does not know is refused at its line, with the closest
key verl has. `check_starts` then puts the job through verl's start-up checks before init writes anything.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

import yaml

from autotune.adapters.verl_config import (
    ENTRY,
    ENV_PREFIX,
    VerlRejected,
    check_types,
    compose,
    defaults_config,
    hydra_value,
    overrides,
    runs_verl,
    without_comment,
)
from autotune.names import is_secret
from verl_keys.keys import suggest_key
from verl_keys.yaml_lines import yaml_error

__all__ = ["Job", "JobError", "check_starts", "read_job"]


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

    def at(self, key: str) -> str:
        line = self.lines.get(key)
        return f"{self.source}:{line}" if line else self.source


def read_job(text: str, source: str, nodes: int | None = None, gpus_per_node: int | None = None) -> Job:
    """A job from a command line, a run script or a verl YAML (told apart by their text: a script runs verl
    on a line that is not a comment; an exported YAML names the command in its header comment). `nodes` and
    `gpus_per_node` (init's flags) fill a script's `trainer.nnodes=$SLURM_NNODES` (a variable the machine gives
    when the job runs); where such a key's flag is None, the job is refused naming the flag."""
    _not_a_space(text, source)
    if runs_verl(text):
        from autotune.scaffold.script import from_script

        job = from_script(text, source, cluster={"trainer.nnodes": nodes, "trainer.n_gpus_per_node": gpus_per_node})
        job.notes.extend(_silent_readings(text, source))
    else:
        _other_entry(text, source)
        _sourced(text, source)
        job = _from_yaml(text, source)
    _secrets_left_out(job)
    check_keys(job)
    return job


def _secrets_left_out(job: Job) -> None:
    """A secret the job exports (`export WANDB_API_KEY=...`) stays out of the space's `env:` (audit 36 F11): the
    space is stored in the study and each trial's folder, and its env goes into the export and the report. Trials
    inherit the environment `autotune run` starts in: the secret is exported there."""
    secrets = sorted(name for name in job.env if is_secret(name))
    for name in secrets:
        del job.env[name]
    if secrets:
        names = ", ".join(secrets)
        job.notes.append(
            f"{names}: {'secrets' if len(secrets) > 1 else 'a secret'}, left out of `env:` (the space is stored with the study and its trials, and its env "
            f"goes into the export and the report): trials inherit the environment `autotune run` starts in, so "
            f"export it there (`export {secrets[0]}=...`)"
        )


_POSITIONAL_DEFAULT = re.compile(r"\$\{(\d+):?-([^}]*)\}")


def _silent_readings(text: str, source: str) -> list[str]:
    """What init reads otherwise than bash runs it, said (audit 29 F18): Windows line ends, which bash reads as part
    of each line (the command gets none of its overrides), and the script's arguments' defaults, taken."""
    notes = []
    if "\r\n" in text:
        notes.append(
            f"{source} has Windows (CRLF) line ends: bash runs it with a stray carriage return in every line (the "
            f"command gets none of its overrides); init read it as if they were plain ones: convert it "
            f"(`sed -i 's/\\r$//' {'FILE' if source == '<stdin>' else source}`) before running it"
        )
    for n, line in enumerate(text.splitlines(), 1):
        for m in _POSITIONAL_DEFAULT.finditer(without_comment(line)):
            notes.append(
                f"{source}:{n}: `{m.group(0)}` takes its default `{m.group(2)}`, as the script run without arguments "
                f"does; its argument ${m.group(1)} would change it"
            )
    return notes


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


_OTHER_ENTRY = re.compile(
    r"(?:^|\s)(?:-m\s+((?:verl|recipe)\.[\w.]+|[\w.]*main\w*)|python[\d.]*\s+(\S*main_\w+\.py))(?=\s|$)"
)
"""A trainer other than main_ppo a script runs: `-m recipe.dapo.main_dapo`, `-m verl.experimental.fully_async_policy.
fully_async_main`, `python3 recipe/x/main_x.py`."""


def _other_entry(text: str, source: str) -> None:
    """Refused, at its line, when a script runs another trainer than main_ppo (it was read as YAML, and refused
    at an unrelated line as "not valid YAML", audit 29 F10)."""
    runs = [(n, m.group(1) or m.group(2)) for n, line in enumerate(text.splitlines(), 1)
            if (m := _OTHER_ENTRY.search(without_comment(line)))]  # fmt: skip
    if runs:
        (line, module), more = runs[0], f" (and on {len(runs) - 1} more line(s))" if len(runs) > 1 else ""
        raise JobError(
            f"{source}:{line}: runs `{module}`{more}, not `{ENTRY}`; autotune init reads `python3 -m {ENTRY} "
            "key=value ...` jobs only (verl's PPO trainer), so this job cannot be tuned by init as it stands"
        )


_SOURCE = re.compile(r"^\s*(?:source|\.)\s+(\S+)")
"""A script's `source ./run_common.sh` (or `. ./run_common.sh`) line: the file it reads."""


def _sourced(text: str, source: str) -> None:
    """Refused, at its line, when a script without the command sources another file (an sbatch header, then
    `source ./run_common.sh`): it was read as YAML, "a verl config is a YAML mapping" (audit 36 F13)."""
    for n, line in enumerate(text.splitlines(), 1):
        if m := _SOURCE.match(without_comment(line)):
            raise JobError(
                f"{source}:{n}: sources `{m.group(1)}`, which init does not follow, and runs no `python3 -m {ENTRY}` "
                f"command itself: give init the file that runs it (`{m.group(1)}`, relative to where the job runs), "
                "and rerun init"
            )


def _not_a_space(text: str, source: str) -> None:
    """Refused when `text` is an autotune search space: before the script test, as a space's `command:` names
    `verl.trainer.main_ppo` on a line that is no comment (such a space was read as a script, audit 29 F13)."""
    try:
        raw = yaml.safe_load(text)
    except yaml.YAMLError:
        return
    if isinstance(raw, dict) and isinstance(raw.get("base"), dict) and {"params", "baseline", "trainer"} & set(raw):
        raise JobError(  # one line per key of the space verl has not: 96 lines (audit 25 F6)
            f"{source}: an autotune search space, not a verl job; init writes a space from your job: give it the "
            f"run's script, its `python3 -m {ENTRY} ...` command, or its verl YAML (`autotune run --space {source}` "
            "runs this one)"
        )


def _from_yaml(text: str, source: str) -> Job:
    from trainer.config.loader import to_flat_dict

    try:
        raw = yaml.safe_load(text)
    except yaml.YAMLError as exc:  # PyYAML's own text named "<unicode string>", not the file (audit 25 F14)
        said = str(yaml_error(source, exc)).replace(": not valid YAML: ", ": neither a `" + ENTRY + "` command nor "
                                                                          "valid YAML: ", 1)  # fmt: skip
        raise JobError(said) from None
    if not isinstance(raw, dict):
        raise JobError(f"{source}: a verl config is a YAML mapping, or give the `python3 -m {ENTRY} ...` command")
    notes = []
    lines = _yaml_lines(text)
    defaults = raw.pop("defaults", None)
    raw.pop("hydra", None)
    at = f"{source}:{lines['defaults']}" if "defaults" in lines else source
    if defaults is not None and "megatron" in str(defaults):  # verl's ppo_megatron_trainer.yaml itself
        raise engine_refused(at, f"defaults: {defaults}", "megatron")
    flat = to_flat_dict(raw)
    for key, value in flat.items():  # a dumped Megatron config: its `strategy: megatron`, not 182 unknown keys
        if (engine := engine_of(key, value)) is not None:
            raise engine_refused(f"{source}:{lines[key]}" if key in lines else source, f"{key}: {value}", engine)
    if defaults is not None and defaults not in (["ppo_trainer", "_self_"], ["ppo_trainer"]):
        raise JobError(
            f"{at}: `defaults: {defaults}`: autotune init reads jobs on verl's ppo_trainer config only "
            "(`defaults: [ppo_trainer, _self_]`)"
        )
    env = {k[len(ENV_PREFIX) :]: str(v) for k, v in flat.items() if k.startswith(ENV_PREFIX)}
    flat = {k: v for k, v in flat.items() if not k.startswith(ENV_PREFIX)}
    if defaults is None and any(k.endswith("._target_") for k in flat):  # a whole config dumped by verl
        raw_defaults = _verl_raw_defaults()
        shape = ("trainer.n_gpus_per_node", "trainer.nnodes")  # the cluster's: kept though verl's defaults
        same = [
            k for k, v in flat.items() if k not in shape and (k.endswith("._target_") or raw_defaults.get(k, ...) == v)
        ]
        # a resolved dump (what verl prints) holds the keys verl derives from others (`${...}` in its config)
        # resolved: equal to what verl derives for this job, they are its defaults (pinned, `critic.use_dynamic_bsz:
        # true` kept the critic on dynamic batching where the sweep turned it off)
        same += _derived_as_verl_derives({k: v for k, v in flat.items() if k not in same}, raw_defaults)
        notes.append(f"a dumped verl config: its {len(same)} keys equal to verl's defaults are left out of `base:`")
        flat = {k: v for k, v in flat.items() if k not in same}
    return Job(flat, env, ["python3", "-m", ENTRY], source, notes, lines=lines)


def _yaml_lines(text: str) -> dict[str, int]:
    """The line of each dotted key in a verl YAML (its nested mappings walked as `to_flat_dict` flattens them)."""
    found: dict[str, int] = {}

    def walk(node: yaml.Node | None, prefix: str) -> None:
        if not isinstance(node, yaml.MappingNode):
            return
        for k, v in node.value:
            key = f"{prefix}{k.value}"
            found[key] = k.start_mark.line + 1
            walk(v, f"{key}.")

    walk(yaml.compose(text), "")
    return found


def _derived_as_verl_derives(flat: dict[str, Any], raw_defaults: dict[str, Any]) -> list[str]:
    """The keys of a dumped config that verl derives from others (its default, or a parent's, is a `${...}`) and
    whose value is what verl derives for the rest of this job (its config composed with the rest, resolved)."""
    from omegaconf import OmegaConf

    from trainer.config.loader import to_flat_dict

    def derived(key: str) -> bool:
        parts = key.split(".")
        return any("${" in str(raw_defaults.get(".".join(parts[:i]), "")) for i in range(1, len(parts) + 1))

    keys = [k for k in flat if derived(k)]
    if not keys:
        return []
    try:
        cfg = compose(overrides({k: v for k, v in flat.items() if k not in keys}))
        mine = to_flat_dict(OmegaConf.to_container(cfg, resolve=True))  # type: ignore[arg-type]
    except (VerlRejected, ValueError):  # a key verl does not have: check_keys names it
        return []
    return [k for k in keys if k in mine and mine[k] == flat[k]]


def _verl_raw_defaults() -> dict[str, Any]:
    from autotune.adapters.verl_trainer import verl_tree

    return verl_tree()[0]


def check_keys(job: Job) -> None:
    """verl's own config accepts every key and the type of every value: each unknown key is named at its line
    with the closest key verl has (hydra's own message names neither), all of them at once."""
    from autotune.adapters.verl_trainer import verl_tree

    known = verl_tree()[0]
    try:
        compose(overrides(job.flat))
    except VerlRejected as exc:
        unknown = [k for k in job.flat if k not in known]
        if not unknown:
            raise JobError(f"{job.source}: verl rejects the job: {exc}") from None
        raise JobError("\n".join(_unknown_key(job, key) for key in unknown)) from None
    problems = check_types(defaults_config(), job.flat)
    if problems:
        hint = f" ({unset_said(job.unset)}; write the value instead)" if job.unset else ""
        keys = [re.match(r"`([^`]+)`", problem) for problem in problems]  # each at its line (audit 29 F14)
        said = [
            f"{job.at(k.group(1)) if k else job.source}: {problem}" for k, problem in zip(keys, problems, strict=True)
        ]
        raise JobError("\n".join(said) + hint)


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
    from autotune.adapters import get_adapter

    hint = suggest_key(key, get_adapter("verl").keys())
    return (
        f"{job.at(key)}: verl has no key `{key}`"
        + (f"; did you mean `{hint}`?" if hint else "")
        + " (fix its name; a key your run adds as `+key=value` goes in the exported `.overrides`, not in the job "
        "given to init)"
    )


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
            + f"; fix it in {job.source} (a key it does not set: add `key=value`) and rerun init; nothing was written"
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
    if key in flat and flat[key] != default:
        return f"`{key}`={hydra_value(flat[key])} init's baseline, not in the script"
    return f"`{key}`={hydra_value(default)} verl's default, not in the script"
