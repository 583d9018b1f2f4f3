"""The quality stage: the algorithm knobs judged on learning over a horizon, the KL bound kept, over seeds.

search        an Optuna study `<study>-quality` (TPE, the KL bound as a constraint) over the space's
              algorithm params, the systems knobs fixed at the throughput winner's values. Each run
              goes to the horizon unless it breaks the KL bound (it stops there: infeasible), or a
              rung of the halving ladder prunes it (`quality_pruner.CurvePruner`).
confirmation  the baseline and the top_k feasible settings, each over `quality.seeds` seeds at the full
              horizon (a search run at the first seed that reached the horizon is reused as that seed)
decision      `Quality.decide` (study/quality_result.py), written to runs/<study>/quality.json

The study itself, its stored rules and systems values and the runs a stopped controller cut short, is
`quality_study.py`'s. Runs go under runs/<study>/quality/ (search/NNNN, seeds/<label>-seed<k>); a resumed stage keeps
every finished search trial and seed run. `quality.parallel` runs go at once.
"""

from __future__ import annotations

import concurrent.futures
import dataclasses
import json
import math
import shutil
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import optuna
from optuna.trial import FrozenTrial, Trial, TrialState

from autotune.adapters.base import TrainerAdapter
from autotune.space.quality_section import QualitySettings
from autotune.space.sampling import suggest
from autotune.space.schema import Space
from autotune.space.stages import algorithm_values, quality_stage, systems_values
from autotune.study.progress import SweepProgress, short_params
from autotune.study.quality_result import Quality, QualityCandidate, QualityRun
from autotune.study.storage import StudyPaths
from autotune.sweep.quality_study import NOT_RUN, STARTUP, failed_to_retry, failed_twice, open_quality_study
from autotune.trial.evaluation import evaluate
from autotune.trial.learning import Curve, CurveSummary, CurveWatch, summarize
from autotune.trial.record import QualityRecord, read_rows, write_json
from autotune.trial.runner import kill_group

POLISH = 4
"""The search's last settings bisect the segment from the best feasible setting to the bound
(`QualityStage.boundary_points`), `quality.parallel` at a time; spaces searching fewer than 10
settings have no polish."""
MAX_BATCHES = 3
"""Confirmation batches of `top_k` settings at most, while none keeps the bound in every seed."""


@dataclasses.dataclass
class _Job:
    """One quality run: its params (the stage space's), seed, folder, and whether the ladder may prune it."""

    params: dict[str, Any]
    seed: int
    trial_dir: Path
    search: bool
    trial: Trial | None = None


