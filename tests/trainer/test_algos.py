"""Each KL-PPO function against a slow, loop-by-loop reference, over several seeds."""

from __future__ import annotations

import math

import pytest
import torch

from trainer import algos

SEEDS = [0, 1, 2, 3]


def random_batch(seed: int, B: int = 6, T: int = 7, V: int = 5):
    g = torch.Generator().manual_seed(seed)
    lengths = torch.randint(1, T + 1, (B,), generator=g)
    mask = (torch.arange(T)[None] < lengths[:, None]).float()
    logits = torch.randn(B, T, V, generator=g)
    ref_logits = logits + 0.3 * torch.randn(B, T, V, generator=g)
    logp_full = torch.log_softmax(logits, -1)
    ref_full = torch.log_softmax(ref_logits, -1)
    tokens = torch.randint(0, V, (B, T), generator=g)
    logp = logp_full.gather(-1, tokens[..., None]).squeeze(-1)
    ref = ref_full.gather(-1, tokens[..., None]).squeeze(-1)
    return g, mask, logp, ref, logp_full, ref_full


def slow_kl(lp: float, rl: float, kind: str) -> float:
    if kind in ("kl", "k1"):
        return lp - rl
    if kind == "abs":
        return abs(lp - rl)
    if kind in ("mse", "k2"):
        return 0.5 * (lp - rl) ** 2
    r = min(max(rl - lp, -20), 20)
    return min(max(math.exp(r) - r - 1, -10), 10)


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("kind", ["kl", "k1", "abs", "mse", "k2", "low_var_kl", "k3"])
def test_kl_estimators_match_reference(seed, kind):
    _, _, logp, ref, _, _ = random_batch(seed)
    fast = algos.kl_estimate(logp, ref, kind)
    for b in range(logp.shape[0]):
        for t in range(logp.shape[1]):
            assert fast[b, t].item() == pytest.approx(slow_kl(logp[b, t].item(), ref[b, t].item(), kind), abs=1e-5)


@pytest.mark.parametrize("seed", SEEDS)
def test_full_kl_is_exact_kl_and_k1_k3_are_unbiased_in_expectation(seed):
    _, _, _, _, logp_full, ref_full = random_batch(seed)
    full = algos.kl_estimate(logp_full[..., 0], ref_full[..., 0], "full", logp_full, ref_full)
    p = logp_full.exp()
    exact = torch.zeros(full.shape)
    for b in range(full.shape[0]):
        for t in range(full.shape[1]):
            exact[b, t] = sum(p[b, t, v] * (logp_full[b, t, v] - ref_full[b, t, v]) for v in range(p.shape[-1]))
    torch.testing.assert_close(full, exact, atol=1e-5, rtol=1e-5)
    # E_{x~π}[k1] and E_{x~π}[k3] both equal the exact KL
    for kind in ("k1", "k3"):
        expected = (p * algos.kl_estimate(logp_full, ref_full, kind)).sum(-1)
        torch.testing.assert_close(expected, exact, atol=1e-5, rtol=1e-4)


def test_full_kl_needs_distributions():
    with pytest.raises(ValueError, match="needs the full log-distributions"):
        algos.kl_estimate(torch.zeros(1, 1), torch.zeros(1, 1), "full")


def test_adaptive_kl_controller_matches_reference():
    ctrl = algos.KLController("adaptive", 0.2, target_kl=0.1, horizon=100)
    coef = 0.2
    for current in [0.05, 0.3, 0.1, 0.0, 1.0]:
        error = max(-0.2, min(0.2, current / 0.1 - 1))
        coef *= 1 + error * 16 / 100
        ctrl.update(current, 16)
        assert ctrl.value == pytest.approx(coef)
    fixed = algos.KLController("fixed", 0.2, 0.1, 100)
    fixed.update(5.0, 16)
    assert fixed.value == 0.2


@pytest.mark.parametrize("seed", SEEDS)
def test_kl_in_reward_matches_reference(seed):
    g, mask, logp, ref, _, _ = random_batch(seed)
    scores = algos.token_level_scores(torch.rand(mask.shape[0], generator=g), mask)
    out = algos.kl_in_reward(scores, logp, ref, mask, 0.05, "kl")
    per_seq = []
    for b in range(mask.shape[0]):
        n = int(mask[b].sum())
        kls = [logp[b, t].item() - ref[b, t].item() for t in range(n)]
        for t in range(n):
            assert out.rewards_BT[b, t].item() == pytest.approx(scores[b, t].item() - 0.05 * kls[t], abs=1e-6)
        per_seq.append(sum(kls) / n)
    assert out.mean_kl.item() == pytest.approx(sum(per_seq) / len(per_seq), abs=1e-6)


def test_token_level_scores_put_the_reward_on_the_last_token():
    mask = torch.tensor([[1.0, 1, 1, 0], [1, 0, 0, 0]])
    out = algos.token_level_scores(torch.tensor([0.5, 2.0]), mask)
    assert out.tolist() == [[0, 0, 0.5, 0], [2.0, 0, 0, 0]]


