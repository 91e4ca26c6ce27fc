"""Dataset card, figure and Croissant of a published demo config: round trips and checks that can fail."""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
from collections import Counter
from pathlib import Path

import datasets
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from huggingface_hub import DatasetCard, DatasetCardData
from PIL import Image

from builder.publish.card import check_card
from builder.publish.croissant import structural_problems
from builder.publish.pipeline import publish
from builder.publish.publishers import get_publisher
from tests.lock import byte_sizes_masked, lock_drift
from tests.publish_fixtures import demo_records, write_records_input

REPO_ROOT = Path(__file__).resolve().parent.parent
BUILD = {"notes": "Rebuilt after the sprite fix."}


@pytest.fixture(scope="module")
def published(tmp_path_factory):
    out = tmp_path_factory.mktemp("repo") / "movsafebench"
    records = write_records_input(tmp_path_factory.mktemp("records"))
    result = publish("movsafebench", version="0.2.0", config="demo", out=out, date="2026-11-30",
                     repo_id="hazardkit/movsafebench", build_info=BUILD, input_path=records)
    return out, result


def test_card_round_trips_through_huggingface_hub(published) -> None:
    out, result = published
    assert result.problems == []
    card = DatasetCard.load(out / "README.md")
    assert card.data.to_dict() == result.header
    assert DatasetCardData(**result.header).to_dict() == result.header
    header = result.header
    assert header["license"] == "other" and header["pretty_name"] == "MovSafeBench"
    assert header["task_categories"] == ["visual-question-answering"]
    assert header["size_categories"] == ["n<1K"]
    assert header["configs"] == [{"config_name": "demo",
                                  "data_files": [{"split": "test", "path": "data/demo/test-*"}]}]
    info = datasets.info.DatasetInfosDict.from_dataset_card_data(card.data)["demo"]
    assert info.features == get_publisher("movsafebench").features()
    assert info.splits["test"].num_examples == len(demo_records())
    # the body: counts table per scenario x category, measured from the files
    counts = Counter((r["scenario"], r["category"] or "no object") for r in demo_records())
    header_line = next(line for line in card.text.splitlines() if line.startswith("| scenario |"))
    columns = [c.strip() for c in header_line.strip("|").split("|")]
    for scenario in ("no_edit", "static", "motion", "intrusion", "distance"):
        line = next(line for line in card.text.splitlines() if line.startswith(f"| {scenario} |"))
        cells = [c.strip() for c in line.strip("|").split("|")]
        for col, cell in zip(columns[1:-1], cells[1:-1], strict=True):
            assert cell == (str(counts[(scenario, col)]) if counts[(scenario, col)] else "-")
        assert cells[-1] == str(sum(v for (s, _), v in counts.items() if s == scenario))
    for text in ("`demo-procedural`", "Maintainer's note (their words, not computed): Rebuilt after the sprite fix.",
                 "Acceptance rates: not known for this config", "goal_position.x", "OUR assumption", "## Citation",
                 "## Changelog", "**0.2.0** (2026-11-30)", "demo data", "nuScenes"):
        assert text in card.text


def test_figure_is_written_and_linked(published) -> None:
    out, _ = published
    card = DatasetCard.load(out / "README.md")
    assert "](assets/samples_demo.png)" in card.text
    with Image.open(out / "assets" / "samples_demo.png") as img:
        assert img.format == "PNG"
        assert img.height >= 5 * 108  # one row per scenario


def test_load_dataset_reads_the_published_config(published, tmp_path: Path) -> None:
    out, _ = published
    ds = datasets.load_dataset(str(out), "demo", split="test", cache_dir=str(tmp_path / "cache"))
    ds = ds.cast_column("image", datasets.Image(decode=False))
    records = {r["id"]: r for r in demo_records()}
    assert ds["id"] == sorted(records)
    ans = ds.features["answer"].names
    for row in ds:
        assert row["image"]["bytes"] == records[row["id"]]["image"]
        assert ans[row["answer"]] == records[row["id"]]["answer"]


def test_load_dataset_by_folder_name_from_repo_root(published, tmp_path: Path, monkeypatch) -> None:
    """What `make demo-data` promises: load_dataset("movsafebench", "demo") from the folder above it."""
    out, _ = published
    shutil.copytree(out, tmp_path / "movsafebench")
    monkeypatch.chdir(tmp_path)
    ds = datasets.load_dataset("movsafebench", "demo", split="test", cache_dir=str(tmp_path / "cache"))
    assert len(ds) == len(demo_records())


def test_committed_card_is_the_generator_output(tmp_path: Path) -> None:
    """movsafebench/README.md in git is what `make demo-data` writes, so the repo-root load works after it."""
    publish("movsafebench", version="0.1.0", config="demo", out=tmp_path, date="2026-11-30",
            notes="demo config: HazardForge on synthetic scenes")
    committed = (REPO_ROOT / "movsafebench" / "README.md").read_text()
    assert byte_sizes_masked(committed) == byte_sizes_masked((tmp_path / "README.md").read_text()), lock_drift()


