"""`autotune validate` and `autotune run`: check a space, run (or resume) a sweep."""

from __future__ import annotations

import contextlib
import datetime
import functools
import math
import os
import signal
import socket
from pathlib import Path
from typing import Annotated

import typer
from rich.markup import escape

from autotune.adapters import device_kind, get_adapter
from autotune.cli import preflight
from autotune.cli.app import (
    RunsDirOpt,
    SpaceOpt,
    StorageOpt,
    TrainerOpt,
    app,
    console,
    err,
    space_or_exit,
)
from autotune.extras import require
from autotune.space.schema import SAMPLERS, Space
from autotune.study.storage import StudyPaths
from autotune.study.storage_errors import redact
from autotune.trial.runner import ask_stop

WANDB_PROJECT = "autotune"
"""The wandb project of a bare `--wandb`."""


def bare_wandb(argv: list[str]) -> list[str]:
    """`--wandb` with no project (last, or before another option) means project `autotune`, as the help says; Typer
    has no option whose value may be left out, so the default is written in before the command line is parsed."""
    out = list(argv)
    for i, arg in enumerate(out):
        if arg == "--":
            break
        if arg == "--wandb" and (i + 1 == len(out) or out[i + 1].startswith("-")):
            out.insert(i + 1, WANDB_PROJECT)
            break
    return out


STOPPED_BY = [int(signal.SIGINT)]
"""The signal that stopped the sweep (its exit status is 128 + it)."""


def stop_on_signal(signum: int, frame: object) -> None:
    """SIGTERM stops a sweep as Ctrl-C does: the running trial's processes are killed on the way out, the
    finished trials stay, and the same command resumes."""
    STOPPED_BY[0] = signum
    ask_stop(signum, frame)


@app.command(short_help="Check a search space without running anything.")
def validate(space: SpaceOpt, trainer: TrainerOpt = None) -> Space:
    """Check a search space without running anything (keys, ranges, metrics, constraints, baseline)."""
    from autotune.space.stages import NOT_SEARCHED, held_values, throughput_stage

    parsed = space_or_exit(space, trainer)
    preflight.check_gpu_or_exit(parsed.sim.gpu, parsed)  # what `--fidelity sim` would refuse, refused here too
    for warning in parsed.warnings:
        err.print(f"[yellow]warning[/] {escape(warning)}")
    objectives = ", ".join(f"{o.direction} {o.metric} ({o.reducer})" for o in parsed.objectives)
    console.print(f"[green]ok[/] {parsed.path}: study `{parsed.name}`, trainer {parsed.trainer}")
    console.print(
        f"  {parsed.trials} trials × {parsed.trial.steps} steps at world {parsed.trial.world_size}; objective: {objectives}"
    )
    held = held_values(throughput_stage(parsed))
    console.print(f"  {len(parsed.params)} params ({len(parsed.params) - len(held)} searched by the throughput stage):")
    for p in parsed.params:
        note = f"  [yellow]{NOT_SEARCHED}; held at its baseline {held[p.name]!r}[/]" if p.name in held else ""
        console.print(f"    {p.role:<9} {escape(p.name)}{note}")
    console.print(
        f"  {len(parsed.derived)} derived keys, {len(parsed.constraints)} constraints, {len(parsed.limits)} limits"
    )
    q = parsed.quality
    if q is not None:
        searched = [p.name for p in parsed.params if p.role == "algorithm"]
        console.print(
            f"  quality stage: {', '.join(searched) or 'no algorithm params'} judged on {q.score_metric} over "
            f"the last {q.score_last} of {q.steps} steps (rungs {q.rungs()}), {q.trials} settings, {q.seeds} seeds; "
            f"bound: {q.kl_window}-step mean {q.kl_metric} <= {q.kl_max:g}"
        )
    else:
        console.print("  no quality stage (no `quality:` section): algorithm knobs stay at their baseline values")
    return parsed  # for `autotune init`, which goes on with it


