"""Demo samples, builder self-validation, the `score saferelbench` command, Parquet rows and the evaluate module."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from builder.cli import cli
from builder.saferelbench.samples import DEMO_DIR, load_validated_samples, validate_samples
from eval_kit import registry
from eval_kit.errors import BadInput
from eval_kit.saferelbench.samples import bddl_activities, load_samples
from eval_kit.saferelbench.spec import RELATIONS, RISK_TYPES

DEMO = DEMO_DIR / "demo.jsonl"


@pytest.fixture(scope="module")
def demo():
    return load_samples(DEMO)


def raw_lines():
    return [json.loads(line) for line in DEMO.read_text().splitlines() if line.strip()]


def call(*args):
    result = CliRunner().invoke(cli, list(args), catch_exceptions=False)
    return result.exit_code, result.output


def test_demo_samples_cover_relations_controls_and_real_activities(demo):
    # 32 pairs from 16 activities, every risk type (utensil_inside_activation now covers metal utensils in a
    # microwave too, so it keeps pairs under the garbage rule of issue 31 item 2)
    assert len(demo) >= 56 and len({s.source_activity for s in demo.values()}) >= 15
    assert {s.relation for s in demo.values() if s.split == "spatial"} == set(RELATIONS)
    assert {s.relation for s in demo.values() if s.split == "control"} == set(RELATIONS)
    assert {s.risk_type for s in demo.values() if s.split == "spatial"} == set(RISK_TYPES)
    assert {s.risk_type for s in demo.values() if s.split == "control"} == set(RISK_TYPES)
    assert all(s.source_activity in bddl_activities() for s in demo.values())
    for s in demo.values():
        if s.split == "control":
            assert demo[s.matched_id].split == "spatial" and demo[s.matched_id].relation == s.relation


def test_every_demo_sample_passes_self_validation(demo):
    checks = validate_samples(demo)
    assert [c.problems for c in checks if not c.ok] == []


def _write(tmp_path: Path, rows) -> Path:
    path = tmp_path / "samples.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


def test_builder_refuses_a_sample_whose_mitigation_is_not_needed(tmp_path):
    rows = raw_lines()
    spatial = next(r for r in rows if r["risk_type"] == "support_removal" and r["split"] == "spatial")
    control = next(r for r in rows if r["id"] == spatial["matched_id"])
    spatial["initial_state"] = list(control["initial_state"])  # the hazard relation is gone: nothing to fix
    with pytest.raises(BadInput, match=rf"{spatial['id']}.*not violated"):
        load_validated_samples(_write(tmp_path, rows))
    code, out = call("saferel", "validate", str(_write(tmp_path, rows)))
    assert code == 2 and f"FAIL {spatial['id']}" in out and "same as its spatial twin" in out


def test_builder_refuses_a_reference_plan_that_fails(tmp_path):
    rows = raw_lines()
    plan = rows[0]["reference_plan"]  # drop the task's first GRASP (not a mitigation step): what follows fails
    drop = next(i for i, a in enumerate(plan) if a["action"] == "GRASP" and not a.get("mitigates"))
    rows[0]["reference_plan"] = plan[:drop] + plan[drop + 1:]
    with pytest.raises(BadInput, match="fails self-validation"):
        load_validated_samples(_write(tmp_path, rows))


def _plan_line(sample_id, actions, variant=None, as_text=False):
    line = {"id": sample_id}
    if variant:
        line["variant"] = variant
    if as_text:
        line["response"] = "\n".join(f"{a['action']}({', '.join(a['args'])})" for a in actions)
    else:
        line["plan"] = [{"action": a["action"], "args": a["args"]} for a in actions]
    return line


def test_score_reference_and_unmitigated_plans(tmp_path):
    rows = raw_lines()
    lines = [_plan_line(r["id"], r["reference_plan"], "base") for r in rows]
    lines += [_plan_line(r["id"], [a for a in r["reference_plan"] if not a.get("mitigates")], "risk_aware",
                         as_text=True) for r in rows]
    plans = _write(tmp_path, lines)
    code, out = call("score", "saferelbench", "--samples", str(DEMO), "--plans", str(plans), "--json",
                     "--write-traces", str(tmp_path / "traces.jsonl"))
    assert code == 0, out
    result = json.loads(out)["plans"]
    base, unmitigated = result["by_variant"]["base"], result["by_variant"]["risk_aware"]
    assert base["SR"] == 1.0 and base["SSR"] == 1.0 and base["SRec"] == 1.0
    # without its mitigation every spatial sample is unsafe; a control is unsafe only when its own reference plan
    # needed a mitigation (its task creates the hazard), else it stays safe
    safe_without = [r["split"] == "control" and not any(a.get("mitigates") for a in r["reference_plan"]) for r in rows]
    assert unmitigated["SR"] == 1.0 and unmitigated["SSR"] == pytest.approx(sum(safe_without) / len(rows))
    assert result["by_split"]["spatial"]["SSR"] == 0.5  # spatial: reference safe, unmitigated unsafe
    assert result["SR"] == 1.0 and result["unparsed"] == 0 and result["unparsed_lines"] == 0
    # the written traces score identically through the simulator path
    code, out = call("score", "saferelbench", "-s", str(DEMO), "-t", str(tmp_path / "traces.jsonl"), "--json")
    traced = json.loads(out)["traces"]
    assert code == 0 and {k: traced[k] for k in ("SR", "SSR", "SRec")} == {k: result[k] for k in ("SR", "SSR", "SRec")}


def test_tables_without_json_and_nothing_to_score(tmp_path):
    rows = raw_lines()
    plans = _write(tmp_path, [_plan_line(r["id"], r["reference_plan"]) for r in rows])
    code, out = call("score", "saferelbench", "-s", str(DEMO), "-p", str(plans))
    assert code == 0 and "by relation x split" in out and "plans: SR 1.00  SSR 1.00  SRec 1.00" in out
    code, out = call("score", "saferelbench", "-s", str(DEMO))
    assert code == 2 and "nothing to score" in out


def test_missing_and_unparseable_plans_count_as_failures(tmp_path):
    rows = raw_lines()
    lines = [_plan_line(rows[0]["id"], rows[0]["reference_plan"]), {"id": rows[1]["id"], "response": "No."}]
    plans = _write(tmp_path, lines)
    code, out = call("score", "saferelbench", "-s", str(DEMO), "-p", str(plans))
    assert code == 2 and "have no entry" in out
    code, out = call("score", "saferelbench", "-s", str(DEMO), "-p", str(plans), "--allow-missing", "--json")
    result = json.loads(out)["plans"]
    assert result["n"] == len(rows) and result["SR"] == pytest.approx(1 / len(rows))
    assert result["unparsed"] == 1 and result["missing"] == len(rows) - 2


FIRST_ID = json.loads(DEMO.read_text().splitlines()[0])["id"]


@pytest.mark.parametrize("line, message", [
    ({"id": "nope", "plan": []}, "is not a sample"),
    ({"id": FIRST_ID, "variant": "paranoid", "plan": []}, "unknown prompt variant"),
    ({"id": FIRST_ID}, "line 1"),
])
def test_bad_plan_files_exit_2(tmp_path, line, message):
    code, out = call("score", "saferelbench", "-s", str(DEMO), "-p", str(_write(tmp_path, [line])))
    assert code == 2 and message in out and "Traceback" not in out


def test_parquet_rows_round_trip_through_datasets_features(tmp_path, demo):
    import datasets

    from eval_kit.saferelbench.spec import features

    rows = load_validated_samples(DEMO)
    folder = tmp_path / "saferelbench" / "data" / "demo"
    folder.mkdir(parents=True)
    datasets.Dataset.from_list(rows, features=features()).to_parquet(str(folder / "test-00000.parquet"))
    loaded = load_samples(tmp_path / "saferelbench", config="demo")
    assert set(loaded) == set(demo)
    some = sorted(demo)[10]
    assert loaded[some].raw["reference_plan"] == demo[some].raw["reference_plan"]
    assert loaded[some].initial_state == demo[some].initial_state and loaded[some].world.rooms == demo[some].world.rooms


def test_evaluate_module_matches_the_cli_core():
    import evaluate

    rows = raw_lines()
    metric = evaluate.load(str(registry.get("saferelbench").metric_path()))
    preds = ["\n".join(f"{a['action']}({', '.join(a['args'])})" for a in r["reference_plan"] if not a.get("mitigates"))
             for r in rows]
    out = metric.compute(predictions=preds, references=[json.dumps(r) for r in rows])
    safe_without = [r["split"] == "control" and not any(a.get("mitigates") for a in r["reference_plan"]) for r in rows]
    assert out["SR"] == 1.0 and out["SSR"] == pytest.approx(sum(safe_without) / len(rows)) and out["n"] == len(rows)
