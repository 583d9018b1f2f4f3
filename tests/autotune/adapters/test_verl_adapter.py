"""The verl adapter against real verl 0.9: a real `verl.trainer.main_ppo` trial on the CPU plugin and a
real bad override; overrides composed and validated by verl's own code; the console parser on text
captured from real runs and on verl logs pasted in public issues; failure rules. A fake verl script
(named so) only stands in for CUDA OOM and NCCL errors, which cannot happen on this machine."""

from __future__ import annotations

import dataclasses
import json
import math
import re
import statistics
import sys
from pathlib import Path

import pytest
import yaml

from autotune.adapters import InvalidConfig, get_adapter
from autotune.adapters.verl_config import overrides, render_yaml
from autotune.adapters.verl_console import ConsoleParser, parse_record
from autotune.export.winner import export_settings
from autotune.space.loader import SpaceError, load_space
from autotune.study.storage import StudyPaths, load_study, storage_url
from autotune.sweep.backends.base import BackendOptions
from autotune.sweep.backends.lifecycle import create_or_load
from autotune.sweep.backends.optuna_backend import OptunaBackend
from autotune.trial.evaluation import evaluate
from tests.conftest import ROOT

LOGS = Path(__file__).parents[1] / "verl_logs"
V04 = "step:12 - actor/pg_loss:-0.012 - actor/entropy:1.25 - critic/score/mean:0.5 - perf/throughput:1234.5 - timing_s/gen:3.2"
V05 = (
    "step:7 - actor/pg_loss:np.float64(-0.012345678901234) - actor/entropy:np.float32(1.25) - "
    "perf/throughput:np.float64(1234.5678) - training/global_step:np.int64(7) - val-core/gsm8k/acc:np.float64(0.5)"
)


def parse(text: str, chunk: int = 0) -> dict[int, dict[str, float]]:
    parser = ConsoleParser()
    if chunk:
        for i in range(0, len(text), chunk):  # arrives in arbitrary pieces
            parser.feed(text[i : i + chunk])
    else:
        parser.feed(text)
    parser.close()
    return dict(parser.records())


def public_sections() -> dict[str, str]:
    text = (LOGS / "public.txt").read_text()
    parts = re.split(r"^=== (.+) ===$", text, flags=re.M)
    return {parts[i]: parts[i + 1].lstrip("\n") for i in range(1, len(parts), 2)}


def test_parser_reads_both_console_formats():
    step, metrics = parse_record(V04)  # type: ignore[misc]
    assert step == 12 and metrics["actor/pg_loss"] == -0.012 and metrics["timing_s/gen"] == 3.2
    step, metrics = parse_record(V05)  # type: ignore[misc]
    assert step == 7
    assert metrics["actor/pg_loss"] == -0.012345678901234
    assert metrics["perf/throughput"] == 1234.5678 and metrics["training/global_step"] == 7
    assert metrics["val-core/gsm8k/acc"] == 0.5


def test_parser_on_console_captured_from_a_real_cpu_run():
    records = parse((LOGS / "captured_cpu.txt").read_text(), chunk=61)
    assert sorted(records) == [1, 2, 3]
    # numbers read off the captured file by hand
    assert records[2]["perf/throughput"] == 36.9797565446316
    assert records[3]["perf/throughput"] == 35.951198763200296
    assert records[2]["timing_s/update_weights"] == 0.10425491499995587
    assert records[2]["timing_s/reshard"] == 0.10425491499995587  # verl 0.9's weight sync, builtin's name
    assert records[1]["num_turns/mean"] == 2.0  # np.float64(2.0)
    assert records[3]["actor/kl_loss"] == 0.0 and "actor/perf/max_memory_allocated_gb" in records[3]
    assert "Training Progress" not in str(records) and len(records[1]) == len(records[2])  # no stray fragments


