"""The backend registry and options, the cost model as a fidelity (not a backend), and the rules the
controller's backends keep: Optuna's public API only, trial results through the trial record."""

from __future__ import annotations

import ast
from collections.abc import Callable
from pathlib import Path
from typing import ClassVar

import pytest

from autotune.space.loader import load_space
from autotune.study.storage import StudyInfo, StudyPaths, counted, load_study
from autotune.sweep.backends.base import BACKENDS, Backend, BackendOptions, get_backend
from autotune.sweep.driver import SweepOptions
from autotune.trial.record import OUTCOMES, TrialRecord, Worker
from tests.autotune.conftest import simulated_study

PACKAGE = Path(__file__).resolve().parents[3] / "autotune"
BACKENDS_DIR = PACKAGE / "sweep" / "backends"
CONTROLLER = sorted([*BACKENDS_DIR.glob("*.py"), *(PACKAGE / "sweep").glob("*.py")])


@pytest.fixture(scope="module")
def space():
    return load_space("fsdp3d", device="cpu")


def test_the_registry_lists_the_backend_files_and_loads_each_on_demand():
    files = sorted(p.name[: -len("_backend.py")] for p in BACKENDS_DIR.glob("*_backend.py"))
    assert files == ["optuna", "ray"] and list(BACKENDS) == files
    for name in BACKENDS:
        cls = get_backend(name)
        assert issubclass(cls, Backend) and cls.name == name


def test_an_unknown_backend_is_refused_with_the_choices():
    with pytest.raises(ValueError, match=r"unknown backend 'slurm': choose one of optuna, ray"):
        get_backend("slurm")


def test_backend_options_state_the_rule_and_the_fix(space, tmp_path):
    paths = StudyPaths(tmp_path, "x")
    adapter = object()
    with pytest.raises(ValueError, match=r"n_trials must be 0 or more, got -1; pass --trials N"):
        BackendOptions(space, adapter, paths, "sqlite://", -1)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match=r"max_concurrent must be 1 or more, got 0; pass --max-concurrent"):
        BackendOptions(space, adapter, paths, "sqlite://", 3, max_concurrent=0)  # type: ignore[arg-type]


def test_sim_is_a_fidelity_of_the_optuna_backend(space, tmp_path):
    paths = StudyPaths(tmp_path, "x")
    new = SweepOptions(space=space, paths=paths, n_trials=3, fidelity=("sim",))
    assert (new.backend, new.simulated) == ("optuna", True)
    staged = SweepOptions(space=space, paths=paths, n_trials=3, backend="ray", fidelity=("sim", "real"))
    assert (staged.backend, staged.simulated) == ("ray", False)
    with pytest.raises(ValueError, match=r"backend must be one of optuna, ray, got 'sim'"):
        SweepOptions(space=space, paths=paths, n_trials=3, backend="sim")  # a fidelity, not a backend
    with pytest.raises(ValueError, match=r"backend must be one of optuna, ray, got 'slurm'"):
        SweepOptions(space=space, paths=paths, n_trials=3, backend="slurm")
    with pytest.raises(ValueError, match=r"fidelity must be sim, real or sim,real, got 'real,sim'"):
        SweepOptions(space=space, paths=paths, n_trials=3, fidelity=("real", "sim"))


def test_a_simulated_sweep_runs_on_the_optuna_backend_and_says_sim(tmp_path):
    _, paths = simulated_study(tmp_path / "runs", "sim8", 6)
    study = load_study(paths)
    info = StudyInfo.of(study)
    assert (info.backend, info.fidelity, info.device) == ("optuna", "sim", "cuda")
    assert "env.NCCL_ALGO" in info.sim_unmodelled  # the cost model does not read NCCL's algorithm choice
    assert "algorithm.kl_ctrl.kl_coef" not in info.sim_unmodelled  # held by the throughput stage before that
    finished = [t for t in study.get_trials() if counted(t)]
    assert len(finished) == 6 and all(TrialRecord.of(t).outcome in OUTCOMES for t in finished)
    assert TrialRecord.of(finished[0]).baseline


def test_the_report_is_rewritten_when_the_sweeps_trials_end(tmp_path):
    """The per-trial report hook writes at most every 20 s: trials finishing within 20 s of its last write left
    a page that said "only the baseline ran" through confirmation and the whole quality stage (audit 24 F3)."""
    from autotune.space.loader import load_space
    from autotune.study.progress import SweepProgress
    from autotune.sweep.driver import SweepOptions, report_hook, run_sweep

    space, paths = load_space("fsdp3d-8gpu", device="cuda"), StudyPaths(tmp_path, "sim")
    progress = SweepProgress(5, "perf/throughput")
    progress.quiet = True
    hooked: list[int] = []  # what the throttled hook wrote: the first trial's study only
    refreshed: list[int] = []
    hook = report_hook(lambda s: hooked.append(sum(counted(t) for t in s.get_trials())))
    finished = lambda s: refreshed.append(sum(counted(t) for t in s.get_trials()))  # noqa: E731
    run_sweep(SweepOptions(space=space, paths=paths, n_trials=5, fidelity=("sim",), hooks=[hook], refresh=finished),
              progress)  # fmt: skip
    assert hooked == [1] and refreshed == [5]


