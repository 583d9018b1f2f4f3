"""Where a sweep lives: its Optuna storage, its folders, and the record of each trial.

    runs/<study>/study.db          Optuna storage (SQLite) unless --storage names another RDB URL
    runs/<study>/space.json        the space that ran (resolved: --trainer, freezing), as data
    runs/<study>/space.yaml        the space file's text, as the user wrote it
    runs/<study>/trials/0007/      config.yaml, env, command, metrics.jsonl, stdout.log, stderr.log, outcome.json
    runs/<study>/confirm/          confirmation re-runs (what they concluded: `autotune.study.confirmation_result`)

Each trial carries its `TrialRecord` (autotune.trial.record) as user attributes, and the study its
`StudyInfo`. Report, export and `trials` read only the storage and these folders.
"""

from __future__ import annotations

import contextlib
import copy
import dataclasses
import fcntl
import functools
import json
import socket
import warnings
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import optuna
from optuna.exceptions import ExperimentalWarning
from optuna.storages import RDBStorage, RetryHeartbeatStaleTrialCallback
from optuna.trial import FrozenTrial, TrialState

from autotune.names import study_name_problem
from autotune.space.schema import Space
from autotune.study.rdb import ServerStorage, SQLiteStorage, locked
from autotune.study.storage_errors import redact, storage_problem
from autotune.trial.record import TrialRecord, is_baseline, outcome_of, write_json

# Heartbeats and retries are what make a killed controller resumable; Optuna flags them experimental
# and assumes study.optimize(), while this package drives ask/tell and records heartbeats itself.
warnings.filterwarnings("ignore", category=ExperimentalWarning)
warnings.filterwarnings("ignore", message="Heartbeat of storage is supposed to be used with Study.optimize")
optuna.logging.set_verbosity(optuna.logging.WARNING)

HEARTBEAT_S = 5
MAX_RETRIES = 1
"""How many times a configuration whose worker died is run again (`RetryOnce`)."""
GRACE_S = 30
RUNS_STAGES = "runs the stages after the sweep"
"""What a worker holding `.finishing` does (the file's second line); `autotune explain` holds it too."""


class StudyNameError(ValueError):
    """A study name that would not be one folder inside the runs folder."""


class StorageError(ValueError):
    """A `--storage` URL that Optuna cannot open: the message says why and how to fix it."""


