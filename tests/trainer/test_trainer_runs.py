"""The trainer in real processes with real metrics: ranks forked from the warm parent as a sweep's
trials start, and cold as users run it by hand (torchrun + gloo) where the launcher itself is under
test (the kill of one rank; tests/trainer/test_teardown.py runs cold world-2 jobs to the end)."""

from __future__ import annotations

import statistics
import subprocess
import sys
import time

import psutil
import pytest

from tests.conftest import ROOT, run_trainer, trainer_env

REQUIRED_METRICS = [
    *(
        f"timing_s/{p}"
        for p in (
            "gen",
            "reshard",
            "old_log_prob",
            "ref",
            "values",
            "adv",
            "update_critic",
            "update_actor",
            "step",
        )
    ),
    "perf/throughput",
    "perf/time_per_step",
    "perf/mfu/actor",
    "perf/cpu_memory_used_gb",
    "perf/tensor_memory_gb",
    "perf/comm_share",
    "timing_s/comm",
    *(f"actor/{k}" for k in ("ppo_kl", "kl_loss", "kl_coef", "pg_loss", "pg_clipfrac", "entropy", "grad_norm")),
    "actor/reward_kl_penalty",
    "critic/score/mean",
    "critic/rewards/mean",
    "critic/vf_loss",
    "response_length/mean",
]

GRPO = (
    "algorithm.adv_estimator=grpo",
    "actor_rollout_ref.rollout.n=4",
    "data.train_batch_size=16",
    "actor_rollout_ref.actor.ppo_mini_batch_size=8",
)


def test_world2_twenty_steps_stream_every_metric(tmp_path):
    start = time.monotonic()
    run = run_trainer(tmp_path, "trainer.total_training_steps=20", world=2)
    wall = time.monotonic() - start
    assert run.returncode == 0, run.stderr[-3000:]
    print(f"world 2, 20 steps: {wall:.1f} s wall")
    assert wall < 60
    lines = [line for line in run.stdout.splitlines() if line.startswith("step:")]
    assert len(lines) == 20 and lines[0].startswith("step:1 - ")
    assert " - perf/throughput:" in lines[0]
    assert len(run.metrics) == 20
    for row in run.metrics:
        missing = [k for k in REQUIRED_METRICS if k not in row]
        assert not missing, missing
    header = next(line for line in run.stdout.splitlines() if line.startswith("trainer: run header"))
    for field in ("world_size", "backend", "peak_flops_per_device", "config_hash", "versions", "inert_knobs"):
        assert f'"{field}"' in header
    assert '"world_size": 2' in header and '"backend": "gloo"' in header
    last = run.metrics[-1]
    assert 0 < last["perf/comm_share"] < 1
    assert last["timing_s/comm/all_gather"] > 0 and last["timing_s/comm/reduce_scatter"] > 0
    assert 0 < last["perf/mfu/actor"] < 1


@pytest.mark.parametrize("estimator", ["gae", "grpo"])
@pytest.mark.parametrize("seed", [1, pytest.param(2, marks=pytest.mark.slow)])  # the second seed: make test-slow
def test_ppo_improves_the_score(tmp_path, estimator, seed):
    extra = GRPO if estimator == "grpo" else ()
    run = run_trainer(tmp_path, "trainer.total_training_steps=40", f"data.seed={seed}", *extra)
    assert run.returncode == 0, run.stderr[-3000:]
    score = run.series("critic/score/mean")
    early, late = statistics.mean(score[:10]), statistics.mean(score[30:40])
    print(f"{estimator} seed {seed}: score steps 1-10 {early:.3f} -> steps 31-40 {late:.3f}")
    assert late > early + 0.02


def _kl_after(tmp_path, *overrides: str) -> float:
    run = run_trainer(tmp_path, "trainer.total_training_steps=30", "data.seed=3", *overrides)
    assert run.returncode == 0, run.stderr[-3000:]
    return statistics.mean(run.series("actor/kl_loss")[-5:])


@pytest.mark.slow  # two 40-step runs; the KL estimators and penalties are checked against references in test_algos
def test_larger_kl_loss_coef_keeps_the_policy_closer(tmp_path):
    weak = _kl_after(tmp_path, "actor_rollout_ref.actor.use_kl_loss=true", "actor_rollout_ref.actor.kl_loss_coef=0.001")
    strong = _kl_after(tmp_path, "actor_rollout_ref.actor.use_kl_loss=true", "actor_rollout_ref.actor.kl_loss_coef=1.0")
    print(f"KL to reference after 30 steps: kl_loss_coef 0.001 -> {weak:.4f}, 1.0 -> {strong:.4f}")
    assert strong < 0.7 * weak


