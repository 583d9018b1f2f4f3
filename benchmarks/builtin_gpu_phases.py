"""The cost model against the built-in trainer on a real GPU: predicted first, measured after.

Four configurations of the built-in trainer on one GPU (world 1, bf16 mixed precision, the digit-sorting
task, generalised advantage estimation so the critic runs too): the CPU default's tiny model, a
Qwen2.5-0.5B-shaped model at two micro-batch sizes, and a Qwen2.5-1.5B-shaped one.

    python benchmarks/builtin_gpu_phases.py predict [--gpu H200]   # here: no GPU needed
    python benchmarks/builtin_gpu_phases.py measure --out M.json    # on the GPU node (torch, transformers, pyyaml)
    python benchmarks/builtin_gpu_phases.py compare M.json          # here: the errors

`predict` writes each configuration as a space file (`trainer: builtin`, its keys under `base:`, the task's
lengths under `sim:`) and predicts it the way `autotune run --space FILE --fidelity sim --gpu H200` does
(`autotune.sim.predict.predict_trial`), then writes `benchmarks/builtin_gpu/predicted_h200_<revision>.json`:
such files are committed before the measurement, so the predictions are frozen (one per revision of the model). The lengths it states are the task's,
known before any run: a prompt is `<bos>`, k digits and `=` (k uniform between the task's bounds), a correct
answer the k digits sorted and `<eos>`, so the mean prompt is (min + max)/2 + 2 tokens, the mean answer
(min + max)/2 + 1 and the longest max + 1.

`measure` runs each configuration's trainer (`python -m trainer`, 6 steps) and takes the median of each
`timing_s/*` phase over the steps after the first two, with the lengths the policy actually produced
(`prompt_length/mean`, `response_length/mean`, `response_length/max`). It imports nothing of autotune.

`compare` prints, per configuration and phase, three predictions' errors against the measurement: the frozen
one, this checkout's cost model (changed since, on other evidence: the errors say what the changes did), and
this checkout's given the measured lengths; then the median |error| of each; it writes
`benchmarks/results/builtin_gpu.json`.

`layers` measures, on this machine's device, FSDP2's fixed cost per decoder layer and micro-batch in each pass
(a 16-wide model at 2 and 8 layers), beside the model's `micro_layers` weights.

`driver` measures, on this machine's device, what the builtin trainer spends on advantages and outside its
timed phases (3 batch shapes of the tiny model, GAE and GRPO), beside the cost model's prediction: the evidence
for `terms.driver_features`.
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
from typing import Any

import yaml

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "benchmarks" / "results"
DATA = ROOT / "benchmarks" / "builtin_gpu"
"""Tracked: the frozen predictions and each GPU measurement (CI has no GPU to repeat it)."""
FROZEN_GLOB = "predicted_h200_*.json"
"""One file of frozen predictions per revision that made them (`predict` writes predicted_h200_<rev>.json)."""
STEPS, WARMUP = 6, 2
PHASES = ("gen", "reshard", "old_log_prob", "ref", "values", "adv", "update_critic", "update_actor")
MICRO = "actor_rollout_ref.actor.ppo_micro_batch_size_per_gpu"

COMMON = {
    "actor_rollout_ref.actor.fsdp_config.model_dtype": "bf16",
    "actor_rollout_ref.ref.fsdp_config.model_dtype": "bf16",
    "actor_rollout_ref.rollout.tensor_model_parallel_size": 1,
    "algorithm.adv_estimator": "gae",
}


def _shape(hidden: int, intermediate: int, layers: int, heads: int, kv: int) -> dict[str, Any]:
    return {
        "builtin.model.hidden_size": hidden,
        "builtin.model.intermediate_size": intermediate,
        "builtin.model.num_hidden_layers": layers,
        "builtin.model.num_attention_heads": heads,
        "builtin.model.num_key_value_heads": kv,
    }


def _task(batch: int, mini: int, low: int, high: int) -> dict[str, Any]:
    return {
        "data.train_batch_size": batch,
        "actor_rollout_ref.actor.ppo_mini_batch_size": mini,
        "builtin.task.min_digits": low,
        "builtin.task.max_digits": high,
        "data.max_prompt_length": high + 2,
        "data.max_response_length": high + 1,
    }


LARGE_LR = {  # a larger model at the tiny model's learning rates drifts within the 6 steps; these keep it stable
    "actor_rollout_ref.actor.optim.lr": 1.0e-5,
    "critic.optim.lr": 1.0e-5,
    "builtin.warm_start.lr": 1.0e-3,
    "builtin.warm_start.steps": 30,
}

CONFIGS: dict[str, dict[str, Any]] = {
    "tiny": {"base": {}, "micro": [8]},  # the CPU default (cpu_tiny): 128 wide, 2 layers, 32 prompts of 2-6 digits
    "q0.5b": {
        "base": {**_shape(896, 4864, 24, 14, 2), **_task(256, 64, 16, 48), **LARGE_LR},
        "micro": [16, 64],
    },
    "q1.5b": {
        "base": {**_shape(1536, 8960, 28, 12, 2), **_task(128, 64, 32, 96), **LARGE_LR},
        "micro": [16],
    },
}


def task_lengths(flat: dict[str, Any]) -> dict[str, float]:
    """The digit-sorting task's lengths, known before any run (see the module docstring)."""
    low = int(flat.get("builtin.task.min_digits", 2))
    high = int(flat.get("builtin.task.max_digits", 6))
    mean_digits = (low + high) / 2
    return {"prompt_tokens": mean_digits + 2, "response_tokens": mean_digits + 1, "response_max": high + 1}


