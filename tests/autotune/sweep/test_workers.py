"""Two `autotune run` workers on one study storage cooperate: no duplicate run, no lost trial."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from autotune.study.storage import StudyPaths, counted, load_study
from tests.autotune.conftest import ROOT, autotune, trainer_env, write_space


def test_two_workers_share_one_study_without_duplicates(tmp_path):
    space = write_space(tmp_path, steps=3)
    runs = tmp_path / "runs"
    args = [
        sys.executable,
        "-m",
        "autotune.cli",
        "run",
        "--space",
        str(space),
        "--runs-dir",
        str(runs),
        "--trials",
        "6",
        "--confirm",
        "1",
        "--ablate",
        "0",
    ]
    workers = [
        subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=trainer_env(), cwd=ROOT)
        for _ in range(2)
    ]
    outputs = [w.communicate(timeout=600) for w in workers]
    for w, (out, err) in zip(workers, outputs, strict=True):
        assert w.returncode == 0, out[-2000:] + err[-2000:]
    trials = load_study(StudyPaths(runs, "small")).get_trials()
    finished = [t for t in trials if counted(t)]
    assert len(finished) == 6
    assert len({t.number for t in finished}) == 6
    assert sum(1 for t in finished if t.user_attrs.get("baseline")) == 1
    # the baseline ran once (a CI run had both workers take the queued baseline as trial 0) and first: every
    # other trial's limits compare with it, so a worker that lost it to the other waits for it before its own
    base = next(t for t in finished if t.user_attrs.get("baseline"))
    assert base.number == 0 and base.datetime_complete is not None
    for t in finished:
        if t.number != 0 and "duplicate_of" not in t.user_attrs:
            begun = (Path(t.user_attrs["dir"]) / "config.yaml").stat().st_mtime
            assert begun >= base.datetime_complete.timestamp() - 0.05, (t.number, begun, base.datetime_complete)
    executed = [t for t in finished if "duplicate_of" not in t.user_attrs]
    configs = [json.dumps(t.params, sort_keys=True) for t in executed]
    assert len(configs) == len(set(configs)), "a configuration was run twice"
    assert all(Path(t.user_attrs["dir"]).exists() for t in executed)
    # both workers did some of the work
    ran = [sum(1 for line in out.splitlines() if line.startswith("trial ")) for out, _ in outputs]
    assert all(n >= 1 for n in ran), ran
    # the two workers' lines number the study's trials, not each its own (`2/6` twice and no `6/6` before)
    places = sorted(int(m.group(1)) for out, _ in outputs for m in re.finditer(r"^trial (\d+)/6 \(#", out, re.M))
    assert places == [1, 2, 3, 4, 5, 6], [out for out, _ in outputs]
    completes = [  # each line compares with the baseline, which one of the two ran (a worker whose one trial
        line  # was pruned has none of its own: seen on a loaded CI run)
        for out, _ in outputs
        for line in out.splitlines()
        if line.lstrip().startswith("complete perf/throughput=")
    ]
    assert completes and all(" vs baseline" in line for line in completes), outputs
    # and each says the study's best so far, the other worker's trials too (each said its own: 275.9 beside 512.2)
    if base.user_attrs.get("outcome") == "complete":
        bests = [float(m.group(1)) for line in completes for m in [re.search(r", best ([\d.e+]+) \|", line)] if m]
        assert bests and all(b >= float(f"{base.values[0]:.4g}") for b in bests), (base.values, completes)
    # one worker confirmed the winner (and checked equivalence); the other waited for it, then kept its results
    confirming = [out.count("confirm round 1/1:") for out, _ in outputs]
    assert sorted(confirming)[0] == 0 and sorted(confirming)[1] >= 2, confirming
    waited = outputs[confirming.index(0)][0]
    assert "waiting for worker pid" in waited and "confirmation measured already" in waited, waited[-2000:]
    assert "equivalence check run already, kept" in waited
    for metrics in (runs / "small" / "confirm").glob("*/metrics.jsonl"):  # one run's steps each, not two interleaved
        steps = [json.loads(line)["step"] for line in metrics.read_text().splitlines()]
        assert steps == sorted(set(steps)), (metrics, steps)


def test_the_stages_after_the_sweep_run_in_one_worker_at_a_time(tmp_path):
    """The lock itself, across processes: a second holder waits for the first, is told who holds it, and gets
    it once the first ends (or dies)."""
    paths = StudyPaths(tmp_path / "runs", "small")
    holder = subprocess.Popen(
        [sys.executable, "-c", (
            "import sys, time; from pathlib import Path; from autotune.study.storage import StudyPaths\n"
            f"with StudyPaths(Path({str(paths.runs_dir)!r}), 'small').finishing(print):\n"
            "    print('held', flush=True); time.sleep(2); open(sys.argv[1], 'w').write('first')\n"
        ), str(tmp_path / "order")],
        stdout=subprocess.PIPE, text=True, cwd=ROOT,
    )  # fmt: skip
    assert holder.stdout is not None and holder.stdout.readline().strip() == "held"
    notes: list[str] = []
    with paths.finishing(notes.append):
        assert (tmp_path / "order").read_text() == "first"  # entered only after the holder left
    holder.wait(timeout=30)
    assert len(notes) == 1 and f"waiting for worker pid {holder.pid} on " in notes[0], notes
    with paths.finishing(notes.append):  # free again: no wait
        pass
    assert len(notes) == 1
    import fcntl
    import threading

    reader = (paths.root / ".finishing").open("r")  # a reader asking who holds it (`measuring_now`), for an instant
    fcntl.flock(reader, fcntl.LOCK_SH | fcntl.LOCK_NB)
    threading.Timer(0.03, reader.close).start()
    with paths.finishing(notes.append):  # it announced a wait for the last holder, a dead pid (audit 34 N5)
        pass
    assert len(notes) == 1, notes


@pytest.mark.slow  # a whole sweep whose trial is ended under it (make test-slow)
def test_a_trial_another_worker_fails_as_stale_while_it_runs_ends_with_a_note_not_a_traceback(tmp_path):
    """A worker suspended past the heartbeat grace (a laptop asleep) finds its trial failed by another worker and
    queued again: its pruner's report, then its own error handling, wrote to the finished trial and the worker died
    with "Trial#1 has already finished" (audit 16 F1). The other worker's stale check is done here by hand, with
    the storage's own retry callback, while the trial runs."""
    import time

    from autotune.study.storage import open_storage
    from autotune.sweep.backends.lifecycle import fail_interrupted, trial_id

    space = write_space(tmp_path, steps=30)  # 12 steps ended before the stale check once, on a loaded machine
    runs = tmp_path / "runs"
    args = [sys.executable, "-m", "autotune.cli", "run", "--space", str(space), "--runs-dir", str(runs),
            "--trials", "2", "--confirm", "0", "--ablate", "0", "--stage", "throughput"]  # fmt: skip
    proc = subprocess.Popen(
        args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=trainer_env(), cwd=ROOT
    )
    paths = StudyPaths(runs, "small")
    deadline = time.monotonic() + 240
    while time.monotonic() < deadline:  # trial #1 (after the baseline) has written a few steps
        metrics = paths.trial_dir(1) / "metrics.jsonl"
        if metrics.exists() and len(metrics.read_text().splitlines()) >= 3:
            break
        time.sleep(0.2)
    storage = open_storage(f"sqlite:///{paths.db}")
    study = load_study(paths)
    assert fail_interrupted(study, storage, trial_id(storage, "small", 1))  # failed, and queued again (#2)
    out, err = proc.communicate(timeout=300)
    assert proc.returncode == 0, out[-3000:] + err[-3000:]
    assert "Traceback" not in err and "already finished" not in out + err, err[-3000:]
    assert "trial #1 was ended by another worker while it ran" in out, out[-3000:]
    trials = load_study(paths).get_trials()
    assert trials[1].state.name == "FAIL" and sum(1 for t in trials if counted(t)) == 2, trials


