"""Export of a study's winner: which trial it is (confirmed, else the sweep's best run), what its header
says, what it leaves out, and the refusal when there is none. On a cost-model study standing in for a GPU sweep (seconds)."""

from __future__ import annotations

import dataclasses
import math
import re

import pytest
import yaml

from autotune.adapters import get_adapter
from autotune.adapters.verl_config import ENV_PREFIX
from autotune.export import ExportError, export, export_settings
from autotune.export.winner import NOT_EXPORTED
from autotune.study.confirmation_result import Confirmation, ConfirmedCandidate
from autotune.study.storage import StudyInfo, StudyPaths, load_study, storage_url, stored_space
from autotune.sweep.backends.lifecycle import create_or_load
from tests.autotune.conftest import autotune, simulated_study
from verl_keys.keys import to_flat_dict


@pytest.fixture(scope="module")
def faked_gpu_sweep(tmp_path_factory):
    """A finished 8-trial sweep of the 8-GPU space, as if its trials had run on GPUs: the cost model
    predicts them (seconds, and no GPU here) and the study is then marked a real sweep, whose winner
    exports as measured (a simulated study's is refused without --predicted: test_sim). (its folder,
    the space that ran)."""
    runs = tmp_path_factory.mktemp("export") / "runs"
    _, paths = simulated_study(runs, "exp", 8)
    StudyInfo(fidelity="real").save(load_study(paths), "fidelity")
    return paths, stored_space(paths)


def complete(paths: StudyPaths) -> list:
    trials = [t for t in load_study(paths).get_trials() if t.user_attrs.get("outcome") == "complete"]
    return sorted(trials, key=lambda t: -t.values[0])


def row(number: int, params: dict, speedups: list[float], baseline: bool = False) -> ConfirmedCandidate:
    return ConfirmedCandidate(
        number=number,
        params=params,
        values=[100.0 * s for s in speedups],
        feasible_rounds=len(speedups),
        rounds=len(speedups),
        mean=100.0 * sum(speedups) / len(speedups),
        speedup_mean=sum(speedups) / len(speedups),
        speedup_min=min(speedups),
        speedup_max=max(speedups),
        is_baseline=baseline,
    )


def test_without_confirmation_the_sweeps_best_run_is_exported(faked_gpu_sweep, tmp_path):
    paths, space = faked_gpu_sweep
    best = complete(paths)[0]
    winner, yaml_path, overrides_path = export(
        load_study(paths), paths, space, get_adapter(space.trainer), tmp_path / "best.yaml"
    )
    assert (winner.number, winner.source) == (best.number, "sweep")
    base = load_study(paths).trials[0]
    assert winner.speedup == pytest.approx(best.values[0] / base.values[0])
    text = yaml_path.read_text()
    assert text.startswith(
        f"# autotune winner of study `exp`: trial #{best.number} (sweep, {winner.speedup:.2f}x the baseline)"
    )
    assert f"\n# perf/throughput (median) = {best.values[0]:.6g} tokens/s/GPU (one run)\n" in text, text  # its unit
    exported = to_flat_dict(yaml.safe_load(text))
    for key, value in best.params.items():
        if "." in key and not key.startswith("env."):  # a config key the trial tuned (not a variable)
            assert exported[key] == value
    assert not set(NOT_EXPORTED) & set(exported)
    settings = export_settings(space, get_adapter(space.trainer), dict(best.params), "cuda")
    keys = [line.split("=", 1)[0].lstrip("+") for line in overrides_path.read_text().splitlines()]
    assert keys == list(settings)  # the same settings, one `key=value` line each


