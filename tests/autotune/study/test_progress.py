"""The progress line names each knob by a label that tells it apart from the other knobs shown."""

from __future__ import annotations

from autotune.names import short_labels
from autotune.study.progress import short_params

ROLLOUT = "actor_rollout_ref.rollout.log_prob_micro_batch_size_per_gpu"
REF = "actor_rollout_ref.ref.log_prob_micro_batch_size_per_gpu"


def test_keys_that_share_a_last_part_keep_the_part_that_tells_them_apart():
    labels = short_labels([ROLLOUT, REF, "algorithm.kl_ctrl.kl_coef", "a.b.x", "c.b.x", "x"])
    assert labels == {
        ROLLOUT: "rollout.log_prob_micro_batch_size_per_gpu",
        REF: "ref.log_prob_micro_batch_size_per_gpu",
        "algorithm.kl_ctrl.kl_coef": "kl_coef",
        "a.b.x": "a.b.x",  # differ only in their first part
        "c.b.x": "c.b.x",
        "x": "x",
    }


def test_the_progress_line_shows_the_rollout_and_reference_micro_batches_apart():
    # the line a verl-cpu trial printed: `log_prob_micro_batch_size_per_gpu=2` twice, for two knobs
    line = short_params({ROLLOUT: 2, REF: 4, "actor_rollout_ref.actor.ppo_micro_batch_size_per_gpu": 8})
    assert line == (
        "rollout.log_prob_micro_batch_size_per_gpu=2 ref.log_prob_micro_batch_size_per_gpu=4 "
        "ppo_micro_batch_size_per_gpu=8"
    )