_Study = Annotated[str | None, typer.Option(help="Study name (default: the space's `name`).")]
_Trials = Annotated[
    int | None,
    typer.Option(
        "--trials",
        "-n",
        min=1,
        help="Finished trials the study should hold (default: the space's `trials`); with --stage quality, the "
        "quality stage's searched settings (default: `quality.trials`).",
    ),
]
_Timeout = Annotated[
    float | None,
    typer.Option(
        min=1,
        help="Stop launching new sweep trials after this many seconds of sweeping (start-up not counted; the later stages still run).",
    ),
]
_Confirm = Annotated[
    int | None,
    typer.Option(min=0, help="Confirmation rounds over the top-k and the baseline (default: the space's)."),
]
_Ablate = Annotated[
    int | None,
    typer.Option(
        min=0,
        help="Ablation rounds after confirmation: only the winner's changes whose gain clears the noise ship "
        "(0: none; default: the space's `confirm.ablation_repeats`, else its confirmation rounds).",
    ),
]
_TopK = Annotated[int | None, typer.Option(min=1, help="Configurations to confirm (default: the space's).")]
_FreezeInert = Annotated[bool, typer.Option(help="Fix knobs that are inert on this platform at their baseline value.")]
_Backend = Annotated[
    str,
    typer.Option(help="optuna (local trials) or ray (Ray Tune on a cluster); sim is short for --fidelity sim."),
]
_Sampler = Annotated[
    str | None,
    typer.Option(help="Optuna sampler instead of the space's `sampler.name`: " + ", ".join(SAMPLERS) + "."),
]
_Fidelity = Annotated[
    str | None,
    typer.Option(help="sim,real: the cost model first, then real trials of its --top-k best and the baseline."),
]
_SimTrials = Annotated[
    int | None, typer.Option(min=1, help="Simulated trials in the first stage of --fidelity sim,real (default 200).")
]
_Gpu = Annotated[
    str | None,
    typer.Option(
        help="Simulated GPU: a preset (H100, H100-NVL, H800, H200, H20, A100, A800, L40S, B200, MI300X) or a device "
        "YAML; overrides the space's sim.gpu (default: sim.gpu, the calibration's GPU, else H100)."
    ),
]
_Model = Annotated[
    str | None, typer.Option(help="Simulated model: a config.json (or its folder) or a preset such as Qwen2.5-7B.")
]
_Calibration = Annotated[
    Path | None,
    typer.Option(help="Cost-model weights from `autotune calibrate` (default: public-figure defaults)."),
]
_Address = Annotated[
    str | None, typer.Option(help="Ray cluster address for --backend ray (default: start a local Ray).")
]
_MaxConcurrent = Annotated[
    int | None, typer.Option(min=1, help="Ray: trials running at once (default: as many as fit).")
]
_Stage = Annotated[
    str,
    typer.Option(
        help="all: the throughput stage, then the quality stage (algorithm knobs judged on learning) when the "
        "space has a `quality:` section; throughput; or quality (on the throughput winner if the study has one)."
    ),
]
_ExportTo = Annotated[Path | None, typer.Option("--export", help="Also write the winner's verl YAML here.")]
_ReportDir = Annotated[Path | None, typer.Option(help="Where the live HTML report goes (default: reports/<study>/).")]
_Wandb = Annotated[
    str | None,
    typer.Option(
        "--wandb",
        metavar="[PROJECT]",
        help="Log each trial to Weights & Biases project PROJECT (bare `--wandb`: project autotune; offline "
        "without an API key).",
    ),
]


