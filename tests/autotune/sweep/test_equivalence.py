"""The equivalence check on real trainer processes (world 2, the fsdp3d space): systems changes keep the
training math on a fixed batch; a math-changing knob wrongly marked `systems` fails it, by name."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import pytest
import torch

from autotune.adapters import get_adapter
from autotune.space.loader import load_space
from autotune.space.sampling import TrialConfig
from autotune.space.stages import throughput_stage
from autotune.sweep import equivalence as eq
from autotune.trial.evaluation import trial_config

SPACE = throughput_stage(load_space("fsdp3d", device="cpu"))
ADAPTER = get_adapter("builtin")
WORLD = SPACE.trial.world_size
CPU = eq.TOLERANCES["cpu"]
TP = "actor_rollout_ref.rollout.tensor_model_parallel_size"
MICRO = "actor_rollout_ref.actor.ppo_micro_batch_size_per_gpu"
DYNAMIC = "actor_rollout_ref.actor.use_dynamic_bsz"
RESHARD = "actor_rollout_ref.actor.fsdp_config.reshard_after_forward"
PREFETCH = "actor_rollout_ref.actor.fsdp_config.forward_prefetch"
MATH = ("rollout_logp", "old_logp", "ref_logp", "new_logp", "advantages", "values", "new_values")
LOSSES = ("actor/pg_loss", "actor/kl_loss", "actor/grad_norm", "critic/vf_loss", "critic/grad_norm")


def config(**changes: Any) -> TrialConfig:
    params = {**SPACE.baseline, **changes}
    if params.get(DYNAMIC):
        params.pop(MICRO, None)  # the micro-batch size is a param only without dynamic batching
    return trial_config(SPACE, ADAPTER, params)


@pytest.fixture(scope="module")
def baseline(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    return eq.measure(SPACE.base_config, config(), WORLD, tmp_path_factory.mktemp("eq") / "baseline")


def test_compare_names_each_metric_outside_the_tolerance() -> None:
    tol = eq.Tolerance(rtol=1e-3, atol=1e-4, basis="test")
    a = {"tensors": {"logp": [[-2.0, -0.5], [0.0, -1.0]]}, "scalars": {"loss": 0.25, "norm": 3.0}}
    b = {"tensors": {"logp": [[-2.0, -0.5008], [0.0, -1.0]]}, "scalars": {"loss": 0.25, "norm": 3.01}, "x": 1}
    compared, differences, worst = eq.compare(a, b, tol)
    assert compared == ["logp", "loss", "norm"]
    assert [d.metric for d in differences] == ["logp", "norm"]
    logp, norm = differences
    assert math.isclose(logp.max_abs, 8e-4, rel_tol=1e-9) and logp.baseline == -0.5
    assert math.isclose(logp.allowed, 1e-4 + 1e-3 * 0.5)
    assert math.isclose(norm.max_abs, 0.01, rel_tol=1e-9) and math.isclose(norm.allowed, 1e-4 + 3e-3)
    assert worst["loss"] == 0.0
    b["tensors"]["logp"][0][1] = -0.5004  # 4e-4 <= 1e-4 + 5e-4: inside
    assert [d.metric for d in eq.compare(a, b, tol)[1]] == ["norm"]


def test_the_demo_winners_systems_changes_keep_the_math(baseline: dict[str, Any], tmp_path: Path) -> None:
    """Rollout TP 1, dynamic batching with its token budgets, no resharding, prefetch: all at once."""
    winner = config(
        **{TP: 1, DYNAMIC: True, "actor_token_mult": 3.0, "logprob_token_mult": 4.0, RESHARD: False, PREFETCH: True}
    )
    measured = eq.measure(SPACE.base_config, winner, WORLD, tmp_path)
    compared, differences, worst = eq.compare(baseline, measured, CPU)
    assert differences == []
    assert {*MATH, *LOSSES} <= set(compared)
    assert worst["rollout_logp"] > 0  # TP's all-reduce sums in another order: real numbers were compared
    assert max(worst.values()) < CPU.atol
    for run in (baseline, measured):  # the rollout engine scores the fixed responses as the actor does
        rollout, old = (torch.tensor(run["tensors"][k]) for k in ("rollout_logp", "old_logp"))
        assert float(old.abs().max()) > 1.0
        torch.testing.assert_close(rollout, old, rtol=CPU.rtol, atol=CPU.atol)


@pytest.mark.slow
@pytest.mark.parametrize(
    "changes",
    [
        {TP: 1},
        {MICRO: 2},
        {MICRO: 8},
        {DYNAMIC: True, "actor_token_mult": 2.0, "logprob_token_mult": 2.0},
        {DYNAMIC: True, "actor_token_mult": 6.0, "logprob_token_mult": 8.0},
        {RESHARD: False},
        {PREFETCH: True},
    ],
    ids=lambda c: ",".join(f"{k.rsplit('.', 1)[-1]}={v}" for k, v in c.items()),
)
def test_every_shipped_systems_knob_keeps_the_math(
    baseline: dict[str, Any], tmp_path: Path, changes: dict[str, Any]
) -> None:
    measured = eq.measure(SPACE.base_config, config(**changes), WORLD, tmp_path)
    _, differences, worst = eq.compare(baseline, measured, CPU)
    assert differences == []
    print(changes, {k: f"{v:.2g}" for k, v in worst.items()})  # the magnitudes the README quotes
    if set(changes) <= {RESHARD, PREFETCH}:  # the same sums in the same order: bitwise equal, as the README says
        assert max(worst.values()) == 0, worst


@pytest.mark.parametrize(
    ("key", "value", "moved"),
    [
        ("actor_rollout_ref.actor.ppo_epochs", 2, {"new_logp", "actor/grad_norm", "actor/pg_loss"}),
        ("actor_rollout_ref.actor.optim.lr", 1e-3, {"new_logp"}),
    ],
)
def test_a_math_knob_fails_the_check(
    baseline: dict[str, Any], tmp_path: Path, key: str, value: Any, moved: set[str]
) -> None:
    winner = config()
    winner.flat[key] = value
    measured = eq.measure(SPACE.base_config, winner, WORLD, tmp_path)
    differences = eq.compare(baseline, measured, CPU)[1]
    print(key, value, [d.describe() for d in differences])  # the magnitudes the README quotes
    assert moved <= {d.metric for d in differences}
    assert {"rollout_logp", "old_logp", "ref_logp"}.isdisjoint(d.metric for d in differences)  # before the update


def test_the_critics_update_and_an_actor_behind_critic_warmup_are_compared(
    baseline: dict[str, Any], tmp_path: Path
) -> None:
    """The critic's values after its update are compared (a dropped last critic step passed with every metric equal),
    and with `trainer.critic_warmup: 1` the actor's update still is (its metrics were gone and nothing said so:
    audit 26 F4, F6). Measured: the update moved the critic's values, and the warm-up config updates the actor."""
    before, after = (torch.tensor(baseline["tensors"][k]) for k in ("values", "new_values"))
    assert float((after - before).abs().max()) > 1e-3  # an update happened between the two
    warm = config()
    warm.flat["trainer.critic_warmup"] = 1
    measured = eq.measure(SPACE.base_config, warm, WORLD, tmp_path)
    assert {"actor/grad_norm", "actor/pg_loss"} <= set(measured["scalars"])
    assert measured["tensors"]["new_logp"] != measured["tensors"]["old_logp"]  # the actor moved