@pytest.mark.slow  # two sweeps, one killed (make test-slow)
def test_a_worker_waiting_for_the_baseline_says_so_and_retries_it_at_once_when_its_worker_dies(tmp_path):
    """The worker that waits for another's baseline said nothing, and when that worker was killed waited out the
    30 s heartbeat grace before anyone ran the baseline again (audit 16 F8): a dead worker on this host is known at
    once (its pid is gone), the baseline is queued again and this worker runs it."""
    import os
    import signal
    import threading
    import time

    space = write_space(tmp_path, steps=100)  # a baseline long enough to be waited for
    runs = tmp_path / "runs"
    args = [sys.executable, "-m", "autotune.cli", "run", "--space", str(space), "--runs-dir", str(runs),
            "--trials", "2", "--confirm", "0", "--ablate", "0", "--stage", "throughput"]  # fmt: skip
    first = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=trainer_env(),
                             cwd=ROOT, start_new_session=True)  # fmt: skip
    baseline = StudyPaths(runs, "small").trial_dir(0) / "metrics.jsonl"
    deadline = time.monotonic() + 240
    while not (baseline.exists() and baseline.read_text().strip()) and time.monotonic() < deadline:
        time.sleep(0.2)
    second = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=trainer_env(),
                              cwd=ROOT)  # fmt: skip
    lines: list[str] = []
    reader = threading.Thread(target=lambda: lines.extend(second.stdout), daemon=True)  # type: ignore[arg-type]
    reader.start()
    while not any("waiting for the baseline" in line for line in lines) and time.monotonic() < deadline:
        time.sleep(0.1)
    os.killpg(first.pid, signal.SIGKILL)  # the worker only: its trainer's own group is the waiting worker's to end
    first.communicate(timeout=60)
    killed = time.time()
    second.wait(timeout=300)
    reader.join(timeout=10)
    out = "".join(lines)
    assert second.returncode == 0, out[-3000:] + second.stderr.read()[-3000:]  # type: ignore[union-attr]
    assert f"waiting for the baseline (trial #0, run by worker pid {first.pid} on " in out, out[-3000:]
    assert f"trial #0 was interrupted (worker pid {first.pid} is gone): retrying it" in out, out[-3000:]
    trials = load_study(StudyPaths(runs, "small")).get_trials()
    done = [t for t in trials if counted(t)]
    assert len(done) == 2 and sum(1 for t in done if t.user_attrs.get("baseline")) == 1, trials
    retry = next(t for t in done if t.user_attrs.get("baseline"))
    # its line says whose retry it is (two lines read "trial 5/5" after a retry; audit 28 F10)
    assert f"(#{retry.number}) (baseline, a retry of interrupted trial #0)" in out, out[-3000:]
    assert retry.datetime_start.timestamp() - killed < 20, "the retry waited out the heartbeat grace"  # type: ignore[union-attr]


