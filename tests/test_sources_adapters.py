"""Source adapters on tiny fake copies of the DriveBench, SA-Bench and folder formats built in a temp dir."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from PIL import Image

from builder.movsafebench.sources import drivebench, folder, sa_bench
from builder.movsafebench.sources.common import direction_of_x, sha256_file
from eval_kit.errors import BadInput
from tests.cli_helpers import invoke

OPTIONS = ("Predict the behavior of the ego vehicle. Please select the correct answer from the following options: "
           "A. The ego vehicle is slightly steering to the left. The ego vehicle is driving slowly. "
           "B. The ego vehicle is going straight. The ego vehicle is driving with normal speed. "
           "C. The ego vehicle is steering to the right. The ego vehicle is driving fast. "
           "D. The ego vehicle is not moving.")


def _jpg(path: Path, color: tuple[int, int, int] = (90, 90, 90)) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    Image.new("RGB", (32, 18), color).save(path)
    return path


def _drivebench(tmp: Path) -> tuple[Path, Path]:
    root = tmp / "nuscenes"
    records = []
    for i, letter in enumerate("ABCD"):
        rel = f"samples/CAM_FRONT/frame{i}.jpg"
        _jpg(root / rel, (10 * i, 0, 0))
        records.append({"scene_token": f"s{i}", "frame_token": f"f{i}", "question_type": "behavior",
                        "question": OPTIONS, "answer": letter, "tag": [0],
                        "image_path": {"CAM_FRONT": f"../data/nuscenes/{rel}", "CAM_BACK": "x.jpg"}})
    records.append({**records[0], "question_type": "perception", "frame_token": "p"})
    records.append({**records[1], "frame_token": "missing", "image_path": {"CAM_FRONT": "samples/CAM_FRONT/no.jpg"}})
    q = tmp / "drivebench-test.json"
    q.write_text(json.dumps(records))
    return q, root


def test_drivebench_directions_from_behaviour_answer(tmp_path: Path) -> None:
    q, root = _drivebench(tmp_path)
    result = drivebench.scan(q, root)
    got = {r.extra["frame_token"]: r.gt_action for r in result.records}
    assert got == {"f0": "left", "f1": "straight", "f2": "right"}
    rec = result.records[0]
    assert rec.path == "samples/CAM_FRONT/frame0.jpg" and rec.agent == "vehicle" and rec.dataset == "drivebench"
    assert rec.sha256 == sha256_file(root / rec.path)
    reasons = " | ".join(s.reason for s in result.skipped)
    assert "names no direction" in reasons and "not found" in reasons  # D. not moving; missing image
    assert len(result.skipped) == 2  # the perception question is ignored, not skipped


def test_drivebench_parsers() -> None:
    opts = drivebench.parse_options(OPTIONS)
    assert sorted(opts) == ["A", "B", "C", "D"] and opts["B"].startswith("The ego vehicle is going straight")
    assert drivebench.direction_of_behaviour("The ego vehicle is steering to the right.") == "right"
    assert drivebench.direction_of_behaviour("The ego vehicle is driving fast.") is None


def test_drivebench_bad_question_file(tmp_path: Path) -> None:
    with pytest.raises(BadInput, match="not found"):
        drivebench.scan(tmp_path / "nope.json", tmp_path)
    bad = tmp_path / "q.json"
    bad.write_text('{"a": 1}\n{broken\n')
    with pytest.raises(BadInput, match="line 2"):
        drivebench.scan(bad, tmp_path)


def _sa_xml(path: Path, x: float | str, y: float = 0.7, decision: str = "go") -> None:
    path.write_text(f"<annotation><goal_position><x>{x}</x><y>{y}</y></goal_position><left>wall</left>"
                    f"<right>bench</right><path>clear</path><recommend><decision>{decision}</decision></recommend>"
                    "</annotation>")


def test_sa_bench_thirds_and_skips(tmp_path: Path) -> None:
    for name, x in (("a", 0.1), ("b", 0.5), ("c", 0.9), ("d", 1 / 3)):
        _jpg(tmp_path / "scenes" / f"{name}.jpg")
        _sa_xml(tmp_path / "scenes" / f"{name}.xml", x)
    _jpg(tmp_path / "scenes" / "noxml.jpg")
    _jpg(tmp_path / "scenes" / "badx.jpg")
    _sa_xml(tmp_path / "scenes" / "badx.xml", "abc")
    (tmp_path / "scenes" / "corrupt.jpg").write_bytes(b"not a jpeg")
    _sa_xml(tmp_path / "scenes" / "corrupt.xml", 0.5)
    result = sa_bench.scan(tmp_path)
    got = {r.path: r.gt_action for r in result.records}
    assert got == {"scenes/a.jpg": "left", "scenes/b.jpg": "straight", "scenes/c.jpg": "right",
                   "scenes/d.jpg": "straight"}
    assert all(r.agent == "robot" and r.extra["decision"] == "go" for r in result.records)
    assert result.records[0].extra["left"] == {"simple": "wall"}  # a flat description is kept
    assert result.records[0].id == "sa_bench_scenes__a"
    reasons = {s.where: s.reason for s in result.skipped}
    assert "no same-name XML" in reasons["scenes/noxml.jpg"]
    assert "not numeric" in reasons["scenes/badx.xml"]
    assert "does not decode" in reasons["scenes/corrupt.jpg"]


REAL_LAYOUT = """<annotation>
  <goal_position><x>0.8</x><y>0.6</y></goal_position>
  <left><simple>a wall</simple><complex>a brick wall with a parked scooter</complex></left>
  <right><simple>a road</simple><complex>a two-lane road with cars</complex></right>
  <path><simple>clear</simple><complex>a clear paved sidewalk</complex></path>
  <dest><simple>crosswalk</simple><complex>a crosswalk at the corner</complex></dest>
  <recommend>Keep to the right side of the sidewalk.<decision>stop</decision></recommend>
