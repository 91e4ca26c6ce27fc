"""Any OpenAI-compatible chat-completions server (vLLM serve, SGLang, TGI, a hosted API), over bounded HTTP.

One request per sample; the runner keeps `concurrency` of them in flight on threads. Retries are ours, so
every kind of transient trouble is retried the same way and counted: connection errors, timeouts, HTTP
408/409/429/5xx, and malformed 200 answers (a body that is not JSON, no choices, no message content,
content filtered). A sample whose attempts run out becomes a `SampleFailure` naming the last problem with an
excerpt of what came back; an HTTP 400 (this request is wrong for this server, e.g. too long) or an answer
over `--max-response-bytes` fails its sample at once. Only a refused key or an unknown model stops the run.

No server can hang or bloat a run (`bounded_http`): `--timeout` bounds each whole attempt (connect, headers,
body), and an answer is read at most `max_response_bytes` off the wire and after each decompression.

Images travel as data URLs prepared ahead of need on the harness's prefetch threads (`prepare`), in the
`--image-format`: `auto` (default) sends a source JPEG that needs no resizing as its own bytes, re-encodes a
resized JPEG as JPEG (quality 95) and anything else as PNG; `png` always sends the decoded pixels as PNG
(lossless, slowest); `jpeg` sends a JPEG's own bytes when it needs no resizing, else JPEG quality 95.
"""

from __future__ import annotations

import base64
import io
import json
import math
import os
import random
import threading
import time
from collections.abc import Callable, Sequence
from typing import Any

from eval_kit.errors import BadInput
from eval_kit.runners.backends.base import (
    Answer,
    Backend,
    Outcome,
    SampleFailure,
    excerpt,
    fill_images,
    limit_pixels,
)
from eval_kit.runners.task import Request

# the longest wait between two attempts, in seconds (exponential backoff from --retry-backoff up to this)
MAX_BACKOFF = 8.0
# the longest wait a server's Retry-After may ask for, in seconds (--retry-after-cap): a rate limit of a minute is
# waited out; a longer one is waited for this long, then retried (the samples fail once the retries run out)
DEFAULT_RETRY_AFTER_CAP = 60.0
# the token counts of a chat-completions `usage` object that are recorded (per sample, summed in metadata.json)
USAGE_FIELDS = ("prompt_tokens", "completion_tokens", "total_tokens")
RETRIED_STATUS = {408, 409, 429}
IMAGE_FORMATS = ("auto", "png", "jpeg")
JPEG_QUALITY = 95
# the largest answer body kept, in bytes, before and after decompression: a chat answer of 256 tokens is about
# 1 KB and one of 32k tokens about 130 KB; 4 MiB leaves room for any real answer and keeps 16 in flight < 70 MB
DEFAULT_MAX_RESPONSE_BYTES = 4 * 2**20
_ERROR_BODY_BYTES = 64 * 2**10  # what is read of an error answer (for its message excerpt)


class MalformedResponse(Exception):
    """A 200 answer the client cannot use; retried like a transient error."""


def encode_image(image, max_pixels: int | None, image_format: str = "png") -> tuple[str, bytes]:
    """(MIME type, bytes) of one image as it is sent: the source JPEG itself when no resizing is needed and
    the format allows it, else the decoded (and size-capped) pixels as JPEG or PNG."""
    from eval_kit.runners.images import ImageProblem, UnreadableImage, decode, source_bytes

    if isinstance(image, UnreadableImage):
        raise ImageProblem(image.reason)
    needs_resize = bool(max_pixels) and image.width * image.height > max_pixels
    source_format = getattr(image, "format", None)
    if image_format != "png" and source_format == "JPEG" and not needs_resize and image.mode in ("RGB", "L"):
        data = source_bytes(image)
        if data is not None:
            return "image/jpeg", data
    pixels = limit_pixels(decode(image), max_pixels)
    buffer = io.BytesIO()
    if image_format == "jpeg" or (image_format == "auto" and source_format == "JPEG"):
        pixels.save(buffer, format="JPEG", quality=JPEG_QUALITY)
        return "image/jpeg", buffer.getvalue()
    pixels.save(buffer, format="PNG")
    return "image/png", buffer.getvalue()