class QualityStage:
    """Runs the stage for one space (the module docstring says what it does)."""

    def __init__(
        self,
        space: Space,
        adapter: TrainerAdapter,
        paths: StudyPaths,
        progress: SweepProgress,
        systems: dict[str, Any] | None = None,
        storage_url: str | None = None,
        n_trials: int | None = None,
    ) -> None:
        if space.quality is None:
            raise ValueError(f"space `{space.name}` has no `quality:` section")
        self.space, self.adapter, self.paths, self.progress = space, adapter, paths, progress
        self.q: QualitySettings = space.quality
        self.search_q = dataclasses.replace(self.q, kl_max=self.q.kl_max * self.q.search_margin)
        """The search's rules: the bound with its margin (one seed stands in for all of them)."""
        self.systems = systems_values(space, systems or {})
        self.stage = quality_stage(space, self.systems)
        self.searched = [p.name for p in self.stage.params if p.role == "algorithm"]
        """The params the stage searches (the rest are systems variables pinned at one value)."""
        self.url = storage_url or f"sqlite:///{paths.db.resolve()}"
        self.n_trials = n_trials or self.q.trials
        self.root = paths.root / "quality"
        self.defaults = adapter.defaults(self.stage.base_config)
        self.lock = threading.Lock()
        self.groups: set[int] = set()
        self.done = 0
        self.prepared = False
        self.stopping = False

    # -- the search ---------------------------------------------------------------------------
    def open_study(self) -> optuna.Study:
        study = open_quality_study(self.space, self.paths, self.url, self.systems, self.progress)
        if not study.trials:
            study.enqueue_trial(self.baseline_params(), user_attrs=QualityRecord(baseline=True).attrs(("baseline",)))
            for params in self.space_filling(STARTUP):
                study.enqueue_trial(params)
        return study

    def space_filling(self, n: int) -> list[dict[str, Any]]:
        """`n` settings spread over the algorithm params (scrambled Sobol, Optuna's QMC sampler): the
        first draws cover the range evenly instead of clustering, as random draws of a handful do."""
        sampler = optuna.samplers.QMCSampler(
            qmc_type="sobol", scramble=True, seed=self.space.sampler.seed, warn_independent_sampling=False
        )
        draft = optuna.create_study(sampler=sampler)
        out = []
        for _ in range(n + 1):  # the QMC sampler learns the space from its first (random) trial
            t = draft.ask()
            out.append(suggest(t, self.stage, self.defaults))
            draft.tell(t, 0.0)
        return out[1:]

    def baseline_params(self) -> dict[str, Any]:
        return {p.name: self.stage.baseline[p.name] for p in self.stage.params if p.name in self.stage.baseline}

    def search(self) -> optuna.Study:
        study = self.open_study()
        self.done = sum(
            1 for t in study.get_trials(deepcopy=False) if t.state.is_finished() and t.state != TrialState.FAIL
        )
        # a failed run's retry and the rerun of a run a stopped worker cut short run even when the budget is spent
        # (a smaller --trials on the rerun): their settings were drawn already. The rerun was said ("run again:
        # #2 as #4") and then not run, its setting missing from the ladder and the decision (audit 38 F7).
        again = [
            t for t in study.get_trials(deepcopy=False, states=(TrialState.WAITING,)) if _run_again_of(t) is not None
        ]
        retries = len(again)
        left = max(self.n_trials - self.done, retries)
        searched = ", ".join(self.searched)
        if self.done:
            if self.n_trials - self.done <= 0 < retries:
                n = f"{retries} run{'s' if retries > 1 else ''}"
                which = ", ".join(f"#{_run_again_of(t)} as #{t.number}" for t in again)
                rest = (
                    f"no new setting to search (quality.trials in the space runs more), but the {n} cut short or "
                    f"failed run{'s' if retries == 1 else ''} again ({which})"
                )
            elif left > 0:
                rest = f"{left} to run"
            else:
                rest = "nothing left to search (quality.trials in the space runs more)"
            of = f" of {self.n_trials}" if self.done <= self.n_trials else f" (more than the {self.n_trials} asked)"
            self.progress.note(f"quality stage: {self.done}{of} searched settings finished already; {rest}")
        if left > 0:
            # every systems value the runs hold (it named only the pinned variables, audit 19 C3), and quality.base
            fixed = systems_values(self.space, self.systems or self.space.baseline)
            held = f"; systems values held: {short_params(fixed, limit=len(fixed))}" if fixed else ""
            if self.q.base:
                held += f" (for these runs: {short_params(self.q.base, limit=len(self.q.base))})"
            self.progress.note(
                f"quality stage: {left} searched settings of {searched} over up to {self.q.steps} steps "
                f"(rungs {self.q.rungs()}), {self.q.parallel} at a time{held}"
            )
        polish = POLISH if self.n_trials >= STARTUP + 1 + POLISH + 2 else 0
        self._search_until(study, max(self.n_trials - polish, self.done + retries))
        while self.done < self.n_trials and not self.stopping:  # the polish, a round at a time
            points = self.boundary_points(study, min(self.q.parallel, self.n_trials - self.done))
            if points:
                self.progress.note(
                    f"quality stage: {len(points)} setting(s) between the best feasible one and the bound"
                )
            for params in points:
                study.enqueue_trial(params, user_attrs=QualityRecord(polish=True).attrs(("polish",)))
            before = self.done
            self._search_until(study, self.done + max(len(points), 1))
            if self.done == before:
                break
        return study

    def _search_until(self, study: optuna.Study, total: int) -> None:
        """Run search trials until the study holds `total` finished ones."""
        claimed = [self.done]

        def claim() -> _Job | None:
            with self.lock:
                if claimed[0] >= total:
                    return None
                claimed[0] += 1
                trial = study.ask()
                params = suggest(trial, self.stage, self.defaults)
                folder = self.root / "search" / f"{trial.number:04d}"
                return _Job(params, self.q.first_seed, folder, search=True, trial=trial)

        self._pool(claim, lambda job: self._search_one(study, job))

    def boundary_points(self, study: optuna.Study, n: int) -> list[dict[str, Any]]:
        """`n` settings on the line from the best feasible setting to the nearest infeasible one.

        On this kind of problem the best setting learns most while just keeping the bound, and
        learning more means drifting further, so the optimum sits on the bound. Between the best
        feasible setting and the setting that broke the bound latest (the nearest to it; it learned
        more), the boundary is bracketed: the points split that segment evenly, in the space's own
        scale (log for log params). Categorical params keep the feasible setting's value. None when
        there is no bracket yet (the sampler goes on instead).
        """
        trials = [t for t in study.get_trials(deepcopy=False) if t.state.is_finished() and QualityRecord.of(t).outcome]
        feasible = [t for t in trials if t.state == TrialState.COMPLETE and QualityRecord.of(t).feasible]
        broke = [t for t in trials if QualityRecord.of(t).outcome == "kl_bound"]
        if not feasible or not broke:
            return []
        best = max(feasible, key=lambda t: t.value if t.value is not None else -math.inf)
        edge = max(broke, key=lambda t: (QualityRecord.of(t).steps, _finite(QualityRecord.of(t).score)))
        seen = [t.params for t in study.get_trials(deepcopy=False)]
        out = []
        for k in range(1, n + 1):
            params = _between(self.stage, best.params, edge.params, k / (n + 1))
            if params not in seen and params not in out:
                out.append(params)
        return out

    def _search_one(self, study: optuna.Study, job: _Job) -> None:
        trial = job.trial
        assert trial is not None
        source = self._same_setting(study, trial.number, job.params)
        if source is not None:
            self._reuse(study, trial, source)
            return

        def at_rung(step: int, s: CurveSummary) -> bool:
            with self.lock:
                record = QualityRecord.of(trial)
                record.se[str(step)] = s.score_se
                record.save(trial, ("se",))
                trial.report(s.score, step)
                return trial.should_prune()

        q = self.search_q
        watch = CurveWatch(q, stop_on_limits=True, at_rung=at_rung, bound=self.q.kl_max)
        label = "baseline" if QualityRecord.of(trial).baseline else f"#{trial.number}"
        curve, state, detail = self._run(job, watch, label, q)
        if self.stopping:  # killed by Ctrl-C: left RUNNING, so a resumed stage runs it again
            return
        s = summarize(curve, q)
        with self.lock:
            record = QualityRecord(
                outcome=state, detail=detail, steps=s.steps, score=s.score, kl_peak=s.kl_peak,
                dir=str(job.trial_dir), seed=job.seed, feasible=s.broke is None,
            )  # fmt: skip
            record.save(trial, ("outcome", "detail", "steps", "score", "kl_peak", "dir", "seed", "feasible"))
            trial.set_constraint("kl_bound", _kl_violation(s, q))
            trial.set_constraint("collapse_or_nan", 1.0 if s.broke in ("nan", "entropy") else -1.0)
            if state == "pruned":
                study.tell(trial, state=TrialState.PRUNED)
            elif state == "failed" or math.isnan(s.score):
                study.tell(trial, state=TrialState.FAIL)
            else:  # complete, or stopped for breaking a rule (infeasible through its constraints)
                study.tell(trial, s.score)
            self.done += 1

    def _same_setting(self, study: optuna.Study, number: int, params: dict[str, Any]) -> FrozenTrial | None:
        """An earlier search run of `params`, which ran at the same seed: its run is this one's (TPE drew the
        baseline's setting again, and two copies of one setting side by side, each run, audit 32 F8). One still
        running is waited for. None: no such run measured it (a failed one is not reused)."""
        said = False
        while not self.stopping:
            same = [t for t in study.get_trials(deepcopy=False) if t.number < number and t.params == params]
            done = [t for t in same if QualityRecord.of(t).outcome not in (None, "failed", *NOT_RUN)]
            if done:
                return done[0]
            if not any(t.state == TrialState.RUNNING for t in same):
                return None
            if not said:
                running = "the baseline" if QualityRecord.of(same[0]).baseline else f"#{same[0].number}"
                self.progress.note(f"  #{number}: the setting {running} runs; waiting for its result")
                said = True
            time.sleep(1.0)
        return None

    def _reuse(self, study: optuna.Study, trial: Trial, source: FrozenTrial) -> None:
        """Tell `trial` what `source` measured: its record, rungs, constraints and outcome."""
        record = dataclasses.replace(QualityRecord.of(source), copy_of=source.number, baseline=False, polish=False)
        with self.lock:
            record.save(trial, ("outcome", "detail", "steps", "score", "kl_peak", "dir", "seed", "feasible", "se"))
            record.save(trial, ("copy_of",))
            for step, value in sorted(source.intermediate_values.items()):
                trial.report(value, step)
            for key, value in source.system_attrs.items():
                if key.startswith("constraints:"):  # Optuna's key for `set_constraint`
                    trial.set_constraint(key.partition(":")[2], value)
            if source.state == TrialState.COMPLETE:
                study.tell(trial, source.value)
            else:
                study.tell(trial, state=source.state)
            self.done += 1
        label = "baseline" if QualityRecord.of(source).baseline else f"#{source.number}"
        self.progress.note(f"  #{trial.number}: {label}'s setting again: its run is reused ({record.outcome})")

    # -- confirmation over seeds ----------------------------------------------------------------
    def confirm(self, study: optuna.Study) -> list[QualityCandidate]:
        """The baseline and the best feasible search settings over every seed, `top_k` at a time.

        The search judged each setting on one seed, and the settings that learn most are the ones
        closest to the bound, so the best of them often breaks it on another seed. When no setting
        of a batch keeps the bound in every seed, the next `top_k` are confirmed (at most
        `MAX_BATCHES` batches). A candidate's seed run stops where it breaks the bound (it can no
        longer win) and its remaining seeds are skipped; the baseline's runs go to the horizon, so
        its KL there is known.
        """
        trials = study.get_trials(deepcopy=False)
        base_trial = next(
            (t for t in trials if QualityRecord.of(t).baseline and QualityRecord.of(t).outcome not in NOT_RUN), None
        )
        feasible = [
            t
            for t in trials
            if t.state == TrialState.COMPLETE and not QualityRecord.of(t).baseline and QualityRecord.of(t).feasible
        ]
        feasible.sort(key=lambda t: t.value if t.value is not None else -math.inf, reverse=True)
        base_params = self.baseline_params()
        order: list[FrozenTrial] = []
        for t in feasible:
            if t.params != base_params and all(t.params != p.params for p in order):
                order.append(t)
        entries: list[tuple[str, int | None, dict[str, Any], FrozenTrial | None]] = [
            ("baseline", base_trial.number if base_trial else None, base_params, base_trial)
        ]
        results: dict[tuple[int, int], QualityRun] = {}
        for batch in range(MAX_BATCHES):
            picked = order[batch * self.q.top_k : (batch + 1) * self.q.top_k]
            if not picked and batch > 0:
                break
            first = len(entries)
            entries += [(f"#{t.number}", t.number, dict(t.params), t) for t in picked]
            self._confirm_batch(entries, range(0 if batch == 0 else first, len(entries)), results)
            kept = [
                i
                for i in range(first, len(entries))
                if all(results[(i, s)].broke is None for s in self._seeds(i, results))
            ]
            if kept or not picked:
                break
            self.progress.note(
                f"quality stage: no setting of batch {batch + 1} kept the bound in every seed; next batch"
            )
        return [
            QualityCandidate(
                label=label,
                number=number,
                params=algorithm_values(self.space, params),
                runs=[results[(i, s)] for s in self.q.seed_values() if (i, s) in results],
            )
            for i, (label, number, params, _source) in enumerate(entries)
        ]

    def _seeds(self, i: int, results: dict[tuple[int, int], QualityRun]) -> list[int]:
        return [s for s in self.q.seed_values() if (i, s) in results]

    def _confirm_batch(
        self,
        entries: list[tuple[str, int | None, dict[str, Any], FrozenTrial | None]],
        which: range,
        results: dict[tuple[int, int], QualityRun],
    ) -> None:
        jobs: list[tuple[int, _Job]] = []
        kept: list[str] = []  # seed runs an earlier, interrupted run finished: said (audit 18 F4)
        for i in which:
            label, _number, params, source = entries[i]
            for seed in self.q.seed_values():
                folder = self.root / "seeds" / f"{label.replace('#', 'trial')}-seed{seed}"
                reused = self._reusable(label, source, seed)
                if reused is not None:
                    results[(i, seed)] = reused
                    if (folder / "quality.json").exists():
                        kept.append(f"{label} seed {seed}")
                    continue
                jobs.append((i, _Job(params, seed, folder, search=False)))
        labels = ", ".join(entries[i][0] for i in which)
        if jobs:
            earlier = f"; kept from an earlier run: {', '.join(kept)}" if kept else ""
            self.progress.note(
                f"quality stage: confirming {labels} over seeds {self.q.seed_values()} at {self.q.steps} steps "
                f"(up to {len(jobs)} run{'s' if len(jobs) > 1 else ''}{earlier})"
            )
        queue = list(jobs)

        def broken(i: int) -> bool:
            return any(results[(i, s)].broke is not None for s in self._seeds(i, results))

        def claim() -> tuple[int, _Job] | None:
            with self.lock:
                while queue:
                    i, job = queue.pop(0)
                    if i == 0 or not broken(i):  # a candidate that broke the bound on one seed cannot win
                        return i, job
                return None

        def run(item: tuple[int, _Job]) -> None:
            i, job = item
            watch = CurveWatch(self.q, stop_on_limits=i != 0)  # the baseline runs to the horizon
            curve, _state, _detail = self._run(job, watch, f"{entries[i][0]} seed {job.seed}")
            with self.lock:
                results[(i, job.seed)] = _quality_run(curve, self.q, job)

        self._pool(claim, run)

    def _reusable(self, label: str, source: FrozenTrial | None, seed: int) -> QualityRun | None:
        """A finished seed run in its folder (kept on resume), or the search run at this seed when it
        reached the horizon inside the bound."""
        record = QualityRecord.of(source) if source is not None else QualityRecord()
        if source is not None and seed == record.seed and record.outcome == "complete" and record.dir:
            folder = self.paths.located(record.dir)
        else:
            folder = self.root / "seeds" / f"{label.replace('#', 'trial')}-seed{seed}"
            if not (folder / "quality.json").exists():
                return None
            state = json.loads((folder / "quality.json").read_text()).get("state")
            if state not in ("complete", "kl_bound", "entropy", "nan"):
                return None  # failed or cut short by a stopped controller: run it again
        curve = Curve.of(read_rows(folder), self.q)
        run = _quality_run(curve, self.q, _Job({}, seed, folder, search=False))
        return run if run.broke != "incomplete" else None

    # -- running ------------------------------------------------------------------------------
    def _run(
        self, job: _Job, watch: CurveWatch, label: str, q: QualitySettings | None = None
    ) -> tuple[Curve, str, str]:
        """One run to the horizon (or until `watch` stops it): (its curve, outcome, detail), judged by `q`."""
        q = q or self.q
        seed_keys = self.q.seed_keys
        assert seed_keys, "the space's reader sets them (the trainer's own when the file has none)"
        space = dataclasses.replace(self.stage, base={**self.stage.base, **dict.fromkeys(seed_keys, job.seed)})
        if job.trial_dir.exists():  # a run cut short before (a stopped controller): its steps must not mix in
            shutil.rmtree(job.trial_dir)
        started = time.monotonic()
        self.progress.note(f"  {label} ({short_params(self._searched(job.params))}, seed {job.seed}) started")
        ev = evaluate(space, self.adapter, job.params, job.trial_dir, None, monitor=watch, on_start=self._started)
        rows = ev.runs[-1].rows if ev.runs else []
        curve = Curve.of(rows, self.q)
        if self.stopping:  # Ctrl-C or SIGTERM killed it: not a crash, and nothing of it is kept
            self.progress.note(
                f"  {label}: interrupted after {len(rows)} step{'s' if len(rows) != 1 else ''} (the quality stage was "
                "stopped); runs again on resume"
            )
            return curve, "interrupted", ""
        if ev.outcome == "failed":
            state, detail = "failed", f"{ev.reason}: {ev.detail}"
        elif watch.stopped == "pruned":
            state, detail = "pruned", watch.detail
        elif watch.stopped is not None:
            state, detail = watch.stopped, watch.detail
        else:
            state, detail = "complete", ""
        s = summarize(curve, q)
        write_json(job.trial_dir / "quality.json", {"state": state, "detail": detail, **dataclasses.asdict(s)})
        self.progress.note(
            f"  {label}: {state} after {s.steps} step{'s' if s.steps != 1 else ''} in {time.monotonic() - started:.0f} s; score {s.score:.3f}, "
            f"KL peak {s.kl_peak:.4f}{f' ({detail})' if detail else ''}"
        )
        return curve, state, detail

    def _searched(self, params: dict[str, Any]) -> dict[str, Any]:
        return {k: v for k, v in params.items() if k in self.searched}

    def _started(self, pgid: int) -> None:
        with self.lock:
            self.groups.add(pgid)

    def _pool(self, claim: Callable[[], Any], work: Callable[[Any], None]) -> None:
        """`work` on what `claim` hands out until it hands out None, `quality.parallel` at a time."""
        if not self.prepared:  # e.g. the built-in trainer's warm parent: one, shared by the parallel runs
            self.adapter.prepare(self.stage.base, self.stage.trial.world_size)
            self.prepared = True

        def worker() -> None:
            while not self.stopping and (item := claim()) is not None:
                work(item)

        if self.q.parallel == 1:
            worker()
            return
        with concurrent.futures.ThreadPoolExecutor(self.q.parallel) as pool:
            futures = [pool.submit(worker) for _ in range(self.q.parallel)]
            try:
                for f in futures:
                    f.result()
            except BaseException:  # Ctrl-C: no new run starts, and the running ones' process groups are killed
                self.stopping = True
                for pgid in list(self.groups):
                    kill_group(pgid, grace_s=1.0)
                raise

    # -- the whole stage ----------------------------------------------------------------------
    def run(self) -> Quality:
        study = self.search()
        candidates = self.confirm(study)
        q = self.q
        result = Quality(
            study=self.paths.name,
            horizon=q.steps,
            seeds=q.seed_values(),
            score_metric=q.score_metric,
            score_last=q.score_last,
            kl_metric=q.kl_metric,
            kl_window=q.kl_window,
            kl_max=q.kl_max,
            systems=self.systems,
            candidates=candidates,
            ladder=[
                _rung_row(t, self.searched)
                for t in study.get_trials(deepcopy=False)
                if t.state.is_finished() and QualityRecord.of(t).outcome not in NOT_RUN
            ],
            steps_trained=sum(
                QualityRecord.of(t).steps
                for t in study.get_trials(deepcopy=False)
                if QualityRecord.of(t).copy_of is None
            )
            + sum(r.steps for c in candidates for r in c.runs if "/seeds/" in r.dir),
            not_measured=[f"#{t.number} ({QualityRecord.of(t).detail})" for t in failed_to_retry(study)],
            failed_twice=[
                f"#{r.retry_of} (as #{t.number}: {r.detail})"
                for t in failed_twice(study)
                if (r := QualityRecord.of(t)).retry_of is not None
            ],
        )
        result.decide()
        result.write(self.paths)
        return result


