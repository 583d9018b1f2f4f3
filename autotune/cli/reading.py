"""Reading a finished (or running) study: `trials`, `best`, `export`, `report`."""

from __future__ import annotations

import math
import re
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer
from rich import box
from rich.markup import escape
from rich.table import Table

from autotune.adapters import get_adapter
from autotune.cli.app import (
    RunsDirOpt,
    StorageOpt,
    StudyArg,
    app,
    console,
    err,
    folder_problem,
    load_or_exit,
    output_problem,
    replaces_own_file,
    study_space,
)
from autotune.extras import require
from autotune.space.schema import Space
from autotune.study.frames import units_line
from autotune.study.storage import StudyInfo, StudyPaths

if TYPE_CHECKING:
    import optuna
    import pandas as pd

    from autotune.report.data import Summary
    from autotune.study.equivalence_result import EquivalenceResult
    from autotune.study.results import Winner
from autotune.trial.scoring import KEY_METRICS


@app.command("trials", short_help="A table of the study's trials and how each ended.")
def trials_cmd(study: StudyArg, runs_dir: RunsDirOpt = Path("runs"), storage: StorageOpt = None) -> None:
    """A table of the study's trials: outcome, reason, objectives and key metrics."""
    from autotune.study.frames import trials_frame
    from autotune.study.storage import StudyInfo

    loaded = load_or_exit(StudyPaths(runs_dir, study), storage)
    simulated = StudyInfo.of(loaded).fidelity == "sim"
    frame = trials_frame(loaded)
    title = f"study {study}" + (": predicted by the cost model, nothing ran" if simulated else "")
    objectives = [c for c in frame.columns if c.startswith("objective:")]
    shown = [k for k, (metric, _) in KEY_METRICS.items() if k != "score" and f"objective:{metric}" not in objectives]
    columns = ["number", "outcome", "reason", *objectives, *shown, *([] if simulated else ["wall_s"])]
    rows = [[_cell(row, col) for col in columns] for _, row in frame.iterrows()]
    kept = [i for i, col in enumerate(columns) if col in ("number", "outcome") or any(r[i] for r in rows)]
    columns, rows = [columns[i] for i in kept], [[r[i] for i in kept] for r in rows]  # no all-empty column
    # no column rules, one space between columns, headers on two lines: 80 columns hold it, no value cut
    table = Table(title=title, box=box.SIMPLE_HEAD, padding=0, show_edge=False)
    for col in columns:
        header = UNIT_HEADERS.get(col) or "\n".join(re.split(r"(?<=/)|_", col.removeprefix("objective:")))
        right = col not in ("outcome", "reason")
        table.add_column(header, justify="right" if right else "left", no_wrap=True)
    for cells in rows:
        table.add_row(*cells)
    console.print(table)
    _say_units(columns)
    if frame.get("duplicate_of") is not None and frame["duplicate_of"].map(_present).any():
        console.print("=#N: the same settings as trial #N, its result reused (nothing ran)")
    _say_details(frame)
    say_unfinished(loaded)


UNIT_HEADERS = {"memory_gb": "memory\nGiB", "rss_gb": "RSS\nGiB"}
"""Column headers naming their unit: verl's `*_gb` memory metrics hold GiB (bytes / 2**30)."""


def _say_units(columns: list[str]) -> None:
    said = units_line(columns)
    if said:
        console.print(said)


def _cell(row: pd.Series, col: str) -> str:
    value = row.get(col)
    if col == "reason" and value == row.get("outcome"):  # `interrupted` once, not twice
        return ""
    if col == "number" and row.get("baseline"):
        return f"{value} base"
    if col == "number" and _present(row.get("duplicate_of")):
        return f"{value} =#{int(row['duplicate_of'])}"
    if isinstance(value, float):
        return "" if math.isnan(value) else f"{value:.0f}" if abs(value) >= 1000 else f"{value:.3g}"
    return "" if value is None else str(value)


def _present(value: object) -> bool:
    return value is not None and not (isinstance(value, float) and math.isnan(value))


def _say_details(frame: pd.DataFrame, most: int = 10) -> None:
    """Why trials were infeasible, failed or pruned (the table says `limits`, `oom` or `pruner`; this says which
    limit and by how much, or when and why the trial was stopped)."""
    if frame.empty or "detail" not in frame:
        return
    told = frame[
        frame["outcome"].isin(("infeasible", "failed", "pruned"))
        & frame["detail"].map(lambda d: bool(d) and _present(d))
    ]
    for _, row in told.head(most).iterrows():
        console.print(f"  #{row['number']} {row['outcome']}: {escape(str(row['detail']))}")
    if len(told) > most:
        console.print(f"  … and {len(told) - most} more (`autotune report` lists every one)")


