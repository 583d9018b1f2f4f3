"""A warm parent for trainer runs: imports torch, transformers and the trainer once, then forks
each run's ranks from that state (`python -m trainer.zygote SOCKET`).

A run names its entry point: the trainer (`python -m trainer`, the default), another module of
this project that runs under torchrun (`trainer.equivalence`, the equivalence check's one step), or
a script path; each rank runs it as `__main__` (`runpy`), as `python -m MODULE` or `python SCRIPT`
would, with the imports already done.

Most of a short CPU trial used to be start-up: a fresh interpreter per rank importing torch and
transformers (seconds) before a second of real work. Here a run asks the zygote over a Unix
socket (`trainer/spawn.py`, a stdlib-only client) and gets ranks that start from the imported
state in milliseconds. Each run stays isolated: the zygote forks a *leader* per run, in its own
process group, which forks the ranks and waits for them; nothing a run does reaches the zygote or
the next run, and the zygote itself never runs a torch operation (no thread pools, no CUDA
context), so forking it is safe. The leader behaves like `torchrun --standalone`: ranks get
RANK/LOCAL_RANK/WORLD_SIZE/MASTER_ADDR/MASTER_PORT, a rank that fails makes the leader stop the
others (SIGTERM, then SIGKILL), and the run's exit code is the first failing rank's code. The
client's stdout and stderr are passed as file descriptors, so ranks write straight into the
trial's logs; when the client goes away (killed by the watchdog), the leader kills the run.
"""

from __future__ import annotations

import contextlib
import gc
import json
import os
import select
import signal
import socket
import sys
import time
from pathlib import Path
from typing import Any

STOP_GRACE_S = 1.0
KILL_GRACE_S = 5.0
IMPORT_TIME = ("TORCH_", "PYTORCH_", "LD_", "MKL_", "KMP_", "OMP_", "GOMP_", "PYTHON", "CUDA_VISIBLE_DEVICES")
"""Variables a library may read while it is imported: a run that changes one (beyond those in
APPLIED_LATER) starts cold instead."""
APPLIED_LATER = ("OMP_NUM_THREADS", "PYTHONUNBUFFERED", "PYTHONBREAKPOINT")
"""Read when used, not at import: the thread count and unbuffered output (the trainer applies both
itself) and the hook `breakpoint()` calls (a Ray worker sets Ray's own)."""


def import_time_env(env: dict[str, str]) -> dict[str, str]:
    return {k: v for k, v in env.items() if k.startswith(IMPORT_TIME) and k not in APPLIED_LATER}


def serve(path: str) -> None:
    """Import once, then fork a leader per request until the socket file is removed or we are killed."""
    import torch  # noqa: F401  (the point: import here, once)
    import transformers  # noqa: F401

    # what `python -m trainer` imports, not trainer.__main__ itself: each run executes it afresh as
    # __main__ (runpy warns about a __main__ module that is already imported)
    import trainer.config.checks
    import trainer.failures
    import trainer.loop  # noqa: F401

    _warm_config()
    gc.freeze()  # the imported modules never die: keep them out of every child's collections
    signal.signal(signal.SIGCHLD, signal.SIG_IGN)  # leaders are reaped by the kernel
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as server:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(path)
        server.bind(path + ".tmp")
        os.rename(path + ".tmp", path)  # the socket appears only once the imports are done
        server.listen(16)
        while Path(path).exists():
            ready, _, _ = select.select([server], [], [], 1.0)
            if not ready:
                continue
            conn, _ = server.accept()
            if os.fork() == 0:
                server.close()
                _lead(conn)  # never returns
            conn.close()


def _warm_config() -> None:
    """Build the default config once, so every forked rank finds the config schema already read.

    The first build of a run reads the schema's field docs from the source (a few hundred ms of
    pure Python, cached for the life of the process) — paid by every rank of every trial when it
    happens after the fork. Pure Python: no torch operation runs here, so forking stays safe.
    """
    from trainer.config.loader import ConfigError, load_config

    try:
        load_config()
    except ConfigError as exc:  # a broken preset fails each run with its own message; just skip the warm-up
        print(f"trainer.zygote: config warm-up skipped: {exc}", file=sys.stderr)


def _lead(conn: socket.socket) -> None:
    """One run: receive it, fork its ranks, wait, report the exit code, and leave."""
    code = 1
    try:
        signal.signal(signal.SIGCHLD, signal.SIG_DFL)
        os.setpgid(0, 0)
        message, fds, _, _ = socket.recv_fds(conn, 1 << 20, 2)
        request = json.loads(message)
        ours, theirs = import_time_env(dict(os.environ)), import_time_env(request["env"])
        if ours != theirs:
            differs = sorted(k for k in ours.keys() | theirs.keys() if ours.get(k) != theirs.get(k))
            reply = {"cold": True, "differs": differs}
            conn.sendall(json.dumps(reply).encode() + b"\n")  # the client starts it itself
            os._exit(0)
        request["port"] = _free_port()
        conn.sendall(json.dumps({"pgid": os.getpid()}).encode() + b"\n")
        ranks = [_fork_rank(request, rank, fds) for rank in range(int(request["world"]))]
        err = os.dup(fds[1])  # the run's stderr: a rank killed by a signal is said there (`_wait`)
        for fd in fds:
            os.close(fd)
        code = _wait(ranks, conn, err)
        with contextlib.suppress(OSError):
            conn.sendall(json.dumps({"exit": code}).encode() + b"\n")
    except BaseException as exc:  # the leader must never fall back into the zygote's loop
        with contextlib.suppress(Exception):
            print(f"trainer.zygote: leader failed: {type(exc).__name__}: {exc}", file=sys.stderr)
    os._exit(code)