@app.command(short_help="Run or resume a sweep; confirm and report the winner.")
def run(
    space: SpaceOpt,
    trainer: TrainerOpt = None,
    study: _Study = None,
    trials: _Trials = None,
    timeout: _Timeout = None,
    storage: StorageOpt = None,
    runs_dir: RunsDirOpt = Path("runs"),
    confirm: _Confirm = None,
    ablate: _Ablate = None,
    top_k: _TopK = None,
    freeze_inert: _FreezeInert = False,
    backend: _Backend = "optuna",
    sampler: _Sampler = None,
    fidelity: _Fidelity = None,
    sim_trials: _SimTrials = None,
    gpu: _Gpu = None,
    model: _Model = None,
    calibration: _Calibration = None,
    address: _Address = None,
    max_concurrent: _MaxConcurrent = None,
    export_to: _ExportTo = None,
    report_dir: _ReportDir = None,
    wandb: _Wandb = None,
    stage: _Stage = "all",
) -> None:
    """Run (or resume) a sweep: baseline first, then sampled trials, then confirmation and the report.

    --fidelity sim (or --backend sim) predicts every trial with the cost model (seconds for hundreds of trials);
    --fidelity sim,real runs the model first and real trials only for its --top-k best and the baseline.
    """
    from autotune.space.stages import throughput_stage
    from autotune.study.progress import SweepProgress
    from autotune.sweep.driver import STAGES, SweepOptions, report_hook, run_stages

    if stage not in STAGES:
        err.print(f"[red]--stage must be one of {', '.join(STAGES)}, got {stage!r}[/]")
        raise typer.Exit(2)
    backend, levels = _levels_or_exit(backend, fidelity)
    _unused_flags_or_exit(levels, confirm, ablate, sim_trials)
    ray_only = [flag for flag, value in (("--address", address), ("--max-concurrent", max_concurrent)) if value]
    if ray_only and backend != "ray":  # ignored otherwise, and --address skipped the check that trials fit here
        verb = "apply" if len(ray_only) > 1 else "applies"
        err.print(f"[red]{' and '.join(ray_only)} {verb} to --backend ray only[/] (add --backend ray, or leave it out)")
        raise typer.Exit(2)
    from autotune.space.schema import SAMPLERS

    if sampler is not None and sampler not in SAMPLERS:  # the flag's fault, not the space file's
        err.print(f"[red]--sampler must be one of {', '.join(SAMPLERS)}, got {sampler!r}[/]")
        raise typer.Exit(2)
    if wandb:
        require("wandb", "--wandb")
    if storage is not None:
        from autotune.study.storage import open_storage

        open_storage(storage)  # a bad URL fails here, before any folder is made or the space's warnings print
    if study is not None:
        StudyPaths(runs_dir, study)  # and a bad --study name (StudyNameError)
    if gpu and "sim" in levels:  # said first, not as the last of the space's warnings (audit 25 F16)
        preflight.check_gpu_flag_or_exit(gpu)
    simulated = levels == ("sim",)
    whole = _prepared_space(space, trainer, sampler, freeze_inert, simulated)
    parsed = throughput_stage(whole)  # what the throughput stage searches (the report and summaries read it)
    if simulated and stage == "quality":  # it did nothing and exited 0
        err.print(
            "[red]--stage quality measures learning over real runs[/]: a simulated sweep cannot run it (the cost "
            "model predicts speed and memory, not learning); leave --fidelity sim out"
        )
        raise typer.Exit(2)
    if stage == "quality" and whole.quality is None:
        err.print(
            f"[red]{whole.path}: --stage quality needs a `quality:` section in the space[/] (its horizon, KL bound "
            "and seeds; see the README's quality stage, or search_spaces/fsdp3d.yaml)"
        )
        raise typer.Exit(2)
    paths = StudyPaths(runs_dir, study or parsed.name)
    confirms = stage != "quality" and (parsed.confirm.repeats if confirm is None else confirm) > 0
    if not simulated:
        preflight.check_machine_or_exit(parsed, address, confirms)
        if whole.quality is not None and stage != "throughput":
            preflight.check_quality_machine_or_exit(whole)
    if backend == "ray" and address:
        preflight.check_ray_head_or_exit(address)
    if "sim" in levels:
        preflight.check_gpu_or_exit(gpu or parsed.sim.gpu, parsed)
        preflight.check_model_or_exit(model, parsed)
        preflight.check_calibration_device_or_exit(calibration, gpu, parsed)
    if export_to is not None:
        preflight.check_export_path_or_exit(export_to)
    preflight.check_report_dir_or_exit(report_dir or Path("reports") / paths.name)
    n_trials = trials or parsed.trials
    first = parsed.objectives[0]
    progress = SweepProgress(n_trials, first.metric, first.direction == "maximize", console)
    progress.quiet = simulated
    mode = "simulated" if simulated else backend
    count = f"{n_trials} {mode} trials"
    if levels == ("sim", "real"):  # the real trials are the model's picks and the baseline, not the space's count
        k = top_k or parsed.confirm.top_k
        count = f"up to {k + 1} real trials (the cost model's {k} best distinct of {sim_trials or 200} predictions, and the baseline)"
    if stage != "quality":
        progress.note(
            f"study `{paths.name}` in {paths.root}/ ({redact(storage) if storage else 'SQLite'}): {count}, "
            f"world {parsed.trial.world_size}"
        )
    q = whole.quality
    if q is not None and stage == "all" and simulated:
        progress.note("the space's quality stage is skipped: a simulated sweep predicts speed and memory, not learning")
    if q is not None and stage == "all" and not simulated:  # minutes more, which --trials and --confirm do not set
        progress.note(
            f"then the quality stage: {q.trials} settings of the algorithm knobs, up to {q.steps} steps each, the best "
            f"checked over {q.seeds} seeds (`--stage throughput` skips it)"
        )
    if backend == "ray" and not simulated:  # Ray runs the sweep's trials only (audit 20 F1, F5)
        here = [
            *(["confirmation", "the ablation"] if confirms else []),
            *(["the quality stage"] if q and stage != "throughput" else []),
        ]
        if stage == "quality":
            progress.note(
                "--backend ray: Ray runs only a missing baseline trial; the quality stage runs on this machine"
            )
        elif here and address:  # a local Ray is this machine: its trials and these share it
            progress.note(
                f"Ray runs the sweep's trials; {', '.join(here)} then run on this machine, not on the cluster"
            )
    reports = report_dir or Path("reports") / paths.name
    hooks = [report_hook(lambda s: _refresh_report(s, paths, parsed, reports))]
    refresh = functools.partial(_refresh_report, paths=paths, space=parsed, out_dir=reports)
    logger = _wandb_logger(wandb, paths, hooks, progress)
    fitted = preflight.calibration_or_exit(calibration)
    options = SweepOptions(
        space=whole, stage=stage, quality_trials=trials if stage == "quality" else None, paths=paths, n_trials=n_trials, storage=storage, timeout_s=timeout, backend=backend,
        address=address, max_concurrent=max_concurrent, confirm=parsed.confirm.repeats if confirm is None else confirm,
        ablate=_ablation_rounds(parsed, confirm, ablate), top_k=top_k or parsed.confirm.top_k, gpu=gpu, model=model,
        calibration=fitted.raw if fitted else None, fidelity=levels, sim_trials=sim_trials or 200, hooks=hooks,
        refresh=refresh,
    )  # fmt: skip
    from autotune.study.live import working

    # held while the stages run (not while this worker writes its own report and export at the end): `best`,
    # `export` and the report, its own refreshed ones too, say the study is still running
    plan = {"stage": stage, "trials": n_trials, "top_k": options.top_k, "confirm": options.confirm,
            "ablate": options.ablate, "fidelity": ",".join(levels)}  # fmt: skip
    with working(paths, plan):
        started = datetime.datetime.now()
        from autotune.sweep.backends.base import RayUnreachable

        try:
            study_run = run_stages(options, progress)
        except RayUnreachable as exc:
            err.print(
                f"[red]{escape(str(exc))}.[/] Check the host and port (`ray status` on the head prints the address), or "
                "leave --address out to start a local Ray; the study's finished trials are kept."
            )
            raise typer.Exit(2) from None
        except KeyboardInterrupt:  # the running trial's processes were killed on the way out
            how = (
                "interrupted" if STOPPED_BY[0] == signal.SIGINT else f"stopped by {signal.Signals(STOPPED_BY[0]).name}"
            )
            rewrite = f"autotune report {paths.name}{paths.flags(storage)}" + (f" -o {reports}" if report_dir else "")
            from autotune.study.live import other_workers

            others = other_workers(paths, plan)  # it said only "resume" while another went on with the study (35 F5)
            going_on = f"; {' and '.join(others)} {'goes' if len(others) == 1 else 'go'} on with it" if others else ""
            if any("(started with" in w for w in others):  # its flags measure or keep other things (audit 38 F6)
                going_on += ", with its own flags: this command again goes on with yours"
            err.print(
                f"\n[yellow]{how}[/]{going_on}; run the same command again to resume (finished trials, and the finished rounds of "
                f"confirmation, the ablation and the quality stage, are kept in {paths.root}/); the report in {reports}/ "
                f"is as it was last written (`{rewrite}` rewrites it)"
            )
            raise typer.Exit(128 + STOPPED_BY[0]) from None
    summary = _time_summary(study_run, started) if not simulated and study_run is not None else None
    if summary:
        progress.note(summary)
    quality_ran = whole.quality is not None and stage != "throughput" and not simulated
    if whole.quality is not None and not simulated:  # after `--stage throughput` too: the report links to it, and
        _write_quality_report(paths, whole, reports)  # a new --report-dir had no quality.html (a dead link)
    if study_run is not None:  # None: the quality stage alone, without a throughput study
        from autotune.study.live import closing_on_own_decision

        # a worker that ran the stages itself closes on its decision; one that ran none (--confirm 0 --stage
        # throughput) beside another's confirmation says that it runs (its summary's x2.35 became x1.70; 34 F6)
        decided_here = not simulated and (confirms or quality_ran)
        with closing_on_own_decision(plan) if decided_here else contextlib.nullcontext():
            _after_sweep(paths, storage, parsed, reports, progress, logger, export_to)
    if quality_ran:
        _exit_if_undecided(paths)