</annotation>"""


def test_sa_bench_real_xml_layout_and_counts(tmp_path: Path) -> None:
    """SA-Bench's official layout: simple/complex descriptions, recommend text + decision; .JPG images; an
    XML without an image and an image without an XML are each reported and counted by kind."""
    _jpg(tmp_path / "s" / "one.JPG")
    (tmp_path / "s" / "one.xml").write_text(REAL_LAYOUT)
    (tmp_path / "s" / "orphan.xml").write_text(REAL_LAYOUT)
    _jpg(tmp_path / "s" / "lonely.png")
    result = sa_bench.scan(tmp_path)
    assert [r.path for r in result.records] == ["s/one.JPG"]
    extra = result.records[0].extra
    assert result.records[0].gt_action == "right"
    assert extra["left"] == {"simple": "a wall", "complex": "a brick wall with a parked scooter"}
    assert extra["dest"]["complex"] == "a crosswalk at the corner" and extra["path"]["simple"] == "clear"
    assert extra["recommend"] == "Keep to the right side of the sidewalk." and extra["decision"] == "stop"
    kinds = {s.where: s.key for s in result.skipped}
    assert kinds == {"s/orphan.xml": sa_bench.XML_WITHOUT_IMAGE, "s/lonely.png": sa_bench.IMAGE_WITHOUT_XML}
    out = tmp_path / "m.jsonl"
    code, text = invoke("sources", "scan", "sa-bench", "--root", tmp_path, "--out", out, "--no-hood")
    assert code == 0, text
    assert "skipped 2 (XML without image: 1; image without XML: 1)" in text


def test_direction_of_x_boundaries() -> None:
    assert [direction_of_x(v) for v in (0.0, 0.333, 1 / 3, 0.666, 2 / 3, 1.0)] == [
        "left", "left", "straight", "straight", "right", "right"]


def test_folder_index(tmp_path: Path) -> None:
    _jpg(tmp_path / "img" / "x.png")
    (tmp_path / "index.jsonl").write_text(
        json.dumps({"id": "x1", "path": "img/x.png", "gt_action": "left", "agent": "robot", "note": "hi"}) + "\n"
        + json.dumps({"id": "x2", "path": "img/gone.png", "gt_action": "right", "agent": "vehicle"}) + "\n")
    result = folder.scan(tmp_path / "index.jsonl")
    assert [r.id for r in result.records] == ["x1"] and result.records[0].extra == {"note": "hi"}
    assert len(result.skipped) == 1 and "not found" in result.skipped[0].reason


@pytest.mark.parametrize(("row", "match"), [
    ({"id": "x", "path": "a.png", "gt_action": "up", "agent": "robot"}, "line 1, field 'gt_action'"),
    ({"id": "x", "path": "../a.png", "gt_action": "left", "agent": "robot"}, "without '..'"),
])
def test_folder_index_bad_rows(tmp_path: Path, row: dict, match: str) -> None:
    (tmp_path / "index.jsonl").write_text(json.dumps(row) + "\n")
    with pytest.raises(BadInput, match=match):
        folder.scan(tmp_path / "index.jsonl")


def test_drivebench_duplicate_frames(tmp_path: Path) -> None:
    root = tmp_path / "nuscenes"
    _jpg(root / "samples/CAM_FRONT/a.jpg")
    _jpg(root / "samples/CAM_FRONT/b.jpg")
    base = {"scene_token": "s", "question_type": "behavior", "question": OPTIONS,
            "image_path": {"CAM_FRONT": "samples/CAM_FRONT/a.jpg"}}
    records = [{**base, "frame_token": "same", "answer": "A"}, {**base, "frame_token": "same", "answer": "A"},
               {**base, "frame_token": "clash", "answer": "A"}, {**base, "frame_token": "clash", "answer": "C"}]
    q = tmp_path / "q.jsonl"
    q.write_text("".join(json.dumps(r) + "\n" for r in records))  # JSON Lines form
    result = drivebench.scan(q, root)
    assert [r.extra["frame_token"] for r in result.records] == ["same"]
    assert ["disagreeing" in s.reason for s in result.skipped] == [True]
