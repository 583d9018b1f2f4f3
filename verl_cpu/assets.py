"""The tiny model, tokenizer and parquet data a CPU verl run trains on, built offline in code.

The task is this repository's digit-sorting task (`trainer/task.py`): a prompt is `<bos> d1 .. dk =`
and the answer is the digits sorted descending, then `<eos>`. The model is a seeded tiny Qwen2 over
the task's 16-token vocabulary, saved as a Hugging Face checkpoint; the tokenizer is a word-level
`PreTrainedTokenizerFast` with a chat template verl's agent loop can apply; the data are verl's
RLHF parquet schema (`prompt` chat messages, `reward_model.ground_truth`, `data_source`).
Nothing is downloaded. Building takes about a second and is cached by content in `root`.
"""

from __future__ import annotations

import hashlib
import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

DATA_SOURCE = "autotune/sort_digits"
MODEL_SETTINGS = {
    "hidden_size": 64,
    "intermediate_size": 128,
    "num_hidden_layers": 2,
    "num_attention_heads": 4,
    "num_key_value_heads": 2,
    "max_position_embeddings": 64,
}
"""About 100k parameters: a verl step takes seconds on one core."""
CHAT_TEMPLATE = (
    "{% for message in messages %}{{ message['content'] }}{% endfor %}{% if add_generation_prompt %} ={% endif %}"
)
"""A user message `<bos> 3 1 4` becomes the prompt `<bos> 3 1 4 =` (the task's own prompt format)."""
VERSION = 4
"""Bump when the files change, so cached copies are rebuilt."""


@dataclass(frozen=True)
class Assets:
    """Where a built set lives."""

    model_dir: Path
    """Hugging Face checkpoint + tokenizer (`actor_rollout_ref.model.path`)."""
    train_file: Path
    val_file: Path


def default_root() -> Path:
    return Path(os.environ.get("VERL_CPU_ASSETS", Path.home() / ".cache" / "autotune" / "verl_cpu"))


def build(root: Path | None = None, train_rows: int = 512, val_rows: int = 16, seed: int = 0) -> Assets:
    """Build (or reuse) the model, tokenizer and data under `root` and return their paths."""
    tag = hashlib.sha256(
        json.dumps([VERSION, MODEL_SETTINGS, CHAT_TEMPLATE, train_rows, val_rows, seed]).encode()
    ).hexdigest()[:12]
    base = (root or default_root()).expanduser().resolve() / tag
    assets = Assets(base / "model", base / "train.parquet", base / "val.parquet")
    if (base / "done").exists():
        return assets
    base.mkdir(parents=True, exist_ok=True)
    tmp = base / f"tmp-{os.getpid()}"
    tmp.mkdir(exist_ok=True)
    _model(tmp / "model", seed)
    _data(tmp / "train.parquet", train_rows, seed, split=0)
    _data(tmp / "val.parquet", val_rows, seed, split=1)
    for name in ("model", "train.parquet", "val.parquet"):
        target = base / name
        if not target.exists():
            os.replace(tmp / name, target)
    (base / "done").write_text("ok\n")
    return assets


def tokenizer():  # type: ignore[no-untyped-def]
    """The task's vocabulary as a Hugging Face fast tokenizer (whitespace-separated symbols).

    The task's two unused ids carry `<|im_end|>` and a newline: verl's agent loop picks its token
    builder from config.json's `model_type` (qwen2) and requires both to be single tokens.
    """
    from tokenizers import AddedToken, Tokenizer, decoders, models, pre_tokenizers
    from transformers import PreTrainedTokenizerFast

    from trainer.task import DigitTokenizer

    symbols = [*DigitTokenizer.symbols[:-2], "<|im_end|>", "\n"]
    vocab = {symbol: i for i, symbol in enumerate(symbols)}
    core = Tokenizer(models.WordLevel(vocab=vocab, unk_token="<|im_end|>"))
    core.pre_tokenizer = pre_tokenizers.WhitespaceSplit()
    core.decoder = decoders.WordPiece(prefix="##", cleanup=False)  # joins symbols with spaces
    core.add_tokens([AddedToken("\n", normalized=False, special=False)])
    tok = PreTrainedTokenizerFast(
        tokenizer_object=core,
        pad_token="<pad>",
        bos_token="<bos>",
        eos_token="<eos>",
        unk_token="<|im_end|>",
    )
    tok.add_special_tokens({"additional_special_tokens": ["<|im_end|>"]})
    tok.chat_template = CHAT_TEMPLATE
    return tok


def _model(path: Path, seed: int) -> None:
    import torch
    from transformers import GenerationConfig, Qwen2Config, Qwen2ForCausalLM

    from trainer.task import BOS, EOS, PAD, VOCAB_SIZE

    settings: dict[str, Any] = {
        "vocab_size": VOCAB_SIZE,
        "rope_theta": 10000.0,
        "tie_word_embeddings": False,
        "bos_token_id": BOS,
        "eos_token_id": EOS,
        "pad_token_id": PAD,
        **MODEL_SETTINGS,
    }
    config = Qwen2Config(**settings)
    torch.manual_seed(seed)
    model = Qwen2ForCausalLM(config)
    model.generation_config = GenerationConfig(bos_token_id=BOS, eos_token_id=EOS, pad_token_id=PAD)
    model.save_pretrained(path)
    tokenizer().save_pretrained(path)


def _data(path: Path, rows: int, seed: int, split: int) -> None:
    import pandas as pd

    from trainer.task import make_prompts

    prompts = make_prompts(seed + 7919 * split, 0, rows, 2, 6)
    records = []
    for index, prompt in enumerate(prompts):
        digits = " ".join(str(d) for d in prompt.digits)
        answer = " ".join(str(d) for d in sorted(prompt.digits, reverse=True))
        records.append(
            {
                "data_source": DATA_SOURCE,
                "prompt": [{"role": "user", "content": f"<bos> {digits}"}],
                "ability": "sorting",
                "reward_model": {"style": "rule", "ground_truth": answer},
                "extra_info": {"split": "train" if split == 0 else "val", "index": index},
            }
        )
    pd.DataFrame.from_records(records).to_parquet(path)
