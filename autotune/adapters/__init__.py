"""Trainer adapters: how a trial config becomes a running job (`builtin`, `verl`)."""

from __future__ import annotations

from autotune.adapters.base import DeviceKind, InvalidConfig, KeyInfo, Launch, TrainerAdapter, device_kind


def get_adapter(name: str) -> TrainerAdapter:
    if name == "builtin":
        from autotune.adapters.builtin import BuiltinAdapter

        return BuiltinAdapter()
    raise ValueError(f"unknown trainer {name!r} (available: builtin)")


__all__ = ["DeviceKind", "InvalidConfig", "KeyInfo", "Launch", "TrainerAdapter", "device_kind", "get_adapter"]