def test_check_card_finds_wrong_counts_and_schemas(published, tmp_path: Path) -> None:
    out, _ = published
    publisher = get_publisher("movsafebench")
    copy = tmp_path / "copy"
    shutil.copytree(out, copy)
    assert check_card(copy, publisher) == []
    readme = copy / "README.md"
    text = readme.read_text()
    readme.write_text(re.sub(r"num_examples: \d+", "num_examples: 999", text))
    assert any("999" in str(p) for p in check_card(copy, publisher))
    readme.write_text(text)
    shard = next((copy / "data" / "demo").glob("*.parquet"))
    table = pq.read_table(shard).drop_columns(["seed"])
    pq.write_table(table, shard)
    assert any("schema differs" in str(p) or "features" in str(p) for p in check_card(copy, publisher))
    extra = copy / "data" / "extra"
    extra.mkdir()
    pq.write_table(pa.table({"id": ["x"]}), extra / "test-00000-of-00001.parquet")
    assert any("configs" in str(p) for p in check_card(copy, publisher))


def test_croissant_structure_and_hashes(published) -> None:
    out, _ = published
    doc = json.loads((out / "croissant.json").read_text())
    assert structural_problems(doc) == []
    assert doc["version"] == "0.2.0" and doc["conformsTo"] == "http://mlcommons.org/croissant/1.0"
    objects = [d for d in doc["distribution"] if d["@type"] == "cr:FileObject"]
    assert [o["contentUrl"] for o in objects] == ["data/demo/test-00000-of-00001.parquet"]
    for o in objects:
        assert o["sha256"] == hashlib.sha256((out / o["contentUrl"]).read_bytes()).hexdigest()
    fields = {f["name"] for f in doc["recordSet"][0]["field"]}
    assert fields == {f"demo/{name}" for name in get_publisher("movsafebench").features()}
    broken = json.loads(json.dumps(doc))
    broken["recordSet"][0]["field"][0]["source"]["fileSet"]["@id"] = "nowhere"
    del broken["distribution"][0]["sha256"]
    assert len(structural_problems(broken)) == 2


def test_croissant_validates_and_reads_with_mlcroissant(published, monkeypatch) -> None:
    mlc = pytest.importorskip("mlcroissant")
    out, _ = published
    monkeypatch.chdir(out)
    dataset = mlc.Dataset(jsonld=os.fspath(out / "croissant.json"))
    ids = [r["demo/id"].decode() for r in dataset.records("demo")]
    assert ids == sorted(r["id"] for r in demo_records())


def test_two_configs_in_one_folder(tmp_path: Path) -> None:
    """Publishing `default` next to `demo` lists both in the card; `default` is the default config."""
    from builder.movsafebench.publisher import movsafebench_rows_from_records

    out = tmp_path / "movsafebench"
    publish("movsafebench", version="0.1.0", config="demo", out=out, date="2026-11-30",
            input_path=write_records_input(tmp_path / "records"))
    edited = [r for r in demo_records(per_scenario=3, seed=7) if r["scenario"] != "no_edit"]
    for r in edited:
        r["id"] = r["id"].replace("demo-", "msb-")
    result = publish("movsafebench", version="0.2.0", config="default", out=out, date="2026-12-01",
                     rows=movsafebench_rows_from_records(edited))
    assert result.problems == []
    configs = {c["config_name"]: c for c in result.header["configs"]}
    assert set(configs) == {"default", "demo"} and configs["default"].get("default") is True
    assert "default" not in configs["demo"]
    assert result.header["size_categories"] == ["n<1K"]
    ds = datasets.load_dataset(str(out), split="test")  # no config name: the default one
    assert sorted(ds["id"]) == sorted(r["id"] for r in edited)
    assert len(datasets.load_dataset(str(out), "demo", split="test")) == len(demo_records())
    card = DatasetCard.load(out / "README.md")
    assert "**0.2.0** (2026-12-01)" in card.text and "**0.1.0** (2026-11-30)" in card.text
    doc = json.loads((out / "croissant.json").read_text())
    assert sorted(rs["@id"] for rs in doc["recordSet"]) == ["default", "demo"]


def test_published_folder_is_scorable(published, tmp_path: Path) -> None:
    """The scorer reads the published config as references (ClassLabels decoded, null category for no_edit)."""
    from eval_kit.movsafebench.submission import score_files

    out, _ = published
    records = demo_records()
    flipped = next(r for r in records if r["scenario"] == "static")
    wrong = next(a for a in ("left", "straight", "right") if a != flipped["answer"])
    pred = tmp_path / "pred.jsonl"
    pred.write_text("".join(json.dumps({"id": r["id"], "prediction": wrong if r is flipped else r["answer"]}) + "\n"
                            for r in records))
    result = score_files(out, pred, config="demo", n_bootstrap=100)
    edited = sum(r["scenario"] != "no_edit" for r in records)
    assert result["num_samples"] == len(records) and result["num_edited"] == edited
    assert result["accuracy"] == pytest.approx((edited - 1) / edited)
