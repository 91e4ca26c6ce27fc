"""Parquet shards: round trip through datasets.load_dataset, size bounds, stable order, atomicity, guards."""

from __future__ import annotations

import io
import random
from pathlib import Path

import datasets
import pyarrow.parquet as pq
import pytest
from PIL import Image

from builder.movsafebench.publisher import movsafebench_rows_from_records
from builder.publish.guards import image_columns, refuse_images_if_annotations_only
from builder.publish.shard_io import ImageFile
from builder.publish.shards import published_configs, shard_name, write_config
from eval_kit.errors import BadInput
from eval_kit.movsafebench import spec
from tests.publish_fixtures import demo_records


def _png(seed: int, size=(64, 48)) -> bytes:
    """A noisy PNG: incompressible enough that shard sizes track the image bytes."""
    rng = random.Random(seed)
    img = Image.frombytes("RGB", size, bytes(rng.randrange(256) for _ in range(size[0] * size[1] * 3)))
    buf = io.BytesIO()
    img.save(buf, format="PNG")
    return buf.getvalue()


def _records(n: int) -> list[dict]:
    out = []
    for i in range(n):
        scenario = spec.EDITED_SCENARIOS[i % 4]
        cats = spec.SCENARIO_CATEGORIES[scenario]
        answers = spec.SCENARIO_GROUND_TRUTHS[scenario]
        out.append({
            "id": f"msb-{(i * 7919) % 1000:04d}", "image": _png(i), "answer": answers[i % len(answers)],
            "scenario": scenario, "category": cats[i % len(cats)], "source_benchmark": spec.SOURCE_BENCHMARKS[i % 2],
            "source_id": f"src-{i // 3}", "seed": i, "editor": "flux-fill", "editor_revision": "abc123",
        })
    return out


def _load(folder: Path, config: str):
    ds = datasets.load_dataset(str(folder), config, split="test", cache_dir=str(folder / ".cache"))
    return ds.cast_column("image", datasets.Image(decode=False))


def test_round_trip_through_load_dataset(tmp_path: Path) -> None:
    records = _records(12)
    random.Random(1).shuffle(records)
    shards = write_config(movsafebench_rows_from_records(records), spec.features(), tmp_path, "default")
    # datasets needs the card's configs to map data/default/ onto a config: minimal YAML here, full card elsewhere
    (tmp_path / "README.md").write_text(
        "---\nconfigs:\n- config_name: default\n  data_files:\n  - split: test\n    path: data/default/test-*\n---\n"
    )
    ds = _load(tmp_path, "default")
    by_id = {r["id"]: r for r in records}
    assert ds["id"] == sorted(by_id)  # stable order: sorted by id
    assert sum(s.num_rows for s in shards) == len(records)
    names = ds.features["answer"].names
    for row in ds:
        rec = by_id[row["id"]]
        assert row["image"]["bytes"] == rec["image"]  # stored as given, no re-encoding
        assert names[row["answer"]] == rec["answer"]
        assert ds.features["scenario"].names[row["scenario"]] == rec["scenario"]
        assert ds.features["category"].names[row["category"]] == rec["category"]
        assert ds.features["category_group"].names[row["category_group"]] == spec.GROUP_OF_CATEGORY[rec["category"]]
        assert row["question"] == spec.build_question(spec.AGENT_OF_SOURCE[rec["source_benchmark"]])
        assert row["seed"] == rec["seed"]


def test_no_edit_rows_have_null_category(tmp_path: Path) -> None:
    records = [r for r in demo_records(per_scenario=2) if r["scenario"] in ("no_edit", "static")]
    write_config(movsafebench_rows_from_records(records), spec.features(), tmp_path, "demo")
    table = pq.read_table(next((tmp_path / "data" / "demo").glob("*.parquet")))
    rows = table.to_pylist()
    scen = spec.features()["scenario"].names
    for row in rows:
        assert (row["category"] is None) == (scen[row["scenario"]] == "no_edit")