def private_uses(path: Path) -> list[str]:
    """`x._name` where x is not `self`: an attribute some library keeps to itself."""
    found = []
    for node in ast.walk(ast.parse(path.read_text())):
        if not isinstance(node, ast.Attribute) or not node.attr.startswith("_") or node.attr.startswith("__"):
            continue
        if not (isinstance(node.value, ast.Name) and node.value.id == "self"):
            found.append(f"{path.name}:{node.lineno} .{node.attr}")
    return found


def string_key_uses(path: Path) -> list[str]:
    """Reads or writes of trial/study user attributes by name, instead of TrialRecord / StudyInfo."""
    found = []
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Attribute) and node.attr in ("user_attrs", "set_user_attr", "set_trial_user_attr"):
            found.append(f"{path.name}:{node.lineno} .{node.attr}")
    return found


def test_backends_use_only_public_optuna_api_and_the_trial_record(tmp_path):
    assert len(CONTROLLER) >= 6
    assert [u for p in CONTROLLER for u in private_uses(p)] == []
    assert [u for p in CONTROLLER for u in string_key_uses(p)] == []
    old = tmp_path / "old.py"  # what the backends did before: the checks see it
    old.write_text(
        "def f(study, trial, self):\n"
        "    study._storage.record_heartbeat(trial._trial_id)\n"
        "    self._own = trial.user_attrs.get('baseline')\n"
    )
    assert sorted(private_uses(old)) == ["old.py:2 ._storage", "old.py:2 ._trial_id"]
    assert string_key_uses(old) == ["old.py:3 .user_attrs"]


def test_a_result_recorded_before_the_driver_died_is_not_counted_and_the_trial_is_retried(space, tmp_path):
    """The driver was killed between recording a trial's result and telling Optuna: the trial is
    RUNNING with `outcome: complete` and a dead worker. Recovery must fail it without an outcome, so it
    neither counts towards --trials nor passes for a finished duplicate of its own retry."""
    import optuna

    from autotune.study.storage import open_storage, storage_url
    from autotune.sweep.backends.lifecycle import create_or_load, recover_interrupted

    paths = StudyPaths(tmp_path / "runs", "killed")
    paths.root.mkdir(parents=True)
    storage = open_storage(storage_url(paths, None))
    study = create_or_load(space, paths, storage)
    trial = study.ask()
    TrialRecord(outcome="complete", reason=None, worker=_dead_worker()).save(trial, ("outcome", "reason", "worker"))
    notes: list[str] = []
    recover_interrupted(study, storage, notes.append)
    frozen = study.trials[trial.number]
    assert frozen.state == optuna.trial.TrialState.FAIL
    assert (TrialRecord.of(frozen).outcome, TrialRecord.of(frozen).reason) == (None, "interrupted")
    assert not counted(frozen)
    retry = [t for t in study.get_trials() if t.system_attrs.get("failed_trial") == trial.number]
    assert len(retry) == 1 and retry[0].state == optuna.trial.TrialState.WAITING
    assert notes and f"trial #{trial.number} was interrupted" in notes[0]
    # a second worker that saw the same dead worker recovers it too, a moment later: it died of Optuna's
    # UpdateFinishedTrialError (audit 17 F1); now it finds the trial failed and leaves it, no second retry
    from autotune.sweep.backends.lifecycle import fail_interrupted, trial_id

    assert not fail_interrupted(study, storage, trial_id(storage, study.study_name, trial.number))
    assert len([t for t in study.get_trials() if t.system_attrs.get("failed_trial") == trial.number]) == 1
    assert "retrying it" in notes[0]
    # the retry interrupted too: not run a third time, and said so (it said "retrying it" and sampled another
    # configuration; audit 28 F15)
    again = study.ask()  # takes the queued retry
    assert again.number == retry[0].number
    TrialRecord(worker=_dead_worker()).save(again, ("worker",))
    recover_interrupted(study, storage, notes.append)
    assert f"a retry of trial #{trial.number}: interrupted 2 times, its configuration is not run again" in notes[-1]
    assert "retrying it" not in notes[-1]
    assert not [t for t in study.get_trials() if t.state == optuna.trial.TrialState.WAITING]


def _dead_worker() -> Worker:
    """A worker on this host whose process has ended."""
    import socket
    import subprocess
    import sys

    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True)
    return Worker(host=socket.gethostname(), pid=int(dead.stdout))


