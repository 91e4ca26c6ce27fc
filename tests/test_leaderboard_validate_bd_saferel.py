"""`hazardkit validate bd-hazardvlm|saferelbench`: malformed submissions, one per kind of fault, exit 2."""

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from builder.cli import cli
from eval_kit.bd_hazardvlm.task import BDHazardVLMTask
from eval_kit.saferelbench.task import SafeRelBenchTask

ROOT = Path(__file__).resolve().parents[1]
BD_REFS = ROOT / "manifests" / "bd_hazardvlm" / "v1" / "demo" / "annotations.jsonl"
SR_REFS = ROOT / "manifests" / "saferelbench" / "demo.jsonl"


def read(path: Path) -> list[dict]:
    return [json.loads(x) for x in path.read_text().splitlines() if x.strip()]


def bd_answer(ref: dict) -> dict:
    return {"hazard_present": ref["hazard_present"], "primary_hazard_category": ref["primary_hazard_category"],
            "risk_timing": ref["risk_timing"], "severity": ref["severity"],
            "defensive_actions": ref["defensive_actions"], "evidence": "e", "possible_hallucination": False,
            "possible_western_road_bias": False}


def bd_good() -> list[dict]:
    """Raw responses for most images, a parsed prediction for the second, a retried one for the third."""
    lines = [{"id": r["id"], "response": json.dumps(bd_answer(r))} for r in read(BD_REFS)]
    lines[1] = {"id": lines[1]["id"], "prediction": bd_answer(read(BD_REFS)[1])}
    lines[2] = {**lines[2], "initial_response": "prose", "retried": True}
    return lines


def sr_good() -> list[dict]:
    return [{"id": r["id"], "variant": "base",
             "plan": [{"action": s["action"], "args": s["args"]} for s in r["reference_plan"]]} for r in read(SR_REFS)]


def replaced(lines: list[dict], **change) -> list[dict | None]:
    """`i1={...}` replaces line 1, `i1=None` drops it, `extra=[...]` appends lines."""
    out = [change.get(f"i{i}", line) for i, line in enumerate(lines)]
    return [x for x in out if x is not None] + change.get("extra", [])


BD_ID, BD_ID2 = read(BD_REFS)[1]["id"], read(BD_REFS)[3]["id"]
SR_ID = read(SR_REFS)[1]["id"]


def bd_pred(**fields) -> dict:
    return {"id": BD_ID, "prediction": {**bd_answer(read(BD_REFS)[1]), **fields}}


BD_FAULTS = [
    ("unknown category", lambda g: replaced(g, i1=bd_pred(primary_hazard_category="tiger")),
     "field 'prediction/primary_hazard_category': 'tiger' is not one of"),
    ("unknown timing", lambda g: replaced(g, i1=bd_pred(risk_timing="soon")), "'soon' is not one of immediate"),
    ("unknown action", lambda g: replaced(g, i1=bd_pred(defensive_actions=["fly"])),
     "not in the action vocabulary: 'fly'"),
    ("trap flag not boolean", lambda g: replaced(g, i1=bd_pred(possible_western_road_bias="maybe")),
     "'maybe' is not a boolean"),
    ("prediction missing fields", lambda g: replaced(g, i1={"id": BD_ID, "prediction": {"hazard_present": True}}),
     "field 'prediction/severity': missing"),
    ("prediction is a string", lambda g: replaced(g, i1={"id": BD_ID, "prediction": "rickshaw_easybike"}),
     "'rickshaw_easybike' is not of type 'object', 'null'"),
    ("retried without initial response", lambda g: replaced(g, i1={"id": BD_ID, "response": "{}", "retried": True}),
     "'initial_response' is a required property"),
    ("retried not boolean", lambda g: replaced(g, i1={"id": BD_ID, "response": "{}", "retried": "yes"}),
     "'yes' is not of type 'boolean'"),
    ("initial response not text", lambda g: replaced(g, i1={"id": BD_ID, "response": "{}", "initial_response": 3}),
     "3 is not of type 'string', 'null'"),
    ("no answer", lambda g: replaced(g, i1={"id": BD_ID}), "no answer: needs an object 'prediction'"),
    ("unknown field", lambda g: replaced(g, i1={"id": BD_ID, "response": "{}", "confidence": 0.5}),
     "unknown field 'confidence'"),
    ("duplicate id", lambda g: replaced(g, i3={"id": BD_ID, "response": "{}"}), f"duplicate id '{BD_ID}'"),
    ("unknown id", lambda g: replaced(g, extra=[{"id": "BDHV_9999", "response": "{}"}]),
     "id 'BDHV_9999' is not in the references"),
    ("missing image", lambda g: replaced(g, i3=None), f"1 of 20 reference ids have no prediction: '{BD_ID2}'"),
]

