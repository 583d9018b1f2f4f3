"""The speed-ups the cost model predicts between configurations of one setup, against the published ones.

A sweep does not use the cost model's absolute step times: it ranks configurations, and its report and export quote
each change as a speed-up over the baseline ("×1.52"). That speed-up can be right while both step times are off, when
both are off alike. This measures it on the published runs of `published_runs/`, in the setups of
`sim_own_setup.py` (the runs of one repository on the same GPU, model and number of GPUs; they differ in batch,
rollout.n, length caps, token budgets, loss arms or the stretch of the run), each round's setups with the model as it
was frozen before the round was gathered (`sim_published.frozen_rounds`), so the pairs of the unseen rounds are unseen.

For every pair of a setup's runs, throughput is tokens per second of the phases both runs publish (`timing_s/*`;
tokens are responses × (mean prompt + mean response), the measured means), and the speed-up of one over the other is
the ratio of their throughputs, published and predicted. Its error is the factor between the two, max(p/m, m/p) - 1
(the same either way round), beside each run's own error on the summed phases. A pair whose published throughputs
differ by more than NOISE counts for the direction: does the model say which is faster? Uncalibrated (the shipped
weights), and calibrated on one run of the pair (both runs then predicted with weights fitted on it, as
`autotune calibrate --verl-log` fits them): both orders. With the model's guess of the longest response, and with
each run's measured longest given (`sim.response_max`).

Then one published comparison of a job's rollout settings, verl's docs on vLLM 0.6.3, 0.7.0 and 0.7.0 with CUDA graphs
(`published_runs.VLLM_DOCS`; the fourteenth search): generation only, with neither the GPU nor the lengths given, so
every arm is predicted over a grid of both and only the speed-ups' ranges are compared (`vllm_docs_comparison`).

    python benchmarks/sim_speedups.py [--out benchmarks/results/sim_speedups.json]
"""

from __future__ import annotations

import argparse
import contextlib
import itertools
import math
import statistics
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(Path(__file__).parent))

import sim_own_setup as own  # noqa: E402
import sim_published as sp  # noqa: E402
from published_runs import VLLM_DOCS  # noqa: E402

from autotune.sim.accuracy import SPEEDUPS, Speedups, SpeedupSetup  # noqa: E402
from autotune.sim.fit import Observation, Weights, fit_weights, published_prediction  # noqa: E402
from autotune.sim.model import default_weights  # noqa: E402

NOISE = 0.10
"""Published throughputs closer than this are a tie: the direction is not scored (run-to-run noise)."""
RIDGE = 0.3


def factor_error(predicted: float, published: float) -> float:
    """How far a predicted ratio is from the published one, as a factor less one: 0.25 is 1.25× off, either way."""
    return max(predicted / published, published / predicted) - 1.0


def _seconds(times: dict[str, float], phases: list[str]) -> float:
    return sum(times[p] for p in phases)


def _predicted_speedup(
    weights: Weights, a: Observation, b: Observation, tokens_a: float, tokens_b: float, phases: list[str]
) -> float:
    """Predicted throughput of b over a's, on `phases`."""
    time_a = _seconds(published_prediction(weights, a), phases)
    time_b = _seconds(published_prediction(weights, b), phases)
    return (tokens_b / time_b) / (tokens_a / time_a)


def setup_pairs(
    observed: list[tuple[dict[str, Any], Observation, float]], weights_for: Callable[[Observation], Weights]
) -> list[dict[str, Any]]:
    """Every pair of a setup's runs: published and predicted speed-up of the second over the first (on the phases both
    publish), uncalibrated and calibrated on either run. `observed`: each run, its observation and its tokens a step."""
    defaults = default_weights()
    fitted = {o.name: weights_for(o) for _, o, _ in observed}
    out = []
    for (run_a, a, tokens_a), (run_b, b, tokens_b) in itertools.combinations(observed, 2):
        phases = sorted(set(a.measured) & set(b.measured))
        if not phases:
            continue
        published = (tokens_b / _seconds(b.measured, phases)) / (tokens_a / _seconds(a.measured, phases))
        plain = _predicted_speedup(defaults, a, b, tokens_a, tokens_b, phases)
        calibrated = [_predicted_speedup(fitted[o.name], a, b, tokens_a, tokens_b, phases) for o in (a, b)]
        run_errors = [_seconds(published_prediction(defaults, o), phases) / _seconds(o.measured, phases) - 1
                      for o in (a, b)]  # fmt: skip
        out.append({
            "runs": [a.name, b.name],
            "configurations_differ": run_a["overrides"] != run_b["overrides"],
            "phases": phases,
            "published": published,
            "uncalibrated": plain,
            "calibrated_on_each": calibrated,
            "error_uncalibrated": factor_error(plain, published),
            "error_calibrated": [factor_error(s, published) for s in calibrated],
            "runs_time_error_uncalibrated": run_errors,
            "scored_direction": abs(math.log(published)) > math.log(1 + NOISE),
            "right_direction_uncalibrated": (plain > 1) == (published > 1),
            "right_direction_calibrated": [(s > 1) == (published > 1) for s in calibrated],
        })  # fmt: skip
    return out