@pytest.mark.timeout(300)  # a worker that never sees its colleague die waits for it: fail, do not hang CI
def test_a_worker_recovers_a_dead_colleagues_trial_instead_of_stopping_short_or_waiting_on_it(tmp_path):
    """Two workers, one killed mid-trial (simulated sweep; the colleague's trials are made by a hook after the
    first trial: one RUNNING with a dead worker, and one RUNNING with a dead worker and the params of a queued
    trial the loop asks next). The survivor counted the first as running in another worker and stopped one trial
    short of --trials (audit 17 F2); it waited silently for the second until Optuna's 30 s grace (F3). A third
    runs in a live worker killed while the survivor, out of trials to ask, waits for it: run again here too."""
    import socket
    import subprocess
    import sys
    import threading

    import optuna

    from autotune.study.progress import SweepProgress
    from autotune.study.storage import open_storage, storage_url
    from autotune.sweep.backends.lifecycle import trial_id
    from autotune.sweep.driver import run_sweep

    space = load_space("fsdp3d-8gpu", device="cuda")
    paths = StudyPaths(tmp_path / "runs", "dead")
    made: list[int] = []

    def colleague_dies(study: optuna.Study, number: int) -> None:
        if made:
            return
        base = study.trials[0]  # the baseline: its params as the sweep draws them (some knobs held by the model)
        name, choices = next(
            (k, d.choices)
            for k, d in base.distributions.items()
            if isinstance(d, optuna.distributions.CategoricalDistribution)
        )
        same = {**base.params, name: next(c for c in choices if c != base.params[name])}
        lost = study.ask()  # asked, given a worker, killed before its params were drawn
        TrialRecord(worker=_dead_worker()).save(lost, ("worker",))
        study.enqueue_trial(same)
        twin = study.ask(fixed_distributions=base.distributions)  # killed running the configuration queued next
        TrialRecord(worker=_dead_worker()).save(twin, ("worker",))
        storage = open_storage(storage_url(paths, None))
        storage.record_heartbeat(trial_id(storage, study.study_name, twin.number))  # it ran: Optuna fails it in 30 s
        last = study.ask()  # still running when the survivor runs out of trials to ask; its worker killed then
        TrialRecord(worker=Worker(host=socket.gethostname(), pid=alive.pid)).save(last, ("worker",))
        study.enqueue_trial(same)
        made.extend([lost.number, twin.number, last.number])

    alive = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(120)"])
    killer = threading.Timer(60.0, alive.kill)  # only if the survivor never says it waits for that worker's trial
    killer.start()

    notes: list[str] = []

    def note(line: str) -> None:  # the live worker dies once the survivor waits for its trial (a 3 s timer killed it
        notes.append(line)  # before the survivor got there on a loaded 2-core machine: it then never waited)
        if made and f"waiting for trial #{made[-1]} of another worker" in line:
            threading.Timer(0.5, alive.kill).start()

    progress = SweepProgress(6, "perf/throughput")
    progress.quiet = True
    progress.note = note  # type: ignore[method-assign]
    try:
        study = run_sweep(
            SweepOptions(space=space, paths=paths, n_trials=6, fidelity=("sim",), hooks=[colleague_dies]), progress
        )
    finally:
        killer.cancel()
        alive.kill()
        alive.wait()
    trials = study.get_trials()
    assert len([t for t in trials if counted(t)]) == 6, [(t.number, t.state, t.params) for t in trials]
    lost, twin, last = made
    for n in made:
        assert trials[n].state == optuna.trial.TrialState.FAIL and TrialRecord.of(trials[n]).reason == "interrupted"
    said = "\n".join(notes)
    assert f"waiting for trial #{twin}, run by worker pid " in said, (
        said,
        [(t.number, t.state, t.params) for t in trials],
    )
    assert f"trial #{lost} was interrupted" in said and f"trial #{twin} was interrupted" in said, said
    assert f"waiting for trial #{last} of another worker: one whose worker dies is run again here" in said, said
    assert f"trial #{last} was interrupted (worker pid {alive.pid} is gone)" in said, said


def test_fidelities_and_trainers_come_from_registries(space, tmp_path):
    """How a trial is measured is an object found by name (not a flag on the trainer adapter), and a
    trainer is found by name the way a backend is."""
    from autotune.adapters import TRAINERS, get_adapter
    from autotune.sim.sim_fidelity import CostModelFidelity
    from autotune.sweep.fidelities import FIDELITIES, get_fidelity
    from autotune.trial.fidelity import RealRun

    assert {"real": RealRun, "sim": CostModelFidelity} == FIDELITIES
    with pytest.raises(ValueError, match=r"unknown fidelity 'exact': choose one of real, sim"):
        get_fidelity("exact", space)
    sim = SweepOptions(space=space, paths=StudyPaths(tmp_path, "x"), n_trials=3, fidelity=("sim",)).make_fidelity()
    assert isinstance(sim, CostModelFidelity) and (sim.device, sim.deterministic) == ("cuda", True)
    real = SweepOptions(space=space, paths=StudyPaths(tmp_path, "y"), n_trials=3).make_fidelity()
    assert isinstance(real, RealRun) and (real.device, real.deterministic) == (None, False)
    assert TRAINERS == ("builtin", "verl")
    assert [get_adapter(name).name for name in TRAINERS] == list(TRAINERS)
    assert not any(hasattr(get_adapter(name), "simulated") for name in TRAINERS)
    with pytest.raises(ValueError, match=r"unknown trainer 'trl' \(available: builtin, verl\)"):
        get_adapter("trl")


