"""The papers' settings reach the processor, the model and the request key (issue 21, items 2-5).

Processor args change the image tokens; quantization reaches `from_pretrained` (bitsandbytes and CUDA are
monkeypatched: neither exists here) or is refused in one line; the checkpoint's own processor and
quantization configs are part of the key; the BD-HazardVLM retry policy is recorded and keyed; presets fill
the run's settings and a typed flag overrides them with a note; remote code never runs, even on a terminal.
"""

import json
import os
import pty
import select
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

torch = pytest.importorskip("torch")
transformers = pytest.importorskip("transformers")

from click.testing import CliRunner  # noqa: E402

from builder.cli import cli  # noqa: E402
from eval_kit.runners.task import Request, user_message  # noqa: E402
from eval_kit.testing.synthetic_datasets import write_jsonl  # noqa: E402
from eval_kit.testing.tiny_families import build  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
BD_DEMO = ROOT / "manifests" / "bd_hazardvlm" / "v1" / "demo"


@pytest.fixture(scope="module")
def tiny(tmp_path_factory):
    root = tmp_path_factory.mktemp("settings-models")
    return {f: build(f, root / f).folder for f in ("qwen2_5_vl", "internvl", "minicpm_v")}


@pytest.fixture(scope="module")
def data(tmp_path_factory):
    return write_jsonl(tmp_path_factory.mktemp("data"), 2, seed=8)


def hk(*args):
    result = CliRunner().invoke(cli, [str(a) for a in args])
    return result.exit_code, result.output


def one_line_error(code, text, *needles):
    lines = text.strip().splitlines()
    assert code == 2 and len(lines) == 1 and lines[0].startswith("error: "), text
    assert "Traceback" not in text and "internal error" not in text
    for needle in needles:
        assert needle in lines[0], (needle, text)


def image_tokens(folder, processor_args, token, size=(160, 90)):
    from PIL import Image

    from eval_kit.runners.backends.hf_transformers import TransformersBackend

    backend = TransformersBackend(str(folder), max_new_tokens=2, device="cpu", max_pixels=None,
                                  processor_args=processor_args)
    request = Request(id="x", messages=[user_message("Which way?", 1)], images=[Image.new("RGB", size, (9, 99, 199))])
    batch = backend.inputs([request])
    return int((batch["input_ids"] == backend.tokenizer.convert_tokens_to_ids(token)).sum())


def test_processor_args_change_the_image_tokens(tiny):
    # Qwen2.5-VL: the pixel budget (28x28 pixels per token) bounds the tokens of a 160x90 image
    small, large = (image_tokens(tiny["qwen2_5_vl"], {"max_pixels": p}, "<|image_pad|>") for p in (784, 12544))
    assert small == 1 and large > 4 * small
    assert image_tokens(tiny["qwen2_5_vl"], {"min_pixels": 50000, "max_pixels": 60000}, "<|image_pad|>") > large
    # InternVL: at most N tiles (plus a thumbnail when there are several)
    tiles = {n: image_tokens(tiny["internvl"], {"max_patches": n}, "<IMG_CONTEXT>", size=(200, 30)) for n in (1, 4)}
    assert tiles[1] == 1 and tiles[4] == 5
    # MiniCPM-V: at most N slices besides the overview
    slices = {n: image_tokens(tiny["minicpm_v"], {"max_slice_nums": n}, "<|image_pad|>", size=(224, 56))
              for n in (1, 4)}
    assert slices[1] < slices[4]
    # MiniCPM-V: 4x downsampling (the paper's) gives 4x the tokens of the default 16x
    modes = {m: image_tokens(tiny["minicpm_v"], {"downsample_mode": m, "max_slice_nums": 1}, "<|image_pad|>",
                             size=(56, 56)) for m in ("16x", "4x")}
    assert modes["4x"] == 4 * modes["16x"]


