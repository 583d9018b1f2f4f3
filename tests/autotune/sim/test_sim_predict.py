"""One path from a space to a prediction: the CLI's simulated trial, `autotune.sim.predict` and the
published-runs benchmark give the same numbers, and a trial's config is resolved as verl resolves it."""

from __future__ import annotations

import json
import math
import re
from pathlib import Path
from typing import Any

import pytest

from tests.autotune.conftest import autotune, import_benchmark

pytest.importorskip("hydra")

TP = "actor_rollout_ref.rollout.tensor_model_parallel_size"
INTERPOLATED = (  # verl derives these from the actor's keys when a config does not set them
    "actor_rollout_ref.rollout.log_prob_use_dynamic_bsz",
    "actor_rollout_ref.ref.log_prob_use_dynamic_bsz",
    "actor_rollout_ref.rollout.log_prob_max_token_len_per_gpu",
    "actor_rollout_ref.ref.log_prob_max_token_len_per_gpu",
)


def _bench() -> Any:
    return import_benchmark("sim_published")


@pytest.fixture(scope="module")
def bench() -> Any:
    return _bench()


ROUNDS = (
    "RUNS",
    "NEW_RUNS",
    "THIRD_RUNS",
    "FOURTH_RUNS",
    "FIFTH_RUNS",
    "SIXTH_RUNS",
    "SEVENTH_RUNS",
    "NINTH_RUNS",
    "TENTH_RUNS",
)
"""The benchmark's lists of published runs, one round each."""


def cli_trial_phases(space_file: Path, runs: Path) -> dict[str, float]:
    """Trial 0 of `autotune run --space FILE --fidelity sim --trials 1`, through the function the command calls."""
    from autotune.space.loader import load_space
    from autotune.study.progress import SweepProgress
    from autotune.study.storage import StudyPaths
    from autotune.sweep.driver import SweepOptions, run_sweep

    space = load_space(str(space_file))
    paths = StudyPaths(runs, space.name)
    progress = SweepProgress(1, "perf/throughput")
    progress.quiet = True
    run_sweep(SweepOptions(space=space, paths=paths, n_trials=1, fidelity=("sim",)), progress)
    record = json.loads((paths.root / "trials" / "0000" / "prediction.json").read_text())
    return record["phases"]


@pytest.mark.parametrize("round_list", ROUNDS)  # one test per round, not the module's fixture: xdist spreads them
def test_the_cli_predicts_every_published_run_as_the_benchmark_does(round_list: str, tmp_path: Path) -> None:
    from autotune.sim.fit import published_prediction
    from autotune.sim.model import default_weights

    bench = _bench()
    import published_runs

    rounds = {name for name, value in vars(published_runs).items() if name.endswith("RUNS") and isinstance(value, list)}
    assert rounds == set(ROUNDS), "a round of published runs is missing from ROUNDS"
    for run in getattr(bench, round_list):
        space_file = tmp_path / f"{run['name']}.yaml"
        space_file.write_text(bench.space_text(run))
        cli = cli_trial_phases(space_file, tmp_path / "runs")
        obs, trial = bench.observation(run)
        assert cli == trial.prediction.phases, run["name"]
        # the benchmark's figures are sums of the CLI's phases (a log times some of them together)
        published = published_prediction(default_weights(), obs)
        for phase, seconds in published.items():
            assert seconds == pytest.approx(sum(cli[p] for p in obs.parts(phase)), rel=1e-12), (run["name"], phase)


