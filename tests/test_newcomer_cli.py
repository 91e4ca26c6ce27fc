"""What a newcomer meets first: a mistyped preset gets "did you mean", a quantized preset runs unquantized with
`--model-args load_in_4bit=false`, `forge --help` reads in the order of the build chain, and no help or error
names the schema folder that no longer exists."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from click.testing import CliRunner

from builder.cli import cli
from eval_kit.errors import BadInput
from eval_kit.runners import presets
from eval_kit.runners.backends import quantization

ROOT = Path(__file__).resolve().parents[1]


def test_mistyped_preset_gets_did_you_mean(tmp_path):
    with pytest.raises(BadInput, match=r"did you mean bd-qwen2\.5-vl-7b\?"):  # the benchmark's presets first
        presets.get("bd-qwen25-vl-7b", "bd-hazardvlm")
    with pytest.raises(BadInput, match=r"did you mean bd-qwen2\.5-vl-7b or movsafe-qwen2\.5-vl-7b"):
        presets.get("bd-qwen25-vl-7b")
    result = CliRunner().invoke(cli, ["eval", "bd-hazardvlm", "--preset", "bd-internvl-8b",
                                      "--out", str(tmp_path / "r")])
    assert result.exit_code == 2
    assert "unknown preset 'bd-internvl-8b'" in result.output and "did you mean bd-internvl3-8b" in result.output
    with pytest.raises(BadInput) as far:  # nothing close: no guess, the listing command
        presets.get("gpt-9")
    assert "did you mean" not in str(far.value) and "--list-presets" in str(far.value)


def test_load_in_4bit_false_drops_a_presets_quantization():
    preset = presets.get("bd-qwen2.5-vl-7b")
    assert preset.model_args["load_in_4bit"] is True and "bnb_4bit_quant_type" in preset.model_args
    out, notes = presets.resolve(preset, {"model_args": {"load_in_4bit": False, "dtype": "bfloat16"}},
                                 {"model_args"})
    args = out["model_args"]
    assert args["load_in_4bit"] is False and args["dtype"] == "bfloat16"
    assert not [k for k in args if k.startswith("bnb_4bit_")], args
    assert any("load_in_4bit=false also drops preset bd-qwen2.5-vl-7b's bnb_4bit_" in n for n in notes), notes
    quantization.check(args)  # before the fix: "bnb_4bit_quant_type applies only with load_in_4bit=true"
    assert quantization.config_for(args) is None  # no BitsAndBytesConfig: runs without bitsandbytes or CUDA
    eight, _ = presets.resolve(presets.get("bd-internvl3-8b"), {"model_args": {"load_in_8bit": False}}, {"model_args"})
    quantization.check(eight["model_args"])
    assert quantization.config_for(eight["model_args"]) is None
    # without the flag the preset keeps its quantization
    kept, _ = presets.resolve(preset, {"model_args": {}}, set())
    assert kept["model_args"]["bnb_4bit_quant_type"] == "nf4"


def test_quantization_without_its_runtime_names_what_works(monkeypatch):
    monkeypatch.setattr(quantization.importlib.util, "find_spec", lambda name, *a: None)
    with pytest.raises(BadInput, match=r"load_in_4bit=false") as missing:
        quantization.config_for({"load_in_4bit": True})
    assert "bitsandbytes" in str(missing.value)
    with pytest.raises(BadInput, match="unquantized checkpoint"):
        quantization.check_checkpoint({"quant_method": "bitsandbytes"}, "org/model")


def test_forge_help_lists_the_build_chain_in_order():
    result = CliRunner().invoke(cli, ["forge", "--help"])
    assert result.exit_code == 0, result.output
    text = result.output
    chain = [text.index(step) for step in ("hazardkit sources scan", "hazardkit forge plan", "hazardkit forge run",
                                           "hazardkit forge export", "hazardkit publish movsafebench")]
    assert chain == sorted(chain), text
    listed = re.findall(r"^  (\w+)\s{2,}(.+)$", text.split("Commands:", 1)[1], re.M)
    assert [name for name, _ in listed] == ["synthetic", "plan", "preview", "run", "status", "export"], listed
    assert all(not line.endswith("...") for _, line in listed), listed  # one whole line each


def test_no_help_or_message_names_the_removed_schema_folder():
    result = CliRunner().invoke(cli, ["validate", "--help"])
    assert result.exit_code == 0 and "eval_kit/schemas/submission_metadata.schema.json" in result.output
    stale = [str(p.relative_to(ROOT)) for folder in ("eval_kit", "builder") for p in (ROOT / folder).rglob("*.py")
             if "manifests/schemas" in p.read_text(encoding="utf-8")]
    assert stale == []
    for path in re.findall(r"eval_kit/[\w/]+\.schema\.json",
                           "".join(p.read_text(encoding="utf-8") for p in (ROOT / "eval_kit").rglob("*.py"))):
        assert (ROOT / path).is_file(), path
