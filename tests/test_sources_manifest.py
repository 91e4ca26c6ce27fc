"""Writing, reading and verifying the manifest of chosen sources (sha256 checked)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from PIL import Image

from builder.movsafebench.sources import folder
from builder.movsafebench.sources.manifest import open_source_image, read_manifest, verify_manifest, write_manifest
from eval_kit.errors import BadInput


def _sources(tmp: Path) -> Path:
    for i in range(3):
        Image.new("RGB", (16, 9), (i * 40, 10, 10)).save(tmp / f"im{i}.png")
    (tmp / "index.jsonl").write_text("".join(
        json.dumps({"id": f"s{i}", "path": f"im{i}.png", "gt_action": "left", "agent": "vehicle"}) + "\n"
        for i in (2, 0, 1)))
    return tmp / "index.jsonl"


def test_roundtrip_and_verify(tmp_path: Path) -> None:
    records = folder.scan(_sources(tmp_path)).records
    out = tmp_path / "manifests" / "movsafebench" / "v1" / "sources.jsonl"
    assert write_manifest(records, out) == 3
    lines = out.read_text().splitlines()
    assert [json.loads(line)["id"] for line in lines] == ["s0", "s1", "s2"]  # sorted, stable
    again = read_manifest(out)
    assert again == sorted(records, key=lambda r: r.id)
    roots = {"folder": tmp_path}
    assert verify_manifest(again, roots) == []
    assert open_source_image(again[0], roots).size == (16, 9)

    Image.new("RGB", (16, 9), (255, 255, 255)).save(tmp_path / "im1.png")  # altered
    (tmp_path / "im2.png").unlink()  # missing
    problems = {p.id: p.reason for p in verify_manifest(again, roots)}
    assert set(problems) == {"s1", "s2"}
    assert "checksum mismatch" in problems["s1"] and "missing" in problems["s2"]
    with pytest.raises(BadInput, match="checksum mismatch"):
        open_source_image(again[1], roots)


def test_corrupt_image_with_matching_checksum(tmp_path: Path) -> None:
    records = folder.scan(_sources(tmp_path)).records
    (tmp_path / "im0.png").write_bytes(b"garbage")
    from dataclasses import replace

    from builder.movsafebench.sources.common import sha256_file

    bad = replace(records[1], sha256=sha256_file(tmp_path / "im0.png"))  # records[1] is s0
    assert bad.id == "s0"
    [problem] = verify_manifest([bad], {"folder": tmp_path})
    assert "does not decode" in problem.reason


def test_bad_manifest_lines(tmp_path: Path) -> None:
    path = tmp_path / "sources.jsonl"
    good = {"id": "a", "dataset": "drivebench", "path": "samples/x.jpg", "sha256": "0" * 64,
            "gt_action": "left", "agent": "vehicle"}
    path.write_text(json.dumps(good) + "\n" + json.dumps({**good, "sha256": "xyz"}) + "\n")
    with pytest.raises(BadInput, match="line 2, field 'sha256'"):
        read_manifest(path)
    path.write_text(json.dumps({**good, "path": "/etc/passwd"}) + "\n")
    with pytest.raises(BadInput, match="field 'path'"):
        read_manifest(path)
    path.write_text(json.dumps(good) + "\n" + json.dumps(good) + "\n")
    with pytest.raises(BadInput, match="duplicate id"):
        read_manifest(path)
    with pytest.raises(BadInput, match="no root folder"):
        path.write_text(json.dumps(good) + "\n")
        verify_manifest(read_manifest(path), {})
