"""A CPU platform for verl 0.9 (gloo, a Hugging Face `generate` rollout) and the offline tiny task.

`plugin_settings(world_size)` returns the overrides and environment to add to
`python -m verl.trainer.main_ppo`; verl loads `verl_cpu.plugin` itself through
`VERL_USE_EXTERNAL_MODULES`. Importing this package does not import verl.
"""

from __future__ import annotations

from verl_cpu.assets import Assets, build
from verl_cpu.settings import PluginSettings, plugin_settings
from verl_cpu.version import SUPPORTED, UnsupportedVerl, check_verl_version

__all__ = ["SUPPORTED", "Assets", "PluginSettings", "UnsupportedVerl", "build", "check_verl_version", "plugin_settings"]