def test_a_confirmed_winner_is_exported_with_its_rounds_even_when_another_run_was_faster(faked_gpu_sweep, tmp_path):
    paths, space = faked_gpu_sweep
    best = complete(paths)[0]
    second = next(t for t in reversed(load_study(paths).get_trials()) if t.number not in (0, best.number))
    base = load_study(paths).trials[0]
    Confirmation.decide(
        [row(0, dict(base.params), [1.0, 1.0], baseline=True), row(second.number, dict(second.params), [1.2, 1.3])],
        baseline=0,
        maximize=True,
    ).write(paths)
    try:
        winner, yaml_path, _ = export(load_study(paths), paths, space, get_adapter(space.trainer), tmp_path / "c.yaml")
    finally:
        Confirmation.file(paths).unlink()
    assert (winner.number, winner.source, winner.speedup_spread) == (second.number, "confirmed", (1.2, 1.3))
    assert f"trial #{second.number} (confirmed, 1.25x the baseline (rounds: 1.20-1.30))" in yaml_path.read_text()
    # with paired rounds (as confirmation writes them), the figure it was chosen on and its 90% interval: by hand,
    # sqrt(1.2 x 1.3) = 1.249, and exp(mean(logs) ± t(0.95, 1 df) 6.3138 × sd(logs) / sqrt(2)) = [0.970, 1.608]
    # (the mean of the ratios 1.25 and their min-max were printed in the brackets where the interval is read)
    paired = dataclasses.replace(
        row(second.number, dict(second.params), [1.2, 1.3]),
        speedup_geomean=math.sqrt(1.2 * 1.3), speedup_low=0.97011, speedup_high=1.60802,
    )  # fmt: skip
    Confirmation.decide([row(0, dict(base.params), [1.0, 1.0], baseline=True), paired], 0, maximize=True).write(paths)
    try:
        winner, yaml_path, _ = export(load_study(paths), paths, space, get_adapter(space.trainer), tmp_path / "d.yaml")
    finally:
        Confirmation.file(paths).unlink()
    assert winner.speedup == pytest.approx(1.249, abs=5e-4) and winner.spread_is_interval
    assert f"trial #{second.number} (confirmed, 1.25x the baseline (90% interval: 0.97-1.61))" in yaml_path.read_text()


def test_a_candidate_confirmed_slower_than_the_baseline_does_not_win_the_baseline_ships(faked_gpu_sweep, tmp_path):
    """With no ablation to send its changes back, a candidate confirmed at 0.32x the baseline was the winner, and
    `export` wrote it (audit 12 F1): the baseline competes in confirmation, and its configuration ships."""
    paths, space = faked_gpu_sweep
    best = next(t for t in complete(paths) if t.number != 0)
    base = load_study(paths).trials[0]
    slow = row(best.number, dict(best.params), [0.31, 0.33])
    slow.speedup_geomean, slow.speedup_low, slow.speedup_high = math.sqrt(0.31 * 0.33), 0.29, 0.35
    Confirmation.decide([row(0, dict(base.params), [1.0, 1.0], baseline=True), slow], baseline=0, maximize=True).write(
        paths
    )
    try:
        winner, yaml_path, _ = export(
            load_study(paths), paths, space, get_adapter(space.trainer), tmp_path / "slow.yaml"
        )
        shown = autotune("best", "exp", "--runs-dir", str(paths.runs_dir))
    finally:
        Confirmation.file(paths).unlink()
    assert (winner.number, winner.source, winner.speedup) == (0, "confirmed", 1.0)
    assert winner.params == dict(base.params)
    text = yaml_path.read_text()
    assert "trial #0 (confirmed, 1.00x the baseline (no confirmed candidate beat it: the baseline's systems values " \
        "ship))" in text, text[:600]  # fmt: skip
    assert (
        f"# the best confirmed candidate, #{best.number}, measured ×0.320 [0.290, 0.350] of the baseline over 2 rounds"
        in text
    ), text[:900]
    assert shown.returncode == 0, shown.stdout + shown.stderr
    assert "no confirmed candidate beat it" in shown.stdout and "nothing to ablate" in shown.stdout, shown.stdout


def test_confirmation_without_a_qualifying_candidate_falls_back_to_the_sweep(faked_gpu_sweep, tmp_path):
    paths, space = faked_gpu_sweep
    best = complete(paths)[0]
    failed = row(best.number, dict(best.params), [1.5, math.nan])
    failed.feasible_rounds = 1  # one round failed: not eligible
    Confirmation.decide([row(0, {}, [1.0, 1.0], baseline=True), failed], baseline=0, maximize=True).write(paths)
    try:
        winner, _, _ = export(load_study(paths), paths, space, get_adapter(space.trainer), tmp_path / "d.yaml")
    finally:
        Confirmation.file(paths).unlink()
    assert (winner.number, winner.source) == (best.number, "sweep")
    assert winner.confirmed is not None and (winner.confirmed.number, winner.confirmed.feasible_rounds) == (
        best.number,
        1,
    )


def test_settings_put_env_under_rays_env_vars_as_strings(faked_gpu_sweep):
    _, space = faked_gpu_sweep
    space = dataclasses.replace(space, env={"NCCL_IB_HCA": "mlx5", "NCCL_BUFFSIZE": "16"})
    params = {**space.baseline, "env.NCCL_PROTO": "LL"}  # a tuned env knob; its baseline (null) leaves it unset
    settings = export_settings(space, get_adapter(space.trainer), params, "cuda")
    env = {k.removeprefix(ENV_PREFIX): v for k, v in settings.items() if k.startswith(ENV_PREFIX)}
    assert env == {"NCCL_BUFFSIZE": "16", "NCCL_IB_HCA": "mlx5", "NCCL_PROTO": "LL"}  # strings: Ray refuses others


