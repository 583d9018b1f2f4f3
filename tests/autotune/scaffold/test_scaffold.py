"""`autotune init`: a user's verl job (a run script as verl's examples write them, or a YAML) becomes a
space whose base is the job, whose knob ranges fit the cluster and the model, and that validates."""

from __future__ import annotations

import json
import os
import shlex
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

pytest.importorskip("omegaconf", reason="autotune init checks keys with verl's config (the `verl` extra)")

from autotune.adapters.verl_trainer import verl_tree
from autotune.scaffold import Cluster, JobError, read_job, recipe, render_space
from autotune.scaffold.job import check_starts
from autotune.scaffold.recipe import FSDP
from autotune.scaffold.space_yaml import baseline
from autotune.space.loader import SPACE_DIR, load_space
from tests.conftest import ROOT

EXAMPLE = """\
set -x

gsm8k_train_path=$HOME/data/gsm8k/train.parquet
math_train_path=$HOME/data/math/train.parquet
train_files="['$gsm8k_train_path', '$math_train_path']"

export VLLM_ATTENTION_BACKEND=XFORMERS

python3 -m verl.trainer.main_ppo \\
    algorithm.adv_estimator=grpo \\
    data.train_files="$train_files" \\
    data.val_files=$HOME/data/gsm8k/test.parquet \\
    data.train_batch_size=1024 \\
    data.max_prompt_length=512 \\
    data.max_response_length=1024 \\
    actor_rollout_ref.model.path={model} \\
    actor_rollout_ref.actor.optim.lr=1e-6 \\
    actor_rollout_ref.model.use_remove_padding=True \\
    actor_rollout_ref.actor.ppo_mini_batch_size=256 \\
    actor_rollout_ref.actor.ppo_micro_batch_size_per_gpu=16 \\
    actor_rollout_ref.actor.use_kl_loss=True \\
    actor_rollout_ref.actor.kl_loss_coef=0.001 \\
    actor_rollout_ref.rollout.tensor_model_parallel_size=2 \\
    actor_rollout_ref.rollout.name=vllm \\
    actor_rollout_ref.rollout.n=5 \\
    actor_rollout_ref.rollout.log_prob_micro_batch_size_per_gpu=32 \\
    actor_rollout_ref.ref.log_prob_micro_batch_size_per_gpu=32 \\
    algorithm.use_kl_in_reward=False \\
    trainer.logger='["console","wandb"]' \\
    trainer.project_name='verl_grpo_example_gsm8k' \\
    trainer.experiment_name='qwen2_7b_function_rm' \\
    trainer.n_gpus_per_node=8 \\
    trainer.nnodes=1 \\
    trainer.total_epochs=15 $@
"""


def model_dir(tmp_path: Path, heads: int) -> Path:
    """A local model folder: only its config.json (Qwen2.5-1.5B's numbers with `heads` heads)."""
    folder = tmp_path / f"model-{heads}"
    folder.mkdir()
    config = {"hidden_size": 128 * heads, "intermediate_size": 8960, "num_hidden_layers": 28,
              "num_attention_heads": heads, "num_key_value_heads": 2, "vocab_size": 151936}  # fmt: skip
    (folder / "config.json").write_text(json.dumps(config))
    return folder


def test_a_run_script_is_read_as_verl_reads_it(tmp_path: Path) -> None:
    job = read_job(EXAMPLE.format(model="Qwen/Qwen2.5-7B-Instruct"), "run.sh")
    assert job.flat["data.train_files"] == ["~/data/gsm8k/train.parquet", "~/data/math/train.parquet"]
    assert job.flat["data.val_files"] == "~/data/gsm8k/test.parquet"
    assert job.flat["actor_rollout_ref.actor.optim.lr"] == 1e-6
    assert job.flat["trainer.logger"] == ["console", "wandb"]
    assert job.flat["actor_rollout_ref.model.use_remove_padding"] is True
    assert job.flat["trainer.project_name"] == "verl_grpo_example_gsm8k"
    assert (
        len(job.flat) == EXAMPLE.count("=") - EXAMPLE.count("_path=") - 2
    )  # every override (not the 3 + 1 assignments)
    assert job.env == {"VLLM_ATTENTION_BACKEND": "XFORMERS"}
    assert job.command == ["python3", "-m", "verl.trainer.main_ppo"]
    assert any("$@" in note for note in job.notes)


def test_a_variable_the_script_does_not_set_is_named(tmp_path: Path) -> None:
    job = read_job("python3 -m verl.trainer.main_ppo actor_rollout_ref.model.path=$MODEL_PATH", "cmd")
    assert job.flat["actor_rollout_ref.model.path"] == "$MODEL_PATH"
    assert any("$MODEL_PATH" in note and "base:" in note for note in job.notes)


@pytest.mark.parametrize(
    ("text", "error"),
    [
        ("python3 -m verl.trainer.main_ppo actor_rollout_ref.actor.no_such_knob=1", r"^job.sh:1: verl has no key `actor_rollout_ref\.actor\.no_such_knob`.* \(fix its name; "),
        ("data:\n  train_batch_size: 8\nactor_rollout_ref:\n  actor:\n    ppo_mini_bach_size: 4\n",
         r"^job.sh:5: verl has no key `actor_rollout_ref\.actor\.ppo_mini_bach_size`; did you mean `actor_rollout_ref\.actor\.ppo_mini_batch_size`\?"),
        ("python3 -m verl.trainer.main_ppo --config-name=mine data.train_batch_size=8", r"`--config-name=mine`: .*give that YAML"),
        ("python3 -m verl.trainer.main_ppo data.train_batch_size=8,16", r"a hydra sweep; give `data.train_batch_size` one value"),
        ("python3 -m verl.trainer.main_ppo --config-name=ppo_megatron_trainer data.train_batch_size=8",
         r"a Megatron job; autotune init reads FSDP jobs on verl's ppo_trainer config only"),
        ("python3 -m verl.trainer.main_ppo +actor_rollout_ref.actor.fsdp_config.mixed_precision.param_dtype=bf16",
         r"adds a key verl's ppo_trainer config does not declare.*a sweep of the job without it measures another job"),
        ("python3 -m verl.trainer.main_ppo data.train_batch_size=many", r"`data.train_batch_size`: verl expects a number, got 'many'"),
        ("set -x\necho nothing here\n", r"neither a `verl.trainer.main_ppo` command nor|a verl config is a YAML mapping"),
    ],
)  # fmt: skip
def test_what_verl_would_refuse_is_refused_with_the_fix(text: str, error: str) -> None:
    with pytest.raises(JobError, match=error):
        read_job(text, "job.sh")


