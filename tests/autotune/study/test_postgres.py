"""`--storage postgresql://...` against a real PostgreSQL server (Debian's package) started here."""

from __future__ import annotations

import glob
import os
import shutil
import socket
import subprocess
import tempfile
from pathlib import Path

import pytest

from tests.autotune.conftest import autotune


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture(scope="module")
def postgres_url():
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"))
    if not found:
        pytest.skip("no PostgreSQL server here: `make test` installs Debian's `postgresql` package")
    bindir = Path(found[-1]).parent
    root = Path(tempfile.mkdtemp(prefix="autotune-pg-"))
    run_as: list[str] = []
    if os.geteuid() == 0:  # the server refuses to run as root
        shutil.chown(root, "postgres")
        run_as = ["runuser", "-u", "postgres", "--"]
    data, port = root / "data", _free_port()

    def pg(*args: str) -> None:
        subprocess.run([*run_as, *args], check=True, capture_output=True, timeout=120)

    pg(str(bindir / "initdb"), "-D", str(data), "-A", "trust", "-U", "autotune")
    options = f"-p {port} -k {root} -c listen_addresses=127.0.0.1 -c fsync=off"
    pg(str(bindir / "pg_ctl"), "-D", str(data), "-o", options, "-l", str(root / "log"), "-w", "start")
    try:
        yield f"postgresql://autotune@127.0.0.1:{port}/postgres"
    finally:
        subprocess.run([*run_as, str(bindir / "pg_ctl"), "-D", str(data), "-m", "immediate", "stop"], timeout=60)
        shutil.rmtree(root, ignore_errors=True)


def test_a_sweep_lives_in_postgresql(tmp_path, postgres_url):
    runs = tmp_path / "runs"
    # a password in the URL (the trust-auth server ignores it) is never printed: the study's header printed the URL
    with_password = postgres_url.replace("autotune@", "autotune:S3cretPW@")
    proc = autotune(
        "run", "--space", "fsdp3d", "--backend", "sim", "--trials", "4", "--storage", with_password,
        "--runs-dir", str(runs), "--report-dir", str(tmp_path / "report"),
    )  # fmt: skip
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-2000:]
    assert "S3cretPW" not in proc.stdout + proc.stderr and "(postgresql://autotune:***@127.0.0.1:" in proc.stdout
    assert not (runs / "fsdp3d" / "study.db").exists(), "the study must be in PostgreSQL, not in SQLite"

    import optuna

    study = optuna.load_study(study_name="fsdp3d", storage=postgres_url)
    finished = [t for t in study.get_trials() if t.user_attrs.get("outcome")]
    assert len(finished) == 4
    assert finished[0].user_attrs.get("baseline") is True

    shown = autotune("trials", "fsdp3d", "--storage", postgres_url, "--runs-dir", str(runs))
    assert shown.returncode == 0, shown.stderr
    assert "0 base " in shown.stdout


def test_a_server_that_answers_no_such_role_or_database_is_not_called_missing(postgres_url):
    """It said "is a PostgreSQL server running there? (Debian: apt-get install postgresql)" of a server that had
    answered "role ... does not exist" (audit 17 F10)."""
    from autotune.study.storage import StorageError, open_storage

    host = postgres_url.rsplit("@", 1)[1].split("/")[0]
    with pytest.raises(StorageError, match=r'the server answered \(.*role "nobody" does not exist\): create the role'):
        open_storage(f"postgresql://nobody@{host}/postgres")
    with pytest.raises(StorageError, match=r'database "nosuchdb" does not exist\): create the database \(createdb'):
        open_storage(postgres_url.rsplit("/", 1)[0] + "/nosuchdb")
