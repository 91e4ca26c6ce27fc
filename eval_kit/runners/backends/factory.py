"""Build a backend from CLI options; each backend's heavy library is imported only when it is chosen."""

from __future__ import annotations

from typing import Any

from eval_kit.errors import BadInput
from eval_kit.runners.backends.base import Backend
from eval_kit.runners.backends.options import check_gen_kwargs, check_model_args
from eval_kit.runners.task import Task

BACKENDS = ("transformers", "vllm", "openai", "baseline")


def make_backend(name: str, model: str, task: Task, *, limit: int | None = None, seed: int = 0,
                 max_new_tokens: int = 256, max_pixels: int | None = None, base_url: str | None = None,
                 api_key_env: str = "OPENAI_API_KEY", concurrency: int = 8, max_retries: int = 5,
                 timeout: float = 120.0, device: str | None = None, revision: str | None = None,
                 model_args: dict[str, Any] | None = None, gen_kwargs: dict[str, Any] | None = None,
                 retry_backoff: float = 0.5, image_format: str | None = None,
                 max_response_bytes: int | None = None, processor_args: dict[str, Any] | None = None,
                 retry_after_cap: float | None = None, **extra: Any) -> Backend:
    """The named backend. `gen_kwargs["max_new_tokens"]`, when given, wins over `max_new_tokens`.
    `image_format`, `max_response_bytes` and `retry_after_cap` (None: the default) apply to the openai backend
    only."""
    model_args = check_model_args(name, dict(model_args or {}))
    gen_kwargs = check_gen_kwargs(dict(gen_kwargs or {}))
    max_new_tokens = int(gen_kwargs.get("max_new_tokens", max_new_tokens))
    if processor_args and name != "transformers":
        raise BadInput(f"--processor-args applies to the transformers backend, not {name}", field="--processor-args",
                       fix="drop it" + (" (vLLM: --model-args mm_processor_kwargs={...})" if name == "vllm" else ""))
    if device is not None and name != "transformers":
        raise BadInput(f"--device applies to the transformers backend, not {name}", field="--device",
                       fix="drop --device" + (" (vLLM: --model-args tensor_parallel_size=N)" if name == "vllm" else ""))
    for option, value in (("--image-format", image_format), ("--max-response-bytes", max_response_bytes),
                          ("--retry-after-cap", retry_after_cap)):
        if value is not None and name != "openai":
            raise BadInput(f"{option} applies to the openai backend, not {name}", field=option, fix=f"drop {option}")
    if name == "baseline":
        if gen_kwargs:
            raise BadInput("a baseline generates nothing, so it takes no --gen-kwargs", field="--gen-kwargs")
        from eval_kit.runners.backends.baseline import BaselineBackend

        return BaselineBackend(model, task, seed=seed, limit=limit)
    if name == "openai":
        from eval_kit.runners.backends.setup_checks import require_backend

        require_backend("openai")
        from eval_kit.runners.backends.openai_chat import OpenAIBackend

        return OpenAIBackend(model, base_url=base_url, api_key_env=api_key_env, concurrency=concurrency,
                             max_retries=max_retries, timeout=timeout, max_new_tokens=max_new_tokens,
                             max_pixels=max_pixels, gen_kwargs=gen_kwargs, retry_backoff=retry_backoff,
                             **({"image_format": image_format} if image_format is not None else {}),
                             **({"max_response_bytes": max_response_bytes} if max_response_bytes is not None else {}),
                             **({"retry_after_cap": retry_after_cap} if retry_after_cap is not None else {}))
    if name == "transformers":
        from eval_kit.runners.backends.hf_transformers import TransformersBackend

        return TransformersBackend(model, max_new_tokens=max_new_tokens, max_pixels=max_pixels, device=device,
                                   revision=revision, model_args=model_args, gen_kwargs=gen_kwargs,
                                   processor_args=processor_args, needs_images=needs_images(task))
    if name == "vllm":
        from eval_kit.runners.backends.vllm_offline import VLLMBackend

        return VLLMBackend(model, max_new_tokens=max_new_tokens, max_pixels=max_pixels, revision=revision,
                           model_args=model_args, gen_kwargs=gen_kwargs, needs_images=needs_images(task), **extra)
    raise ValueError(f"unknown backend {name!r}")


def needs_images(task: Task) -> bool:
    """Whether the task's prompts carry images (a text LLM runs only where they do not: SafeRelBench)."""
    from eval_kit import registry

    try:
        return registry.get(task.name).has_images
    except (BadInput, KeyError, ValueError):
        return True
