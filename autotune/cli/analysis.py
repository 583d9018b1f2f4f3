"""Commands that measure or fit more after a sweep: `explain` and `calibrate`."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from rich.markup import escape

from autotune.adapters import get_adapter
from autotune.cli.app import (
    RunsDirOpt,
    StorageOpt,
    StudyArg,
    app,
    console,
    err,
    load_or_exit,
    study_space,
)
from autotune.study.storage import StudyInfo, StudyPaths


@app.command("explain", short_help="Measure which knobs made the winner faster.")
def explain_cmd(
    ctx: typer.Context,
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
        bool,
        typer.Option(
            help="Measure the path again even when runs/<study>/explain.json holds it (without options, or with the "
            "ones it was measured with, the stored path is shown), reusing no earlier run (without it, rounds an "
            "earlier or interrupted explain finished for the same configurations are kept)."
        ),
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
    from autotune.study.ablation_result import Explanation
    from autotune.study.progress import SweepProgress
    from autotune.study.results import current_explanation
    from autotune.sweep.explain import NOT_MEASURED, ExplainError, ExplainOptions, alone, explain

    paths = StudyPaths(runs_dir, study)
    space = study_space(paths)
    options = ExplainOptions(repeats=repeats, max_rounds=max_rounds, select_repeats=select_repeats)
    study_ = load_or_exit(paths, storage)
    if StudyInfo.of(study_).fidelity == "sim":  # its trials were predicted; explaining runs configurations for real
        from autotune.study.predicted_winner import measure_predicted

        err.print(
            f"[red]study `{escape(study)}` was simulated: `explain` runs each step of the path for real, and nothing "
            f"in this study ran. The cost model's credit for each change of its winner: `autotune best {escape(study)}"
            f"{escape(paths.flags(storage))}`. "
            f"To measure the model's best configurations: `{escape(measure_predicted(space.path, study, paths.flags()))}`, then explain "
            f"`{escape(study)}-real`.[/]"
        )
        raise typer.Exit(1)
    given = bool(
        _given(ctx, {"repeats": "--repeats", "max_rounds": "--max-rounds", "select_repeats": "--select-repeats"})
    )

    def stored() -> tuple[Explanation | None, bool]:
        """The stored path, when it leads to the winner as it ships (another winner since: measured again), compared
        with the winner's measurement as it stands; shown unless other options (or --rerun) are asked for."""
        if rerun:
            return None, False
        result, recompared = current_explanation(study_, paths, space)
        if result is not None and given and not result.measured_with(repeats, max_rounds, select_repeats):
            return None, False
        return result, recompared

    result, recompared = stored()
    measured = result is None
    if result is None:
        first = space.objectives[0]
        progress = SweepProgress(0, first.metric, first.direction == "maximize", console)
        try:
            adapter = get_adapter(space.trainer, space.command)
            with alone(study_, space, paths, progress):
                result, recompared = stored()  # another explain may have measured it while this one waited
                measured = result is None
                if result is None:
                    result = explain(study_, space, adapter, paths, options, progress, fresh=rerun)
        except ExplainError as exc:
            err.print(f"[red]{escape(str(exc))}[/]")
            raise typer.Exit(1) from None
        except KeyboardInterrupt:
            import signal

            from autotune.cli.run import STOPPED_BY

            how = (
                "interrupted" if STOPPED_BY[0] == signal.SIGINT else f"stopped by {signal.Signals(STOPPED_BY[0]).name}"
            )
            # the options it measured with, written out, never --rerun: "the same options", --rerun among them,
            # measured everything again, and the command it quoted dropped --repeats (audit 22 F9)
            given_options = (
                ("repeats", repeats, 2),
                ("select-repeats", select_repeats, 1),
                ("max-rounds", max_rounds, None),
            )
            asked = "".join(f" --{name} {value}" for name, value, default in given_options if value != default)
            err.print(
                f"[yellow]explain {how}: its finished rounds are kept; `autotune explain {escape(study)}"
                f"{escape(paths.flags(storage))}{asked}` goes on from them (adding --rerun measures all again)[/]"
            )
            raise
    assert result is not None
    if not measured:
        cap = f", --max-rounds {result.max_rounds}" if result.max_rounds else ""
        console.print(
            f"(measured earlier with --repeats {result.repeats} --select-repeats {result.select_repeats}{cap}: "
            f"{Explanation.file(paths)}; --rerun measures it again)"
        )
        if recompared:  # a re-confirmation or a new ablation since: the same path, compared with what stands now
            result.write(paths)
            console.print(f"(compared again with {result.reference_words} as it stands now)")
    for line in result.lines():
        console.print(line, markup=False)
    unmeasured = [str(step.step) for step in result.steps if step.verdict == NOT_MEASURED]
    if unmeasured:
        err.print(
            f"[red]step {', '.join(unmeasured)} of the path was not measured: every run of it failed (their folders "
            f"are under {escape(str(paths.root / 'explain' / 'path'))}/); `--rerun` measures the path again[/]"
        )
        raise typer.Exit(1)