def test_bad_processor_args_are_refused_before_the_model_loads(tiny, data, tmp_path, monkeypatch):
    calls = []
    real = transformers.AutoModelForImageTextToText.from_pretrained
    monkeypatch.setattr(transformers.AutoModelForImageTextToText, "from_pretrained",
                        lambda *a, **k: calls.append(k) or real(*a, **k))
    base = ["eval", "movsafebench", "--data", data, "-b", "transformers", "--no-progress", "--device", "cpu"]
    one_line_error(*hk(*base, "-m", tiny["qwen2_5_vl"], "--out", tmp_path / "a", "--processor-args", "max_pixel=5"),
                   "unknown processor setting 'max_pixel'", "max_pixels")
    one_line_error(*hk(*base, "-m", tiny["qwen2_5_vl"], "--out", tmp_path / "a", "--processor-args", "max_pixels=-3"),
                   "max_pixels=-3 is not a whole number >= 1")
    one_line_error(*hk(*base, "-m", tiny["qwen2_5_vl"], "--out", tmp_path / "a",
                       "--processor-args", "min_pixels=900,max_pixels=800"), "min_pixels=900 is above max_pixels=800")
    one_line_error(*hk(*base, "-m", tiny["internvl"], "--out", tmp_path / "a", "--processor-args", "min_pixels=800"),
                   "GotOcr2ImageProcessorPil", "has no setting 'min_pixels'")
    one_line_error(*hk("eval", "movsafebench", "--data", data, "-m", "random", "-b", "baseline",
                       "--out", tmp_path / "b", "--processor-args", "max_pixels=800"),
                   "--processor-args applies to the transformers backend")
    assert calls == [] and not (tmp_path / "a").exists()


def test_quantization_reaches_from_pretrained(tiny, data, tmp_path, monkeypatch):
    import importlib.util

    seen = []
    real = transformers.AutoModelForImageTextToText.from_pretrained

    def spy(model, *args, **kwargs):
        seen.append(dict(kwargs))
        kwargs.pop("quantization_config"), kwargs.pop("device_map")  # the CPU cannot load 4-bit weights
        return real(model, *args, **kwargs)

    args = ["eval", "movsafebench", "--data", data, "-b", "transformers", "--no-progress", "-m", tiny["qwen2_5_vl"],
            "--max-new-tokens", "2", "--model-args",
            "load_in_4bit=true,bnb_4bit_quant_type=nf4,bnb_4bit_use_double_quant=true,bnb_4bit_compute_dtype=float16"]
    if importlib.util.find_spec("bitsandbytes") is None:
        one_line_error(*hk(*args, "--out", tmp_path / "n"), "needs bitsandbytes, which is not installed")
    real_find_spec = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec",
                        lambda name, *a: object() if name == "bitsandbytes" else real_find_spec(name, *a))
    if not torch.cuda.is_available():
        one_line_error(*hk(*args, "--out", tmp_path / "c"), "needs a CUDA GPU", "torch sees none")
    monkeypatch.setattr(torch.cuda, "is_available", lambda: True)
    monkeypatch.setattr(transformers.AutoModelForImageTextToText, "from_pretrained", spy)
    code, text = hk(*args, "--out", tmp_path / "q")
    assert code == 0, text
    config = seen[0]["quantization_config"]
    assert isinstance(config, transformers.BitsAndBytesConfig) and seen[0]["trust_remote_code"] is False
    assert config.load_in_4bit and config.bnb_4bit_quant_type == "nf4" and config.bnb_4bit_use_double_quant
    assert config.bnb_4bit_compute_dtype == torch.float16 and seen[0]["device_map"] == "auto"
    meta = json.loads((tmp_path / "q/metadata.json").read_text())
    assert meta["settings"]["model_args"]["bnb_4bit_quant_type"] == "nf4"
    one_line_error(*hk(*args[:-1], "load_in_8bit=true,bnb_4bit_quant_type=nf4", "--out", tmp_path / "x"),
                   "bnb_4bit_quant_type applies only with load_in_4bit=true")


def test_checkpoint_configs_are_in_the_key(tiny, data, tmp_path, monkeypatch):
    import importlib.util

    folder = tmp_path / "model"
    shutil.copytree(tiny["qwen2_5_vl"], folder)
    args = ["eval", "movsafebench", "--data", data, "-b", "transformers", "--no-progress", "-m", folder,
            "--max-new-tokens", "2", "--device", "cpu", "--out", tmp_path / "r"]
    code, text = hk(*args)
    assert code == 0, text
    meta = json.loads((tmp_path / "r/metadata.json").read_text())
    recorded = meta["settings"]["checkpoint"]["preprocessor_config.json"]
    assert recorded == json.loads((folder / "preprocessor_config.json").read_text())
    edited = dict(recorded, size={"shortest_edge": 784, "longest_edge": 12544})
    (folder / "preprocessor_config.json").write_text(json.dumps(edited))
    one_line_error(*hk(*args), "different run (differs in: settings)")
    config = json.loads((folder / "config.json").read_text())
    config["quantization_config"] = {"quant_method": "bitsandbytes", "load_in_4bit": True}
    (folder / "config.json").write_text(json.dumps(config))
    real_find_spec = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec",
                        lambda name, *a: None if name == "bitsandbytes" else real_find_spec(name, *a))
    one_line_error(*hk(*args[:-1], tmp_path / "s"), "saved with a bitsandbytes quantization_config",
                   "needs bitsandbytes")