def rounds() -> list[tuple[int, list[dict[str, Any]], Callable[[], contextlib.AbstractContextManager[None]]]]:
    """The first round (the fit set: in sample, today's model) and every unseen round with the model it was frozen
    with."""
    return [(1, list(sp.RUNS), contextlib.nullcontext), *sp.frozen_rounds()]


GROUPS = {"configurations": (True, "two configurations"), "same_configuration": (False, "one configuration")}
"""Pairs whose verl configurations differ (what a sweep compares), and pairs of one configuration (loss arms the model
does not see, or stretches of one run: the lengths differ)."""


def measure(lengths: tuple[str, ...] = own.LENGTHS) -> dict[str, Any]:
    """Per setup, its pairs; then over the unseen rounds' setups, for each group of pairs (GROUPS)."""
    out: dict[str, Any] = {"noise": NOISE, "setups": {}}
    for number, runs, as_then in rounds():
        for key, group in own.setups(runs).items():
            entry: dict[str, Any] = {"round": number, "in_sample": number == 1, "runs": [r["name"] for r in group]}
            for which in lengths:
                given = group if which == "guessed_longest" else [sp.with_measured_longest(r) for r in group]
                with as_then():
                    observed = [(run, *sp.observation(run)) for run in given]
                    entry[which] = setup_pairs(
                        [(run, o, trial.prediction.workload.tokens) for run, o, trial in observed],
                        lambda o: fit_weights([o], default_weights(), RIDGE),
                    )
            out["setups"][key] = entry
    for which in lengths:
        for part, in_sample in (("", False), ("_in_sample", True)):
            chosen = {k: s[which] for k, s in out["setups"].items() if s["in_sample"] == in_sample}
            out[which + part] = {
                group: summary({k: [p for p in pairs if p["configurations_differ"] == differ] for k, pairs in chosen.items()})
                for group, (differ, _) in GROUPS.items()
            }  # fmt: skip
    return out


def summary(setups: dict[str, list[dict[str, Any]]]) -> dict[str, Any]:
    """Each setup's medians (speed-up error uncalibrated and calibrated on one run of the pair, each run's own time
    error), the median over the setups of each, the largest errors, and the direction over the pairs apart."""
    setups = {key: pairs for key, pairs in setups.items() if pairs}
    pairs = [p for setup in setups.values() for p in setup]
    scored = [p for p in pairs if p["scored_direction"]]
    per_setup = {
        key: {
            "pairs": len(ps),
            "speedup_error_uncalibrated": statistics.median(p["error_uncalibrated"] for p in ps),
            "speedup_error_calibrated_on_one_run": statistics.median(e for p in ps for e in p["error_calibrated"]),
            "run_time_error_uncalibrated": statistics.median(abs(e) for p in ps for e in p["runs_time_error_uncalibrated"]),
        }
        for key, ps in setups.items()
    }  # fmt: skip

    def over_setups(name: str) -> float:
        return statistics.median(s[name] for s in per_setup.values()) if per_setup else math.nan

    return {
        "setups": len(setups),
        "pairs": len(pairs),
        "per_setup": per_setup,
        "speedup_error_uncalibrated": over_setups("speedup_error_uncalibrated"),
        "speedup_error_calibrated_on_one_run": over_setups("speedup_error_calibrated_on_one_run"),
        "run_time_error_uncalibrated": over_setups("run_time_error_uncalibrated"),
        "largest_speedup_error_uncalibrated": max((p["error_uncalibrated"] for p in pairs), default=math.nan),
        "largest_speedup_error_calibrated": max((e for p in pairs for e in p["error_calibrated"]), default=math.nan),
        "pairs_scored_for_direction": len(scored),
        "right_direction_uncalibrated": sum(p["right_direction_uncalibrated"] for p in scored),
        "right_direction_calibrated": sum(sum(p["right_direction_calibrated"]) for p in scored),
    }


