"""Checks `autotune run` makes before anything starts: the machine holds a trial (and the quality stage's runs),
a Ray head answers at --address, and what --export, --gpu, --model and --calibration name can be used. Each says
what is wrong, where (the flag or the space file's key) and the fix, and exits with status 2."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import typer
from rich.markup import escape

from autotune.adapters import device_kind
from autotune.cli.app import err
from autotune.space.schema import Space

if TYPE_CHECKING:
    from autotune.sim.model import Calibration


def check_quality_machine_or_exit(space: Space) -> None:
    """The quality stage's runs at once must fit this machine's cores (CPU) or GPUs; said in its own settings (it
    named `trial.world_size` 12 for a file whose trial world size is 2)."""
    q = space.quality
    assert q is not None
    world = q.world_size or space.trial.world_size
    short = None if space.command else shortfall(world * q.parallel, space.trial.threads_per_rank)
    if short is not None:
        need, have, unit = short
        err.print(
            f"[red]{space.path}: the quality stage runs `quality.parallel` {q.parallel} × `quality.world_size` "
            f"{world} ranks at once, {need} {unit}; this machine has {have}.[/] Lower `quality.parallel` or "
            "`quality.world_size`, or run `--stage throughput` here"
        )
        raise typer.Exit(2)


def check_machine_or_exit(space: Space, address: str | None, confirms: bool) -> None:
    """Local trials must fit this machine: a world of 64 ranks on 2 cores only thrashes. With --address the sweep's
    trials run on the cluster, but confirmation and the ablation run theirs here, on the driver's machine."""
    if space.command or (address is not None and not confirms):  # a launcher that submits elsewhere, or a cluster
        return
    world, threads = space.trial.world_size, space.trial.threads_per_rank
    short = shortfall(world, threads)
    if short is not None:
        need, have, unit = short
        rule = (
            f"`trial.world_size` {world} needs {need} GPUs" if unit == "GPUs"
            else f"`trial.world_size` {world} × `trial.threads_per_rank` {threads} needs {need} cores"
        )  # fmt: skip
        if address is not None:
            err.print(
                f"[red]{space.path}: confirmation and the ablation run their trials here, on the machine `autotune run` "
                f"runs on, not on the Ray cluster: {rule}; this machine has {have} {unit}.[/] Run `autotune run` on a "
                "node that holds one trial, or pass --confirm 0 (the sweep's best single run is then the winner, "
                "unconfirmed)"
            )
            raise typer.Exit(2)
        err.print(
            f"[red]{space.path}: {rule}; this machine has {have} {unit}.[/] Lower `trial.world_size`, predict "
            "the space with --backend sim, or run it on a cluster with --backend ray --address HOST:6379"
        )
        raise typer.Exit(2)


def shortfall(ranks: int, threads: int) -> tuple[int, int, str] | None:
    """(needed, available, unit) when `ranks` at once do not fit this machine's GPUs (or cores on a CPU)."""
    import os

    if device_kind() == "cuda":
        import torch

        need, have, unit = ranks, torch.cuda.device_count(), "GPUs"
    else:
        need, have, unit = ranks * threads, os.cpu_count() or 1, "cores"
    return (need, have, unit) if need > have else None


def check_ray_head_or_exit(address: str, timeout_s: float = 5.0) -> None:
    """A Ray head must answer at --address before anything starts: `ray.init` retries an address
    that nobody listens on for minutes, printing GCS time-outs, and never gives up."""
    if address == "auto":  # Ray finds the local cluster itself, or says there is none
        return
    target = address.removeprefix("ray://")
    host, _, port = target.rpartition(":") if ":" in target else (target, "", "")
    default = 10001 if address.startswith("ray://") else 6379
    import socket

    try:
        with socket.create_connection((host.strip("[]"), int(port) if port else default), timeout=timeout_s):
            pass
        ray_client = address.startswith("ray://")  # Ray Client's own server: no GCS to ask
        reason = None if ray_client else not_ray_head(f"{host}:{port or default}")
        if reason is None:
            return
    except (OSError, ValueError) as exc:
        reason = str(exc) or type(exc).__name__
    err.print(
        f"[red]--address {escape(address)}: no Ray head answers there ({escape(reason)}).[/] Start one on that machine with "
        f"`ray start --head --port {port or default}`, check the host and port (`ray status` on the head prints "
        "the address), or leave --address out to start a local Ray."
    )
    raise typer.Exit(2)