@dataclass(frozen=True)
class StudyPaths:
    runs_dir: Path
    name: str

    def __post_init__(self) -> None:
        trouble = study_name_problem(self.name)
        if trouble:
            raise StudyNameError(trouble)

    @property
    def root(self) -> Path:
        return self.runs_dir / self.name

    @property
    def db(self) -> Path:
        return self.root / "study.db"

    @property
    def space_copy(self) -> Path:
        """The space file as the user wrote it (for people; the study runs `space_data`)."""
        return self.root / "space.yaml"

    @property
    def space_data(self) -> Path:
        """The space that ran, resolved (--trainer, freezing, the cost model's adjustments), as data."""
        return self.root / "space.json"

    def trial_dir(self, number: int) -> Path:
        return self.root / "trials" / f"{number:04d}"

    def located(self, stored: str | Path) -> Path:
        """A folder the study's records name (a trial's, a quality run's), found from here. Records keep the path
        as the controller had it: relative to the folder it ran in, or absolute on the machine it ran on. Read from
        another folder (the notebook in notebooks/, `--runs-dir`) or after the runs folder was copied elsewhere,
        the part below the study's folder is taken under this runs folder."""
        path = Path(stored)
        parts = path.parts
        if self.name in parts:
            here = self.root.joinpath(*parts[len(parts) - parts[::-1].index(self.name) :])
            if here.exists() or not path.exists():
                return here
        return path

    def flags(self, storage: str | None = None) -> str:
        """The options a hint's command needs to find this study again (` --runs-dir myruns`), so that it
        works when pasted: without them it looks under runs/ and finds no study. The storage is the one given,
        else the one the sweep was given (`storage_file`, password masked): a hint without it was answered
        "whose trials are in another storage: add --storage ..." (audit 17 F9)."""
        out = f" --runs-dir {self.runs_dir}" if Path(self.runs_dir) != Path("runs") else ""
        if storage:
            return out + f" --storage {redact(storage)}"
        try:
            stored = self.storage_file.read_text().strip()
        except OSError:
            stored = ""
        return out + (f" --storage {stored}" if stored else "")

    @property
    def storage_file(self) -> Path:
        """The storage a study swept with --storage is in (its URL, password masked): readers without --storage
        are told it."""
        return self.root / "storage.txt"

    @property
    def stage_file(self) -> Path:
        """The stage after the sweep that the worker holding `.finishing` runs now (written by `live.set_stage`)."""
        return self.root / ".stage"

    @property
    def confirm_dir(self) -> Path:
        return self.root / "confirm"

    @contextlib.contextmanager
    def lock(self) -> Iterator[None]:
        """An exclusive lock on this study's folder (serialises set-up between local workers)."""
        self.root.mkdir(parents=True, exist_ok=True)
        with locked(self.root / ".lock"):
            yield

    @contextlib.contextmanager
    def finishing(
        self,
        note: Callable[[str], None],
        doing: str = RUNS_STAGES,
        then: str = (
            "this worker then keeps what is measured as its own flags ask (the same candidates and rounds) and "
            "measures the rest: started with another --top-k, --confirm or --ablate, it measures again"
        ),
    ) -> Iterator[None]:
        """Held while this process measures on the study's winner: a worker running a stage after the sweep
        (confirmation, the ablation and the equivalence check; the quality stage), or `autotune explain`. One runs
        at a time, and the others wait (two would measure on the same cores, into the same folders), saying whom
        for and what comes `then`. The lock goes with its process, killed or not."""
        import os
        import socket

        self.root.mkdir(parents=True, exist_ok=True)
        with (self.root / ".finishing").open("a+") as f:
            try:
                _flock_soon(f)
            except BlockingIOError:
                f.seek(0)
                owner, _, what = f.read().strip().partition("\n")
                note(
                    f"waiting for {owner or 'another worker'}, which {what or RUNS_STAGES} of study "
                    f"`{self.name}`; {then}"
                )
                fcntl.flock(f, fcntl.LOCK_EX)
            f.truncate(0)
            f.write(f"worker pid {os.getpid()} on {socket.gethostname()}\n{doing}")
            f.flush()
            if doing == RUNS_STAGES:  # the stage an earlier holder was in (`live.set_stage`) is not this one's
                self.stage_file.unlink(missing_ok=True)
            try:
                yield
            finally:
                fcntl.flock(f, fcntl.LOCK_UN)

    def finishing_now(self) -> str | None:
        """Who runs the stages after the sweep right now ("worker pid N on HOST"), or None when nobody does (or an
        `autotune explain` holds the lock): a reader asks without waiting (`best` during confirmation said "no
        confirmation ran", audit 16 F5)."""
        held = self.measuring_now()
        return held[0] if held is not None and held[1] == RUNS_STAGES else None

    def measuring_now(self) -> tuple[str, str] | None:
        """Who holds `.finishing` right now, and what it runs (`finishing`'s `doing`: the stages after the sweep,
        or `autotune explain`), asked without waiting; None when nobody does."""
        path = self.root / ".finishing"
        if not path.exists():
            return None
        with path.open("r") as f:
            try:
                fcntl.flock(f, fcntl.LOCK_SH | fcntl.LOCK_NB)
            except BlockingIOError:
                owner, _, what = f.read().strip().partition("\n")
                return owner or "another worker", what or RUNS_STAGES
            fcntl.flock(f, fcntl.LOCK_UN)
        return None


def _flock_soon(f: Any, tries: int = 5) -> None:
    """An exclusive lock without waiting, tried a few times 20 ms apart: a reader asking who holds `.finishing`
    (`measuring_now`) holds a shared lock for an instant, and a worker meeting it announced a wait for the file's
    last holder, a dead pid (audit 34 N5). Raises BlockingIOError when it is held."""
    import time

    for attempt in range(tries):
        try:
            fcntl.flock(f, fcntl.LOCK_EX | fcntl.LOCK_NB)
            return
        except BlockingIOError:
            if attempt == tries - 1:
                raise
            time.sleep(0.02)


def storage_url(paths: StudyPaths, override: str | None) -> str:
    return override or f"sqlite:///{paths.db.resolve()}"


