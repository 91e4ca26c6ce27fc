"""The shard writer's byte paths: image files read straight into Arrow, row groups bounded in bytes, the
sha256 that follows a shard while it is written, and the figure drawn from the streamed rows."""

from __future__ import annotations

import hashlib
import io
import os
import threading
from pathlib import Path

import datasets
import pyarrow.parquet as pq
import pytest
from PIL import Image

from builder.movsafebench.publisher import movsafebench_rows_from_records
from builder.publish import shards as shards_mod
from builder.publish.figure import SampleTap, thumbnail
from builder.publish.shard_io import FollowingHash, ImageFile, image_struct_array
from builder.publish.shards import write_config
from eval_kit.errors import BadInput
from eval_kit.movsafebench import spec

PNG = b"\x89PNG\r\n\x1a\n"  # the PNG signature: publish embeds only files that start as images


def _records_on_disk(folder: Path, n: int, size: int = 50_000) -> list[dict]:
    """n records whose images are PNG-signed files of random bytes (the writer stores bytes as given)."""
    folder.mkdir(parents=True, exist_ok=True)
    out = []
    for i in range(n):
        scenario = spec.EDITED_SCENARIOS[i % 4]
        (folder / f"{i}.png").write_bytes(PNG + os.urandom(size + i))
        out.append({
            "id": f"r-{i:04d}", "image_path": f"{i}.png", "scenario": scenario,
            "answer": spec.SCENARIO_GROUND_TRUTHS[scenario][0], "category": spec.SCENARIO_CATEGORIES[scenario][0],
            "source_benchmark": "drivebench", "source_id": f"s{i}",
        })
    return out


def test_following_hash_equals_the_file_hash(tmp_path: Path) -> None:
    path = tmp_path / "f.bin"
    data = os.urandom(3_000_000)
    with open(path, "wb") as handle:
        follower = FollowingHash(path)
        for start in range(0, len(data), 700_001):
            handle.write(data[start:start + 700_001])
            handle.flush()
            follower.advance(handle.tell())
    assert follower.finish(len(data)) == hashlib.sha256(data).hexdigest()
    # advanced only at the end: the same digest
    late = FollowingHash(path)
    assert late.finish(len(data)) == hashlib.sha256(data).hexdigest()


def test_following_hash_reports_a_short_file(tmp_path: Path) -> None:
    path = tmp_path / "f.bin"
    path.write_bytes(b"abc")
    with pytest.raises(OSError, match="shorter"):
        FollowingHash(path).finish(10)


def test_image_file_checks_and_reads(tmp_path: Path) -> None:
    with pytest.raises(BadInput, match="cannot read image") as info:
        ImageFile.at(tmp_path / "missing.png", "record 3")
    assert info.value.field == "image_path" and "record 3" in str(info.value)
    with pytest.raises(BadInput, match="not a regular file"):
        ImageFile.at(tmp_path)
    path = tmp_path / "a.png"
    path.write_bytes(PNG + b"01")
    image = ImageFile.at(path, "record 1")
    assert image.size == 10 and image.read_bytes() == PNG + b"01"
    path.write_bytes(b"0123")  # changed after it was checked
    with pytest.raises(BadInput, match="changed size"):
        image.read_bytes()
    path.write_bytes(PNG + b"01AB")
    with pytest.raises(BadInput, match="changed size"):
        image.read_bytes()


def test_image_struct_array_reads_files_and_keeps_nulls(tmp_path: Path) -> None:
    files = []
    for i, payload in enumerate([PNG + b"first", PNG, PNG + b"third!"]):
        (tmp_path / f"{i}.png").write_bytes(payload)
        files.append(ImageFile.at(tmp_path / f"{i}.png"))
    struct_type = spec.features().arrow_schema.field("image").type
    array = image_struct_array([files[0], None, files[1], files[2]], struct_type)
    assert array.type == struct_type
    assert array.to_pylist() == [{"bytes": PNG + b"first", "path": None}, None, {"bytes": PNG, "path": None},
                                 {"bytes": PNG + b"third!", "path": None}]


