"""The rollout decoder equals transformers' Qwen2; sampling is exact and layout-independent."""

from __future__ import annotations

import pytest
import torch

from trainer import packing
from trainer.config.loader import load_config
from trainer.model import build_policy
from trainer.roles.common import micro_logits
from trainer.rollout import decoder, sampler
from trainer.rollout.weights import decoder_shape, from_full_model
from trainer.task import EOS


@pytest.fixture(scope="module")
def model():
    return build_policy(load_config(), seed=0).eval()


PROMPTS = [[1, 5, 6, 7, 3], [1, 9, 3], [1, 4, 4, 4, 4, 4, 3], [1, 13, 12, 3]]


def noop(t: torch.Tensor) -> None:
    return None


def test_decoder_logits_equal_transformers(model):
    w, shape = from_full_model(model), decoder_shape(model.config)
    P = max(len(p) for p in PROMPTS)
    ids = torch.zeros(len(PROMPTS), P, dtype=torch.long)
    valid = torch.zeros(len(PROMPTS), P, dtype=torch.bool)
    for i, p in enumerate(PROMPTS):
        ids[i, P - len(p) :] = torch.tensor(p)
        valid[i, P - len(p) :] = True
    pos = (valid.long().cumsum(-1) - 1).clamp(min=0)
    cache = decoder.KVCache(w, shape, len(PROMPTS), P)
    with torch.no_grad():
        last = decoder.forward(w, shape, ids, pos, valid, cache, noop)
        for i, p in enumerate(PROMPTS):
            want = model(input_ids=torch.tensor([p])).logits[0, -1]
            torch.testing.assert_close(last[i], want, atol=1e-5, rtol=1e-4)


def test_greedy_generation_equals_transformers_step_by_step(model):
    w, shape = from_full_model(model), decoder_shape(model.config)
    responses, kv_bytes = sampler.generate(
        w, shape, PROMPTS, [0, 1, 2, 3], sampler.SamplingParams(6, do_sample=False), noop
    )
    assert kv_bytes > 0
    with torch.no_grad():
        for p, r in zip(PROMPTS, responses, strict=True):
            seq = list(p)
            for _ in range(len(r)):
                seq.append(int(model(input_ids=torch.tensor([seq])).logits[0, -1].argmax()))
                if seq[-1] == EOS:
                    break
            assert seq[len(p) :] == r


def test_sampling_depends_on_sample_id_not_on_batch_layout(model):
    w, shape = from_full_model(model), decoder_shape(model.config)
    params = sampler.SamplingParams(8, temperature=1.0, seed=5, step=2)
    together, _ = sampler.generate(w, shape, PROMPTS, [10, 11, 12, 13], params, noop)
    apart = [sampler.generate(w, shape, [p], [10 + i], params, noop)[0][0] for i, p in enumerate(PROMPTS)]
    assert together == apart
    other_step, _ = sampler.generate(
        w, shape, PROMPTS, [10, 11, 12, 13], sampler.SamplingParams(8, seed=5, step=3), noop
    )
    assert other_step != together


def test_gumbel_sampling_matches_softmax_frequencies():
    logits = torch.tensor([[2.0, 0.5, 0.0, -1.0]]).repeat(20000, 1)
    samples = sampler.pick_tokens(logits, sampler.SamplingParams(1, temperature=0.7, seed=1), torch.arange(20000), 0)
    freq = torch.bincount(samples, minlength=4).float() / 20000
    torch.testing.assert_close(freq, torch.softmax(logits[0] / 0.7, -1), atol=0.01, rtol=0)


@pytest.mark.parametrize("remove_padding", [True, False])
def test_packed_and_padded_micro_batches_score_the_right_positions(model, remove_padding):
    responses = [[5, 6, 2], [7, 7, 7, 7], [9, 2], [4]]
    mb = packing.build(PROMPTS, responses, 5, remove_padding)
    with torch.no_grad():
        logits = micro_logits(model, mb)
        for i, (p, r) in enumerate(zip(PROMPTS, responses, strict=True)):
            want = model(input_ids=torch.tensor([p + r])).logits[0, len(p) - 1 : len(p) - 1 + len(r)]
            torch.testing.assert_close(logits[i, : len(r)], want, atol=1e-5, rtol=1e-4)


def test_rollout_weights_count_a_tied_head_once(model):
    """A model whose head is its embedding (Qwen2.5-0.5B to 3B) holds that tensor once: `nbytes`, the trainer's
    `rollout/weights_gb`, counts it once, as the cost model's parameter count does."""
    weights = from_full_model(model)
    untied = weights.nbytes()
    assert untied == sum(p.numel() * p.element_size() for p in model.parameters())
    tied = decoder.RolloutWeights(weights.embed, weights.layers, weights.norm, weights.embed)
    assert tied.nbytes() == untied - weights.lm_head.numel() * weights.lm_head.element_size()