def open_storage(url: str) -> RDBStorage:
    """An RDB storage with heartbeats: a trial whose worker died is failed, and retried once.

    Raises StorageError (never a driver's traceback) for a URL that cannot be opened.
    """
    kwargs: dict[str, Any] = {}
    storage: Callable[..., RDBStorage] = RDBStorage
    if not url.startswith("sqlite"):
        # a server's outage is waited out (autotune.study.rdb); a pooled connection to a server that restarted
        # since is tested and replaced when taken, not used to fail the next write
        storage = ServerStorage
        kwargs["engine_kwargs"] = {"pool_pre_ping": True}
    else:
        kwargs["engine_kwargs"] = {"connect_args": {"timeout": 60}}
        database = _sqlite_database(url)
        if database in ("", ":memory:"):  # each connection its own empty database: the trials would be lost
            raise StorageError(
                f"--storage {url}: an in-memory SQLite database holds nothing past one connection, so the study "
                f"and its trials would be lost; give a file (sqlite:///runs/my.db) or leave --storage out"
            )
        if database and Path(database).is_dir():
            raise StorageError(
                f"--storage {url}: {database} is a folder; name a database file in it ({database}/study.db)"
            )
        if database:
            # named after the file itself: two workers reaching it by different paths (a symlink) lock one file
            storage = functools.partial(SQLiteStorage, lock_path=Path(str(Path(database).resolve()) + ".lock"))
    for attempt in range(3):
        try:
            return storage(
                url,
                heartbeat_interval=HEARTBEAT_S,
                grace_period=GRACE_S,
                heartbeat_stale_trial_callback=RetryOnce(max_retry=MAX_RETRIES),
                **kwargs,
            )
        except Exception as exc:  # sqlalchemy and driver errors of every kind: say which and how to fix
            racing = "alembic_version" in str(exc) or "already exists" in str(exc)  # another process made the schema
            # meanwhile (a new server database opened by two workers at once; an SQLite file opens under its lock)
            if attempt < 2 and racing:
                import time

                time.sleep(0.5)
                continue
            raise StorageError(storage_problem(url, exc)) from None
    raise AssertionError("unreachable")


class RetryOnce(RetryHeartbeatStaleTrialCallback):
    """Optuna's retry of a trial whose worker died, without the dead run's record.

    Optuna's callback copies every user attribute into the retry: the dead worker's pid and
    process group (which recovery would kill, though the kernel may have given them to someone
    else), its `reason: interrupted`, directory and outcome. The retry keeps only what defines the
    configuration.
    """

    def __call__(self, study: optuna.Study, trial: FrozenTrial) -> None:
        clean = copy.deepcopy(trial)
        clean.user_attrs = TrialRecord.of(trial).attrs(TrialRecord.IDENTITY)
        super().__call__(study, clean)


@dataclass
class StudyInfo:
    """What a study records about itself (Optuna study user attributes)."""

    objectives: list[list[str]] = field(default_factory=list)
    """[metric, direction, reducer] per objective, in the space's order."""
    trainer: str | None = None
    device: str = "cpu"
    """Where the trials ran (cpu | cuda): exports and the report say which hardware the numbers are from."""
    world_size: int | None = None
    workers: int = 0
    """How many `autotune run` processes have joined this study (each gets its own sampler seed)."""
    baseline_enqueued: bool = False
    backend: str | None = None
    """The backend that drove the sweep (optuna | ray)."""
    fidelity: str = "real"
    """real: trials ran; sim: the cost model predicted them."""
    sim_unmodelled: list[str] = field(default_factory=list)
    """Knobs a simulated sweep kept at their baseline because the cost model does not read them."""
    sim_study: str | None = None
    """The simulated study that chose this one's trials (multi-fidelity sweeps)."""
    sim_lengths: str | None = None
    """The response lengths a simulated sweep's cost model assumed, and where each came from."""
    sim_error: str | None = None
    """A simulated study's model error, when it is not the published runs' (`Fidelity.error_note`)."""
    sim_model: str | None = None
    """A simulated study's cost model in words (device × world, model, weights): one per study."""
    quality_systems: dict[str, Any] | None = None
    """A quality study's: the systems values its runs used (kept for a resumed stage)."""
    folder_id: str | None = None
    """A random id, also in `.study-id` in the study's folder: workers that share the database but not the folder
    are told (each ran the stages after the sweep on its own and printed another winner, audit 17 F11)."""
    folder: str | None = None
    """Where that folder is (host:path), for the message."""
    quality_rules: dict[str, Any] | None = None
    """A quality study's: the `quality:` settings its runs were measured and judged by (a rerun with others is
    refused: its finished runs would be read under rules they did not run with)."""
    space_text: str | None = None
    """The space file's text the study was created with, kept in the storage too: with the study's folder deleted
    (its trials in PostgreSQL), an edited space resumed the old trials (`check_same_space`, audit 31 F4)."""

    @classmethod
    def of(cls, study: optuna.Study) -> StudyInfo:
        known = {f.name for f in dataclasses.fields(cls)}
        return cls(**{k: v for k, v in study.user_attrs.items() if k in known})

    def save(self, study: optuna.Study, *names: str) -> None:
        """Write the fields `names` (all when none are given) onto the study."""
        for f in dataclasses.fields(self):
            if not names or f.name in names:
                study.set_user_attr(f.name, getattr(self, f.name))


