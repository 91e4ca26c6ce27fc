"""HazardForge from a scanned source to a published config, and the geometry that keeps it real (issue 14).

- end to end with no hand conversion: a DriveBench-format question file (its real layout: six cameras under
  data/nuscenes/samples, lettered behaviour options) plus images -> `sources scan drivebench` -> `forge plan`
  -> `forge run` -> `forge export` -> `publish` -> `load_dataset`;
- the one manifest format and its path rules in `forge plan`; the ego hood (detection, manual override, every
  mask and object above it); perspective sizing (skipped with a reason, never enlarged), the checker's size
  test, object boxes, free space and night lighting.
All images are synthetic (builder/movsafebench/sources/synthetic.py); nothing is downloaded.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from PIL import Image

from builder.movsafebench.hazardforge.config import ForgeConfig
from builder.movsafebench.hazardforge.ego_hood import detect_ego_hood
from builder.movsafebench.hazardforge.layout import FAR_TOO_SMALL, IneligibleLayout, build_layout
from builder.movsafebench.hazardforge.plan import build_plan, read_sources
from builder.movsafebench.sources.synthetic import render_scene
from eval_kit.errors import BadInput
from tests.cli_helpers import invoke

W, H = 640, 360
OPTIONS = ("Predict the behavior of the ego vehicle. Please select the correct answer from the following options: "
           "A. The ego vehicle is going straight. The ego vehicle is not moving. "
           "B. The ego vehicle is steering to the right. The ego vehicle is driving fast. "
           "C. The ego vehicle is slightly steering to the left. The ego vehicle is driving fast. "
           "D. The ego vehicle is steering to the left. The ego vehicle is driving with normal speed.")
CAMERAS = ("CAM_FRONT", "CAM_FRONT_LEFT", "CAM_FRONT_RIGHT", "CAM_BACK", "CAM_BACK_LEFT", "CAM_BACK_RIGHT")


def with_hood(image: Image.Image, top: int) -> Image.Image:
    """Paint an ego hood: a dark red body whose curved top edge is highest (row `top`) in the centre."""
    arr = np.asarray(image).copy()
    h, w = arr.shape[:2]
    xs = np.arange(w)
    edge = top + (0.06 * h) * ((xs - w / 2) / (w / 2)) ** 2
    rows = np.arange(h)[:, None]
    body = rows >= edge[None, :]
    shade = 60 + 40 * (1 - (rows - top) / max(1, h - top))  # reflections brighten the top of the hood
    colour = np.stack([shade * 1.3, shade * 0.6, shade * 0.5], axis=-1)
    arr[body] = np.clip(np.broadcast_to(colour, arr.shape)[body], 0, 255).astype(np.uint8)
    return Image.fromarray(arr)


def nuscenes_folder(root: Path) -> tuple[Path, dict[str, str]]:
    """Synthetic road frames at nuScenes-style paths and a DriveBench-format question file about them."""
    frames = {}
    records = []
    for k, answer in enumerate(("A", "B", "C", "D")):
        scene = render_scene("road", 40 + k, W, H)
        image = with_hood(scene.image, int(0.86 * H)) if k % 2 else scene.image
        token = f"frame{k:04d}"
        rel = f"samples/CAM_FRONT/n008__CAM_FRONT__{k}.jpg"
        (root / "nuscenes" / rel).parent.mkdir(parents=True, exist_ok=True)
        image.save(root / "nuscenes" / rel, quality=95)
        frames[token] = answer
        records.append({"scene_token": "s0", "frame_token": token, "question_type": "behavior", "question": OPTIONS,
                        "answer": answer, "tag": [0],
                        "image_path": {cam: f"data/nuscenes/{rel.replace('CAM_FRONT', cam)}" for cam in CAMERAS}})
    records.append({**records[0], "question_type": "perception", "question": "What is important?", "answer": "x"})
    records.append({**records[0], "frame_token": "gone", "image_path": {"CAM_FRONT": "data/nuscenes/samples/"
                                                                        "CAM_FRONT/missing.jpg"}})
    questions = root / "drivebench-test.json"
    questions.write_text(json.dumps(records, indent=1))
    return questions, frames


def test_drivebench_questions_to_published_config(tmp_path: Path) -> None:
    """No hand conversion anywhere: each command reads what the previous one wrote."""
    import datasets

    questions, _ = nuscenes_folder(tmp_path)
    manifest = tmp_path / "manifests" / "sources.jsonl"
    code, out = invoke("sources", "scan", "drivebench", "--questions", questions, "--root", tmp_path / "nuscenes",
                       "--out", manifest)
    assert code == 0, out
    assert "wrote 4 sources" in out and "skipped 1 (image file not found: 1)" in out and "ego hood visible in 2" in out
    rows = [json.loads(line) for line in manifest.read_text().splitlines()]
    assert {r["gt_action"] for r in rows} == {"straight", "right", "left"}
    hooded = {r["id"]: r["ego_hood"]["top"] for r in rows if r["ego_hood"]["top"] < H}
    assert len(hooded) == 2 and all(abs(top - 0.86 * H) <= 0.02 * H for top in hooded.values())

    # the manifest's paths are relative to the nuScenes root, which the scan recorded: plan needs no --root
    plan = tmp_path / "work" / "plan.jsonl"
    code, out = invoke("forge", "plan", manifest, "--out", plan, "--json")
    assert code == 0, out
    rows = [json.loads(line) for line in manifest.read_text().splitlines()]
    assert {r["root"] for r in rows} == {str((tmp_path / "nuscenes").resolve())}
    code, out = invoke("forge", "plan", manifest, "--root", f"drivebench={tmp_path / 'nuscenes'}", "--out", plan,
                       "--json")
    assert code == 0, out
    summary = json.loads(out)
    assert summary["stats"]["hoods"] == 2 and summary["stats"]["hood_detected"] == 0  # read from the manifest
    jobs = [json.loads(line) for line in plan.read_text().splitlines()]
    assert {j["source_benchmark"] for j in jobs} == {"drivebench"}
    for job in jobs:
        hood = job["ego_hood"]["top"]
        assert hood == hooded.get(job["source_id"], H)
        for edit in job["edits"]:
            assert edit["box"][3] <= hood and edit["object_size"]["base_row"] < hood

    run = tmp_path / "work" / "run"
    code, out = invoke("forge", "run", plan, "--out", run, "--limit", "24", "--no-progress")
    assert code == 0, out
    code, out = invoke("forge", "export", run, "--out", run)
    assert code == 0, out
    records = [json.loads(line) for line in (run / "records.jsonl").read_text().splitlines()]
    assert len(records) >= 12, out
    for record in records:
        assert record["source_benchmark"] == "drivebench"
        assert record["image_path"].startswith("images/")  # relative to the run folder it was exported into
        assert len(record["object_box"]) == record["prompt"].count("|") + 1
    moved = tmp_path / "moved_run"
    run.rename(moved)  # the export travels with its run
    code, out = invoke("publish", "movsafebench", "--config", "default", "--version", "0.1.0", "--input", moved,
                       "--out", tmp_path / "repo", "--date", "2026-12-01")
    assert code == 2 and "--allow-compositor" in out, out  # compositor sprites outside demo: confirm it
    code, out = invoke("publish", "movsafebench", "--config", "default", "--version", "0.1.0", "--input", moved,
                       "--out", tmp_path / "repo", "--date", "2026-12-01", "--allow-compositor")
    assert code == 0, out
    ds = datasets.load_dataset(str(tmp_path / "repo"), "default", split="test")
    assert sorted(ds["id"]) == sorted(r["id"] for r in records)
    by_id = {r["id"]: r for r in records}
    for row in ds:
        assert row["source_benchmark"] == "drivebench"
        assert row["object_box"] == by_id[row["id"]]["object_box"]
        for x0, y0, x1, y1 in row["object_box"]:
            assert 0 <= x0 < x1 <= W and 0 <= y0 < y1 <= H


def _manifest(tmp_path: Path, rows: list[dict]) -> Path:
    path = tmp_path / "sources.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


def _scene_row(tmp_path: Path, **extra) -> dict:
    import hashlib

    scene = render_scene("road", 3, W, H)
    (tmp_path / "img").mkdir(exist_ok=True)
    scene.image.save(tmp_path / "img" / "a.png")
    return {"id": "a", "dataset": "synthetic", "path": "img/a.png", "gt_action": "left", "agent": "vehicle",
            "sha256": hashlib.sha256((tmp_path / "img" / "a.png").read_bytes()).hexdigest(),
            "vanishing_point": {"x": scene.vanishing_point[0], "y": scene.vanishing_point[1]}, **extra}


def test_plan_path_rules_and_format_errors(tmp_path: Path) -> None:
    row = _scene_row(tmp_path)
    cases = [
        ({**row, "path": "../img/a.png"}, "field 'path'"),
        ({**row, "path": "/abs/a.png"}, "field 'path'"),
        ({**row, "sha256": "0" * 64}, "checksum mismatch"),
        ({"id": "a", "path": "img/a.png", "ground_truth": "left", "agent": "vehicle"}, "old forge_source format"),
    ]
    for bad, message in cases:
        code, out = invoke("forge", "plan", _manifest(tmp_path, [bad]), "--out", tmp_path / "p.jsonl")
        assert code == 2 and message in out and "line 1" in out, out
    code, out = invoke("forge", "plan", _manifest(tmp_path, [row]), "--root", "nodataset", "--out",
                       tmp_path / "p.jsonl")
    assert code == 2 and "DATASET=DIR" in out


def test_hood_override_wins_and_bounds_every_mask(tmp_path: Path) -> None:
    row = _scene_row(tmp_path, ego_hood={"top": H, "height": H}, ego_hood_override=300)
    items = read_sources(_manifest(tmp_path, [row]))
    assert items[0].hood_top == 300 and items[0].hood_source == "override"
    jobs, stats = build_plan(items, plan_dir=tmp_path)
    assert stats["hoods"] == 1 and jobs
    for job in jobs:
        assert job["ego_hood"] == {"top": 300, "source": "override"}
        for edit in job["edits"]:
            assert edit["box"][3] <= 300 and edit["object_size"]["base_row"] < 300


def test_hood_detection_on_synthetic_scenes() -> None:
    for seed in (1, 2, 5):
        scene = render_scene("road", seed, W, H)
        for top in (int(0.8 * H), int(0.9 * H)):
            found = detect_ego_hood(with_hood(scene.image, top), vanishing_point=scene.vanishing_point)
            assert abs(found.top - top) <= 0.02 * H, (seed, top, found)
        clean = detect_ego_hood(scene.image, vanishing_point=scene.vanishing_point)
        assert clean.top == H and not clean.visible


def test_perspective_sizes_and_skips() -> None:
    config = ForgeConfig()
    layout = build_layout("distance", "left", "human", 1600, 900, vanishing_point=(800, 450), config=config)
    far = layout.edits[-1]
    size = far.object_size
    assert size["height"] == round(1.7 / 1.5 * (size["base_row"] - 450))
    assert far.box[1] <= size["base_row"] - size["height"] and size["base_row"] < far.box[3]
    near = layout.edits[0].object_size
    assert near["base_row"] == round(450 + config.near_depth * (900 - 450))
    robot = build_layout("static", "left", "human", 1600, 900, vanishing_point=(800, 450), agent="robot")
    assert robot.edits[0].object_size["height"] > near["height"]  # lower camera: the same object looks taller
    # a small far object grows d towards distance_d_max, and is skipped (with the reason) when even that fails
    grown = build_layout("distance", "left", "roadkill", 1600, 900, vanishing_point=(800, 450))
    assert grown.params["d"] > config.distance_d and grown.edits[-1].object_size["height"] >= config.min_object_px
    with pytest.raises(IneligibleLayout) as info:
        build_layout("distance", "left", "roadkill", 640, 360, vanishing_point=(320, 180))
    assert info.value.reason == FAR_TOO_SMALL
    # the intruding object fits the 2 l band and is centred inside the image border
    intr = build_layout("intrusion", "left", "motorcycle", 640, 360, vanishing_point=(320, 180)).edits[-1]
    assert (intr.object_size["height"] - 1) * config.side_aspect["motorcycle"] <= 0.9 * (intr.box[2] - intr.box[0])
    assert intr.object_size["centre_x"] < 640 and intr.pad_side == "right"


def test_plan_stats_count_skipped_reasons(tmp_path: Path) -> None:
    _jobs, stats = build_plan(read_sources(_manifest(tmp_path, [_scene_row(tmp_path)])), plan_dir=tmp_path)
    assert stats["skipped_reasons"] and all(k.startswith("distance/") for k in stats["skipped_reasons"])
    assert "distance/roadkill: far object too small" in stats["skipped_reasons"]
    code, out = invoke("forge", "plan", tmp_path / "sources.jsonl", "--out", tmp_path / "p.jsonl")
    assert code == 0 and "distance/roadkill: far object too small" in out


def test_compositor_uses_the_planned_size_and_checker_knows_it() -> None:
    from builder.movsafebench.hazardforge.editors import CompositingEditor
    from builder.movsafebench.hazardforge.editors.base import object_box
    from builder.movsafebench.hazardforge.quality import HeuristicChecker

    scene = render_scene("road", 3, W, H)
    layout = build_layout("static", "left", "dog", W, H, vanishing_point=scene.vanishing_point)
    edit = layout.edits[0]
    editor = CompositingEditor()
    out, placement = editor.edit_with_placement(scene.image, edit.mask(), edit.prompt, 0,
                                                object_size=edit.object_size)
    _x0, y0, _x1, y1 = placement.box
    assert placement.sizing == "plan" and y1 - 1 == edit.object_size["base_row"]
    assert y1 - y0 == edit.object_size["height"]
    box = object_box(scene.image, out, edit.mask())
    assert box is not None and abs(box[3] - y1) <= 3 and abs((box[3] - box[1]) - (y1 - y0)) <= 4
    checker = HeuristicChecker()
    assert checker.check(scene.image, out, edit.mask(), "forward", expected_height=y1 - y0).accepted
    for factor in (2.5, 0.4):  # the object is 0.4x / 2.5x the size the plan expects
        verdict = checker.check(scene.image, out, edit.mask(), "forward", expected_height=factor * (y1 - y0))
        assert not verdict.accepted and verdict.completeness == "wrong size", verdict
        assert not 0.5 <= verdict.raw["size_ratio"] <= 2.0
    with pytest.raises(ValueError, match="does not fit"):
        editor.edit(scene.image, edit.mask(), edit.prompt, 0, object_size={**edit.object_size, "height": H})


def test_free_space_avoids_occupied_ground_and_night_darkens() -> None:
    from builder.movsafebench.hazardforge.editors.compositor import match_lighting
    from builder.movsafebench.hazardforge.free_space import free_column, occupied_mask

    occupied = np.zeros((100, 200), bool)
    occupied[:, 50:120] = True  # a parked car
    # nearest column to 60 whose footprint is at least 70 % free: 29 (9 of its 30 columns on the car)
    assert free_column(occupied, 0, 200, 30, 40, 90, preferred=60) == 29
    assert free_column(occupied, 0, 200, 30, 40, 90, preferred=100) == 111
    assert free_column(np.ones((100, 200), bool), 0, 200, 30, 40, 90, preferred=60) is None
    scene = render_scene("road", 3, W, H)
    occ = occupied_mask(scene.image, scene.vanishing_point[1], H)
    assert occ[: int(scene.vanishing_point[1])].all()  # nothing stands above the horizon
    assert not occ[int(0.95 * H), W // 2]  # the ego lane just ahead is free road
    sprite = np.full((10, 10, 3), 200.0)
    night = match_lighting(sprite, np.full((50, 50, 3), 25.0))
    day = match_lighting(sprite, np.full((50, 50, 3), 140.0))
    assert night.mean() < 0.4 * day.mean() and day.mean() == pytest.approx(200.0)
    amber = match_lighting(sprite, np.stack([np.full((50, 50), 60.0), np.full((50, 50), 40.0),
                                             np.full((50, 50), 15.0)], axis=-1))
    assert amber[..., 0].mean() > amber[..., 2].mean()


def test_bad_root_option_is_bad_input(tmp_path: Path) -> None:
    with pytest.raises(BadInput, match="dataset"):
        from builder.movsafebench.sources.common import parse_roots

        parse_roots(("justapath",))
