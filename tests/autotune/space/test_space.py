"""Search-space files: the shipped ones load; bad ones are refused with file:line, rule and fix."""

from __future__ import annotations

import pytest

from autotune.adapters import get_adapter
from autotune.space.loader import SpaceError, load_space
from autotune.space.sampling import ConstraintViolation, FixedSuggester, check_constraints, materialize, suggest
from tests.autotune.conftest import autotune, write_space


def test_shipped_fsdp3d_space_loads_and_warns_about_inert_nccl_knobs():
    space = load_space("fsdp3d", device="cpu")
    names = {p.name for p in space.params}
    for key in (
        "actor_rollout_ref.rollout.tensor_model_parallel_size",
        "actor_rollout_ref.actor.fsdp_config.forward_prefetch",
        "actor_rollout_ref.actor.fsdp_config.reshard_after_forward",
        "actor_rollout_ref.actor.use_dynamic_bsz",
        "actor_rollout_ref.actor.ppo_micro_batch_size_per_gpu",
        "env.NCCL_PROTO",
        "env.NCCL_ALGO",
        "env.NCCL_MAX_NCHANNELS",
        "env.CUDA_DEVICE_MAX_CONNECTIONS",
        "algorithm.kl_ctrl.kl_coef",
        "actor_rollout_ref.actor.clip_ratio_high",
        "actor_rollout_ref.actor.ppo_epochs",
    ):
        assert key in names, key
    assert space.param("algorithm.kl_ctrl.kl_coef").log
    assert any("NCCL_PROTO" in w and "inert" in w for w in space.warnings)
    assert space.baseline["actor_rollout_ref.rollout.tensor_model_parallel_size"] == 2  # verl's default


def test_derived_token_budgets_and_conditional_params():
    space = load_space("fsdp3d", device="cpu")
    adapter = get_adapter("builtin")
    defaults = adapter.defaults(space.base_config)
    types = {k: v.type for k, v in adapter.keys().items()}
    params = dict(space.baseline)
    params.update({"actor_rollout_ref.actor.use_dynamic_bsz": True, "actor_token_mult": 2.5, "logprob_token_mult": 3.0})
    params.pop("actor_rollout_ref.actor.ppo_micro_batch_size_per_gpu")
    values = suggest(FixedSuggester(params), space, defaults)
    assert "actor_rollout_ref.actor.ppo_micro_batch_size_per_gpu" not in values  # `when` is false
    config = materialize(space, values, defaults, types)
    assert config.flat["actor_rollout_ref.actor.ppo_max_token_len_per_gpu"] == 40  # 2.5 × (8 + 8)
    assert config.flat["actor_rollout_ref.ref.log_prob_max_token_len_per_gpu"] == 48
    assert "actor_token_mult" not in config.flat  # variables are not config keys
    values["actor_token_mult"] = 0.5
    config = materialize(space, values, defaults, types)
    with pytest.raises(ConstraintViolation, match=r"fsdp3d.yaml:\d+: constraint violated: .* must be at least"):
        check_constraints(space, config, defaults)


def test_env_params_set_or_unset_variables():
    space = load_space("fsdp3d", device="cpu")
    adapter = get_adapter("builtin")
    defaults = adapter.defaults(space.base_config)
    types = {k: v.type for k, v in adapter.keys().items()}
    config = materialize(space, {**space.baseline, "env.NCCL_PROTO": "Simple"}, defaults, types)
    assert config.env == {"NCCL_PROTO": "Simple"}


