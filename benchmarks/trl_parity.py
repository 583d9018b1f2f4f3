"""This trainer against TRL's `GRPOTrainer` at matched shapes, side by side in one run.

The run: GRPO, 16 prompts × 4 samples per step, at most 32 new tokens, the same 4-layer 128-wide
Qwen2 (this project's warm-started tiny policy, saved once and loaded by both), world 1, 2 threads,
a KL loss against a frozen reference (coefficient 0.001), one PPO epoch over one mini-batch, the
whole batch in one micro-batch, the digit-sorting task's reward. Rounds alternate between the two
(this machine is noisy); the first `--warmup` steps of every run are dropped. Prints median step
time (wall), CPU time per step (process time, all threads) and tokens/s (prompt + response tokens
per step / step time) of both, their ratios (pooled, and the median of the per-round ratios, which
load drifting between rounds does not bias), and writes them as JSON. Nothing is asserted.

TRL is not a project dependency: it is installed, with torch 2.13.0 first, in its own virtualenv
`benchmarks/.trl-venv` the first time this runs (PyPI needed once), and runs there as a child
process of this script (`--trl-child`).

    python benchmarks/trl_parity.py [--rounds 2] [--steps 12] [--warmup 2] [--out benchmarks/results/trl_parity.json]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TRL_VENV = ROOT / "benchmarks" / ".trl-venv"
TORCH_VERSION = "2.13.0"
PROMPTS, SAMPLES, NEW_TOKENS, KL_COEF, LR, SEED = 16, 4, 32, 0.001, 2e-4, 42
THREADS = int(os.environ.get("TRL_PARITY_THREADS", "2"))
"""Threads per process (intra-op); `--threads` sets it for both children."""
OURS = [
    "algorithm.adv_estimator=grpo",
    f"actor_rollout_ref.rollout.n={SAMPLES}",
    f"data.train_batch_size={PROMPTS}",
    f"actor_rollout_ref.actor.ppo_mini_batch_size={PROMPTS}",
    f"data.max_response_length={NEW_TOKENS}",
    "actor_rollout_ref.actor.use_kl_loss=true",
    f"actor_rollout_ref.actor.kl_loss_coef={KL_COEF}",
    f"actor_rollout_ref.actor.optim.lr={LR}",
    f"actor_rollout_ref.actor.ppo_micro_batch_size_per_gpu={PROMPTS * SAMPLES}",
    f"actor_rollout_ref.rollout.log_prob_micro_batch_size_per_gpu={PROMPTS * SAMPLES}",
    f"actor_rollout_ref.ref.log_prob_micro_batch_size_per_gpu={PROMPTS * SAMPLES}",
    f"data.seed={SEED}",
]


# ------------------------------------------------------------------------------------ set-up


def trl_python() -> Path:
    """The TRL virtualenv's python, creating the virtualenv on first use (torch pinned first)."""
    python = TRL_VENV / "bin" / "python"
    marker = TRL_VENV / ".installed"
    if marker.exists():
        return python
    print(f"installing TRL into {TRL_VENV} (once) ...", flush=True)
    subprocess.run([sys.executable, "-m", "venv", str(TRL_VENV)], check=True)
    (TRL_VENV / ".gitignore").write_text("*\n")  # never committed
    pip = [str(python), "-m", "pip", "install", "-q", "--disable-pip-version-check"]
    subprocess.run([*pip, f"torch=={TORCH_VERSION}"], check=True)
    subprocess.run([*pip, "trl"], check=True)
    check = "import torch; assert torch.__version__.startswith('" + TORCH_VERSION + "'), torch.__version__"
    subprocess.run([str(python), "-c", check], check=True)  # trl must not have replaced torch
    marker.touch()
    return python


def save_policy(folder: Path) -> None:
    """The shared starting point: this project's warm-started 4-layer 128-wide policy."""
    from trainer import warm_start
    from trainer.config.loader import load_config
    from trainer.model import build_policy

    config = load_config(
        [], ["builtin.model.num_hidden_layers=4", "builtin.model.hidden_size=128", f"data.seed={SEED}"]
    )
    policy = build_policy(config, SEED)
    warm_start.apply(policy, config, SEED)
    policy.save_pretrained(folder)


# ---------------------------------------------------------------------------------- the runs


def run_ours(model: Path, steps: int, tmp: Path) -> list[dict]:
    out = tmp / f"ours-{time.monotonic_ns()}.json"
    cmd = [sys.executable, str(Path(__file__).resolve()), "--ours-child", str(model), str(steps), str(out)]
    env = {**os.environ, "OMP_NUM_THREADS": os.environ["TRL_PARITY_THREADS"]}
    proc = subprocess.run(cmd, capture_output=True, text=True, cwd=ROOT, env=env)
    if proc.returncode != 0:
        raise SystemExit(f"this trainer failed:\n{proc.stderr[-3000:]}")
    return json.loads(out.read_text())