def test_a_space_that_leaves_verl_to_derive_keys_predicts_what_verl_would_run(bench: Any, tmp_path: Path) -> None:
    """The issue's case: the 7B PPO run with only the actor's dynamic batching given. verl gives the
    rollout's and the ref's log-prob passes the actor's dynamic batching and token budget; resolved
    against verl's defaults instead, they ran one sequence per micro-batch (87.8 s for 6.6 s published)."""
    run = next(r for r in bench.RUNS if r["name"] == "h100-ppo-qwen2-7b-tp2")
    assert all(run["overrides"][k] in (True, 12000) for k in INTERPOLATED)
    terse = dict(run, overrides={k: v for k, v in run["overrides"].items() if k not in INTERPOLATED})
    space_file = tmp_path / "terse.yaml"
    space_file.write_text(bench.space_text(terse))
    proc = autotune(
        "run", "--space", str(space_file), "--fidelity", "sim", "--gpu", "H100", "--trials", "1",
        "--runs-dir", str(tmp_path / "runs"), "--report-dir", str(tmp_path / "report"),
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    cli = json.loads((tmp_path / "runs" / run["name"] / "trials" / "0000" / "prediction.json").read_text())["phases"]
    assert cli == bench.predicted(run).prediction.phases
    # independently: 1024 × 5 sequences of 93.9 + 183.3 tokens over 8 ranks, packed into 12000-token micro-batches
    trial = bench.predicted(terse)
    tokens_per_rank = 1024 * 5 * (93.892 + 183.347) / 8
    assert trial.prediction.workload.logprob_micro == pytest.approx(tokens_per_rank / 12000, abs=1.0)
    assert cli["old_log_prob"] < 2 * run["published"]["old_log_prob"]


def test_resolved_config_is_what_composing_verl_with_the_keys_gives() -> None:
    from omegaconf import OmegaConf

    from autotune.adapters.verl_config import compose, flatten_tree, overrides
    from autotune.adapters.verl_trainer import resolved_config, resolved_exactly

    keys = {
        "actor_rollout_ref.actor.use_dynamic_bsz": True,
        "actor_rollout_ref.actor.ppo_max_token_len_per_gpu": 12000,
        "actor_rollout_ref.ref.log_prob_use_dynamic_bsz": False,  # set: kept, though the actor's is true
        "actor_rollout_ref.actor.ppo_epochs": 2,
        "critic.ppo_max_token_len_per_gpu": 30000,
        "data.max_response_length": 2048,
    }
    ours = resolved_config(keys)
    assert (
        ours == resolved_exactly(keys) == flatten_tree(OmegaConf.to_container(compose(overrides(keys)), resolve=True))
    )
    assert ours["actor_rollout_ref.rollout.log_prob_use_dynamic_bsz"] is True
    assert ours["actor_rollout_ref.ref.log_prob_use_dynamic_bsz"] is False
    assert ours["actor_rollout_ref.rollout.log_prob_max_token_len_per_gpu"] == 12000
    assert ours["critic.use_dynamic_bsz"] is True
    assert ours["critic.ppo_epochs"] == 2
    assert ours["critic.forward_max_token_len_per_gpu"] == 30000
    assert ours["actor_rollout_ref.rollout.response_length"] == 2048
    assert resolved_config({})["actor_rollout_ref.rollout.log_prob_use_dynamic_bsz"] is False  # the cache is unchanged


def test_resolving_once_per_setting_of_the_keys_interpolations_read_is_exact(bench: Any) -> None:
    """`resolved_config` reuses derived values across configs that agree on every key an interpolation reads;
    on the published runs' configs, with and without the derived keys, and on variations of one of them in
    keys interpolations read and keys they do not, it equals resolving each config in full."""
    from autotune.adapters.verl_trainer import resolved_config, resolved_exactly

    configs = []
    for run in bench.RUNS:
        configs.append(dict(run["overrides"]))
        configs.append({k: v for k, v in run["overrides"].items() if k not in INTERPOLATED})
    base = {k: v for k, v in bench.RUNS[0]["overrides"].items() if k not in INTERPOLATED}
    for tp in (1, 2, 4):  # not read by any interpolation: one resolution serves all three
        configs.append({**base, TP: tp})
    for budget in (8000, 16000):  # read by the log-prob budgets' interpolations
        configs.append({**base, "actor_rollout_ref.actor.ppo_max_token_len_per_gpu": budget})
    configs.append({**base, "actor_rollout_ref.actor.use_dynamic_bsz": False, "critic.ppo_micro_batch_size": 64})
    for keys in configs:
        assert resolved_config(keys) == resolved_exactly(keys)
    assert (
        resolved_config({**base, "actor_rollout_ref.actor.ppo_max_token_len_per_gpu": 8000})[
            "actor_rollout_ref.ref.log_prob_max_token_len_per_gpu"
        ]
        == 8000
    )


def test_predict_space_is_the_sweeps_trial(tmp_path: Path) -> None:
    """`autotune.sim.predict.predict_space` on a shipped space equals the simulated sweep's baseline trial."""
    from autotune.sim.predict import predict_space
    from tests.autotune.conftest import simulated_study

    space, paths = simulated_study(tmp_path, "one", 1)
    record = json.loads((paths.root / "trials" / "0000" / "prediction.json").read_text())
    assert predict_space(space).prediction.phases == record["phases"]
    assert predict_space("fsdp3d-8gpu", gpu="H20").cost.cluster.device.name == "H20"


def test_a_trial_is_predicted_on_the_ranks_verl_starts_not_the_spaces_world_size(tmp_path: Path) -> None:
    """verl starts `trainer.n_gpus_per_node` x `trainer.nnodes` ranks; a simulated trial was predicted on
    `trial.world_size` whatever they were (left since audit 36): a job of 2 nodes of 8 under `world_size: 8` was
    predicted on 8 GPUs. Its trials (and `predict_space`) are now predicted as the same job under `world_size: 16`,
    on 16 GPUs in 2 nodes. (A simulated sweep keeps the node count at its baseline: the cost model credits no knob
    with it.)"""
    from autotune.sim.predict import predict_space

    text = Path("search_spaces/fsdp3d-8gpu.yaml").read_text()
    assert "  trainer.nnodes: 1\n" in text and "  world_size: 8\n" in text
    head = text[: text.index("\nparams:\n")].replace("  trainer.nnodes: 1\n", "")  # the job, its trial settings
    head = head.replace("\nbase:", "\nbase:\n  actor_rollout_ref.actor.ppo_micro_batch_size_per_gpu: 8", 1)

    def space(name: str, world: int) -> Path:
        path = tmp_path / f"{name}.yaml"
        path.write_text(
            re.sub(r"(?m)^name: .*$", f"name: {name}", head).replace("  world_size: 8\n", f"  world_size: {world}\n")
            + "\nparams:\n  trainer.nnodes: {type: categorical, choices: [1, 2]}\nbaseline:\n  trainer.nnodes: 2\n"
        )
        return path

    eight, sixteen = space("eight", 8), space("sixteen", 16)
    runs = tmp_path / "runs"
    proc = autotune("run", "--space", str(eight), "--fidelity", "sim", "--trials", "1", "--runs-dir", str(runs),
                    "--confirm", "0")  # fmt: skip
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-2000:]
    record = json.loads((runs / "eight" / "trials" / "0000" / "prediction.json").read_text())
    expected = predict_space(str(sixteen))  # its baseline: 2 nodes of 8, world 16
    assert expected.world == 16 and (expected.cost.cluster.nodes, expected.cost.cluster.gpus_per_node) == (2, 8)
    assert record["gpus"] == 16 and record["phases"] == pytest.approx(expected.prediction.phases, rel=1e-12), record
    assert predict_space(str(eight)).prediction.phases == pytest.approx(expected.prediction.phases, rel=1e-12)