BAD = {
    "unknown key": (
        "params:\n  actor_rollout_ref.actor.ppo_epoch: {type: int, low: 1, high: 2}\n",
        r"small.yaml:\d+: unknown key `actor_rollout_ref.actor.ppo_epoch`; did you mean `actor_rollout_ref.actor.ppo_epochs`",
    ),
    "bad range": (
        "params:\n  actor_rollout_ref.actor.ppo_epochs: {type: int, low: 3, high: 2}\n",
        r"small.yaml:\d+: param `actor_rollout_ref.actor.ppo_epochs`: bad range, `low` \(3\) must be < `high` \(2\)",
    ),
    "empty range": (
        "params:\n  actor_rollout_ref.actor.ppo_epochs: {type: int, low: 2, high: 2}\n",
        r"small.yaml:\d+: param `actor_rollout_ref.actor.ppo_epochs`: bad range, `low` \(2\) must be < `high` \(2\); "
        r"to hold it at 2, set it under `base:` instead of searching it",
    ),
    "unknown metric": (
        "objectives:\n  - {metric: perf/througput}\n",
        r"small.yaml:\d+: unknown metric `perf/througput` .*did you mean `perf/throughput`",
    ),
    "tp not dividing the world": (
        "params:\n  actor_rollout_ref.rollout.tensor_model_parallel_size: {type: categorical, choices: [1, 2]}\n"
        "constraints:\n  - divides: [actor_rollout_ref.rollout.tensor_model_parallel_size, trial.world_size]\n"
        "baseline:\n  actor_rollout_ref.rollout.tensor_model_parallel_size: 1\n",
        r"small.yaml:\d+: param `actor_rollout_ref.rollout.tensor_model_parallel_size`: choice 2 can never run here: .*must divide trial.world_size \(2 vs 1\)",
    ),
    # a range's end the trainer refuses: validate said ok, and the quality search wasted a run on it (audit 32 F4)
    "range end the trainer refuses": (
        "params:\n  algorithm.kl_ctrl.kl_coef: {type: float, low: -0.1, high: 1.0}\n",
        r"small.yaml:\d+: param `algorithm.kl_ctrl.kl_coef`: low -0.1 can never run here: .*must be >= 0, got -0.1",
    ),
    "log range with zero": (
        "params:\n  algorithm.kl_ctrl.kl_coef: {type: float, low: 0, high: 1, log: true}\n",
        r"a log-scale range needs low > 0",
    ),
    # a `when` that can never hold left its knob never sampled while the space listed it as searched
    "when on a key no param sets, never that value": (
        "params:\n  actor_rollout_ref.actor.fsdp_config.forward_prefetch:\n"
        "    {type: bool, when: {actor_rollout_ref.actor.use_dynamic_bsz: true}}\n",
        r"small.yaml:\d+: param `actor_rollout_ref.actor.fsdp_config.forward_prefetch`: `when` can never hold, so the "
        r"knob is never sampled: `actor_rollout_ref.actor.use_dynamic_bsz` is not a param and is False \(the trainer's "
        r"default\), never True; make it a param, set it in `base:`, or drop the `when`",
    ),
    "when on a base key, never that value": (
        "base:\n  actor_rollout_ref.actor.use_dynamic_bsz: true\nparams:\n"
        "  actor_rollout_ref.actor.fsdp_config.forward_prefetch:\n"
        "    {type: bool, when: {actor_rollout_ref.actor.use_dynamic_bsz: false}}\n",
        r"is not a param and is True \(in `base:`\), never False",
    ),
    "when on a param's value it never takes": (
        "params:\n  actor_rollout_ref.actor.ppo_epochs: {type: int, low: 1, high: 2}\n"
        "  actor_rollout_ref.actor.fsdp_config.forward_prefetch: {type: bool, when: {actor_rollout_ref.actor.ppo_epochs: 3}}\n"
        "  actor_rollout_ref.actor.fsdp_config.reshard_after_forward:\n"
        "    {type: bool, when: {actor_rollout_ref.rollout.tensor_model_parallel_size: 4}}\n"
        "  actor_rollout_ref.rollout.tensor_model_parallel_size: {type: categorical, choices: [1, 2]}\n",
        r"(?s)`actor_rollout_ref.actor.ppo_epochs` takes values in \[1, 2\] and never 3.*"
        r"`actor_rollout_ref.rollout.tensor_model_parallel_size` takes only 1, 2 and never 4",
    ),
    # Optuna narrowed the range with a warning naming no file: 0.31 was promised and never tried
    "step not dividing a float range": (
        "params:\n  actor_rollout_ref.actor.clip_ratio_high: {type: float, low: 0.2, high: 0.31, step: 0.02}\n",
        r"small.yaml:\d+: param `actor_rollout_ref.actor.clip_ratio_high`: `step` 0.02 does not divide the range "
        r"0.2..0.31, so 0.31 would never be tried; set `high` to 0.3 or 0.32, or choose a step that divides 0.11",
    ),
    "step not dividing an int range": (
        "params:\n  actor_rollout_ref.actor.ppo_epochs: {type: int, low: 1, high: 4, step: 2}\n",
        r"`step` 2 does not divide the range 1..4, so 4 would never be tried; set `high` to 3 or 5",
    ),
    "step not dividing a range, in tens": (  # written as typed: 50, not 5E+1
        "params:\n  actor_rollout_ref.actor.ppo_epochs: {type: int, low: 10, high: 45, step: 10}\n",
        r"set `high` to 40 or 50, or choose a step that divides 35$",
    ),
    "fractional step of an int": (
        "params:\n  actor_rollout_ref.actor.ppo_epochs: {type: int, low: 1, high: 4, step: 1.5}\n",
        r"an int range needs an integer `step`, got 1.5",
    ),
    # a repeated choice was sampled twice as often as the others
    "a choice listed twice": (
        "params:\n  actor_rollout_ref.rollout.tensor_model_parallel_size: {type: categorical, choices: [1, 2, 1]}\n",
        r"small.yaml:\d+: param `actor_rollout_ref.rollout.tensor_model_parallel_size`: choice 1 is listed twice",
    ),
    "unknown section": ("paramz: {}\n", r"unknown section `paramz`; did you mean `params`"),
    "unknown section, nothing close": ("foo: 1\n", r"unknown section `foo`; a space has `name`, `trainer`, .*`params`"),
    # once tracebacks, or accepted and failing mid-sweep:
    "limit without a metric": ("limits:\n  - {max: 1}\n", r"small.yaml:\d+: `metric` must be a metric name, got None"),
    "limit bound not a number": (
        "limits:\n  - {metric: memory, max: many}\n",
        r"small.yaml:\d+: limit `memory`: `max` must be a number, got 'many'",
    ),
    "objectives not a list": ("objectives: 5\n", r"small.yaml:\d+: `objectives` must be a list, got int"),
    "NaN bound": (
        "params:\n  algorithm.kl_ctrl.kl_coef: {type: float, low: .nan, high: 1}\n",
        r"small.yaml:\d+: param `algorithm.kl_ctrl.kl_coef`: `low` and `high` must be finite numbers, got low=nan",
    ),
    "infinite bound": (
        "params:\n  actor_rollout_ref.actor.ppo_epochs: {type: int, low: 1, high: .inf}\n",
        r"small.yaml:\d+: param `actor_rollout_ref.actor.ppo_epochs`: `low` and `high` must be finite numbers",
    ),
    "a date no study can store": (
        "params:\n  env.X: {type: categorical, choices: [2001-01-01, b]}\n",
        r"small.yaml:\d+: `params.env.X.choices.0`: a date \(datetime.date\(2001, 1, 1\)\) is not a setting",
    ),
    # accepted, and ran something else than they said (audit 25): a derived key that is also a param ran the
    # computed value while validate, best and the export said the param's
    "a derived key that is also a param": (
        "params:\n  actor_rollout_ref.actor.ppo_epochs: {type: int, low: 1, high: 2}\n"
        "derived:\n  actor_rollout_ref.actor.ppo_epochs: {sum: [1, 1]}\n",
        r"small.yaml:\d+: derived `actor_rollout_ref.actor.ppo_epochs` is also a param \(.*small.yaml:\d+\): every "
        r"trial would run the computed value, not the sampled one; search it under `params:` or compute it here",
    ),
    "a derived key that uses itself": (  # it read the key's default
        "params:\n  mult: {type: categorical, choices: [2, 3], role: systems}\n"
        "derived:\n  actor_rollout_ref.actor.ppo_max_token_len_per_gpu:\n"
        "    {product: [mult, actor_rollout_ref.actor.ppo_max_token_len_per_gpu]}\n",
        r"small.yaml:\d+: derived `actor_rollout_ref.actor.ppo_max_token_len_per_gpu` uses itself: it would read its "
        r"`base:` or default value",
    ),
    "two derived keys that use each other": (  # every trial failed, told to add a `when`
        "params:\n  mult: {type: categorical, choices: [2, 3], role: systems}\n"
        "derived:\n  actor_rollout_ref.actor.ppo_max_token_len_per_gpu:\n"
        "    {product: [mult, actor_rollout_ref.ref.log_prob_max_token_len_per_gpu]}\n"
        "  actor_rollout_ref.ref.log_prob_max_token_len_per_gpu:\n"
        "    {product: [mult, actor_rollout_ref.actor.ppo_max_token_len_per_gpu]}\n",
        r"derived `actor_rollout_ref.actor.ppo_max_token_len_per_gpu` and derived "
        r"`actor_rollout_ref.ref.log_prob_max_token_len_per_gpu` \(.*small.yaml:\d+\) use each other",
    ),
    "a derived key that uses one computed after it": (
        "params:\n  mult: {type: categorical, choices: [2, 3], role: systems}\n"
        "derived:\n  actor_rollout_ref.actor.ppo_max_token_len_per_gpu:\n"
        "    {product: [mult, actor_rollout_ref.ref.log_prob_max_token_len_per_gpu]}\n"
        "  actor_rollout_ref.ref.log_prob_max_token_len_per_gpu: {product: [mult, 64]}\n",
        r"uses derived `actor_rollout_ref.ref.log_prob_max_token_len_per_gpu`, listed below it \(.*\): derived keys "
        r"are computed in the order listed, .*; move `actor_rollout_ref.ref.log_prob_max_token_len_per_gpu` above it",
    ),
    "a base value a searched param's baseline contradicts": (  # the job's value never ran, without a word
        "base:\n  actor_rollout_ref.actor.ppo_epochs: 2\n"
        "params:\n  actor_rollout_ref.actor.ppo_epochs: {type: int, low: 1, high: 3}\n"
        "baseline:\n  actor_rollout_ref.actor.ppo_epochs: 1\n",
        r"small.yaml:5: `actor_rollout_ref.actor.ppo_epochs` is 2 in `base:` and 1 in `baseline:` \(.*small.yaml:\d+\): "
        r"it is searched, so every trial, the baseline too, runs a param's value and the one in `base:` never runs",
    ),
    "a limit no value can pass": (  # every trial came back infeasible, after the sweep's time
        "limits:\n  - {metric: perf/comm_share, reducer: median, max: 0.1, min: 0.5}\n",
        r"small.yaml:\d+: limit `perf/comm_share`: `min` 0.5 > `max` 0.1, so no value can pass",
    ),
    "a number YAML reads as text": (
        "params:\n  algorithm.kl_ctrl.kl_coef: {type: float, low: 1e-4, high: 0.1, log: true}\n",
        r"got low='1e-4' high=0.1; YAML reads 1e-4 as text, not a number: write 1.0e-4$",
    ),
    "a limit's bound YAML reads as text": (
        "limits:\n  - {metric: memory, max: 5e3}\n",
        r"limit `memory`: `max` must be a number, got '5e3'; YAML reads 5e3 as text, not a number: write 5.0e\+3$",
    ),
    "a setting out of range, with an example": (
        "confirm: {top_k: 0}\n",
        r"small.yaml:\d+: `confirm.top_k` must be > 0, got 0; e.g. `top_k: 2` \(the default\)",
    ),
    "a misspelled field, said once with its fix": (  # a second problem followed from it: "needs `choices`"
        "params:\n  actor_rollout_ref.rollout.tensor_model_parallel_size: {type: categorical, choises: [1, 2]}\n",
        r"^[^\n]*unknown field `choises`; did you mean `choices`\?$",
    ),
    "a misspelled limit field, said once with its fix": (
        "params:\n  actor_rollout_ref.actor.ppo_epochs: {type: int, low: 1, high: 2}\n"
        "limits:\n  - {metric: memory, maximum: 2}\n",
        r"^[^\n]*limit: unknown field `maximum`; did you mean `max`\?$",
    ),
    "a misspelled name in a when": (
        "params:\n  actor_rollout_ref.actor.fsdp_config.forward_prefetch:\n"
        "    {type: bool, when: {actor_rollout_ref.actor.use_dynamik_bsz: false}}\n",
        r"which is neither a param nor a config key; did you mean `actor_rollout_ref.actor.use_dynamic_bsz`\?",
    ),
    "a field its type does not read": (  # `{type: bool, choices: [true]}` searched both values (audit 25 F17)
        "params:\n  actor_rollout_ref.actor.use_dynamic_bsz: {type: bool, choices: [true]}\n"
        "  actor_rollout_ref.actor.ppo_micro_batch_size_per_gpu:\n"
        "    {type: categorical, choices: [2, 4], when: {actor_rollout_ref.actor.use_dynamic_bsz: false}}\n",
        r"^[^\n]*param `actor_rollout_ref.actor.use_dynamic_bsz`: `choices` does not apply to a bool \(it searches "
        r"false and true; for one value, set it under `base:`; for a list, use `type: categorical`\)$",
    ),
    "an environment variable valued a mapping": (
        "params:\n  env.NCCL_ALGO: {type: categorical, choices: [null, Ring, {a: 1}]}\n",
        r"param `env.NCCL_ALGO`: an environment variable's value is a string, a number or null \(unset\), got "
        r"\{'a': 1\}",
    ),
    "a misspelled param in the baseline": (
        "params:\n  actor_rollout_ref.actor.ppo_epochs: {type: int, low: 1, high: 2}\n"
        "baseline:\n  actor_rollout_ref.actor.ppo_epoch: 1\n",
        r"baseline sets `actor_rollout_ref.actor.ppo_epoch`, which is not a param of this space; did you mean "
        r"`actor_rollout_ref.actor.ppo_epochs`\?",
    ),
}