def ours_child(model: str, steps: int, out: str) -> None:
    """This trainer's steps, timed as the TRL child times TRL's (wall and process CPU time per step)."""
    import torch

    from trainer import distributed, loop
    from trainer.config.loader import load_config

    torch.set_num_threads(THREADS)
    config = load_config([], [*OURS, f"actor_rollout_ref.model.path={model}"])
    trainer = loop.Trainer(config, distributed.init())
    rows = []
    for step in range(1, steps + 1):
        wall, cpu = time.perf_counter(), time.process_time()
        metrics = trainer.train_step(step)
        wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
        names = ("gen", "reshard", "old_log_prob", "ref", "adv", "update_actor")
        rows.append(
            {"step_s": wall, "cpu_s": cpu, "tokens": metrics["perf/total_num_tokens"]}
            | {f"{n}_s": metrics.get(f"timing_s/{n}", 0.0) for n in names}
        )
    Path(out).write_text(json.dumps(rows))
    del trainer
    distributed.leave(0)


def run_trl(python: Path, model: Path, steps: int, tmp: Path) -> list[dict]:
    out = tmp / f"trl-{time.monotonic_ns()}.json"
    cmd = [str(python), str(Path(__file__).resolve()), "--trl-child", str(model), str(steps), str(out)]
    threads = os.environ["TRL_PARITY_THREADS"]
    env = {**os.environ, "OMP_NUM_THREADS": threads, "PYTHONPATH": str(ROOT), "TOKENIZERS_PARALLELISM": "false"}
    proc = subprocess.run(cmd, capture_output=True, text=True, cwd=tmp, env=env)
    if proc.returncode != 0:
        raise SystemExit(f"TRL failed:\n{proc.stderr[-3000:]}")
    return json.loads(out.read_text())


def trl_child(model: str, steps: int, out: str) -> None:
    """Runs inside the TRL virtualenv: GRPOTrainer on the same task, model and shapes."""
    import torch
    from datasets import Dataset
    from tokenizers import Tokenizer, models, pre_tokenizers
    from transformers import AutoModelForCausalLM, PreTrainedTokenizerFast, TrainerCallback
    from trl import GRPOConfig, GRPOTrainer

    from trainer.task import DigitTokenizer, Prompt, make_prompts, score

    torch.set_num_threads(THREADS)
    symbols = DigitTokenizer.symbols
    core = Tokenizer(models.WordLevel({s: i for i, s in enumerate(symbols)}, unk_token="<unused1>"))
    core.pre_tokenizer = pre_tokenizers.WhitespaceSplit()
    tokenizer = PreTrainedTokenizerFast(
        tokenizer_object=core, pad_token="<pad>", bos_token="<bos>", eos_token="<eos>", unk_token="<unused1>"
    )
    prompts = [p for step in range(1, steps + 2) for p in make_prompts(SEED, step, PROMPTS, 2, 6)]
    text = DigitTokenizer()
    by_text = {text.decode(list(p.ids)): p for p in prompts}
    dataset = Dataset.from_dict({"prompt": list(by_text)})
    tokens_per_step: list[int] = []

    def reward(prompts: list[str], completions: list[str], completion_ids: list[list[int]], **_: object) -> list[float]:
        tokens_per_step.append(sum(len(p.split()) for p in prompts) + sum(len(c) for c in completion_ids))
        return [score(by_text.get(p, Prompt((), ())), list(c)) for p, c in zip(prompts, completion_ids, strict=True)]

    times: list[tuple[float, float]] = []

    class Timer(TrainerCallback):
        def on_step_begin(self, *args: object, **kwargs: object) -> None:
            self.start = time.perf_counter(), time.process_time()

        def on_step_end(self, *args: object, **kwargs: object) -> None:
            times.append((time.perf_counter() - self.start[0], time.process_time() - self.start[1]))

    policy = AutoModelForCausalLM.from_pretrained(model, dtype=torch.float32)
    policy.generation_config.eos_token_id = tokenizer.eos_token_id
    policy.generation_config.pad_token_id = tokenizer.pad_token_id
    config = GRPOConfig(
        output_dir=str(Path(out).parent / "trl-out"),
        per_device_train_batch_size=PROMPTS * SAMPLES,
        num_generations=SAMPLES,
        max_completion_length=NEW_TOKENS,
        beta=KL_COEF,
        learning_rate=LR,
        num_iterations=1,
        gradient_accumulation_steps=1,
        temperature=1.0,
        max_steps=steps,
        use_cpu=True,
        bf16=False,
        logging_steps=1,
        report_to="none",
        save_strategy="no",
        disable_tqdm=True,
        seed=SEED,
    )
    trainer = GRPOTrainer(
        model=policy, reward_funcs=reward, args=config, train_dataset=dataset, processing_class=tokenizer
    )
    trainer.add_callback(Timer())
    trainer.train()
    rows = [{"step_s": t, "cpu_s": c, "tokens": n} for (t, c), n in zip(times, tokens_per_step, strict=False)]
    Path(out).write_text(json.dumps(rows))