def _a_quality_worker_beside_a_sweep(
    tmp_path: Path, steps: int, trials: int, started: int
) -> tuple[Path, Path, subprocess.CompletedProcess[str]]:
    """A throughput worker sweeping `trials` trials of `steps` steps, and a `--stage quality` worker started once
    trial #`started` has logged a step: (the space file, the runs folder, the quality worker). Both exit 0."""
    import time

    from tests.autotune.sweep.test_quality_stage import QUALITY

    space = write_space(tmp_path, steps=steps)  # trials long enough to start the quality worker beside one
    space.write_text(space.read_text().replace("base:\n", "base:\n  algorithm.use_kl_in_reward: true\n", 1) + QUALITY)
    runs = tmp_path / "runs"
    common = [sys.executable, "-m", "autotune.cli", "run", "--space", str(space), "--runs-dir", str(runs),
              "--report-dir", str(tmp_path / "reports")]  # fmt: skip
    first = subprocess.Popen([*common, "--stage", "throughput", "--trials", str(trials), "--confirm", "0"],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=trainer_env(), cwd=ROOT)  # fmt: skip
    logged = StudyPaths(runs, "small").trial_dir(started) / "metrics.jsonl"
    deadline = time.monotonic() + 300
    while not (logged.exists() and logged.read_text().strip()) and time.monotonic() < deadline:
        time.sleep(0.2)
    assert first.poll() is None, f"the sweep ended before trial #{started} was seen running: make its trials longer"
    second = subprocess.run([*common, "--stage", "quality"], capture_output=True, text=True, env=trainer_env(),
                            cwd=ROOT, timeout=600)  # fmt: skip
    out, _ = first.communicate(timeout=120)
    assert first.returncode == 0 and second.returncode == 0, out[-2000:] + second.stdout[-3000:] + second.stderr
    return space, runs, second


