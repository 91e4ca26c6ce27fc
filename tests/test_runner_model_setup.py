"""Model setup: errors that exit 2 in one line naming the fix; --model-args, --gen-kwargs and --revision reach
the model; a changed setting never resumes into an old run; `eval | head -1` ends quietly."""

import importlib.machinery
import json
import os
import shutil
import subprocess
import sys
import types
from dataclasses import dataclass
from pathlib import Path

import pytest
from click.testing import CliRunner

from builder.cli import cli
from eval_kit.errors import BadInput
from eval_kit.runners.backends import setup_checks
from eval_kit.testing.synthetic_datasets import write_jsonl
from tests.test_runner_transformers import tiny_qwen  # noqa: F401  (fixture)

torch = pytest.importorskip("torch")
ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def data(tmp_path_factory):
    return write_jsonl(tmp_path_factory.mktemp("data"), 4, seed=6)


def hk(*args):
    result = CliRunner().invoke(cli, [str(a) for a in args])
    return result.exit_code, result.output


def one_line_error(code: int, text: str, *needles: str) -> None:
    lines = text.strip().splitlines()
    assert code == 2 and len(lines) == 1 and lines[0].startswith("error: "), text
    assert "Traceback" not in text and "internal error" not in text
    for needle in needles:
        assert needle in lines[0], (needle, text)


@pytest.fixture
def without_template(tiny_qwen, tmp_path):  # noqa: F811
    """The tiny model saved as a base model: no chat template anywhere."""
    folder = tmp_path / "base-model"
    shutil.copytree(tiny_qwen, folder)
    for name in ("chat_template.jinja", "chat_template.json"):
        (folder / name).unlink(missing_ok=True)
    for name in ("tokenizer_config.json", "processor_config.json", "preprocessor_config.json"):
        path = folder / name
        if path.exists():
            config = json.loads(path.read_text())
            config.pop("chat_template", None)
            path.write_text(json.dumps(config))
    return folder


def test_model_setup_errors_exit_2_in_one_line(tmp_path, data, monkeypatch, without_template):
    base = ["eval", "movsafebench", "--data", data, "--no-progress", "--out"]
    one_line_error(*hk(*base, tmp_path / "a", "-m", "/does/not/exist", "-b", "transformers"),
                   "/does/not/exist", "model folder not found", "Hub id")
    assert not (tmp_path / "a").exists()  # no empty run folder left behind
    (tmp_path / "empty-model").mkdir()
    one_line_error(*hk(*base, tmp_path / "a", "-m", tmp_path / "empty-model", "-b", "transformers"),
                   "no config.json")
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setenv("HF_HOME", str(tmp_path / "hf-home"))
    one_line_error(*hk(*base, tmp_path / "b", "-m", "no-such-org/no-such-vlm", "-b", "transformers"),
                   "'no-such-org/no-such-vlm' is not in the local Hugging Face cache and the Hub is offline",
                   "hf download no-such-org/no-such-vlm")
    real_installed = setup_checks.installed
    monkeypatch.setattr(setup_checks, "installed", lambda m: m != "vllm" and real_installed(m))
    one_line_error(*hk(*base, tmp_path / "c", "-m", "org/model", "-b", "vllm"),
                   "the vllm backend needs vllm, which is not installed", 'pip install "hazardkit[vllm]"')
    monkeypatch.setattr(setup_checks, "installed", lambda m: m != "httpx" and real_installed(m))
    one_line_error(*hk(*base, tmp_path / "c", "-m", "gpt", "-b", "openai", "--base-url", "http://127.0.0.1:9/v1"),
                   'pip install "hazardkit[openai]"')
    monkeypatch.setattr(setup_checks, "installed", real_installed)
    if not torch.cuda.is_available():
        one_line_error(*hk(*base, tmp_path / "d", "-m", without_template, "-b", "transformers", "--device", "cuda"),
                       "device 'cuda' is not available", "--device cpu")
    one_line_error(*hk(*base, tmp_path / "d", "-m", without_template, "-b", "transformers", "--device", "gpu0"),
                   "'gpu0' is not a torch device")
    one_line_error(*hk(*base, tmp_path / "e", "-m", without_template, "-b", "transformers", "--device", "cpu"),
                   "has no chat template", "instruction-tuned")
    one_line_error(*hk(*base, tmp_path / "f", "-m", "org/model", "-b", "vllm", "--device", "cuda"),
                   "--device applies to the transformers backend")


