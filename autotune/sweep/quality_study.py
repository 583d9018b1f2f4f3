"""The quality stage's Optuna study, `<study>-quality`, as a run leaves it for the next: the systems values and the
`quality:` rules its runs were measured by (a rerun that changes them is refused or said), and the runs a stopped
controller left cut short, queued again."""

from __future__ import annotations

import dataclasses
from typing import Any

import optuna
from optuna.trial import FrozenTrial, TrialState

from autotune.space.schema import Space
from autotune.study.progress import SweepProgress
from autotune.study.resume_checks import SpaceChanged
from autotune.study.storage import StudyInfo, StudyPaths, find_study, open_storage
from autotune.study.storage_errors import redact
from autotune.sweep.backends.lifecycle import trial_id
from autotune.sweep.quality_pruner import CurvePruner
from autotune.trial.record import QualityRecord

STARTUP = 3
"""Space-filling settings the search starts with, after the baseline; the TPE sampler takes over after them."""
REQUEUED = "requeued"
"""A setting queued when a worker was stopped, queued again behind the reruns of the runs it cut short."""
NOT_RUN = ("interrupted", REQUEUED)
"""Outcomes of search trials that measured nothing: left out of the ladder (their runs are under other numbers)."""


class QualityStudyTaken(SpaceChanged):
    """`<study>-quality` names a study that is not this study's quality search (a shared storage)."""


class QualityRulesChanged(SpaceChanged):
    """The `quality:` settings a study's quality runs were judged by changed since they ran."""


def check_same_rules(space: Space, paths: StudyPaths, url: str) -> None:
    """A rerun whose `quality:` section measures or judges runs otherwise (another KL bound, horizon, metric...)
    than the study's finished quality runs were: refused before anything runs (QualityRulesChanged). It kept their
    verdicts under the old bound, and read 40-step runs as 20-step ones."""
    assert space.quality is not None
    study = find_study(f"{paths.name}-quality", url)
    stored = StudyInfo.of(study).quality_rules if study is not None else None
    if stored is None:
        return
    now = space.quality.rules()
    changed = [k for k in now if stored.get(k) != now[k]]
    if changed:
        what = ", ".join(f"{k}: {stored.get(k)!r} -> {now[k]!r}" for k in changed)
        raise QualityRulesChanged(
            f"{space.path}: the `quality:` section's {', '.join(changed)} changed since study `{paths.name}`'s "
            f"quality stage ran ({what}): its finished runs were measured and judged by the old values. Undo the "
            f"edit, or search again: remove {paths.root}/quality/ and quality.json and delete the study "
            f"`{paths.name}-quality` (optuna delete-study --study-name {paths.name}-quality --storage {redact(url)}); "
            "trials, seeds, first_seed, top_k, parallel and timeout_s may change"
        )


def systems_ran(paths: StudyPaths, url: str) -> dict[str, Any] | None:
    """The systems values the study's quality stage ran on, when it has runs (None: none yet, or not recorded)."""
    study = find_study(f"{paths.name}-quality", url)
    if study is None or not any(t.state.is_finished() for t in study.get_trials(deepcopy=False)):
        return None
    stored = StudyInfo.of(study).quality_systems
    return dict(stored) if stored is not None else None


