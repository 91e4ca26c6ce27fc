"""Scenario layouts against hand-computed masks on a 1600 x 900 image (every scenario, every ground truth),
and against an independent pixel-by-pixel evaluation of the paper's set definitions in paper coordinates."""

from dataclasses import replace
from fractions import Fraction

import numpy as np
import pytest

from builder.movsafebench.hazardforge.config import ForgeConfig
from builder.movsafebench.hazardforge.layout import (
    IneligibleLayout,
    Layout,
    build_layout,
    composite_mask,
    distance_band_rows,
    intrusion_sides,
    job_variants,
)
from eval_kit.errors import BadInput

W, H = 1600, 900
VP = (812.3, 431.6)  # image coordinates
L_, C_, R_ = (0, 534), (534, 1067), (1067, 1600)
NEAR_ROWS = (405, 900)  # near_top_frac 0.45 * 900
LEFT_CROP, RIGHT_CROP = (200, 0, 1800, 900), (0, 0, 1600, 900)
BAND = (387, 477)  # |y - 431.6| <= 0.05 * 900 = 45  ->  rows 386.6..476.6  ->  387..476


def near(cols):
    return ("near", (cols[0], NEAR_ROWS[0], cols[1], NEAR_ROWS[1]), "forward", W, None)


def far(cols):
    return ("far", (cols[0], BAND[0], cols[1], BAND[1]), "forward", W, None)


# (scenario, ground truth, side) -> [(role, box, direction, canvas width, crop box)] in application order
EXPECTED = {
    ("static", "left", None): [near(C_), near(R_)],
    ("static", "straight", None): [near(L_), near(R_)],
    ("static", "right", None): [near(L_), near(C_)],
    ("motion", "left", None): [("motion", (534, 0, 1067, 900), "right", W, None)],
    ("motion", "right", None): [("motion", (534, 0, 1067, 900), "left", W, None)],
    # r = 200, l = 100. Left pad: band [r-l, r+l) = [100, 300), crop [200, 1800). Right pad: W' = 1800,
    # band [W'-r-l, W'-r+l) = [1500, 1700), crop [0, 1600).
    ("intrusion", "left", "right"): [near(C_), ("intrusion", (1500, 0, 1700, 900), "left", 1800, RIGHT_CROP)],
    ("intrusion", "right", "left"): [near(C_), ("intrusion", (100, 0, 300, 900), "right", 1800, LEFT_CROP)],
    ("intrusion", "straight", "left"): [near(R_), ("intrusion", (100, 0, 300, 900), "right", 1800, LEFT_CROP)],
    ("intrusion", "straight", "right"): [near(L_), ("intrusion", (1500, 0, 1700, 900), "left", 1800, RIGHT_CROP)],
    ("distance", "left", None): [near(C_), near(R_), far(L_)],
    ("distance", "straight", None): [near(L_), near(R_), far(C_)],
    ("distance", "right", None): [near(L_), near(C_), far(R_)],
}


@pytest.mark.parametrize("key", sorted(EXPECTED, key=str))
def test_layout_matches_hand_computed_masks(key):
    scenario, gt, side = key
    layout = build_layout(scenario, gt, "dog", W, H, vanishing_point=VP, side=side)
    got = [(e.role, e.box, e.direction, e.canvas_width, e.crop_box) for e in layout.edits]
    assert got == EXPECTED[key]
    for edit in layout.edits:
        mask = edit.mask()
        x0, y0, x1, y1 = edit.box
        assert mask.shape == (H, edit.canvas_width)
        assert mask.sum() == (x1 - x0) * (y1 - y0)
        far_prompt = edit.role == "far"
        suffix = ", make the object smaller" if far_prompt else ""
        assert edit.prompt == f"Render a dog, facing {edit.direction}{suffix}."
        if edit.crop_box is not None:  # cropping the padded canvas gives back H x W
            cx0, cy0, cx1, cy1 = edit.crop_box
            assert (cy1 - cy0, cx1 - cx0) == (H, W)


def test_every_scenario_and_ground_truth_is_covered():
    covered = {(s, g) for s, g, _ in EXPECTED}
    for scenario in ("static", "intrusion", "distance"):
        for gt in ("left", "straight", "right"):
            assert (scenario, gt) in covered
    assert ("motion", "straight") not in covered
    with pytest.raises(BadInput):
        build_layout("motion", "straight", "dog", W, H)


def _paper_region(k: int):
    """Columns x of Omega_k by the paper's inequalities, evaluated exactly."""
    xs = np.arange(W)
    lo, hi = Fraction(k * W, 3), Fraction((k + 1) * W, 3)
    return np.array([lo <= x < hi for x in xs])


