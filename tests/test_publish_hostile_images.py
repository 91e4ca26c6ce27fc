"""`publish` decodes every image within a pixel limit: bombs and undecodable files are refused naming the row.

Each hostile file starts with valid PNG magic (the old check read only 16 bytes), so only decoding finds it:
a 30,000 x 30,000 PNG of about 109 KB, a PNG whose zTXt chunk inflates to 200 MiB, and bytes that are no
image. The refusal is exit 2 with one line naming the records line and id; the old release stays whole.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.cli_helpers import invoke
from tests.hostile_images import huge_png, undecodable_png, ztxt_bomb_png
from tests.publish_fixtures import demo_records, write_records_input


@pytest.fixture(scope="module")
def hostile() -> dict[str, bytes]:
    return {"huge": huge_png(), "ztxt": ztxt_bomb_png(), "garbage": undecodable_png(),
            "over_limit": huge_png(9_000)}  # 81 MP: under Pillow's own bomb limit, over publish's 64 MP


def _records_with(folder: Path, name: str, data: bytes) -> tuple[Path, int, str]:
    """A records folder of demo rows whose 5th row's image is replaced by `data` (a .png file)."""
    records = [r for r in demo_records(per_scenario=2) if r["scenario"] != "no_edit"]
    write_records_input(folder, records)
    lines = (folder / "records.jsonl").read_text().splitlines()
    row = json.loads(lines[4])
    (folder / "images" / f"{name}.png").write_bytes(data)
    row["image_path"] = f"images/{name}.png"
    lines[4] = json.dumps(row)
    (folder / "records.jsonl").write_text("\n".join(lines) + "\n")
    return folder, 5, row["id"]


@pytest.mark.parametrize(("name", "expected"), [
    ("huge", "decompression bomb"),
    ("ztxt", "MAX_TEXT_CHUNK"),
    ("garbage", "does not decode"),
    ("over_limit", "over the publish limit of 64,000,000"),
])
def test_publish_refuses_hostile_image_naming_the_row(hostile, tmp_path: Path, name: str, expected: str) -> None:
    folder, line, rid = _records_with(tmp_path / "records", name, hostile[name])
    repo = tmp_path / "repo"
    code, out = invoke("publish", "movsafebench", "--config", "demo", "--version", "0.1.0", "--input", folder,
                       "--out", repo, "--date", "2026-12-01")
    assert code == 2, out
    errors = [x for x in out.splitlines() if "error" in x.lower()]
    assert len(errors) == 1, out
    assert expected in errors[0] and f"records.jsonl line {line}" in errors[0] and repr(rid) in errors[0], out
    assert "Traceback" not in out
    assert not (repo / "data" / "demo").exists()  # nothing was released


def test_bomb_refused_keeps_the_previous_release(hostile, tmp_path: Path) -> None:
    good = write_records_input(tmp_path / "good", [r for r in demo_records(per_scenario=2)
                                                   if r["scenario"] != "no_edit"])
    repo = tmp_path / "repo"
    code, out = invoke("publish", "movsafebench", "--config", "demo", "--version", "0.1.0", "--input", good,
                       "--out", repo, "--date", "2026-12-01")
    assert code == 0, out
    before = {p.name: p.read_bytes() for p in (repo / "data" / "demo").iterdir()}
    folder, _, _ = _records_with(tmp_path / "bad", "ztxt", hostile["ztxt"])
    code, out = invoke("publish", "movsafebench", "--config", "demo", "--version", "0.1.1", "--input", folder,
                       "--out", repo, "--date", "2026-12-01")
    assert code == 2 and "MAX_TEXT_CHUNK" in out
    assert {p.name: p.read_bytes() for p in (repo / "data" / "demo").iterdir()} == before
