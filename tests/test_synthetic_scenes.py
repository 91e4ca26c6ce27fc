"""Synthetic scenes: deterministic from the seed, with a vanishing point that matches the rendered geometry."""

import json

import numpy as np
import pytest

from builder.movsafebench.sources.synthetic import KINDS, _Camera, render_scene, write_synthetic_sources
from eval_kit.schemas import first_error


@pytest.mark.parametrize("kind", KINDS)
def test_deterministic_from_seed(kind):
    a = render_scene(kind, 7, 480, 270)
    b = render_scene(kind, 7, 480, 270)
    c = render_scene(kind, 8, 480, 270)
    assert np.array_equal(np.asarray(a.image), np.asarray(b.image))
    assert a.vanishing_point == b.vanishing_point and a.safe_action == b.safe_action
    assert not np.array_equal(np.asarray(a.image), np.asarray(c.image))
    assert a.image.mode == "RGB" and a.image.size == (480, 270)
    assert a.kind == kind and a.seed == 7 and a.safe_action in ("left", "straight", "right")
    assert a.agent == {"road": "vehicle", "sidewalk": "robot"}[kind]


def test_vanishing_point_is_the_limit_of_projected_road_lines():
    cam = _Camera(1600, 900, 64.0, 6.0, 3.0, 1.0, 1.5)
    vp = np.array(cam.vanishing_point())
    far = cam.project_cam(cam.to_cam(np.array([[3.5, 1.5, 1e7], [-3.5, 1.5, 1e7]])))
    assert np.allclose(far, vp, atol=1e-3)
    level = _Camera(1600, 900, 64.0, 0.0, 0.0, 0.0, 1.5)
    assert level.vanishing_point() == pytest.approx((799.5, 449.5))  # principal point


def test_vanishing_point_varies_with_the_camera_and_stays_plausible():
    vps = [render_scene(k, s, 320, 180).vanishing_point for k in KINDS for s in range(6)]
    xs, ys = zip(*vps, strict=True)
    assert np.std(xs) > 5 and np.std(ys) > 2
    assert all(0 < x < 320 and 0 < y < 180 for x, y in vps)


def test_safe_actions_cover_all_three():
    actions = {render_scene("road", s, 160, 90).safe_action for s in range(20)}
    assert actions == {"left", "straight", "right"}


def test_write_sources(tmp_path):
    path = write_synthetic_sources(tmp_path / "src", 4, seed=10, width=320, height=180)
    lines = [json.loads(line) for line in path.read_text().splitlines()]
    assert [line["extra"]["kind"] for line in lines] == ["road", "sidewalk", "road", "sidewalk"]
    for line in lines:
        assert first_error("movsafebench_source", line) is None
        assert (path.parent / line["path"]).exists()
        scene = render_scene(line["extra"]["kind"], line["extra"]["seed"], 320, 180)
        assert line["gt_action"] == scene.safe_action and line["dataset"] == "synthetic"
        assert line["vanishing_point"]["x"] == pytest.approx(scene.vanishing_point[0], abs=1e-3)


def test_bad_kind():
    with pytest.raises(ValueError):
        render_scene("ocean", 0)


def test_robot_scenes_include_corridors():
    variants = {render_scene("sidewalk", s, 160, 90).variant for s in range(12)}
    assert variants == {"sidewalk", "corridor"}
    assert render_scene("road", 0, 160, 90).variant == "road"
