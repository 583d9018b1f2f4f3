"""verl's own hydra config, composed and validated offline: the ground truth for what verl accepts.

Needs verl installed (`pip install 'autotune[verl]'`, verl 0.9.x); nothing here needs a GPU or the
model weights. A key verl does not declare is rejected with hydra's message; values are
type-checked against the type of verl's default (hydra itself does not check types); the composed
config then goes through `verl.utils.config.validate_config`, the check `main_ppo` runs before Ray
starts (batch sizes against the GPU count, micro-batch settings), so a config it rejects never
launches. Paths starting with `~` are expanded here: verl runs without a shell and never expands
them itself.
"""

from __future__ import annotations

import contextlib
import io
import math
import os
import re
import typing
import warnings
from collections.abc import Callable, Iterator
from functools import cache
from pathlib import Path
from typing import Any

import yaml

from autotune.extras import PARTS, MissingPart
from verl_keys.keys import to_nested

ENV_PREFIX = "ray_kwargs.ray_init.runtime_env.env_vars."
"""Where a trial's environment variables go in a verl config (Ray's runtime env of every worker)."""


class VerlNotInstalled(MissingPart):
    pass


class VerlRejected(ValueError):
    """verl's config would refuse these overrides; the message is verl's (hydra's) own."""


def config_dir() -> Path:
    """verl's own config folder, found without importing verl: `import verl` pulls in torch and
    tensordict (seconds), and composing its YAML needs none of that (the report composes the
    winner's config during a sweep, between trials)."""
    import importlib.util

    try:
        spec = importlib.util.find_spec("verl")  # a top-level name: located, not imported
    except (ImportError, ValueError):  # e.g. sys.modules["verl"] set to None
        spec = None
    if spec is None or not spec.submodule_search_locations:
        raise VerlNotInstalled(f"verl is not installed here: {PARTS['verl'].install}")
    folder = Path(next(iter(spec.submodule_search_locations))) / "trainer" / "config"
    if not (folder / "ppo_trainer.yaml").is_file():
        raise VerlNotInstalled(
            f"verl at {folder.parent.parent} has no trainer/config/ppo_trainer.yaml; install verl>=0.9.1,<0.10"
        )
    return folder


def compose(overrides: list[str]) -> Any:
    """verl's `ppo_trainer` config with these overrides (raises VerlRejected with hydra's message)."""
    return _compose(tuple(overrides)).copy()


def defaults_config() -> Any:
    """verl's default config, shared and read-only (no copy: copying it takes about half a second)."""
    return _compose(())


@cache
def _compose(overrides: tuple[str, ...]) -> Any:
    from hydra import compose as hydra_compose
    from hydra import initialize_config_dir
    from hydra.core.global_hydra import GlobalHydra
    from hydra.errors import HydraException
    from omegaconf.errors import OmegaConfBaseException

    GlobalHydra.instance().clear()
    try:
        with initialize_config_dir(config_dir=str(config_dir()), version_base=None):
            return hydra_compose(config_name="ppo_trainer", overrides=list(overrides))
    except (HydraException, OmegaConfBaseException) as exc:
        raise VerlRejected(str(exc).strip().splitlines()[0]) from None
    finally:
        GlobalHydra.instance().clear()


ENGINE_WORKER_RULE = "verl's actor worker asserts at start-up"
"""How a refusal by a rule of verl's engine workers starts (verl 0.9 runs every job on them; `validate_config` does
not hold it): a space predicting a run of a verl before them (`sim.verl_version`) is not held to it."""


