"""Which knobs made the winner faster: a greedy ablation path from the baseline to the winner.

Two phases, both real runs:

1. Order. Starting from the baseline, each round tries every knob the winner still changes on top
   of the current configuration, in interleaved runs beside it, and applies the knob that gains
   most. The last knob needs no round.
2. Measure. The path (baseline, after step 1, after step 2, ..., the winner) is then run again,
   every configuration once per round, interleaved (as confirmation does). A step's gain is the
   geometric mean over rounds of the ratio of consecutive configurations in the same round, so
   the gains are measured apart from the noisy choice that ordered them (picking the best of
   several noisy runs overstates it), and their product is exactly the winner over the baseline
   on the same runs.

The product of the step gains is set against the confirmed speedup of the winner; a step whose
per-round gains straddle 1.0 is within noise (its knob rides along).

Cost stays bounded: knobs equal to the baseline and knobs inert on the platform are not run,
a knob that only exists under another knob's `when` travels with it, `max_rounds` applies
whatever is left as one final step, and `select_repeats` sets the rounds of the ordering phase.

    runs/<study>/explain/order<k>/r<round>-<knob>/   ordering runs of step k
    runs/<study>/explain/path/r<round>-p<i>/         the path measured (p0 = the baseline)
    runs/<study>/explain.json                        the path, an `Explanation` (study/ablation_result.py), read by
                                                     `autotune explain` and the report

Each run keeps its result in its folder (`kept.json`) as it finishes: an explain cut short (Ctrl-C, a
killed controller) goes on from its finished rounds when run again, for the same space and limits;
`--rerun` measures everything again.
"""

from __future__ import annotations

import contextlib
import dataclasses
import math
import re
import shutil
from collections.abc import Collection, Iterator
from dataclasses import dataclass
from typing import Any

import optuna

from autotune.adapters.base import TrainerAdapter
from autotune.export.winner import sweep_device
from autotune.names import short_labels
from autotune.space.freeze import inert_params
from autotune.space.sampling import FixedSuggester, suggest
from autotune.space.schema import Space
from autotune.study.ablation_result import ExplainStep, Explanation
from autotune.study.confirmation_result import Confirmation
from autotune.study.progress import SweepProgress
from autotune.study.ratios import short_value
from autotune.study.results import NoWinner, find_winner
from autotune.study.storage import StudyPaths, baseline_trial
from autotune.sweep.confirmation import Candidate, compare, kept_key, measure_interleaved, outside_limits
from autotune.trial.record import TrialRecord

NOT_MEASURED = "not measured: its runs failed"
"""A step's verdict when no round measured it."""


class ExplainError(RuntimeError):
    pass


@contextlib.contextmanager
def alone(study: optuna.Study, space: Space, paths: StudyPaths, progress: SweepProgress) -> Iterator[None]:
    """Explain measures the winner against the baseline, alone: beside a sweep's trials (which may still change
    the winner), a stage after the sweep or another explain, both measurements shared the cores, and two explains
    wrote into the same run folders (audit 19 F2, F3). A running trial refuses it; the stages and another explain
    are waited for (the `.finishing` lock)."""
    from autotune.study.storage import check_one_folder
    from autotune.sweep.backends.lifecycle import whose
    from autotune.sweep.driver import live_trials, wait_for_other_workers

    check_one_folder(study, paths)  # its runs and explain.json go into the study's one folder, as a worker's do
    running = live_trials(study, space.trial.timeout_s)
    if running:
        raise ExplainError(
            f"study `{paths.name}` is still sweeping (trial #{running[0].number}{whose(running[0])}): explain "
            "measures the winner, which the sweep may still change, and its runs would share the cores with the "
            "trials'; run it once the sweep has ended"
        )
    with paths.finishing(
        progress.note, doing="runs `autotune explain`", then="this one then explains the winner as it stands"
    ):  # a sweep that began while this waited: its trial asked before the hold, then the sweep waits (audit 22 F10)
        wait_for_other_workers(study, space.trial.timeout_s, progress, "explain measures alone")
        yield


@dataclass
class Knob:
    """One step's change: a tuned param at the winner's value, with the conditional params it switches on."""

    name: str
    """The param's key (`a + b` for the remaining knobs applied together once `max_rounds` is reached)."""
    params: dict[str, Any]

    @property
    def label(self) -> str:
        labels = short_labels(self.params)
        return " ".join(f"{labels[k]}={short_value(v)}" for k, v in self.params.items())