def vllm_docs_comparison(env: dict[str, str] | None = None) -> dict[str, Any]:
    """verl's docs on one PPO job's rollout (published_runs.VLLM_DOCS): vLLM 0.6.3, 0.7.0, 0.7.0 with CUDA graphs.
    The doc gives neither the GPU nor the lengths, so each arm is predicted over a grid of both (uncalibrated, as
    `autotune run --fidelity sim` predicts a space giving the arm's vLLM version), and each speed-up in generation
    (the earlier arm's seconds over the later's) is reported as the range over the grid, against the doc's. `env`:
    the spaces' environment (`{"VLLM_USE_V1": "1"}`: V1's engine step, as the model read these versions before it
    knew V1 became vLLM's default only in 0.8)."""
    doc = VLLM_DOCS
    names = list(doc["arms"])
    grid: list[dict[str, Any]] = []
    for gpu in doc["gpus"]:
        for response in doc["response_tokens"]:
            gen = {}
            for name, arm in doc["arms"].items():
                run = {
                    "name": f"vllm-docs-{gpu}-{int(response)}-{arm['vllm']}-{'eager' if not arm['overrides'] else 'graphs'}",
                    "source": doc["source"], "gpu": gpu, "world": doc["world"], "model": doc["model"],
                    "overrides": {**doc["overrides"], **arm["overrides"]}, "prompt_tokens": doc["prompt_tokens"],
                    "response_tokens": response, "vllm": arm["vllm"], "verl": doc["verl"], "env": dict(env or {}),
                }  # fmt: skip
                if env:
                    run["name"] += "-" + "-".join(f"{k}{v}" for k, v in sorted(env.items()))
                gen[name] = sp.predicted(run).prediction.phases["gen"]
            grid.append({"gpu": gpu, "response_tokens": response, "gen_s": gen})
    steps = {}
    for before, after in itertools.pairwise(names):
        predicted = [g["gen_s"][before] / g["gen_s"][after] for g in grid]
        steps[f"{after} over {before}"] = {
            "published": doc["arms"][before]["gen"] / doc["arms"][after]["gen"],
            "predicted_range": [min(predicted), max(predicted)],
        }
    arms = {name: [min(g["gen_s"][name] for g in grid), max(g["gen_s"][name] for g in grid)] for name in names}
    return {"source": doc["source"], "grid": grid, "speedups": steps, "gen_s_range": arms}


def measured_speedups(result: dict[str, Any], stated: Speedups = SPEEDUPS) -> Speedups:
    """The figures a simulated sweep's report states (autotune.sim.accuracy.SPEEDUPS), from `measure`'s result (the
    unseen rounds) with the model's guess of the longest response, as a sweep predicts its trials, and the same
    setups given each run's measured longest. Each setup's `what` is copied from the stated figures: prose."""
    guessed, given = result["guessed_longest"], result["measured_longest"]
    what = {s.setup: s.what for s in stated.between_configurations}
    setups = tuple(
        SpeedupSetup(
            key,
            what.get(key, "not in autotune.sim.accuracy.SPEEDUPS"),
            s["pairs"],
            round(s["run_time_error_uncalibrated"], 4),
            round(s["speedup_error_uncalibrated"], 4),
            round(given["configurations"]["per_setup"][key]["speedup_error_uncalibrated"], 4),
        )
        for key, s in guessed["configurations"]["per_setup"].items()
    )
    both = [guessed[group] for group in GROUPS]
    return Speedups(
        setups,
        sum(g["pairs_scored_for_direction"] for g in both),
        sum(g["right_direction_uncalibrated"] for g in both),
        guessed["same_configuration"]["setups"],
        guessed["same_configuration"]["pairs"],
        round(guessed["same_configuration"]["speedup_error_uncalibrated"], 4),
        round(guessed["same_configuration"]["run_time_error_uncalibrated"], 4),
    )


