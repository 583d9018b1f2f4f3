"""A job read from its text: a `main_ppo` command line or run script (`script.py`, as bash reads it), or a verl YAML.

Told apart by their text (a script runs verl on a line that is not a comment). A search space, a script that runs
another trainer (any Python module or file given `key=value` overrides, `python3 -m $ENTRY` followed through its
variable; named with the next step for what it is) or only sources another file are refused at their line; a
secret the job exports stays out of the space's `env:`; what init reads otherwise than bash runs it is said. Every
key is then checked with verl's own config (`job.check_keys`).
"""

from __future__ import annotations

import re
from typing import Any, NamedTuple

import yaml

from autotune.adapters.verl_config import (
    ENTRY,
    ENV_PREFIX,
    SHELL_VAR,
    VerlRejected,
    compose,
    overrides,
    runs_verl,
    substitute,
    without_comment,
)
from autotune.names import is_secret
from autotune.scaffold import bash
from autotune.scaffold.job import Job, JobError, check_keys, engine_of, engine_refused
from autotune.scaffold.script import from_script
from verl_keys.yaml_lines import yaml_error

__all__ = ["read_job", "refuse_other_trainers", "silent_readings"]


def read_job(text: str, source: str, nodes: int | None = None, gpus_per_node: int | None = None) -> Job:
    """A job from a command line, a run script or a verl YAML (told apart by their text: a script runs verl
    on a line that is not a comment; an exported YAML names the command in its header comment). `nodes` and
    `gpus_per_node` (init's flags) fill a script's `trainer.nnodes=$SLURM_NNODES` (a variable the machine gives
    when the job runs); where such a key's flag is None, the job is refused naming the flag."""
    _not_a_space(text, source)
    refuse_other_trainers(text, source)
    if runs_verl(text):
        job = from_script(text, source, cluster={"trainer.nnodes": nodes, "trainer.n_gpus_per_node": gpus_per_node})
        job.notes.extend(silent_readings(text, source))
    else:
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


class Run(NamedTuple):
    """A program a script runs with Python (`python3 -m X`, `python train.py`, `torchrun ... -m X`)."""

    line: int
    module: str
    """`recipe.dapo.main_dapo`, or the file (`train.py`)."""
    overrides: int
    """How many `key=value` words follow it: a trainer's (hydra's) overrides; a data script takes `--flags`."""
    via: str
    """The variable that gives the module (`${ENTRYPOINT}`, set to `-m verl.trainer.sft_trainer`), else ""."""


_LAUNCHES = re.compile(r"(^|/)(python[\d.]*|torchrun|deepspeed|accelerate)$")
_OVERRIDE = re.compile(r"[+~]{0,2}[A-Za-z_][\w./-]*=")
_SHAPED = re.compile(r"(?:verl|recipe)\.[\w.]+|[\w.]*main\w*|\S*main_\w+\.py")
"""A trainer's name, `-m recipe.dapo.main_dapo`, `-m verl.experimental.fully_async_policy.fully_async_main`,
`recipe/x/main_x.py`: one even without overrides on its line (`"$@"` only)."""


def script_runs(text: str, source: str) -> list[Run]:
    """What a script runs with Python, each at its line, its variables filled in as bash would (`ENTRYPOINT=${
    ENTRYPOINT:-"-m verl.trainer.sft_trainer"}` then `torchrun ... ${ENTRYPOINT} key=value ...`, verl's SFT scripts;
    `python3 -m $ENTRY`); of an `if`'s branches the first sets a variable (its default case). A text bash cannot
    read (a YAML job) runs nothing. `main_ppo` is found as a word anywhere (`$PY -m verl.trainer.main_ppo`)."""
    try:
        logical = bash.logical_lines(text, source)
    except JobError:
        return []
    variables: dict[str, str] = {}
    set_at: dict[str, int] = {}
    branches: list[tuple[set[str], bool]] = []  # each open `if`: the names its branches set, past its first branch
    runs: list[Run] = []
    for line in logical:
        for statement in bash.statements(line.text):
            try:
                raw = bash.shell_words(bash.arithmetic(statement, variables, source, strict=False), source)
            except JobError:  # an unclosed quote: `from_script` refuses it at its line
                continue
            if raw[:1] == ["if"]:
                branches.append((set(), False))
            elif raw[:1] in (["elif"], ["else"]) and branches:
                branches[-1] = (branches[-1][0], True)
            elif raw[:1] == ["fi"] and branches:
                branches.pop()
            raw = raw[1:] if raw[:1] and raw[0] in ("then", "else", "do", "export") else raw
            if raw and all(bash.ASSIGN.match(word) for word in raw):
                for word in raw:
                    name, _, value = word.partition("=")
                    if branches and branches[-1][1] and name in branches[-1][0]:
                        continue  # `else ENTRYPOINT=...`: the first branch's stays
                    if branches:
                        branches[-1][0].add(name)
                    variables[name], set_at[name] = substitute(value, variables), line.start
                continue
            words: list[tuple[str, str]] = []  # (word as bash runs it, the variable it came from)
            for word in raw:
                if "$" not in word:
                    words.append((word, ""))
                    continue
                names = [m.group(1) or m.group(2) for m in SHELL_VAR.finditer(word) if m.group(3) is None]
                via = f"`{word}`, set at line {set_at[names[0]]}" if names and names[0] in set_at else ""
                words += [(w, via) for w in substitute(word, variables).split()]
            runs.extend(_runs_in(words, line.start))
    return runs


