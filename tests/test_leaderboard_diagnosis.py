"""Predictions for the wrong config or dataset revision get a diagnosis, not a flood (issue 24, item 5):
one line first saying how many ids match and which config they fit, the revision mismatch before it, then a
few examples and a count, in `hazardkit validate` and in the app alike."""

import json
from pathlib import Path

import pytest

from eval_kit.leaderboard.space.pipeline import Leaderboard
from eval_kit.leaderboard.space.settings import Reference, SpaceSettings
from tests.cli_helpers import invoke


@pytest.fixture(scope="module")
def dataset(tmp_path_factory) -> Path:
    """A dataset folder with two configs: default (30 rows, ids ms-0000...) and demo (20 other ids)."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    from eval_kit.testing.synthetic_datasets import write_parquet_folder

    folder = tmp_path_factory.mktemp("two-configs") / "movsafebench"
    write_parquet_folder(folder, 20, seed=1, config="demo")
    write_parquet_folder(folder, 30, seed=2, config="default")
    [part] = (folder / "data" / "default").glob("*.parquet")
    table = pq.read_table(part)
    ids = pa.array([f"ms-{i:04d}" for i in range(table.num_rows)])
    pq.write_table(table.set_column(table.column_names.index("id"), "id", ids), part)
    return folder


def _predictions(dataset: Path, config: str, out: Path) -> Path:
    import pyarrow.parquet as pq

    [part] = (dataset / "data" / config).glob("*.parquet")
    ids = pq.read_table(part, columns=["id"]).column("id").to_pylist()
    out.write_text("".join(json.dumps({"id": i, "prediction": "straight"}) + "\n" for i in ids))
    return out


def test_validate_names_the_config_the_predictions_fit(dataset, tmp_path):
    preds = _predictions(dataset, "default", tmp_path / "p.jsonl")
    code, output = invoke("validate", "movsafebench", "-r", dataset, "--config", "demo", "-p", preds)
    assert code == 2
    lines = output.splitlines()
    assert lines[0] == (f"error: {preds}, field 'id': 0 of 30 ids are in config demo: are these predictions for "
                        "config default? (30 of 30 ids are in config default) (validate against config default "
                        "(--config default), or predict the samples of config demo)")
    examples = [line for line in lines if "is not in the references" in line]
    assert len(examples) == 3 and "line 1" in examples[0]
    assert any("... and 27 more ids not in the references (lines 4-30)" in line for line in lines)
    assert len(lines) <= 8, lines  # the diagnosis, 3 examples, the count, the missing ids, the total
    # the right config is clean
    code, output = invoke("validate", "movsafebench", "-r", dataset, "--config", "default", "-p", preds)
    assert code == 0, output


def test_the_revision_mismatch_is_named_first(dataset, tmp_path):
    preds = _predictions(dataset, "default", tmp_path / "p.jsonl")
    meta = tmp_path / "metadata.json"
    meta.write_text(json.dumps({"benchmark": "movsafebench", "benchmark_version": "1.0", "model": "m",
                                "backend": "vllm", "dataset_revision": "v0.1.0"}))
    code, output = invoke("validate", "movsafebench", "-r", dataset, "--config", "demo", "-p", preds,
                          "--metadata", meta)
    lines = output.splitlines()
    assert code == 2
    assert lines[0].startswith(f"error: {meta}, field 'dataset_revision': dataset revision 'v0.1.0' does not match")
    assert "0 of 30 ids are in config demo: are these predictions for config default?" in lines[1]


def test_a_few_unknown_ids_are_each_listed_and_a_single_file_gets_no_config_guess(tmp_path):
    refs = tmp_path / "refs.jsonl"
    from eval_kit.testing.synthetic_datasets import rows

    refs.write_text("".join(json.dumps({"id": f"ms-{i:04d}", "answer": r["answer"], "scenario": r["scenario"],
                                        "category": r["category"], "source_benchmark": r["source_benchmark"],
                                        "source_id": r["source_id"]}) + "\n" for i, r in enumerate(rows(20, seed=3))))
    preds = tmp_path / "p.jsonl"
    ids = [f"ms-{i:04d}" for i in range(18)] + ["typo-1", "typo-2"]
    preds.write_text("".join(json.dumps({"id": i, "prediction": "left"}) + "\n" for i in ids))
    code, output = invoke("validate", "movsafebench", "-r", refs, "-p", preds)
    assert code == 2
    assert [line for line in output.splitlines() if "is not in the references" in line] == [
        f"error: {preds}, line 19, field 'id': id 'typo-1' is not in the references (check that the predictions "
        "match this benchmark and config)",
        f"error: {preds}, line 20, field 'id': id 'typo-2' is not in the references (check that the predictions "
        "match this benchmark and config)"]
    other = tmp_path / "other.jsonl"
    other.write_text("".join(json.dumps({"id": f"x-{i}", "prediction": "left"}) + "\n" for i in range(20)))
    code, output = invoke("validate", "movsafebench", "-r", refs, "-p", other)
    assert output.splitlines()[0].endswith("0 of 20 ids are in config default: are these predictions for this "
                                           "benchmark and split? (check that the predictions match this benchmark "
                                           "and config)")


def test_the_app_gives_the_same_diagnosis(dataset, tmp_path):
    settings = SpaceSettings(data_dir=tmp_path / "space", n_bootstrap=100,
                             references={"movsafebench": Reference("movsafebench", str(dataset), "demo")})
    lb = Leaderboard(settings)
    preds = _predictions(dataset, "default", tmp_path / "p.jsonl")
    outcome = lb.submit(preds, "p.jsonl", "movsafebench", "m", user="u1")
    assert outcome.status == "invalid"
    assert outcome.lines[0] == ("error: p.jsonl, field 'id': 0 of 30 ids are in config demo: are these predictions "
                                "for config default? (30 of 30 ids are in config default) (validate against config "
                                "default (--config default), or predict the samples of config demo)")
    assert len(outcome.lines) <= 6 and str(tmp_path) not in outcome.text
