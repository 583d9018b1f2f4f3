"""The space's `quality:` section and the quality stage's view of a space."""

from __future__ import annotations

from pathlib import Path

import pytest

from autotune.space.loader import SpaceError, load_space
from autotune.space.quality_section import QualitySettings
from autotune.space.stages import quality_stage
from tests.autotune.conftest import write_space

QUALITY = """
quality:
  steps: 30
  min_steps: 5
  reduction_factor: 2
  trials: 4
  seeds: 2
  score_last: 10
  kl_max: 0.2
  world_size: 1
  parallel: 2
  base: {actor_rollout_ref.rollout.tensor_model_parallel_size: 1}
"""


def space_with(tmp_path: Path, quality: str) -> Path:
    path = write_space(tmp_path)
    path.write_text(path.read_text() + quality)
    return path


def test_a_quality_section_is_read_with_its_rungs_and_systems_base(tmp_path):
    space = load_space(str(space_with(tmp_path, QUALITY)))
    q = space.quality
    assert q is not None and q.steps == 30 and q.kl_max == 0.2 and q.parallel == 2
    assert q.base == {"actor_rollout_ref.rollout.tensor_model_parallel_size": 1}
    assert q.rungs() == [5, 10, 20]  # 5 × 2^k below the horizon of 30
    assert QualitySettings(steps=150, min_steps=20, reduction_factor=3).rungs() == [20, 60]
    assert q.seed_values() == [1, 2]


def test_a_runs_seed_goes_to_every_seed_the_trainer_has_unless_the_file_says(tmp_path):
    """Without `seed_keys`, a verl space's seeds set only `data.seed`: every seed sampled its rollouts with verl's
    `actor_rollout_ref.rollout.seed` (42), so the seeds' spread left out the sampling noise."""
    assert load_space(str(space_with(tmp_path, QUALITY))).quality.seed_keys == ("data.seed",)  # type: ignore[union-attr]
    shipped = (Path(__file__).resolve().parents[3] / "search_spaces" / "verl-cpu.yaml").read_text()
    assert "  seed_keys: [data.seed, actor_rollout_ref.rollout.seed]\n" in shipped
    verl = tmp_path / "verl.yaml"
    verl.write_text(shipped.replace("  seed_keys: [data.seed, actor_rollout_ref.rollout.seed]\n", ""))
    assert load_space(str(verl)).quality.seed_keys == ("data.seed", "actor_rollout_ref.rollout.seed")  # type: ignore[union-attr]
    verl.write_text(shipped.replace("seed_keys: [data.seed, actor_rollout_ref.rollout.seed]", "seed_keys: [data.seed]"))
    assert load_space(str(verl)).quality.seed_keys == ("data.seed",)  # type: ignore[union-attr]


def test_no_quality_section_means_no_quality_stage(tmp_path):
    assert load_space(str(write_space(tmp_path))).quality is None


@pytest.mark.parametrize(
    ("section", "problem"),
    [
        ("quality: {kl_max: -1}", "`quality.kl_max` must be a positive number"),
        ("quality: {search_margin: 1.5}", "`quality.search_margin` must lie in (0, 1]"),
        ("quality: {steps: 10, min_steps: 20}", "`quality.min_steps` must be <= `quality.steps` (10)"),
        ("quality: {seedz: 3}", "unknown setting `quality.seedz`; did you mean `seeds`?"),
        ("quality: {seed_keys: []}", "`quality.seed_keys` must be a list of config keys"),
        ("quality: {score_metric: critic/score/maen}", "unknown metric `critic/score/maen`"),
        (
            "quality: {seed_keys: [data.sead]}",
            "`quality.seed_keys`: the builtin trainer has no key `data.sead`; did you mean `data.seed`?",
        ),
        (
            "quality:\n  base: {algorithm.kl_ctrl.kl_coef: 0.1}",
            "is an algorithm knob: the quality stage searches those",
        ),
        (
            "quality:\n  base: {actor_rollout_ref.rollout.tensor_parallel: 1}",
            "unknown key `actor_rollout_ref.rollout.tensor_parallel` in quality.base",
        ),
    ],
)
def test_a_bad_quality_section_names_the_file_line_and_fix(tmp_path, section, problem):
    path = space_with(tmp_path, "\n" + section + "\n")
    with pytest.raises(SpaceError) as exc:
        load_space(str(path))
    text = str(exc.value)
    assert problem in text, text
    assert f"{path}:" in text


def test_every_broken_quality_setting_is_named_at_once_at_its_line(tmp_path):
    """`seeds: 0` and `kl_max: -1` together: only the first was said, the second after it was fixed."""
    path = space_with(
        tmp_path,
        "\nquality:\n  seeds: 0\n  kl_max: -1\n  steps: 10\n  min_steps: 20\n  timeout_s: -5\n  first_seed: -3\n",
    )  # a timeout of -5 passed here and crashed the run after its baseline trial
    with pytest.raises(SpaceError) as exc:
        load_space(str(path))
    text = str(exc.value)
    lines = path.read_text().splitlines()
    for setting, said in (("seeds", "must be a positive integer"), ("kl_max", "must be a positive number"),
                          ("min_steps", "must be <= `quality.steps` (10)"),
                          ("timeout_s", "must be a number of seconds > 0"), ("first_seed", "must be an integer >= 0")):  # fmt: skip
        start = lines.index("quality:")  # the trial's own timeout_s comes before
        line = 1 + next(i for i, ln in enumerate(lines) if i > start and ln.strip().startswith(f"{setting}:"))
        assert f"{path}:{line}: `quality.{setting}` {said}" in text, text