def space_dict(name: str, config: dict[str, Any], gpu: str, lengths: dict[str, float] | None = None) -> dict[str, Any]:
    """A configuration as a space: its keys as the base, micro-batch sizes as the one knob, lengths under `sim:`."""
    base = {**COMMON, **config["base"]}
    return {
        "name": f"builtin-gpu-{name}",
        "trainer": "builtin",
        "base_config": ["cpu_tiny"],
        "base": base,
        "trial": {"steps": STEPS, "warmup_steps": WARMUP, "world_size": 1},
        "params": {MICRO: {"type": "categorical", "choices": list(config["micro"])}},
        "baseline": {MICRO: config["micro"][0]},
        "sim": {**(lengths or task_lengths(base)), "gpu": gpu},
    }


def predict_all(gpu: str, lengths: dict[str, dict[str, float]] | None = None) -> dict[str, dict[str, Any]]:
    """Every (configuration, micro-batch) predicted through the CLI's path; `lengths` per run name, else the task's."""
    sys.path.insert(0, str(ROOT))
    from autotune.sim.predict import predict_trial, sim_fidelity
    from autotune.space.loader import load_space

    out: dict[str, dict[str, Any]] = {}
    with tempfile.TemporaryDirectory() as tmp:
        for name, config in CONFIGS.items():
            for micro in config["micro"]:
                run = f"{name}-micro{micro}"
                path = Path(tmp) / f"{name}-{micro}.yaml"
                path.write_text(
                    yaml.safe_dump(space_dict(name, config, gpu, (lengths or {}).get(run)), sort_keys=False)
                )
                space = load_space(str(path))
                trial = predict_trial(space, sim_fidelity(space), {MICRO: micro})
                p = trial.prediction
                out[run] = {
                    "phases": {k: round(v, 6) for k, v in p.phases.items()},
                    "step": round(p.step, 6),
                    "lengths": lengths.get(run) if lengths else task_lengths(trial.flat),
                }
    return out


def trainer_overrides(name: str, micro: int) -> list[str]:
    config = CONFIGS[name]
    flat = {**COMMON, **config["base"], MICRO: micro}
    return [f"{k}={v}" for k, v in flat.items()]


def measure_one(name: str, micro: int, work: Path) -> dict[str, Any]:
    """One configuration's trainer run on this machine's device: medians of the steps after the warm-up."""
    metrics = work / f"{name}-{micro}.jsonl"
    cmd = [sys.executable, "-m", "trainer", f"trainer.total_training_steps={STEPS}", f"trainer.metrics_file={metrics}"]
    cmd += trainer_overrides(name, micro)
    start = time.monotonic()
    proc = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=240)
    wall = time.monotonic() - start
    rows = [json.loads(line)["metrics"] for line in metrics.read_text().splitlines()] if metrics.exists() else []
    header = next(
        (json.loads(line.removeprefix("trainer: run header ")) for line in proc.stdout.splitlines()
         if line.startswith("trainer: run header ")),
        {},
    )  # fmt: skip
    steady = rows[WARMUP:]
    keys = [f"timing_s/{p}" for p in (*PHASES, "step")] + [
        "prompt_length/mean", "response_length/mean", "response_length/max", "perf/mfu/actor",
        "perf/max_memory_allocated_gb", "perf/throughput",
    ]  # fmt: skip
    medians = {k: statistics.median(r[k] for r in steady if k in r) for k in keys if any(k in r for r in steady)}
    return {
        "exit": proc.returncode,
        "wall_s": round(wall, 1),
        "steps": len(rows),
        "device": header.get("device"),
        "backend": header.get("backend"),
        "medians": medians,
        "per_step": [{k: r.get(k) for k in keys} for r in rows],
        "stderr_tail": proc.stderr[-2000:] if proc.returncode else "",
    }


