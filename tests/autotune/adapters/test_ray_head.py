"""One Ray head per sweep for verl trials: what a joining trial's overrides become (fast), and two real
verl trials on one head, each seeing its own environment and config and none of the other's (slow)."""

from __future__ import annotations

import dataclasses
import json
import re

import pytest

from autotune.adapters import get_adapter, ray_head
from autotune.adapters.verl_config import ENV_PREFIX
from autotune.adapters.verl_trainer import joined, shares_ray
from autotune.space.loader import load_space
from autotune.trial.evaluation import evaluate


def test_a_joining_trial_drops_cluster_start_settings_and_carries_its_environment():
    lines = [
        "trainer.device=cpu",
        "+ray_kwargs.ray_init.num_gpus=2",
        "ray_kwargs.ray_init.num_cpus=64",
        "+ray_kwargs.ray_init.include_dashboard=false",
        "+ray_kwargs.ray_init._temp_dir=/tmp/x",
        f"+{ENV_PREFIX}NCCL_PROTO=Simple",
        "trainer.total_training_steps=5",
    ]
    out = joined(lines, "127.0.0.1:6380", {"NCCL_PROTO": "LL", "VERL_PLATFORM": "cpu", "PYTHONPATH": "/a b"})
    assert out == [
        "trainer.device=cpu",
        f"+{ENV_PREFIX}NCCL_PROTO=Simple",  # the trial's own value stays, and once
        "trainer.total_training_steps=5",
        f"+{ENV_PREFIX}VERL_PLATFORM=cpu",
        f"+{ENV_PREFIX}PYTHONPATH='/a b'",
        "+ray_kwargs.ray_init.address=127.0.0.1:6380",
    ]


def test_only_cpu_plugin_trials_without_their_own_cluster_share_the_head(monkeypatch):
    monkeypatch.delenv("AUTOTUNE_SHARED_RAY", raising=False)
    assert shares_ray({"trainer.device": "cpu"})
    assert not shares_ray({"trainer.device": "cuda"})
    assert not shares_ray({"trainer.device": "cpu", "ray_kwargs.ray_init.address": "10.0.0.1:6379"})
    monkeypatch.setenv("AUTOTUNE_SHARED_RAY", "0")
    assert not shares_ray({"trainer.device": "cpu"})


PROBE = """
import json, os
from verl_cpu.reward import compute_score as score

def compute_score(*args, **kwargs):
    seen = {k: os.environ.get(k) for k in ("AUTOTUNE_PROBE", "AUTOTUNE_ONLY_FIRST", "VERL_PLATFORM", "OMP_NUM_THREADS")}
    path = os.path.join(os.environ["AUTOTUNE_PROBE_DIR"], f"{os.environ['AUTOTUNE_PROBE']}-{os.getpid()}.json")
    with open(path, "w") as f:
        json.dump(seen, f)
    return score(*args, **kwargs)
"""


@pytest.mark.slow
def test_two_real_verl_trials_on_one_head_each_see_their_own_env_and_config(tmp_path, monkeypatch):
    """The head is started by this process, whose environment has none of the trials' variables: what a
    trial's workers see came through its own job's runtime env. The first trial sets a variable the second
    does not, and a different probe value and KL coefficient; the second's reward worker (a Ray actor, a
    fresh process) sees only its own. The head is stopped by process group, leaving nothing behind."""
    monkeypatch.delenv("AUTOTUNE_SHARED_RAY", raising=False)
    for name in ("VERL_PLATFORM", "AUTOTUNE_PROBE", "AUTOTUNE_ONLY_FIRST"):
        monkeypatch.delenv(name, raising=False)
    probe = tmp_path / "probe.py"
    probe.write_text(PROBE)
    (tmp_path / "seen").mkdir()
    space = load_space("verl-cpu")
    space = dataclasses.replace(
        space,
        base={**space.base, "reward.custom_reward_function.path": str(probe)},
        trial=dataclasses.replace(space.trial, steps=2, warmup_steps=0, world_size=1),
    )
    adapter = get_adapter("verl", space.command)
    common = {"AUTOTUNE_PROBE_DIR": str(tmp_path / "seen")}
    trials = [
        ("first", {**common, "AUTOTUNE_PROBE": "first", "AUTOTUNE_ONLY_FIRST": "yes"}, 0.011),
        ("second", {**common, "AUTOTUNE_PROBE": "second"}, 0.022),
    ]
    try:
        for name, env, coef in trials:
            params = {**space.baseline, "actor_rollout_ref.actor.kl_loss_coef": coef}
            ev = evaluate(dataclasses.replace(space, env=env), adapter, params, tmp_path / name, None)
            assert ev.outcome == "complete", (ev.reason, ev.detail)
        head = ray_head.current()
        assert head is not None and head.proc.poll() is None
        assert len(ray_head.members(head)) > 3  # the head, its GCS, raylet, agents
    finally:
        ray_head.stop()
    assert ray_head.members(head) == []  # its GCS, raylet and workers: its whole session
    for name, _, coef in trials:
        command = (tmp_path / name / "command").read_text()
        assert f"ray_kwargs.ray_init.address={head.address}" in command and "num_gpus" not in command
        stdout = (tmp_path / name / "stdout.log").read_text()
        printed = {float(v) for v in re.findall(r"'kl_loss_coef': ([0-9.e-]+)", stdout)}
        assert printed == {coef}  # the TaskRunner (a Ray worker) printed this trial's config
    seen = {p.name: json.loads(p.read_text()) for p in (tmp_path / "seen").iterdir()}
    first = {n: s for n, s in seen.items() if n.startswith("first-")}
    second = {n: s for n, s in seen.items() if n.startswith("second-")}
    assert first and second
    assert {s["AUTOTUNE_PROBE"] for s in first.values()} == {"first"}
    assert {s["AUTOTUNE_ONLY_FIRST"] for s in first.values()} == {"yes"}
    assert {s["AUTOTUNE_PROBE"] for s in second.values()} == {"second"}
    assert {s["AUTOTUNE_ONLY_FIRST"] for s in second.values()} == {None}  # not inherited from the first trial
    assert all(s["VERL_PLATFORM"] == "cpu" and s["OMP_NUM_THREADS"] == "1" for s in seen.values())
    pids = lambda group: {n.rsplit("-", 1)[1] for n in group}  # noqa: E731
    assert not pids(first) & pids(second)  # no worker process served both trials
