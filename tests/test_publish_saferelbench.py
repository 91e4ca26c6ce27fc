"""SafeRelBench publishing: validated samples read back with datasets, measured card counts, card round
trip, repeated list fields in Croissant, push plan with a mocked HfApi, refusal of an invalid sample."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from unittest.mock import MagicMock

import datasets
import pytest
from click.testing import CliRunner
from huggingface_hub import DatasetCard
from huggingface_hub.hf_api import GitRefInfo, GitRefs

from builder.cli import cli
from builder.publish import release
from builder.publish.pipeline import publish
from builder.saferelbench.samples import DEMO_DIR, load_validated_samples
from eval_kit.errors import BadInput
from eval_kit.saferelbench import spec
from eval_kit.saferelbench.samples import load_samples


@pytest.fixture(scope="module")
def repo(tmp_path_factory):
    out = tmp_path_factory.mktemp("sr") / "saferelbench"
    result = publish("saferelbench", version="0.1.0", config="demo", out=out, date="2026-11-30",
                     repo_id="org/saferelbench")
    return out, result


@pytest.fixture(scope="module")
def truth() -> dict[str, dict]:
    return {row["id"]: row for row in load_validated_samples(DEMO_DIR)}


def test_published_samples_read_back_with_the_same_ids_and_labels(repo, truth, tmp_path):
    out, result = repo
    assert result.problems == []
    ds = datasets.load_dataset(str(out), "demo", split="test", cache_dir=str(tmp_path))
    assert ds["id"] == sorted(truth)
    for row in ds:
        expected = truth[row["id"]]
        for name in ("split", "relation", "risk_type"):
            assert ds.features[name].int2str(row[name]) == expected[name]
        assert row["initial_state"] == expected["initial_state"]
        assert json.loads(row["reference_plan"]) == json.loads(expected["reference_plan"])
    # and the scorer's loader reads the published folder back into the same samples
    assert set(load_samples(out, config="demo")) == set(truth)


def test_card_round_trips_with_measured_counts(repo, truth):
    out, result = repo
    card = DatasetCard.load(out / "README.md")
    assert card.data.to_dict() == result.header
    assert "## Rules of scoring" in card.text and "## Relations and risk types" in card.text
    cells = Counter((r["risk_type"], r["split"]) for r in truth.values())
    for risk in spec.RISK_TYPES:
        spatial, control = cells[(risk, "spatial")], cells[(risk, "control")]
        if spatial + control:
            line = (f"| {spec.RELATION_OF_RISK[risk]} | `{risk}` | {spatial or '-'} | {control or '-'} | "
                    f"{spatial + control} |")
            assert line in card.text
    per_relation = Counter(r["relation"] for r in truth.values())
    assert "- `relation`: " + ", ".join(f"{k} {v}" for k, v in sorted(per_relation.items())) in card.text


def test_croissant_marks_list_fields_repeated(repo):
    out, _ = repo
    doc = json.loads((out / "croissant.json").read_text())
    fields = {f["name"]: f for f in doc["recordSet"][0]["field"]}
    assert fields["demo/initial_state"]["repeated"] is True and fields["demo/initial_state"]["dataType"] == "sc:Text"
    assert "repeated" not in fields["demo/objects"]


def test_push_with_a_mocked_api_refuses_an_existing_tag_then_pushes(repo):
    _, result = repo
    api = MagicMock()
    api.list_repo_refs.return_value = GitRefs(branches=[], converts=[], tags=[
        GitRefInfo(name="v0.1.0", ref="refs/tags/v0.1.0", target_commit="0" * 40)])
    with pytest.raises(BadInput, match="already exists"):
        release.push(result.plan, api=api)
    api.create_commit.assert_not_called()
    api.list_repo_refs.return_value = GitRefs(branches=[], converts=[], tags=[])
    api.list_repo_files.return_value = ["README.md"]
    api.create_commit.return_value = MagicMock(oid="cd" * 20)
    assert release.push(result.plan, api=api) == "cd" * 20
    paths = {op.path_in_repo for op in api.create_commit.call_args.kwargs["operations"]}
    assert paths == {rel for rel, _ in result.plan.files} and "data/demo/test-00000-of-00001.parquet" in paths


FIRST = json.loads((DEMO_DIR / "demo.jsonl").read_text().splitlines()[0])["id"]


def _broken_input(tmp_path: Path) -> Path:
    """The demo samples with the first sample's reference plan less its last acting step: well-formed, but the
    reference plan no longer reaches the goal, so self-validation fails."""
    lines = [json.loads(line) for line in (DEMO_DIR / "demo.jsonl").read_text().splitlines() if line.strip()]
    for sample in lines:
        if sample["id"] == FIRST:
            plan = sample["reference_plan"]
            last = max(i for i, a in enumerate(plan) if a["action"] not in ("RELEASE", "NAVIGATE_TO"))
            sample["reference_plan"] = plan[:last] + plan[last + 1:]
    path = tmp_path / "samples.jsonl"
    path.write_text("".join(json.dumps(s) + "\n" for s in lines))
    return path


def test_invalid_sample_is_refused_and_nothing_written(tmp_path):
    out = tmp_path / "saferelbench"
    with pytest.raises(BadInput, match=rf"{FIRST}.*self-validation"):
        publish("saferelbench", version="0.1.0", config="demo", input_path=_broken_input(tmp_path), out=out)
    assert not (out / "data" / "demo").exists() and not (out / "README.md").exists()


def test_cli_exit_2_on_invalid_sample(tmp_path):
    res = CliRunner().invoke(cli, ["publish", "saferelbench", "--version", "0.1.0", "--config", "demo", "--input",
                                   str(_broken_input(tmp_path)), "--out", str(tmp_path / "o")])
    assert res.exit_code == 2 and FIRST in res.output and "Traceback" not in res.output


def test_load_by_folder_name_from_the_parent_folder(repo, tmp_path, monkeypatch):
    out, _ = repo
    monkeypatch.chdir(out.parent)
    recipe = json.loads((Path(__file__).resolve().parents[1] / "manifests" / "saferelbench" / "demo.json").read_text())
    assert len(datasets.load_dataset("saferelbench", "demo", split="test", cache_dir=str(tmp_path))) == \
        recipe["samples"]


def test_croissant_records_read_with_mlcroissant(repo, truth, monkeypatch):
    mlc = pytest.importorskip("mlcroissant")
    out, _ = repo
    monkeypatch.chdir(out)
    records = list(mlc.Dataset(jsonld="croissant.json").records("demo"))
    assert [r["demo/id"].decode() for r in records] == sorted(truth)
    first = records[0]
    assert [s.decode() for s in first["demo/initial_state"]] == truth[first["demo/id"].decode()]["initial_state"]
