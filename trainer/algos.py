"""KL-PPO math: pure functions of tensors, matching verl's `core_algos` semantics.

Shape suffixes: B responses, T response positions (padded), V vocabulary. Every per-token
tensor is [B, T] with `mask_BT` marking real response tokens (1) and padding (0).

Departures from verl, each deliberate:
* Token-mean aggregation takes the *global* token count of the mini-batch as an explicit
  `denom`, so a loss is the same whatever the micro-batching and world size (verl passes
  `batch_num_tokens` and `dp_size` for the same reason).
* `full` KL is implemented (verl raises NotImplementedError): it needs the full log-distributions,
  which the tiny task vocabulary makes cheap.
* The adaptive KL controller is a pure update function; `KLController` only holds its value.
"""

from __future__ import annotations

from typing import NamedTuple

import torch

from trainer.config.schema import KLEstimator


def masked_sum(x_BT: torch.Tensor, mask_BT: torch.Tensor) -> torch.Tensor:
    return (x_BT * mask_BT).sum()


def masked_mean(x_BT: torch.Tensor, mask_BT: torch.Tensor) -> torch.Tensor:
    return (x_BT * mask_BT).sum() / mask_BT.sum().clamp(min=1)


def masked_whiten(x_BT: torch.Tensor, mask_BT: torch.Tensor, eps: float = 1e-8) -> torch.Tensor:
    """(x - mean) / std over masked entries, with the unbiased variance (as verl)."""
    mean = masked_mean(x_BT, mask_BT)
    centered = x_BT - mean
    count = mask_BT.sum()
    var = masked_sum(centered**2, mask_BT) / (count - 1).clamp(min=1)
    return centered * torch.rsqrt(var + eps)


# --------------------------------------------------------------------------------------------- KL


def kl_estimate(
    logp_BT: torch.Tensor,
    ref_logp_BT: torch.Tensor,
    kind: KLEstimator,
    logp_full_BTV: torch.Tensor | None = None,
    ref_logp_full_BTV: torch.Tensor | None = None,
) -> torch.Tensor:
    """Per-token estimate of KL(π || π_ref) (Schulman, "Approximating KL divergence", 2020).

    kl/k1: log r; abs: |log r|; mse/k2: ½(log r)²; low_var_kl/k3: (r⁻¹ - 1) + log r, clamped to
    [-10, 10] as verl does; full: Σ_v π(v)(log π(v) - log π_ref(v)), needing the full distributions.
    A `+` suffix (verl 0.9.1's straight-through estimators, e.g. `k3+`): the value of the estimator
    without the `+`, the gradient of k2 (k1 and k3 are unbiased in value but not in gradient; k2's
    gradient is the KL's), as verl's `kl_penalty`; `k2+`/`mse+` are plain k2.
    """
    if kind.endswith("+"):
        if kind == "full+":  # not an estimator verl has (its `full` raises NotImplementedError)
            raise ValueError("kl estimator 'full+' does not exist; 'full' is exact already, use it without '+'")
        value = kl_estimate(logp_BT, ref_logp_BT, kind[:-1], logp_full_BTV, ref_logp_full_BTV)  # type: ignore[arg-type]
        if kind in ("mse+", "k2+"):
            return value
        k2 = 0.5 * (logp_BT - ref_logp_BT).square()
        return k2 - k2.detach() + value.detach()
    if kind in ("kl", "k1"):
        return logp_BT - ref_logp_BT
    if kind == "abs":
        return (logp_BT - ref_logp_BT).abs()
    if kind in ("mse", "k2"):
        return 0.5 * (logp_BT - ref_logp_BT).square()
    if kind in ("low_var_kl", "k3"):
        log_ratio = (ref_logp_BT - logp_BT).clamp(-20, 20)
        return (log_ratio.exp() - log_ratio - 1).clamp(-10, 10)
    if kind == "full":
        if logp_full_BTV is None or ref_logp_full_BTV is None:
            raise ValueError("kl estimator 'full' needs the full log-distributions of both models")
        return (logp_full_BTV.exp() * (logp_full_BTV - ref_logp_full_BTV)).sum(-1)
    raise ValueError(f"unknown KL estimator {kind!r}")