@dataclass
class ExplainOptions:
    repeats: int = 2
    """Rounds of the path measurement: every configuration on the path once per round (2+ give a spread)."""
    max_rounds: int | None = None
    """Greedy rounds before the remaining knobs are applied together as one last step (None: no cap)."""
    select_repeats: int = 1
    """Rounds of each ordering step (runs of the current configuration and of every candidate knob)."""

    def __post_init__(self) -> None:
        if self.repeats < 1:
            raise ValueError(f"repeats must be at least 1, got {self.repeats}")
        if self.select_repeats < 1:
            raise ValueError(f"select_repeats must be at least 1, got {self.select_repeats}")
        if self.max_rounds is not None and self.max_rounds < 1:
            raise ValueError(f"max_rounds must be at least 1 (or None for no cap), got {self.max_rounds}")


def knobs(
    space: Space, baseline: dict[str, Any], winner: dict[str, Any], inert: Collection[str] = ()
) -> tuple[list[Knob], list[str], list[str]]:
    """(the winner's changes as knobs, params equal to the baseline, inert params that differ).

    A param active only under another param's `when` joins that param's knob when the winner
    changes the condition (alone it could not act); otherwise it is a knob of its own.
    """
    names = {p.name for p in space.params}
    differs = {n for n, v in winner.items() if n in names and v != baseline.get(n) and n not in inert}

    def owner(name: str) -> str:
        parent = next((k for k in space.param(name).when if k in differs), None)
        return owner(parent) if parent is not None else name

    units: dict[str, Knob] = {}
    same, skipped = [], []
    for p in space.params:
        if p.name not in winner:
            continue
        if winner[p.name] == baseline.get(p.name):
            same.append(p.name)
        elif p.name in inert:
            skipped.append(p.name)
    for p in space.params:  # file order: a condition comes before the params it switches on
        if p.name in differs:
            head = owner(p.name)
            units.setdefault(head, Knob(head, {head: winner[head]})).params[p.name] = winner[p.name]
    return list(units.values()), same, skipped


def sent_back(same: list[str], whole: dict[str, Any], baseline: dict[str, Any]) -> tuple[list[str], list[str]]:
    """(params the winner never changed, params the whole winner changed and the ablation sent back): both
    equal the baseline in what ships, which `knobs` lists as `same`."""
    dropped = [n for n in same if n in whole and whole[n] != baseline.get(n)]
    return [n for n in same if n not in dropped], dropped


def configure(space: Space, defaults: dict[str, Any], values: dict[str, Any]) -> dict[str, Any]:
    """The params of a configuration, re-applied through the space (drops params whose `when` no longer holds)."""
    return suggest(FixedSuggester(values), space, defaults)