def _between(space: Space, a: dict[str, Any], b: dict[str, Any], t: float) -> dict[str, Any]:
    """The setting a fraction `t` of the way from `a` to `b`, param by param in its own scale."""
    out = dict(a)
    for p in space.params:
        if p.name not in a or p.name not in b or p.type in ("categorical", "bool") or p.low is None or p.high is None:
            continue
        x, y = float(a[p.name]), float(b[p.name])
        value = math.exp(math.log(x) + t * (math.log(y) - math.log(x))) if p.log else x + t * (y - x)
        if p.step:
            value = p.low + round((value - p.low) / p.step) * p.step
        value = min(max(value, p.low), p.high)
        out[p.name] = round(value) if p.type == "int" else round(value, 12)
    return out


def _kl_violation(s: CurveSummary, q: QualitySettings) -> float:
    """The KL constraint the sampler learns from (> 0: infeasible). A run stops the step it breaks the
    bound, so by how much it broke says little (always just over); how early says a lot: a setting
    that broke at step 9 of 150 is far from feasible, one that broke at step 146 is at the edge. A
    broken run's violation is the share of the horizon it did not survive; a kept one's, its peak
    minus the bound (<= 0)."""
    if math.isnan(s.kl_peak):
        return 1.0
    if s.broke == "kl_bound" or s.kl_peak > q.kl_max:
        return max((q.steps - s.kl_peak_step + 1) / q.steps, 1e-6)
    return s.kl_peak - q.kl_max