def test_sim_vllm_version_is_checked() -> None:
    from autotune.space.sim_section import parse_sim_section

    assert parse_sim_section({"vllm_version": "0.5.4"}).vllm_version == "0.5.4"
    with pytest.raises(ValueError, match=r"`sim.vllm_version` must be a quoted version like '0.5.4'.*got 0.5"):
        parse_sim_section({"vllm_version": 0.5})
    assert parse_sim_section({"verl_version": "0.5.0"}).verl_version == "0.5.0"
    with pytest.raises(ValueError, match=r"`sim.verl_version` must be a quoted version like '0.5.0'.*got 0.7"):
        parse_sim_section({"verl_version": 0.7})


@pytest.mark.slow  # ~19 s: every published run predicted twice over, and four fits
def test_the_split_is_reported_both_ways_with_the_frozen_model_reproduced(bench: Any) -> None:
    """The benchmark's generalisation figures: constants set or fitted on the 8 runs predicting the unseen ones, and
    weights fitted on the unseen ones predicting the 8; `frozen_model()` gives the model as the constants were frozen
    (one NIC's rate across nodes), and puts today's back on exit."""
    from autotune.sim.hardware import cluster

    two_nodes = cluster("H100", 16)
    now = two_nodes.busbw(16)
    with bench.frozen_model():
        frozen = bench.generalisation(0.3, bench.RUNS, bench.NEW_RUNS)
        assert two_nodes.busbw(16) == pytest.approx(0.9 * 50e9)
    assert two_nodes.busbw(16) == now > 0.9 * 50e9
    result = bench.generalisation(0.3, bench.RUNS, bench.NEW_RUNS)
    names = {r["name"] for r in bench.NEW_RUNS}
    for split in (frozen, result):
        assert set(split["old_to_new_uncalibrated"]["errors"]) == names
        assert set(split["old_to_new_calibrated"]["errors"]) == names
        assert set(split["new_to_old_calibrated"]["errors"]) == {r["name"] for r in bench.RUNS}
        assert split["old_uncalibrated"]["timings"] == sum(
            len([p for p in r["published"] if p in bench.PHASES]) for r in bench.RUNS
        )
    # the multi-node run's FSDP collectives are slower at one NIC's rate: the frozen model predicts its updates slower
    run = "h100x16-ppo-qwen2.5-7b-2nodes"
    assert run in names
    assert (
        frozen["old_to_new_uncalibrated"]["errors"][run]["update_actor"]
        > (result["old_to_new_uncalibrated"]["errors"][run]["update_actor"])
    )
    # the 8 single-node runs do not cross nodes: their errors are the same under both models but for the critic's
    # phases, which the frozen model counts with the actor's N (slower), the H20 run, whose GEMMs the frozen
    # model runs at 85% of the H20's peak (slower), and generation where the longest response is guessed differently
    # (the frozen model's Gaussian extreme against the geometric one of today); none of the 8 is of verl 0.7+, so no
    # fixed call cost differs
    critic = {"values", "update_critic"}
    h20 = {r["name"] for r in bench.RUNS if r["gpu"] == "H20"}
    assert len(h20) == 1
    longest_now = {r["name"]: bench.predicted(r).prediction.workload.longest_response for r in bench.RUNS}
    with bench.frozen_model():
        longest_then = {r["name"]: bench.predicted(r).prediction.workload.longest_response for r in bench.RUNS}
    guessed_apart = {name for name in longest_now if longest_now[name] != longest_then[name]}
    assert 0 < len(guessed_apart) < len(bench.RUNS)
    for name, now_errors in result["old_uncalibrated"]["errors"].items():
        then = frozen["old_uncalibrated"]["errors"][name]
        if name in h20:
            assert all(then[p] > now_errors[p] for p in now_errors)
            continue
        apart = critic | ({"gen"} if name in guessed_apart else set())
        assert {p: e for p, e in then.items() if p not in apart} == {
            p: e for p, e in now_errors.items() if p not in apart
        }
        for phase in critic & set(now_errors):
            assert then[phase] > now_errors[phase]
        if name in guessed_apart:
            assert (then["gen"] > now_errors["gen"]) == (longest_then[name] > longest_now[name]), name


