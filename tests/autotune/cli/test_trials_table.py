"""`autotune trials` on an 80-column terminal: every value whole (Rich cut them to `0.0…` before), a simulated
study said to be predictions, a reused copy marked, and why each infeasible or failed trial was refused."""

from __future__ import annotations

import io

from rich.console import Console

from tests.autotune.conftest import simulated_study


def test_the_trials_table_fits_80_columns_and_says_what_the_rows_are(tmp_path, monkeypatch):
    from autotune.cli import reading
    from autotune.study.frames import trials_frame
    from autotune.study.storage import load_study

    _, paths = simulated_study(tmp_path / "runs", "fsdp3d-8gpu", 30)
    out = io.StringIO()
    monkeypatch.setattr(reading, "console", Console(file=out, width=80, highlight=False, soft_wrap=True))
    reading.trials_cmd("fsdp3d-8gpu", runs_dir=tmp_path / "runs", storage=None)
    text = out.getvalue()
    table = text.split("=#N:")[0] if "=#N:" in text else text.split("\n  #")[0]
    assert "…" not in table and all(len(line) <= 80 for line in table.splitlines()), text
    assert "study fsdp3d-8gpu: predicted by the cost model, nothing ran" in text
    assert "wall" not in table  # a prediction took no time: no wall_s column of zeros
    # verl's `*_gb` memory metrics hold GiB and throughput's name has no unit: both said (audit 21 F17)
    assert "GiB" in table.splitlines()[2] and " gb" not in table, text  # the headers' second line
    assert "throughput: tokens/s per GPU; memory: peak GiB per rank\n" in text, text  # a prediction has no RSS

    frame = trials_frame(load_study(paths))
    lines = {line.split()[0]: line for line in table.splitlines() if line.strip()[:1].isdigit()}
    for _, row in frame.iterrows():  # each trial's throughput, whole, on its own line
        value = row["objective:perf/throughput"]
        if value == value:  # not NaN
            shown = str(round(value)) if value >= 1000 else f"{value:.3g}"
            assert f" {shown} " in lines[str(row["number"])] + " ", (row["number"], shown, text)
    base = frame[frame["baseline"]]["number"].iloc[0]
    assert lines[str(base)].lstrip().startswith(f"{base} base"), text  # right-aligned beside two-digit numbers
    copies = frame[frame["duplicate_of"].notna()]
    assert not copies.empty  # the sampler repeats the baseline within 30 trials (seed 0)
    for _, row in copies.iterrows():
        assert f"{row['number']} =#{int(row['duplicate_of'])}" in text, text
    assert "=#N: the same settings as trial #N, its result reused (nothing ran)" in text
    refused = frame[frame["outcome"].isin(("infeasible", "failed"))]
    first = refused.iloc[0]  # the detail the report shows (which limit, by how much), not only `limits`/`oom`
    assert f"  #{first['number']} {first['outcome']}: {first['detail']}" in text, text


def test_a_pruned_and_an_interrupted_trial_keep_the_table_at_80_columns(tmp_path, monkeypatch):
    """The pruner's whole sentence was the `reason` cell (134 columns a row) and an interrupted trial read
    `interrupted interrupted`: the reason is a word, the sentence below the table."""
    import optuna

    from autotune.cli import reading
    from autotune.space.loader import load_space
    from autotune.study.storage import StudyPaths, open_storage
    from autotune.sweep.backends.lifecycle import fail_interrupted, tell_outcome, trial_id
    from autotune.sweep.backends.pruning import make_pruner, pruning_monitor
    from autotune.trial.record import TrialRecord, baseline_attrs

    space = load_space("fsdp3d", device="cpu")
    paths = StudyPaths(tmp_path / "runs", "p")
    paths.root.mkdir(parents=True)
    storage = open_storage(f"sqlite:///{paths.db}")
    study = optuna.create_study(study_name="p", storage=storage, direction="maximize", pruner=make_pruner(space))
    study.set_user_attr("objectives", [["perf/throughput", "maximize", "median"]])
    for n, level in enumerate((100.0, 101.0, 102.0, 103.0, 104.0)):
        trial = study.ask()
        if n == 0:
            for key, value in baseline_attrs().items():
                trial.set_user_attr(key, value)
        for step in range(1, space.trial.steps + 1):
            trial.report(level, step)
        tell_outcome(study, trial, space, TrialRecord(outcome="complete", key_metrics={"throughput": level}), [level])
    trial = study.ask()
    monitor = pruning_monitor(space, trial)
    assert monitor is not None
    verdict = next(v for step in range(1, space.trial.steps + 1) if (v := monitor(step, {"perf/throughput": 1.0})))
    record = TrialRecord(outcome="pruned", reason=verdict.split(":", 1)[0], detail=f"stopped: {verdict}")
    tell_outcome(study, trial, space, record, [1.0])
    cut = study.ask()
    fail_interrupted(study, storage, trial_id(storage, "p", cut.number))
    stale = study.ask()  # as Optuna's stale-trial check leaves it: FAIL, and no record (it read "failed", no reason)
    storage.set_trial_state_values(trial_id(storage, "p", stale.number), state=optuna.trial.TrialState.FAIL)
    out = io.StringIO()
    monkeypatch.setattr(reading, "console", Console(file=out, width=80, highlight=False, soft_wrap=True))
    reading.trials_cmd("p", runs_dir=tmp_path / "runs", storage=None)
    text = out.getvalue()
    table = text.split("\n  #")[0]
    assert all(len(line) <= 80 for line in table.splitlines()), text
    rows = {line.split()[0]: line.split() for line in table.splitlines() if line.strip()[:1].isdigit()}
    assert rows["5"][1:3] == ["pruned", "pruner"] and rows[str(cut.number)][1:] == ["interrupted"], text
    assert rows[str(stale.number)][1:3] == ["failed", "stale"], text
    assert f"  #{stale.number} failed: no outcome recorded: another worker saw no heartbeat from it" in text, text
    assert f"  #5 pruned: stopped: {verdict}" in text and "bottom quarter" in verdict, text