def test_publish_reads_only_image_files_inside_the_input_folder(tmp_path: Path) -> None:
    inside = tmp_path / "in"
    inside.mkdir()
    (inside / "ok.png").write_bytes(PNG + b"x")
    assert ImageFile.at(inside / "ok.png", root=inside).size == len(PNG) + 1
    secret = tmp_path / "secret.png"
    secret.write_bytes(PNG + b"s")
    (inside / "link.png").symlink_to(secret)  # a symlink out of the folder
    (inside / "loop.png").symlink_to(inside / "loop.png")
    (inside / "fake.png").write_bytes(b"root:x:0:0:root:/root:/bin/bash\n")  # right name, wrong bytes
    cases = {
        inside / ".." / "secret.png": "is outside the input folder",
        inside / "link.png": "is outside the input folder",
        Path("/etc/passwd"): "is outside the input folder",
        inside / "loop.png": "cannot read image",
        inside / "fake.png": "not a .png image",
    }
    for path, message in cases.items():
        with pytest.raises(BadInput, match=message):
            ImageFile.at(path, root=inside)
    with pytest.raises(BadInput, match="not an image file"):
        ImageFile.at(Path("/etc/hostname"))  # no root: still only image formats


def test_image_files_round_trip_in_byte_bounded_row_groups(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setattr(shards_mod, "ROW_GROUP_BYTES", 200_000)
    records = _records_on_disk(tmp_path / "img", 23)
    shards = write_config(movsafebench_rows_from_records(records, base_dir=tmp_path / "img"), spec.features(),
                          tmp_path / "repo", "default", max_shard_bytes=700_000)
    assert len(shards) > 1
    for shard in shards:
        path = tmp_path / "repo" / shard.path
        assert shard.sha256 == hashlib.sha256(path.read_bytes()).hexdigest()
        meta = pq.ParquetFile(path).metadata
        assert meta.num_row_groups > 1
        assert all(meta.row_group(g).num_rows <= 4 for g in range(meta.num_row_groups))  # 4 x 50 kB >= bound
    ds = datasets.load_dataset(str(tmp_path / "repo"), "default", split="test",
                               cache_dir=str(tmp_path / "cache")).cast_column("image", datasets.Image(decode=False))
    assert ds["id"] == [r["id"] for r in records]
    assert [row["image"]["bytes"] for row in ds] == [(tmp_path / "img" / r["image_path"]).read_bytes()
                                                     for r in records]


def test_image_changed_while_publishing_keeps_the_old_config(tmp_path: Path) -> None:
    records = _records_on_disk(tmp_path / "img", 6)
    repo = tmp_path / "repo"
    first = write_config(movsafebench_rows_from_records(records, base_dir=tmp_path / "img"), spec.features(),
                         repo, "default")
    before = (repo / first[0].path).read_bytes()
    rows = movsafebench_rows_from_records(records, base_dir=tmp_path / "img")  # sizes taken now
    (tmp_path / "img" / "4.png").write_bytes(PNG + b"short")
    threads = threading.active_count()
    with pytest.raises(BadInput, match="changed size"):
        write_config(rows, spec.features(), repo, "default")
    assert (repo / first[0].path).read_bytes() == before
    assert [p.name for p in (repo / "data").iterdir()] == ["default"]  # no temporary folder left
    assert threading.active_count() == threads  # reader and hash threads stopped


def test_mixed_image_bytes_and_files_in_one_row_group(tmp_path: Path) -> None:
    records = _records_on_disk(tmp_path / "img", 4)
    records[1]["image"] = (tmp_path / "img" / records[1].pop("image_path")).read_bytes()
    shards = write_config(movsafebench_rows_from_records(records, base_dir=tmp_path / "img"), spec.features(),
                          tmp_path / "repo", "default")
    table = pq.read_table(tmp_path / "repo" / shards[0].path, columns=["image"])
    assert [v["bytes"] for v in table.column("image").to_pylist()] == [
        (tmp_path / "img" / f"{i}.png").read_bytes() for i in range(4)]


def _jpeg(color: tuple[int, int, int]) -> bytes:
    buffer = io.BytesIO()
    Image.new("RGB", (400, 225), color).save(buffer, format="JPEG")
    return buffer.getvalue()


def test_sample_tap_takes_the_first_rows_of_each_group_and_survives_bad_images() -> None:
    rows = [{"id": f"{i}", "scenario": ["static", "motion"][i % 2], "category": "car",
             "image": {"bytes": _jpeg((i * 20, 0, 0)) if i != 2 else b"not an image", "path": None}}
            for i in range(12)]
    tap = SampleTap(order=("static", "motion"), per_group=3)
    assert list(tap(iter(rows))) == rows  # rows pass through unchanged
    assert list(tap.picked) == ["static", "motion"] and all(len(v) == 3 for v in tap.picked.values())
    assert tap.picked["static"][1][0] is None  # row 2 cannot be decoded: an empty slot, no crash
    assert tap.picked["motion"][0][0].size == thumbnail(rows[1]["image"]).size
    with Image.open(io.BytesIO(tap.grid())) as grid:
        assert grid.format == "PNG" and grid.size[1] > 0