def test_ray_runs_as_many_trials_at_once_as_the_cluster_holds():
    """Tune asked the searcher for more trials than fit; each waited as a running trial of the study (and a killed
    controller left them all interrupted). By hand: 2 CPUs hold one 2-CPU trial, 16 CPUs and 8 GPUs four 2-GPU ones."""
    from autotune.sweep.backends.ray_backend import trials_that_fit

    assert trials_that_fit({"CPU": 2.0, "memory": 1e10}, {"cpu": 2}) == 1
    assert trials_that_fit({"CPU": 16.0, "GPU": 8.0}, {"gpu": 2, "cpu": 1}) == 4
    assert trials_that_fit({"CPU": 16.0}, {"gpu": 1}) is None  # no GPU yet: Tune's own limit


def test_ray_says_when_the_cluster_cannot_hold_one_trial():
    """A head started with one core (`ray start --head --num-cpus 1`) and a 2-rank trial: Tune waited for the
    resources without a word and the sweep hung (audit 20). By hand: 1 CPU lacks a 2-CPU trial, 8 CPUs without a
    GPU lack a 1-GPU one; 2 CPUs hold a 2-CPU trial."""
    from autotune.sweep.backends.ray_backend import short_of

    assert short_of({"CPU": 1.0, "memory": 1e10}, {"cpu": 2}) == "a trial needs 2 CPU; the whole cluster has 1 CPU"
    assert (
        short_of({"CPU": 8.0}, {"gpu": 1, "cpu": 1}) == "a trial needs 1 GPU, 1 CPU; the whole cluster has 0 GPU, 8 CPU"
    )
    assert short_of({"CPU": 2.0}, {"cpu": 2}) is None


def test_the_simulated_stage_says_what_it_predicts_and_warns_when_the_real_trials_run_on_a_cpu(tmp_path, monkeypatch):
    """`--fidelity sim,real` on the shipped CPU space predicted an H100 without a word, and its top-k all broke
    the memory limit on the CPU (audit 15 F1); with a CPU calibration it predicts this machine, and says so."""
    from autotune.space.loader import load_space
    from autotune.sweep import driver
    from autotune.sweep.driver import _predicts

    monkeypatch.setattr(driver, "device_kind", lambda: "cpu")  # this machine's kind (CI has no GPU either)
    space = load_space("fsdp3d", device="cpu")
    paths = StudyPaths(tmp_path, "x-sim")
    said = _predicts(SweepOptions(space=space, paths=paths, n_trials=3, fidelity=("sim",)))
    assert said.startswith(" (the cost model predicts H100 SXM × 2)") and "run on this machine's CPU" in said, said
    cpu = {"device": "cpu", "peak_flops": 5e10, "source": "fitted on 6 trials", "weights": {}}
    said = _predicts(SweepOptions(space=space, paths=paths, n_trials=3, fidelity=("sim",), calibration=cpu))
    assert said.startswith(" (the cost model predicts ") and "CPU" in said and "does not model" not in said, said


def test_the_ray_searcher_reuses_a_repeat_and_asks_nothing_past_the_studys_trials(tmp_path):
    """Tune's searcher on the study (no Ray cluster needed to ask it): a configuration already run ran again on Ray
    (5 of 6 trials of a two-configuration space, audit 17 F5), and two drivers ran 8 trials of `--trials 4` (F4).
    The small space without its algorithm knob has 4 configurations: 6 trials are 4 run and 2 reused."""
    from ray.tune.search import Searcher

    from autotune.adapters import get_adapter
    from autotune.space.stages import throughput_stage
    from autotune.study.storage import open_storage, storage_url
    from autotune.sweep.backends.lifecycle import create_or_load, tell_outcome
    from autotune.sweep.backends.ray_search import NUMBER, StudySearch
    from tests.autotune.conftest import write_space

    space = throughput_stage(load_space(str(write_space(tmp_path))))
    paths = StudyPaths(tmp_path / "runs", "ray")
    paths.root.mkdir(parents=True)
    storage = open_storage(storage_url(paths, None))
    create_or_load(space, paths, storage)
    defaults = get_adapter(space.trainer, space.command).defaults(space.base_config)
    repeats: list[tuple[int, int, int]] = []
    drivers = [
        StudySearch(space, defaults, storage, paths, w, n_trials=6, reused=lambda *a: repeats.append(a)) for w in (0, 1)
    ]
    ran: list[dict] = []
    for k in range(20):  # the two drivers ask in turn, each finishing what it was given at once
        searcher = drivers[k % 2]
        config = searcher.suggest(f"t{k}")
        if config == Searcher.FINISHED:
            continue
        assert config is not None
        ran.append({n: v for n, v in config.items() if n != NUMBER})
        trial = searcher.asked[f"t{k}"]
        record = TrialRecord(outcome="complete", key_metrics={"throughput": 100.0 + k})
        tell_outcome(searcher.study, trial, space, record, [100.0 + k])
    study = load_study(paths)
    assert len([t for t in study.get_trials() if counted(t)]) == 6
    assert len(ran) == 4 and all(ran.count(c) == 1 for c in ran), ran  # every configuration run once
    assert len(repeats) == 2 and all(copy < number for _, number, copy in repeats), repeats
    assert all(drivers[k].suggest("late") == Searcher.FINISHED for k in (0, 1))