def test_a_secret_in_the_spaces_env_stays_out_of_the_export_said_in_its_header(faked_gpu_sweep, tmp_path):
    """best.yaml is a file to share (committed, pasted in a ticket): a secret a space's `env:` holds by hand went into
    it, under Ray's env_vars, value and all (audit 36 F11, left after init's fix); it stays out, named in the header
    with where to set it instead. Its other variables ship as before."""
    paths, space = faked_gpu_sweep
    space = dataclasses.replace(space, env={"WANDB_API_KEY": "wk-123", "HF_TOKEN": "hf_abc", "NCCL_IB_HCA": "mlx5"})
    _, yaml_path, overrides_path = export(
        load_study(paths), paths, space, get_adapter(space.trainer), tmp_path / "best.yaml"
    )
    text, lines = yaml_path.read_text(), overrides_path.read_text()
    assert "wk-123" not in text + lines and "hf_abc" not in text + lines
    assert "# left out, secrets of the space's env: HF_TOKEN, WANDB_API_KEY: export them where verl starts" in text
    exported = to_flat_dict(yaml.safe_load(text))
    assert exported[ENV_PREFIX + "NCCL_IB_HCA"] == "mlx5"
    assert ENV_PREFIX + "WANDB_API_KEY" not in exported


def test_a_study_without_a_feasible_trial_is_refused_with_the_fix(faked_gpu_sweep, tmp_path):
    _, space = faked_gpu_sweep
    empty = StudyPaths(tmp_path / "runs", "empty")
    create_or_load(space, empty, storage_url(empty, None))  # the baseline enqueued, nothing ran
    runs = re.escape(str(tmp_path / "runs"))  # the hint names the runs folder, so it works when pasted
    with pytest.raises(
        ExportError, match=rf"study `empty` has no feasible trial yet; see `autotune trials empty --runs-dir {runs}`"
    ):
        export(load_study(empty), empty, space, get_adapter(space.trainer), tmp_path / "e.yaml")
    # `best` says so too, and exits 1 (it exited 0, so a script's `autotune best X && autotune export X` went on)
    best = autotune("best", "empty", "--runs-dir", str(tmp_path / "runs"))
    assert best.returncode == 1 and "study `empty` has no feasible trial yet" in best.stderr, best.stderr


def test_the_jobs_environment_and_tuned_variables_are_not_listed_as_filled_in_for_verls_check():
    """The header listed the job's `VLLM_USE_V1` (its `env:`) under "not searched: the value the trials ran with,
    which verl's config check needs": only keys no param, derived key, base line or env entry sets are."""
    import dataclasses

    from autotune.adapters.verl_config import ENV_PREFIX
    from autotune.export.winner import filled_keys
    from autotune.space.loader import load_space

    space = dataclasses.replace(load_space("fsdp3d-8gpu"), env={"VLLM_USE_V1": "1"})
    micro = "actor_rollout_ref.rollout.log_prob_micro_batch_size_per_gpu"
    settings = {ENV_PREFIX + "VLLM_USE_V1": "1", ENV_PREFIX + "NCCL_PROTO": "LL", "critic.ppo_micro_batch_size": 8}
    params = {"env.NCCL_PROTO": "LL"}
    assert filled_keys(space, params, {**settings, micro: 16}) == ["critic.ppo_micro_batch_size"] + (
        [] if micro in space.base else [micro]
    )


