"""A slurm batch script's own request: its `#SBATCH` lines' nodes and GPUs a node, as the cluster keys they give.

slurm reads `#SBATCH` options from the comment lines before the script's first command and fills `$SLURM_NNODES`
(`$SLURM_JOB_NUM_NODES`) and `$SLURM_GPUS_PER_NODE` from them when the job runs: a script whose
`trainer.nnodes=$SLURM_NNODES` init could not read without `--nodes` states the number itself (audit 38 F11).
"""

from __future__ import annotations

import re

__all__ = ["sbatch_cluster"]

_OPTION = re.compile(
    r"^#SBATCH\s+(?:(?P<nodes>--nodes[=\s]|-N\s*)(?P<n>\d+)|--gpus-per-node[=\s](?:[A-Za-z0-9_-]+:)?(?P<g>\d+)"
    r"|--gres[=\s]gpu(?::[A-Za-z0-9_-]+)?:(?P<gres>\d+))(?=\s|,|$)"
)
"""`--nodes=2`, `-N 2`, `--gpus-per-node=8` (or `h100:8`), `--gres=gpu:8` (or `gpu:h100:8`): a range of nodes
(`--nodes=2-4`) gives no one number and is not read."""


def sbatch_cluster(text: str) -> dict[str, tuple[int, int, str]]:
    """{cluster key: (value, line, the `#SBATCH` line as written)} of the script's `#SBATCH` options before its first
    command, the last of each (as slurm takes it)."""
    found: dict[str, tuple[int, int, str]] = {}
    for n, raw in enumerate(text.splitlines(), 1):
        line = raw.strip()
        if line and not line.startswith("#"):
            break  # slurm stops reading options at the first command
        if m := _OPTION.match(line):
            key = "trainer.nnodes" if m.group("n") else "trainer.n_gpus_per_node"
            found[key] = (int(m.group("n") or m.group("g") or m.group("gres")), n, line)
    return found