def data_url(image, max_pixels: int | None, image_format: str = "png") -> str:
    mime, data = encode_image(image, max_pixels, image_format)
    return f"data:{mime};base64," + base64.b64encode(data).decode("ascii")


def message_content(body: str | bytes) -> Answer:
    """The assistant text of a chat-completions body (with its `usage`), or MalformedResponse saying what is
    wrong with it."""
    try:
        obj = json.loads(body)
    except (ValueError, RecursionError):  # not JSON, not UTF-8, nested past the stack, a 5,000-digit number
        raise MalformedResponse(f"the body is not JSON: {excerpt(_text(body))}") from None
    choices = obj.get("choices") if isinstance(obj, dict) else None
    if not isinstance(choices, list) or not choices or not isinstance(choices[0], dict):
        raise MalformedResponse(f"no choices in the response: {excerpt(_text(body))}")
    choice = choices[0]
    if choice.get("finish_reason") == "content_filter":
        raise MalformedResponse(f"the server filtered the content (finish_reason content_filter): "
                                f"{excerpt(_text(body))}")
    message = choice.get("message")
    content = message.get("content") if isinstance(message, dict) else None
    if not isinstance(content, str):
        raise MalformedResponse(f"no message content in the response: {excerpt(_text(body))}")
    return Answer(content, token_usage(obj.get("usage")))


def token_usage(usage: Any) -> dict[str, int] | None:
    """The token counts of a `usage` object (whole numbers >= 0 only), or None when the server sent none."""
    if not isinstance(usage, dict):
        return None
    counts = {k: usage[k] for k in USAGE_FIELDS
              if isinstance(usage.get(k), int) and not isinstance(usage[k], bool) and usage[k] >= 0}
    return counts or None


def retry_after_seconds(value: str | None, now: float) -> float | None:
    """The wait a `Retry-After` header asks for, in seconds: delay-seconds, or an HTTP-date (RFC 9110) taken
    against `now` (a Unix time); None when absent or unreadable. A date in the past asks for no wait."""
    if not value:
        return None
    text = value.strip()
    try:
        seconds = float(text)
    except ValueError:
        from email.utils import parsedate_to_datetime

        try:
            when = parsedate_to_datetime(text)
        except (TypeError, ValueError, IndexError, OverflowError):
            return None
        if when.tzinfo is None:  # RFC 9110 dates are GMT; a date without a zone is read as such
            from datetime import UTC

            when = when.replace(tzinfo=UTC)
        seconds = when.timestamp() - now
    if not math.isfinite(seconds):
        return None
    return max(0.0, seconds)


def _text(body: str | bytes) -> str:
    return body if isinstance(body, str) else body[:4096].decode("utf-8", errors="replace")


class _HTTPStatus(Exception):
    def __init__(self, status: int, message: str, retry_after: str | None) -> None:
        super().__init__(message)
        self.status, self.message, self.retry_after = status, message, retry_after


