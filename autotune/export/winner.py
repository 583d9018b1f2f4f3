"""Export the winner as configuration verl accepts: a nested YAML and a `key=value` overrides file.

The YAML composes on top of verl's own `ppo_trainer` config (hydra defaults list), so it runs as

    python -m verl.trainer.main_ppo --config-path=$PWD --config-name=best

(behind the launcher of the space's `command:` when it has one, as the header's `run:` line writes it) and
`best.overrides` holds the same settings for a command line:

    python -m verl.trainer.main_ppo $(cat best.overrides)

Environment variables (NCCL, CUDA) travel the way verl passes them to its Ray workers:
`ray_kwargs.ray_init.runtime_env.env_vars.NAME` (a key verl's schema does not declare, hence `+`).
A key of a map verl leaves open (`actor_rollout_ref.model.override_config.max_position_embeddings`, which
`autotune init` keeps from a job's `+key=value`) nests under its map in the YAML and is `+key=value` in the
overrides, as hydra needs to add it (`verl_config.open_map`).
Keys that exist only in the builtin trainer (`builtin.*`, `trainer.metrics_file`) and the
per-trial step count are not exported. Environment values are always strings (Ray refuses
anything else), quoted in the overrides so hydra does not read `16` as a number; paths starting
with `~` are expanded (verl does not expand them). `check_export` composes both files with verl's
config and runs verl's own `validate_config` on the result.
"""

from __future__ import annotations

import math
import shlex
from pathlib import Path
from typing import Any

import optuna
import yaml

from autotune.adapters.base import DeviceKind, TrainerAdapter
from autotune.adapters.verl_config import ENTRY, ENV_PREFIX, overrides, render_yaml
from autotune.names import is_secret
from autotune.space.freeze import inert_params
from autotune.space.sampling import trial_config
from autotune.space.schema import Space
from autotune.space.stages import NOT_SEARCHED, held_values, systems_values
from autotune.study.confirmation_result import Confirmation, beaten_line
from autotune.study.equivalence_result import EquivalenceResult, result_file, shipping_verdict
from autotune.study.predicted_winner import measure_predicted
from autotune.study.quality_result import Quality
from autotune.study.ratios import LEVEL
from autotune.study.results import UNCHECKED, NoWinner, Winner, find_winner, unfinished_quality, why_unconfirmed
from autotune.study.storage import StudyInfo, StudyPaths
from autotune.trial.scoring import unit_of

NOT_EXPORTED = ("trainer.total_training_steps",)

EXPORT_MARK = "autotune winner of study"
"""How every export's header begins (after a NOT FINAL or NOT FOR SHIPPING line): `export -o` refuses to replace a
file without it unless `--force` (`cli.app.replaces_own_file`)."""


class ExportError(RuntimeError):
    pass