def test_parser_on_public_verl_logs():
    sections = public_sections()
    by_url = {url.split("/")[-1] if url.startswith("https") else "notes": text for url, text in sections.items()}
    # 1208: `(TaskRunner pid=N)` + key:value format, wrapped mid-key without the prefix on the second half
    rec = parse(by_url["1208"])[2]
    assert rec["response_length/clip_ratio"] == 0.004 and rec["timing_s/step"] == 96.551
    assert rec["perf/max_memory_allocated_gb"] == 25.921 and rec["prompt_length/mean"] == 102.534
    # 106: wrapped mid-key ("response_length/me" + "an:330.437")
    rec = parse(by_url["106"])[83]
    assert rec["response_length/mean"] == 330.437 and rec["timing_s/reward"] == 1.042
    assert "response_length/me" not in rec and "an" not in rec
    # 498: a NaN metric in a step line is a value, not a failure
    rec = parse(by_url["498"])[1]
    assert math.isnan(rec["critic/vf_loss"]) and rec["actor/grad_norm"] == 9.819
    assert get_adapter("verl").failure(1, by_url["498"] + "\nRuntimeError: boom")[0] == "crash"
    # 7412 (verl 0.9 names): the excerpt starts mid-line ("...ming_s/"), so a step start is prepended;
    # its wrap breaks inside a number ("0.0365777518600225" + "45")
    rec = parse("(TaskRunnerV1 pid=1) step:5 - ti" + by_url["7412"])[5]
    assert rec["timing_s/adv"] == 0.036577751860022545
    assert rec["timing_s/update_weights"] == 5.82697419822216 and rec["timing_s/reshard"] == 5.82697419822216
    assert rec["timing_s/reward"] == 5.0749629735946655e-05
    # np.float64(...) values (verl 0.5+), with a tqdm line after
    rec = parse(by_url["notes"], chunk=97)[71]
    assert rec["actor/pg_loss"] == -0.0006611689302644663 and rec["perf/throughput"] == 1220.4159109515201
    assert rec["perf/max_memory_allocated_gb"] == 20.764535427093506


def test_parser_edges_prefixless_wrap_one_word_line_taskrunnerv1_ansi():
    line = "step:3 - actor/pg_loss:np.float64(0.5) - perf/throughput:np.float64(12.5) - timing_s/step:2.0"
    text = (
        f"\x1b[36m(TaskRunnerV1 pid=11)\x1b[0m {line[:40]}\n"
        f"{line[40:]}\n"  # the wrapped half without the prefix
        "\x1b[36m(TaskRunnerV1 pid=11)\x1b[0m Done\n"  # a one-word line from the same process
        "\x1b[33m(raylet)\x1b[0m WARNING: something\n"
        f"\x1b[1;36m(TaskRunnerV1 pid=11, ip=10.0.0.1)\x1b[0m {line.replace('step:3', 'step:4')}\n"
        "\x1b[36m(TaskRunnerV1 pid=11)\x1b[0m finished\n"
    )
    records = parse(text, chunk=17)
    assert records[3] == {"actor/pg_loss": 0.5, "perf/throughput": 12.5, "timing_s/step": 2.0}
    assert records[4]["timing_s/step"] == 2.0  # not "2.0finished"


def test_shipped_gpu_spaces_baselines_and_exports_pass_verls_validation(tmp_path):
    """Every shipped verl space: baseline passes verl's validate_config; its export composes, validates,
    carries env values as strings, and has no `~` left."""
    from autotune.export.winner import check_export

    for name in ("fsdp3d-8gpu", "verl-vllm-8gpu", "fsdp3d-64gpu", "verl-cpu"):
        space = load_space(name)
        adapter = get_adapter("verl", space.command)
        assert space.trainer == "verl"
        params = {**space.baseline}
        for p in space.params:  # every env knob at a numeric choice: the case Ray refused
            if p.is_env and p.choices and any(isinstance(c, int) for c in p.choices):
                params[p.name] = next(c for c in p.choices if isinstance(c, int))
        flat = export_settings(space, adapter, params)
        assert not any(isinstance(v, str) and v.startswith("~") for v in flat.values())
        out = tmp_path / f"{name}.yaml"
        out.write_text(render_yaml(flat, ["test"]))
        lines = overrides(flat)
        out.with_suffix(".overrides").write_text("\n".join(lines) + "\n")
        problems, count = check_export(out, out.with_suffix(".overrides"))
        assert problems == [] and count == len(lines), (name, problems)
        for line in lines:
            if line.startswith("+ray_kwargs.ray_init.runtime_env.env_vars."):
                assert re.fullmatch(r"\+[\w.]+='[^']*'|\+[\w.]+=[A-Za-z][\w]*", line), line
        env = yaml.safe_load(out.read_text()).get("ray_kwargs", {}).get("ray_init", {})
        assert all(isinstance(v, str) for v in env.get("runtime_env", {}).get("env_vars", {}).values())


