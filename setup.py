"""Packaging that pyproject.toml cannot say: the shipped search spaces travel inside the package.

`search_spaces/` stays at the top of the repository (where users and the README look for it); a
wheel carries it as `autotune/_spaces/`, where `autotune.space.loader` finds it once installed.
Everything else about the package is declared in pyproject.toml.
"""

from setuptools import find_packages, setup

setup(
    packages=[*find_packages(include=["autotune*", "trainer*", "verl_cpu*", "verl_keys*"]), "autotune._spaces"],
    package_dir={"autotune._spaces": "search_spaces"},
    package_data={"autotune._spaces": ["*.yaml"], "trainer": ["config/*.yaml"], "verl_cpu": ["README.md"]},
)
