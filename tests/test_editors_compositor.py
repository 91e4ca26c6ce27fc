"""Compositing editor: contract (size, untouched pixels), perspective, facing, borders, user cut-outs."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from PIL import Image

from builder.movsafebench.hazardforge.editors import CompositingEditor, Editor, intrusion_edit
from builder.movsafebench.hazardforge.editors.compositor import REAL_HEIGHT_M
from builder.movsafebench.hazardforge.editors.sprites import procedural_sprite
from builder.movsafebench.hazardforge.prompts import parse_prompt
from builder.movsafebench.hazardforge.quality import HeuristicChecker
from eval_kit.movsafebench.spec import CATEGORIES, STATIC_ONLY_CATEGORIES

H, W = 270, 480


def scene(seed: int = 0) -> Image.Image:
    """A road-ish background: vertical gradient + noise (so Poisson blending has texture to match)."""
    rng = np.random.default_rng(seed)
    yy, xx = np.mgrid[0:H, 0:W]
    bg = np.stack([90 + 0.2 * yy, 100 + 0.05 * xx, 110 + 0.15 * yy], -1) + rng.normal(0, 5, (H, W, 3))
    return Image.fromarray(np.clip(bg, 0, 255).astype(np.uint8))


def box_mask(x0: int, y0: int, x1: int, y1: int, h: int = H, w: int = W) -> np.ndarray:
    m = np.zeros((h, w), bool)
    m[y0:y1, x0:x1] = True
    return m


def test_protocol_and_contract() -> None:
    editor = CompositingEditor()
    assert isinstance(editor, Editor)
    img, mask = scene(), box_mask(180, 120, 320, 265)
    out = editor.edit(img, mask, "Render a dog, facing left.", seed=3)
    a, b = np.asarray(img), np.asarray(out)
    assert out.size == img.size and out.mode == "RGB"
    assert (a[~mask] == b[~mask]).all()
    assert (np.abs(a[mask].astype(int) - b[mask]).max(axis=1) > 24).mean() > 0.02
    assert np.array_equal(b, np.asarray(editor.edit(img, mask, "Render a dog, facing left.", seed=3)))
    prov = editor.provenance()
    assert prov["editor"] == "compositor" and prov["sprites"] == "procedural"


@pytest.mark.parametrize("category", CATEGORIES)
def test_every_category_passes_the_heuristic_check(category: str) -> None:
    """Side views read as the prompted heading, frontal views as frontal, all complete: for all 13 categories."""
    editor, checker = CompositingEditor(), HeuristicChecker()
    img, mask = scene(1), box_mask(150, 110, 330, 268)
    directions = ("forward", "backward") if category in STATIC_ONLY_CATEGORIES else (
        "left", "right", "forward", "backward")
    for direction in directions:
        out = editor.edit(img, mask, f"Render a {category}, facing {direction}.", seed=7)
        verdict = checker.check(img, out, mask, direction)
        assert verdict.accepted, (category, direction, verdict)


def test_perspective_size_grows_below_the_horizon_and_far_is_smaller() -> None:
    editor, img = CompositingEditor(), scene()
    heights = []
    for y1 in (150, 200, 265):
        mask = box_mask(0, 0, W, y1)
        _, p = editor.edit_with_placement(img, mask, "Render a human, facing forward.", seed=0,
                                          vanishing_point=(240, 100))
        heights.append(p.box[3] - p.box[1])
        assert p.horizon_y == 100
    assert heights[0] < heights[1] < heights[2]
    # object standing at its box bottom: height ~= 1.7 / 1.5 * (bottom - horizon), within rounding and jitter
    _, p = editor.edit_with_placement(img, box_mask(0, 0, W, 200), "Render a human, facing forward.", seed=0,
                                      vanishing_point=(240, 100))
    expected = REAL_HEIGHT_M["human"] / 1.5 * (p.box[3] - 100)
    assert abs((p.box[3] - p.box[1]) - expected) <= 2
    _, far = editor.edit_with_placement(img, box_mask(0, 0, W, 200), "Render a human, facing forward, "
                                        "make the object smaller.", seed=0, vanishing_point=(240, 100))
    assert far.is_far and (far.box[3] - far.box[1]) < 0.6 * (p.box[3] - p.box[1])
    _, default = editor.edit_with_placement(img, box_mask(0, 0, W, 200), "Render a cone, facing forward.", seed=0)
    assert default.horizon_y == pytest.approx(0.45 * H)


def test_facing_flips_side_views() -> None:
    editor, img, mask = CompositingEditor(), scene(), box_mask(100, 100, 380, 268)
    _, left = editor.edit_with_placement(img, mask, "Render a fox, facing left.", seed=1)
    _, right = editor.edit_with_placement(img, mask, "Render a fox, facing right.", seed=1)
    _, front = editor.edit_with_placement(img, mask, "Render a fox, facing forward.", seed=1)
    assert left.flipped and not right.flipped and left.view == right.view == "side" and front.view == "front"


def test_object_at_the_image_border_via_intrusion_geometry() -> None:
    editor, img = CompositingEditor(), scene()
    out, final_mask, info = intrusion_edit(editor, img, side="right", r=120, half_width=80,
                                           prompt="Render a deer, facing left.", seed=2, outpaint=False,
                                           rows=(60, 268), vanishing_point=(240, 110))
    assert out.size == img.size and final_mask.shape == (H, W)
    assert final_mask[60:268, W - 80:].all() and not final_mask[:, : W - 80].any() and not final_mask[:60].any()
    diff = np.abs(np.asarray(out).astype(int) - np.asarray(img)).max(axis=2) > 24
    assert diff[:, -3:].any(), "the object must be cut by the right border"
    assert not diff[:, : W - 80].any()
    assert info["padded_size"] == [W + 120, H] and info["mask_pad_x"] == [W - 80, W + 80]


def test_user_cutouts(tmp_path: Path) -> None:
    sprite = procedural_sprite("pig", "side", 0)
    sprite[..., :3] = (250, 0, 250)  # unmistakable magenta
    Image.fromarray(sprite, "RGBA").save(tmp_path / "pig_mine.png")
    Image.new("RGB", (10, 10)).save(tmp_path / "cat_noalpha.png")
    editor = CompositingEditor(tmp_path)
    img, mask = scene(), box_mask(100, 100, 380, 268)
    out, p = editor.edit_with_placement(img, mask, "Render a pig, facing right.", seed=0)
    assert p.sprite == "pig_mine.png"
    px = np.asarray(out)[mask]
    assert ((px[:, 0] > 200) & (px[:, 1] < 60) & (px[:, 2] > 200)).sum() > 100
    assert "+sprites-" in editor.provenance()["revision"]
    with pytest.raises(ValueError, match="alpha"):
        editor.edit(img, mask, "Render a cat, facing right.", seed=0)
    _, fallback = editor.edit_with_placement(img, mask, "Render a dog, facing right.", seed=0)
    assert fallback.sprite.startswith("procedural:dog")


@pytest.mark.parametrize("prompt", ["Render a unicorn, facing left.", "Render a dog facing left.",
                                    "Render a dog, facing up.", ""])
def test_bad_prompts(prompt: str) -> None:
    with pytest.raises(ValueError, match="prompt"):
        parse_prompt(prompt)


def test_prompt_forms() -> None:
    assert parse_prompt("Render a human, facing backward.") == ("human", "backward", False)
    assert parse_prompt("Render a deer, facing left, make the object smaller.") == ("deer", "left", True)


def test_bad_masks() -> None:
    editor, img = CompositingEditor(), scene()
    with pytest.raises(ValueError, match="empty"):
        editor.edit(img, np.zeros((H, W), bool), "Render a dog, facing left.", 0)
    with pytest.raises(ValueError, match="does not match"):
        editor.edit(img, np.ones((10, 10), bool), "Render a dog, facing left.", 0)


def test_far_object_in_a_thin_distance_band_does_not_crash() -> None:
    """A far object a few pixels tall (distance band around the vanishing point) once made seamlessClone assert."""
    from builder.movsafebench.hazardforge.editors.compositor import CompositingEditor
    from builder.movsafebench.sources.synthetic import render_scene

    scene = render_scene("road", 3)
    mask = np.zeros((scene.image.height, scene.image.width), dtype=bool)
    mask[365:455, 534:1067] = True
    out = CompositingEditor().edit(scene.image, mask, "Render a fox, facing forward, make the object smaller.", 1,
                                   vanishing_point=scene.vanishing_point)
    changed = np.any(np.asarray(out) != np.asarray(scene.image), axis=2)
    assert changed.any() and not changed[~mask].any()