def slow_gae(rewards, values, mask, gamma, lam):
    B, T = rewards.shape
    adv = torch.zeros(B, T)
    for b in range(B):
        n = int(mask[b].sum())
        last = 0.0
        for t in reversed(range(n)):
            next_v = values[b, t + 1].item() if t + 1 < n else 0.0
            delta = rewards[b, t].item() + gamma * next_v - values[b, t].item()
            last = delta + gamma * lam * last
            adv[b, t] = last
    returns = adv + values
    flat = adv[mask.bool()]
    whitened = (adv - flat.mean()) / torch.sqrt(flat.var(unbiased=True) + 1e-8)
    return whitened * mask, returns


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("gamma, lam", [(1.0, 1.0), (0.99, 0.95), (0.9, 0.0)])
def test_gae_matches_reference(seed, gamma, lam):
    g, mask, *_ = random_batch(seed)
    rewards = torch.randn(mask.shape, generator=g) * mask
    values = torch.randn(mask.shape, generator=g) * mask
    adv, ret = algos.gae(rewards, values, mask, gamma, lam)
    slow_adv, slow_ret = slow_gae(rewards, values, mask, gamma, lam)
    torch.testing.assert_close(adv, slow_adv, atol=1e-5, rtol=1e-4)
    torch.testing.assert_close(ret * mask, slow_ret * mask, atol=1e-5, rtol=1e-4)


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("norm", [True, False])
def test_grpo_matches_reference(seed, norm):
    g, mask, *_ = random_batch(seed, B=9)
    scores = torch.rand(9, generator=g)
    group = torch.tensor([0, 0, 0, 1, 1, 1, 2, 2, 3])  # group 3 has a single member
    adv = algos.grpo_advantages(scores, group, mask, norm)
    for b in range(9):
        members = [scores[i].item() for i in range(9) if group[i] == group[b]]
        if len(members) == 1:
            mean, std = 0.0, 1.0
        else:
            mean = sum(members) / len(members)
            std = math.sqrt(sum((x - mean) ** 2 for x in members) / (len(members) - 1))
        want = (scores[b].item() - mean) / (std + 1e-6) if norm else scores[b].item() - mean
        for t in range(mask.shape[1]):
            assert adv[b, t].item() == pytest.approx(want * mask[b, t].item(), abs=1e-5)


def slow_policy_loss(old, new, adv, mask, lo, hi, c):
    total, clipped, n, lower = 0.0, 0, 0, 0
    for b in range(old.shape[0]):
        for t in range(old.shape[1]):
            if not mask[b, t]:
                continue
            ratio = math.exp(max(-20, min(20, new[b, t].item() - old[b, t].item())))
            a = adv[b, t].item()
            l1 = -a * ratio
            l2 = -a * max(1 - lo, min(1 + hi, ratio))
            loss = max(l1, l2)
            clipped += l2 > l1
            if a < 0:
                lower += loss > -a * c
                loss = min(loss, -a * c)
            total += loss
            n += 1
    return total, clipped / n, lower / n


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("lo, hi, c", [(0.2, 0.2, 3.0), (0.1, 0.3, 1.5)])
def test_policy_loss_matches_reference(seed, lo, hi, c):
    g, mask, logp, _, _, _ = random_batch(seed)
    old = logp + 0.4 * torch.randn(logp.shape, generator=g)
    adv = 2 * torch.randn(logp.shape, generator=g)
    out = algos.policy_loss(old, logp, adv, mask, lo, hi, c, denom=float(mask.sum()))
    total, clipfrac, lower = slow_policy_loss(old, logp, adv, mask, lo, hi, c)
    assert out.loss.item() == pytest.approx(total / mask.sum().item(), abs=1e-5)
    assert out.clipfrac.item() == pytest.approx(clipfrac, abs=1e-6)
    assert out.clipfrac_lower.item() == pytest.approx(lower, abs=1e-6)
    assert out.ppo_kl.item() == pytest.approx(((old - logp) * mask).sum().item() / mask.sum().item(), abs=1e-5)


@pytest.mark.parametrize("seed", SEEDS)
def test_value_loss_matches_reference(seed):
    g, mask, *_ = random_batch(seed)
    vpred, ret, old = (torch.randn(mask.shape, generator=g) for _ in range(3))
    loss, _ = algos.value_loss(vpred, ret, old, mask, 0.5, denom=float(mask.sum()))
    total = 0.0
    for b in range(mask.shape[0]):
        for t in range(mask.shape[1]):
            if mask[b, t]:
                clipped = max(old[b, t].item() - 0.5, min(old[b, t].item() + 0.5, vpred[b, t].item()))
                total += max((vpred[b, t].item() - ret[b, t].item()) ** 2, (clipped - ret[b, t].item()) ** 2)
    assert loss.item() == pytest.approx(0.5 * total / mask.sum().item(), abs=1e-5)


@pytest.mark.parametrize("seed", SEEDS)
def test_entropy_matches_reference(seed):
    g = torch.Generator().manual_seed(seed)
    logits = torch.randn(3, 4, 6, generator=g)
    ent = algos.entropy_from_logits(logits)
    for b in range(3):
        for t in range(4):
            p = torch.softmax(logits[b, t], -1).tolist()
            assert ent[b, t].item() == pytest.approx(-sum(x * math.log(x) for x in p), abs=1e-5)


@pytest.mark.parametrize("seed", SEEDS)
def test_token_mean_is_invariant_to_micro_batching(seed):
    g, mask, *_ = random_batch(seed, B=8)
    loss = torch.randn(mask.shape, generator=g)
    whole = algos.token_mean(loss, mask, mask.sum())
    parts = sum(algos.token_mean(loss[i : i + 3], mask[i : i + 3], mask.sum()) for i in range(0, 8, 3))
    assert parts.item() == pytest.approx(whole.item(), abs=1e-6)