@app.command(short_help="The winner: its measured speedup and its settings.")
def best(study: StudyArg, runs_dir: RunsDirOpt = Path("runs"), storage: StorageOpt = None) -> None:
    """The winner: confirmed speedup over the baseline when confirmation ran, and its tuned settings."""
    paths = StudyPaths(runs_dir, study)
    if print_best(paths, storage, study_space(paths)) is None:
        raise typer.Exit(1)  # a script's `best && export` stops here, as export would


@app.command("export", short_help="Write the winner as verl YAML and key=value overrides.")
def export_cmd(
    study: StudyArg,
    output: Annotated[
        Path,
        typer.Option("--output", "-o", help="Where to write the verl YAML (a .overrides file goes next to it)."),
    ] = Path("best.yaml"),
    check: Annotated[
        bool,
        typer.Option(
            help="Compose the result with verl's own hydra config and fail on any key verl rejects; then, for a "
            "space on the built-in trainer, run the equivalence check (baseline and winner on a fixed batch: same "
            "log-probs, losses, gradient norms; a verl space's trainer cannot run it here: said)."
        ),
    ] = False,
    predicted: Annotated[
        bool,
        typer.Option(
            "--predicted",
            help="Export a simulated study's winner (the cost model's prediction, nothing measured), labelled as "
            "one, with only the changes the model credits with 1% or more.",
        ),
    ] = False,
    runs_dir: RunsDirOpt = Path("runs"),
    storage: StorageOpt = None,
    force: Annotated[
        bool, typer.Option(help="Overwrite -o's file though autotune did not write it (an earlier export it did).")
    ] = False,
) -> None:
    """Write the winner as nested verl YAML plus `key=value` overrides for verl.trainer.main_ppo."""
    problem = output_problem(output) or (None if force else replaces_own_file(output))
    if problem:
        fix = "; pass --force to overwrite it, or -o another file" if problem == replaces_own_file(output) else ""
        err.print(f"[red]-o {escape(str(output))} {escape(problem)}{fix}[/]")
        raise typer.Exit(2)
    export_winner(StudyPaths(runs_dir, study), storage, output, check, predicted)


