"""The backend contract and helpers every backend shares (image size limits, placeholder filling)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from eval_kit.runners.task import Message, Request


class BackendError(RuntimeError):
    """A model call failed for good (after retries). The run stops; finished samples stay in the log."""


class Backend:
    """Generate one response per Request, greedily. `settings()` is hashed into every request key."""

    name: str = ""

    def settings(self) -> dict[str, Any]:
        raise NotImplementedError

    def generate(self, samples: Sequence[Request]) -> list[str]:
        raise NotImplementedError

    def close(self) -> None:
        """Release the model; called once when the run ends."""


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
