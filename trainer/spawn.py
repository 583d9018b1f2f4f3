"""Start a trainer run from the warm zygote (`trainer/zygote.py`), or cold when there is none.

    python -m trainer.spawn SOCKET WORLD -- [trainer args]

Standard library only, so it starts in tens of milliseconds. It hands the zygote its stdout and
stderr, its environment, working directory and the trainer's arguments, then waits and exits with
the run's exit code. SIGTERM/SIGINT are forwarded to the run's process group; if this process is
killed outright, the zygote's leader sees the connection drop and kills the run. Without a zygote
(socket missing or refusing), it execs the usual `torchrun --standalone` (or `python -m trainer`),
so a replayed `command` file works anywhere.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import socket
import sys


def _cold(world: int, args: list[str]) -> None:
    if world == 1:
        os.execv(sys.executable, [sys.executable, "-m", "trainer", *args])
    torchrun = ["-m", "torch.distributed.run", "--standalone", f"--nproc_per_node={world}", "-m", "trainer"]
    os.execv(sys.executable, [sys.executable, *torchrun, *args])


def main(argv: list[str]) -> int:
    path, world, sep, *args = argv
    assert sep == "--", "usage: python -m trainer.spawn SOCKET WORLD -- [trainer args]"
    conn = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        conn.connect(path)
    except OSError:
        _cold(int(world), args)
    request = {"world": int(world), "argv": args, "env": dict(os.environ), "cwd": os.getcwd()}
    sys.stdout.flush()
    sys.stderr.flush()
    socket.send_fds(conn, [json.dumps(request).encode()], [1, 2])
    reader = conn.makefile("r")
    first = json.loads(reader.readline() or '{"cold": true}')
    if first.get("cold"):  # this run changes how libraries load: a fresh interpreter, as before
        conn.close()
        _cold(int(world), args)
    pgid = int(first["pgid"])

    def forward(signum: int, frame: object) -> None:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(pgid, signum)

    signal.signal(signal.SIGTERM, forward)
    signal.signal(signal.SIGINT, forward)
    line = reader.readline()
    return int(json.loads(line)["exit"]) if line else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