def explain(
    study: optuna.Study,
    space: Space,
    adapter: TrainerAdapter,
    paths: StudyPaths,
    options: ExplainOptions,
    progress: SweepProgress,
    fresh: bool = False,
) -> Explanation:
    """Run the greedy path and write `explain.json`; returns what it wrote. Runs finished by an earlier
    (interrupted) explain of the same configurations are reused, unless `fresh`."""
    base = baseline_trial(study)
    if base is None:
        raise ExplainError(f"study `{paths.name}` has no finished baseline trial; run the sweep first")
    try:
        winner = find_winner(study, paths, space)
    except NoWinner as exc:
        raise ExplainError(str(exc)) from None
    defaults = adapter.defaults(space.base_config)
    inert = inert_params(space, adapter.knob_status, sweep_device(study))
    remaining, same, skipped = knobs(space, dict(base.params), winner.params, inert)
    # after an ablation `winner.params` are what ships: the whole winner's other changes were sent back
    same, dropped = sent_back(same, study.trials[winner.number].params, dict(base.params))
    skipped += [n for n in dropped if n in inert]  # "sent back by the ablation": it sends inert ones back unrun
    dropped = [n for n in dropped if n not in inert]
    if not remaining:
        if winner.ships_baseline:  # it won confirmation, or the ablation sent every change back
            why, then = f"the baseline ships: {winner.why_baseline}", "the sweep found nothing to ship"
        elif winner.number == base.number:
            why, then = "the winner is the baseline", "run more trials first"
        else:
            why, then = "no change of the winner acts here", "run more trials first"
        raise ExplainError(f"study `{paths.name}`: nothing to explain ({why}); {then}")
    limits = dict(TrialRecord.of(base).limits)
    folder = paths.root / "explain"
    if fresh:  # the stored path goes with its runs: kept, the next plain `explain` after this one was cut short
        # showed it while the runs' folders held this measurement's (audit 19 F4). Another measurement reuses the
        # runs it shares and leaves the stored path until it replaces it: removed at its start, a cut-short
        # `--repeats 8` threw away a finished 4-round result and the report said "Not measured yet" (audit 22 F1)
        Explanation.file(paths).unlink(missing_ok=True)
        shutil.rmtree(folder, ignore_errors=True)
    # runs are kept as they finish: an interrupted explain goes on from its finished rounds (same space and limits)
    keep = kept_key(space, limits)
    ctx = _Context(space, adapter, paths, options, progress, defaults, limits, keep)
    order, tried = choose_order(ctx, dict(base.params), remaining)
    configs = [dict(base.params)]
    for knob in order:
        configs.append(configure(space, defaults, {**configs[-1], **knob.params}))
    path = (
        [Candidate(0, configs[0], label="p0", is_baseline=True)]
        + [
            Candidate(i, c, label=f"p{i}", says=f"p{i}, step {i}: + {knob.label}")  # a bare p2 named nothing
            for i, (c, knob) in enumerate(zip(configs[1:], order, strict=True), start=1)
        ]
    )
    if len(path) > 1:
        measure_interleaved(
            space, adapter, path, folder / "path", options.repeats, limits, progress, "explain path", keep=keep
        )
    folder = folder / "path"
    steps = []
    for i, knob in enumerate(order, start=1):
        run, ref = path[i], path[i - 1]
        stats = compare(run, ref)
        steps.append(
            ExplainStep(
                **dataclasses.asdict(stats),
                step=i,
                knob=knob.name,
                label=knob.label,
                params=knob.params,
                gain=stats.speedup_geomean,
                value=_mean(run.values),
                reference=_mean(ref.values),
                feasible_rounds=sum(run.feasible),
                rounds=len(run.values),
                measured_rounds=sum(
                    1 for v, b in zip(run.values, ref.values, strict=True) if b and not math.isnan(v + b)
                ),
                outside=outside_limits(run),
                tried=tried[i - 1],
                runs=[str(folder / f"r{r + 1}-{run.stem}") for r in range(options.repeats)],
                reference_runs=[str(folder / f"r{r + 1}-{ref.stem}") for r in range(options.repeats)],
            )
        )
    result = summarize_path(steps, winner.number, options).compared(
        *Explanation.reference(winner, Confirmation.read(paths))
    )  # after an ablation the path leads to what ships: compared with its measured speedup
    if len(path) > 1:
        result.end_to_end = compare(path[-1], path[0])
    result.study, result.baseline, result.objective = paths.name, base.number, space.objectives[0].metric
    result.same_as_baseline, result.dropped, result.inert = same, dropped, skipped
    result.winner_params, result.source = winner.params, winner.source
    result.write(paths)
    return result


@dataclass
class _Context:
    space: Space
    adapter: TrainerAdapter
    paths: StudyPaths
    options: ExplainOptions
    progress: SweepProgress
    defaults: dict[str, Any]
    limits: dict[str, float]
    keep: str
    """The key its runs are kept under (`measure_interleaved`)."""