@pytest.mark.slow  # two 40-step runs; the KL estimators and penalties are checked against references in test_algos
def test_larger_in_reward_kl_coef_keeps_the_policy_closer(tmp_path):
    weak = _kl_after(tmp_path, "algorithm.use_kl_in_reward=true", "algorithm.kl_ctrl.kl_coef=0.001")
    strong = _kl_after(tmp_path, "algorithm.use_kl_in_reward=true", "algorithm.kl_ctrl.kl_coef=0.5")
    print(f"KL to reference after 30 steps: kl_ctrl.kl_coef 0.001 -> {weak:.4f}, 0.5 -> {strong:.4f}")
    assert strong < 0.7 * weak


def test_world1_and_world2_agree_on_the_first_step(tmp_path):
    one = run_trainer(tmp_path, "trainer.total_training_steps=1")
    two = run_trainer(tmp_path, "trainer.total_training_steps=1", world=2)
    assert one.returncode == 0 and two.returncode == 0, one.stderr[-2000:] + two.stderr[-2000:]
    for key in ("actor/pg_loss", "actor/kl_loss", "critic/vf_loss", "actor/grad_norm", "critic/score/mean"):
        assert one.metrics[0][key] == pytest.approx(two.metrics[0][key], rel=1e-4, abs=1e-6), key


def test_same_seed_same_trajectory(tmp_path):
    a = run_trainer(tmp_path, "trainer.total_training_steps=3", "data.seed=11")
    b = run_trainer(tmp_path, "trainer.total_training_steps=3", "data.seed=11")
    c = run_trainer(tmp_path, "trainer.total_training_steps=3", "data.seed=12")
    assert a.series("critic/score/mean") == b.series("critic/score/mean")
    assert a.series("actor/kl_loss") == b.series("actor/kl_loss")
    assert a.series("critic/score/mean") != c.series("critic/score/mean")


@pytest.mark.parametrize(
    "kind, code, reason",
    [("nan", 3, "nan"), ("oom", 4, "oom"), ("crash", 1, "crash")],
)
def test_injected_failures_exit_with_distinct_codes(tmp_path, kind, code, reason):
    start = time.monotonic()
    run = run_trainer(
        tmp_path, "trainer.total_training_steps=10", f"builtin.fault.kind={kind}", "builtin.fault.at_step=2"
    )
    assert run.returncode == code, run.stderr[-2000:]
    assert f"trainer: FAILED {reason} rank=0 step=2:" in run.stderr
    assert len(run.metrics) == 1  # step 1 was written before the failure
    assert time.monotonic() - start < 60


def test_nan_on_one_rank_stops_every_rank(tmp_path):
    run = run_trainer(
        tmp_path,
        "trainer.total_training_steps=10",
        "builtin.fault.kind=nan",
        "builtin.fault.at_step=2",
        "builtin.fault.rank=1",
        world=2,
    )
    assert run.returncode != 0
    assert "trainer: FAILED nan rank=0 step=2" in run.stderr and "trainer: FAILED nan rank=1 step=2" in run.stderr


def _rank_process(launcher: psutil.Process, rank: int) -> psutil.Process | None:
    for child in launcher.children(recursive=True):
        try:
            if child.environ().get("RANK") == str(rank) and "trainer" in " ".join(child.cmdline()):
                return child
        except psutil.Error:
            continue
    return None


def test_killing_one_rank_ends_the_job_within_seconds(tmp_path):
    cmd = [
        sys.executable,
        "-m",
        "torch.distributed.run",
        "--standalone",
        "--nproc_per_node=2",
        "-m",
        "trainer",
        "trainer.total_training_steps=200",
    ]
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=trainer_env(), cwd=ROOT)
    try:
        assert proc.stdout is not None
        for line in proc.stdout:
            if line.startswith("step:2 "):
                break
        victim = _rank_process(psutil.Process(proc.pid), 1)
        assert victim is not None
        victim.kill()
        killed = time.monotonic()
        _, stderr = proc.communicate(timeout=30)
        elapsed = time.monotonic() - killed
    finally:
        if proc.poll() is None:
            proc.kill()
    print(f"job ended {elapsed:.1f} s after rank 1 was killed")
    assert proc.returncode != 0
    assert elapsed < 15
    assert "trainer: FAILED peer_lost rank=0" in stderr


def test_a_local_checkpoint_loads_offline(tmp_path):
    """actor_rollout_ref.model.path: a local Hugging Face folder, read without any network."""
    from trainer.config.loader import load_config
    from trainer.model import build_policy

    build_policy(load_config(), seed=5).save_pretrained(tmp_path / "ckpt")
    run = run_trainer(tmp_path, "trainer.total_training_steps=2", f"actor_rollout_ref.model.path={tmp_path / 'ckpt'}")
    assert run.returncode == 0, run.stderr[-2000:]
    assert len(run.metrics) == 2
    missing = run_trainer(
        tmp_path, "trainer.total_training_steps=1", f"actor_rollout_ref.model.path={tmp_path / 'nope'}"
    )
    assert missing.returncode == 2 and "cannot read" in missing.stderr