def test_tp_choices_divide_the_gpus_per_node_and_the_heads_read_from_config_json(tmp_path: Path) -> None:
    defaults = verl_tree()[1]
    for heads in (12, 28, 32):
        job = read_job(EXAMPLE.format(model=model_dir(tmp_path, heads)), "run.sh")
        rec = recipe(job, Cluster(8), defaults)
        [tp] = [k for k in rec.knobs if k.name == "actor_rollout_ref.rollout.tensor_model_parallel_size"]
        assert tp.spec["choices"] == [d for d in (1, 2, 4, 8) if heads % d == 0]
        assert f"{heads} attention heads" in tp.why
        # micro-batches divide the mini-batch per GPU: 256 prompts x 5 samples / 8 GPUs = 160
        [micro] = [k for k in rec.knobs if k.name == "actor_rollout_ref.actor.ppo_micro_batch_size_per_gpu"]
        assert micro.spec["choices"] and all(160 % c == 0 for c in micro.spec["choices"])
        assert 16 in micro.spec["choices"]


@pytest.mark.parametrize(("util", "spec"), [
    (0.6, {"low": 0.3, "high": 0.9, "step": 0.05}),
    (0.27, {"low": 0.27, "high": 0.9}),  # 0.27 is on its own grid, but 0.05 does not divide 0.27..0.9
    (0.25, {"low": 0.25, "high": 0.9, "step": 0.05}),
    (0.93, {"low": 0.3, "high": 0.93}),
])  # fmt: skip
def test_the_vllm_memory_share_is_stepped_only_where_the_step_divides_its_range(
    tmp_path: Path, util: float, spec: dict[str, float]
) -> None:
    from autotune.space.schema import Param

    key = "actor_rollout_ref.rollout.gpu_memory_utilization"
    text = EXAMPLE.format(model=model_dir(tmp_path, 12)).replace("trainer.nnodes=1", f"trainer.nnodes=1 {key}={util}")
    job = read_job(text, "run.sh")
    [knob] = [k for k in recipe(job, Cluster(8), verl_tree()[1]).knobs if k.name == key]
    assert knob.spec == {"type": "float"} | spec and knob.baseline == util
    Param(key, **knob.spec)  # the space accepts it: a step that does not divide the range is refused


def test_a_tp_that_cannot_divide_the_heads_is_refused(tmp_path: Path) -> None:
    job = read_job(
        EXAMPLE.format(model=model_dir(tmp_path, 12)).replace("parallel_size=2", "parallel_size=8"), "run.sh"
    )
    with pytest.raises(
        JobError,
        match=r"tensor_model_parallel_size`=8 must divide the 8 GPUs per node and the model's 12 attention heads .*choose one of \[1, 2, 4\]",
    ):
        recipe(job, Cluster(8), verl_tree()[1])


def test_a_jobs_rollout_tp_on_whole_nodes_is_kept_and_one_across_part_of_a_node_refused_at_its_line(
    tmp_path: Path,
) -> None:
    """verl's own 4-node 72B examples run rollout TP 16 on 8-GPU nodes (verl places the replica on 2 whole nodes);
    init refused them (audit 36 F1). TP 12 on 8-GPU nodes spans part of a node: refused, at the script's line."""
    text = EXAMPLE.format(model=model_dir(tmp_path, 48)).replace("trainer.nnodes=1", "trainer.nnodes=4")
    job = read_job(text.replace("parallel_size=2", "parallel_size=16"), "run.sh")
    [tp] = [k for k in recipe(job, Cluster(8, 4), verl_tree()[1]).knobs if k.name.endswith("parallel_size")]
    assert tp.spec["choices"] == [1, 2, 4, 8, 16] and tp.baseline == 16 and "16, the job's own, on 2 whole" in tp.why
    line = 1 + next(i for i, ln in enumerate(text.splitlines()) if "parallel_size=2" in ln)
    with pytest.raises(
        JobError, match=rf"^run.sh:{line}: .*=12 must divide the 8 GPUs per node .*choose one of \[1, 2, 4, 8, 16\]$"
    ):
        recipe(read_job(text.replace("parallel_size=2", "parallel_size=12"), "run.sh"), Cluster(8, 4), verl_tree()[1])


def test_the_cluster_flags_must_agree_with_the_job(tmp_path: Path) -> None:
    job = read_job(EXAMPLE.format(model="Qwen/Qwen2.5-7B-Instruct"), "run.sh")
    rec = recipe(job, Cluster(4), verl_tree()[1])
    with pytest.raises(
        JobError, match=r"^run.sh:32: the job sets `trainer.n_gpus_per_node`=8 but --gpus-per-node says 4"
    ):
        render_space(job, Cluster(4), rec, "x")