def test_model_args_typos_are_refused_before_heavy_imports(tmp_path, data):
    script = ("import sys\nfrom click.testing import CliRunner\nfrom builder.cli import cli\n"
              "for value in sys.argv[1:]:\n"
              "    r = CliRunner().invoke(cli, ['eval', 'movsafebench', '-m', '/nowhere', '-b', 'transformers',"
              f" '--data', {str(data)!r}, '--out', {str(tmp_path / 'o')!r}, '--model-args', value])\n"
              "    print(r.exit_code, r.output.strip())\n"
              "print('heavy:', sorted(m for m in ('torch', 'transformers') if m in sys.modules))\n")
    done = subprocess.run([sys.executable, "-c", script, "dtype=bfloat61", "dtype=bfloat16 device_map=auto"],
                          capture_output=True, text=True, timeout=120, cwd=ROOT,
                          env={**os.environ, "PYTHONPATH": str(ROOT)})
    lines = done.stdout.strip().splitlines()
    assert lines[0].startswith("2 error:") and "dtype='bfloat61' is not a torch dtype" in lines[0], done.stdout
    assert lines[1].startswith("2 error:") and "separated by a space" in lines[1], done.stdout
    assert "dtype=bfloat16,device_map=auto" in lines[1]
    assert lines[2] == "heavy: []", done.stdout + done.stderr


def test_retry_policy_is_recorded_and_keyed(tiny, tmp_path):
    args = ["eval", "bd-hazardvlm", "-m", tiny["qwen2_5_vl"], "-b", "transformers", "--data",
            BD_DEMO / "annotations.jsonl", "--images", BD_DEMO / "sources", "--limit", "1", "--max-new-tokens", "2",
            "--max-pixels", 56 * 56, "--device", "cpu", "--no-progress", "--out", tmp_path / "r"]
    code, text = hk(*args)  # default: off (the paper retried MiniCPM-V only); random text is never valid
    assert code == 0 and "0 formatting retries" in text, text
    assert json.loads((tmp_path / "r/metadata.json").read_text())["settings"]["retry"] == "off"
    one_line_error(*hk(*args, "--retry", "strict"), "different run (differs in: settings)")
    code, text = hk(*args[:-1], tmp_path / "s", "--retry", "strict")
    assert code == 0 and "1 formatting retries" in text, text
    assert json.loads((tmp_path / "s/metadata.json").read_text())["settings"]["retry"] == "strict"
    one_line_error(*hk("eval", "movsafebench", "-m", "random", "-b", "baseline", "--out", tmp_path / "m",
                       "--retry", "once"), "movsafebench has no formatting retry", "drop --retry")


def test_presets_list_apply_and_yield_to_typed_flags(tiny, tmp_path):
    code, text = hk("eval", "--list-presets")
    assert code == 0
    for name in ("bd-qwen2.5-vl-7b", "bd-internvl3-8b", "bd-minicpm-v-4.6", "movsafe-internvl3.5-8b",
                 "movsafe-llava-next-7b", "movsafe-llava-next-13b", "movsafe-paligemma2-10b", "movsafe-phi4-multimodal",
                 "movsafe-qwen2.5-vl-7b", "movsafe-qwen2.5-vl-32b"):
        assert name in text
    assert "min_pixels=200704,max_pixels=401408" in text and "bnb_4bit_use_double_quant=true" in text
    assert "load_in_8bit=true" in text and "max_patches=6" in text and "downsample_mode=4x,max_slice_nums=9" in text
    out = tmp_path / "p"
    result = CliRunner().invoke(cli, [str(a) for a in (
        "eval", "bd-hazardvlm", "--preset", "bd-minicpm-v-4.6", "-m", tiny["minicpm_v"], "--data",
        BD_DEMO / "annotations.jsonl", "--images", BD_DEMO / "sources", "--limit", "1", "--max-new-tokens", "2",
        "--model-args", "dtype=float32", "--max-pixels", 56 * 56, "--device", "cpu", "--no-progress", "--out", out)])
    assert result.exit_code == 0, result.output
    assert "note: --model " in result.output
    assert "overrides preset bd-minicpm-v-4.6's openbmb/MiniCPM-V-4.6" in result.output
    assert "note: --model-args dtype=float32 overrides preset bd-minicpm-v-4.6's dtype=float16" in result.output
    assert "note: --max-new-tokens 2 overrides preset bd-minicpm-v-4.6's 1024" in result.output
    meta = json.loads((out / "metadata.json").read_text())
    assert meta["preset"]["name"] == "bd-minicpm-v-4.6" and meta["preset"]["version"] == "1"
    assert meta["settings"]["processor_args"] == {"downsample_mode": "4x", "max_slice_nums": 9}
    assert meta["settings"]["retry"] == "strict"
    assert meta["settings"]["model_args"] == {"dtype": "float32"} and meta["settings"]["temperature"] == 0
    one_line_error(*hk("eval", "movsafebench", "--preset", "bd-minicpm-v-4.6", "--out", tmp_path / "w"),
                   "reproduces a bd-hazardvlm run, not movsafebench")
    one_line_error(*hk("eval", "movsafebench", "--preset", "gpt-9", "--out", tmp_path / "w"), "unknown preset 'gpt-9'")


