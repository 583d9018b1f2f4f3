from __future__ import annotations

from trainer import task
from trainer.task import BOS, DIGIT0, EOS, EQ


def test_prompts_are_a_pure_function_of_seed_and_step():
    a = task.make_prompts(7, 3, 20, 2, 6)
    assert a == task.make_prompts(7, 3, 20, 2, 6)
    assert a != task.make_prompts(7, 4, 20, 2, 6)
    for p in a:
        assert p.ids[0] == BOS and p.ids[-1] == EQ and 2 <= len(p.digits) <= 6
        assert list(p.ids[1:-1]) == [DIGIT0 + d for d in p.digits]


def test_score_rules():
    prompt = task.Prompt(ids=(BOS, DIGIT0 + 3, DIGIT0 + 9, DIGIT0 + 1, EQ), digits=(3, 9, 1))
    want = [DIGIT0 + 9, DIGIT0 + 3, DIGIT0 + 1]
    assert task.score(prompt, [*want, EOS]) == 1.0
    assert task.score(prompt, [DIGIT0 + 9, EOS]) == 1 / 3
    assert task.score(prompt, [*want, DIGIT0, EOS]) == 3 / 4  # too long is diluted
    assert task.score(prompt, [*want, DIGIT0]) == 3 / 4  # never stopped: every token counts
    assert task.score(prompt, [EOS]) == 0.0


def test_tokenizer_round_trip():
    tok = task.DigitTokenizer()
    text = "<bos> 3 1 4 = 4 3 1 <eos>"
    assert tok.decode(tok.encode(text)) == text
    assert len(tok.symbols) == task.VOCAB_SIZE


def test_a_random_policy_earns_a_small_nonzero_reward():
    import torch

    g = torch.Generator().manual_seed(0)
    prompts = task.make_prompts(0, 1, 500, 2, 6)
    scores = [task.score(p, torch.randint(0, task.VOCAB_SIZE, (8,), generator=g).tolist()) for p in prompts]
    mean = sum(scores) / len(scores)
    assert 0.005 < mean < 0.2
