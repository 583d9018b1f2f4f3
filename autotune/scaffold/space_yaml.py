"""A recipe for one job written as a search-space YAML, each knob's range with its reason beside it.

The file reads like the shipped spaces (flat verl keys, one knob per line, flow style) so that a
user edits it the same way; only what the loader reads is data, the reasons are comments.
"""

from __future__ import annotations

import re
from typing import Any

import yaml

from autotune.adapters.verl_config import ENTRY, SHELL_VAR
from autotune.scaffold.job import Job, JobError
from autotune.scaffold.recipe import Cluster, Recipe

__all__ = ["baseline", "render_space", "trial_settings"]


def _flow(value: Any) -> str:
    text = yaml.safe_dump(value, default_flow_style=True, sort_keys=False, width=10**9, allow_unicode=True).strip()
    return text.removesuffix("\n...").strip()


def _line(key: str, value: Any, why: str = "", indent: str = "  ") -> str:
    text = f"{indent}{key}: {_flow(value)}"
    return f"{text}   # {why}" if why else text


def trial_settings(cluster: Cluster, cpu: bool) -> dict[str, Any]:
    """Short trials sized for the cluster: verl's start-up (Ray, workers, vLLM) takes minutes on GPU nodes."""
    if cpu:
        return {"steps": 5, "warmup_steps": 2, "world_size": cluster.world, "timeout_s": 600,
                "hang_timeout_s": 180, "startup_grace_s": 300}  # fmt: skip
    grace = 900 + 300 * (cluster.nodes - 1)
    return {"steps": 8, "warmup_steps": 2, "world_size": cluster.world, "timeout_s": 3600 + grace - 900,
            "hang_timeout_s": 900, "startup_grace_s": grace}  # fmt: skip


def _base(job: Job, cluster: Cluster, rec: Recipe) -> dict[str, Any]:
    """The job's keys exactly (but those left to follow a knob as verl derives them), plus the cluster's shape
    where the job does not say it."""
    base = {k: v for k, v in job.flat.items() if k not in rec.follow}
    for key, want in (("trainer.n_gpus_per_node", cluster.gpus_per_node), ("trainer.nnodes", cluster.nodes)):
        have = base.get(key)
        if have is None:
            base[key] = want
        elif int(have) != want:
            flag = "--gpus-per-node" if key.endswith("per_node") else "--nodes"
            raise JobError(f"{job.at(key)}: the job sets `{key}`={have} but {flag} says {want}; make them agree")
    return base


def baseline(job: Job, cluster: Cluster, rec: Recipe) -> dict[str, Any]:
    """The verl keys of the space's baseline trial (the job, the cluster's shape, the knobs' baselines: a
    micro-batch the job leaves unset): what `autotune validate` puts through verl's checks, checked first."""
    knobs = {k.name: k.baseline for k in rec.knobs if k.in_baseline and "." in k.name and not k.name.startswith("env.")}
    return {**_base(job, cluster, rec), **knobs}


_PLAIN_PYTHON = re.compile(r"python(\d+(\.\d+)?)?")


def _command_lines(command: list[str]) -> list[str]:
    """The job's launcher as the space's `command:`; none for a plain `python3 -m verl.trainer.main_ppo`: trials then
    run verl under the Python autotune runs under, the one init just checked verl in. Written out, `python3` was
    PATH's, and an unactivated venv's trials failed at once with "No module named 'verl'" (audit 25 F7)."""
    if len(command) == 3 and _PLAIN_PYTHON.fullmatch(command[0]) and command[1:] == ["-m", ENTRY]:
        return [f"# command: left out (the job's `{' '.join(command)}`): trials run verl under the Python autotune runs "
                "under, where init found it"]  # fmt: skip
    left = [word for word in command if SHELL_VAR.search(word)]
    said = (  # trials run it without a shell (audit 36 F8)
        [f"# {', '.join(left)}: not known to init; trials run `command:` without a shell: write the value, or drop the "
         "launcher's prefix"] if left else []
    )  # fmt: skip
    return [*said, f"command: {_flow(command)}"]


