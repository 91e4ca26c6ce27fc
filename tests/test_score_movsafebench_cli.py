"""`hazardkit score movsafebench`: JSON output, paper tables, and one-line errors with exit 2 on bad input."""

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from builder.cli import cli
from eval_kit.testing.synthetic_references import table2_references


def _write_jsonl(path: Path, rows) -> Path:
    path.write_text("".join((r if isinstance(r, str) else json.dumps(r)) + "\n" for r in rows))
    return path


@pytest.fixture
def refs(tmp_path):
    rows = table2_references(seed=5)[:60]  # 60 no_edit rows ...
    rows += [r for r in table2_references(seed=5) if r["scenario"] == "motion"][:40]
    return rows


@pytest.fixture
def ref_file(tmp_path, refs):
    return _write_jsonl(tmp_path / "refs.jsonl", refs)


def run(*args):
    result = CliRunner().invoke(cli, ["score", "movsafebench", *map(str, args)])
    return result.exit_code, result.output


def test_json_output(tmp_path, refs, ref_file):
    preds = []
    for i, r in enumerate(refs):
        if i % 4 == 0:
            preds.append({"id": r["id"], "response": f"<think>hmm</think>Answer: go {r['answer']}"})
        elif i % 4 == 1:
            preds.append({"id": r["id"], "prediction": {"left": "A", "straight": "B", "right": "C"}[r["answer"]]})
        elif i % 4 == 2:
            preds.append({"id": r["id"], "response": "I am not sure."})
        else:
            preds.append({"id": r["id"], "prediction": r["answer"].upper()})
    pred_file = _write_jsonl(tmp_path / "preds.jsonl", preds)
    code, out = run("--references", ref_file, "--predictions", pred_file, "--json")
    assert code == 0, out
    result = json.loads(out)
    assert result["benchmark"] == "movsafebench"
    assert result["num_samples"] == 100 and result["num_edited"] == 40
    assert result["accuracy"] == pytest.approx(30 / 40)
    assert result["by_scenario"]["no_edit"] == pytest.approx(45 / 60)
    assert result["unparsed"] == 25
    assert set(result["by_group"]) <= {"normal", "anomalous"}
    lo, hi = result["ci95"]
    assert 0 <= lo <= result["accuracy"] <= hi <= 1


def test_tables_output(tmp_path, refs, ref_file):
    pred_file = _write_jsonl(tmp_path / "p.jsonl", [{"id": r["id"], "prediction": r["answer"]} for r in refs])
    code, out = run("-r", ref_file, "-p", pred_file)
    assert code == 0, out
    assert "paper table 3" in out and "paper table 4" in out and "paper table 5" in out
    assert "Total accuracy 100.0%" in out


def test_parquet_dataset_folder_with_classlabels(tmp_path, refs):
    import datasets

    from eval_kit.movsafebench import spec

    feats = spec.features()
    cols = {k: [r[k] for r in refs] for k in ("id", "answer", "scenario", "category", "source_benchmark", "source_id")}
    ds = datasets.Dataset.from_dict(cols, features=datasets.Features({k: feats[k] for k in cols}))
    out_dir = tmp_path / "ds" / "data" / "test"
    out_dir.mkdir(parents=True)
    ds.to_parquet(str(out_dir / "test-00000-of-00001.parquet"))
    pred_file = _write_jsonl(tmp_path / "p.jsonl", [{"id": r["id"], "prediction": r["answer"]} for r in refs])
    code, out = run("-r", tmp_path / "ds", "-p", pred_file, "--json")
    assert code == 0, out
    assert json.loads(out)["accuracy"] == 1.0


BAD_PREDICTIONS = [
    ("malformed", ['{"id": "x", "prediction": "left"'], "line 1", "malformed JSON"),
    ("not-object", ['["left"]'], "line 1", "expected a JSON object"),
    ("no-id", [{"prediction": "left"}], "line 1", "'id' is a required property"),
    ("id-type", [{"id": 5, "prediction": "left"}], "field 'id'", "is not of type 'string'"),
    ("neither", [{"id": "a"}], "line 1", "is not valid under any of the given schemas"),
    ("unknown-label", [{"id": "REF0", "prediction": "up"}], "field 'prediction'", "not a MovSafeBench answer"),
    ("wrong-type", [{"id": "REF0", "prediction": 1}], "field 'prediction'", ""),
    ("unknown-id", [{"id": "nope", "prediction": "left"}], "field 'id'", "not in the references"),
    ("duplicate", [{"id": "REF0", "prediction": "left"}, {"id": "REF0", "prediction": "left"}], "line 2",
     "duplicate id"),
    ("empty", [], "", "file is empty"),
    ("missing", [{"id": "REF0", "prediction": "left"}], "field 'id'", "have no prediction"),
]


@pytest.mark.parametrize(("name", "lines", "where", "what"), BAD_PREDICTIONS, ids=[b[0] for b in BAD_PREDICTIONS])
def test_bad_predictions_exit_2(tmp_path, refs, ref_file, name, lines, where, what):
    lines = [json.loads(json.dumps(x).replace("REF0", refs[0]["id"])) if isinstance(x, dict) else x for x in lines]
    pred_file = _write_jsonl(tmp_path / "bad.jsonl", lines)
    code, out = run("-r", ref_file, "-p", pred_file)
    assert code == 2
    assert out.startswith("error: ") and out.count("\n") == 1, out
    assert "bad.jsonl" in out and where in out and what in out
    assert "Traceback" not in out


def test_bad_references_exit_2(tmp_path, refs):
    bad = [dict(refs[0]), dict(refs[60], category=None), dict(refs[1], answer="up")]
    ref_file = _write_jsonl(tmp_path / "refs.jsonl", bad[:2])
    pred_file = _write_jsonl(tmp_path / "p.jsonl", [{"id": r["id"], "prediction": "left"} for r in bad[:2]])
    code, out = run("-r", ref_file, "-p", pred_file)
    assert code == 2 and "line 2" in out and "field 'category'" in out
    _write_jsonl(ref_file, [bad[2]])
    code, out = run("-r", ref_file, "-p", pred_file)
    assert code == 2 and "field 'answer'" in out


def test_missing_files_exit_2(tmp_path, ref_file):
    code, out = run("-r", tmp_path / "nope.parquet", "-p", ref_file)
    assert code == 2 and "file not found" in out
    bad_parquet = tmp_path / "x.parquet"
    bad_parquet.write_bytes(b"not parquet")
    code, out = run("-r", bad_parquet, "-p", ref_file)
    assert code == 2 and "not a readable Parquet file" in out


def test_allow_missing_scores_missing_as_wrong(tmp_path, refs, ref_file):
    pred_file = _write_jsonl(tmp_path / "p.jsonl", [{"id": r["id"], "prediction": r["answer"]} for r in refs[:80]])
    code, out = run("-r", ref_file, "-p", pred_file, "--json", "--allow-missing")
    assert code == 0, out
    result = json.loads(out)
    assert result["missing"] == 20 and result["unparsed"] == 0
    assert result["accuracy"] == pytest.approx(20 / 40)


def test_help_explains():
    result = CliRunner().invoke(cli, ["--help"])
    assert result.exit_code == 0 and "score" in result.output and "Exit codes" in result.output
    result = CliRunner().invoke(cli, ["score", "movsafebench", "--help"])
    assert "--references" in result.output and "no_edit" in result.output
