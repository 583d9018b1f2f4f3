"""`--storage postgresql://...` against a real PostgreSQL server (Debian's package) started here."""

from __future__ import annotations

import glob
import os
import shutil
import socket
import subprocess
import tempfile
import threading
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.autotune.conftest import autotune


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@dataclass
class Server:
    url: str
    pg: Callable[..., None]
    pg_ctl: list[str]

    def stop(self) -> None:
        self.pg(*self.pg_ctl, "-m", "fast", "-w", "stop")

    def start(self) -> None:
        self.pg(*self.pg_ctl, "-w", "start")


@pytest.fixture(scope="module")
def postgres_server():
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
    server = Server(
        f"postgresql://autotune@127.0.0.1:{port}/postgres",
        pg,
        [str(bindir / "pg_ctl"), "-D", str(data), "-o", options, "-l", str(root / "log")],
    )
    server.start()
    try:
        yield server
    finally:
        subprocess.run([*run_as, str(bindir / "pg_ctl"), "-D", str(data), "-m", "immediate", "stop"], timeout=60)
        shutil.rmtree(root, ignore_errors=True)


@pytest.fixture(scope="module")
def postgres_url(postgres_server):
    return postgres_server.url


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


def test_a_worker_waits_out_the_server_restarting_and_says_so(postgres_server, capsys):
    """A PostgreSQL restart while a trial ran ended every worker at its next write ("failed mid-command"; stop 54
    left it open): each call now waits for the server, up to OUTAGE_S, saying so once."""
    import optuna

    from autotune.study.storage import open_storage
    from autotune.study.storage_errors import storage_failure

    storage = open_storage(postgres_server.url)
    study = optuna.create_study(storage=storage, study_name="outage")
    trial = study.ask()
    postgres_server.stop()
    back = threading.Timer(3.0, postgres_server.start)
    back.start()
    try:
        trial.set_user_attr("written", "during the outage")  # waits for the server, then writes
        study.tell(trial, 1.0)
    finally:
        back.join()
    # what a waiting worker calls: study.trials, ask(), suggest_*, best (through Optuna's cache, which calls the
    # storage's private methods; they failed at once, audit 31 F1)
    postgres_server.stop()
    back = threading.Timer(1.5, postgres_server.start)
    back.start()
    try:
        assert len(study.get_trials(deepcopy=False)) == 1
        second = study.ask()
        second.suggest_float("x", 0.0, 1.0)
        assert study.best_trial.number == 0
    finally:
        back.join()
    study.tell(second, 2.0)
    said = capsys.readouterr().err.splitlines()
    assert len(said) == 4, said  # each outage said once, and its end
    assert said[0].startswith("the study's database is not answering (") and "trying again for up to 120 s" in said[0]
    assert said[1].startswith("the study's database answers again (after "), said
    stored = optuna.load_study(study_name="outage", storage=postgres_server.url).trials[0]
    assert stored.user_attrs["written"] == "during the outage" and stored.state == optuna.trial.TrialState.COMPLETE
    assert said[2].startswith("the study's database is not answering (") and said[3].startswith("the study's data")

    # an outage longer than the wait ends the command as before: one line, what finished kept
    storage.outage_s = 1.0
    postgres_server.stop()
    try:
        with pytest.raises(optuna.exceptions.StorageInternalError) as lost:
            study.ask()
    finally:
        postgres_server.start()
    line = storage_failure(lost.value)
    assert line is not None and line.startswith("the study's database failed mid-command (connection failed:"), line


def test_a_state_write_whose_commit_went_through_before_the_connection_dropped_simulated(postgres_url, monkeypatch):
    """Simulated: the connection dropping between the server's commit and its answer cannot be timed here, so the
    first try commits and then raises the driver error the drop gives. The retry finds the trial finished in the
    state it set: True, not UpdateFinishedTrialError (which ended the worker)."""
    import optuna
    import sqlalchemy.exc
    from optuna.storages import RDBStorage

    from autotune.study.storage import open_storage

    storage = open_storage(postgres_url)
    study = optuna.create_study(storage=storage, study_name="dropped-commit")
    trial_id = study.ask()._trial_id
    real = RDBStorage.set_trial_state_values
    calls = []

    def commits_then_drops(self, *args):
        calls.append(args)
        result = real(self, *args)
        if len(calls) == 1:
            raise optuna.exceptions.StorageInternalError("commit") from sqlalchemy.exc.OperationalError(
                "COMMIT", {}, Exception("server closed the connection unexpectedly")
            )
        return result

    monkeypatch.setattr(RDBStorage, "set_trial_state_values", commits_then_drops)
    assert storage.set_trial_state_values(trial_id, optuna.trial.TrialState.COMPLETE, [1.0]) is True
    assert len(calls) == 2
    with pytest.raises(optuna.exceptions.UpdateFinishedTrialError):  # a real second finish is still refused
        storage.set_trial_state_values(trial_id, optuna.trial.TrialState.FAIL)
