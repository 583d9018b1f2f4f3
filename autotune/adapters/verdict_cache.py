"""verl's verdicts on trial configurations, kept on disk across commands.

Checking one configuration composes verl's hydra config (about half a second) and runs verl's own
`validate_config`, which first imports verl (about 5 s on 2 cores: verl imports torch and tensordict).
A `run` or `validate` of a verl space checks every choice of every param before its first trial,
so each command on the same space paid 10-15 s for answers it already had. A verdict is a pure
function of the override lines, the values, the installed verl and this package's checking code:
it is kept under `~/.cache/autotune/verl_checks/` (`$XDG_CACHE_HOME`), one small JSON file per
configuration, named by a hash of all four. A file that cannot be read is a miss; one that cannot
be written costs only the time. The first verdict a command keeps removes those of another verl or
checking code (each file says whose it is): they can never be read again, and a folder of them grew
with every upgrade. Two installs sharing the folder remove each other's: it costs a check, not a
wrong answer.
"""

from __future__ import annotations

import hashlib
import json
import os
from functools import cache
from pathlib import Path
from typing import Any

FORMAT = 1
"""Bumped when a verdict's meaning changes in a way the checking code's hash does not show."""
CHECKING_CODE = ("verl_trainer.py", "verl_config.py", "verdict_cache.py")
"""This package's files whose code decides a verdict: an edit to any of them starts afresh."""


def _folder() -> Path:
    root = Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache"))
    return root / "autotune" / "verl_checks"


@cache
def _checker() -> str:
    """The installed verl's version and a hash of the checking code (no import of verl: that is the cost)."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        verl = version("verl")
    except PackageNotFoundError:
        verl = "none"
    here = Path(__file__).parent
    try:
        code = hashlib.sha256(b"".join((here / name).read_bytes() for name in CHECKING_CODE)).hexdigest()
    except OSError:  # installed without its sources: no verdict can be trusted across commands
        code = f"process {os.getpid()} {os.urandom(8).hex()}"
    return f"{FORMAT}:{verl}:{code}"


def _path(signature: Any) -> Path:
    key = json.dumps([_checker(), signature], sort_keys=True, default=repr)
    return _folder() / f"{hashlib.sha256(key.encode()).hexdigest()[:32]}.json"


def recalled(signature: Any) -> tuple[bool, str | None]:
    """(found, verl's problem with the configuration or None: accepted)."""
    try:
        problem = json.loads(_path(signature).read_text())["problem"]
    except (OSError, ValueError, KeyError, TypeError):
        return False, None
    return (True, problem) if problem is None or isinstance(problem, str) else (False, None)


def keep(signature: Any, problem: str | None) -> None:
    path = _path(signature)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        _prune(path.parent)
        tmp = path.with_suffix(f".{os.getpid()}.tmp")
        tmp.write_text(json.dumps({"problem": problem, "checker": _checker()}))
        tmp.replace(path)  # whole or absent: another command reading it never sees half a file
    except OSError:
        pass


@cache
def _prune(folder: Path) -> None:
    """Once a command: remove the verdicts of another verl or checking code (and of the format before files said
    whose they are). A file another command is writing is a `.tmp` until whole, so only whole files are read."""
    mine = _checker()
    for path in folder.glob("*.json"):
        try:
            whose = json.loads(path.read_text()).get("checker")
        except (OSError, ValueError, AttributeError):
            whose = None  # torn or foreign: a miss if kept, so gone
        if whose != mine:
            path.unlink(missing_ok=True)
