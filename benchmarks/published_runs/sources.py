"""SOURCES_CHECKED: every public source searched for more runs and why it was not used, in the order searched: the
searches before the third round (sources_early.py), then those of the third round on."""

from __future__ import annotations

from .sources_early import EARLY_SOURCES

SOURCES_CHECKED: list[tuple[str, str]] = [
    *EARLY_SOURCES,
    # fourth search (2026-12-04, two helpers), for the third round (THIRD_RUNS)
    (
        "https://github.com/terrense/qwen3-8b-grpo-dapo-lab experiments/{M20_grpo,M20_gspo,A_grpo,E_drgrpo_scaled}/"
        "metrics/training_metrics.csv (Qwen3-8B GRPO-family arms on 4 H20, 8k cap)",
        "USED: THIRD_RUNS' four h20x4-*-qwen3-8b-8k-* runs (one configuration, four loss arms); its M20_dapo and "
        "R2_dapo_smoke arms run DAPO's dynamic sampling (2-3 generation rounds inside one timing_s/gen), R0/R_gspo are "
        "2-update smoke tests, and R1, B_gspo, C_aggonly, D_drgrpo (the same configuration again) were not transcribed",
    ),
    (
        "https://github.com/THisisPX/verl_cambricon tensorboard_log/verl_perf_test/qwen3_4b_grpo_n16_resp8192 (8 A100 "
        "40GB) and the fork's other event files",
        "USED: THIRD_RUNS' a100-40gbx8-grpo-qwen3-4b-8k-emptyprompt; the others are Megatron, SGLang, fully-async or "
        "one-step-off-policy runs, Qwen3-VL, or one resumed step",
    ),
    (
        "https://github.com/Codekiing/AgentSDK (GSM8K GRPO rounds of Qwen2.5-0.5B on 4 A100/A800 80GB)",
        "USED: THIRD_RUNS' a100x4-grpo-qwen2.5-0.5b-gsm8k-b8n8 and a800x4-grpo-qwen2.5-0.5b-gsm8k-b32n8; the other "
        "event files (r3-r9, the agent runs, the 7B rounds) have no launch command or printed config committed",
    ),
    (
        "https://github.com/dingxianzhong/play-verl logs (found again by the issues/pages helper)",
        "the four logs are RUNS' own sources (the 8 runs the constants were set on): not unseen",
    ),
    (
        "verl-project/verl and volcengine/verl, every ref (~5300 PR heads and merges) scanned blob by blob for "
        "timing_s/* with values; verl PR 3389 (DeepSpeed backend, results/*_parsed.csv); the async-reward recipe's "
        "gsm8k_qwen2_7b_* event files; output.txt (gaoziyuan) and examples/sglang_multiturn/nohup.out",
        "only the sources already listed; PR 3389 trains with DeepSpeed, not FSDP; the gsm8k_qwen2_7b_* runs are "
        "Megatron (the recipe's README table); output.txt holds one step; nohup.out is SGLang multi-turn",
    ),
    (
        "reasoning-RL and verl-fork repositories fetched with every ref (PRIME-RL/TTRL, LUFFY, Absolute-Zero-Reasoner, "
        "Spurious_Rewards, Intuitor, Entropy-Mechanism-of-RL, POLARIS, maxent-grpo, hkust-nlp/simpleRL-reason and forks, "
        "Logic-RL forks, verl-SpeCo, vexact, verl-mint, verl-recipe, ten generic verl forks, mini-verl, Time-R1, "
        "cgrpo-verl, SwiftSeal03/verl, rlvr-experiments and others)",
        "no committed log, event file or metrics dump with verl's timing_s (Time-R1's verl_demo.log has no step line; "
        "maxent-grpo's logs are TRL)",
    ),
    (
        "https://github.com/montehoover/verl slurm-6231820.out (PPO, Qwen3-0.6B, 2 GPUs, full config printed)",
        "a 24 GB card that cannot be identified (23.55 GB per device; perf/mfu logged 0.0)",
    ),
    (
        "https://github.com/RLinf/RLinf compare_with_verl.rst (verl 0.5 baselines, 10-14k-token responses)",
        "the 7B figures come from an SGLang script and the GPU is not named; the 1.5B table gives run-level numbers "
        "without the backend, micro-batching or a ref/old-log-prob split",
    ),
    (
        "https://github.com/verl-project/verl/pull/7804 (yue-zeng-yue/verl review artifacts, Qwen2.5-1.5B GRPO on 2 "
        "A800)",
        "an external observer's seconds per step, not verl's timing_s; the rest inside a 16 MB zip",
    ),
    (
        "https://github.com/MianchuWang/mianchuwang.github.io writings/2026-08-grpo-a40-scaling.md (verl 0.8, GRPO "
        "Qwen2.5-1.5B on 1 and 2 A40, means over 232 steps)",
        "no prompt or response lengths published, and an A40 (no preset)",
    ),
    (
        "file-index notes: a DAS speculative-decoding note (Qwen3-32B on GKE H100/H200), a verl x Dynamo x SGLang note, "
        "a segment-rollout note, a MedAgent 14B report, a fully_async Mode 4 report, a verl x Lean note, a Dr.Kernel "
        "note, a disaggregated memory log, a B200 TTRL note; verl PR 3479, issue 6747; ms-swift issue 3302; "
        "mit-han-lab/fastrl issue 6; rllm issues 44 and 105",
        "speculative decoding or disaggregated rollouts, MoE or hybrid-attention models, SGLang, Ascend NPUs, multi-turn "
        "agents, one or two steps, or no config/GPU/lengths; timings as figures or wandb links",
    ),
    (
        "issue and page searches (about 30 queries: per-phase step lines, GRPO on H800/H20/A800/A100, 14B-70B, "
        "multi-node, DAPO/DeepScaleR/DeepCoder/SimpleRL/Skywork-OR1 trackers; RL-systems papers' arXiv pages: RollPacker, "
        "PCL, SortedRL, APRIL, Periodic Asynchrony)",
        "the same threads as before; the page store keeps only a paper's opening, so no per-phase verl baseline table "
        "is reachable",
    ),
    (
        "file-index strings of this search: perf/time_per_step:, timing_s/adv:, | timing_s/gen |, "
        "response_length/max:8192 (and 16384, 4096), tensorboard_log/verl_, VERL_FILE_LOGGER_PATH=, "
        "verl_file_logger.jsonl, 'timing_s/old_log_prob', and others",
        "led to the three used repositories; the other hits are parsers, tests, agent or Megatron notes, or sources "
        "listed above (logs read by indexed scripts but not committed anywhere findable)",
    ),
    # the fourth round (2026-12-04, three search helpers; each line may cover several sources)
    (
        "https://github.com/Learneraf/ascend_npu_measure_verl results_tables_a100.md (8B baseline, its ten ablations)",
        "USED: FOURTH_RUNS' a100x8-grpo-qwen3-8b-gsm8k-* (the ablations publish gen and update_actor only, as means)",
    ),
    (
        "https://github.com/diqiuzhuanzhuan/verldata run_logs/qwen2-7b_math.log (linked from verl's docs/algo/baseline.md)",
        "USED: FOURTH_RUNS' a800x8-gpg-qwen2-7b-gsm8k-math-1k and -late; its Megatron sibling log rejected (Megatron)",
    ),
    (
        "Learneraf/ascend_npu_measure_verl's Qwen3-32B tables (表 2/4/6/8/10/12) and fully-async tables (表 17/18)",
        "LoRA (rank 64) with offload; the fully asynchronous trainer (4 + 4 GPUs overlapped), not the colocated step",
    ),
    (
        "terrense/qwen3-8b-grpo-dapo-lab arms R1_grpo_baseline, B_gspo, C_aggonly, D_drgrpo",
        "the configuration of THIRD_RUNS' four H20 arms, which informed the constants frozen at FOURTH_FROZEN_REV: "
        "not an unseen configuration (transcribed, not used)",
    ),
    (
        "the previous round's unfetchable leads: AlexJJ009/verl-v0.7, sherrywan717/ppo-vs-grpo-math-rlvr, "
        "Aochong-Li/One-Shot-RLVR, uiuc-kang-lab/rlvr-noisy-data, zhanfang/math-rlvr, demon2036/verl_qwen_grpo, "
        "JZhao1122/aidando73/TimS-ml simpleRL-reason, boren-ms/plasmapotatos/zzqbjt/imvladikon/shaoxiongduan verl, ...",
        "not verl (TRL, SkyRL, own scripts), a fused joint-training fork without timings, evaluation outputs only, "
        "start-up failures, or no snapshot and no run artefact in the file index",
    ),
    (
        "file-index ids 67109882755 (lhy101/verl: Qwen2.5-7B/32B on H20 nodes), 3903514712 / 3946110501 (SPEED-RL), "
        "66379434766, 62746187936, 59790210492, 54931530822, and five more notes",
        "scripts and figures only (logs on private paths), metrics never committed, a parser without data, run-wide "
        "means with the reward inside gen, fully-async LoRA runs, 5-10 steps of batch 4-16, MoE or hybrid attention",
    ),
    (
        "about 60 fetched repositories: verl forks and tutorials (zhusq20/verl_dev's 36 empty event files, "
        "verl-recipe, verl-hardware-plugin, verl-community, mengchengTang/verl-data, ...), reasoning-RL papers "
        "(cmu-l3/l1, ThinkPrune, AdaptThink, QwenLong-L1, Light-R1, ...), DAPO/GRPO reproductions, AReaL, DAPO, "
        "LIMR, General-Reasoner, Minimal-RL, ROLL, slime, EasyR1, Open-Reasoner-Zero",
        "no committed console log, event file or metrics dump with verl's timing_s (event files with a header only, "
        "evaluation JSONL, docs, other frameworks' own timers)",
    ),
    (
        "about 20 repositories that cannot be fetched here (garrett4wade/verl-benchmark, mshtelma/verl-on-air, "
        "MiroMindAI/MiroMind-M1, HaFred/verl-GR, verl-project/verl-ascend-recipe, ...)",
        "no snapshot, and the file index lists no run artefact of theirs",
    ),
    (
        "verl PR 3870 (eager vs compiled tables: Qwen2-7B PPO and Qwen3-8B GRPO on 8 H100), PR 3524, issues 5111, "
        "1574, 2751, 1481, 881, 2094, 1304",
        "PR 3870 gives one row per model with no config, lengths or steps (the fork holding its script cannot be "
        "fetched: the most promising lead left); the others are vision-language models, images, or links to logs "
        "already used",
    ),
    (
        "file-index notes: uqcxu9's Qwen2.5-7B GRPO log, mxuax/verl-GR, a MAGI prefix-tree table, a PTD-PO runbook, "
        "Lumen FP8 notes, an agent stage-tuner report, TinyZero logs on AutoDL, Ascend 910B tables, agent run notes",
        "LoRA, a modified fork with run-wide means and no lengths, Megatron, a vision-language model, MI350X with FP8, "
        "no GPU, NPUs, multi-turn agents or reward waits inside gen",
    ),
    (
        "about 60 new file-index strings and exact paths of this round (timing_s/ref:, timing_s/values:, "
        "timing_per_token_ms/update_actor:, response_length/max:6144, JSON and CSV forms, wandb-summary.json, "
        "output.log, training_metrics.csv, ...)",
        "parsers, tests with made-up numbers, smoke tests of one step, agent notes and sources already listed; the "
        "index keeps few .log files and seems not to index JSON/JSONL data: following log links in docs found the one "
        "new log",
    ),
    # a fifth search (2026-12-04, one helper, after c0e7761): nothing usable
    (
        "verl PR 3870's branch (refs/pull/3870/head: one file changed) and the author's fork (no snapshot, not indexed); "
        "log links in every documentation revision of verl, verl-recipe and ~100 fetched repositories; "
        "vermouth1992/verl-data, wucong25/verl-data, Lorenayannnnn/classmate-cot-verl, ChibiQuest/verl_data, a Hugging "
        "Face dataset of verl logs (TAUR-dev/D-ExpTracker__rl_rlonly_AT_fixed__v1, unreachable here)",
        "no launch script or log behind PR 3870's tables (its token totals cannot be split into prompt and response); "
        "every GitHub-hosted log linked from documentation is already used or listed, the rest are images, wandb.ai, "
        "swanlab.cn or Google Drive links that cannot be reached",
    ),
    # the fifth round (2026-12-04, five search helpers; each line may cover several sources)
    (
        "https://github.com/aishukamal/rl-time-slicing rl-elastic-scaling/results/m3/colocated-b64 and /colocated "
        "(found through a log-analysis script in the file index)",
        "USED: FIFTH_RUNS' h100x2-grpo-r1distill-qwen1.5b-code-16k-b64n8 and -b8n8",
    ),
    (
        "aishukamal/rl-time-slicing's other arms (rl-elastic-scaling results m0-m2, m3 regime-shift/no-harm/static12, "
        "async-rl-benchmarks/*, verl-dapo-32gpu on 32 H200)",
        "fully asynchronous or time-sliced trainer/rollout splits, multi-turn and deep-research agents; the 32-GPU DAPO "
        "study is fully asynchronous and its commit is not in the snapshot",
    ),
    (
        "issue and page searches in Chinese, Japanese, Korean and English (~95 look-ups): pasted step lines, speed and "
        "stall threads, DAPO/DeepScaleR/SimpleRL/ORZ/Skywork-OR1/Polaris/QwenLong-L1/LUFFY/Logic-RL/TinyZero/ProRL "
        "issues, vLLM sleep-mode and V0/V1 regressions; Tencent-Hunyuan/UniRL issue 40 (fetched), verl issues 1458, "
        "1422, 4264, 5099, 5119, 5964, 7847, 2009, 538, 1885, 336, 2807; POLARIS 4/16/18, simpleRL 24/69/84, TinyZero "
        "5/63/87; a Fixstars RTX PRO 6000 note, a qiita GRPO article, Chinese SEO pages quoting verl 'measurements'",
        "UniRL's verl baseline logs its own timing keys and step totals only, with no verl config; the verl threads are "
        "Megatron, MoE, hybrid attention, GB200/B200, batch 2, stalls, warm-up steps 1-5 or screenshots; the pages "
        "keep only their openings, no preset for the RTX PRO 6000, an SGLang arm, or unverifiable claims",
    ),
    (
        "file-index strings of this round (~160 look-ups: `timing_s/gen=`, `timing_s/update_actor=`, dict and JSON "
        "reprs, `| old_log_prob |`, `| update_actor (s) |`, `timing/update_actor:`, `perf/cpu_memory_used_gb:`, "
        "`response_length/mean:2`/`:3`/`:5`, `(TaskRunner pid=`, `global_seqlen/balanced_max:`, "
        "`step:{30,100,200} - global_seqlen`, `response/aborted_ratio:0`, ...) and the notes they led to (TTRL, "
        "PowerFlow, influence-trace, Loki step-time scripts, an ES-vs-GRPO 2-H200 note, a hex-move CoT research log, "
        "a Qwen3-4B DeepScaleR replay-buffer study, a 7B 16-GPU signal-fraction note)",
        "one or two steps, agents, LoRA, AMD GPUs, custom trainers or phases, old log-probs and reference summed, "
        "ranges instead of values, scripts without their data, or no repository to be found; the index holds no "
        "steady-state step line past step 30 anywhere",
    ),
    (
        "about 95 repositories by name (52 fetch attempts, 39 snapshots, every ref listed and 26 grepped blob by blob: "
        "verl forks and tutorials, DeepScaleR/TinyZero forks, Spec-RL, Flash-RL, TreePO, FlowRL, DeepMath, "
        "Mathematical-Reasoning-RL-Scaling-Law, ZyQiu6/verl_dev, ...) and find_files on ~30 default log paths",
        "no committed console log, event file with values (ZyQiu6/verl_dev's 36 event files are headers, 3 kB) or "
        "metrics dump; own GRPO loops; nine more repositories cannot be fetched (alibaba/verl-recipe, "
        "niuypei/multi_task_verl, madhu24raj/RLVR-Comparison, ...)",
    ),
    (
        "https://github.com/esaaren/verl-on-gke results/parsed_metrics.csv (a Google Cloud engineer's verl-on-GKE guide)",
        "USED: FIFTH_RUNS' b200x16-grpo-qwen2.5-32b-gsm8k-2nodes",
    ),
    (
        "https://github.com/NaomiEisen/Verl-KubeRay-RL successful_run_example.log (PPO, Qwen2.5-0.5B, 1 GPU, 128-token "
        "cap, full config printed, 29 steps)",
        "the GPU is not named anywhere: `perf/mfu/actor` implies verl's 989 TFLOP/s class (H100, H200 or H800), whose "
        "HBM rates (3.35 or 4.8 TB/s) set a decode-bound generation apart; an OpenShift team's other benchmarks used "
        "H200, which is circumstantial",
    ),
    (
        "systems-research artefacts and cloud repositories (~250 look-ups, 33 fetches): llm-d-incubation/llm-d-rl and "
        "the llm-d time-slicing forks, TKONIY/verl, an RLVRAMBench dictionary, a CS224R B200 project, AReaL issue 165, "
        "FastCuRL, GRESO, Trinity-RFT's verl comparison, Relax, an HPRL AutoHint sweep, async-RL labs and course "
        "projects; nebius, crusoe, coreweave, AI-Hypercomputer, ai-on-gke, LambdaLabsML, datacrunch, "
        "awsome-distributed-training, SkyPilot, Modal and dstack verl examples, rjaditya-2702/alignment-project, a "
        "Chinese 8 × B200 GRPO guide, ~30 exact log paths and ~70 strings (`colocated baseline`, `kind: RayJob`, ...)",
        "llm-d-rl's stock-verl arms publish means of steps 2-10 with `update_actor` as '~550 s' and no log; the rest "
        "are vision-language, SGLang, Megatron, MoE, LoRA, multi-turn agents, a GH200 cluster, disaggregated or "
        "one-step-off arms, their own frameworks, launch scripts without output, or final validation scores only",
    ),
    # the sixth round's search (three helpers, 2026-12-04, after SIXTH_FROZEN_REV)
    (
        "https://github.com/verl-project/verl/blob/e08c428c6/examples/ppo_trainer/verl_getting_started.ipynb",
        "USED (SIXTH_RUNS): the only executed verl notebook with step output among the ~215 repositories mirrored "
        "here (every .ipynb blob of every ref scanned; ~60 forks carry the same output); the file index holds no "
        "notebooks, so others can only be found by fetching",
    ),
    (
        "executed-notebook and walk-through leads: verl's other notebooks, PR 92's earlier revisions (install cells "
        "only), johnrcumming/tinyzero's Colab re-run (its training cell failed at once), TinyZero reproductions "
        "(SambhavG, Aoi-cn, josephqiu123, xiiiiiiiiii), gongyisheng/playground, rodrigobaron.com's verl post, a "
        "Lambda Cloud verl guide, walkinglabs/hands-on-modern-rl, Modal's grpo_verl example, SEO copies",
        "no step output (scripts, plots, one-line summaries), LoRA, or not run",
    ),
    (
        "performance-comparison and regression threads: verl issues 4942, 3733, 1663, 1885, 3660, 1590, 4825, "
        "1982, 3005, 3263, 4495, 2703, 6747; PRs 7461 (Liger kernel), 7095, 7458, 2956, 1026, 4470, 3389's branch "
        "artefacts (results/dp_sp CSVs, REPORT.md), the SGLang weight-update PRs; docs/README_vllm0.7.md; FlowRL 6, "
        "POLARIS 16, ROLL 101, Search-R1/ReCall/DeepResearcher threads; every text file of the mirrored "
        "repositories grepped for `timing_s/gen` with a value (230 hits in 47 repositories, all already used or listed)",
        "questions without pasted timings, screenshots or percentages only, DeepSpeed or SGLang or Megatron arms, "
        "Ascend NPU, multi-turn agents, TRL/NeMo-RL",
    ),
    (
        "efficiency papers' artefact repositories with stock-verl baselines: DUMP, Thinkless, Short-RL, Laser, "
        "PipelineRL, QeRL, M2PO, Elastic-Reasoning, DLER, Reinforce-Ada, efficient-reasoning, PrefixGrouper, "
        "Precision-RL, LC-R1, DisCO, QuestA, KlearReasoner, critique-GRPO, GHPO, SPO (fetched, every ref listed); "
        "HistoSpec (zichongli5/verl), RollPacker (the paper's text), PolyTrace, verl-recipe (partial rollout, PR "
        "96's baseline), verl's fp8 / fully-async / one-step-off / delta-sync docs, Flash-RL issues 28 and 37",
        "no committed logs or metrics; baselines only as plots, stage shares, speedup ratios or run means without "
        "lengths; Megatron, MoE or SGLang arms; logs withheld on purpose (PolyTrace)",
    ),
    (
        "Hugging Face datasets MathMindsAGI/train_cost_data and RL-Forgetting-Experiments-3/mbpp-code-rl-artifacts",
        "only the dataset cards are stored; the rows cannot be read from here, and no config or GPU is given per row",
    ),
    # the seventh round's search (two helpers, 2026-12-04, after SEVENTH_FROZEN_REV)
    (
        "https://github.com/sunzx8/cluster_verl/blob/ef144f3affa430cc4bb09daa7b20053f8d5910cd/train.out",
        "USED (SEVENTH_RUNS), found by an exact-path probe (recipe/dapo/nohup.out) of its repository; its nohup.out "
        "(2 MB, a custom entry point with dynamic sampling and its own loss), output.txt and recipe/dapo/nohup.out (a "
        "step and a start-up crash) are not usable",
    ),
    (
        "committed consoles under other names: exact-path probes for nohup.out, train.out, run.out, *.out under "
        "recipe/, examples/, logs/, scripts/ (the index lists the first 100 repositories of each path); kyeun293/CD-RL, "
        "zhiyuanhubj/logic-rl-formula (start-up crashes), Foo1szz/verl train.out (4 responses a step, garbage "
        "outputs, GPU unidentifiable), LIU-Hao-2002/GRPO_project and Pratic2001/Qwen3-Non-MOE (not verl), "
        "ColorDavid/ARPO (a tool agent), AmongUs, M_GRPO, CriticCoT, RLVR-Decomposed, Verl-main (no output committed)",
        "crashes, toy or garbage runs, other trainers, agents, or nothing committed",
    ),
    (
        "executed notebooks: ~45 more repositories fetched and every blob of every ref scanned (TinyZero forks, "
        "Logic-RL, PRIME, JustRL, Skywork-OR1, ArcherCodeR, code-r1, verl forks), every .ipynb of the ~285 "
        "repositories mirrored here rescanned (248 notebooks with verl timing keys, all copies of verl's "
        "getting-started notebook); uqcxu9/qwen2.5_300step_NEW_CONSIS_RESULT RL/train.log, harishvs/rl_grpo_qwen_math",
        "no executed verl notebook but verl's own (SIXTH_RUNS); the one new log is LoRA (already rejected), the other "
        "repository its own trainer",
    ),
    # the eighth round's search (two helpers, 2026-12-04, after the geometric longest response, b5499f6): nothing usable
    (
        "exact-path probes in subfolders (logs/{grpo,ppo,dapo,main_ppo,verl,run,output,training,train_grpo,train_ppo,"
        "grpo_train}.log, outputs/ output/ results/ log/ train.log, scripts/train.out, root verl.log, ppo.log, "
        "train_log.txt, wandb/latest-run/files/{output.log,config.yaml,wandb-summary.json,wandb-metadata.json}, verl's "
        "file-logger JSONL names) and ~55 repositories fetched and every blob grepped (forks of Logic-RL, DeepScaleR, "
        "Skywork-OR1, Light-R1, ProRL, POLARIS; *-dapo, verl-train, verl-0, r1-repro, rl-math repositories; "
        "Awesome-ML-SYS-Tutorial)",
        "no stock verl console: other trainers (TRL, Unsloth, own GRPO loops, DeepSpeed), SFT runs, molecular dynamics, "
        "config prints with one step, or nothing committed; listings stop at the first 100 repositories of a path",
    ),
    (
        "https://github.com/jianghoucheng/Agent_On_Policy_Distillation wandb/run-*/files/output.log (a copy of "
        "Gen-Verse/Open-AgentRL's verl fork; 4-8 A800-SXM4-40GB)",
        "ReTool on-policy distillation: a multi-turn sandbox tool agent, and the ref is a 32B teacher distilling into "
        "a 1.5B/3B student (its timing_s/ref is a 32B forward pass)",
    ),
    (
        "issues and pages searched for pasted step lines and per-phase tables (verl issues 1885, 6747, PRs 1834, 5770; "
        "Agent-R1 32, marin 8653/9250, Absolute-Zero-Reasoner 13, RLPR 16; dtianyou.com's Qwen3-8B GRPO note on "
        "48 GB RTX 4090s, a zhihu/qingkeai RollPacker note, NVIDIA's verl slides, aiknowledge.cn, Mu-GRPO "
        "(arXiv 2605.17570), abhinavnandwani.com; five content-farm 'verl benchmark' posts and scraped mirrors)",
        "multi-turn or vision-language runs, NPUs, MoE, other stacks, plots or ratios only, pages stored only in part, "
        "or made-up step lines",
    ),
    # the ninth round's search (two helpers, 2026-12-04, after NINTH_FROZEN_REV)
    (
        "https://github.com/LLM360/Reasoning360/blob/3a830ea7f81dc5639779a470754ebd367c06f946/wandb/ (W&B binary run "
        "files committed on 2025-08-12, deleted by the next commit; found by scanning every blob, binaries included)",
        "USED (NINTH_RUNS: phayu0dj and 47bzde4v); its two 2-node runs (g1f0kn0m, rq9wk0jh) have one step after the "
        "first; eight more never trained past validation or start-up; six files of 4 MiB or more are absent from the "
        "snapshot",
    ),
    (
        "verl PRs 7945 (results branch kolehma8/verl: step-metrics.csv of Qwen3 1.7B-32B on 8 H200 / B300), 7461, "
        "7202, 5401, 7554, 6158; issues 3996, 7029, 1481; verl-SpeCo PR 48; vime, RL-Kernel, UniRL, Relax, "
        "Entropy-Mechanism-of-RL 18, RLVR-Decomposed 11, RLPR 16; forks of perf-PR authors (supercharleszhu, "
        "zhangxin81, sheilaliuxl, TarzanZhao); huggingface.co/core123456789/codev-r1-9b-rl-python (train.log not "
        "stored); cnblogs rh-li 19355977; MindSpeed-MM's verl plugin; verl docs' perf pages",
        "Megatron actor (7945), means or ratios only, no config or GPU, SGLang, NPUs, other frameworks, "
        "attachments out of reach, or no run data",
    ),
    (
        "pages (about 25 look-ups in English, Chinese and Japanese: content-farm 'verl 实测' articles, a course replay "
        "on one H800, qiita's SGLang switch, csdn tutorials) and ~45 repositories fetched with every blob scanned, "
        "binaries included (verl_* tutorial and log repositories, EMPO, Co-Reward, GPG, CURE, LUFFY, Online-DPO-R1, "
        "TTRL, LIMR, POLARIS, DeepMath, Absolute-Zero-Reasoner; forks of Reasoning360)",
        "made-up or partial logs, LoRA, Megatron, one step, or nothing committed",
    ),
    # the tenth round's search (one helper, 2026-12-04, after NINTH_FROZEN_REV; the model unchanged): committed W&B run
    # files, found by path (`find_files` on wandb/debug.log, wandb/latest-run and `ext=wandb`) and decoded
    (
        "https://github.com/PraMamba/cell-o1 (src/verl/wandb at bb8ad6f), https://github.com/MYC000801/DisCO (wandb/ at "
        "6e1610f), https://github.com/Luo-feng-hitsz/TRAVEL (verl/wandb at 633528a)",
        "USED (TENTH_RUNS: oydywru9; xxpq76ci and mmjzfp9z; f20c5m3t); their other runs are SFT, LoRA (TRAVEL's r=32 "
        "runs) or have too few steps",
    ),
    (
        "https://github.com/RitxmSaha/adversarial-training (4 W&B runs of verl 0.2's GSM8K quick-start, Qwen2.5-0.5B "
        "PPO and GRPO on one A10G)",
        "the GPU: NVIDIA publishes no figures for the A10G (the A10's datasheet is not the A10G's), so a device file "
        "would be a guess",
    ),
    (
        "committed wandb folders of about 110 verl-based repositories (NPG-Muse, Multiling-reasoning, GFT, TinyV, "
        "darling, simpleRL-reason, maxent-grpo, Backtrack, TON, Tool-N1, PRML-RLHF, llm4math, ProRAG, VEM, "
        "prm_shaping, Orthus, LoopCoT, DynaChain, LUFF05, myrl, and more listed as having no .wandb file)",
        "SFT, other trainers (TRL, OpenRLHF, OAT, slime, LLaMA-Factory, own loops), vision-language, debug logs only, "
        "config without steps, two steps, or files absent from the snapshot",
    ),
    # the eleventh round's search (one helper, 2026-12-04, the same method and freeze): nothing usable
    (
        "committed tracker files of about 150 more verl-based repositories: wandb/debug.log probes under ~25 more "
        "prefixes, repositories vendoring verl (18 layouts of verl/trainer/main_ppo.py, Logic-RL and TinyZero reward "
        "files, find_repos on verl / TinyZero / Logic-RL / DeepScaleR / simpleRL names) checked with ext=wandb, "
        "tensorboard_log/ of 20 forks; tianyang-x/domain-rlhf (8 RTX A6000, two .wandb files)",
        "no training step recorded (domain-rlhf: a config and step-0 validation only), non-verl projects, or no "
        "snapshot (lisadunlap/dementor); listings stop at the first 100 repositories of a path",
    ),
    # the twelfth round's search (one helper, 2026-12-04, after NINTH_FROZEN_REV; the model for
    # verl jobs unchanged): the eleventh's leads, then the same method: nothing usable
    (
        "the eleventh round's leads: lisadunlap/dementor (text files through the file index), DavidePasero/darling "
        "(5 .wandb at 4eb26aad), jusrook/DynaChain, settheworldonfireiii/LUFF05 (run v4vl83oy's output.log), "
        "ozgurcelik/myrl; LLM360/Reasoning360's six >= 4 MiB run files at 3a830ea and its five smaller unused ones",
        "not verl (offline vLLM generation, an OpenAI-API study; a hand-written GRPO loop on a Mac), blobs absent "
        "from every snapshot (darling's commit; Reasoning360's six, also from its forks' mirrors), LoRA (DynaChain, "
        "lora_rank 64), Turing GPUs and off-policy mixing (LUFF05: 8 Quadro RTX 6000, LUFFY's injected responses), "
        "no history rows (Reasoning360's five: step-0 validation, a Triton cache crash)",
    ),
    (
        "Sherry805139/Reasoning360 at c7f000e5 (21 .wandb files, 4 of them indexed); wandb/debug.log probes under ~20 "
        "more prefixes; ~45 verl-, GRPO- and RLVR-named repositories checked for .wandb and .log files; 43 "
        "repositories fetched (TinyZero forks, small verl forks, R1-Zero copies) and every stored file grepped for "
        "timing_s values",
        "SFT runs (TRL on 8 RTX 5880 Ada), other trainers, agent loops, NPU work; the only timing_s hits were verl's "
        "quickstart, its notebook, a unit test and a one-step output already rejected. The file index does not "
        "search W&B folders' text files (config.yaml, debug.log, wandb-metadata.json), and a repository's .wandb "
        "listing can miss files its history holds",
    ),
    # the thirteenth search (one helper, 2026-12-04, model for verl jobs unchanged since NINTH_FROZEN_REV): metrics
    # files other loggers leave behind (MLflow, verl's file logger, SwanLab, ClearML, Aim, CSV exports) and
    # perf-report tables: nothing usable
    (
        "MLflow mlruns/ folders (verl's tracking.py now defaults to sqlite:////tmp/mlruns.db; ~10 launch scripts with "
        "trainer.logger mlflow); verl's file logger (<project>/<experiment>.jsonl, 14 exact-path guesses and 3 "
        "project/experiment pairs from launch scripts): HanlinDu/verl verl_examples/gsm8k.jsonl at 0b3b5c9",
        "no committed mlruns/ in any repository reachable (run ids cannot be guessed, the index does not search data "
        "files); gsm8k.jsonl is an elastic resize fork with async generation (gen 0.06 s beside generate_async 115 "
        "s), 3 steps, 24-token synthetic prompts, no old_log_prob or ref timings, no GPU",
    ),
    (
        "SwanLab swanlog/ folders (fenglinbei/fact-checking at 96a85ff), ClearML, Aim, W&B CSV exports "
        "(timing_s/gen__MIN headers)",
        "SwanLab git-ignores its own folder (the one committed is an Accelerate LoRA SFT, not verl); ClearML and Aim "
        "keep data on a server; CSV exports are outside the text index",
    ),
    (
        "~20 markdown perf reports tabulating verl phase timings (Gaudi 2 vs A100 GRPO of Qwen2.5-0.5B; an A800 + "
        "A4000 split placement; ALFWorld/WebShop, Lean, Mooncake and SWE agent runs; Qwen3-VL; Megatron H200; "
        "speculative decoding; a DAPO buffer) and 9 more verl forks fetched, with the 104 mirrors already here, every "
        "non-code blob grepped for timing_s values",
        "two steps only (the A100 report, repository unknown), split placements, agent or multi-turn rollouts, "
        "multimodal, Megatron, asynchronous or disaggregated, means only; the blob scan found only console, W&B and "
        "TensorBoard files already listed and verl's one-step output.txt",
    ),
    # the fourteenth search (one helper, 2026-12-04, not shown the model): published A/B comparisons of one job's
    # systems settings rather than whole logs (verl's 2,915 commit messages, docs/ examples/ recipe/ history, PR and
    # issue excerpts, pages); one usable, as ratios only (comparisons.VLLM_DOCS)
    (
        "https://github.com/verl-project/verl/blob/f8b4d0857f8a80be996bca4bc8f1a1463d7cf1aa/docs/README_vllm0.7.md "
        "(generation of run_qwen2-7b_seq_balance.sh: 115 s on vLLM 0.6.3, 85 s on 0.7.0, 62 s with CUDA graphs)",
        "USED: comparisons.VLLM_DOCS, benchmarks/sim_speedups.py's vLLM-docs comparison; the GPU and the lengths are "
        "not given, so it is predicted over a grid of both and scored as ratios only",
    ),
    (
        "verl issue 7847 and PR 7833 (token budgets raised to 16384: 151 s to 88 s a step, Qwen3.5-9B GRPO on 8 B200, "
        "vLLM 0.24); PR 6317 (FSDP2 forward_prefetch x offload_policy, Qwen3-32B on 16 H200: 44.03/43.27 and "
        "61.31/59.27 s of one profiled update)",
        "7833/7847 are excerpts only, the 88 s arm also pads to length (a new feature) and the model is a hybrid "
        "linear-attention one; 6317 gives neither batch sizes nor lengths, for one profiled step of the update",
    ),
    (
        "a ROCm guide (MI355X, FSDP1 28 s vs FSDP2 31 s a step), verl PRs 4368 (PrefixGrouper), 5669 (Liger), 7804 "
        "(an unmerged offload feature), 91 (remove padding ~1.7x), 2956 (CUDA graphs by default), 5753, 7461, issue "
        "1580 (512 vs 10240 cap), siiRL issue 32, verl-omni issue 421, an SGLang/Dynamo lab notebook, verl's "
        "delta-weight-sync and fully-async docs, and ~45 more (Megatron recipes, SGLang, NPUs, microbenchmarks)",
        "SGLang or AMD or a patched verl; features the model does not read; no config or GPU; relative claims only, "
        "figures in screenshots or attachments; SFT or LoRA; a weight-sync or single-transfer timing, not a step",
    ),
    # the fifteenth search (one helper, 2026-12-05, not shown the model; the model as committed at e61da53):
    # 52 sources by angles not tried before (the Hugging Face Hub's pages in the docs corpus, EasyR1, verl copies
    # vendored inside other projects, course repositories, new log-line fragments); none usable
    (
        "huggingface.co pages in the docs corpus: TAUR-dev/D-ExpTracker__* datasets (verl stdout in parquet), "
        "MathMindsAGI/train_cost_data, core123456789/codev-r1-9b-rl-python, thejaminator/*-step-* uploads, "
        "GoodStartLabs/gin-rummy-training-data; volcengine veMLP verl GRPO/DAPO best-practice pages",
        "the parquet logs sit behind LFS and their viewer cuts stdout before any step line (reading them means "
        "downloading dataset files); cards or file lists only; LoRA adapters without logs; JAX, not verl; page "
        "openings only",
    ),
    (
        "https://github.com/hiyouga/EasyR1 issues 24 (and ~12 fork copies), 43, 349, 392, 570 and "
        "assets/baselines.md at 46c6c21; GAIR-NLP/DeepResearcher#2, Search-R1#114, Ego-R1#7, ReCall#11/#37, "
        "R-Search#2, trl#4897",
        "an end-of-run W&B summary (one value a key), vision-language runs with seconds a step only, wall-clock "
        "answers or screenshots, multi-turn agents, TRL",
    ),
    (
        "https://github.com/DreamFong/AlignXplorePlus verl/verl_demo.log at 6d4ff47 (Qwen2.5-0.5B PPO, 8 GPUs of "
        "139.81 GB: H200, full config printed); whatadayG/self_play and laffytaffyz/grpo-urop verl_demo.log; ~20 "
        "more exact log paths of verl vendored in other projects",
        "AlignXplorePlus resumes from step 105 and stops in the debugger before any step is logged (the repository "
        "has one commit); the others hold Ray's start-up lines only, or no file",
    ),
    (
        "course and verl-GRPO repositories (CMU 11-868 projects, Psv-V/math-verl-grpo, 1a3orn/verl-grpo-r1, "
        "brucecai-2001/verl-grpo-sql, Hsu1023/verl-grpo, ZiqiGuan892/verl_expansion, and five more); find_string "
        "on early-step lines, timing_s/save_checkpoint:, timing_s/step:, EasyR1's timing_s/old, memory lines; ~15 "
        "notes in the file index (an SDPO self-distillation step, a replay micro-benchmark, MoE routing checks, "
        "metric glossaries)",
        "no logs committed, not verl RL, or LoRA; every string hit a parser, a test or a source already listed; "
        "the notes give one step, no GPU, a modified trainer or no generation timer",
    ),
    # the sixteenth search (one helper, 2026-12-07, for an eleventh round; the model for verl jobs as at
    # NINTH_FROZEN_REV, which today's model still reproduces on the ninth and tenth rounds): nothing usable
    (
        "file-index strings not tried before (`'timing_s/gen': np.float64(`, `timing_s/update_actor': `, "
        "`- timing_s/gen:`, `timing_s/stop_profile:`, `- timing_s/reward:`, `timing_s/update_actor:3`, "
        "`| timing_s/old_log_prob |`, `old_log_prob (s)`, a box-drawn table column) and the ~25 files they hit",
        "every hit a source already listed (the AutoDL quickstart note, RLDecisionAgent's char-count log, the MetaX "
        "C550 note, the retool Cursor chat, the Ascend image guide, llm-d's py-inference-scheduler step 1, verl's "
        "examples/tuning README, the DAS speculative-decoding note), Ascend 910B tables, agent or multi-turn notes, "
        "parsers and tests; `timing_s/update_actor:3` has 8 hits in the whole index: the console lines that text "
        "search can reach are exhausted",
    ),
    (
        "the early search's TinyZero reproduction note (file-index id 4406744086: Qwen2.5-0.5B countdown PPO on "
        "one RTX 5090, then one RTX 4090 on AutoDL; TinyZero's verl 0.1, vLLM 0.6.3), found again by "
        "`- timing_s/gen:`",
        "rejected before for want of a 4090 preset, which benchmarks/devices/rtx4090.yaml (the second round) now "
        "supplies; not used in this search: its brief was not to re-check listed sources, it is the second round's "
        "shape again (a TinyZero 0.5B PPO with a critic on one 4090), and it pastes four single step lines (steps 2, "
        "52, 92, 122: batch 32, a 256-token cap, mean responses 58-181) of a command whose "
        "ppo_mini_batch_size (128) exceeds the batch; left for a decision",
    ),
    (
        "issue, page and documentation searches (about 12 look-ups: pasted multi-step logs, H800 and 14B runs, "
        "per-phase tables, W&B reports, GitHub discussions): verl issues 2278, 3742, 4104, 3250, 1109, 2652, 249 "
        "and PR 7519 (MXFP8 arms), Search-R1 152, R-Search 2, YoungZ365/SOD 19, RL-Align/RL-Kernel PR 377, "
        "GuanxingLu/vlarl 2, StarsfieldAI/R1-V 141, VisualThinker-R1-Zero 11, Vision-SR1 12; NVIDIA's NeMo RL "
        "performance page, Tjh-UKN/vime's train.metrics, self-hosted verl mirrors in the page store",
        "scripts without timings, progress-bar seconds a step, screenshots, Megatron (PR 7519's DAPO arms, VIME), "
        "an on-policy distillation teacher in the step (SOD), multi-turn search agents, vision-language models, "
        "other trainers (NeMo RL, slime-style metrics, TRL), or sources already listed",
    ),
    (
        "W&B text files read through the file index, which stores a run folder's output.log though it does not "
        "search it: exact-path listings of scripts/wandb/debug.log (91 repositories), "
        "wandb/latest-run/files/output.log (73), train/wandb/debug.log (29), examples/wandb/debug.log (16), "
        "rl/wandb/debug.log (4), verl/wandb/debug.log (3), src/wandb/debug.log (222, the first 100 listed), "
        "{examples/grpo_trainer,recipe/dapo}/wandb/debug.log, verl_demo.log under verl/, logs/, scripts/ and "
        "examples/grpo_trainer/, verl checkpoint markers (latest_checkpointed_iteration.txt); the output.log of "
        "TongmengXie/training_test, Massive-Rabbit-8223/Neural-Training-Observatory, Candice1995/LLM-QO-VLDB2025, "
        "thuEcstasy/RL-spec, YYT-t/xyzo, Aochong-Li/KnowledgeUpdatePlayground and safety-research/lie-detector; "
        "rlvr-named repositories' files (TsingZYY/rlvr-verifier-error-transfer-evidence, "
        "UnitedSnakes/rlvr_behavior_probe_runpod, daspronoy/rlvr-misalignment-onset)",
        "HF Trainer, MNIST, CLLM and SFT runs (one a start-up crash), not verl; the verl repositories among the "
        "listings are already listed (PRML-RLHF, TON, dementor, DynaChain, NPG-Muse, LUFF05, Orthus, ProRAG, "
        "Multiling-reasoning, AlignXplorePlus, self_play, Time-R1, Agent_On_Policy_Distillation); the rlvr "
        "repositories hold evaluation outputs and analyses, no training console; wandb/debug.log alone is held by "
        "5,583 repositories, of which a listing shows the first 100",
    ),
]
"""Public sources searched for more runs (for the generalisation test: constants frozen on RUNS, predicted on runs
they never saw) and why none was usable. Usable needs the config, the GPU, several steady steps with `timing_s/*`
and the measured mean lengths, on the FSDP trainer without LoRA."""