MINIMAL = """\
name: small
trainer: builtin
trial: {steps: 3, warmup_steps: 1, world_size: 1}
"""


@pytest.mark.parametrize("case", list(BAD))
def test_bad_spaces_are_refused_with_file_and_line(tmp_path, case):
    body, message = BAD[case]
    path = tmp_path / "small.yaml"
    path.write_text(MINIMAL + body)
    with pytest.raises(SpaceError, match=message):
        load_space(str(path))


def test_a_searched_keys_base_value_is_the_baseline_where_the_baseline_gives_none(tmp_path):
    """The job's value in `base:` is what its baseline runs: the trainer's default (1 epoch) ran as the baseline
    while `base:` said 2 (audit 25 F18). One the domain does not hold falls back to the default, as before."""
    default = get_adapter("builtin").keys()["data.train_batch_size"].default
    path = tmp_path / "small.yaml"
    path.write_text(MINIMAL + f"base:\n  actor_rollout_ref.actor.ppo_epochs: 2\n  data.train_batch_size: {default * 4}\n"
                    "params:\n  actor_rollout_ref.actor.ppo_epochs: {type: int, low: 1, high: 3}\n"
                    f"  data.train_batch_size: {{type: categorical, choices: [{default}, {default * 2}]}}\n")  # fmt: skip
    space = load_space(str(path))
    assert space.baseline["actor_rollout_ref.actor.ppo_epochs"] == 2
    assert space.baseline["data.train_batch_size"] == default