def test_the_quality_stage_searches_the_algorithm_knobs_on_the_given_systems_values(tmp_path):
    space = load_space(str(space_with(tmp_path, QUALITY)))
    winner = {
        "actor_rollout_ref.actor.use_dynamic_bsz": False,
        "actor_rollout_ref.actor.ppo_micro_batch_size_per_gpu": 8,
    }
    stage = quality_stage(space, winner)
    assert [p.name for p in stage.params] == ["algorithm.kl_ctrl.kl_coef"]
    assert stage.baseline == {"algorithm.kl_ctrl.kl_coef": 0.001}
    assert stage.base["actor_rollout_ref.actor.ppo_micro_batch_size_per_gpu"] == 8  # the winner's, not the baseline's 4
    assert stage.base["actor_rollout_ref.actor.use_dynamic_bsz"] is False
    assert stage.base["actor_rollout_ref.rollout.tensor_model_parallel_size"] == 1  # quality.base
    assert (stage.trial.steps, stage.trial.warmup_steps, stage.trial.world_size) == (30, 0, 1)
    assert stage.limits == [] and stage.objectives[0].metric == "critic/score/mean"
    # without a winner: the baseline's systems values
    assert quality_stage(space).base["actor_rollout_ref.actor.ppo_micro_batch_size_per_gpu"] == 4


def test_the_shipped_fsdp3d_space_has_a_quality_stage():
    space = load_space("fsdp3d")
    assert space.quality is not None and space.quality.steps >= 150 and space.quality.seeds >= 3
    assert space.quality.kl_max == 0.05
    stage = quality_stage(space)
    assert {p.name for p in stage.params} == {p.name for p in space.params if p.role == "algorithm"}


def test_a_wrong_type_does_not_hide_a_metric_typo_nor_judge_the_rest_by_a_default(tmp_path):
    """With `steps: forty` beside it, `score_metric: critic/score/maen` went unsaid (the defaults were checked), and
    `min_steps: 200` was judged against the default 150; a NaN bound was said twice."""
    path = space_with(
        tmp_path, "\nquality:\n  steps: forty\n  min_steps: 200\n  kl_max: .nan\n  score_metric: critic/score/maen\n"
    )
    with pytest.raises(SpaceError) as exc:
        load_space(str(path))
    text = str(exc.value)
    assert "`quality.steps` must be an integer, got 'forty'" in text, text
    assert "unknown metric `critic/score/maen`" in text and "did you mean `critic/score/mean`" in text, text
    assert "(150)" not in text and text.count("quality.kl_max") == 1, text


def test_a_quality_layout_that_breaks_a_constraint_is_refused_by_validate(tmp_path):
    """`quality.world_size: 1` with `quality.base` rollout TP 2 passed validate; every quality run was then
    `invalid`."""
    from tests.autotune.conftest import ROOT

    shipped = (ROOT / "search_spaces" / "fsdp3d.yaml").read_text()
    text = shipped.replace(
        "base: {actor_rollout_ref.rollout.tensor_model_parallel_size: 1}",
        "base: {actor_rollout_ref.rollout.tensor_model_parallel_size: 2}",
    )
    assert text != shipped
    path = tmp_path / "q1.yaml"
    path.write_text(text)
    with pytest.raises(SpaceError, match=r"the quality stage's runs .* are not valid trials: .*constraint violated"):
        load_space(str(path))
    load_space(str(ROOT / "search_spaces" / "fsdp3d.yaml"))  # the shipped layout passes


def test_a_quality_section_with_no_algorithm_param_is_refused_and_a_short_horizon_warned_of(tmp_path):
    """No algorithm param: validate said ok, the run skipped the stage and `best` said to run it (audit 32 F5). A
    horizon no longer than a throughput trial passed without a word (audit 32 F10)."""
    path = space_with(tmp_path, QUALITY)
    text = path.read_text()
    param = "  algorithm.kl_ctrl.kl_coef: {type: float, low: 1.0e-4, high: 1.0e-1, log: true}\n"
    path.write_text(text.replace(param, "").replace("  algorithm.kl_ctrl.kl_coef: 0.001\n", ""))
    with pytest.raises(SpaceError) as exc:
        load_space(str(path))
    assert f"{path}:" in str(
        exc.value
    ) and "`quality:` judges the algorithm params, and the space searches none" in str(exc.value), exc.value
    short_horizon = {
        "  steps: 30\n": "  steps: 3\n  kl_window: 2\n",
        "min_steps: 5": "min_steps: 2",
        "last: 10": "last: 2",
    }
    for old, new in short_horizon.items():
        text = text.replace(old, new)
    path.write_text(text)
    short = load_space(str(path))
    assert any("`quality.steps` 3 is not above `trial.steps` 3" in w for w in short.warnings), short.warnings
    assert not any("quality.steps" in w for w in load_space(str(space_with(tmp_path, QUALITY))).warnings)
