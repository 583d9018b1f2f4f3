"""A real run's `--verl-config` for `autotune calibrate`, its run script read as `autotune init` reads it.

The cost model's floor (`autotune/sim/verl_log.py`) reads a YAML config or an overrides file; a run script is
read here, by init's reader (`script.py`), so calibrate accepts the scripts init accepts (`train_files="['$a',
'$b']"` with the variables the script sets; a slurm script's other commands) and refuses what init refuses, with
init's message (two `main_ppo` commands: it merged them and fitted the last one's world size, audit 36 F6; a script
that runs another trainer, DAPO's or SFT's: read as overrides, it was refused for a shell variable, audit 37 F15).
Where calibrate differs, for the fit's sake: a key the run adds (`+key=value`) is allowed (a space cannot hold it; a fit
does not need it), and a value using a variable the script does not set is refused at its line where the cost model
reads the key (a space leaves it for `base:`; the fit would read the text `$TBS` as the value), else left as written,
said (`trainer.experiment_name=run-${SFT_MODEL}`).
"""

from __future__ import annotations

import re
from pathlib import Path

from autotune.adapters.verl_config import SHELL_VAR
from autotune.scaffold.job import unset_said
from autotune.scaffold.read import read_job, refuse_other_trainers, silent_readings
from autotune.scaffold.script import from_script
from autotune.sim.verl_log import NEITHER, SCRIPT, RunConfig, config_kind, load_config
from autotune.sim.workload import modelled_keys

__all__ = ["read_run_config"]

CLUSTER_KEYS = ("trainer.nnodes", "trainer.n_gpus_per_node")
"""Read by the fit as the run's world (no workload key): a variable left in one is refused, not left as text."""

_ARGUMENTS_NOTE = re.compile(r"`(.+)` \(the script's arguments\) left out")
"""init's note of the `$@` it leaves out of the command."""


def read_run_config(path: str | Path, nodes: int | None = None, gpus_per_node: int | None = None) -> RunConfig:
    """`path` as calibrate reads it: a run script as init reads it, else a YAML config or an overrides file. `nodes`
    and `gpus_per_node` (calibrate's flags, as init's) fill a script's `trainer.nnodes=$SLURM_NNODES`."""
    with open(path, encoding="utf-8", newline="") as file:  # `\r\n` kept, to be said (bash cannot run the file)
        text = file.read()
    # a DAPO or SFT script: init's refusal, not a shell variable's (audit 37 F15)
    refuse_other_trainers(text, str(path))
    kind = config_kind(text, path)
    if kind == NEITHER:  # a shell file without verl's command (an sbatch header and `source ...`): init's refusal
        read_job(text, str(path))
    if kind != SCRIPT:
        return load_config(path)
    cluster = {"trainer.nnodes": nodes, "trainer.n_gpus_per_node": gpus_per_node}
    job = from_script(text, str(path), cluster=cluster, added=True)
    flat = {key.removeprefix("+"): value for key, value in job.flat.items()}
    lines = {key.removeprefix("+"): line for key, line in job.lines.items()}
    left: list[str] = []
    for key, value in flat.items():
        words = value if isinstance(value, list) else [value]
        names = {m.group(1) or m.group(2) for w in words if isinstance(w, str) for m in SHELL_VAR.finditer(w)}
        unset = sorted(names & set(job.unset))
        at = f"{path}:{lines[key]}" if key in lines else str(path)
        if (
            unset and key not in modelled_keys() and key not in CLUSTER_KEYS
        ):  # `experiment_name=...${SFT_MODEL}` refused the whole log (audit 36)
            left.append(
                f"{at}: `{key}={value}` uses {unset_said(unset)}, left as written: the cost model does not read it"
            )
        elif unset:  # as a value it would be read as text ("invalid literal for int(): '$TBS'")
            raise ValueError(
                f"{at}: `{key}={value}` uses a shell variable the file does not set ({unset_said(unset)}); write its "
                "value (or give the overrides the run printed)"
            )
    passes = next((m.group(1) for note in job.notes if (m := _ARGUMENTS_NOTE.fullmatch(note))), None)
    if passes:  # as the script writes it (`"${@}"`: bash drops the quotes)
        passes = next((word for word in text.split() if word.strip("\"'") == passes), passes)
    checked = tuple(key for key in job.flat if not key.startswith("+"))
    filled = [n for n in job.notes if re.search(r"read as `trainer\.\w+=\d+`, from (--|the script's `#SBATCH)", n)]
    said = (*silent_readings(text, str(path)), *filled, *left)  # as init says them
    return RunConfig(str(path), flat, dict(job.env), checked, passes=passes, lines=lines, said=said)
