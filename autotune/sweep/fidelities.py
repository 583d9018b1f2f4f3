"""How a sweep's trials are measured, by name: the registry `--fidelity` chooses from.

Each entry is a `Fidelity` (autotune/trial/fidelity.py) registered under its own `name`: `real`
runs the trainer, `sim` asks the cost model. A sweep's plan is one fidelity, or `sim,real` (the
cost model ranks the space, then real trials run its best predictions; sweep/driver.py).
"""

from __future__ import annotations

from autotune.sim.sim_fidelity import CostModelFidelity
from autotune.space.schema import Space
from autotune.trial.fidelity import Fidelity, FidelitySettings, RealRun

FIDELITIES: dict[str, type[Fidelity]] = {cls.name: cls for cls in (RealRun, CostModelFidelity)}
"""Every fidelity by name (`real`, `sim`)."""
REAL, SIM = RealRun.name, CostModelFidelity.name
PLANS: tuple[tuple[str, ...], ...] = ((), (REAL,), (SIM,), (SIM, REAL))
"""What `--fidelity` accepts: nothing or `real` (trials run), `sim`, or `sim,real` (the cost model first)."""


def get_fidelity(name: str, space: Space, settings: FidelitySettings | None = None) -> Fidelity:
    """The fidelity registered as `name`, set up for a sweep of `space`."""
    if name not in FIDELITIES:
        raise ValueError(f"unknown fidelity {name!r}: choose one of {', '.join(FIDELITIES)}")
    return FIDELITIES[name].for_sweep(space, settings or FidelitySettings())