def _runs_in(words: list[tuple[str, str]], line: int) -> list[Run]:
    plain = [w for w, _ in words]
    for i, word in enumerate(plain):
        if i and plain[i - 1] == "-c" and ENTRY in word:  # `srun bash -c 'python3 -m verl.trainer.main_ppo ...'`
            return [Run(line, ENTRY, 0, "")]  # (refused by `from_script`, naming the string)
        if word == ENTRY or (word.endswith(ENTRY) and not bash.ASSIGN.match(word)):
            return [Run(line, ENTRY, sum(bool(_OVERRIDE.match(w)) for w in plain[i + 1 :]), words[i][1])]
    lead = next((i for i, word in enumerate(plain) if not bash.ASSIGN.match(word)), len(plain))
    if plain[lead : lead + 1] and plain[lead].startswith("$") and plain[lead + 1 : lead + 2] == ["-m"]:
        at = lead + 2  # `$PYTHON_BIN -m X`: a Python the script does not set (left as written)
        if at < len(plain):
            return [Run(line, plain[at], sum(bool(_OVERRIDE.match(w)) for w in plain[at + 1 :]), words[at][1])]
    for i, word in enumerate(plain):
        if not _LAUNCHES.search(word):
            continue
        for j in range(i + 1, len(plain)):
            if plain[j] == "-c":
                break
            if plain[j] == "-m" or plain[j].endswith(".py"):
                at = j + 1 if plain[j] == "-m" else j
                if at >= len(plain):
                    break
                overrides = sum(bool(_OVERRIDE.match(w)) for w in plain[at + 1 :])
                return [Run(line, plain[at], overrides, words[at][1])]
            if not plain[j].startswith("-") and _OVERRIDE.match(plain[j]):
                break
    return []


def refuse_other_trainers(text: str, source: str) -> None:
    """JobError, at its line, where the script runs another trainer and no `main_ppo` (init's and calibrate's
    refusal, audit 37 F15: calibrate read a DAPO script as overrides and blamed a shell variable)."""
    if trainers := _other_trainers(script_runs(text, source)):
        raise _refused_trainers(trainers, source)


def _other_trainers(runs: list[Run]) -> list[Run]:
    """The trainers other than main_ppo among `runs` (none where main_ppo is run): those given `key=value` overrides
    (a data script's `--local_dir` is no trainer: R1's `recipe.r1.data_process` was named as the job, audit 37
    F12), else those named as trainers are (`recipe.*`, `*main*`)."""
    if any(run.module == ENTRY for run in runs):
        return []
    given = [run for run in runs if run.overrides]
    return given or [run for run in runs if _SHAPED.fullmatch(run.module)]


def _refused_trainers(trainers: list[Run], source: str) -> JobError:
    """Refused, at the first trainer's line, naming each (it was read as YAML, and refused at an unrelated line as
    "not valid YAML", audit 29 F10 and 37 F9), with the next step for what they are (audit 37 F12)."""
    said = [f"`{run.module}`" + (f" (through {run.via})" if run.via else "") for run in trainers]
    if len(trainers) > 1:
        said = [f"{what} (line {run.line})" for what, run in zip(said, trainers, strict=True)]
    if trainers[0].module.startswith("$"):  # `python3 -m $ENTRY`, the script setting no ENTRY
        return JobError(
            f"{source}:{trainers[0].line}: runs `{trainers[0].module}`, a variable the script does not set, so init "
            f"cannot tell the trainer; autotune tunes `python3 -m {ENTRY} key=value ...` jobs: write the module in the "
            "command (or set the variable in the script) and run again"
        )
    names = " and ".join([", ".join(said[:-1]), said[-1]] if len(said) > 1 else said)
    modules = " ".join(run.module for run in trainers)
    why = []
    if "sft" in modules:
        why.append("supervised fine-tuning has no rollout, and the rollout is what autotune models and tunes")
    if re.search(r"generation|main_eval", modules):
        why.append("generation or evaluation is no training job: there is no training step for autotune to tune")
    if "main_dapo" in modules:
        why.append(
            "verl's main_ppo runs DAPO's dynamic sampling itself (`algorithm.filter_groups.enable=True`, "
            "`algorithm.filter_groups.metric`, `data.gen_batch_size`): write the job for `python3 -m "
            f"{ENTRY}` with those keys (verl's recipe/dapo/test_dapo_7b_math.sh does) and give that script instead"
        )
    if re.search(r"(^|/)verl/trainer/main_ppo\.py\b", modules):
        why.append(f"that file is main_ppo's own: run it as `python3 -m {ENTRY}` (the module trials run) and run again")
    if not why:
        why.append(
            "its keys would be checked against main_ppo's config, its trials predicted as PPO and its winner "
            "exported as a main_ppo job: where it is verl's PPO trainer under another name, write the job as "
            f"`python3 -m {ENTRY} key=value ...` and give that instead"
        )
    return JobError(
        f"{source}:{trainers[0].line}: runs {names}, not `{ENTRY}`; autotune tunes verl's PPO (RL) trainer only, "
        f"`python3 -m {ENTRY} key=value ...`: {'; '.join(why)}"
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
    return Job(flat, env, ["python3", "-m", ENTRY], source, notes, lines=lines, from_yaml=True)


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