def _exit_if_undecided(paths: StudyPaths) -> None:
    """Exit 1 when the quality stage's runs ended early (a crash, a timeout) and left it deciding nothing: it exited
    0 with "run the same command again", so `autotune run ... && autotune export ...` went on (audit 32 F1)."""
    from autotune.study.quality_result import Quality

    quality = Quality.read(paths)
    if quality is not None and quality.undecided:
        err.print(f"[red]the quality stage decided nothing: {escape(quality.verdict)}[/]")
        raise typer.Exit(1)


def _ablation_rounds(space: Space, confirm: int | None, ablate: int | None) -> int:
    """--ablate, else the space's `confirm.ablation_repeats`, else as many rounds as confirmation."""
    if ablate is not None:
        return ablate
    if space.confirm.ablation_repeats is not None:
        return space.confirm.ablation_repeats
    return space.confirm.repeats if confirm is None else confirm


def _levels_or_exit(backend: str, fidelity: str | None) -> tuple[str, tuple[str, ...]]:
    """(registered backend, fidelity levels). `--backend sim` is kept as the short way to say
    `--fidelity sim` (the cost model predicts every trial, on the optuna backend)."""
    from autotune.sweep.backends.base import BACKENDS
    from autotune.sweep.fidelities import PLANS, SIM

    if backend not in (*BACKENDS, SIM):
        err.print(f"[red]--backend must be one of {', '.join(BACKENDS)} (or sim), got {backend!r}[/]")
        raise typer.Exit(2)
    levels = tuple(fidelity.split(",")) if fidelity else ()
    if levels not in PLANS:
        err.print(f"[red]--fidelity must be sim, real or sim,real, got {fidelity!r}[/]")
        raise typer.Exit(2)
    if backend == SIM:
        if levels not in ((), (SIM,)):
            err.print(f"[red]--backend sim is short for --fidelity sim[/]: with --fidelity {fidelity}, leave it out")
            raise typer.Exit(2)
        return "optuna", (SIM,)
    if backend == "ray" and levels == (SIM,):  # each prediction waited forever for the trial's GPUs
        err.print(
            "[red]--fidelity sim predicts on the optuna backend[/] (seconds for hundreds of trials): leave --backend "
            "ray out (with --fidelity sim,real its real trials run on Ray)"
        )
        raise typer.Exit(2)
    if backend == "ray":
        require("ray", "--backend ray")
    return backend, levels