def print_best(paths: StudyPaths, storage: str | None, space: Space) -> Summary | None:
    """The winner, its settings and what its phases concluded; its summary, or None (and why) when there is none
    yet."""
    from autotune.export.winner import export_settings
    from autotune.study.confirmation_result import beaten_line
    from autotune.study.results import NoWinner, find_winner, winner_caveat

    study = load_or_exit(paths, storage)
    from autotune.study.live import AS_IT_STANDS, in_progress

    running = in_progress(paths)
    if running:  # the earlier decision of a resumed study read as final while a worker re-decided it (audit 34 F5)
        err.print(f"[yellow]{escape(running)}: {AS_IT_STANDS}[/]")
    try:
        winner = find_winner(study, paths, space)
    except NoWinner as exc:
        err.print(f"[yellow]{exc}[/]")
        say_unfinished(study, None)
        return None
    if winner.behind:  # the export is NOT FINAL for it (audit 35 F2)
        err.print(f"[yellow]{escape(winner.behind)}[/]")
    speed = ""
    if winner.speedup is not None:
        low, high = winner.speedup_spread or (math.nan, math.nan)
        spread = (
            f" ({winner.why_baseline})"
            if winner.ships_baseline
            else " (one round: no interval)"
            if winner.one_round
            else f" [{low:.2f}, {high:.2f}]"
            if winner.speedup_spread
            else ""
        )
        speed = f", {winner.speedup:.2f}× the baseline{spread}"
    from autotune.report.data import summary

    s = summary(study, paths, space)
    whose = f" ({s.whole or winner.predicted_less})" if s.whole or winner.predicted_less else ""  # not the whole trial
    # the summary's value beside the summary's label: with every change sent back, the baseline's confirmed mean
    # (it printed the whole winner's labelled "the baseline's", the report the baseline's: 1079 vs 587, audit 38 F1)
    value = s.winner_value if math.isfinite(s.winner_value) else winner.value
    from autotune.trial.scoring import unit_of

    console.print(
        f"[bold green]winner[/]: trial #{winner.number} ({winner.source}{speed}), "
        f"{space.objectives[0].metric} = {value:.5g}{unit_of(space.objectives[0].metric)}{whose}"
    )
    alone = _say_why_not_confirmed(study, paths, winner)
    say_unfinished(study, winner, alone_said=alone)
    if winner.credited is not None:
        for line in winner.credited.lines():
            console.print(f"  {line}", markup=False)
    if winner.ablation is not None:
        for line in winner.ablation.lines():
            console.print(f"  {line}", markup=False)
    elif winner.baseline_won:
        console.print(f"  {beaten_line(winner.beaten)}; nothing to ablate", markup=False)
    elif winner.source == "confirmed":  # which reason held, not both as advice (audit 15 F11)
        console.print(f"  {winner_caveat(study, winner, paths, behind=False)}")  # winner.behind: said above
    rss = f", peak RSS {s.rss_ratio:.2f}×" if math.isfinite(s.rss_ratio) else ""  # a prediction has no RSS
    what = "predicted memory" if winner.source == "predicted" else "memory"
    if math.isfinite(s.memory_ratio):
        console.print(f"  {what} {s.memory_ratio:.2f}× the baseline ({s.memory_metric}){rss}")
    else:  # "predicted memory nan× the baseline" where the baseline is predicted out of memory (audit 39 F6)
        console.print(f"  {what}: no ratio to the baseline, which has no {s.memory_metric or 'memory'} figure{rss}")
    from autotune.sim.sim_fidelity import MEMORY_NOT_CALIBRATED

    if MEMORY_NOT_CALIBRATED in s.predicted_error:  # beside calibrated step times (audit 28 F3)
        err.print(f"[yellow]  {MEMORY_NOT_CALIBRATED}[/]")
    if s.equivalence and s.equivalence_ok:
        console.print(f"  {s.equivalence}", markup=False)
    elif s.equivalence:  # `run` printed it once, and nothing said it again (audit 26 F1)
        err.print(f"[red]  {escape(s.equivalence)}[/]: the export says so and writes no overrides; "
                  "`autotune export --check` runs the check again")  # fmt: skip
    from autotune.export.winner import FILLED, filled_keys, sweep_device
    from autotune.study.quality_result import Quality

    quality = Quality.read(paths)
    algorithm = quality.shipped if quality is not None else {}
    adapter = get_adapter(space.trainer, space.command)
    settings = export_settings(space, adapter, winner.params, sweep_device(study), algorithm)
    filled = set(filled_keys(space, winner.params, settings))
    for key in dict.fromkeys([*winner.params, *(k for k in settings if k not in space.base)]):
        if key in settings:
            note = f"  [dim]({FILLED})[/]" if key in filled else ""
            console.print(f"  {key} = {escape(str(settings[key]))}{note}")
    from autotune.space.stages import describe_held

    if quality is not None:
        for line in quality.lines():  # the broken bound's line among them
            console.print(f"  {line}", markup=False)
        if s.quality_other_systems:
            console.print(f"  [yellow]{escape(s.quality_other_systems)}[/]")
        return s
    from autotune.study.results import unfinished_quality

    for line in describe_held(space):
        console.print(f"  [yellow]{escape(line)}[/]")
    pending = unfinished_quality(paths, space) if winner.source != "predicted" else None  # a sim runs none
    if pending:
        err.print(f"[yellow]  {escape(pending)}[/]")
    return s


def say_unfinished(study: optuna.Study, winner: Winner | None = None, alone_said: bool = False) -> None:
    """Trials not finished (a sweep still running, or one interrupted), and a winner that is the baseline only
    because nothing else has finished: said, not left for the user to infer from a 1.00x."""
    from optuna.trial import TrialState

    console.file.flush()  # the table first: in a pipe it is buffered, and this note went into its middle
    import socket

    from autotune.study.frames import unfinished_lines
    from autotune.sweep.backends.lifecycle import process_alive
    from autotune.trial.record import TrialRecord

    live = {}  # trials whose worker lives on this host: "still running, or interrupted; `autotune run` ... runs them
    for t in study.get_trials(deepcopy=False, states=(TrialState.RUNNING,)):  # again" was said of them (34 N2)
        worker = TrialRecord.of(t).worker
        if worker is not None and worker.host == socket.gethostname() and process_alive(worker.pid):
            live[t.number] = f"#{t.number} (worker pid {worker.pid})"
    if live:
        err.print(f"[yellow]  running now: {', '.join(live.values())}[/]")
    for line in unfinished_lines(study, set(live)):
        err.print(f"[yellow]  {escape(line)}[/]")
    complete = study.get_trials(deepcopy=False, states=(TrialState.COMPLETE,))
    if winner is not None and winner.source == "sweep" and len(complete) <= 1 and not alone_said:
        err.print("[yellow]  only the baseline has finished: the sweep has compared nothing yet[/]")