def test_the_third_frozen_model_takes_the_call_cost_and_the_h20_rate_back_out(bench: Any) -> None:
    """`third_frozen_model()` restores the model the third round was frozen with: a verl 0.7+ run's training phases
    lose exactly the fixed call cost (0.6 s a forward pass, 2.3 s an update), the H20's GEMMs go back to 85% of its
    peak, and both come back on exit."""
    from autotune.sim.fit import published_prediction
    from autotune.sim.model import default_weights

    run = next(r for r in bench.THIRD_RUNS if r["gpu"] == "A800")
    assert run["verl"] == "0.7.1" and run["vllm"] == "0.19.1"
    now = published_prediction(default_weights(), bench.observation(run)[0])
    with bench.fourth_frozen_model():  # vLLM's CPU step added to the GPU's again: only generation differs
        fourth = published_prediction(default_weights(), bench.observation(run)[0])
    with bench.third_frozen_model():
        then = published_prediction(default_weights(), bench.observation(run)[0])
    assert fourth["gen"] > now["gen"] and {p: s for p, s in fourth.items() if p != "gen"} == {
        p: s for p, s in now.items() if p != "gen"
    }
    assert fourth["gen"] == then["gen"]
    for phase in ("old_log_prob", "ref"):
        assert now[phase] - then[phase] == pytest.approx(0.6)
    assert now["update_actor"] - then["update_actor"] == pytest.approx(2.3)
    h20 = next(r for r in bench.RUNS if r["gpu"] == "H20")
    with bench.third_frozen_model():
        slow = published_prediction(default_weights(), bench.observation(h20)[0])
    fast = published_prediction(default_weights(), bench.observation(h20)[0])
    assert all(slow[p] > fast[p] for p in fast)
    assert bench.observation(run)[0].features["ref"]["calls"] == 1.0


def test_the_fifth_frozen_model_takes_the_overlap_over_the_whole_rollout_again(bench: Any) -> None:
    """`fifth_frozen_model()` restores the model the fifth round was frozen with: vLLM 0.14+'s overlap over the whole
    rollout, so the 64-response 1.5B run (its longest response 5000 tokens past the mean) hides more of the engine step
    and generates faster; its training phases and the B200 run (vLLM 0.11, no overlap) are unchanged."""
    from autotune.sim.fit import published_prediction
    from autotune.sim.model import default_weights

    tail_bound = next(r for r in bench.FIFTH_RUNS if r["name"].endswith("b8n8"))
    old_vllm = next(r for r in bench.FIFTH_RUNS if r["gpu"] == "B200")
    now = [published_prediction(default_weights(), bench.observation(r)[0]) for r in (tail_bound, old_vllm)]
    with bench.fifth_frozen_model():
        then = [published_prediction(default_weights(), bench.observation(r)[0]) for r in (tail_bound, old_vllm)]
    assert then[0]["gen"] < 0.95 * now[0]["gen"]
    assert {p: s for p, s in then[0].items() if p != "gen"} == {p: s for p, s in now[0].items() if p != "gen"}
    assert then[1] == now[1]
    assert published_prediction(default_weights(), bench.observation(tail_bound)[0]) == now[0]  # restored on exit


def test_the_reference_pass_is_micro_batched_by_its_own_keys(bench: Any) -> None:
    """verl gives the old log-prob pass (the rollout's log_prob_* keys) and the reference pass (the ref's) their own
    micro-batching, each defaulting to the actor's dynamic batching. The sixth round's notebook run computes old
    log-probs one sequence at a time and the reference four at a time; `sixth_frozen_model()` restores the single
    count the model had before."""
    from autotune.sim.fit import published_prediction
    from autotune.sim.model import default_weights
    from autotune.sim.workload import workload

    flat = {"data.train_batch_size": 256, "data.max_prompt_length": 512, "data.max_response_length": 256,
            "actor_rollout_ref.actor.ppo_mini_batch_size": 64,
            "actor_rollout_ref.rollout.log_prob_micro_batch_size_per_gpu": 1,
            "actor_rollout_ref.ref.log_prob_micro_batch_size_per_gpu": 4}  # fmt: skip
    w = workload(flat, {}, 1, prompt_tokens=100, response_tokens=200)
    assert (w.logprob_micro, w.ref_micro_batches) == (256, 64)  # by hand: 256 sequences on one rank, 1 or 4 at a time
    # the actor's dynamic batching reaches a pass whose own key is unset: 256 × 300 tokens in 12000-token micro-batches
    dynamic = {**flat, "actor_rollout_ref.actor.use_dynamic_bsz": True,
               "actor_rollout_ref.actor.ppo_max_token_len_per_gpu": 12000,
               "actor_rollout_ref.rollout.log_prob_use_dynamic_bsz": False, "critic.use_dynamic_bsz": False}  # fmt: skip
    w = workload(dynamic, {}, 1, prompt_tokens=100, response_tokens=200)
    assert (w.logprob_micro, w.ref_micro_batches) == (256, math.ceil(256 * 300 / 12000))
    run = next(r for r in bench.SIXTH_RUNS if r["name"] == "l40s-ppo-qwen2.5-0.5b-1gpu-notebook")
    now = published_prediction(default_weights(), bench.observation(run)[0])
    with bench.sixth_frozen_model():
        then = published_prediction(default_weights(), bench.observation(run)[0])
    assert then["ref"] > 2 * now["ref"] and {p: s for p, s in then.items() if p != "ref"} == {
        p: s for p, s in now.items() if p != "ref"
    }


