"""How long is the longest response of a step? The cost model's guess against public verl runs' measured longest.

Generation runs until the step's longest response ends, so the cost model needs it; a space without
`sim.response_max` gets a guess from the mean length and the number of responses N (batch × rollout.n):
`Workload.longest_response` takes lengths as geometric of the mean (the longest of N: mean·H_N, capped at
`data.max_response_length`). Before the seventh round of `sim_published.py` it took a Gaussian's extreme
(mean + mean·√(2 ln N)). This benchmark scores both against measured `response_length/max`:

- in sample: the published runs of `published_runs/` (the geometric guess was chosen on them);
- out of sample: `published_lengths.LENGTH_RUNS`, length statistics of public verl runs gathered after the guess
  was committed, from sources that set nothing in the model (many were rejected as timing sources for reasons that
  do not touch response lengths: Megatron, SGLang, no GPU known).

A run whose measured longest and both guesses all sit at the cap says nothing about the tail and is counted apart.
Out of sample means from a repository none of the published runs came from (a run of such a repository, or a second
copy of a published run, is left out). Prints per run and the medians of |guess / measured - 1|, writes them to a JSON
file. The rule, set before the out-of-sample numbers were complete: the guess with the lower median |error| out of
sample is the model's default; within 3 points of each other the geometric one stays (it put generation nearer on
the published runs).

    python benchmarks/longest_response.py [--out benchmarks/results/longest_response.json]
"""

from __future__ import annotations

import argparse
import json
import math
import re
import statistics
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(Path(__file__).parent))

from published_lengths import LENGTH_RUNS  # noqa: E402

from autotune.sim.workload import workload  # noqa: E402


def shipped_guess(mean: float, responses: int, cap: int) -> float:
    """The cost model's longest response for a space that gives the mean length and no longest (its own code)."""
    flat = {
        "data.train_batch_size": responses,
        "actor_rollout_ref.rollout.n": 1,
        "data.max_prompt_length": 512,
        "data.max_response_length": cap,
        "actor_rollout_ref.actor.ppo_mini_batch_size": responses,
    }
    return workload(flat, {}, 1, 100.0, mean).longest_response


def gaussian_guess(mean: float, responses: int, cap: int) -> float:
    """The guess before: the Gaussian extreme of a spread equal to the mean."""
    return min(cap, mean * (1 + math.sqrt(2 * math.log(responses)))) if responses > 1 else min(cap, mean)


def published_tuples() -> list[dict[str, Any]]:
    """The published runs of the cost-model benchmark as (mean, longest, N, cap): in sample."""
    import published_runs as p

    rows = []
    for name in ("RUNS", "NEW_RUNS", "THIRD_RUNS", "FOURTH_RUNS", "FIFTH_RUNS", "SIXTH_RUNS", "SEVENTH_RUNS"):
        for run in getattr(p, name):
            o = run["overrides"]
            rows.append({
                "run": run["name"], "source": run["source"],
                "responses": int(o["data.train_batch_size"]) * int(o.get("actor_rollout_ref.rollout.n", 1)),
                "max_response_length": int(o["data.max_response_length"]),
                "response_mean": float(run["response_tokens"]), "response_max": float(run["response_max"]),
            })  # fmt: skip
    return rows


def repository(source: str) -> str | None:
    """owner/name of a GitHub source, lower-cased (None for any other source)."""
    match = re.search(r"github\.com/([\w.-]+/[\w.-]+)", source)
    return match.group(1).lower() if match else None


def out_of_sample(
    rows: list[dict[str, Any]], published: list[dict[str, Any]]
) -> tuple[list[dict[str, Any]], list[str]]:
    """The rows from repositories no published run came from, and why each other row was left out."""
    used = {repository(r["source"]) for r in published} - {None}
    kept, left = [], []
    for r in rows:
        if r.get("same_as_published"):
            left.append(f"{r['run']}: {r['same_as_published']}")
        elif repository(r["source"]) in used:
            left.append(f"{r['run']}: from {repository(r['source'])}, which a published run came from")
        else:
            kept.append(r)
    return kept, left