def _say_why_not_confirmed(study: optuna.Study, paths: StudyPaths, winner: Winner) -> bool:
    """A sweep winner: no confirmation ran, or none of its candidates stayed inside the limits on its round
    averages. Say so, and what this trial's confirmation rounds measured. True when it said the baseline ran alone."""
    from autotune.study.confirmation_result import Confirmation
    from autotune.study.results import BASELINE_ONLY, ONLY_BASELINE, ONLY_BASELINE_PICKED, winner_caveat

    if winner.source != "sweep":
        return False
    why = winner_caveat(study, winner, paths)
    err.print(f"[yellow]  {why}[/]")
    if Confirmation.read(paths) is None:
        return why in (BASELINE_ONLY, ONLY_BASELINE, ONLY_BASELINE_PICKED)
    row = winner.confirmed
    if row is not None:
        over = {k: v for k, v in (row.violations_mean or {}).items() if v > 0}
        shown = ", ".join(f"{k} over by {v:.3g}" for k, v in over.items()) or "a failed round"
        err.print(f"[yellow]  its confirmation rounds: {row.speedup_mean:.2f}× the baseline; {shown}[/]")
    return False


def export_winner(paths: StudyPaths, storage: str | None, output: Path, check: bool, predicted: bool = False) -> None:
    from autotune.export.winner import ExportError, NotForShipping, export

    if check:
        require("verl", "`autotune export --check`")
    space = study_space(paths)
    study = load_or_exit(paths, storage)
    try:
        winner, yaml_path, overrides_path = export(
            study, paths, space, get_adapter(space.trainer, space.command), output, predicted, kept_check=not check
        )
    except NotForShipping as exc:  # the check `autotune run` kept for this winner failed, or could not run
        for line in exc.result.summary():
            err.print(f"[red]{escape(line)}[/]")
        err.print(f"[red]{escape(str(exc))}[/]")
        raise typer.Exit(1) from None
    except ExportError as exc:
        err.print(f"[red]{escape(str(exc))}[/]")
        raise typer.Exit(1) from None
    console.print(f"wrote {yaml_path} and {overrides_path} (trial #{winner.number}, {winner.source})")
    from autotune.study.quality_result import BROKEN_BOUND, Quality
    from autotune.study.results import not_final_because, unfinished_quality

    why = not_final_because(paths, space, winner)
    if why is not None:
        not_final(yaml_path, overrides_path, why)
    quality = Quality.read(paths)
    if quality is not None and quality.exports_a_broken_bound:  # only a header comment said it
        err.print(f"[yellow]  {BROKEN_BOUND}[/]")
    say_unfinished(study, winner)
    pending = unfinished_quality(paths, space) if quality is None and winner.source != "predicted" else None
    if pending:  # not started (`--stage throughput`): the export is the throughput stage's, said
        err.print(f"[yellow]  {escape(pending)}[/]")
    if winner.source == "predicted":
        err.print("[yellow]  predicted by the cost model, not measured: run it before shipping it[/]")
    if check:
        from autotune.export.winner import check_export

        problems, count = check_export(yaml_path, overrides_path)
        for problem in problems:
            err.print(f"[red]verl rejects the export:[/] {problem}")
        if not problems:
            console.print(f"[green]verl accepts it[/]: {count} overrides compose with verl's ppo_trainer config")
        result = check_equivalence(paths, space, winner.params)
        if not problems and result.ok:  # the header said no equivalence check ran: it says what this one found
            from autotune.export.winner import mark_checked

            # "passed" only for what was checked: a verl space's header read "export --check passed" beside
            # "equivalence check not run" (audit 26 F7)
            verdict = " passed" if result.outcome == "equivalent" else ""
            mark_checked(
                yaml_path, f"export --check{verdict}: verl accepts its {count} overrides; {result.summary()[0]}"
            )
        if problems or not result.ok:  # the files must not read as shippable: marked, the overrides (no comments) gone
            not_for_shipping(yaml_path, overrides_path, "verl's config check rejects it" if problems else result.headline,
                             "autotune export --check")  # fmt: skip