def test_the_sweep_states_where_the_longest_response_came_from(bench):
    """The note `autotune run --fidelity sim` prints and the report shows: a measured longest response is used as
    given; without it the longest is the geometric guess, said so."""
    from autotune.adapters import get_adapter
    from autotune.sim.predict import sim_fidelity

    run = bench.RUNS[1]  # PPO of Qwen2-7B on 8 H100: 512 prompts × n 1, mean response 191.5, measured longest 934
    space = bench.published_space(bench.with_measured_longest(run))
    note = sim_fidelity(space).lengths_note(space, get_adapter(space.trainer, space.command))
    assert "the longest of 512 responses a step 934 (sim.response_max)" in note
    space = bench.published_space(run)
    note = sim_fidelity(space).lengths_note(space, get_adapter(space.trainer, space.command))
    # by hand: 191.5 · H_512 = 191.5 · 6.8165 = 1,306 tokens, past the 1,024-token limit
    assert "the longest of 512 responses a step 1,024 (the length limit) (a guess: geometric lengths" in note


def test_an_uncalibrated_verl_sweep_says_what_one_run_of_calibration_did(bench, tmp_path):
    """A verl job predicted with the shipped weights gets the note (with the command); a calibrated one, and a
    built-in trainer's sweep (calibrated on its own trials, not on verl logs), do not."""
    from autotune.sim.accuracy import OWN_SETUP
    from autotune.sim.predict import sim_fidelity
    from autotune.space.loader import load_space

    space = bench.published_space(bench.RUNS[1])
    note = sim_fidelity(space).weights_note(space)
    assert note is not None and "autotune calibrate --verl-log RUN.log" in note
    assert f"a median {OWN_SETUP.calibrated:.0%} error, against {OWN_SETUP.uncalibrated:.0%} uncalibrated" in note
    calibration = {"weights": {"gen": {"step_overhead_s": 1.1}}, "source": "a test calibration"}
    assert sim_fidelity(space, calibration=calibration).weights_note(space) is None
    builtin = load_space("fsdp3d")
    assert builtin.trainer == "builtin" and sim_fidelity(builtin).weights_note(builtin) is None


def test_calibration_from_a_log_sees_the_run_as_a_simulated_trial_of_its_space(bench, tmp_path):
    """One path for calibration too: a published run written as verl would log it (its overrides as the run's
    config, step lines with its timings and lengths, vLLM's start-up line) gets, in `autotune calibrate --verl-log`,
    the features `autotune run --space <its space> --fidelity sim` predicts it with."""
    from autotune.adapters import get_adapter
    from autotune.scaffold.run_config import read_run_config
    from autotune.sim.verl_log import log_observation, logged_run

    verl = get_adapter("verl")
    names = ("h100-ppo-qwen2-7b-tp1-offload", "h20x8-grpo-qwen2.5-3b-async-reward-baseline",
             "a100x4-grpo-qwen2.5-0.5b-gsm8k-b8n8", "h20x64-grpo-qwen2.5-math-7b-8k-mid")  # fmt: skip
    runs = {r["name"]: r for r in bench.RUNS + bench.NEW_RUNS + bench.THIRD_RUNS + bench.SEVENTH_RUNS}
    for name in names:
        run = bench.with_measured_longest(runs[name])
        old = "update_weights" in run.get("gen_includes", ())  # verl before 0.7: the sync timed inside gen
        assert old == (tuple(int(x) for x in run["verl"].split(".")[:2]) < (0, 7)), (
            name
        )  # the log says which, as a real one would
        timings = {p: s for p, s in run["published"].items() if p in bench.PHASES}
        if not old:
            timings["update_weights"] = 2.0
        lengths = {"prompt_length/mean": run["prompt_tokens"], "response_length/mean": run["response_tokens"],
                   "response_length/max": run["response_max"]}  # fmt: skip
        line = " - ".join(f"timing_s/{p}:{s}" for p, s in timings.items())
        line += " - " + " - ".join(f"{k}:{v}" for k, v in lengths.items())
        log = tmp_path / f"{name}.log"
        log.write_text(f"Initializing an LLM engine (v{run['vllm']}) with config: ...\n"
                       + "".join(f"step:{s} - {line}\n" for s in (1, 2, 3)))  # fmt: skip
        space = bench.published_space(run)
        config = tmp_path / f"{name}.sh"
        exports = "".join(f"export {k}={v}\n" for k, v in run.get("env", {}).items())
        keys = {**space.base, **space.baseline}
        config.write_text(exports + "python3 -m verl.trainer.main_ppo " + " ".join(f"{k}={v}" for k, v in keys.items()))
        logged = logged_run(log, read_run_config(config), lambda k: verl.resolved([], k))  # as calibrate reads it
        from_log, _ = log_observation(logged, run["gpu"])
        trial = bench.predicted(run)
        simulated = trial.features()
        assert set(from_log.features) == set(simulated), name
        for phase, features in simulated.items():
            for feature, value in features.items():
                assert from_log.features[phase][feature] == pytest.approx(value, rel=1e-9, abs=1e-12), (
                    name,
                    phase,
                    feature,
                )


