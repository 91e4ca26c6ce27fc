"""`hazardkit validate` errors that point at the fix: predictions of another benchmark are one diagnosis line,
not a schema flood; an id that differs only by Unicode normalisation names the forms and shows the code points;
one schema problem on many lines is a few examples and a count."""

import json
import unicodedata
from pathlib import Path

from tests.cli_helpers import invoke
from tests.test_leaderboard_app_browser import _write_refs

ROOT = Path(__file__).resolve().parents[1]
BD_REFS = ROOT / "manifests" / "bd_hazardvlm" / "v1" / "demo" / "annotations.jsonl"


def _errors(output: str) -> list[str]:
    return [line for line in output.splitlines() if line.startswith("error: ")]


def test_predictions_of_another_benchmark_are_one_diagnosis_line(tmp_path):
    refs = tmp_path / "ms.jsonl"
    _write_refs(refs)
    preds = tmp_path / "ms_preds.jsonl"
    preds.write_text("".join(json.dumps({"id": json.loads(line)["id"], "prediction": "left"}) + "\n"
                             for line in refs.read_text().splitlines()))
    code, output = invoke("validate", "bd-hazardvlm", "-r", BD_REFS, "-p", preds)
    assert code == 2
    lines = _errors(output)
    assert lines[0] == (f"error: {preds}, field 'prediction': 60 of 60 lines do not fit the bd_hazardvlm prediction "
                        "format: are these MovSafeBench predictions? (the first 20 lines fit its format) (validate "
                        f"them as MovSafeBench: hazardkit validate movsafebench -r REFERENCES -p {preds})")
    assert len(lines) <= 4, lines  # the diagnosis, one example of each schema problem, the total: no flood
    assert "(and on 59 more lines)" in lines[1]
    # and the same file is valid where it belongs
    code, output = invoke("validate", "movsafebench", "-r", refs, "-p", preds)
    assert code == 0, output


def test_an_id_in_another_unicode_normal_form_names_the_forms_and_code_points(tmp_path):
    refs = tmp_path / "refs.jsonl"
    _write_refs(refs)
    rows = [json.loads(line) for line in refs.read_text().splitlines()]
    rows[0]["id"] = unicodedata.normalize("NFC", "café-0000")  # U+00E9
    refs.write_text("".join(json.dumps(r) + "\n" for r in rows))
    nfd = unicodedata.normalize("NFD", rows[0]["id"])  # e + U+0301: prints alike
    preds = tmp_path / "p.jsonl"
    preds.write_text("".join(json.dumps({"id": nfd if i == 0 else r["id"], "prediction": r["answer"]}) + "\n"
                             for i, r in enumerate(rows)))
    code, output = invoke("validate", "movsafebench", "-r", refs, "-p", preds)
    assert code == 2
    [line] = [x for x in _errors(output) if "normalisation" in x]
    assert line == (f"error: {preds}, line 1, field 'id': id {nfd!r} differs from reference id {rows[0]['id']!r} "
                    "only by Unicode normalisation: written in NFD here (U+0301), in NFC in the references (U+00E9) "
                    "(write ids exactly as the dataset stores them, e.g. unicodedata.normalize('NFC', id))")
    assert "not in the references" not in output.split(line)[0]  # not the generic line with the wrong fix


def test_one_schema_problem_on_many_lines_is_counted(tmp_path):
    refs = tmp_path / "refs.jsonl"
    _write_refs(refs)
    preds = tmp_path / "p.jsonl"
    preds.write_text("".join(json.dumps({"id": json.loads(line)["id"], "prediction": 7}) + "\n"
                             for line in refs.read_text().splitlines()))
    code, output = invoke("validate", "movsafebench", "-r", refs, "-p", preds)
    assert code == 2
    lines = _errors(output)
    # two problems on every line (no answer; not a string): three examples of each, then a count of each
    assert sum(", line " in x for x in lines) == 6
    assert output.count("... and 57 more lines with the same problem (lines 4-60)") == 2 and len(lines) <= 10, lines
