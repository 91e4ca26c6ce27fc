"""vllm backend: argument building only, with a fake LLM object (no GPU here; vllm is never imported)."""

import sys
from types import SimpleNamespace

from eval_kit import registry
from eval_kit.runners import harness
from eval_kit.runners.backends.vllm_offline import VLLMBackend
from eval_kit.testing.synthetic_datasets import write_jsonl


class FakeLLM:
    def __init__(self):
        self.calls = []

    def generate(self, inputs, params, use_tqdm=True):
        self.calls.append((inputs, params, use_tqdm))
        return [SimpleNamespace(outputs=[SimpleNamespace(text="C. go right")]) for _ in inputs]


class FakeSamplingParams:
    def __init__(self, **kwargs):
        self.kwargs = kwargs


def render(conversation):
    parts = conversation[0]["content"]
    return "".join("<image>" if p["type"] == "image" else p["text"] for p in parts) + "\nASSISTANT:"


def test_generate_inputs_carry_prompt_and_images(tmp_path):
    data = write_jsonl(tmp_path / "d", 5)
    llm = FakeLLM()
    backend = VLLMBackend("some/model", llm=llm, sampling_params_cls=FakeSamplingParams, render_prompt=render,
                          max_new_tokens=32, max_pixels=1000)
    task = registry.make_task("movsafebench", data=data)
    summary = harness.run(task, backend, tmp_path / "r", model="some/model", batch_size=2, progress=False)
    assert summary.generated == 5 and [len(c[0]) for c in llm.calls] == [2, 2, 1]
    inputs, params, use_tqdm = llm.calls[0]
    assert params.kwargs == {"temperature": 0.0, "max_tokens": 32} and use_tqdm is False
    first = inputs[0]
    assert first["prompt"].startswith("<image>You are the perception") and first["prompt"].endswith("ASSISTANT:")
    image = first["multi_modal_data"]["image"]
    assert image.width * image.height <= 1000
    assert "vllm" not in sys.modules  # injected objects: the real library was never imported


def test_text_only_has_no_multimodal_data(tmp_path):
    data = write_jsonl(tmp_path / "d", 2)
    llm = FakeLLM()
    backend = VLLMBackend("m", llm=llm, sampling_params_cls=FakeSamplingParams, render_prompt=render)
    task = registry.make_task("movsafebench", data=data)
    harness.run(task, backend, tmp_path / "r", model="m", text_only=True, progress=False)
    assert all("multi_modal_data" not in x and "<image>" not in x["prompt"] for x in llm.calls[0][0])
