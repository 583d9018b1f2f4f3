"""The pruner on crafted step curves, and every sampler on a real space with the feasibility signal."""

from __future__ import annotations

import dataclasses
import math
import statistics

import optuna
import pytest
from optuna.trial import TrialState

from autotune.adapters import get_adapter
from autotune.space.grid import grid, sampler_problem
from autotune.space.loader import SpaceError, load_space
from autotune.space.sampling import suggest
from autotune.space.schema import SAMPLERS, SamplerSettings, Space
from autotune.study.frames import trials_frame
from autotune.sweep.backends.lifecycle import tell_outcome
from autotune.sweep.backends.pruning import pruning_monitor
from autotune.sweep.backends.samplers import make_sampler
from autotune.trial.record import TrialRecord

STEPS, WARMUP = 12, 2


@pytest.fixture(scope="module")
def space() -> Space:
    loaded = load_space("fsdp3d", device="cpu")
    trial = dataclasses.replace(loaded.trial, steps=STEPS, warmup_steps=WARMUP)
    return dataclasses.replace(loaded, trial=trial, sampler=dataclasses.replace(loaded.sampler, prune_at=0.5))


def _study(space: Space) -> optuna.Study:
    from autotune.sweep.backends.pruning import make_pruner

    return optuna.create_study(
        direction="maximize", pruner=make_pruner(space), sampler=optuna.samplers.RandomSampler(0)
    )


def _feed(space: Space, study: optuna.Study, curve: list[float]) -> tuple[int | None, list[int]]:
    """Run one trial's per-step throughput through the monitor: (step it was pruned at, steps asked)."""
    trial = study.ask()
    monitor = pruning_monitor(space, trial)
    assert monitor is not None
    asked: list[int] = []
    original = trial.should_prune

    def spy() -> bool:
        asked.append(step)
        return original()

    trial.should_prune = spy  # type: ignore[method-assign]
    for step, value in enumerate(curve, start=1):
        if monitor(step, {"perf/throughput": value}):
            study.tell(trial, state=TrialState.PRUNED)
            return step, asked
    post = curve[WARMUP:]
    study.tell(trial, statistics.median(post))
    return None, asked


def test_the_pruner_decides_once_at_the_stated_fraction_on_the_same_step(space):
    assert space.sampler.prune_step(space.trial) == 6  # ceil(0.5 × 12)
    study = _study(space)
    for level in (100.0, 101.0, 102.0, 103.0, 104.0):  # five finished trials
        assert _feed(space, study, [level] * STEPS) == (None, [6])
    # by hand: the finished trials' 25th percentile at step 6 is 100 + 0.25 × 4 = 101
    assert _feed(space, study, [50.0] * STEPS) == (6, [6])
    assert _feed(space, study, [100.5] * STEPS) == (6, [6])  # just below the bottom-quarter line
    assert _feed(space, study, [102.5] * STEPS) == (None, [6])  # below the median, above the bottom quarter
    # slow only after the decision step: never pruned, however bad its end, and never asked again
    assert _feed(space, study, [104.0] * 6 + [1.0] * 6) == (None, [6])
    # a good trial is not pruned
    assert _feed(space, study, [150.0] * STEPS) == (None, [6])


def test_no_pruning_before_five_finished_trials_or_without_a_decision_step(space):
    study = _study(space)
    for level in (100.0, 101.0, 102.0, 103.0):
        _feed(space, study, [level] * STEPS)
    assert _feed(space, study, [1.0] * STEPS)[0] is None  # only four finished trials to compare with
    late = dataclasses.replace(space, sampler=dataclasses.replace(space.sampler, prune_at=0.99))
    assert late.sampler.prune_step(late.trial) is None  # ceil(0.99 × 12) = 12 is the last step
    assert dataclasses.replace(space.sampler, prune_at=None).prune_step(space.trial) is None


