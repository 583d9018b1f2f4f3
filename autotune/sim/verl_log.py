"""Calibrating the cost model from real verl runs: console logs plus each run's overrides or config.

`autotune calibrate --verl-log run.log --verl-config run.yaml [--verl-log ... --verl-config ...] --gpu H100`
reads every `step:N - key:value - ...` line of each log (verl's console logger; older logs say `timing/`
where newer ones say `timing_s/`, and wrap numbers as `np.float64(...)`), takes the median of each phase
after the first (warm-up) step, and pairs it with the run's config: a YAML file (nested or dotted keys,
as verl's own config), a text file of Hydra overrides (`key=value`, one or more per line, `+` prefixes
and `\\` continuations allowed), or a run script, read as `autotune init` reads it (this floor has no script
reader of its own: `autotune.scaffold.run_config` hands it the script as a `RunConfig`), layered on verl's
defaults. The mean prompt and response lengths come from the log itself, kept for each run with its job
(`model.JOB_KEYS`: a sweep of that job predicts at them) and as their mean. The fit keeps the run's own GPU, so
the calibrated sweep predicts for that device.

A log without `timing_s/update_weights` timed the weight sync inside `timing_s/gen` (verl ≤ 0.4), and one
without `timing_s/old_log_prob` also the old log-prob pass (verl of 2024); the fit accounts for both.
Environment variables set in an overrides file (`export VLLM_ATTENTION_BACKEND=XFORMERS`), or a run script's
environment as `init` reads it, are the run's environment, and the vLLM version comes from vLLM's own start-up
line when the log has it ("Initializing an LLM engine (v0.6.3) ...").

Before anything is fitted each config is checked, because a wrong one fits a run that never was without a
word: a key verl does not have (a typo: the fit takes verl's default for the key meant) is refused with the
closest key verl has (`+key=value`, hydra's way to add a key, stays allowed, as verl allows it), and so is a
config without the model (the fit would size verl's default model). After the fit, an in-sample error above
`POOR_FIT` is warned of: the runs and what the fit was told about them (GPU, config) disagree.
"""

from __future__ import annotations

import collections
import dataclasses
import hashlib
import re
import statistics
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from autotune.adapters.verl_config import (
    ENTRY,
    ENV_PREFIX,
    SCRIPT_ARGUMENTS,
    SHELL_VAR,
    runs_verl,
    substitute,
    without_comment,
)
from autotune.sim.fit import (
    POOR_FIT,
    Observation,
    fit_weights,
    leave_one_out,
    phase_seconds,
    published_prediction,
    relative_errors,
)
from autotune.sim.hardware import Device, cluster, device_to_json
from autotune.sim.model import PHASE_METRICS, CostModel, default_weights, job_of
from autotune.sim.workload import PRESETS, find_shape, gpus_per_node, has_critic, shape_words, spread_from_longest
from verl_keys.keys import suggest_key

_ENV_KEY = re.compile(r"[A-Z][A-Z0-9_]*")
_VLLM_VERSION = re.compile(r"Initializing an? (?:V\d )?LLM engine \(v(\d+\.\d+[\w.+]*)\)")
FITTED_PHASES = ("gen", "old_log_prob", "ref", "values", "update_critic", "update_actor", "update_weights")
MODEL_KEY = "actor_rollout_ref.model.path"


def parse_steps(text: str) -> list[dict[str, float]]:
    """Every training step of a verl console log as {metric: value} (with `step`), read as a trial's console is
    (`ConsoleParser`: Ray's prefixes, ANSI colours, lines wrapped by a log collector joined; a one-line reader lost
    what followed a wrap, audit 21 F20). A last step cut off mid-record is left out (`cut_step`)."""
    rows = _steps(text)
    return rows[:-1] if cut_step(rows, text) is not None else rows


def _steps(text: str) -> list[dict[str, float]]:
    from autotune.adapters.verl_console import ConsoleParser

    parser = ConsoleParser()
    parser.feed(text)
    parser.close()
    rows = []
    for step, metrics in parser.records():
        row = {"step": float(step)}
        for key, value in metrics.items():
            row[key.replace("timing/", "timing_s/", 1) if key.startswith("timing/") else key] = value
        if any(k.startswith("timing_s/") for k in row):
            rows.append(row)
    return rows


