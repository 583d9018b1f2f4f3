"""`autotune calibrate --verl-log` on several runs: what it says of each run, and what a sweep of one run's job
predicts with it (audit 32 F6, F7, F11). Made-up logs, fitted in-process: seconds, no trainer."""

from __future__ import annotations

import json
from pathlib import Path

from autotune.sim.verl_log import calibrate_logs_to_file

GRPO = {
    "data.max_prompt_length": 512, "data.max_response_length": 1024,
    "actor_rollout_ref.model.path": "Qwen/Qwen2.5-0.5B-Instruct", "algorithm.adv_estimator": "grpo",
    "actor_rollout_ref.actor.ppo_mini_batch_size": 32, "actor_rollout_ref.actor.ppo_micro_batch_size_per_gpu": 8,
    "actor_rollout_ref.rollout.log_prob_micro_batch_size_per_gpu": 8, "trainer.n_gpus_per_node": 8,
}  # fmt: skip
"""A GRPO job without a KL term: it runs generation, the weight sync, the old log-prob pass and the actor's update."""


def write_run(folder: Path, name: str, timings: dict[str, float], lengths: dict[str, float], **keys: object):
    """A run's console log (4 steps, the first a slower warm-up) and its overrides file."""

    def metrics(scale: float) -> str:
        return " - ".join(
            [f"timing_s/{p}:{s * scale:.3f}" for p, s in timings.items()] + [f"{k}:{v}" for k, v in lengths.items()]
        )

    log = folder / f"{name}.log"
    log.write_text("".join(f"(TaskRunner pid=1) step:{s} - {metrics(1.3 if s == 1 else 1.0)}\n" for s in (1, 2, 3, 4)))
    config = folder / f"{name}.txt"
    config.write_text(" ".join(f"{k}={v}" for k, v in {**GRPO, **keys}.items()) + "\n")
    return log, config


LENGTHS = {"prompt_length/mean": 100, "response_length/mean": 200}


def test_a_log_that_does_not_time_generation_is_warned_of_as_a_missing_ref_is(tmp_path):
    """Every run generates; a log without `timing_s/gen` (a collector that dropped it, a verl that renamed it) was
    fitted without a word, its generation left at the shipped weights (audit 32 F11)."""
    from autotune.sim.model import default_weights

    timings = {"old_log_prob": 4.0, "update_actor": 12.0, "update_weights": 2.0}
    log, config = write_run(tmp_path, "nogen", timings, LENGTHS, **{"data.train_batch_size": 128})
    out, lines = calibrate_logs_to_file([log], [config], "H100", None, tmp_path / "cal.json")
    said = (
        "warning: nogen: its config runs `gen`, which the log does not time (no `timing_s/...`): the fit leaves them "
        "at the shipped weights"
    )
    assert said in lines, lines
    assert json.loads(out.read_text())["weights"]["gen"] == default_weights()["gen"]
    # a log of verl before 0.7 times the weight sync inside `gen`: without `gen`, neither is timed
    del timings["update_weights"]
    log, config = write_run(tmp_path, "oldnogen", timings, LENGTHS, **{"data.train_batch_size": 128})
    _, lines = calibrate_logs_to_file([log], [config], "H100", None, tmp_path / "cal.json")
    assert any(line.startswith("warning: oldnogen: its config runs `gen`, `update_weights`, which") for line in lines)
    # with `gen` timed, the passes it holds are not missing (verl before 0.7: the weight sync inside it)
    log, config = write_run(tmp_path, "old", {"gen": 30.0, **timings}, LENGTHS, **{"data.train_batch_size": 128})
    _, lines = calibrate_logs_to_file([log], [config], "H100", None, tmp_path / "cal.json")
    assert not any("which the log does not time" in line for line in lines), lines
