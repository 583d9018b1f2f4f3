"""Response-length statistics of public verl runs, for `benchmarks/longest_response.py` (out of sample).

Each entry: one run (or one window of a run) with the medians over the steps named of verl's per-step
`response_length/mean` and `response_length/max`, the number of responses a step (data.train_batch_size ×
actor_rollout_ref.rollout.n) and data.max_response_length. Gathered after the cost model's geometric guess of the
longest response was committed; none of these runs set any constant of the model.
"""

from __future__ import annotations

from typing import Any

LENGTH_RUNS: list[dict[str, Any]] = [
    {
        "run": "cambricon-qwen3-4b-megatron-dapomath-8k-b8n16",
        "source": "https://github.com/THisisPX/verl_cambricon/blob/d6e0ac6788a98e92d789f0be4ad93eabef31a195/tensorboard_log/verl_perf_test/qwen3_4b_grpo_n16_resp8192_megatron/events.out.tfevents.1781364341.notebook-devenviron-0605-171008-1v5hwha-launcher-0.397653.0 "
        "(config: examples/grpo_trainer/run_qwen3_4b_megatron_perf_test.sh at same commit)",
        "model": "Qwen3-4B",
        "task": "math (DAPO-Math-17k)",
        "algorithm": "GRPO (clip 0.2/0.28)",
        "steps": "2-8",
        "responses": 128,
        "train_batch_size": 8,
        "n": 16,
        "max_response_length": 8192,
        "response_mean": 6263.734,
        "response_max": 8192.0,
        "clip_ratio": 0.39844,
        "notes": "Megatron actor, vLLM, 8 steps only (TOTAL_TRAINING_STEPS=8); batch/n from script defaults (clip_ratio "
        "steps are multiples of 1/128, consistent with N=128). Max = cap at every step. Sibling runs of the "
        "same script (megatron_tp4, megatron_sglang, a repeat 1781448395) give near-identical numbers (same "
        "prompts): not listed separately. Different dataset from the already-used 'emptyprompt' run of this "
        "repo.",
    },
    {
        "run": "verldata-qwen2-7b-gsm8k-gpg-megatron-early",
        "source": "https://github.com/diqiuzhuanzhuan/verldata/blob/42e31cd07ea08b66e709a74e9aed2bd740589c34/run_logs/qwen2-7b_math_megatron.log",
        "model": "Qwen2-7B-Instruct",
        "task": "gsm8k (train_files = gsm8k only, despite the file name)",
        "algorithm": "GPG (adv_estimator=gpg, use_gpg_loss)",
        "steps": "5-30",
        "responses": 5120,
        "train_batch_size": 1024,
        "n": 5,
        "max_response_length": 1024,
        "response_mean": 173.547,
        "response_max": 1024.0,
        "clip_ratio": 0.001,
        "notes": "Megatron actor (TP2 PP2), vLLM TP2, 8 GPUs, 1 node; batch/n/cap from the printed command and config. "
        "Console rounds to 3 decimals (clip_ratio 0.000-0.002). Max = cap in every step of this window. Sibling "
        "FSDP log qwen2-7b_math.log is already USED (FOURTH_RUNS); this Megatron log is a different run (gsm8k "
        "only).",
    },
    {
        "run": "verldata-qwen2-7b-gsm8k-gpg-megatron-mid-late",
        "source": "https://github.com/diqiuzhuanzhuan/verldata/blob/42e31cd07ea08b66e709a74e9aed2bd740589c34/run_logs/qwen2-7b_math_megatron.log",
        "model": "Qwen2-7B-Instruct",
        "task": "gsm8k",
        "algorithm": "GPG",
        "steps": "40-105",
        "responses": 5120,
        "train_batch_size": 1024,
        "n": 5,
        "max_response_length": 1024,
        "response_mean": 153.673,
        "response_max": 1024.0,
        "clip_ratio": 0.0005,
        "notes": "same run; log ends at step 105. In this window max < cap in 12 of 66 steps (623-992), e.g. step 53 max "
        "625, step 85 max 623; median still 1024.",
    },
    {
        "run": "kuberay-qwen2.5-0.5b-ppo-gsm8k-cap128",
        "source": "https://github.com/NaomiEisen/Verl-KubeRay-RL/blob/2d5efcceabf9b7b74b8ea61af446a2ec9818e8f0/successful_run_example.log",
        "model": "Qwen2.5-0.5B-Instruct",
        "task": "gsm8k",
        "algorithm": "PPO (GAE, critic)",
        "steps": "3-29",
        "responses": 256,
        "train_batch_size": 256,
        "n": 1,
        "max_response_length": 128,
        "response_mean": 126.539,
        "response_max": 128.0,
        "clip_ratio": 0.96875,
        "notes": "verl quickstart-style PPO, 1 GPU, full config printed; 29 steps. Cap 128 is tiny: 88-99.6% of "
        "responses clipped, max = cap every step (degenerate, saturated).",
    },
    {
        "run": "montehoover-qwen3-0.6b-ppo-gsm8k-early",
        "source": "https://github.com/montehoover/verl/blob/b5ac33015f5daf6e97669d5f38388d34920f2a12/slurm-6231820.out",
        "model": "Qwen3-0.6B",
        "task": "gsm8k",
        "algorithm": "PPO (GAE, critic)",
        "steps": "5-20",
        "responses": 256,
        "train_batch_size": 256,
        "n": 1,
        "max_response_length": 512,
        "response_mean": 434.441,
        "response_max": 512.0,
        "clip_ratio": 0.48047,
        "notes": "2 GPUs, full config printed, 199 steps logged; mean drifts 488 -> 262 over the run; max = cap (512) at "
        "all 199 steps.",
    },
    {
        "run": "montehoover-qwen3-0.6b-ppo-gsm8k-mid",
        "source": "https://github.com/montehoover/verl/blob/b5ac33015f5daf6e97669d5f38388d34920f2a12/slurm-6231820.out",
        "model": "Qwen3-0.6B",
        "task": "gsm8k",
        "algorithm": "PPO",
        "steps": "40-60",
        "responses": 256,
        "train_batch_size": 256,
        "n": 1,
        "max_response_length": 512,
        "response_mean": 311.875,
        "response_max": 512.0,
        "clip_ratio": 0.13281,
        "notes": "same run",
    },
    {
        "run": "montehoover-qwen3-0.6b-ppo-gsm8k-late",
        "source": "https://github.com/montehoover/verl/blob/b5ac33015f5daf6e97669d5f38388d34920f2a12/slurm-6231820.out",
        "model": "Qwen3-0.6B",
        "task": "gsm8k",
        "algorithm": "PPO",
        "steps": "150-199",
        "responses": 256,
        "train_batch_size": 256,
        "n": 1,
        "max_response_length": 512,
        "response_mean": 267.326,
        "response_max": 512.0,
        "clip_ratio": 0.07422,
        "notes": "same run; even at clip 5-7% max stays at cap",
    },
    {
        "run": "asyncreward-q3b_mcore_base",
        "source": "https://github.com/haolinyan/verl/tree/35cee0caba9f852cfe62c39f738f096f55c8cbd0/recipe/async_reward_agent/assets/tensorboard/q3b_mcore_base/ "
        "(config: "
        "https://github.com/haolinyan/verl/blob/35cee0caba9f852cfe62c39f738f096f55c8cbd0/recipe/async_reward_agent/qwen2_7b_instruct_gsm8k.sh)",
        "model": "Qwen2.5-3B",
        "task": "gsm8k",
        "algorithm": "GRPO",
        "steps": "2-105",
        "responses": 5120,
        "train_batch_size": 1024,
        "n": 5,
        "max_response_length": 1024,
        "response_mean": 291.337,
        "response_max": 1024.0,
        "clip_ratio": 0.0002,
        "notes": "Megatron actor, synchronous baseline. 51 of 104 steps have max < cap (723-1016). Same configuration as "
        "the USED q3b_fsdp_base / q7b_fsdp_base runs (batch 1024 x n 5 from the launch script, confirmed by the "
        "used entry's token counts); 8 H20; simulated slow async reward (does not cut responses). "
        "Near-replicate of a used config: weigh accordingly.",
    },
    {
        "run": "asyncreward-q3b_fsdp_off_ppl",
        "source": "https://github.com/haolinyan/verl/tree/35cee0caba9f852cfe62c39f738f096f55c8cbd0/recipe/async_reward_agent/assets/tensorboard/q3b_fsdp_off_ppl/ "
        "(config: "
        "https://github.com/haolinyan/verl/blob/35cee0caba9f852cfe62c39f738f096f55c8cbd0/recipe/async_reward_agent/qwen2_7b_instruct_gsm8k.sh)",
        "model": "Qwen2.5-3B",
        "task": "gsm8k",
        "algorithm": "GRPO",
        "steps": "2-105",
        "responses": 5120,
        "train_batch_size": 1024,
        "n": 5,
        "max_response_length": 1024,
        "response_mean": 278.075,
        "response_max": 1005.0,
        "clip_ratio": 0.0,
        "notes": "FSDP2; one-step-off pipeline (next step's rollout overlapped with this step's update; responses not "
        "cut otherwise). 55 of 104 steps max < cap; median max 1005 < cap. Same configuration as the USED "
        "q3b_fsdp_base / q7b_fsdp_base runs (batch 1024 x n 5 from the launch script, confirmed by the used "
        "entry's token counts); 8 H20; simulated slow async reward (does not cut responses). Near-replicate of "
        "a used config: weigh accordingly.",
    },
    {
        "run": "asyncreward-q3b_mcore_off_ppl",
        "source": "https://github.com/haolinyan/verl/tree/35cee0caba9f852cfe62c39f738f096f55c8cbd0/recipe/async_reward_agent/assets/tensorboard/q3b_mcore_off_ppl/ "
        "(config: "
        "https://github.com/haolinyan/verl/blob/35cee0caba9f852cfe62c39f738f096f55c8cbd0/recipe/async_reward_agent/qwen2_7b_instruct_gsm8k.sh)",
        "model": "Qwen2.5-3B",
        "task": "gsm8k",
        "algorithm": "GRPO",
        "steps": "2-105",
        "responses": 5120,
        "train_batch_size": 1024,
        "n": 5,
        "max_response_length": 1024,
        "response_mean": 284.011,
        "response_max": 1024.0,
        "clip_ratio": 0.0002,
        "notes": "Megatron; one-step-off pipeline. 47 of 104 steps max < cap. Same configuration as the USED "
        "q3b_fsdp_base / q7b_fsdp_base runs (batch 1024 x n 5 from the launch script, confirmed by the used "
        "entry's token counts); 8 H20; simulated slow async reward (does not cut responses). Near-replicate of "
        "a used config: weigh accordingly.",
    },
    {
        "run": "asyncreward-gsm8k_qwen2_7b_base",
        "source": "https://github.com/haolinyan/verl/tree/35cee0caba9f852cfe62c39f738f096f55c8cbd0/recipe/async_reward_agent/assets/tensorboard/gsm8k_qwen2_7b_base/ "
        "(config: "
        "https://github.com/haolinyan/verl/blob/35cee0caba9f852cfe62c39f738f096f55c8cbd0/recipe/async_reward_agent/qwen2_7b_instruct_gsm8k.sh)",
        "model": "Qwen2-7B",
        "task": "gsm8k",
        "algorithm": "GRPO",
        "steps": "2-105",
        "responses": 5120,
        "train_batch_size": 1024,
        "n": 5,
        "max_response_length": 1024,
        "response_mean": 154.713,
        "response_max": 1024.0,
        "clip_ratio": 0.00059,
        "notes": "Megatron (per the recipe README table), synchronous baseline. 9 of 104 steps max < cap. Same "
        "configuration as the USED q3b_fsdp_base / q7b_fsdp_base runs (batch 1024 x n 5 from the launch script, "
        "confirmed by the used entry's token counts); 8 H20; simulated slow async reward (does not cut "
        "responses). Near-replicate of a used config: weigh accordingly.",
    },
    {
        "run": "asyncreward-q7b_mcore_off",
        "source": "https://github.com/haolinyan/verl/tree/35cee0caba9f852cfe62c39f738f096f55c8cbd0/recipe/async_reward_agent/assets/tensorboard/q7b_mcore_off/ "
        "(config: "
        "https://github.com/haolinyan/verl/blob/35cee0caba9f852cfe62c39f738f096f55c8cbd0/recipe/async_reward_agent/qwen2_7b_instruct_gsm8k.sh)",
        "model": "Qwen2-7B",
        "task": "gsm8k",
        "algorithm": "GRPO",
        "steps": "2-105",
        "responses": 5120,
        "train_batch_size": 1024,
        "n": 5,
        "max_response_length": 1024,
        "response_mean": 172.431,
        "response_max": 1024.0,
        "clip_ratio": 0.00059,
        "notes": "Megatron; one-step-off pipeline. 4 of 104 steps max < cap. Same configuration as the USED "
        "q3b_fsdp_base / q7b_fsdp_base runs (batch 1024 x n 5 from the launch script, confirmed by the used "
        "entry's token counts); 8 H20; simulated slow async reward (does not cut responses). Near-replicate of "
        "a used config: weigh accordingly.",
    },
    {
        "run": "agentsdk-qwen2.5-0.5b-gsm8k-b2n8-cap1536 (run_1780250271)",
        "source": "https://github.com/Codekiing/AgentSDK/blob/66d989b6581a328474aece48ac39d9a1f01e0eee/skill-bank/packages/task-packages/gsm8k_qwen0.5b_round1/docs/training_log.txt",
        "model": "Qwen2.5-0.5B-Instruct",
        "task": "gsm8k",
        "algorithm": "GRPO",
        "steps": "2-48",
        "responses": 16,
        "train_batch_size": 2,
        "n": 8,
        "max_response_length": 1536,
        "response_mean": 307.0,
        "response_max": 475.0,
        "clip_ratio": 0.0,
        "notes": "console log with the full launch command (verl 0.7-era agent-loop rollout; num_turns/max=2 is verl's "
        "count for a plain single-turn prompt+response, no tools); 2 GPUs; temperature 0.85; "
        "data.train_max_samples=48. N=16 is tiny: max per step 304-886. perf/total_num_tokens/(prompt+response "
        "mean) = 16 in its TensorBoard twin. USED runs of this repo are the N=64 (round2) and N=256 "
        "(instruct_fsdp) ones; this is a different run.",
    },
    {
        "run": "agentsdk-qwen2.5-0.5b-gsm8k-n16-cap1536 (run_1780249675)",
        "source": "https://github.com/Codekiing/AgentSDK/blob/66d989b6581a328474aece48ac39d9a1f01e0eee/tensorboard_log/verl_grpo_agent/run_1780249675/ "
        "(config: "
        "https://github.com/Codekiing/AgentSDK/blob/66d989b6581a328474aece48ac39d9a1f01e0eee/skill-bank/packages/lineage-archive/gsm8k/qwen0.5b-r1-r2/raw/round_1/events.jsonl "
        "(launch args recorded per run))",
        "model": "Qwen2.5-0.5B-Instruct",
        "task": "gsm8k",
        "algorithm": "GRPO",
        "steps": "2-24",
        "responses": 16,
        "train_batch_size": 2,
        "n": 8,
        "max_response_length": 1536,
        "response_mean": 300.5,
        "response_max": 564.0,
        "clip_ratio": 0.0,
        "notes": "cap 1536 and n=8 from the recorded args; batch 2 inferred "
        "(perf/total_num_tokens/(prompt_mean+response_mean) = 16.0 exactly). One step (9) hit the cap (clip "
        "0.0625 = 1/16).",
    },
    {
        "run": "agentsdk-qwen2.5-0.5b-gsm8k-b2n4-cap1024 (run_1780248991)",
        "source": "https://github.com/Codekiing/AgentSDK/blob/66d989b6581a328474aece48ac39d9a1f01e0eee/tensorboard_log/verl_grpo_agent/run_1780248991/ "
        "(config: "
        "https://github.com/Codekiing/AgentSDK/blob/66d989b6581a328474aece48ac39d9a1f01e0eee/skill-bank/packages/lineage-archive/gsm8k/qwen0.5b-r1-r2/raw/round_1/events.jsonl "
        "(launch args recorded per run))",
        "model": "Qwen2.5-0.5B-Instruct",
        "task": "gsm8k",
        "algorithm": "GRPO",
        "steps": "2-16",
        "responses": 8,
        "train_batch_size": 2,
        "n": 4,
        "max_response_length": 1024,
        "response_mean": 296.125,
        "response_max": 472.0,
        "clip_ratio": 0.0,
        "notes": "args recorded (batch 2, n 4, cap 1024); N=8 confirmed by total_num_tokens. Max 303-561.",
    },
    {
        "run": "agentsdk-qwen2.5-0.5b-gsm8k-b2n4-cap256 (run_1780247306)",
        "source": "https://github.com/Codekiing/AgentSDK/blob/66d989b6581a328474aece48ac39d9a1f01e0eee/tensorboard_log/verl_grpo_agent/run_1780247306/events.out.tfevents.1780248454.1r9jgbr25dejv-0.2640354.0 "
        "(config: "
        "https://github.com/Codekiing/AgentSDK/blob/66d989b6581a328474aece48ac39d9a1f01e0eee/skill-bank/packages/lineage-archive/gsm8k/qwen0.5b-r1-r2/raw/round_1/events.jsonl "
        "(launch args recorded per run))",
        "model": "Qwen2.5-0.5B-Instruct",
        "task": "gsm8k",
        "algorithm": "GRPO",
        "steps": "2-32",
        "responses": 8,
        "train_batch_size": 2,
        "n": 4,
        "max_response_length": 256,
        "response_mean": 208.0,
        "response_max": 256.0,
        "clip_ratio": 0.625,
        "notes": "args recorded (batch 2, n 4, cap 256); N=8 confirmed. Saturated: max = cap at all steps.",
    },
    {
        "run": "agentsdk-qwen2.5-0.5b-gsm8k-r9-b32n8-cap1024",
        "source": "https://github.com/Codekiing/AgentSDK/blob/66d989b6581a328474aece48ac39d9a1f01e0eee/tensorboard_log/verl_grpo_gsm8k/run_verl_gsm8k_0.5b_r9/ "
        "(config: "
        "https://github.com/Codekiing/AgentSDK/blob/66d989b6581a328474aece48ac39d9a1f01e0eee/traj_opt/output/rllm/reports/20260602-081402-rllm-analysis-verl-r9.md)",
        "model": "Qwen2.5-0.5B-Instruct",
        "task": "gsm8k",
        "algorithm": "GRPO (KL loss)",
        "steps": "2-80",
        "responses": 256,
        "train_batch_size": 32,
        "n": 8,
        "max_response_length": 1024,
        "response_mean": 275.531,
        "response_max": 733.0,
        "clip_ratio": 0.0,
        "notes": "batch 32 and cap 1024 from the repo's analysis report of round 9 ('batch=32', 'response_length/mean "
        "274/1024'); n=8 inferred from perf/total_num_tokens/(prompt_mean+response_mean)=256 -> UNCERTAIN n "
        "(batch 32 stated, N=256 measured). temperature 0.7. Max per step 456-1024.",
    },
    {
        "run": "autodl-note-qwen2.5-0.5b-ppo-gsm8k-cap256",
        "source": "file-index id 63339290927 (a Chinese Markdown note '# VeRL记录' on GitHub, verl quickstart on AutoDL; "
        "the index gives no repo/path)",
        "model": "Qwen2.5-0.5B-Instruct",
        "task": "gsm8k",
        "algorithm": "PPO (GAE, critic)",
        "steps": "71-79",
        "responses": 256,
        "train_batch_size": 256,
        "n": 1,
        "max_response_length": 256,
        "response_mean": 163.922,
        "response_max": 256.0,
        "clip_ratio": 0.08203,
        "notes": "verl quickstart command pasted in the note (batch 256, n default 1, cap 256, 1 GPU); steps 71-79 read "
        "(file continues, not read further to save look-ups). Max = cap every step; clip 5-10%.",
    },
    {
        "run": "stagetuner-qwen3-0.6b-base-dapo17k-b256n4-cap5120-trial5",
        "source": "file-index id 55237886069 (a Chinese 'Agent 实验报告 0723_1550_2026' Markdown report of a verl 0.7 "
        "stage-tuner; the index gives no repo/path; steps quoted in its trial-5 log excerpt)",
        "model": "Qwen3-0.6B-Base",
        "task": "math (DAPO-17k dedup)",
        "algorithm": "GRPO (KL loss)",
        "steps": "66-67",
        "responses": 1024,
        "train_batch_size": 256,
        "n": 4,
        "max_response_length": 5120,
        "response_mean": 62.561,
        "response_max": 5120.0,
        "clip_ratio": 0.00781,
        "notes": "LOW WEIGHT: only 2 steps, and the run is in reward collapse (score -0.85/-0.91, mean length fell to "
        "54-72 tokens); yet 8 of 1024 responses hit the 5120 cap each step (degenerate repetition). Megatron "
        "TP2, vLLM TP2, 8 GPUs of 63.6 GB (not an NVIDIA preset; the cost model doesn't care here). Config from "
        "the trial's parameter dump in the same file. This stage-tuner source was earlier rejected "
        "(SOURCES_CHECKED: 'a verl stage-tuner trial record ... Qwen3-0.6B ... 5120-token responses') for "
        "Megatron/one step. Trial summaries in the same file give run-average response lengths only (1188.6, "
        "1280.7, 750.0, 1105.9 over 6 steps; clip 0.043 for trial 2): no max.",
    },
    {
        "run": "rts-async-longcot-r1distill-1.5b-dapomath-8k-s0",
        "source": "https://github.com/aishukamal/rl-time-slicing/blob/6a343557756da0c9477a93691f5b9809b16767fe/async-rl-benchmarks/async-longcot/results/run_s0_train.log",
        "model": "DeepSeek-R1-Distill-Qwen-1.5B",
        "task": "math (DAPO-Math)",
        "algorithm": "GRPO (verl fully_async trainer, staleness_threshold 0)",
        "steps": "2-15",
        "responses": 512,
        "train_batch_size": 64,
        "n": 8,
        "max_response_length": 8192,
        "response_mean": 6082.808,
        "response_max": 8192.0,
        "clip_ratio": 0.47559,
        "notes": "fully-async recipe with staleness 0 and total_partial_num 0 at every step (effectively on-policy, no "
        "interrupted responses). One trainer step = ppo_mini_batch_size 64 prompts x rollout_n 8 x "
        "require_batches 1 = 512 responses (clip_ratio values are multiples of 1/512; data.train_batch_size "
        "printed as 0 in fully-async mode). Max = cap at every step. Same repo as the USED RTS code-16k runs "
        "(rl-elastic-scaling), but a different benchmark (async-longcot, math).",
    },
    {
        "run": "rts-async-longcot-r1distill-1.5b-dapomath-16k-s8",
        "source": "https://github.com/aishukamal/rl-time-slicing/blob/6a343557756da0c9477a93691f5b9809b16767fe/async-rl-benchmarks/async-longcot/results/run_s8_16k_train.log",
        "model": "DeepSeek-R1-Distill-Qwen-1.5B",
        "task": "math (DAPO-Math)",
        "algorithm": "GRPO (fully_async, staleness 8, partial_rollout on)",
        "steps": "2-12",
        "responses": 512,
        "train_batch_size": 64,
        "n": 8,
        "max_response_length": 16384,
        "response_mean": 8215.615,
        "response_max": 16384.0,
        "clip_ratio": 0.0957,
        "notes": "CAUTION: partial rollouts (65-103 of 512 samples per step resumed across weight syncs; final responses "
        "still bounded only by max_response_length) and up to 8 steps stale. N=512 per trainer step as above. "
        "Max = cap at every step even at ~10% clip.",
    },
    {
        "run": "tinyzero-westwood-countdown-qwen2.5-0.5b-ppo-steps383-399",
        "source": "https://github.com/Westwood-Lin/TinyZero-Reproduction/blob/e5bca7c3551c49fcdad6de18b837b3877fab7b35/part-of-logs.md "
        "(= file-index id 3902241921; command in README.md of the same commit)",
        "model": "Qwen2.5-0.5B (TinyZero)",
        "task": "countdown",
        "algorithm": "PPO (GAE, critic; TinyZero's Jan-2025 verl)",
        "steps": "383-399",
        "responses": 32,
        "train_batch_size": 32,
        "n": 1,
        "max_response_length": 256,
        "response_mean": 34.812,
        "response_max": 37.0,
        "clip_ratio": 0.0,
        "notes": "README command: data.train_batch_size=32, max_response_length=256 (n default 1); N=32 confirmed by "
        "global_seqlen/(prompt+response mean)=32.0. CAUTION: the printed config pasted in the repo's other note "
        "('复现 TinyZero.md') shows batch 256 / cap 1024 -- probably an earlier launch; the cap of this log's run "
        "is therefore 256 with some doubt (no response ever approaches either cap). Policy collapsed to a fixed "
        "template: lengths 31-39, an extreme low-spread case. 1 consumer GPU (RTX 5090 then 4090). Console "
        "rounds to 3 decimals. Earlier rejected only for the consumer GPU.",
        "same_as_published": "the same log steps (383-389) as the published rtx4090-ppo-qwen2.5-0.5b-1gpu-tinyzero run "
        "(its source names the note, not the repository)",
    },
    {
        "run": "mi300-deepseek-llm-7b-chat-gsm8k-grpo-early",
        "source": "https://github.com/yushengsu-thu/verl_training_log/blob/deb1507ca0740580d2019e7150d08edf8dd6ca35/gsm8k/grpo_run_deepseek7b_llm.log",
        "model": "deepseek-llm-7b-chat",
        "task": "gsm8k",
        "algorithm": "GRPO (KL loss)",
        "steps": "2-30",
        "responses": 5120,
        "train_batch_size": 1024,
        "n": 5,
        "max_response_length": 1024,
        "response_mean": 141.913,
        "response_max": 1024.0,
        "clip_ratio": 0.0,
        "notes": "AMD MI300 (per SOURCES_CHECKED; linked from verl docs/algo/baseline.md), 8 GPUs, launch script echoed "
        "at the top of the log; console rounds to 3 decimals. 1119 steps (160 epochs). Max falls well below the "
        "cap for most of the run: max<cap in 803 of 1115 steps (2-1119); per-window max ranges in hM_raw TSV.",
    },
    {
        "run": "mi300-deepseek-llm-7b-chat-gsm8k-grpo-mid",
        "source": "https://github.com/yushengsu-thu/verl_training_log/blob/deb1507ca0740580d2019e7150d08edf8dd6ca35/gsm8k/grpo_run_deepseek7b_llm.log",
        "model": "deepseek-llm-7b-chat",
        "task": "gsm8k",
        "algorithm": "GRPO (KL loss)",
        "steps": "500-550",
        "responses": 5120,
        "train_batch_size": 1024,
        "n": 5,
        "max_response_length": 1024,
        "response_mean": 133.246,
        "response_max": 740.0,
        "clip_ratio": 0.0,
        "notes": "AMD MI300 (per SOURCES_CHECKED; linked from verl docs/algo/baseline.md), 8 GPUs, launch script echoed "
        "at the top of the log; console rounds to 3 decimals. 1119 steps (160 epochs). Max falls well below the "
        "cap for most of the run: max<cap in 803 of 1115 steps (2-1119); per-window max ranges in hM_raw TSV.",
    },
    {
        "run": "mi300-deepseek-llm-7b-chat-gsm8k-grpo-late",
        "source": "https://github.com/yushengsu-thu/verl_training_log/blob/deb1507ca0740580d2019e7150d08edf8dd6ca35/gsm8k/grpo_run_deepseek7b_llm.log",
        "model": "deepseek-llm-7b-chat",
        "task": "gsm8k",
        "algorithm": "GRPO (KL loss)",
        "steps": "1070-1119",
        "responses": 5120,
        "train_batch_size": 1024,
        "n": 5,
        "max_response_length": 1024,
        "response_mean": 134.731,
        "response_max": 510.5,
        "clip_ratio": 0.0,
        "notes": "AMD MI300 (per SOURCES_CHECKED; linked from verl docs/algo/baseline.md), 8 GPUs, launch script echoed "
        "at the top of the log; console rounds to 3 decimals. 1119 steps (160 epochs). Max falls well below the "
        "cap for most of the run: max<cap in 803 of 1115 steps (2-1119); per-window max ranges in hM_raw TSV.",
    },
    {
        "run": "mi300-deepseek-llm-7b-chat-gsm8k-ppo-early",
        "source": "https://github.com/yushengsu-thu/verl_training_log/blob/deb1507ca0740580d2019e7150d08edf8dd6ca35/gsm8k/ppo_run_deepseek7b_llm.log",
        "model": "deepseek-llm-7b-chat",
        "task": "gsm8k",
        "algorithm": "PPO (GAE, critic)",
        "steps": "2-30",
        "responses": 1024,
        "train_batch_size": 1024,
        "n": 1,
        "max_response_length": 512,
        "response_mean": 149.781,
        "response_max": 512.0,
        "clip_ratio": 0.003,
        "notes": "AMD MI300 (per SOURCES_CHECKED; linked from verl docs/algo/baseline.md), 8 GPUs, launch script echoed "
        "at the top of the log; console rounds to 3 decimals. 1119 steps (160 epochs). Max falls well below the "
        "cap for most of the run: max<cap in 699 of 1115 steps (2-1119); per-window max ranges in hM_raw TSV.",
    },
    {
        "run": "mi300-deepseek-llm-7b-chat-gsm8k-ppo-mid",
        "source": "https://github.com/yushengsu-thu/verl_training_log/blob/deb1507ca0740580d2019e7150d08edf8dd6ca35/gsm8k/ppo_run_deepseek7b_llm.log",
        "model": "deepseek-llm-7b-chat",
        "task": "gsm8k",
        "algorithm": "PPO (GAE, critic)",
        "steps": "500-550",
        "responses": 1024,
        "train_batch_size": 1024,
        "n": 1,
        "max_response_length": 512,
        "response_mean": 135.929,
        "response_max": 454.0,
        "clip_ratio": 0.0,
        "notes": "AMD MI300 (per SOURCES_CHECKED; linked from verl docs/algo/baseline.md), 8 GPUs, launch script echoed "
        "at the top of the log; console rounds to 3 decimals. 1119 steps (160 epochs). Max falls well below the "
        "cap for most of the run: max<cap in 699 of 1115 steps (2-1119); per-window max ranges in hM_raw TSV.",
    },
    {
        "run": "mi300-deepseek-llm-7b-chat-gsm8k-ppo-late",
        "source": "https://github.com/yushengsu-thu/verl_training_log/blob/deb1507ca0740580d2019e7150d08edf8dd6ca35/gsm8k/ppo_run_deepseek7b_llm.log",
        "model": "deepseek-llm-7b-chat",
        "task": "gsm8k",
        "algorithm": "PPO (GAE, critic)",
        "steps": "1070-1119",
        "responses": 1024,
        "train_batch_size": 1024,
        "n": 1,
        "max_response_length": 512,
        "response_mean": 135.282,
        "response_max": 458.0,
        "clip_ratio": 0.0,
        "notes": "AMD MI300 (per SOURCES_CHECKED; linked from verl docs/algo/baseline.md), 8 GPUs, launch script echoed "
        "at the top of the log; console rounds to 3 decimals. 1119 steps (160 epochs). Max falls well below the "
        "cap for most of the run: max<cap in 699 of 1115 steps (2-1119); per-window max ranges in hM_raw TSV.",
    },
    {
        "run": "uqcxu9-qwen2.5-7b-lora-econ-agent-b2n4-cap128",
        "source": "https://github.com/uqcxu9/qwen2.5_300step_NEW_CONSIS_RESULT/blob/96eca073e807f7aac8d9c1f581515f53e25f5a0b/RL/train.log",
        "model": "Qwen2.5-7B-Instruct (LoRA rank 8)",
        "task": "custom structured decision task (LLM economic-agent simulation data, custom reward.py; single-turn, "
        "multi_turn disabled)",
        "algorithm": "GRPO",
        "steps": "2-100",
        "responses": 8,
        "train_batch_size": 2,
        "n": 4,
        "max_response_length": 128,
        "response_mean": 18.125,
        "response_max": 20.0,
        "clip_ratio": 0.0,
        "notes": "LOW WEIGHT / degenerate: N=8, responses are ~18-20-token structured answers; from step ~100 on every "
        "response is exactly 20 tokens (steps 300-699: mean 20, max 20). 1 GPU, full config printed, 699 steps. "
        "Earlier helper rejected it for LoRA only.",
    },
    {
        "run": "faradawn-trtllm-qwen2-7b-gsm8k+math-early",
        "source": "https://github.com/faradawn/verl/blob/da44b43396008e6baab985fa0cf007d77aadb5c8/log-6.txt",
        "model": "Qwen2-7B-Instruct",
        "task": "gsm8k + MATH (mixed)",
        "algorithm": "GRPO (rollout IS correction, threshold 2.0)",
        "steps": "2-40",
        "responses": 5120,
        "train_batch_size": 1024,
        "n": 5,
        "max_response_length": 1024,
        "response_mean": 246.053,
        "response_max": 1024.0,
        "clip_ratio": 0.01738,
        "notes": "TensorRT-LLM rollout (rollout.name=trtllm) on 8 GPUs, 1 node; full command and config printed; 132 "
        "steps. Max = cap at 130 of 131 steps 2-132.",
    },
    {
        "run": "faradawn-trtllm-qwen2-7b-gsm8k+math-late",
        "source": "https://github.com/faradawn/verl/blob/da44b43396008e6baab985fa0cf007d77aadb5c8/log-6.txt",
        "model": "Qwen2-7B-Instruct",
        "task": "gsm8k + MATH",
        "algorithm": "GRPO",
        "steps": "91-132",
        "responses": 5120,
        "train_batch_size": 1024,
        "n": 5,
        "max_response_length": 1024,
        "response_mean": 215.481,
        "response_max": 1024.0,
        "clip_ratio": 0.00078,
        "notes": "same run; clip fell to ~0.08% (4 of 5120) yet max still at cap (min of max 968 in this window). "
        "Sibling log-7.txt (14 steps, same config) not listed.",
    },
    {
        "run": "asycnverl-clip_low0.2_high0.2_seed0-early",
        "source": "https://github.com/065536/Asycn_verl/blob/00d3e4dfe5360ad6fc73d6d286ff9b618ede1dcc/deepseek1.5b_clip_sweep/deepseek1.5b_sync_8gpu_clip_low0.2_high0.2_seed0.jsonl "
        "(config: "
        "https://github.com/065536/Asycn_verl/blob/00d3e4dfe5360ad6fc73d6d286ff9b618ede1dcc/deepseek1.5b_clip_sweep/deepseek1.5b_sync_8gpu_clip_low0.2_high0.2_seed0.config.json)",
        "model": "DeepSeek-R1-Distill-Qwen-1.5B",
        "task": "math (DAPO-Math-17k, sampled subset)",
        "algorithm": "GRPO (token-mean, no KL loss)",
        "steps": "2-20",
        "responses": 1024,
        "train_batch_size": 128,
        "n": 8,
        "max_response_length": 8192,
        "response_mean": 4989.826,
        "response_max": 8192.0,
        "clip_ratio": 0.27832,
        "notes": "NEW source (not in SOURCES_CHECKED): verl file-logger JSONL + full JSON config dump per run; 8 GPUs, 1 "
        "node, FSDP, vLLM (rollout.mode async = agent-loop server, synchronous trainer), multi_turn disabled. "
        "clip sweep arm with the default clip 0.2/0.2 (PPO clip range does not touch generation); 300 steps, "
        "max = cap at every step. The repo holds ~40 more runs of this one configuration (seeds, clip and lr "
        "arms; a2q 'prompt_only'/'rollout_only' arms filter data, not listed): raw TSVs hM_raw/asycnverl_*.tsv, "
        "all with median max = 8192.",
    },
    {
        "run": "asycnverl-clip_low0.2_high0.2_seed0-mid",
        "source": "https://github.com/065536/Asycn_verl/blob/00d3e4dfe5360ad6fc73d6d286ff9b618ede1dcc/deepseek1.5b_clip_sweep/deepseek1.5b_sync_8gpu_clip_low0.2_high0.2_seed0.jsonl "
        "(config: "
        "https://github.com/065536/Asycn_verl/blob/00d3e4dfe5360ad6fc73d6d286ff9b618ede1dcc/deepseek1.5b_clip_sweep/deepseek1.5b_sync_8gpu_clip_low0.2_high0.2_seed0.config.json)",
        "model": "DeepSeek-R1-Distill-Qwen-1.5B",
        "task": "math (DAPO-Math-17k, sampled subset)",
        "algorithm": "GRPO (token-mean, no KL loss)",
        "steps": "100-150",
        "responses": 1024,
        "train_batch_size": 128,
        "n": 8,
        "max_response_length": 8192,
        "response_mean": 4316.184,
        "response_max": 8192.0,
        "clip_ratio": 0.1416,
        "notes": "NEW source (not in SOURCES_CHECKED): verl file-logger JSONL + full JSON config dump per run; 8 GPUs, 1 "
        "node, FSDP, vLLM (rollout.mode async = agent-loop server, synchronous trainer), multi_turn disabled. "
        "clip sweep arm with the default clip 0.2/0.2 (PPO clip range does not touch generation); 300 steps, "
        "max = cap at every step. The repo holds ~40 more runs of this one configuration (seeds, clip and lr "
        "arms; a2q 'prompt_only'/'rollout_only' arms filter data, not listed): raw TSVs hM_raw/asycnverl_*.tsv, "
        "all with median max = 8192.",
    },
    {
        "run": "asycnverl-clip_low0.2_high0.2_seed0-late",
        "source": "https://github.com/065536/Asycn_verl/blob/00d3e4dfe5360ad6fc73d6d286ff9b618ede1dcc/deepseek1.5b_clip_sweep/deepseek1.5b_sync_8gpu_clip_low0.2_high0.2_seed0.jsonl "
        "(config: "
        "https://github.com/065536/Asycn_verl/blob/00d3e4dfe5360ad6fc73d6d286ff9b618ede1dcc/deepseek1.5b_clip_sweep/deepseek1.5b_sync_8gpu_clip_low0.2_high0.2_seed0.config.json)",
        "model": "DeepSeek-R1-Distill-Qwen-1.5B",
        "task": "math (DAPO-Math-17k, sampled subset)",
        "algorithm": "GRPO (token-mean, no KL loss)",
        "steps": "250-300",
        "responses": 1024,
        "train_batch_size": 128,
        "n": 8,
        "max_response_length": 8192,
        "response_mean": 4220.5,
        "response_max": 8192.0,
        "clip_ratio": 0.12305,
        "notes": "NEW source (not in SOURCES_CHECKED): verl file-logger JSONL + full JSON config dump per run; 8 GPUs, 1 "
        "node, FSDP, vLLM (rollout.mode async = agent-loop server, synchronous trainer), multi_turn disabled. "
        "clip sweep arm with the default clip 0.2/0.2 (PPO clip range does not touch generation); 300 steps, "
        "max = cap at every step. The repo holds ~40 more runs of this one configuration (seeds, clip and lr "
        "arms; a2q 'prompt_only'/'rollout_only' arms filter data, not listed): raw TSVs hM_raw/asycnverl_*.tsv, "
        "all with median max = 8192.",
    },
    {
        "run": "asycnverl-a2q_vanilla_lr3.1e-6_seed0-late",
        "source": "https://github.com/065536/Asycn_verl/blob/00d3e4dfe5360ad6fc73d6d286ff9b618ede1dcc/deepseek1.5b_a2q/deepseek1.5b_sync_8gpu_a2q_vanilla_lr3.1e-6_seed0.jsonl "
        "(config: "
        "https://github.com/065536/Asycn_verl/blob/00d3e4dfe5360ad6fc73d6d286ff9b618ede1dcc/deepseek1.5b_a2q/deepseek1.5b_sync_8gpu_a2q_vanilla_lr3.1e-6_seed0.config.json)",
        "model": "DeepSeek-R1-Distill-Qwen-1.5B",
        "task": "math (DAPO-Math-17k, sampled subset)",
        "algorithm": "GRPO (token-mean, no KL loss)",
        "steps": "201-300",
        "responses": 1024,
        "train_batch_size": 128,
        "n": 8,
        "max_response_length": 8192,
        "response_mean": 2830.505,
        "response_max": 8192.0,
        "clip_ratio": 0.00488,
        "notes": "NEW source (not in SOURCES_CHECKED): verl file-logger JSONL + full JSON config dump per run; 8 GPUs, 1 "
        "node, FSDP, vLLM (rollout.mode async = agent-loop server, synchronous trainer), multi_turn disabled. "
        "'vanilla' arm of the a2q study (file logger holds steps 201-300 only); clip ~0.5% yet max = cap at "
        "every step. The repo holds ~40 more runs of this one configuration (seeds, clip and lr arms; a2q "
        "'prompt_only'/'rollout_only' arms filter data, not listed): raw TSVs hM_raw/asycnverl_*.tsv, all with "
        "median max = 8192.",
    },
    {
        "run": "agentsdk-qwen2.5-0.5b-gsm8k-b16n8-cap4096 (run_c2b2a2f9)",
        "source": "https://github.com/Codekiing/AgentSDK/blob/66d989b6581a328474aece48ac39d9a1f01e0eee/tensorboard_log/verl_grpo_agent/run_c2b2a2f9/ "
        "(args: the repo's traj_opt/output/rllm/raw/*/events.jsonl agent transcripts)",
        "model": "Qwen2.5-0.5B-Instruct",
        "task": "gsm8k",
        "algorithm": "GRPO",
        "steps": "2-16",
        "responses": 128,
        "train_batch_size": 16,
        "n": 8,
        "max_response_length": 4096,
        "response_mean": 345.336,
        "response_max": 894.0,
        "clip_ratio": 0.0,
        "notes": "batch 16 and cap 4096 from the agent transcripts that launched it; n=8 INFERRED from "
        "perf/total_num_tokens/(prompt_mean+response_mean)=128.0. Per-step max 663-4096 (one step hit the "
        "cap).",
    },
    {
        "run": "agentsdk-qwen2.5-0.5b-gsm8k-b16n4-cap2048 (run_6bc4e4ed)",
        "source": "https://github.com/Codekiing/AgentSDK/blob/66d989b6581a328474aece48ac39d9a1f01e0eee/tensorboard_log/verl_grpo_agent/run_6bc4e4ed/ "
        "(args: same transcripts)",
        "model": "Qwen2.5-0.5B-Instruct",
        "task": "gsm8k",
        "algorithm": "GRPO",
        "steps": "2-16",
        "responses": 64,
        "train_batch_size": 16,
        "n": 4,
        "max_response_length": 2048,
        "response_mean": 309.219,
        "response_max": 675.0,
        "clip_ratio": 0.0,
        "notes": "cap 2048 and temperature 0.7 from the transcripts; batch 16 / n 4 from transcripts + N=64 measured by "
        "tokens (n slightly uncertain). Per-step max 472-2048 (one step hit the cap).",
    },
    {
        "run": "rayjang-code-rl-qwen1.5-moe-a2.7b-lora-D000-baseline",
        "source": "https://github.com/rayjang/code-rl-verl/blob/236fc50679f5a4c8f7e0c1ba361731e832853e2c/experiments/exp_D000_baseline/metrics.json "
        "(config: overrides.resolved.txt in the same folder)",
        "model": "Qwen1.5-MoE-A2.7B-Chat (LoRA rank 32)",
        "task": "code (repo patch generation 20% + unit-test implementation 80%, verifier reward)",
        "algorithm": "GSPO (GRPO advantages)",
        "steps": "2-10",
        "responses": 288,
        "train_batch_size": 36,
        "n": 8,
        "max_response_length": 2048,
        "response_mean": 349.479,
        "response_max": 2048.0,
        "clip_ratio": 0.03125,
        "notes": "6 GPUs; prompts up to 30k tokens (mean 3-7k). Custom single-turn agent loop 'rusca_scaffold_agent' "
        "(num_turns 2.0 = one prompt + one response; it varies the prompt scaffold over the 20 steps, does not "
        "cut responses). Clip ratio in multiples of 1/288 (N=288 confirmed). Only steps 1-10 read (file has 20 "
        "steps); max = cap at every step read. The repo holds ~25 more arms of this configuration (reward "
        "variants: f2p_binary, p2p_strong, rule_only, ...) in experiments/exp_D0xx_*/metrics.json, not read "
        "(look-up budget).",
    },
    {
        "run": "rayjang-code-rl-qwen3-30b-a3b-lora-Q000-baseline",
        "source": "https://github.com/rayjang/code-rl-verl/blob/236fc50679f5a4c8f7e0c1ba361731e832853e2c/experiments/exp_Q000_baseline/metrics.json "
        "(config: overrides.resolved.txt in the same folder)",
        "model": "Qwen3-30B-A3B-Instruct-2507 (LoRA rank 32)",
        "task": "code (repo patch 25% + unit-test implementation 75%; prompts up to 128k)",
        "algorithm": "GSPO",
        "steps": "2-7",
        "responses": 144,
        "train_batch_size": 24,
        "n": 6,
        "max_response_length": 2048,
        "response_mean": 392.538,
        "response_max": 2048.0,
        "clip_ratio": 0.02083,
        "notes": "4 GPUs, Ulysses SP 4; same single-turn 'rusca_scaffold_agent' loop as D000 (num_turns 2.0). N=144 "
        "(clip ratio in 1/144 steps). Only steps 1-7 read of 20. Max = cap at every step read.",
    },
    {
        "run": "speedrl-qwen2.5-1.5b-dapo17k-rloo-b16x16-cap2048-early",
        "source": "https://github.com/Zanette-Labs/speed-rl/blob/4adb2d7a91462dfd303621e7b4ace6fa6e9b7000/nohup.out "
        "(same blob also in guanning03/JSPO-Official)",
        "model": "Qwen2.5-1.5B (base)",
        "task": "math (DAPO-17k)",
        "algorithm": "RLOO in the DAPO recipe with SPEED-RL curriculum (screening 4 responses/prompt, 12 more for kept "
        "prompts) + dynamic sampling (filter_groups on acc)",
        "steps": "2-30",
        "responses": 256,
        "train_batch_size": 16,
        "n": 16,
        "max_response_length": 2048,
        "response_mean": 1377.863,
        "response_max": 2048.0,
        "clip_ratio": 0.477,
        "notes": "DYNAMIC SAMPLING / CURRICULUM: training batch = 16 prompts that pass the screen x (4+12) responses; "
        "N=256 confirmed by perf/total_num_tokens/(prompt_mean+response_mean)=256.0 at every step checked; the "
        "batch reported is what is trained, not all generated. overlong buffer off. 4 GPUs. Console rounds to 3 "
        "decimals. 190 steps: lengths explode to the cap (steps 80-120: mean 1932, clip 0.89; steps 160-190: "
        "mean 2018, clip 0.97): only this early window is listed; max = cap at all 190 steps. Earlier helpers "
        "knew SPEED-RL only as 'scripts and figures' (file-index ids 3903514712/3946110501); this console log "
        "was missed.",
    },
    {
        "run": "scafgrpo-qwen2.5-math-7b-grpo-baseline-early",
        "source": "https://github.com/NKU-LITI/Scaf-GRPO-verl/blob/051d973fc171e387176ba19a533a7a2b14498ae1/tensorboard/tensorboard/qwen25_math7b_y52m6blw_grpo_baseline/events.out.tfevents.1786953809.sinnet.4185014.0 "
        "(config: "
        "https://github.com/NKU-LITI/Scaf-GRPO-verl/blob/374b9754370c56279ea696144cb6af6710267c11/sh/baseline/grpo/grpo.sh, "
        "whose WANDB_RUN_ID y52m6blw and EXP_NAME match the event folder)",
        "model": "Qwen2.5-Math-7B",
        "task": "math (DeepScaleR subset, 800 prompts)",
        "algorithm": "GRPO (no KL)",
        "steps": "2-20",
        "responses": 512,
        "train_batch_size": 64,
        "n": 8,
        "max_response_length": 2048,
        "response_mean": 930.988,
        "response_max": 2048.0,
        "clip_ratio": 0.14062,
        "notes": "NEW source (not in SOURCES_CHECKED). N=512 confirmed by perf/total_num_tokens/(prompt+response "
        "mean)=512.0; num_turns 2 (single turn); 2 GPUs by the script default (CUDA_VISIBLE_DEVICES=0,1), not "
        "verified. 117 steps logged (59-60 missing); max = cap at every step while clip falls 18% -> 3%.",
    },
    {
        "run": "scafgrpo-qwen2.5-math-7b-grpo-baseline-mid",
        "source": "https://github.com/NKU-LITI/Scaf-GRPO-verl/blob/051d973fc171e387176ba19a533a7a2b14498ae1/tensorboard/tensorboard/qwen25_math7b_y52m6blw_grpo_baseline/events.out.tfevents.1786953809.sinnet.4185014.0 "
        "(config: "
        "https://github.com/NKU-LITI/Scaf-GRPO-verl/blob/374b9754370c56279ea696144cb6af6710267c11/sh/baseline/grpo/grpo.sh, "
        "whose WANDB_RUN_ID y52m6blw and EXP_NAME match the event folder)",
        "model": "Qwen2.5-Math-7B",
        "task": "math (DeepScaleR subset, 800 prompts)",
        "algorithm": "GRPO (no KL)",
        "steps": "40-60",
        "responses": 512,
        "train_batch_size": 64,
        "n": 8,
        "max_response_length": 2048,
        "response_mean": 813.617,
        "response_max": 2048.0,
        "clip_ratio": 0.06836,
        "notes": "NEW source (not in SOURCES_CHECKED). N=512 confirmed by perf/total_num_tokens/(prompt+response "
        "mean)=512.0; num_turns 2 (single turn); 2 GPUs by the script default (CUDA_VISIBLE_DEVICES=0,1), not "
        "verified. 117 steps logged (59-60 missing); max = cap at every step while clip falls 18% -> 3%.",
    },
    {
        "run": "scafgrpo-qwen2.5-math-7b-grpo-baseline-late",
        "source": "https://github.com/NKU-LITI/Scaf-GRPO-verl/blob/051d973fc171e387176ba19a533a7a2b14498ae1/tensorboard/tensorboard/qwen25_math7b_y52m6blw_grpo_baseline/events.out.tfevents.1786953809.sinnet.4185014.0 "
        "(config: "
        "https://github.com/NKU-LITI/Scaf-GRPO-verl/blob/374b9754370c56279ea696144cb6af6710267c11/sh/baseline/grpo/grpo.sh, "
        "whose WANDB_RUN_ID y52m6blw and EXP_NAME match the event folder)",
        "model": "Qwen2.5-Math-7B",
        "task": "math (DeepScaleR subset, 800 prompts)",
        "algorithm": "GRPO (no KL)",
        "steps": "100-119",
        "responses": 512,
        "train_batch_size": 64,
        "n": 8,
        "max_response_length": 2048,
        "response_mean": 745.736,
        "response_max": 2048.0,
        "clip_ratio": 0.0459,
        "notes": "NEW source (not in SOURCES_CHECKED). N=512 confirmed by perf/total_num_tokens/(prompt+response "
        "mean)=512.0; num_turns 2 (single turn); 2 GPUs by the script default (CUDA_VISIBLE_DEVICES=0,1), not "
        "verified. 117 steps logged (59-60 missing); max = cap at every step while clip falls 18% -> 3%.",
    },
]