def test_shards_are_bounded_and_named(tmp_path: Path) -> None:
    records = _records(20)
    image_bytes = max(len(r["image"]) for r in records)
    bound = 4 * image_bytes
    shards = write_config(movsafebench_rows_from_records(records), spec.features(), tmp_path, "default",
                          max_shard_bytes=bound)
    assert len(shards) >= 5
    assert [Path(s.path).name for s in shards] == [shard_name("test", i, len(shards)) for i in range(len(shards))]
    ids = []
    for s in shards:
        table = pq.read_table(tmp_path / s.path)
        assert table.num_rows == s.num_rows <= 4
        payload = sum(len(b["bytes"]) for b in table.column("image").to_pylist())
        assert payload <= bound
        ids += table.column("id").to_pylist()
    assert ids == sorted(r["id"] for r in records)


def test_rebuild_replaces_config_and_leaves_no_temp(tmp_path: Path) -> None:
    write_config(movsafebench_rows_from_records(_records(20)), spec.features(), tmp_path, "default",
                 max_shard_bytes=2000)
    write_config(movsafebench_rows_from_records(_records(3)), spec.features(), tmp_path, "default")
    files = sorted((tmp_path / "data" / "default").iterdir())
    assert [f.name for f in files] == ["test-00000-of-00001.parquet"]
    assert [p.name for p in (tmp_path / "data").iterdir()] == ["default"]
    assert published_configs(tmp_path) == ["default"]


def test_failed_write_keeps_previous_config(tmp_path: Path) -> None:
    write_config(movsafebench_rows_from_records(_records(4)), spec.features(), tmp_path, "default")
    before = {p.name: p.read_bytes() for p in (tmp_path / "data" / "default").iterdir()}
    good = list(movsafebench_rows_from_records(_records(6)))
    bad = [*good[:3], {**good[3], "answer": "backwards"}, *good[4:]]
    with pytest.raises(BadInput):
        write_config(iter(bad), spec.features(), tmp_path, "default")
    after = {p.name: p.read_bytes() for p in (tmp_path / "data" / "default").iterdir()}
    assert after == before
    assert [p.name for p in (tmp_path / "data").iterdir()] == ["default"]


@pytest.mark.parametrize("order", ["unsorted", "duplicate"])
def test_writer_refuses_unsorted_or_duplicate_ids(tmp_path: Path, order: str) -> None:
    rows = list(movsafebench_rows_from_records(_records(3)))
    rows = rows[::-1] if order == "unsorted" else [rows[0], rows[0]]
    with pytest.raises(BadInput, match="out of order" if order == "unsorted" else "duplicate"):
        write_config(iter(rows), spec.features(), tmp_path, "default")


@pytest.mark.parametrize(
    ("change", "field"),
    [
        ({"answer": "up"}, "answer"),
        ({"scenario": "motion", "category": "cone", "answer": "left"}, "category"),  # cone cannot move
        ({"scenario": "motion", "category": "dog", "answer": "straight"}, "answer"),  # motion needs left/right
        ({"scenario": "no_edit", "category": "dog"}, "category"),
        ({"source_benchmark": "KITTI/../x"}, "source_benchmark"),  # any source, but an identifier
        ({"source_benchmark": "kitti", "agent": None}, "agent"),  # a source the spec does not know needs an agent
        ({"agent": "robot", "source_benchmark": "drivebench"}, "agent"),
        ({"id": ""}, "id"),
        ({"image": None}, "image_path"),
    ],
)
def test_records_are_checked_against_the_spec(change: dict, field: str) -> None:
    record = {**_records(1)[0], **change}
    with pytest.raises(BadInput) as info:
        list(movsafebench_rows_from_records([record]))
    assert info.value.field == field


def test_duplicate_record_ids_refused() -> None:
    rec = _records(1)[0]
    with pytest.raises(BadInput, match="duplicate id"):
        list(movsafebench_rows_from_records([rec, dict(rec)]))


