"""Every transformers VLM family runs or is refused in one line; text LLMs on SafeRelBench; no blind answers.

The family table (`eval_kit.runners.families`) must cover exactly the model types of the pinned transformers'
`AutoModelForImageTextToText` / `AutoModelForMultimodalLM` mappings. Each refused family is refused by `eval`
before any processor or weight loads (a config-only folder is enough, and loading is made to fail loudly),
exit 2, one line naming the family and the cause. The families that run are run end to end on all three
benchmarks in tests/test_model_families.py (tiny checkpoints of the real classes). Here also: a tiny text-only
causal LM (Qwen3ForCausalLM) on SafeRelBench and refused on MovSafeBench, a template without an image
placeholder (the sample fails naming the family), PaliGemma with a chat template on text-only SafeRelBench,
and the generated docs page.
"""

import json
from pathlib import Path

import pytest

pytest.importorskip("torch")
pytest.importorskip("transformers")

from click.testing import CliRunner

from builder.cli import cli
from eval_kit.runners import families
from eval_kit.testing.tiny_families import config_only, gemma3, paligemma, qwen3_text
from tests import test_model_families as base

ROOT = Path(__file__).resolve().parents[1]
SAFEREL_DEMO = ROOT / "manifests" / "saferelbench" / "demo.jsonl"
REFUSED = sorted(t for t, f in families.FAMILIES.items() if f.refused)
COMMON = ["--backend", "transformers", "--max-new-tokens", "2", "--max-pixels", str(56 * 56), "--device", "cpu",
          "--no-progress"]