def score(rows: list[dict[str, Any]]) -> dict[str, Any]:
    scored, at_cap = [], []
    for r in rows:
        n, cap, mean, longest = r["responses"], r["max_response_length"], r["response_mean"], r["response_max"]
        guesses = {"geometric": shipped_guess(mean, n, cap), "gaussian": gaussian_guess(mean, n, cap)}
        row = {**r, **{f"{k}_guess": v for k, v in guesses.items()}}
        row.update({f"{k}_error": v / longest - 1 for k, v in guesses.items()})
        (at_cap if longest >= cap and min(guesses.values()) >= cap else scored).append(row)
    summary = {"runs": len(rows), "all_at_the_cap": len(at_cap), "scored": len(scored)}
    for k in ("geometric", "gaussian"):
        errors = [row[f"{k}_error"] for row in scored]
        summary[k] = {
            "median_abs_error": statistics.median(abs(e) for e in errors) if errors else math.nan,
            "median_error": statistics.median(errors) if errors else math.nan,
            "within_25_percent": sum(abs(e) <= 0.25 for e in errors),
        }
    return {"summary": summary, "scored": scored, "at_cap": at_cap}


def report(title: str, result: dict[str, Any]) -> None:
    s = result["summary"]
    print(
        f"\n== {title}: {s['runs']} runs, {s['all_at_the_cap']} with the measured longest and both guesses at the cap =="
    )
    print(f"{'run':52} {'N':>6} {'cap':>6} {'mean':>7} {'longest':>8} {'geometric':>10} {'gaussian':>9}")
    for r in result["scored"]:
        print(f"{r['run'][:52]:52} {r['responses']:6d} {r['max_response_length']:6d} {r['response_mean']:7.0f} "
              f"{r['response_max']:8.0f} {r['geometric_guess']:6.0f} {r['geometric_error']:+4.0%} "
              f"{r['gaussian_guess']:5.0f} {r['gaussian_error']:+4.0%}")  # fmt: skip
    for k in ("geometric", "gaussian"):
        v = s[k]
        print(f"{k:9} guess: median |error| {v['median_abs_error']:.0%} (signed {v['median_error']:+.0%}), within 25% on "
              f"{v['within_25_percent']} of {s['scored']}")  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", type=Path, default=ROOT / "benchmarks" / "results" / "longest_response.json")
    args = parser.parse_args()
    published = published_tuples()
    inside = score(published)
    kept, left = out_of_sample(LENGTH_RUNS, published)
    outside = score(kept)
    report("in sample: the published runs the geometric guess was chosen on", inside)
    report(f"out of sample: public runs gathered after the guess was committed ({len(left)} more left out)", outside)
    for why in left:
        print(f"  left out: {why}")
    other_runs = score([r for r in LENGTH_RUNS if not r.get("same_as_published")])
    s = other_runs["summary"]
    print(f"\nthe same counting the runs of those repositories too (other runs than the published ones): {s['scored']} "
          f"of {s['runs']} not all at the cap; " + "; ".join(
              f"{k} median |error| {s[k]['median_abs_error']:.0%}, within 25% on {s[k]['within_25_percent']}"
              for k in ("geometric", "gaussian")))  # fmt: skip
    g, n = outside["summary"]["geometric"], outside["summary"]["gaussian"]
    closer = "geometric" if g["median_abs_error"] <= n["median_abs_error"] + 0.03 else "gaussian"
    print(f"by the rule stated above, the default should be the {closer} guess")
    args.out.parent.mkdir(parents=True, exist_ok=True)
    result = {"in_sample": inside, "out_of_sample": outside, "left_out": left, "default_by_the_rule": closer,
              "with_the_published_runs_repositories": other_runs}  # fmt: skip
    args.out.write_text(json.dumps(result, indent=1))
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