def validate(cfg: Any) -> None:
    """verl's own start-up validation (`main_ppo` runs it before Ray starts) and its engine workers' start-up rules
    that it leaves out; VerlRejected with the message."""
    from verl.trainer.ppo.utils import need_critic, need_reference_policy
    from verl.utils.config import validate_config

    try:
        with contextlib.redirect_stdout(io.StringIO()), warnings.catch_warnings(), _offline_model_configs():
            warnings.simplefilter("ignore")
            validate_config(config=cfg, use_reference_policy=need_reference_policy(cfg), use_critic=need_critic(cfg))
    except Exception as exc:  # verl raises ValueError/AssertionError, wrapped by hydra when instantiating
        from hydra.errors import InstantiationException

        cause = exc.__cause__ if isinstance(exc, InstantiationException) and exc.__cause__ else exc
        if not isinstance(cause, (AssertionError, ValueError, TypeError, KeyError, AttributeError)):
            raise
        message = " ".join(str(cause).split()) or type(cause).__name__
        raise VerlRejected(f"verl's validate_config rejects it: {message}") from None
    actor, rollout = cfg.actor_rollout_ref.actor, cfg.actor_rollout_ref.rollout
    if actor.use_dynamic_bsz != rollout.log_prob_use_dynamic_bsz:  # after Ray and the workers start (audit 29 F2)
        raise VerlRejected(
            f"{ENGINE_WORKER_RULE} that `actor_rollout_ref.actor.use_dynamic_bsz` "
            f"({actor.use_dynamic_bsz}) equals `actor_rollout_ref.rollout.log_prob_use_dynamic_bsz` "
            f"({rollout.log_prob_use_dynamic_bsz}); leave the rollout's unset (verl's default follows the actor's)"
        )


@contextlib.contextmanager
def _offline_model_configs() -> Any:
    """verl's HFModelConfig loads the model's config and tokenizer when built (the critic's is built
    during validation): here it is built without them, so validating needs no weights and no network."""
    from verl.workers.config.model import HFModelConfig

    original = HFModelConfig.__post_init__
    HFModelConfig.__post_init__ = lambda self: None  # type: ignore[method-assign]
    try:
        yield
    finally:
        HFModelConfig.__post_init__ = original  # type: ignore[method-assign]


HOME_AT_RUN_TIME = "${oc.env:HOME}"
"""`~` as verl's config reads it where the job runs (OmegaConf's env resolver): a prediction's export, written on a
laptop for a cluster, carried the laptop's home (audit 21 F11)."""


def expand_home(value: Any, home: str | None = None) -> Any:
    """`~/x` and `~user/x` (also inside lists) expanded; a `~` path that cannot be expanded is an error. `home`
    stands for this user's `~` instead of this machine's home (`HOME_AT_RUN_TIME`)."""
    if isinstance(value, list):
        return [expand_home(v, home) for v in value]
    if home is not None and isinstance(value, str) and (value == "~" or value.startswith("~/")):
        return home + value[1:]
    if isinstance(value, str) and value.startswith("~"):
        expanded = os.path.expanduser(value)
        if expanded.startswith("~"):
            raise ValueError(
                f"cannot expand {value!r}: no such user's home here; give an absolute path "
                "(verl runs without a shell and does not expand `~` itself)"
            )
        return expanded
    return value


def env_problems(cfg: Any) -> list[str]:
    """Ray's `runtime_env.env_vars` must map strings to strings (ray.init refuses anything else)."""
    from omegaconf import OmegaConf
    from omegaconf.errors import OmegaConfBaseException

    env = OmegaConf.select(cfg, "ray_kwargs.ray_init.runtime_env.env_vars", default=None)
    if env is None:
        return []
    raw: dict[Any, Any] = OmegaConf.to_container(env, resolve=False)  # type: ignore[assignment]
    unresolved = []
    for name, value in raw.items():
        try:
            OmegaConf.to_container(OmegaConf.create({"v": value}), resolve=True)
        except OmegaConfBaseException:  # `${LD_LIBRARY_PATH}:...`: read as an interpolation of verl's own keys
            unresolved.append(
                f"`ray_kwargs.ray_init.runtime_env.env_vars.{name}`={value!r} holds `${{...}}`, which verl's config "
                "reads as one of its own keys (verl fails at start-up); write the value itself"
            )
    if unresolved:
        return unresolved
    values: dict[Any, Any] = OmegaConf.to_container(env, resolve=True)  # type: ignore[assignment]
    return [
        f"`ray_kwargs.ray_init.runtime_env.env_vars.{name}` must be a string for Ray, got {v!r} "
        f"({type(v).__name__}); quote it: '{v}'"
        for name, v in ((str(k), v) for k, v in values.items())
        if not isinstance(v, str)
    ]


