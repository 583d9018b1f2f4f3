"""The winner of a study as a verl config: YAML plus Hydra overrides, checked against verl. Reads what
the sweep wrote (`autotune.study.results.find_winner` and the conclusions it reads); never runs a trial."""

from __future__ import annotations

from autotune.export.winner import ExportError, check_export, export, export_settings, sweep_device

__all__ = ["ExportError", "check_export", "export", "export_settings", "sweep_device"]
