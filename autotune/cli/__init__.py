"""The `autotune` command line: validate, run, trials, best, export, report, explain, calibrate, spaces, init.

Each module registers its commands on the shared Typer app (app.py); importing them here builds
the whole CLI.
"""

from __future__ import annotations

import signal
import sys

from rich.markup import escape

# Each module registers its commands; the order of these imports is the order of --help.
# isort: off
from autotune.cli import run
from autotune.cli import reading  # noqa: F401
from autotune.cli import analysis  # noqa: F401
from autotune.cli import start  # noqa: F401

# isort: on
from autotune.cli.app import app, err
from autotune.extras import MissingPart, missing_module_message
from autotune.study.result_files import ResultsFileError
from autotune.study.resume_checks import SpaceChanged
from autotune.study.storage import StorageError, StudyNameError
from autotune.study.storage_errors import storage_failure
from autotune.trial.runner import ask_stop

__all__ = ["app", "main"]


def main() -> None:
    """The entry point: bad study names and storage URLs, unreadable result files, optional parts that
    are not installed, and paths the command cannot read or write end in one line and exit 2, not a traceback.

    SIGINT always interrupts (a sweep stops, says how to resume and exits 130): a process started in
    the background by a non-interactive shell (`autotune run ... &` in a script, nohup) inherits SIGINT
    ignored, and Python then installs no KeyboardInterrupt handler, so `kill -INT` did nothing. SIGTERM (what
    `timeout`, SLURM and Kubernetes send) stops it the same way, and exits 143."""
    signal.signal(signal.SIGINT, ask_stop)  # KeyboardInterrupt, as Python's own handler raises
    signal.signal(signal.SIGTERM, run.stop_on_signal)
    try:
        app(args=run.bare_wandb(sys.argv[1:]))
    except (StorageError, StudyNameError, SpaceChanged, ResultsFileError, MissingPart) as exc:
        err.print(f"[red]{escape(str(exc))}[/]")
        sys.exit(2)
    except KeyboardInterrupt:  # outside a sweep (which says how to resume): nothing to say, no traceback
        sys.exit(128 + run.STOPPED_BY[0])
    except SystemExit as exc:  # typer ends any command a KeyboardInterrupt left with 130, SIGTERM's too (explain)
        if exc.code == 128 + signal.SIGINT and run.STOPPED_BY[0] != signal.SIGINT:
            sys.exit(128 + run.STOPPED_BY[0])
        raise
    except ModuleNotFoundError as exc:
        message = missing_module_message(exc)
        if message is None:
            raise
        err.print(f"[red]{escape(message)}[/]")
        sys.exit(2)
    except OSError as exc:  # a path the command cannot write or read (a read-only --runs-dir, -o DIR); others raise
        if not exc.filename:
            raise
        err.print(f"[red]{escape(f'{exc.filename}: {exc.strerror or exc}')}[/] (check the path and its permissions)")
        sys.exit(2)
    except Exception as exc:
        failed = storage_failure(exc)  # the database lost mid-command: one line, not a driver's traceback
        if failed is None:
            raise
        err.print(f"[red]{escape(failed)}[/]")
        sys.exit(1)
