"""The published verl runs `sim_published.py` holds the cost model against, and every public source checked for them.

One module per round of runs: RUNS (first.py: the constants were first set on them), NEW_RUNS (second.py), and
THIRD_RUNS, FOURTH_RUNS, FIFTH_RUNS, SIXTH_RUNS, SEVENTH_RUNS, NINTH_RUNS and TENTH_RUNS (third.py to tenth.py; each
gathered after the model was frozen at a revision, THIRD_FROZEN_REV / FOURTH_FROZEN_REV / FIFTH_FROZEN_REV /
SIXTH_FROZEN_REV / SEVENTH_FROZEN_REV / NINTH_FROZEN_REV, kept beside its round; the tenth under NINTH_FROZEN_REV, and
no eighth: its search found nothing usable). SYNC_MEASURED (sync_measured.py: the weight-sync seconds of the runs of
verl 0.7.1+ that time it apart), SOURCES_CHECKED (sources.py, its first entries in sources_early.py: what was
searched and why each other source was rejected), HYBRIDFLOW (hybridflow.py: the paper's TP-ranking setting) and VLLM_DOCS (comparisons.py: a published
A/B comparison of one job's rollout settings).
What several rounds share (verl's old defaults as overrides, the folders of the model and device files MODELS and
DEVICES_DIR) is in _common.py. Each entry says where it comes from, how its GPU is known, its config as verl
overrides, its measured lengths and its published `timing_s/*`; the conventions are in `sim_published.py`'s
docstring. Data only: nothing here imports the project.
"""

from ._common import DEVICES_DIR, MODELS
from .comparisons import VLLM_DOCS
from .fifth import FIFTH_FROZEN_REV, FIFTH_RUNS, GKE, RTS
from .first import DATA, PLAY, RUNS
from .fourth import FOURTH_FROZEN_REV, FOURTH_RUNS, LEARNERAF, VERLDATA
from .hybridflow import HYBRIDFLOW
from .ninth import NINTH_FROZEN_REV, NINTH_RUNS, R360
from .second import DSTACK, NEW_RUNS, SHAMANEZ, TENCENT
from .seventh import CLUSTER, SEVENTH_FROZEN_REV, SEVENTH_RUNS
from .sixth import NOTEBOOK, SIXTH_FROZEN_REV, SIXTH_RUNS
from .sources import SOURCES_CHECKED
from .sync_measured import SYNC_MEASURED
from .tenth import CELLO1, DISCO, TENTH_RUNS, TRAVEL
from .third import AGENTSDK, CAMBRICON, TERRENSE, THIRD_FROZEN_REV, THIRD_RUNS

__all__ = [
    "AGENTSDK",
    "CAMBRICON",
    "CELLO1",
    "CLUSTER",
    "DATA",
    "DEVICES_DIR",
    "DISCO",
    "DSTACK",
    "FIFTH_FROZEN_REV",
    "FIFTH_RUNS",
    "FOURTH_FROZEN_REV",
    "FOURTH_RUNS",
    "GKE",
    "HYBRIDFLOW",
    "LEARNERAF",
    "MODELS",
    "NEW_RUNS",
    "NINTH_FROZEN_REV",
    "NINTH_RUNS",
    "NOTEBOOK",
    "PLAY",
    "R360",
    "RTS",
    "RUNS",
    "SEVENTH_FROZEN_REV",
    "SEVENTH_RUNS",
    "SHAMANEZ",
    "SIXTH_FROZEN_REV",
    "SIXTH_RUNS",
    "SOURCES_CHECKED",
    "SYNC_MEASURED",
    "TENCENT",
    "TENTH_RUNS",
    "TERRENSE",
    "THIRD_FROZEN_REV",
    "THIRD_RUNS",
    "TRAVEL",
    "VERLDATA",
    "VLLM_DOCS",
]
