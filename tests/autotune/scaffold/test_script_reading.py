"""`autotune init` reading what users give it (audit 29): verl's own example scripts and the ways real scripts differ
from them, each read as bash and verl read it or refused at its line with the fix."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("omegaconf", reason="autotune init checks keys with verl's config (the `verl` extra)")

from omegaconf import OmegaConf

from autotune.scaffold import JobError, read_job
from autotune.space.loader import SPACE_DIR

COMMAND = """\
python3 -m verl.trainer.main_ppo \\
    algorithm.adv_estimator=grpo \\
    data.train_batch_size=64 \\
    actor_rollout_ref.model.path=Qwen/Qwen2.5-7B-Instruct \\
    actor_rollout_ref.actor.ppo_mini_batch_size=16 \\
    actor_rollout_ref.actor.ppo_micro_batch_size_per_gpu=4 \\
    trainer.n_gpus_per_node=8 \\
    trainer.nnodes=1
"""


def test_a_space_with_a_command_is_refused_as_a_space(tmp_path: Path) -> None:
    """A space whose `command:` names main_ppo (a `ray job submit` job's, or the shipped fsdp3d-8gpu.yaml) was read
    as a script: "no `python3 -m verl.trainer.main_ppo key=value ...` command found" (audit 29 F13)."""
    space = tmp_path / "rs.yaml"
    space.write_text(
        "name: rs\ntrainer: verl\ncommand: [ray, job, submit, --no-wait, --, python3, -m, verl.trainer.main_ppo]\n"
        "base:\n  data.train_batch_size: 64\nparams:\n  actor_rollout_ref.actor.fsdp_config.forward_prefetch: "
        "{type: bool}\n"
    )
    for path in (space, SPACE_DIR / "fsdp3d-8gpu.yaml"):
        with pytest.raises(JobError, match=rf"^{path}: an autotune search space, not a verl job; .*--space {path}`"):
            read_job(path.read_text(), str(path))


def test_a_megatron_job_is_said_to_be_one_however_it_is_written_and_verls_own_config_path_is_read(
    tmp_path: Path,
) -> None:
    """Every Megatron example of verl passes `--config-path=config` before its `--config-name=ppo_megatron_trainer`:
    it got "give that YAML", and verl's own config named in full (`--config-path=config --config-name=ppo_trainer`)
    was refused the same way; `model_engine=megatron` (verl 0.9's way) and a dumped Megatron config got misleading
    refusals that never said Megatron (audit 29 F6)."""
    from autotune.adapters.verl_config import config_dir

    megatron = "a Megatron job; autotune init reads FSDP jobs on verl's ppo_trainer config only"
    cases = {
        "--config-path=config --config-name='ppo_megatron_trainer.yaml'": (
            2,
            "--config-name=ppo_megatron_trainer.yaml",
        ),
        "model_engine=megatron": (2, "model_engine=megatron"),
        "actor_rollout_ref.actor.strategy=megatron": (2, "actor_rollout_ref.actor.strategy=megatron"),
    }
    for flags, (line, said) in cases.items():
        text = COMMAND.replace("main_ppo \\\n", f"main_ppo \\\n    {flags} \\\n")  # on line 2
        with pytest.raises(JobError, match=rf"^run.sh:{line}: `{said}`: {megatron}"):
            read_job(text, "run.sh")
    dumped = "trainer:\n  nnodes: 1\nactor_rollout_ref:\n  actor:\n    strategy: megatron\n"
    with pytest.raises(JobError, match=rf"^dump.yaml:5: `actor_rollout_ref.actor.strategy: megatron`: {megatron}"):
        read_job(dumped, "dump.yaml")
    verls = config_dir() / "ppo_megatron_trainer.yaml"
    with pytest.raises(JobError, match=rf"^{verls}:\d+: `defaults: .*megatron.*`: {megatron}"):
        read_job(verls.read_text(), str(verls))
    own = read_job(COMMAND.replace("main_ppo", "main_ppo --config-path=config --config-name=ppo_trainer"), "run.sh")
    assert own.flat == read_job(COMMAND, "run.sh").flat
    mine = COMMAND.replace("main_ppo", "main_ppo --config-path=/my/configs --config-name=ppo_trainer")
    with pytest.raises(JobError, match=r"^run.sh:1: `--config-path=/my/configs`: .* give that YAML"):
        read_job(mine, "run.sh")


def test_a_script_running_another_trainer_is_refused_at_that_line() -> None:
    """verl's DAPO recipe and its one-step-off-policy trainer were read as YAML and refused at an unrelated line
    ("neither a `verl.trainer.main_ppo` command nor valid YAML", audit 29 F10)."""
    dapo = "set -x\nNGPUS=${NGPUS:-8}\nMODEL=x\n\npython3 -m recipe.dapo.main_dapo \\\n    data.train_batch_size=64\n"
    with pytest.raises(JobError, match=r"^dapo.sh:5: runs `recipe.dapo.main_dapo`, not `verl.trainer.main_ppo`; "):
        read_job(dapo, "dapo.sh")
    off = "A=1\n# python3 -m verl.trainer.main_ppo (an old run)\nif x; then\n  python3 recipe/off/main_off.py a=1\nfi\n"
    with pytest.raises(JobError, match=r"^off.sh:4: runs `recipe/off/main_off.py`, not `verl.trainer.main_ppo`; "):
        read_job(off, "off.sh")
    yaml_job = "custom_reward_function:\n  path: recipe/main_reward.py\ndata:\n  train_batch_size: 64\n"
    assert read_job(yaml_job, "job.yaml").flat["custom_reward_function.path"] == "recipe/main_reward.py"


def test_a_comment_ends_the_command_as_in_bash_and_the_lines_it_cuts_off_are_refused_at_their_line() -> None:
    """A comment line inside the command's continuation cut the rest of the job off without a word (bash runs the
    rest as a command of its own, `trainer.save_freq=20: command not found`); verl's own pfppo example's
    `reweight_method=pow \\  # [...]` got "No escaped character (an unclosed quote?)" with no line (audit 29 F8)."""
    lines = COMMAND.splitlines(keepends=True)
    mid = "".join([*lines[:3], "    # the model\n", *lines[3:]])
    with pytest.raises(
        JobError,
        match=r"^run.sh:5: `actor_rollout_ref.model.path=Qwen/Qwen2.5-7B-Instruct .*` is not part of the command: the "
        r"comment on line 4 ends the command there .*; move the comment out of the command \(above it\) and run again",
    ):
        read_job(mid, "run.sh")
    escaped = COMMAND.replace("grpo \\\n", 'grpo \\  # ["grpo", "gae"]\n')
    with pytest.raises(JobError, match=r"^run.sh:2: a `\\` followed by a space and a comment ends the command on this"):
        read_job(escaped, "run.sh")
    unended = COMMAND.replace("batch_size=64 \\\n", "batch_size=64\n")
    with pytest.raises(JobError, match=r"^run.sh:4: `actor_rollout_ref.*` is not part of the command: line 3, the "):
        read_job(unended, "run.sh")
    commented = "# an older run: \\\n" + COMMAND  # a `\` in a comment continues nothing: the command is read
    assert read_job(commented, "run.sh").flat == read_job(COMMAND, "run.sh").flat


def test_a_loops_variable_and_a_functions_argument_are_said_for_what_they_are() -> None:
    """`for lr in 1e-6 2e-6; do ... optim.lr=$lr` and `train() { ... optim.lr=$1; }; train 2e-6` were refused as
    "$lr: not set in the script" (audit 29 F12)."""
    body = COMMAND.replace("algorithm.adv_estimator=grpo", "actor_rollout_ref.actor.optim.lr=$lr")
    with pytest.raises(
        JobError, match=r"^loop.sh:2: the command \(line 3\) runs inside a `for` loop over `lr` \(1e-6 2e-6: 2 jobs\) "
    ):
        read_job(f"set -x\nfor lr in 1e-6 2e-6; do\n{body}done\n", "loop.sh")
    same = read_job(f"for i in 1 2; do\n{COMMAND}done\n", "loop.sh")  # each pass the same job: read, and said
    assert any("inside a loop (line 1)" in note for note in same.notes), same.notes
    function = "train() {\n" + body.replace("$lr", "$1") + "}\n\ntrain 2e-6\n"
    with pytest.raises(
        JobError, match=r"^f.sh:2: `\$1` in the command: the function `train`'s argument\(s\) \(the function is defined "
        r"at line 1; its calls: line 12: `train 2e-6`\); init does not run functions"
    ):  # fmt: skip
        read_job(function, "f.sh")
    with pytest.raises(JobError, match=r"got '\$1' \(\$1: the script's own argument\(s\), which init is not given; "):
        read_job(body.replace("$lr", "$1"), "run.sh")


def test_a_bash_array_of_overrides_is_read_and_another_use_of_an_array_is_refused_at_its_line() -> None:
    """verl's NPU recipes hand arrays of overrides on, `"${DATA_CONFIG[@]}"`: they were refused as "not a
    `key=value` override; remove it or write it as one", which would drop the job's data section (audit 29 F11)."""
    script = """\
batch=64
DATA_CONFIG=(
    # the data
    data.train_batch_size=${batch}
    data.max_response_length=$((512 * 2))
)
MODEL=( actor_rollout_ref.model.path="Qwen/Qwen2.5-7B-Instruct" )
python3 -m verl.trainer.main_ppo \\
    "${DATA_CONFIG[@]}" \\
    "${MODEL[@]}" \\
    trainer.n_gpus_per_node=8
"""
    job = read_job(script, "arr.sh")
    assert job.flat == {"data.train_batch_size": 64, "data.max_response_length": 1024,
                        "actor_rollout_ref.model.path": "Qwen/Qwen2.5-7B-Instruct", "trainer.n_gpus_per_node": 8}  # fmt: skip
    assert job.lines["data.train_batch_size"] == 4 and job.lines["actor_rollout_ref.model.path"] == 7
    assert any("`DATA_CONFIG` (line 2, 2 elements)" in note for note in job.notes), job.notes
    for use in ('"${MODEL[0]}"', '"${OTHER[@]}"'):
        with pytest.raises(JobError, match=r"^arr.sh:10: `\$\{\w+\[.\]\}`: init reads a bash array only whole"):
            read_job(script.replace('"${MODEL[@]}"', use), "arr.sh")


def test_a_lora_job_on_a_machine_without_vllm_or_sglang_is_not_blamed_on_the_script() -> None:
    """verl's check of a LoRA job imports vLLM's LoRA support; without vLLM or SGLang (the `verl` extra installs
    neither) init said "fix it in the script (a key it does not set: add `key=value`)" (audit 29 F9)."""
    import importlib.util

    if importlib.util.find_spec("vllm") or importlib.util.find_spec("sglang"):
        pytest.skip("vLLM or SGLang is installed here: verl's check runs")
    from autotune.scaffold import check_starts

    lora = "actor_rollout_ref.model.lora_rank=8 actor_rollout_ref.rollout.name=vllm " + " ".join(
        f"actor_rollout_ref.{role}.log_prob_micro_batch_size_per_gpu=4" for role in ("rollout", "ref")
    )
    job = read_job(COMMAND.replace("trainer.nnodes=1", f"trainer.nnodes=1 {lora}"), "lora.sh")
    with pytest.raises(JobError, match=r"^lora.sh: verl's check of this job needs vLLM or SGLang installed here") as e:
        check_starts(job, dict(job.flat), 8)
    assert "add `key=value`" not in str(e.value) and "`pip install vllm`" in str(e.value)


@pytest.mark.parametrize(
    ("line", "error"),
    [
        ("+actor_rollout_ref.actor.x=1", r"^run.sh:3: `\+actor_rollout_ref.actor.x=1` adds a key"),
        ("trainer.experiment_name=run}", r"^run.sh:3: hydra cannot read `trainer.experiment_name=run}`"),
        ("actor_rollout_ref.model.path=~/models/x", r"^run.sh:3: hydra cannot read .*; write `\$HOME` for `~`"),
        ("actor_rollout_ref.actor.optim.lr=fast", r"^run.sh:3: `actor_rollout_ref.actor.optim.lr`: verl expects a number"),
        ("trainer.project_name='open", r"^run.sh:3: the `'` opened on this line is not closed by the end of the file"),
        ("data.train_batch_size=8,16", r"^run.sh:3: `data.train_batch_size=8,16` is a hydra sweep"),
    ],
)  # fmt: skip
def test_a_refusal_of_a_word_of_the_command_names_its_line(line: str, error: str) -> None:
    """`+key=value`, hydra's refusals, a wrong type, an unclosed quote named the file only (audit 29 F14)."""
    lines = COMMAND.splitlines(keepends=True)
    with pytest.raises(JobError, match=error):
        read_job("".join([*lines[:2], f"    {line} \\\n", *lines[2:]]), "run.sh")


def test_a_study_name_rewritten_from_the_experiment_name_is_said() -> None:
    """`trainer.experiment_name=qwen/7b-run` became study `qwen-7b-run` without a word (audit 29 F16)."""
    from autotune.cli.start import _study_name

    job = read_job(COMMAND.replace("trainer.nnodes=1", "trainer.nnodes=1 trainer.experiment_name=qwen/7b-run"), "r.sh")
    assert _study_name(job, "r.sh") == "qwen-7b-run"
    assert any("study `qwen-7b-run`: trainer.experiment_name `qwen/7b-run` rewritten" in n for n in job.notes)
    kept = read_job(COMMAND.replace("trainer.nnodes=1", "trainer.nnodes=1 trainer.experiment_name=qwen_7b"), "r.sh")
    assert _study_name(kept, "r.sh") == "qwen_7b" and not any("rewritten" in n for n in kept.notes)


def test_windows_line_ends_and_a_positional_default_taken_are_said() -> None:
    """A CRLF script was read as the whole job, silently, where bash runs its command with none of its overrides;
    `ENGINE=${1:-vllm}` took `vllm` with no word that the script's first argument changes it (audit 29 F18)."""
    crlf = read_job(COMMAND.replace("\n", "\r\n"), "win.sh")
    assert crlf.flat["data.train_batch_size"] == 64
    assert any(n.startswith("win.sh has Windows (CRLF) line ends") and "sed -i 's/\\r$//' win.sh" in n
               for n in crlf.notes), crlf.notes  # fmt: skip
    job = read_job("ENGINE=${1:-vllm}\n" + COMMAND.replace("trainer.nnodes=1", "actor_rollout_ref.rollout.name=$ENGINE"),
                   "eng.sh")  # fmt: skip
    assert job.flat["actor_rollout_ref.rollout.name"] == "vllm"
    said = "eng.sh:1: `${1:-vllm}` takes its default `vllm`, as the script run without arguments does"
    assert any(n.startswith(said) for n in job.notes), job.notes
    assert not any("CRLF" in n or "takes its default" in n for n in read_job(COMMAND, "plain.sh").notes)


def test_the_cluster_keys_a_scheduler_fills_are_filled_from_inits_flags_or_refused_naming_the_flag() -> None:
    """verl's slurm example writes `trainer.nnodes=${SLURM_NNODES}`: refused as "verl expects a number ... write the
    value instead" though `--nodes 2 --gpus-per-node 4` gave it (audit 36 F2)."""
    script = "NNODES=${SLURM_JOB_NUM_NODES}\nnodes=$(scontrol show hostnames | wc -l)\n" + COMMAND.replace(
        "trainer.n_gpus_per_node=8", "trainer.n_gpus_per_node=${SLURM_GPUS_PER_NODE}"
    ).replace("trainer.nnodes=1", "trainer.nnodes=$NNODES")
    job = read_job(script, "s.sh", nodes=2, gpus_per_node=4)
    assert job.flat["trainer.nnodes"] == 2 and job.flat["trainer.n_gpus_per_node"] == 4
    assert "s.sh:9: `trainer.n_gpus_per_node=${SLURM_GPUS_PER_NODE}` read as `trainer.n_gpus_per_node=4`, from " \
        "--gpus-per-node 4 (`$SLURM_GPUS_PER_NODE`: not set in the script" in " ".join(job.notes)  # fmt: skip
    assert job.unset == () and not any("left as written" in n for n in job.notes), job.notes
    with pytest.raises(JobError, match=r"^s.sh:10: `trainer.nnodes=\$\{SLURM_JOB_NUM_NODES\}`: .* pass `--nodes N` "):
        read_job(script, "s.sh", gpus_per_node=4)
    computed = script.replace("trainer.nnodes=$NNODES", "trainer.nnodes=$nodes")
    with pytest.raises(JobError, match=r"^s.sh:9: .* pass `--gpus-per-node N` \(--gpus-per-node N fills "):
        read_job(computed, "s.sh", nodes=2)
    assert "(`$nodes`: set from a command (`$(...)`)" in " ".join(read_job(computed, "s.sh", 2, 4).notes)
    assert read_job(COMMAND, "plain.sh").flat["trainer.nnodes"] == 1  # a number the script writes is its own


def test_a_batch_scripts_own_sbatch_request_fills_the_scheduler_variables_and_a_differing_flag_is_said() -> None:
    """A slurm script states its nodes and GPUs (`#SBATCH --nodes=2`, `--gres=gpu:h100:4`), which slurm gives
    `$SLURM_NNODES` and `$SLURM_GPUS_PER_NODE`: it was refused as "known only when the job runs", one missing flag per
    run, and a `--nodes 4` contradicting it was taken without a word (audit 38 F11). The request fills them, said; a
    flag differing from it is taken, said beside it; with neither, both flags are named in one refusal. Options after
    the first command are not slurm's (it stops reading them there)."""
    body = COMMAND.replace("trainer.n_gpus_per_node=8", "trainer.n_gpus_per_node=$SLURM_GPUS_PER_NODE").replace(
        "trainer.nnodes=1", "trainer.nnodes=${SLURM_NNODES}"
    )
    header = "#!/bin/bash\n#SBATCH --job-name=ppo\n#SBATCH --nodes=2\n#SBATCH --gres=gpu:h100:4\n\n"
    job = read_job(header + body, "s.slurm")
    assert job.flat["trainer.nnodes"] == 2 and job.flat["trainer.n_gpus_per_node"] == 4
    notes = " ".join(" ".join(job.notes).split())
    assert (
        "read as `trainer.nnodes=2`, from the script's `#SBATCH --nodes=2` (line 3), which slurm gives the job" in notes
    )
    assert "read as `trainer.n_gpus_per_node=4`, from the script's `#SBATCH --gres=gpu:h100:4` (line 4)" in notes
    other = read_job(header.replace("--nodes=2", "-N 3") + body, "s.slurm", nodes=4)
    assert other.flat["trainer.nnodes"] == 4
    said = "read as `trainer.nnodes=4`, from --nodes 4, where the script's `#SBATCH -N 3` (line 3) runs the job with 3"
    assert said in " ".join(" ".join(other.notes).split())
    late = "#!/bin/bash\nset -x\n#SBATCH --nodes=2\n#SBATCH --gpus-per-node=4\n" + body  # after a command: a comment
    with pytest.raises(JobError) as refused:
        read_job(late, "s.slurm")
    lines = str(refused.value).splitlines()
    assert [line.split("`")[1] for line in lines[:2]] == [
        "trainer.n_gpus_per_node=$SLURM_GPUS_PER_NODE", "trainer.nnodes=${SLURM_NNODES}"]  # fmt: skip
    assert "pass `--gpus-per-node N`" in lines[0] and "pass `--nodes N`" in lines[1] and lines[2] == "and run again"


def test_the_launchers_variables_are_filled_in_and_those_known_only_when_the_job_runs_are_said() -> None:
    """verl's slurm example's `srun ... -w "$head_node" apptainer run --bind $verl_workdir ...` became the space's
    `command:` as written, which trials run without a shell, without a word (audit 36 F8); `ADDR`, filled by the
    script's `read -ra ADDR`, was called "a variable from the machine's environment" (F15)."""
    from autotune.scaffold.space_yaml import _command_lines

    script = (
        "verl_workdir=/path/to/verl\nimage=$HOME/verl.sif\nhead_node=$(scontrol show hostnames | head -n1)\n"
        "IFS=' ' read -ra ADDR <<<\"$ips\"\nexport ip_head=${ADDR[0]}:6379\n"
        + COMMAND.replace(
            "python3", 'PYTHONUNBUFFERED=1 srun -w "$head_node" apptainer run --bind $verl_workdir $image python3'
        )
    )
    job = read_job(script, "s.sh")
    launcher = ["srun", "-w", "$head_node", "apptainer", "run", "--bind", "/path/to/verl", "$HOME/verl.sif"]
    assert job.command == [*launcher, "python3", "-m", "verl.trainer.main_ppo"]
    assert job.env == {"PYTHONUNBUFFERED": "1"}
    assert not any("split into words" in n for n in job.notes), job.notes  # `$verl_workdir`: one word, as written
    said = (
        "s.sh:6: the launcher keeps `$HOME` (not set in the script: the machine's environment gives it), `$head_node` "
        "(set from a command (`$(...)`) the script runs, which init does not run): trials run the space's `command:` "
        f"as written, without a shell, so each would get the text itself: write the value in `command:`, or drop "
        f"`{' '.join(launcher)}` from it"
    )
    assert any(n.startswith(said) for n in job.notes), job.notes
    assert "`ip_head=${ADDR[0]}:6379` takes `$ADDR` (filled by the script as it runs, by `read` or a `for` loop" in (
        " ".join(job.notes)
    )
    assert _command_lines(job.command)[0].startswith("# $head_node, $HOME/verl.sif: not known to init; trials run")
    plain = read_job(COMMAND.replace("python3", "srun -w node1 python3"), "p.sh")
    assert plain.command[:3] == ["srun", "-w", "node1"] and not any("launcher" in n for n in plain.notes)
    assert _command_lines(plain.command)[0].startswith("command: ")
    own = read_job(COMMAND.replace("python3", "$PY"), "py.sh")  # its Python unknown: nothing to drop
    assert own.command[0] == "$PY" and any(n.endswith("write the value in `command:`") for n in own.notes), own.notes
    element = read_job("head=${NODES[0]}\n" + COMMAND.replace("python3", "srun -w $head python3"), "e.sh")
    assert element.command[:3] == ["srun", "-w", "$head"]  # the name the script gives it, not `${NODES[0]}`
    assert any("the launcher keeps `$head` (set at line 1 to `${NODES[0]}`, known only when the job runs)" in n
               for n in element.notes), element.notes  # fmt: skip


def test_a_multi_line_string_of_overrides_is_read_across_its_lines_and_an_unquoted_variable_split_into_words() -> None:
    """verl's `run_qwen30b_gspo.sh` writes `ACTOR_CONFIG="` then one override a line, and hands `$ACTOR_CONFIG` on
    unquoted: refused as "No closing quotation (an unclosed quote?)", and a one-line string of overrides as "hydra
    cannot read `trainer.n_gpus_per_node=8 trainer.nnodes=2`" (audit 36 F7)."""
    script = (
        'N=8\nEMPTY=""\nCLUSTER="\n    trainer.n_gpus_per_node=$N \\\n    trainer.nnodes=1"\n'  # lines 1-5
        "LOGGING='trainer.project_name=p\n  trainer.experiment_name=e'\n"  # lines 6-7: a line end splits too
        + COMMAND.replace("    trainer.n_gpus_per_node=8 \\\n    trainer.nnodes=1", "    $CLUSTER ${LOGGING} $EMPTY")
    )
    job = read_job(script, "m.sh")
    assert job.flat["trainer.n_gpus_per_node"] == 8 and job.flat["trainer.nnodes"] == 1
    assert job.flat["trainer.project_name"] == "p" and job.flat["trainer.experiment_name"] == "e"
    assert job.lines["trainer.nnodes"] == 5 and job.lines["trainer.experiment_name"] == 7
    said = "split into words as bash does: `$CLUSTER` (set at line 3, 2 words), `${LOGGING}` (set at line 6, 2 words)"
    assert any(said in n for n in job.notes), job.notes
    quoted = script.replace("$CLUSTER ${LOGGING}", '"$CLUSTER"')  # one word, as bash passes it
    with pytest.raises(JobError, match=r"hydra cannot read `\s+trainer.n_gpus_per_node=8     trainer.nnodes=1`"):
        read_job(quoted, "m.sh")
    with pytest.raises(JobError, match=r"^u.sh:2: the `\"` opened on this line is not closed by the end of the file"):
        read_job('N=8\nX="a\nb\n' + COMMAND, "u.sh")
    heredoc = (
        "cat > notes.txt <<-'EOF'\n\tdon't tune the lr\n\tEOF\nread -ra A <<<\"$x\"\n" + COMMAND
    )  # no quote opened
    assert read_job(heredoc, "h.sh").flat == read_job(COMMAND, "c.sh").flat
    shifted = "M=$((1 << n))\n" + COMMAND  # a shift, not a here-document
    assert read_job(shifted, "x.sh").flat == read_job(COMMAND, "c.sh").flat


def test_a_crlf_script_given_as_a_file_is_said_and_read_as_the_same_job(tmp_path: Path) -> None:
    """The CRLF note fired on stdin only: the file was read with universal newlines, its `\\r\\n` gone (audit 36 F9)."""
    from autotune.cli.start import _job_text

    script, dumped = tmp_path / "win.sh", tmp_path / "win.yaml"
    script.write_bytes(COMMAND.replace("\n", "\r\n").encode())
    dumped.write_bytes(b"trainer:\r\n  nnodes: 1\r\n  n_gpus_per_node: 8\r\n")
    job = read_job(*_job_text(str(script)))
    assert job.flat == read_job(COMMAND, "c.sh").flat
    assert any(
        n.startswith(f"{script} has Windows (CRLF) line ends") and f"s/\\r$//' {script}`" in n for n in job.notes
    )
    assert read_job(*_job_text(str(dumped))).flat == {"trainer.nnodes": 1, "trainer.n_gpus_per_node": 8}
    piped = read_job(COMMAND.replace("\n", "\r\n"), "<stdin>").notes  # the `sed` names no file called <stdin>
    assert any("(`sed -i 's/\\r$//' FILE`)" in n for n in piped), piped


def test_a_command_inside_a_bash_c_string_and_a_sourced_file_are_named_with_the_file_to_give() -> None:
    """`srun bash -c 'python3 -m verl.trainer.main_ppo ...'` got "no `python3 -m ...` command found", and an sbatch
    header sourcing the script that runs the job "a verl config is a YAML mapping" (audit 36 F12, F13)."""
    wrapped = "set -x\nsrun --nodes=1 /bin/bash -c 'cd /verl && " + COMMAND.rstrip() + "'\n"
    with pytest.raises(JobError, match=r"^c.sh:2: the `python3 -m verl.trainer.main_ppo` command is inside a "
                       r"`/bin/bash -c` string, .* `python3 -m verl.trainer.main_ppo algorithm.adv_estimator=grpo "
                       r"data.train_batch_size=64 actor_rollout ...`, in a file of its own"):  # fmt: skip
        read_job(wrapped, "c.sh")
    sbatch = "#!/bin/bash\n#SBATCH --nodes=2\n#SBATCH --gres=gpu:8\n\nsource ./run_common.sh  # the job\n"
    with pytest.raises(JobError, match=r"^s.sh:5: sources `./run_common.sh`, which init does not follow, and runs no "):
        read_job(sbatch, "s.sh")
    with pytest.raises(JobError, match=r"^d.sh:2: sources `common.sh`"):
        read_job("#SBATCH -N 2\n. common.sh\n", "d.sh")


def test_a_script_running_main_ppo_twice_is_refused_naming_both_lines() -> None:
    """ "runs verl.trainer.main_ppo twice" named neither line: which one to keep? (audit 36 F14)"""
    with pytest.raises(JobError, match=r"^two.sh:11: runs verl.trainer.main_ppo a second time \(first at line 2\)"):
        read_job("set -x\n" + COMMAND + "\n" + COMMAND, "two.sh")


def _verl_composed(words: list[str]) -> Any:
    """verl's ppo_trainer config composed by hydra itself with these overrides (what main_ppo reads), not through
    autotune: the tests' own judge."""
    import importlib.util

    from hydra import compose, initialize_config_dir
    from hydra.core.global_hydra import GlobalHydra

    spec = importlib.util.find_spec("verl")
    assert spec is not None and spec.submodule_search_locations
    folder = Path(next(iter(spec.submodule_search_locations))) / "trainer" / "config"
    GlobalHydra.instance().clear()
    try:
        with initialize_config_dir(config_dir=str(folder), version_base=None):
            return compose(config_name="ppo_trainer", overrides=words)
    finally:
        GlobalHydra.instance().clear()


OPEN_MAP_LINES = {  # verl's examples (DAPO, GSPO via main_ppo, Qwen2.5-VL): each into a map verl leaves open
    "+actor_rollout_ref.model.override_config.max_position_embeddings=32768": 32768,
    "+reward_model.reward_kwargs.overlong_buffer_cfg.enable=True": True,
    "+reward_model.reward_kwargs.overlong_buffer_cfg.len=4096": 4096,
    "+actor_rollout_ref.rollout.engine_kwargs.vllm.disable_mm_preprocessor_cache=True": True,
    "+data.apply_chat_template_kwargs.reasoning_effort=medium": "medium",
}


def test_a_key_added_to_a_map_verl_leaves_open_is_kept_at_its_line_as_verl_reads_it() -> None:
    """`+actor_rollout_ref.model.override_config.max_position_embeddings=32768` (verl's DAPO example), GSPO's
    `+reward_model.reward_kwargs.*` and every Qwen2.5-VL example's `+...engine_kwargs.vllm.*` were refused as keys
    "verl's ppo_trainer config does not declare" (audit 37 F1): each goes into a map verl leaves open, and verl's own
    compose puts it there. Kept as its dotted key, with the value verl reads, said at its line; a key `+` adds to a
    section verl declares whole (`actor_rollout_ref.actor`) is still refused, at its line."""
    lines = COMMAND.splitlines(keepends=True)
    added = [f"    {word} \\\n" for word in OPEN_MAP_LINES]
    job = read_job("".join([*lines[:2], *added, *lines[2:]]), "run.sh")
    composed = _verl_composed(list(OPEN_MAP_LINES))
    for n, (word, value) in enumerate(OPEN_MAP_LINES.items(), 3):
        key = word[1:].partition("=")[0]
        assert OmegaConf.select(composed, key) == value  # verl's own reading of the word
        assert job.flat[key] == value and job.lines[key] == n, (key, job.flat.get(key), job.lines.get(key))
        assert any(note.startswith(f"run.sh:{n}: `{word}` adds ") for note in job.notes), job.notes
    with pytest.raises(JobError, match=r"^run.sh:3: `\+actor_rollout_ref.actor.no_such=1` adds a key verl's "):
        read_job("".join([*lines[:2], "    +actor_rollout_ref.actor.no_such=1 \\\n", *lines[2:]]), "run.sh")


def test_a_plus_on_a_key_verl_declares_is_read_as_the_override_it_means_and_said() -> None:
    """`+trainer.val_before_train=False` (TinyZero, Search-R1) was refused as a key verl "does not declare"; verl
    declares it, and hydra refuses the `+` ("An item is already at"): init reads it as `trainer.val_before_train=False`
    and says so, with the fix for the script (audit 37 F2)."""
    from hydra.errors import ConfigCompositionException

    with pytest.raises(ConfigCompositionException, match=r"An item is already at 'trainer\.val_before_train'"):
        _verl_composed(["+trainer.val_before_train=False"])
    verl_reads = _verl_composed(["trainer.val_before_train=False"]).trainer.val_before_train
    lines = COMMAND.splitlines(keepends=True)
    job = read_job("".join([*lines[:2], "    +trainer.val_before_train=False \\\n", *lines[2:]]), "run.sh")
    assert job.flat["trainer.val_before_train"] is verl_reads is False
    assert (
        "run.sh:3: `+trainer.val_before_train=False` read as `trainer.val_before_train=False`: verl's config declares "
        "`trainer.val_before_train`"
    ) in "\n".join(job.notes), job.notes
    assert "write it without `+`" in "\n".join(job.notes)


def test_every_refused_word_and_unknown_key_is_named_at_once() -> None:
    """The first `+` line stopped init, the next named on the next run, and unknown keys only once every `+` line was
    gone (audit 37 F3: Search-R1 took three runs): each refused word and unknown key is named at its line, at once."""
    lines = COMMAND.splitlines(keepends=True)
    words = [
        "+actor_rollout_ref.actor.no_such=1",  # line 3: undeclared, added
        "+trainer.no_such_either=2",  # line 4
        "data.train_batch_size=8,16",  # line 5: a sweep
        "actor_rollout_ref.actor.ppo_mini_bach_size=4",  # line 6: unknown
    ]
    script = "".join([*lines[:2], *(f"    {w} \\\n" for w in words), *lines[2:]])
    with pytest.raises(JobError) as e:
        read_job(script, "run.sh")
    said = str(e.value).splitlines()
    assert [line.partition(": ")[0] for line in said] == ["run.sh:3", "run.sh:4", "run.sh:5", "run.sh:6"], said
    assert "adds a key" in said[0] and "adds a key" in said[1] and "hydra sweep" in said[2]
    assert "verl has no key `actor_rollout_ref.actor.ppo_mini_bach_size`" in said[3]


def test_a_force_add_is_read_as_verl_reads_it_at_its_line() -> None:
    """`++key=value` (hydra's force-add, which verl composes) was read as a plain key and refused as "verl has no
    key", without its line (audit 37 F4): into an open map it is kept, on a declared key it is the override, and an
    undeclared key is refused at its line as `+` is."""
    forced = {
        "++actor_rollout_ref.model.override_config.max_position_embeddings=32768": (
            "actor_rollout_ref.model.override_config.max_position_embeddings",
            32768,
        ),
        "++trainer.val_before_train=false": ("trainer.val_before_train", False),
    }
    composed = _verl_composed(list(forced))  # hydra accepts both
    lines = COMMAND.splitlines(keepends=True)
    job = read_job("".join([*lines[:2], *(f"    {w} \\\n" for w in forced), *lines[2:]]), "run.sh")
    for n, (key, value) in enumerate(forced.values(), 3):
        assert OmegaConf.select(composed, key) == value and job.flat[key] == value and job.lines[key] == n
    with pytest.raises(JobError, match=r"^run.sh:3: `\+\+actor_rollout_ref.actor.no_such=1` adds a key verl's "):
        read_job("".join([*lines[:2], "    ++actor_rollout_ref.actor.no_such=1 \\\n", *lines[2:]]), "run.sh")


def test_ray_job_submit_no_wait_is_dropped_from_the_launcher_and_said() -> None:
    """verl's FAPO recipe submits `ray job submit --no-wait ... -- python3 -m verl.trainer.main_ppo`; init kept
    `--no-wait` in `command:`, so each trial "failed (exited after 0 of 8 steps)" at the submission while its job ran
    on, and every further trial submitted another (audit 37 F6)."""
    script = COMMAND.replace(
        "python3", "ray job submit --no-wait --address http://localhost:8265 --working-dir /w -- python3", 1
    )
    job = read_job(script, "fapo.sh")
    assert job.command == [
        "ray", "job", "submit", "--address", "http://localhost:8265", "--working-dir", "/w", "--",
        "python3", "-m", "verl.trainer.main_ppo",
    ]  # fmt: skip
    [said] = [n for n in job.notes if "--no-wait" in n]
    assert said.startswith("fapo.sh:1: `--no-wait` dropped from the launcher: each trial must wait for its job")


REFUSED = "not `verl.trainer.main_ppo`; autotune tunes verl's PPO (RL) trainer only, `python3 -m verl.trainer.main_ppo"


def test_a_trainer_module_of_any_name_is_refused_as_another_trainer_not_as_yaml() -> None:
    """rllm's `python3 -m examples.countdown.train_countdown`, its `python -u train.py` and verl's SFT scripts
    (`ENTRYPOINT=${ENTRYPOINT:-"-m verl.trainer.sft_trainer"}`, then `torchrun ... ${ENTRYPOINT} key=value ...`) were
    refused as "a verl config is a YAML mapping", or as invalid YAML at an unrelated line (audit 37 F9)."""
    rllm = "set -x\n\npython3 -m examples.countdown.train_countdown \\\n    data.train_batch_size=32 \\\n    trainer.nnodes=1\n"
    with pytest.raises(JobError, match=rf"^c.sh:3: runs `examples.countdown.train_countdown`, {re.escape(REFUSED)}"):
        read_job(rllm, "c.sh")
    train_py = (
        "MODEL_PATH=Qwen/Qwen3-4B\n\npython -u train.py \\\n    rllm/backend=verl \\\n    model.path=$MODEL_PATH\n"
    )
    with pytest.raises(JobError, match=rf"^t.sh:3: runs `train.py`, {re.escape(REFUSED)}"):
        read_job(train_py, "t.sh")
    sft = (
        'ENTRYPOINT=${ENTRYPOINT:-"-m verl.trainer.sft_trainer"}\nSP_SIZE=${SP_SIZE:-1}\n'
        "torchrun --standalone --nnodes=1 --nproc-per-node=8 \\\n    ${ENTRYPOINT} \\\n"
        "    data.train_batch_size=96 \\\n    engine.ulysses_sequence_parallel_size=${SP_SIZE}\n"
    )
    with pytest.raises(JobError) as refused:
        read_job(sft, "sft.sh")
    assert str(refused.value).startswith(
        f"sft.sh:3: runs `verl.trainer.sft_trainer` (through `${{ENTRYPOINT}}`, set at line 1), {REFUSED}"
    )
    assert str(refused.value).endswith("supervised fine-tuning has no rollout, and the rollout is what autotune models "
                                       "and tunes")  # fmt: skip
    as_file = "python3 verl/trainer/main_ppo.py \\\n    data.train_batch_size=8\n"  # main_ppo's own file: said so
    with pytest.raises(JobError, match=r"^f.sh:1: runs `verl/trainer/main_ppo.py`, .*: that file is main_ppo's own: "):
        read_job(as_file, "f.sh")


def test_another_trainer_run_by_a_python_the_script_does_not_set_is_named_not_read_as_yaml() -> None:
    """`$PYTHON_BIN -m recipe.dapo.main_dapo key=value ...` with PYTHON_BIN set outside the script: bash runs `-m ...`
    with the variable empty, and the refusal said "a verl config is a YAML mapping" (audit 37, left in stop 67)."""
    for launch in ("$PYTHON_BIN", "HYDRA_FULL_ERROR=1 ${PYTHON_BIN}"):
        script = f"set -x\n{launch} -m recipe.dapo.main_dapo \\\n  data.train_batch_size=64 \\\n  trainer.nnodes=1\n"
        with pytest.raises(JobError) as refused:
            read_job(script, "p.sh")
        assert str(refused.value).startswith(f"p.sh:2: runs `recipe.dapo.main_dapo`, {REFUSED}"), launch


def test_another_trainer_is_named_though_main_ppo_is_echoed_and_dapo_is_told_its_main_ppo_keys() -> None:
    """A main_dapo script whose `echo` names main_ppo got "no `python3 -m verl.trainer.main_ppo ...` command found"
    (audit 37 F11); the refusal offered no next step, though verl's main_ppo runs DAPO's dynamic sampling (F12)."""
    script = (
        'echo "DAPO: same overrides as verl.trainer.main_ppo, plus filter_groups"\n'
        "python3 -m recipe.dapo.main_dapo \\\n  data.train_batch_size=64 \\\n  trainer.n_gpus_per_node=8\n"
    )
    with pytest.raises(JobError) as refused:
        read_job(script, "e.sh")
    assert str(refused.value).startswith(f"e.sh:2: runs `recipe.dapo.main_dapo`, {REFUSED}")
    assert "verl's main_ppo runs DAPO's dynamic sampling itself (`algorithm.filter_groups.enable=True`" in str(
        refused.value
    )


def test_a_script_of_several_other_programs_names_its_trainers_not_its_data_preparation() -> None:
    """verl's R1 recipe prepares data (line 5, `--flags`), then runs main_generation and main_eval: the refusal named
    the data preparation's line only (audit 37 F12)."""
    script = (
        "DATA=/data\n\n# Eval Data Process\n"
        "python3 -m recipe.r1.data_process \\\n    --local_dir $DATA\n"  # line 4
        "python3 -m verl.trainer.main_generation \\\n    data.path=$DATA/test.parquet \\\n    data.n_samples=8\n"  # 6
        "python3 -m recipe.r1.main_eval \\\n    data.path=$DATA/out.parquet\n"  # line 9
    )
    with pytest.raises(JobError) as refused:
        read_job(script, "r1.sh")
    assert str(refused.value).startswith(
        f"r1.sh:6: runs `verl.trainer.main_generation` (line 6) and `recipe.r1.main_eval` (line 9), {REFUSED}"
    )
    assert str(refused.value).endswith("generation or evaluation is no training job: there is no training step for "
                                       "autotune to tune")  # fmt: skip


def test_main_ppo_given_through_a_variable_is_the_command() -> None:
    """`ENTRY=verl.trainer.main_ppo` then `python3 -m $ENTRY key=value ...`: the assignment was taken as the command,
    every override dropped, and the job blamed for not setting what it sets (audit 37 F10)."""
    script = (
        "ENTRY=verl.trainer.main_ppo\npython3 -m $ENTRY \\\n  data.train_batch_size=64 \\\n"
        "  actor_rollout_ref.actor.ppo_micro_batch_size_per_gpu=4 \\\n  trainer.n_gpus_per_node=8\n"
    )
    job = read_job(script, "v.sh")
    assert job.command == ["python3", "-m", "verl.trainer.main_ppo"]
    assert job.flat == {
        "data.train_batch_size": 64,
        "actor_rollout_ref.actor.ppo_micro_batch_size_per_gpu": 4,
        "trainer.n_gpus_per_node": 8,
    }
    assert "`$ENTRY` (set at line 1) read as `verl.trainer.main_ppo`, the command's module" in job.notes


def test_a_yaml_job_verl_refuses_is_told_its_fix_in_yaml_and_a_config_path_job_to_bring_its_overrides() -> None:
    """verl's geo3k multi-turn example runs on its own YAML (`--config-path`): init said to give that YAML instead,
    not that the script's overrides must go into it, and then told the YAML to "add `key=value`" for the keys it
    lacked, "verl's default, not in the script" (audit 39 F5)."""
    from autotune.scaffold import check_starts

    yaml_job = (
        "data:\n  train_batch_size: 256\nactor_rollout_ref:\n  actor:\n    ppo_mini_batch_size: 256\n"
        "    ppo_micro_batch_size_per_gpu: 8\n"
    )
    job = read_job(yaml_job, "geo3k_multiturn_grpo.yaml")
    with pytest.raises(JobError) as e:
        check_starts(job, dict(job.flat), 8)
    said = str(e.value)
    assert said.startswith("geo3k_multiturn_grpo.yaml: verl refuses the job: [actor_rollout_ref.rollout] Please set"), (
        said
    )
    assert "`actor_rollout_ref.rollout.log_prob_micro_batch_size_per_gpu`=null verl's default, not in the YAML" in said
    assert said.endswith(
        "; fix it in geo3k_multiturn_grpo.yaml (a key it does not set: add it, nested under its sections as verl's "
        "config nests it) and rerun init; nothing was written"
    )
    assert "key=value" not in said and "not in the script" not in said
    script = (
        'python3 -m verl.trainer.main_ppo --config-path="$PWD/config" --config-name=geo3k data.train_batch_size=256'
    )
    with pytest.raises(JobError) as e:
        read_job(script, "run.sh")
    assert str(e.value).endswith(
        "give that YAML to `autotune init` instead, with the script's other overrides written into it (init reads the "
        "YAML alone)"
    ), e.value