# ------------------------------------------------------------------------------------ report


def summary(rows: list[dict]) -> dict:
    step = statistics.median(r["step_s"] for r in rows)
    out = {
        "steps": len(rows),
        "step_s": step,
        "tokens_per_step": statistics.median(r["tokens"] for r in rows),
        "tokens_per_s": statistics.median(r["tokens"] / r["step_s"] for r in rows),
    }
    for key in rows[0]:
        if key.endswith("_s") and key not in ("step_s", "tokens_per_s"):
            out[key] = statistics.median(r[key] for r in rows)
    return out


def main() -> None:
    if len(sys.argv) > 1 and sys.argv[1] in ("--trl-child", "--ours-child"):
        child = trl_child if sys.argv[1] == "--trl-child" else ours_child
        child(sys.argv[2], int(sys.argv[3]), sys.argv[4])
        return
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--steps", type=int, default=12)
    parser.add_argument("--warmup", type=int, default=2)
    parser.add_argument("--threads", type=int, default=THREADS, help="torch threads of both trainers (default 2)")
    parser.add_argument("--out", type=Path, default=ROOT / "benchmarks" / "results" / "trl_parity.json")
    args = parser.parse_args()
    os.environ["TRL_PARITY_THREADS"] = str(args.threads)  # read by both children
    python = trl_python()
    ours: list[dict] = []
    trl: list[dict] = []
    round_ratios: list[float] = []
    with tempfile.TemporaryDirectory() as tmp_name:
        tmp = Path(tmp_name)
        model = tmp / "policy"
        save_policy(model)
        for round_ in range(args.rounds):
            mine = run_ours(model, args.steps, tmp)[args.warmup :]
            theirs = run_trl(python, model, args.steps, tmp)[args.warmup :]
            ours += mine
            trl += theirs
            mine_s, theirs_s = (statistics.median(r["step_s"] for r in rows) for rows in (mine, theirs))
            round_ratios.append(mine_s / theirs_s)
            print(
                f"round {round_ + 1}: this trainer {mine_s:.3f} s/step, TRL {theirs_s:.3f} s/step "
                f"(ratio {mine_s / theirs_s:.2f})",
                flush=True,
            )
    result = {"this_trainer": summary(ours), "trl": summary(trl)}
    result["step_time_ratio"] = result["this_trainer"]["step_s"] / result["trl"]["step_s"]
    result["round_step_time_ratios"] = round_ratios
    result["median_round_step_time_ratio"] = statistics.median(round_ratios)  # robust to load drifting between rounds
    result["cpu_time_ratio"] = result["this_trainer"]["cpu_s"] / result["trl"]["cpu_s"]
    result["tokens_per_s_ratio"] = result["this_trainer"]["tokens_per_s"] / result["trl"]["tokens_per_s"]
    result["shapes"] = {
        "prompts": PROMPTS, "samples": SAMPLES, "max_new_tokens": NEW_TOKENS, "layers": 4, "hidden": 128,
        "threads": args.threads, "world": 1, "kl_coef": KL_COEF,
    }  # fmt: skip
    print()
    print(f"{'':14}{'step s':>10}{'CPU s/step':>12}{'tokens/step':>14}{'tokens/s':>12}")
    for name in ("this_trainer", "trl"):
        row = result[name]
        print(
            f"{name:14}{row['step_s']:>10.3f}{row['cpu_s']:>12.3f}{row['tokens_per_step']:>14.0f}"
            f"{row['tokens_per_s']:>12.0f}"
        )
    print(
        f"step time ratio (this / TRL): {result['step_time_ratio']:.2f} (median of rounds "
        f"{result['median_round_step_time_ratio']:.2f})   CPU time ratio: "
        f"{result['cpu_time_ratio']:.2f}   tokens/s ratio: {result['tokens_per_s_ratio']:.2f}"
    )
    phases_line = ", ".join(
        f"{k[:-2]} {v:.3f}"
        for k, v in result["this_trainer"].items()
        if k.endswith("_s") and k not in ("step_s", "cpu_s", "tokens_per_s")
    )
    print(f"this trainer's phases (s): {phases_line}")
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(result, indent=2) + "\n")
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
