"""The winner's health checklist in the report and `autotune best`: KL to the reference, comm share and memory
against the space's own limits (a metric the space does not limit is shown, not judged: a made-up threshold
failed winners the sweep rightly accepted), and MFU against a GPU's target (on a CPU, shown only); and the training-
health curves (KL and score per step of the baseline, the winner and the top trials)."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import NamedTuple

import numpy as np
import optuna
import pandas as pd

from autotune.space.schema import Space
from autotune.study.frames import objective_names, step_frame, trials_frame
from autotune.study.storage import StudyPaths
from autotune.trial.scoring import unit_of

MFU_TARGET = 0.35
"""A healthy dense-model training MFU on H100-class GPUs (torchtitan Llama 3.1 8B: 33-39%)."""


class Check(NamedTuple):
    name: str
    value: float
    rule: str
    passed: bool | None
    """None when the value is missing (not measured), or not judged on this device (MFU on a CPU)."""
    percent: bool = False
    """Shown as a percentage, as its rule is."""
    times: bool = False
    """A ratio, shown as `1.06×` as its rule is (it read `1` beside `< 1.2×`; audit 21 F17)."""


NO_LIMIT = "no limit in this space (shown, not judged)"
"""The rule of a check whose metric the space does not limit: a made-up one (KL < 0.05, comm share < 10%) failed a
winner the sweep rightly accepted, or showed an alarm under a limit that has none (audit 15 F5)."""


def _other_limit(space: Space, which: Callable[[str], bool]) -> str:
    """A limit of the space in a form its checklist row does not judge, in words ("" when there is none)."""
    for lim in space.limits:
        if which(lim.metric):
            unit = unit_of(lim.metric)
            forms = [f"< {lim.max:g}{unit}" if lim.max is not None else "", f"≥ {lim.min:g}{unit}" if lim.min is not None else "",
                     f"< {lim.max_ratio_to_baseline:g}× the baseline's" if lim.max_ratio_to_baseline else ""]  # fmt: skip
            return f"limited as `{lim.metric}` {' and '.join(f for f in forms if f)} (judged on each trial, not here)"
    return ""


def health_checks(
    space: Space, kl: float, comm: float, memory: float, mfu: float, on_gpu: bool = True, predicted: bool = False
) -> list[Check]:
    """The winner's checklist: KL, comm share and memory against the space's limits (a metric it does not limit is
    shown, not judged), and MFU (judged against a GPU's target only on a GPU, measured or predicted: a CPU's is
    shown, not judged). On a `predicted` (simulated) winner there is no KL row, and the rows say they judge a
    prediction: they read as a real run's (audit 27 F14)."""
    kl_limit = next((lim for lim in space.limits if lim.metric in ("actor/kl_loss", "actor/reward_kl_penalty")), None)
    comm_limit = next((lim for lim in space.limits if lim.metric == "perf/comm_share"), None)
    mem_limit = next((lim for lim in space.limits if lim.metric == "memory" and lim.max_ratio_to_baseline), None)
    kl_max = kl_limit.max if kl_limit else None
    kl_alarm = kl_limit.alarm_above if kl_limit else None
    comm_max = comm_limit.max if comm_limit else None
    mem_max = mem_limit.max_ratio_to_baseline if mem_limit else None
    # a limit of another form (a policy KL such as actor/ppo_kl, memory in GB, comm share against the baseline's)
    # is the space's, judged on every trial: named, not called "no limit" (audit 16 F3)
    kl_other = _other_limit(
        space, lambda m: "kl" in m.lower() and m not in ("actor/kl_loss", "actor/reward_kl_penalty")
    )
    comm_other = _other_limit(space, lambda m: m == "perf/comm_share")
    mem_other = _other_limit(space, lambda m: m in ("memory", "memory_gb", "perf/max_memory_allocated_gb"))

    def check(name: str, value: float, rule: str, ok: bool | None, percent: bool = False, times: bool = False) -> Check:
        return Check(name, value, rule, None if math.isnan(value) else ok, percent, times)

    mfu_rule = f"≥ {MFU_TARGET:.0%} (H100-class target)"
    if not on_gpu:
        mfu_rule = f"not judged on a CPU (against its measured matmul peak; the GPU target is {MFU_TARGET:.0%})"
    kl_rule = (
        (kl_other or NO_LIMIT)
        if kl_max is None
        else (f"< {kl_max:g}" + (f" (alarm > {kl_alarm:g})" if kl_alarm is not None else ""))
    )
    if space.quality is not None:  # read beside the quality section's verdict, which may differ (audit 20 F8)
        kl_rule += (
            f"; over a {space.trial.steps}-step throughput trial, where the quality stage judges "
            f"{space.quality.steps} steps"
        )
    comm_rule = (comm_other or NO_LIMIT) if comm_max is None else f"< {comm_max:.0%}"
    if comm_max is not None and "perf/comm_share" in space.unmeasured:  # skipped on every trial: not judged here
        from autotune.trial.scoring import unmeasured_why

        why = unmeasured_why(space, "perf/comm_share")
        if predicted:  # it named the real trainer to a sweep that ran none (audit 27 F14)
            why = "this simulated sweep skipped the limit on every prediction"
        comm_rule += f", not judged: {why}, so no trial was held to it"
        comm_max = None
    if predicted and on_gpu:  # a failing MFU in red read as measured (audit 27 F14)
        mfu_rule += ", judged on the cost model's prediction"
    checks = [
        check("KL to reference", kl, kl_rule, None if kl_max is None else kl < kl_max),
        check("comm share", comm, comm_rule, None if comm_max is None else comm < comm_max, percent=True),
        check("memory vs baseline", memory, (mem_other or NO_LIMIT) if mem_max is None else f"< {mem_max:g}×",
              None if mem_max is None else memory < mem_max, times=True),
        check("MFU (predicted)" if predicted else "MFU", mfu, mfu_rule, mfu >= MFU_TARGET if on_gpu else None,
              percent=True),
    ]  # fmt: skip
    return checks[1:] if predicted else checks  # a prediction has no KL: its row read "not measured" (audit 27 F14)


