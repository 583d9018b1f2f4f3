"""Knob roles (systems or algorithm) and the throughput stage, which searches the systems knobs only."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from autotune.adapters import get_adapter
from autotune.export.winner import export, export_settings
from autotune.space import roles
from autotune.space.loader import SPACE_DIR, SpaceError, load_space
from autotune.space.roles import table_role
from autotune.space.schema import Space
from autotune.space.stages import held_values, throughput_stage
from autotune.study.storage import load_study, stored_space
from tests.autotune.conftest import autotune, simulated_study, write_space
from trainer.config.loader import to_flat_dict

SYSTEMS = [
    "actor_rollout_ref.rollout.tensor_model_parallel_size",
    "actor_rollout_ref.actor.fsdp_config.forward_prefetch",
    "actor_rollout_ref.actor.fsdp_config.reshard_after_forward",
    "actor_rollout_ref.actor.fsdp_config.param_offload",
    "actor_rollout_ref.actor.ppo_micro_batch_size_per_gpu",
    "actor_rollout_ref.actor.use_dynamic_bsz",
    "actor_rollout_ref.actor.ppo_max_token_len_per_gpu",
    "actor_rollout_ref.ref.log_prob_max_token_len_per_gpu",
    "actor_rollout_ref.rollout.log_prob_micro_batch_size_per_gpu",
    "actor_rollout_ref.rollout.gpu_memory_utilization",
    "actor_rollout_ref.rollout.free_cache_engine",
    "actor_rollout_ref.rollout.max_num_batched_tokens",
    "actor_rollout_ref.model.enable_gradient_checkpointing",
    "critic.ppo_micro_batch_size_per_gpu",
    "trainer.n_gpus_per_node",
    "env.NCCL_PROTO",
    "env.PYTORCH_CUDA_ALLOC_CONF",
    "builtin.fault.kind",
    "builtin.rollout_reshard",
]
ALGORITHM = [
    "algorithm.kl_ctrl.kl_coef",
    "algorithm.kl_ctrl.type",
    "algorithm.adv_estimator",
    "actor_rollout_ref.actor.use_kl_loss",
    "actor_rollout_ref.actor.kl_loss_coef",
    "actor_rollout_ref.actor.kl_loss_type",
    "actor_rollout_ref.actor.clip_ratio_high",
    "actor_rollout_ref.actor.clip_ratio_c",
    "actor_rollout_ref.actor.ppo_epochs",
    "actor_rollout_ref.actor.ppo_mini_batch_size",
    "actor_rollout_ref.actor.optim.lr",
    "actor_rollout_ref.actor.entropy_coeff",
    "actor_rollout_ref.actor.loss_agg_mode",
    "actor_rollout_ref.actor.fsdp_config.model_dtype",
    "actor_rollout_ref.rollout.n",
    "actor_rollout_ref.rollout.temperature",
    "critic.optim.lr",
    "data.train_batch_size",
    "builtin.warm_start.steps",
]


@pytest.mark.parametrize("key", SYSTEMS)
def test_speed_knobs_are_systems(key: str) -> None:
    assert table_role(key) == "systems"


@pytest.mark.parametrize("key", ALGORITHM)
def test_math_knobs_are_algorithm(key: str) -> None:
    assert table_role(key) == "algorithm"


@pytest.mark.parametrize("trainer", ["builtin", "verl"])
def test_the_table_knows_every_key_of_both_trainers(trainer: str) -> None:
    keys = get_adapter(trainer).keys()
    assert len(keys) > 50
    assert [k for k in keys if table_role(k) is None] == []


def test_a_key_the_table_does_not_know_needs_a_role(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A newer verl's key that no pattern matches (made here by dropping the table's `trainer.*` rule)."""
    monkeypatch.setattr(roles, "RULES", tuple(r for r in roles.RULES if r[0] != "trainer.*"))
    extra = "  trainer.critic_warmup: {type: int, low: 0, high: 2}"
    path = write_space(tmp_path, extra_params=extra, extra_baseline="  trainer.critic_warmup: 0")
    with pytest.raises(SpaceError) as caught:
        load_space(str(path))
    (problem,) = caught.value.problems
    line = path.read_text().splitlines().index(extra) + 1
    assert problem.startswith(f"{path}:{line}: param `trainer.critic_warmup`: ")
    assert "add `role: systems` or `role: algorithm` to param `trainer.critic_warmup`" in problem
    path.write_text(path.read_text().replace("high: 2}", "high: 2, role: algorithm}"))
    assert load_space(str(path)).param("trainer.critic_warmup").role == "algorithm"


def test_a_space_may_set_a_role_and_a_bad_one_is_named(tmp_path: Path) -> None:
    extra = "  actor_rollout_ref.actor.optim.lr: {type: float, low: 1.0e-5, high: 1.0e-3, log: true, role: systems}"
    path = write_space(tmp_path, extra_params=extra, extra_baseline="  actor_rollout_ref.actor.optim.lr: 1.0e-4")
    assert load_space(str(path)).param("actor_rollout_ref.actor.optim.lr").role == "systems"
    path.write_text(path.read_text().replace("role: systems", "role: speed"))
    with pytest.raises(SpaceError, match=r"small.yaml:\d+: param `actor_rollout_ref.actor.optim.lr`: `role` must be "
                       r"systems or algorithm, got 'speed'"):  # fmt: skip
        load_space(str(path))