def test_verls_validate_config_rejects_before_launch_with_its_message():
    adapter = get_adapter("verl")
    base = {
        "actor_rollout_ref.actor.ppo_micro_batch_size_per_gpu": 2,
        "actor_rollout_ref.actor.ppo_mini_batch_size": 8,
        "data.train_batch_size": 16,
        "algorithm.adv_estimator": "grpo",
    }
    with pytest.raises(
        InvalidConfig, match=r"validate_config rejects it: \[actor_rollout_ref.rollout\] Please set at least one of"
    ):
        adapter.check([], base, 8)
    ok = {**base, "actor_rollout_ref.rollout.log_prob_micro_batch_size_per_gpu": 2}
    adapter.check([], ok, 8)
    with pytest.raises(
        InvalidConfig, match=r"real_train_batch_size \(9\) must be divisible by minimal possible batch size \(8\)"
    ):
        adapter.check([], {**ok, "data.train_batch_size": 9}, 8)


ACCEPTED = {
    "actor_rollout_ref.actor.ppo_micro_batch_size_per_gpu": 2,
    "actor_rollout_ref.actor.ppo_mini_batch_size": 8,
    "data.train_batch_size": 16,
    "actor_rollout_ref.rollout.log_prob_micro_batch_size_per_gpu": 2,
    "algorithm.adv_estimator": "grpo",
}
"""A GRPO configuration verl's validate_config accepts at 8 ranks; REFUSED is it with a batch 8 ranks cannot split."""
REFUSED = {**ACCEPTED, "data.train_batch_size": 9}
NOT_DIVISIBLE = r"real_train_batch_size \(9\) must be divisible"


def test_a_verdict_is_kept_on_disk_for_the_next_command_and_forgotten_when_verl_or_the_check_changes(
    tmp_path, monkeypatch
):
    """A `run` or `validate` of a verl space imported verl and composed its config again in every command (12 s of
    a 17 s, 30-trial simulated sweep here): verdicts are kept under $XDG_CACHE_HOME. A new process answers from
    them without importing verl; another verl version or checking code, or a torn file, asks verl again."""
    import subprocess

    from autotune.adapters import verdict_cache, verl_trainer
    from tests.conftest import trainer_env

    env = {**trainer_env(), "XDG_CACHE_HOME": str(tmp_path)}
    probe = "import sys; from autotune.space.loader import load_space; load_space('fsdp3d-8gpu'); print('verl' in sys.modules)"
    imported = [
        subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, env=env, cwd=ROOT, check=True)
        for _ in range(2)
    ]
    assert [p.stdout.split()[-1] for p in imported] == ["True", "False"], [p.stderr[-2000:] for p in imported]
    kept = list((tmp_path / "autotune" / "verl_checks").glob("*.json"))
    assert kept and all(json.loads(f.read_text()).keys() == {"problem", "checker"} for f in kept)

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "own"))
    monkeypatch.setattr(verl_trainer, "_CHECKED", {})
    adapter = get_adapter("verl")
    ok, bad = ACCEPTED, REFUSED
    adapter.check([], ok, 8)
    with pytest.raises(InvalidConfig, match=NOT_DIVISIBLE) as first:
        adapter.check([], bad, 8)
    files = sorted((tmp_path / "own" / "autotune" / "verl_checks").glob("*.json"))
    assert len(files) == 2
    verdicts = sorted(json.loads(f.read_text())["problem"] or "" for f in files)
    assert verdicts == ["", str(first.value)]
    # as a new command sees it: nothing in memory, verl unreachable, the same answers from the files
    import autotune.adapters.verl_config as verl_config

    composed = verl_config.compose
    monkeypatch.setattr(verl_trainer, "_CHECKED", {})
    monkeypatch.setattr(verl_config, "compose", None)
    adapter.check([], ok, 8)
    with pytest.raises(InvalidConfig) as again:
        adapter.check([], bad, 8)
    assert str(again.value) == str(first.value)
    # a torn file is a miss, not an answer: verl is asked again (here unreachable, so it fails loudly)
    for f in files:
        f.write_text('{"problem": ')
    monkeypatch.setattr(verl_trainer, "_CHECKED", {})
    with pytest.raises(TypeError):
        adapter.check([], ok, 8)
    # another verl (or an edit to the checking code) keys every verdict afresh, and its first verdict removes the
    # ones it can never read (they piled up with every upgrade); only within a new command (once a command)
    monkeypatch.setattr(verl_config, "compose", composed)
    monkeypatch.setattr(verdict_cache, "_checker", lambda: "1:0.0.0-other:code")
    monkeypatch.setattr(verl_trainer, "_CHECKED", {})
    verdict_cache._prune.cache_clear()
    adapter.check([], ok, 8)
    left = list((tmp_path / "own" / "autotune" / "verl_checks").glob("*.json"))
    assert [json.loads(f.read_text())["checker"] for f in left] == ["1:0.0.0-other:code"], left


