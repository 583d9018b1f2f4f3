"""The cost model: a trial's step time and memory predicted from the configuration and the hardware,
used as a trial fidelity (`sim_fidelity`) and fitted to measured runs (`calibrate`, `verl_log`)."""

from __future__ import annotations

from autotune.sim.hardware import Cluster, Device, cluster, resolve_device
from autotune.sim.model import Calibration, CostModel, Prediction, load_calibration
from autotune.sim.sim_fidelity import CostModelFidelity

__all__ = [
    "Calibration",
    "Cluster",
    "CostModel",
    "CostModelFidelity",
    "Device",
    "Prediction",
    "cluster",
    "load_calibration",
    "resolve_device",
]
