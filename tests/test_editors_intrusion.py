"""Intrusion geometry (paper 3.2.3): pad r on a side, outpaint, inpaint across the border, crop back."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from PIL import Image

from builder.movsafebench.hazardforge.editors import IntrusionGeometry, intrusion_edit, pad_canvas


class RecordingEditor:
    """Paints the mask a flat colour per call and records what it was asked (a stand-in model)."""

    def __init__(self) -> None:
        self.calls: list[dict[str, Any]] = []

    def edit(self, image: Image.Image, mask: np.ndarray, prompt: str, seed: int, **kwargs: Any) -> Image.Image:
        self.calls.append({"size": image.size, "mask": mask.copy(), "prompt": prompt, "seed": seed, **kwargs})
        arr = np.asarray(image).copy()
        arr[mask] = (0, 255, 0) if "Extend" in prompt else (255, 0, 0)
        return Image.fromarray(arr)

    def provenance(self) -> dict[str, Any]:
        return {"editor": "recording"}


@pytest.mark.parametrize("side", ["left", "right"])
def test_outpaint_inpaint_crop(side: str) -> None:
    H, W, r, half = 40, 90, 30, 12
    img = Image.fromarray(np.full((H, W, 3), 100, np.uint8))
    editor = RecordingEditor()
    out, final_mask, info = intrusion_edit(editor, img, side=side, r=r, half_width=half, prompt="Render a cat, "
                                           "facing left.", seed=5, vanishing_point=(45, 15))
    outpaint, inpaint = editor.calls
    assert outpaint["size"] == inpaint["size"] == (W + r, H)
    strip = outpaint["mask"]
    assert strip.sum() == r * H
    assert (strip[:, :r].all() if side == "left" else strip[:, W:].all())
    border = r if side == "left" else W
    cols = np.nonzero(inpaint["mask"].any(axis=0))[0]
    assert (cols.min(), cols.max() + 1) == (border - half, border + half) and inpaint["mask"].all(axis=0)[cols].all()
    # the vanishing point moves with the image inside the padded canvas
    assert inpaint["vanishing_point"] == ((45 + r, 15) if side == "left" else (45, 15))
    arr = np.asarray(out)
    assert out.size == (W, H)
    red = (arr == (255, 0, 0)).all(axis=2)
    assert red.sum() == half * H  # only the half of the object inside the view survives the crop
    assert np.array_equal(red, final_mask)
    assert (red[:, :half].all() if side == "left" else red[:, W - half:].all())
    assert not (arr == (0, 255, 0)).all(axis=2).any()  # outpainted strip is cropped away
    assert info["side"] == side and info["padded_size"] == [W + r, H]


def test_without_outpaint_and_geometry_helpers() -> None:
    img = Image.fromarray(np.arange(5 * 8 * 3, dtype=np.uint8).reshape(5, 8, 3))
    editor = RecordingEditor()
    intrusion_edit(editor, img, side="left", r=4, half_width=2, prompt="Render a cat, facing right.", seed=0,
                   outpaint=False)
    assert len(editor.calls) == 1
    canvas = pad_canvas(img, 4, "left")
    assert canvas.size == (12, 5) and np.array_equal(np.asarray(canvas)[:, 4:], np.asarray(img))
    geo = IntrusionGeometry(8, 5, 4, "left")
    assert np.array_equal(np.asarray(geo.crop(canvas)), np.asarray(img))
    with pytest.raises(ValueError):
        geo.object_mask(0)
    with pytest.raises(ValueError):
        pad_canvas(img, 0, "right")