class _FakeTuner:
    """Tune's part of `RayBackend._fit` without a Ray cluster: the searcher asked for configurations the way Tune's
    SearchGenerator asks (up to `num_samples` configurations; None is "nothing yet", asked again; FINISHED ends),
    each Tune trial finished at once as `run_trial` would report it (complete, throughput 100 + its number).
    `on_wait` runs when the searcher answers None."""

    fits: ClassVar[list[dict]] = []
    on_wait: Callable[[], None] = staticmethod(lambda: None)

    def __init__(self, trainable: object, tune_config: object, run_config: object) -> None:
        self.config = tune_config

    def fit(self) -> None:
        import json

        from ray.tune.search import Searcher

        from autotune.sweep.backends.ray_search import NUMBER

        searcher, budget = self.config.search_alg, self.config.num_samples  # type: ignore[attr-defined]
        fit: dict = {"num_samples": budget, "configs": []}
        _FakeTuner.fits.append(fit)
        for k in range(200):  # a searcher that never ends fails the test, not hangs it
            if len(fit["configs"]) >= budget:
                return
            config = searcher.suggest(f"t{k}")
            if config == Searcher.FINISHED:
                return
            if config is None:
                _FakeTuner.on_wait()
                continue
            fit["configs"].append(config)
            value = 100.0 + config[NUMBER]
            record = TrialRecord(outcome="complete", key_metrics={"perf/throughput": value})
            result = {"autotune_record": json.dumps(record.attrs()), "autotune_objectives": json.dumps([value])}
            searcher.on_trial_complete(f"t{k}", result)
        raise AssertionError("the searcher never ended the fit")


@pytest.fixture
def fake_tune(monkeypatch):
    """`RayBackend.run` with Tune faked (`_FakeTuner`) and no Ray started: a 2-CPU cluster, one trial at a time."""
    import ray
    from ray import tune

    from autotune.sweep.backends import ray_backend, ray_search

    _FakeTuner.fits = []
    _FakeTuner.on_wait = staticmethod(lambda: None)
    monkeypatch.setattr(tune, "Tuner", _FakeTuner)
    monkeypatch.setattr(tune, "with_parameters", lambda trainable, **kwargs: trainable)
    monkeypatch.setattr(tune, "with_resources", lambda trainable, resources: trainable)
    monkeypatch.setattr(ray, "cluster_resources", lambda: {"CPU": 2.0})
    monkeypatch.setattr(ray, "shutdown", lambda: None)
    monkeypatch.setattr(ray_backend.RayBackend, "start_ray", lambda self: None)
    monkeypatch.setattr(ray_backend.RayBackend, "warm", lambda self: False)
    monkeypatch.setattr(ray_search, "POLL_S", 0.0)  # a waiting searcher reads the study at each ask
    return _FakeTuner


def _ray_driver(space, paths: StudyPaths, n_trials: int, notes: list[str]) -> Backend:
    from autotune.adapters import get_adapter
    from autotune.study.progress import SweepProgress
    from autotune.study.storage import storage_url
    from autotune.sweep.backends.ray_backend import RayBackend

    progress = SweepProgress(n_trials, "perf/throughput")
    progress.note = notes.append  # type: ignore[method-assign]
    adapter = get_adapter(space.trainer, space.command)
    return RayBackend(BackendOptions(space, adapter, paths, storage_url(paths, None), n_trials, progress=progress))


def _local_trial(study, space, worker: Worker | None = None, value: float | None = None):
    """A local worker's trial: asked and sampled; told complete with `value`, else left running by `worker`."""
    from autotune.adapters import get_adapter
    from autotune.space.sampling import suggest
    from autotune.sweep.backends.lifecycle import tell_outcome, this_worker

    trial = study.ask()
    suggest(trial, space, get_adapter(space.trainer, space.command).defaults(space.base_config))
    TrialRecord(worker=worker or this_worker()).save(trial, ("worker",))
    if value is not None:
        tell_outcome(study, trial, space, TrialRecord(outcome="complete"), [value])
    return trial


