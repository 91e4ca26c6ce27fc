"""`hazardkit validate`: a corpus of malformed submissions, one per kind of fault, each rejected with exit 2."""

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from builder.cli import cli
from eval_kit.movsafebench.task import MovSafeBenchTask

REFS = [
    {"id": "s1", "answer": "left", "scenario": "no_edit", "category": None, "source_benchmark": "drivebench"},
    {"id": "s2", "answer": "straight", "scenario": "static", "category": "dog", "source_benchmark": "drivebench"},
    {"id": "s3", "answer": "right", "scenario": "motion", "category": "human", "source_benchmark": "sa_bench"},
    {"id": "s4", "answer": "left", "scenario": "distance", "category": "cone", "source_benchmark": "sa_bench"},
]
GOOD = [{"id": "s1", "prediction": "left"}, {"id": "s2", "response": "Answer: B"},
        {"id": "s3", "prediction": "C"}, {"id": "s4", "prediction": "straight", "response": "go straight"}]


def lines(*objs) -> bytes:
    return b"".join((o if isinstance(o, bytes) else json.dumps(o).encode()) + b"\n" for o in objs)


def good_lines(**replace) -> bytes:
    """The good submission with some lines replaced ({index: object or raw bytes, or None to drop})."""
    out = []
    for i, obj in enumerate(GOOD):
        new = replace.get(f"l{i}", obj)
        if new is not None:
            out.append(new)
    return lines(*out)


# (kind of fault, predictions file bytes or a special marker, metadata change, expected message fragment)
PRED_FAULTS = [
    ("missing file", None, "file not found"),
    ("directory", "DIR", "got a directory"),
    ("empty file", b"", "file is empty"),
    ("only blank lines", b"\n\n  \n", "file is empty"),
    ("byte-order mark", b"\xef\xbb\xbf" + good_lines(), "byte-order mark"),
    ("not utf-8", good_lines(l1=b'{"id": "s2", "prediction": "\xff\xfe"}'), "not UTF-8"),
    ("malformed json", good_lines(l1=b'{"id": "s2" "prediction": "left"}'), "malformed JSON"),
    ("single quotes", good_lines(l1=b"{'id': 's2', 'prediction': 'left'}"), "malformed JSON"),
    ("trailing comma", good_lines(l1=b'{"id": "s2", "prediction": "left",}'), "malformed JSON"),
    ("truncated last line", good_lines()[:-12], "truncated last line"),
    ("json array line", good_lines(l1=b'["s2", "left"]'), "got list"),
    ("json string line", good_lines(l1=b'"s2 left"'), "got str"),
    ("json number line", good_lines(l1=b"42"), "got int"),
    ("json null line", good_lines(l1=b"null"), "got NoneType"),
    ("two objects on a line", good_lines(l1=b'{"id": "s2", "prediction": "left"} {"id": "s3"}'), "malformed JSON"),
    ("NaN literal", good_lines(l1=b'{"id": "s2", "prediction": NaN}'), "NaN is not a number JSON allows"),
    ("missing id", good_lines(l1={"prediction": "left"}), "'id' is a required property"),
    ("integer id", good_lines(l1={"id": 2, "prediction": "left"}), "is not of type 'string'"),
    ("null id", good_lines(l1={"id": None, "prediction": "left"}), "None is not of type 'string'"),
    ("empty id", good_lines(l1={"id": "", "prediction": "left"}), "should be non-empty"),
    ("id with spaces", good_lines(l1={"id": " s2 ", "prediction": "left"}), "leading or trailing whitespace"),
    ("no answer field", good_lines(l1={"id": "s2"}), "no answer"),
    ("null prediction and no response", good_lines(l1={"id": "s2", "prediction": None}), "no answer"),
    ("both null", good_lines(l1={"id": "s2", "prediction": None, "response": None}), "no answer"),
    ("integer prediction", good_lines(l1={"id": "s2", "prediction": 1}), "1 is not of type"),
    ("boolean prediction", good_lines(l1={"id": "s2", "prediction": True}), "True is not of type"),
    ("list prediction", good_lines(l1={"id": "s2", "prediction": ["left"]}), "is not of type"),
    ("object prediction", good_lines(l1={"id": "s2", "prediction": {"label": "left"}}), "is not of type"),
    ("unknown label", good_lines(l1={"id": "s2", "prediction": "up"}), "'up' is not a MovSafeBench answer"),
    ("option letter out of range", good_lines(l1={"id": "s2", "prediction": "D"}), "'D' is not a MovSafeBench"),
    ("empty label", good_lines(l1={"id": "s2", "prediction": ""}), "'' is not a MovSafeBench answer"),
    ("sentence as label", good_lines(l1={"id": "s2", "prediction": "go left"}), "'go left' is not a MovSafeBench"),
    ("integer response", good_lines(l1={"id": "s2", "response": 7}), "7 is not of type"),
    ("unknown field", good_lines(l1={"id": "s2", "prediction": "left", "confidence": 0.9}), "unknown field"),
    ("misspelt field", good_lines(l1={"id": "s2", "predicton": "left"}), "unknown field 'predicton'"),
    ("duplicate id", good_lines(l2={"id": "s2", "prediction": "left"}), "duplicate id 's2' (first on line 2)"),
    ("unknown id", good_lines(l1={"id": "s99", "prediction": "left"}), "id 's99' is not in the references"),
    ("missing sample", good_lines(l3=None), "1 of 4 reference ids have no prediction: 's4'"),
]
META_FAULTS = [
    ("metadata missing file", "MISSING", "metadata file not found"),
    ("metadata malformed", b'{"model": "m",', "malformed JSON"),
    ("metadata is a list", b"[]", "expected a JSON object, got list"),
    ("metadata without model", {"model": None}, "'model' is a required property"),
    ("metadata empty model", {"model": ""}, "should be non-empty"),
    ("metadata without dataset revision", {"dataset_revision": None}, "'dataset_revision' is a required property"),
    ("dataset revision mismatch", {"dataset_revision": "sha256:0000000000000000"}, "does not match the references"),
    ("wrong benchmark", {"benchmark": "saferelbench"}, "is for 'saferelbench', not 'movsafebench'"),
    ("unknown benchmark", {"benchmark": "imagenet"}, "is for 'imagenet', not 'movsafebench'"),
    ("unsupported benchmark version", {"benchmark_version": "9.9"}, "version '9.9' is not supported"),
    ("unknown backend", {"backend": "magic"}, "'magic' is not one of"),
    ("settings not an object", {"settings": "greedy"}, "'greedy' is not of type 'object'"),
    ("text_only not boolean", {"text_only": "yes"}, "'yes' is not of type 'boolean'"),
    ("unknown metadata field", {"gpu": "h100"}, "Additional properties are not allowed"),
]


