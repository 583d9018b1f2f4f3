"""Trainer adapters: how a trial config becomes a running job, one registered file per trainer
(`builtin_trainer.py`, `verl_trainer.py`; the registry is in `base.py`)."""

from __future__ import annotations

from autotune.adapters.base import (
    TRAINERS,
    DeviceKind,
    InvalidConfig,
    KeyInfo,
    Launch,
    TrainerAdapter,
    TrialRun,
    device_kind,
    get_adapter,
    register,
)

__all__ = [
    "TRAINERS",
    "DeviceKind",
    "InvalidConfig",
    "KeyInfo",
    "Launch",
    "TrainerAdapter",
    "TrialRun",
    "device_kind",
    "get_adapter",
    "register",
]
