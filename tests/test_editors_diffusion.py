"""diffusers editors on tiny random-weight pipelines of the real classes (CPU, offline)."""

from __future__ import annotations

import numpy as np
import pytest
from PIL import Image

pytest.importorskip("torch")
pytest.importorskip("diffusers")

from builder.movsafebench.hazardforge.editors import (
    Editor,
    FluxFillEditor,
    FluxKontextInpaintEditor,
    QwenImageEditInpaintEditor,
    intrusion_edit,
    working_size,
)
from eval_kit.errors import BadInput
from eval_kit.testing import tiny_diffusion as tiny

H, W = 45, 80  # deliberately not multiples of 16
PROMPT = "Render a dog, facing left."


@pytest.fixture(scope="module")
def image_and_mask() -> tuple[Image.Image, np.ndarray]:
    img = Image.fromarray(np.random.default_rng(0).integers(0, 255, (H, W, 3), dtype=np.uint8))
    mask = np.zeros((H, W), bool)
    mask[10:40, 20:60] = True
    return img, mask


@pytest.fixture(scope="module")
def flux_fill() -> FluxFillEditor:
    return FluxFillEditor("tiny/flux-fill", revision="r1", device="cpu", dtype="float32", steps=2,
                          pipeline=tiny.tiny_flux_fill())


def _contract(editor: Editor, img: Image.Image, mask: np.ndarray) -> np.ndarray:
    out = editor.edit(img, mask, PROMPT, seed=1)
    a, b = np.asarray(img), np.asarray(out)
    assert out.size == img.size and out.mode == "RGB"
    assert np.array_equal(a[~mask], b[~mask]), "pixels outside the mask must be pasted back"
    assert (a[mask] != b[mask]).mean() > 0.5, "the masked region must be regenerated"
    return b


def test_flux_fill(flux_fill: FluxFillEditor, image_and_mask) -> None:
    img, mask = image_and_mask
    first = _contract(flux_fill, img, mask)
    assert np.array_equal(first, np.asarray(flux_fill.edit(img, mask, PROMPT, seed=1))), "same seed, same image"
    assert not np.array_equal(first, np.asarray(flux_fill.edit(img, mask, PROMPT, seed=2)))
    prov = flux_fill.provenance()
    assert prov["pipeline"] == "FluxFillPipeline" and prov["model_id"] == "tiny/flux-fill"
    assert prov["revision"] == "r1" and prov["steps"] == 2 and prov["guidance"] == 30.0


def test_flux_fill_intrusion_path(flux_fill: FluxFillEditor, image_and_mask) -> None:
    img, _ = image_and_mask
    out, final_mask, info = intrusion_edit(flux_fill, img, side="left", r=16, half_width=8, prompt=PROMPT, seed=0)
    a, b = np.asarray(img), np.asarray(out)
    assert out.size == img.size and final_mask[:, :8].all() and not final_mask[:, 8:].any()
    assert np.array_equal(a[:, 8:], b[:, 8:]) and not np.array_equal(a[:, :8], b[:, :8])
    assert info["padded_size"] == [W + 16, H]


def test_flux_kontext_inpaint(image_and_mask) -> None:
    img, mask = image_and_mask
    editor = FluxKontextInpaintEditor("tiny/kontext", device="cpu", dtype="float32", steps=2,
                                      pipeline=tiny.tiny_flux_kontext_inpaint())
    _contract(editor, img, mask)
    assert editor.provenance()["pipeline"] == "FluxKontextInpaintPipeline"


def test_qwen_image_edit_inpaint_small_target_area(image_and_mask) -> None:
    from diffusers.pipelines.qwenimage import pipeline_qwenimage_edit_inpaint as module

    img, mask = image_and_mask
    pipe = tiny.tiny_qwen_image_edit_inpaint()
    seen: list[int] = []
    forward = pipe.transformer.forward

    def spy(*args, **kwargs):
        seen.append(kwargs["hidden_states"].shape[1])
        return forward(*args, **kwargs)

    pipe.transformer.forward = spy
    original = module.calculate_dimensions
    editor = QwenImageEditInpaintEditor("tiny/qwen-edit", device="cpu", dtype="float32", steps=2,
                                        max_area=64 * 112, pipeline=pipe)
    _contract(editor, img, mask)
    assert module.calculate_dimensions is original, "the target-area patch must be undone"
    # 2 steps x (cond + uncond) passes; ~128x64 px -> 8x16 latent tokens (+ as many image-condition tokens),
    # versus ~16k tokens at the pipeline's hard-coded 1 MP
    assert len(seen) == 4 and max(seen) <= 2 * 16 * 8
    prov = editor.provenance()
    assert prov["negative_prompt"] == " " and prov["max_area"] == 64 * 112


def test_working_size_and_unknown_model() -> None:
    assert working_size(1600, 900) == (1600, 896)
    w, h = working_size(1600, 900, max_area=1024 * 1024)
    assert w % 16 == 0 and h % 16 == 0 and w * h <= 1024 * 1024 * 1.05 and abs(w / h - 16 / 9) < 0.05
    editor = FluxFillEditor("/nonexistent/flux-fill", device="cpu", dtype="float32")
    img = Image.new("RGB", (32, 32))
    with pytest.raises(BadInput, match="cannot load FluxFillPipeline"):
        editor.edit(img, np.ones((32, 32), bool), PROMPT, 0)


def test_flux_fill_loads_from_a_pipeline_folder(flux_fill: FluxFillEditor, image_and_mask, tmp_path) -> None:
    """The real loading path (from_pretrained with revision/dtype/device) gives the in-memory pipeline's pixels."""
    img, mask = image_and_mask
    flux_fill._load().save_pretrained(tmp_path)
    loaded = FluxFillEditor(str(tmp_path), device="cpu", dtype="float32", steps=2)
    assert np.array_equal(np.asarray(loaded.edit(img, mask, PROMPT, seed=4)),
                          np.asarray(flux_fill.edit(img, mask, PROMPT, seed=4)))