def cut_step(rows: list[dict[str, float]], text: str = "") -> int | None:
    """The last step's number when it lacks a metric every earlier step has: the log ends inside its line (a
    copy cut short), so its last value may be cut too (`update_actor:3` for 30.7 s, taken as a step). A lone step
    has no others to compare with: cut when the log (`text`) ends inside its line before the step's total time
    (`timing_s/step`, which every verl step logs after its phases); it was fitted, and the phases the cut left
    out were blamed on the config (audit 28 F8)."""
    if len(rows) == 1:
        inside = bool(text) and not text.endswith("\n") and "timing_s/step" not in rows[0]
        return int(rows[0]["step"]) if inside else None
    if len(rows) < 2:
        return None
    common = set.intersection(*(set(r) for r in rows[:-1]))
    return int(rows[-1]["step"]) if common - set(rows[-1]) else None


def step_medians(rows: list[dict[str, float]]) -> dict[str, float]:
    """Median of every metric over the steps after the log's first (all steps when there are no others): the first
    carries the run's start-up, whatever its number (a resumed run's first is step:51, which was kept; audit 21 F22)."""
    first = min((r["step"] for r in rows), default=0.0)
    kept = [r for r in rows if r["step"] > first] or rows
    keys = {k for r in kept for k in r}
    return {k: float(statistics.median(r[k] for r in kept if k in r)) for k in keys}


def shape_warnings(log: str | Path) -> list[str]:
    """What makes a log other than one run past its first step, fitted anyway (the user may know better): a lone
    step (its time carries the start-up the median after step 1 leaves out), or step numbers that repeat (runs
    pasted into one file, or a resumed one): both were fitted without a word."""
    text = Path(log).read_text(errors="replace")
    rows = _steps(text)
    out = []
    cut = cut_step(rows, text)
    if cut is not None:
        lacks = "lacks metrics the others have" if len(rows) > 1 else "ends inside its line, before timing_s/step"
        rows = rows[:-1]
        out.append(f"{log}: its last step (step:{cut}) {lacks}: cut short? it is left out")
    steps = [int(r["step"]) for r in rows]
    if steps and len(set(steps)) == 1:
        out.append(
            f"{log}: one step (step:{steps[0]}) only: its time carries the run's start-up, which the median after the "
            "first step leaves out; a log of 3 steps or more fits better"
        )
    repeated = sorted(n for n, count in collections.Counter(steps).items() if count > 1)
    if repeated and len(set(steps)) > 1:
        shown = ", ".join(f"step:{n}" for n in repeated[:3]) + (" ..." if len(repeated) > 3 else "")
        out.append(
            f"{log}: step numbers repeat ({shown}): several runs in one file, or a resumed run? it is fitted as one "
            "run; give each run its own --verl-log with its own --verl-config"
        )
    return out


def _overrides(text: str, keep_plus: bool = False) -> list[tuple[str, str]]:
    """`key=value` tokens of an overrides file or run script (continuations joined, `+` prefixes dropped
    unless `keep_plus`)."""
    pairs = []
    lines = text.replace("\\\n", " ").splitlines()  # a commented-out override is not the run's
    for token in " ".join(without_comment(line) for line in lines).split():
        if "=" not in token or token.startswith(("-", "$")):
            continue
        key, value = (token if keep_plus else token.lstrip("+")).split("=", 1)
        pairs.append((key, value.strip("'\"")))
    return pairs


def _is_overrides(text: str) -> bool:
    """`key=value` overrides or a run script, not YAML: a token sets a dotted verl key (`data.x=1`). (A `:`
    before the first `=` was the test: a `# Usage: ...` header made an overrides file read as YAML.)"""
    body = "\n".join(line for line in text.splitlines() if not line.lstrip().startswith("#"))
    return _DOTTED.search(body) is not None


_DOTTED = re.compile(r"(?:^|\s)\+{0,2}[A-Za-z_]\w*(?:\.\w+)+=")