class OpenAIBackend(Backend):
    """Chat completions, greedy unless `gen_kwargs` say otherwise; `api_key_env` names the key's variable."""

    name = "openai"

    def __init__(self, model: str, *, base_url: str | None = None, api_key_env: str = "OPENAI_API_KEY",
                 concurrency: int = 8, max_retries: int = 5, timeout: float = 120.0, max_new_tokens: int = 256,
                 max_pixels: int | None = None, gen_kwargs: dict[str, Any] | None = None,
                 retry_backoff: float = 0.5, image_format: str = "auto",
                 max_response_bytes: int = DEFAULT_MAX_RESPONSE_BYTES,
                 retry_after_cap: float = DEFAULT_RETRY_AFTER_CAP,
                 sleep: Callable[[float], Any] | None = None, clock: Callable[[], float] = time.time) -> None:
        from eval_kit.runners.backends import bounded_http

        if image_format not in IMAGE_FORMATS:
            raise BadInput(f"unknown image format {image_format!r}", field="--image-format",
                           fix=f"use one of {', '.join(IMAGE_FORMATS)}")
        if max_response_bytes < 1024:
            raise BadInput(f"--max-response-bytes {max_response_bytes} is below 1024", field="--max-response-bytes",
                           fix="use at least 1024 bytes (default 4 MiB)")
        self._http = bounded_http
        self.model, self.api_key_env = model, api_key_env
        self.base_url = (base_url or os.environ.get("OPENAI_BASE_URL") or "https://api.openai.com/v1").rstrip("/")
        self.concurrency, self.max_retries, self.timeout = max(1, concurrency), max_retries, timeout
        self.max_new_tokens, self.max_pixels, self.retry_backoff = max_new_tokens, max_pixels, retry_backoff
        self.image_format, self.max_response_bytes = image_format, max_response_bytes
        if not retry_after_cap >= 0:
            raise BadInput(f"--retry-after-cap {retry_after_cap} is negative", field="--retry-after-cap",
                           fix=f"use seconds >= 0 (default {DEFAULT_RETRY_AFTER_CAP:g})")
        self.retry_after_cap = float(retry_after_cap)
        self.gen_kwargs = dict(gen_kwargs or {})
        # the key is read from the environment only, kept here and in the client's header, and never written:
        # not in settings (request keys, metadata.json), not in failure reasons (`_redact`)
        key = os.environ.get(api_key_env)
        if not key:
            if base_url is None:
                raise BadInput(f"environment variable {api_key_env} is not set", field="--api-key-env",
                               fix=f"export {api_key_env}=... or point --base-url at a local server")
            key = "EMPTY"  # local servers usually ignore the key; send one as the OpenAI client does
        self._secret = key if key != "EMPTY" else None
        self.client = bounded_http.client(
            timeout=timeout, connections=self.concurrency + 2,
            headers={"Authorization": f"Bearer {key}", "Content-Type": "application/json",
                     "Accept": "application/json", "Accept-Encoding": "gzip, deflate"})
        self._stopping = threading.Event()
        # waits between attempts; injectable (tests honour a 20 s Retry-After without sleeping 20 s)
        self._sleep = sleep if sleep is not None else self._stopping.wait
        self._clock = clock

    def settings(self) -> dict[str, Any]:
        settings: dict[str, Any] = {"temperature": float(self.gen_kwargs.get("temperature", 0.0)),
                                    "max_tokens": self.max_new_tokens, "max_pixels": self.max_pixels,
                                    "image_format": self.image_format}
        settings.update({k: v for k, v in self.gen_kwargs.items() if k not in ("temperature", "max_new_tokens")})
        return settings

    def prepare(self, sample: Request) -> Request:
        """On a prefetch thread: each image as the data URL it travels as (no decoding for a source JPEG that
        needs no resizing), so the request threads only send."""
        sample.prepared = [data_url(image, self.max_pixels, self.image_format) for image in sample.images]
        return sample

    def request_messages(self, sample: Request) -> list[dict[str, Any]]:
        urls = iter(sample.prepared if sample.prepared is not None and len(sample.prepared) == len(sample.images)
                    else [data_url(image, self.max_pixels, self.image_format) for image in sample.images])
        return fill_images(sample.messages, sample.images,
                           lambda _img: {"type": "image_url", "image_url": {"url": next(urls)}})

    def request_options(self) -> dict[str, Any]:
        """Sampling options of every request: greedy by default; top_k goes in the body (vLLM, SGLang read it)."""
        options: dict[str, Any] = {"temperature": float(self.gen_kwargs.get("temperature", 0.0)),
                                   "max_tokens": self.max_new_tokens}
        for name in ("top_p", "seed", "stop", "top_k"):
            if name in self.gen_kwargs:
                options[name] = self.gen_kwargs[name]
        return options

    def retry_delay(self, attempt: int, retry_after: str | None) -> float:
        """Seconds before attempt `attempt + 1`: exponential backoff with jitter, or the server's `Retry-After`
        (seconds or an HTTP-date) when it asks for longer, at most `--retry-after-cap`."""
        delay = min(self.retry_backoff * 2 ** (attempt - 1), MAX_BACKOFF) * random.uniform(0.75, 1.0)
        asked = retry_after_seconds(retry_after, self._clock())
        if asked is not None:
            delay = max(delay, min(asked, self.retry_after_cap))
        return delay

    def _wait(self, attempt: int, retry_after: str | None) -> None:
        self._sleep(self.retry_delay(attempt, retry_after))

    def _attempt(self, payload: bytes) -> str:
        """One request, bounded in time as a whole and in bytes; the assistant text or an exception."""
        http = self._http
        with http.deadline(self.timeout), \
                self.client.stream("POST", f"{self.base_url}/chat/completions", content=payload) as response:
            if not 200 <= response.status_code < 300:
                try:
                    body = http.read_body(response, _ERROR_BODY_BYTES)
                except (http.AnswerTooLarge, http.UnsupportedEncoding, ValueError):
                    body = b"(an error body we could not read)"
                raise _HTTPStatus(response.status_code, _error_message(body), response.headers.get("retry-after"))
            body = http.read_body(response, self.max_response_bytes)
        return message_content(body)

    def _one(self, sample: Request) -> Outcome:
        import httpx

        http = self._http
        payload = json.dumps({"model": self.model, "messages": self.request_messages(sample),
                              **self.request_options()}).encode("ascii")
        problem = "no attempt made"
        attempts = 0
        for attempt in range(1, self.max_retries + 2):
            if self._stopping.is_set():
                return None
            attempts = attempt
            retry_after = None
            try:
                return self._attempt(payload)
            except _HTTPStatus as exc:
                if exc.status in (401, 403):
                    raise BadInput(self._redact(f"the server refused the API key ({exc.status}: {exc.message})"),
                                   field="--api-key-env", fix=f"check {self.api_key_env}") from None
                if exc.status == 404:
                    raise BadInput(self._redact(f"the server at {self.base_url} has no model {self.model!r} "
                                                f"(404: {exc.message})"), field="--model",
                                   fix="pass a model the server serves (GET /v1/models lists them) and check "
                                       "--base-url") from None
                problem = f"HTTP {exc.status}: {excerpt(exc.message)}"
                if exc.status < 500 and exc.status not in RETRIED_STATUS:
                    break  # the request itself is wrong for this server: asking again changes nothing
                retry_after = exc.retry_after
            except (http.AnswerTooLarge, http.UnsupportedEncoding) as exc:
                problem = str(exc)
                break  # the server's answer is unusable as such: asking again only repeats it
            except httpx.TimeoutException:
                problem = f"no complete answer within --timeout {self.timeout:g} s"
            except httpx.TransportError as exc:
                problem = f"connection failed ({_describe_cause(exc)}); is the server at {self.base_url} up?"
            except MalformedResponse as exc:
                problem = f"malformed response: {exc}"
            except Exception as exc:  # zlib errors in a corrupt gzip body and the like
                problem = f"unreadable response ({type(exc).__name__}: {excerpt(str(exc))})"
            if self._stopping.is_set():
                return None  # stopped or aborted: given up unanswered, asked again by the next run
            if attempt <= self.max_retries:
                self._wait(attempt, retry_after)
        return SampleFailure(self._redact(f"{problem} (after {attempts} attempt{'s' if attempts != 1 else ''})"),
                             attempts)

    def _redact(self, text: str) -> str:
        """`text` without the API key (a server may echo it in an error body): no key reaches a run folder."""
        return text.replace(self._secret, "[API key]") if self._secret else text

    def generate(self, samples: Sequence[Request]) -> list[Outcome]:
        return [self._one(s) for s in samples]

    def stop(self) -> None:
        """No more attempts: waits between attempts end; requests in flight still get their answers."""
        self._stopping.set()

    def abort(self) -> None:
        """Give up at once (Ctrl-C): as `stop`, and requests in flight are cut off, not waited for."""
        self._stopping.set()
        self._http.abort(self.client)

    def close(self) -> None:
        self.client.close()


def _error_message(body: bytes) -> str:
    """The `error.message` of an error body when it has one, else the body's text."""
    text = body.decode("utf-8", errors="replace")
    try:
        obj = json.loads(text)
    except (ValueError, RecursionError):
        return text
    inner = obj.get("error", obj) if isinstance(obj, dict) else None
    if isinstance(inner, dict) and isinstance(inner.get("message"), str) and inner["message"]:
        return inner["message"]
    return text


def _describe_cause(exc: BaseException) -> str:
    cause = exc.__cause__ or exc.__context__ or exc
    return " ".join(str(cause).split())[:120] or type(cause).__name__