def shipped_params(
    space: Space,
    adapter: TrainerAdapter,
    params: dict[str, Any],
    device: DeviceKind | None = None,
    algorithm: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """The winner's params as they are exported: algorithm knobs (a study stored before the throughput
    stage held them may have sampled them) at their baseline values unless the quality stage ships
    a value (`algorithm`), and, given the sweep's device, knobs inert there at their baseline values."""
    names = [p.name for p in space.params if p.role == "algorithm"]
    fixed = {k: space.baseline[k] for k in names if k in space.baseline}
    if device is not None:
        fixed |= {k: space.baseline[k] for k in inert_params(space, adapter.knob_status, device) if k in space.baseline}
    quality = {k: v for k, v in (algorithm or {}).items() if k in names}
    return {**params, **fixed, **quality}


def with_quality(space: Space, algorithm: dict[str, Any]) -> Space:
    """The space with the quality stage's shipped algorithm values in its base, where the throughput
    stage held them (a held algorithm knob lives in `base` or `env` at its baseline value)."""
    import dataclasses

    held = {p.name for p in space.held}
    base = {**space.base, **{k: v for k, v in algorithm.items() if k in held and not k.startswith("env.")}}
    env = {**space.env, **{k[4:]: str(v) for k, v in algorithm.items() if k in held and k.startswith("env.")}}
    return dataclasses.replace(space, base=base, env=env)


def export_settings(
    space: Space,
    adapter: TrainerAdapter,
    params: dict[str, Any],
    device: DeviceKind | None = None,
    algorithm: dict[str, Any] | None = None,
    home: str | None = None,
) -> dict[str, Any]:
    """{verl key: value} of the winner: the space's base plus the tuned keys, env under ray_kwargs; `~` expanded
    to this machine's home, or to `home` (a prediction's export: the home where the job will run).

    Given the device the sweep ran on, knobs inert there are exported at their baseline value:
    a random value the sweep could not measure is not a recommendation. Algorithm knobs are always
    exported at their baseline value (a study stored before the throughput stage held them may
    have sampled them): a throughput trial cannot judge what they do to learning.
    """
    space = with_quality(space, algorithm or {})
    config = trial_config(space, adapter, shipped_params(space, adapter, params, device, algorithm))
    keys = [*space.base, *(k for k in config.tuned if not k.startswith("env."))]
    flat = {k: config.flat[k] for k in dict.fromkeys(keys) if adapter.exportable(k) and k not in NOT_EXPORTED}
    for key, value in adapter.filled_in(space.base_config, config.flat).items():
        flat.setdefault(key, value)
    from autotune.adapters.verl_config import coerce_ints, expand_home

    flat = {k: expand_home(v, home) for k, v in coerce_ints(flat).items()}
    for name, value in sorted(config.env.items()):
        if not is_secret(name):  # the export is a file to share: a secret stays where it is (`secrets_left_out`)
            flat[ENV_PREFIX + name] = str(expand_home(value, home))  # `~` is expanded by nothing downstream
    return flat


def secrets_left_out(space: Space) -> str | None:
    """The export's line for the secrets the space's `env:` holds (`WANDB_API_KEY`), which it leaves out (its value
    went into best.yaml, audit 36 F11); None when there are none."""
    names = sorted(name for name in space.env if is_secret(name))
    if not names:
        return None
    return (
        f"left out, {'secrets' if len(names) > 1 else 'a secret'} of the space's env: {', '.join(names)}: export "
        f"{'them' if len(names) > 1 else 'it'} where verl starts (`export {names[0]}=...`; its Ray workers inherit it)"
    )


FILLED = "not searched: the value the trials ran with, which verl's config check needs"


def filled_keys(space: Space, params: dict[str, Any], settings: dict[str, Any]) -> list[str]:
    """Keys the winner sets that no param, derived key or `base:` line does (the micro-batch sizes verl's
    config check demands with dynamic batching off): shown apart, so none reads as a tuned setting."""
    derived = {d.key for d in space.derived}
    env = {ENV_PREFIX + name for name in space.env} | {ENV_PREFIX + p.removeprefix("env.") for p in params}
    return [k for k in settings if k not in params and k not in derived and k not in space.base and k not in env]


def sweep_device(study: optuna.Study) -> DeviceKind:
    return "cuda" if StudyInfo.of(study).device == "cuda" else "cpu"


def export(
    study: optuna.Study,
    paths: StudyPaths,
    space: Space,
    adapter: TrainerAdapter,
    out: Path,
    predicted: bool = False,
    kept_check: bool = True,
) -> tuple[Winner, Path, Path]:
    """Write the winner's YAML and overrides. A simulated study's winner is a prediction: refused unless
    `predicted`, and then written with the cost model's credit for each change and a warning in the header.
    The equivalence check `autotune run` kept for this winner (`kept_check`; `export --check` runs its own) is
    said in the header; one that failed, or could not run, marks the YAML NOT FOR SHIPPING, removes the
    overrides (they hold no comment) and raises NotForShipping: a failed check shipped all the same (audit 26 F1)."""
    winner, text, flat = exported(study, paths, space, adapter, out, predicted)
    text, kept = with_kept_check(text, paths, winner) if kept_check else (text, None)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(text)
    overrides_path = out.with_suffix(".overrides")
    overrides_path.write_text("\n".join(overrides(flat)) + "\n")
    if kept is not None and not kept.ok:  # the overrides hold no comment to mark them: removed
        overrides_path.unlink(missing_ok=True)
        raise NotForShipping(f"{out} marked NOT FOR SHIPPING and {overrides_path} removed: {kept.headline}", kept)
    return winner, out, overrides_path


def with_kept_check(text: str, paths: StudyPaths, winner: Winner) -> tuple[str, EquivalenceResult | None]:
    """The export's text with what the equivalence check `autotune run` kept for this winner found (None: none ran):
    passed, its line at the header's end; failed or could not run, marked NOT FOR SHIPPING. `export` writes it and
    the report shows it (its copy lacked the line, audit 38 F10)."""
    kept = shipping_verdict(paths, winner.params)
    if kept is not None and not kept.ok:
        source = f"{result_file(paths)}; `autotune export --check` runs it again"
        return f"# NOT FOR SHIPPING: {kept.headline} ({source})\n" + text, kept
    if kept is not None and kept.outcome == "equivalent" and kept.changes:
        return checked_text(text, f"{kept.summary()[0]} (autotune run)"), kept
    return text, kept


class NotForShipping(ExportError):
    """The export was written marked NOT FOR SHIPPING: the winner's equivalence check failed or could not run."""

    def __init__(self, message: str, result: EquivalenceResult) -> None:
        super().__init__(message)
        self.result = result


def exported(
    study: optuna.Study, paths: StudyPaths, space: Space, adapter: TrainerAdapter, out: Path, predicted: bool = False
) -> tuple[Winner, str, dict[str, Any]]:
    """(winner, the YAML's text, its flat settings) as `export` writes them to `out`: the report shows the same
    text, the quality stage's algorithm values included."""
    try:
        winner = find_winner(study, paths, space)
    except NoWinner as exc:
        raise ExportError(str(exc)) from None
    if winner.source == "predicted" and not predicted:
        raise ExportError(predicted_refusal(paths, winner, space))
    device = sweep_device(study)
    quality = Quality.read(paths)
    algorithm = quality.shipped if quality is not None else {}
    from autotune.adapters.verl_config import HOME_AT_RUN_TIME

    home = HOME_AT_RUN_TIME if winner.source == "predicted" else None  # predicted here, run elsewhere
    flat = export_settings(space, adapter, winner.params, device, algorithm, home)
    inert = inert_params(space, adapter.knob_status, device)
    speed = ""
    if winner.speedup is not None:
        level = winner.ablation.level if winner.ablation else LEVEL
        what = f"{level:.0%} interval" if winner.spread_is_interval else "rounds"
        low, high = winner.speedup_spread or (math.nan, math.nan)
        spread = (f" ({winner.why_baseline})" if winner.ships_baseline
                  else " (one round: no interval)" if winner.one_round
                  else f" ({what}: {low:.2f}-{high:.2f})" if winner.speedup_spread else "")  # fmt: skip
        speed = f", {winner.speedup:.2f}x the baseline{spread}"
    header = [
        f"{EXPORT_MARK} `{paths.name}`: trial #{winner.number} ({winner.source}{speed})",
        f"{space.objectives[0].metric} ({space.objectives[0].reducer}) = {winner.value:.6g}"
        f"{unit_of(space.objectives[0].metric)}{_whose(winner)}",
        f"run: {_launched(space)} --config-path=<this folder> --config-name={out.stem}",
    ]
    if space.trainer == "builtin":  # the built-in trainer reads this file as is, on the presets the sweep used
        presets = "".join(f" --config {name}" for name in space.base_config)
        header.append(
            f"built-in trainer: torchrun --standalone --nproc_per_node={space.trial.world_size} -m trainer"
            f"{presets} --config {out.name}"
        )
    if str(flat.get("trainer.device")) == "cpu":
        ranks = int(flat.get("trainer.n_gpus_per_node", 1)) * int(flat.get("trainer.nnodes", 1))
        header.append(
            'on a CPU, with the verl_cpu plugin: eval "$(python -m verl_cpu env)"; add to the command '
            f"$(python -m verl_cpu overrides --world-size {ranks}) trainer.logger=[console]"
        )
    if inert:
        header.append(f"left at baseline (inert on the {device} sweep, not measured): {', '.join(inert)}")
    if secrets := secrets_left_out(space):
        header.append(secrets)
    filled = [k for k in filled_keys(space, winner.params, flat) if k not in algorithm]
    if filled:
        header.append(f"{FILLED}: " + ", ".join(overrides({k: flat[k] for k in filled})))
    held = [*held_values(space), *(p.name for p in space.params if p.role == "algorithm" and not p.is_variable)]
    held = [k for k in held if k not in algorithm]
    if held and quality is None:
        header.append(f"left at baseline (algorithm knobs, {NOT_SEARCHED}): {', '.join(held)}")
        pending = unfinished_quality(paths, space) if winner.source != "predicted" else None
        if pending:
            header.append(pending)
    elif (
        held and quality is not None and quality.exports_a_broken_bound
    ):  # not the stage's choice: it found nothing to ship (audit 24 F5)
        header.append(f"left at baseline, the quality stage shipping nothing (algorithm knobs): {', '.join(held)}")
    elif held:
        header.append(f"left at baseline by the quality stage (algorithm knobs): {', '.join(held)}")
    if winner.source == "sweep" and Confirmation.read(paths) is None:
        header.append(why_unconfirmed(study, winner, paths))
    if winner.ablation is not None:  # every change that ships, with its measured gain and interval
        header.extend(winner.ablation.lines())
    elif winner.baseline_won:
        header.append(beaten_line(winner.beaten))
    if winner.source == "predicted":
        header[1:1] = [
            "PREDICTED, NOT MEASURED: no trial of this study ran; run this config (or "
            f"`{measure_predicted(space.path, paths.name, paths.flags())}`) before shipping it"
        ]
    if winner.credited is not None:  # each change the model credits, and what it predicts without it
        header.extend(winner.credited.lines())
    if quality is not None:  # the algorithm knobs' decision, with its evidence over seeds
        header.extend(quality.lines())
        other = quality.ran_on_other_systems(
            systems_values(space, shipped_params(space, adapter, winner.params, device))
        )
        header.extend([other] if other else [])
    return winner, render_yaml(flat, header), flat


def mark_not_for_shipping(yaml_path: Path, overrides_path: Path, why: str, source: str) -> str:
    """The export must not read as shippable: its YAML's first line says so and why, its overrides (which hold no
    comment) are removed. Returns what was done, to say."""
    yaml_path.write_text(f"# NOT FOR SHIPPING: {why} ({source})\n" + yaml_path.read_text())
    overrides_path.unlink(missing_ok=True)
    return f"{yaml_path} marked NOT FOR SHIPPING and {overrides_path} removed: {why}"


def mark_checked(yaml_path: Path, line: str) -> None:
    """The export's header after `export --check` passed: what it found, as its last comment line, and no longer
    "no equivalence check (`export --check` runs it)"."""
    yaml_path.write_text(checked_text(yaml_path.read_text(), line))


def checked_text(text: str, line: str) -> str:
    """`text` with `line` as its header's last comment line, and no longer "no equivalence check"."""
    lines = text.replace(UNCHECKED, "").splitlines()
    end = next((i for i, said in enumerate(lines) if not said.startswith("#")), len(lines))
    return "\n".join([*lines[:end], f"# {line}", *lines[end:]]) + "\n"


def _launched(space: Space) -> str:
    """The command the `run:` line gives: the space's `command:` when it has one (the launcher the trials ran behind,
    `ray job submit ... -- python3 -m verl.trainer.main_ppo`; it was left off, audit 37 F8), else main_ppo."""
    if space.trainer == "verl" and space.command:
        return shlex.join(space.command)
    return f"python -m {ENTRY}"


def _whose(winner: Winner) -> str:
    """What the header's objective value is the value of."""
    if winner.source == "confirmed" and winner.confirmed is not None:
        rounds = winner.confirmed.rounds
        whole = f"; the whole winner #{winner.number}'s, before the ablation's drops" if winner.ships_less else ""
        return f" (mean of {rounds} confirmation round{'s' if rounds != 1 else ''}{whole})"
    if winner.predicted_less:
        return f" ({winner.predicted_less})"
    return " (one run)" if winner.source == "sweep" else " (predicted)" if winner.source == "predicted" else ""


def predicted_refusal(paths: StudyPaths, winner: Winner, space: Space) -> str:
    """Why a simulated study's winner is not exported as it stands, and the two ways on."""
    speed = f" (×{winner.speedup:.2f} over the baseline)" if winner.speedup is not None else ""
    return (
        f"study `{paths.name}` was simulated: trial #{winner.number}{speed} is the cost model's prediction, and no "
        f"change in it has a measured gain. Measure it before shipping: `{measure_predicted(space.path, paths.name, paths.flags())}` runs the model's best 3 "
        "and the baseline for real (confirmed and ablated on a real sweep), then export that study; or write the "
        f"prediction as it is, labelled: `autotune export {paths.name} --predicted{paths.flags()}`"
    )


def check_export(yaml_path: Path, overrides_path: Path) -> tuple[list[str], int]:
    """Compose an export with verl's own config: (problems, number of overrides). Empty = accepted.

    Both forms are checked: the overrides on verl's `ppo_trainer` (hydra rejects undeclared keys),
    the YAML as main_ppo would load it, and every value's type against verl's default.
    """
    from autotune.adapters.verl_config import VerlRejected, check_file, check_types, compose, env_problems, validate

    lines = [line for line in overrides_path.read_text().splitlines() if line.strip()]
    try:
        composed = compose(lines)
        from_file = check_file(yaml_path)
        problems = env_problems(composed) + env_problems(from_file)
        if problems:
            return problems, len(lines)
        validate(composed)
        validate(from_file)
    except VerlRejected as exc:
        return [str(exc)], len(lines)
    flat = {}
    for line in lines:
        key, _, value = line.partition("=")
        if not key.startswith("+"):
            flat[key] = _read_value(value)
    return check_types(compose([]), flat), len(lines)


def _read_value(text: str) -> Any:
    """A hydra override value back to Python (YAML 1.1 reads `5e-05` as a string; hydra as a float)."""
    value = yaml.safe_load(text)
    if isinstance(value, str):
        try:
            return float(value)
        except ValueError:
            return value
    return value