def not_ray_head(address: str) -> str | None:
    """Why what answers at `address` is not a Ray head, or None where it is one or may be. Ray's GCS speaks
    gRPC: asked for its cluster id it answers, where a web server or another gRPC service left `ray.init`
    retrying for minutes (audit 20 F2). A head that wants a token, or is slow, gets the benefit of the doubt."""
    import grpc

    with grpc.insecure_channel(address) as channel:
        ask = channel.unary_unary("/ray.rpc.NodeInfoGcsService/GetClusterId")
        try:
            ask(b"", timeout=5.0)  # an empty GetClusterIdRequest
        except grpc.RpcError as exc:
            code, details = exc.code(), " ".join(str(exc.details()).split())  # type: ignore[attr-defined]
            if code == grpc.StatusCode.UNIMPLEMENTED:
                return f"a service answers, but not Ray's: {details}"
            if code == grpc.StatusCode.UNAVAILABLE:
                return f"what answers does not speak gRPC as a Ray head does: {details}"
    return None


def check_export_path_or_exit(out: Path) -> None:
    """--export's file must be writable before the sweep starts, not found unwritable when it ends."""
    from autotune.cli.app import output_problem, replaces_own_file

    problem = output_problem(out)
    if problem is None and (problem := replaces_own_file(out)):
        problem += "; move it away, or --export another file (`autotune export --force` overwrites it)"
    if problem:
        err.print(f"[red]--export {escape(str(out))} {escape(problem)}[/]")
        raise typer.Exit(2)


def check_report_dir_or_exit(folder: Path | None) -> None:
    """--report-dir must be a folder the report can be written to before the sweep starts: a file there let every
    trial run, each refresh fail, and the run exit 0 (audit 25 F2)."""
    from autotune.cli.app import folder_problem

    problem = folder_problem(folder) if folder is not None else None
    if problem:
        err.print(f"[red]--report-dir {escape(str(folder))} {escape(problem)}[/]")
        raise typer.Exit(2)


def check_gpu_or_exit(gpu: str | None, space: Space) -> None:
    """The simulated GPU must be a preset or a readable device file, before any trial is predicted."""
    if gpu:
        check_gpu_flag_or_exit(gpu, "--gpu" if gpu != space.sim.gpu else f"{space.path}: `sim.gpu`")


def check_gpu_flag_or_exit(gpu: str, where: str = "--gpu") -> None:
    from autotune.sim.hardware import resolve_device

    try:
        resolve_device(gpu)
    except (OSError, ValueError) as exc:
        err.print(f"[red]{escape(gpu_problem(exc, gpu, where))}[/]")
        raise typer.Exit(2) from None


def check_model_or_exit(model: str | None, space: Space) -> None:
    """The simulated model must be sized (a config.json, or a preset its name contains) before any trial is predicted:
    the first prediction died with a traceback and left a study folder holding only its lock."""
    from autotune.sim.workload import find_shape

    key = "actor_rollout_ref.model.path"
    named, default = model or space.base.get(key), None
    if named is None and space.trainer == "verl":  # a job that sets none runs verl's default (it died with a traceback)
        from autotune.adapters import get_adapter

        named = default = get_adapter(space.trainer, space.command).defaults(space.base_config).get(key)
    if not isinstance(named, str):
        return  # the built-in trainer's model is sized from its own config
    try:
        find_shape(named, {})
    except ValueError as exc:
        where = (
            "--model" if model
            else f"{space.path}: no `{key}` in `base:`, so verl's default," if default is not None
            else f"{space.path}: `{key}`"
        )  # fmt: skip
        err.print(
            f"[red]{where} {escape(named)}: {escape(str(exc))}[/]; give --model with the model's config.json (or its "
            "folder), or a preset name such as Qwen2.5-7B"
        )
        raise typer.Exit(2) from None


def check_calibration_device_or_exit(path: Path | None, gpu: str | None, space: Space) -> None:
    """A CPU calibration predicts the CPU it was fitted on: refused beside a GPU named (before anything runs)."""
    from autotune.sim.sim_fidelity import cpu_calibration_problem

    problem = cpu_calibration_problem(calibration_or_exit(path), gpu, space.sim.gpu)
    if problem:
        err.print(f"[red]--calibration {escape(str(path))}: {escape(problem)}[/]")
        raise typer.Exit(2)


def calibration_or_exit(path: Path | None) -> Calibration | None:
    if path is None:
        return None
    from autotune.sim.model import load_calibration

    try:
        return load_calibration(path)
    except (OSError, ValueError) as exc:
        said = exc.strerror if isinstance(exc, OSError) and exc.strerror else exc  # not the path again
        err.print(f"[red]--calibration {escape(str(path))}: {escape(str(said))}[/]")
        raise typer.Exit(2) from None


def gpu_problem(exc: Exception, gpu: str, where: str = "--gpu") -> str:
    """What is wrong with --gpu (or the space's `sim.gpu`), named once: a device file's own errors start with
    `--gpu FILE` (its line, for YAML), a preset's do not."""
    said = str(exc)
    if said.startswith(f"--gpu {gpu}"):
        return said if where == "--gpu" else f"{where} {said.removeprefix('--gpu ')}"
    return f"{where} {gpu}: {said}"
