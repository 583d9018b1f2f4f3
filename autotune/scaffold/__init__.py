"""`autotune init`: a search space written from the user's own verl job and cluster.

`read_job` reads the job (a `main_ppo` command line or run script, or a verl YAML) and checks its
keys with verl's own config; `recipe` chooses the systems knobs and their ranges for the cluster and
the model; `check_starts` puts the job through verl's start-up checks before anything is written;
`render_space` writes the YAML; `prescreen` predicts, with the cost model, which one-knob
changes from the job would run out of memory.
"""

from autotune.scaffold.job import Job, JobError, check_starts
from autotune.scaffold.prescreen import Screened, prescreen
from autotune.scaffold.read import read_job
from autotune.scaffold.recipe import Cluster, Recipe, recipe
from autotune.scaffold.space_yaml import render_space

__all__ = [
    "Cluster",
    "Job",
    "JobError",
    "Recipe",
    "Screened",
    "check_starts",
    "prescreen",
    "read_job",
    "recipe",
    "render_space",
]
