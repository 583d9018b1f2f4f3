"""What a resumed study must keep: the space file it ran (up to what may change on a resume: `MAY_CHANGE`), the
knobs it searched, the kind of trials it holds (measured or predicted) and the cost model that predicted them. Each
check refuses with the changes and the ways on (a new study, the undo, or starting over)."""

from __future__ import annotations

from typing import Any

import optuna
import yaml

from autotune.space.schema import Space
from autotune.study.storage import StudyInfo, StudyNotFound, StudyPaths, find_study, stored_space
from autotune.study.storage_errors import redact


class SpaceChanged(ValueError):
    """A study resumed with a space that no longer describes its trials: the message lists the changes and the fix."""


class FidelityChanged(SpaceChanged):
    """A study of predicted trials joined by measured ones, or the other way round."""


FIDELITY_WORDS = {"sim": "simulated trials (the cost model's predictions)", "real": "measured trials (real runs)"}


def check_same_fidelity(paths: StudyPaths, url: str, fidelity: str) -> None:
    """Refuse a sweep whose trials are not of the kind the study holds: measured trials ranked with
    predicted ones would make a prediction read as measured (its winner exported as a real sweep's). A
    study that does not exist yet is not checked (one from before the fidelity was recorded reads as real)."""
    study = find_study(paths.name, url)
    stored = StudyInfo.of(study).fidelity if study is not None else None
    if stored is None or stored == fidelity:
        return
    other = f"{paths.name}-{fidelity}"
    raise FidelityChanged(
        f"study `{paths.name}` in {paths.root}/ holds {FIDELITY_WORDS.get(stored, stored)}, and this sweep's are "
        f"{FIDELITY_WORDS.get(fidelity, fidelity)}: ranked together, a prediction would read as measured. Run this "
        f"sweep as a new study (`--study {other}`), or delete {paths.root}/ to start the study over."
    )


def check_same_model(paths: StudyPaths, study: optuna.Study, model: str | None) -> None:
    """Refuse to predict more of a study's trials with another cost model (another --gpu, --calibration or --model):
    each trial's speedup is over the baseline's prediction, so two models' trials ranked together compare one
    model's prediction with another's (a resumed study showed "ships ×2.75" where its own credits gave ×1.62)."""
    stored = StudyInfo.of(study).sim_model
    if model is None or stored is None or stored == model:
        return
    raise FidelityChanged(
        f"study `{paths.name}` in {paths.root}/ was predicted by the cost model on {stored}; this sweep's is {model}: "
        f"ranked together, a prediction of one would be compared with the other's. Give the same --gpu, "
        f"--calibration and --model, or run this sweep as a new study (`--study {paths.name}-2`)"
    )


MAY_CHANGE = ("name", "trials", "sampler", "confirm", "quality")
"""What a resumed study's space file may change: the budget, the sampler, confirmation and the quality
section (it keeps its own results). Anything else (base, knobs, limits, objectives, the trial's steps and
world size) changes what a trial measures. So do the trial's limits on time, which may change too."""
MAY_CHANGE_TRIAL = ("timeout_s", "hang_timeout_s", "startup_grace_s")


def _flat(value: Any, prefix: str) -> dict[str, Any]:
    """Dotted keys to leaves, `where` (a file:line) left out at every depth; a list of items that carry a
    name (params by `name`, derived keys by `key`, limits and objectives by `metric`) keyed by it."""
    if isinstance(value, list):
        named = next((k for k in ("name", "key", "metric") if all(isinstance(v, dict) and k in v for v in value)), None)
        if named is None or not value:
            return {prefix: [_flat(v, "") if isinstance(v, dict) else v for v in value]}
        value = {str(v[named]): v for v in value}
    if not isinstance(value, dict):
        return {prefix: value}
    out: dict[str, Any] = {}
    for key, item in value.items():
        if key != "where":
            out.update(_flat(item, f"{prefix}.{key}" if prefix else str(key)))
    return out