def test_a_pruned_trial_keeps_its_partial_objective_and_the_sampler_sees_pruned(space, tmp_path):
    study = optuna.create_study(direction="maximize", storage=f"sqlite:///{tmp_path / 's.db'}", study_name="p")
    study.set_user_attr("objectives", [["perf/throughput", "maximize", "median"]])
    trial = study.ask()
    trial.report(55.0, 6)
    record = TrialRecord(outcome="pruned", reason="pruned at step 6 of 12", key_metrics={"throughput": 55.0})
    tell_outcome(study, trial, space, record, [55.0])
    frozen = study.trials[0]
    assert frozen.state == TrialState.PRUNED  # the sampler ranks it by its reported steps
    frame = trials_frame(study)
    assert frame.loc[0, "objective:perf/throughput"] == 55.0 and bool(frame.loc[0, "partial"])


def test_prune_at_is_validated_and_the_old_setting_is_named(tmp_path):
    with pytest.raises(ValueError, match=r"`sampler.prune_at` must be a fraction of the steps in \(0, 1\)"):
        SamplerSettings(prune_at=1.5)
    from autotune.space.loader import SPACE_DIR

    text = (
        (SPACE_DIR / "fsdp3d.yaml")
        .read_text()
        .replace("sampler: {seed: 0, n_startup_trials: 6}", "sampler: {seed: 0, pruner_warmup_steps: 6}")
    )
    path = tmp_path / "old.yaml"
    path.write_text(text)
    with pytest.raises(SpaceError, match=r"old.yaml:\d+: `sampler.pruner_warmup_steps` is gone: .*prune_at"):
        load_space(str(path))


@pytest.mark.parametrize("name", [s for s in SAMPLERS if s != "grid"])
def test_every_sampler_proposes_valid_configs_and_reads_the_limits(space, name):
    """Ten asks and tells per sampler through the space's own suggest, with a constraint per limit."""
    chosen = dataclasses.replace(space, sampler=dataclasses.replace(space.sampler, name=name, n_startup_trials=3))
    study = optuna.create_study(direction="maximize", sampler=make_sampler(chosen))
    defaults = get_adapter("builtin").defaults(chosen.base_config)
    for i in range(10):
        trial = study.ask()
        params = suggest(trial, chosen, defaults)
        assert params["actor_rollout_ref.rollout.tensor_model_parallel_size"] in (1, 2)
        kl = params["algorithm.kl_ctrl.kl_coef"]
        assert 1e-4 <= kl <= 1.0
        for limit in chosen.limits:
            trial.set_constraint(limit.metric, 1.0 if i % 3 == 0 else -1.0)
        trial.set_constraint("run_failed", -1.0)
        study.tell(trial, -math.log(kl))
    assert len(study.trials) == 10 and all(t.state == TrialState.COMPLETE for t in study.trials)
    assert all(len(t.constraints) == len(chosen.limits) + 1 for t in study.trials)


def test_grid_needs_steps_and_walks_every_point(space):
    walked = dataclasses.replace(space, sampler=dataclasses.replace(space.sampler, name="grid"))
    assert "give param `algorithm.kl_ctrl.kl_coef` a `step`" in (sampler_problem(walked) or "")
    few = [p for p in walked.params if p.type in ("bool", "categorical")][:3]
    small = dataclasses.replace(walked, params=few, derived=[], constraints=[])
    points = grid(small)
    expected = math.prod(len(p.choices or (False, True)) for p in few)
    study = optuna.create_study(sampler=make_sampler(small))
    seen = set()
    for _ in range(expected):
        trial = study.ask()
        seen.add(tuple(trial.suggest_categorical(p.name, points[p.name]) for p in few))
        study.tell(trial, 0.0)
    assert len(seen) == expected