def test_a_ray_driver_samples_with_the_index_it_joined_with_not_that_of_a_worker_joining_later(
    space, tmp_path, fake_tune, monkeypatch
):
    """A Ray driver joined the study, then a local worker (index 1) ran the baseline while the driver waited for it;
    the driver's searcher, made then, read the study's worker count (2), took index 1 too, and its sampler (the same
    seed) drew the local worker's configurations: #1 (local) = #2 (Ray), run at the same time (audit 31 F2). The
    searcher takes the index the driver joined with (0): its first configuration is not the local worker's."""
    import optuna

    from autotune.study.storage import storage_url
    from autotune.sweep.backends import ray_backend
    from autotune.sweep.backends.lifecycle import create_or_load, tell_outcome

    paths = StudyPaths(tmp_path / "runs", "mixed")
    notes: list[str] = []
    driver = _ray_driver(space, paths, 3, notes)
    local: dict = {}

    def local_joins_and_runs_the_baseline(self) -> None:  # while the driver starts Ray (it then finds the baseline)
        local["study"] = create_or_load(space, paths, storage_url(paths, None))
        _local_trial(local["study"], space, value=100.0)
        local["trial"] = _local_trial(local["study"], space)  # its next trial: running as the driver samples

    def local_trial_ends() -> None:  # the driver, its own trial done, waits for it (3 trials)
        if local["study"].trials[local["trial"].number].state == optuna.trial.TrialState.RUNNING:
            tell_outcome(local["study"], local["trial"], space, TrialRecord(outcome="complete"), [90.0])

    monkeypatch.setattr(ray_backend.RayBackend, "start_ray", local_joins_and_runs_the_baseline)
    fake_tune.on_wait = staticmethod(local_trial_ends)
    study = driver.run()
    assert StudyInfo.of(study).workers == 2  # the local worker joined second: index 1
    # with the local worker's index the driver drew #1's params as #2: it waited for #1 and took its result
    assert [c[ray_backend.NUMBER] for c in fake_tune.fits[0]["configs"]] == [2], notes
    assert study.trials[2].params != local["trial"].params, notes
    assert driver.worker == 0  # as it joined
    assert len([t for t in study.get_trials() if counted(t)]) == 3


def test_the_ray_searcher_waits_for_a_running_trial_with_the_same_params_and_takes_its_result(space, tmp_path):
    """A configuration another worker is running was run again by the Ray driver at the same time (audit 31 F2):
    the searcher only looked for finished repeats. Now the repeat waits (Tune is answered None and asks again),
    says whose trial it waits for as the local backend does, and once that trial has finished takes its result and
    asks the next configuration."""
    import optuna
    from ray.tune.search import Searcher

    from autotune.adapters import get_adapter
    from autotune.study.storage import open_storage, storage_url
    from autotune.sweep.backends import ray_backend
    from autotune.sweep.backends.lifecycle import create_or_load, tell_outcome, this_worker

    paths = StudyPaths(tmp_path / "runs", "twice")
    paths.root.mkdir(parents=True)
    storage = open_storage(storage_url(paths, None))
    study = create_or_load(space, paths, storage)
    _local_trial(study, space, value=100.0)  # the baseline
    running = _local_trial(study, space)  # #1, run by this process (alive)
    study.enqueue_trial(running.params)  # what the driver's sampler draws next
    defaults = get_adapter(space.trainer, space.command).defaults(space.base_config)
    repeats: list[tuple[int, int, int]] = []
    searcher = ray_backend.StudySearch(
        space, defaults, storage, paths, 1, n_trials=4, reused=lambda *a: repeats.append(a)
    )
    notes: list[str] = []
    searcher.note = notes.append
    assert searcher.suggest("t0") is None  # not run beside #1
    me = this_worker()
    said = f"waiting for trial #1, run by worker pid {me.pid} on {me.host}: the same configuration as trial #2, whose"
    assert notes == [f"{said} result it takes"], notes
    assert not searcher.asked and study.trials[2].state == optuna.trial.TrialState.RUNNING
    searcher.look_at = 0.0  # past POLL_S: the study is read again
    assert searcher.suggest("t1") is None and len(notes) == 1  # still running; said once
    tell_outcome(study, running, space, TrialRecord(outcome="complete"), [150.0])  # #1 finishes
    searcher.look_at = 0.0
    config = searcher.suggest("t2")  # #2 takes #1's result; the next configuration is asked
    assert config not in (None, Searcher.FINISHED) and config[ray_backend.NUMBER] == 3, config
    repeat = study.trials[2]
    assert repeat.state == optuna.trial.TrialState.COMPLETE and repeat.values == [150.0]
    assert TrialRecord.of(repeat).duplicate_of == 1 and repeats == [(3, 2, 1)]


