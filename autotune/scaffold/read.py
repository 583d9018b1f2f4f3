"""A job read from its text: a `main_ppo` command line or run script (`script.py`, as bash reads it), or a verl YAML.

Told apart by their text (a script runs verl on a line that is not a comment). A search space, a script that runs
another trainer or only sources another file are refused at their line; a secret the job exports stays out of the
space's `env:`; what init reads otherwise than bash runs it is said. Every key is then checked with verl's own
config (`job.check_keys`).
"""

from __future__ import annotations

import re
from typing import Any

import yaml

from autotune.adapters.verl_config import (
    ENTRY,
    ENV_PREFIX,
    VerlRejected,
    compose,
    overrides,
    runs_verl,
    without_comment,
)
from autotune.names import is_secret
from autotune.scaffold.job import Job, JobError, check_keys, engine_of, engine_refused
from autotune.scaffold.script import from_script
from verl_keys.yaml_lines import yaml_error

__all__ = ["read_job", "silent_readings"]


def read_job(text: str, source: str, nodes: int | None = None, gpus_per_node: int | None = None) -> Job:
    """A job from a command line, a run script or a verl YAML (told apart by their text: a script runs verl
    on a line that is not a comment; an exported YAML names the command in its header comment). `nodes` and
    `gpus_per_node` (init's flags) fill a script's `trainer.nnodes=$SLURM_NNODES` (a variable the machine gives
    when the job runs); where such a key's flag is None, the job is refused naming the flag."""
    _not_a_space(text, source)
    if runs_verl(text):
        job = from_script(text, source, cluster={"trainer.nnodes": nodes, "trainer.n_gpus_per_node": gpus_per_node})
        job.notes.extend(silent_readings(text, source))
    else:
        _other_entry(text, source)
        _sourced(text, source)
        job = _from_yaml(text, source)
    _secrets_left_out(job)
    check_keys(job)
    return job


def _secrets_left_out(job: Job) -> None:
    """A secret the job exports (`export WANDB_API_KEY=...`) stays out of the space's `env:` (audit 36 F11): the
    space is stored with the study, each trial's folder and its wandb run. Trials
    inherit the environment `autotune run` starts in: the secret is exported there."""
    secrets = sorted(name for name in job.env if is_secret(name))
    for name in secrets:
        del job.env[name]
    if secrets:
        names = ", ".join(secrets)
        job.notes.append(
            f"{names}: {'secrets' if len(secrets) > 1 else 'a secret'}, left out of `env:` (the space is stored with the study, each trial's folder "
            f"and its wandb run): trials inherit the environment `autotune run` starts in, so "
            f"export it there (`export {secrets[0]}=...`)"
        )


_POSITIONAL_DEFAULT = re.compile(r"\$\{(\d+):?-([^}]*)\}")


def silent_readings(text: str, source: str) -> list[str]:
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