class StudyNotFound(LookupError):
    pass


def check_one_folder(study: optuna.Study, paths: StudyPaths) -> None:
    """Every worker of a study uses one folder for it: its trials' folders, the lock that lets one worker run the
    stages after the sweep, and what they measured. A worker whose folder is not the one the study was started
    in (another machine's runs folder, not shared) is refused: on its own it confirmed again and printed another
    winner, each machine shipping a different result. The study's first folder (a new study, or one from before
    this check) is recorded as the study's."""
    import uuid

    mine = paths.root / ".study-id"
    have = mine.read_text().strip() if mine.exists() else None
    info = StudyInfo.of(study)
    if info.folder_id is None or info.folder_id == have:
        if info.folder_id is None:
            have = have or uuid.uuid4().hex
            paths.root.mkdir(parents=True, exist_ok=True)
            mine.write_text(have + "\n")
            StudyInfo(folder_id=have, folder=f"{socket.gethostname()}:{paths.root.resolve()}").save(
                study, "folder_id", "folder"
            )
        return
    if info.folder == f"{socket.gethostname()}:{paths.root.resolve()}":  # it said "another" of this same folder
        raise StorageError(
            f"study `{paths.name}` in this storage keeps its folder at {info.folder}, this worker's, but the folder "
            f"no longer holds the study's id (deleted or made again since): the study's trials are still in the "
            f"storage. To go on with them: echo {info.folder_id} > {mine}"
            + (
                " (an earlier autotune made this study and kept no copy of its space file in the storage: resume it "
                "only with the file it ran, unedited; nothing can check that)"
                if info.space_text is None
                else ""
            )
            + f"; to start the study over, delete it from the storage too (optuna delete-study --study-name "
            f"{paths.name} --storage URL)"
        )
    raise StorageError(
        f"study `{paths.name}` in this storage keeps its folder at {info.folder}; this worker's is "
        f"{socket.gethostname()}:{paths.root.resolve()}, another: workers of one study need one runs folder they all "
        "see (on a shared filesystem), else each runs the stages after the sweep on its own and they print different "
        f"winners. Pass that folder's runs folder as --runs-dir (mounted here); if it is gone for good, make this "
        f"folder the study's: echo {info.folder_id} > {mine}"
    )


def save_space(paths: StudyPaths, space: Space) -> None:
    """Keep the space a study runs: the resolved data (what report, export, calibration and resumed
    workers use) and the file's text beside it. Written once, when the study is created."""
    if not paths.space_data.exists():
        write_json(paths.space_data, space.to_data())
    if not paths.space_copy.exists():
        paths.space_copy.write_text(space.text)


def stored_space(paths: StudyPaths) -> Space:
    """The space the study ran, rebuilt from its data without re-reading or re-validating the file.
    Studies written before the data was kept fall back to their `space.yaml`."""
    if paths.space_data.exists():
        try:
            return Space.from_data(json.loads(paths.space_data.read_text()))
        except ValueError as exc:  # SpaceDataError, or a file cut short
            raise StudyNotFound(f"{paths.space_data}: {exc}") from None
    if paths.space_copy.exists():
        from autotune.space.loader import load_space

        return load_space(str(paths.space_copy))
    raise StudyNotFound(no_study(paths))


