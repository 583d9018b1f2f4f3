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

    frame = trials_frame(load_study(paths))
    lines = {line.split()[0]: line for line in table.splitlines() if line.strip()[:1].isdigit()}
    for _, row in frame.iterrows():  # each trial's throughput, whole, on its own line
        value = row["objective:perf/throughput"]
        if value == value:  # not NaN
            shown = str(round(value)) if value >= 1000 else f"{value:.3g}"
            assert f" {shown} " in lines[str(row["number"])] + " ", (row["number"], shown, text)
    base = frame[frame["baseline"]]["number"].iloc[0]
    assert lines[str(base)].startswith(f"{base} base"), text
    copies = frame[frame["duplicate_of"].notna()]
    assert not copies.empty  # the sampler repeats the baseline within 30 trials (seed 0)
    for _, row in copies.iterrows():
        assert f"{row['number']} =#{int(row['duplicate_of'])}" in text, text
    assert "=#N: the same settings as trial #N, its result reused (nothing ran)" in text
    refused = frame[frame["outcome"].isin(("infeasible", "failed"))]
    first = refused.iloc[0]  # the detail the report shows (which limit, by how much), not only `limits`/`oom`
    assert f"  #{first['number']} {first['outcome']}: {first['detail']}" in text, text