def what_trials_measure(data: Any) -> dict[str, Any]:
    """A space file's parsed YAML reduced to what its trials measure, as dotted keys: comments, blank lines, the
    order of keys and what may change on a resume (`MAY_CHANGE`) do not count."""
    data = dict(data) if isinstance(data, dict) else {}
    trial = data.get("trial")
    if isinstance(trial, dict):
        data["trial"] = {k: v for k, v in trial.items() if k not in MAY_CHANGE_TRIAL}
    return _flat({k: v for k, v in data.items() if k not in MAY_CHANGE}, "")


def space_changes(stored: dict[str, Any], new: dict[str, Any]) -> list[str]:
    """How the space file `new` differs from the study's `stored` one in what its trials measure (both as
    parsed YAML, so comments, blank lines and the order of keys do not count)."""
    was, now = what_trials_measure(stored), what_trials_measure(new)
    unset = "(unset)"
    return [
        f"{key}: {was.get(key, unset)!r} → {now.get(key, unset)!r}".replace("'(unset)'", unset)
        for key in sorted(set(was) | set(now))
        if was.get(key, unset) != now.get(key, unset)
    ]


def check_same_space(paths: StudyPaths, space: Space, stored_text: str | None = None, url: str | None = None) -> None:
    """Refuse to resume a study with an edited space file: old and new trials would be ranked together
    though they measured different jobs. The file is compared with the study's copy of it (space.yaml), else
    with the text its storage keeps (`stored_text`: a study in a database server outlives its folder); a study
    with neither is not checked. `url`: the study's database when it is not the folder's own SQLite file, which
    deleting the folder does not delete."""
    in_folder = paths.space_copy.exists()
    if not in_folder and stored_text is None:
        return
    try:
        stored = yaml.safe_load(paths.space_copy.read_text() if in_folder else stored_text or "")
        new = yaml.safe_load(space.text)
    except (yaml.YAMLError, ValueError):
        return  # a copy that no longer parses: stored_space names it when the study is read
    changes = space_changes(stored, new)
    if not changes:
        return
    shown = changes[:8] + ([f"... and {len(changes) - 8} more"] if len(changes) > 8 else [])
    copy = f"the study's copy: {paths.space_copy}" if in_folder else "the study's storage keeps the file it ran"
    over = f"delete {paths.root}/ to start the study over"
    if url is not None:  # its trials are in the database: deleting the folder resumed them (audit 31 F4)
        over = (
            f"delete the study from its storage (optuna delete-study --study-name {paths.name} --storage "
            f"{redact(url)}) and {paths.root}/ to start it over"
        )
    raise SpaceChanged(
        f"{space.path}: study `{paths.name}` in {paths.root}/ ran another version of this file, and its trials "
        "would be ranked with the new ones:\n  " + "\n  ".join(shown) + f"\nRun the changed space as a new study "
        f"(`--study {paths.name}-2`), undo the change to resume ({copy}), or {over}."
    )


def check_same_knobs(paths: StudyPaths, space: Space) -> None:
    """Refuse to resume a study with other knobs searched than it searched, the file unchanged: a
    `--freeze-inert` (or its absence) on the rerun fixed knobs the earlier trials sampled, or the other
    way round, and the sampler would go on over a space its trials do not describe."""
    if not paths.space_data.exists():
        return
    try:  # systems knobs: the algorithm ones are the stages' to hold (a study from before them searched them)
        before = {p.name for p in stored_space(paths).params if p.role != "algorithm"}
    except StudyNotFound:
        return  # a record that cannot be read: stored_space names it when the study is read
    now = {p.name for p in space.params if p.role != "algorithm"}
    if before == now:
        return
    fixed, searched = sorted(before - now), sorted(now - before)
    said = [f"it searched {', '.join(fixed)}, which this run holds fixed"] if fixed else []
    said += [f"it held {', '.join(searched)} fixed, which this run searches"] if searched else []
    raise SpaceChanged(
        f"{space.path}: study `{paths.name}` in {paths.root}/ ran other knobs: {'; '.join(said)} (a `--freeze-inert` "
        f"given on one run and not the other?). Run as the study was run, or as a new study (`--study {paths.name}-2`)."
    )