def test_image_path_records_read_bytes_lazily(tmp_path: Path) -> None:
    recs = _records(2)
    for i, r in enumerate(recs):
        (tmp_path / f"img{i}.png").write_bytes(r.pop("image"))
        r["image_path"] = f"img{i}.png"
    rows = list(movsafebench_rows_from_records(recs, base_dir=tmp_path))
    first = [r["id"] for r in recs].index(rows[0]["id"])
    assert isinstance(rows[0]["image"], ImageFile)  # read when the shard is written, not before
    assert rows[0]["image"].read_bytes() == (tmp_path / f"img{first}.png").read_bytes()
    recs[0]["image_path"] = "missing.png"
    with pytest.raises(BadInput, match="cannot read image"):  # refused before anything is written
        movsafebench_rows_from_records(recs, base_dir=tmp_path)


def test_bd_hazardvlm_image_columns_refused() -> None:
    with_image = datasets.Features({"id": datasets.Value("string"), "image": datasets.Image()})
    nested = datasets.Features({"id": datasets.Value("string"),
                                "views": datasets.Sequence(datasets.Image())})
    annotations = datasets.Features({"id": datasets.Value("string"), "severity": datasets.Value("string")})
    assert image_columns(nested) == ["views"]
    for feats in (with_image, nested):
        with pytest.raises(BadInput, match="annotations only"):
            refuse_images_if_annotations_only("bd_hazardvlm", feats, allows_images=False)
    refuse_images_if_annotations_only("bd_hazardvlm", annotations, allows_images=False)  # no image column: allowed
    refuse_images_if_annotations_only("movsafebench", with_image, allows_images=True)  # images allowed there
    # the registry's publishers say which benchmark is annotations-only
    from builder.publish.publishers import get_publisher

    assert not get_publisher("bd-hazardvlm").allows_images and get_publisher("movsafebench").allows_images
    with pytest.raises(BadInput):
        refuse_images_if_annotations_only("other", with_image, allows_images=False)


def test_fast_row_encoder_matches_datasets() -> None:
    from builder.publish.shards import _row_encoder

    features = spec.features()
    encode = _row_encoder(features)
    rows = list(movsafebench_rows_from_records(demo_records(per_scenario=2) + _records(4)))
    for row in rows:
        assert encode(row) == features.encode_example(row)
    with pytest.raises(ValueError):
        encode({**rows[0], "answer": "up"})
    nested = datasets.Features({"id": datasets.Value("string"), "tags": datasets.Sequence(datasets.Value("string"))})
    row = {"id": "a", "tags": ["x", "y"]}
    assert _row_encoder(nested)(row) == nested.encode_example(row)  # non-flat features go through datasets


def test_rows_that_do_not_fit_the_schema_are_bad_input(tmp_path: Path) -> None:
    rows = list(movsafebench_rows_from_records(_records(3)))
    with pytest.raises(BadInput, match="does not fit"):
        write_config(iter([{**rows[0], "answer": 7}]), spec.features(), tmp_path, "a")  # label index out of range
    with pytest.raises(BadInput, match="does not fit"):
        write_config(iter([{**rows[0], "seed": "not a number"}]), spec.features(), tmp_path, "b")
    with pytest.raises(BadInput, match="lacks column"):
        write_config(iter([{k: v for k, v in rows[0].items() if k != "prompt"}]), spec.features(), tmp_path, "c")
    assert published_configs(tmp_path) == []


def test_shard_sha256_matches_the_file(tmp_path: Path) -> None:
    """The sha256 recorded for each shard (manifest, Croissant) is that of the file on disk."""
    import hashlib

    records = _records(250)  # several row groups per shard, several shards
    bound = 60 * max(len(r["image"]) for r in records)
    shards = write_config(movsafebench_rows_from_records(records), spec.features(), tmp_path, "default",
                          max_shard_bytes=bound)
    assert len(shards) >= 3
    for s in shards:
        assert s.sha256 == hashlib.sha256((tmp_path / s.path).read_bytes()).hexdigest()
        assert s.num_bytes == (tmp_path / s.path).stat().st_size
