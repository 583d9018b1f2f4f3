"""Where a new user starts: `autotune --version`, `autotune spaces`, `autotune init`."""

from __future__ import annotations

import re
import shlex
import sys
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer
from rich.markup import escape

from autotune.cli.app import app, console, err
from autotune.names import study_name_problem
from autotune.space.loader import SPACE_DIR, shipped_spaces

if TYPE_CHECKING:
    from autotune.scaffold import Job
    from autotune.space.schema import Space


def package_version() -> str:
    try:
        return version("autotune")
    except PackageNotFoundError:  # run from a checkout that was never installed
        return "unknown (not installed)"


def _print_version(value: bool) -> None:
    if value:
        console.print(f"autotune {package_version()}")
        raise typer.Exit()


@app.callback()
def root(
    show_version: Annotated[
        bool,
        typer.Option("--version", callback=_print_version, is_eager=True, help="Print autotune's version and exit."),
    ] = False,
) -> None:
    """Tune a verl KL-PPO job: sweep a search space with short real trials, read the result, export the winner.

    Start with `autotune init` on your own verl job, or `autotune spaces` for the shipped examples.
    """


@app.command(short_help="List the shipped search spaces.")
def spaces() -> None:
    """List the shipped search spaces (usable by bare name: `--space fsdp3d`)."""
    found = shipped_spaces()
    console.print(f"shipped spaces ({SPACE_DIR}):")
    for name, path in found.items():
        console.print(f"  {name:<16} {_summary(path.read_text())}")


def _summary(text: str) -> str:
    """The first sentence of the file's leading comment."""
    lines = []
    for line in text.splitlines():
        if not line.startswith("#"):
            break
        lines.append(line.lstrip("# ").strip())
    words = " ".join(lines)
    end = words.find(". ")
    sentence = words[: end + 1] if end >= 0 else words
    return sentence if len(sentence) <= 110 else sentence[:110].rsplit(" ", 1)[0] + " …"


_Job = Annotated[
    str,
    typer.Argument(
        metavar="JOB",
        help="Your verl job: a run script or file holding `python3 -m verl.trainer.main_ppo key=value ...`, "
        "a verl YAML, or - to read it from stdin.",
    ),
]
_GpusPerNode = Annotated[
    int | None,
    typer.Option(
        min=1,
        help="GPUs per node (default: the job's trainer.n_gpus_per_node; needed where the script writes it as a "
        "variable the machine gives, ${SLURM_GPUS_PER_NODE}).",
    ),
]
_Nodes = Annotated[
    int | None,
    typer.Option(
        min=1,
        help="Nodes (default: the job's trainer.nnodes, else 1; needed where the script writes it as a variable the "
        "machine gives, $SLURM_NNODES).",
    ),
]
_InitGpu = Annotated[
    str | None,
    typer.Option(
        help="The GPU: a cost-model preset (H100, H200, A100, ...) or a device YAML; with it, init predicts "
        "which configurations run out of memory."
    ),
]
_InitModel = Annotated[
    str | None,
    typer.Option(help="The model's config.json (or folder), when actor_rollout_ref.model.path is not a local path."),
]
_Output = Annotated[Path | None, typer.Option("--output", "-o", help="Where to write the space (default: NAME.yaml).")]
_Name = Annotated[str | None, typer.Option(help="Study name (default: the job's trainer.experiment_name).")]
_Force = Annotated[bool, typer.Option(help="Overwrite the output file if it exists.")]


