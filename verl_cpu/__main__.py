"""Print the plugin's settings for a shell:

eval "$(python -m verl_cpu env)"                      # export VERL_PLATFORM=cpu ...
python -m verl.trainer.main_ppo $(python -m verl_cpu overrides --world-size 2) ...
"""

from __future__ import annotations

import argparse
import shlex

from verl_cpu.settings import plugin_settings


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m verl_cpu", description=__doc__.split("\n")[0])
    parser.add_argument("what", choices=["env", "overrides"])
    parser.add_argument("--world-size", type=int, default=1, help="CPU ranks (trainer.n_gpus_per_node)")
    parser.add_argument("--ray-temp-dir", default=None, help="Ray's _temp_dir (default: Ray's own)")
    args = parser.parse_args(argv)
    settings = plugin_settings(args.world_size, ray_temp_dir=args.ray_temp_dir)
    if args.what == "env":
        print("\n".join(f"export {k}={shlex.quote(v)}" for k, v in settings.env.items()))
    else:
        print(" ".join(shlex.quote(o) for o in settings.overrides))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
