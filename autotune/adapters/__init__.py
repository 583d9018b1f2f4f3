"""Trainer adapters: how a trial config becomes a running job (`builtin`, `verl`)."""

from __future__ import annotations

from autotune.adapters.base import DeviceKind, InvalidConfig, KeyInfo, Launch, TrainerAdapter, device_kind


def get_adapter(name: str, command: list[str] | None = None) -> TrainerAdapter:
    """The adapter for `trainer:` in a space; `command` is the verl launcher prefix."""
    if name == "builtin":
        from autotune.adapters.builtin import BuiltinAdapter

        return BuiltinAdapter()
    if name == "verl":
        from autotune.adapters.verl import VerlAdapter

        return VerlAdapter(command)
    raise ValueError(f"unknown trainer {name!r} (available: builtin, verl)")


__all__ = ["DeviceKind", "InvalidConfig", "KeyInfo", "Launch", "TrainerAdapter", "device_kind", "get_adapter"]