@pytest.mark.slow  # a throughput worker and a quality worker on one new study (make test-slow)
def test_a_quality_worker_on_a_study_whose_baseline_another_runs_waits_for_it(tmp_path):
    """`--stage quality` found the study another worker had just made and ran the quality stage beside that
    worker's timed baseline (four processes on two cores: the reference every trial is divided by read 10% low),
    recording no systems values, and the other worker then called the stage's runs another layout's (audit 19 F1).
    It now waits for the baseline, says so, and runs the stage on the baseline's systems values."""
    space, runs, second = _a_quality_worker_beside_a_sweep(tmp_path, steps=30, trials=1, started=0)
    assert "the throughput study's baseline has not finished: it first" in second.stdout, second.stdout[-3000:]
    assert "waiting for the baseline (trial #0, run by worker pid" in second.stdout, second.stdout[-3000:]
    study = load_study(StudyPaths(runs, "small"))
    base = study.trials[0]
    assert len(study.trials) == 1 and base.state.name == "COMPLETE"
    quality = json.loads((runs / "small" / "quality.json").read_text())
    from autotune.space.loader import load_space
    from autotune.space.stages import systems_values

    assert quality["systems"], "the stage recorded no systems values"
    assert quality["systems"] == systems_values(load_space(space), base.params)
    first_run = min(p.stat().st_mtime for p in (runs / "small" / "quality").rglob("config.yaml"))
    assert first_run >= base.datetime_complete.timestamp() - 0.05, "a quality run began beside the timed baseline"  # type: ignore[union-attr]


@pytest.mark.slow  # a sweeping worker and a quality worker on one study (make test-slow)
def test_a_quality_worker_on_a_study_another_still_sweeps_waits_for_its_trials(tmp_path):
    """`--stage quality` started while another worker swept ran the quality stage at once: its runs shared the cores
    with the sweep's timed trials, on the baseline's systems values ("no other throughput winner", true of that
    instant only; audit 22 F2). It now waits for the other worker's trials, says so, and runs on the sweep's
    winner."""
    space, runs, second = _a_quality_worker_beside_a_sweep(tmp_path, steps=40, trials=4, started=1)
    assert re.search(
        r"waiting for trial #\d of another worker to finish: the quality stage runs on the sweep's winner",
        second.stdout,
    ), second.stdout[-3000:]
    study = load_study(StudyPaths(runs, "small"))
    swept = [t for t in study.trials if t.datetime_complete is not None]
    assert len(swept) == 4, [t.state for t in study.trials]
    first_run = min(p.stat().st_mtime for p in (runs / "small" / "quality").rglob("config.yaml"))
    last_trial = max(t.datetime_complete.timestamp() for t in swept)  # type: ignore[union-attr]
    assert first_run >= last_trial - 0.05, "a quality run began beside the sweep's timed trials"
    from autotune.space.loader import load_space
    from autotune.space.stages import systems_values
    from autotune.study.results import find_winner

    winner = find_winner(study, StudyPaths(runs, "small"), load_space(space))
    quality = json.loads((runs / "small" / "quality.json").read_text())
    assert quality["systems"] == systems_values(load_space(space), winner.params)  # the sweep's winner's values