def test_a_ray_driver_retries_a_dead_local_workers_trial_instead_of_stopping_short(space, tmp_path, fake_tune):
    """A local worker killed mid-trial beside a Ray driver: the driver counted its trial as running, stopped with 4
    of 5 finished and left it running (audit 31 F3). Here (Tune faked) the driver plans 2 trials beside the local
    worker's running #1 and runs them; it then waits for #1 instead of ending, says so, and when the local worker
    dies fails #1, queues it again and runs the retry, though Tune's planned 2 samples are spent: 4 of 4 finished."""
    import socket
    import subprocess
    import sys

    from autotune.study.storage import storage_url
    from autotune.sweep.backends.lifecycle import create_or_load

    paths = StudyPaths(tmp_path / "runs", "dies")
    study = create_or_load(space, paths, storage_url(paths, None))
    _local_trial(study, space, value=100.0)  # the baseline
    alive = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        lost = _local_trial(study, space, Worker(host=socket.gethostname(), pid=alive.pid))  # #1, running

        def local_worker_dies() -> None:  # once the driver waits for it
            alive.kill()
            alive.wait()

        fake_tune.on_wait = staticmethod(local_worker_dies)
        notes: list[str] = []
        study = _ray_driver(space, paths, 4, notes).run()
    finally:
        alive.kill()
        alive.wait()
    said = "\n".join(notes)
    assert "ray: 2 trial(s), 1 at a time" in said, said
    assert "waiting for trial #1 of another worker: one whose worker dies is run again here" in said, said
    assert f"trial #1 was interrupted (worker pid {alive.pid} is gone): retrying it" in said, said
    trials = study.get_trials()
    assert len([t for t in trials if counted(t)]) == 4, [(t.number, t.state) for t in trials]
    assert TrialRecord.of(trials[1]).reason == "interrupted"
    retry = [t for t in trials if t.system_attrs.get("failed_trial") == 1]
    assert len(retry) == 1 and counted(retry[0]) and retry[0].params == lost.params
    assert [c["__autotune_trial_number"] for c in fake_tune.fits[0]["configs"]] == [2, 3, 4]
    assert "ray: the study holds 4 finished trials" in said, said


def test_a_ray_driver_whose_trials_other_workers_run_waits_and_runs_the_one_whose_worker_died(
    space, tmp_path, fake_tune
):
    """--trials already filled by a local worker's running trial as a Ray driver starts: the driver returned at once
    (no Ray started), and when that worker died the study ended one short of --trials (audit 31, left in stop 64).
    It now waits without Ray, and when the worker dies runs its trial again (Tune faked: no Ray here)."""
    import socket
    import subprocess
    import sys
    import threading

    from autotune.study.storage import storage_url
    from autotune.sweep.backends.lifecycle import create_or_load

    paths = StudyPaths(tmp_path / "runs", "full")
    study = create_or_load(space, paths, storage_url(paths, None))
    _local_trial(study, space, value=100.0)  # the baseline
    alive = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    killer = threading.Timer(1.5, alive.kill)  # the local worker dies while the driver waits
    try:
        lost = _local_trial(study, space, Worker(host=socket.gethostname(), pid=alive.pid))  # #1, the last place
        killer.start()
        notes: list[str] = []
        study = _ray_driver(space, paths, 2, notes).run()
    finally:
        killer.cancel()
        alive.kill()
        alive.wait()
    said = "\n".join(notes)
    assert "waiting for trial #1 of another worker: one whose worker dies is run again here" in said, said
    trials = study.get_trials()
    assert len([t for t in trials if counted(t)]) == 2, [(t.number, t.state) for t in trials]
    retry = [t for t in trials if t.system_attrs.get("failed_trial") == 1]
    assert len(retry) == 1 and counted(retry[0]) and retry[0].params == lost.params
    assert [c["__autotune_trial_number"] for c in fake_tune.fits[0]["configs"]] == [2]


