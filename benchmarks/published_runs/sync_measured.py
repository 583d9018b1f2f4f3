"""SYNC_MEASURED: the weight-sync seconds of the published runs of verl 0.7.1+ (third to fifth rounds) that time it
apart from `gen`."""

from __future__ import annotations

SYNC_MEASURED: dict[str, float] = {
    # Qwen2.5-0.5B on 4 A100, verl 0.7.1: `timing_s/update_weights` of the console log's 128 step lines (AGENTSDK),
    # the median of steps 2-127 without every 10th (114 steps; 1.43-6.48 s)
    "a100x4-grpo-qwen2.5-0.5b-gsm8k-b8n8": 2.337,
    # DeepSeek-R1-Distill-Qwen-1.5B on 2 H100, verl 0.9: train.log's `timing_s/update_weights` (RTS), medians of the
    # steps from 3 on (15 steps, 1.86-1.95 s; 67 steps, 1.82-1.93 s)
    "h100x2-grpo-r1distill-qwen1.5b-code-16k-b64n8": 1.91,
    "h100x2-grpo-r1distill-qwen1.5b-code-16k-b8n8": 1.87,
    # Qwen3-8B on 4 H20 at rollout TP 2, verl 0.9: the CSV's t_weight_sync (TERRENSE, M20_grpo at 25ba57b), the
    # median of steps 2-19 without 10 (17 steps, 3.82-4.20 s)
    "h20x4-grpo-qwen3-8b-8k-M20": 3.910,
    # Qwen3-8B on 8 A100 at rollout TP 1, verl 0.8: 表 1's update_weights(s) column (LEARNERAF), the median of steps
    # 2-19 without 5, 10 and 15 (15 steps, 4.8-5.7 s)
    "a100x8-grpo-qwen3-8b-gsm8k-b256n4": 5.0,
}
"""Weight-sync seconds (`timing_s/update_weights`) of the published runs of verl 0.7.1+ that time it apart from
`gen`, read from the same files and steps as their other phases (added on 2026-12-04, after all five rounds). They
set rollout.SYNC_IPC_FIXED and SYNC_IPC_BYTES_PER_S; sim_published.py prints the model against them (in sample)."""
