"""Optuna's RDB storage as a study opens it (`storage.open_storage`): on an SQLite file, its commits without
fsync, and its opening and each trial state change under a lock beside the file (`SQLiteStorage`); on a database server
(PostgreSQL, MySQL), its outage waited out (`ServerStorage`).

A server's outage: a restart or a failover while a trial ran ended every worker at its next write. Each call to
the database that fails because the server cannot be reached, dropped the connection or rolled the transaction
back (a deadlock) is made again, every few seconds, for up to OUTAGE_S; the worker says once that it waits, and
again when the server answers. Past that, the error goes on as before (the CLI's one line: what finished is kept,
the same command goes on from it). SQLite's `database is locked` has its own 60 s timeout instead.

A connection dropped while the server committed leaves the call's effect unknown; every call here but two writes
the same thing again (an attribute, a value, a heartbeat). `set_trial_state_values` finds the trial already in
the state it set and says so (True); `create_new_trial` could leave one extra trial that no worker runs, which
the heartbeat's grace period fails like a dead worker's (and retries once).
"""

from __future__ import annotations

import contextlib
import fcntl
import functools
import sqlite3
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from optuna.exceptions import StorageInternalError, UpdateFinishedTrialError
from optuna.storages import RDBStorage
from optuna.trial import TrialState
from sqlalchemy import event
from sqlalchemy import exc as sa_exc
from sqlalchemy.engine import Engine


@event.listens_for(Engine, "connect")
def _sqlite_commit_without_fsync(connection: Any, _record: Any) -> None:
    """SQLite in WAL mode with synchronous=NORMAL: a commit no longer waits for the disk. A trial makes
    about 50 commits, so 200 simulated trials took 73-121 s on a busy disk and take 19-35 s this way
    (benchmarks/sim_speed.py). A power cut can lose the last commits but never corrupts the study;
    several workers on one machine still share the file (WAL needs a local disk, as shared SQLite does)."""
    if isinstance(connection, sqlite3.Connection):
        cursor = connection.cursor()
        cursor.execute("PRAGMA journal_mode=WAL")
        cursor.execute("PRAGMA synchronous=NORMAL")
        cursor.close()


