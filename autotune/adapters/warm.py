"""The warm trainer parent for builtin trials: one `trainer.zygote` per controller process.

Started on the first launch (and waited for, so its imports never overlap a trial's timed
steps), stopped when the controller exits (atexit, and the kernel's parent-death signal if the
controller is killed). Trials then start through `trainer.spawn`, which falls back to a cold
`torchrun` when the zygote is gone. `AUTOTUNE_WARM_TRIALS=0` turns it off (Ray trainables do:
each would start its own zygote for a single trial).
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
from pathlib import Path

READY_TIMEOUT_S = 180.0
_zygote: tuple[subprocess.Popen[bytes], Path] | None = None


def enabled() -> bool:
    return os.environ.get("AUTOTUNE_WARM_TRIALS", "1") != "0"


def socket_path() -> Path | None:
    """The running zygote's socket, starting it if needed; None if it cannot start."""
    global _zygote
    if _zygote is not None and _zygote[0].poll() is None:
        return _zygote[1]
    from autotune.adapters.base import die_with_parent

    folder = Path(tempfile.mkdtemp(prefix="autotune-warm-"))
    path = folder / "zygote.sock"
    env = {**os.environ, "OMP_NUM_THREADS": "1"}
    with (folder / "zygote.log").open("w") as log:
        proc = subprocess.Popen(
            [sys.executable, "-m", "trainer.zygote", str(path)],
            stdout=log,
            stderr=subprocess.STDOUT,
            env=env,
            start_new_session=True,
            preexec_fn=die_with_parent,
        )
    deadline = time.monotonic() + READY_TIMEOUT_S
    while not path.exists() and proc.poll() is None and time.monotonic() < deadline:
        time.sleep(0.1)
    if not path.exists():
        _stop(proc, folder)
        return None
    _zygote = (proc, path)
    atexit.register(_stop, proc, folder)
    return path


def _stop(proc: subprocess.Popen[bytes], folder: Path) -> None:
    with contextlib.suppress(ProcessLookupError):
        os.killpg(proc.pid, 9)
    with contextlib.suppress(Exception):
        proc.wait(timeout=10)
    shutil.rmtree(folder, ignore_errors=True)