def test_a_secret_in_a_spaces_env_is_warned_of_and_a_tokenizer_setting_is_not(tmp_path):
    """A space's `env:` is stored with the study, each trial's folder and its wandb run (audit 36
    F11): a secret written there by hand is warned of, with where to put it instead."""
    path = tmp_path / "small.yaml"
    path.write_text(
        MINIMAL + "env:\n  HF_TOKEN: hf_abc\n  TOKENIZERS_PARALLELISM: 'false'\n  MAX_NUM_BATCHED_TOKENS: '8'\n"
        "params:\n  actor_rollout_ref.actor.fsdp_config.reshard_after_forward: {type: bool}\n"
    )
    warned = [w for w in load_space(str(path)).warnings if "a secret" in w]
    assert (
        len(warned) == 1 and "`env.HF_TOKEN` looks like a secret" in warned[0] and "remove it and export" in warned[0]
    )


def test_a_shell_variable_left_in_the_command_is_warned_of(tmp_path):
    """Trials run `command:` as argv, without a shell: a launcher's `-w $head_node` (left by a hand edit, or by init
    for a value only the job knows) reached every real trial as the text itself, with no word (audit 36 F8)."""
    from autotune.space.loader import SPACE_DIR

    text = (SPACE_DIR / "fsdp3d-8gpu.yaml").read_text()
    plain = "command: [python3, -m, verl.trainer.main_ppo]"
    assert text.count(plain) == 1
    path = tmp_path / "launcher.yaml"
    path.write_text(
        text.replace(plain, "command: [srun, -w, $head_node, --bind, '${WORK}', python3, -m, verl.trainer.main_ppo]")
    )
    [warned] = [w for w in load_space(str(path)).warnings if "`command:`" in w]
    assert warned == (
        f"{path}: `command:` holds `$head_node`, `${{WORK}}`: trials run it without a shell, so each would get the "
        "text itself; write the value, or drop the launcher prefix that uses it"
    )
    assert not [w for w in load_space(str(SPACE_DIR / "fsdp3d-8gpu.yaml")).warnings if "`command:`" in w]


