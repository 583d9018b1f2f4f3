"""Two `autotune run` workers on one study storage cooperate: no duplicate run, no lost trial."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from autotune.study.storage import StudyPaths, counted, load_study
from tests.autotune.conftest import ROOT, trainer_env, write_space


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
    executed = [t for t in finished if "duplicate_of" not in t.user_attrs]
    configs = [json.dumps(t.params, sort_keys=True) for t in executed]
    assert len(configs) == len(set(configs)), "a configuration was run twice"
    assert all(Path(t.user_attrs["dir"]).exists() for t in executed)
    # both workers did some of the work
    ran = [sum(1 for line in out.splitlines() if line.startswith("trial ")) for out, _ in outputs]
    assert all(n >= 1 for n in ran), ran