def _quality_run(curve: Curve, q: QualitySettings, job: _Job) -> QualityRun:
    s = summarize(curve, q)
    broke = s.broke or (None if s.steps >= q.steps else "incomplete")
    return QualityRun(
        seed=job.seed, steps=s.steps, score=s.score, kl_peak=s.kl_peak, kl_peak_step=s.kl_peak_step,
        kl_last=s.kl_last, entropy_low=s.entropy_low, broke=broke, dir=str(job.trial_dir),
    )  # fmt: skip


def _run_again_of(t: FrozenTrial) -> int | None:
    """The search trial a queued trial runs again: the run a stopped worker cut short, or the one that failed."""
    r = QualityRecord.of(t)
    return r.rerun_of if r.rerun_of is not None else r.retry_of


def _finite(value: float) -> float:
    return value if not math.isnan(value) else -math.inf


def _rung_row(t: FrozenTrial, searched: list[str]) -> dict[str, Any]:
    record = QualityRecord.of(t)
    return {
        "number": t.number,
        "baseline": record.baseline,
        "params": {k: v for k, v in t.params.items() if k in searched},  # the systems values: `Quality.systems`
        "steps": record.steps,
        "outcome": record.outcome or t.state.name.lower(),
        "detail": record.detail,
        "score": record.score,
        "kl_peak": record.kl_peak,
        "rungs": {str(k): v for k, v in sorted(t.intermediate_values.items())},
        "rerun_of": record.rerun_of,
        "retry_of": record.retry_of,
        "copy_of": record.copy_of,
    }