def adaptive_kl_coef(coef: float, current_kl: float, n_steps: int, target_kl: float, horizon: int) -> float:
    """Ziegler et al. (arXiv 1909.08593): move the coefficient towards the target KL, ±20% error cap."""
    proportional_error = min(max(current_kl / target_kl - 1.0, -0.2), 0.2)
    return coef * (1.0 + proportional_error * n_steps / horizon)


class KLController:
    """The in-reward KL coefficient: fixed, or updated by `adaptive_kl_coef` after each step."""

    def __init__(self, kind: str, kl_coef: float, target_kl: float, horizon: int) -> None:
        self.kind = kind
        self.value = kl_coef
        self.target_kl = target_kl
        self.horizon = horizon

    def update(self, current_kl: float, n_steps: int) -> None:
        if self.kind == "adaptive":
            self.value = adaptive_kl_coef(self.value, current_kl, n_steps, self.target_kl, self.horizon)


# ------------------------------------------------------------------------------------- rewards


def token_level_scores(score_B: torch.Tensor, mask_BT: torch.Tensor) -> torch.Tensor:
    """Outcome reward placed on each response's last real token."""
    out = torch.zeros_like(mask_BT, dtype=score_B.dtype)
    last_B = (mask_BT.sum(-1).long() - 1).clamp(min=0)
    out[torch.arange(len(score_B)), last_B] = score_B
    return out * mask_BT


class KLReward(NamedTuple):
    rewards_BT: torch.Tensor
    kl_BT: torch.Tensor
    mean_kl: torch.Tensor
    """Batch mean of the per-sequence token-mean KL (verl's `actor/reward_kl_penalty`)."""


def kl_in_reward(
    scores_BT: torch.Tensor,
    old_logp_BT: torch.Tensor,
    ref_logp_BT: torch.Tensor,
    mask_BT: torch.Tensor,
    coef: float,
    kind: KLEstimator,
    old_logp_full_BTV: torch.Tensor | None = None,
    ref_logp_full_BTV: torch.Tensor | None = None,
) -> KLReward:
    """verl's `apply_kl_penalty`: r_t = score_t - β·KL_t."""
    kl_BT = kl_estimate(old_logp_BT, ref_logp_BT, kind, old_logp_full_BTV, ref_logp_full_BTV) * mask_BT
    per_seq = kl_BT.sum(-1) / mask_BT.sum(-1).clamp(min=1)
    return KLReward(scores_BT - coef * kl_BT, kl_BT, per_seq.mean())


# ---------------------------------------------------------------------------------- advantages


def gae(
    rewards_BT: torch.Tensor, values_BT: torch.Tensor, mask_BT: torch.Tensor, gamma: float, lam: float
) -> tuple[torch.Tensor, torch.Tensor]:
    """Generalised advantage estimation (arXiv 1506.02438); returns (whitened advantages, returns).

    Padding positions carry the next real value/advantage through, as verl does.
    """
    T = rewards_BT.shape[1]
    next_value = torch.zeros_like(rewards_BT[:, 0])
    last_adv = torch.zeros_like(rewards_BT[:, 0])
    advantages = torch.zeros_like(rewards_BT)
    for t in reversed(range(T)):
        m = mask_BT[:, t]
        delta = rewards_BT[:, t] + gamma * next_value - values_BT[:, t]
        adv = delta + gamma * lam * last_adv
        next_value = values_BT[:, t] * m + (1 - m) * next_value
        last_adv = adv * m + (1 - m) * last_adv
        advantages[:, t] = last_adv
    returns = advantages + values_BT
    return masked_whiten(advantages, mask_BT) * mask_BT, returns