def test_bad_model_args_and_gen_kwargs_are_one_line(tmp_path, data):
    base = ["eval", "movsafebench", "--data", data, "--no-progress", "--out", tmp_path / "x"]
    one_line_error(*hk(*base, "-m", "/nowhere", "-b", "transformers", "--model-args", "dtype"), "not key=value")
    one_line_error(*hk(*base, "-m", "/nowhere", "-b", "transformers", "--model-args", "tensor_parallel_size=2"),
                   "transformers takes no model setting 'tensor_parallel_size'", "device_map")
    one_line_error(*hk(*base, "-m", "/nowhere", "-b", "transformers", "--gen-kwargs", "temperature=-1"),
                   "temperature=-1 is out of range")
    one_line_error(*hk(*base, "-m", "/nowhere", "-b", "transformers", "--gen-kwargs", "beams=4"),
                   "unknown generation setting 'beams'")
    one_line_error(*hk(*base, "-m", "random", "-b", "baseline", "--model-args", "dtype=bfloat16"),
                   "the baseline backend takes no --model-args")


def test_pairs_parse_json_values_and_nested_commas():
    from eval_kit.runners.backends.options import check_gen_kwargs, parse_pairs

    assert parse_pairs('tensor_parallel_size=2,limit_mm_per_prompt={"image":2,"video":0},enforce_eager=true,'
                       "dtype=bfloat16,gpu_memory_utilization=0.85", "--model-args") == {
        "tensor_parallel_size": 2, "limit_mm_per_prompt": {"image": 2, "video": 0}, "enforce_eager": True,
        "dtype": "bfloat16", "gpu_memory_utilization": 0.85}
    gen = check_gen_kwargs(parse_pairs("stop=['###','\\n\\n'],top_p=0.9,seed=1", "--gen-kwargs"))
    assert gen == {"stop": ["###", "\n\n"], "top_p": 0.9, "seed": 1}
    assert check_gen_kwargs({"stop": "END"})["stop"] == ["END"]
    with pytest.raises(BadInput, match="given twice"):
        parse_pairs("a=1,a=2", "--model-args")


def test_transformers_gets_model_args_revision_and_seeded_sampling(tiny_qwen, data, tmp_path, monkeypatch):  # noqa: F811
    import transformers

    calls = []
    real = transformers.AutoModelForImageTextToText.from_pretrained

    def spy(model, *args, **kwargs):
        calls.append(kwargs)
        return real(model, *args, **kwargs)

    monkeypatch.setattr(transformers.AutoModelForImageTextToText, "from_pretrained", spy)
    args = ["eval", "movsafebench", "-m", tiny_qwen, "-b", "transformers", "--data", data, "--max-new-tokens", "4",
            "--max-pixels", 56 * 56, "--no-progress", "--revision", "main",
            "--model-args", "dtype=float32,attn_implementation=eager,device_map=cpu",
            "--gen-kwargs", "temperature=0.8,top_k=20,seed=3"]
    code, text = hk(*args, "--out", tmp_path / "a")
    assert code == 0, text
    assert calls[0]["revision"] == "main" and calls[0]["dtype"] is torch.float32
    assert calls[0]["attn_implementation"] == "eager" and calls[0]["device_map"] == "cpu"
    assert calls[0]["trust_remote_code"] is False  # remote code stays off unless asked, and nothing asks
    meta = json.loads((tmp_path / "a/metadata.json").read_text())
    assert meta["revision"] == "main" and meta["settings"]["do_sample"] is True
    assert meta["settings"]["model_args"] == {"dtype": "float32", "attn_implementation": "eager", "device_map": "cpu"}
    assert meta["settings"]["seed"] == 3 and meta["settings"]["top_k"] == 20
    code, text = hk(*args, "--out", tmp_path / "b")
    assert code == 0, text
    assert (tmp_path / "a/raw.jsonl").read_bytes() == (tmp_path / "b/raw.jsonl").read_bytes()  # seeded sampling
    changed = [a if a != "temperature=0.8,top_k=20,seed=3" else "temperature=0.8,top_k=20,seed=4" for a in args]
    calls.clear()
    code, text = hk(*changed, "--out", tmp_path / "a")
    one_line_error(code, text, "different run (differs in: settings)")
    assert calls == []  # refused before the model was loaded


