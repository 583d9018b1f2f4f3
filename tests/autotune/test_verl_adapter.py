"""The verl adapter: overrides checked against verl 0.9's own config, console lines parsed back,
failures classified; an end-to-end sweep against a fake verl (a script, named so)."""

from __future__ import annotations

import math

import pytest

from autotune.adapters import InvalidConfig, get_adapter
from autotune.adapters.verl_console import ConsoleParser, parse_record
from autotune.backends.optuna_backend import OptunaSweep, create_or_load
from autotune.space.loader import SpaceError, load_space
from autotune.study import StudyPaths, load_study, storage_url
from tests.conftest import ROOT

V04 = "step:12 - actor/pg_loss:-0.012 - actor/entropy:1.25 - critic/score/mean:0.5 - perf/throughput:1234.5 - timing_s/gen:3.2"
V05 = (
    "step:7 - actor/pg_loss:np.float64(-0.012345678901234) - actor/entropy:np.float32(1.25) - "
    "perf/throughput:np.float64(1234.5678) - training/global_step:np.int64(7) - val-core/gsm8k/acc:np.float64(0.5)"
)


def test_parser_reads_both_console_formats():
    step, metrics = parse_record(V04)  # type: ignore[misc]
    assert step == 12 and metrics["actor/pg_loss"] == -0.012 and metrics["timing_s/gen"] == 3.2
    step, metrics = parse_record(V05)  # type: ignore[misc]
    assert step == 7
    assert metrics["actor/pg_loss"] == -0.012345678901234
    assert metrics["perf/throughput"] == 1234.5678 and metrics["training/global_step"] == 7
    assert metrics["val-core/gsm8k/acc"] == 0.5


def test_parser_handles_prefixes_wrapping_and_interleaving():
    parser = ConsoleParser()
    text = (
        "\x1b[36m(TaskRunner pid=11)\x1b[0m INFO something unrelated\n"
        f"\x1b[36m(TaskRunner pid=11)\x1b[0m {V05[:70]}\n"
        "(WorkerDict pid=12) step-like noise: not a step line\n"
        f"\x1b[36m(TaskRunner pid=11)\x1b[0m {V05[70:]}\n"
        f"(TaskRunner pid=11) {V04}\n"
        "plain line\n"
    )
    for i in range(0, len(text), 37):  # arrives in arbitrary chunks
        parser.feed(text[i : i + 37])
    parser.close()
    records = dict(parser.records())
    assert set(records) == {7, 12}
    assert records[7]["perf/throughput"] == 1234.5678 and records[7]["actor/pg_loss"] == -0.012345678901234
    assert records[12]["critic/score/mean"] == 0.5


def test_shipped_spaces_compose_with_verl():
    """Every override the shipped spaces can produce (baseline and every categorical choice) composes."""
    for name in ("fsdp3d-8gpu", "verl-vllm-8gpu"):
        space = load_space(name)
        assert space.trainer == "verl"
        assert "perf/comm_share" in space.unmeasured
    space = load_space("fsdp3d", trainer="verl")  # the CPU space's keys are verl's too
    assert space.trainer == "verl" and space.base_config == []


def test_a_misspelled_key_fails_before_launch_with_verls_message(tmp_path):
    adapter = get_adapter("verl")
    with pytest.raises(InvalidConfig, match=r"Could not override 'actor_rollout_ref.actor.ppo_epoch'"):
        adapter.check([], {"actor_rollout_ref.actor.ppo_epoch": 2}, 8)
    with pytest.raises(InvalidConfig, match=r"verl expects"):
        adapter.check([], {"actor_rollout_ref.actor.ppo_epochs": "two"}, 8)
    bad = tmp_path / "bad.yaml"
    bad.write_text("trainer: verl\nbase:\n  actor_rollout_ref.actor.ppo_epoch: 2\n")
    with pytest.raises(
        SpaceError,
        match=r"bad.yaml:3: unknown key `actor_rollout_ref.actor.ppo_epoch` in base; did you mean `actor_rollout_ref.actor.ppo_epochs`",
    ):
        load_space(str(bad))