@pytest.mark.parametrize("dynamic", [True, False])
def test_a_micro_batch_dynamic_batching_leaves_unused_is_not_exported_and_verl_accepts_the_export(dynamic):
    """best.yaml of a dynamic-batching winner set `ppo_micro_batch_size_per_gpu: 8` (the CPU preset's size, which
    the trials never used) beside the equivalence line `ppo_micro_batch_size_per_gpu: 4 -> None`: verl checks a
    micro-batch size only with dynamic batching off (its validate_config here is the judge), so only then is one
    exported, at the value the trial used (the actor's, which the other sections follow)."""
    from autotune.adapters.verl_config import compose, overrides, validate
    from autotune.space.loader import load_space

    space = load_space("fsdp3d")
    params = {
        "actor_rollout_ref.rollout.tensor_model_parallel_size": 1,
        "actor_rollout_ref.actor.use_dynamic_bsz": dynamic,
        **({"actor_token_mult": 5.0, "logprob_token_mult": 6.5} if dynamic else {}),
        **({} if dynamic else {"actor_rollout_ref.actor.ppo_micro_batch_size_per_gpu": 2}),
    }
    settings = export_settings(space, get_adapter(space.trainer), params, "cpu")
    micro = [k for k in settings if "micro_batch_size" in k]
    if dynamic:
        assert micro == [], settings
    else:
        sections = ("actor_rollout_ref.actor", "actor_rollout_ref.ref", "actor_rollout_ref.rollout", "critic")
        assert sorted(micro) == sorted(
            f"{s}.{'ppo' if s.endswith(('actor', 'critic')) else 'log_prob'}_micro_batch_size_per_gpu" for s in sections
        ), settings
        assert {settings[k] for k in micro} == {2}, settings
    validate(compose(overrides(settings)))  # raises VerlRejected with verl's message


def test_a_key_of_a_map_verl_leaves_open_is_exported_under_its_map_and_with_its_plus(faked_gpu_sweep, tmp_path):
    """A space's `base:` key of an open map of verl's (init keeps a job's
    `+actor_rollout_ref.model.override_config.max_position_embeddings=32768` so, audit 37 F1) ships: nested under
    its map in best.yaml, as `+key=value` in best.overrides (hydra refuses it without the `+`), `export --check`
    passes, and hydra itself composes both files with the value where verl reads it."""
    from hydra import compose, initialize_config_dir
    from hydra.core.global_hydra import GlobalHydra
    from omegaconf import OmegaConf

    from autotune.adapters.verl_config import config_dir
    from autotune.export.winner import check_export

    paths, space = faked_gpu_sweep
    added = {
        "actor_rollout_ref.model.override_config.max_position_embeddings": 32768,
        "reward_model.reward_kwargs.overlong_buffer_cfg.enable": True,
    }
    space = dataclasses.replace(space, base={**space.base, **added})
    _, yaml_path, overrides_path = export(
        load_study(paths), paths, space, get_adapter(space.trainer), tmp_path / "best.yaml"
    )
    nested = yaml.safe_load(yaml_path.read_text())
    assert nested["actor_rollout_ref"]["model"]["override_config"] == {"max_position_embeddings": 32768}
    assert nested["reward_model"]["reward_kwargs"] == {"overlong_buffer_cfg": {"enable": True}}
    lines = overrides_path.read_text().splitlines()
    assert "+actor_rollout_ref.model.override_config.max_position_embeddings=32768" in lines
    assert "+reward_model.reward_kwargs.overlong_buffer_cfg.enable=true" in lines
    assert check_export(yaml_path, overrides_path)[0] == []
    GlobalHydra.instance().clear()
    try:
        with initialize_config_dir(config_dir=str(config_dir()), version_base=None):
            from_lines = compose(config_name="ppo_trainer", overrides=lines)
        with initialize_config_dir(config_dir=str(yaml_path.parent), version_base=None):
            from_file = compose(config_name=yaml_path.stem)
    finally:
        GlobalHydra.instance().clear()
    for composed in (from_lines, from_file):
        assert {k: OmegaConf.select(composed, k) for k in added} == added


def test_the_run_line_puts_the_spaces_launcher_in_front(faked_gpu_sweep, tmp_path):
    """The header's `# run:` line said `python -m verl.trainer.main_ppo ...` for a space whose trials ran behind
    `ray job submit ... --` (audit 37 F8): the launcher is put in front, as the trials ran it."""
    paths, space = faked_gpu_sweep
    launcher = ["ray", "job", "submit", "--address", "http://head:8265", "--", "python3", "-m", "verl.trainer.main_ppo"]
    _, yaml_path, _ = export(
        load_study(paths),
        paths,
        dataclasses.replace(space, command=launcher),
        get_adapter(space.trainer),
        tmp_path / "best.yaml",
    )
    run = "# run: ray job submit --address http://head:8265 -- python3 -m verl.trainer.main_ppo --config-path=<this "
    assert f"\n{run}folder> --config-name=best\n" in yaml_path.read_text()
    _, plain, _ = export(
        load_study(paths),
        paths,
        dataclasses.replace(space, command=None),
        get_adapter(space.trainer),
        tmp_path / "plain.yaml",
    )
    assert "\n# run: python -m verl.trainer.main_ppo --config-path=<this folder> --config-name=plain\n" in (
        plain.read_text()
    )