def _unused_flags_or_exit(
    levels: tuple[str, ...], confirm: int | None, ablate: int | None, sim_trials: int | None
) -> None:
    """Flags the sweep would ignore, refused: confirmation and the ablation re-measure real trials, which a
    simulated sweep has none of (the cost model credits each change instead); --sim-trials counts the first
    stage of sim,real (a simulated sweep's count is --trials)."""
    measuring = [flag for flag, value in (("--confirm", confirm), ("--ablate", ablate)) if value]
    if levels == ("sim",) and measuring:
        verb = "re-measure" if len(measuring) > 1 else "re-measures"
        err.print(
            f"[red]{' and '.join(measuring)} {verb} real trials[/], which a simulated sweep has none of (the cost "
            "model credits each change of its winner instead): leave them out, or use --fidelity sim,real"
        )
        raise typer.Exit(2)
    if ablate == 1:  # its verdicts are intervals over rounds: one round has none (it was skipped at the end)
        err.print("[red]--ablate 1: the ablation needs at least 2 rounds[/] (give 2 or more, or 0 for none)")
        raise typer.Exit(2)
    if sim_trials is not None and levels != ("sim", "real"):
        err.print(
            "[red]--sim-trials sets the simulated stage of --fidelity sim,real[/] (a simulated sweep's count is "
            "--trials): leave it out, or add --fidelity sim,real"
        )
        raise typer.Exit(2)


