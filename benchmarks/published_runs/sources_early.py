"""The first entries of SOURCES_CHECKED (sources.py): the searches before the third round (issue 27's, for the
generalisation split, and those of 2026-12-03), in the order searched."""

from __future__ import annotations

EARLY_SOURCES: list[tuple[str, str]] = [
    (
        "https://github.com/eric-haibin-lin/verl-data/blob/experiments/math/Qwen2.5-{0.5B,1.5B,3B,7B,14B,32B,72B}-*.log "
        "(13 logs, GRPO, 2 or 8 GPUs, prompts 1024 / responses 512)",
        "LoRA (actor_rollout_ref.model.lora_rank=32 in each command and printed config, also in the files whose names "
        "omit `lorarank32`, checked on the 0.5B and 7B logs): the cost model has no LoRA term (no optimizer state or "
        "weight gradients for the frozen base, the reference pass is the actor without its adapter)",
    ),
    (
        "https://github.com/eric-haibin-lin/verl-data/blob/experiments/gsm8k/Qwen2.5-*-lorarank32-*.log (7 logs)",
        "LoRA, as above",
    ),
    (
        "https://github.com/eric-haibin-lin/verl-data/blob/experiments/gsm8k/deepseek-llm-7b-chat-megatron-*.log, "
        "deepseek7b_llm_math_megatron.log, qwen2-7b_math_megatron.log",
        "Megatron actor and critic: the cost model times FSDP training only",
    ),
    (
        "https://github.com/verl-project/verl/issues/7412 (responses up to 3072 tokens, per-phase timing_s pasted)",
        "the stored thread shows one step's timings but neither the run's config nor its GPU; agent-loop rollout",
    ),
    (
        "https://github.com/verl-project/verl/issues/496 (32B, 8192-token responses, offload)",
        "no per-phase timings or GPU in the stored thread",
    ),
    (
        "https://github.com/llm-d-incubation/py-inference-scheduler integration/verl/README.md (Qwen2.5-32B GRPO, "
        "verl 0.7.1)",
        "step 1 only (warm-up), GPU not stated, agent-loop rollout behind a custom scheduler",
    ),
    (
        "https://github.com/rllm-org/rllm/issues/29 and /issues/6 (DeepScaleR 8k, A100/H100/H200)",
        "step time only (394 s/step on 8xA100), no per-phase timings or full config in the stored thread",
    ),
    ("verl's quickstart log in its docs (`step:0 - timing/gen:21.470 ...`)", "one step (step 0, warm-up)"),
    (
        "a Chinese blog note on verl's quickstart (Qwen2.5-0.5B PPO, 1 GPU on AutoDL, steps 71-74 pasted)",
        "GPU not stated (AutoDL rents several kinds; perf/mfu logged 0.0, so the peak cannot be inferred)",
    ),
    (
        "a TinyZero blog note (Qwen2.5-0.5B countdown PPO on one RTX 4090)",
        "USED on a second look (first rejected: no preset for the 4090): NEW_RUNS' rtx4090-ppo-qwen2.5-0.5b-1gpu-"
        "tinyzero; its keys are verl's of January 2025 (timing_s/*) and the GPU is a datasheet device file",
    ),
    (
        "a SLURM log pasted in a repository note (Qwen3-4B PPO on 2 A100, ray_multistep_trainer)",
        "a custom multi-step environment trainer, no generation timer, 83% of responses aborted",
    ),
    # checked for the generalisation split (issue 27); the one used is NEW_RUNS' source
    (
        "https://github.com/Bihan/dstack-configs verl_demo.log (PPO, Qwen2.5-7B, 2 nodes × 8 H100)",
        "USED: NEW_RUNS' h100x16-ppo-qwen2.5-7b-2nodes (full config printed, 335 steps, lengths and timings per step)",
    ),
    (
        "https://github.com/Chrisytz/verl verl_demo.log (Qwen2.5-0.5B PPO)",
        "run on TPU through a verl fork's XLA strategy (`strategy: 'xla'`, libtpu): not a GPU",
    ),
    (
        "https://github.com/KotoHanon/VERL-Maze verl_demo.log (Qwen2.5-1.5B PPO, 1 GPU)",
        "no training step logged (the run stops before step 1)",
    ),
    ("https://github.com/yuzhaouoe/GUI-Cursor-Moving verl_demo.log", "1.5 kB: Ray start-up only, no step"),
    (
        "https://github.com/chenyiqun/Agentic-RAG verl_demo.log (listed by the file index)",
        "not in the repository's fetched history; an agentic RAG loop with retrieval calls in any case",
    ),
    (
        "https://github.com/johnson7788/RLDecisionAgent backend/char_count/README.md (SmolLM2-135M GRPO log)",
        "GPU not stated (a Supermicro SYS-4028GR-TR2 host, a PCIe server of several possible cards) and no preset "
        "for SmolLM2-135M's shape",
    ),
    (
        "a Chinese note pasting a Qwen3-8B GRPO log on 8 MetaX C550 (280 TFLOP/s, 64 GB; verl 0.7, 4096-token "
        "responses, step 3 before and after tuning)",
        "Megatron actor, a GPU the model has no preset for, and one step (step 3) per configuration",
    ),
    (
        "a Cursor chat export pasting a retool log (Qwen2.5-32B DAPO with tool calls, responses to 10240 tokens)",
        "one step (step 60, with validation and checkpointing in it), multi-turn agent loop with code-sandbox tool "
        "calls, GPU not stated (216 GB reserved: not a preset's memory)",
    ),
    (
        "https://github.com/verl-project/verl/issues/3727 (Qwen3-VL-30B-A3B GSPO, 2 nodes of H100)",
        "vision-language MoE model (no preset, no MoE term), one step's timings",
    ),
    (
        "https://github.com/verl-project/verl/issues/1208 (GH200, SGLang rollout)",
        "SGLang rollout (the model times vLLM), GH200 has no preset, and the stored thread gives one step",
    ),
    (
        "https://github.com/verl-project/verl/issues/2060 (step:1 log, 91 GB reserved)",
        "step 1 only (warm-up) and GPU not stated",
    ),
    (
        "https://github.com/verl-project/verl/issues/3277 (Qwen2.5-1.5B GRPO on GSM8K, 1024-token responses)",
        "the stored thread shows the command but neither a step's timings nor the GPU",
    ),
    (
        "https://github.com/verl-project/verl/pull/5637 (set_numa_affinity; means over 45 of 58 steps)",
        "the stored PR text shows the step statistics but neither the run's config nor its GPU",
    ),
    (
        "https://github.com/ZJU-REAL/SDAR/issues/51 (Qwen2.5-3B on 4 A100, ALFWorld)",
        "step 1 only, a custom trainer (main_sdar, teacher_forward phase) with a multi-turn environment",
    ),
    (
        "https://github.com/verl-project/verl/issues/7412 again, /issues/496 again, /issues/1580 (Qwen3-8B)",
        "as above; #1580 shows its timings only as images",
    ),
    (
        "a TinyZero reproduction note (Qwen2.5-0.5B countdown PPO, RTX 5090 then 4090)",
        "TinyZero's verl fork and consumer GPUs without a preset, as the TinyZero note above",
    ),
    (
        "an AutoDL verl note's second run (the same Chinese note as above, GRPO)",
        "GPU not stated, as above",
    ),
    (
        "https://github.com/eric-haibin-lin/verl-data (fetched: branches main, experiments, neurips)",
        "no logs beyond those above (the 8 runs' sources and the LoRA and Megatron logs)",
    ),
    (
        "three console logs committed as text, found by verl's printed config (Qwen2.5-0.5B and "
        "deepseek-coder-1.3b GRPO on 2 GPUs; Qwen3-4B with SGLang multi-turn on 8)",
        "each crashes (host memory, OOM) before its first training step ends: no step's timings",
    ),
    (
        "https://github.com/HanlinDu/verl verl_examples/gsm8k.jsonl (verl's file logger at its default path; PPO)",
        "a research fork that resizes rollout and training GPUs between steps (resize/* metrics, host staging), "
        "3 steps, asynchronous generation, GPU not stated",
    ),
    (
        "https://github.com/ai-bot-pro/achatbot/pull/155 (verl PPO/GRPO demos on Modal)",
        "the stored PR has no step's timings and the repository commits no log",
    ),
    (
        "web pages (Chinese and English blog posts on verl logs, GRPO handbooks, Ascend best practices)",
        "explanations of the metrics, LoRA or NPU runs, no run's per-phase timings with its config and GPU",
    ),
    (
        "file-index searches for `timing_s/update_actor:`, `timing_s/ref:`, `timing_s/values:`, "
        "`timing_s/update_critic:`, `timing/gen:`, `step:10 - global_seqlen`, `(main_task pid=` (about 80 hits)",
        "parsers, tests with made-up numbers, docs quoting verl's quickstart step 0, and the notes above",
    ),
    # second search (issue 27, continued)
    (
        "https://github.com/houkawa2/CodeGenerate_RL_Pipeline verl_demo.log (TinyZero's verl, PPO, Qwen2.5-1.5B, 1 GPU, "
        "~1000 steps)",
        "USED: NEW_RUNS' a100-ppo-qwen2.5-1.5b-1gpu-longprompt (full config printed, GPU inferred from mfu and the KV "
        "cache as its entry says)",
    ),
    (
        "https://github.com/Limpidjunewind/tinyzero-experiments reports/experiment_report_reward.md (PPO, Qwen2.5-3B, "
        "4 L40S; per-phase averages of reward designs v2 and v3)",
        "USED: NEW_RUNS' l40sx4-ppo-qwen2.5-3b-tinyzero-v2 and -v3 (run averages, config from the study's scripts, as "
        "their entries say); v1 has no per-phase figures, and the repository's other reports (1 A100, 2 H100-96) give "
        "none",
    ),
    (
        "https://github.com/LeiLiLab/WALAR grpo.log (Qwen2.5-3B GRPO, translation reward)",
        "the console logger is off (wandb only): the log has the config but no step's metrics",
    ),
    (
        "https://github.com/zhiyuanhubj/logic-rl-formula grpo.log (Qwen2.5-7B-1M GRPO, 8 GPUs)",
        "crashes at start-up (flash-attn import error) before the first step",
    ),
    (
        "https://github.com/aghyad-deeb/reward_seeker grpo.log and verl.log",
        "stored as Git LFS pointers (no content)",
    ),
    (
        "https://github.com/sii-research/siiRL quickstart (GRPO, Qwen2.5-0.5B, per-step perf/delta_time/*)",
        "siiRL's DAG trainer, not verl's (other timers and workers), and two steps",
    ),
    (
        "a verl stage-tuner trial record (Qwen3-0.6B GRPO on 8 GPUs, verl 0.7, 5120-token responses)",
        "Megatron actor, a 64 GB accelerator without a preset, one step's phase times",
    ),
    (
        "an experiment verdict file summarising 117 steps of a verl GRPO run (means/min/max of every timing_s/*)",
        "a modified actor (gradient-masking experiment), and neither the config nor the GPU stated",
    ),
    (
        "https://github.com/verl-project/verl/issues/795 (DAPO on 128 A800), /issues/2753, /issues/4460, /issues/6010",
        "#795 shows its timings only as images; #2753 and #4460 give no step's timings with the config (#4460 is a "
        "Megatron MoE run); #6010 runs on Ascend 910B",
    ),
    (
        "https://github.com/Arnie-He/BLPO ppo.log, screechingviolet/epic-tikz-diagram-generator train_grpo.log",
        "not verl (a JAX PPO on Atari; a TRL GRPO loop)",
    ),
    (
        "https://github.com/rinconjm/151B_SP26_Competition grpo_train.log",
        "Unsloth's GRPO trainer, not verl",
    ),
    (
        "https://github.com/josephdutoit/probability-aligned-llms, pandanzhe/Hack-RLOO, GuoCheng24/batch-logprob-gap "
        "(logs/grpo.log listed by the file index)",
        "not readable here (absent from the fetched history, or no snapshot could be fetched)",
    ),
    (
        "https://github.com/verl-project/verl/issues/316 (step:5 pasted), https://github.com/rllm-org/rllm/issues/54 "
        "(step:4 pasted)",
        "one step each, pasted just before a crash; no steady window",
    ),
    (
        "https://github.com/verl-project/verl/issues/2566 (DeepScaleR 1.5B on 4 A100 80GB, 8192-token responses)",
        "the stored thread gives the config and step times from the progress bar, no per-phase timings",
    ),
    (
        "https://github.com/zhaochenyang20/Awesome-ML-SYS-Tutorial/issues/106 (verl step logs in an SGLang thread)",
        "SGLang rollout (the model times vLLM)",
    ),
    (
        "https://github.com/verl-project/verl/pull/7833 (Qwen3.5-9B GRPO on 8 B200), /issues/7203 (Qwen3.5-9B, 8 H800)",
        "Qwen3.5's hybrid linear-attention layers have no preset or term; #7203 also runs Megatron and SGLang",
    ),
    (
        "a verl-on-MI355X note (Qwen3-4B GRPO, 8 GPUs, 10 prompts per step) and a vLLM 0.18 note on two GB10 "
        "(DGX Spark) boxes (Qwen3-0.6B)",
        "accelerators without a preset, 1-5 steps of toy batches, partial timings",
    ),
    (
        "a 589 kB log in a notes file of a RAGEN-style agent (env/* metrics, ACTIVE_TRAJ_NUM)",
        "multi-turn environment rollouts, which the model does not time",
    ),
    (
        "https://github.com/volcengine/verl (fetched: docs, recipes, examples)",
        "no per-phase timings with a config except docs/perf/dpsk.md (DeepSeek on Megatron)",
    ),
    (
        "web pages: a MI300X verl tuning blog (yottalabs), Chinese articles claiming verl throughput measurements, "
        "mirror sites of verl's scripts",
        "the page store keeps only a page's opening (no per-phase table reachable); the articles show no log or "
        "config that can be checked",
    ),
    (
        "file-index sweeps for `timing_s/update_actor:0`-`:9`, `timing_s/gen:1`-`:9`, `timing_s/ref:`, "
        "`timing_s/old_log_prob:`, `timing_per_token_ms/{values,ref,update_critic}:`, `perf/mfu/actor:0.`, "
        "`timing_s/reshard:`, `timing_s/update_weights:`, `mfu/critic:0.` (about 150 hits)",
        "the runs used above, the notes listed here, and parsers or tests with made-up numbers",
    ),
    # third search (issue 27, continued)
    (
        "a veRL benchmark report committed as Markdown: GRPO + LLaMA3.2-1B on GSM8K, 8 GPUs (wandb run summary)",
        "USED: NEW_RUNS' h100-grpo-llama3.2-1b (one step, the last; its GPU less sure than stated, as its entry says)",
    ),
    (
        "the same author's report GRPO + Qwen2.5-7B on GSM8K (file index id 37899697233; wandb run summary)",
        "no launch command (micro-batch sizes unknown; only batch 1024 × n 5 follows from perf/total_num_tokens), one "
        "step, and its 109.5 GB reserved contradicts the stated H100 × 8 (80 GB)",
    ),
    (
        "an Ascend VeRL image guide (Qwen3-32B DAPO, step:1 log with 7385-token responses)",
        "Ascend NPUs (A3), Megatron image, one step",
    ),
    (
        "a note quoting Qwen3-4B/8B step-1 metrics on a 192 GB accelerator (update_actor 150 s, 2048-token cap)",
        "one step before a crash, an accelerator without a preset (192 GB: MI300X or B200), no config",
    ),
    (
        "GRPO notes quoting step-1 metrics (Cambrian-S PPO smoke, a 24 GB colocated multi-turn agent, an OPD teacher "
        "run, a 2-GPU SFT/GRPO tool-use note, an LLDS experiment, a Docker-sandbox agent)",
        "each one step (or two) of a smoke test, multi-turn or custom trainers, GPU or config not stated",
    ),
    (
        "https://github.com/verl-project/rl-insight data/verl_data/*.log (a log analyser's sample logs; GRPO with "
        "on-policy distillation, Qwen2.5-0.5B student, 3.1 MB)",
        "Ascend NPUs (torch_npu, vllm_ascend), a distillation teacher in the step; the other samples are fragments",
    ),
    (
        "https://github.com/Wyyyb/critique_rl (a script that tees verl_demo.log), file-index lookups of the paths "
        "verl_demo.log, verl.log, train.log, nohup.out",
        "no committed log, or only the logs already listed (the common names list thousands of unrelated repositories)",
    ),
    (
        "https://github.com/turboweii/Tinyzero_2A800, sunnweiwei/verl-vllm-rollout-benchmark, ztlmememe/VERL-NSCC",
        "no committed log (the first has TinyZero's README and scripts only; the second is a test-generation task)",
    ),
    (
        "issue searches: GRPO/H20/H800/14B/multi-node/DeepSeek-R1-Distill step timings, vLLM-upgrade regressions, "
        "Chinese 'training slow' threads (verl, EasyR1 forks, ROLL#101, rllm, One-Shot-RLVR#3)",
        "the threads already listed, EasyR1 (another trainer), or attachments and images instead of pasted logs",
    ),
    (
        "file-index sweeps for `timing_s/gen:`, `timing_s/generate_sequences:`, `timing_s/start_profile:`, "
        "`timing_s/step:1`, `timing_s/old_log_prob:2`, `perf/throughput:`, `timing_per_token_ms/gen`, JSON keys "
        '(`"timing_s/update_actor":`), wandb summaries (`timing_s/update_actor 1`-`5`, `timing_s/ref 1`), '
        "`step:5|20|50 - global_seqlen/min`, `critic/kl_coeff:0.001 - critic/vf_loss`, `actor/kl_coef:0.001 - ...` "
        "(about 120 hits)",
        "the notes above and those already listed (the AutoDL and RLDecisionAgent notes, the MetaX C550 log, the "
        "RAGEN-style log, the 4090 notes), parsers, dashboards and tests with made-up numbers",
    ),
    # checked 2026-12-03 (two search helpers; the file index does not hold .log files, so the second fetched
    # repositories and listed every file ever committed to them, verl's PR branches included)
    (
        "https://github.com/haolinyan/verl/tree/35cee0caba9f852cfe62c39f738f096f55c8cbd0/recipe/async_reward_agent/"
        "assets/tensorboard (verl PR #2854's event files: q7b_fsdp_base, q3b_fsdp_base, and the others)",
        "USED: NEW_RUNS' h20x8-grpo-qwen2-7b-async-reward-baseline and h20x8-grpo-qwen2.5-3b-async-reward-baseline "
        "(config from the recipe's launch script); its *_off_ppl runs pipeline the next step's rollout into this "
        "step's update (not the synchronous phases) and its *_mcore_* runs are Megatron",
    ),
    (
        "https://github.com/shamanez/verl research/runs/EXP-18/metrics/curvematch_dense_ref_50step.jsonl (+ .config.json) "
        "and research/runs/EXP-17/baseline_EXP16_dense/metrics/train.jsonl",
        "USED: NEW_RUNS' h200x4-grpo-qwen2.5-1.5b-dense-36k and -98k (the fork's dense controls, compression off)",
    ),
    (
        "https://github.com/volcengine/verl/blob/19997f9ec3d0a3c44a941ea09b89eeabf38bf261/recipe/fully_async_policy/"
        "README.md (and README_zh.md): colocate-sync DAPO rows on 32/64/128 H20, Qwen2.5-Math-7B, 28k responses",
        "run-wide per-phase averages with no mean prompt or response length anywhere (README, scripts, PRs); the "
        "English and Chinese tables disagree on one cell",
    ),
    (
        "https://github.com/volcengine/verl/blob/606ed9379364e74e9347cc8a8f33d147954111e4/recipe/one_step_off_policy/"
        "README.md (colocate sync, VLLM+FSDP2, 2 nodes of H20, DAPO 7B)",
        "run averages, no lengths; its colocate script survives only in forks and caps responses at 8192 where the "
        "README says 20,480",
    ),
    (
        "verl docs/advance/fully_async.md (`use_trainer_do_validate` table, 16 H20) and examples/prefix_grouper/"
        "README.md (Qwen3-4B, 4 H800)",
        "run averages without lengths (old_log_prob bypassed in the first); the second has no generation timing and "
        "states only rollout.n of its config",
    ),
    (
        "verl examples/tuning/README.md with scaling/run_qwen3_8b_fsdp.sh (file-index ids 68722574245, 68413756862; "
        "Qwen3-8B GRPO on 4 and 8 A800-80GB PCIe, 2k responses, min/recommended profiles)",
        "phase timings of one step per configuration and no mean prompt or response length (only the share of "
        "responses at the 2048 cap); repository and commit not identified",
    ),
    (
        "https://github.com/verl-project/verl pull 2676 (log/tensorboard/my_DAPO/DAPO-Qwen2-7B-Test, an A800 host)",
        "no config anywhere (the PR adds only event files), a modified trainer (`timing_s/gen_layer2`), GPU count "
        "unknown",
    ),
    (
        "https://github.com/shamanez/verl research/runs/* (a gradient-compression research fork, ~1200 files)",
        "most runs train with the fork's compression hook on (a modified actor update); 62-* are 5-step smoke cells, "
        "63-*'s long-response dense control committed no training log",
    ),
    (
        "https://github.com/Mario928/toolrl-verl-reproduction/blob/2a2ee73ee79bc93fd065075af974910540961c2c/run.log "
        "(ToolRL GRPO, Qwen2.5-3B, 4 H100, full config printed)",
        "17.9 MB printing every one of the 2048 responses per step: ~5 steps, ending mid-step, that the stored text "
        "cannot be searched for",
    ),
    (
        "https://github.com/yushengsu-thu/verl_training_log (linked from verl's docs/algo/baseline.md)",
        "AMD MI300 GPUs",
    ),
    (
        "verl-project/verl fork branches of faradawn (trtllm-qwen2-7b-tp4-8gpus, log-7-h200.txt, game2048) and "
        "JessicaZhong (qwen3-0.6b-function-reward-minimal, Titan_Qwen3_30B_A3B)",
        "TensorRT-LLM rollout or multi-turn games; 6-step smoke tests with every response at the cap, MoE",
    ),
    (
        "https://github.com/rayjang/code-rl-verl experiments/*/train.log (26 code-RL runs with printed configs)",
        "MoE models (Qwen3-30B-A3B, Qwen1.5-MoE-A2.7B) with LoRA rank 32 and GSPO in a custom TaskRunner",
    ),
    (
        "https://github.com/nuzant/verl_benchmark (AReaL's verl throughput scripts), verl-project/verl-recipe, "
        "meituan-search/verl exp/ folders, and fetched with every ref: Jiayi-Pan/TinyZero, SkyworkAI/Skywork-OR1, "
        "Unakar/Logic-RL, PRIME-RL/PRIME, PeterGriffinJin/Search-R1, agentica-project/rllm, eric-haibin-lin/verl, "
        "vermouth1992/verl, tongyx361/verl",
        "launch scripts only; no training log or event file ever committed",
    ),
    (
        "hkust-nlp/simpleRL-reason PR 57 (log1.txt, log2.txt), sksdiw3/hint-ladder-verl logs, file-index notes "
        "66695573296 (TTRL, 8 H100), 55716353258 (1 A100 quickstart), 65973878982 (DualKV), 61409486496 (A800 + "
        "A4000 split rollout), 53464344220 (8 RTX 4090 runbook)",
        "fail before a step; a multi-turn ALFWorld agent with a self-distillation phase; TTRL's 64-vote rollouts "
        "with ranges only; two steps; a custom attention; rollout on separate cards; step 1 only",
    ),
    (
        "https://github.com/verl-project/verl/issues/1224 and /issues/1393; BytedTsinghua-SIA/MemAgent issue 31",
        "one pasted step without config or GPU; warm-up steps only; a recurrent memory agent timed by progress bars",
    ),
]
