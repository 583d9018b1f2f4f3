"""The space that ran, as plain data: every shipped space, frozen spaces and generated ones come back
identical from JSON, without the file or the trainer; damaged data is refused naming the field."""

from __future__ import annotations

import json
import math
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from autotune.space.freeze import freeze
from autotune.space.loader import SPACE_DIR, SpaceError, load_space
from autotune.space.roles import ROLES
from autotune.space.schema import (
    ConfirmSettings,
    Constraint,
    Derived,
    Limit,
    Objective,
    Param,
    SamplerSettings,
    Space,
    TrialSettings,
)
from autotune.space.serialize import SpaceDataError
from autotune.space.sim_section import SimSettings
from tests.autotune.conftest import write_space

SHIPPED = sorted(SPACE_DIR.glob("*.yaml"))


def _plain_only(value: Any, path: str = "space") -> None:
    """JSON's types and nothing else, all the way down (checked here, not by the code under test)."""
    if isinstance(value, dict):
        for key, item in value.items():
            assert type(key) is str, f"{path}: key {key!r}"
            _plain_only(item, f"{path}.{key}")
    elif isinstance(value, list):
        for i, item in enumerate(value):
            _plain_only(item, f"{path}[{i}]")
    else:
        assert value is None or type(value) in (str, int, float, bool), f"{path}: {value!r} ({type(value).__name__})"


def _through_json(space: Space) -> Space:
    stored = space.to_data()
    _plain_only(stored)
    return Space.from_data(json.loads(json.dumps(stored, allow_nan=False)))


@pytest.mark.parametrize("path", SHIPPED, ids=lambda p: p.stem)
def test_every_shipped_space_round_trips_through_json(path: Path) -> None:
    space = load_space(str(path), device="cpu")
    back = _through_json(space)
    assert back == space
    assert back is not space and back.params is not space.params
    written = yaml.safe_load(path.read_text())  # the file as PyYAML reads it, independent of the loader
    stored = space.to_data()
    assert [p["name"] for p in stored["params"]] == list(written["params"])
    assert stored["trials"] == written.get("trials", 20) and stored["trainer"] == written["trainer"]
    assert stored["text"] == path.read_text()


def test_a_frozen_space_keeps_its_frozen_knobs_at_their_baseline_values(tmp_path: Path) -> None:
    extra = "  env.NCCL_PROTO: {type: categorical, choices: [null, Simple, LL]}"
    path = write_space(tmp_path, extra_params=extra, extra_baseline="  env.NCCL_PROTO: Simple")
    space = load_space(str(path), device="cpu")
    frozen = freeze(space, "cpu")  # NCCL does nothing on the CPU: fixed at its baseline value
    assert "env.NCCL_PROTO" not in {p.name for p in frozen.params} and frozen.env == {"NCCL_PROTO": "Simple"}
    back = _through_json(frozen)
    assert back == frozen and back != space
    assert back.env == {"NCCL_PROTO": "Simple"} and "env.NCCL_PROTO" not in back.baseline


def test_the_shipped_space_frozen_on_the_cpu_round_trips() -> None:
    space = load_space("fsdp3d", device="cpu")
    frozen = freeze(space, "cpu")
    assert len(frozen.params) < len(space.params)
    assert _through_json(frozen) == frozen