@contextlib.contextmanager
def locked(path: Path) -> Iterator[None]:
    """An exclusive lock on a file, between processes and threads of one machine (flock, released by a killed process)."""
    with path.open("a") as f:
        fcntl.flock(f, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(f, fcntl.LOCK_UN)


class SQLiteStorage(RDBStorage):
    """Optuna's RDB storage on an SQLite file, with each trial state change done under a lock beside the file.

    Optuna reads a trial's state, then writes the new one. A server database locks the row it read (SELECT FOR
    UPDATE); SQLite ignores that, and Python's sqlite3 does not even begin the transaction before the write, so
    two workers asking at once both found the queued baseline WAITING and both ran it as trial 0, and the second
    to finish died telling Optuna "Trial#0 has already finished" (a CI run; optuna issue 4002). Two workers
    failing one stale trial could queue two retries the same way. Under the lock the second finds the state the
    first wrote: the trial is no longer WAITING (Optuna gives the next one) or already finished (skipped).
    SQLite's own locks cannot do it: Optuna holds two connections at once while it opens a storage.

    The storage is opened under the same lock: a new file's first connections switch it to WAL, and a second
    worker connecting meanwhile met `database is locked` at once (SQLite's timeout does not wait for a journal
    mode change), and creating the schema side by side failed the slower worker (a table already exists)."""

    def __init__(self, url: str, lock_path: Path, **kwargs: Any) -> None:
        self.state_lock = lock_path
        with locked(lock_path):
            super().__init__(url, **kwargs)

    def set_trial_state_values(self, trial_id: int, state: TrialState, values: Any = None) -> bool:
        with locked(self.state_lock):
            return super().set_trial_state_values(trial_id, state, values)


OUTAGE_S = 120.0
"""How long a worker waits for its database server (a managed PostgreSQL's failover takes 30-120 s)."""

_lock = threading.Lock()  # the trial's heartbeat thread and the worker both reach the database


def unreachable(exc: BaseException) -> BaseException | None:
    """The database driver's error when `exc` says the server could not be reached, dropped the connection or
    rolled the transaction back, so the call can be made again; None for any other error (bad data, a
    finished trial), which a second try would only repeat."""
    link = exc.__cause__ if isinstance(exc, StorageInternalError) else exc
    if isinstance(link, (sa_exc.OperationalError, sa_exc.InterfaceError)):
        return link
    if isinstance(link, sa_exc.DBAPIError) and link.connection_invalidated:
        return link
    return None


class ServerStorage(RDBStorage):
    """Optuna's RDB storage on a database server, each call made again while the server is away (see the module)."""

    outage_s = OUTAGE_S
    outage_since: float | None = None
    """When the current outage began (time.monotonic), for one message per outage, not one per thread or call."""

    def patiently(self, call: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
        delay = 0.5
        while True:
            try:
                result = call(self, *args, **kwargs)
            except Exception as exc:
                cause = unreachable(exc)
                if cause is None:
                    raise
                with _lock:
                    if self.outage_since is None:
                        self.outage_since = time.monotonic()
                        said = str(getattr(cause, "orig", None) or cause).strip().splitlines()[0]
                        print(
                            f"the study's database is not answering ({said}): trying again for up to "
                            f"{self.outage_s:.0f} s",
                            file=sys.stderr,
                            flush=True,
                        )
                    since = self.outage_since
                if time.monotonic() - since >= self.outage_s:
                    raise
                time.sleep(delay)
                delay = min(2 * delay, 5.0)
                continue
            with _lock:
                if self.outage_since is not None:
                    waited = time.monotonic() - self.outage_since
                    self.outage_since = None
                    print(f"the study's database answers again (after {waited:.0f} s)", file=sys.stderr, flush=True)
            return result

    def set_trial_state_values(self, trial_id: int, state: TrialState, values: Any = None) -> bool:
        tries = 0

        def once(storage: RDBStorage, *args: Any) -> bool:
            nonlocal tries
            tries += 1
            try:
                return RDBStorage.set_trial_state_values(storage, *args)
            except UpdateFinishedTrialError:
                # a try cut off after its commit went through: the trial holds what this call set
                if tries > 1 and storage.get_trial(trial_id).state == state:
                    return True
                raise

        return bool(self.patiently(once, trial_id, state, values))


def _patient(name: str) -> Callable[..., Any]:
    method = getattr(RDBStorage, name)

    @functools.wraps(method)
    def call(self: ServerStorage, *args: Any, **kwargs: Any) -> Any:
        return self.patiently(method, *args, **kwargs)

    return call


# every other call of Optuna's that reaches the database (the heartbeat thread's too: it waits like the worker)
for _name in (
    "create_new_study",
    "delete_study",
    "set_study_user_attr",
    "set_study_system_attr",
    "get_study_id_from_name",
    "get_study_name_from_id",
    "get_study_directions",
    "get_study_user_attrs",
    "get_study_system_attrs",
    "get_all_studies",
    "create_new_trial",
    "set_trial_param",
    "get_trial_id_from_study_id_trial_number",
    "get_trial_number_from_id",
    "get_trial_param",
    "set_trial_intermediate_value",
    "set_trial_user_attr",
    "set_trial_system_attr",
    "get_trial",
    "get_all_trials",
    "get_n_trials",
    "get_best_trial",
    "get_trial_params",
    "get_trial_user_attrs",
    "get_trial_system_attrs",
    "record_heartbeat",
    "_get_stale_trial_ids",
    # Optuna's _CachedStorage, which every study wraps its RDBStorage in, calls these private ones: study.trials,
    # ask() and suggest_* failed at once in an outage, ending a worker that waited for the baseline (audit 31 F1)
    "_get_trials",
    "_create_new_trial",
    "_set_trial_param",
    "_get_best_trial_id",
):
    setattr(ServerStorage, _name, _patient(_name))