def no_study(paths: StudyPaths) -> str:
    """Where a study was looked for, the studies there (the closest name first), and the ways on."""
    import difflib

    root = paths.runs_dir.resolve()
    if paths.storage_file.exists():  # swept with --storage: its folder here, its trials in that database
        return (
            f"{root}/{paths.name}/ holds study `{paths.name}`, whose trials are in another storage: add --storage "
            f"{paths.storage_file.read_text().strip()} (the one its sweep was given, with its password; in the Python "
            "API, storage= and runs_dir=)"
        )
    owner = paths.name.removesuffix("-quality")
    if owner != paths.name and (root / owner).is_dir():  # its quality search lives in its folder (audit 22 F7)
        return quality_search(paths.name, owner)
    there = sorted(p.parent.name for p in root.glob("*/study.db")) if root.is_dir() else []
    close = difflib.get_close_matches(paths.name, there, n=1)
    found = (
        (f"did you mean `{close[0]}`? " if close else "")
        + f"studies there: {', '.join(there[:12])}{' …' if len(there) > 12 else ''}"
        if there
        else "no studies there"
    )
    return (
        f"no study `{paths.name}` under {root}/ ({found}; --runs-dir DIR (in the Python API, runs_dir=) reads "
        "another folder; `autotune run --space ...` starts a study)"
    )


def load_study(paths: StudyPaths, storage: str | None = None) -> optuna.Study:
    url = storage_url(paths, storage)
    if storage is None and not paths.db.exists():
        raise StudyNotFound(no_study(paths))
    missing = _missing_sqlite_file(url)
    if missing is not None:  # opening it would create an empty database where a reader looked for a study
        raise StudyNotFound(f"no study `{paths.name}` in {url}: {missing} does not exist")
    try:
        study = optuna.load_study(study_name=paths.name, storage=open_storage(url))
    except KeyError:
        raise StudyNotFound(f"no study `{paths.name}` in {url}") from None
    if StudyInfo.of(study).quality_rules is not None and paths.name.endswith("-quality"):
        # `trials` read it as a throughput study (audit 22 F7)
        raise StudyNotFound(quality_search(paths.name, paths.name.removesuffix("-quality")))
    return study


def quality_search(name: str, owner: str) -> str:
    """Said of study `owner`'s quality search named as a study: not one the readers read."""
    return (
        f"`{name}` is study `{owner}`'s quality search, not a sweep: its decision is in `autotune best {owner}`, its "
        f"runs in the report's quality.html (`autotune report {owner}`)"
    )


def find_study(name: str, url: str) -> optuna.Study | None:
    """The study `name` in `url`, or None when there is none (an SQLite file that is not there is not made)."""
    if _missing_sqlite_file(url) is not None:
        return None
    try:
        return optuna.load_study(study_name=name, storage=open_storage(url))
    except KeyError:
        return None


def _missing_sqlite_file(url: str) -> str | None:
    """The file of an SQLite URL when it does not exist (SQLite creates it on connecting), else None."""
    database = _sqlite_database(url) if url.startswith("sqlite:///") else None
    return database if database and database != ":memory:" and not Path(database).exists() else None


def absolute_url(url: str) -> str:
    """A relative SQLite URL made absolute (`sqlite:///db/x.db` from /work: `sqlite:////work/db/x.db`), as the study
    folder records it: from another folder the recorded relative URL named no database (audit 16 F11)."""
    database = _sqlite_database(url) if url.startswith("sqlite:///") else None
    if not database or database == ":memory:" or Path(database).is_absolute():
        return url
    return "sqlite:///" + str(Path(database).resolve()) + (url[url.index("?") :] if "?" in url else "")


def _sqlite_database(url: str) -> str | None:
    """An SQLite URL's database ("" in memory: `sqlite://`); None when the URL cannot be read (open_storage says why)."""
    from sqlalchemy.engine import make_url

    try:
        return make_url(url).database or ""
    except Exception:  # sqlalchemy's ArgumentError: RDBStorage reports it with the examples
        return None


def counted(trial: FrozenTrial) -> bool:
    """A trial that counts towards --trials: finished with an outcome (interrupted/skipped ones do not)."""
    return trial.state.is_finished() and TrialRecord.of(trial).counted


def baseline_trial(study: optuna.Study) -> FrozenTrial | None:
    return next((t for t in study.get_trials(deepcopy=False) if is_baseline(t) and counted(t)), None)


def feasible_trials(study: optuna.Study) -> list[FrozenTrial]:
    return [t for t in study.get_trials(deepcopy=False) if outcome_of(t) == "complete" and t.values is not None]


def running_trials(study: optuna.Study) -> list[FrozenTrial]:
    return [t for t in study.get_trials(deepcopy=False, states=(TrialState.RUNNING,))]