def read_env(path: str | Path) -> dict[str, str]:
    """Environment variables an overrides file gives the run (`export NAME=value`, `NAME=value`). A NAME the file
    uses as `$NAME` is its own shell variable (`TBS=256` for `data.train_batch_size=$TBS`), which the run does not
    see, unless exported or set before the command on its line. (A run script's environment is what `init` reads
    in it: `RunConfig.env`.)"""
    text = Path(path).read_text()
    if not _is_overrides(text):
        return {}
    joined = text.replace("\\\n", " ")
    used = {m.group(1) or m.group(2) for m in SHELL_VAR.finditer(joined) if m.group(3) is None}
    given: set[str] = set()  # exported, or set for the command on its line
    for line in joined.splitlines():
        tokens = line.split()
        names = [t.split("=", 1)[0] for t in tokens[1:]] if tokens[:1] == ["export"] else []
        for i, token in enumerate(tokens):
            if not names and "=" not in token:  # NAME=value ... command: the leading assignments
                names = [t.split("=", 1)[0] for t in tokens[:i]]
                break
        given.update(names)
    return {
        key: value for key, value in _overrides(text) if _ENV_KEY.fullmatch(key) and (key not in used or key in given)
    }


HOME = {"HOME": "~"}
"""`$HOME` in a run script, read as `init` writes it: a path the cost model does not read (it was refused as unset)."""


@dataclass
class RunConfig:
    """A run's `--verl-config` as the fit reads it: the keys it sets as flat verl keys, and its environment.
    `load_config` reads a YAML config or an overrides file; a run script is read as `autotune init` reads it
    (`autotune.scaffold.run_config`, a floor above), which hands the fit this."""

    path: str
    flat: dict[str, Any]
    env: dict[str, str] = dataclasses.field(default_factory=dict)
    checked: tuple[str, ...] = ()
    """The keys that must be verl's: not a `+key=value` addition, nor an overrides file's shell variable."""
    dump: bool = False
    """verl's YAML, perhaps of an older verl whose keys were since renamed: its unknown keys are warned of only."""
    passes: str | None = None
    """The `$@` (or `$*`, `"${@}"`, `${@:2}`) a run script hands its own arguments to verl with, if any."""
    lines: dict[str, int] = dataclasses.field(default_factory=dict)
    """The line (from 1) that sets each key, where it is known: a refusal names it."""
    said: tuple[str, ...] = ()
    """What the script's reader read otherwise than bash runs it (Windows line ends, an argument's default): warned of."""

    def at(self, key: str) -> str:
        line = self.lines.get(key)
        return f"{self.path}:{line}" if line else self.path


SCRIPT = "script"
NEITHER = "neither"


def config_kind(text: str, path: str | Path) -> str:
    """How a `--verl-config` is read: `SCRIPT` (it runs verl on a line that is no comment: read as `init` reads
    it), "overrides" (`key=value` words), "yaml", or `NEITHER` (no overrides, and YAML that is no mapping: a shell
    file without verl's command, which `init` refuses). An autotune search space is refused."""
    try:
        raw = yaml.safe_load(text)
    except yaml.YAMLError:
        raw = ...  # refused by `load_config`, naming YAML's problem
    if isinstance(raw, dict) and isinstance(raw.get("base"), dict) and {"params", "baseline", "trainer"} & set(raw):
        raise ValueError(  # it was refused for "not setting" the model its `base:` sets (audit 21 F14)
            f"--verl-config {path}: an autotune search space, not the run's config; give the run's script, its "
            "overrides or verl's YAML config (the file `autotune init` read, not the space it wrote)"
        )
    if runs_verl(text):
        return SCRIPT
    if _is_overrides(text):
        return "overrides"
    return "yaml" if raw is ... or raw is None or isinstance(raw, dict) else NEITHER


def read_config(path: str | Path) -> dict[str, Any]:
    """A run's config, YAML (nested or dotted keys) or Hydra overrides (`key=value`), as flat verl keys."""
    return load_config(path).flat


