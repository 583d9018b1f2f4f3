"""What `autotune run` does once its options are parsed.

real sweep     a registered backend (optuna | ray) -> confirmation -> ablation (the minimal winner) -> report
sim sweep      the optuna backend with the cost model as the trials' fidelity (--fidelity sim) -> the
               winner's changes credited by the model (`predicted`) -> report
multi-fidelity the sim sweep first, then real trials of its top-k predictions (distinct once cut to
               the changes the model credits) and the baseline (--fidelity sim,real); the report sets
               predicted beside measured
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import optuna

from autotune.adapters import get_adapter
from autotune.adapters.base import TrainerAdapter, device_kind
from autotune.space.schema import Space
from autotune.study.live import ABLATION, CONFIRMATION, EQUIVALENCE, QUALITY, set_stage
from autotune.study.progress import SweepProgress
from autotune.study.storage import StudyInfo, StudyPaths, baseline_trial, check_one_folder, storage_url
from autotune.study.storage_errors import redact
from autotune.sweep.backends import base as registry
from autotune.sweep.backends.samplers import grid_repeats
from autotune.sweep.fidelities import PLANS, REAL, SIM, get_fidelity
from autotune.trial.fidelity import Fidelity, FidelitySettings

STAGES = ("all", "throughput", "quality")


@dataclass
class SweepOptions:
    space: Space
    paths: StudyPaths
    n_trials: int
    storage: str | None = None
    timeout_s: float | None = None
    backend: str = "optuna"
    """A registered backend (`autotune.sweep.backends.base.BACKENDS`)."""
    address: str | None = None
    max_concurrent: int | None = None
    confirm: int = 0
    ablate: int = 0
    """Ablation rounds after confirmation (the minimal winner; 0: the confirmed winner ships whole)."""
    top_k: int = 2
    gpu: str | None = None
    model: str | None = None
    calibration: dict[str, Any] | None = None
    fidelity: tuple[str, ...] = ()
    """How trials are evaluated: () or (real,) run them; (sim,) the cost model predicts them; (sim, real)
    the cost model ranks `sim_trials` configurations, then its top-k and the baseline run for real."""
    sim_trials: int = 200
    stage: str = "all"
    """all: the throughput stage, then the quality stage when the space has one; throughput; quality."""
    quality_trials: int | None = None
    """Settings the quality stage searches (None: the space's `quality.trials`)."""
    hooks: list[Callable[[optuna.Study, int], None]] = field(default_factory=list)
    """Called after each sweep trial with its number (the report, at most every 20 s; wandb)."""
    refresh: Callable[[optuna.Study], None] | None = None
    """Rewrites what a reader sees of the study (the report) when the sweep's trials end and when the stages on
    its winner have measured, before the quality stage: the hooks' last write could be 20 s older than the last
    trial, and the page said "only the baseline ran" through confirmation and the whole quality stage (audit 24
    F3)."""

    def __post_init__(self) -> None:
        if self.backend not in registry.BACKENDS:
            raise ValueError(f"backend must be one of {', '.join(registry.BACKENDS)}, got {self.backend!r}")
        if self.stage not in STAGES:
            raise ValueError(f"stage must be one of {', '.join(STAGES)}, got {self.stage!r}")
        if self.fidelity not in PLANS:
            raise ValueError(f"fidelity must be sim, real or sim,real, got {','.join(self.fidelity)!r}")

    @property
    def simulated(self) -> bool:
        """Every trial is predicted by the cost model (none is run)."""
        return self.fidelity == (SIM,)

    @property
    def url(self) -> str:
        return storage_url(self.paths, self.storage)

    def make_fidelity(self) -> Fidelity:
        """How this sweep's trials are measured (a one-level plan: `sim`, or trials run)."""
        settings = FidelitySettings(gpu=self.gpu, model=self.model, calibration=self.calibration)
        return get_fidelity(self.fidelity[0] if self.fidelity else REAL, self.space, settings)


def report_hook(
    write: Callable[[optuna.Study], None], every_s: float = 20.0, budget: float = 0.05
) -> Callable[[optuna.Study, int], None]:
    """Refresh the report after a trial, at most every `every_s` seconds, and never more often than
    keeps its writing under `budget` of the sweep's time (a large study's report takes seconds, and
    those seconds run between trials, not beside them)."""
    last, cost = [0.0], [0.0]

    def hook(study: optuna.Study, number: int) -> None:
        if time.monotonic() - last[0] >= max(every_s, cost[0] / budget):
            started = time.monotonic()
            write(study)
            last[0] = time.monotonic()
            cost[0] = last[0] - started

    return hook


def run_backend(
    opts: SweepOptions, adapter: TrainerAdapter, fidelity: Fidelity, progress: SweepProgress
) -> optuna.Study:
    """The sweep's trials, by the backend the registry holds under `opts.backend`."""
    backend = registry.get_backend(opts.backend)
    return backend(
        registry.BackendOptions(
            space=opts.space,
            adapter=adapter,
            fidelity=fidelity,
            paths=opts.paths,
            storage_url=opts.url,
            n_trials=opts.n_trials,
            timeout_s=opts.timeout_s,
            progress=progress,
            hooks=opts.hooks,
            device=fidelity.device,
            address=opts.address,
            max_concurrent=opts.max_concurrent,
        )
    ).run()


def run_sweep(
    opts: SweepOptions, progress: SweepProgress, then: Callable[[optuna.Study], None] | None = None
) -> optuna.Study:
    """One sweep (real or simulated) with its confirmation, then `then` (the quality stage) under the same hold of
    the study's `.finishing` lock; returns the study. (Taken twice, another worker slipped in between the two: it
    waited, said it would keep what was measured, and printed "kept from the earlier run" of what this worker was
    measuring; audit 22 F4.)"""
    from autotune.space.stages import throughput_stage

    opts = dataclasses.replace(opts, space=throughput_stage(opts.space))  # systems knobs only
    _check_resumable(opts, REAL if opts.fidelity == (SIM, REAL) else (opts.fidelity or (REAL,))[0])
    if opts.fidelity == (SIM, REAL):
        return run_multi_fidelity(opts, progress)
    adapter = get_adapter(opts.space.trainer, opts.space.command)
    fidelity = opts.make_fidelity()
    space, frozen = fidelity.space_for(opts.space, adapter)
    if frozen:
        progress.note(f"not modelled by the cost model, kept at their baseline values: {', '.join(frozen)}")
    lengths = fidelity.lengths_note(space, adapter)
    if lengths:
        progress.note(f"cost model's lengths: {lengths}")
    weights = fidelity.weights_note(space)
    if weights:
        progress.note(f"cost model's weights: {weights}")
    opts = dataclasses.replace(opts, space=space)
    repeats = grid_repeats(space, opts.n_trials, progress.budget_flag)
    if repeats:
        progress.note(repeats)
    study = run_backend(opts, adapter, fidelity, progress)
    StudyInfo(backend=opts.backend, fidelity=fidelity.name).save(study, "backend", "fidelity")
    if opts.refresh is not None:
        opts.refresh(study)
    if lengths:  # for the report
        StudyInfo(sim_lengths=lengths).save(study, "sim_lengths")
    if fidelity.error_note(space):  # for the report: the error of this model, where not the published runs'
        StudyInfo(sim_error=fidelity.error_note(space)).save(study, "sim_error")
    if frozen:  # for the report: knobs the cost model kept at their baseline
        StudyInfo(sim_unmodelled=frozen).save(study, "sim_unmodelled")
    if fidelity.deterministic:  # no rounds to measure: the cost model credits each of the winner's changes instead
        from autotune.sweep.predicted import credit_changes

        credit_changes(study, opts.space, adapter, opts.paths, fidelity, progress)
    confirms = opts.confirm > 0 and not fidelity.deterministic
    if confirms or then is not None:
        with opts.paths.finishing(progress.note):
            if confirms:
                wait_for_other_workers(study, opts.space.trial.timeout_s, progress)
                _confirm_ablate_check(study, opts, adapter, fidelity.device or device_kind(), progress)
                if opts.refresh is not None and then is not None:  # the quality stage's minutes come next
                    opts.refresh(study)
            if then is not None:
                then(study)
    return study


def _check_resumable(opts: SweepOptions, fidelity: str) -> None:
    """A study this sweep cannot join is refused before anything is said or run: one of another space
    file (`check_same_space`), or of the other kind of trials (`check_same_fidelity`)."""
    from autotune.study.resume_checks import check_same_fidelity, check_same_space

    check_same_space(opts.paths, opts.space)
    with opts.paths.lock():  # another worker may be creating the database: opening it beside that failed
        check_same_fidelity(opts.paths, opts.url, fidelity)  # ("UNIQUE constraint failed: alembic_version")


def live_trials(study: optuna.Study, timeout_s: float) -> list[optuna.trial.FrozenTrial]:
    """The study's running trials whose worker lives: on this host its pid is there; elsewhere a trial counts as
    running for at most its timeout (and the heartbeat grace) since it began."""
    import datetime
    import socket

    from autotune.study.storage import GRACE_S, running_trials
    from autotune.sweep.backends.lifecycle import process_alive
    from autotune.trial.record import TrialRecord

    def alive(t: optuna.trial.FrozenTrial) -> bool:
        worker = TrialRecord.of(t).worker
        if worker is not None and worker.host == socket.gethostname():
            return process_alive(worker.pid)
        started = t.datetime_start or datetime.datetime.now()
        limit = timeout_s + GRACE_S if worker is not None else GRACE_S
        return (datetime.datetime.now() - started).total_seconds() < limit

    return [t for t in running_trials(study) if alive(t)]


def wait_for_other_workers(
    study: optuna.Study,
    timeout_s: float,
    progress: SweepProgress,
    why: str = "confirmation picks from every trial",
    quiet_polls: int = 1,
) -> None:
    """Confirmation picks its candidates from the finished trials: a trial another worker still runs may be the
    best. The first worker out of trials to ask confirmed without it, and the second confirmed again after it.
    A trial of a dead worker here (its pid gone) is not waited for; one elsewhere at most a trial's timeout.
    `quiet_polls`: how many polls a second apart must find no live trial (a worker between two of its trials has
    none for an instant)."""
    said_at: float | None = None
    said_of: set[int] = set()
    quiet, started = 0, time.monotonic()
    while quiet < quiet_polls:
        running = live_trials(study, timeout_s)
        quiet = 0 if running else quiet + 1
        numbers = {t.number for t in running}
        named = ", ".join(f"#{n}" for n in sorted(numbers))
        if running and said_at is None:
            progress.note(f"waiting for trial {named} of another worker to finish: {why}")
            said_at, said_of = time.monotonic(), numbers
        elif running and said_at is not None and numbers != said_of and time.monotonic() - said_at >= STILL_WAITING_S:
            # one line, then silence through a whole sweep (75 s of 24 trials; hours on a GPU; audit 35 F6)
            progress.note(
                f"still waiting: trial {named} of another worker runs now ({time.monotonic() - started:.0f} s)"
            )
            said_at, said_of = time.monotonic(), numbers
        if quiet < quiet_polls:
            time.sleep(1.0)


STILL_WAITING_S = 30.0
"""How often at most a worker waiting for another's trials says which it waits for now (when that changed)."""


def _confirm_ablate_check(
    study: optuna.Study, opts: SweepOptions, adapter: TrainerAdapter, device: str, progress: SweepProgress
) -> None:
    """Confirmation, the ablation and the equivalence check. A finished study run again keeps what they
    measured when nothing they depend on changed: the same candidates and rounds, then the same winner
    (on a GPU each is minutes to hours). Deleting the result file measures it again."""
    from rich.markup import escape

    from autotune.study.ablation_result import Ablation, ask_ablation
    from autotune.study.confirmation_result import Confirmation, beaten_line
    from autotune.study.result_files import ResultsFileError
    from autotune.sweep.ablation import run_ablation
    from autotune.sweep.confirmation import run_confirmation, top_candidates
    from autotune.sweep.equivalence import result_file, run_equivalence

    def kept(read: Any) -> Any:
        try:
            return read(opts.paths)
        except ResultsFileError:  # a file cut short: measured again, and rewritten
            return None

    set_stage(opts.paths, CONFIRMATION)  # what `best`, `export` and the report say this worker runs now

    ask_ablation(opts.paths, opts.ablate)  # this run's ask is what `best` reads of a winner it did not ablate
    earlier = kept(Confirmation.read)
    base = baseline_trial(study)
    wanted = sorted([base.number] + [t.number for t in top_candidates(study, opts.space, opts.top_k)]) if base else []
    same = earlier is not None and sorted(earlier.candidates) == wanted
    if earlier is not None and same and all(r.rounds == opts.confirm for r in earlier.candidates.values()):
        progress.note(
            f"confirmation measured already (an earlier run, or the worker this one waited for), kept: the same "
            f"{len(wanted)} candidates, {opts.confirm} round{'s' if opts.confirm > 1 else ''} "
            f"(delete {Confirmation.file(opts.paths)} to measure again)"
        )
        confirmation: Confirmation | None = earlier.decided(opts.space.objectives[0].direction == "maximize")
        if confirmation is not None and confirmation.winner != earlier.winner:  # written by an earlier version's rule
            confirmation.write(opts.paths)
            progress.note(f"  its rounds decided again by this version's rule: the winner is #{confirmation.winner}")
        else:
            confirmation = earlier
    else:
        confirmation = run_confirmation(study, opts.space, adapter, opts.paths, opts.top_k, opts.confirm, progress)
    if confirmation is None or confirmation.winner is None:
        return
    reused = confirmation is earlier
    if confirmation.baseline_won:  # nothing to ablate; the equivalence check has nothing to compare
        progress.note(
            f"[yellow]no confirmed candidate beat the baseline: the baseline's systems values ship "
            f"({escape(beaten_line(confirmation.best_candidate(opts.space.objectives[0].direction == 'maximize')))})[/]"
        )
    elif opts.ablate > 0:
        set_stage(opts.paths, ABLATION)
        ablation = kept(Ablation.read) if reused else None
        if ablation is not None and ablation.measured_on(confirmation) and ablation.rounds >= opts.ablate:
            progress.note(f"ablation measured already, kept (delete {Ablation.file(opts.paths)} to measure again)")
        elif run_ablation(study, opts.space, adapter, opts.paths, confirmation, opts.ablate, progress) is not None:
            reused = False  # what ships may have changed
    if reused and result_file(opts.paths).exists():
        progress.note(f"equivalence check run already, kept (delete {result_file(opts.paths)} to run it again)")
    else:
        set_stage(opts.paths, EQUIVALENCE)
        run_equivalence(study, opts.space, adapter, opts.paths, device, progress)


def run_stages(opts: SweepOptions, progress: SweepProgress) -> optuna.Study | None:
    """The stages `opts.stage` asks for: the throughput sweep (with its confirmation), then the quality
    stage on its winner when the space has a `quality:` section. Returns the throughput study (None
    when only the quality stage ran and no throughput study exists)."""
    quality = opts.stage != "throughput" and opts.space.quality is not None and not opts.simulated
    if quality:
        from autotune.sweep.quality_study import check_same_rules

        with opts.paths.lock():  # as `_check_resumable`: not beside another worker creating the database
            check_same_rules(opts.space, opts.paths, opts.url)  # before the throughput stage's minutes, not after

    def then(swept: optuna.Study) -> None:  # in the hold of `.finishing` that confirmed (audit 22 F4)
        if baseline_trial(swept) is not None:
            run_quality_stage(opts, progress, swept)

    study: optuna.Study | None
    if opts.stage != "quality":
        study = run_sweep(opts, progress, then if quality else None)
        if not quality or baseline_trial(study) is not None:
            return study
    else:
        study = _existing_study(opts)
        if study is not None:  # as a sweeping worker is: another folder, another result (it re-ran the seed
            check_one_folder(study, opts.paths)  # confirmation and failed the other's live run; audit 22 F11)
    if (study is None or baseline_trial(study) is None) and quality:
        # `--stage quality` on a new study: its baseline trial first, so the study exists with the systems values
        # the quality stage runs on (best, export and the report read the study, and its space, for both stages).
        # A study another worker has just made is waited for until its baseline has finished: a second worker went
        # on to the quality stage beside the baseline's timed run, on no systems values (audit 19 F1)
        progress.note(
            "no throughput study yet: its baseline trial alone first (the systems values the quality stage uses)"
            if study is None
            else "the throughput study's baseline has not finished: it first (the systems values the quality stage "
            "uses)"
        )
        baseline_only = dataclasses.replace(opts, n_trials=1, confirm=0, ablate=0, fidelity=(REAL,))
        progress.total = 1
        study = run_sweep(baseline_only, progress)
    if quality:
        if study is not None:  # another worker still sweeping: its trials, timed, would share the cores with the
            wait_for_other_workers(  # quality runs, and its winner is not known yet (audit 22 F2)
                study, opts.space.trial.timeout_s, progress, "the quality stage runs on the sweep's winner", 2
            )
        with opts.paths.finishing(progress.note):
            run_quality_stage(opts, progress, study)
    return study


def run_quality_stage(opts: SweepOptions, progress: SweepProgress, study: optuna.Study | None) -> None:
    """The quality stage on the throughput winner's systems values (the baseline's without a winner)."""
    from autotune.study.results import NoWinner, find_winner
    from autotune.sweep.quality import QualityStage

    if not any(p.role == "algorithm" for p in opts.space.params):
        progress.note("quality stage: the space has no algorithm params to judge; skipped")
        return
    set_stage(opts.paths, QUALITY)
    if study is not None:  # in the hold of `.finishing`: a trial another worker asked just before it, then it waits
        wait_for_other_workers(study, opts.space.trial.timeout_s, progress, "the quality stage measures alone")
    systems: dict[str, Any] = {}
    source = "the baseline's systems values (no throughput winner yet)"
    if study is not None:
        try:
            winner = find_winner(study, opts.paths, opts.space)
            systems, source = dict(winner.params), f"the throughput winner #{winner.number}'s systems values"
            if winner.number == getattr(baseline_trial(study), "number", None):  # it read "winner #0"
                source = f"the baseline's systems values (trial #{winner.number}; no other throughput winner)"
            elif winner.ships_baseline:  # what ships is the baseline's: it read "the throughput winner #2's"
                cause = winner.why_baseline.split(":")[0]
                source = f"the baseline's systems values (throughput winner #{winner.number}: {cause})"
        except NoWinner:
            pass
    from autotune.space.stages import systems_values
    from autotune.sweep.quality_study import systems_ran

    systems = systems_values(opts.space, systems)  # as the stage keeps them, to compare with what its runs used
    earlier = systems_ran(opts.paths, opts.url)
    if earlier is not None and earlier != systems:  # its runs are kept: they ran on these, and so will the rest
        changed = ", ".join(f"{k}: {earlier.get(k)} -> {systems.get(k)}" for k in sorted({*earlier, *systems})
                            if earlier.get(k) != systems.get(k))  # fmt: skip
        progress.note(
            f"quality stage kept on the systems values its runs used, not {source} ({changed}): systems knobs leave "
            f"the training math unchanged (the equivalence check). To search again on the new values, remove "
            f"{opts.paths.root}/quality/ and quality.json and delete the study `{opts.paths.name}-quality` "
            f"(optuna delete-study --study-name {opts.paths.name}-quality --storage {redact(opts.url)})"
        )
        systems, source = earlier, "the systems values of its earlier runs"
    progress.note(f"quality stage on {source}")
    adapter = get_adapter(opts.space.trainer, opts.space.command)
    opts.paths.root.mkdir(parents=True, exist_ok=True)
    result = QualityStage(opts.space, adapter, opts.paths, progress, systems, opts.url, opts.quality_trials).run()
    for line in result.lines():
        progress.note(line)


def _existing_study(opts: SweepOptions) -> optuna.Study | None:
    from autotune.study.storage import StudyNotFound, load_study

    try:
        return load_study(opts.paths, opts.storage)
    except StudyNotFound:
        return None


def _predicts(sim_opts: SweepOptions) -> str:
    """What the simulated stage predicts, and a warning when the real trials run on a CPU it does not model: the
    shipped CPU space's top-k were all predicted for an H100 and all broke its memory limit on the CPU (audit 15 F1)."""
    from autotune.sim.sim_fidelity import CostModelFidelity

    fidelity = sim_opts.make_fidelity()
    if not isinstance(fidelity, CostModelFidelity):
        return ""
    said = f" (the cost model predicts {fidelity.cluster.device.name} × {fidelity.cluster.world})"
    if fidelity.device == "cuda" and device_kind() == "cpu":
        said += (
            "; [yellow]the real trials run on this machine's CPU, which it does not model: its ranking may not carry "
            "over (`autotune calibrate STUDY` on a CPU study fits it to this machine, then `--calibration`)[/]"
        )
    return said


def run_multi_fidelity(opts: SweepOptions, progress: SweepProgress) -> optuna.Study:
    """The cost model ranks the space; real trials run only for its top-k and the baseline."""
    from autotune.study.storage import stored_space
    from autotune.sweep.backends.lifecycle import create_or_load
    from autotune.sweep.predicted import distinct_candidates
    from autotune.trial.record import predicted_attrs

    sim_paths = StudyPaths(opts.paths.runs_dir, opts.paths.name + "-sim")
    sim_opts = dataclasses.replace(
        opts, backend="optuna", fidelity=(SIM,), paths=sim_paths, n_trials=opts.sim_trials, confirm=0, hooks=[],
        storage=None,
    )  # fmt: skip
    progress.note(f"fidelity 1/2: {opts.sim_trials} simulated trials in study `{sim_paths.name}`{_predicts(sim_opts)}")
    sim_progress = SweepProgress(opts.sim_trials, progress.objective, progress.sign > 0, progress.console)
    sim_progress.quiet = True
    sim_progress.budget_flag = "--sim-trials"
    sim_study = run_sweep(sim_opts, sim_progress)
    chosen, alike = distinct_candidates(
        sim_study, stored_space(sim_paths), get_adapter(opts.space.trainer, opts.space.command), sim_paths,
        sim_opts.make_fidelity(), opts.top_k,
    )  # fmt: skip
    passed = (
        f" ({alike} passed over: alike, or the baseline, once cut to the changes the model credits)" if alike else ""
    )
    best = "best distinct prediction" if len(chosen) == 1 else f"{len(chosen)} best distinct predictions"
    progress.note(f"fidelity 2/2: real trials of the {best} and the baseline{passed}")
    study = create_or_load(opts.space, opts.paths, opts.url)
    # the knobs the model does not read were held at their baseline values in every prediction: so they are in the
    # real trial of one, or the sampler would draw them and the trial would measure another configuration
    modelled = {p.name for p in stored_space(sim_paths).params}
    space = opts.space
    held = {p.name: space.baseline[p.name] for p in space.params if p.name not in modelled and p.name in space.baseline}
    already = {tuple(sorted(t.params.items())) for t in study.get_trials(deepcopy=False)}
    for trial in chosen:
        params = {**held, **trial.params}
        if tuple(sorted(params.items())) not in already:
            study.enqueue_trial(params, user_attrs=predicted_attrs(trial.number))
    real_opts = dataclasses.replace(opts, fidelity=(REAL,), n_trials=len(chosen) + 1)
    progress.total = real_opts.n_trials
    progress.budget_flag = "--top-k"  # the real phase runs the top-k predictions and the baseline
    study = run_sweep(real_opts, progress)
    StudyInfo(sim_study=sim_paths.name).save(study, "sim_study")
    return study