CALIBRATE_MODES = "calibrate fits a STUDY (with --holdout, --runs-dir, --storage) or verl logs (--verl-log with --verl-config, --gpu, --nodes, --gpus-per-node)"
MEMORY_NOT_FITTED = (
    "memory is not calibrated: the step times are fitted, the memory predictions stay the cost model's own (on the "
    "built-in trainer's CPU trials they miss what resharding costs: check a predicted winner's memory by running it)"
)
LOG_MEMORY_NOT_FITTED = (
    "memory is not calibrated: the step times are fitted, the memory predictions stay the cost model's own (check a "
    "predicted winner's memory against the runs' perf/max_memory_allocated_gb)"
)
_STUDY_OPTIONS = {"holdout": "--holdout", "runs_dir": "--runs-dir", "storage": "--storage"}
_LOG_OPTIONS = {"verl_log": "--verl-log", "verl_config": "--verl-config", "gpu": "--gpu", "nodes": "--nodes",
                "gpus_per_node": "--gpus-per-node"}  # fmt: skip


@app.command(short_help="Fit the cost model to measured trials or verl logs.")
def calibrate(
    ctx: typer.Context,
    study: Annotated[str | None, typer.Argument(metavar="STUDY", help="Study name (omit with --verl-log).")] = None,
    verl_log: Annotated[list[Path] | None, typer.Option(help="A verl console log of a real run (repeatable).")] = None,
    verl_config: Annotated[
        list[Path] | None,
        typer.Option(help="The overrides (key=value), YAML config or run script of each --verl-log, in order."),
    ] = None,
    gpu: Annotated[str | None, typer.Option(help="GPU the logged runs ran on (preset or device YAML).")] = None,
    nodes: Annotated[
        int | None,
        typer.Option(min=1, help="Nodes the logged runs ran on, for a script's trainer.nnodes=$SLURM_NNODES."),
    ] = None,
    gpus_per_node: Annotated[
        int | None,
        typer.Option(min=1, help="GPUs per node, for a script's trainer.n_gpus_per_node=$SLURM_GPUS_PER_NODE."),
    ] = None,
    output: Annotated[
        Path | None,
        typer.Option(
            "--output",
            "-o",
            help="Where to write the fitted weights (default: runs/<study>/calibration.json; ./calibration.json for logs).",
        ),
    ] = None,
    holdout: Annotated[
        float,
        typer.Option(
            min=0.0,
            max=0.9,
            help="Share of trials held back to measure the prediction error (of 4 trials or more; 2 or more are fitted).",
        ),
    ] = 0.0,
    runs_dir: RunsDirOpt = Path("runs"),
    storage: StorageOpt = None,
) -> None:
    """Fit the cost model to a study's measured trials, or to real verl runs (--verl-log with --verl-config).

    One log of the job being tuned is enough to start: on the published runs,
    weights fitted on one run of a setup predicted its other runs about twice as
    close as the shipped weights (benchmarks/sim_own_setup.py).
    With three or more logs, each run's leave-one-out error is printed too; a fit
    more than 30% off its own runs is warned of (a wrong --gpu or config; for a
    STUDY, timings disturbed by other work).

    Exit 2, nothing written: the command line or a file it names is wrong (options
    of both modes, a missing file, a key verl does not have, no model path).
    Exit 1: the input is sound but no fit can be made from it (a simulated study,
    fewer than 2 measured trials).
    """
    import json as _json

    from autotune.sim.calibrate import calibrate_study, fit_warnings

    _one_mode(ctx, study, verl_log)
    if study is None:
        _calibrate_logs(verl_log or [], verl_config or [], gpu, output, nodes, gpus_per_node)
        return
    paths = StudyPaths(runs_dir, study)
    space = study_space(paths)
    study_ = load_or_exit(paths, storage)
    if StudyInfo.of(study_).fidelity == "sim":  # fitting the model to its own predictions would prove nothing
        err.print(
            f"[red]study `{escape(study)}` was simulated: its step times are the cost model's own predictions, "
            "and a fit to them measures nothing. Calibrate on a study of real trials, or on a real verl run "
            "(`--verl-log RUN.log --verl-config OVERRIDES`).[/]"
        )
        raise typer.Exit(1)
    try:
        result = calibrate_study(paths, study_, space, get_adapter(space.trainer, space.command), holdout)
    except ValueError as exc:
        err.print(f"[red]{escape(str(exc))}[/]")
        raise typer.Exit(1) from None
    out = output or paths.root / "calibration.json"
    out.write_text(_json.dumps(result, indent=2, default=str))
    console.print(
        f"fitted on {len(result['trials'])} trials: median step-time error {result['fit_error_median']:.1%} (in sample)"
    )
    if "holdout_error_median" in result:
        n, total = len(result["holdout_trials"]), len(result["trials"])
        console.print(
            f"held back {n} of {total} trials ({n / total:.0%}; a fit on the other {total - n} predicted them at a "
            f"median step-time error of {result['holdout_error_median']:.1%}); the fit written is on all {total}"
        )
        if result["holdout_error_median"] > 0.3:
            err.print(
                f"[yellow]the fit missed trials it did not see by {result['holdout_error_median']:.0%} (median): its "
                "predictions of other configurations are as uncertain; more trials narrow it[/]"
            )
    elif holdout > 0:  # it was skipped without a word
        err.print(f"[yellow]--holdout {holdout:g}: nothing held back; it needs 4 measured trials or more[/]")
    for warning in fit_warnings(result, holdout):
        err.print(f"[yellow]{escape(warning)}[/]")
    console.print(f"wrote {out}; use it with: autotune run --space ... --fidelity sim --calibration {out}")
    err.print(f"[yellow]{escape(MEMORY_NOT_FITTED)}[/]")


