"""Any OpenAI-compatible chat-completions server (vLLM serve, SGLang, TGI, a hosted API) via the `openai` client.

One request per sample; the runner keeps `concurrency` of them in flight on threads. Retries are ours, not
the client's, so every kind of transient trouble is retried the same way and counted: connection errors,
timeouts, HTTP 408/409/429/5xx, and malformed 200 answers (a body that is not JSON, no choices, no message
content, content filtered). A sample whose attempts run out becomes a `SampleFailure` naming the last
problem with an excerpt of what came back; an HTTP 400 (this request is wrong for this server, e.g. too
long) fails its sample at once. Only a refused key or an unknown model stops the run (bad input).
Images travel as base64 PNG data URLs.
"""

from __future__ import annotations

import base64
import io
import json
import os
import random
import threading
from collections.abc import Sequence
from typing import Any

from eval_kit.errors import BadInput
from eval_kit.runners.backends.base import Backend, Outcome, SampleFailure, excerpt, fill_images, limit_pixels
from eval_kit.runners.task import Request

# the longest wait between two attempts, in seconds (exponential backoff from --retry-backoff up to this)
MAX_BACKOFF = 8.0
RETRIED_STATUS = {408, 409, 429}


class MalformedResponse(Exception):
    """A 200 answer the client cannot use; retried like a transient error."""


def data_url(image, max_pixels: int | None) -> str:
    buffer = io.BytesIO()
    limit_pixels(image, max_pixels).save(buffer, format="PNG")
    return "data:image/png;base64," + base64.b64encode(buffer.getvalue()).decode("ascii")


def message_content(body: str) -> str:
    """The assistant text of a chat-completions body, or MalformedResponse saying what is wrong with it."""
    try:
        obj = json.loads(body)
    except ValueError:
        raise MalformedResponse(f"the body is not JSON: {excerpt(body)}") from None
    choices = obj.get("choices") if isinstance(obj, dict) else None
    if not isinstance(choices, list) or not choices or not isinstance(choices[0], dict):
        raise MalformedResponse(f"no choices in the response: {excerpt(body)}")
    choice = choices[0]
    if choice.get("finish_reason") == "content_filter":
        raise MalformedResponse(f"the server filtered the content (finish_reason content_filter): {excerpt(body)}")
    message = choice.get("message")
    content = message.get("content") if isinstance(message, dict) else None
    if not isinstance(content, str):
        raise MalformedResponse(f"no message content in the response: {excerpt(body)}")
    return content