def test_a_when_that_can_hold_is_accepted(tmp_path):
    """The default of a key no param sets, a base value, and a param's own choice all satisfy a `when`."""
    path = tmp_path / "small.yaml"
    path.write_text(
        MINIMAL + "base:\n  actor_rollout_ref.actor.ppo_epochs: 2\nparams:\n"
        "  actor_rollout_ref.actor.ppo_mini_batch_size: {type: categorical, choices: [16, 32]}\n"
        "  actor_rollout_ref.actor.fsdp_config.forward_prefetch:\n"
        "    {type: bool, when: {actor_rollout_ref.actor.use_dynamic_bsz: false, actor_rollout_ref.actor.ppo_epochs: 2}}\n"
        "  actor_rollout_ref.actor.fsdp_config.reshard_after_forward:\n"
        "    {type: bool, when: {actor_rollout_ref.actor.ppo_mini_batch_size: 16}}\n"
        "baseline:\n  actor_rollout_ref.actor.ppo_mini_batch_size: 32\n"
    )
    assert [p.name for p in load_space(str(path)).params][1:] == [
        "actor_rollout_ref.actor.fsdp_config.forward_prefetch",
        "actor_rollout_ref.actor.fsdp_config.reshard_after_forward",
    ]


@pytest.mark.parametrize("command", ["validate", "run"])
def test_cli_refuses_a_bad_space_with_exit_2_and_launches_nothing(tmp_path, command):
    path = tmp_path / "small.yaml"
    path.write_text(MINIMAL + BAD["unknown key"][0] + BAD["bad range"][0].replace("params:\n", ""))
    runs = tmp_path / "runs"
    args = ["--space", str(path)] + (["--runs-dir", str(runs)] if command == "run" else [])
    proc = autotune(command, *args)
    assert proc.returncode == 2
    assert "unknown key `actor_rollout_ref.actor.ppo_epoch`" in proc.stderr
    assert "small.yaml:" in proc.stderr
    assert not runs.exists()


