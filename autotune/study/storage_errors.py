"""What a storage URL's failures say: the URL refused when opened (`storage_problem`), the database lost in the
middle of a command (`storage_failure`), and URLs without their password (`redact`), for messages and logs."""

from __future__ import annotations

import optuna

_EXAMPLES = "sqlite:///runs/my.db, postgresql://USER:PASSWORD@HOST/DB, mysql+pymysql://USER:PASSWORD@HOST/DB"


def storage_problem(url: str, exc: BaseException) -> str:
    shown = redact(url)
    if isinstance(exc, ModuleNotFoundError) or "Failed to import DB access module" in str(exc):
        missing = exc if isinstance(exc, ModuleNotFoundError) else exc.__cause__
        module = getattr(missing, "name", None) or "?"
        extra = ""
        if url.startswith("postgres"):  # the extra installs psycopg 3: `postgresql://` is what it drives
            extra = (
                " (`postgresql://` or `postgresql+psycopg://` uses psycopg 3, which `pip install 'autotune[postgres]'` "
                "installs)"
                if module.split(".")[0] != "psycopg"
                else " (pip install 'autotune[postgres]')"
            )
        return f"--storage {shown}: its database driver `{module}` is not installed{extra}"
    name = type(exc).__name__
    if name in ("ArgumentError", "NoSuchModuleError"):
        scheme, _, rest = url.partition("://")
        if scheme.split("+")[0] == "postgres":  # psql and hosted databases hand out this spelling
            fixed = redact(f"postgresql{scheme[len('postgres') :]}://{rest}")
            return (
                f"--storage {shown}: SQLAlchemy reads PostgreSQL URLs as `postgresql://` (it dropped the "
                f"`postgres://` alias): write --storage {fixed}"
            )
        return f"--storage {shown}: not a database URL Optuna can use; give one like {_EXAMPLES}"
    cause = str(getattr(exc, "orig", None) or exc).splitlines()[0]
    if url.startswith("sqlite"):
        return f"--storage {shown}: cannot open the SQLite file ({cause}); check that its folder exists and is writable"
    if url.startswith("postgres") and "does not exist" in cause:  # the server answered: a role or database to make
        what = "database" if 'database "' in cause else "role"
        make = "createdb NAME (as a user allowed to)" if what == "database" else "createuser NAME (as a superuser)"
        return f"--storage {shown}: the server answered ({cause}): create the {what} ({make}), or name one it has"
    refused = ("password authentication failed", "no password supplied", "pg_hba.conf")
    if url.startswith("postgres") and any(r in cause for r in refused):  # the server answered: not one to install
        return (
            f"--storage {shown}: the server refused the login ({cause}): check USER:PASSWORD in the URL (or the "
            "server's pg_hba.conf)"
        )
    server = (
        "; is a PostgreSQL server running there? (Debian: apt-get install postgresql)"
        if url.startswith("postgres")
        else ""
    )
    return (
        f"--storage {shown}: cannot connect ({cause}); check the host, port, user, password and database name{server}"
    )


class StorageLost(Exception):
    """A database failure met in another process (a Ray trial's), re-raised by the driver with its line."""


def storage_failure(exc: BaseException) -> str | None:
    """One line for a database error in the middle of a command (a PostgreSQL restart, a lost connection, a locked
    file), or None for any other error. Every worker died with a 312-line traceback whose last line blamed "invalid
    data in the commit, e.g. exceeding max length" (Optuna's wording for any failed commit, audit 17 F6)."""
    if isinstance(exc, StorageLost):
        return str(exc)
    seen: list[BaseException] = []
    link: BaseException | None = exc
    while link is not None and link not in seen:
        seen.append(link)
        link = link.__cause__ or link.__context__
    failed = [e for e in seen if type(e).__module__.startswith("sqlalchemy")]
    if not failed and not any(isinstance(e, optuna.exceptions.StorageInternalError) for e in seen):
        return None
    cause = str(getattr(failed[0], "orig", None) or failed[0]) if failed else str(exc)
    return (
        f"the study's database failed mid-command ({cause.strip().splitlines()[0]}): what finished is kept; once "
        "the database answers again, the same command goes on from it (a trial cut off is run again)"
    )


def redact(url: str) -> str:
    """The URL without its password (error messages end up in logs)."""
    import re

    return re.sub(r"(//[^:/@]+:)[^@/]*@", r"\1***@", url)
