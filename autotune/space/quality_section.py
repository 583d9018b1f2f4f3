"""The space's `quality:` section: how the quality stage judges the algorithm knobs against learning.

    quality:
      steps: 150               # the horizon: every decision is about learning over this many steps
      min_steps: 20            # the first rung of the halving ladder (20 -> 60 -> 150 with factor 3)
      reduction_factor: 3      # a third of the candidates go on at each rung
      trials: 8                # candidates the search draws (the baseline's values are the first)
      seeds: 3                 # confirmation: the baseline and the top_k, each over this many seeds
      top_k: 2
      score_metric: critic/score/mean
      score_last: 20           # objective: the mean score over the last 20 steps
      kl_metric: actor/kl_loss # the KL to the reference that is bounded
      kl_window: 10            # ... as a 10-step moving mean, over the whole horizon
      kl_max: 0.05
      search_margin: 0.7       # the one-seed search asks for KL <= 0.7 × kl_max (seeds spread the KL)
      min_entropy: 0.05        # entropy collapse: a 10-step mean entropy below this stops the run
      seed_keys: [data.seed]   # where a run's seed goes (default: the trainer's; verl: data.seed and the rollout's)
      world_size: 1            # optional: ranks per quality run (default: trial.world_size)
      parallel: 2              # quality runs at a time (default 1)
      base:                    # optional: systems keys set for quality runs only (e.g. a TP that fits world_size)
        actor_rollout_ref.rollout.tensor_model_parallel_size: 1

The throughput stage's 12-step trials cannot see what a KL coefficient or a clip ratio does to
learning; this stage runs long enough to. The systems knobs it runs with do not change what is
learned (the equivalence check shows it for every exported systems change), which is also why a
small machine may run its quality runs at another world size, several at a time.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, ClassVar


class SettingsProblems(ValueError):
    """Every rule a settings section breaks, each message naming its setting (`quality.kl_max`)."""

    def __init__(self, problems: list[str]) -> None:
        super().__init__("; ".join(problems))
        self.problems = problems


@dataclass(frozen=True)
class QualitySettings:
    JUDGING: ClassVar[tuple[str, ...]] = (
        "steps", "min_steps", "reduction_factor", "score_metric", "score_last", "kl_metric", "kl_window", "kl_max",
        "search_margin", "min_entropy", "entropy_metric", "world_size", "seed_keys", "base",
    )  # fmt: skip
    """What a run is measured and judged by: a stage resumed with other values would read its finished runs (their
    scores, KL peaks and pass/fail) under rules they did not run with. The rest (trials, seeds, first_seed, top_k,
    parallel, timeout_s) may change between runs."""

    def rules(self) -> dict[str, Any]:
        """The JUDGING settings as plain data (what a quality study keeps, to compare a rerun's with)."""
        return {k: list(v) if isinstance(v, tuple) else v for k, v in ((k, getattr(self, k)) for k in self.JUDGING)}

    steps: int = 150
    """The horizon: training steps of a full-length quality run."""
    min_steps: int = 20
    """Steps of the halving ladder's first rung."""
    reduction_factor: int = 3
    """Successive halving's factor: rungs at min_steps × factor^k below the horizon; about 1/factor go on."""
    trials: int = 8
    """Candidate settings of the algorithm knobs the search runs (the baseline's first)."""
    seeds: int = 3
    """Seeds each confirmed setting runs at the full horizon (seeds of prompts, initialisation, sampling)."""
    top_k: int = 2
    """Candidates confirmed over seeds beside the baseline."""
    score_metric: str = "critic/score/mean"
    """The reward metric learning is judged on."""
    score_last: int = 20
    """Objective: the mean of `score_metric` over this many last steps of the horizon (or of a rung)."""
    kl_metric: str = "actor/kl_loss"
    """The KL to the reference that is bounded (verl's `actor/kl_loss`, or an in-reward KL metric)."""
    kl_window: int = 10
    """The bound holds for the KL's moving mean over this many steps, at every step of the horizon."""
    kl_max: float = 0.05
    search_margin: float = 0.7
    """The search judges a setting on one seed, so it asks for kl_max × search_margin: in the KL scan of
    `benchmarks/quality_stage.py` on fsdp3d, the worst of three seeds' KL peaks read 1.0-1.6x the first
    seed's. Confirmation holds every seed to kl_max itself."""
    min_entropy: float | None = None
    """Entropy collapse: a run whose moving-mean `actor/entropy` falls below this is stopped (None: not checked)."""
    entropy_metric: str = "actor/entropy"
    world_size: int | None = None
    """Ranks per quality run (None: the space's `trial.world_size`)."""
    parallel: int = 1
    """Quality runs at a time (each runs `world_size` ranks)."""
    seed_keys: tuple[str, ...] | None = None
    """The config keys a run's seed is written to (prompts, initialisation, sampling); None (not in the file): the
    trainer's own (`TrainerAdapter.seed_keys`): the built-in trainer seeds everything from `data.seed`; verl
    takes the data order from `data.seed` and the rollout's sampling from `actor_rollout_ref.rollout.seed`."""
    first_seed: int = 1
    """Seeds are first_seed, first_seed + 1, ...; the search runs with the first."""
    timeout_s: float | None = None
    """Hard wall-clock limit of one quality run (None: 10 s per step plus the trial's start-up grace)."""
    base: dict[str, Any] = field(default_factory=dict)
    """Systems keys set in quality runs only (checked against the trainer's keys and roles when loaded)."""

    def __post_init__(self) -> None:
        problems: list[str] = []  # every one at once, each at its setting (the first alone hid the rest)

        def bad(name: str, rule: str, example: str) -> None:
            problems.append(f"`quality.{name}` {rule}, got {getattr(self, name)!r}; e.g. `{name}: {example}`")

        whole = True
        for name, example in (("steps", "150"), ("min_steps", "20"), ("trials", "8"), ("seeds", "3"), ("top_k", "2")):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value <= 0:
                bad(name, "must be a positive integer", example)
                whole = whole and name not in ("steps", "min_steps")
        if whole and self.min_steps > self.steps:
            bad("min_steps", f"must be <= `quality.steps` ({self.steps})", str(min(20, self.steps)))
        if self.reduction_factor < 2:
            bad("reduction_factor", "must be >= 2", "3")
        if whole and not 1 <= self.score_last <= self.steps:
            bad("score_last", f"must lie in 1..`quality.steps` ({self.steps})", "20")
        if whole and not 1 <= self.kl_window <= self.steps:
            bad("kl_window", f"must lie in 1..`quality.steps` ({self.steps})", "10")
        if not (isinstance(self.kl_max, (int, float)) and math.isfinite(self.kl_max) and self.kl_max > 0):
            bad("kl_max", "must be a positive number", "0.05")
        if not (isinstance(self.search_margin, (int, float)) and 0 < self.search_margin <= 1):
            bad("search_margin", "must lie in (0, 1] (1: the search uses the bound itself)", "0.7")
        if self.min_entropy is not None and not (isinstance(self.min_entropy, (int, float)) and self.min_entropy >= 0):
            bad("min_entropy", "must be a number >= 0, or left out", "0.05")
        if self.world_size is not None and self.world_size <= 0:
            bad("world_size", "must be > 0, or left out for the trial's world size", "1")
        if self.parallel <= 0:
            bad("parallel", "must be > 0", "1")
        if self.timeout_s is not None and not (
            isinstance(self.timeout_s, (int, float)) and not isinstance(self.timeout_s, bool) and self.timeout_s > 0
        ):  # it passed here and crashed the run after its baseline trial
            bad("timeout_s", "must be a number of seconds > 0, or left out (10 s a step)", "600")
        if isinstance(self.first_seed, bool) or not isinstance(self.first_seed, int) or self.first_seed < 0:
            bad("first_seed", "must be an integer >= 0", "1")
        if self.seed_keys is not None and (not self.seed_keys or not all(isinstance(k, str) for k in self.seed_keys)):
            bad("seed_keys", "must be a list of config keys", "[data.seed]")
        if not isinstance(self.base, dict):
            bad(
                "base",
                "must be a mapping of systems keys to values",
                "{actor_rollout_ref.rollout.tensor_model_parallel_size: 1}",
            )
        if problems:
            raise SettingsProblems(problems)

    def rungs(self) -> list[int]:
        """Steps at which the halving ladder decides: min_steps × factor^k below the horizon."""
        out, step = [], self.min_steps
        while step < self.steps:
            out.append(step)
            step *= self.reduction_factor
        return out

    def seed_values(self) -> list[int]:
        return [self.first_seed + i for i in range(self.seeds)]

    def run_timeout_s(self, startup_grace_s: float) -> float:
        return self.timeout_s if self.timeout_s is not None else 10.0 * self.steps + startup_grace_s
