"""The quality-check protocol (paper 3.2.5), its verdict, and the answer parsing every checker shares.

Two questions about the region under the mask: completeness (not generated / complete / incomplete), asked on
the crops of input and output, and direction (left / right / forward / backward), asked on the output crop.
A job is accepted only when the object is "complete" AND faces the intended direction.
"""

from __future__ import annotations

import re
from dataclasses import asdict, dataclass, field
from typing import Any, Protocol, runtime_checkable

import numpy as np
from PIL import Image

COMPLETENESS = ("not generated", "complete", "incomplete")
DIRECTIONS = ("left", "right", "forward", "backward")
COMPLETENESS_PROMPT = ("The first image is a region of the original image and the second image is the same region "
                       "after editing. Analyze the object's completeness in the edited image. "
                       "Choose from: not generated, complete, incomplete. Answer with the option only.")
DIRECTION_PROMPT = ("Analyze the object's direction. Choose from: left, right, forward, backward. "
                    "Answer with the option only.")


@dataclass(frozen=True)
class Verdict:
    """One check's result. `completeness`/`direction` are parsed answers (None when unparseable); `raw` keeps
    the checker's own answers (VLM text, heuristic measurements) for the job's provenance record."""

    accepted: bool
    completeness: str | None
    direction: str | None
    raw: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@runtime_checkable
class Checker(Protocol):
    def check(self, input_image: Image.Image, output_image: Image.Image, mask: np.ndarray,
              intended_direction: str) -> Verdict: ...

    def provenance(self) -> dict[str, Any]: ...


def decide(completeness: str | None, direction: str | None, intended: str) -> bool:
    """The paper's acceptance rule."""
    return completeness == "complete" and direction == intended


def check_intended(direction: str) -> str:
    if direction not in DIRECTIONS:
        raise ValueError(f"intended direction must be one of {DIRECTIONS}, got {direction!r}")
    return direction


_COMPLETENESS_RE = re.compile(r"\b(not\s+generated|incomplete|complete)\b", re.IGNORECASE)
_DIRECTION_RE = re.compile(r"\b(left|right|forward|backward)s?\b", re.IGNORECASE)
_THINK = re.compile(r"<think>.*?</think>", re.IGNORECASE | re.DOTALL)


def parse_completeness(text: str) -> str | None:
    """First option named in the answer ("incomplete" is not read as "complete"); None if none is."""
    match = _COMPLETENESS_RE.search(_THINK.sub(" ", text))
    return " ".join(match.group(1).lower().split()) if match else None


def parse_direction(text: str) -> str | None:
    match = _DIRECTION_RE.search(_THINK.sub(" ", text))
    return match.group(1).lower() if match else None


def crop_box(mask: np.ndarray, margin: float = 0.0) -> tuple[int, int, int, int]:
    """(x0, y0, x1, y1) of the mask's box grown by `margin` x its size on each side, clipped to the image."""
    rows, cols = np.flatnonzero(mask.any(axis=1)), np.flatnonzero(mask.any(axis=0))
    if len(rows) == 0:
        raise ValueError("mask is empty")
    x0, x1, y0, y1 = int(cols[0]), int(cols[-1]) + 1, int(rows[0]), int(rows[-1]) + 1
    dx, dy = int((x1 - x0) * margin), int((y1 - y0) * margin)
    h, w = mask.shape
    return max(0, x0 - dx), max(0, y0 - dy), min(w, x1 + dx), min(h, y1 + dy)


def crop_pair(input_image: Image.Image, output_image: Image.Image, mask: np.ndarray,
              margin: float = 0.0) -> tuple[Image.Image, Image.Image]:
    """The paper's I'_in and I'_out: both images cropped to the mask's box."""
    if input_image.size != output_image.size or mask.shape != (input_image.height, input_image.width):
        raise ValueError(f"sizes differ: input {input_image.size}, output {output_image.size}, mask {mask.shape}")
    box = crop_box(mask, margin)
    return input_image.crop(box), output_image.crop(box)