def test_ppo_epochs_wrongly_marked_systems_is_reported_as_changing_the_math(tmp_path: Path) -> None:
    """The whole path a study's winner takes (`export --check`): the space says `role: systems`, the
    throughput stage searches it, and the check names what it moved and by how much."""
    text = Path(SPACE.path).read_text()
    line = "actor_rollout_ref.actor.ppo_epochs: {type: int, low: 1, high: 2}"
    wrong = tmp_path / "wrong.yaml"
    wrong.write_text(text.replace(line, line[:-1] + ", role: systems}"))
    space = throughput_stage(load_space(str(wrong), device="cpu"))
    assert space.param("actor_rollout_ref.actor.ppo_epochs").role == "systems"
    winner = {**space.baseline, "actor_rollout_ref.actor.ppo_epochs": 2}
    result = eq.check_winner(space, ADAPTER, dict(space.baseline), winner, tmp_path / "check")
    assert result.outcome == "changes_math" and not result.ok
    assert result.changes == {"actor_rollout_ref.actor.ppo_epochs": [1, 2]}
    lines = result.summary()
    assert lines[0].startswith("equivalence check FAILED: the changes (actor_rollout_ref.actor.ppo_epochs: 1 -> 2)")
    grad = next(d for d in result.differences if d.metric == "actor/grad_norm")
    assert (
        f"  actor/grad_norm differs by {grad.max_abs:.3g} (allowed {grad.allowed:.3g} at the baseline's "
        in "\n".join(lines)
    )
    assert grad.max_abs > 0.1  # two epochs: a second pass of gradients, not rounding
    result.save(tmp_path / "equivalence.json")
    assert eq.EquivalenceResult.load(tmp_path / "equivalence.json") == result


def test_the_check_is_skipped_for_the_verl_trainer_and_needs_no_run_without_changes(tmp_path: Path) -> None:
    verl = throughput_stage(load_space("verl-cpu", device="cpu"))
    skipped = eq.check_winner(verl, ADAPTER, verl.baseline, verl.baseline, tmp_path)
    assert skipped.outcome == "not_run" and skipped.ok
    assert skipped.summary() == [
        "equivalence check not run: it runs on the built-in trainer; space `verl-cpu` runs the verl trainer"
    ]
    same = eq.check_winner(SPACE, ADAPTER, SPACE.baseline, dict(SPACE.baseline), tmp_path)
    assert same.outcome == "equivalent" and same.detail == "the systems values that ship are the baseline's"
    assert same.summary() == ["equivalence check: nothing to compare, the systems values that ship are the baseline's"]
    assert not list(tmp_path.iterdir())  # nothing was launched


