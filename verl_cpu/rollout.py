"""A Hugging Face `generate` rollout for verl, registered as `actor_rollout_ref.rollout.name=hf`.

verl 0.9's rollout is a server (a Ray actor per replica) that the agent loop sends token ids to,
plus a `ServerAdapter` inside each trainer worker that wakes the server, puts it to sleep and
pushes the trainer's weights to it every step. vLLM/SGLang/TRT-LLM need a GPU; this is the same
protocol over `transformers`' `generate` on the CPU:

* `HFReplica` (verl's `RolloutReplica`): launches one `HFServer` actor per replica, named
  `hf_server_<replica>_0` so the adapters find it.
* `HFServer`: holds the model, batches concurrent `generate` requests (left padding), samples with
  the request's temperature/top-p/top-k, returns verl's `TokenOutput` (log-probs when asked).
* `HFServerAdapter` (verl's `BaseRollout`): every trainer rank walks the weight generator (it runs
  FSDP's collectives), the replica's first rank sends the full tensors to its server.
"""

from __future__ import annotations

import asyncio
import logging
import os
import threading
from collections.abc import Generator
from typing import Any

import ray
import torch
from verl.workers.rollout.base import BaseRollout
from verl.workers.rollout.replica import RolloutReplica, TokenOutput

logger = logging.getLogger(__name__)
NAME = "hf"
BATCH_WINDOW_S = 0.02
"""How long the server waits for more concurrent requests before generating a batch."""


def _server_name(replica_rank: int) -> str:
    return f"{NAME}_server_{replica_rank}_0"


def _local_path(model_config: Any) -> str:
    path = getattr(model_config, "local_path", None) or getattr(model_config, "path", None)
    if path is None and isinstance(model_config, dict):
        path = model_config.get("local_path") or model_config.get("path")
    assert path, "the rollout needs actor_rollout_ref.model.path"
    return os.path.expanduser(str(path))


class HFServer:
    """One rollout replica's generation server (a Ray actor)."""

    def __init__(self, config: Any, model_config: Any, replica_rank: int) -> None:
        from transformers import AutoModelForCausalLM, AutoTokenizer

        torch.set_num_threads(max(1, int(os.environ.get("OMP_NUM_THREADS", "1"))))
        path = _local_path(model_config)
        self.model: Any = AutoModelForCausalLM.from_pretrained(path, dtype=torch.float32, local_files_only=True)
        self.model.eval()
        tok = AutoTokenizer.from_pretrained(path, local_files_only=True)
        self.pad_id = tok.pad_token_id if tok.pad_token_id is not None else 0
        self.eos_id = tok.eos_token_id
        self.config = config
        self.replica_rank = replica_rank
        self.global_steps: int | None = None
        self.queue: list[tuple[list[int], dict[str, Any], asyncio.Future]] = []
        self.flusher: asyncio.Task | None = None
        self.lock = threading.Lock()
        self.weight_updates = 0

    def _cfg(self, name: str, default: Any) -> Any:
        value = getattr(self.config, name, None)
        if value is None and isinstance(self.config, dict):
            value = self.config.get(name)
        return default if value is None else value

    async def generate(
        self, prompt_ids: list[int], sampling_params: dict[str, Any], request_id: str, **_: Any
    ) -> TokenOutput:
        future: asyncio.Future = asyncio.get_running_loop().create_future()
        self.queue.append((list(prompt_ids), dict(sampling_params), future))
        if self.flusher is None or self.flusher.done():
            self.flusher = asyncio.create_task(self._flush())
        return await future

    async def _flush(self) -> None:
        await asyncio.sleep(BATCH_WINDOW_S)
        while self.queue:
            batch, self.queue = self.queue, []
            groups: dict[tuple, list] = {}
            for item in batch:
                groups.setdefault(self._key(item[0], item[1]), []).append(item)
            for key, items in groups.items():
                try:
                    outputs = await asyncio.to_thread(self._generate_batch, [i[0] for i in items], key)
                except Exception as exc:
                    for item in items:
                        item[2].set_exception(exc)
                    continue
                for item, out in zip(items, outputs, strict=True):
                    item[2].set_result(out)

    def _key(self, prompt: list[int], params: dict[str, Any]) -> tuple:
        response_length = int(self._cfg("response_length", 32))
        prompt_length = int(self._cfg("prompt_length", 32))
        max_tokens = params.get("max_tokens") or params.get("max_new_tokens") or response_length
        max_tokens = max(1, min(int(max_tokens), response_length, prompt_length + response_length - len(prompt)))
        return (
            float(params.get("temperature", 1.0)),
            float(params.get("top_p", 1.0)),
            int(params.get("top_k", -1)),
            max_tokens,
            bool(params.get("logprobs")),
            bool(params.get("ignore_eos", False)),
        )

    @torch.no_grad()
    def _generate_batch(self, prompts: list[list[int]], key: tuple) -> list[TokenOutput]:
        temperature, top_p, top_k, max_tokens, want_logprobs, ignore_eos = key
        with self.lock:
            width = max(len(p) for p in prompts)
            ids = torch.full((len(prompts), width), self.pad_id, dtype=torch.long)
            mask = torch.zeros((len(prompts), width), dtype=torch.long)
            for row, p in enumerate(prompts):
                ids[row, width - len(p) :] = torch.tensor(p)
                mask[row, width - len(p) :] = 1
            greedy = temperature <= 0
            out = self.model.generate(
                input_ids=ids,
                attention_mask=mask,
                max_new_tokens=max_tokens,
                min_new_tokens=max_tokens if ignore_eos else 0,
                do_sample=not greedy,
                temperature=temperature if not greedy else None,
                top_p=top_p if not greedy else None,
                top_k=(top_k if top_k > 0 else 0) if not greedy else None,
                eos_token_id=self.eos_id,
                pad_token_id=self.pad_id,
                return_dict_in_generate=True,
                output_logits=want_logprobs,
            )
        new = out.sequences[:, width:]
        logps = None
        if want_logprobs:
            logits = torch.stack(out.logits, dim=1).float()
            if not greedy:
                logits = logits / temperature
            logps = torch.log_softmax(logits, dim=-1).gather(-1, new.unsqueeze(-1)).squeeze(-1)
        results = []
        for row in range(len(prompts)):
            tokens = new[row].tolist()
            if self.eos_id in tokens and not ignore_eos:
                tokens = tokens[: tokens.index(self.eos_id) + 1]
            results.append(
                TokenOutput(
                    token_ids=tokens,
                    log_probs=logps[row, : len(tokens)].tolist() if logps is not None else None,
                    stop_reason="completed",
                    extra_fields={"global_steps": self.global_steps},
                )
            )
        return results

    def update_weights(self, state: dict[str, torch.Tensor], global_steps: int | None = None) -> int:
        with self.lock:
            _missing, unexpected = self.model.load_state_dict(state, strict=False)
        if unexpected:
            raise RuntimeError(f"the rollout model has no parameters {unexpected[:5]}")
        self.weight_updates += 1
        if global_steps is not None:
            self.global_steps = global_steps
        return len(state)

    def get_weight_updates(self) -> int:
        return self.weight_updates

    def set_global_steps(self, global_steps: int) -> None:
        self.global_steps = global_steps

    # Memory management verl asks for around weight updates: nothing to free on a CPU.
    async def wake_up(self, tags: list[str] | None = None) -> None:
        return None

    async def sleep(self) -> None:
        return None

    async def clear_kv_cache(self) -> None:
        return None

    async def release_kv_cache(self) -> None:
        return None

    async def resume_kv_cache(self) -> None:
        return None

    async def wait_for_requests_to_drain(self) -> None:
        while self.queue or (self.flusher is not None and not self.flusher.done()):
            await asyncio.sleep(0.01)

    async def abort_all_requests(self, reset_prefix_cache: bool = True, reject_request: bool = False) -> dict:
        return {"aborted_count": 0, "request_ids": []}

    async def resume_generation(self) -> None:
        return None

    async def abort_request(self, request_id: str, reset_prefix_cache: bool = True) -> dict:
        return {"aborted": False}

    async def start_profile(self, **kwargs: Any) -> None:
        return None

    async def stop_profile(self) -> None:
        return None


