"""Intrusion geometry (paper 3.2.3, fig. 3): outpaint r pixels on one side, inpaint an object straddling the
original border, crop the r pixels off again, so the object looks like it enters from outside the view.

Coordinates: the padded canvas is H x (W + r). Padding on the left shifts the original image right by r, so
the original left border sits at x = r and the paper's mask is [r - l, r + l) x [0, H). Padding on the right
keeps the original at [0, W) and its right border at x = W; we use [W - l, W + l) x [0, H). (The paper prints
[W - r - l, W - r + l) for the right side, which lies r pixels inside the image and would not straddle the
border; we read it as a typo for the border-straddling mask, the one figure 3 shows.)
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np
from PIL import Image

from builder.movsafebench.hazardforge.editors.base import Editor

Side = Literal["left", "right"]
DEFAULT_OUTPAINT_PROMPT = "Extend the scene naturally."


@dataclass(frozen=True)
class IntrusionGeometry:
    """Where the original image sits in the padded canvas and where the object mask is."""

    width: int
    height: int
    r: int
    side: Side

    @property
    def offset_x(self) -> int:
        return self.r if self.side == "left" else 0

    @property
    def padded_size(self) -> tuple[int, int]:
        return self.width + self.r, self.height

    def border_x(self) -> int:
        """x of the original image border (in padded coordinates) that the object straddles."""
        return self.r if self.side == "left" else self.width

    def outpaint_mask(self) -> np.ndarray:
        """True on the r padded columns: what the outpaint step fills in."""
        m = np.zeros((self.height, self.width + self.r), dtype=bool)
        if self.side == "left":
            m[:, : self.r] = True
        else:
            m[:, self.width:] = True
        return m

    def object_mask(self, half_width: int, rows: tuple[int, int] | None = None) -> np.ndarray:
        """m_pad = [border - l, border + l) x rows (all rows by default, as in the paper)."""
        if half_width <= 0:
            raise ValueError("half_width l must be positive")
        m = np.zeros((self.height, self.width + self.r), dtype=bool)
        b = self.border_x()
        y0, y1 = rows if rows is not None else (0, self.height)
        m[y0:y1, max(0, b - half_width): min(self.width + self.r, b + half_width)] = True
        return m

    def crop(self, padded: Image.Image) -> Image.Image:
        """Cut the original H x W window back out of the padded canvas."""
        return padded.crop((self.offset_x, 0, self.offset_x + self.width, self.height))

    def crop_mask(self, padded_mask: np.ndarray) -> np.ndarray:
        """The part of a padded-coordinates mask that is inside the final image (for the quality check)."""
        return padded_mask[:, self.offset_x: self.offset_x + self.width]


def pad_canvas(image: Image.Image, r: int, side: Side) -> Image.Image:
    """The H x (W + r) canvas with the image placed and the new strip pre-filled by edge reflection.

    The reflection is only the starting pixels of the outpaint step (diffusion inpainting starts from the
    image under the mask); an editor that skips outpainting still gets a plausible strip.
    """
    import cv2

    if r <= 0:
        raise ValueError("r must be positive")
    arr = np.asarray(image.convert("RGB"))
    left, right = (r, 0) if side == "left" else (0, r)
    padded = cv2.copyMakeBorder(arr, 0, 0, left, right, cv2.BORDER_REFLECT_101 if r < arr.shape[1] else
                                cv2.BORDER_REPLICATE)
    return Image.fromarray(padded, "RGB")


@dataclass(frozen=True)
class IntrusionResult:
    """The cropped H x W image, the object mask in final coordinates, and the padded pair the paper's quality
    check looks at (I'_in after outpainting, I_pad after inpainting, m_pad), plus JSON-ready `info`."""

    image: Image.Image
    mask: np.ndarray
    padded_input: Image.Image
    padded_output: Image.Image
    padded_mask: np.ndarray
    info: dict[str, Any]

    def __iter__(self) -> Iterator[Any]:  # `image, mask, info = intrusion_edit(...)` reads naturally
        return iter((self.image, self.mask, self.info))


def intrusion_edit(editor: Editor, image: Image.Image, *, side: Side, r: int, half_width: int, prompt: str,
                   seed: int, outpaint: bool = True, outpaint_prompt: str = DEFAULT_OUTPAINT_PROMPT,
                   rows: tuple[int, int] | None = None, **edit_kwargs: Any) -> IntrusionResult:
    """Outpaint -> inpaint -> crop (see IntrusionResult).

    `info` records the geometry and the mask's columns for provenance. `edit_kwargs` go to the inpaint step
    (e.g. `vanishing_point=` for the compositing editor, given in original-image coordinates and shifted here).
    """
    geo = IntrusionGeometry(image.width, image.height, r, side)
    canvas = pad_canvas(image, r, side)
    if outpaint:
        canvas = editor.edit(canvas, geo.outpaint_mask(), outpaint_prompt, seed)
    m_pad = geo.object_mask(half_width, rows)
    if "vanishing_point" in edit_kwargs and edit_kwargs["vanishing_point"] is not None:
        vx, vy = edit_kwargs["vanishing_point"]
        edit_kwargs["vanishing_point"] = (vx + geo.offset_x, vy)
    edited = editor.edit(canvas, m_pad, prompt, seed, **edit_kwargs)
    out = geo.crop(edited)
    final_mask = geo.crop_mask(m_pad)
    info = {"side": side, "r": r, "l": half_width, "padded_size": list(geo.padded_size), "outpaint": outpaint,
            "outpaint_prompt": outpaint_prompt if outpaint else None,
            "mask_pad_x": [max(0, geo.border_x() - half_width), min(geo.padded_size[0], geo.border_x() + half_width)]}
    return IntrusionResult(out, final_mask, canvas, edited, m_pad, info)
