"""Run under torchrun (or python) by test_teardown.py in place of `-m trainer`: runs the trainer's own
`__main__` and reports on stderr whether the rank went through interpreter finalisation (an atexit
handler only finalisation runs). Not a test module itself.

    torchrun --nproc_per_node W exit_probe.py key=value ...
"""

from __future__ import annotations

import atexit
import os
import runpy
import sys

RANK = os.environ.get("RANK", "0")
STARTED = "exit-probe: started rank="
FINALISED = "exit-probe: interpreter finalisation entered rank="


def _finalising() -> None:
    print(f"{FINALISED}{RANK}", file=sys.stderr, flush=True)


if __name__ == "__main__":
    atexit.register(_finalising)
    print(f"{STARTED}{RANK}", file=sys.stderr, flush=True)
    sys.argv = ["trainer", *sys.argv[1:]]
    runpy.run_module("trainer", run_name="__main__", alter_sys=True)