def test_a_configuration_checked_again_gets_the_same_verdict_and_another_is_checked_on_its_own():
    """`check` remembers its verdicts (composing and validating takes about a second): the same configuration
    asked again gets the same answer without verl; `"8"` for an accepted 8 is still refused on its type."""
    import autotune.adapters.verl_config as verl_config

    adapter = get_adapter("verl")
    ok, bad = ACCEPTED, REFUSED
    adapter.check([], ok, 8)
    with pytest.raises(InvalidConfig, match=NOT_DIVISIBLE) as first:
        adapter.check([], bad, 8)
    composed = verl_config.compose
    try:
        verl_config.compose = None  # type: ignore[assignment]  # asked again: answered without composing
        adapter.check([], ok, 8)
        with pytest.raises(InvalidConfig) as again:
            adapter.check([], bad, 8)
        assert str(again.value) == str(first.value)
    finally:
        verl_config.compose = composed
    as_text = {**ok, "actor_rollout_ref.actor.ppo_mini_batch_size": "8"}
    with pytest.raises(InvalidConfig, match=r"verl expects a number, got '8'"):
        adapter.check([], as_text, 8)


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


def test_float_knobs_whose_yaml_default_is_a_whole_number_take_fractions():
    """verl's YAML writes `entropy_coeff: 0` and `rollout.top_p: 1` while its dataclasses declare floats: 0.001 and
    0.9 are valid there (verl's examples set them), unlike a fraction for an integer key. The space loader checks
    `base:` and `params:` values with these key types."""
    from autotune.adapters.verl_config import check_types, defaults_config
    from verl_keys.keys import coerce

    keys = get_adapter("verl").keys()
    for key, value in (("actor_rollout_ref.actor.entropy_coeff", 0.001), ("actor_rollout_ref.rollout.top_p", 0.9)):
        assert coerce(value, keys[key].type) == value
        assert check_types(defaults_config(), {key: value}) == []
    micro = "actor_rollout_ref.actor.ppo_mini_batch_size"
    with pytest.raises(TypeError, match="must be an integer"):
        coerce(2.5, keys[micro].type)
    assert check_types(defaults_config(), {micro: 2.5}) == [f"`{micro}`: verl expects an integer, got 2.5; round it"]


def test_home_paths_are_expanded_or_rejected(tmp_path):
    adapter = get_adapter("verl")
    flat = {
        "data.train_files": "~/data/train.parquet",
        "ray_kwargs.ray_init.runtime_env.env_vars.NCCL_MAX_NCHANNELS": "16",
    }
    lines, env = adapter.trial_overrides(flat, 8)
    assert f"data.train_files={Path.home()}/data/train.parquet" in lines
    assert "+ray_kwargs.ray_init.runtime_env.env_vars.NCCL_MAX_NCHANNELS='16'" in lines and env == {}
    with pytest.raises(InvalidConfig, match=r"cannot expand '~no_such_user_xyz/d': no such user's home"):
        adapter.trial_overrides({"data.train_files": "~no_such_user_xyz/d"}, 8)


