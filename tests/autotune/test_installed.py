"""autotune as a user meets it: a wheel built from the repository, installed outside it, run from an
empty folder. The shipped spaces, the trainer's presets and the `verl_cpu` plugin must travel in
the wheel, and every command must work without the checkout.

The default test installs the wheel's files with `pip install --no-deps --target` and runs this
interpreter with only that folder on PYTHONPATH (it wins over the checkout's editable install;
the dependencies are this environment's). The slow test does it for real: a fresh virtualenv,
torch first, then the wheel with its dependencies (network or a package cache needed).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.autotune.conftest import write_space
from tests.conftest import ROOT

SKIP = shutil.ignore_patterns(".git", ".venv", "runs", "build", "dist", "*.egg-info", "__pycache__", "results", "wandb")
VERL_JOB = """\
python3 -m verl.trainer.main_ppo \\
    algorithm.adv_estimator=grpo \\
    data.train_batch_size=256 \\
    data.max_prompt_length=512 \\
    data.max_response_length=1024 \\
    actor_rollout_ref.model.path=Qwen/Qwen2.5-7B-Instruct \\
    actor_rollout_ref.actor.ppo_mini_batch_size=64 \\
    actor_rollout_ref.actor.ppo_micro_batch_size_per_gpu=8 \\
    actor_rollout_ref.actor.use_kl_loss=True \\
    actor_rollout_ref.rollout.n=4 \\
    actor_rollout_ref.rollout.log_prob_micro_batch_size_per_gpu=16 \\
    actor_rollout_ref.ref.log_prob_micro_batch_size_per_gpu=16 \\
    trainer.n_gpus_per_node=8 trainer.nnodes=1 trainer.experiment_name=grpo-7b $@
"""


def build_wheel(tmp: Path) -> Path:
    """The wheel of a copy of the repository (a build in place would leave build/ in the checkout)."""
    source = tmp / "src"
    shutil.copytree(ROOT, source, ignore=SKIP)
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q", "-w", str(tmp / "dist"), str(source)],
        check=True, capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    [wheel] = (tmp / "dist").glob("autotune-*.whl")
    return wheel


def cli(python: str, site: Path | None, cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "OMP_NUM_THREADS": "1"}
    env.pop("PYTHONPATH", None)
    if site is not None:
        env["PYTHONPATH"] = str(site)
    out = subprocess.run(
        [python, "-m", "autotune.cli", *args], cwd=cwd, env=env, capture_output=True, text=True, timeout=600
    )
    assert out.returncode == 0, f"autotune {' '.join(args)}:\n{out.stdout[-2000:]}\n{out.stderr[-3000:]}"
    return out


def walk_through(python: str, site: Path | None, tmp: Path, installed: Path) -> None:
    """--version, validate a shipped space by name, a 2-trial sweep, report, export, init on a verl job."""
    cwd = tmp / "empty"
    cwd.mkdir()
    assert "autotune 0.1.0" in cli(python, site, cwd, "--version").stdout
    listed = cli(python, site, cwd, "spaces").stdout
    assert all(name in listed for name in ("fsdp3d", "fsdp3d-8gpu", "verl-vllm-8gpu", "verl-cpu"))
    assert str(installed / "autotune" / "_spaces") in listed  # the wheel's copy, not the checkout's
    assert "ok " in cli(python, site, cwd, "validate", "--space", "fsdp3d").stdout
    space = write_space(cwd)  # world 1, 3 steps, on the wheel's `cpu_tiny` preset
    cli(python, site, cwd, "run", "--space", str(space), "--trials", "2", "--confirm", "0")
    assert (cwd / "reports" / "small" / "index.html").is_file()
    cli(python, site, cwd, "report", "small")
    cli(python, site, cwd, "export", "small", "-o", "best.yaml")
    assert (cwd / "best.yaml").is_file()
    (cwd / "job.sh").write_text(VERL_JOB)
    init = cli(python, site, cwd, "init", "job.sh", "--gpus-per-node", "8")
    assert "ok grpo-7b.yaml" in init.stdout


def test_the_wheel_carries_what_the_commands_need_and_runs_outside_the_checkout(tmp_path: Path) -> None:
    pytest.importorskip("omegaconf", reason="`init` needs the verl extra")
    wheel = build_wheel(tmp_path)
    site = tmp_path / "site"
    subprocess.run(
        [sys.executable, "-m", "pip", "install", "--no-deps", "-q", "--target", str(site), str(wheel)],
        check=True, capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    for part in ("autotune/_spaces/fsdp3d.yaml", "trainer/config/cpu_tiny.yaml", "verl_cpu/plugin.py"):
        assert (site / part).is_file(), part
    where = subprocess.run(
        [sys.executable, "-c", "import autotune, trainer, verl_cpu; print(autotune.__file__, trainer.__file__, verl_cpu.__file__)"],
        cwd=tmp_path, env={**os.environ, "PYTHONPATH": str(site)}, capture_output=True, text=True, check=True,
    ).stdout.split()  # fmt: skip
    assert all(path.startswith(str(site)) for path in where), where
    walk_through(sys.executable, site, tmp_path, site)


@pytest.mark.slow
def test_a_fresh_virtualenv_with_the_wheel_runs_the_walk_through(tmp_path: Path) -> None:
    """As a new user: a fresh virtualenv, torch 2.13.0 first (as the Makefile installs it), then the wheel and
    its dependencies with the verl extra (needs the package index or a local cache)."""
    wheel = build_wheel(tmp_path)
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, timeout=300)
    pip = [str(venv / "bin" / "python"), "-m", "pip", "install", "-q", "--disable-pip-version-check"]
    subprocess.run([*pip, "torch==2.13.0"], check=True, timeout=1800)  # first and pinned, as the Makefile does
    subprocess.run([*pip, f"{wheel}[verl]"], check=True, timeout=1800)
    installed = next((venv / "lib").glob("python3*/site-packages"))
    walk_through(str(venv / "bin" / "python"), None, tmp_path, installed)