def coerce_ints(flat: dict[str, Any]) -> dict[str, Any]:
    """Whole floats (`3072.0`, from a product with a float knob) as ints where verl's default is an int:
    verl passes token budgets to `range()` and fails on a float at the first step. verl is an optional
    extra: without it, the built-in trainer's schema (the same keys, typed) says which keys are ints."""
    is_int = _int_keys_of_verl() or _int_keys_of_builtin()
    return {k: int(v) if isinstance(v, float) and v.is_integer() and is_int(k) else v for k, v in flat.items()}


def _int_keys_of_verl() -> Callable[[str], bool] | None:
    """Whether verl's default for a key is an int; None when verl (or its config libraries) is not installed."""
    try:
        from omegaconf import OmegaConf

        cfg = defaults_config()
    except (ImportError, VerlNotInstalled):
        return None

    def is_int(key: str) -> bool:
        try:
            default = OmegaConf.select(cfg, key, throw_on_missing=False)
        except Exception:
            return False
        return isinstance(default, int) and not isinstance(default, bool)

    return is_int


def _int_keys_of_builtin() -> Callable[[str], bool]:
    from trainer.config.loader import schema_keys

    keys = schema_keys()

    def is_int(key: str) -> bool:
        spec = keys.get(key)
        return spec is not None and int in (typing.get_args(spec.type) or (spec.type,))

    return is_int


FILE_LISTS = ("data.train_files", "data.val_files")
"""Keys whose default is one path but that take a list of paths too (verl's dataset reads either)."""


CONFIG_CLASS_DIRS = ("workers/config", "trainer/config", "utils/profiler")
"""Where verl 0.9 declares the dataclasses its YAML nodes name in `_target_`."""


@cache
def _dataclass_fields() -> dict[str, tuple[tuple[str, ...], dict[str, str]]]:
    """verl's config dataclasses, read from source without importing verl: class name -> (base names, {field:
    annotation as written})."""
    import ast

    root = config_dir().parent.parent
    classes: dict[str, tuple[tuple[str, ...], dict[str, str]]] = {}
    for folder in CONFIG_CLASS_DIRS:
        for path in sorted((root / folder).glob("*.py")):
            for node in ast.parse(path.read_text(encoding="utf-8")).body:
                if not isinstance(node, ast.ClassDef):
                    continue
                fields = {
                    item.target.id: ast.unparse(item.annotation)
                    for item in node.body
                    if isinstance(item, ast.AnnAssign) and isinstance(item.target, ast.Name)
                }
                bases = tuple(ast.unparse(b).rsplit(".", 1)[-1] for b in node.bases)
                classes.setdefault(node.name, (bases, fields))
    return classes


def _annotation(cls: str, field: str, seen: frozenset[str] = frozenset()) -> str | None:
    """A field's annotation on a verl config class or the nearest base that declares it."""
    classes = _dataclass_fields()
    if cls not in classes or cls in seen:
        return None
    bases, fields = classes[cls]
    if field in fields:
        return fields[field]
    for base in bases:
        found = _annotation(base, field, seen | {cls})
        if found is not None:
            return found
    return None


@cache
def float_keys() -> frozenset[str]:
    """Keys whose YAML default is written as an integer (`entropy_coeff: 0`, `rollout.top_p: 1`) but that verl's
    dataclass declares a float: a value like 0.001 is valid there, though the default's type says int."""
    from omegaconf import OmegaConf

    flat = flatten_tree(OmegaConf.to_container(compose([]), resolve=False))
    out = set()
    for key, value in flat.items():
        if not isinstance(value, int) or isinstance(value, bool) or "." not in key:
            continue
        parent, field = key.rsplit(".", 1)
        target = flat.get(f"{parent}._target_")
        if not isinstance(target, str):
            continue
        annotation = _annotation(target.rsplit(".", 1)[-1], field)
        if annotation is not None and "float" in annotation:
            out.add(key)
    return frozenset(out)