def test_a_check_that_could_not_run_says_so_and_replaces_the_kept_result(tmp_path: Path) -> None:
    """A winner whose measurement crashed was marked "it changes the math", beside an equivalence.json that still
    said `equivalent`; a measurement past its time ended in a traceback (audit 26 F2)."""
    import dataclasses

    from autotune.study.equivalence_result import EquivalenceResult, shipping_verdict
    from autotune.study.storage import StudyPaths

    paths = StudyPaths(tmp_path / "runs", "study")
    paths.root.mkdir(parents=True)
    stale = EquivalenceResult("equivalent", {MICRO: [4, 8]}, CPU, winner_params={**SPACE.baseline, TP: 4})
    stale.save(eq.result_file(paths))
    # a rollout TP of 4 at world 2: the trainer refuses it at start-up
    result = eq.checked_winner(SPACE, ADAPTER, paths, {**SPACE.baseline, TP: 4}, "cpu")
    assert result.outcome == "could_not_run" and not result.ok, result
    assert (
        result.headline.startswith("the equivalence check could not run (")
        and "must divide the world size 2)" in result.headline
    )
    assert "math" not in result.headline
    kept = shipping_verdict(paths, {**SPACE.baseline, TP: 4})
    assert kept is not None and dataclasses.replace(kept) == result  # the stale `equivalent` is gone
    with pytest.raises(eq.EquivalenceRunFailed, match=r": no result within 0 s$"):
        eq.measure(SPACE.base_config, config(), WORLD, tmp_path / "slow", timeout_s=0.01)


def test_a_metric_one_side_lacks_is_said_so_and_kept_as_strict_json(tmp_path: Path) -> None:
    """It read "differs by inf (allowed 0 at the baseline's nan)" and wrote Infinity into the file (audit 26 F9)."""
    import json

    a = {"tensors": {"values": [[1.0, 2.0]]}, "scalars": {"critic/vf_loss": 0.5}}
    b = {"tensors": {"values": [[1.0, 2.0, 3.0]]}, "scalars": {}}
    compared, differences, worst = eq.compare(a, b, CPU)
    said = [d.describe() for d in differences]
    assert said == [
        "values: of shape (1, 2) at the baseline, (1, 3) in the winner",
        "critic/vf_loss: computed by one only (not by the winner)",
    ]
    result = eq.EquivalenceResult("changes_math", {MICRO: [4, 8]}, CPU, compared, differences, worst)
    result.save(tmp_path / "equivalence.json")
    json.loads((tmp_path / "equivalence.json").read_text(), parse_constant=lambda c: pytest.fail(f"not JSON: {c}"))
    again = eq.EquivalenceResult.load(tmp_path / "equivalence.json")
    assert [d.describe() for d in again.differences] == said


def test_a_failed_check_of_several_changes_names_the_one_that_moves_the_math(tmp_path: Path) -> None:
    """A failure named metrics, never the knob: with micro-batch 8 (which keeps the math) and two PPO epochs wrongly
    marked `systems` shipped together, each is measured alone and only the epochs are named (audit 26 F8)."""
    from autotune.study.storage import StudyPaths

    text = Path(SPACE.path).read_text()
    line = "actor_rollout_ref.actor.ppo_epochs: {type: int, low: 1, high: 2}"
    wrong = tmp_path / "wrong.yaml"
    wrong.write_text(text.replace(line, line[:-1] + ", role: systems}"))
    space = throughput_stage(load_space(str(wrong), device="cpu"))
    paths = StudyPaths(tmp_path / "runs", "wrong")
    paths.root.mkdir(parents=True)
    winner = {**space.baseline, "actor_rollout_ref.actor.ppo_epochs": 2, MICRO: 8}
    result = eq.checked_winner(space, ADAPTER, paths, winner, "cpu")
    assert result.outcome == "changes_math" and list(result.moved_by) == ["ppo_epochs=2"], result.moved_by
    assert result.moved_by["ppo_epochs=2"].startswith(("new_logp differs by", "actor/", "critic/"))
    assert "alone, ppo_epochs=2 moves it" in result.headline
    assert any(line.startswith("  alone, ppo_epochs=2 moves it: ") for line in result.summary())


def test_a_key_the_winner_leaves_unset_reads_unset_not_none() -> None:
    """Dynamic batching leaves the fixed micro-batch unset: the passed check's line (in `best`, the report's summary,
    the export's header) read `ppo_micro_batch_size_per_gpu: 2 -> None` (audit 38 F14). No run: the result is given."""
    from autotune.study.equivalence_result import EquivalenceResult

    result = EquivalenceResult("equivalent", {MICRO: [2, None], DYNAMIC: [False, True]}, CPU, ["loss"], [], {"loss": 0})
    line = result.summary()[0]
    assert f"({MICRO}: 2 -> unset, {DYNAMIC}: False -> True)" in line and "None" not in line, line
