"""Vanishing-point detection against known truth: drawn line families and synthetic scenes."""

import numpy as np
import pytest

from builder.movsafebench.hazardforge.vanishing import (
    DetectorSettings,
    detect_vanishing_point,
    filter_segments,
    vanishing_point_from_segments,
)
from builder.movsafebench.sources.synthetic import render_scene
from eval_kit.errors import BadInput


def _rays_image(vp, width=1600, height=900, n=14, seed=0):
    import cv2

    rng = np.random.default_rng(seed)
    img = np.full((height, width, 3), 40, dtype=np.uint8)
    for angle in np.linspace(200, 340, n):  # rays fanning out below the vanishing point
        a = np.radians(angle + rng.uniform(-3, 3))
        start = rng.uniform(80, 200)
        p0 = (vp[0] - start * np.cos(a), vp[1] - start * np.sin(a))
        p1 = (vp[0] - 2000 * np.cos(a), vp[1] - 2000 * np.sin(a))
        cv2.line(img, tuple(round(v) for v in p0), tuple(round(v) for v in p1), (230, 230, 230), 5,
                 cv2.LINE_AA)
    # distractors: horizontal and vertical edges (rejected) and a box
    cv2.rectangle(img, (100, 100), (400, 300), (180, 60, 60), -1)
    cv2.line(img, (0, int(vp[1]) - 40), (width, int(vp[1]) - 40), (200, 200, 90), 4)
    return img


@pytest.mark.parametrize("vp", [(800.0, 450.0), (613.0, 380.0), (1020.0, 520.0)])
def test_drawn_line_family(vp):
    found = detect_vanishing_point(_rays_image(vp))
    assert found.method == "lsd_ransac"
    assert np.hypot(found.x - vp[0], found.y - vp[1]) < 0.005 * np.hypot(1600, 900)
    assert found.confidence > 0.5


def test_synthetic_scenes_within_target_error():
    diag = np.hypot(1600, 900)
    errors = []
    variants = set()
    for seed in range(6):
        for kind in ("road", "sidewalk"):
            scene = render_scene(kind, 500 + seed)
            variants.add(scene.variant)
            found = detect_vanishing_point(scene.image)
            errors.append(np.hypot(found.x - scene.vanishing_point[0], found.y - scene.vanishing_point[1]) / diag)
    assert np.median(errors) <= 0.01
    assert max(errors) <= 0.03
    assert variants == {"road", "sidewalk", "corridor"}


def test_blank_image_falls_back_to_horizon_prior():
    found = detect_vanishing_point(np.full((900, 1600, 3), 128, dtype=np.uint8))
    assert found.method == "horizon_prior" and found.confidence == 0.0
    assert (found.x, found.y) == (800.0, 450.0)


def test_pil_numpy_and_grey_inputs_agree():
    scene = render_scene("road", 3, 800, 450)
    a = detect_vanishing_point(scene.image)
    b = detect_vanishing_point(np.asarray(scene.image))
    c = detect_vanishing_point(np.asarray(scene.image.convert("L")))
    assert (a.x, a.y) == (b.x, b.y)
    assert np.hypot(a.x - c.x, a.y - c.y) < 2.0  # PIL's grey conversion rounds a little differently


def test_small_image_is_not_upscaled_and_coordinates_are_its_own():
    vp = (150.0, 90.0)
    img = _rays_image((vp[0] * 4, vp[1] * 4), 1200, 720)[::4, ::4].copy()  # 300 x 180
    found = detect_vanishing_point(img)
    assert np.hypot(found.x - vp[0], found.y - vp[1]) < 4.0


def test_filter_rejects_horizontal_vertical_and_short_segments():
    segs = np.array([
        [0, 0, 100, 2],      # near horizontal
        [0, 0, 2, 100],      # near vertical
        [0, 0, 3, 3],        # short
        [0, 0, 60, 40],      # kept
    ], dtype=float)
    kept = filter_segments(segs, 640, DetectorSettings())
    assert kept.tolist() == [[0, 0, 60, 40]]


def test_opencv4_shaped_segments_are_accepted():
    vp = np.array([320.0, 180.0])
    segs = []
    for angle in np.linspace(200, 340, 10):
        d = np.array([np.cos(np.radians(angle)), np.sin(np.radians(angle))])
        segs.append([*(vp - 50 * d), *(vp - 200 * d)])
    flat = np.array(segs)
    found = vanishing_point_from_segments(flat.reshape(-1, 1, 4).reshape(-1, 4), 640, 360)
    assert np.hypot(found.x - vp[0], found.y - vp[1]) < 1e-6


def test_empty_array_is_bad_input():
    with pytest.raises(BadInput):
        detect_vanishing_point(np.zeros((0, 10, 3), dtype=np.uint8))
