"""The sixth round: SIXTH_RUNS, predicted with the cost model of SIXTH_FROZEN_REV."""

from __future__ import annotations

from typing import Any

from ._common import _PPO_05B_1GPU

SIXTH_FROZEN_REV = "2aeb3d9"
"""The revision whose cost model the sixth round of runs (SIXTH_RUNS) is predicted with, committed before any of them
was looked at: the tail of vLLM 0.14+'s overlap (d820d06) and verl 0.7.1+'s CUDA IPC weight sync (61cc3d2), both set
after the fifth round, are in it."""

NOTEBOOK = "https://github.com/verl-project/verl/blob/e08c428c6/examples/ppo_trainer/verl_getting_started.ipynb"

_NOTEBOOK_05B_1GPU = {
    # the config the run printed at its start (cell 15's output; the cell's command was edited after the run and says
    # micro-batches of 1): verl of 2025-01-10 (0.1, before remove-padding), the first round's 1-GPU 0.5B PPO command
    # but for the lengths and the micro-batches, and a reference kept on the GPU
    **_PPO_05B_1GPU,
    "data.max_prompt_length": 512,
    "data.max_response_length": 256,
    "actor_rollout_ref.rollout.log_prob_micro_batch_size_per_gpu": 1,
    "actor_rollout_ref.ref.fsdp_config.param_offload": False,
    "actor_rollout_ref.actor.ppo_micro_batch_size_per_gpu": 4,
    "critic.ppo_micro_batch_size_per_gpu": 4,
    "critic.forward_micro_batch_size_per_gpu": 4,
}


def _notebook_l40s(name: str, step: str, prompt: float, response: float, published: dict[str, float]) -> dict[str, Any]:
    """verl's own getting-started notebook (examples/ppo_trainer/verl_getting_started.ipynb, added 2025-01-10, its
    outputs unchanged in every revision until the notebook was removed), run on Lightning Studio on 2025-01-10: PPO of
    Qwen2.5-0.5B-Instruct on GSM8K on 1 GPU, its cell output keeping the printed config and 61 `step:N` lines in verl
    0.1's format (`timing/gen`, ...). vLLM 0.5.4 (the install cell: "vllm<=0.6.3 ... (0.5.4)"), torch 2.4.0. In this
    verl `gen` holds the weight sync and the old log-probs (micro-batch 1), as in the first round's verl-data runs.
    GPU: not named; an L40S, fairly sure: the run's host is an AWS VM (ip-10-... host name, NCCL's aws-ofi-nccl
    plugin), verl's vLLM 0.5.4 worker sizes the KV cache as 0.4 × the free memory, and the log's 15.66 GB cache
    (allocated 5.94 → 21.61 GB around "init cache") means ~39.2 GB free beside 6.07 GB reserved: a ~48 GB device,
    which on AWS is the L40S (g6e; A10G and L4 have 24 GB, A100 40 or 80 GB, H100 80 GB); the notebook's prose says
    "free L4", which the memory rules out for this run. Step 0 warms up; steps 9, 19, ... validate and checkpoint and
    the step after each generates ~1 s slower, so both are left out. Responses drift from ~234 to ~150 tokens over the
    run, so two windows (one configuration). Found by a search helper (round 6); the medians were recomputed here from
    the notebook in verl's history."""
    return {
        "name": name,
        "source": NOTEBOOK + " (cell 15's output)",
        "gpu": "L40S",
        "world": 1,
        "model": "Qwen2.5-0.5B",
        "step": step,
        "vllm": "0.5.4",
        "verl": "0.5",  # verl 0.1 of 2025-01-10: "0.5" stands for "before 0.7"
        "env": {"VLLM_USE_V1": "0"},
        "overrides": dict(_NOTEBOOK_05B_1GPU),
        "prompt_tokens": prompt,
        "response_tokens": response,
        "response_max": 256.0,  # every step's response_length/max is the 256 cap
        "published": published,
        "gen_includes": ("update_weights", "old_log_prob"),
    }


SIXTH_RUNS: list[dict[str, Any]] = [
    # medians of steps 1-8 and 11-18 (16 steps); lengths the means of their means (responses 220-237)
    _notebook_l40s(
        "l40s-ppo-qwen2.5-0.5b-1gpu-notebook",
        "1-8 and 11-18 (medians of 16 steps)",
        103.746,
        230.212,
        {"gen": 24.133, "ref": 3.414, "values": 3.195, "update_critic": 9.148, "update_actor": 10.866},
    ),
    # the same run late: steps 51-58 (8 steps), responses 153-171
    _notebook_l40s(
        "l40s-ppo-qwen2.5-0.5b-1gpu-notebook-late",
        "51-58 (medians of 8 steps)",
        103.531,
        163.246,
        {"gen": 21.797, "ref": 3.421, "values": 3.194, "update_critic": 9.075, "update_actor": 10.782},
    ),
]
"""The sixth round: gathered after SIXTH_FROZEN_REV by search helpers who were not shown the model (three helpers:
executed notebooks and blog walk-throughs, performance-comparison threads, efficiency papers' artefacts). One source:
verl's own getting-started notebook, PPO of a 0.5B model on 1 L40S with verl 0.1 and vLLM 0.5.4, one configuration
in two length windows."""