def choose_order(
    ctx: _Context, start: dict[str, Any], remaining: list[Knob]
) -> tuple[list[Knob], list[dict[str, float]]]:
    """Greedy: each round applies the knob whose runs gained most over the current configuration's.

    Returns the knobs in order and, per step, the gain each candidate showed in its round (empty
    for a forced last step)."""
    maximize = ctx.space.objectives[0].direction == "maximize"
    order: list[Knob] = []
    tried: list[dict[str, float]] = []
    current = start
    while remaining:
        number = len(order) + 1
        if ctx.options.max_rounds is not None and number > ctx.options.max_rounds and len(remaining) > 1:
            remaining = [_merge(remaining)]
        pick, gains = 0, {}
        if len(remaining) > 1:
            reference, *tries = order_candidates(ctx.space, ctx.defaults, current, order, remaining)
            folder = ctx.paths.root / "explain" / f"order{number}"
            measure_interleaved(
                ctx.space, ctx.adapter, [reference, *tries], folder, ctx.options.select_repeats, ctx.limits,
                ctx.progress, f"explain: order step {number}", keep=ctx.keep,
            )  # fmt: skip
            gains = {k.name: compare(c, reference).speedup_mean for k, c in zip(remaining, tries, strict=True)}
            # a candidate outside the limits is not applied first however fast (leaving memory savings for last
            # walked through a configuration that broke the memory limit: audit 30 F1)
            inside = [i for i, c in enumerate(tries) if not outside_limits(c)]
            ranked = [i for i in inside if not math.isnan(gains[remaining[i].name])]
            if ranked:
                pick = (max if maximize else min)(ranked, key=lambda i: gains[remaining[i].name])
            else:  # said: the header's "the knob that gains most applied first" is not what happened (audit 30 F3)
                pick = inside[0] if inside else 0
                ctx.progress.note(
                    f"[yellow]explain: order step {number}: no candidate measured inside the limits; "
                    f"{remaining[pick].label} goes first (the space's order)[/]"
                )
        chosen = remaining[pick]
        order.append(chosen)
        tried.append(gains)
        current = configure(ctx.space, ctx.defaults, {**current, **chosen.params})
        remaining = [k for k in remaining if k is not chosen]
    return order, tried


def order_candidates(
    space: Space, defaults: dict[str, Any], current: dict[str, Any], order: list[Knob], remaining: list[Knob]
) -> list[Candidate]:
    """One ordering step's runs: the configuration so far (`current`: the baseline and the knobs of `order`), then
    each remaining knob applied to it. Their progress lines say what each is (a bare `current` named nothing)."""
    now = f"current (the baseline + {', '.join(k.label for k in order)})" if order else "baseline"
    return [Candidate(0, current, label="current", says=now, is_baseline=not order)] + [
        Candidate(
            i + 1,
            configure(space, defaults, {**current, **k.params}),
            label=f"k{i + 1}-{_slug(k.name)}",
            says=f"k{i + 1}: {'current' if order else 'baseline'} + {k.label}",
        )
        for i, k in enumerate(remaining)
    ]


def summarize_path(steps: list[ExplainStep], winner: int, options: ExplainOptions) -> Explanation:
    """Cumulative gains and each step's verdict (compared with a measurement of the winner by
    `Explanation.compared`).

    A step's gain is the geometric mean of its per-round ratios, so the product of the gains is
    exactly the geometric mean over rounds of the winner over the baseline measured on the path.
    A step whose per-round gains straddle 1.0 is "within noise" (the knob rides along), one below 1.0 in
    every round "slower". `product_min`/`product_max` multiply the step extremes: a pessimistic range,
    shown for scale.
    """
    product, low, high = 1.0, 1.0, 1.0
    for step in steps:
        product *= step.gain
        low *= step.speedup_min
        high *= step.speedup_max
        step.cumulative = product
        measured = step.rounds if step.measured_rounds is None else step.measured_rounds
        if math.isnan(step.gain):  # every comparison with NaN is False: it read "matters" (audit 19 F2)
            step.verdict = NOT_MEASURED
        elif measured <= 1:  # a failed round is no round: one measured read "matters" (audit 30 F2)
            step.verdict = "one run: no spread"
        elif step.speedup_min <= 1.0 <= step.speedup_max:
            step.verdict = "within noise"
        else:
            step.verdict = "slower" if step.speedup_max < 1.0 else "matters"
    return Explanation(
        winner=winner,
        repeats=options.repeats,
        max_rounds=options.max_rounds,
        select_repeats=options.select_repeats,
        steps=steps,
        product=product if steps else math.nan,
        product_min=low if steps else math.nan,
        product_max=high if steps else math.nan,
    )


def _merge(knobs_left: list[Knob]) -> Knob:
    return Knob(" + ".join(k.name for k in knobs_left), {k: v for knob in knobs_left for k, v in knob.params.items()})


def _slug(name: str) -> str:
    return re.sub(r"[^A-Za-z0-9_=-]+", "_", name.rsplit(".", 1)[-1] if " + " not in name else "rest")[:60]


def _mean(values: list[float]) -> float:
    real = [v for v in values if not math.isnan(v)]
    return sum(real) / len(real) if real else math.nan