def load_config(path: str | Path) -> RunConfig:
    """A run's YAML config or overrides file. A run script is refused here: it is read as `autotune init` reads it
    (`autotune.scaffold.run_config.read_run_config`, which `autotune calibrate` uses), not by a reader of its own
    (one took every `NAME=value` word of the file, other commands' too, and both of two verl commands, audit 36)."""
    from verl_keys.keys import to_flat_dict

    text = Path(path).read_text()
    kind = config_kind(text, path)
    if kind == SCRIPT:
        raise ValueError(
            f"--verl-config {path}: a run script (it runs {ENTRY}): read it as `autotune init` does, with "
            "autotune.scaffold.run_config.read_run_config (as `autotune calibrate` does)"
        )
    if kind == "overrides":
        flat: dict[str, Any] = {}
        pairs = _overrides(text, keep_plus=True)
        variables: dict[str, str] = {}
        for key, value in pairs:
            if _ENV_KEY.fullmatch(key):
                variables[key] = substitute(value, variables, special=HOME)
        added = set()
        for plus_key, value in pairs:
            key = plus_key.lstrip("+")
            if _ENV_KEY.fullmatch(key):
                continue  # an environment variable of the run (read_env)
            if plus_key.startswith("+"):
                added.add(key)
            value = substitute(value, variables, special=HOME)
            if "$" in value:  # as a value it would be read as text ("invalid literal for int(): '$TBS'")
                raise ValueError(
                    f"{path}: `{key}={value}` uses a shell variable the file does not set; write its value "
                    "(or give the overrides the run printed)"
                )
            try:
                flat[key] = value if value.startswith("~") else yaml.safe_load(value)  # YAML reads a bare `~` as null
            except yaml.YAMLError:
                flat[key] = value
        checked = tuple(k for k in flat if k not in added and "." in k)  # `train_path=...`: a shell variable
        return RunConfig(str(path), flat, read_env(path), checked, passes=_passes_arguments(text))
    try:
        raw = yaml.safe_load(text) or {}
    except yaml.YAMLError as exc:
        problem = str(exc).splitlines()[0]
        raise ValueError(f"{path}: neither `key=value` overrides nor a YAML config ({problem})") from None
    if not isinstance(raw, dict):
        raise ValueError(f"{path}: a config is a YAML mapping or `key=value` overrides, got {type(raw).__name__}")
    flat = to_flat_dict(raw)
    return RunConfig(str(path), flat, {}, tuple(flat), dump=True)


def check_files(log: str | Path, config: str | Path) -> None:
    """Both files of a pair are there, checked before either is read: the message names the one missing."""
    for path, option in ((log, "--verl-log"), (config, "--verl-config")):
        if Path(path).is_dir():  # it said "no such file" of a folder that is there
            raise ValueError(f"{option} {path}: a folder, not a file (give the run's file in it)")
        if not Path(path).is_file():
            raise ValueError(f"{option} {path}: no such file (give the run's console log and its overrides or config)")


def check_config(config: str | Path | RunConfig, known: dict[str, Any], model: str | None = None) -> list[str]:
    """Refuse a config the fit would misread: an override of a key verl does not have, or no model (unless
    `model` names it). `known` is verl's keys with their defaults (the verl adapter's `keys()`, which `autotune
    validate` checks a space's keys against). A YAML config is verl's own dump, perhaps of an older verl whose
    keys were since renamed: its unknown keys are returned as a warning, not refused."""
    config = config if isinstance(config, RunConfig) else load_config(config)
    path = config.path
    unknown = [key for key in config.checked if not _verl_has(key, known)]
    if unknown and not config.dump:
        hint = suggest_key(unknown[0], known)
        raise ValueError(
            f"--verl-config {config.at(unknown[0])}: verl has no key `{unknown[0]}`"
            + (f"; did you mean `{hint}`?" if hint else "")
            + " (fix its name, or write `+KEY=VALUE` if the run added it)"
        )
    if model is None:
        _check_model(path, config.flat.get(MODEL_KEY))
    warnings = [f"--verl-config {said}" for said in config.said]
    if config.passes:  # dropped unsaid (audit 21 F19)
        warnings.append(
            f"--verl-config {path}: the script passes its own arguments to verl (`{config.passes}`), which are not in "
            "the file: overrides the run was started with are read as the script's values; if it was started with "
            "some, give the overrides the run printed instead"
        )
    if not unknown:
        return warnings
    shown = ", ".join(f"`{k}`" for k in unknown[:3]) + (f" and {len(unknown) - 3} more" if len(unknown) > 3 else "")
    return [
        f"--verl-config {path}: {len(unknown)} key(s) this verl does not have ({shown}): read as verl's defaults "
        "for the keys meant; a dump of an older verl renames some, a typo would misfit the run",
        *warnings,
    ]


