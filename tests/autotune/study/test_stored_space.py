"""A study keeps the space that ran (after --trainer, freezing and the cost model's adjustments) as data,
and everything that reads a study afterwards (report, export, best, calibrate, the API) uses it."""

from __future__ import annotations

import json
import sys

import pytest
import yaml

from autotune.adapters import get_adapter
from autotune.export.winner import export
from autotune.space.freeze import freeze
from autotune.space.loader import load_space
from autotune.study.storage import StudyNotFound, StudyPaths, load_study, storage_url, stored_space
from autotune.sweep.backends.lifecycle import create_or_load
from tests.autotune.conftest import simulated_study
from verl_keys.keys import to_flat_dict


def test_the_stored_space_is_the_frozen_one_and_never_rereads_the_file(tmp_path):
    space = freeze(load_space("fsdp3d", device="cpu"), "cpu")
    assert "env.NCCL_ALGO" not in {p.name for p in space.params}  # inert on a CPU: frozen out
    paths = StudyPaths(tmp_path / "runs", "frozen")
    create_or_load(space, paths, storage_url(paths, None))
    paths.space_copy.write_text("this: [is not, a space")  # the human copy is not what the study runs
    again = stored_space(paths)
    assert again == space
    assert "env.NCCL_ALGO" not in {p.name for p in again.params}
    assert again.env.get("NCCL_ALGO") == space.env.get("NCCL_ALGO")


def test_a_damaged_stored_space_names_the_file(tmp_path):
    space = load_space("fsdp3d", device="cpu")
    paths = StudyPaths(tmp_path / "runs", "damaged")
    create_or_load(space, paths, storage_url(paths, None))
    data = json.loads(paths.space_data.read_text())
    del data["trial"]
    paths.space_data.write_text(json.dumps(data))
    with pytest.raises(StudyNotFound, match=r"space\.json: stored space: `trial` is missing"):
        stored_space(paths)


def test_a_study_without_stored_data_reads_its_space_file(tmp_path):
    space = load_space("fsdp3d", device="cpu")
    paths = StudyPaths(tmp_path / "runs", "old")
    create_or_load(space, paths, storage_url(paths, None))
    paths.space_data.unlink()  # a study written before the space was stored as data
    assert [p.name for p in stored_space(paths).params] == [p.name for p in space.params]


def test_a_simulated_sweep_exports_the_knobs_it_froze_at_their_baseline_values(tmp_path):
    """The KL coefficient is an algorithm knob: the (simulated) throughput sweep keeps it at the baseline,
    and the export must say so (the stored space holds it in the base config, not as a tuned param)."""
    space, paths = simulated_study(tmp_path / "runs", "sim8", 8)
    ran = stored_space(paths)
    assert "algorithm.kl_ctrl.kl_coef" not in {p.name for p in ran.params}
    assert ran.base["algorithm.kl_ctrl.kl_coef"] == space.baseline["algorithm.kl_ctrl.kl_coef"] == 0.001
    _, yaml_path, _ = export(load_study(paths), paths, ran, get_adapter(ran.trainer), tmp_path / "best.yaml", True)
    exported = to_flat_dict(yaml.safe_load(yaml_path.read_text()))
    assert exported["algorithm.kl_ctrl.kl_coef"] == 0.001


def test_export_best_and_report_work_without_verl_installed(tmp_path, monkeypatch):
    """verl is an optional extra: a study of the built-in trainer (or the cost model) must export, show
    its winner and write its report without it, with the same YAML (token budgets as ints, from the
    built-in trainer's schema instead of verl's defaults). verl's absence is made by hiding its modules."""
    from autotune.report import write_report

    _, paths = simulated_study(tmp_path / "runs", "noverl", 6)
    ran = stored_space(paths)
    _, with_verl, _ = export(load_study(paths), paths, ran, get_adapter(ran.trainer), tmp_path / "a.yaml", True)
    for name in ("verl", "hydra", "omegaconf"):
        monkeypatch.setitem(sys.modules, name, None)  # `import omegaconf` now raises ImportError
    _, without, _ = export(load_study(paths), paths, ran, get_adapter(ran.trainer), tmp_path / "b.yaml", True)
    assert yaml.safe_load(without.read_text()) == yaml.safe_load(with_verl.read_text())
    assert write_report(load_study(paths), paths, ran, tmp_path / "report").exists()