def open_quality_study(
    space: Space, paths: StudyPaths, url: str, systems: dict[str, Any], progress: SweepProgress
) -> optuna.Study:
    """The study `<study>-quality` (created, or loaded to resume): the systems values and rules it runs on stored
    with it when new; runs a stopped controller left RUNNING failed and queued again under new numbers, with the
    settings queued behind them after their reruns. Empty when new: the stage enqueues its first settings."""
    assert space.quality is not None
    sampler = optuna.samplers.TPESampler(
        seed=space.sampler.seed,
        n_startup_trials=STARTUP + 1,
        multivariate=True,  # the KL coefficient and the epochs or clip act together on the drift
        constant_liar=True,  # parallel runs: a setting being run is not drawn again beside it
    )  # it reads the runs' constraints (`trial.set_constraint`): the KL bound and the other rules
    paths.root.mkdir(parents=True, exist_ok=True)  # the study's folder holds its SQLite file
    storage = open_storage(url)
    study = optuna.create_study(
        study_name=f"{paths.name}-quality",
        storage=storage,
        direction="maximize",
        sampler=sampler,
        pruner=CurvePruner(space.quality),
        load_if_exists=True,
    )
    info = StudyInfo.of(study)
    if info.baseline_enqueued:  # a throughput study of that name (a shared storage)
        raise QualityStudyTaken(
            f"study `{study.study_name}` in {url} is a throughput study, not study `{paths.name}`'s "
            f"quality search: name this study otherwise (`--study {paths.name}-2`)"
        )
    if info.quality_systems is None and not any(t.state.is_finished() for t in study.trials):
        StudyInfo(quality_systems=systems).save(study, "quality_systems")  # kept for a resumed stage
    if info.quality_rules is None and not any(t.state.is_finished() for t in study.trials):
        StudyInfo(quality_rules=space.quality.rules()).save(study, "quality_rules")  # a rerun's are compared with it
    again = []
    cut = study.get_trials(deepcopy=False, states=(TrialState.RUNNING,))  # a stopped controller's runs
    failed = failed_to_retry(study)
    # the settings queued behind them go behind their reruns: Optuna asks the lowest-numbered waiting trial
    # first, so the search spent its budget on the queued Sobol settings and the reruns, the baseline's among
    # them, never ran while the line below said they would (found by the ladder naming reruns, audit 24 F10)
    queued = study.get_trials(deepcopy=False, states=(TrialState.WAITING,)) if cut or failed else []
    for t, outcome in [*((t, "interrupted") for t in cut), *((t, REQUEUED) for t in queued)]:
        ident = trial_id(storage, study.study_name, t.number)
        QualityRecord(outcome=outcome).save_by_id(storage, ident, ("outcome",))
        storage.set_trial_state_values(ident, TrialState.FAIL)
    for t in cut:
        again_as = dataclasses.replace(QualityRecord.of(t), rerun_of=t.number)
        study.enqueue_trial(_setting(t), user_attrs=again_as.attrs(QualityRecord.IDENTITY))
        again.append(f"#{t.number} as #{len(study.get_trials(deepcopy=False)) - 1}")
    retried = []
    for t in failed:  # once per run of the stage: a setting that crashes every time costs one run a rerun
        again_as = dataclasses.replace(QualityRecord.of(t), rerun_of=None, retry_of=t.number)
        study.enqueue_trial(_setting(t), user_attrs=again_as.attrs(QualityRecord.IDENTITY))
        retried.append(f"#{t.number} as #{len(study.get_trials(deepcopy=False)) - 1}")
    for t in queued:  # under new numbers, after the reruns; none had run, so nothing is said of them
        study.enqueue_trial(_setting(t), user_attrs=QualityRecord.of(t).attrs(QualityRecord.IDENTITY))
    if again:  # under new numbers, which it did not say: the decision named #4 for the run a clean stage's #2
        progress.note(f"quality stage: runs cut short (a stopped or killed worker) run again: {', '.join(again)}")
    if retried:
        progress.note(
            f"quality stage: runs that failed before breaking a rule (a crash, a timeout) run again: {', '.join(retried)}"
        )
    return study


def _setting(t: FrozenTrial) -> dict[str, Any]:
    """The setting a trial runs: a queued one that never started has no params yet, only the ones it was queued
    with (a Ctrl-C's rerun of a queued Sobol setting ran a TPE draw in its place, audit 32 F2)."""
    return {**t.system_attrs.get("fixed_params", {}), **t.params}


def failed_to_retry(study: optuna.Study) -> list[FrozenTrial]:
    """Search runs that failed before breaking a rule (a crash, an OOM, a timeout; not an `invalid` setting, which
    never runs) and that no later run retried: nothing was learnt of them. A new draw took their place, so the only
    setting that kept the bound could go unconfirmed while the decision said to widen the search (audit 32 F1).
    A retry that failed again is not retried (`failed_twice`): a setting that crashes every time was run again at
    every run of the stage, each undecided and exiting 1."""
    trials = study.get_trials(deepcopy=False)
    retried = {QualityRecord.of(t).retry_of for t in trials}
    return [t for t in _failed(trials) if t.number not in retried and QualityRecord.of(t).retry_of is None]


def failed_twice(study: optuna.Study) -> list[FrozenTrial]:
    """Retries of a failed search run (`failed_to_retry`) that failed again: their setting is not run a third time."""
    return [t for t in _failed(study.get_trials(deepcopy=False)) if QualityRecord.of(t).retry_of is not None]


def _failed(trials: list[FrozenTrial]) -> list[FrozenTrial]:
    return [
        t
        for t in trials
        if t.state == TrialState.FAIL
        and (r := QualityRecord.of(t)).outcome == "failed"
        and not r.detail.startswith("invalid")
    ]