def measure(out: Path, only: list[str]) -> None:
    import torch

    result: dict[str, Any] = {
        "gpu": torch.cuda.get_device_name(0) if torch.cuda.is_available() else None,
        "torch": torch.__version__,
        "runs": {},
    }
    with tempfile.TemporaryDirectory() as tmp:
        for name, config in CONFIGS.items():
            if only and name not in only:
                continue
            for micro in config["micro"]:
                run = f"{name}-micro{micro}"
                try:
                    result["runs"][run] = measure_one(name, micro, Path(tmp))
                except subprocess.TimeoutExpired:
                    result["runs"][run] = {"exit": "timeout"}
                r = result["runs"][run]
                print(run, json.dumps({k: r.get(k) for k in ("exit", "wall_s", "steps", "device")}), flush=True)
                print("  ", json.dumps(r.get("medians", {})), flush=True)
                if r.get("stderr_tail"):
                    print(r["stderr_tail"], flush=True)
                out.parent.mkdir(parents=True, exist_ok=True)
                out.write_text(json.dumps(result, indent=2))  # after every run: a killed call keeps what it had
    print(f"wrote {out}")


def measured_lengths(run: dict[str, Any]) -> dict[str, float]:
    m = run["medians"]
    return {
        "prompt_tokens": m["prompt_length/mean"],
        "response_tokens": m["response_length/mean"],
        "response_max": m["response_length/max"],
    }


def errors(predicted: dict[str, Any], measured: dict[str, float]) -> dict[str, float]:
    """Relative error per phase (predicted / measured - 1), for phases both have; `step` too."""
    out = {p: predicted["phases"][p] / measured[f"timing_s/{p}"] - 1 for p in PHASES
           if p in predicted["phases"] and measured.get(f"timing_s/{p}")}  # fmt: skip
    out["step"] = predicted["step"] / measured["timing_s/step"] - 1
    return out


def median_abs(values: list[float]) -> float:
    return statistics.median(abs(v) for v in values) if values else float("nan")


VIEWS = {
    "current": "this checkout's cost model, the task's lengths",
    "given_len": "this checkout's cost model, the lengths the runs measured",
}


def frozen_files() -> list[dict[str, Any]]:
    """Every committed set of frozen predictions, oldest first."""
    return sorted((json.loads(p.read_text()) for p in DATA.glob(FROZEN_GLOB)), key=lambda f: f["made"])


def compare(measured_path: Path, out: Path) -> dict[str, Any]:
    frozen = frozen_files()
    measured = json.loads(measured_path.read_text())
    runs = {k: v for k, v in measured["runs"].items() if v.get("exit") == 0}
    gpu = frozen[-1]["gpu"]
    views = {f"@{f['revision'][:7]}": f"committed {f['made']}: {f.get('note', '')}" for f in frozen} | VIEWS
    predictions = {f"@{f['revision'][:7]}": f["runs"] for f in frozen} | {
        "current": predict_all(gpu),
        "given_len": predict_all(gpu, {k: measured_lengths(v) for k, v in runs.items()}),
    }
    table: dict[str, Any] = {}
    print(f"built-in trainer on {measured['gpu']} (torch {measured['torch']}), predicted for {gpu}")
    for view, what in views.items():
        print(f"  {view}: {what}")
    print(f"{'run':18s} {'phase':14s} {'measured':>9s}" + "".join(f" {v[-9:]:>9s} {'err':>6s}" for v in views))
    for run, m in runs.items():
        med = m["medians"]
        table[run] = {view: errors(predictions[view][run], med) for view in views}
        table[run].update(measured=med, lengths=measured_lengths(m))
        for phase in (*PHASES, "step"):
            if phase not in table[run]["current"]:
                continue
            line = f"{run:18s} {phase:14s} {med[f'timing_s/{phase}']:9.4f}"
            for view in views:
                p = predictions[view][run]
                line += f" {p['phases'].get(phase, p['step']):9.4f} {table[run][view].get(phase, float('nan')):+6.0%}"
            print(line)
    summary = {
        view: {
            "median_abs_phase_error": median_abs(
                [e for t in table.values() for p, e in t[view].items() if p != "step"]
            ),
            "median_abs_step_error": median_abs([t[view]["step"] for t in table.values()]),
        }
        for view in views
    }
    for view, s in summary.items():
        print(f"{view}: median |phase error| {s['median_abs_phase_error']:.0%}, step {s['median_abs_step_error']:.0%}")
    result = {"gpu": measured["gpu"], "views": views, "runs": table,
              "summary": summary}  # fmt: skip
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(result, indent=2))
    print(f"wrote {out}")
    return result