def flatten_tree(node: Any, prefix: str = "") -> dict[str, Any]:
    """A nested config as {dotted key: value}; empty mappings are leaves."""
    if isinstance(node, dict) and node:
        out: dict[str, Any] = {}
        for key, value in node.items():
            out.update(flatten_tree(value, f"{prefix}{key}."))
        return out
    return {prefix[:-1]: node}


_COUNTS = re.compile(r"(micro_batch_size(_per_gpu)?|max_token_len(_per_gpu)?)$")
"""Keys verl slices batches by: integers, whatever their default."""


def check_types(cfg: Any, flat: dict[str, Any]) -> list[str]:
    """Keys whose value's type differs from verl's default (bool vs number vs string vs list), and a float where
    verl counts (micro-batches, token budgets) though its default is null."""
    from omegaconf import OmegaConf

    problems = []
    for key, value in flat.items():
        try:
            default = OmegaConf.select(cfg, key, throw_on_missing=False)
        except Exception:
            continue
        if default is None and isinstance(value, float) and _COUNTS.search(key):  # null: no type to compare with
            # (ints are coerced where verl's default is one); a float fails in verl's batching after Ray and the
            # workers start: "'float' object cannot be interpreted as an integer" (audit 29 F1)
            problems.append(f"`{key}`: verl counts with it, got {value!r}; write an integer")
        if default is None or value is None:
            continue
        if isinstance(default, bool) != isinstance(value, bool):
            problems.append(f"`{key}`: verl expects {type(default).__name__}, got {value!r}")
        elif (
            isinstance(default, (int, float)) and not isinstance(default, bool) and not isinstance(value, (int, float))
        ):
            problems.append(f"`{key}`: verl expects a number, got {value!r}")
        elif (
            isinstance(default, int) and isinstance(value, float) and not value.is_integer() and key not in float_keys()
        ):
            problems.append(f"`{key}`: verl expects an integer, got {value!r}; round it")
        elif (
            isinstance(default, str)
            and not isinstance(value, str)
            and not (key in FILE_LISTS and isinstance(value, list))
        ):
            problems.append(f"`{key}`: verl expects a string, got {value!r}")
    return problems


def check_file(path: Path) -> Any:
    """Compose an exported YAML (defaults: ppo_trainer + _self_) exactly as verl's main_ppo would."""
    from hydra import compose as hydra_compose
    from hydra import initialize_config_dir
    from hydra.core.global_hydra import GlobalHydra
    from hydra.errors import HydraException
    from omegaconf.errors import OmegaConfBaseException

    config_dir()
    GlobalHydra.instance().clear()
    try:
        with initialize_config_dir(config_dir=str(path.parent.resolve()), version_base=None):
            return hydra_compose(config_name=path.stem)
    except (HydraException, OmegaConfBaseException) as exc:
        raise VerlRejected(str(exc).strip().splitlines()[0]) from None
    finally:
        GlobalHydra.instance().clear()


CODE_OPEN_MAPS = ("reward_model.reward_kwargs",)
"""Open maps verl reads though its YAML does not declare them: verl 0.9's reward loop takes
`reward_model.reward_kwargs` (what its DAPO, GSPO and FAPO examples add, `+reward_model.reward_kwargs.overlong_buffer_cfg.*`)
as the reward's `reward_kwargs` (`verl/experimental/reward_loop/reward_loop.py`, its config migration)."""


@cache
def open_maps() -> frozenset[str]:
    """verl's open maps: the mappings of its config whose keys are the user's, which hydra adds to with `+key=value`
    (`actor_rollout_ref.model.override_config: {}`, `actor_rollout_ref.rollout.engine_kwargs.vllm: {}`,
    `data.apply_chat_template_kwargs: {}`: every empty mapping of its default config), and `CODE_OPEN_MAPS`.
    Empty where verl is not installed (the builtin trainer's keys go into none)."""
    try:
        from omegaconf import OmegaConf

        raw = flatten_tree(OmegaConf.to_container(defaults_config(), resolve=False))
    except (ImportError, MissingPart):
        return frozenset()
    return frozenset(k for k, v in raw.items() if v == {}) | frozenset(CODE_OPEN_MAPS)