def _given(ctx: typer.Context, options: dict[str, str]) -> list[str]:
    """The options typed on the command line: `--holdout 0` and `--runs-dir runs` are given, though defaults.
    (By the source's name: typer ships its own copy of click, whose ParameterSource is not click's.)"""
    sources = {name: ctx.get_parameter_source(name) for name in options}
    return [flag for name, flag in options.items() if getattr(sources[name], "name", "DEFAULT") == "COMMANDLINE"]


def _one_mode(ctx: typer.Context, study: str | None, verl_log: list[Path] | None) -> None:
    """A STUDY or logs, with that mode's options only: an option of the other mode was ignored without a word."""
    other = _given(ctx, _LOG_OPTIONS if study is not None else _STUDY_OPTIONS)
    if other:
        got = f"STUDY `{study}` with {', '.join(other)}" if study is not None else f"{', '.join(other)} without a STUDY"
        err.print(f"[red]{escape(CALIBRATE_MODES)}: got {escape(got)}; give one mode's options[/]")
        raise typer.Exit(2)
    if study is None and not verl_log:
        err.print(f"[red]{escape(CALIBRATE_MODES)}: give a STUDY, or --verl-log RUN.log --verl-config CONFIG[/]")
        raise typer.Exit(2)


def _calibrate_logs(
    logs: list[Path],
    configs: list[Path],
    gpu: str | None,
    output: Path | None,
    nodes: int | None = None,
    gpus_per_node: int | None = None,
) -> None:
    """Every error here is the input's (a file, a key, the pairing): exit 2. Warnings are yellow, on stderr."""
    import functools

    from autotune.scaffold.run_config import read_run_config
    from autotune.sim.verl_log import calibrate_logs_to_file

    read = functools.partial(read_run_config, nodes=nodes, gpus_per_node=gpus_per_node)
    try:  # a run script read as `init` reads it (it had a reader of its own, audit 36 F5/F6)
        _, lines = calibrate_logs_to_file(logs, configs, gpu, None, output, read)
    except OSError as exc:  # -o in a missing folder printed a bare "[Errno 2] ...": the path, and what to check
        if not exc.filename:
            raise
        err.print(f"[red]{escape(f'{exc.filename}: {exc.strerror or exc}')}[/] (check the path and its permissions)")
        raise typer.Exit(2) from None
    except ValueError as exc:
        err.print(f"[red]{escape(str(exc))}[/]")
        raise typer.Exit(2) from None
    for line in lines:
        if line.startswith("warning: "):
            err.print(f"[yellow]{escape(line)}[/]")
        else:
            console.print(line, markup=False)
    err.print(f"[yellow]{escape(LOG_MEMORY_NOT_FITTED)}[/]")  # said of a study's only (audit 21 F7)