def _fork_rank(request: dict[str, Any], rank: int, fds: list[int]) -> int:
    pid = os.fork()
    if pid:
        return pid
    code = 1
    try:
        os.dup2(fds[0], 1)
        os.dup2(fds[1], 2)
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
        signal.signal(signal.SIGINT, signal.SIG_DFL)
        world = int(request["world"])
        os.environ.clear()
        os.environ.update(request["env"])
        if world > 1:
            os.environ.update(
                RANK=str(rank), LOCAL_RANK=str(rank), WORLD_SIZE=str(world), LOCAL_WORLD_SIZE=str(world),
                MASTER_ADDR="127.0.0.1", MASTER_PORT=str(request["port"]),
            )  # fmt: skip
        os.chdir(request["cwd"])
        sys.stdout = os.fdopen(1, "w", buffering=1)
        sys.stderr = os.fdopen(2, "w", buffering=1)
        code = _run_entry(request.get("module", "trainer"), request.get("script"), request["argv"])
    except SystemExit as exc:
        code = exc.code if isinstance(exc.code, int) else 0 if exc.code is None else 1
    except BaseException:
        import traceback

        traceback.print_exc()
    finally:
        with contextlib.suppress(Exception):
            sys.stdout.flush()
            sys.stderr.flush()
        os._exit(code)


def _run_entry(module: str, script: str | None, argv: list[str]) -> int:
    """Run the entry point as `__main__` with `argv`, as `python -m module` (or `python script`)
    would; a finished trainer run leaves inside it, through os._exit."""
    import runpy

    if script is not None:
        sys.argv = [script, *argv]
        sys.path.insert(0, str(Path(script).resolve().parent))
        runpy.run_path(script, run_name="__main__")
    else:
        sys.argv = [module, *argv]
        runpy.run_module(module, run_name="__main__", alter_sys=True)
    return 0


def _wait(ranks: list[int], conn: socket.socket, err: int | None = None) -> int:
    """Wait for every rank; the first failure stops the rest; a vanished client stops everyone.

    After a rank fails the others get `STOP_GRACE_S` to end on their own (a bad config fails every
    rank, and only rank 0 says why), then SIGTERM, then SIGKILL after `KILL_GRACE_S`. A first failure that is a
    signal (the kernel's OOM killer sends SIGKILL) is said on `err` as the trainer says its failures: a rank killed
    outright says nothing, and the trial read the other rank's gloo "Connection reset by peer" (audit 28 F5).
    """
    live, first_failure = set(ranks), 0
    term_at: float | None = None
    kill_at: float | None = None
    exits = _exit_fds(ranks)  # readable when a rank ends: the loop wakes at once, not at its next tick
    while live:
        with contextlib.suppress(ChildProcessError):
            while True:
                pid, status = os.waitpid(-1, os.WNOHANG)
                if pid == 0:
                    break
                live.discard(pid)
                code = os.waitstatus_to_exitcode(status)
                if code != 0 and first_failure == 0:
                    first_failure = code if code > 0 else 128 - code
                    term_at = time.monotonic() + STOP_GRACE_S
                    if code < 0 and err is not None and pid in ranks:
                        _say_killed(err, ranks.index(pid), -code)
        if not live:
            break
        now = time.monotonic()
        if term_at is not None and now > term_at:
            _signal(live, signal.SIGTERM)
            term_at, kill_at = None, now + KILL_GRACE_S
        if kill_at is not None and now > kill_at:
            _signal(live, signal.SIGKILL)
            kill_at = None  # SIGKILL cannot be ignored: what is left ends and is reaped on the next wake-up
        waiting: list[socket.socket | int] = [conn, *(fd for fd, pid in exits.items() if pid in live)]
        deadlines = [t - now for t in (term_at, kill_at) if t is not None]
        tick = min([0.5 if exits else 0.05, *deadlines])
        readable, _, _ = select.select(waiting, [], [], max(tick, 0.0))
        if conn in readable and not conn.recv(4096):  # the client is gone: the run goes too
            _signal(live, signal.SIGKILL)
            first_failure = first_failure or 137
    for fd in exits:
        os.close(fd)
    return first_failure


def _say_killed(err: int, rank: int, signum: int) -> None:
    from trainer.metric_names import REASON_PREFIX, killed_by

    with contextlib.suppress(OSError):
        os.write(err, f"{REASON_PREFIX}crash rank={rank} step=-1: {killed_by(signum)}\n".encode())


def _exit_fds(pids: list[int]) -> dict[int, int]:
    """{pidfd: pid} for each rank (Linux 5.3+); empty where pidfds are unavailable (the loop then polls)."""
    fds: dict[int, int] = {}
    try:
        for pid in pids:
            fds[os.pidfd_open(pid)] = pid
    except (AttributeError, OSError):  # no pidfd_open here, or a rank already reaped
        for fd in fds:
            os.close(fd)
        return {}
    return fds


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _signal(pids: set[int], sig: int) -> None:
    for pid in pids:
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, sig)


if __name__ == "__main__":
    serve(sys.argv[1])
