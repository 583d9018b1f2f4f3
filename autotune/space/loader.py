"""Read and check a search-space file; every problem is reported at once with file:line and a fix.

`load_space` composes the section parsers (`sections.py`, `knobs.py`) over the file the bounded
reader returns (`yaml_reader.py`), then checks what needs the whole space: the sampler, and that
the baseline and every categorical choice can run on the trainer.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

from autotune.adapters.base import DeviceKind, TrainerAdapter
from autotune.extras import MissingPart
from autotune.names import is_secret
from autotune.space import knobs, sections
from autotune.space.grid import sampler_problem
from autotune.space.schema import ConfirmSettings, SamplerSettings, Space, TrialSettings
from autotune.space.sim_section import SimSettings
from autotune.space.yaml_reader import TOP_LEVEL, Reader, SpaceError, read_space_file

__all__ = ["SPACE_DIR", "TOP_LEVEL", "SpaceError", "find_space", "load_space", "shipped_spaces"]


def _shipped_dir() -> Path:
    """Installed from a wheel, the shipped spaces are `autotune/_spaces/` (setup.py maps them there);
    in a checkout (an editable install) they are `search_spaces/` at the top of the repository."""
    package = Path(__file__).resolve().parents[1]
    installed = package / "_spaces"
    return installed if installed.is_dir() else package.parent / "search_spaces"


SPACE_DIR = _shipped_dir()


def shipped_spaces() -> dict[str, Path]:
    """The shipped spaces by bare name (`fsdp3d`), sorted."""
    return {p.stem: p for p in sorted(SPACE_DIR.glob("*.yaml"), key=lambda p: p.stem)}


def find_space(name_or_path: str) -> Path:
    """A space by path, or a shipped one by bare name (`fsdp3d` or `fsdp3d.yaml`)."""
    path = Path(name_or_path)
    if path.exists():
        return path
    for candidate in (SPACE_DIR / name_or_path, SPACE_DIR / f"{name_or_path}.yaml"):
        if candidate.exists():
            return candidate
    shipped = ", ".join(shipped_spaces()) or f"none: {SPACE_DIR} holds no .yaml, reinstall autotune"
    raise SpaceError(
        [f"{name_or_path}: no such file, and not a shipped space (shipped: {shipped}; `autotune spaces` lists them)"]
    )


def load_space(
    name_or_path: str,
    adapter: TrainerAdapter | None = None,
    device: DeviceKind = "cpu",
    trainer: str | None = None,
    sampler: str | None = None,
) -> Space:
    """Parse and check a space file against the trainer it targets (`trainer` and `sampler` override
    the file's `trainer` and `sampler.name`)."""
    path = find_space(name_or_path)
    r, top = read_space_file(path)
    top = _overridden(r, top, trainer, sampler)
    command = sections.parse_command(r, top.get("command"))
    if adapter is None:
        adapter = _adapter(r, top.get("trainer", "builtin"), command)
    space = _parse(r, top, path, adapter, command)
    _check_whole(r, space, adapter, sampler_overridden=sampler is not None)
    _add_warnings(space, adapter, device)
    return space


def _overridden(r: Reader, top: dict[str, Any], trainer: str | None, sampler: str | None) -> dict[str, Any]:
    """The file's sections with the command line's `--trainer` and `--sampler` in place of its own."""
    out = dict(top)
    if trainer:
        out["trainer"] = trainer
    if sampler is not None:
        out["sampler"] = {**r.mapping(top.get("sampler"), "sampler"), "name": sampler}
    return out


def _adapter(r: Reader, trainer: Any, command: list[str] | None) -> TrainerAdapter:
    from autotune.adapters import get_adapter

    try:
        return get_adapter(trainer, command)
    except ValueError as exc:
        raise SpaceError([f"{r.at('trainer')}: {exc}"]) from None


def _fixed_value(
    adapter: TrainerAdapter, base: dict[str, Any], base_config: list[str]
) -> Callable[[str], tuple[Any, str]]:
    """A config key's value in the space when no param sets it, and where it comes from: `base:`, else the
    trainer's default for the space's base_config (read once, only when a `when` names such a key)."""
    defaults: list[dict[str, Any]] = []

    def value(key: str) -> tuple[Any, str]:
        if key in base:
            return base[key], "in `base:`"
        if not defaults:
            defaults.append(adapter.defaults(base_config))
        return defaults[0].get(key), "the trainer's default"

    return value


def _parse(r: Reader, top: dict[str, Any], path: Path, adapter: TrainerAdapter, command: list[str] | None) -> Space:
    """Every section in turn, all problems collected; SpaceError if there is any."""
    try:
        keys = adapter.keys()
    except MissingPart as exc:  # one line with the fix, not a problem of the file
        raise MissingPart(f"{path}: {exc}") from None
    except RuntimeError as exc:  # e.g. the verl trainer without verl installed
        raise SpaceError([f"{r.at('trainer')}: {exc}"]) from None
    _check_command(r, adapter, command)
    base, base_where = sections.parse_base(r, top.get("base"), keys, adapter.open_map)
    env = sections.parse_env(r, top.get("env"))
    base_config = sections.parse_base_config(r, top.get("base_config"), adapter, path)
    trial = r.settings(TrialSettings, top.get("trial"), "trial")
    params = knobs.parse_params(r, top.get("params"), adapter)
    declared = set(top["params"]) if isinstance(top.get("params"), dict) else set()
    open_keys = {k for k in [*base, *declared] if k not in keys and "." in k and adapter.open_map(k) is not None}
    names = knobs.Names.of(keys, declared, open_keys)
    knobs.check_param_conditions(r, params, names, _fixed_value(adapter, base, base_config))
    derived = knobs.parse_derived(r, top.get("derived"), names, declared)
    knobs.check_variables_used(r, params, derived)
    constraints = knobs.parse_constraints(r, top.get("constraints"), names)
    objectives = sections.parse_objectives(r, top.get("objectives"), adapter)
    limits = sections.parse_limits(r, top.get("limits"), adapter)
    baseline = sections.parse_baseline(r, top.get("baseline"), params, keys, declared, base, base_where)
    name = sections.parse_name(r, top.get("name"), path)
    confirm = r.settings(ConfirmSettings, top.get("confirm"), "confirm")
    sampler = r.settings(SamplerSettings, top.get("sampler"), "sampler")
    sim = r.settings(SimSettings, top.get("sim"), "sim")
    quality = sections.parse_quality(r, top.get("quality"), adapter, keys, params) if "quality" in top else None
    trials = sections.parse_trials(r, top.get("trials", 20))
    if r.problems:
        raise SpaceError(r.problems)
    space = Space(
        name=name,
        path=str(path),
        text=path.read_text(),
        trainer=adapter.name,
        base_config=base_config,
        base=base,
        base_where=base_where,
        env=env,
        trial=trial,
        params=params,
        derived=derived,
        constraints=constraints,
        objectives=objectives,
        limits=limits,
        baseline=baseline,
        confirm=confirm,
        sampler=sampler,
        trials=trials,
        command=command,
        unmeasured=tuple(m for m in adapter.unmeasured_metrics() if any(lim.metric == m for lim in limits)),
        sim=sim,
        quality=quality,
    )
    knobs.check_roles(r, space.params, space.derived)  # the Space gives each variable its role
    if r.problems:
        raise SpaceError(r.problems)
    return space


def _check_command(r: Reader, adapter: TrainerAdapter, command: list[str] | None) -> None:
    """A verl space's `command:` that runs another module than main_ppo (`[python3, -m, recipe.dapo.main_dapo]`,
    the workaround after init refuses such a job) is refused, as init refuses the job (audit 37 F7): everything but
    the trial's run itself is main_ppo's (`base:` checked against ppo_trainer's keys, each trial's config composed
    and validated by it, the cost model predicting PPO, the export telling to run main_ppo), so its sweep would
    measure one trainer and check, predict and export another. A warning would leave all of that in place; a
    demanding user wants the mismatch stopped before a GPU hour is spent. A command that names no module (a wrapper
    script, `[python, my_launch.py]`, a stand-in) cannot be judged: it is taken to run main_ppo."""
    from autotune.adapters.verl_config import ENTRY

    if adapter.name != "verl" or not command:
        return
    modules = [command[i + 1] for i, word in enumerate(command[:-1]) if word == "-m"]
    other = [m for m in modules if m != ENTRY and not re.fullmatch(r"\$\{?\w+\}?", m)]
    if other and ENTRY not in modules:
        r.error(
            r.at("command"),
            f"`command:` runs `{other[-1]}`, not `{ENTRY}`: a `trainer: verl` space tunes verl's PPO trainer; "
            f"`base:` is checked against main_ppo's config, each trial's config composed and validated by it, "
            f"`--fidelity sim` predicts a PPO step and `export` writes a main_ppo config, so a sweep of "
            f"`{other[-1]}` would be checked, predicted and exported as another job (`autotune init` refuses such a "
            f"job for the same reason); `command:` holds the launcher and `python3 -m {ENTRY}`",
        )


def _check_whole(r: Reader, space: Space, adapter: TrainerAdapter, sampler_overridden: bool) -> None:
    """Rules of the whole space: its sampler can walk it, and its baseline and choices can run."""
    from autotune.space.stages import throughput_stage

    trouble = sampler_problem(throughput_stage(space))  # the sampler walks what the stage searches
    if trouble:
        where = f"{space.path}:1" if sampler_overridden else r.at("sampler", "name")
        r.error(where, trouble + (" (--sampler)" if sampler_overridden else ""))
    _check_feasible_choices(r, space, adapter)
    _check_quality_layout(r, space, adapter)
    if r.problems:
        raise SpaceError(r.problems)


def _check_quality_layout(r: Reader, space: Space, adapter: TrainerAdapter) -> None:
    """The quality stage's runs (its `base` on the baseline's systems values, at `quality.world_size`) must pass the
    constraints and the trainer's checks: they passed `validate`, and then every quality run was `invalid`."""
    from autotune.adapters.base import InvalidConfig
    from autotune.space.stages import quality_stage

    if space.quality is None or r.problems:
        return
    stage = quality_stage(space)
    try:
        key_types = {k: info.type for k, info in adapter.keys().items()}
        trouble = _trial_problem(stage, adapter, dict(stage.baseline), adapter.defaults(stage.base_config), key_types)
    except InvalidConfig as exc:
        trouble = str(exc)
    if trouble:
        r.error(
            r.at("quality"),
            "the quality stage's runs (`quality.base` and `quality.world_size` on the baseline's systems values) "
            f"are not valid trials: {trouble}",
        )


def _trial_problem(
    space: Space,
    adapter: TrainerAdapter,
    params: dict[str, Any],
    defaults: dict[str, Any],
    key_types: dict[str, Any],
    quick: bool = True,
) -> str | None:
    """Why a trial of `space` at `params` could not run (its constraints, the trainer's checks), or None."""
    from autotune.adapters.base import InvalidConfig
    from autotune.space.sampling import ConstraintViolation, check_constraints, materialize

    try:
        config = materialize(space, params, defaults, key_types)
        check_constraints(space, config, defaults)
        checker = adapter.quick_check if quick else adapter.check
        checker(space.base_config, config.flat, space.trial.world_size)
    except (ConstraintViolation, InvalidConfig) as exc:
        return None if older_verl_excuses(space, str(exc)) else str(exc)
    return None


def older_verl_excuses(space: Space, problem: str) -> bool:
    """Whether `problem` is a rule of verl's engine workers and the space predicts a run of a verl before them
    (`sim.verl_version`): a published run of verl 0.1 ran its log-prob pass on dynamic batching beside an actor
    without (benchmarks/published_runs/tenth.py), which the installed verl refuses."""
    from autotune.adapters.verl_config import ENGINE_WORKER_RULE
    from autotune.space.sim_section import verl_engine_workers

    stated = space.sim.verl_version if space.sim is not None else None
    return problem.startswith(ENGINE_WORKER_RULE) and stated is not None and not verl_engine_workers(stated)


def _check_feasible_choices(r: Reader, space: Space, adapter: TrainerAdapter) -> None:
    """The baseline must pass the constraints and the trainer's own checks, and every categorical
    choice must be able to (tried with the other params at their baseline values)."""
    from autotune.adapters.base import InvalidConfig
    from autotune.space.sampling import holds

    try:
        defaults = adapter.defaults(space.base_config)
    except InvalidConfig as exc:  # a preset file with problems of its own
        r.error(r.at("base_config"), f"`base_config`: {exc}")
        return
    key_types = {k: info.type for k, info in adapter.keys().items()}

    def problem(params: dict[str, Any], quick: bool = True) -> str | None:
        return _trial_problem(space, adapter, params, defaults, key_types, quick)

    baseline_problem = problem(space.baseline, quick=False)
    if baseline_problem:
        r.error(r.at("baseline"), f"the baseline is not a valid trial: {baseline_problem}")
        return
    context = {**defaults, **space.base, **space.baseline}
    for p in space.params:
        if not holds(p.when, context):
            continue
        if p.type == "categorical":
            tried = [("choice", choice) for choice in p.choices or ()]
        else:  # a range's ends: a negative kl_coef's runs failed `invalid`, validate said ok (audit 32 F4)
            tried = [(end, getattr(p, end)) for end in ("low", "high") if getattr(p, end) is not None]
        for what, value in tried:
            trouble = problem({**space.baseline, p.name: value})
            if trouble:
                r.error(p.where, f"param `{p.name}`: {what} {value!r} can never run here: {trouble}")


def _add_warnings(space: Space, adapter: TrainerAdapter, device: DeviceKind) -> None:
    """Limits the trainer cannot measure, and knobs that do nothing on this device."""
    for metric in space.unmeasured:
        space.warnings.append(f"{space.path}: the {adapter.name} trainer does not log `{metric}`: its limit is skipped")
    t = space.trial
    if space.quality is not None and space.quality.steps <= t.steps:  # passed without a word (audit 32 F10)
        space.warnings.append(
            f"{space.path}: `quality.steps` {space.quality.steps} is not above `trial.steps` {t.steps}: the quality "
            "stage judges the algorithm knobs on learning over a horizon a throughput trial cannot see; set it well "
            "above (the shipped spaces use 150)"
        )
    if t.hang_timeout_s >= t.timeout_s:  # accepted without a word (audit 25 F11)
        space.warnings.append(
            f"{space.path}: `trial.hang_timeout_s` {t.hang_timeout_s:g} is not below `trial.timeout_s` {t.timeout_s:g}: "
            "a trial that hangs is killed only at the timeout, as one that runs too long; set it below (default 60)"
        )
    from autotune.adapters.verl_config import SHELL_VAR

    unexpanded = sorted({word for word in space.command or [] if SHELL_VAR.search(word)})
    if unexpanded:  # `srun -w $head_node ...`: every real trial would launch with the text itself (audit 36)
        space.warnings.append(
            f"{space.path}: `command:` holds {', '.join(f'`{v}`' for v in unexpanded)}: trials run it without a shell, "
            "so each would get the text itself; write the value, or drop the launcher prefix that uses it"
        )
    from autotune.adapters.verl_config import NO_WAIT

    if NO_WAIT in (space.command or []):  # every trial "failed" at once while its job ran on (audit 37 F6)
        space.warnings.append(
            f"{space.path}: `command:` holds `{NO_WAIT}`: `ray job submit` then returns once the job is submitted, so "
            "each trial would end at once, as failed, while its job goes on holding the GPUs and the next trial "
            f"submits another; remove `{NO_WAIT}` (a trial must wait for its job)"
        )
    for name in (n for n in space.env if is_secret(n)):
        space.warnings.append(
            f"{space.path}: `env.{name}` looks like a secret: the space is stored with the study, each trial's "
            f"folder and its wandb run (the export leaves it out); remove it and export it where `autotune run` starts "
            f"(trials inherit that environment)"
        )
    for key in space.tuned_keys:
        active, why = adapter.knob_status(key, device, space.trial.world_size)
        if not active:
            space.warnings.append(f"{space.base_where.get(key) or _where_of(space, key)}: `{key}` is inert here: {why}")


def _where_of(space: Space, key: str) -> str:
    for p in space.params:
        if p.name == key:
            return p.where
    for d in space.derived:
        if d.key == key:
            return d.where
    return space.path
