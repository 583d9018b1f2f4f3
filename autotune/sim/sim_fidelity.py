"""The cost model as a fidelity: a trial is predicted instead of being run.

The space's trainer adapter stays in charge of keys, defaults and export; this fidelity writes the
predicted per-step metrics to the trial folder's `metrics.jsonl`, so scoring, limits, the report
and export work unchanged. A configuration whose predicted memory exceeds the device
is a failed trial with reason `oom`, as a real one would be. Metrics a cost model cannot predict
(KL, reward) are unmeasured: limits on them are skipped, and said so.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import statistics
from pathlib import Path
from typing import TYPE_CHECKING, Any

from autotune.adapters.base import DeviceKind, InvalidConfig, TrainerAdapter
from autotune.sim.fit import POOR_FIT, too_few_trials
from autotune.sim.hardware import Cluster, calibrated_device, cluster, cpu_device
from autotune.sim.model import LENGTH_KEYS, CalibratedRun, Calibration, CostModel, job_of
from autotune.sim.workload import (
    VERL_GPUS_PER_NODE,
    VISION_WORDS,
    context_cut_words,
    context_problem,
    dynamic_sampling_words,
    find_shape,
    gpus_per_node,
    has_critic,
    has_reward_model,
    modelled_keys,
    reward_model_words,
    rollout_tp_problem,
    shape_words,
)
from autotune.space.freeze import fixed_at_baseline, inert_params
from autotune.trial.fidelity import Fidelity, FidelitySettings, TrialJob
from autotune.trial.record import metrics_path
from autotune.trial.runner import RunResult

if TYPE_CHECKING:
    from autotune.space.schema import Space
    from autotune.space.sim_section import SimSettings

UNPREDICTED = (
    "actor/kl_loss", "actor/reward_kl_penalty", "actor/ppo_kl", "actor/entropy", "actor/pg_loss", "actor/grad_norm",
    "critic/score/mean", "critic/rewards/mean", "critic/vf_loss",
)  # fmt: skip


def _model_words(model: str | None, space: Space) -> str | None:
    """The shape the cost model predicts for (`--model`, else the space's model path), in words; None when the
    space names none the model can read (the built-in trainer's presets)."""
    try:
        shape = find_shape(model or space.base.get("actor_rollout_ref.model.path"), space.base)
    except (ValueError, OSError, KeyError, TypeError):
        return None
    return shape_words(shape)


class CalibrationMismatch(ValueError):
    """A calibration asked to predict a device its weights do not describe."""


def cpu_calibration_problem(cal: Calibration | None, gpu: str | None, space_gpu: str | None) -> str | None:
    """Why a calibration cannot predict on the GPU named (--gpu, or the space's `sim.gpu`), or None. A CPU
    calibration (`autotune calibrate STUDY` on the built-in trainer's CPU trials) predicts that CPU: its weights,
    fp32 parameters and response lengths are the CPU trials'; it silently replaced an H100 with a 24 GiB "CPU"."""
    if cal is None or not cal.on_cpu or not (gpu or space_gpu):
        return None
    named = f"--gpu {gpu}" if gpu else f"the space's sim.gpu ({space_gpu})"
    return (
        f"the calibration was fitted on CPU trials ({cal.source}"
        + (f", study {cal.study}" if cal.study else "")
        + f") and predicts that CPU, not {named}: its weights, fp32 parameters and lengths are the CPU trials'. "
        "For a GPU, leave --calibration out (or calibrate on that GPU's runs: `autotune calibrate --verl-log ...`); "
        "for the CPU, leave the GPU out"
    )


MEMORY_NOT_CALIBRATED = "memory is not calibrated: the cost model's own prediction (run the winner to check it)"
"""Said of every calibrated prediction's memory (`error_note`, `best`): a calibration fits step times only."""


class CostModelFidelity(Fidelity):
    """Every trial predicted by the cost model for `cluster` (seconds for hundreds of trials)."""

    name = "sim"
    deterministic = True

    def __init__(
        self,
        cluster: Cluster,
        calibration: Calibration | None = None,
        model: str | None = None,
        sim: SimSettings | None = None,
    ) -> None:
        self.cluster = cluster
        self.calibration = calibration
        self.model = model
        self.sim = sim
        self.model_words: str | None = None
        """The model's shape in words (`model_key`): `--model Qwen2.5-7B` and the space's `Qwen/Qwen2.5-7B-Instruct`
        are one model (a resume naming it was refused as another)."""
        self.job_runs: tuple[CalibratedRun, ...] = ()
        """The calibration's runs of the space's job (`job_runs`): the sweep predicts at their lengths."""

    @classmethod
    def for_sweep(cls, space: Space, settings: FidelitySettings) -> CostModelFidelity:
        """The hardware: a CPU calibration's own peak, else --gpu, else the space's sim.gpu, else the GPU
        the calibration was fitted on, else an H100, laid out in nodes of the space's `trainer.n_gpus_per_node`
        (`space_gpus_per_node`). A CPU calibration with a GPU named is refused (`CalibrationMismatch`): its weights
        describe the CPU it was fitted on."""
        world = space.trial.world_size
        cal = Calibration.from_json(settings.calibration) if settings.calibration else None
        problem = cpu_calibration_problem(cal, settings.gpu, space.sim.gpu)
        if problem:
            raise CalibrationMismatch(problem)
        if cal is not None and cal.on_cpu:
            hardware = Cluster(cpu_device(cal.peak_flops or 0.0), gpus_per_node=world, nodes=1)  # checked: > 0
        else:
            device = calibrated_device(settings.gpu or space.sim.gpu, cal.device if cal else None)
            hardware = cluster(device, world, space_gpus_per_node(space))
        fidelity = cls(hardware, cal, settings.model, space.sim)
        fidelity.model_words = _model_words(settings.model, space)
        fidelity.job_runs = job_runs(cal, space, fidelity.model_words) if cal is not None else ()
        return fidelity

    def error_note(self, space: Space) -> str | None:
        """A calibration's own error (in sample, and held back or leave-one-out when it has one); for the built-in
        trainer predicted uncalibrated, that no error is known (its GPU phases are predicted, never measured)."""
        cal = self.calibration
        if cal is not None and cal.fit_error is not None:
            of, own = ("phase", "runs") if cal.of_logs else ("step-time", "trials")
            said = (
                f"the calibration ({cal.named()}): median {of} error {cal.fit_error:.1%} on its own {own} (in sample)"
            )
            if cal.held_error is not None:  # a study's --holdout read "leave-one-out over 2 runs"
                held = f"leave-one-out over {cal.held_count} runs" if cal.of_logs else f"on {cal.held_count} held back"
                said += f", {cal.held_error:.1%} {held}"
            if max(cal.fit_error, cal.held_error or 0.0) > POOR_FIT:  # as `calibrate` warned: predictions as far off
                said += f"; above {POOR_FIT:.0%}, so these predictions may be as far off as that"
            off = max(cal.phase_errors.items(), key=lambda item: abs(item[1]), default=None)
            if off is not None and abs(off[1]) > POOR_FIT:  # one median hid it (audit 21 F3)
                said += f"; its worst phase on its own runs, {off[0]}, {off[1]:+.0%}"
            if not cal.of_logs and too_few_trials(cal.raw):  # as `calibrate` warned, not only there (audit 28 F4)
                said += "; as many weights per phase as trials or more, so that in-sample error says little"
            # the memory predictions stay the model's own: a calibrated sweep shipped a change predicted at 1.07x
            # memory that its own trials measured at 1.47x, over the limit (audit 28 F3)
            return f"{said}; {MEMORY_NOT_CALIBRATED}"
        if cal is None and space.trainer == "builtin":
            return (
                "not known: the built-in trainer's phases on a GPU are predicted, never measured; the published-runs "
                "figures are verl's (calibrate on a study of its trials: autotune calibrate STUDY)"
            )
        return None

    def model_key(self) -> str:
        cal = self.calibration
        if cal is not None:
            digest = hashlib.sha256(json.dumps(cal.raw, sort_keys=True, default=str).encode()).hexdigest()[:12]
            weights = f"calibration {cal.named()} ({digest})"
        else:
            weights = "the shipped weights"
        model = self.model_words or self.model or "as the space names it"
        c = self.cluster
        # the layout where it is not the 8 a node every study was predicted on before (audit 36 F3): a study of a
        # 2 x 4-GPU space predicted as 1 x 8 is another model's, and one of 8 a node keeps its key
        layout = (
            "" if c.gpus_per_node == min(VERL_GPUS_PER_NODE, c.world) else f" ({c.nodes} nodes × {c.gpus_per_node})"
        )
        return f"{c.device.name} × {c.world}{layout}, model {model}, {weights}"

    @property
    def device(self) -> DeviceKind:
        return "cpu" if self.calibration is not None and self.calibration.on_cpu else "cuda"

    def prepare(self, adapter: TrainerAdapter, space: Space) -> None:
        """Nothing is launched: no trainer to prepare."""

    def check(self, adapter: TrainerAdapter, base_config: list[str], flat: dict[str, Any], world: int) -> None:
        """Keys were checked when the space loaded; what the rollout engine refuses at start-up is refused here
        (`invalid`), as a real trial of it fails."""
        resolved = adapter.resolved(base_config, flat)
        problem = rollout_tp_problem(resolved, self.model) or context_problem(resolved, self.model_positions(resolved))
        if problem:
            raise InvalidConfig(problem)

    def model_positions(self, flat: dict[str, Any]) -> int:
        """The model's max_position_embeddings where its config.json says it, else 0 (`Shape.positions`)."""
        try:
            return find_shape(self.model or flat.get("actor_rollout_ref.model.path"), flat).positions
        except (ValueError, OSError, KeyError, TypeError):
            return 0

    def unmeasured_metrics(self, adapter: TrainerAdapter) -> tuple[str, ...]:
        return UNPREDICTED

    def knob_status(self, adapter: TrainerAdapter, key: str, device: DeviceKind, world: int) -> tuple[bool, str]:
        """Whether the cost model reads the knob at all; a knob it never reads cannot change a prediction."""
        return modelled_status(key, device, world)

    def space_for(self, space: Space, adapter: TrainerAdapter) -> tuple[Space, list[str]]:
        """Limits on what the cost model cannot predict (KL, reward) are skipped, and knobs it does not
        read are kept at their baseline values (returned, for the report)."""
        unmeasured = {lim.metric for lim in space.limits} & set(UNPREDICTED)
        space = dataclasses.replace(space, unmeasured=tuple(sorted(set(space.unmeasured) | unmeasured)))
        space, frozen = freeze_unmodelled(space)
        if self.device == "cpu":  # fitted on gloo trials: NCCL/CUDA variables changed nothing there, so no credit
            inert = sorted(set(inert_params(space, adapter.knob_status, "cpu")) - set(frozen))
            space, frozen = fixed_at_baseline(space, inert), sorted([*frozen, *inert])
        return space, frozen

    def measure(self, job: TrialJob) -> list[RunResult]:
        flat = job.adapter.resolved(
            job.space.base_config, job.config.flat
        )  # defaults and interpolations, as the trainer has them
        trial = job.space.trial  # on the ranks the trainer starts: verl's n_gpus_per_node x nnodes
        return [self.simulate(flat, job.config.env, job.adapter.ranks(flat, trial.world_size), trial.steps,
                              job.trial_dir)]  # fmt: skip

    def cost_model(self, flat: dict[str, Any], world: int | None = None) -> CostModel:
        """The model of a trial of `flat`, on `world` ranks where that is not the sweep's world (a space searching
        verl's `trainer.n_gpus_per_node` or `trainer.nnodes`), laid out as `for_sweep` lays the sweep's out."""
        shape = find_shape(self.model or flat.get("actor_rollout_ref.model.path"), flat)
        cal = self.calibration
        stated = self.sim.lengths() if self.sim is not None else {}

        def length(key: str) -> float | None:  # the space's `sim:` section, else the calibration's (`_calibrated`)
            value = stated.get(key)
            return value if value is not None else self._calibrated(key)

        spread = length("response_spread")
        if stated.get("response_spread") is None and stated.get("response_tokens") is not None:
            spread = None  # the calibration's spread is of its runs' lengths, not of the mean the space states
        return CostModel(
            self.layout(flat, world),
            shape,
            weights=cal.weights if cal is not None else {},
            param_bytes=(cal.param_bytes or 2) if cal is not None else 2,
            prompt_tokens=length("prompt_tokens"),
            response_tokens=length("response_tokens"),
            response_spread=spread,
            response_max=stated.get("response_max"),
            source=cal.source if cal is not None else "defaults from public figures",
            vllm_version=self.engine("vllm_version"),
            verl_version=self.engine("verl_version"),
        )

    def layout(self, flat: dict[str, Any], world: int | None) -> Cluster:
        """The sweep's cluster, or one of `world` ranks of the same device (nodes of the trial's
        `trainer.n_gpus_per_node`; one host for a CPU calibration)."""
        c = self.cluster
        if world is None or world == c.world:
            return c
        if self.device == "cpu":
            return Cluster(c.device, gpus_per_node=world, nodes=1)
        return cluster(c.device, world, gpus_per_node(flat, world))

    def engine(self, key: str) -> str | None:
        """The vLLM or verl version predicted for (`vllm_version`, `verl_version`): the space's `sim:` section's,
        else the one the calibration's runs logged (its weights were fitted there), else None (a current one)."""
        stated = getattr(self.sim, key) if self.sim is not None else None
        return stated if stated is not None else self._calibrated(key)

    def _calibrated(self, key: str) -> Any:
        """What the calibration's runs had for `key` (a mean length, the vLLM or verl version), or None; a length
        from its runs of the space's job where it has some (`job_runs`), else the mean over all its runs."""
        if self.calibration is None:
            return None
        if key in LENGTH_KEYS and self.job_runs:
            values = [v for r in self.job_runs if (v := getattr(r, key)) is not None]
            return statistics.fmean(values) if values else None
        return getattr(self.calibration, key)

    def _calibration_words(self) -> str:
        """Where the calibration's lengths come from: its run (or runs) of the space's job, else all its runs."""
        names = [r.name for r in self.job_runs]
        if len(names) > 1:
            return f"the calibration's runs {', '.join(names)} of this job (their mean)"
        return f"the calibration's run {names[0]}" if names else "the calibration"

    def _pooled_note(self, stated: dict[str, Any]) -> str:
        """That the calibration's lengths the sweep takes are a mean over runs none of which is the space's job, and
        what to do: a sweep of one of four logged runs predicted at their mean, said as "(the calibration)"."""
        cal = self.calibration
        if cal is None or self.job_runs or len(cal.runs) < 2:
            return ""
        if stated.get("prompt_tokens") is not None and stated.get("response_tokens") is not None:
            return ""
        responses = [r.response_tokens for r in cal.runs if r.response_tokens is not None]
        differing = (
            f" of differing lengths (mean response {min(responses):,.0f} to {max(responses):,.0f})"
            if responses and max(responses) - min(responses) >= 1
            else ""
        )
        why = (
            "none of them this space's job (model, data, length limits, batch, rollout.n, temperature, estimator)"
            if any(r.job is not None for r in cal.runs)
            else "a file of an earlier autotune keeps no run's own"
        )
        return (
            f"; the calibration's lengths are a mean over its {len(cal.runs)} runs{differing}, {why}: set sim: from "
            "your run's log (prompt_length/mean, response_length/mean, response_length/max)"
        )

    def lengths_note(self, space: Space, adapter: TrainerAdapter) -> str:
        """The response lengths the cost model assumes at the space's baseline, and where each comes from: the
        step's longest response sets how long generation runs, and without a measured one it is a guess."""
        from autotune.space.sampling import trial_config

        config = trial_config(space, adapter, dict(space.baseline))
        flat = adapter.resolved(space.base_config, config.flat)
        cost = self.cost_model(flat)
        w = cost.predict(flat, config.env, space.trial.world_size).workload
        stated = self.sim.lengths() if self.sim is not None else {}

        def source(key: str, otherwise: str) -> str:
            if stated.get(key) is not None:
                return f"sim.{key}"
            return self._calibration_words() if self._calibrated(key) is not None else otherwise

        if stated.get("response_max") is not None:
            how = "sim.response_max"
        elif stated.get("response_spread") is not None:
            how = "from the spread of sim.response_spread"
        elif self._calibrated("response_spread") is not None and stated.get("response_tokens") is None:
            how = "from the spread of " + (self._calibration_words() if self.job_runs else "the calibration's runs")
        else:
            how = "a guess: geometric lengths of the mean; set sim.response_max to a run's response_length/max"
        cut = cost.shape.positions  # the model's context, where its config.json says it
        capped = (
            (" (the model's context)" if w.response_cap < w.max_response else " (the length limit)")
            if (w.longest_response >= w.response_cap)
            else ""
        )
        response = source("response_tokens", "half of data.max_response_length" if w.response_cap >= w.max_response
                          else "half of where the model's context ends them")  # fmt: skip
        given = stated.get("response_tokens") or self._calibrated("response_tokens")
        if given is not None and float(given) > w.max_response:  # a calibration of runs with longer responses
            response = (
                f"{response}'s {float(given):,.0f}, cut to data.max_response_length: its runs answered at lengths "
                f"this config does not allow, so its fit may not carry to it"
            )
        engine = (
            "; its SGLang rollout predicted as vLLM's (the cost model has no SGLang terms)"
            if flat.get("actor_rollout_ref.rollout.name") == "sglang"
            else ""
        )  # the same numbers as a vLLM job's, said nowhere (audit 29 F7)
        for said in (context_cut_words(flat, cut), dynamic_sampling_words(flat)):  # audit 37 F14, F5
            engine += f"; {said}" if said else ""
        if cost.shape.vision:  # a vision-language model predicted as its language model alone (audit 39 F1)
            engine += f"; {VISION_WORDS}"
        if has_reward_model(flat):  # predicted as if it had none, said nowhere (audit 36 F10)
            engine += (
                f"; its {reward_model_words(flat)} not modelled (its scoring time and memory are in no prediction)"
            )
        return (
            f"mean prompt {w.prompt_tokens:.0f} tokens ({source('prompt_tokens', '0.8 of data.max_prompt_length')}), "
            f"mean response {w.response_tokens:.0f} ({response}), "
            f"the longest of {w.responses:,} responses a step {w.longest_response:,.0f}{capped} ({how}){engine}"
            + self._pooled_note(stated)
        )

    def weights_note(self, space: Space) -> str | None:
        """For a verl job predicted with the shipped weights: what calibrating on one of its runs did on the
        published runs, and the command (a built-in trainer's sweep calibrates on a study of its own trials); with a
        calibration, where its runs differ from what this sweep predicts (`_calibrated_on`)."""
        if self.calibration is not None:
            return self._calibrated_on(self.calibration, space)
        if space.trainer != "verl":
            return None
        from autotune.sim.accuracy import OWN_SETUP

        return (
            f"uncalibrated, from public figures; fitted on one real run of the same setup the model predicted the "
            f"setup's other published runs at a median {OWN_SETUP.calibrated:.0%} error, against "
            f"{OWN_SETUP.uncalibrated:.0%} uncalibrated ({OWN_SETUP.setups} setups): autotune calibrate --verl-log "
            "RUN.log --verl-config RUN_OVERRIDES.txt -o cal.json, then --calibration cal.json"
        )

    def _calibrated_on(self, cal: Calibration, space: Space) -> str | None:
        """Where the calibration's runs differ from what the sweep predicts: another GPU, another model, a critic
        they did not run, vLLM and verl versions (predicted at the logged ones unless the space names others), and a
        poor fit (a 0.5B model's calibration predicted a 7B space, a GRPO one a GAE space, without a word; audit 21
        F4, F10)."""
        said = []
        runs = cal.runs  # what each run was (files of earlier versions have none)
        model = _model_words(self.model, space)
        if runs and model and model not in {r.model for r in runs}:
            said.append(f"another model ({model}) than its runs' ({', '.join(sorted({str(r.model) for r in runs}))})")
        if runs and has_critic(space.base) and not any(r.critic for r in runs):
            said.append("a critic its runs did not have (values and update_critic keep the shipped weights)")
        fitted_on = cal.gpu
        if fitted_on and not cal.on_cpu and fitted_on != self.cluster.device.name:
            said.append(  # an L40S calibration predicted an H100 space without a word (audit 21 F4)
                f"{self.cluster.device.name} with weights fitted on runs on {fitted_on} (the GPU's own figures scale "
                "them; calibrate on runs of this GPU where there are some)"
            )
        for key, name in (("vllm_version", "vLLM"), ("verl_version", "verl")):
            logged, stated = getattr(cal, key), getattr(self.sim, key) if self.sim is not None else None
            if logged is not None and stated is None:
                said.append(f"{name} {logged} as its runs logged (sim.{key} names another)")
            elif logged is not None and stated != logged:
                said.append(f"{name} {stated} (sim.{key}), fitted on runs of {name} {logged}")
        fit = cal.fit_error
        poor = (
            f"; its fit is {fit:.0%} off its own runs (median), so its predictions may be as far off"
            if fit is not None and fit > POOR_FIT and cal.of_logs
            else ""
        )
        if not said and not poor:
            return None
        return cal.source + (f"; predicting {'; '.join(said)}" if said else "") + poor

    def simulate(self, flat: dict[str, Any], env: dict[str, str], world: int, steps: int, trial_dir: Path) -> RunResult:
        """`flat`: the trial's config as the trainer resolves it (`TrainerAdapter.resolved`), every key
        present, as `sim.predict.predict_trial` builds it."""
        cost = self.cost_model(flat, world)
        prediction = cost.predict(flat, env, world)
        record = {
            "phases": prediction.phases,
            "comm": prediction.comm,
            "memory_gib": prediction.memory.peak / 2**30,
            "device": self.cluster.device.name,  # what the numbers are predicted for, and with which weights
            "gpus": world,
            "weights": cost.source,
        }
        (trial_dir / "prediction.json").write_text(json.dumps(record, indent=1))
        if prediction.oom:
            return RunResult("failed", "oom", prediction.oom, None, [], 0.0, None)
        rows = prediction.rows(steps)
        with metrics_path(trial_dir).open("w") as f:
            for row in rows:
                f.write(json.dumps(row) + "\n")
        return RunResult("complete", None, "", 0, rows, 0.0, 0.0)


def read_prediction(trial_dir: str | Path | None) -> dict[str, Any]:
    """A simulated trial's `prediction.json` (what `simulate` writes: phases, memory, the device it was predicted
    for, the weights), or {} when the trial has none."""
    if not trial_dir:
        return {}
    try:
        data = json.loads((Path(trial_dir) / "prediction.json").read_text())
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def modelled_status(key: str, device: DeviceKind, world: int) -> tuple[bool, str]:
    """(active, why) of a knob under the cost model: active when the model reads it."""
    if key in modelled_keys():
        return True, "modelled by the cost model"
    return False, "the cost model does not use it (a simulated sweep keeps it at its baseline value)"


def freeze_unmodelled(space: Space) -> tuple[Space, list[str]]:
    """The space with the knobs the cost model does not read fixed at their baseline values, and their names."""
    names = sorted(inert_params(space, modelled_status, "cuda"))
    return fixed_at_baseline(space, names), names


def space_gpus_per_node(space: Space) -> int:
    """The GPUs per node a space's trials run on: a verl space's `trainer.n_gpus_per_node` at its baseline (verl's
    default 8 where it sets none; its whole world where it sets `trainer.nnodes` 1; a param of it is kept at its
    baseline under the cost model, which reads no other value of it). The built-in trainer's
    `trainer.n_gpus_per_node` is inert (its ranks are `torchrun --standalone`'s on one host): its world is laid out
    8 a node as before, one node up to 8 GPUs."""
    if space.trainer != "verl":
        return VERL_GPUS_PER_NODE
    from autotune.adapters import get_adapter
    from autotune.space.sampling import trial_config

    adapter = get_adapter(space.trainer, space.command)
    return gpus_per_node(trial_config(space, adapter, dict(space.baseline)).flat, space.trial.world_size)


def job_runs(cal: Calibration, space: Space, model: str | None) -> tuple[CalibratedRun, ...]:
    """The calibration's logged runs of the space's job: their values of `model.JOB_KEYS` are those of the space's
    baseline as verl resolves it, and their model the one the sweep predicts (`--model` may name another). None in
    a file of an earlier version, which keeps no run's job."""
    if not any(r.job is not None for r in cal.runs):
        return ()
    from autotune.adapters import get_adapter
    from autotune.space.sampling import trial_config

    adapter = get_adapter(space.trainer, space.command)
    job = job_of(adapter.resolved(space.base_config, trial_config(space, adapter, dict(space.baseline)).flat))
    return tuple(r for r in cal.runs if r.job == job and (model is None or r.model == model))