class HFReplica(RolloutReplica):
    """verl's replica protocol for `HFServer`: one server actor per replica."""

    async def launch_servers(self) -> None:
        server_cls = ray.remote(HFServer)
        server: Any = server_cls.options(  # type: ignore[attr-defined]
            name=_server_name(self.replica_rank),
            max_concurrency=self.max_concurrency,
            num_cpus=0,
        ).remote(config=self.config, model_config=self.model_config, replica_rank=self.replica_rank)
        self.servers = [server]
        self._server_handle = server
        self._server_address = f"{NAME}-replica-{self.replica_rank}"

    def rollout_worker_use_gpu(self) -> bool:
        return False


class HFServerAdapter(BaseRollout):
    """Inside each trainer worker: weight pushes and wake/sleep calls to this replica's server."""

    def __init__(self, config: Any, model_config: Any, device_mesh: Any, replica_rank: int = -1) -> None:
        super().__init__(config, model_config, device_mesh)
        rank = int(os.environ.get("RANK", "0"))
        world = (
            self.config.tensor_model_parallel_size
            * self.config.data_parallel_size
            * self.config.pipeline_model_parallel_size
        )
        self.replica_rank = rank // world if replica_rank == -1 else replica_rank
        self.has_server = rank % world == 0
        self.server: Any = None

    def _server(self) -> Any:
        if self.server is None:
            self.server = ray.get_actor(_server_name(self.replica_rank))
        return self.server

    async def resume(self, tags: list[str]) -> None:
        return None

    async def release(self) -> None:
        return None

    @torch.no_grad()
    async def update_weights(
        self,
        weights: Generator[tuple[str, torch.Tensor], None, None],
        wire_format: str = "named_tensors",
        global_steps: int | None = None,
        **kwargs: Any,
    ) -> None:
        if wire_format != "named_tensors":
            raise ValueError(f"the hf rollout takes wire_format='named_tensors', got {wire_format!r}")
        state = {}
        for name, tensor in weights:  # every rank walks it: it runs FSDP's all-gathers
            if self.has_server:
                full = tensor.full_tensor() if hasattr(tensor, "full_tensor") else tensor
                state[name] = full.detach().to("cpu", copy=True)
        if self.has_server:
            await self._server().update_weights.remote(state, global_steps)
