"""The `autotune` command line: run, validate, trials, best, export."""

from __future__ import annotations

import datetime
import math
import sys
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.markup import escape
from rich.table import Table

from autotune.adapters import device_kind, get_adapter
from autotune.space.loader import SpaceError, load_space
from autotune.space.schema import SAMPLERS, Space
from autotune.study.storage import StorageError, StudyNameError, StudyNotFound, StudyPaths, load_study

app = typer.Typer(
    help="Tune a verl KL-PPO job: sweep a search space with short real trials, read the result, export the winner.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)
_WIDTH = None if sys.stdout.isatty() else 160  # rich assumes 80 columns when piped; tables need more
console = Console(highlight=False, soft_wrap=True, width=_WIDTH)
err = Console(stderr=True, highlight=False, soft_wrap=True, width=_WIDTH)

SpaceOpt = Annotated[
    str, typer.Option("--space", "-s", help="Search-space YAML, or a shipped name: fsdp3d, fsdp3d-8gpu.")
]
RunsDirOpt = Annotated[Path, typer.Option("--runs-dir", help="Folder holding one subfolder per study.")]
StorageOpt = Annotated[
    str | None,
    typer.Option(
        "--storage",
        help="Optuna RDB URL shared by several workers (default: SQLite in runs/<study>/study.db).",
    ),
]
TrainerOpt = Annotated[
    str | None,
    typer.Option("--trainer", help="Run the space on this trainer instead of the file's `trainer`: builtin or verl."),
]
StudyArg = Annotated[str, typer.Argument(help="Study name (the space's `name`, e.g. fsdp3d).")]


def _space_or_exit(space: str, trainer: str | None = None, sampler: str | None = None) -> Space:
    try:
        return load_space(space, device=device_kind(), trainer=trainer, sampler=sampler)
    except SpaceError as exc:
        err.print(f"[red]invalid search space[/] ({len(exc.problems)} problem{'s' if len(exc.problems) > 1 else ''}):")
        for problem in exc.problems:
            err.print(f"  {escape(problem)}")
        raise typer.Exit(2) from None


def _study_space(paths: StudyPaths) -> Space:
    if not paths.space_copy.exists():
        err.print(f"[red]no study `{paths.name}` under {paths.runs_dir}/[/] (run `autotune run --space ...` first)")
        raise typer.Exit(2)
    return _space_or_exit(str(paths.space_copy))


@app.command()
def validate(space: SpaceOpt, trainer: TrainerOpt = None) -> None:
    """Check a search space without running anything (keys, ranges, metrics, constraints, baseline)."""
    parsed = _space_or_exit(space, trainer)
    for warning in parsed.warnings:
        err.print(f"[yellow]warning[/] {escape(warning)}")
    tuned = ", ".join(p.name.rsplit(".", 1)[-1] for p in parsed.params)
    objectives = ", ".join(f"{o.direction} {o.metric} ({o.reducer})" for o in parsed.objectives)
    console.print(f"[green]ok[/] {parsed.path}: study `{parsed.name}`, trainer {parsed.trainer}")
    console.print(
        f"  {parsed.trials} trials × {parsed.trial.steps} steps at world {parsed.trial.world_size}; objective: {objectives}"
    )
    console.print(f"  {len(parsed.params)} params: {tuned}")
    console.print(
        f"  {len(parsed.derived)} derived keys, {len(parsed.constraints)} constraints, {len(parsed.limits)} limits"
    )


@app.command()
def run(
    space: SpaceOpt,
    trainer: TrainerOpt = None,
    study: Annotated[str | None, typer.Option(help="Study name (default: the space's `name`).")] = None,
    trials: Annotated[
        int | None,
        typer.Option(
            "--trials",
            "-n",
            min=1,
            help="Finished trials the study should hold (default: the space's `trials`).",
        ),
    ] = None,
    timeout: Annotated[
        float | None, typer.Option(min=1, help="Stop launching new trials after this many seconds.")
    ] = None,
    storage: StorageOpt = None,
    runs_dir: RunsDirOpt = Path("runs"),
    confirm: Annotated[
        int | None,
        typer.Option(min=0, help="Confirmation rounds over the top-k and the baseline (default: the space's)."),
    ] = None,
    top_k: Annotated[int | None, typer.Option(min=1, help="Configurations to confirm (default: the space's).")] = None,
    freeze_inert: Annotated[
        bool, typer.Option(help="Fix knobs that are inert on this platform at their baseline value.")
    ] = False,
    backend: Annotated[
        str,
        typer.Option(
            help="optuna (local trials), ray (Ray Tune on a cluster) or sim (the cost model predicts each trial)."
        ),
    ] = "optuna",
    sampler: Annotated[
        str | None,
        typer.Option(help="Optuna sampler instead of the space's `sampler.name`: " + ", ".join(SAMPLERS) + "."),
    ] = None,
    fidelity: Annotated[
        str | None,
        typer.Option(help="sim,real: the cost model first, then real trials of its --top-k best and the baseline."),
    ] = None,
    sim_trials: Annotated[
        int, typer.Option(min=1, help="Simulated trials in the first stage of --fidelity sim,real.")
    ] = 200,
    gpu: Annotated[
        str | None,
        typer.Option(
            help="Simulated GPU: a preset (H100, H800, H200, H20, A100, A800, L40S, B200, MI300X) or a device "
            "YAML; overrides the space's sim.gpu (default: sim.gpu, the calibration's GPU, else H100)."
        ),
    ] = None,
    model: Annotated[
        str | None, typer.Option(help="Simulated model: a config.json (or its folder) or a preset such as Qwen2.5-7B.")
    ] = None,
    calibration: Annotated[
        Path | None,
        typer.Option(help="Cost-model weights from `autotune calibrate` (default: public-figure defaults)."),
    ] = None,
    address: Annotated[
        str | None, typer.Option(help="Ray cluster address for --backend ray (default: start a local Ray).")
    ] = None,
    max_concurrent: Annotated[
        int | None, typer.Option(min=1, help="Ray: trials running at once (default: as many as fit).")
    ] = None,
    export_to: Annotated[Path | None, typer.Option("--export", help="Also write the winner's verl YAML here.")] = None,
    report_dir: Annotated[
        Path | None, typer.Option(help="Where the live HTML report goes (default: reports/<study>/).")
    ] = None,
    wandb: Annotated[
        str | None,
        typer.Option(
            "--wandb",
            flag_value="autotune",
            help="Log each trial to Weights & Biases project PROJECT (offline without an API key).",
        ),
    ] = None,
) -> None:
    """Run (or resume) a sweep: baseline first, then sampled trials, then confirmation and the report.

    --backend sim predicts every trial with the cost model (seconds for hundreds of trials);
    --fidelity sim,real runs the model first and real trials only for its --top-k best and the baseline.
    """
    from autotune.space.freeze import freeze
    from autotune.study.progress import SweepProgress
    from autotune.sweep.driver import BACKENDS, SweepOptions, report_hook, run_sweep

    if backend not in BACKENDS:
        err.print(f"[red]--backend must be one of {', '.join(BACKENDS)}, got {backend!r}[/]")
        raise typer.Exit(2)
    levels = tuple(fidelity.split(",")) if fidelity else ()
    if levels not in ((), ("sim",), ("real",), ("sim", "real")):
        err.print(f"[red]--fidelity must be sim, real or sim,real, got {fidelity!r}[/]")
        raise typer.Exit(2)
    if levels == ("sim",):
        backend, levels = "sim", ()
    parsed = _space_or_exit(space, trainer, sampler)
    for warning in parsed.warnings:
        err.print(f"[yellow]warning[/] {escape(warning)}")
    if parsed.warnings and not freeze_inert and backend != "sim":
        err.print(
            "[yellow]  tuning these changes nothing here; pass --freeze-inert to fix them at their baseline values[/]"
        )
    if freeze_inert:
        parsed = freeze(parsed, device_kind())
    paths = StudyPaths(runs_dir, study or parsed.name)
    if storage is not None:
        from autotune.study.storage import open_storage

        open_storage(storage)  # a bad URL fails here, before any folder is made
    if backend != "sim":
        _check_machine_or_exit(parsed, address)
    n_trials = trials or parsed.trials
    first = parsed.objectives[0]
    progress = SweepProgress(n_trials, first.metric, first.direction == "maximize", console)
    progress.quiet = backend == "sim"
    mode = "simulated" if backend == "sim" else backend
    progress.note(
        f"study `{paths.name}` in {paths.root}/ ({storage or 'SQLite'}): {n_trials} {mode} trials, world {parsed.trial.world_size}"
    )
    reports = report_dir or Path("reports") / paths.name
    hooks = [report_hook(lambda s: _refresh_report(s, paths, parsed, reports))]
    logger = None
    if wandb:
        from autotune.sweep.wandb_log import WandbLogger

        logger = WandbLogger(wandb, paths)
        hooks.append(lambda s, number: logger.log_trial(s, number))
        progress.note(f"wandb: project `{wandb}` ({logger.mode}, files in {logger.dir}/)")
    options = SweepOptions(
        space=parsed, paths=paths, n_trials=n_trials, storage=storage, timeout_s=timeout, backend=backend,
        address=address, max_concurrent=max_concurrent, confirm=parsed.confirm.repeats if confirm is None else confirm,
        top_k=top_k or parsed.confirm.top_k, report_dir=reports, trainer_override=trainer, gpu=gpu, model=model,
        calibration=_calibration_or_exit(calibration), fidelity=levels, sim_trials=sim_trials, hooks=hooks,
    )  # fmt: skip
    started = datetime.datetime.now()
    try:
        study_run = run_sweep(options, progress)
    except KeyboardInterrupt:  # the running trial's processes were killed on the way out
        err.print(
            f"\n[yellow]interrupted[/]; run the same command again to resume (finished trials are kept in {paths.root}/)"
        )
        raise typer.Exit(130) from None
    summary = _time_summary(study_run, started) if backend != "sim" else None
    if summary:
        progress.note(summary)
    try:
        progress.note(f"report: {_write_report(paths, parsed, reports, storage)}")
    except Exception as exc:  # the sweep's results are safe in the storage; say so and go on
        err.print(f"[red]writing the report failed: {exc}[/] (retry with `autotune report {paths.name}`)")
    _print_best(paths, storage, parsed)
    if logger is not None:
        _log_wandb_summary(logger, paths, storage, parsed)
    if export_to is not None:
        _export(paths, storage, export_to, check=False)


def _time_summary(study, started: datetime.datetime) -> str | None:  # type: ignore[no-untyped-def]
    """Where the trials' time went: training steps against everything else (process start-up,
    imports, model build, teardown, the controller between trials), from the first trial this
    invocation started to the last one it finished (confirmation re-runs not included)."""
    ran = [t for t in study.get_trials(deepcopy=False) if t.datetime_start and t.datetime_start >= started]
    ends = [t.datetime_complete for t in ran if t.datetime_complete]
    if not ran or not ends:
        return None
    span = (max(ends) - min(t.datetime_start for t in ran)).total_seconds()
    train = sum(float(t.user_attrs.get("train_s") or 0.0) for t in ran)
    share = 1 - train / span if span > 0 else 0.0
    return f"time: {len(ran)} trials in {span:.0f} s, {train:.0f} s in training steps: {share:.0%} outside them"


def _check_machine_or_exit(space: Space, address: str | None) -> None:
    """Local trials must fit this machine: a world of 64 ranks on 2 cores only thrashes."""
    if address is not None or space.command:  # a cluster, or a launcher that submits elsewhere
        return
    import os

    world, threads = space.trial.world_size, space.trial.threads_per_rank
    if device_kind() == "cuda":
        import torch

        need, have, unit = world, torch.cuda.device_count(), "GPUs"
        rule = f"`trial.world_size` {world} needs {world} GPUs"
    else:
        need, have, unit = world * threads, os.cpu_count() or 1, "cores"
        rule = f"`trial.world_size` {world} × `trial.threads_per_rank` {threads} needs {need} cores"
    if need > have:
        err.print(
            f"[red]{space.path}: {rule}; this machine has {have} {unit}.[/] Lower `trial.world_size`, predict "
            "the space with --backend sim, or run it on a cluster with --backend ray --address HOST:6379"
        )
        raise typer.Exit(2)


def _calibration_or_exit(path: Path | None) -> dict | None:  # type: ignore[type-arg]
    if path is None:
        return None
    from autotune.sim.model import load_calibration

    try:
        return load_calibration(path)
    except (OSError, ValueError) as exc:
        err.print(f"[red]--calibration {path}: {exc}[/]")
        raise typer.Exit(2) from None


def _refresh_report(study, paths: StudyPaths, space: Space, out_dir: Path) -> None:  # type: ignore[no-untyped-def]
    import warnings

    from autotune.report import write_report

    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            write_report(study, paths, space, out_dir)
    except Exception as exc:  # a report problem must never stop a sweep
        err.print(f"[yellow]report refresh failed: {exc}[/]")


@app.command("trials")
def trials_cmd(study: StudyArg, runs_dir: RunsDirOpt = Path("runs"), storage: StorageOpt = None) -> None:
    """A table of the study's trials: outcome, reason, objectives and key metrics."""
    from autotune.study.frames import trials_frame

    frame = trials_frame(_load(StudyPaths(runs_dir, study), storage))
    table = Table(title=f"study {study}")
    objectives = [c for c in frame.columns if c.startswith("objective:")]
    metrics = ("throughput", "step_s", "mfu", "comm_share", "kl", "memory_gb", "rss_gb")
    shown = [k for k in metrics if f"objective:perf/{k}" not in objectives]
    columns = ["number", "outcome", "reason", *objectives, *shown, "wall_s"]
    for col in columns:
        table.add_column(
            col.removeprefix("objective:"), justify="right" if col not in ("outcome", "reason") else "left"
        )
    for _, row in frame.iterrows():
        cells = []
        for col in columns:
            value = row.get(col)
            if col == "number" and row.get("baseline"):
                cells.append(f"{value} (baseline)")
            elif isinstance(value, float):
                cells.append("" if math.isnan(value) else f"{value:.4g}")
            else:
                cells.append("" if value is None else str(value))
        table.add_row(*cells)
    console.print(table)


@app.command()
def best(study: StudyArg, runs_dir: RunsDirOpt = Path("runs"), storage: StorageOpt = None) -> None:
    """The winner: confirmed speedup over the baseline when confirmation ran, and its tuned settings."""
    paths = StudyPaths(runs_dir, study)
    _print_best(paths, storage, _study_space(paths))


@app.command("export")
def export_cmd(
    study: StudyArg,
    output: Annotated[
        Path,
        typer.Option("--output", "-o", help="Where to write the verl YAML (a .overrides file goes next to it)."),
    ] = Path("best.yaml"),
    check: Annotated[
        bool,
        typer.Option(help="Compose the result with verl's own hydra config and fail on any key verl rejects."),
    ] = False,
    runs_dir: RunsDirOpt = Path("runs"),
    storage: StorageOpt = None,
) -> None:
    """Write the winner as nested verl YAML plus `key=value` overrides for verl.trainer.main_ppo."""
    _export(StudyPaths(runs_dir, study), storage, output, check)


def _load(paths: StudyPaths, storage: str | None):  # type: ignore[no-untyped-def]
    try:
        return load_study(paths, storage)
    except (StudyNotFound, StorageError) as exc:
        err.print(f"[red]{escape(str(exc))}[/]")
        raise typer.Exit(2) from None


def _print_best(paths: StudyPaths, storage: str | None, space: Space) -> None:
    from autotune.export.winner import ExportError, export_settings, find_winner

    study = _load(paths, storage)
    try:
        winner = find_winner(study, paths, space)
    except ExportError as exc:
        err.print(f"[yellow]{exc}[/]")
        return
    speed = ""
    if winner.speedup is not None:
        spread = f" [{winner.speedup_spread[0]:.2f}, {winner.speedup_spread[1]:.2f}]" if winner.speedup_spread else ""
        speed = f", {winner.speedup:.2f}x the baseline{spread}"
    console.print(
        f"[bold green]winner[/]: trial #{winner.number} ({winner.source}{speed}), {space.objectives[0].metric} = {winner.value:.5g}"
    )
    from autotune.report.data import summary

    s = summary(study, paths, space)
    console.print(f"  memory {s.memory_ratio:.3g}x the baseline ({s.memory_metric}), peak RSS {s.rss_ratio:.3g}x")
    from autotune.export.winner import sweep_device

    settings = export_settings(space, get_adapter(space.trainer, space.command), winner.params, sweep_device(study))
    for key in dict.fromkeys([*winner.params, *(k for k in settings if k not in space.base)]):
        if key in settings:
            console.print(f"  {key} = {settings[key]}")


def _export(paths: StudyPaths, storage: str | None, output: Path, check: bool) -> None:
    from autotune.export.winner import ExportError, export

    space = _study_space(paths)
    try:
        winner, yaml_path, overrides_path = export(
            _load(paths, storage), paths, space, get_adapter(space.trainer, space.command), output
        )
    except ExportError as exc:
        err.print(f"[red]{escape(str(exc))}[/]")
        raise typer.Exit(1) from None
    console.print(f"wrote {yaml_path} and {overrides_path} (trial #{winner.number}, {winner.source})")
    if check:
        from autotune.adapters.verl_config import VerlNotInstalled
        from autotune.export.winner import check_export

        try:
            problems, count = check_export(yaml_path, overrides_path)
        except VerlNotInstalled as exc:
            err.print(f"[red]--check: {exc}[/]")
            raise typer.Exit(1) from None
        for problem in problems:
            err.print(f"[red]verl rejects the export:[/] {problem}")
        if problems:
            raise typer.Exit(1)
        console.print(f"[green]verl accepts it[/]: {count} overrides compose with verl's ppo_trainer config")


@app.command()
def calibrate(
    study: Annotated[str | None, typer.Argument(help="Study name (omit with --verl-log).")] = None,
    verl_log: Annotated[list[Path] | None, typer.Option(help="A verl console log of a real run (repeatable).")] = None,
    verl_config: Annotated[
        list[Path] | None, typer.Option(help="The overrides (key=value) or YAML config of each --verl-log, in order.")
    ] = None,
    gpu: Annotated[str | None, typer.Option(help="GPU the logged runs ran on (preset or device YAML).")] = None,
    output: Annotated[
        Path | None,
        typer.Option(
            "--output", "-o", help="Where to write the fitted weights (default: runs/<study>/calibration.json)."
        ),
    ] = None,
    holdout: Annotated[
        float, typer.Option(min=0.0, max=0.9, help="Share of trials held back to measure the prediction error.")
    ] = 0.0,
    runs_dir: RunsDirOpt = Path("runs"),
    storage: StorageOpt = None,
) -> None:
    """Fit the cost model to a study's measured trials, or to real verl runs (--verl-log with --verl-config)."""
    import json as _json

    from autotune.sim.calibrate import calibrate_study

    if verl_log or study is None:
        from autotune.sim.verl_log import calibrate_logs_to_file

        try:
            _, lines = calibrate_logs_to_file(verl_log or [], verl_config or [], gpu, None, output)
        except (OSError, ValueError) as exc:
            err.print(f"[red]{escape(str(exc))}[/]")
            raise typer.Exit(1) from None
        for line in lines:
            console.print(line)
        return
    paths = StudyPaths(runs_dir, study)
    space = _study_space(paths)
    try:
        result = calibrate_study(
            paths, _load(paths, storage), space, get_adapter(space.trainer, space.command), holdout
        )
    except ValueError as exc:
        err.print(f"[red]{escape(str(exc))}[/]")
        raise typer.Exit(1) from None
    out = output or paths.root / "calibration.json"
    out.write_text(_json.dumps(result, indent=2, default=str))
    console.print(
        f"fitted on {len(result['trials'])} trials: median step-time error {result['fit_error_median']:.1%} (in sample)"
    )
    if "holdout_error_median" in result:
        console.print(
            f"held back {len(result['holdout_trials'])} trials: median step-time error {result['holdout_error_median']:.1%}"
        )
    console.print(f"wrote {out}; use it with: autotune run --space ... --backend sim --calibration {out}")


def main() -> None:
    """The entry point: bad study names and storage URLs end in one line and exit 2, not a traceback."""
    try:
        app()
    except (StorageError, StudyNameError) as exc:
        err.print(f"[red]{escape(str(exc))}[/]")
        sys.exit(2)


def _write_report(paths: StudyPaths, space: Space, out_dir: Path, storage: str | None) -> Path:
    import warnings

    from autotune.report import write_report

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # PED-ANOVA's reminder about minimisation: the data layer orients it
        return write_report(_load(paths, storage), paths, space, out_dir)


def _log_wandb_summary(logger, paths: StudyPaths, storage: str | None, space: Space) -> None:  # type: ignore[no-untyped-def]
    from autotune.export.winner import ExportError, find_winner

    study = _load(paths, storage)
    try:
        w = find_winner(study, paths, space)
        winner = {"winner": w.number, "source": w.source, "objective": w.value, "speedup": w.speedup}
    except ExportError:
        winner = {"winner": None}
    logger.log_summary(study, winner)


@app.command()
def report(
    study: StudyArg,
    output: Annotated[
        Path | None, typer.Option("--output", "-o", help="Folder for index.html (default: reports/<study>/).")
    ] = None,
    check: Annotated[
        bool,
        typer.Option(help="Open it in headless Chromium: fail on page errors or unrendered plots; save a screenshot."),
    ] = False,
    runs_dir: RunsDirOpt = Path("runs"),
    storage: StorageOpt = None,
) -> None:
    """Write the sweep report: summary and health checklist, history, importances, phases, failures, trials."""
    paths = StudyPaths(runs_dir, study)
    space = _study_space(paths)
    path = _write_report(paths, space, output or Path("reports") / study, storage)
    console.print(f"wrote {path}")
    if check:
        from autotune.report.browser import inspect

        result = inspect(path, path.parent / "screenshot.png")
        console.print(
            f"browser: {result.rendered}/{result.plots} plots rendered, sections: {', '.join(result.sections)}"
        )
        for problem in [*result.page_errors, *result.console_errors, *result.external]:
            err.print(f"[red]{escape(str(problem))}[/]")
        if result.label_overlaps:
            err.print(f"[red]{result.label_overlaps} pairs of parallel-coordinates axis titles overlap[/]")
        if result.plots != result.rendered:
            err.print(f"[red]{result.plots - result.rendered} of {result.plots} plots did not render[/]")
        if result.screenshot:
            console.print(f"screenshot: {result.screenshot}")
        if not result.ok:
            raise typer.Exit(1)


@app.command("explain")
def explain_cmd(
    study: StudyArg,
    repeats: Annotated[
        int, typer.Option(min=1, help="Interleaved runs of every configuration per step (2 or more give a spread).")
    ] = 2,
    max_rounds: Annotated[
        int | None,
        typer.Option(min=1, help="Greedy rounds before the remaining knobs are applied together (default: no cap)."),
    ] = None,
    select_repeats: Annotated[
        int, typer.Option(min=1, help="Rounds of each ordering step (the current configuration and every candidate).")
    ] = 1,
    rerun: Annotated[
        bool, typer.Option(help="Measure the path again even when runs/<study>/explain.json holds it.")
    ] = False,
    runs_dir: RunsDirOpt = Path("runs"),
    storage: StorageOpt = None,
) -> None:
    """Which knobs made the winner faster: a greedy path from the baseline, one knob at a time, each step re-measured.

    Each ordering round tries every knob the winner still changes on top of the current
    configuration and applies the one that gains most; then the whole path is measured again in
    interleaved rounds, each step's gain against the step before. Knobs equal to the baseline or
    inert here are not run.
    """
    from autotune.report.explain import ExplainError, ExplainOptions, explain, format_path, load_explain
    from autotune.study.progress import SweepProgress

    paths = StudyPaths(runs_dir, study)
    space = _study_space(paths)
    options = ExplainOptions(repeats=repeats, max_rounds=max_rounds, select_repeats=select_repeats)
    study_ = _load(paths, storage)
    result = load_explain(paths)
    asked = (repeats, max_rounds, select_repeats)
    stale = result is None or (result.get("repeats"), result.get("max_rounds"), result.get("select_repeats")) != asked
    if result is not None and not stale:  # the sweep went on and another configuration won since
        from autotune.export.winner import ExportError, find_winner

        try:
            stale = result.get("winner_params") != find_winner(study_, paths, space).params
        except ExportError:
            stale = True
    if rerun or stale:
        first = space.objectives[0]
        progress = SweepProgress(0, first.metric, first.direction == "maximize", console)
        try:
            result = explain(study_, space, get_adapter(space.trainer, space.command), paths, options, progress)
        except ExplainError as exc:
            err.print(f"[red]{escape(str(exc))}[/]")
            raise typer.Exit(1) from None
    else:
        console.print(f"(measured earlier: {paths.root / 'explain.json'}; --rerun measures it again)")
    assert result is not None
    for line in format_path(result):
        console.print(line, markup=False)