def _passes_arguments(text: str) -> str | None:
    """The `$@` (or `$*`, `"${@}"`, `${@:2}`) an overrides file hands the script's arguments on with, if any."""
    lines = text.replace("\\\n", " ").splitlines()
    for token in " ".join(without_comment(line) for line in lines).split():
        if SCRIPT_ARGUMENTS.fullmatch(token):
            return token
    return None


def _verl_has(key: str, known: dict[str, Any]) -> bool:
    """A key verl declares, a `_target_` of its dumped config, or one inside a mapping verl leaves open
    (`override_config`, `engine_kwargs`, the Ray workers' environment)."""
    if key in known or key.endswith("._target_") or key.startswith(ENV_PREFIX):
        return True
    parts = key.split(".")
    above = (known.get(".".join(parts[:i])) for i in range(1, len(parts)))
    return any(info is not None and info.default in ({}, None) for info in above)


def _check_model(path: str | Path, value: Any) -> None:
    """The fit needs the model's size only (its config.json, or a preset a hub id names), never its weights."""
    fix = (
        f"set `{MODEL_KEY}` to the run's model: the hub id it used naming a preset ({', '.join(PRESETS)}; "
        "e.g. Qwen/Qwen2.5-7B-Instruct) or a local folder or config.json of the model (only its size is read)"
    )
    if value is None:
        raise ValueError(f"--verl-config {path}: does not set `{MODEL_KEY}`, the model whose size the fit needs; {fix}")
    try:
        find_shape(str(value), {})
    except ValueError:
        raise ValueError(
            f"--verl-config {path}: `{MODEL_KEY}={value}` is no model folder or config.json here and names no preset; "
            + fix
        ) from None


@dataclass
class LoggedRun:
    name: str
    flat: dict[str, Any]
    env: dict[str, str]
    world: int
    measured: dict[str, float]
    prompt_tokens: float
    response_tokens: float
    includes: dict[str, tuple[str, ...]]
    response_spread: float | None = None
    """From the log's longest and mean response (None: the model's default)."""
    vllm_version: str | None = None
    """From vLLM's start-up line in the log (None: not logged)."""
    verl_version: str | None = None
    """"0.5" (before 0.7) when the log times the weight sync inside `gen`, as verl did before its engine workers
    (0.7) and through mid 2025; None (a current verl) otherwise."""


def logged_run(
    log: str | Path,
    config: str | Path | RunConfig,
    resolve: Callable[[dict[str, Any]], dict[str, Any]],
    env: dict[str, str] | None = None,
) -> LoggedRun:
    """A run's log and config (a file `load_config` reads, or a run script as `init` read it); `resolve` turns the
    config's keys into every key's value as verl ran them (`adapters.verl.resolved_config`: verl's defaults and
    interpolations), as a simulated trial's are."""
    check_files(log, config.path if isinstance(config, RunConfig) else config)
    config = config if isinstance(config, RunConfig) else load_config(config)
    text = Path(log).read_text(errors="replace")
    rows = parse_steps(text)
    if not rows and _steps(text):  # its one step cut inside its line (audit 28 F8)
        raise ValueError(
            f"{log}: its only step ends inside its line, before timing_s/step: the copy was cut short; give the whole "
            "log (several steps: the first carries the run's start-up)"
        )
    if not rows:
        raise ValueError(f"{log}: no `step:N - timing_s/...` lines (verl's console logger writes them)")
    medians = step_medians(rows)
    flat = resolve(config.flat)
    world = int(flat.get("trainer.n_gpus_per_node") or 1) * int(flat.get("trainer.nnodes") or 1)
    measured = {p: medians[f"timing_s/{p}"] for p in FITTED_PHASES if f"timing_s/{p}" in medians}
    parts = ("gen",) + (() if "update_weights" in measured else ("update_weights",))
    parts += () if "old_log_prob" in measured else ("old_log_prob",)
    for key in ("prompt_length/mean", "response_length/mean"):
        if key not in medians:
            raise ValueError(f"{log}: no `{key}` in its step lines; the fit needs the run's measured lengths")
    responses = int(flat.get("data.train_batch_size") or 1) * int(flat.get("actor_rollout_ref.rollout.n") or 1)
    longest = medians.get("response_length/max")
    spread = None if longest is None else spread_from_longest(medians["response_length/mean"], longest, responses)
    version = _VLLM_VERSION.search(text)
    return LoggedRun(Path(log).stem, flat, {**config.env, **(env or {})}, world, measured,
                     medians["prompt_length/mean"], medians["response_length/mean"], {"gen": parts}, spread,
                     version.group(1) if version else None,
                     None if "update_weights" in measured else "0.5")  # fmt: skip


