"""Calibrated on one run of your own setup: how well the cost model then predicts that setup's other configurations.

The README's advice for the cost model is to calibrate it on a real run of the job being tuned before trusting its
ranking (`autotune calibrate --verl-log run.log --verl-config ...`). This measures that advice on the published runs
of `published_runs/`: a *setup* is the runs of one source repository on the same GPU, model and number of GPUs (one
cluster and software stack; the configurations differ in batch, rollout.n, length caps, token budgets, loss arms or
the stretch of the run). For every ordered pair of runs of a setup, weights are fitted on the first alone (as
`autotune calibrate` fits them, ridge 0.3 towards the shipped weights) and predict the second; the errors are
predicted / published - 1 per published `timing_s/*` phase, beside the same phases predicted uncalibrated.

Each run is predicted as `autotune run --fidelity sim` predicts its space (`sim_published.observation`), with its
measured mean lengths and, in the second column, its measured longest response given (`sim.response_max`); with
the model's guess of the longest response otherwise. The setups' runs informed some of the shipped constants (the
first round's set them; later rounds' led to later changes): the uncalibrated column is in sample for those; the
calibrated one still fits on one run and scores another.

    python benchmarks/sim_own_setup.py [--out benchmarks/results/sim_own_setup.json]
"""

from __future__ import annotations

import argparse
import json
import re
import statistics
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(Path(__file__).parent))

import sim_published as sp  # noqa: E402

from autotune.sim.accuracy import OWN_SETUP, OwnSetup  # noqa: E402
from autotune.sim.fit import Observation, fit_weights, published_prediction, relative_errors  # noqa: E402
from autotune.sim.model import default_weights  # noqa: E402


def all_runs() -> list[dict[str, Any]]:
    """Every published run: the first round's and each later round's."""
    return list(sp.RUNS) + [run for _, runs, _ in sp.frozen_rounds() for run in runs]


def repository(source: str) -> str:
    """The repository a run's source points into (owner/name on GitHub), else the source itself."""
    match = re.search(r"github\.com/([^/]+/[^/]+)", source)
    return match.group(1) if match else source


def setups(runs: list[dict[str, Any]]) -> dict[str, list[dict[str, Any]]]:
    """Runs of one repository on the same GPU, model and world, where there are two or more."""
    groups: dict[str, list[dict[str, Any]]] = {}
    for run in runs:
        model = re.sub(r"\.json$", "", Path(str(run["model"])).name)
        key = f"{repository(run['source'])} {run['gpu']}x{run['world']} {model}"
        groups.setdefault(key, []).append(run)
    return {key: group for key, group in groups.items() if len(group) > 1}


def pairwise(observations: list[Observation], ridge: float) -> dict[str, Any]:
    """Every ordered pair (fitted on one, predicting another) of a setup's runs, and the same runs uncalibrated."""
    defaults = default_weights()
    fitted = {o.name: fit_weights([o], defaults, ridge) for o in observations}
    calibrated: list[float] = []
    uncalibrated: list[float] = []
    gen_calibrated: list[float] = []
    gen_uncalibrated: list[float] = []
    for target in observations:
        plain = relative_errors(published_prediction(defaults, target), target.measured)
        uncalibrated += plain.values()
        gen_uncalibrated += [plain["gen"]] if "gen" in plain else []
        for source in observations:
            if source.name == target.name:
                continue
            errors = relative_errors(published_prediction(fitted[source.name], target), target.measured)
            calibrated += errors.values()
            gen_calibrated += [errors["gen"]] if "gen" in errors else []
    return {
        "runs": len(observations),
        "pairs": len(observations) * (len(observations) - 1),
        "median_abs_error_uncalibrated": sp.median_abs(uncalibrated),
        "median_abs_error_calibrated_on_one_run": sp.median_abs(calibrated),
        "gen_error_uncalibrated": [min(gen_uncalibrated, default=0.0), max(gen_uncalibrated, default=0.0)],
        "gen_error_calibrated_on_one_run": [min(gen_calibrated, default=0.0), max(gen_calibrated, default=0.0)],
    }


LENGTHS = ("guessed_longest", "measured_longest")


