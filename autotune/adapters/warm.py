"""The warm trainer parent for builtin trials: one `trainer.zygote` per controller process.

Started without waiting when the sweep prepares (`start`), so its imports run while the
controller opens the study and asks for the first configuration; the first launch then waits
until it is ready (`socket_path`), so its imports never overlap a trial's timed steps. Stopped when
the controller exits (atexit, and the kernel's parent-death signal if the controller is killed).
Trials (and the equivalence check's runs) start through `trainer.spawn` (`launch_argv`), which
falls back to a cold `torchrun` when the zygote is gone. `AUTOTUNE_WARM_TRIALS=0` turns it off.

`AUTOTUNE_WARM_SOCKET` names a zygote that is already running on this machine: a process given one
launches from it and starts none of its own (a zygote that is gone, or one whose import-time
environment differs from a run's, means a cold start, never a failure). The Ray backend hands its
driver's zygote to its trainables this way, so trials on the driver's machine start warm (a
trainable elsewhere finds no such socket and starts its own runs cold); the test suite hands each
pytest worker's zygote to the sweeps it runs as subprocesses.
"""

from __future__ import annotations

import atexit
import contextlib
import os
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

READY_TIMEOUT_S = 180.0


@dataclass
class _Zygote:
    proc: subprocess.Popen[bytes]
    folder: Path
    ready: bool = False
    """The socket has appeared: the imports are done."""

    @property
    def path(self) -> Path:
        return self.folder / "zygote.sock"


_zygote: _Zygote | None = None


SHARED = "AUTOTUNE_WARM_SOCKET"
PREFIX = "autotune-warm-"
"""A zygote's folder in the temp dir: PREFIX, the controller's pid, a random tail."""


def enabled() -> bool:
    return os.environ.get("AUTOTUNE_WARM_TRIALS", "1") != "0"


def shared() -> Path | None:
    """The socket of a running zygote named by AUTOTUNE_WARM_SOCKET, if it is there."""
    path = os.environ.get(SHARED)
    return Path(path) if path and Path(path).is_socket() else None


def start() -> None:
    """Start the zygote in the background if none is running (nor shared with us); returns at once."""
    global _zygote
    if shared() is not None or (_zygote is not None and _zygote.proc.poll() is None):
        return
    from autotune.adapters.base import die_with_parent

    remove_stale()
    folder = Path(tempfile.mkdtemp(prefix=f"{PREFIX}{os.getpid()}-"))
    env = {**os.environ, "OMP_NUM_THREADS": "1"}
    with (folder / "zygote.log").open("w") as log:
        proc = subprocess.Popen(
            [sys.executable, "-m", "trainer.zygote", str(folder / "zygote.sock")],
            stdout=log,
            stderr=subprocess.STDOUT,
            env=env,
            start_new_session=True,
            preexec_fn=die_with_parent,
        )
    _zygote = _Zygote(proc, folder)
    atexit.register(_stop, proc, folder)


def remove_stale(root: Path | None = None) -> list[Path]:
    """Folders of zygotes whose controller is gone: the kernel stops a killed controller's zygote, but
    only the controller's atexit removed its folder, so each `kill -9` left one in /tmp. Named by the
    controller's pid; a folder of a live process, or another user's, is left alone."""
    import psutil

    removed = []
    for folder in (root or Path(tempfile.gettempdir())).glob(f"{PREFIX}*-*"):
        pid = folder.name[len(PREFIX) :].split("-", 1)[0]
        with contextlib.suppress(OSError):
            if pid.isdigit() and folder.stat().st_uid == os.getuid() and not psutil.pid_exists(int(pid)):
                shutil.rmtree(folder)
                removed.append(folder)
    return removed


def socket_path() -> Path | None:
    """The running zygote's socket (a shared one, or ours: started and waited for until it is ready);
    None if it cannot start."""
    global _zygote
    if (given := shared()) is not None:
        return given
    start()
    assert _zygote is not None
    zygote = _zygote
    if zygote.ready:
        return zygote.path
    deadline = time.monotonic() + READY_TIMEOUT_S
    while not zygote.path.exists() and zygote.proc.poll() is None and time.monotonic() < deadline:
        time.sleep(0.02)
    if not zygote.path.exists():
        _stop(zygote.proc, zygote.folder)
        _zygote = None
        return None
    zygote.ready = True
    return zygote.path


def launch_argv(world: int, args: list[str], entry: tuple[str, ...] = ("-m", "trainer")) -> list[str]:
    """The command line of a run of `entry` (`-m MODULE` or a script) at `world` ranks: forked from
    the warm zygote when warm starts are on and it can start, else `torchrun --standalone` (or a
    plain `python` at world 1)."""
    from trainer.spawn import cold_argv

    zygote = socket_path() if enabled() else None
    if zygote is None:
        return cold_argv(world, list(entry), args)
    return [sys.executable, "-m", "trainer.spawn", str(zygote), str(world), *entry, "--", *args]


def stop() -> None:
    """Stop the zygote now (it is also stopped when the controller exits)."""
    global _zygote
    if _zygote is not None:
        _stop(_zygote.proc, _zygote.folder)
        _zygote = None


def _stop(proc: subprocess.Popen[bytes], folder: Path) -> None:
    with contextlib.suppress(ProcessLookupError):
        os.killpg(proc.pid, 9)
    with contextlib.suppress(Exception):
        proc.wait(timeout=10)
    shutil.rmtree(folder, ignore_errors=True)
