"""benchmarks/wandb_run_file.py reads what a real (offline) wandb run wrote: the config, every history row and the
console, including a record longer than two of the file's 32 KiB blocks."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from tests.autotune.conftest import import_benchmark

RUN = """
import sys, wandb
run = wandb.init(mode="offline", dir=sys.argv[1], project="p", settings=wandb.Settings(console="wrap"),
                 config={"data.train_batch_size": 512, "blob": "x" * 80000})
for step in range(1, 301):
    print(f"step:{step} - timing_s/gen:{step * 1.5:.3f}", flush=True)
    run.log({"timing_s/gen": step * 1.5, "response_length/mean": 100.0 + step})
run.finish()
"""


def test_a_real_offline_run_file_reads_back_whole(tmp_path: Path) -> None:
    done = subprocess.run([sys.executable, "-c", RUN, str(tmp_path)], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    (run_file,) = tmp_path.glob("wandb/offline-run-*/run-*.wandb")
    run = import_benchmark("wandb_run_file").read_run(run_file)
    assert run["config"]["data.train_batch_size"] == 512
    assert run["config"]["blob"] == "x" * 80000  # one record in first, middle and last chunks
    rows = [row for row in run["history"] if "timing_s/gen" in row]
    assert [row["timing_s/gen"] for row in rows] == [step * 1.5 for step in range(1, 301)]
    assert [row["response_length/mean"] for row in rows] == [100.0 + step for step in range(1, 301)]
    lines = [line for line in run["console"].splitlines() if line.startswith("step:")]
    assert lines == [f"step:{step} - timing_s/gen:{step * 1.5:.3f}" for step in range(1, 301)]