def test_validate_accepts_a_good_space(tmp_path):
    proc = autotune("validate", "--space", str(write_space(tmp_path)))
    assert proc.returncode == 0, proc.stderr
    assert "ok" in proc.stdout and "maximize perf/throughput" in proc.stdout


def test_base_config_presets_are_the_trainers_to_check(tmp_path):
    """`base_config` names the builtin trainer's presets (or YAML files beside the space); the adapter
    checks them, and a name it cannot find is refused with the presets it has."""
    path = write_space(tmp_path)
    text = path.read_text()
    assert load_space(str(path), device="cpu").base_config == ["cpu_tiny"]
    (tmp_path / "mine.yaml").write_text("data.train_batch_size: 8\n")
    path.write_text(text.replace("base_config: [cpu_tiny]", "base_config: [cpu_tiny, mine.yaml]"))
    assert load_space(str(path), device="cpu").base_config == ["cpu_tiny", str(tmp_path / "mine.yaml")]
    path.write_text(text.replace("base_config: [cpu_tiny]", "base_config: [cpu_tiny, nope]"))
    with pytest.raises(
        SpaceError, match=r"small.yaml:\d+: `base_config`: config file 'nope' not found \(packaged presets: cpu_tiny"
    ):
        load_space(str(path), device="cpu")


def test_a_stepped_float_reaches_the_config_at_its_steps_decimals(tmp_path):
    import optuna

    key = "actor_rollout_ref.actor.clip_ratio_high"
    path = write_space(tmp_path, extra_params=f"  {key}: {{type: float, low: 0.1, high: 0.5, step: 0.1}}",
                       extra_baseline=f"  {key}: 0.2")  # fmt: skip
    space = load_space(str(path), device="cpu")
    # Optuna samples a stepped float as low + k · step: 0.1 + 2 · 0.1 is 0.30000000000000004 in floating point
    study = optuna.create_study(sampler=optuna.samplers.RandomSampler(seed=0))
    seen = {study.ask().suggest_float(key, 0.1, 0.5, step=0.1) for _ in range(60)}
    assert 0.1 + 2 * 0.1 in seen and 0.1 + 2 * 0.1 != 0.3
    adapter = get_adapter("builtin")
    defaults = adapter.defaults(space.base_config)
    types = {k: v.type for k, v in adapter.keys().items()}
    config = materialize(space, {**space.baseline, key: 0.1 + 2 * 0.1}, defaults, types)
    assert config.flat[key] == 0.3 and config.params[key] == 0.3 and repr(config.flat[key]) == "0.3"