def test_stop_strings_are_cut_like_servers_do():
    from eval_kit.runners.backends.hf_transformers import cut_at_stop

    assert cut_at_stop("Answer: B###extra", ["###"]) == "Answer: B"
    assert cut_at_stop("a\n\nb END c", ["END", "\n\n"]) == "a"
    assert cut_at_stop("no stop here", ["###"]) == "no stop here" and cut_at_stop("x", None) == "x"


@dataclass
class FakeEngineArgs:
    model: str = ""
    revision: str | None = None
    tensor_parallel_size: int = 1
    gpu_memory_utilization: float = 0.9
    max_model_len: int | None = None
    limit_mm_per_prompt: dict | None = None
    load_format: str = "auto"


def fake_vllm(monkeypatch) -> types.ModuleType:
    module = types.ModuleType("vllm")
    module.__spec__ = importlib.machinery.ModuleSpec("vllm", None)
    module.EngineArgs = FakeEngineArgs

    class LLM:
        def __init__(self, **kwargs):
            module.engine = kwargs

    class SamplingParams:
        def __init__(self, **kwargs):
            self.kwargs = kwargs

    module.LLM, module.SamplingParams = LLM, SamplingParams
    monkeypatch.setitem(sys.modules, "vllm", module)
    return module


def test_vllm_engine_gets_model_args_and_revision(tmp_path, monkeypatch):
    from eval_kit.runners.backends.vllm_offline import VLLMBackend

    vllm = fake_vllm(monkeypatch)
    (tmp_path / "qwen").mkdir()
    (tmp_path / "qwen/config.json").write_text("{}")
    backend = VLLMBackend(str(tmp_path / "qwen"), revision="abc123", render_prompt=lambda c: "p",
                          model_args={"tensor_parallel_size": 2, "max_model_len": 8192, "load_format": "dummy"},
                          gen_kwargs={"temperature": 0.5, "top_k": 10, "seed": 7, "stop": ["###"]})
    assert not hasattr(vllm, "engine")  # nothing loads before the runner has checked the run folder
    backend.load()
    assert vllm.engine == {"model": str(tmp_path / "qwen"), "revision": "abc123", "limit_mm_per_prompt": {"image": 1},
                           "trust_remote_code": False, "tensor_parallel_size": 2, "max_model_len": 8192,
                           "load_format": "dummy"}
    assert backend.params.kwargs == {"temperature": 0.5, "max_tokens": 256, "top_k": 10, "seed": 7, "stop": ["###"]}
    assert backend.settings()["model_args"]["tensor_parallel_size"] == 2
    with pytest.raises(BadInput, match="no engine setting 'tensor_paralel_size'"):
        VLLMBackend(str(tmp_path / "qwen"), render_prompt=lambda c: "p", model_args={"tensor_paralel_size": 2}).load()


def test_eval_piped_into_head_ends_quietly(tmp_path, data):
    """`hazardkit eval ... | head -1`: the reader is gone before the summary is written; no BrokenPipeError."""
    child = subprocess.Popen([sys.executable, "-m", "builder.cli", "eval", "movsafebench", "-m", "random", "-b",
                              "baseline", "--data", str(data), "--out", str(tmp_path / "r"), "--no-progress"],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                             env={**os.environ, "PYTHONPATH": str(ROOT)})
    child.stdout.close()  # like `head -1` after its line, but before the first: every write hits a closed pipe
    stderr = child.stderr.read().decode()
    assert child.wait(timeout=120) == 0, stderr
    assert "BrokenPipe" not in stderr and "Traceback" not in stderr and "internal error" not in stderr
    assert (tmp_path / "r/predictions.jsonl").exists()
