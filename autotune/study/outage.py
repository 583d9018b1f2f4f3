"""A study on a database server (PostgreSQL, MySQL) that rides out the server's outage: a restart or a failover
while a trial runs no longer ends every worker at its next write.

Each call to the database that fails because the server cannot be reached, dropped the connection or rolled the
transaction back (a deadlock) is made again, every few seconds, for up to OUTAGE_S; the worker says once that it
waits, and again when the server answers. Past that, the error goes on as before (the CLI's one line: what
finished is kept, the same command goes on from it). SQLite is not a server: its `database is locked` has its
own 60 s timeout (`open_storage`).

A connection dropped while the server committed leaves the call's effect unknown; every call here but two writes
the same thing again (an attribute, a value, a heartbeat). `set_trial_state_values` finds the trial already in
the state it set and says so (True); `create_new_trial` could leave one extra trial that no worker runs, which
the heartbeat's grace period fails like a dead worker's (and retries once).
"""

from __future__ import annotations

import functools
import sys
import threading
import time
from collections.abc import Callable
from typing import Any

from optuna.exceptions import StorageInternalError, UpdateFinishedTrialError
from optuna.storages import RDBStorage
from optuna.trial import TrialState
from sqlalchemy import exc as sa_exc

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
):
    setattr(ServerStorage, _name, _patient(_name))