def test_remote_code_never_runs_even_on_a_terminal(tmp_path):
    """A checkpoint whose config needs its own code: on a terminal transformers would ask "[y/N]" and run it
    on "y". `eval` passes trust_remote_code=False, so it exits 2 in one line, asks nothing, runs nothing."""
    folder = tmp_path / "remote"
    folder.mkdir()
    marker = tmp_path / "code-ran"
    code = f"open({str(marker)!r}, 'w').write('ran')\nfrom transformers import PretrainedConfig\n"
    (folder / "configuration_evil.py").write_text(code + "class EvilConfig(PretrainedConfig):\n"
                                                         "    model_type = 'evil_vlm'\n")
    (folder / "modeling_evil.py").write_text(code)
    (folder / "config.json").write_text(json.dumps({
        "model_type": "evil_vlm", "auto_map": {"AutoConfig": "configuration_evil.EvilConfig",
                                               "AutoModelForImageTextToText": "modeling_evil.EvilModel"}}))
    data = write_jsonl(tmp_path / "data", 1, seed=1)
    main, child = pty.openpty()
    proc = subprocess.Popen([sys.executable, "-m", "builder.cli", "eval", "movsafebench", "-m", str(folder), "-b",
                             "transformers", "--data", str(data), "--out", str(tmp_path / "r"), "--no-progress"],
                            stdin=child, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, cwd=ROOT,
                            env={**os.environ, "PYTHONPATH": str(ROOT), "HF_HUB_OFFLINE": "1"})
    os.close(child)
    deadline = time.monotonic() + 240
    while proc.poll() is None and time.monotonic() < deadline:
        ready, _, _ = select.select([main], [], [], 0.5)
        if ready:
            os.write(main, b"y\n")  # whoever asks gets a "y": nothing may ask
    if proc.poll() is None:
        proc.kill()
    output = proc.stdout.read().decode()
    os.close(main)
    assert proc.wait(timeout=30) == 2, output
    assert not marker.exists(), "the checkpoint's code ran"
    assert "custom code" not in output.lower() or "[y/N]" not in output
    lines = [x for x in output.strip().splitlines() if x.startswith("error:")]
    assert len(lines) == 1 and "needs its own code" in lines[0] and "trust_remote_code=true" in lines[0], output


def test_lmms_export_records_the_retry_policy_and_refuses_others(tmp_path):
    from eval_kit.bd_hazardvlm.lmms_eval import TASK

    assert 'retry: "off"' in TASK.yaml_body
    one_line_error(*hk("export", "lmms-eval", "--out", tmp_path / "x", "--retry", "strict"),
                   "--retry strict cannot be exported", "hazardkit eval bd-hazardvlm --retry strict")


def test_space_says_the_retry_policy(tmp_path):
    from eval_kit.leaderboard.space.pipeline import retry_note

    meta = tmp_path / "metadata.json"
    meta.write_text(json.dumps({"settings": {"retry": "strict"}}))
    assert retry_note(meta, {"schema": {"retry_count": 3}}) == "note: retry policy strict; 3 answers were retried"
    assert "not stated" in retry_note(None, {"schema": {"retry_count": 0}})