def not_final(yaml_path: Path, overrides_path: Path, why: str) -> None:
    """The export is not the study's decision yet (a worker still at it, or a quality stage to decide): marked NOT
    FINAL, the overrides (no comment can mark them) removed, said; exit 1 (`run && export` stops there)."""
    yaml_path.write_text(f"# NOT FINAL: {why}\n" + yaml_path.read_text())
    overrides_path.unlink(missing_ok=True)
    err.print(f"[red]{yaml_path} marked NOT FINAL and {overrides_path} removed: {escape(why)}[/]")
    raise typer.Exit(1)


def not_for_shipping(yaml_path: Path, overrides_path: Path, why: str, source: str) -> None:
    """The export must not read as shippable (`mark_not_for_shipping`), said; exit 1."""
    from autotune.export.winner import mark_not_for_shipping

    err.print(f"[red]{escape(mark_not_for_shipping(yaml_path, overrides_path, why, source))}[/]")
    raise typer.Exit(1)


CHECKS = "runs `autotune export --check`'s equivalence check"
"""What an `export --check` holding `.finishing` does (`StudyPaths.finishing`)."""


def check_equivalence(paths: StudyPaths, space: Space, params: dict[str, Any]) -> EquivalenceResult:
    """The exported systems changes against the baseline on a fixed batch, kept in runs/<study>/equivalence.json
    (a check that could not run too), and said."""
    from autotune.adapters import device_kind
    from autotune.sweep.equivalence import checked_winner

    # measured alone, as `explain` does: beside a worker's timed rounds (and into its equivalence/ folder) it slowed
    # them 1.5-2x, and its result for a winner about to change was read by `best` (audit 34 F4)
    with paths.finishing(lambda line: err.print(f"[yellow]{escape(line)}[/]"), CHECKS, "this check then runs"):
        result = checked_winner(space, get_adapter(space.trainer, space.command), paths, params, device_kind())
    out = console if result.ok else err
    for line in result.summary():
        out.print(("[green]" if result.outcome == "equivalent" else "[red]" if not result.ok else "") + escape(line))
    return result


def write_report_file(paths: StudyPaths, space: Space, out_dir: Path, storage: str | None) -> Path:
    import warnings

    from autotune.report import write_report

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # PED-ANOVA's reminder about minimisation: the data layer orients it
        return write_report(load_or_exit(paths, storage), paths, space, out_dir)


def log_wandb_summary(logger, paths: StudyPaths, storage: str | None, space: Space) -> None:  # type: ignore[no-untyped-def]
    study = load_or_exit(paths, storage)
    logger.log_summary(study, summary_fields(study, paths, space))