def run(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(cli, ["eval", *map(str, args), *COMMON])
    return result.exit_code, result.output


movsafe_data = base.movsafe_fixture(rows=1)


@pytest.fixture(scope="module")
def text_llm(tmp_path_factory):
    return qwen3_text(tmp_path_factory.mktemp("q3") / "qwen3")


def test_table_covers_every_native_family():
    native = families.native_families()
    assert set(families.FAMILIES) == set(native), set(families.FAMILIES) ^ set(native)
    assert len(native) >= 43
    for model_type, family in families.FAMILIES.items():
        assert family.title and (family.refused is None or family.fix), model_type


no_loading = base.no_loading


@pytest.mark.parametrize("model_type", REFUSED)
def test_refused_family_is_one_line_before_loading(model_type, movsafe_data, tmp_path, no_loading):
    folder = config_only(model_type, tmp_path / model_type)
    code, output = run("movsafebench", "--model", folder, "--data", movsafe_data, "--out", tmp_path / "run")
    family = families.FAMILIES[model_type]
    assert code == 2, output
    lines = output.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error:"), output
    assert family.title in lines[0] and family.refused in lines[0] and family.fix in lines[0]
    assert not (tmp_path / "run").exists()


def test_family_needing_a_missing_package_names_it(movsafe_data, tmp_path, no_loading, monkeypatch):
    monkeypatch.setattr(families, "installed", lambda module: module != "timm")
    folder = config_only("gemma3n", tmp_path / "gemma3n")
    code, output = run("movsafebench", "--model", folder, "--data", movsafe_data, "--out", tmp_path / "run")
    assert code == 2 and output.count("\n") == 1, output
    assert "Gemma 3n" in output and "needs the timm package" in output and "pip install timm" in output


def test_text_llm_runs_saferelbench_and_is_refused_on_images(text_llm, movsafe_data, tmp_path, monkeypatch):
    from eval_kit.runners.backends.hf_transformers import TransformersBackend

    prompts = []
    real_inputs = TransformersBackend.inputs

    def spy(self, samples):
        batch = real_inputs(self, samples)
        prompts.append(self.tokenizer.decode(batch["input_ids"][0]))
        return batch

    monkeypatch.setattr(TransformersBackend, "inputs", spy)
    out = tmp_path / "saferel"
    code, output = run("saferelbench", "--model", text_llm.folder, "--data", SAFEREL_DEMO, "--limit", "1",
                       "--out", out)
    assert code == 0, output
    # the template read the content as one string: no Python list of parts leaked into the prompt
    assert prompts and prompts[0].startswith("<|im_start|>user\n") and "'type'" not in prompts[0]
    assert prompts[0].endswith("<|im_start|>assistant\n")
    record = json.loads((out / "raw.jsonl").read_text().splitlines()[0])
    assert isinstance(record["response"], str)
    assert json.loads((out / "metadata.json").read_text())["backend"] == "transformers"

    code, output = run("movsafebench", "--model", text_llm.folder, "--data", movsafe_data, "--out", tmp_path / "m")
    assert code == 2 and output.count("\n") == 1, output
    assert "is not a vision-language model" in output and "Qwen3Config" in output


def test_text_llm_vllm_request(text_llm):
    """vLLM's path as far as it goes without vLLM: the prompt a text LLM gets, and the refusal on images."""
    from eval_kit.errors import BadInput
    from eval_kit.runners.backends.vllm_offline import VLLMBackend
    from eval_kit.runners.task import Request, user_message

    sample = Request(id="a", messages=[user_message("Plan the task.", 0)])
    backend = VLLMBackend(str(text_llm.folder), llm=object(), sampling_params_cls=dict, needs_images=False)
    request = backend.request(sample)
    assert request == {"prompt": "<|im_start|>user\nPlan the task.<|im_end|>\n<|im_start|>assistant\n"}
    with pytest.raises(BadInput, match="not a vision-language model"):
        VLLMBackend(str(text_llm.folder), llm=object(), sampling_params_cls=dict, needs_images=True).load()


def test_template_without_image_placeholder_fails_naming_the_family(movsafe_data, tmp_path):
    # Gemma 3's processor expands only the placeholders the template renders; it says nothing when there are none
    checkpoint = gemma3(tmp_path / "gemma3")
    template = (checkpoint.folder / "chat_template.jinja").read_text()
    assert "<start_of_image>" in template
    (checkpoint.folder / "chat_template.jinja").write_text(template.replace("<start_of_image>", ""))
    out = tmp_path / "run"
    code, output = run("movsafebench", "--model", checkpoint.folder, "--data", movsafe_data, "--out", out)
    assert code == 3, output
    record = json.loads((out / "raw.jsonl").read_text().splitlines()[0])
    assert record.get("response") is None and "Gemma 3" in record["error"], record
    assert "tokens" in record["error"]


def test_inputs_without_image_tokens_or_pixels_are_refused():
    """The kit's own check, for processors that do not count placeholders themselves."""
    import torch

    from eval_kit.runners.backends.hf_transformers import NoImageInputs, check_images_reached
    from eval_kit.runners.task import Request, user_message

    class Processor:
        image_token_id = 7

    samples = [Request(id="a", messages=[user_message("q", 1)], images=["img"]),
               Request(id="b", messages=[user_message("q", 0)])]
    ok = {"input_ids": torch.tensor([[1, 7, 2], [1, 2, 3]]), "pixel_values": torch.zeros(1)}
    check_images_reached(ok, samples, Processor(), "Gemma 3")
    with pytest.raises(NoImageInputs, match=r"^Gemma 3: .*no image tokens"):
        check_images_reached({**ok, "input_ids": torch.tensor([[1, 2, 2], [1, 7, 3]])}, samples, Processor(),
                             "Gemma 3")
    with pytest.raises(NoImageInputs, match=r"^LLaVA: .*no pixels"):
        check_images_reached({"input_ids": ok["input_ids"]}, samples, Processor(), "LLaVA")


def test_paligemma_with_a_chat_template_runs_text_only_saferelbench(tmp_path):
    checkpoint = paligemma(tmp_path / "paligemma")
    (checkpoint.folder / "chat_template.jinja").write_text(
        "{% for m in messages %}{{ m['content'] if m['content'] is string else m['content'][-1]['text'] }}\n"
        "{% endfor %}")
    code, output = run("saferelbench", "--model", checkpoint.folder, "--data", SAFEREL_DEMO, "--limit", "1",
                       "--out", tmp_path / "run")
    assert code == 0, output


def test_template_is_checked_on_the_object_the_run_calls():
    from eval_kit.errors import BadInput
    from eval_kit.runners.backends import setup_checks

    class Tokenizer:
        chat_template = "{{ messages }}"

    class Processor:  # InstructBLIP's: no template of its own; the folder's chat_template.jinja went to the tokenizer
        chat_template = None
        tokenizer = Tokenizer()

    processor = Processor()
    setup_checks.adopt_tokenizer_template(processor)
    assert processor.chat_template == "{{ messages }}"
    setup_checks.require_chat_template(processor, "m")
    bare = Processor()
    bare.tokenizer = type("T", (), {"chat_template": None})()
    setup_checks.adopt_tokenizer_template(bare)
    with pytest.raises(BadInput, match="has no chat template"):
        setup_checks.require_chat_template(bare, "m")


def test_docs_page_is_generated_from_the_table():
    from eval_kit.runners import family_docs

    page = (ROOT / "docs" / "model-families.md").read_text()
    assert page == family_docs.render(), "regenerate: python -m eval_kit.runners.family_docs > docs/model-families.md"
    for model_type, family in families.FAMILIES.items():
        assert f"`{model_type}`" in page and family.title in page


def test_readme_lists_every_family_with_its_result():
    from eval_kit.runners import family_docs

    readme = (ROOT / "README.md").read_text()
    block = readme.split("<!-- families:begin")[1].split("-->\n", 1)[1]
    block = block.split("<!-- families:end -->")[0]
    assert block == family_docs.readme_table(), "regenerate: python -m eval_kit.runners.family_docs --readme"
    # every family once, in the row of its result (hand-checked examples of each kind of row)
    for family in families.FAMILIES.values():
        assert family.title in block
    rows = {line.split(" | ")[0]: line for line in block.splitlines()}
    assert "Llama 4 (Scout, Maverick)" in rows["| runs on all three benchmarks (50)"]
    assert "SmolVLM (num2words)" in rows["| runs once a package is installed (3)"]
    assert "HunYuan-VL (HunyuanOCR)" in next(v for k, v in rows.items() if k.startswith("| refused, exit 2: an OCR"))


def test_saferel_paper_agents_are_presets_with_their_source():
    from eval_kit.runners import presets

    agents = [p for p in presets.PRESETS if p.benchmark == "saferelbench"]
    assert [p.paper_model for p in agents] == ["Qwen2.5-32B", "Qwen2.5-72B", "Qwen3-8B", "Qwen3-32B", "GPT-5.4",
                                               "Gemini-3.1-pro", "Claude-sonnet-4-6"]
    listing = presets.listing()
    for p in agents:
        assert p.name in listing and p.source == presets.SAFEREL_PAPER
    assert "source: " + presets.SAFEREL_PAPER in listing
    assert "base-url https://api.anthropic.com/v1/  api-key-env ANTHROPIC_API_KEY" in listing
    claude = presets.get("saferel-claude-sonnet-4-6", "saferelbench")
    resolved, notes = presets.resolve(claude, {"base_url": None, "api_key_env": "OPENAI_API_KEY"}, set())
    assert (resolved["backend"], resolved["base_url"], resolved["api_key_env"]) == (
        "openai", "https://api.anthropic.com/v1/", "ANTHROPIC_API_KEY") and not notes
    qwen = presets.get("saferel-qwen3-8b", "saferelbench")
    assert qwen.options()["backend"] == "transformers" and "base_url" not in qwen.options()


def test_remote_code_runs_only_when_asked(movsafe_data, tmp_path, monkeypatch):
    import transformers.dynamic_module_utils as dynamic

    from eval_kit.testing.tiny_families import remote_code

    monkeypatch.setattr(dynamic, "HF_MODULES_CACHE", str(tmp_path / "modules"))  # its code is copied there
    checkpoint = remote_code(tmp_path / "remote")
    code, output = run("movsafebench", "--model", checkpoint.folder, "--data", movsafe_data, "--out", tmp_path / "a")
    assert code == 2 and output.count("\n") == 1 and "needs its own code" in output, output
    assert "trust_remote_code=true" in output
    import transformers

    loaded = []
    real = transformers.AutoModelForImageTextToText.from_pretrained.__func__

    def spy(cls, *args, **kwargs):
        model = real(cls, *args, **kwargs)
        loaded.append((type(model).__name__, kwargs.get("trust_remote_code")))
        return model

    monkeypatch.setattr(transformers.AutoModelForImageTextToText, "from_pretrained", classmethod(spy))
    out = tmp_path / "b"
    code, output = run("movsafebench", "--model", checkpoint.folder, "--data", movsafe_data, "--out", out,
                       "--model-args", "trust_remote_code=true")
    assert code == 0, output
    assert loaded == [("TinyRemoteForConditionalGeneration", True)]
    assert json.loads((out / "raw.jsonl").read_text().splitlines()[0])["response"] is not None
