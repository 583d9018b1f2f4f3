"""What the ablation's extra rounds cost and buy: how often a change ships, by its true gain.

The ablation keeps a change when the 90% interval of its gain (Student t over the paired rounds) lies
above 1.0. With `confirm.ablation_max_repeats`, a change still within noise whose gain points up gets one
more round at a time, and is judged again after each. Judging again after each round (optional stopping)
lets a change without effect ship more often than the 5% a fixed number of rounds allows; in exchange, a
real 10% gain ships far more often. This simulates both rules with the ablation's own `verdict` on
log-normal paired rounds of the noise `noise_floor.py` measured (sigma of one paired round's log ratio),
so the trade is a number, not a guess.

    python benchmarks/ablation_stopping.py [--sigma 0.131] [--start 3] [--most 8] [--n 4000]
"""

from __future__ import annotations

import argparse
import json
import math
import random
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from autotune.sweep.ablation import _undecided, verdict  # noqa: E402

GAINS = (1.0, 1.05, 1.066, 1.10, 1.20)


def ships(rng: random.Random, gain: float, sigma: float, start: int, most: int) -> bool:
    """One change through the ablation's rule: `start` rounds, then more while undecided, up to `most`."""
    ratios = [gain * math.exp(rng.gauss(0.0, sigma)) for _ in range(start)]
    while True:
        judged = verdict(ratios, True)
        if len(ratios) >= most or not _undecided(judged, True):
            return judged[3] == "kept"
        ratios.append(gain * math.exp(rng.gauss(0.0, sigma)))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sigma", type=float, default=0.131, help="noise of one paired round (noise_floor.py)")
    parser.add_argument("--start", type=int, default=3, help="the ablation's rounds (confirm.ablation_repeats)")
    parser.add_argument("--most", type=int, default=8, help="confirm.ablation_max_repeats")
    parser.add_argument("--n", type=int, default=4000, help="simulated changes per gain and rule")
    parser.add_argument("--out", type=Path, default=ROOT / "benchmarks" / "results" / "ablation_stopping.json")
    args = parser.parse_args()
    rng = random.Random(0)
    rules = {
        f"fixed {args.start}": (args.start, args.start),
        f"{args.start} then up to {args.most}": (args.start, args.most),
        f"fixed {args.most}": (args.most, args.most),
    }
    table = {
        rule: {str(g): sum(ships(rng, g, args.sigma, s, m) for _ in range(args.n)) / args.n for g in GAINS}
        for rule, (s, m) in rules.items()
    }
    print(f"share of changes shipped, by true gain (sigma {args.sigma}, {args.n} simulated changes each)")
    print(f"{'rule':22s}" + "".join(f"{'x' + str(g):>9s}" for g in GAINS))
    for rule, row in table.items():
        print(f"{rule:22s}" + "".join(f"{row[str(g)]:9.3f}" for g in GAINS))
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps({"sigma": args.sigma, "n": args.n, "shipped": table}, indent=2))
    print(f"written: {args.out}")


if __name__ == "__main__":
    main()