def summary_fields(study: optuna.Study, paths: StudyPaths, space: Space) -> dict[str, Any]:
    """The wandb summary run's fields: the winner, what ships (as the export writes it), the quality stage's decision,
    and whether it is final (`final`; `not_final` says why, where the export writes NOT FINAL)."""
    from autotune.export.winner import export_settings, sweep_device
    from autotune.study.quality_result import BROKEN_BOUND, Quality
    from autotune.study.results import NoWinner, find_winner, unfinished_quality

    winner: dict[str, Any]
    quality = Quality.read(paths)
    algorithm = quality.shipped if quality is not None else {}
    adapter = get_adapter(space.trainer, space.command)
    found: Winner | None = None
    try:
        found = w = find_winner(study, paths, space)
        confirmed = w.source == "confirmed"
        winner = {  # each figure says what it is of: after an ablation the speedup is what ships, the value not
            "winner": w.number,
            "source": w.source,
            "objective": w.value,
            "objective_of": "the whole winner, mean of its confirmation rounds"
            if confirmed
            else "the cost model's prediction of what ships, nothing ran"  # not "the winner's run" (audit 28 F14)
            if w.source == "predicted"
            else "the winner's run",
            "speedup": w.speedup,
            "speedup_of": "what ships, measured by the ablation" if w.ablation else "the winner",
            # what the export writes, keys and values (the quality stage's too); the sampled params held helper
            # multipliers where the export writes the token budgets they derive (audit 28 F7)
            "ships": export_settings(space, adapter, w.params, sweep_device(study), algorithm),
        }
        if w.ships_baseline:  # it won confirmation (the candidate it beat named), or the ablation sent all back
            winner["baseline_ships"] = w.baseline_ships
        from autotune.study.results import winner_caveat

        caveat = winner_caveat(study, w, paths)
        if caveat:  # as `best` says it: a sweep's best single run read as the speedup while another confirmed it
            winner["caveat"] = caveat  # (x2.35 kept, x1.70 confirmed; audit 34 F6, N4)
        from autotune.study.equivalence_result import shipping_verdict

        kept = shipping_verdict(paths, w.params)
        if kept is not None:  # as `best` and the report say it: a failed check read nowhere (audit 26 F1)
            winner["equivalence"] = kept.summary()[0] if kept.ok else f"NOT FOR SHIPPING: {kept.headline}"
    except NoWinner:
        winner = {"winner": None}
    # the algorithm knobs' decision: the summary held the throughput stage's alone, and a `--stage quality` run's
    # showed its baseline trial and nothing of what it decided (audit 24 F2)
    if quality is not None:
        winner["quality_decision"] = quality.verdict
        winner["quality_ships"] = algorithm
        if quality.exports_a_broken_bound:
            winner["quality_warning"] = BROKEN_BOUND
    elif StudyInfo.of(study).fidelity == "sim":  # it told a simulated sweep to run the stage (audit 28 F14)
        winner["quality_decision"] = "a simulated sweep runs no quality stage: algorithm knobs are judged on learning"
    else:
        winner["quality_decision"] = unfinished_quality(paths, space) or "the space has no quality stage"
    # `ships` read as the study's decision where the export writes NOT FINAL (a quality stage that decided nothing
    # shipped the baseline's KL coefficient unmarked; audit 34 F2)
    from autotune.study.results import not_final_because

    pending = not_final_because(paths, space, found)
    winner["final"] = pending is None
    if pending is not None:
        winner["not_final"] = pending
    return winner


@app.command(short_help="Write the sweep's HTML report.")
def report(
    study: StudyArg,
    output: Annotated[
        Path | None,
        typer.Option(
            "--output",
            "-o",
            "--report-dir",
            help="Folder for index.html (default: reports/<study>/; as run's --report-dir).",
        ),
    ] = None,
    check: Annotated[
        bool,
        typer.Option(help="Open it in headless Chromium: fail on page errors or unrendered plots; save a screenshot."),
    ] = False,
    runs_dir: RunsDirOpt = Path("runs"),
    storage: StorageOpt = None,
) -> None:
    """Write the sweep report: summary and health checklist, history, importances, phases, failures, trials."""
    if check:
        from autotune.report.browser import require_chromium

        require_chromium()
    problem = folder_problem(output) if output is not None else None
    if problem:  # it said "File exists (check the path and its permissions)" (audit 25 F12)
        err.print(f"[red]-o {escape(str(output))} {escape(problem)}[/]")
        raise typer.Exit(2)
    paths = StudyPaths(runs_dir, study)
    space = study_space(paths)
    path = write_report_file(paths, space, output or Path("reports") / study, storage)
    console.print(f"wrote {path}")
    from autotune.report.quality_page import write_quality_report

    quality_page = write_quality_report(paths, space, path.parent)  # the stored space keeps its `quality:`
    if quality_page is not None:
        console.print(f"wrote {quality_page}")
    if check:
        _check_page(path, path.parent / "screenshot.png")
        if quality_page is not None:
            _check_page(quality_page, path.parent / "quality-screenshot.png")


def _check_page(path: Path, screenshot: Path) -> None:
    """Open one page of the report in headless Chromium; exit 1 on page errors, unrendered or empty plots."""
    from autotune.report.browser import inspect

    result = inspect(path, screenshot)
    console.print(f"browser: {result.rendered}/{result.plots} plots rendered, sections: {', '.join(result.sections)}")
    for problem in [*result.page_errors, *result.console_errors, *result.external]:
        err.print(f"[red]{escape(str(problem))}[/]")
    if result.label_overlaps:
        err.print(f"[red]{result.label_overlaps} pairs of parallel-coordinates axis titles overlap[/]")
    if result.plots != result.rendered:
        err.print(f"[red]{result.plots - result.rendered} of {result.plots} plots did not render[/]")
    if result.empty:  # blank axes under a legend passed as rendered (audit 27 F6)
        err.print(f"[red]{len(result.empty)} plots drew no data point: {', '.join(result.empty)}[/]")
    if result.screenshot:
        console.print(f"screenshot: {result.screenshot}")
    if not result.ok:
        raise typer.Exit(1)