def test_the_quality_stage_after_a_sweep_runs_in_the_same_hold_of_the_lock_as_confirmation(tmp_path):
    """A worker took the stages' lock for confirmation, let it go, and took it again for the quality stage: another
    worker slipped in between, said it waited for a worker that "runs the stages after the sweep", and printed
    "kept from the earlier run" of what the first was still measuring (audit 22 F4). What runs after the sweep
    (`then`) now runs inside the hold that confirmed (on a simulated sweep, which confirms nothing, it is taken for
    `then` alone)."""
    import os

    from autotune.space.loader import load_space
    from autotune.study.progress import SweepProgress
    from autotune.sweep.driver import SweepOptions, run_sweep

    space = load_space("fsdp3d-8gpu")
    paths = StudyPaths(tmp_path / "runs", space.name)
    progress = SweepProgress(2, "perf/throughput")
    progress.quiet = True
    holders: list[str | None] = []
    run_sweep(SweepOptions(space=space, paths=paths, n_trials=2, fidelity=("sim",)), progress,
              lambda study: holders.append(paths.finishing_now()))  # fmt: skip
    assert holders and holders[0] is not None and f"worker pid {os.getpid()} on " in holders[0], holders
    assert paths.finishing_now() is None  # let go after it


def test_a_sweep_worker_waits_to_start_a_trial_while_another_on_this_host_measures(tmp_path):
    """A worker sweeping while another ran the quality stage (or confirmation, or `explain`) on the same host timed
    its trials on shared cores: all of them read slow and were pruned, the sweep's best configuration among them
    (audit 22 F2). A trial now starts only once the other's measurement ends, and the worker says whom it waits
    for."""
    space = write_space(tmp_path)
    paths = StudyPaths(tmp_path / "runs", "small")
    released = tmp_path / "released"
    holder = subprocess.Popen(
        [sys.executable, "-c", (
            "import sys, time; from pathlib import Path; from autotune.study.storage import StudyPaths\n"
            f"with StudyPaths(Path({str(paths.runs_dir)!r}), 'small').finishing(print):\n"
            "    print('held', flush=True)\n"
            "    while not Path(sys.argv[2]).exists(): time.sleep(0.1)\n"  # the sweep has started: it reaches a trial
            "    time.sleep(3)\n"
            "open(sys.argv[1], 'w').write(repr(time.time()))\n"
        ), str(released), str(paths.db)],
        stdout=subprocess.PIPE, text=True, cwd=ROOT,
    )  # fmt: skip
    assert holder.stdout is not None and holder.stdout.readline().strip() == "held"
    proc = autotune("run", "--space", str(space), "--runs-dir", str(paths.runs_dir), "--trials", "1", "--confirm", "0",
                    "--report-dir", str(tmp_path / "reports"))  # fmt: skip
    holder.wait(timeout=30)
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr
    assert (
        f"waiting for worker pid {holder.pid} on " in proc.stdout
        and "which runs the stages after the sweep of study `small`: a trial timed beside it would share its cores"
        in proc.stdout
    ), proc.stdout[-2000:]
    start = load_study(paths).trials[0].datetime_start
    assert start is not None and start.timestamp() >= float(released.read_text()) - 0.5, "it ran beside the hold"