def test_predict_refuses_what_a_sweep_would_not_predict(tmp_path: Path) -> None:
    """`autotune.predict` predicted rollout TP 3 on 8 GPUs (outside the param's choices), ignored an unknown key and
    failed on a string with a bare `int()` error: a simulated sweep never predicts such a trial (it is never sampled,
    or recorded invalid), so the API refuses it, naming the key and the fix."""
    from autotune.sim.predict import predict_space

    tp = "actor_rollout_ref.rollout.tensor_model_parallel_size"
    for params, said in (
        ({tp: 3}, rf"`{tp}` = 3 is outside the param's choices \[1, 2, 4\]"),
        ({tp: "two"}, rf"`{tp}` = 'two' is outside the param's choices"),
        (
            {"actor_rollout_ref.rollout.tensor_parallel_size": 2},
            rf"not a param of space `fsdp3d-8gpu`.*did you mean `{tp}`",
        ),
        ({"actor_token_mult": 3.0}, r"`actor_token_mult` applies only when actor_rollout_ref.actor.use_dynamic_bsz"),
        (  # off the step of 0.5 a sweep samples on (it was predicted)
            {"actor_rollout_ref.actor.use_dynamic_bsz": True, "actor_token_mult": 3.25, "logprob_token_mult": 4.0},
            r"`actor_token_mult` = 3.25 is off the param's step 0.5: the sweep samples 2, 2.5, 3, \.\.\.",
        ),
    ):
        with pytest.raises(ValueError, match=said):
            predict_space("fsdp3d-8gpu", params)
    # a partial setting: the other params at their baseline values, as a sweep's trial has them all
    assert predict_space("fsdp3d-8gpu", {tp: 2}).prediction.phases == predict_space("fsdp3d-8gpu").prediction.phases
    assert predict_space("fsdp3d-8gpu", {tp: 4}).prediction.phases != predict_space("fsdp3d-8gpu").prediction.phases
    text = (
        Path("search_spaces/fsdp3d-8gpu.yaml")
        .read_text()
        .replace("constraints:\n", f"constraints:\n  - at_most: [{tp}, 2]\n", 1)
    )
    (tmp_path / "capped.yaml").write_text(text)
    with pytest.raises(ValueError, match=rf"constraint violated.*{re.escape(tp)}"):
        predict_space(str(tmp_path / "capped.yaml"), {tp: 4})
    with pytest.raises(ValueError, match=r"calibration: not an autotune calibration: `weights.gen.bogus`: no such"):
        predict_space("fsdp3d-8gpu", calibration={"weights": {"gen": {"bogus": 1.0}}})  # ignored before
    # the file's reader, `autotune.sim.load_calibration`, gives what the API takes: the same prediction as its JSON
    from autotune.sim import Calibration, load_calibration

    data = {"weights": {"gen": {"decode_weights_s": 1.5}}, "source": "by hand"}
    (tmp_path / "cal.json").write_text(json.dumps(data))
    read = load_calibration(tmp_path / "cal.json")
    assert isinstance(read, Calibration) and read.raw == data
    assert (
        predict_space("fsdp3d-8gpu", calibration=read).prediction.phases
        == (predict_space("fsdp3d-8gpu", calibration=data).prediction.phases)
        != predict_space("fsdp3d-8gpu").prediction.phases
    )