DRIVER_SHAPES = {  # the tiny model (its cost is not what this measures) on batches of growing size and length
    "32x(2-6 digits)": {},
    "256x(16-48 digits)": {**_task(256, 64, 16, 48), MICRO: 64},
    "128x(32-96 digits)": {**_task(128, 64, 32, 96), MICRO: 64},
}


def driver(out: Path) -> dict[str, Any]:
    """The builtin trainer's advantage phase and its step beyond the timed phases, measured on this machine's
    device and predicted by the model (terms.driver_features; GRPO with 4 responses a prompt)."""
    sys.path.insert(0, str(ROOT))
    from autotune.sim.hardware import cluster
    from autotune.sim.model import CostModel
    from autotune.sim.workload import PRESETS

    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for shape, keys in DRIVER_SHAPES.items():
            for estimator in ("gae", "grpo"):
                flat = {**keys, "algorithm.adv_estimator": estimator}
                if estimator == "grpo":
                    flat["actor_rollout_ref.rollout.n"] = 4
                steady = _steady_steps(flat, 5, Path(tmp) / f"{len(rows)}.jsonl")
                adv = statistics.median(r["timing_s/adv"] for r in steady)
                rest = statistics.median(
                    r["timing_s/step"] - sum(r.get(f"timing_s/{p}", 0.0) for p in PHASES) for r in steady
                )
                lengths = {
                    "prompt_tokens": statistics.median(r["prompt_length/mean"] for r in steady),
                    "response_tokens": statistics.median(r["response_length/mean"] for r in steady),
                    "response_max": statistics.median(r["response_length/max"] for r in steady),
                }
                full = {**_task(32, 16, 2, 6), "actor_rollout_ref.actor.ppo_micro_batch_size_per_gpu": 8, **flat}
                full["builtin.on_policy_bypass"] = True
                model = CostModel(cluster("H100", 1), PRESETS["Qwen2.5-0.5B"], **lengths)
                p = model.predict(full, {}, 1)
                predicted_rest = p.step - sum(p.phases.values())
                rows.append({"shape": shape, "estimator": estimator, "adv_s": adv, "rest_s": rest,
                             "predicted_adv_s": p.phases["adv"], "predicted_rest_s": predicted_rest, **lengths})  # fmt: skip
                print(f"{shape:20s} {estimator:5s} adv {adv * 1e3:7.2f} ms (predicted {p.phases['adv'] * 1e3:7.2f})  "
                      f"outside the phases {rest * 1e3:7.2f} ms (predicted {predicted_rest * 1e3:7.2f})", flush=True)  # fmt: skip
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps({"device": "cuda" if _cuda() else "cpu", "rows": rows}, indent=2))
    print(f"wrote {out}")
    return {"rows": rows}


def _steady_steps(keys: dict[str, Any], steps: int, metrics: Path) -> list[dict[str, float]]:
    """The metrics of each step after the first WARMUP of a `python -m trainer` run of `steps` steps with `keys`."""
    cmd = [sys.executable, "-m", "trainer", f"trainer.total_training_steps={steps}", f"trainer.metrics_file={metrics}"]
    subprocess.run([*cmd, *(f"{k}={v}" for k, v in keys.items())], cwd=ROOT, capture_output=True, check=True)
    return [json.loads(line)["metrics"] for line in metrics.read_text().splitlines()][WARMUP:]


LAYER_PASSES = ("update_actor", "update_critic", "old_log_prob", "ref", "values")