def test_from_data_reads_no_file_and_needs_no_trainer(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = write_space(tmp_path)
    stored = json.dumps(load_space(str(path), device="cpu").to_data())
    expected = load_space(str(path), device="cpu")
    path.unlink()

    def refuse(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError("from_data must not read files or build adapters")

    monkeypatch.setattr("autotune.adapters.get_adapter", refuse)
    monkeypatch.setattr("autotune.adapters.builtin_trainer.resolve_preset", refuse)
    monkeypatch.setattr(Path, "read_text", refuse)
    monkeypatch.setattr(Path, "read_bytes", refuse)
    monkeypatch.setitem(sys.modules, "verl", None)  # `import verl` now fails
    assert Space.from_data(json.loads(stored)) == expected


def test_a_verl_space_loads_from_data_without_verl(monkeypatch: pytest.MonkeyPatch) -> None:
    stored = json.dumps(load_space("verl-cpu", device="cpu").to_data())
    for name in [m for m in sys.modules if m == "verl" or m.startswith("verl.")]:
        monkeypatch.delitem(sys.modules, name)
    monkeypatch.setitem(sys.modules, "verl", None)
    space = Space.from_data(json.loads(stored))
    assert space.trainer == "verl" and space.command is None and space.params


def test_trainer_override_applies_to_the_data_not_the_text(tmp_path: Path) -> None:
    path = tmp_path / "small.yaml"
    text = write_space(tmp_path).read_text().replace("trainer: builtin", "trainer: verl")
    path.write_text(text)
    space = load_space(str(path), device="cpu", trainer="builtin")  # verl has no `builtin.*` keys
    assert space.trainer == "builtin" and space.to_data()["trainer"] == "builtin"
    assert space.text == text
    assert _through_json(space).trainer == "builtin"


@pytest.mark.parametrize(
    ("text", "line"), [("name: small\ntrainer: builtin\n", 2), ("name: small\n", 1)], ids=["in-file", "absent"]
)
def test_an_unknown_trainer_override_names_the_trainer_line(tmp_path: Path, text: str, line: int) -> None:
    body = write_space(tmp_path).read_text().replace("name: small\ntrainer: builtin\n", text)
    path = tmp_path / "small.yaml"
    path.write_text(body)
    with pytest.raises(SpaceError, match=rf"small.yaml:{line}: unknown trainer 'slurm' \(available: builtin, verl\)"):
        load_space(str(path), trainer="slurm")


def _stored() -> dict[str, Any]:
    return load_space("fsdp3d", device="cpu").to_data()


def _set(data: dict[str, Any], dotted: str, value: Any) -> dict[str, Any]:
    node: Any = data
    *parents, leaf = dotted.split(".")
    for part in parents:
        node = node[int(part)] if isinstance(node, list) else node[part]
    if value is KeyError:
        del node[leaf]
    else:
        node[int(leaf) if isinstance(node, list) else leaf] = value
    return data


@pytest.mark.parametrize(
    ("dotted", "value", "expected"),
    [
        ("format", 2, r"`format` is 2, this version reads format 1; re-run the sweep"),
        ("format", KeyError, r"`format` is None, this version reads format 1"),
        ("trial", KeyError, r"stored space: `trial` is missing"),
        ("trial.steps", "12", r"`trial.steps` must be an integer, got '12'"),
        ("trial.steps", 0, r"`trial`: `trial.steps` must be > 0, got 0"),
        ("trial.step", 3, r"unknown field `trial.step` \(fields of TrialSettings: steps, warmup_steps"),
        ("params.0.type", "choice", r"`params\[0\].type` must be one of 'categorical', 'int', 'float', 'bool'"),
        ("params.11.low", 7.0, r"`params\[11\]`: param `algorithm.kl_ctrl.kl_coef`: bad range, `low` \(7.0\)"),
        ("params.0.choices", "12", r"`params\[0\].choices` must be .*tuple.* or null, got '12'"),
        ("limits.0.max", True, r"`limits\[0\].max` must be a number or null, got True"),
        ("params.0.when", {"k": {1, 2}}, r"`params\[0\].when.k` must be plain data"),
        ("trials", 0, r"`space`: `trials` must be a whole number >= 1"),
        ("name", "../x", r"`space`: study name '../x' must be letters"),
        ("trainer", "slurm", r"`space`: `trainer` must be one of builtin, verl, got 'slurm'"),
        ("objectives", {"metric": "x"}, r"`objectives` must be a list, got \{'metric': 'x'\}"),
        ("constraints.0.kind", "divide", r"`constraints\[0\].kind` must be one of 'divides', 'at_least', 'at_most'"),
    ],
)
def test_damaged_stored_data_is_refused_naming_the_field(dotted: str, value: Any, expected: str) -> None:
    with pytest.raises(SpaceDataError, match=expected):
        Space.from_data(_set(_stored(), dotted, value))


@pytest.mark.parametrize("stored", [None, [], "fsdp3d"], ids=["null", "list", "text"])
def test_stored_data_that_is_not_a_mapping_is_refused(stored: Any) -> None:
    with pytest.raises(SpaceDataError, match=r"stored space: expected a mapping, got"):
        Space.from_data(stored)


def test_to_data_refuses_a_value_json_cannot_hold() -> None:
    space = load_space("fsdp3d", device="cpu")
    space.baseline["env.NCCL_PROTO"] = b"Simple"
    with pytest.raises(SpaceDataError, match=r"`baseline.env.NCCL_PROTO`: b'Simple' \(bytes\) is not plain data"):
        space.to_data()


# Spaces built directly (not from a file), with any plain values where the schema takes `Any`.
NAMES = st.from_regex(r"[a-z][a-z0-9_]{0,6}(\.[a-z][a-z0-9_]{0,6}){0,2}", fullmatch=True)
SCALARS = st.none() | st.booleans() | st.integers(-(2**70), 2**70) | st.floats(allow_nan=False) | st.text(max_size=6)
PLAIN = st.recursive(
    SCALARS, lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=4), inner, max_size=3)
)
WHEN = st.dictionaries(NAMES, PLAIN, max_size=2)
FINITE = st.floats(-1e6, 1e6, allow_nan=False)
ROLE = st.sampled_from(ROLES)
"""Generated names are not verl keys: the built-in table knows none of them, so each states its role."""