def test_a_ray_trial_whose_worker_died_is_queued_again_and_its_late_result_dropped_with_a_note(space, tmp_path):
    """The searcher now recovers dead workers' trials before it counts (audit 31 F3), its own Ray trials too: one
    whose Ray worker died is failed and queued again at the next ask, before Tune reports it. Tune's late report of
    that trial must not raise Optuna's UpdateFinishedTrialError out of the searcher: it is dropped, said."""
    import json

    from autotune.sweep.backends.ray_search import NUMBER

    study, searcher = _searcher_beside_a_baseline(space, tmp_path, "late")
    notes: list[str] = []
    searcher.note = notes.append
    first = searcher.suggest("t0")
    assert first is not None and first[NUMBER] == 1
    TrialRecord(worker=_dead_worker()).save(searcher.asked["t0"], ("worker",))  # its Ray worker died
    retry = searcher.suggest("t1")
    assert (
        retry is not None
        and retry[NUMBER] == 2
        and {k: v for k, v in retry.items() if k != NUMBER} == {k: v for k, v in first.items() if k != NUMBER}
    )
    record = TrialRecord(outcome="complete", key_metrics={"perf/throughput": 120.0})
    searcher.on_trial_complete("t0", {"autotune_record": json.dumps(record.attrs()), "autotune_objectives": "[120.0]"})
    assert any("trial #1 was ended while it ran" in n and "queued again" in n for n in notes), notes
    assert TrialRecord.of(study.trials[1]).reason == "interrupted" and not counted(study.trials[1])
    TrialRecord(worker=_dead_worker()).save(searcher.asked["t1"], ("worker",))  # the retry's Ray worker died too
    assert searcher.suggest("t2") is not None  # #2 failed (not retried again), another configuration asked
    searcher.on_trial_complete("t1", error=True)  # Tune's report of the dead actor: failing #2 again raised
    assert any("trial #2 was ended while it ran" in n for n in notes), notes
    assert TrialRecord.of(study.trials[2]).reason == "interrupted"


def test_a_ray_trial_whose_database_was_lost_is_queued_again_and_ends_the_fit_not_told_as_a_crash(space, tmp_path):
    """A database outage past its wait under a Ray trial was told `failed crash` (never run again, counted towards
    --trials) after a 200-line Tune traceback, and the sweep went on to exit 0 (audit 31 F4). The trainable reports
    the lost database as a result (`STORAGE_LOST`, `storage_failure`'s line): the searcher queues the trial again,
    asks nothing more, and the driver raises `StorageLost`, which the CLI prints as its one line, exit 1."""
    from optuna.trial import TrialState

    from autotune.study.storage_errors import StorageLost, storage_failure
    from autotune.sweep.backends.ray_search import NUMBER, STORAGE_LOST

    study, searcher = _searcher_beside_a_baseline(space, tmp_path, "lost")
    asked = searcher.suggest("t0")
    assert asked is not None and asked[NUMBER] == 1
    line = "the study's database failed mid-command (connection failed: ...): what finished is kept; ..."
    searcher.on_trial_complete("t0", {STORAGE_LOST: line, "step": 0})
    trials = study.get_trials(deepcopy=False)
    assert TrialRecord.of(trials[1]).reason == "interrupted" and not counted(trials[1]), trials[1]
    assert TrialRecord.of(trials[1]).outcome != "failed"  # not the configuration's crash
    retry = [t for t in trials if t.state == TrialState.WAITING]
    assert len(retry) == 1 and retry[0].params == {k: v for k, v in asked.items() if k != NUMBER}, retry
    assert searcher.lost == line and searcher.suggest("t1") == "FINISHED"
    assert storage_failure(StorageLost(line)) == line


def _searcher_beside_a_baseline(space, tmp_path, name: str):
    """A Ray driver's searcher (no Ray: it is called as Tune calls it) on a new SQLite study whose baseline a local
    worker finished: (the study, the searcher, planning 4 trials)."""
    from autotune.adapters import get_adapter
    from autotune.study.storage import open_storage, storage_url
    from autotune.sweep.backends.lifecycle import create_or_load
    from autotune.sweep.backends.ray_search import StudySearch

    paths = StudyPaths(tmp_path / "runs", name)
    paths.root.mkdir(parents=True)
    storage = open_storage(storage_url(paths, None))
    study = create_or_load(space, paths, storage)
    _local_trial(study, space, value=100.0)  # the baseline
    defaults = get_adapter(space.trainer, space.command).defaults(space.base_config)
    return study, StudySearch(space, defaults, storage, paths, 0, n_trials=4)


def test_a_ray_searcher_gives_back_a_trial_asked_as_another_worker_took_the_last_place(space, tmp_path):
    """Two drivers (or a driver and a local worker) that both counted a free place before asking could both run a
    trial in it, one past --trials (the local backend checks its place after the ask; the searcher did not). Here
    a local worker asks #3, the last of 4 places, between the searcher's count and its ask: #4 is given back."""
    from optuna.trial import TrialState

    study, searcher = _searcher_beside_a_baseline(space, tmp_path, "race")
    _local_trial(study, space)  # #1 and #2, running in a live local worker (this process)
    _local_trial(study, space)
    ask = searcher.study.ask

    def another_worker_asks_first() -> object:
        searcher.study.ask = ask  # once
        _local_trial(study, space)  # #3
        return ask()

    searcher.study.ask = another_worker_asks_first  # type: ignore[method-assign]
    assert searcher.suggest("t0") is None  # nothing to run: the study is full, the searcher waits
    given_back = study.get_trials(deepcopy=False)[4]
    assert given_back.state == TrialState.FAIL and not counted(given_back) and "t0" not in searcher.asked
    assert len([t for t in study.get_trials(deepcopy=False) if t.state == TrialState.RUNNING]) == 3