def test_failure_classification_from_verl_output():
    fail = get_adapter("verl").failure
    for oom in (
        "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB",
        "RuntimeError: cumem_allocator.cpp:62 CUDA Error: out of memory at /workspace/csrc/cumem_allocator.cpp:62",
        "ValueError: No available memory for the cache blocks. Try increasing `gpu_memory_utilization`",
        "ValueError: Free memory on device (30.1/79.2 GiB) on startup is less than desired GPU memory utilization (0.9, 71.3 GiB)",
        "ValueError: To serve at least one request with the models's max seq len (32768), (4.0 GiB KV cache is needed",
    ):
        assert fail(1, oom)[0] == "oom", oom
    reason, detail = fail(
        1,
        "torch.distributed.DistBackendError: NCCL error in: x.cpp:1\nncclUnhandledCudaError: Call to CUDA function failed.",
    )
    assert reason == "crash" and detail.startswith("NCCL error: ")
    assert fail(1, "ncclInvalidUsage: This usually reflects invalid usage of NCCL library.")[1].startswith(
        "NCCL error: "
    )
    reason, detail = fail(1, "ray.exceptions.ActorDiedError: The actor died unexpectedly")
    assert reason == "crash" and detail.startswith("Ray actor died")
    assert fail(1, "omegaconf.errors.ConfigCompositionException: Could not override 'x'")[0] == "invalid"
    ray_env = "TypeError: runtime_env['env_vars'] must be of type Dict[str, str], got <class 'dict'> with value 16"
    assert fail(1, ray_env) == ("invalid", ray_env)
    config_error = (
        'File "/x/site-packages/verl/workers/config/actor.py", line 210, in validate\n'
        "ValueError: ppo_micro_batch_size_per_gpu (3) must divide ppo_mini_batch_size (8)"
    )
    assert fail(1, config_error) == (
        "invalid",
        "ValueError: ppo_micro_batch_size_per_gpu (3) must divide ppo_mini_batch_size (8)",
    )
    crash_after_nan_step = (
        "(TaskRunnerV1 pid=1) step:3 - actor/pg_loss:nan - critic/vf_loss:nan\nRuntimeError: worker died"
    )
    assert fail(1, crash_after_nan_step) == ("crash", "RuntimeError: worker died")
    assert fail(1, "ValueError: NaN or Inf found in input tensor.")[0] == "nan"


FAKE_SPACE = """\
name: fake
trainer: verl
command: [{python}, {script}]
base:
  data.train_batch_size: 64
  actor_rollout_ref.actor.ppo_mini_batch_size: 64
  actor_rollout_ref.model.path: Qwen/Qwen2.5-0.5B-Instruct
  actor_rollout_ref.rollout.name: vllm
  actor_rollout_ref.rollout.log_prob_micro_batch_size_per_gpu: 8
  algorithm.adv_estimator: grpo
trial: {{steps: 5, warmup_steps: 1, world_size: 8, timeout_s: 60, hang_timeout_s: 10, startup_grace_s: 20}}
params:
  actor_rollout_ref.actor.ppo_micro_batch_size_per_gpu: {{type: categorical, choices: [2, 4, 8]}}
  env.FAKE_VERL_MODE: {{type: categorical, choices: [ok, oom, nccl]}}
objectives: [{{metric: perf/throughput, direction: maximize, reducer: median}}]
limits:
  - {{metric: actor/reward_kl_penalty, reducer: last, max: 0.05}}
  - {{metric: perf/comm_share, max: 0.1}}
  - {{metric: memory, reducer: max, max_ratio_to_baseline: 1.2}}
baseline:
  actor_rollout_ref.actor.ppo_micro_batch_size_per_gpu: 4
  env.FAKE_VERL_MODE: ok
sampler: {{seed: 0, n_startup_trials: 10}}
trials: 3
"""


