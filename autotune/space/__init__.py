"""The search space: the file's schema and rules, its loader, and one trial's config from it."""

from __future__ import annotations

from autotune.space.freeze import freeze, inert_params
from autotune.space.loader import SPACE_DIR, SpaceError, load_space
from autotune.space.sampling import ConstraintViolation, TrialConfig, suggest, trial_config
from autotune.space.schema import Constraint, Limit, Objective, Param, Space

__all__ = [
    "SPACE_DIR",
    "Constraint",
    "ConstraintViolation",
    "Limit",
    "Objective",
    "Param",
    "Space",
    "SpaceError",
    "TrialConfig",
    "freeze",
    "inert_params",
    "load_space",
    "suggest",
    "trial_config",
]
