"""`autotune init` reading what users give it (audit 29): verl's own example scripts and the ways real scripts differ
from them, each read as bash and verl read it or refused at its line with the fix."""

from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("omegaconf", reason="autotune init checks keys with verl's config (the `verl` extra)")

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