def test_a_baseline_value_outside_its_param_names_the_domain_and_the_fix(tmp_path):
    """It said only "lies outside its domain" (audit 14 F9)."""
    text = write_space(tmp_path).read_text()
    path = tmp_path / "bad.yaml"
    path.write_text(text.replace("actor_rollout_ref.actor.ppo_micro_batch_size_per_gpu: 4", "actor_rollout_ref.actor.ppo_micro_batch_size_per_gpu: 3", 1)
                    .replace("algorithm.kl_ctrl.kl_coef: 0.001", "algorithm.kl_ctrl.kl_coef: 0.5", 1))  # fmt: skip
    with pytest.raises(SpaceError) as exc:
        load_space(str(path))
    said = str(exc.value)
    assert (
        "baseline value 3 of `actor_rollout_ref.actor.ppo_micro_batch_size_per_gpu` lies outside its domain "
        "(one of [2, 4, 8]): set the baseline to a value the param can take, or widen the param" in said
    ), said
    assert "baseline value 0.5 of `algorithm.kl_ctrl.kl_coef` lies outside its domain (float from 0.0001 to 0.1)" \
        in said, said  # fmt: skip


def test_an_unknown_key_with_no_close_key_says_what_to_do(tmp_path):
    """`my.new_key` (the README's sample once) was refused as "unknown key" with no fix (audit 14 F5)."""
    path = write_space(tmp_path, extra_params="  my.new_key: {type: bool, role: systems}")
    with pytest.raises(SpaceError) as exc:
        load_space(str(path))
    assert "unknown key `my.new_key`: not a key of the trainer's config (a dotted name is one; a name without dots " \
        "is a variable for `derived:`)" in str(exc.value), str(exc.value)  # fmt: skip


def test_no_wait_in_the_command_is_warned_of(tmp_path):
    """`ray job submit --no-wait` returns once the job is submitted: every trial "failed (exited after 0 of 8 steps)"
    while its job ran on and the next trial submitted another, with no word from validate (audit 37 F6)."""
    from autotune.space.loader import SPACE_DIR

    text = (SPACE_DIR / "fsdp3d-8gpu.yaml").read_text()
    plain = "command: [python3, -m, verl.trainer.main_ppo]"
    path = tmp_path / "nowait.yaml"
    path.write_text(
        text.replace(plain, "command: [ray, job, submit, --no-wait, --, python3, -m, verl.trainer.main_ppo]")
    )
    [warned] = [w for w in load_space(str(path)).warnings if "--no-wait" in w]
    assert warned.startswith(f"{path}: `command:` holds `--no-wait`: `ray job submit` then returns once the job is ")
    assert warned.endswith("remove `--no-wait` (a trial must wait for its job)")
    path.write_text(text.replace(plain, "command: [ray, job, submit, --, python3, -m, verl.trainer.main_ppo]"))
    assert not [w for w in load_space(str(path)).warnings if "--no-wait" in w]


def test_a_command_running_another_trainer_is_refused(tmp_path):
    """`command: [python3, -m, recipe.dapo.main_dapo]` (the workaround after init refuses main_dapo) passed validate,
    sim and export: checked against main_ppo's config, predicted as PPO, exported as a main_ppo job (audit 37 F7)."""
    from autotune.space.loader import SPACE_DIR

    text = (SPACE_DIR / "fsdp3d-8gpu.yaml").read_text()
    plain = "command: [python3, -m, verl.trainer.main_ppo]"
    line = text.splitlines().index(plain) + 1
    path = tmp_path / "dapo.yaml"
    path.write_text(text.replace(plain, "command: [ray, job, submit, --, python3, -m, recipe.dapo.main_dapo]"))
    with pytest.raises(SpaceError) as refused:
        load_space(str(path))
    [problem] = refused.value.problems
    assert problem.startswith(
        f"{path}:{line}: `command:` runs `recipe.dapo.main_dapo`, not `verl.trainer.main_ppo`: a `trainer: verl` space "
        "tunes verl's PPO trainer"
    )
    assert problem.endswith("`command:` holds the launcher and `python3 -m verl.trainer.main_ppo`")
    path.write_text(text.replace(plain, "command: [python3, my_launcher.py]"))  # names no module: taken as main_ppo
    assert load_space(str(path)).command == ["python3", "my_launcher.py"]
