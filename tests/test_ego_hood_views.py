"""Ego hood on views with known truth (issue 23): no hood, matte hood, glossy hood mirroring the scene, dashboard.

The synthetic renderer paints the camera car's body with its true top row. The glossy hood mirrors the scene
and carries mirrored lines that point at the vanishing point like lane markings: the detector before issue 23
took them for the road and put the hood at the bottom of the frame (objects on the hood) on every such scene.
"""

from __future__ import annotations

import json

import numpy as np
import pytest

from builder.movsafebench.hazardforge.ego_hood import EgoHood, detect_ego_hood, placement_top
from builder.movsafebench.hazardforge.vanishing import detect_vanishing_point
from builder.movsafebench.sources.synthetic import EGO_VIEWS, render_scene

W, H = 640, 360
SEEDS = range(4)


def detect(scene):
    vp = detect_vanishing_point(scene.image)
    return detect_ego_hood(scene.image, vanishing_point=(vp.x, vp.y) if vp.method != "horizon_prior" else None)


@pytest.fixture(scope="module")
def results():
    out = {}
    for ego in EGO_VIEWS:
        out[ego] = []
        for seed in SEEDS:
            scene = render_scene("road", seed, W, H, ego=ego)
            out[ego].append((scene.hood_top, detect(scene)))
    return out


def test_renderer_truth_and_scene_unchanged_above_the_body():
    plain = render_scene("road", 4, W, H)
    assert plain.hood_top == H and plain.ego == "none"
    for ego in ("matte", "glossy", "dashboard"):
        scene = render_scene("road", 4, W, H, ego=ego)
        assert 0.6 * H < scene.hood_top < H
        a, b = np.asarray(plain.image), np.asarray(scene.image)
        # the dashboard's ghost in the windscreen reaches 0.2 H above it; nothing else changes above the body
        top = scene.hood_top - (round(0.2 * H) + 2 if ego == "dashboard" else 1)
        assert np.array_equal(a[:top], b[:top])
        assert not np.array_equal(a[scene.hood_top:], b[scene.hood_top:])
        assert render_scene("road", 4, W, H, ego=ego).image.tobytes() == scene.image.tobytes()  # deterministic
    with pytest.raises(ValueError, match="unknown ego view"):
        render_scene("road", 4, W, H, ego="sunroof")


def test_no_false_hood_without_a_body(results):
    for truth, found in results["none"]:
        assert truth == H
        assert found.top == H and found.placement_top == H, found


@pytest.mark.parametrize("ego", ["matte", "dashboard"])
def test_matte_hood_and_dashboard(results, ego):
    rows = results[ego]
    within = sum(abs(found.top - truth) <= 0.02 * H for truth, found in rows)
    assert within >= len(rows) - 2, rows
    for truth, found in rows:  # never on the body: too high only costs ground rows
        assert found.placement_top <= truth + 0.01 * H, (truth, found)


def test_glossy_hood_is_never_silently_low(results):
    rows = results["glossy"]
    safe = [found.placement_top <= truth + 0.01 * H for truth, found in rows]
    assert sum(safe) >= len(rows) - 1, rows
    for (_truth, found), ok in zip(rows, safe, strict=True):
        if not ok:  # the edge has no contrast in the centre third: then the detector must say it is unsure
            assert not found.certain and found.reason, found
    assert sum(not found.certain for _, found in rows) >= len(rows) // 2  # the mirrored lines are noticed


def test_unsure_result_carries_its_bound():
    hood = EgoHood(300, 360, certain=False, bound=250, reason="why")
    assert hood.placement_top == 250
    row = hood.to_dict()
    assert row["certain"] is False and row["bound"] == 250 and row["reason"] == "why"
    assert "certain" not in EgoHood(300, 360).to_dict()
    assert placement_top(row, 360) == 250 and placement_top({"top": 300, "height": 360}, 360) == 300
    assert placement_top(None, 360) == 360


def test_plan_keeps_masks_above_an_unsure_bound(tmp_path):
    from builder.movsafebench.hazardforge.plan import build_plan, read_sources
    from builder.movsafebench.sources.synthetic import write_synthetic_sources

    manifest = write_synthetic_sources(tmp_path / "src", 1, kinds=("road",), width=W, height=H)
    row = json.loads(manifest.read_text())
    bound = 300
    row["ego_hood"] = {"top": 340, "height": H, "method": "lab_edge_lanes", "score": 9.0, "certain": False,
                       "bound": bound, "reason": "test"}
    manifest.write_text(json.dumps(row) + "\n")
    jobs, _stats = build_plan(read_sources(manifest, {}), plan_dir=tmp_path, sources_path=manifest)
    assert jobs
    for job in jobs:
        assert job["ego_hood"] == {"top": bound, "source": "manifest", "certain": False}
        for edit in job["edits"]:
            assert edit["box"][3] <= bound  # every mask stops above the conservative row
            assert edit["object_size"]["base_row"] < bound


def test_scan_reports_unsure_hoods(tmp_path):
    from tests.cli_helpers import invoke

    images = tmp_path / "images"
    images.mkdir()
    index = []
    for ego, seed in (("glossy", 0), ("none", 1)):
        render_scene("road", seed, W, H, ego=ego).image.save(images / f"{ego}.png")
        index.append({"id": ego, "path": f"{ego}.png", "gt_action": "left", "agent": "vehicle"})
    (tmp_path / "index.jsonl").write_text("".join(json.dumps(r) + "\n" for r in index))
    code, out = invoke("sources", "scan", "folder", "--index", tmp_path / "index.jsonl", "--root", images,
                       "--out", tmp_path / "sources.jsonl")
    assert code == 0, out
    assert "ego hood unsure in 1" in out and ": glossy" in out, out
    rows = {r["id"]: r for r in map(json.loads, (tmp_path / "sources.jsonl").read_text().splitlines())}
    assert rows["glossy"]["ego_hood"]["certain"] is False and rows["glossy"]["ego_hood"]["bound"] < H
    assert "certain" not in rows["none"]["ego_hood"] and rows["none"]["ego_hood"]["top"] == H
