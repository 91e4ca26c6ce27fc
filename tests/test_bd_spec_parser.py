"""BD-HazardVLM spec: label spaces agree with DESIGN.md and the JSON Schemas; the parser and repair hook."""

import json
from pathlib import Path

import pytest

from eval_kit.bd_hazardvlm import spec
from eval_kit.errors import BadInput
from eval_kit.schemas import first_error, load_schema
from tests.bd_fixtures import paper_references, perfect_prediction

ROOT = Path(__file__).resolve().parent.parent
VALID = {
    "hazard_present": True, "primary_hazard_category": "bus_truck_occlusion", "risk_timing": "latent",
    "severity": "medium", "defensive_actions": ["avoid_overtaking", "monitor_occlusion"],  # vocabulary order
    "evidence": "a bus hides the lane", "possible_hallucination": False, "possible_western_road_bias": True,
}


def test_label_spaces_match_design():
    assert len(spec.CATEGORIES) == 12 and spec.CATEGORIES[-1] == "no_major_hazard"
    assert spec.TIMINGS == ("immediate", "latent", "both", "none")
    assert spec.SEVERITIES == ("low", "medium", "high")
    assert len(spec.ACTIONS) == 9


def test_schemas_enumerate_the_code_label_spaces():
    for name in ("bd_hazardvlm_annotation", "bd_hazardvlm_output"):
        props = load_schema(name)["properties"]
        assert props["primary_hazard_category"]["enum"] == list(spec.CATEGORIES)
        assert props["risk_timing"]["enum"] == list(spec.TIMINGS)
        assert props["severity"]["enum"] == list(spec.SEVERITIES)
        assert props["defensive_actions"]["items"]["enum"] == list(spec.ACTIONS)
    assert load_schema("bd_hazardvlm_image_manifest")["properties"]["source_dataset"]["enum"] == list(
        spec.SOURCE_DATASETS)
    assert first_error("bd_hazardvlm_output", VALID) is None


def test_taxonomy_file_is_current():
    on_disk = json.loads((ROOT / "manifests/bd_hazardvlm/v1/taxonomy.json").read_text())
    assert on_disk == json.loads(json.dumps(spec.taxonomy()))
    assert first_error("bd_hazardvlm_taxonomy", on_disk) is None


def test_annotation_schema_and_control_rule(tmp_path):
    refs = paper_references()[:3]
    assert all(first_error("bd_hazardvlm_annotation", r) is None for r in refs)
    for bad_id in ("BDHV_12", "BDHV_0000", "BDHV_0501", "bdhv_0001"):
        assert first_error("bd_hazardvlm_annotation", dict(refs[0], id=bad_id))[0] == "id"
        assert not spec.BENCHMARK_ID.match(bad_id)
    for good_id in ("BDHV_0001", "BDHV_0099", "BDHV_0500", "BDHV_DEMO_0007"):
        assert first_error("bd_hazardvlm_annotation", dict(refs[0], id=good_id)) is None
    control = next(r for r in paper_references() if not r["hazard_present"])
    assert spec.control_inconsistency(control) is None
    assert "severity" in spec.control_inconsistency(dict(control, severity="high"))
    assert "contradicts" in spec.control_inconsistency(dict(control, hazard_present=True))
    path = tmp_path / "a.jsonl"
    path.write_text(json.dumps(refs[0]) + "\n" + json.dumps(dict(control, severity="high")) + "\n")
    with pytest.raises(BadInput, match=r"line 2.*control scene"):
        spec.load_annotations(path)


def test_demo_annotations_are_valid_and_labelled_demo():
    demo = spec.load_annotations(ROOT / "manifests/bd_hazardvlm/v1/demo/annotations.jsonl")
    assert len(demo) == 20 and all(i.startswith("BDHV_DEMO_") for i in demo)
    assert all(r["evidence"].startswith("DEMO:") for r in demo.values())
    assert {r["primary_hazard_category"] for r in demo.values()} == set(spec.CATEGORIES)


@pytest.mark.parametrize("wrap", [
    "{body}",
    "```json\n{body}\n```",
    "Here is my assessment:\n```\n{body}\n```\nHope this helps.",
    "Sure. {body} Let me know.",
    "<think>maybe {{\"severity\": \"low\"}}</think>{body}",
])
def test_parser_finds_json(wrap):
    result = spec.parse_response(wrap.format(body=json.dumps(VALID)))
    assert result.valid, result.describe()
    assert result.prediction == VALID
    assert result.normalised == []


