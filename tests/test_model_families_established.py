"""The established families of issue 36's survey, end to end on all three benchmarks (tiny real-class checkpoints).

Builders: eval_kit/testing/tiny_families_established.py. The checks are tests/test_model_families.py's: exit 0,
the family's template shaped the prompt, the model class, image tokens >= images and pixels in the batch for
image benchmarks, none on SafeRelBench, answers recorded. One MovSafeBench row, --limit 1 elsewhere.
"""

import pytest

pytest.importorskip("torch")
pytest.importorskip("transformers")

from eval_kit.testing.tiny_families_established import FAMILIES, build
from tests import test_model_families as base

CHATML = "<|im_start|>assistant\n"
TEMPLATE_MARK = {"qwen3_5": CHATML, "minicpmv4_7": CHATML, "ovis2": CHATML, "glm4v": "<|assistant|>\n",
                 "glm4v_moe": "<|assistant|>\n", "glm46v": "<|assistant|>\n",
                 "aya_vision": "<|START_OF_TURN_TOKEN|><|CHATBOT_TOKEN|>", "idefics2": "Assistant:",
                 "deepseek_vl": "\nAssistant:", "deepseek_vl_hybrid": "\nAssistant:", "janus": "<|Assistant|>:",
                 "mllama": "<|start_header_id|>assistant<|end_header_id|>\n\n", "gemma4": "<|turn>model\n"}


movsafe_data, checkpoints, test_family_runs_on_every_benchmark = base.family_tests(FAMILIES, build, TEMPLATE_MARK,
                                                                                   name="established")


def test_every_family_has_a_mark():
    assert set(TEMPLATE_MARK) == set(FAMILIES)


def test_metadata_schema_allows_the_preset_key_eval_writes():
    """`eval --preset` writes metadata.json's `preset`; the schema (additionalProperties: false) must allow it."""
    import jsonschema

    from eval_kit.schemas import load_schema

    schema = load_schema("submission_metadata")
    assert schema["additionalProperties"] is False and "preset" in schema["properties"]
    validator = jsonschema.Draft202012Validator(schema)
    ok = {"preset": "movsafe-qwen2.5-vl-7b"}
    assert not [e for e in validator.iter_errors(ok) if "preset" in str(e.message)]
    assert [e for e in validator.iter_errors({"preset": ""}) if "preset" in list(e.path)]