@app.command(short_help="Write a search space for your own verl job.")
def init(
    job: _Job,
    gpus_per_node: _GpusPerNode = None,
    nodes: _Nodes = None,
    gpu: _InitGpu = None,
    model: _InitModel = None,
    output: _Output = None,
    name: _Name = None,
    force: _Force = False,
) -> None:
    """Write a search space for your own verl job: its config as the base, the systems knobs with ranges
    valid for your GPUs and model, the KL bound; then validate it and pre-screen it with the cost model."""
    from autotune.adapters.verl_trainer import verl_tree
    from autotune.extras import require
    from autotune.scaffold import Cluster, JobError, check_starts, read_job, recipe, render_space
    from autotune.scaffold.space_yaml import baseline

    require("verl", "`autotune init`")
    if name is not None and study_name_problem(name):
        err.print(f"[red]--name: {escape(study_name_problem(name) or '')}[/]")
        raise typer.Exit(2)
    if output is not None:  # before verl's check, as export says it (audit 25 F13: after it, or "--force" for a folder)
        from autotune.cli.app import output_problem

        problem = output_problem(output)
        if problem:
            err.print(f"[red]-o {escape(str(output))} {escape(problem.replace('best.yaml', 'myjob.yaml'))}[/]")
            raise typer.Exit(2)
        if output.exists() and not force:
            err.print(f"[red]{output} exists; pass --force to overwrite it, or -o another file[/]")
            raise typer.Exit(2)
    text, source = _job_text(job)
    gpu = _known_gpu(gpu)
    try:
        parsed = read_job(text, source, nodes, gpus_per_node)
        g = gpus_per_node or _int_or_none(parsed.flat.get("trainer.n_gpus_per_node"))
        if g is None:
            raise JobError(f"{source}: the job does not set trainer.n_gpus_per_node: give --gpus-per-node N")
        cluster = Cluster(g, nodes or _int_or_none(parsed.flat.get("trainer.nnodes")) or 1, gpu)
        rec = recipe(parsed, cluster, verl_tree()[1], model)
        study = name or _study_name(parsed, source)
        space_text = render_space(parsed, cluster, rec, study, str(output or Path(f"{study}.yaml")))
        check_starts(parsed, baseline(parsed, cluster, rec), cluster.world)  # the job's, before anything is written
    except JobError as exc:
        err.print(f"[red]{escape(str(exc))}[/]")
        raise typer.Exit(2) from None
    target = output or Path(f"{study}.yaml")
    if target.exists() and not force:
        err.print(f"[red]{target} exists; pass --force to overwrite it, or -o another file[/]")
        raise typer.Exit(2)
    target.write_text(space_text)
    console.print(f"wrote {target}: {len(rec.knobs)} knobs for {cluster.nodes} x {cluster.gpus_per_node} GPUs")
    for note in [*parsed.notes, *rec.notes]:
        err.print(f"[yellow]note[/] {escape(note)}")
    from autotune.cli.run import validate

    try:
        space = validate(str(target))
    except typer.Exit:  # a space init wrote that does not load is init's own failure: leave nothing behind
        target.unlink()
        err.print(
            f"[red]{target} removed: the space init wrote for this job does not load (above). Please report it with "
            "the job; a key of the job the message names may be left out of the job given to init[/]"
        )
        raise
    if gpu and not rec.cpu:
        _prescreen(space, gpu, model)
    elif not rec.cpu:
        console.print("no OOM pre-screen: pass --gpu (a preset such as H100, or a device YAML) for one")


def _known_gpu(gpu: str | None) -> str | None:
    """The GPU when the cost model knows it (a preset or a readable device YAML); an unknown one (a typo) is
    refused before anything is written, as `run --gpu` and `validate` refuse it; leave --gpu out for no pre-screen."""
    if gpu is None:
        return None
    from autotune.sim.hardware import resolve_device

    try:
        resolve_device(gpu)
    except (OSError, ValueError) as exc:
        from autotune.cli.preflight import gpu_problem

        err.print(f"[red]{escape(gpu_problem(exc, gpu))}[/] (leave --gpu out to write the space without a pre-screen)")
        raise typer.Exit(2) from None
    return gpu


def _job_text(job: str) -> tuple[str, str]:
    if job == "-":
        return sys.stdin.read(), "<stdin>"
    path = Path(job)
    if not path.is_file():
        err.print(f"[red]{job}: no such file; give your run script, a file with the command line, or a verl YAML[/]")
        raise typer.Exit(2)
    with path.open(newline="") as file:  # line ends as written: a CRLF script is said (audit 36 F9)
        return file.read(), str(path)


def _int_or_none(value: object) -> int | None:
    return int(value) if isinstance(value, (int, str)) and str(value).isdigit() else None


def _study_name(job: Job, source: str) -> str:
    named = job.flat.get("trainer.experiment_name")
    candidate = str(named) if named else Path(source).stem
    written = re.sub(r"[^A-Za-z0-9._-]+", "-", candidate).strip("-.") or "my-job"
    written = written if study_name_problem(written) is None else "my-job"
    if named and written != str(named):  # said, not silent (audit 29 F16)
        job.notes.append(
            f"study `{written}`: trainer.experiment_name `{named}` rewritten (a study name is letters, digits, `.`, `_`, "
            "`-`); `--name` gives another"
        )
    return written


def _prescreen(space: Space, gpu: str, model: str | None) -> None:
    from autotune.scaffold import prescreen
    from autotune.scaffold.prescreen import assumed_lengths

    try:
        screened = prescreen(space, gpu, model)
    except ValueError as exc:  # e.g. a model the cost model cannot size
        err.print(f"[yellow]no pre-screen: {escape(str(exc))}[/]; give --model with the model's config.json")
        return
    oom = [s for s in screened if s.oom]
    console.print(
        f"pre-screen on {space.trial.world_size} x {gpu} (cost model; the job, then one knob at a time): "
        f"{len(screened) - len(oom)} of {len(screened)} fit"
    )
    for s in screened:
        if s.change == "baseline" and not s.oom:
            console.print(f"  the job itself: predicted peak {s.peak_gib:.1f} GiB per GPU, {s.step_s:.1f} s per step")
    console.print(f"  at {assumed_lengths(space, gpu, model)}; the run's own lengths go under `sim:`")
    if oom:
        console.print("  predicted out of memory:")
        for s in oom:
            console.print(f"    {s.change}: {escape(s.oom or '')}")
    given = f" --model {shlex.quote(model)}" if model else ""  # the space names the job's model, not this one
    console.print(
        f"next: autotune run --space {shlex.quote(str(space.path))} --fidelity sim{given}   (then the real sweep on "
        "the cluster)"
    )
