"""Any OpenAI-compatible chat-completions server (vLLM serve, SGLang, TGI, a hosted API) via the `openai` client.

Retries with exponential backoff and per-request timeouts are the client's own (`max_retries`, `timeout`);
requests of a batch go out concurrently on a thread pool. Images travel as base64 PNG data URLs.
"""

from __future__ import annotations

import base64
import io
import os
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from eval_kit.errors import BadInput
from eval_kit.runners.backends.base import Backend, BackendError, fill_images, limit_pixels
from eval_kit.runners.task import Request


def data_url(image, max_pixels: int | None) -> str:
    buffer = io.BytesIO()
    limit_pixels(image, max_pixels).save(buffer, format="PNG")
    return "data:image/png;base64," + base64.b64encode(buffer.getvalue()).decode("ascii")


class OpenAIBackend(Backend):
    """Greedy (temperature 0) chat completions; `api_key_env` names the variable holding the key."""

    name = "openai"

    def __init__(self, model: str, *, base_url: str | None = None, api_key_env: str = "OPENAI_API_KEY",
                 concurrency: int = 8, max_retries: int = 5, timeout: float = 120.0, max_new_tokens: int = 256,
                 max_pixels: int | None = None) -> None:
        import openai

        self._openai = openai
        self.model, self.base_url, self.api_key_env = model, base_url, api_key_env
        self.concurrency, self.max_retries, self.timeout = concurrency, max_retries, timeout
        self.max_new_tokens, self.max_pixels = max_new_tokens, max_pixels
        key = os.environ.get(api_key_env)
        if not key:
            if base_url is None:
                raise BadInput(f"environment variable {api_key_env} is not set", field="--api-key-env",
                               fix=f"export {api_key_env}=... or point --base-url at a local server")
            key = "EMPTY"  # local servers usually ignore the key but the client requires one
        self.client = openai.OpenAI(base_url=base_url, api_key=key, timeout=timeout, max_retries=max_retries)
        self.pool = ThreadPoolExecutor(max_workers=max(1, concurrency))

    def settings(self) -> dict[str, Any]:
        return {"temperature": 0.0, "max_tokens": self.max_new_tokens, "max_pixels": self.max_pixels}

    def request_messages(self, sample: Request) -> list[dict[str, Any]]:
        return fill_images(sample.messages, sample.images,
                           lambda img: {"type": "image_url", "image_url": {"url": data_url(img, self.max_pixels)}})

    def _one(self, sample: Request) -> str:
        try:
            reply = self.client.chat.completions.create(
                model=self.model, messages=self.request_messages(sample), temperature=0.0,
                max_tokens=self.max_new_tokens,
            )
        except self._openai.AuthenticationError as exc:
            raise BadInput(f"the server refused the API key ({exc})", field="--api-key-env",
                           fix=f"check {self.api_key_env}") from None
        except self._openai.APIError as exc:
            raise BackendError(f"sample {sample.id}: request failed after {self.max_retries} retries: {exc}") from exc
        if not reply.choices:
            raise BackendError(f"sample {sample.id}: the server returned no choices")
        return reply.choices[0].message.content or ""

    def generate(self, samples: Sequence[Request]) -> list[str]:
        return list(self.pool.map(self._one, samples))

    def close(self) -> None:
        self.pool.shutdown(wait=True)
        self.client.close()