def open_map(key: str) -> str | None:
    """The open map of verl's (`open_maps`) a key verl does not declare goes into
    (`actor_rollout_ref.model.override_config.max_position_embeddings`: `actor_rollout_ref.model.override_config`),
    or None: such a key is the job's own setting, kept as it is (verl reads the map whole), and added to the map
    with `+` on hydra's command line (`overrides`); in a YAML config it nests under the map."""
    if key.startswith(ENV_PREFIX):
        return None  # the environment, carried on its own (`+`, too)
    parts = key.split(".")
    maps = open_maps()
    return next((".".join(parts[:i]) for i in range(len(parts) - 1, 0, -1) if ".".join(parts[:i]) in maps), None)


def overrides(flat: dict[str, Any]) -> list[str]:
    """Hydra command-line overrides (`+` for keys verl's schema does not declare: the environment's, and a key
    added to one of verl's open maps, `open_map`, which hydra refuses without it)."""
    lines = []
    for key, value in flat.items():
        prefix = "+" if key.startswith(ENV_PREFIX) or open_map(key) is not None else ""
        lines.append(f"{prefix}{key}={hydra_value(value)}")
    return lines


def hydra_value(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return str(value).lower()
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return repr(value) if math.isfinite(value) else str(value)
    if isinstance(value, list):
        return "[" + ",".join(hydra_value(v) for v in value) + "]"
    text = str(value)
    if _reads_as_string(text) and re.fullmatch(r"[\w\-+./@:%]+", text):
        return text
    return "'" + _QUOTE_ESCAPES.sub(_escaped, text) + "'"


_QUOTE_ESCAPES = re.compile(r"(\\*)('|\Z)")
"""A quote, the end of the text (the closing quote follows), and the backslashes before either: the only places
hydra's quoted strings read backslashes as escapes; a backslash elsewhere is itself (`'a\\nb'` reads back with both
backslashes, so doubling every backslash changed a chat template's `\\n` in every trial: audit 39 F7)."""


def _escaped(match: re.Match[str]) -> str:
    return match.group(1) * 2 + ("\\'" if match.group(2) else "")


def _reads_as_string(text: str) -> bool:
    """Whether hydra would read this unquoted text back as the same string (not `16`, `true`, `null`)."""
    if text.lower() in ("null", "true", "false", "nan", "inf", "-inf", "+inf"):
        return False
    try:
        float(text.replace("_", "x"))
    except ValueError:
        return True
    return False


def render_yaml(flat: dict[str, Any], header: list[str]) -> str:
    body = {"hydra": {"searchpath": ["pkg://verl.trainer.config"]}, "defaults": ["ppo_trainer", "_self_"]}
    body.update(to_nested(flat))
    comments = "".join(f"# {line}\n" for line in header)
    return comments + yaml.dump(body, Dumper=_hydra_dumper(), sort_keys=False)


@cache
def _hydra_dumper() -> type[yaml.SafeDumper]:
    """PyYAML's safe dumper quoting every string hydra would read as something else: OmegaConf's loader reads
    `1e3` as a float where PyYAML's reads a string, so an env value `1e3` came back 1000.0 (audit 29 F4)."""
    from omegaconf._utils import get_yaml_loader

    class HydraDumper(yaml.SafeDumper):
        yaml_implicit_resolvers = get_yaml_loader().yaml_implicit_resolvers

    return HydraDumper


SHELL_VAR = re.compile(r"\$(?:\{(\w+)(?::?-)?|(\w+)|([@*]))")
"""Where a shell variable starts in a run script's value: `$NAME`, `${NAME}`, `${NAME:-default}` (or `-`), `$@`/`$*`."""

ENTRY = "verl.trainer.main_ppo"
"""The module a verl PPO job runs (`python3 -m verl.trainer.main_ppo key=value ...`)."""

NO_WAIT = "--no-wait"
"""`ray job submit`'s flag to return once the job is submitted, not when it ends: a launcher of trials must not
have it (a trial is measured as its command runs, and ends when it ends)."""


def runs_verl(text: str) -> bool:
    """A run script or command line: it runs verl on a line that is not a comment (an exported YAML names the
    command in its header comment). `autotune init` and `calibrate --verl-config` tell a script from a config so."""
    return any(ENTRY in without_comment(line) for line in text.splitlines())


SCRIPT_ARGUMENTS = re.compile(r'"?\$(?:[@*]|\{[@*](?::\d+)?\})"?')
"""A run script's word that hands the script's own arguments to its command: `$@`, `"${@}"`, `${@:2}`, `$*`."""


def shell_chars(line: str) -> Iterator[tuple[int, str, str]]:
    """(index, character, where) of each character of a run script line, as bash reads it: where is `""` outside
    quotes, `'` or `"` inside them, `\\` for an escaped character, and `syntax` for the quote marks and the
    escaping backslashes themselves."""
    quote, escaped = "", False
    for i, ch in enumerate(line):
        if escaped:
            escaped = False
            yield i, ch, "\\"
        elif ch == "\\" and quote != "'":
            escaped = True
            yield i, ch, "syntax"
        elif quote:
            yield i, ch, "syntax" if ch == quote else quote
            quote = "" if ch == quote else quote
        elif ch in "'\"":
            quote = ch
            yield i, ch, "syntax"
        else:
            yield i, ch, ""


def unquoted(line: str) -> Iterator[tuple[int, str]]:
    """(index, character) of a run script line's characters outside quotes and not escaped: where bash reads
    syntax (a comment's `#`, a `;` between commands)."""
    return ((i, ch) for i, ch, where in shell_chars(line) if where == "")


def without_comment(line: str) -> str:
    """A run script's line up to its comment, as bash reads one: a `#` that starts a word, outside quotes
    (`name=run#3` is one word: shlex's comments=True cut the line there, and with it every override after)."""
    previous = (-2, " ")
    for i, ch in unquoted(line):
        if ch == "#" and (i == 0 or (previous[0] == i - 1 and previous[1].isspace())):
            return line[:i]
        previous = (i, ch)
    return line


def substitute(
    value: str, variables: dict[str, str], unset: set[str] | None = None, special: dict[str, str] | None = None
) -> str:
    """`value` with a run script's variables filled in, as the shell would: `$@`/`$*` (the script's own
    arguments, which a reader of the script does not have) as nothing, `${NAME:-default}` as its default
    (itself filled in: `${DATA:-${HOME}/data}`, verl's recipes' style) when the script does not set NAME,
    `special` names (e.g. HOME) by their stand-ins; any other unset name is left as written and added to
    `unset`, as is a form this reader does not know (`${NAME#prefix}`). One reader of scripts for `init`
    and `calibrate`."""
    out, i = [], 0
    while (match := SHELL_VAR.search(value, i)) is not None:
        out.append(value[i : match.start()])
        i = match.end()
        name = match.group(1) or match.group(2)
        if match.group(3):
            continue
        default: str | None = None
        if match.group(1):  # ${...}: up to its matching brace
            close = _closing_brace(value, match.start() + 1)
            if close is None or (match.end() != close and not match.group(0).endswith("-")):
                out.append(match.group(0))  # unclosed, or another form: as written
                continue
            if match.group(0).endswith("-"):
                default = value[match.end() : close]
            i = close + 1
        if name in variables and (variables[name] or default is None or not match.group(0).endswith(":-")):
            out.append(variables[name])  # `${X:-d}` takes the default when X is empty too (`${X-d}` only when unset)
        elif special and name in special:
            out.append(special[name])
        elif default is not None:
            out.append(substitute(default, variables, unset, special))
        else:
            if unset is not None:
                unset.add(name)
            out.append(value[match.start() : i])
    out.append(value[i:])
    return "".join(out)


def _closing_brace(value: str, at: int) -> int | None:
    """The index of the `}` closing the `{` at `at` (nested `${...}` counted), None when it is not closed."""
    depth = 0
    for j in range(at, len(value)):
        if value[j] == "{":
            depth += 1
        elif value[j] == "}":
            depth -= 1
            if depth == 0:
                return j
    return None
