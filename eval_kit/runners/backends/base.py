"""The backend contract and helpers every backend shares (outcomes, image size limits, placeholder filling)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from eval_kit.runners.task import Message, Request


class BackendError(RuntimeError):
    """A model call failed in a way no retry can fix for the whole run (not one sample's problem)."""


@dataclass(frozen=True)
class SampleFailure:
    """One sample that got no answer: why (one line, with an excerpt of what came back) and after how many tries.

    Backends return it in place of the sample's text; the runner logs it and goes on with the others.
    A rerun with the same options asks the sample again.
    """

    reason: str
    attempts: int = 1


class Answer(str):
    """A model's text with what the server billed for it: `usage` is the chat-completions `usage` object
    ({prompt_tokens, completion_tokens, total_tokens}) or None. It is a `str`, so every consumer of answers
    works unchanged; the runner logs `usage` per sample and metadata.json sums it."""

    usage: dict[str, int] | None

    def __new__(cls, text: str, usage: dict[str, int] | None = None) -> Answer:
        made = super().__new__(cls, text)
        made.usage = usage
        return made


# What a backend answers for one request: the raw text (a `str`, or an `Answer` carrying token usage), a
# failure, or None when the run is stopping and the request was given up unanswered (neither logged nor
# counted; the next run asks it again).
Outcome = str | SampleFailure | None


class Backend:
    """Generate one outcome per Request. `settings()` is hashed into every request key.

    `concurrency`: None for batch backends (the runner hands `generate` a batch at a time, in order); a
    number for request-at-a-time backends (a server): the runner keeps that many single-request
    `generate` calls in flight on threads, so `generate` must be thread-safe.
    """

    name: str = ""
    concurrency: int | None = None

    def settings(self) -> dict[str, Any]:
        raise NotImplementedError

    def load(self) -> None:
        """Load the model (once). The runner calls it after checking the run folder, so a run that would be
        refused (another run's folder) fails before minutes of loading; `generate` must load it when needed."""

    def notices(self) -> list[str]:
        """Lines the user must see at run start, once the model is loaded (e.g. a placeholder image is sent)."""
        return []

    def run_facts(self) -> dict[str, Any]:
        """metadata.json fields about how this backend ran the run (e.g. `placeholder_image`); {}: none."""
        return {}

    def prepare(self, sample: Request) -> Request:
        """Make one sample ready to send; the harness calls it on a pool of threads, ahead of need, so
        `generate` never waits on image decoding. Default: decode its (lazily opened) images to RGB. An
        image that cannot be used raises `eval_kit.runners.images.ImageProblem` (that sample fails)."""
        from eval_kit.runners.images import decoded_images

        sample.images = decoded_images(sample.images)
        return sample

    def generate(self, samples: Sequence[Request]) -> list[Outcome]:
        raise NotImplementedError

    def stop(self) -> None:
        """The run is stopping: give up waits and retries of requests in flight (return None for them)."""

    def abort(self) -> None:
        """The run is interrupted (Ctrl-C, an error): as `stop`, and end requests in flight at once rather than
        wait for their answers (a server backend cuts its connections). Default: `stop`."""
        self.stop()

    def close(self) -> None:
        """Release the model; called once when the run ends."""


def excerpt(text: Any, limit: int = 120) -> str:
    """A short one-line repr of what a server sent back, for failure reasons."""
    text = text if isinstance(text, str) else repr(text)
    flat = " ".join(text.split())
    return repr(flat if len(flat) <= limit else flat[: limit - 3] + "...")


def limit_pixels(image, max_pixels: int | None):
    """Downscale (keeping aspect) so width x height <= max_pixels: a cap on vision tokens and memory."""
    if not max_pixels or image.width * image.height <= max_pixels:
        return image
    scale = (max_pixels / (image.width * image.height)) ** 0.5
    size = (max(1, int(image.width * scale)), max(1, int(image.height * scale)))
    return image.resize(size)


def fill_images(messages: Sequence[Message], images: Sequence[Any], make_part) -> list[Message]:
    """Copy `messages`, replacing each {"type": "image"} placeholder by `make_part(next image)`."""
    pending = iter(images)
    filled: list[Message] = []
    for message in messages:
        content = message["content"]
        if isinstance(content, str):
            filled.append(dict(message))
            continue
        parts = []
        for part in content:
            if part.get("type") == "image":
                try:
                    parts.append(make_part(next(pending)))
                except StopIteration:
                    raise ValueError("more image placeholders than images in a sample") from None
            else:
                parts.append(dict(part))
        filled.append({**message, "content": parts})
    return filled