def test_a_rollout_tp_vllm_refuses_for_the_models_heads_is_an_invalid_trial(tmp_path: Path) -> None:
    """Qwen2.5-7B has 28 attention heads: vLLM refuses rollout TP 8 at start-up ("Total number of attention heads
    (28) must be divisible by tensor parallel size (8)"), yet the cost model predicted it like any other and the
    shipped 8-GPU spaces offered it (audit 21 F9). The API refuses it; a simulated sweep records it invalid."""
    from autotune.sim.predict import predict_space

    tp = "actor_rollout_ref.rollout.tensor_model_parallel_size"
    text = Path("search_spaces/fsdp3d-8gpu.yaml").read_text()
    assert "28 attention heads" in text and "choices: [1, 2, 4]}" in text
    offering = text.replace("choices: [1, 2, 4]}", "choices: [2, 8]}")
    space = tmp_path / "offering.yaml"
    space.write_text(offering)
    said = r"vLLM refuses rollout tensor_model_parallel_size=8: the model's 28 attention heads do not divide by it"
    with pytest.raises(ValueError, match=said):
        predict_space(str(space), {tp: 8})
    assert predict_space(str(space), {tp: 2}).prediction.step > 0
    assert predict_space("fsdp3d-64gpu", {tp: 8}).prediction.step > 0  # Qwen2.5-72B: 64 heads
    import yaml

    lone = yaml.safe_load(offering)  # TP the one knob, walked by a grid after the baseline (TP 2)
    held = {k: v for k, v in lone["baseline"].items() if k != tp and v is not None and not k.startswith("env.")}
    lone["base"].update(held)  # the other knobs' baseline values, as keys of the job
    lone.update(params={tp: {"type": "categorical", "choices": [2, 8]}}, baseline={tp: 2}, derived={})
    lone.update(constraints=[{"divides": [tp, "trial.world_size"]}], sampler={"name": "grid", "seed": 0})
    lone.pop("quality", None)
    (tmp_path / "lone.yaml").write_text(yaml.safe_dump(lone))
    proc = autotune(
        "run", "--space", str(tmp_path / "lone.yaml"), "--fidelity", "sim", "--trials", "3", "--study", "lone",
        "--runs-dir", str(tmp_path / "runs"), "--report-dir", str(tmp_path / "report"),
    )  # fmt: skip
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-2000:]
    import autotune as api

    frame = api.open_study("lone", runs_dir=tmp_path / "runs").trials()
    rows = {int(row[f"param:{tp}"]): row for _, row in frame.iterrows()}
    assert rows[8]["reason"] == "invalid" and "28 attention heads" in rows[8]["detail"], dict(rows[8])
    assert rows[2]["outcome"] == "complete" and set(rows) == {2, 8}, frame


def test_the_two_8gpu_spaces_of_one_job_predict_it_on_the_same_data() -> None:
    """verl-vllm-8gpu is fsdp3d-8gpu's job plus vLLM's knobs, but had no `sim:` lengths: the cost model took 0.8 and
    0.5 of the length limits for the same GSM8K data and predicted the job's baseline 1.9x apart (audit 21 F21)."""
    from autotune.space.loader import load_space

    fsdp, vllm = load_space("fsdp3d-8gpu"), load_space("verl-vllm-8gpu")
    differ = {k for k in set(fsdp.base) | set(vllm.base) if fsdp.base.get(k) != vllm.base.get(k)}
    assert differ == {"trainer.experiment_name"}, differ
    assert vllm.sim is not None and fsdp.sim is not None and vllm.sim.lengths() == fsdp.sim.lengths()
    assert vllm.sim.gpu == fsdp.sim.gpu


def test_a_simulated_winner_whose_changes_the_model_credits_under_its_floor_ships_the_baseline_and_says_so(
    tmp_path: Path,
) -> None:
    """Resharding after forward off is predicted ×1.004 on the 8-GPU job: under the 1% floor, so the baseline's
    configuration ships. `best` read "winner: trial #1 (predicted, 1.00x the baseline)" and the report showed the
    baseline's figures as #1's, as if a trial won (audit 21 F12); now the reason is said where the speedup is."""
    import yaml

    reshard = "actor_rollout_ref.actor.fsdp_config.reshard_after_forward"
    space = yaml.safe_load(Path("search_spaces/fsdp3d-8gpu.yaml").read_text())
    held = {k: v for k, v in space["baseline"].items() if k != reshard and v is not None and not k.startswith("env.")}
    space["base"].update(held)
    space.update(params={reshard: {"type": "bool"}}, baseline={reshard: True}, derived={}, constraints=[])
    space.update(name="reshard", sampler={"name": "grid", "seed": 0})
    (tmp_path / "reshard.yaml").write_text(yaml.safe_dump(space))
    runs = ["--runs-dir", str(tmp_path / "runs")]
    proc = autotune("run", "--space", str(tmp_path / "reshard.yaml"), "--fidelity", "sim", "--trials", "3", *runs,
                    "--report-dir", str(tmp_path / "report"))  # fmt: skip
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-2000:]
    best = autotune("best", "reshard", *runs)
    why = "the cost model credits no change with 1%: the baseline's configuration ships"
    assert f"1.00× the baseline ({why})" in best.stdout, best.stdout
    assert "predicted memory 1.00× the baseline" in best.stdout, best.stdout  # "1x" beside "×1.004" (audit 21 F17)
    export = autotune("export", "reshard", "-o", str(tmp_path / "best.yaml"), "--predicted", *runs)
    assert export.returncode == 0 and why in (tmp_path / "best.yaml").read_text(), export.stderr
    overrides = (tmp_path / "best.overrides").read_text()
    assert f"{reshard}=true" in overrides  # the baseline's value
    # `~` as the home where the job will run, not this machine's (predicted on a laptop, audit 21 F11)
    assert "data.train_files='${oc.env:HOME}/data/gsm8k/train.parquet'" in overrides, overrides
    assert "train_files: ${oc.env:HOME}/data/gsm8k/train.parquet" in (tmp_path / "best.yaml").read_text()