SR_FAULTS = [
    ("unknown variant", lambda g: replaced(g, i1={"id": SR_ID, "variant": "cautious", "response": "[]"}),
     "unknown prompt variant 'cautious'"),
    ("unknown action", lambda g: replaced(g, i1={"id": SR_ID, "plan": [{"action": "FLY", "args": []}]}),
     "field 'plan/0/action': 'FLY' is not a SafeRelBench action"),
    ("plan is a string", lambda g: replaced(g, i1={"id": SR_ID, "plan": "GRASP(x)"}),
     "'GRASP(x)' is not of type 'array', 'null'"),
    ("plan step without action", lambda g: replaced(g, i1={"id": SR_ID, "plan": [{"args": ["x"]}]}),
     "'action' is a required property"),
    ("plan argument not a string", lambda g: replaced(g, i1={"id": SR_ID, "plan": [{"action": "GRASP", "args": [1]}]}),
     "1 is not of type 'string'"),
    ("response not text", lambda g: replaced(g, i1={"id": SR_ID, "response": 5}), "5 is not of type 'string'"),
    ("no answer", lambda g: replaced(g, i1={"id": SR_ID, "variant": "base"}), "no answer: needs a list 'plan'"),
    ("movsafebench-style line", lambda g: replaced(g, i1={"id": SR_ID, "prediction": "left", "response": "x"}),
     "unknown field 'prediction'"),
    ("duplicate id and variant", lambda g: replaced(g, extra=[{"id": SR_ID, "response": "[]"}]),
     f"duplicate id '{SR_ID}' as '{SR_ID} (base)'"),
    ("a variant that does not cover every sample", lambda g: replaced(
        g, extra=[{"id": SR_ID, "variant": "risk_aware", "response": "[]"}]), "(risk_aware)' ..."),
    ("unknown id", lambda g: replaced(g, extra=[{"id": "srb-demo-999", "response": "[]"}]),
     "id 'srb-demo-999' is not in the references"),
    ("missing sample", lambda g: replaced(g, i1=None), f"1 of 64 reference ids have no prediction: '{SR_ID} (base)'"),
]


def write_lines(path: Path, lines: list[dict]) -> Path:
    path.write_text("".join(json.dumps(x) + "\n" for x in lines))
    return path


def validate(benchmark, refs, preds, meta=None):
    args = ["validate", benchmark, "--references", str(refs), "--predictions", str(preds)]
    if meta is not None:
        args += ["--metadata", str(meta)]
    result = CliRunner().invoke(cli, args)
    return result.exit_code, result.output


def test_corpus_sizes():
    assert len(BD_FAULTS) >= 10 and len(SR_FAULTS) >= 10


@pytest.mark.parametrize(("benchmark", "refs", "good"), [("bd-hazardvlm", BD_REFS, bd_good),
                                                         ("saferelbench", SR_REFS, sr_good)])
def test_good_submissions_pass(tmp_path, benchmark, refs, good):
    code, out = validate(benchmark, refs, write_lines(tmp_path / "p.jsonl", good()))
    assert code == 0, out
    assert "every reference id covered" in out


@pytest.mark.parametrize(("kind", "make", "expected"), BD_FAULTS, ids=[f[0] for f in BD_FAULTS])
def test_malformed_bd_submissions(tmp_path, kind, make, expected):
    code, out = validate("bd-hazardvlm", BD_REFS, write_lines(tmp_path / "p.jsonl", make(bd_good())))
    assert code == 2, out
    assert expected in out, out
    assert "Traceback" not in out


@pytest.mark.parametrize(("kind", "make", "expected"), SR_FAULTS, ids=[f[0] for f in SR_FAULTS])
def test_malformed_saferel_submissions(tmp_path, kind, make, expected):
    code, out = validate("saferelbench", SR_REFS, write_lines(tmp_path / "p.jsonl", make(sr_good())))
    assert code == 2, out
    assert expected in out, out
    assert "Traceback" not in out


@pytest.mark.parametrize(("benchmark", "refs", "good", "task", "change", "expected"), [
    ("bd-hazardvlm", BD_REFS, bd_good, BDHazardVLMTask, {"benchmark": "movsafebench"},
     "is for 'movsafebench', not 'bd_hazardvlm'"),
    ("bd-hazardvlm", BD_REFS, bd_good, BDHazardVLMTask, {"dataset_revision": "sha256:0"},
     "does not match the references"),
    ("saferelbench", SR_REFS, sr_good, SafeRelBenchTask, {"variant": "cautious"},
     "field 'variant': unknown prompt variant 'cautious'"),
    ("saferelbench", SR_REFS, sr_good, SafeRelBenchTask, {"benchmark_version": "0.1"},
     "version '0.1' is not supported"),
])
def test_metadata_faults(tmp_path, benchmark, refs, good, task, change, expected):
    preds = write_lines(tmp_path / "p.jsonl", good())
    meta = {"benchmark": task.name, "benchmark_version": "1.0", "model": "m", "backend": "baseline",
            "dataset_revision": task(data=refs).dataset_revision, "variant": None}
    (tmp_path / "m.json").write_text(json.dumps(meta))
    assert validate(benchmark, refs, preds, tmp_path / "m.json")[0] == 0
    (tmp_path / "m.json").write_text(json.dumps({**meta, **change}))
    code, out = validate(benchmark, refs, preds, tmp_path / "m.json")
    assert code == 2 and expected in out, out


def test_every_problem_is_reported_at_once(tmp_path):
    lines = replaced(bd_good(), i1=bd_pred(primary_hazard_category="tiger", risk_timing="soon"),
                     i3={"id": BD_ID, "response": "{}"}, extra=[{"id": "BDHV_9999", "response": "{}"}])
    code, out = validate("bd-hazardvlm", BD_REFS, write_lines(tmp_path / "p.jsonl", lines))
    assert code == 2
    for fragment in ("'tiger' is not one of", "'soon' is not one of", "duplicate id", "BDHV_9999",
                     "have no prediction", "5 problem(s)"):
        assert fragment in out, out
