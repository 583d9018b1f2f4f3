"""Workers that open one new SQLite database at the same moment: each gets it (one of two failed a fresh clone's
two-worker test with "UNIQUE constraint failed: alembic_version.version_num", or "table ... already exists")."""

from __future__ import annotations

import subprocess
import sys

from tests.autotune.conftest import ROOT


def test_four_processes_opening_one_new_database_at_once_all_get_it(tmp_path):
    # without the retry in open_storage about one round in eight failed here; eight rounds of four processes
    for i in range(8):
        url = f"sqlite:///{tmp_path / f'{i}.db'}"
        code = f"from autotune.study.storage import open_storage; open_storage({url!r})"
        procs = [
            subprocess.Popen([sys.executable, "-c", code], stderr=subprocess.PIPE, text=True, cwd=ROOT)
            for _ in range(4)
        ]
        for proc in procs:
            _, err = proc.communicate(timeout=120)
            assert proc.returncode == 0, err[-1000:]
