"""Issue 32 item 6: the vanishing point holds on other camera rigs (wide and tall frames with a hood), and inserted
objects stay off known obstacle boxes (moved along their row, else the layout is skipped); the benchmarks fall back
to synthetic scenes when the shared real photos are absent (issue 34 item 1).

Truth is written in the tests: rig scenes are rendered with a known vanishing point and hood top, and the obstacle
boxes below are drawn by hand with the expected outcome worked out from the layout formulas."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np
import pytest

from builder.movsafebench.hazardforge.config import ForgeConfig
from builder.movsafebench.hazardforge.layout import (
    COVERS_OBSTACLE,
    IneligibleLayout,
    build_layout,
    obstacle_overlap,
)
from builder.movsafebench.hazardforge.vanishing import detect_vanishing_point
from builder.movsafebench.sources.synthetic import RIGS, render_rig_scene

ROOT = Path(__file__).resolve().parents[1]
VP_BOUND_PCT = 0.5  # of the diagonal; measured max 0.28 (wide) / 0.12 (tall) over 30 scenes each


@pytest.mark.parametrize(("rig", "seeds"), [("wide", (0, 1)), ("tall", (0,))])
def test_vanishing_point_holds_on_wide_and_tall_hood_frames(rig, seeds):
    for seed in seeds:
        scene = render_rig_scene(rig, seed)
        w, h = scene.image.size
        assert (w, h) == (RIGS[rig].width, RIGS[rig].height)
        assert scene.ego == "matte" and scene.hood_top is not None and scene.hood_top < h  # a hood is in view
        vp = detect_vanishing_point(scene.image)
        assert vp.method == "lsd_ransac"
        error = 100 * np.hypot(vp.x - scene.vanishing_point[0], vp.y - scene.vanishing_point[1]) / np.hypot(w, h)
        assert error <= VP_BOUND_PCT, (rig, seed, error)


def test_rig_scenes_carry_their_obstacle_boxes():
    scene = render_rig_scene("wide", 0)
    # a road scene blocks the two unsafe lanes with barriers: their image boxes are the scene's obstacles
    assert len(scene.obstacles) == 2
    for x0, y0, x1, y1 in scene.obstacles:
        assert 0 <= x0 < x1 <= 1242 and 0 <= y0 < y1 <= 375
        assert y1 > scene.vanishing_point[1]  # standing on the ground below the horizon


def test_obstacle_overlap_is_intersection_over_the_smaller_box():
    assert obstacle_overlap((0, 0, 10, 10), (5, 0, 15, 10)) == pytest.approx(0.5)
    assert obstacle_overlap((0, 0, 10, 10), (10, 0, 20, 10)) == 0.0  # half-open: touching is no overlap
    assert obstacle_overlap((0, 0, 100, 100), (10, 10, 20, 20)) == pytest.approx(1.0)  # hides it entirely
    assert obstacle_overlap((0, 0, 4, 10), (2, 0, 100, 100)) == pytest.approx(0.5)  # half the object stands on it


def _static_near_right(obstacles):
    # 1200 x 600, vanishing point row 300, no hood: the static layout for ground truth "left" puts a nearby
    # object in regions C (400..800) and R (800..1200); a human stands on row 300 + 0.8 * 300 = 540
    return build_layout("static", "left", "human", 1200, 600, vanishing_point=(600.0, 300.0),
                        obstacles=obstacles)


def test_a_placement_over_an_obstacle_is_moved_off_it():
    plain = _static_near_right(None)
    right = next(e for e in plain.edits if e.region == "R")
    size = right.object_size
    height, base = size["height"], size["base_row"]
    width = int(np.ceil(ForgeConfig().side_aspect["human"] * height))
    # a parked car covering the left 60 % of region R on the object's rows
    car = [800, base - height, 1040, base + 1]
    layout = _static_near_right([car])
    moved = next(e for e in layout.edits if e.region == "R")
    assert moved.box != right.box and moved.object_size["moved_from"] == list(right.box)
    assert layout.params["obstacle_moves"] == 1
    x0, _, x1, _ = moved.box
    top = base + 1 - height
    for left in range(x0, x1 - width + 1):  # every column the mask allows keeps the object off the car
        assert obstacle_overlap((left, top, left + width, base + 1), car) <= 0.3
    # the unaffected object in C is not moved
    centre = next(e for e in layout.edits if e.region == "C")
    assert centre.box == next(e for e in plain.edits if e.region == "C").box


def test_a_placement_with_no_clear_column_is_skipped():
    plain = _static_near_right(None)
    right = next(e for e in plain.edits if e.region == "R")
    base, height = right.object_size["base_row"], right.object_size["height"]
    wall = [700, base - height, 1200, base + 1]  # covers all of region R on the object's rows
    with pytest.raises(IneligibleLayout) as caught:
        _static_near_right([wall])
    assert caught.value.reason == COVERS_OBSTACLE


def test_an_obstacle_off_the_objects_rows_changes_nothing():
    plain = _static_near_right(None)
    sky_sign = [800, 0, 1200, 20]  # far above every object
    assert _static_near_right([sky_sign]).edits == plain.edits


def test_the_compositor_keeps_its_exact_sprite_off_the_obstacles():
    from PIL import Image

    from builder.movsafebench.hazardforge.editors.compositor import CompositingEditor

    plain = _static_near_right(None)
    right = next(e for e in plain.edits if e.region == "R")
    base, height = right.object_size["base_row"], right.object_size["height"]
    car = [800, base - height, 1040, base + 1]
    layout = _static_near_right([car])
    edit = next(e for e in layout.edits if e.region == "R")
    image = Image.new("RGB", (1200, 600), (90, 90, 95))
    for seed in range(4):
        _, placement = CompositingEditor().edit_with_placement(image, edit.mask(), edit.prompt, seed,
                                                               vanishing_point=(600.0, 300.0),
                                                               object_size=edit.object_size)
        assert obstacle_overlap(placement.box, car) <= 0.3, placement.box


def test_the_plan_reads_obstacles_and_counts_skips(tmp_path):
    from builder.movsafebench.hazardforge.plan import build_plan, read_sources
    from builder.movsafebench.sources.synthetic import write_synthetic_sources

    sources = write_synthetic_sources(tmp_path / "s", 2, width=640, height=360)
    rows = [json.loads(line) for line in sources.read_text().splitlines()]
    assert all(len(r["obstacles"]) == 2 for r in rows)  # the two barriers of each scene
    items = read_sources(sources)
    assert [len(i.obstacles) for i in items] == [2, 2]
    jobs, stats = build_plan(items, plan_dir=tmp_path, sources_path=sources)
    assert stats["obstacle_sources"] == 2
    assert stats["obstacle_skipped"] == sum(n for k, n in stats["skipped_reasons"].items()
                                            if k.endswith(COVERS_OBSTACLE))
    boxes = {r["id"]: r["obstacles"] for r in rows}
    for job in jobs:  # every planned object (with a column range) leaves every obstacle clear at its widest
        for edit in job["edits"]:
            size = edit["object_size"]
            if not size or edit["canvas"]["pad_side"] or "obstacles" not in size:
                continue
            top, bottom = size["base_row"] + 1 - size["height"], size["base_row"] + 1
            width = int(np.ceil(ForgeConfig().side_aspect[edit["category"]] * size["height"]))
            x0, _, x1, _ = edit["box"]
            for left in (x0, x1 - width):
                for ob in boxes[job["source_id"]]:
                    assert obstacle_overlap((left, top, left + width, bottom), ob) <= 0.3


def test_benchmarks_fall_back_to_synthetic_scenes_without_the_shared_photos(tmp_path, monkeypatch, capsys):
    sys.path.insert(0, str(ROOT / "benchmarks"))
    try:
        import forge_real
        import vanishing_point
    finally:
        sys.path.remove(str(ROOT / "benchmarks"))
    absent = tmp_path / "no_shared"
    assert forge_real.find_real(str(absent)) is None and vanishing_point.find_real(str(absent)) is None
    # forge_real's stand-in folder has the shared photos' format, with exact truth
    folder = forge_real.synthetic_folder("wide", tmp_path / "wide", 1)
    labels = json.loads((folder / "labels.json").read_text())
    refs = json.loads((folder / "vp_reference.json").read_text())
    assert set(labels) == set(refs) == {"wide_000.jpg"}
    assert labels["wide_000.jpg"]["W"] == 1242 and labels["wide_000.jpg"]["hood_top"] < 375
    assert len(labels["wide_000.jpg"]["obstacles"]) == 2 and (folder / "wide_000.jpg").is_file()
    # vanishing_point reports the rigs and says the photos are absent
    from builder.movsafebench.sources import synthetic

    monkeypatch.setattr(synthetic, "RIGS", {"wide": synthetic.RIGS["wide"]})
    vanishing_point.report_rigs(1, 0, str(absent))
    out = capsys.readouterr().out
    assert "note: real photos absent" in out and "synthetic wide" in out and "shared real photos" not in out