@pytest.mark.parametrize("verl_installed", [True, False])
def test_whole_float_token_budgets_are_exported_as_ints_with_or_without_verl(verl_installed, monkeypatch):
    """A budget from `product: [3.0, 1024]` is 3072.0; verl passes it to `range()`, so it must be 3072.
    The KL coefficient stays a float; a key neither verl nor the built-in trainer declares is left alone."""
    from autotune.adapters.verl_config import coerce_ints

    if not verl_installed:
        for name in ("verl", "hydra", "omegaconf"):
            monkeypatch.setitem(sys.modules, name, None)
    flat = {
        "actor_rollout_ref.actor.ppo_max_token_len_per_gpu": 3072.0,
        "actor_rollout_ref.ref.log_prob_max_token_len_per_gpu": 4096.0,
        "data.train_batch_size": 32.0,
        "algorithm.kl_ctrl.kl_coef": 1.0,
        "custom.not_a_key": 3.0,
        "actor_rollout_ref.actor.clip_ratio_high": 0.28,
    }
    out = coerce_ints(flat)
    assert out == flat
    assert [k for k, v in out.items() if type(v) is int] == [
        "actor_rollout_ref.actor.ppo_max_token_len_per_gpu",
        "actor_rollout_ref.ref.log_prob_max_token_len_per_gpu",
        "data.train_batch_size",
    ]


def _shipped_and_edited(tmp_path, old: str, new: str):  # type: ignore[no-untyped-def]
    """fsdp3d as shipped, the same with its first `old` line made `new`, the study's paths, and a storage URL outside
    its folder (as a PostgreSQL server's: not the folder's own file)."""
    shipped = load_space("fsdp3d")
    edited_file = tmp_path / "fsdp3d.yaml"
    edited_file.write_text(shipped.text.replace(old, new, 1))
    assert edited_file.read_text() != shipped.text
    return (
        shipped,
        load_space(str(edited_file)),
        StudyPaths(tmp_path / "runs", "fsdp3d"),
        f"sqlite:///{tmp_path / 'shared.db'}",
    )


def test_a_study_in_a_database_outliving_its_folder_is_still_held_to_its_space(tmp_path):
    """The refusal of an edited space said "delete runs/<study>/ to start the study over"; with the study in a
    database outside the folder, that resumed the old trials under the edited space, whose winner held a value
    outside its new range, and the folder's next refusal called this same folder "another" (audit 31 F4)."""
    import shutil

    from autotune.study.resume_checks import SpaceChanged
    from autotune.study.storage import StorageError, check_one_folder

    shipped, edited, paths, url = _shipped_and_edited(tmp_path, "    high: 6.0\n", "    high: 5.0\n")
    check_one_folder(create_or_load(shipped, paths, url), paths)
    shutil.rmtree(paths.root)
    with pytest.raises(SpaceChanged) as refused:
        create_or_load(edited, paths, url)
    said = str(refused.value)
    assert "params.actor_token_mult.high: 6.0 -> 5.0" in said.replace("→", "->"), said
    assert f"optuna delete-study --study-name fsdp3d --storage {url}" in said, said
    assert not paths.space_copy.exists()  # refused before the edited copy was written in the new folder
    with pytest.raises(StorageError, match=r"this worker's, but the folder no longer holds the study's id"):
        create_or_load(shipped, paths, url)  # the file it ran: it may go on, once the folder is the study's
    assert not paths.space_copy.exists()  # a refused worker's file is not the study's copy (audit 33 F1)


def test_a_study_an_earlier_version_made_keeps_its_space_in_the_storage_once_joined(tmp_path):
    """The storage's copy of the space (`StudyInfo.space_text`) was written only as a study was made: a study made
    before it, in a database outside its folder, its folder deleted, resumed under an edited space (6-step trials
    ranked beside a 12-step baseline), and a refused run's edited file became the study's copy (audit 33 F1)."""
    import shutil

    from autotune.study.resume_checks import SpaceChanged
    from autotune.study.storage import StorageError, StudyInfo

    shipped, edited, paths, url = _shipped_and_edited(tmp_path, "  steps: 12\n", "  steps: 6\n")
    study = create_or_load(shipped, paths, url)
    study.set_user_attr("space_text", None)  # as an earlier version left it
    assert StudyInfo.of(create_or_load(shipped, paths, url)).space_text == shipped.text  # joined now: kept
    shutil.rmtree(paths.root)
    with pytest.raises(SpaceChanged, match=r"trial\.steps: 12"):
        create_or_load(edited, paths, url)
    study.set_user_attr("space_text", None)  # joined by no version since: nothing to compare with
    with pytest.raises(StorageError) as refused:
        create_or_load(edited, paths, url)
    assert "kept no copy of its space file in the storage: resume it only with the file it ran" in str(refused.value)
    assert not paths.space_copy.exists()