def _prepared_space(space: str, trainer: str | None, sampler: str | None, freeze_inert: bool, simulated: bool) -> Space:
    """The space file loaded and checked, its warnings printed, inert knobs frozen when asked."""
    from autotune.space.freeze import freeze, inert_params

    parsed = space_or_exit(space, trainer, sampler)
    for warning in parsed.warnings:
        err.print(f"[yellow]warning[/] {escape(warning)}")
    inert = inert_params(parsed, get_adapter(parsed.trainer, parsed.command).knob_status, device_kind())
    if inert and not freeze_inert and not simulated:  # after any warning, inert or not, it was said (audit 38 F12)
        err.print(
            f"[yellow]  tuning {escape(', '.join(inert))} changes nothing here; pass --freeze-inert to fix "
            f"{'them' if len(inert) > 1 else 'it'} at {'their' if len(inert) > 1 else 'its'} baseline "
            f"value{'s' if len(inert) > 1 else ''}[/]"
        )
    from autotune.space.stages import describe_held, throughput_stage

    for line in describe_held(throughput_stage(parsed)):
        err.print(f"[yellow]held[/] {escape(line)}")
    return freeze(parsed, device_kind()) if freeze_inert else parsed


def _write_quality_report(paths: StudyPaths, space: Space, reports: Path) -> None:
    from autotune.report.quality_page import write_quality_report

    try:
        out = write_quality_report(paths, space, reports)
    except Exception as exc:  # the stage's results are safe in quality.json
        err.print(f"[red]writing the quality report failed: {exc}[/]")
        return
    if out is not None:
        console.print(f"quality report: {out}")