def test_cmaes_refuses_several_objectives_and_the_cli_names_the_sampler(tmp_path):
    from tests.autotune.conftest import autotune, write_space

    text = (
        write_space(tmp_path)
        .read_text()
        .replace("objectives:\n", "objectives:\n  - {metric: actor/kl_loss, direction: minimize, reducer: last}\n")
    )
    path = tmp_path / "two.yaml"
    path.write_text(text)
    proc = autotune("validate", "--space", str(path))
    assert proc.returncode == 0, proc.stderr
    proc = autotune("run", "--space", str(path), "--sampler", "cmaes", "--runs-dir", str(tmp_path / "runs"))
    assert proc.returncode == 2
    assert "cmaes` optimises one objective" in proc.stderr and "(--sampler)" in proc.stderr
    proc = autotune("run", "--space", str(path), "--sampler", "annealing", "--runs-dir", str(tmp_path / "runs"))
    assert proc.returncode == 2 and "--sampler must be one of tpe, gp, cmaes" in proc.stderr  # the flag, not the file


def test_an_outcome_for_a_trial_another_worker_already_failed_is_dropped_not_a_traceback(tmp_path):
    """Another worker that saw no heartbeat from a trial for the grace period fails it and queues it again; its
    own worker, finishing later, died with "Trial#0 has already finished and can not be updated"."""
    from autotune.study.storage import open_storage
    from autotune.sweep.backends.lifecycle import trial_id

    space = load_space("fsdp3d", device="cpu")
    storage = open_storage(f"sqlite:///{tmp_path / 'study.db'}")
    study = optuna.create_study(study_name="s", storage=storage, direction="maximize")
    trial = study.ask()
    tid = trial_id(storage, "s", trial.number)
    assert storage.set_trial_state_values(tid, state=TrialState.FAIL)  # the other worker's stale-trial check
    record = TrialRecord(outcome="complete", key_metrics={"throughput": 5.0})
    assert tell_outcome(study, trial, space, record, [5.0]) is False
    ended = study.get_trials()[0]
    assert ended.state == TrialState.FAIL and "outcome" not in ended.user_attrs
    fresh = study.ask()
    assert tell_outcome(study, fresh, space, record, [5.0]) is True
    assert study.get_trials()[1].state == TrialState.COMPLETE


def test_a_grid_walked_past_says_so_once_instead_of_optunas_warning_per_trial(tmp_path):
    """`--sim-trials 20` over a 3-point grid printed Optuna's "re-evaluating a configuration because the grid has
    been exhausted ... a timing issue during distributed optimization" 16 times (audit 15 F6): one line now."""
    import yaml

    from tests.autotune.conftest import SMALL_SPACE, autotune

    micro = "actor_rollout_ref.actor.ppo_micro_batch_size_per_gpu"
    space = yaml.safe_load(
        SMALL_SPACE.format(steps=4, timeout=120, hang=30, extra_params="", extra_baseline="", baseline_micro=4, top_k=1)
    )
    space.update(params={micro: {"type": "categorical", "choices": [1, 2, 8]}}, baseline={micro: 8},
                 sampler={"name": "grid", "seed": 0})  # fmt: skip
    path = tmp_path / "g.yaml"
    path.write_text(yaml.safe_dump(space, sort_keys=False))
    ran = autotune("run", "--space", str(path), "--runs-dir", str(tmp_path / "runs"), "--fidelity", "sim",
                   "--trials", "7", "--report-dir", str(tmp_path / "report"))  # fmt: skip
    assert ran.returncode == 0, ran.stdout[-2000:] + ran.stderr[-2000:]
    said = ran.stdout + ran.stderr
    assert "grid has been exhausted" not in said, said
    assert said.count("the grid holds 3 configurations: the other 4 trials repeat one of them") == 1, said
    assert "nothing run); --trials 3 runs the same sweep" in said, said
    from autotune.space.loader import load_space as load
    from autotune.sweep.backends.samplers import grid_repeats

    said = grid_repeats(load(str(path)), 4, "--sim-trials")  # sim,real's first stage counts --sim-trials
    assert said is not None and "the other 1 trial repeats one of them" in said and "--sim-trials 3 runs" in said
