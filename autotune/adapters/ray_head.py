"""One Ray cluster for a sweep's verl trials: started once, joined by every trial, stopped at the end.

Without it, every verl trial's `main_ppo` starts a Ray cluster of its own (`ray.init()` in the trial's
process: GCS, raylet, log monitor; seconds of a trial's start-up) and tears it down when it exits.
With it, the controller starts one head when the first such trial launches (a process of its own, in its
own process group, that starts a local Ray node exactly as `main_ppo` would, with `ray.init`, and then
waits), and each trial joins it through verl's own `ray_kwargs.ray_init.address`.

A trial still gets nothing from the trial before it:
* Ray gives every driver (every trial's `main_ppo`) a job of its own: its actors and worker processes
  are started for that job and killed when its driver exits, never handed to another job;
* the head is started with the controller's environment only; what a trial sets (its `env`, the CPU
  plugin's variables, its thread count) reaches its workers through the job's
  `runtime_env.env_vars` (the adapter puts them there), never through the head.

Stopped when the controller exits (atexit, and the kernel's parent-death signal on the head process), by
killing its process group: only the processes this module started, never `ray stop`. `AUTOTUNE_SHARED_RAY=0`
turns it off (every trial starts its own cluster, as verl does by default).
"""

from __future__ import annotations

import atexit
import contextlib
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

READY_TIMEOUT_S = 120.0
ADDRESS_FILE = "address"
LOGICAL_CPUS = 64
"""The head's CPU slots: verl's many small actors each ask for one (the CPU plugin's own setting)."""


@dataclass
class Head:
    proc: subprocess.Popen[bytes]
    folder: Path
    gpus: int
    """The `GPU` resources the head offers (the CPU plugin's ranks)."""
    address: str = ""
    ready: bool = False
    started: float = field(default_factory=time.time)
    ready_s: float | None = None
    """Seconds from starting the head to its address being written (its start-up, paid once per sweep)."""


_head: Head | None = None


def enabled() -> bool:
    return os.environ.get("AUTOTUNE_SHARED_RAY", "1") != "0"


def start(gpus: int) -> None:
    """Start a head offering `gpus` logical GPUs (the CPU plugin's ranks) if none runs; returns at once."""
    global _head
    if _head is not None and _head.proc.poll() is None:
        return
    from autotune.adapters.base import die_with_parent

    folder = Path(tempfile.mkdtemp(prefix="autotune-ray-"))
    env = {**os.environ, "RAY_AUTH_MODE": os.environ.get("RAY_AUTH_MODE", "disabled")}
    env.pop("RAY_ADDRESS", None)
    argv = [sys.executable, "-m", __name__, str(gpus), str(folder)]
    with (folder / "head.log").open("w") as log:
        proc = subprocess.Popen(
            argv, stdout=log, stderr=subprocess.STDOUT, env=env, start_new_session=True, preexec_fn=die_with_parent
        )
    _head = Head(proc, folder, gpus)
    atexit.register(_stop, proc, folder)


def address(gpus: int) -> str | None:
    """The head's address, starting it (the first trial's launch) and waiting until it is up; None when
    the running one offers fewer than `gpus` GPUs or it could not start (the trial then starts a cluster
    of its own, as verl does by default)."""
    global _head
    start(gpus)
    head = _head
    if head is None or head.gpus < gpus:
        return None
    if head.ready:
        return head.address if head.proc.poll() is None else None
    deadline = time.monotonic() + READY_TIMEOUT_S
    while head.proc.poll() is None and time.monotonic() < deadline:
        if _session_ready(head):
            head.ready = True
            head.ready_s = (head.folder / ADDRESS_FILE).stat().st_mtime - head.started
            return head.address
        time.sleep(0.1)
    _stop(head.proc, head.folder)
    _head = None
    return None


def _session_ready(head: Head) -> bool:
    """The node is up: `serve` writes its address only after `ray.init` returned."""
    path = head.folder / ADDRESS_FILE
    if not path.exists():
        return False
    head.address = path.read_text().strip()
    return bool(head.address)


def current() -> Head | None:
    """The head this controller started, if any (running or not)."""
    return _head


def members(head: Head) -> list[int]:
    """The live processes of a head: its session (Ray's workers leave its process group, not its session)."""
    return _session_members(head.proc.pid)


def stop() -> None:
    """Stop the head now (it is also stopped when the controller exits)."""
    global _head
    if _head is not None:
        _stop(_head.proc, _head.folder)
        _head = None


def _session_members(sid: int) -> list[int]:
    """Every live process in session `sid` (Ray's workers leave the head's process group, not its session)."""
    members = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            with contextlib.suppress(OSError):
                if os.getsid(int(entry.name)) == sid:
                    members.append(int(entry.name))
    return members


def _stop(proc: subprocess.Popen[bytes], folder: Path) -> None:
    """SIGKILL every process of the head's session (the head process, its GCS, raylet, agents and workers:
    it was started as a session of its own) and wait until they are gone. Nothing in it is worth a
    graceful stop: every trial has ended and the sweep's record is on disk (`ray start --block`, tried
    first, took over 30 s to stop on SIGTERM here)."""
    deadline = time.monotonic() + 10.0
    while time.monotonic() < deadline:
        members = _session_members(proc.pid)
        for pid in members:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
        with contextlib.suppress(Exception):
            proc.wait(timeout=0.05)
        if not members:
            break
        time.sleep(0.02)
    shutil.rmtree(folder, ignore_errors=True)


def serve(gpus: int, folder: Path) -> None:
    """The head process: a local Ray node started the way verl's `main_ppo` starts one (`ray.init` with the
    CPU plugin's resources), its address written to `folder`, then nothing until it is killed."""
    import ray

    ray.init(
        num_cpus=LOGICAL_CPUS,
        num_gpus=gpus,
        include_dashboard=False,
        _temp_dir=str(folder / "ray"),
        configure_logging=False,
    )
    address = ray.get_runtime_context().gcs_address
    (folder / f"{ADDRESS_FILE}.tmp").write_text(address)
    os.replace(folder / f"{ADDRESS_FILE}.tmp", folder / ADDRESS_FILE)
    signal.pause()


if __name__ == "__main__":
    serve(int(sys.argv[1]), Path(sys.argv[2]))