@pytest.mark.parametrize("estimator", ["gae", "grpo"])
@pytest.mark.parametrize("enable", [None, True, False])
def test_a_critic_is_predicted_where_verls_need_critic_runs_one(estimator: str, enable: bool | None) -> None:
    """verl trains a critic when `critic.enable` says so, else for a GAE advantage (`need_critic`); the cost model
    read the estimator only, so a GAE run with `critic.enable=False` was predicted with a critic's two passes, and
    a GRPO run with `critic.enable=True` without them. Expected from verl's own function."""
    from omegaconf import OmegaConf
    from verl.trainer.ppo.utils import need_critic

    from autotune.sim.workload import has_critic, workload

    expected = need_critic(OmegaConf.create({"critic": {"enable": enable}, "algorithm": {"adv_estimator": estimator}}))
    flat = {"data.train_batch_size": 64, "data.max_prompt_length": 512, "data.max_response_length": 256,
            "actor_rollout_ref.actor.ppo_mini_batch_size": 16, "algorithm.adv_estimator": estimator,
            "critic.enable": enable}  # fmt: skip
    assert has_critic(flat) is expected
    assert workload(flat, {}, 1).has_critic is expected
    written = {**flat, "critic.enable": "null" if enable is None else str(enable)}  # as a run script's text
    assert has_critic(written) is expected


def test_the_calibrated_h100_check_predicts_the_8gpu_space_at_every_tp_it_offers(bench: Any, tmp_path: Path) -> None:
    """The benchmark asked the space for rollout TP 8 after the space stopped offering it (28 heads) and ended
    there, before its ranking, later rounds and JSON (audit 23 F1): nothing ran this part of it."""
    from autotune.space.loader import load_space

    observations = [bench.observation(run)[0] for run in bench.RUNS]
    result = bench.calibrated_h100_check(observations, 0.3, tmp_path / "calibration_h100.json")
    offered = next(p.choices for p in load_space("fsdp3d-8gpu").params if p.name == TP)
    assert sorted(k for k in result if k.startswith("7B_")) == sorted(f"7B_tp{tp}" for tp in offered)
    assert all("tokens/s/GPU" in result[f"7B_tp{tp}"] for tp in offered), result  # the 7B job fits at every TP
    assert "tokens/s/GPU" not in result["72B_tp1"], result  # a 72B actor at TP 1 does not fit
    assert json.loads((tmp_path / "calibration_h100.json").read_text())["gpu"] == "H100"


def test_a_simulated_sweep_whose_baseline_is_predicted_out_of_memory_names_a_winner_without_a_speedup(
    tmp_path: Path,
) -> None:
    """verl's geo3k multi-turn example (micro-batch 32 of 4k-token sequences) is predicted out of memory at its own
    settings: its simulated sweep crashed after its trials on a division by the baseline's value, 0 (`run`, `best`,
    `export` and `report` each with a ZeroDivisionError: audit 39 F6). Here the baseline's 95% vLLM reservation on
    top of the 7B's resident state is over the H100's 80 GiB; 50% fits."""
    import optuna
    import yaml

    from autotune.report.data import summary
    from autotune.report.knob_plots import minimal_winner_section
    from autotune.report.page import Page
    from autotune.space.loader import load_space
    from autotune.study.progress import SweepProgress
    from autotune.study.results import find_winner
    from autotune.study.storage import StudyPaths, open_storage
    from autotune.sweep.driver import SweepOptions, run_sweep
    from autotune.trial.record import TrialRecord

    util = "actor_rollout_ref.rollout.gpu_memory_utilization"
    space = yaml.safe_load(Path("search_spaces/fsdp3d-8gpu.yaml").read_text())
    held = {k: v for k, v in space["baseline"].items() if k != util and v is not None and not k.startswith("env.")}
    space["base"].update(held)
    space.update(params={util: {"type": "categorical", "choices": [0.95, 0.5]}}, baseline={util: 0.95}, derived={})
    space.update(name="oombase", sampler={"name": "grid", "seed": 0}, constraints=[])
    (tmp_path / "oombase.yaml").write_text(yaml.safe_dump(space))
    loaded = load_space(str(tmp_path / "oombase.yaml"), device="cuda")
    paths = StudyPaths(tmp_path / "runs", "oombase")
    progress = SweepProgress(3, "perf/throughput")
    progress.quiet = True
    run_sweep(SweepOptions(space=loaded, paths=paths, n_trials=3, fidelity=("sim",)), progress)
    study = optuna.load_study(study_name="oombase", storage=open_storage(f"sqlite:///{paths.db}"))
    assert TrialRecord.of(study.trials[0]).reason == "oom", study.trials[0].user_attrs  # the baseline, 95%
    winner = find_winner(study, paths, loaded)
    assert winner.params[util] == 0.5 and winner.speedup is None and winner.credited is not None
    assert winner.credited.lines()[-1] == (
        "the baseline's own configuration is predicted not to run (see `autotune trials`): no speedup over it; a "
        "change without which what ships does not run either is `needed`"
    )
    assert winner.credited.changes[0].without.startswith("oom: predicted peak ")  # the change it cannot do without
    assert math.isnan(summary(study, paths, loaded).speedup)
    page = Page()
    minimal_winner_section(page, __import__("pandas").DataFrame(), winner.credited, "oombase")
    assert "The baseline's own configuration is predicted not to run: no speedup over it." in page.sections[0]
