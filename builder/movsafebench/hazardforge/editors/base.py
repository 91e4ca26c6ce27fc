"""The editor protocol and the pixel bookkeeping every backend shares.

An editor turns (image, mask, prompt, seed) into an image of the same size: the paper's
I_out ~ M(I_in, m, t) (section 3.1). Whatever the backend does inside (resizing to multiples of 16, snapping
to preferred resolutions), the contract outside is the same: output size == input size and every pixel
outside the mask equals the input, so the ground-truth regions the layout relied on are untouched.
"""

from __future__ import annotations

from typing import Any, Protocol, runtime_checkable

import numpy as np
from PIL import Image


@runtime_checkable
class Editor(Protocol):
    """`edit(image RGB, mask bool HxW, prompt, seed) -> image RGB` plus a provenance dict for the job record."""

    def edit(self, image: Image.Image, mask: np.ndarray, prompt: str, seed: int) -> Image.Image: ...

    def provenance(self) -> dict[str, Any]: ...


def check_inputs(image: Image.Image, mask: np.ndarray) -> np.ndarray:
    """Validate an edit call and return the mask as bool HxW; ValueError says what is wrong."""
    if not isinstance(image, Image.Image):
        raise ValueError(f"image must be a PIL image, got {type(image).__name__}")
    if image.mode != "RGB":
        raise ValueError(f"image must be RGB, got mode {image.mode}")
    mask = np.asarray(mask)
    if mask.ndim != 2 or mask.shape != (image.height, image.width):
        raise ValueError(f"mask shape {mask.shape} does not match image size (H, W) = {(image.height, image.width)}")
    mask = mask.astype(bool)
    if not mask.any():
        raise ValueError("mask is empty: nothing to edit")
    return mask


def paste_back(original: Image.Image, edited: Image.Image, mask: np.ndarray) -> Image.Image:
    """Keep edited pixels under the mask and original pixels elsewhere (edited is resized to match first)."""
    if edited.size != original.size:
        edited = edited.resize(original.size, Image.Resampling.LANCZOS)
    out = np.where(mask[..., None], np.asarray(edited.convert("RGB")), np.asarray(original))
    return Image.fromarray(out.astype(np.uint8), "RGB")


def round_to_multiple(value: float, multiple: int = 16, minimum: int = 16) -> int:
    """Nearest multiple (diffusion VAEs + 2x2 packing need sides divisible by 16)."""
    return max(minimum, round(value / multiple) * multiple)


def working_size(width: int, height: int, *, max_area: int | None = None, multiple: int = 16) -> tuple[int, int]:
    """(w, h) divisible by `multiple`, keeping aspect, scaled down to at most `max_area` pixels when given."""
    scale = 1.0
    if max_area is not None and width * height > max_area:
        scale = (max_area / (width * height)) ** 0.5
    return round_to_multiple(width * scale, multiple), round_to_multiple(height * scale, multiple)


def mask_image(mask: np.ndarray) -> Image.Image:
    """Mask as an L image (255 = edit), the form diffusers pipelines take."""
    return Image.fromarray(mask.astype(np.uint8) * 255, "L")


def mask_bbox(mask: np.ndarray) -> tuple[int, int, int, int]:
    """(x0, y0, x1, y1) of the mask's True pixels, end-exclusive."""
    rows, cols = np.flatnonzero(mask.any(axis=1)), np.flatnonzero(mask.any(axis=0))  # cheaper than nonzero
    return int(cols[0]), int(rows[0]), int(cols[-1]) + 1, int(rows[-1]) + 1


def object_box(before: Image.Image, after: Image.Image, mask: np.ndarray,
               diff_threshold: int = 24) -> list[int] | None:
    """Box [x0, y0, x1, y1) in image pixels of what an edit inserted: the largest blob of pixels that changed by
    more than `diff_threshold` (any channel) inside the mask, after a 5 x 5 closing that joins legs and wheels
    to their body. Works for every editor (a diffusion edit's change is read the same way as a pasted sprite);
    None when nothing changed."""
    import cv2

    mask = np.asarray(mask, dtype=bool)
    rows, cols = np.flatnonzero(mask.any(axis=1)), np.flatnonzero(mask.any(axis=0))
    if len(rows) == 0:
        return None
    x0, y0, x1, y1 = int(cols[0]), int(rows[0]), int(cols[-1]) + 1, int(rows[-1]) + 1
    a = np.asarray(before.crop((x0, y0, x1, y1)).convert("RGB"), dtype=np.int16)
    b = np.asarray(after.crop((x0, y0, x1, y1)).convert("RGB"), dtype=np.int16)
    changed = (np.abs(a - b).max(axis=2) > diff_threshold) & mask[y0:y1, x0:x1]
    changed = cv2.morphologyEx(changed.astype(np.uint8), cv2.MORPH_CLOSE, np.ones((5, 5), np.uint8))
    count, _labels, stats, _ = cv2.connectedComponentsWithStats(changed, connectivity=8)
    if count <= 1:
        return None
    k = 1 + int(np.argmax(stats[1:, cv2.CC_STAT_AREA]))
    bx, by, bw, bh = (int(v) for v in stats[k, :4])
    return [x0 + bx, y0 + by, x0 + bx + bw, y0 + by + bh]