def test_fake_verl_cuda_oom_and_nccl_errors_are_classified(tmp_path):
    path = tmp_path / "fake.yaml"
    path.write_text(FAKE_SPACE.format(python=sys.executable, script=ROOT / "tests" / "autotune" / "fake_verl.py"))
    space = load_space(str(path))
    adapter = get_adapter("verl", space.command)
    paths = StudyPaths(tmp_path / "runs", "fake")
    url = storage_url(paths, None)
    study = create_or_load(space, paths, url)
    for mode in ("oom", "nccl"):
        study.enqueue_trial({**space.baseline, "env.FAKE_VERL_MODE": mode})
    OptunaBackend(BackendOptions(space, adapter, paths, url, n_trials=3)).run()
    trials = {t.params["env.FAKE_VERL_MODE"]: t.user_attrs for t in load_study(paths).get_trials()}
    base = trials["ok"]
    assert base["outcome"] == "complete", base
    assert math.isclose(base["key_metrics"]["memory_gb"], 44.0)  # verl 0.9's actor/perf/max_memory_allocated_gb
    assert trials["oom"]["reason"] == "oom" and "CUDA out of memory" in trials["oom"]["detail"]
    assert trials["nccl"]["reason"] == "crash" and trials["nccl"]["detail"].startswith("NCCL error: ")


# ---- real verl: one short trial on the CPU plugin, one real bad override -------------------------------


@pytest.fixture(scope="module")
def real_verl(tmp_path_factory):
    """One real `verl.trainer.main_ppo` trial (3 steps, 1 rank) through the sweep, and one real verl
    process given a key verl does not have (the pre-launch check is bypassed by putting it in the command)."""
    root = tmp_path_factory.mktemp("real_verl")
    space = load_space("verl-cpu")
    space = dataclasses.replace(
        space, trial=dataclasses.replace(space.trial, steps=3, warmup_steps=1, timeout_s=540, startup_grace_s=420)
    )
    adapter = get_adapter("verl", space.command)
    paths = StudyPaths(root / "runs", "verl-cpu")
    url = storage_url(paths, None)
    create_or_load(space, paths, url)
    OptunaBackend(BackendOptions(space, adapter, paths, url, n_trials=1)).run()
    bad_adapter = get_adapter("verl", [sys.executable, "-m", "verl.trainer.main_ppo", "trainer.no_such_key=1"])
    bad = evaluate(space, bad_adapter, dict(space.baseline), root / "bad", None)
    return paths, load_study(paths).trials[0], bad


@pytest.mark.slow  # 80 s of real verl start-up; make test-slow (real verl also runs there on a shared Ray head)
@pytest.mark.xdist_group("verl")
def test_real_verl_trial_on_the_cpu_plugin(real_verl):
    paths, trial, _ = real_verl
    attrs = trial.user_attrs
    assert attrs["outcome"] == "complete", attrs
    trial_dir = paths.trial_dir(trial.number)
    stdout = (trial_dir / "stdout.log").read_text()
    assert "TaskRunnerV1" in stdout
    # verl's own throughput numbers, read from its console with a plain regex (not the parser)
    values = [float(v) for v in re.findall(r"perf/throughput:([0-9.e+-]+)", stdout)]
    assert len(values) == 3
    assert attrs["key_metrics"]["throughput"] == pytest.approx(statistics.median(values[1:]))
    assert trial.values[0] == pytest.approx(statistics.median(values[1:]))
    memory = [float(v) for v in re.findall(r"actor/perf/max_memory_allocated_gb:([0-9.e+-]+)", stdout)]
    assert attrs["key_metrics"]["memory_gb"] == pytest.approx(max(memory[1:])) and min(memory) > 0.05  # the actor's RSS
    kl = [float(v) for v in re.findall(r"actor/kl_loss:([0-9.e+-]+)", stdout)]
    assert attrs["key_metrics"]["kl"] == pytest.approx(kl[-1])
    command = (trial_dir / "command").read_text()
    assert "env VERL_USE_EXTERNAL_MODULES=verl_cpu.plugin VERL_PLATFORM=cpu" in command
    assert "trainer.total_training_steps=3" in command and "actor_rollout_ref.rollout.name=hf" in command


@pytest.mark.slow
@pytest.mark.xdist_group("verl")
def test_real_bad_override_is_classified_invalid_with_verls_message(real_verl):
    _, _, bad = real_verl
    assert (bad.outcome, bad.reason) == ("failed", "invalid")
    assert "Could not override 'trainer.no_such_key'" in bad.detail
    assert bad.runs and bad.runs[0].rows == []