def test_distance_mask_equals_paper_set_definition_pixel_by_pixel():
    # m_dist = {(x, y) in Omega_k* | |y - y'| <= d H}, evaluated in the paper's bottom-left frame
    d = 0.05
    for gt, k in (("left", 0), ("straight", 1), ("right", 2)):
        layout = build_layout("distance", gt, "cone", W, H, vanishing_point=VP)
        rows = np.arange(H)
        y_paper = (H - 1) - rows
        vp_paper = (H - 1) - VP[1]
        in_band = np.abs(y_paper - vp_paper) <= d * H + 1e-9
        expected = in_band[:, None] & _paper_region(k)[None, :]
        assert (layout.edits[-1].mask() == expected).all()


def test_motion_mask_is_whole_centre_region():
    layout = build_layout("motion", "left", "deer", W, H)
    expected = np.broadcast_to(_paper_region(1)[None, :], (H, W))
    assert (layout.edits[0].mask() == expected).all()


def test_intrusion_band_straddles_the_original_border_and_crops_back():
    for gt, side in (("left", "right"), ("right", "left"), ("straight", "left"), ("straight", "right")):
        layout = build_layout("intrusion", gt, "pig", W, H, side=side)
        edit = layout.edits[-1]
        r, half = layout.params["r"], layout.params["l"]
        mask = edit.mask()
        assert mask.shape == (H, W + r)  # H x (W + r) canvas
        border = r if side == "left" else W  # original image border in padded coordinates
        cols = np.flatnonzero(mask[0])
        assert cols[0] == border - half and cols[-1] == border + half - 1  # [border - l, border + l)
        assert mask.all(axis=1).sum() == 0 and mask.any(axis=0).sum() == 2 * half
        cx0, _, cx1, _ = edit.crop_box
        cropped = mask[:, cx0:cx1]
        assert cropped.shape == (H, W)
        assert cropped.sum() == half * H  # half the band survives the crop
        assert side != {"left": "left", "right": "right"}.get(gt)  # never the ground-truth side


def test_intrusion_sides_never_ground_truth():
    assert intrusion_sides("left") == ("right",)
    assert intrusion_sides("right") == ("left",)
    assert intrusion_sides("straight") == ("left", "right")
    assert job_variants("static", "straight") == (None,)
    with pytest.raises(BadInput, match="never the ground-truth side"):
        build_layout("intrusion", "left", "dog", W, H, side="left")


def test_intrusion_without_opposite_object_when_configured():
    config = ForgeConfig(intrusion_opposite_near_when_straight=False)
    layout = build_layout("intrusion", "straight", "dog", W, H, side="left", config=config)
    assert [e.role for e in layout.edits] == ["intrusion"]


def test_config_changes_reach_the_masks():
    config = replace(ForgeConfig(), intrusion_r_frac=0.1, intrusion_l_frac=0.05, distance_d=0.1, near_top_frac=0.5)
    layout = build_layout("intrusion", "right", "dog", W, H, side="left", config=config)
    assert layout.params == {"r": 160, "l": 80}
    assert layout.edits[-1].box == (80, 0, 240, 900)
    assert layout.edits[0].box == (534, 450, 1067, 900)
    dist = build_layout("distance", "left", "dog", W, H, vanishing_point=(800, 450.0), config=config)
    assert dist.edits[-1].box == (0, 360, 534, 541)  # |y - 450| <= 90


def test_distance_band_clipping_and_ineligible_vanishing_point():
    assert distance_band_rows(10.0, 900, 0.05) == (0, 56)
    assert distance_band_rows(899.0, 900, 0.05) == (854, 900)
    assert distance_band_rows(450.0, 900, 0.05) == (405, 496)  # both ends included: 405..495
    with pytest.raises(IneligibleLayout):
        build_layout("distance", "left", "dog", W, H, vanishing_point=(800, -100.0))
    with pytest.raises(BadInput, match="needs a vanishing point"):
        build_layout("distance", "left", "dog", W, H)


def test_layout_round_trips_through_json_dict():
    import json

    for (scenario, gt, side) in EXPECTED:
        layout = build_layout(scenario, gt, "bicycle", W, H, vanishing_point=VP, side=side)
        again = Layout.from_dict(json.loads(json.dumps(layout.to_dict())), image_size=(W, H))
        assert again == layout
        assert all((a.mask() == b.mask()).all() for a, b in zip(again.edits, layout.edits, strict=True))
    with pytest.raises(BadInput, match="1600x900"):
        Layout.from_dict(layout.to_dict(), image_size=(800, 450))


def test_composite_mask_is_in_source_coordinates():
    layout = build_layout("intrusion", "right", "dog", W, H, side="left")
    union = composite_mask(layout)
    assert union.shape == (H, W)
    assert union[:, :100].all() and not union[:, 100:534].any()  # cropped band: source columns [0, l)


def test_bad_inputs():
    with pytest.raises(BadInput, match="unknown category"):
        build_layout("static", "left", "unicorn", W, H)
    with pytest.raises(BadInput, match="table 2"):
        build_layout("intrusion", "left", "cone", W, H)
    with pytest.raises(BadInput, match="positive"):
        build_layout("static", "left", "dog", 0, H)
    with pytest.raises(BadInput):
        ForgeConfig(distance_d=1.5)