def measure(ridge: float = 0.3, lengths: tuple[str, ...] = LENGTHS) -> dict[str, Any]:
    """Per setup and over the setups (the median of their medians, each setup counted once), with the model's
    guess of the longest response and with each run's measured longest given (`lengths`: either or both)."""
    out: dict[str, Any] = {"setups": {}}
    for key, runs in setups(all_runs()).items():
        given = {"guessed_longest": runs, "measured_longest": [sp.with_measured_longest(run) for run in runs]}
        out["setups"][key] = {"runs": [run["name"] for run in runs]} | {
            which: pairwise([sp.observation(run)[0] for run in given[which]], ridge) for which in lengths
        }
    for which in lengths:
        rows = [s[which] for s in out["setups"].values()]
        out[which] = {
            "setups": len(rows),
            "median_of_setups_uncalibrated": statistics.median(r["median_abs_error_uncalibrated"] for r in rows),
            "median_of_setups_calibrated_on_one_run": statistics.median(
                r["median_abs_error_calibrated_on_one_run"] for r in rows
            ),
            "setups_better_calibrated": sum(
                r["median_abs_error_calibrated_on_one_run"] < r["median_abs_error_uncalibrated"] for r in rows
            ),
            "largest_abs_gen_error_calibrated": max(
                max(abs(g) for g in r["gen_error_calibrated_on_one_run"]) for r in rows
            ),
            "setups_gen_within_30pct_calibrated": sum(
                max(abs(g) for g in r["gen_error_calibrated_on_one_run"]) <= 0.3 for r in rows
            ),
            "setups_gen_within_30pct_uncalibrated": sum(
                max(abs(g) for g in r["gen_error_uncalibrated"]) <= 0.3 for r in rows
            ),
            "largest_abs_gen_error_uncalibrated": max(max(abs(g) for g in r["gen_error_uncalibrated"]) for r in rows),
        }
    return out


def measured_own_setup(result: dict[str, Any]) -> OwnSetup:
    """The figures a simulated sweep's report states (autotune.sim.accuracy.OWN_SETUP), from `measure`'s result
    with each run's measured lengths given."""
    r = result["measured_longest"]
    return OwnSetup(
        r["setups"],
        r["median_of_setups_uncalibrated"],
        r["median_of_setups_calibrated_on_one_run"],
        r["setups_gen_within_30pct_calibrated"],
        r["setups_gen_within_30pct_uncalibrated"],
    )


def stated_check(result: dict[str, Any], stated: OwnSetup = OWN_SETUP) -> dict[str, Any]:
    """Whether the stated figures are what was measured, to the precision they are stored with (0.01 point)."""
    measured = measured_own_setup(result)
    same = (measured.setups, measured.gen_within_goal, measured.gen_within_goal_uncalibrated) == (
        stated.setups,
        stated.gen_within_goal,
        stated.gen_within_goal_uncalibrated,
    )
    close = (
        abs(measured.uncalibrated - stated.uncalibrated) < 1e-4 and abs(measured.calibrated - stated.calibrated) < 1e-4
    )
    return {"matches": same and close, "measured": vars(measured), "stated": vars(stated)}


def finish(result: dict[str, Any], stated: dict[str, Any], figure: str, out: Path) -> None:
    """Say whether the report's stated `figure` (a name in autotune.sim.accuracy) is what was measured, and write the
    result with that check to `out`."""
    print(f"the report's stated figure (autotune.sim.accuracy.{figure}): " + (
        "what this benchmark measures" if stated["matches"] else f"STALE, measured {stated['measured']}; update it"))  # fmt: skip
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(result | {"stated_check": stated}, indent=1))
    print(f"wrote {out}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--ridge", type=float, default=0.3)
    parser.add_argument("--out", type=Path, default=ROOT / "benchmarks" / "results" / "sim_own_setup.json")
    args = parser.parse_args()
    result = measure(args.ridge)
    stated = stated_check(result)
    print("median |phase error| on a setup's other runs: uncalibrated / calibrated on one run of the setup "
          "(given each run's measured longest response; with the model's guess of it)")  # fmt: skip
    for key, s in result["setups"].items():
        given, guessed = s["measured_longest"], s["guessed_longest"]
        gen = given["gen_error_calibrated_on_one_run"]
        print(f"  {key} ({given['runs']} runs, {given['pairs']} pairs): "
              f"{given['median_abs_error_uncalibrated']:.1%} / {given['median_abs_error_calibrated_on_one_run']:.1%}"
              f" (guessed longest: {guessed['median_abs_error_uncalibrated']:.1%} / "
              f"{guessed['median_abs_error_calibrated_on_one_run']:.1%}); generation calibrated {gen[0]:+.0%} to "
              f"{gen[1]:+.0%}")  # fmt: skip
    for lengths, label in (("measured_longest", "given the measured longest"), ("guessed_longest", "guessed longest")):
        r = result[lengths]
        print(f"over the {r['setups']} setups ({label}): median of their medians {r['median_of_setups_uncalibrated']:.1%}"
              f" uncalibrated, {r['median_of_setups_calibrated_on_one_run']:.1%} calibrated on one run; better "
              f"calibrated in {r['setups_better_calibrated']} of {r['setups']}; generation within 30% on every run of "
              f"{r['setups_gen_within_30pct_uncalibrated']} setups uncalibrated, of "
              f"{r['setups_gen_within_30pct_calibrated']} calibrated; largest |generation error| "
              f"{r['largest_abs_gen_error_uncalibrated']:.0%} uncalibrated, {r['largest_abs_gen_error_calibrated']:.0%}"
              " calibrated")  # fmt: skip
    finish(result, stated, "OWN_SETUP", args.out)


if __name__ == "__main__":
    main()