@pytest.mark.gpu
def test_real_verl_trial_on_a_gpu(tmp_path):
    """The same real trial on a CUDA GPU with verl's vLLM rollout (`pytest -m gpu` on a GPU node with vllm)."""
    import torch

    if not torch.cuda.is_available():
        pytest.skip("needs a CUDA GPU")
    pytest.importorskip("vllm")
    from verl_cpu import build

    assets = build()
    space = load_space("verl-cpu")
    base = {
        **space.base,
        "trainer.device": "cuda",
        "actor_rollout_ref.model.path": str(assets.model_dir),
        "data.train_files": str(assets.train_file),
        "data.val_files": str(assets.val_file),
        "actor_rollout_ref.rollout.name": "vllm",
        "actor_rollout_ref.rollout.tensor_model_parallel_size": 1,
        "actor_rollout_ref.rollout.gpu_memory_utilization": 0.3,
        "reward.custom_reward_function.path": str(ROOT / "verl_cpu" / "reward.py"),
    }
    space = dataclasses.replace(
        space, base=base, trial=dataclasses.replace(space.trial, steps=3, warmup_steps=1, world_size=1)
    )
    adapter = get_adapter("verl", space.command)
    paths = StudyPaths(tmp_path / "runs", "verl-gpu")
    url = storage_url(paths, None)
    create_or_load(space, paths, url)
    OptunaBackend(BackendOptions(space, adapter, paths, url, n_trials=1)).run()
    attrs = load_study(paths).trials[0].user_attrs
    assert attrs["outcome"] == "complete", attrs
    assert attrs["key_metrics"]["memory_gb"] > 0  # actor/perf/max_memory_allocated_gb from CUDA


def test_a_key_of_a_map_verl_leaves_open_loads_in_base_and_reaches_each_trial_with_its_plus(tmp_path):
    """A job's `+actor_rollout_ref.model.override_config.max_position_embeddings=32768` (verl's DAPO example) is kept
    by init as its dotted key in `base:` (audit 37 F1): the space loads with it (dotted or nested under its map), each
    trial's overrides add it with the `+` hydra needs for a key of an open map (without it hydra refuses: "Could not
    override"), verl's check accepts the trial, and hydra's own compose of the trial's overrides puts the value where
    verl reads it. A key of a section verl declares whole is still unknown."""
    from hydra import compose, initialize_config_dir
    from hydra.core.global_hydra import GlobalHydra
    from omegaconf import OmegaConf

    from autotune.adapters.verl_config import config_dir
    from autotune.space.loader import SPACE_DIR
    from autotune.space.sampling import trial_config

    added = {
        "actor_rollout_ref.model.override_config.max_position_embeddings": 32768,
        "reward_model.reward_kwargs.overlong_buffer_cfg.len": 4096,
        "data.apply_chat_template_kwargs.reasoning_effort": "medium",
    }
    text = (SPACE_DIR / "verl-cpu.yaml").read_text()
    dotted = tmp_path / "dotted.yaml"
    dotted.write_text(text.replace("base:\n", "base:\n" + "".join(f"  {k}: {v}\n" for k, v in added.items()), 1))
    nested = tmp_path / "nested.yaml"
    nested.write_text(
        text.replace(
            "base:\n",
            "base:\n  actor_rollout_ref.model.override_config:\n    max_position_embeddings: 32768\n"
            "  reward_model:\n    reward_kwargs:\n      overlong_buffer_cfg:\n        len: 4096\n"
            "  data.apply_chat_template_kwargs: {reasoning_effort: medium}\n",
            1,
        )
    )
    for path in (dotted, nested):
        space = load_space(str(path))
        assert {k: space.base[k] for k in added} == added, space.base
        adapter = get_adapter("verl", space.command)
        flat = trial_config(space, adapter, dict(space.baseline)).flat  # the baseline trial's keys
        lines, _ = adapter.trial_overrides(flat, 2)
        for key, value in added.items():
            assert f"+{key}={value}" in lines, lines
        adapter.quick_check([], flat, 2)
        adapter.check([], flat, 2)  # verl's compose and validate_config, as before every trial
        GlobalHydra.instance().clear()
        try:
            with initialize_config_dir(config_dir=str(config_dir()), version_base=None):
                composed = compose(config_name="ppo_trainer", overrides=lines)
                with pytest.raises(Exception, match="Could not override"):  # hydra's rule: the `+` is needed
                    compose(config_name="ppo_trainer", overrides=[f"{k}={v}" for k, v in added.items()][:1])
        finally:
            GlobalHydra.instance().clear()
        assert {k: OmegaConf.select(composed, k) for k in added} == added
    undeclared = tmp_path / "undeclared.yaml"
    undeclared.write_text(text.replace("base:\n", "base:\n  actor_rollout_ref.actor.no_such: 1\n", 1))
    with pytest.raises(SpaceError, match=r"undeclared.yaml:\d+: unknown key `actor_rollout_ref.actor.no_such` in base"):
        load_space(str(undeclared))
    with pytest.raises(InvalidConfig, match=r"verl has no key 'actor_rollout_ref\.actor\.no_such'"):
        get_adapter("verl").quick_check([], {"actor_rollout_ref.actor.no_such": 1}, 2)