VARIABLE = """\
  mini_mult: {type: int, low: 1, high: 2}
derived:
  actor_rollout_ref.actor.ppo_mini_batch_size: {product: [mini_mult, 4]}
"""


def test_a_variable_takes_the_role_of_the_keys_it_derives(tmp_path: Path) -> None:
    path = write_space(tmp_path, extra_params=VARIABLE, extra_baseline="  mini_mult: 2")
    space = load_space(str(path))
    assert space.param("mini_mult").role == "algorithm"  # it sets the mini-batch size
    staged = throughput_stage(space)
    assert staged.param("mini_mult").choices == (2,)  # pinned at its baseline value
    assert held_values(staged)["mini_mult"] == 2
    fsdp3d = load_space("fsdp3d", device="cpu")
    assert fsdp3d.param("actor_token_mult").role == "systems"  # it sets a token budget


def test_an_algorithm_key_derived_from_a_systems_param_is_refused(tmp_path: Path) -> None:
    wrong = VARIABLE.replace("[mini_mult, 4]", "[actor_rollout_ref.actor.ppo_micro_batch_size_per_gpu, 2]")
    path = write_space(tmp_path, extra_params=wrong.replace("  mini_mult: {type: int, low: 1, high: 2}\n", ""))
    with pytest.raises(SpaceError, match=r"small.yaml:\d+: derived `actor_rollout_ref.actor.ppo_mini_batch_size` "
                       r"changes what is learned .* systems param\(s\) `actor_rollout_ref.actor.ppo_micro_batch_size_"
                       r"per_gpu`"):  # fmt: skip
        load_space(str(path))


@pytest.mark.parametrize("path", sorted(SPACE_DIR.glob("*.yaml")), ids=lambda p: p.stem)
def test_the_throughput_stage_of_every_shipped_space_searches_systems_knobs_only(path: Path) -> None:
    space = load_space(str(path), device="cpu")
    staged = throughput_stage(space)
    algorithm = [p.name for p in space.params if p.role == "algorithm"]
    assert algorithm, "each shipped space has algorithm knobs to hold"
    assert all(p.role == "systems" for p in staged.params)
    assert [p.name for p in staged.held] == algorithm
    for name in algorithm:  # held at the file's own baseline value, in the config every trial shares
        assert staged.base[name] == space.baseline[name] == held_values(staged)[name]
    assert throughput_stage(staged) == staged
    assert Space.from_data(json.loads(json.dumps(staged.to_data()))) == staged


def test_a_stored_space_without_roles_takes_them_from_the_table() -> None:
    stored = load_space("fsdp3d", device="cpu").to_data()
    for item in [*stored["params"], *stored["derived"]]:
        del item["role"]
    del stored["held"]
    back = Space.from_data(json.loads(json.dumps(stored)))
    assert {p.name: p.role for p in back.params} == {p.name: p.role for p in load_space("fsdp3d").params}
    assert back.param("algorithm.kl_ctrl.kl_coef").role == "algorithm"
    assert back.param("logprob_token_mult").role == "systems"


def test_an_old_study_that_sampled_an_algorithm_knob_exports_it_at_its_baseline() -> None:
    space = load_space("fsdp3d", device="cpu")  # not staged: as a study stored before the stages holds it
    winner = {**space.baseline, "algorithm.kl_ctrl.kl_coef": 0.661, "actor_rollout_ref.actor.clip_ratio_high": 0.3}
    flat = export_settings(space, get_adapter("builtin"), winner, "cpu")
    assert flat["algorithm.kl_ctrl.kl_coef"] == 0.001
    assert flat["actor_rollout_ref.actor.clip_ratio_high"] == 0.2


def test_a_sweep_holds_the_algorithm_knobs_and_says_so(tmp_path: Path) -> None:
    space, paths = simulated_study(tmp_path / "runs", "held", 8)
    study = load_study(paths)
    ran = stored_space(paths)
    assert [p.name for p in ran.held] == [p.name for p in space.params if p.role == "algorithm"]
    for trial in study.trials:
        assert not set(trial.params) & {p.name for p in ran.held}
        config = to_flat_dict(yaml.safe_load((Path(trial.user_attrs["dir"]) / "config.yaml").read_text()))
        assert config["actor_rollout_ref.actor.ppo_epochs"] == 1
        assert config["algorithm.kl_ctrl.kl_coef"] == 0.001
    _, yaml_path, _ = export(study, paths, ran, get_adapter(ran.trainer), tmp_path / "best.yaml", predicted=True)
    text = yaml_path.read_text()
    assert "left at baseline (algorithm knobs, not searched by the throughput stage): algorithm.kl_ctrl.kl_coef" in text
    best = autotune("best", "held", "--runs-dir", str(tmp_path / "runs"))
    assert "actor_rollout_ref.actor.clip_ratio_high = 0.2 (not searched by the throughput stage" in best.stdout


def test_validate_prints_each_knobs_role() -> None:
    proc = autotune("validate", "--space", "fsdp3d")
    assert proc.returncode == 0, proc.stderr
    lines = [line.split() for line in proc.stdout.splitlines()]
    assert ["systems", "actor_rollout_ref.rollout.tensor_model_parallel_size"] in lines
    assert ["systems", "actor_token_mult"] in lines
    held = next(line for line in lines if line[:2] == ["algorithm", "algorithm.kl_ctrl.kl_coef"])
    assert " ".join(held[2:]) == "not searched by the throughput stage; held at its baseline 0.001"
    assert "14 params (11 searched by the throughput stage):" in proc.stdout
