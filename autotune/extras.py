"""The optional parts of autotune, and the one line that says how to install a missing one.

A command that needs an extra (`pip install 'autotune[verl]'`) or a system package (Chromium) checks
for it before it starts and raises `MissingPart`; the CLI prints its message and exits 2. An import
that fails deeper down (a module the check did not foresee) is mapped to the same line by
`missing_module_message`, so a missing part never ends in a traceback.
"""

from __future__ import annotations

import importlib.util
import shutil
from dataclasses import dataclass

__all__ = ["PARTS", "MissingPart", "Part", "missing_module_message", "require", "require_program"]


class MissingPart(RuntimeError):
    """A command needs something that is not installed; the message is one line naming the fix."""


@dataclass(frozen=True)
class Part:
    modules: tuple[str, ...]
    """Top-level modules it provides."""
    install: str
    """The command that installs it."""


PARTS = {
    "verl": Part(("verl", "omegaconf", "hydra"), "pip install 'autotune[verl]'"),
    "postgres": Part(("psycopg",), "pip install 'autotune[postgres]'"),
    "wandb": Part(("wandb",), "pip install 'wandb>=0.18'"),
    "ray": Part(("ray",), "pip install 'ray[tune]>=2.40'"),
}
"""Each optional part by name: extras of this package (`verl`, `postgres`) and dependencies a
slimmed-down install may lack (`wandb`, `ray`)."""


def _absent(module: str) -> bool:
    try:
        return importlib.util.find_spec(module) is None
    except (ImportError, ValueError):  # a parent that fails to import, or sys.modules[name] = None
        return True


def require(part: str, purpose: str) -> None:
    """Raise MissingPart unless every module of `part` can be imported; `purpose` says what needs it."""
    spec = PARTS[part]
    missing = [m for m in spec.modules if _absent(m)]
    if missing:
        raise MissingPart(f"{purpose} needs {', '.join(missing)}, not installed here: {spec.install}")


def require_program(names: tuple[str, ...], purpose: str, install: str) -> str:
    """The path of the first of `names` on PATH; MissingPart naming `install` when there is none."""
    for name in names:
        found = shutil.which(name)
        if found:
            return found
    raise MissingPart(f"{purpose} needs {names[0]}, not found on PATH: {install}")


def missing_module_message(exc: ModuleNotFoundError) -> str | None:
    """The one-line fix for an import of an optional part that failed; None for any other module."""
    top = (exc.name or "").split(".")[0]
    for spec in PARTS.values():
        if top in spec.modules:
            return f"`{top}` is not installed here: {spec.install}"
    return None