def render_space(job: Job, cluster: Cluster, rec: Recipe, name: str, file: str | None = None) -> str:
    """The space's YAML; its header's commands name `file` (default `<name>.yaml`), where it is written."""
    gpu = f" ({cluster.gpu})" if cluster.gpu else ""
    file = file or f"{name}.yaml"
    out = [
        f"# Written by `autotune init` from {job.source}, for {cluster.nodes} node(s) x {cluster.gpus_per_node} GPUs{gpu}.",
        "# base: the job exactly as it runs; params: the systems knobs (speed and memory, never the math), each",
        "# with the reason for its range; the algorithm knobs are listed at the end for a later quality stage.",
        f"#   autotune validate --space {file}                 # check it (keys, ranges, verl's validation)",
        f"#   autotune run --space {file} --fidelity sim       # predict a sweep with the cost model",
        f"#   autotune run --space {file}                      # the real sweep, on the cluster",
        f"name: {_flow(name)}",
        "trainer: verl",
        *_command_lines(job.command),
        "",
        "base:",
    ]
    out += [_line(k, v) for k, v in _base(job, cluster, rec).items()]
    tuned_env = {k.name[4:] for k in rec.knobs if k.name.startswith("env.")}
    env = {k: v for k, v in job.env.items() if k not in tuned_env}
    if env:
        out += ["", "env:                             # the job's environment (every trial's Ray workers get it)"]
        out += [_line(_flow(k), str(v)) for k, v in env.items()]  # `ON:` would read as True (audit 29 F5)
    out += ["", "trial:"]
    out += [_line(k, v) for k, v in trial_settings(cluster, rec.cpu).items()]
    out += ["", "params:"]
    out += [_line(k.name, k.spec, k.why) for k in rec.knobs]
    out += ["", "derived:"]
    for key, spec in rec.derived.items():
        out += [f"  {key}:", _line("when", spec["when"], indent="    "), _line("value", spec["value"], indent="    ")]
    out += ["", "constraints:"]
    out += [f"  - {_flow(c)}" for c in rec.constraints]
    out += ["", "objectives:", "  - {metric: perf/throughput, direction: maximize, reducer: median}"]
    out += ["", "limits:"]
    out += [f"  - {_flow(spec)}   # {why}" for spec, why in rec.limits]
    out += ["", "baseline:                        # the job's own values (verl's defaults where it sets none)"]
    out += [_line(k.name, k.baseline) for k in rec.knobs if k.in_baseline]
    out += [
        "",
        "confirm: {top_k: 2, repeats: 2}",
        "sampler: {seed: 0, n_startup_trials: 8, prune_at: 0.5}",
        "trials: 30",
    ]
    if cluster.gpu and not rec.cpu:
        out += ["", "sim:                             # what `--fidelity sim` predicts for", _line("gpu", cluster.gpu)]
        out += [  # without them the cost model guesses the lengths from the limits (audit 21 F15)
            "  # the run's lengths, from its console log (verl's median per step); without them the cost model takes",
            "  # 0.8 of data.max_prompt_length and half of data.max_response_length:",
            "  # prompt_tokens: 100             # prompt_length/mean",
            "  # response_tokens: 190           # response_length/mean",
            "  # response_max: 512              # response_length/max (generation runs until the longest ends)",
            "  # vllm_version: '0.11.0'         # the rollout's vLLM when older than 0.14 (its start-up line)",
        ]
    out += [
        "",
        "# Algorithm knobs: they change what is learned, so the throughput sweep leaves them at the job's values.",
        "# Tune them later on the winner, over a real training horizon (score over the last steps, KL bound kept):",
        "# add a `quality:` section (steps, kl_max, seeds; see the README's quality stage) and list them under params.",
    ]
    out += [f"#   {key}: {_flow(value)}   # {role}" for key, value, role in rec.algorithm]
    return "\n".join(out) + "\n"