def test_parser_maps_case_spacing_hyphens_synonyms():
    raw = {
        "Hazard Present": "Yes", "primary-hazard-category": "Bus / Truck Occlusion", "risk_timing": "Latent",
        "severity": "Moderate", "defensive_actions": "monitor occlusion, Avoid-Overtaking",
        "evidence": "x", "possible_hallucination": "false", "possible_western_road_bias": True,
    }
    result = spec.parse_response(json.dumps(raw))
    assert result.valid, result.describe()
    assert result.prediction["primary_hazard_category"] == "bus_truck_occlusion"
    assert result.prediction["severity"] == "medium"
    assert result.prediction["defensive_actions"] == ["avoid_overtaking", "monitor_occlusion"]
    assert set(result.normalised) == {"hazard_present", "primary_hazard_category", "risk_timing", "severity",
                                      "defensive_actions", "possible_hallucination"}
    assert result.synonyms == ["severity"]  # "Moderate"; the rest were only spelled differently
    both = spec.parse_response(json.dumps(dict(VALID, risk_timing="both immediate and latent")))
    assert both.prediction["risk_timing"] == "both" and both.normalised == ["risk_timing"]
    assert both.valid and not spec.needs_retry(both)
    assert spec.needs_retry(both, strict=True)  # the paper's MiniCPM-V retry trigger


def test_parser_reports_violations_precisely():
    raw = dict(VALID, primary_hazard_category="zebra crossing", defensive_actions=["slow_down", "honk"])
    del raw["evidence"]
    raw["confidence"] = 0.9
    result = spec.parse_response(json.dumps(raw))
    assert not result.valid
    fields = [f for f, _ in result.violations]
    assert fields == ["primary_hazard_category", "defensive_actions", "evidence", "(object)"]
    assert "'honk'" in result.describe() and "confidence" in result.describe()
    # the fields that were fine are still mapped and scored
    assert result.prediction["risk_timing"] == "latent"
    assert "primary_hazard_category" not in result.prediction
    assert spec.parse_response("I cannot answer.").violations == [("(response)", "no JSON object found")]
    assert spec.parse_response("").violations == [("(response)", "empty response")]
    broken = spec.parse_response('{"hazard_present": True, "severity": "low",}')
    assert broken.violations[0][0] == "(response)" and "malformed JSON" in broken.violations[0][1]


def test_prompt_has_the_paper_ingredients():
    prompt = spec.build_prompt()
    for needle in ("Bangladesh", "mixed traffic", "zebra crossings", "Western", "possible_western_road_bias",
                   *spec.CATEGORIES, *spec.ACTIONS, "exactly these eight fields"):
        assert needle in prompt, needle


def test_repair_prompt_is_formatting_only():
    bad = json.dumps(dict(VALID, risk_timing="both immediate and latent", severity="catastrophic"))
    result = spec.parse_response(bad)
    assert spec.needs_retry(result)
    repair = spec.repair_prompt(bad, result)
    assert bad in repair and "severity: 'catastrophic'" in repair
    assert "Keep your assessment" in repair
    assert "Bangladesh" not in repair and "image" not in repair.lower()  # no new visual or semantic information
    assert not spec.needs_retry(spec.parse_response(json.dumps(VALID)))


def test_prediction_line_records_retry():
    line = spec.prediction_line("BDHV_0001", "bad", "good")
    assert line == {"id": "BDHV_0001", "response": "good", "initial_response": "bad", "retried": True}
    assert first_error("bd_hazardvlm_prediction", line) is None
    plain = spec.prediction_line("BDHV_0001", "only")
    assert plain["retried"] is False and plain["response"] == "only"
    assert first_error("bd_hazardvlm_prediction", {"id": "x", "response": "r", "retried": True}) is not None
    assert first_error("bd_hazardvlm_prediction", {"id": "x", "prediction": perfect_prediction(
        paper_references()[0])}) is None


@pytest.mark.parametrize("with_image", [True, False])
def test_arrow_schema_equals_datasets_features(with_image):
    feats = spec.features(with_image=with_image)
    schema = spec.arrow_schema(with_image=with_image)
    assert schema.equals(feats.arrow_schema, check_metadata=False)
    hf = json.loads(schema.metadata[b"huggingface"])
    assert hf == json.loads(feats.arrow_schema.metadata[b"huggingface"])
    assert ("image" in schema.names) == with_image


def test_parser_never_raises_on_arbitrary_text():
    from hypothesis import given, settings
    from hypothesis import strategies as st

    json_values = st.recursive(st.none() | st.booleans() | st.integers() | st.text(max_size=20),
                               lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=10),
                                                                                            inner, max_size=4),
                               max_leaves=10)

    @settings(max_examples=150, deadline=None)
    @given(st.text(max_size=200), st.dictionaries(st.sampled_from([*spec.OUTPUT_FIELDS, "x"]), json_values))
    def check(text, obj):
        for response in (text, json.dumps(obj), f"noise {{ {text} ```json\n{json.dumps(obj)}\n```"):
            result = spec.parse_response(response)
            assert result.valid == (not result.violations)
            assert set(result.prediction) <= set(spec.OUTPUT_FIELDS)
            spec.repair_prompt(response, result)

    check()