def test_a_key_of_a_map_verl_leaves_open_is_a_knob_and_a_quality_base_key_each_trial_adds_with_its_plus(tmp_path):
    """A vLLM engine argument verl passes through (`rollout.engine_kwargs.vllm.swap_space`) searched as a param, and
    one set in `quality.base`, were "unknown key" (left in stop 67; `base:` took them, audit 37 F1). A param there has
    no verl default: the baseline must give its value, and says so. Each trial adds it with its `+`; verl's check
    accepts the trial."""
    from autotune.space.loader import SPACE_DIR
    from autotune.space.sampling import trial_config

    swap, block = "actor_rollout_ref.rollout.engine_kwargs.vllm.swap_space", "data.apply_chat_template_kwargs.x"
    text = (SPACE_DIR / "verl-cpu.yaml").read_text()
    text = text.replace("params:\n", f"params:\n  {swap}: {{type: categorical, choices: [4, 8]}}\n", 1)
    text = text.replace("quality:\n", f"quality:\n  base: {{{block}: 1}}\n", 1)
    path = tmp_path / "open.yaml"
    path.write_text(text)
    with pytest.raises(SpaceError, match=rf"open.yaml:\d+: baseline: no value for `{swap}`: a key the space adds to a "
                                         "map verl leaves open has no verl default; set `baseline"):  # fmt: skip
        load_space(str(path))
    path.write_text(text.replace("\nbaseline:", f"\nbaseline:\n  {swap}: 4  #", 1))
    space = load_space(str(path))
    assert [p.name for p in space.params if p.name == swap] == [swap] and space.baseline[swap] == 4
    assert space.quality is not None and space.quality.base == {block: 1}
    adapter = get_adapter("verl", space.command)
    flat = trial_config(space, adapter, {**space.baseline, swap: 8}).flat
    lines, _ = adapter.trial_overrides(flat, 2)
    assert f"+{swap}=8" in lines, lines
    adapter.check([], flat, 2)  # verl's compose and validate_config, as before every trial


def test_a_value_with_backslashes_reaches_verl_as_written() -> None:
    """verl's geo3k multi-turn config sets a Qwen2.5-VL chat template whose Jinja strings hold `\\n` (a backslash and
    an n): every backslash was doubled in the override, which hydra reads back literally (it unescapes backslashes
    only before a quote), so each trial and the export's `.overrides` ran another template (audit 39 F7)."""
    from omegaconf import OmegaConf

    from autotune.adapters.verl_config import compose

    template = "{%- if tools %}{{- '<|im_start|>system\\n' }}{%- endif %}<|im_start|>{{ message['role'] }}\n"
    written = {
        "actor_rollout_ref.model.custom_chat_template": template,
        "actor_rollout_ref.model.exclude_modules": r".*visual\..*",  # a regex: `\.` a dot
        "trainer.experiment_name": "ends_in_a_backslash\\",  # before the closing quote: hydra's escape
        "trainer.project_name": "it's \\'quoted\\'",
    }
    cfg = compose(overrides(written))
    assert {key: OmegaConf.select(cfg, key) for key in written} == written