def test_init_on_an_example_script_writes_a_space_that_validates_and_prescreens(tmp_path: Path) -> None:
    model = model_dir(tmp_path, 12)
    script = tmp_path / "run_qwen_grpo.sh"
    script.write_text(EXAMPLE.format(model=model))
    work = tmp_path / "work"
    work.mkdir()
    out = subprocess.run(
        [sys.executable, "-m", "autotune.cli", "init", str(script), "--gpus-per-node", "8", "--gpu", "H100"],
        cwd=work, env={**os.environ, "PYTHONPATH": str(ROOT)}, capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert out.returncode == 0, out.stderr
    written = work / "qwen2_7b_function_rm.yaml"
    typo = subprocess.run(
        [sys.executable, "-m", "autotune.cli", "init", str(script), "--gpu", "H10", "-o", str(work / "typo.yaml")],
        cwd=work, env={**os.environ, "PYTHONPATH": str(ROOT)}, capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert typo.returncode == 2 and "--gpu H10: unknown GPU" in typo.stderr, typo.stdout + typo.stderr
    assert not (work / "typo.yaml").exists()  # refused before anything was written
    other = run_init(script, work, "--gpus-per-node", "8", "-o", "other.yaml")
    assert other.returncode == 0, other.stderr
    assert "#   autotune run --space other.yaml --fidelity sim" in (work / "other.yaml").read_text()  # not the study's
    assert f"wrote {written.name}" in out.stdout
    assert f"ok {written.name}" in out.stdout  # validated
    assert "pre-screen on 8 x H100" in out.stdout and "the job itself: predicted peak" in out.stdout
    # at lengths guessed from the limits, said; the space has a place for the run's (audit 21 F15)
    assert "  at mean prompt " in out.stdout and "(0.8 of data.max_prompt_length)" in out.stdout, out.stdout
    assert "the run's own lengths go under `sim:`" in out.stdout
    assert "  # response_max: 512              # response_length/max" in written.read_text()
    space = yaml.safe_load(written.read_text())
    job = read_job(script.read_text(), "run.sh")
    assert {k: v for k, v in space["base"].items() if k in job.flat} == job.flat  # the job exactly
    tp = space["params"]["actor_rollout_ref.rollout.tensor_model_parallel_size"]["choices"]
    assert tp and all(8 % t == 0 and 12 % t == 0 for t in tp)
    assert space["limits"][0] == {"metric": "actor/kl_loss", "reducer": "last", "max": 0.05, "alarm_above": 0.1}
    assert "#   algorithm.kl_ctrl.kl_coef: 0.001" in written.read_text()  # listed for the quality stage


VERL_SPACES = {
    "fsdp3d-8gpu": {},
    "verl-vllm-8gpu": {},
    "fsdp3d-64gpu": {},
    # its base leaves the rank count and the micro-batches (which verl requires) to its params
    "verl-cpu": {"trainer.n_gpus_per_node": 2, "actor_rollout_ref.actor.ppo_micro_batch_size_per_gpu": 2,
                 "actor_rollout_ref.rollout.log_prob_micro_batch_size_per_gpu": 2,
                 "actor_rollout_ref.ref.log_prob_micro_batch_size_per_gpu": 2},
}  # fmt: skip


@pytest.mark.parametrize("name", VERL_SPACES)
def test_init_on_a_shipped_spaces_own_base_reproduces_a_space_that_validates(tmp_path: Path, name: str) -> None:
    from autotune.adapters.verl_config import overrides

    shipped = yaml.safe_load((SPACE_DIR / f"{name}.yaml").read_text())
    shipped["base"].update(VERL_SPACES[name])
    lines = [shlex.quote(line) for line in overrides(shipped["base"])]  # as a script would write them
    command = "python3 -m verl.trainer.main_ppo \\\n    " + " \\\n    ".join(lines)
    job = read_job(command, f"{name}.sh")
    assert job.flat == shipped["base"]
    g, nodes = shipped["base"]["trainer.n_gpus_per_node"], shipped["base"]["trainer.nnodes"]
    cluster = Cluster(g, nodes, None if name == "verl-cpu" else "H100")
    path = tmp_path / f"{name}-init.yaml"
    path.write_text(render_space(job, cluster, recipe(job, cluster, verl_tree()[1]), f"{name}-init"))
    space = load_space(str(path))
    assert space.trial.world_size == g * nodes
    assert space.base == {**shipped["base"]}
    tuned = {p.name for p in space.params}
    assert tuned >= {k for k in shipped["params"] if k.startswith(("actor_rollout_ref.rollout.tensor", FSDP))}
    # a plain `python3 -m ...` is not written as the space's command: PATH's python3 ran the trials, not the Python
    # init found verl in, and an unactivated venv's trials failed at once (audit 25 F7); a launcher of its own is
    assert space.command is None and "# command: left out (the job's `python3 -m verl.trainer.main_ppo`)" in (
        path.read_text()
    )
    own = read_job(command.replace("python3 -m", "/opt/env/bin/python -m", 1), f"{name}.sh")
    path.write_text(render_space(own, cluster, recipe(own, cluster, verl_tree()[1]), f"{name}-init"))
    assert load_space(str(path)).command == ["/opt/env/bin/python", "-m", "verl.trainer.main_ppo"]


def test_a_verl_yaml_is_read_key_for_key(tmp_path: Path) -> None:
    """A YAML as `autotune export` writes it (verl's defaults list + nested keys): every key it sets, also
    those equal to verl's defaults."""
    from autotune.adapters.verl_config import render_yaml

    base = yaml.safe_load((SPACE_DIR / "verl-vllm-8gpu.yaml").read_text())["base"]
    job = read_job(render_yaml(base, ["my job"]), "job.yaml")
    assert job.flat == base
    assert job.notes == []


def test_shell_defaults_are_used_and_an_unset_variable_in_a_number_is_refused_with_its_name() -> None:
    job = read_job("G=${GPUS:-4}\npython3 -m verl.trainer.main_ppo trainer.n_gpus_per_node=$G", "cmd")
    assert job.flat == {"trainer.n_gpus_per_node": 4}
    with pytest.raises(
        JobError,
        match=r"`data.train_batch_size`: verl expects a number, got '\$TBS' \(\$TBS: not set in the script; write the value instead\)",
    ):  # (a cluster key's, `trainer.nnodes=$NODES`, is init's `--nodes`: test_script_reading)
        read_job("python3 -m verl.trainer.main_ppo data.train_batch_size=$TBS", "cmd")


def test_a_hash_inside_a_word_is_no_comment_and_nested_defaults_are_filled_in() -> None:
    """As bash reads them: `name='run#3'` is one word (shlex's comments cut the joined line there: every override
    after it was lost, and the sweep measured verl's defaults); `${A:-"${HOME}/x"}` (verl's recipes) is the
    default with HOME filled in (it read `${RAY_DATA_HOME/models/...}`, an interpolation verl cannot resolve)."""
    script = (
        'RAY_DATA_HOME=${RAY_DATA_HOME:-"${HOME}/verl"}\n'
        'MODEL=${MODEL_PATH:-"${RAY_DATA_HOME}/models/Qwen3-8B"}  # the model\n'
        "python3 -m verl.trainer.main_ppo \\\n"
        "    \"trainer.experiment_name='qwen7b_run#3'\" \\\n"
        "    actor_rollout_ref.model.path=$MODEL \\\n"
        "    actor_rollout_ref.rollout.n=8 trainer.n_gpus_per_node=8 # not an override: trainer.nnodes=2\n"
    )
    job = read_job(script, "run.sh")
    assert job.flat == {
        "trainer.experiment_name": "qwen7b_run#3",
        "actor_rollout_ref.model.path": "~/verl/models/Qwen3-8B",
        "actor_rollout_ref.rollout.n": 8,
        "trainer.n_gpus_per_node": 8,
    }
    assert job.unset == ()
    # unquoted, hydra (and so verl) cannot read it: refused with the quoting that works
    with pytest.raises(JobError, match=r"hydra reads `#` only inside quotes: write trainer.experiment_name='run#3'"):
        read_job("python3 -m verl.trainer.main_ppo trainer.experiment_name=run#3 trainer.nnodes=1", "cmd")


def test_shell_arithmetic_is_worked_out_and_a_command_the_script_runs_is_named() -> None:
    """verl's example scripts write `$((1024 * 2))` and `$((max_prompt_length + max_response_length))` (a sixth of
    them stopped at a bare hydra parse error of `$((1024`); `a=1; b=2` sets both; `$(date)` is not run."""
    job = read_job(
        "P=512; R=$((P * 4))\nTS=$(date +%s)\nx=$((unknown + 1))\n"
        "python3 -m verl.trainer.main_ppo data.max_prompt_length=$((P * 2)) data.max_response_length=$R \\\n"
        "  actor_rollout_ref.actor.ppo_max_token_len_per_gpu=$(( (P + R) * 3 )) trainer.experiment_name=run_$TS\n",
        "run.sh",
    )
    assert job.flat == {
        "data.max_prompt_length": 1024,
        "data.max_response_length": 2048,
        "actor_rollout_ref.actor.ppo_max_token_len_per_gpu": (512 + 2048) * 3,
        "trainer.experiment_name": "run_$TS",
    }
    assert any("set by a command the script runs (`$(...)`)" in n and "$TS" in n for n in job.notes), job.notes
    with pytest.raises(JobError, match=r"`\$\(\(7 / 0\)\)` divides by zero \(bash refuses it too\)"):
        read_job("python3 -m verl.trainer.main_ppo data.max_prompt_length=$((7 / 0))", "cmd")
    with pytest.raises(JobError, match=r"`\$\(\(Q \* 2\)\)` uses `Q`, which the script does not set; write the number"):
        read_job("python3 -m verl.trainer.main_ppo data.max_prompt_length=$((Q * 2))", "cmd")
    with pytest.raises(JobError, match=r"runs a command \(`\$\(\.\.\.\)`\) for its value, which init does not run"):
        read_job("python3 -m verl.trainer.main_ppo trainer.experiment_name=run_$(date +%s)", "cmd")


def test_a_yaml_whose_comment_names_the_command_is_read_as_yaml() -> None:
    """autotune's own export says `# run: python -m verl.trainer.main_ppo ...` in its header: init on it said
    "no command found" (a second round of tuning from a winner)."""
    job = read_job(
        "# run: python -m verl.trainer.main_ppo --config-name=best\ndata:\n  train_batch_size: 4\n", "best.yaml"
    )
    assert job.flat == {"data.train_batch_size": 4}


def test_a_calibrated_runs_commented_out_override_is_not_its_config(tmp_path: Path) -> None:
    """A `#` inside a word is no comment (the override after it is the run's); a commented-out line is not. The
    script is read as `init` reads it: `name=run#3` unquoted, which verl's hydra refuses, is refused with init's
    message (calibrate's own reader took it, a config no run had)."""
    from autotune.scaffold.run_config import read_run_config

    script = tmp_path / "run.sh"
    script.write_text(
        "python3 -m verl.trainer.main_ppo data.train_batch_size=64 \\\n"
        "  \"trainer.experiment_name='run#3'\" data.max_response_length=256 \\\n"
        "  # actor_rollout_ref.rollout.tensor_model_parallel_size=4\n"
    )
    assert read_run_config(script).flat == {
        "data.train_batch_size": 64, "trainer.experiment_name": "run#3", "data.max_response_length": 256,
    }  # fmt: skip
    script.write_text(
        script.read_text().replace("\"trainer.experiment_name='run#3'\"", "trainer.experiment_name=run#3")
    )
    with pytest.raises(JobError, match=r"run.sh:2: hydra cannot read `trainer.experiment_name=run#3`"):
        read_run_config(script)


def run_init(script: Path, cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "autotune.cli", "init", str(script), *args],
        cwd=cwd, env={**os.environ, "PYTHONPATH": str(ROOT)}, capture_output=True, text=True, timeout=300,
    )  # fmt: skip


def test_a_typo_in_a_run_script_is_refused_at_its_line_with_the_closest_key(tmp_path: Path) -> None:
    """Every unknown key at once, each at the physical line of the script (continuations are joined to read it)."""
    text = EXAMPLE.format(model=model_dir(tmp_path, 12))
    text = text.replace("ppo_mini_batch_size=", "ppo_mini_bach_size=").replace("kl_loss_coef=", "kl_los_coef=")
    script = tmp_path / "run.sh"
    script.write_text(text)
    lines = text.splitlines()
    mini, kl = (1 + next(i for i, ln in enumerate(lines) if word in ln) for word in ("mini_bach", "kl_los_"))
    out = run_init(script, tmp_path)
    assert out.returncode == 2, out.stdout + out.stderr
    problems = out.stderr.strip().splitlines()
    assert problems == [
        f"{script}:{mini}: verl has no key `actor_rollout_ref.actor.ppo_mini_bach_size`; did you mean "
        "`actor_rollout_ref.actor.ppo_mini_batch_size`? (fix its name; a key your run adds as `+key=value` goes "
        "in the exported `.overrides`, not in the job given to init)",
        f"{script}:{kl}: verl has no key `actor_rollout_ref.actor.kl_los_coef`; did you mean "
        "`actor_rollout_ref.actor.kl_loss_coef`? (fix its name; a key your run adds as `+key=value` goes "
        "in the exported `.overrides`, not in the job given to init)",
    ]
    assert list(tmp_path.glob("*.yaml")) == []


def test_a_job_verl_refuses_is_blamed_on_the_script_before_anything_is_written(tmp_path: Path) -> None:
    """verl's own start-up check (here its default mini-batch, 256, above the job's batch of 64) runs before
    the write: the error names the script's keys and verl's defaults, and the fixed script needs no --force."""
    text = EXAMPLE.format(model=model_dir(tmp_path, 12)).replace("train_batch_size=1024", "train_batch_size=64")
    text = text.replace("    actor_rollout_ref.actor.ppo_mini_batch_size=256 \\\n", "")
    script = tmp_path / "run.sh"
    script.write_text(text)
    batch = 1 + next(i for i, ln in enumerate(text.splitlines()) if "train_batch_size=64" in ln)
    out = run_init(script, tmp_path, "--gpu", "H100")
    assert out.returncode == 2, out.stdout + out.stderr
    [error] = out.stderr.strip().splitlines()
    assert error.startswith(f"{script}: verl refuses the job: train_batch_size (64) must be >= "), error
    assert f"(`data.train_batch_size`=64 set at {script}:{batch}; " in error
    assert "; `actor_rollout_ref.actor.ppo_mini_batch_size`=256 verl's default, not in the script)" in error
    assert error.endswith(
        f"; fix it in {script} (a key it does not set: add `key=value`) and rerun init; nothing was written"
    )
    assert list(tmp_path.glob("*.yaml")) == []
    script.write_text(
        text.replace("train_batch_size=64", "train_batch_size=64 actor_rollout_ref.actor.ppo_mini_batch_size=32")
    )
    again = run_init(script, tmp_path, "--gpu", "H100")
    assert again.returncode == 0, again.stdout + again.stderr  # no --force: the refused run wrote nothing
    assert (tmp_path / "qwen2_7b_function_rm.yaml").is_file()


def test_a_field_verl_names_otherwise_is_given_by_its_config_key() -> None:
    """verl's message asks for 'critic.micro_batch_size_per_gpu', a key its config does not have (adding it is
    refused as unknown): the refusal names the config's own keys beside it."""
    from autotune.scaffold.job import _keys_named

    reason = "[critic] Please set at least one of 'critic.micro_batch_size' or 'critic.micro_batch_size_per_gpu'"
    assert _keys_named(reason, {}) == ["critic.ppo_micro_batch_size", "critic.ppo_micro_batch_size_per_gpu"]


DYNAMIC_JOB = """\
python3 -m verl.trainer.main_ppo algorithm.adv_estimator=grpo \\
    data.train_batch_size=512 data.max_prompt_length=512 data.max_response_length=1024 \\
    actor_rollout_ref.model.path=Qwen/Qwen2.5-7B-Instruct actor_rollout_ref.actor.ppo_mini_batch_size=128 \\
    actor_rollout_ref.actor.use_dynamic_bsz=True actor_rollout_ref.actor.ppo_max_token_len_per_gpu=16384 \\
    actor_rollout_ref.rollout.tensor_model_parallel_size=2 actor_rollout_ref.rollout.n=5 {extra} \\
    trainer.n_gpus_per_node=8 trainer.nnodes=1
"""
ROLLOUT_BUDGET = "actor_rollout_ref.rollout.log_prob_max_token_len_per_gpu"
REF_BUDGET = "actor_rollout_ref.ref.log_prob_max_token_len_per_gpu"
LOGPROB_MICROS = ("actor_rollout_ref.rollout.log_prob_micro_batch_size_per_gpu",
                  "actor_rollout_ref.ref.log_prob_micro_batch_size_per_gpu")  # fmt: skip


def test_the_jobs_own_log_prob_budgets_are_its_baseline_or_kept_when_one_knob_cannot_hold_them(tmp_path: Path) -> None:
    """The job's rollout budget 49152 (its ref's follows the actor's 16384) was overwritten with 16384 by the one
    knob for both passes, in the baseline and in the export ("the baseline ships" shipped another budget)."""
    defaults = verl_tree()[1]
    job = read_job(DYNAMIC_JOB.format(extra=f"{ROLLOUT_BUDGET}=49152"), "dyn.sh")
    rec = recipe(job, Cluster(8), defaults)
    assert "logprob_token_budget" not in {k.name for k in rec.knobs}
    assert not {ROLLOUT_BUDGET, REF_BUDGET} & set(rec.derived)
    assert any("different token budgets (ref 16384, rollout 49152)" in n for n in job.notes), job.notes
    assert baseline(job, Cluster(8), rec)[ROLLOUT_BUDGET] == 49152
    both = read_job(DYNAMIC_JOB.format(extra=f"{ROLLOUT_BUDGET}=24000 {REF_BUDGET}=24000"), "dyn.sh")
    rec = recipe(both, Cluster(8), defaults)
    [budget] = [k for k in rec.knobs if k.name == "logprob_token_budget"]
    assert budget.baseline == 24000 and 24000 in budget.spec["choices"]
    assert rec.derived[ROLLOUT_BUDGET]["value"] == "logprob_token_budget"


def test_dynamic_batching_turned_off_has_the_log_prob_micro_batches_verl_needs(tmp_path: Path) -> None:
    """verl's seq-balance examples set dynamic batching and no micro-batch: the space's `use_dynamic_bsz: false`
    half lacked the log-prob passes' micro-batches, so every such configuration was one verl refuses (a simulated
    sweep's winner among them, which only `export --check` caught)."""
    from autotune.adapters import get_adapter
    from autotune.space.sampling import trial_config

    job = read_job(DYNAMIC_JOB.format(extra=""), "seqbal.sh")
    cluster = Cluster(8, 1, "H100")
    path = tmp_path / "seqbal.yaml"
    path.write_text(render_space(job, cluster, recipe(job, cluster, verl_tree()[1]), "seqbal"))
    space = load_space(str(path))
    adapter = get_adapter("verl")
    defaults = adapter.defaults(space.base_config)
    params = {**space.baseline, "actor_rollout_ref.actor.use_dynamic_bsz": False,
              "actor_rollout_ref.actor.ppo_micro_batch_size_per_gpu": 4}  # fmt: skip
    params = {k: v for k, v in params.items() if k not in ("actor_rollout_ref.actor.ppo_max_token_len_per_gpu",
                                                           "logprob_token_budget")}  # fmt: skip
    config = trial_config(space, adapter, params, defaults)
    assert all(config.flat[key] == 4 for key in LOGPROB_MICROS)
    adapter.check(space.base_config, config.flat, space.trial.world_size)  # verl's validate_config takes it


def test_a_deprecated_global_micro_batch_is_written_per_gpu_not_beside_it() -> None:
    """`actor.ppo_micro_batch_size=64` (every verl <= 0.2 script): init added the per-GPU baseline beside it and
    then said "verl refuses the job" (both set), blaming the job for its own addition."""
    job = read_job(
        DYNAMIC_JOB.format(
            extra="actor_rollout_ref.actor.ppo_micro_batch_size=64 actor_rollout_ref.rollout.log_prob_micro_batch_size=128 "
            "actor_rollout_ref.ref.log_prob_micro_batch_size=128"
        ).replace("actor_rollout_ref.actor.use_dynamic_bsz=True ", ""),
        "old.sh",
    )
    rec = recipe(job, Cluster(8), verl_tree()[1])
    assert "actor_rollout_ref.actor.ppo_micro_batch_size" not in job.flat
    assert job.flat["actor_rollout_ref.actor.ppo_micro_batch_size_per_gpu"] == 8  # 64 / 8 GPUs, as verl divides it
    assert any("(deprecated: over all 8 GPUs) is written as" in n for n in job.notes), job.notes
    check_starts(job, baseline(job, Cluster(8), rec), 8)  # verl takes the baseline


def test_hydra_settings_and_a_one_name_logger_and_the_scripts_arguments_are_read_as_verl_takes_them() -> None:
    """init wrote a space with `hydra.run.dir` (not verl's) or `trainer.logger: console` (verl wraps it) and
    then called its own file invalid, leaving it behind; `"${@}"` and `~key` were 'not a key=value override'."""
    job = read_job(
        'python3 -m verl.trainer.main_ppo trainer.logger=console hydra.run.dir=/tmp/outs trainer.nnodes=1 "${@}"',
        "job.sh",
    )
    assert job.flat == {"trainer.logger": ["console"], "trainer.nnodes": 1}
    spelled = read_job("python3 -m verl.trainer.main_ppo --config-name=ppo_trainer trainer.nnodes=1", "job.sh")
    assert spelled.flat == {"trainer.nnodes": 1}  # verl's own default written out: "give that YAML" was wrong
    for flag in ("--config-name ppo_trainer", "--config-name ppo_trainer.yaml"):  # hydra takes the next word too
        assert read_job(f"python3 -m verl.trainer.main_ppo {flag} trainer.nnodes=1", "job.sh").flat == {
            "trainer.nnodes": 1
        }
    with pytest.raises(JobError, match="a Megatron job"):
        read_job("python3 -m verl.trainer.main_ppo --config-name ppo_megatron_trainer trainer.nnodes=1", "job.sh")
    assert any("hydra's own setting" in n for n in job.notes) and any("left out" in n for n in job.notes)
    with pytest.raises(JobError, match=r"`~trainer.logger` deletes `trainer.logger` from verl's config"):
        read_job("python3 -m verl.trainer.main_ppo ~trainer.logger trainer.nnodes=1", "job.sh")


def test_a_secret_the_job_exports_stays_out_of_the_space_and_is_said(tmp_path: Path) -> None:
    """`export WANDB_API_KEY=...` (verl's slurm examples write it) went into the space's `env:`, then into each
    trial's folder, the study's storage, the export and the HTML report (audit 36 F11). A tokenizer setting whose
    name holds `TOKEN` in another word stays."""
    text = (
        "export WANDB_API_KEY=0123abcd\nexport HF_TOKEN=hf_x\nexport TOKENIZERS_PARALLELISM=false\n"
        + EXAMPLE.format(model=model_dir(tmp_path, 12))
    )
    job = read_job(text, "run.sh")
    assert job.env == {"TOKENIZERS_PARALLELISM": "false", "VLLM_ATTENTION_BACKEND": "XFORMERS"}
    [said] = [n for n in job.notes if "secret" in n]
    assert said.startswith("HF_TOKEN, WANDB_API_KEY: secrets, left out of `env:`") and "export HF_TOKEN=" in said
    written = render_space(job, Cluster(8), recipe(job, Cluster(8), verl_tree()[1]), "x")
    assert "0123abcd" not in written and "hf_x" not in written and "TOKENIZERS_PARALLELISM" in written


def test_an_export_that_extends_the_machines_value_is_left_out_of_env_with_why() -> None:
    """`export PYTHONPATH=$PYTHONPATH:/opt/x` became the literal `$PYTHONPATH:/opt/x` in every Ray worker (the
    path verl is imported from, gone), and `${LD_LIBRARY_PATH}:...` crashed `export --check` with a traceback."""
    from omegaconf import OmegaConf

    from autotune.adapters.verl_config import env_problems

    job = read_job(
        "export PYTHONPATH=$PYTHONPATH:/opt/mylib\nexport LD_LIBRARY_PATH=${LD_LIBRARY_PATH}:/usr/local/cuda/lib64\n"
        "export VLLM_ATTENTION_BACKEND=XFORMERS\npython3 -m verl.trainer.main_ppo trainer.nnodes=1",
        "envjob.sh",
    )
    assert job.env == {"VLLM_ATTENTION_BACKEND": "XFORMERS"}
    said = [n for n in job.notes if "extends the value the machine has" in n]
    assert len(said) == 2 and "`PYTHONPATH=$PYTHONPATH:/opt/mylib`" in said[0], job.notes
    assert not any("put their values in `base:`" in n for n in job.notes)  # not the section env lives in
    taken = read_job("export K=$MYKEY\npython3 -m verl.trainer.main_ppo trainer.nnodes=1", "key.sh")
    assert any(n.startswith("`K=$MYKEY` takes a variable from the machine's environment") for n in taken.notes)
    cfg = OmegaConf.create({"ray_kwargs": {"ray_init": {"runtime_env": {"env_vars": {"LD": "${LD_LIBRARY_PATH}:/x"}}}}})
    [problem] = env_problems(cfg)
    assert (
        "env_vars.LD`='${LD_LIBRARY_PATH}:/x' holds `${...}`, which verl's config reads as one of its own keys"
        in problem
    )


def test_a_variable_set_inside_a_condition_is_named() -> None:
    """`export VLLM_USE_V1=1` inside `if [ "$rollout_name" = "vllm" ]` went into `env:` of an sglang job without a word."""
    job = read_job(
        'rollout_name="sglang"\nif [ "$rollout_name" = "vllm" ]; then\n    export VLLM_USE_V1=1\nfi\nA=2\n'
        "python3 -m verl.trainer.main_ppo trainer.nnodes=$A actor_rollout_ref.rollout.name=$rollout_name",
        "run.sh",
    )
    assert job.flat == {"trainer.nnodes": 2, "actor_rollout_ref.rollout.name": "sglang"}
    said = [n for n in job.notes if n.startswith("set inside an `if`, `case` or loop, read as if it ran: ")]
    assert said and said[0].split(": ", 1)[1].startswith("VLLM_USE_V1 (")  # not A, set after the `fi`


def test_a_dump_of_verls_own_config_resolved_or_not_is_read() -> None:
    """A resolved dump (what verl prints at start-up) was refused with 17 lines of "verl has no key
    `rollout.mtp.*`" (its interpolated defaults resolved to mappings); an unresolved one that sets 8 GPUs per node
    (verl's default) was told it does not set them."""
    from importlib.util import find_spec

    from omegaconf import OmegaConf

    generated = Path(find_spec("verl").origin).parent / "trainer" / "config" / "_generated_ppo_trainer.yaml"  # type: ignore[arg-type]
    dump = yaml.safe_load(generated.read_text())
    dump["data"]["train_batch_size"] = 256
    dump["actor_rollout_ref"]["model"]["path"] = "Qwen/Qwen2.5-7B-Instruct"
    dump["actor_rollout_ref"]["rollout"]["n"] = 8
    dump["trainer"].update(n_gpus_per_node=8, experiment_name="dumped")
    for name, data in (
        ("dumped.yaml", dump),
        ("resolved.yaml", OmegaConf.to_container(OmegaConf.create(dump), resolve=True)),
    ):
        job = read_job(yaml.safe_dump(data, sort_keys=False), name)
        assert job.flat["trainer.n_gpus_per_node"] == 8 and job.flat["actor_rollout_ref.rollout.n"] == 8, name
        assert not any(".mtp." in k or ".qat." in k for k in job.flat), name


def test_the_job_runs_with_the_variables_as_they_are_at_its_command_and_exports_of_set_variables() -> None:
    """`LR=1e-6; cmd lr=$LR; LR=5e-6` read 5e-6 (the last value, not the job's); `NAME=v` then `export NAME` was
    left out of env: (verl's workers inherit it)."""
    job = read_job(
        "LR=1e-6\nNCCL_DEBUG=WARN\nexport NCCL_DEBUG\nV=XFORMERS; export V\n"
        "python3 -m verl.trainer.main_ppo actor_rollout_ref.actor.optim.lr=$LR trainer.nnodes=1\nLR=5e-6  # later\n"
        "export LATE=1\n",
        "run.sh",
    )
    assert job.flat["actor_rollout_ref.actor.optim.lr"] == 1e-6
    assert job.env == {"NCCL_DEBUG": "WARN", "V": "XFORMERS"}


def test_a_deprecated_global_micro_batch_verl_refuses_is_refused_with_verls_rule() -> None:
    """4 over 8 GPUs (below one a GPU) and 60 (not dividing the mini-batch 256) were written per GPU as 1 and 7: a
    baseline that never ran, for jobs verl refuses."""
    base = DYNAMIC_JOB.format(
        extra="actor_rollout_ref.rollout.log_prob_micro_batch_size=128 actor_rollout_ref.ref.log_prob_micro_batch_size=128"
    ).replace("actor_rollout_ref.actor.use_dynamic_bsz=True ", "")
    for size, rule in ((4, r"ppo_micro_batch_size \(4\) × ulysses_sequence_parallel_size \(1\) must be >= the 8 GPUs"),
                       (60, r"ppo_mini_batch_size \(128\) must be divisible by ppo_micro_batch_size \(60\)")):  # fmt: skip
        job = read_job(
            base.replace("trainer.nnodes=1", f"trainer.nnodes=1 actor_rollout_ref.actor.ppo_micro_batch_size={size}"),
            "old.sh",
        )
        with pytest.raises(JobError, match=rf"verl refuses the job: {rule}"):
            recipe(job, Cluster(8), verl_tree()[1])


def test_a_case_branchs_assignment_is_read_and_named_and_an_empty_variable_takes_its_default() -> None:
    """`vllm) TP=2 ;;` was not read at all (TP stayed 1, no note); `TBS=` then `${TBS:-64}` read '' (bash: 64)."""
    job = read_job(
        "TP=1\nENGINE=${ENGINE:-vllm}\ncase $ENGINE in\n  vllm) TP=2 ;;\nesac\nTBS=\n"
        "python3 -m verl.trainer.main_ppo actor_rollout_ref.rollout.tensor_model_parallel_size=$TP "
        "data.train_batch_size=${TBS:-64}\n",
        "run.sh",
    )
    assert job.flat == {"actor_rollout_ref.rollout.tensor_model_parallel_size": 2, "data.train_batch_size": 64}
    assert any(n.startswith("set inside an `if`, `case` or loop, read as if it ran: TP") for n in job.notes)


def test_a_resolved_dump_reads_as_the_same_job_as_the_unresolved_one() -> None:
    """A resolved dump pinned the keys verl derives from others (`critic.use_dynamic_bsz: true`, the log-prob
    passes' dynamic batching, `rollout.response_length`): the sweep's "dynamic batching off" switched the actor only."""
    from omegaconf import OmegaConf

    from autotune.adapters.verl_config import compose

    cfg = compose([
        "data.train_batch_size=1024", "data.max_prompt_length=512", "data.max_response_length=1024",
        "actor_rollout_ref.model.path=Qwen/Qwen2.5-7B-Instruct", "actor_rollout_ref.actor.ppo_mini_batch_size=256",
        "actor_rollout_ref.actor.use_dynamic_bsz=True", "actor_rollout_ref.actor.ppo_max_token_len_per_gpu=16384",
        "actor_rollout_ref.rollout.log_prob_max_token_len_per_gpu=49152", "trainer.n_gpus_per_node=8",
        "trainer.experiment_name=dumped",
    ])  # fmt: skip
    unresolved = read_job(OmegaConf.to_yaml(cfg), "unres.yaml").flat
    resolved = read_job(OmegaConf.to_yaml(cfg, resolve=True), "res.yaml").flat
    assert resolved == unresolved and "critic.use_dynamic_bsz" not in resolved
    assert resolved["actor_rollout_ref.rollout.log_prob_max_token_len_per_gpu"] == 49152  # set by the job: kept


def test_shell_arithmetic_divides_as_bash_does_toward_zero() -> None:
    """bash's `$((-7 / 2))` is -3 and `$((-7 % 2))` is -1 (C's integer division, checked by hand in bash);
    Python's `//` and `%` give -4 and 1."""
    job = read_job(
        "python3 -m verl.trainer.main_ppo data.train_batch_size=$((-7 / 2 + 10)) data.max_prompt_length=$((7 / -2 + 9))"
        " data.max_response_length=$((-7 % 2 + 5)) actor_rollout_ref.rollout.n=$((9 / 2))",
        "cmd",
    )
    assert job.flat == {
        "data.train_batch_size": 7, "data.max_prompt_length": 6, "data.max_response_length": 4,
        "actor_rollout_ref.rollout.n": 4,
    }  # fmt: skip


def test_a_single_quoted_dollar_is_text_as_in_bash() -> None:
    """bash does not expand `$N` inside single quotes or escaped: `'run_$N'` reaches verl as `run_$N`, not `run_4`."""
    job = read_job(
        "N=4\npython3 -m verl.trainer.main_ppo trainer.experiment_name='run_$N' data.train_batch_size=\"$N\" "
        "trainer.project_name='p_$N'_$N trainer.default_local_dir=ckpt/\\$N",
        "run.sh",
    )
    assert job.flat == {
        "trainer.experiment_name": "run_$N", "data.train_batch_size": 4, "trainer.project_name": "p_$N_4",
        "trainer.default_local_dir": "ckpt/$N",
    }  # fmt: skip
    assert not any("not set in the script" in n for n in job.notes), job.notes


def test_init_refuses_a_model_it_cannot_read_and_carries_the_one_it_read_to_the_next_command(tmp_path: Path) -> None:
    """`--model` given with a typo was ignored (exit 0, TP 8 offered for a 28-head model); a broken config.json was
    a traceback, the incomplete one after the space was written; the model read was not in the `next:` command,
    which then died with a traceback on the job's model path, not local here (audit 12 F3, F4, F5)."""
    script = tmp_path / "run.sh"
    script.write_text(EXAMPLE.format(model="/models/my-sft"))
    (tmp_path / "cut").mkdir()
    (tmp_path / "cut" / "config.json").write_text('{"model_type": "qwen2", "hidden_size": 3584')
    (tmp_path / "bare").mkdir()
    (tmp_path / "bare" / "config.json").write_text('{"model_type": "qwen2"}')
    (tmp_path / "neg").mkdir()  # a negative head count was taken: "the -28 attention heads", TP [1, 2, 4] offered
    neg = {"hidden_size": 3584, "intermediate_size": 18944, "num_attention_heads": -28, "num_hidden_layers": 28,
           "vocab_size": 152064}  # fmt: skip
    (tmp_path / "neg" / "config.json").write_text(json.dumps(neg))
    refused = {
        "nosuch/config.json": "--model nosuch/config.json: no such file, no config.json in that folder, and no "
        "cost-model preset matches",
        "cut": "cut/config.json: not a readable JSON file (Expecting ',' delimiter",
        "bare": "bare/config.json: no `num_attention_heads`, `hidden_size`, `intermediate_size`, `num_hidden_layers`, "
        "`vocab_size`",
        "neg": "neg/config.json: `num_attention_heads`: -28: each must be a whole number above 0",
    }
    job = read_job(script.read_text(), str(script))
    for model, said in refused.items():  # in this process: each `autotune init` costs seconds of imports
        given = model if model.startswith("nosuch") else str(tmp_path / model)
        with pytest.raises(JobError) as exc:
            recipe(job, Cluster(8, 1, "H100"), verl_tree()[1], given)
        assert said in str(exc.value), (model, str(exc.value))
    out = run_init(script, tmp_path, "--gpu", "H100", "--model", "nosuch/config.json", "-o", "o.yaml")
    assert out.returncode == 2 and refused["nosuch/config.json"] in " ".join(out.stderr.split()), out.stderr
    assert not (tmp_path / "o.yaml").exists()  # refused before anything was written
    model = model_dir(tmp_path, 12)
    out = run_init(script, tmp_path, "--gpu", "H100", "--model", str(model), "-o", "my space.yaml")
    assert out.returncode == 0, out.stdout + out.stderr
    assert f"next: autotune run --space 'my space.yaml' --fidelity sim --model {model}" in out.stdout, out.stdout
    sim = subprocess.run(  # the space names the job's model, a cluster path not here: refused, not a traceback
        [sys.executable, "-m", "autotune.cli", "run", "--space", "my space.yaml", "--fidelity", "sim", "--trials", "2"],
        cwd=tmp_path, env={**os.environ, "PYTHONPATH": str(ROOT)}, capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert sim.returncode == 2, sim.stdout + sim.stderr
    assert "my space.yaml: `actor_rollout_ref.model.path` /models/my-sft: model '/models/my-sft': no config.json " \
        "there and no preset matches" in " ".join(sim.stderr.split()), sim.stderr  # fmt: skip
    assert "give --model with the model's config.json" in " ".join(sim.stderr.split())
    assert not (tmp_path / "runs").exists()  # refused before a study folder was made


def test_init_refuses_a_space_a_folder_a_missing_folder_and_broken_yaml_in_one_line(tmp_path: Path) -> None:
    """Each in one line naming the file and the fix, exit 2, nothing written (audit 25): a search space given as the
    job printed 96 "verl has no key" lines (F6); `-o` a folder suggested --force, which then failed with "Is a
    directory", and a missing folder was said after verl's check, as a bare errno (F13); a broken YAML job or device
    file quoted PyYAML naming "<unicode string>" and the --gpu prefix twice (F14)."""
    script = tmp_path / "run.sh"
    script.write_text(EXAMPLE.format(model=model_dir(tmp_path, 12)))
    (tmp_path / "adir").mkdir()
    broken = tmp_path / "broken.yaml"
    broken.write_text("data: {train_batch_size: [64\n")
    device = tmp_path / "gpu.yaml"
    device.write_text("peak_tflops: [\n")
    space = SPACE_DIR / "fsdp3d.yaml"
    cases = [
        ((str(space),), f"{space}: an autotune search space, not a verl job; init writes a space from your job"),
        ((str(script), "-o", "adir"), "-o adir is a folder; give a file name (e.g. myjob.yaml)"),
        ((str(script), "-o", "adir", "--force"), "-o adir is a folder"),
        ((str(script), "-o", "no/x.yaml"), f"-o no/x.yaml cannot be written: its folder {tmp_path / 'no'} does not"),
        ((str(broken),), f"{broken}:2: neither a `verl.trainer.main_ppo` command nor valid YAML: expected ','"),
        ((str(script), "--gpu", str(device), "-o", "g.yaml"), f"--gpu {device}:2: not valid YAML: "),
    ]
    for args, said in cases:
        proc = subprocess.run(
            [sys.executable, "-m", "autotune.cli", "init", *args],
            cwd=tmp_path, env={**os.environ, "PYTHONPATH": str(ROOT)}, capture_output=True, text=True, timeout=300,
        )  # fmt: skip
        out = " ".join(proc.stderr.split())
        assert proc.returncode == 2 and out.startswith(said), (args, proc.stdout + proc.stderr)
        assert len(proc.stderr.strip().splitlines()) <= 3 and "<unicode string>" not in out, proc.stderr  # one line
        assert out.count("--gpu") <= 2 and "--gpu --gpu" not in out and f"--gpu {device}: --gpu" not in out, out
    assert not (tmp_path / "g.yaml").exists() and not (tmp_path / "no").exists()


def test_an_unknown_key_names_the_verl_version_it_was_checked_against() -> None:
    """verl's Qwen2.5-VL NPU examples set `trainer.use_legacy_worker_impl`, a key of older verl that 0.9 dropped: the
    refusal said only "fix its name" (audit 39 F4); it names the verl installed here and says to leave such a key out."""
    from importlib.metadata import version

    with pytest.raises(JobError) as e:
        read_job("python3 -m verl.trainer.main_ppo trainer.use_legacy_worker_impl=disable", "job.sh")
    assert str(e.value) == (
        "job.sh:1: verl has no key `trainer.use_legacy_worker_impl` (fix its name; a key your run adds as `+key=value` "
        "goes in the exported `.overrides`, not in the job given to init; the keys are "
        f"verl {version('verl')}'s, the verl installed here: a key only another verl version has is refused so: leave "
        "it out)"
    )


def test_an_unknown_key_gets_no_suggestion_alike_only_by_its_section() -> None:
    """DAPO's `reward_model.overlong_buffer.len` got "did you mean `reward_model.rollout.name`?", alike only by the
    `reward_model.` they share (audit 37 F13): no suggestion then; a misspelling still gets its key."""
    with pytest.raises(JobError) as e:
        read_job("python3 -m verl.trainer.main_ppo reward_model.overlong_buffer.len=4096", "job.sh")
    assert str(e.value).startswith("job.sh:1: verl has no key `reward_model.overlong_buffer.len` (fix its name"), (
        e.value
    )
    with pytest.raises(JobError, match=r"no key `trainer.val_before_trian`; did you mean `trainer.val_before_train`\?"):
        read_job("python3 -m verl.trainer.main_ppo trainer.val_before_trian=false", "job.sh")