@pytest.mark.slow  # a Ray driver (its own local Ray) and a local worker, one killed (make test-slow)
def test_a_ray_driver_beside_a_local_worker_runs_its_own_configurations_and_retries_the_killed_workers_trial(
    tmp_path,
):
    """A Ray driver and a local worker on one study (audit 31): the driver sampled the local worker's configurations
    and ran them at the same time (F2), and when the local worker was killed mid-trial the driver counted its trial
    as running, stopped one short of --trials and never retried it (F3)."""
    import os
    import signal
    import threading
    import time

    from autotune.trial.record import TrialRecord

    space = write_space(tmp_path, steps=12)  # trials long enough to kill the local worker in one
    runs = tmp_path / "runs"
    args = [sys.executable, "-m", "autotune.cli", "run", "--space", str(space), "--runs-dir", str(runs),
            "--trials", "5", "--confirm", "0", "--ablate", "0", "--stage", "throughput",
            "--report-dir", str(tmp_path / "reports")]  # fmt: skip
    driver = subprocess.Popen([*args, "--backend", "ray"], stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                              text=True, env=trainer_env(), cwd=ROOT)  # fmt: skip
    time.sleep(1)
    local = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=trainer_env(),
                             cwd=ROOT, start_new_session=True)  # fmt: skip
    lines: list[str] = []
    reader = threading.Thread(target=lambda: lines.extend(local.stdout), daemon=True)  # type: ignore[arg-type]
    reader.start()
    deadline, killed = time.monotonic() + 300, None
    try:
        while killed is None and local.poll() is None and time.monotonic() < deadline:
            started = [m for line in lines if (m := re.match(r"trial \d+/5 \(#(\d+)\) (?!\(baseline)", line))]
            if started:
                os.killpg(local.pid, signal.SIGKILL)  # the worker only: its trainer's group is the driver's to end
                killed = int(started[0].group(1))
            time.sleep(0.1)
        out, _ = driver.communicate(timeout=400)
    finally:
        for proc in (driver, local):
            proc.kill()
            proc.wait()
    assert killed is not None, "".join(lines)[-3000:]
    assert driver.returncode == 0, out[-4000:]
    assert f"trial #{killed} was interrupted (worker pid {local.pid} is gone): retrying it" in out, out[-4000:]
    trials = load_study(StudyPaths(runs, "small")).get_trials()
    done = [t for t in trials if counted(t)]
    assert len(done) == 5, [(t.number, t.state, t.user_attrs) for t in trials]
    assert any(t.system_attrs.get("failed_trial") == killed for t in done), [(t.number, t.state) for t in trials]
    ran = [t.params for t in done if TrialRecord.of(t).duplicate_of is None]
    assert all(ran.count(p) == 1 for p in ran), ran  # no configuration run twice


def test_a_worker_waiting_for_anothers_trials_says_when_it_waits_for_the_next(monkeypatch):
    """A `--stage quality` worker named the first running trial of another's sweep, then waited through the whole
    sweep in silence (75 s of 24 trials here; hours on a GPU; audit 35 F6). It says which it waits for as they change,
    at most every STILL_WAITING_S."""
    import os
    import socket
    import threading
    import time

    import optuna

    from autotune.study.progress import SweepProgress
    from autotune.sweep import driver
    from autotune.trial.record import TrialRecord, Worker

    study = optuna.create_study(direction="maximize")

    def start() -> optuna.Trial:
        trial = study.ask()
        TrialRecord(worker=Worker(host=socket.gethostname(), pid=os.getpid())).save(trial, ("worker",))
        return trial

    first = start()

    def the_other_worker() -> None:  # its trials, one after the other, each for a second and a half
        time.sleep(1.5)
        second = start()
        study.tell(first, 1.0)
        time.sleep(1.5)
        study.tell(second, 2.0)

    notes: list[str] = []
    progress = SweepProgress(1, "perf/throughput")
    monkeypatch.setattr(progress, "note", notes.append)
    monkeypatch.setattr(driver, "STILL_WAITING_S", 1.0)
    other = threading.Thread(target=the_other_worker)
    other.start()
    driver.wait_for_other_workers(study, 60, progress, "the quality stage runs on the sweep's winner")
    other.join()
    assert notes[0] == "waiting for trial #0 of another worker to finish: the quality stage runs on the sweep's winner"
    assert len(notes) == 2 and re.fullmatch(
        r"still waiting: trial (#0, )?#1 of another worker runs now \(\d s\)", notes[1]
    )