NOT_RUN_BECAUSE = {
    "ref": "no reference pass: actor_rollout_ref.actor.use_kl_loss and algorithm.use_kl_in_reward are both off",
    "values": "no critic: critic.enable is off, or unset with an algorithm.adv_estimator other than gae",
    "update_critic": "no critic: critic.enable is off, or unset with an algorithm.adv_estimator other than gae",
    "old_log_prob": "the config skips the old log-prob pass",
}
"""Why verl's config runs no such pass, for a log that times one anyway."""


def log_observation(run: LoggedRun, gpu: str | Device, model: str | None = None) -> tuple[Observation, Device]:
    """The run as the fit sees it: the cost model's features for its resolved config on `gpu`, and its measured
    phases; the same features a simulated trial of the run's space gets (a test holds the two equal)."""
    shape = find_shape(model or run.flat.get("actor_rollout_ref.model.path"), run.flat)
    # the run's own layout: a 2 x 4 log was fitted as 1 x 8 (audit 36 F3)
    cost = CostModel(cluster(gpu, run.world, gpus_per_node(run.flat, run.world)), shape, prompt_tokens=run.prompt_tokens,
                     response_tokens=run.response_tokens, response_spread=run.response_spread,
                     vllm_version=run.vllm_version, verl_version=run.verl_version)  # fmt: skip
    _, features = cost.features(run.flat, run.env, run.world)
    return Observation(run.name, features, run.measured, run.includes), cost.cluster.device