def _wandb_logger(project: str | None, paths: StudyPaths, hooks: list, progress):  # type: ignore[no-untyped-def,type-arg]
    if not project:
        return None
    from autotune.sweep.wandb_log import WandbLogger

    logger = WandbLogger(project, paths)
    hooks.append(lambda s, number: logger.log_trial(s, number))
    progress.note(f"wandb: project `{project}` ({logger.mode}, files in {logger.dir}/)")
    return logger


def _after_sweep(paths, storage, space, reports, progress, logger, export_to) -> None:  # type: ignore[no-untyped-def]
    """The final report, the winner, the wandb summary and the export asked for."""
    from autotune.cli.reading import export_winner, log_wandb_summary, print_best, write_report_file

    try:
        progress.note(f"report: {write_report_file(paths, space, reports, storage)}")
    except (Exception, typer.Exit) as exc:  # the sweep's results are safe in the storage; say so and go on
        why = f": {escape(str(exc))}" if not isinstance(exc, typer.Exit) else " (said above)"
        err.print(
            f"[red]writing the report failed{why}[/] (retry with `autotune report {paths.name}{paths.flags(storage)}`)"
        )
    shown = print_best(paths, storage, space)
    if logger is not None:
        log_wandb_summary(logger, paths, storage, space)
    if (
        shown is None
    ):  # `run ... && export ...` went on after a sweep where nothing ran, as `best` exits 1 (audit 25 F4)
        raise typer.Exit(1)
    if export_to is not None:  # marked NOT FOR SHIPPING (exit 1) when the equivalence check failed
        export_winner(paths, storage, export_to, check=False, predicted=True)  # a simulated sweep's, labelled as one
    if not shown.equivalence_ok:  # it exited 0 after "equivalence check FAILED" (audit 26 F1)
        raise typer.Exit(1)


def _time_summary(study, started: datetime.datetime) -> str | None:  # type: ignore[no-untyped-def]
    """Where this worker's trials' time went: training steps against everything else (process start-up,
    imports, model build, teardown, the controller between trials), from the first trial this
    invocation started to the last one it finished (confirmation re-runs not included). Other workers'
    trials are theirs (each worker's line counted every trial of the study, audit 17 F8); a reused result
    ran nothing and is counted apart."""

    from autotune.report.data import time_outside_steps
    from autotune.trial.record import SKIPPED, TrialRecord

    me = (socket.gethostname(), os.getpid())
    span, share = time_outside_steps(study, since=started, worker=me)
    if math.isnan(share):
        return None
    ran = reused = 0
    for t in study.get_trials(deepcopy=False):
        rec = TrialRecord.of(t)
        mine = rec.controller == me  # under Ray, the driver that asked for it (audit 20 F4)
        if mine and t.datetime_complete and t.datetime_start and t.datetime_start >= started and rec.outcome != SKIPPED:
            ran, reused = ran + (rec.duplicate_of is None), reused + (rec.duplicate_of is not None)
    if not ran:  # only reused results: "0 sweep trials (and 2 reused, not run) in 0 s, ...: 100% outside them"
        return (
            f"time: no sweep trial ran in this worker ({reused} reused a finished trial's result)" if reused else None
        )
    train = span * (1 - share)
    also = f" (and {reused} reused, not run)" if reused else ""
    trials = f"{ran} sweep trial{'s' if ran != 1 else ''}"  # not confirmation's or the quality stage's runs
    return f"time: {trials}{also} in {span:.0f} s, {train:.0f} s in training steps: {share:.0%} outside them"


def _refresh_report(study, paths: StudyPaths, space: Space, out_dir: Path) -> None:  # type: ignore[no-untyped-def]
    import warnings

    from autotune.report import write_report

    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            write_report(study, paths, space, out_dir)
    except Exception as exc:  # a report problem must never stop a sweep
        err.print(f"[yellow]report refresh failed: {exc}[/]")