def test_failure_classification_from_verl_output():
    adapter = get_adapter("verl")
    assert adapter.failure(1, "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate")[0] == "oom"
    reason, detail = adapter.failure(1, "Watchdog caught collective operation timeout: WorkNCCL(SeqNum=1)")
    assert reason == "crash" and detail.startswith("NCCL timeout")
    reason, detail = adapter.failure(1, "ray.exceptions.ActorDiedError: The actor died unexpectedly")
    assert reason == "crash" and detail.startswith("Ray actor died")
    assert adapter.failure(1, "omegaconf.errors.ConfigCompositionException: Could not override 'x'")[0] == "invalid"


FAKE_SPACE = """\
name: fake
trainer: verl
command: [{python}, {script}]
base:
  data.train_batch_size: 64
  actor_rollout_ref.model.path: Qwen/Qwen2.5-0.5B-Instruct
  actor_rollout_ref.rollout.name: vllm
trial: {{steps: 5, warmup_steps: 1, world_size: 8, timeout_s: 60, hang_timeout_s: 4, startup_grace_s: 20}}
params:
  actor_rollout_ref.actor.ppo_micro_batch_size_per_gpu: {{type: categorical, choices: [2, 4, 8]}}
  env.FAKE_VERL_MODE: {{type: categorical, choices: [ok, oom, nccl, actor_died, hang]}}
objectives: [{{metric: perf/throughput, direction: maximize, reducer: median}}]
limits:
  - {{metric: actor/reward_kl_penalty, reducer: last, max: 0.05}}
  - {{metric: perf/comm_share, max: 0.1}}
  - {{metric: memory, reducer: max, max_ratio_to_baseline: 1.2}}
baseline:
  actor_rollout_ref.actor.ppo_micro_batch_size_per_gpu: 4
  env.FAKE_VERL_MODE: ok
sampler: {{seed: 0, n_startup_trials: 10}}
trials: 6
"""


def test_end_to_end_sweep_against_a_fake_verl_command(tmp_path):
    import sys

    path = tmp_path / "fake.yaml"
    path.write_text(FAKE_SPACE.format(python=sys.executable, script=ROOT / "tests" / "autotune" / "fake_verl.py"))
    space = load_space(str(path))
    adapter = get_adapter("verl", space.command)
    paths = StudyPaths(tmp_path / "runs", "fake")
    url = storage_url(paths, None)
    study = create_or_load(space, paths, url)
    for extra in ({"env.FAKE_VERL_MODE": m} for m in ("oom", "nccl", "actor_died", "hang")):
        study.enqueue_trial({**space.baseline, **extra})
    study.enqueue_trial({**space.baseline, "actor_rollout_ref.actor.ppo_micro_batch_size_per_gpu": 8})
    OptunaSweep(space, adapter, paths, url, n_trials=6).run()
    trials = {
        (t.params["env.FAKE_VERL_MODE"], t.params["actor_rollout_ref.actor.ppo_micro_batch_size_per_gpu"]): t
        for t in load_study(paths).get_trials()
    }
    base = trials[("ok", 4)].user_attrs
    assert base["outcome"] == "complete", base
    assert base["steps"] == 5
    assert math.isclose(base["key_metrics"]["throughput"], 1400, rel_tol=0.02)
    assert any("not logged by the verl trainer" in n for n in base["notes"])  # comm share is marked missing
    assert trials[("ok", 8)].user_attrs["outcome"] == "complete"
    assert trials[("ok", 8)].values[0] > base["key_metrics"]["throughput"]
    expected = {
        "oom": ("oom", "CUDA out of memory"),
        "nccl": ("crash", "NCCL timeout"),
        "actor_died": ("crash", "Ray actor died"),
        "hang": ("hang", "no new step"),
    }
    for mode, (reason, detail) in expected.items():
        attrs = trials[(mode, 4)].user_attrs
        assert attrs["reason"] == reason and detail in attrs["detail"], (mode, attrs)
    command = (paths.trial_dir(0) / "command").read_text()
    assert (
        "trainer.total_training_steps=5" in command
        and "+ray_kwargs.ray_init.runtime_env.env_vars.FAKE_VERL_MODE=ok" in command
    )


@pytest.mark.gpu
def test_real_verl_trial_on_a_gpu_node():
    """A real verl job needs GPUs (and a model and data on the node); run with `pytest -m gpu` there."""
    import torch

    if not torch.cuda.is_available():
        pytest.skip("needs a CUDA GPU")
    space = load_space("fsdp3d-8gpu")
    assert space.trainer == "verl"