def health_curves(
    study: optuna.Study, space: Space, top: int = 3, paths: StudyPaths | None = None, winner: int | None = None
) -> pd.DataFrame:
    """Per-step KL to the reference and score of the baseline, the `winner` and the top trials by sweep value
    (long format): the top three by sweep value tied with the winner, which was left out (audit 27 F6)."""
    frame = trials_frame(study, paths)
    if frame.empty:
        return frame
    column = f"objective:{objective_names(study)[0]}"
    ascending = space.objectives[0].direction == "minimize"
    complete = frame[(frame["outcome"] == "complete") & ~frame["baseline"]].sort_values(column, ascending=ascending)
    chosen = frame[frame["baseline"]]["number"].tolist()[:1]
    if winner is not None and winner not in chosen and winner in set(frame["number"]):
        chosen.append(winner)
    chosen += [n for n in complete["number"] if n not in chosen][:top]
    rows = []
    for number in chosen:
        trial = frame[frame["number"] == number].iloc[0]
        steps = step_frame(trial["dir"]) if isinstance(trial["dir"], str) else pd.DataFrame()
        label = f"#{number}" + (" (baseline)" if trial["baseline"] else "")
        for step, metrics in steps.iterrows():
            rows.append(
                {
                    "trial": label,
                    "step": step,
                    "kl": metrics.get("actor/kl_loss", math.nan),
                    "score": metrics.get("critic/score/mean", math.nan),
                }
            )
    return pd.DataFrame(rows)


def curves_coincide(frame: pd.DataFrame) -> bool:
    """Whether every trial of a `health_curves` frame has the baseline's KL and score at every step, to 4
    significant digits (as the tables print them; summed in another order, the floats differ further down): systems
    knobs keep the math, so the curves lie on one another, and four trials read as one line with no word of why
    (audit 27 F12). False with fewer than two trials, or with no value to compare."""
    if frame.empty or frame["trial"].nunique() < 2 or frame[["kl", "score"]].isna().all().all():
        return False
    curves = [group.set_index("step")[["kl", "score"]].sort_index() for _, group in frame.groupby("trial", sort=False)]
    first = curves[0]
    return all(
        c.index.equals(first.index)
        and np.allclose(c.to_numpy(float), first.to_numpy(float), rtol=1e-4, atol=1e-9, equal_nan=True)
        for c in curves[1:]
    )
