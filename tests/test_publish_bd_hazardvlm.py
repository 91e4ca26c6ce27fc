"""BD-HazardVLM publishing: annotations + image manifest only, read back with datasets, card round trip,
push plan with a mocked HfApi, the image-column refusals and the local-only configs."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from unittest.mock import MagicMock

import datasets
import pyarrow.parquet as pq
import pytest
from click.testing import CliRunner
from huggingface_hub import DatasetCard
from huggingface_hub.errors import RepositoryNotFoundError

from builder.bd_hazardvlm import reconstruct as rec
from builder.bd_hazardvlm.publisher import bd_hazardvlm_publisher
from builder.cli import cli
from builder.publish import release
from builder.publish.card import check_card
from builder.publish.pipeline import publish
from eval_kit.bd_hazardvlm import spec
from eval_kit.errors import BadInput

DEMO = Path(__file__).resolve().parents[1] / rec.DEMO_DIR  # absolute: some tests chdir


def _load(folder: Path, config: str, cache: Path) -> datasets.Dataset:
    return datasets.load_dataset(str(folder), config, split="test", cache_dir=str(cache))


def _reconstruct_demo(out: Path) -> None:
    pairs = {s: str(DEMO / "sources" / s) for s in spec.SOURCE_DATASETS}
    report = rec.reconstruct(DEMO / "image_manifest.jsonl", DEMO / "annotations.jsonl", pairs, out, config="demo")
    assert report.complete


@pytest.fixture(scope="module")
def repo(tmp_path_factory) -> tuple[Path, object]:
    out = tmp_path_factory.mktemp("bd") / "bd_hazardvlm"
    _reconstruct_demo(out)  # the local `demo` config (images) lives in the same folder, as after make demo-data
    result = publish("bd_hazardvlm", version="0.1.0", config="demo_annotations", out=out, date="2026-11-30",
                     repo_id="org/bd-hazardvlm")
    return out, result


def test_published_annotations_read_back_with_the_same_ids_and_labels(repo, tmp_path):
    out, result = repo
    assert result.problems == []
    ds = _load(out, "demo_annotations", tmp_path)
    truth = spec.load_annotations(DEMO / "annotations.jsonl")
    assert "image" not in ds.features and ds.features == spec.features(with_image=False)
    assert ds["id"] == sorted(truth)
    decoded = ds.features["primary_hazard_category"].int2str(ds["primary_hazard_category"])
    actions = ds.features["defensive_actions"].feature.int2str
    for row, category in zip(ds, decoded, strict=True):
        record = truth[row["id"]]
        assert category == record["primary_hazard_category"]
        assert ds.features["risk_timing"].int2str(row["risk_timing"]) == record["risk_timing"]
        assert [actions(a) for a in row["defensive_actions"]] == record["defensive_actions"]
        assert (row["hallucination_trap"], row["western_bias_trap"]) == (record["hallucination_trap"],
                                                                         record["western_bias_trap"])


def test_local_demo_config_still_loads_with_images(repo, tmp_path):
    out, _ = repo
    ds = _load(out, "demo", tmp_path)
    assert "image" in ds.features and len(ds) == 20 and ds[0]["image"].size == (192, 108)


def test_card_round_trips_and_lists_a_published_config_first(repo):
    out, result = repo
    card = DatasetCard.load(out / "README.md")
    assert card.data.to_dict() == result.header
    names = [c["config_name"] for c in result.header["configs"]]
    assert names == ["demo_annotations", "demo", "reconstructed"]
    assert check_card(out, bd_hazardvlm_publisher(), expected_header=result.header) == []
    # the hand-written content survives, and the counts are measured
    truth = spec.load_annotations(DEMO / "annotations.jsonl").values()
    traps = sum(r["western_bias_trap"] for r in truth)
    assert "Rebuilding the images" in card.text and "Limitations (from the paper)" in card.text
    assert f"`western_bias_trap`: False {20 - traps}, True {traps}" in card.text


def test_manifest_attached_and_local_configs_never_released(repo):
    out, result = repo
    attached = out / "manifests" / "demo_annotations" / "image_manifest.jsonl"
    assert attached.read_bytes() == (DEMO / "image_manifest.jsonl").read_bytes()
    planned = [rel for rel, _ in result.plan.files]
    assert "manifests/demo_annotations/image_manifest.jsonl" in planned
    assert not any(rel.startswith(("data/demo/", "reconstructed/")) for rel in planned)
    manifest = json.loads((out / release.MANIFEST_FILENAME).read_text())
    assert not any(rel.startswith("data/demo/") for rel in manifest["files"])
    assert release.verify_manifest(out, ("data/demo", "reconstructed")) == []


def test_croissant_lists_the_manifest_and_a_repeated_actions_field(repo):
    out, _ = repo
    doc = json.loads((out / "croissant.json").read_text())
    ids = {d["@id"] for d in doc["distribution"]}
    assert "manifests/demo_annotations/image_manifest.jsonl" in ids
    [records] = doc["recordSet"]
    fields = {f["name"]: f for f in records["field"]}
    assert fields["demo_annotations/defensive_actions"]["repeated"] is True
    assert "repeated" not in fields["demo_annotations/severity"]
    assert "demo_annotations/image" not in fields


def test_push_uploads_only_annotations_and_tags(repo):
    out, result = repo
    api = MagicMock()
    err = RepositoryNotFoundError.__new__(RepositoryNotFoundError)
    Exception.__init__(err, "404")
    api.list_repo_refs.side_effect = err
    api.create_commit.return_value = MagicMock(oid="ab" * 20)
    assert release.push(result.plan, api=api) == "ab" * 20
    ops = api.create_commit.call_args.kwargs["operations"]
    paths = sorted(op.path_in_repo for op in ops)
    assert paths == sorted(rel for rel, _ in result.plan.files)
    for op in ops:
        if op.path_in_repo.endswith(".parquet"):
            assert "image" not in pq.read_schema(out / op.path_in_repo).names
    api.create_tag.assert_called_once()
    assert api.create_tag.call_args.kwargs["tag"] == "v0.1.0"


def test_image_column_in_the_features_is_refused_before_writing(tmp_path):
    pub = bd_hazardvlm_publisher()
    pub.features = lambda: spec.features(with_image=True)
    out = tmp_path / "bd"
    with pytest.raises(BadInput, match=r"annotations only.*image"):
        publish(pub, version="0.1.0", config="demo_annotations", out=out)
    assert not out.exists()


def test_stray_image_parquet_in_the_folder_is_refused(tmp_path):
    out = tmp_path / "bd"
    _reconstruct_demo(out)
    stray = out / "data" / "copied"
    stray.mkdir()
    shutil.copy(out / "data" / "demo" / rec.PARQUET_NAME, stray / rec.PARQUET_NAME)
    with pytest.raises(BadInput, match=r"data/copied/.*image column"):
        publish("bd_hazardvlm", version="0.1.0", config="demo_annotations", out=out)
    assert not (out / "data" / "demo_annotations").exists()


def _cli(args: list[str]) -> tuple[int, str]:
    res = CliRunner().invoke(cli, args)
    return res.exit_code, res.output


def test_cli_refuses_the_local_demo_config_with_exit_2(tmp_path):
    code, out = _cli(["publish", "bd-hazardvlm", "--version", "0.1.0", "--config", "demo", "--out", str(tmp_path)])
    assert code == 2 and "never published" in out and "demo_annotations" in out and "Traceback" not in out


def _copy_demo(tmp_path: Path) -> Path:
    folder = tmp_path / "input"
    folder.mkdir()
    for name in ("annotations.jsonl", "image_manifest.jsonl"):
        shutil.copy(DEMO / name, folder / name)
    return folder


def test_demo_records_refused_in_the_benchmark_config(tmp_path):
    with pytest.raises(BadInput, match="demo record"):
        publish("bd_hazardvlm", version="0.1.0", config="annotations", input_path=_copy_demo(tmp_path),
                out=tmp_path / "bd")


def test_manifest_that_does_not_match_the_annotations_is_refused(tmp_path):
    folder = _copy_demo(tmp_path)
    lines = (folder / "image_manifest.jsonl").read_text().splitlines()
    (folder / "image_manifest.jsonl").write_text("\n".join(lines[1:]) + "\n")
    with pytest.raises(BadInput, match="no manifest entry for BDHV_DEMO_0001"):
        publish("bd_hazardvlm", version="0.1.0", config="demo_annotations", input_path=folder,
                out=tmp_path / "bd")


def test_benchmark_config_is_default_and_first(tmp_path):
    """Real-shaped ids (BDHV_0001..): config `annotations` becomes the default and the first config."""
    folder = _copy_demo(tmp_path)
    for name in ("annotations.jsonl", "image_manifest.jsonl"):
        path = folder / name
        path.write_text(path.read_text().replace("BDHV_DEMO_00", "BDHV_00"))
    out = tmp_path / "bd"
    publish("bd_hazardvlm", version="0.1.0", config="demo_annotations", out=out)
    result = publish("bd_hazardvlm", version="0.2.0", config="annotations", input_path=folder, out=out)
    assert result.problems == []
    configs = result.header["configs"]
    assert [c["config_name"] for c in configs] == ["annotations", "demo_annotations", "demo", "reconstructed"]
    assert configs[0].get("default") is True
    ds = _load(out, "annotations", tmp_path / "cache")
    assert ds["id"][:2] == ["BDHV_0001", "BDHV_0002"] and len(ds) == 20
    # the published annotations feed reconstruct and scoring directly
    assert set(spec.load_annotations(out / "data" / "annotations")) == set(ds["id"])


def test_load_by_folder_name_from_the_parent_folder(repo, tmp_path, monkeypatch):
    """What `make demo-data` promises: load_dataset("bd_hazardvlm", ...) from the repository root."""
    out, _ = repo
    monkeypatch.chdir(out.parent)
    for config, rows in (("demo", 20), ("demo_annotations", 20)):
        ds = datasets.load_dataset("bd_hazardvlm", config, split="test", cache_dir=str(tmp_path / config))
        assert len(ds) == rows


def test_croissant_records_read_with_mlcroissant(repo, monkeypatch):
    mlc = pytest.importorskip("mlcroissant")
    out, _ = repo
    monkeypatch.chdir(out)
    truth = spec.load_annotations(DEMO / "annotations.jsonl")
    records = list(mlc.Dataset(jsonld="croissant.json").records("demo_annotations"))
    assert [r["demo_annotations/id"].decode() for r in records] == sorted(truth)
    for r in records:  # the repeated field holds the class indices of the action set
        expected = truth[r["demo_annotations/id"].decode()]["defensive_actions"]
        assert [spec.ACTIONS[i] for i in r["demo_annotations/defensive_actions"]] == expected
