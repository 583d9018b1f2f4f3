"""Where a new user starts: `autotune --version`, `autotune spaces`, `autotune init`."""

from __future__ import annotations

from importlib.metadata import PackageNotFoundError, version
from typing import Annotated

import typer

from autotune.cli.common import app, console
from autotune.space.loader import SPACE_DIR, shipped_spaces


def package_version() -> str:
    try:
        return version("autotune")
    except PackageNotFoundError:  # run from a checkout that was never installed
        return "unknown (not installed)"


def _print_version(value: bool) -> None:
    if value:
        console.print(f"autotune {package_version()}")
        raise typer.Exit()


@app.callback()
def root(
    show_version: Annotated[
        bool,
        typer.Option("--version", callback=_print_version, is_eager=True, help="Print autotune's version and exit."),
    ] = False,
) -> None:
    """Tune a verl KL-PPO job: sweep a search space with short real trials, read the result, export the winner.

    Start with `autotune init` on your own verl job, or `autotune spaces` for the shipped examples.
    """


@app.command()
def spaces() -> None:
    """List the shipped search spaces (usable by bare name: `--space fsdp3d`)."""
    found = shipped_spaces()
    console.print(f"shipped spaces ({SPACE_DIR}):")
    for name, path in found.items():
        console.print(f"  {name:<16} {_summary(path.read_text())}")


def _summary(text: str) -> str:
    """The first sentence of the file's leading comment."""
    lines = []
    for line in text.splitlines():
        if not line.startswith("#"):
            break
        lines.append(line.lstrip("# ").strip())
    words = " ".join(lines)
    end = words.find(". ")
    sentence = words[: end + 1] if end >= 0 else words
    return sentence if len(sentence) <= 110 else sentence[:110].rsplit(" ", 1)[0] + " …"