def layers(out: Path) -> dict[str, Any]:
    """FSDP2's fixed cost per decoder layer and micro-batch in the builtin trainer, on this machine's device: a
    model too narrow to compute anything (16 wide), 2 and 8 layers, 4 and 16 micro-batches of 64 responses; the
    slope per layer and micro-batch of each pass, beside the cost model's `micro_layers` weights (set from verl
    runs: 6 ms an update, 1.5 ms a forward-only pass)."""
    narrow = {**_shape(16, 32, 2, 2, 1), **_task(64, 64, 2, 6), "algorithm.use_kl_in_reward": True,
              "builtin.warm_start.steps": 0, "actor_rollout_ref.actor.fsdp_config.model_dtype": "bf16",
              "actor_rollout_ref.ref.fsdp_config.model_dtype": "bf16", "algorithm.adv_estimator": "gae"}  # fmt: skip
    medians: dict[tuple[int, int], dict[str, float]] = {}
    with tempfile.TemporaryDirectory() as tmp:
        for depth in (2, 8):
            for micro in (4, 16):
                keys = {**narrow, "builtin.model.num_hidden_layers": depth, MICRO: micro}
                steady = _steady_steps(keys, 6, Path(tmp) / f"{depth}-{micro}.jsonl")
                medians[(depth, micro)] = {
                    p: statistics.median(r[f"timing_s/{p}"] for r in steady) for p in LAYER_PASSES
                }
    model = _model_micro_layers()
    rows = []
    for micro in (4, 16):
        count = 64 // micro
        for p in LAYER_PASSES:
            slope = (medians[(8, micro)][p] - medians[(2, micro)][p]) / 6 / count
            rows.append({"micro_batches": count, "pass": p, "per_layer_micro_s": slope, "model_s": model.get(p)})
            beside = f"(model {model[p] * 1e3:.1f} ms)" if p in model else "(model: autotune not importable here)"
            print(
                f"{count:2d} micro-batches {p:14s} {slope * 1e3:6.2f} ms a layer and micro-batch {beside}", flush=True
            )
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps({"device": "cuda" if _cuda() else "cpu", "rows": rows}, indent=2))
    print(f"wrote {out}")
    return {"rows": rows}


def _model_micro_layers() -> dict[str, float]:
    """The cost model's `micro_layers` weight of each pass, or none where autotune's dependencies (optuna) are
    missing: a GPU node may have only the trainer's (the measurement does not need them)."""
    sys.path.insert(0, str(ROOT))
    try:
        from autotune.sim.model import default_weights
    except ImportError:
        return {}
    weights = default_weights()
    return {p: weights[p]["micro_layers"] for p in LAYER_PASSES}


def _cuda() -> bool:
    import torch

    return torch.cuda.is_available()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="mode", required=True)
    p = sub.add_parser("predict")
    p.add_argument("--gpu", default="H200")
    p.add_argument("--out", type=Path, default=None, help="default: benchmarks/builtin_gpu/predicted_h200_<rev>.json")
    p.add_argument("--note", default="", help="what this revision of the model changed")
    m = sub.add_parser("measure")
    m.add_argument("--out", type=Path, required=True)
    m.add_argument("--only", nargs="*", default=[], help="configuration names (default: all)")
    d = sub.add_parser("driver")
    d.add_argument("--out", type=Path, default=RESULTS / "builtin_driver.json")
    lay = sub.add_parser("layers")
    lay.add_argument("--out", type=Path, default=RESULTS / "builtin_layers.json")
    c = sub.add_parser("compare")
    c.add_argument("measured", type=Path)
    c.add_argument("--out", type=Path, default=RESULTS / "builtin_gpu.json")
    args = parser.parse_args()
    if args.mode == "predict":
        rev = subprocess.run(["git", "rev-parse", "HEAD"], cwd=ROOT, capture_output=True, text=True).stdout.strip()
        runs = predict_all(args.gpu)
        for run, p in runs.items():
            print(run, f"step {p['step']:.3f} s", json.dumps(p["phases"]))
        made = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
        out = args.out or DATA / FROZEN_GLOB.replace("*", rev[:7])
        out.parent.mkdir(parents=True, exist_ok=True)
        frozen = {"made": made, "note": args.note, "gpu": args.gpu, "revision": rev, "runs": runs}
        out.write_text(json.dumps(frozen, indent=2) + "\n")
        print(f"wrote {out}")
    elif args.mode == "measure":
        measure(args.out, args.only)
    elif args.mode == "driver":
        driver(args.out)
    elif args.mode == "layers":
        layers(args.out)
    else:
        compare(args.measured, args.out)


if __name__ == "__main__":
    os.environ.setdefault("PYTHONUNBUFFERED", "1")
    main()
