"""verl's config vocabulary shared by the trainer (`trainer/config/`) and the controller (`autotune/`):
dotted keys and typed values (`keys`), and YAML that remembers where each key was written
(`yaml_lines`). It imports neither of them."""

from __future__ import annotations

from verl_keys.keys import coerce, suggest_key, to_flat_dict, to_nested
from verl_keys.yaml_lines import Located, RawScalar, YamlError, flatten, load_flat, load_tree, parse_override

__all__ = [
    "Located",
    "RawScalar",
    "YamlError",
    "coerce",
    "flatten",
    "load_flat",
    "load_tree",
    "parse_override",
    "suggest_key",
    "to_flat_dict",
    "to_nested",
]
