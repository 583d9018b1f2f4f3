"""A short supervised warm start of the built-in tiny policy, cached on disk.

RLHF starts from a supervised (SFT) model, and so does this trainer: a freshly initialised tiny
model has to discover the answer format and the stopping length by chance, which takes far more
than the tens of steps a tuning trial has. A few hundred cross-entropy steps on correct answers
give a policy that answers in the right format but gets many digits wrong, so PPO has a
non-zero, improvable reward from step 1 — and the reference model, the KL anchor, is that SFT
policy, as in production.

The warm start is a pure function of (model architecture, task, seed, its own settings, torch
version): its weights are cached under `~/.cache/autotune/warm_start/` and every rank loads the
same file. It runs before training and is reported separately (run header: `warm_start_s`).
"""

from __future__ import annotations

import hashlib
import json
import os
import time
from pathlib import Path

import torch
from torch import nn

from trainer.config.schema import Config
from trainer.task import EOS, make_prompts, target


def _cache_dir() -> Path:
    root = Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache"))
    return root / "autotune" / "warm_start"


def cache_key(config: Config, seed: int) -> str:
    b = config.builtin
    spec = {
        "model": vars(b.model),
        "task": vars(b.task),
        "warm_start": vars(b.warm_start),
        "max_len": config.data.max_prompt_length + config.data.max_response_length,
        "seed": seed,
        "torch": torch.__version__.split("+")[0],
        "version": 1,
    }
    return hashlib.sha256(json.dumps(spec, sort_keys=True).encode()).hexdigest()[:20]


def supervised_batch(
    seed: int, step: int, batch: int, min_digits: int, max_digits: int
) -> tuple[torch.Tensor, torch.Tensor]:
    """(input ids, labels) right-padded; labels are -100 except on the answer and <eos>."""
    prompts = make_prompts(seed + 9973, step, batch, min_digits, max_digits)
    rows = [(list(p.ids), [*target(p.digits), EOS]) for p in prompts]
    width = max(len(p) + len(a) for p, a in rows)
    ids = torch.zeros(len(rows), width, dtype=torch.long)
    labels = torch.full((len(rows), width), -100, dtype=torch.long)
    for i, (p, a) in enumerate(rows):
        ids[i, : len(p) + len(a)] = torch.tensor(p + a)
        labels[i, len(p) : len(p) + len(a)] = torch.tensor(a)
    return ids, labels


def train(model: nn.Module, config: Config, seed: int) -> None:
    """Cross-entropy on correct answers for `builtin.warm_start.steps` steps, in place."""
    ws, task = config.builtin.warm_start, config.builtin.task
    optimizer = torch.optim.AdamW(model.parameters(), lr=ws.lr, weight_decay=0.0)
    model.train()
    for step in range(ws.steps):
        ids, labels = supervised_batch(seed, step, ws.batch_size, task.min_digits, task.max_digits)
        attention = (labels != -100) | (torch.arange(ids.shape[1])[None] < (ids != 0).sum(-1, keepdim=True))
        logits = model(input_ids=ids, attention_mask=attention.long()).logits
        loss = nn.functional.cross_entropy(logits[:, :-1].reshape(-1, logits.shape[-1]), labels[:, 1:].reshape(-1))
        optimizer.zero_grad(set_to_none=True)
        loss.backward()
        optimizer.step()
    model.eval()


def apply(model: nn.Module, config: Config, seed: int) -> tuple[float, bool]:
    """Load the cached warm start into `model`, or compute and cache it. Returns (seconds, cached)."""
    start = time.perf_counter()
    path = _cache_dir() / f"{cache_key(config, seed)}.pt"
    if path.exists():
        try:
            model.load_state_dict(torch.load(path, map_location="cpu", weights_only=True))
            return time.perf_counter() - start, True
        except (OSError, RuntimeError, EOFError):
            pass  # a torn or stale file: recompute
    torch.manual_seed(seed)
    train(model, config, seed)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(f".{os.getpid()}.tmp")
        torch.save(model.state_dict(), tmp)
        tmp.replace(path)
    except OSError:
        pass
    return time.perf_counter() - start, False
