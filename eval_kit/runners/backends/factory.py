"""Build a backend from CLI options; each backend's heavy library is imported only when it is chosen."""

from __future__ import annotations

from typing import Any

from eval_kit.runners.backends.base import Backend
from eval_kit.runners.task import Task

BACKENDS = ("transformers", "vllm", "openai", "baseline")


def make_backend(name: str, model: str, task: Task, *, limit: int | None = None, seed: int = 0,
                 max_new_tokens: int = 256, max_pixels: int | None = None, base_url: str | None = None,
                 api_key_env: str = "OPENAI_API_KEY", concurrency: int = 8, max_retries: int = 5,
                 timeout: float = 120.0, device: str | None = None, **extra: Any) -> Backend:
    if name == "baseline":
        from eval_kit.runners.backends.baseline import BaselineBackend

        return BaselineBackend(model, task, seed=seed, limit=limit)
    if name == "openai":
        from eval_kit.runners.backends.openai_chat import OpenAIBackend

        return OpenAIBackend(model, base_url=base_url, api_key_env=api_key_env, concurrency=concurrency,
                             max_retries=max_retries, timeout=timeout, max_new_tokens=max_new_tokens,
                             max_pixels=max_pixels)
    if name == "transformers":
        from eval_kit.runners.backends.hf_transformers import TransformersBackend

        return TransformersBackend(model, max_new_tokens=max_new_tokens, max_pixels=max_pixels, device=device)
    if name == "vllm":
        from eval_kit.runners.backends.vllm_offline import VLLMBackend

        return VLLMBackend(model, max_new_tokens=max_new_tokens, max_pixels=max_pixels, **extra)
    raise ValueError(f"unknown backend {name!r}")