def calibrate_from_logs(
    runs: list[LoggedRun], gpu: str | Device, model: str | None = None, ridge: float = 0.3
) -> dict[str, Any]:
    """Weights fitted on the runs (on their GPU), with each run's leave-one-out error when there are 3 or more."""
    if not runs:
        raise ValueError("calibration from logs needs at least one --verl-log")
    observations = []
    mismatched: list[str] = []
    device = None
    for run in runs:
        observation, device = log_observation(run, gpu, model)
        absent = [p for p, s in published_prediction(default_weights(), observation).items() if s <= 0]
        for phase in absent:  # the log times a pass its config does not run: the two do not belong together
            mismatched.append(
                f"{run.name}: the log times `{phase}`, which its config does not run "
                f"({NOT_RUN_BECAUSE.get(phase, 'see the config')}); is --verl-config this run's config? "
                "The phase is left out of the fit"
            )
        measured = {p: s for p, s in run.measured.items() if p not in absent}
        observations.append(dataclasses.replace(observation, measured=measured))
    defaults = default_weights()
    weights = fit_weights(observations, defaults, ridge)
    by_phase: dict[str, list[float]] = {}
    for o in observations:
        for phase, e in relative_errors(published_prediction(weights, o), o.measured).items():
            by_phase.setdefault(phase, []).append(e)
    fit_err = [abs(e) for errs in by_phase.values() for e in errs]
    for run, o in zip(runs, observations, strict=True):  # phases the config runs that the log does not time
        inside_gen = o.parts("gen") if "gen" in o.measured else ()  # parts timed in `gen` (audit 32 F11)
        untimed = [
            p for p in FITTED_PHASES
            if p not in o.measured and p not in inside_gen and phase_seconds(defaults, o.features.get(p, {}), p) > 0
        ]  # fmt: skip
        if untimed:
            mismatched.append(
                f"{run.name}: its config runs {', '.join(f'`{p}`' for p in untimed)}, which the log does not time "
                "(no `timing_s/...`): the fit leaves them at the shipped weights"
            )
    spreads = [r.response_spread for r in runs if r.response_spread is not None]
    result: dict[str, Any] = {
        "weights": weights,
        "device": device_to_json(device) if device else None,
        "gpu": device.name if device else None,
        "prompt_tokens": statistics.fmean(r.prompt_tokens for r in runs),
        "response_tokens": statistics.fmean(r.response_tokens for r in runs),
        "param_bytes": 2,
        "source": f"fitted on {len(runs)} verl log(s): {', '.join(r.name for r in runs)}",
        "trials": [r.name for r in runs],
        "phases": [p for p in PHASE_METRICS if any(p in o.measured for o in observations)],
        "fit_error_median": statistics.median(fit_err) if fit_err else None,
        "phase_errors": {p: statistics.median(errs) for p, errs in by_phase.items()},  # signed, in sample
        "error_of": "phase",  # a log's phases each against the fit's (a study's calibration: each trial's step time)
        "mismatched": mismatched,
        # what the fit was conditioned on besides the config: a sweep with this calibration predicts with them
        # (it predicted a calibrated job's own generation other than its fit does, with a later vLLM and a guessed
        # longest response); a version only when every run logged the same one
        "response_spread": statistics.fmean(spreads) if spreads else None,
        "runs": [_run_words(r, model) for r in runs],  # what each run was, with its own lengths
        "vllm_version": _one({r.vllm_version for r in runs}),
        "verl_version": _one({r.verl_version for r in runs}),
    }
    if len(observations) >= 3:
        loo = leave_one_out(observations, defaults, ridge)
        errors = {o.name: relative_errors(loo[o.name], o.measured) for o in observations}
        flat_errors = [abs(e) for errs in errors.values() for e in errs.values()]
        result["holdout_errors"] = errors
        result["holdout_error_median"] = statistics.median(flat_errors) if flat_errors else None
    return result


def _run_words(run: LoggedRun, model: str | None) -> dict[str, Any]:
    """What the run was (`model.CalibratedRun`): a sweep says where it predicts another, and predicts a space of
    the run's job (`model.JOB_KEYS`) at the run's own lengths, not at the mean over the runs (audit 32 F6)."""
    shape = find_shape(model or run.flat.get(MODEL_KEY), run.flat)
    return {"name": run.name, "model": shape_words(shape), "critic": has_critic(run.flat), "gpus": run.world,
            "job": job_of(run.flat), "prompt_tokens": run.prompt_tokens, "response_tokens": run.response_tokens,
            "response_spread": run.response_spread}  # fmt: skip


def _one(values: set[str | None]) -> str | None:
    """The runs' one value, or None when they differ (or none was logged)."""
    return next(iter(values)) if len(values) == 1 else None


