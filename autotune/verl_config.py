"""verl's own hydra config, composed offline: the ground truth for which keys verl accepts.

Needs verl installed (`pip install 'autotune[verl]'`, verl 0.9.x); composing needs no GPU. A key
verl does not declare is rejected with hydra's message; values are type-checked against the type
of verl's default (hydra itself does not check types).
"""

from __future__ import annotations

from functools import cache
from pathlib import Path
from typing import Any


class VerlNotInstalled(RuntimeError):
    pass


class VerlRejected(ValueError):
    """verl's config would refuse these overrides; the message is verl's (hydra's) own."""


def config_dir() -> Path:
    try:
        import verl  # noqa: F401
    except ImportError as exc:
        raise VerlNotInstalled(
            "verl is not installed: pip install 'verl==0.9.1' (or `pip install -e .[verl]`)"
        ) from exc
    import importlib.util

    spec = importlib.util.find_spec("verl.trainer.config")
    assert spec is not None and spec.submodule_search_locations
    return Path(next(iter(spec.submodule_search_locations)))


def compose(overrides: list[str]) -> Any:
    """verl's `ppo_trainer` config with these overrides (raises VerlRejected with hydra's message)."""
    return _compose(tuple(overrides)).copy()


@cache
def _compose(overrides: tuple[str, ...]) -> Any:
    from hydra import compose as hydra_compose
    from hydra import initialize_config_dir
    from hydra.core.global_hydra import GlobalHydra
    from hydra.errors import HydraException
    from omegaconf.errors import OmegaConfBaseException

    GlobalHydra.instance().clear()
    try:
        with initialize_config_dir(config_dir=str(config_dir()), version_base=None):
            return hydra_compose(config_name="ppo_trainer", overrides=list(overrides))
    except (HydraException, OmegaConfBaseException) as exc:
        raise VerlRejected(str(exc).strip().splitlines()[0]) from None
    finally:
        GlobalHydra.instance().clear()


def check_types(cfg: Any, flat: dict[str, Any]) -> list[str]:
    """Keys whose value's type differs from verl's default (bool vs number vs string vs list)."""
    from omegaconf import OmegaConf

    problems = []
    for key, value in flat.items():
        try:
            default = OmegaConf.select(cfg, key, throw_on_missing=False)
        except Exception:
            continue
        if default is None or value is None:
            continue
        if isinstance(default, bool) != isinstance(value, bool):
            problems.append(f"`{key}`: verl expects {type(default).__name__}, got {value!r}")
        elif (
            isinstance(default, (int, float)) and not isinstance(default, bool) and not isinstance(value, (int, float))
        ):
            problems.append(f"`{key}`: verl expects a number, got {value!r}")
        elif isinstance(default, str) and not isinstance(value, str):
            problems.append(f"`{key}`: verl expects a string, got {value!r}")
    return problems


def check_file(path: Path) -> Any:
    """Compose an exported YAML (defaults: ppo_trainer + _self_) exactly as verl's main_ppo would."""
    from hydra import compose as hydra_compose
    from hydra import initialize_config_dir
    from hydra.core.global_hydra import GlobalHydra
    from hydra.errors import HydraException
    from omegaconf.errors import OmegaConfBaseException

    config_dir()
    GlobalHydra.instance().clear()
    try:
        with initialize_config_dir(config_dir=str(path.parent.resolve()), version_base=None):
            return hydra_compose(config_name=path.stem)
    except (HydraException, OmegaConfBaseException) as exc:
        raise VerlRejected(str(exc).strip().splitlines()[0]) from None
    finally:
        GlobalHydra.instance().clear()
