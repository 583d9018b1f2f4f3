"""A command's `key=value` words as verl reads them: hydra's own override parser, then what each key is to verl.

Values mean what they mean to verl (`1e-6` is a float, `'["console","wandb"]'` a list); `+key`/`++key` are read by
what the key is in verl's config (declared, in one of its open maps, or neither); `ray_kwargs...env_vars.NAME`
is the job's environment; `hydra.*` is the launcher's own. `$HOME`, filled in by `script.py` as `HOME_MARK`
(hydra's grammar refuses a bare `~`), is written back as `~` here, once hydra has read the value.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from autotune.adapters.verl_config import ENV_PREFIX

__all__ = ["HOME_MARK", "home", "parse_overrides"]

HOME_MARK = "AUTOTUNE-HOME-b1f4"
"""Stands for `$HOME` in a value until hydra has read it (then `~`, which the verl adapter expands for each trial)."""


def home(value: Any) -> Any:
    if isinstance(value, list):
        return [home(v) for v in value]
    return value.replace(HOME_MARK, "~") if isinstance(value, str) else value


def parse_overrides(
    words: list[str], where: Callable[[str], str], notes: list[str], added: bool = False
) -> tuple[dict[str, Any], dict[str, str], list[str]]:
    """The command's overrides as verl reads them: (keys, environment, refusals). Every word refused is said at its
    line, all of them at once (they came one a run, the first `+` line stopping the rest, audit 37 F3): the refusals
    are returned, to be said with the unknown keys (`job.check_keys`).

    `+key=value` and `++key=value` (hydra's add and force-add) are read by what the key is in verl's config
    (audit 37 F1, F2, F4): a key verl declares is read as `key=value` (hydra refuses `+` there, "An item is already
    at", and `++` sets it as a plain override does), said for `+`; a key added to one of verl's open maps
    (`verl_config.open_map`: `+actor_rollout_ref.model.override_config.max_position_embeddings=32768`) is kept, as
    its plain dotted key (a space's `base:` holds it so, its YAML nests it under the map, and each trial, the
    export's `.overrides` and its check add it back with `+`); any other is refused: verl's config does not declare
    it. With `added` (calibrate, reading a run's config, where the run may add keys) every `+key` is kept as `+key`."""
    from hydra.core.override_parser.overrides_parser import OverridesParser
    from hydra.errors import OverrideParseException

    flat: dict[str, Any] = {}
    env: dict[str, str] = {}
    refused: list[str] = []
    parser = OverridesParser.create()
    for word in words:
        if word.startswith("~"):
            refused.append(
                f"{where(word)}: `{word}` deletes `{word[1:].partition('=')[0]}` from verl's config; autotune spaces only "
                "set keys: leave it out, or set the key's value"
            )
            continue
        if "=" not in word:
            refused.append(f"{where(word)}: `{word}` is not a `key=value` override; remove it or write it as one")
            continue
        try:
            [override] = parser.parse_overrides([word])
        except OverrideParseException as exc:
            first = str(exc).strip().splitlines()[0]
            fix = ""
            if "#" in word.partition("=")[2]:  # verl's hydra refuses it the same way
                name, _, text = word.partition("=")
                fix = (
                    f"; hydra reads `#` only inside quotes: write {name}='{text}' (in the script: \"{name}='{text}'\")"
                )
            if word.partition("=")[2].startswith("~"):  # bash leaves `key=~/x` as written: hydra refuses the `~`
                fix = "; write `$HOME` for `~` (bash fills it in; init reads it as `~`)"
            refused.append(f"{where(word)}: hydra cannot read `{word}`: {first}{fix}")
            continue
        key = override.key_or_group
        if override.is_sweep_override():
            refused.append(f"{where(word)}: `{word}` is a hydra sweep; give `{key}` one value")
            continue
        if override.is_delete():
            refused.append(f"{where(word)}: `{word}` deletes `{key}` from verl's config; autotune spaces only set keys")
            continue
        value: Any = home(override.value())
        if key.startswith("hydra."):  # the launcher's own settings, not verl's: each trial sets its own
            notes.append(f"`{word}` is hydra's own setting, not verl's: left out (each trial sets its own)")
            continue
        if key == "trainer.logger" and isinstance(value, str):  # verl's tracking takes one name as a list of it
            notes.append(f"`{word}` is written as a list, `{key}: [{value}]`, as verl reads it")
            value = [value]
        if key.startswith(ENV_PREFIX):
            env[key[len(ENV_PREFIX) :]] = str(value)
            continue
        if override.is_add() and added:
            flat[f"+{key}"] = value
            continue
        if override.is_add() or override.is_force_add():
            problem = _added(word, key, where(word), notes, force=override.is_force_add())
            if problem:
                refused.append(problem)
                continue
        flat[key] = value
    return flat, env, refused


def _added(word: str, key: str, at: str, notes: list[str], force: bool) -> str | None:
    """`+key=value` (or `++`, `force`) read by what the key is to verl (see `parse_overrides`): None where it is
    kept as `key` (a note said where the reading is not the word's own), else the refusal."""
    from autotune.adapters.verl_config import open_map
    from autotune.adapters.verl_trainer import verl_tree

    if key in verl_tree()[0]:  # declared: hydra refuses `+` (not `++`) there
        if not force:
            notes.append(
                f"{at}: `{word}` read as `{word[1:]}`: verl's config declares `{key}` (hydra refuses `+` there, "
                f'"An item is already at"): write it without `+` in the script too'
            )
        return None
    if (into := open_map(key)) is not None:
        notes.append(
            f"{at}: `{word}` adds `{key.removeprefix(into + '.')}` to `{into}`, a map verl leaves open: kept in "
            f"`base:` as `{key}` (each trial and the export's `.overrides` add it with `+`)"
        )
        return None
    return (
        f"{at}: `{word}` adds a key verl's ppo_trainer config does not declare; a space's `base:` holds "
        "only declared keys (and keys of the maps verl leaves open, such as `actor_rollout_ref.model.override_config`), "
        "so neither init nor a sweep's trials can carry it: a sweep of the job without "
        "it measures another job (a vLLM engine setting, a model override or a reward setting changes speed, "
        "memory or what is learned). Tune without it only if it changes none of these, adding it to the "
        "exported `.overrides` yourself; otherwise this job cannot be tuned by autotune as it stands"
    )
