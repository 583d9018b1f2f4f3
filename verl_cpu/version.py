"""The verl versions this plugin is written against (it reaches into verl's platform and rollout
registries, whose shape changes between minor versions)."""

from __future__ import annotations

SUPPORTED = ">=0.9.1,<0.10"


class UnsupportedVerl(RuntimeError):
    pass


def check_verl_version(version: str | None = None) -> str:
    """verl's version, or UnsupportedVerl naming the installed and the supported versions."""
    from packaging.version import Version

    if version is None:
        import verl

        version = str(getattr(verl, "__version__", "unknown"))
    try:
        parsed = Version(version)
    except Exception:
        parsed = None
    if parsed is None or not (Version("0.9.1") <= parsed < Version("0.10")):
        raise UnsupportedVerl(
            f"verl_cpu supports verl {SUPPORTED}, found verl {version}; "
            f"install a supported one: pip install 'verl[verl-core]{SUPPORTED}'"
        )
    return version
