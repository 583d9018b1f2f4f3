"""The names a user chooses that end up as paths or process environment: the rules and their checks.

A study name becomes a folder under the runs and reports folders, so it is one plain path
component (no separators, not `.` or `..`): a name can never write outside those folders. An
environment variable name must be a portable POSIX name: anything else (`=`, NUL, spaces, shell
metacharacters, dots) breaks `exec`, the shell line written beside each trial, or the dotted
verl key it is exported under.
"""

from __future__ import annotations

import pkgutil
import re
from collections.abc import Iterable
from pathlib import Path

STUDY_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,127}")
ENV_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def study_name_problem(name: object) -> str | None:
    """Why `name` cannot be a study name, or None when it can."""
    if not isinstance(name, str) or not STUDY_NAME.fullmatch(name) or name in (".", ".."):
        return (
            f"study name {name!r} must be letters, digits, `.`, `_` or `-` (at most 128, starting with a "
            "letter or digit), so it stays one folder inside the runs folder; e.g. `fsdp3d-try2`"
        )
    return None


def env_name_problem(name: object) -> str | None:
    """Why `name` cannot be an environment variable name, or None when it can."""
    if not isinstance(name, str) or not ENV_NAME.fullmatch(name):
        return (
            f"environment variable name {name!r} must match [A-Za-z_][A-Za-z0-9_]* "
            "(letters, digits and `_`, not starting with a digit), e.g. NCCL_PROTO"
        )
    return None


def env_value_problem(name: str, value: object) -> str | None:
    """Why `value` cannot be the value of environment variable `name`, or None when it can."""
    if value is None or isinstance(value, (dict, list)):
        return f'environment variable {name} must be a string or number, got {value!r}; write e.g. {name}: "1"'
    if "\0" in str(value):
        return f"environment variable {name} contains a NUL character, which no process environment can hold"
    return None


SECRET_NAME = re.compile(
    r"(?:.*_)?(?:API_?KEY|TOKEN|SECRET|PASSWORD|PASSWD|CREDENTIALS?|ACCESS_KEY|PRIVATE_KEY)(?:_.*)?", re.IGNORECASE
)
"""Environment variables that hold a secret (`WANDB_API_KEY`, `HF_TOKEN`, `AWS_SECRET_ACCESS_KEY`), by a part of
the name between underscores (`TOKENIZERS_PARALLELISM`, `VLLM_MAX_NUM_BATCHED_TOKENS` are none): a space's `env:` is
stored in the study, each trial's folder, the export and the report, which are made to be shared."""


def is_secret(name: str) -> bool:
    return SECRET_NAME.fullmatch(name) is not None


def short_labels(keys: Iterable[str]) -> dict[str, str]:
    """Each dotted key's shortest tail (whole components) that no other key in `keys` shares: the
    rollout's and the reference's `log_prob_micro_batch_size_per_gpu` read `rollout.log_prob_...` and
    `ref.log_prob_...`; a key whose last component is unique keeps just that."""
    keys = list(dict.fromkeys(keys))
    parts = {k: k.split(".") for k in keys}
    out = {}
    for key in keys:
        for n in range(1, len(parts[key]) + 1):
            tail = parts[key][-n:]
            if not any(other != key and parts[other][-n:] == tail for other in keys):
                break
        out[key] = ".".join(tail)
    return out


def modules_named(folder: Path, suffix: str) -> tuple[str, ...]:
    """The NAMEs of the modules `NAME<suffix>.py` in `folder`, found by file name without importing
    them (how the trainer and backend registries list what they hold)."""
    return tuple(sorted(m.name[: -len(suffix)] for m in pkgutil.iter_modules([str(folder)]) if m.name.endswith(suffix)))