@st.composite
def params(draw: st.DrawFn) -> Param:
    kind = draw(st.sampled_from(["categorical", "int", "float", "bool"]))
    name, when, role = draw(NAMES), draw(WHEN), draw(ROLE)
    if kind == "categorical":
        # each choice once (a space may not repeat one); True and 1 are different choices
        choices: list[Any] = []
        for value in draw(st.lists(PLAIN, min_size=1, max_size=4)):
            if not any(value == c and isinstance(value, bool) == isinstance(c, bool) for c in choices):
                choices.append(value)
        return Param(name, "categorical", tuple(choices), when=when, role=role)
    if kind == "bool":
        return Param(name, "bool", when=when, role=role)
    step = draw(st.none() | st.sampled_from([1, 2] if kind == "int" else [1, 2, 0.5, 0.25]))
    if step is not None:  # a range its step divides: low and high on the step's grid, exact in binary
        low = draw(st.integers(-1000, 1000)) * step
        high = low + draw(st.integers(1, 1000)) * step
        log = False
    else:
        low = draw(st.integers(-1000, 1000) if kind == "int" else FINITE)
        high = low + draw(st.integers(1, 1000) if kind == "int" else st.floats(1e-3, 1e6))
        log = kind == "float" and low > 0 and draw(st.booleans())
    where = draw(st.text(max_size=8))
    return Param(name, kind, low=low, high=high, log=log, step=step, when=when, where=where, role=role)


@st.composite
def spaces(draw: st.DrawFn) -> Space:
    terms = PLAIN.filter(lambda t: t is not None)
    bound = st.none() | FINITE
    return Space(
        name=draw(st.from_regex(r"[A-Za-z0-9][A-Za-z0-9._-]{0,10}", fullmatch=True).filter(lambda n: n != "..")),
        path=draw(st.text(max_size=10)),
        text=draw(st.text(max_size=30)),
        trainer=draw(st.sampled_from(["builtin", "verl"])),
        base_config=draw(st.lists(st.text(max_size=8), max_size=2)),
        base=draw(st.dictionaries(NAMES, PLAIN, max_size=4)),
        base_where=draw(st.dictionaries(NAMES, st.text(max_size=8), max_size=2)),
        env=draw(st.dictionaries(st.from_regex(r"[A-Z_]{1,6}", fullmatch=True), st.text(max_size=5), max_size=2)),
        trial=TrialSettings(steps=draw(st.integers(2, 50)), warmup_steps=1, timeout_s=draw(st.floats(1, 1e4))),
        params=draw(st.lists(params(), max_size=4)),
        derived=draw(st.lists(st.builds(Derived, NAMES, terms, WHEN, st.text(max_size=5), ROLE), max_size=2)),
        constraints=draw(
            st.lists(
                st.builds(Constraint, st.sampled_from(["divides", "at_least", "at_most"]), terms, terms, WHEN),
                max_size=2,
            )
        ),
        objectives=[Objective(draw(NAMES), draw(st.sampled_from(["maximize", "minimize"])), "mean", "x:1")],
        limits=draw(
            st.lists(
                st.tuples(NAMES, FINITE, bound, bound)
                .filter(lambda t: t[2] is None or t[2] <= t[1])  # a min past the max is refused (no value passes)
                .map(lambda t: Limit(t[0], "max", t[1], t[2], t[3])),
                max_size=2,
            )
        ),
        baseline=draw(st.dictionaries(NAMES, PLAIN, max_size=3)),
        confirm=ConfirmSettings(top_k=draw(st.integers(1, 4)), repeats=draw(st.integers(0, 3))),
        sampler=SamplerSettings(name=draw(st.sampled_from(["tpe", "grid"])), seed=draw(st.none() | st.integers(0, 9))),
        trials=draw(st.integers(1, 10**6)),
        command=draw(st.none() | st.lists(st.text(max_size=6), min_size=1, max_size=3)),
        unmeasured=tuple(draw(st.lists(NAMES, max_size=2))),
        warnings=draw(st.lists(st.text(max_size=10), max_size=2)),
        sim=SimSettings(prompt_tokens=draw(st.none() | st.floats(1, 1e4)), gpu=draw(st.none() | st.just("H100"))),
        held=draw(st.lists(params(), max_size=2)),
    )


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow], derandomize=True)
@given(space=spaces())
def test_generated_spaces_round_trip_through_json(space: Space) -> None:
    stored = space.to_data()
    _plain_only(stored)
    text = json.dumps(stored)  # infinities are written as JSON's Infinity, which json reads back
    back = Space.from_data(json.loads(text))
    assert back == space
    assert all(type(b.low) is type(p.low) for b, p in zip(back.params, space.params, strict=True))
    assert not any(isinstance(v, float) and math.isnan(v) for v in json.loads(text)["base"].values())