class OpenAIBackend(Backend):
    """Chat completions, greedy unless `gen_kwargs` say otherwise; `api_key_env` names the key's variable."""

    name = "openai"

    def __init__(self, model: str, *, base_url: str | None = None, api_key_env: str = "OPENAI_API_KEY",
                 concurrency: int = 8, max_retries: int = 5, timeout: float = 120.0, max_new_tokens: int = 256,
                 max_pixels: int | None = None, gen_kwargs: dict[str, Any] | None = None,
                 retry_backoff: float = 0.5) -> None:
        import openai

        self._openai = openai
        self.model, self.base_url, self.api_key_env = model, base_url, api_key_env
        self.concurrency, self.max_retries, self.timeout = max(1, concurrency), max_retries, timeout
        self.max_new_tokens, self.max_pixels, self.retry_backoff = max_new_tokens, max_pixels, retry_backoff
        self.gen_kwargs = dict(gen_kwargs or {})
        key = os.environ.get(api_key_env)
        if not key:
            if base_url is None:
                raise BadInput(f"environment variable {api_key_env} is not set", field="--api-key-env",
                               fix=f"export {api_key_env}=... or point --base-url at a local server")
            key = "EMPTY"  # local servers usually ignore the key but the client requires one
        self.client = openai.OpenAI(base_url=base_url, api_key=key, timeout=timeout, max_retries=0)
        self._stopping = threading.Event()

    def settings(self) -> dict[str, Any]:
        settings: dict[str, Any] = {"temperature": float(self.gen_kwargs.get("temperature", 0.0)),
                                    "max_tokens": self.max_new_tokens, "max_pixels": self.max_pixels}
        settings.update({k: v for k, v in self.gen_kwargs.items() if k not in ("temperature", "max_new_tokens")})
        return settings

    def request_messages(self, sample: Request) -> list[dict[str, Any]]:
        return fill_images(sample.messages, sample.images,
                           lambda img: {"type": "image_url", "image_url": {"url": data_url(img, self.max_pixels)}})

    def request_options(self) -> dict[str, Any]:
        """Sampling options of every request: greedy by default; top_k goes in the body (vLLM, SGLang read it)."""
        options: dict[str, Any] = {"temperature": float(self.gen_kwargs.get("temperature", 0.0)),
                                   "max_tokens": self.max_new_tokens}
        for name in ("top_p", "seed", "stop"):
            if name in self.gen_kwargs:
                options[name] = self.gen_kwargs[name]
        if "top_k" in self.gen_kwargs:
            options["extra_body"] = {"top_k": self.gen_kwargs["top_k"]}
        return options

    def _wait(self, attempt: int, retry_after: str | None) -> None:
        delay = min(self.retry_backoff * 2 ** (attempt - 1), MAX_BACKOFF) * random.uniform(0.75, 1.0)
        if retry_after and retry_after.replace(".", "", 1).isdigit():  # Retry-After in seconds (429, 503)
            delay = max(delay, min(float(retry_after), MAX_BACKOFF))
        self._stopping.wait(delay)

    def _one(self, sample: Request) -> Outcome:
        openai = self._openai
        messages = self.request_messages(sample)
        problem = "no attempt made"
        attempts = 0
        for attempt in range(1, self.max_retries + 2):
            if self._stopping.is_set():
                return None
            attempts = attempt
            retry_after = None
            try:
                raw = self.client.chat.completions.with_raw_response.create(
                    model=self.model, messages=messages, **self.request_options())
                return message_content(raw.http_response.text)
            except (openai.AuthenticationError, openai.PermissionDeniedError) as exc:
                raise BadInput(f"the server refused the API key ({exc.status_code}: {_error_message(exc)})",
                               field="--api-key-env", fix=f"check {self.api_key_env}") from None
            except openai.NotFoundError as exc:
                raise BadInput(f"the server at {self.client.base_url} has no model {self.model!r} "
                               f"(404: {_error_message(exc)})", field="--model",
                               fix="pass a model the server serves (GET /v1/models lists them) and check --base-url"
                               ) from None
            except openai.APIStatusError as exc:
                problem = f"HTTP {exc.status_code}: {excerpt(_error_message(exc))}"
                if exc.status_code < 500 and exc.status_code not in RETRIED_STATUS:
                    break  # the request itself is wrong for this server: asking again changes nothing
                retry_after = exc.response.headers.get("retry-after")
            except openai.APITimeoutError:
                problem = f"no answer within --timeout {self.timeout:g} s"
            except openai.APIConnectionError as exc:
                problem = f"connection failed ({_describe_cause(exc)}); is the server at {self.client.base_url} up?"
            except MalformedResponse as exc:
                problem = f"malformed response: {exc}"
            if attempt <= self.max_retries:
                self._wait(attempt, retry_after)
        return SampleFailure(f"{problem} (after {attempts} attempt{'s' if attempts != 1 else ''})", attempts)

    def generate(self, samples: Sequence[Request]) -> list[Outcome]:
        return [self._one(s) for s in samples]

    def stop(self) -> None:
        self._stopping.set()

    def close(self) -> None:
        self.client.close()


def _error_message(exc: Any) -> str:
    body = getattr(exc, "body", None)
    if isinstance(body, dict):
        inner = body.get("error", body)
        if isinstance(inner, dict) and inner.get("message"):
            return str(inner["message"])
    response = getattr(exc, "response", None)
    text = getattr(response, "text", None)
    return text if text else str(exc)


def _describe_cause(exc: BaseException) -> str:
    cause = exc.__cause__ or exc.__context__ or exc
    return " ".join(str(cause).split())[:120] or type(cause).__name__