def calibrate_logs_to_file(
    logs: list[Path],
    configs: list[Path],
    gpu: str | None,
    model: str | None,
    output: Path | None,
    read: Callable[[Path], RunConfig] = load_config,
) -> tuple[Path, list[str]]:
    """The `autotune calibrate --verl-log` command: fit, write the calibration, and say how good it is. `read`
    reads each config (`load_config`: YAML or overrides; the command's reads a run script as `init` does too)."""
    import json

    from autotune.adapters import get_adapter

    if len(logs) != len(configs):
        raise ValueError(
            f"--verl-log and --verl-config pair up: got {len(logs)} log(s) and {len(configs)} config(s); "
            "give each log the overrides or config file of its run"
        )
    for log, config in zip(logs, configs, strict=True):
        check_files(log, config)
    verl = get_adapter("verl")
    known = verl.keys()
    unknown: list[str] = []
    seen: dict[str, Path] = {}
    pairs = []
    for log, config in zip(logs, configs, strict=True):  # one run given twice counted as two (audit 21 F18)
        digest = hashlib.sha256(Path(log).read_bytes()).hexdigest()
        if digest in seen:
            unknown.append(f"{log}: the same log as {seen[digest]}, given again: fitted once")
            continue
        seen[digest] = Path(log)
        pairs.append((log, config))
    read_pairs = []
    for log, config in pairs:
        run_config = read(config)
        unknown += check_config(run_config, known, model)
        unknown += shape_warnings(log)
        read_pairs.append((log, run_config))
    runs = [logged_run(log, config, lambda keys: verl.resolved([], keys)) for log, config in read_pairs]
    result = calibrate_from_logs(runs, gpu or "H100", model)
    out = output or Path("calibration.json")
    out.write_text(json.dumps(result, indent=2, default=str))
    lines = [
        f"fitted on {len(runs)} run(s) on {result['gpu']}: median phase error {result['fit_error_median']:.1%} (in sample)"
    ]
    errors = result["phase_errors"]
    if errors:  # one median hid a phase off by half (audit 21 F3)
        over = " (median over the runs)" if len(runs) > 1 else ""
        lines.append(f"in sample, per phase{over}: " + ", ".join(f"{p} {e:+.0%}" for p, e in errors.items()))
    if result["fit_error_median"] is not None and result["fit_error_median"] > POOR_FIT:
        lines.append(poor_fit_warning(result["fit_error_median"], result["gpu"]))
    elif errors and max(abs(e) for e in errors.values()) > POOR_FIT:
        phase, e = max(errors.items(), key=lambda item: abs(item[1]))
        lines.append(
            f"warning: the fit misses `{phase}` by {e:+.0%} on its own run{'s' if len(runs) > 1 else ''} (the median "
            f"phase error hides it): predictions of {phase} will be as far off; is --gpu {result['gpu']} the runs' GPU?"
        )
    if gpu is None:
        lines.insert(0, "no --gpu: taking the runs to be on H100 SXM (pass --gpu PRESET or --gpu my_gpu.yaml)")
    lines[:0] = [f"warning: {line}" for line in unknown + result["mismatched"]]
    if result.get("holdout_error_median") is not None:
        lines.append(f"leave-one-out: median phase error {result['holdout_error_median']:.1%}; each run left out:")
        lines += left_out_lines(result["holdout_errors"], result["gpu"])
        if result["holdout_error_median"] > POOR_FIT:  # as a study's calibration warns of its held-back error
            lines.append(
                f"warning: a fit on the other runs misses each run's phases by {result['holdout_error_median']:.0%} "
                "(median): it does not carry to a run it did not see; more runs, alike in model and hardware, help"
            )
    lines.append(f"wrote {out}; use it with: autotune run --space ... --fidelity sim --calibration {out}")
    return out, lines


def left_out_lines(errors: dict[str, dict[str, float]], gpu: str) -> list[str]:
    """Each run as a fit on the others predicts it (its median |phase error| and its worst phase), and a warning
    for each missed by more than `POOR_FIT`: an H20 run among H100 ones, missed by 66%, hid under the median of
    all the runs' phases (audit 32 F7)."""
    lines, warnings = [], []
    for name, phases in errors.items():
        if not phases:
            continue
        median = statistics.median(abs(e) for e in phases.values())
        worst, e = max(phases.items(), key=lambda item: abs(item[1]))
        lines.append(f"  {name}: median {median:.1%}, worst {worst} {e:+.0%}")
        if median > POOR_FIT:
            warnings.append(
                f"warning: a fit on the other runs misses {name} by {median:.0%} (median; {worst} {e:+.0%}): is it on "
                f"--gpu {gpu}, and is its --verl-config its own? A run on another GPU, or with another config, is one "
                "cause"
            )
    return lines + warnings


def poor_fit_warning(error: float, gpu: str) -> str:
    """A fit this far off its own runs predicts nothing well; it is written anyway (the user may know better)."""
    return (
        f"warning: a poor fit ({error:.0%} median error on its own runs, above {POOR_FIT:.0%}): did the logs run on "
        f"{gpu} (--gpu), and is each --verl-config the config its log ran with? Predictions from it will be as far off"
    )
