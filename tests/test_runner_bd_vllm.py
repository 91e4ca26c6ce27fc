"""vllm backend (fake LLM object, no GPU) with BD-HazardVLM's retry turn and SafeRelBench's text-only prompts."""

import json
from pathlib import Path
from types import SimpleNamespace

from eval_kit import registry
from eval_kit.runners import harness
from eval_kit.runners.backends.vllm_offline import VLLMBackend

ROOT = Path(__file__).resolve().parents[1]
DEMO = ROOT / "manifests" / "bd_hazardvlm" / "v1" / "demo"
VALID = {"hazard_present": True, "primary_hazard_category": "waterlogging", "risk_timing": "latent",
         "severity": "low", "defensive_actions": ["slow_down"], "evidence": "water",
         "possible_hallucination": False, "possible_western_road_bias": False}


class FakeLLM:
    def __init__(self):
        self.inputs = []

    def generate(self, inputs, params, use_tqdm=True):
        self.inputs += inputs
        return [SimpleNamespace(outputs=[SimpleNamespace(
            text=json.dumps(VALID) if "does not follow the required output format" in x["prompt"] else "water!")])
            for x in inputs]


class FakeSamplingParams:
    def __init__(self, **kwargs):
        self.kwargs = kwargs


def render(conversation):
    """A chat template in miniature: every turn, images as <image>."""
    out = []
    for turn in conversation:
        parts = turn["content"]
        text = "".join("<image>" if p["type"] == "image" else p["text"] for p in parts)
        out.append(f"{turn['role'].upper()}: {text}")
    return "\n".join(out) + "\nASSISTANT:"


def backend(llm):
    return VLLMBackend("m", llm=llm, sampling_params_cls=FakeSamplingParams, render_prompt=render, max_pixels=5000)


def test_bd_retry_prompt_holds_the_image_and_the_first_answer(tmp_path):
    llm = FakeLLM()
    task = registry.make_task("bd-hazardvlm", data=DEMO / "annotations.jsonl", images=DEMO / "sources", retry="once")
    summary = harness.run(task, backend(llm), tmp_path / "r", model="m", limit=3, progress=False)
    assert summary.repaired == 3 and len(llm.inputs) == 6
    retry = llm.inputs[3]
    assert retry["prompt"].count("<image>") == 1 and "ASSISTANT: water!" in retry["prompt"]
    assert retry["multi_modal_data"]["image"].width * retry["multi_modal_data"]["image"].height <= 5000
    lines = [json.loads(x) for x in (tmp_path / "r" / "predictions.jsonl").open()]
    assert all(x["retried"] and x["initial_response"] == "water!" for x in lines)


def test_saferel_requests_carry_no_image(tmp_path):
    llm = FakeLLM()
    task = registry.make_task("saferelbench", data=ROOT / "manifests" / "saferelbench" / "demo.jsonl",
                              variant="action_grounded")
    harness.run(task, backend(llm), tmp_path / "r", model="m", limit=4, progress=False)
    assert len(llm.inputs) == 4
    assert all("multi_modal_data" not in x and "<image>" not in x["prompt"] for x in llm.inputs)
    assert all("mitigation (" in x["prompt"] for x in llm.inputs)  # ACTION-GROUNDED: the kind of mitigation
