"""`python -m trainer [--config FILE ...] [--print-config] key=value ...` (or under torchrun)."""

from __future__ import annotations

import argparse
import os
import signal
import sys
from types import FrameType

import yaml

from trainer.config.checks import check_world
from trainer.config.loader import ConfigError, file_env, load_config, to_flat, to_nested
from trainer.failures import ExitCode, classify, report

USAGE_EPILOG = """\
examples:
  python -m trainer trainer.total_training_steps=5
  torchrun --standalone --nproc_per_node 2 -m trainer trainer.total_training_steps=20
  python -m trainer --print-config algorithm.adv_estimator=grpo actor_rollout_ref.rollout.n=4

Without --config the built-in CPU default (trainer/config/cpu_tiny.yaml) is used; each --config
file is layered, in order, on verl's defaults; key=value overrides come last. A file exported by
`autotune export` runs as is: hydra's `hydra.*` and `defaults` keys are ignored, and environment
variables under `ray_kwargs.ray_init.runtime_env.env_vars` are set for the run (unless already set):
  torchrun --standalone --nproc_per_node 2 -m trainer --config cpu_tiny --config best.yaml
Exit codes: 0 ok, 1 crash, 2 bad config (nothing run), 3 NaN/Inf loss, 4 out of memory, 5 lost a peer rank.
"""


def parse_args(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="python -m trainer",
        description="Reshard-enabled KL-PPO trainer (FSDP2 training, hybrid-engine rollout, verl config keys).",
        epilog=USAGE_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument(
        "--config",
        action="append",
        default=[],
        metavar="FILE",
        help="YAML config (repeatable; a bare name picks a packaged preset)",
    )
    parser.add_argument("--print-config", action="store_true", help="print the resolved config as YAML and exit")
    parser.add_argument(
        "overrides", nargs="*", metavar="key=value", help="dotted verl keys, e.g. data.train_batch_size=16"
    )
    return parser.parse_args(argv)


def _on_sigterm(signum: int, frame: FrameType | None) -> None:
    rank = int(os.environ.get("RANK", "0"))
    report(
        ExitCode.PEER_LOST,
        rank,
        -1,
        f"terminated by signal {signum} (the launcher stops all ranks when one fails)",
    )
    os._exit(ExitCode.PEER_LOST)


def main(argv: list[str] | None = None) -> int:
    args = parse_args(sys.argv[1:] if argv is None else argv)
    rank = int(os.environ.get("RANK", "0"))
    world = int(os.environ.get("WORLD_SIZE", "1"))
    try:
        config = load_config(args.config, args.overrides)
        check_world(config, world)
        for name, value in file_env(args.config).items():  # an exported file's NCCL/CUDA settings
            os.environ.setdefault(name, value)  # the caller's own environment wins
    except ConfigError as exc:
        if rank == 0:
            print(f"trainer: config error: {exc}", file=sys.stderr)
        return ExitCode.CONFIG
    if args.print_config:
        if rank == 0:
            print(yaml.safe_dump(to_nested(to_flat(config)), sort_keys=False), end="")
        return ExitCode.OK
    threads = os.environ.get("OMP_NUM_THREADS")
    import torch

    if threads:
        torch.set_num_threads(int(threads))
    signal.signal(signal.SIGTERM, _on_sigterm)
    from trainer import distributed, loop
    from trainer.model import ModelLoadError

    try:
        loop.run(config, distributed.init())  # drops every model, optimizer and mesh it built
        distributed.finish()
    except ModelLoadError as exc:
        if rank == 0:
            print(f"trainer: config error: {exc}", file=sys.stderr)
        os._exit(ExitCode.CONFIG)
    except BaseException as exc:  # every failure ends the rank with a code and a reason line
        code = classify(exc)
        import traceback

        traceback.print_exc(file=sys.stderr)
        report(code, rank, getattr(exc, "trainer_step", 0), f"{type(exc).__name__}: {exc}")
        sys.stderr.flush()
        os._exit(code)  # never wait for peers in process-group teardown
    distributed.leave(ExitCode.OK)  # never returns: see its docstring for why a finished run ends with os._exit


if __name__ == "__main__":
    sys.exit(main())
