"""Start a trainer run from the warm zygote (`trainer/zygote.py`), or cold when there is none.

    python -m trainer.spawn SOCKET WORLD [-m MODULE | SCRIPT] -- [args]

The entry point is the trainer (`-m trainer`) unless a module or a script path is given.

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

USAGE = "usage: python -m trainer.spawn SOCKET WORLD [-m MODULE | SCRIPT] -- [args]"


def cold_argv(world: int, entry: list[str], args: list[str]) -> list[str]:
    """The same run without a zygote: `python ENTRY args`, under `torchrun --standalone` for world > 1. Its
    `--log-dir` is /dev/null: torchrun otherwise leaves an empty `torchelastic_*` folder in the temporary folder per
    run (hundreds a sweep); the ranks' output still comes on the console, and its failure report is the same."""
    launcher = ["-m", "torch.distributed.run", "--standalone", "--log-dir=/dev/null", f"--nproc_per_node={world}"]
    launcher = launcher if world > 1 else []
    return [sys.executable, *launcher, *entry, *args]


def _cold(world: int, entry: list[str], args: list[str]) -> None:
    argv = cold_argv(world, entry, args)
    os.execv(argv[0], argv)


def parse(argv: list[str]) -> tuple[str, int, list[str], list[str]]:
    """(socket, world, entry as `python` takes it: ["-m", MODULE] or [SCRIPT], the run's args)."""
    if "--" not in argv or argv.index("--") < 2:
        raise SystemExit(USAGE)
    cut = argv.index("--")
    (path, world, *entry), args = argv[:cut], argv[cut + 1 :]
    if not (entry == [] or (len(entry) == 1 and entry[0] != "-m") or (len(entry) == 2 and entry[0] == "-m")):
        raise SystemExit(USAGE)
    return path, int(world), entry or ["-m", "trainer"], args


def main(argv: list[str]) -> int:
    path, world, entry, args = parse(argv)
    conn = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        conn.connect(path)
    except OSError:
        _cold(world, entry, args)
    request: dict[str, object] = {"world": world, "argv": args, "env": dict(os.environ), "cwd": os.getcwd()}
    if entry[0] == "-m":
        request["module"] = entry[1]
    else:
        request["script"] = os.path.abspath(entry[0])
    sys.stdout.flush()
    sys.stderr.flush()
    socket.send_fds(conn, [json.dumps(request).encode()], [1, 2])
    reader = conn.makefile("r")
    first = json.loads(reader.readline() or '{"cold": true}')
    if first.get("cold"):  # this run changes how libraries load: a fresh interpreter, as before
        conn.close()
        differs = ", ".join(first.get("differs", []))
        print(f"trainer.spawn: starting cold: the warm parent was started with other {differs}", file=sys.stderr)
        _cold(world, entry, args)
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