def grpo_advantages(
    score_B: torch.Tensor,
    group_B: torch.Tensor,
    mask_BT: torch.Tensor,
    norm_by_std: bool = True,
    eps: float = 1e-6,
) -> torch.Tensor:
    """Group-relative outcome advantages (arXiv 2402.03300): (score - group mean) / (group std + ε).

    A group of one gets mean 0 and std 1 (as verl). `norm_by_std=False` is Dr.GRPO.
    """
    groups, inverse = torch.unique(group_B, return_inverse=True)
    count_G = torch.zeros(len(groups), dtype=score_B.dtype).index_add_(0, inverse, torch.ones_like(score_B))
    mean_G = torch.zeros(len(groups), dtype=score_B.dtype).index_add_(0, inverse, score_B) / count_G
    sq_G = torch.zeros(len(groups), dtype=score_B.dtype).index_add_(0, inverse, (score_B - mean_G[inverse]) ** 2)
    std_G = (sq_G / (count_G - 1).clamp(min=1)).sqrt()
    single = count_G[inverse] == 1
    mean_B = torch.where(single, torch.zeros_like(score_B), mean_G[inverse])
    std_B = torch.where(single, torch.ones_like(score_B), std_G[inverse])
    adv_B = (score_B - mean_B) / (std_B + eps) if norm_by_std else score_B - mean_B
    return adv_B[:, None] * mask_BT


# -------------------------------------------------------------------------------------- losses


def token_mean(loss_BT: torch.Tensor, mask_BT: torch.Tensor, denom: float | torch.Tensor) -> torch.Tensor:
    """Σ loss·mask / denom, where denom is the mini-batch's token count divided by the world size.

    Summed over micro-batches and averaged over ranks (FSDP's reduce-scatter averages), this is
    the token mean over the whole mini-batch.
    """
    return masked_sum(loss_BT, mask_BT) / denom


class PolicyLoss(NamedTuple):
    loss: torch.Tensor
    clipfrac: torch.Tensor
    ppo_kl: torch.Tensor
    clipfrac_lower: torch.Tensor


def policy_loss(
    old_logp_BT: torch.Tensor,
    logp_BT: torch.Tensor,
    adv_BT: torch.Tensor,
    mask_BT: torch.Tensor,
    clip_low: float,
    clip_high: float,
    clip_c: float,
    denom: float | torch.Tensor,
) -> PolicyLoss:
    """Clipped surrogate (arXiv 1707.06347) with asymmetric clip and dual clip (arXiv 1912.09729)."""
    neg_log_ratio = (logp_BT - old_logp_BT).clamp(-20.0, 20.0)
    ratio = neg_log_ratio.exp()
    loss1 = -adv_BT * ratio
    loss2 = -adv_BT * ratio.clamp(1 - clip_low, 1 + clip_high)
    clipped = torch.maximum(loss1, loss2)
    loss3 = -adv_BT * clip_c
    dual = torch.minimum(loss3, clipped)
    loss_BT = torch.where(adv_BT < 0, dual, clipped)
    return PolicyLoss(
        loss=token_mean(loss_BT, mask_BT, denom),
        clipfrac=masked_mean((loss2 > loss1).float(), mask_BT).detach(),
        ppo_kl=masked_mean(-neg_log_ratio, mask_BT).detach(),
        clipfrac_lower=masked_mean((clipped > loss3).float() * (adv_BT < 0).float(), mask_BT).detach(),
    )


def value_loss(
    vpred_BT: torch.Tensor,
    returns_BT: torch.Tensor,
    old_values_BT: torch.Tensor,
    mask_BT: torch.Tensor,
    cliprange: float,
    denom: float | torch.Tensor,
) -> tuple[torch.Tensor, torch.Tensor]:
    """Clipped value loss ½·max((v - R)², (clip(v, v_old ± ε) - R)²); returns (loss, clipfrac)."""
    clipped = torch.clamp(vpred_BT, old_values_BT - cliprange, old_values_BT + cliprange)
    loss1 = (vpred_BT - returns_BT) ** 2
    loss2 = (clipped - returns_BT) ** 2
    loss = 0.5 * token_mean(torch.maximum(loss1, loss2), mask_BT, denom)
    return loss, masked_mean((loss2 > loss1).float(), mask_BT).detach()


def entropy_from_logits(logits_BTV: torch.Tensor, temperature: float = 1.0) -> torch.Tensor:
    """Per-token entropy of softmax(logits / temperature): the rollout's sampling distribution, as
    verl computes it (its actor divides the logits by the rollout temperature before log-probs and entropy)."""
    logp = torch.log_softmax(logits_BTV.float() / temperature, dim=-1)
    return -(logp.exp() * logp).sum(-1)
