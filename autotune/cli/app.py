"""What every command shares: the Typer app, the consoles, the option types, loading a space or a study."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.markup import escape

from autotune.adapters import TRAINERS, device_kind
from autotune.space.loader import SpaceError, load_space
from autotune.space.schema import Space
from autotune.study.storage import StorageError, StudyNotFound, StudyPaths, load_study, stored_space

app = typer.Typer(
    help="Tune a verl KL-PPO job: sweep a search space with short real trials, read the result, export the winner.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,  # click's plain help wraps at 80 columns; Rich's tables cut option texts with "…"
)
_WIDTH = None if sys.stdout.isatty() else 160  # rich assumes 80 columns when piped; tables need more
console = Console(highlight=False, soft_wrap=True, width=_WIDTH)
err = Console(stderr=True, highlight=False, soft_wrap=True, width=_WIDTH)

SpaceOpt = Annotated[
    str, typer.Option("--space", "-s", help="Search-space YAML, or a shipped name (`autotune spaces` lists them).")
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
    typer.Option(
        "--trainer", help=f"Run the space on this trainer instead of the file's `trainer`: {' or '.join(TRAINERS)}."
    ),
]
StudyArg = Annotated[str, typer.Argument(metavar="STUDY", help="Study name (the space's `name`, e.g. fsdp3d).")]


def space_or_exit(space: str, trainer: str | None = None, sampler: str | None = None) -> Space:
    from autotune.adapters.base import TRAINERS

    if trainer is not None and trainer not in TRAINERS:  # the flag's fault: it was blamed on the file's `trainer:`
        err.print(f"[red]--trainer must be one of {', '.join(sorted(TRAINERS))}, got {trainer!r}[/]")
        raise typer.Exit(2)
    try:
        return load_space(space, device=device_kind(), trainer=trainer, sampler=sampler)
    except SpaceError as exc:
        err.print(f"[red]invalid search space[/] ({len(exc.problems)} problem{'s' if len(exc.problems) > 1 else ''}):")
        for problem in exc.problems:
            err.print(f"  {escape(problem)}")
        raise typer.Exit(2) from None


def study_space(paths: StudyPaths) -> Space:
    """The space a study ran (resolved, as stored when it was created)."""
    try:
        return stored_space(paths)
    except StudyNotFound as exc:
        err.print(f"[red]{escape(str(exc))}[/]")
        raise typer.Exit(2) from None
    except SpaceError as exc:  # a study from before the space was stored as data, whose file no longer loads
        err.print(f"[red]{paths.space_copy}: the study's space no longer loads:[/] {escape('; '.join(exc.problems))}")
        raise typer.Exit(2) from None


def load_or_exit(paths: StudyPaths, storage: str | None):  # type: ignore[no-untyped-def]
    try:
        return load_study(paths, storage)
    except (StudyNotFound, StorageError) as exc:
        err.print(f"[red]{escape(str(exc))}[/]")
        raise typer.Exit(2) from None


def folder_problem(folder: Path) -> str | None:
    """Why the report cannot be written into `folder` (None: it can; missing folders are made, as for `runs/`)."""
    import os

    if folder.exists() and not folder.is_dir():
        return "is a file: the report is a folder, written as FOLDER/index.html; give a folder (e.g. reports/mine)"
    ancestor = folder.absolute()
    while not ancestor.exists():
        ancestor = ancestor.parent
    if not ancestor.is_dir():
        return f"cannot be made: {ancestor} is a file, not a folder"
    if not os.access(ancestor, os.W_OK):
        return f"cannot be written: {ancestor} is not a writable folder"
    return None


def replaces_own_file(out: Path) -> str | None:
    """Why writing an export at `out` would replace a file autotune did not write (None: nothing there, or an
    earlier export): `-o prod.yaml` replaced the user's own verl config without a word."""
    from autotune.export.winner import EXPORT_MARK

    if not out.is_file():
        return None
    try:
        head = out.read_text(errors="replace")[:8000]
    except OSError:
        return None
    if f"# {EXPORT_MARK}" in head:
        return None
    return f"exists and is not an autotune export (no `# {EXPORT_MARK}` line): writing the winner would replace it"


def output_problem(out: Path) -> str | None:
    """Why a file cannot be written at `out` (None: it can). Its folder must exist: a mistyped path
    is said, not made into folders."""
    import os

    folder = out.absolute().parent
    if out.is_dir():
        return "is a folder; give a file name (e.g. best.yaml)"
    if not folder.exists():
        return f"cannot be written: its folder {folder} does not exist (create it first: mkdir -p {folder})"
    if not folder.is_dir() or not os.access(folder, os.W_OK):
        return f"cannot be written: {folder} is not a writable folder"
    if out.exists() and not os.access(out, os.W_OK):
        return "exists and is read-only"
    return None