@pytest.fixture
def refs(tmp_path) -> Path:
    path = tmp_path / "refs.jsonl"
    path.write_bytes(lines(*REFS))
    return path


def good_metadata(refs: Path) -> dict:
    return {"benchmark": "movsafebench", "benchmark_version": "1.0", "model": "m", "backend": "baseline",
            "dataset_revision": MovSafeBenchTask(refs).dataset_revision, "settings": {}, "text_only": False}


def validate(refs, preds, meta=None):
    args = ["validate", "movsafebench", "--references", str(refs), "--predictions", str(preds)]
    if meta is not None:
        args += ["--metadata", str(meta)]
    result = CliRunner().invoke(cli, args)
    return result.exit_code, result.output


def test_corpus_has_at_least_40_kinds():
    kinds = [k for k, *_ in PRED_FAULTS + META_FAULTS]
    assert len(kinds) == len(set(kinds)) >= 40


def test_good_submission_passes(tmp_path, refs):
    preds = tmp_path / "p.jsonl"
    preds.write_bytes(good_lines())
    meta = tmp_path / "m.json"
    meta.write_text(json.dumps(good_metadata(refs)))
    code, out = validate(refs, preds, meta)
    assert code == 0 and out.startswith("ok: 4 predictions"), out


@pytest.mark.parametrize(("kind", "content", "expected"), PRED_FAULTS, ids=[f[0] for f in PRED_FAULTS])
def test_malformed_predictions(tmp_path, refs, kind, content, expected):
    preds = tmp_path / "p.jsonl"
    if content == "DIR":
        preds.mkdir()
    elif content is not None:
        preds.write_bytes(content)
    code, out = validate(refs, preds)
    assert code == 2, out
    assert expected in out, out
    assert "Traceback" not in out and "internal error" not in out
    assert out.strip().splitlines()[-1].startswith("error: ") and "problem(s)" in out


@pytest.mark.parametrize(("kind", "change", "expected"), META_FAULTS, ids=[f[0] for f in META_FAULTS])
def test_malformed_metadata(tmp_path, refs, kind, change, expected):
    preds = tmp_path / "p.jsonl"
    preds.write_bytes(good_lines())
    meta = tmp_path / "m.json"
    if isinstance(change, bytes):
        meta.write_bytes(change)
    elif isinstance(change, dict):
        obj = good_metadata(refs)
        for key, value in change.items():
            if value is None:
                obj.pop(key)
            else:
                obj[key] = value
        meta.write_text(json.dumps(obj))
    code, out = validate(refs, preds, meta)
    assert code == 2, out
    assert expected in out, out
    assert "Traceback" not in out and "internal error" not in out


def test_every_problem_is_reported_at_once(tmp_path, refs):
    preds = tmp_path / "p.jsonl"
    preds.write_bytes(lines({"id": "s1", "prediction": "up"}, b"{broken", {"id": "s1", "prediction": "left"},
                            {"id": "zz", "response": "B"}, {"id": 5}))
    meta = tmp_path / "m.json"
    meta.write_text(json.dumps({**good_metadata(refs), "dataset_revision": "v0", "backend": "magic"}))
    code, out = validate(refs, preds, meta)
    assert code == 2
    errors = [ln for ln in out.splitlines() if ln.startswith("error: ")]
    for fragment in ("line 1, field 'prediction': 'up'", "line 2: malformed JSON", "line 3, field 'id': duplicate id",
                     "line 4, field 'id': id 'zz' is not in the references", "line 5, field 'id': 5 is not of type",
                     "3 of 4 reference ids have no prediction", "does not match the references", "'magic'"):
        assert any(fragment in e for e in errors), (fragment, out)
    assert errors[-1].endswith("9 problem(s) in the submission (listed above) (fix them all and validate again)")


def test_unknown_benchmark_is_bad_input(tmp_path, refs):
    result = CliRunner().invoke(cli, ["validate", "nobench", "-r", str(refs), "-p", str(refs)])
    assert result.exit_code == 2 and "unknown benchmark 'nobench'" in result.output