def stated_check(result: dict[str, Any], stated: Speedups = SPEEDUPS) -> dict[str, Any]:
    """Whether the stated figures are what was measured (errors to the 0.01 point they are stored with)."""
    measured = measured_speedups(result, stated)
    return {"matches": measured == stated, "measured": repr(measured), "stated": repr(stated)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", type=Path, default=ROOT / "benchmarks" / "results" / "sim_speedups.json")
    args = parser.parse_args()
    result = measure()
    print("speed-up of the second run over the first (throughput on the phases both publish): published, predicted "
          "uncalibrated (each run's own time error), predicted calibrated on the first / on the second; the model's "
          "guess of the longest response")  # fmt: skip
    for key, s in result["setups"].items():
        label = "in sample: the fit set" if s["in_sample"] else "the model frozen before it"
        print(f"  {key} (round {s['round']}, {label})")
        for p in s["guessed_longest"]:
            a, b = p["runs_time_error_uncalibrated"]
            print(f"    {p['runs'][1]} over {p['runs'][0]}: ×{p['published']:.2f}, ×{p['uncalibrated']:.2f} "
                  f"({a:+.0%}, {b:+.0%}), ×{p['calibrated_on_each'][0]:.2f} / ×{p['calibrated_on_each'][1]:.2f}"
                  + ("" if p["scored_direction"] else f" (a tie within {NOISE:.0%})"))  # fmt: skip
    for which, label in (("guessed_longest", "the model's guess of the longest response"),
                         ("measured_longest", "each run's measured longest response given")):  # fmt: skip
        for part, what in (("", "the unseen rounds"), ("_in_sample", "the fit set (in sample)")):
            for group, (_, pairs_of) in GROUPS.items():
                r = result[which + part][group]
                if not r["pairs"]:
                    continue
                print(f"{what}, {label}, pairs of {pairs_of}: {r['setups']} setups, {r['pairs']} pairs; median over "
                      f"the setups of the speed-up's error {r['speedup_error_uncalibrated']:.1%} uncalibrated, "
                      f"{r['speedup_error_calibrated_on_one_run']:.1%} calibrated on one run of the pair (each run's "
                      f"own time {r['run_time_error_uncalibrated']:.1%} off); largest "
                      f"{r['largest_speedup_error_uncalibrated']:.0%} / {r['largest_speedup_error_calibrated']:.0%}; the "
                      f"faster run named in {r['right_direction_uncalibrated']} of {r['pairs_scored_for_direction']} "
                      f"pairs uncalibrated, {r['right_direction_calibrated']} of {2 * r['pairs_scored_for_direction']} "
                      "calibrated")  # fmt: skip
                for key, one in r["per_setup"].items() if group == "configurations" and not part else ():
                    print(f"    {key}: {one['pairs']} pairs, speed-up {one['speedup_error_uncalibrated']:.1%} off "
                          f"({one['speedup_error_calibrated_on_one_run']:.1%} calibrated), each run's time "
                          f"{one['run_time_error_uncalibrated']:.1%}")  # fmt: skip
    docs = vllm_docs_comparison()
    print("verl's docs, one PPO job of a Qwen2-7B on 8 GPUs (GPU and lengths not given: predicted on "
          f"{', '.join(VLLM_DOCS['gpus'])} with mean responses of "
          f"{', '.join(str(int(r)) for r in VLLM_DOCS['response_tokens'])} tokens), generation:")  # fmt: skip
    for name, (low, high) in docs["gen_s_range"].items():
        print(f"  {name}: published {VLLM_DOCS['arms'][name]['gen']:.0f} s, predicted {low:.0f} to {high:.0f} s")
    for step, r in docs["speedups"].items():
        low, high = r["predicted_range"]
        print(f"  {step}: published ×{r['published']:.2f}, predicted ×{low:.2f} to ×{high:.2f}")
    as_v1 = vllm_docs_comparison({"VLLM_USE_V1": "1"})
    print("  the same with V1's engine step (VLLM_USE_V1=1; how the model read these versions before it knew that V1 "
          "became vLLM's default only in 0.8): " + "; ".join(
              f"{name} {low:.0f} to {high:.0f} s" for name, (low, high) in as_v1["gen_s_range"].items())
          + "; " + "; ".join(f"{step} ×{r['predicted_range'][0]:.2f} to ×{r['predicted_range'][1]:.2f}"
                             for step, r in as_v1["speedups"].items()))  # fmt: skip
    result["vllm_docs"] = docs | {"as_v1_engine": as_v1}
    own.finish(result, stated_check(result), "SPEEDUPS", args.out)


if __name__ == "__main__":
    main()
