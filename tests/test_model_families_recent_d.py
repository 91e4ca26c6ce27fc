"""Issue 36 item 1 (helper branch issue36e): FastVLM, GLM-5 next, glmga, Granite 4 Vision, HunYuan-VL, HY-V4-VL.

The families that run have a tiny checkpoint of their REAL transformers 5.24 classes
(eval_kit/testing/tiny_families_recent_d.py) that goes through `hazardkit eval --backend transformers` on all
three benchmarks with the shared checks of tests/test_model_families.py (exit 0, the template's assistant turn
in the prompt, image tokens and pixels reaching the model, answers recorded, the auto class and no remote code):
glmga, Granite 4 Vision, GLM-5 next, HY-V4-VL. FastVLM's vision tower is a timm model: without timm it is
refused naming the package; HunYuan-VL is HunyuanOCR's architecture, refused as an OCR model. Both refusals are
one line, exit 2, before any processor or weight loads.
"""

from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("torch")
pytest.importorskip("transformers")

from click.testing import CliRunner

from builder.cli import cli
from eval_kit.runners import families
from eval_kit.testing.tiny_families import config_only
from eval_kit.testing.tiny_families_recent_d import FAMILIES, TEMPLATE_MARK, build
from tests import test_model_families as base

movsafe_data, checkpoints, test_family_runs_on_every_benchmark = base.family_tests(FAMILIES, build, TEMPLATE_MARK,
                                                                                   name="families_recent_d")


def test_every_family_has_a_mark():
    assert set(TEMPLATE_MARK) == set(FAMILIES)



def test_glmga_without_a_processor_class_gets_glm46v_processor(movsafe_data, tmp_path, monkeypatch):
    """transformers 5.24 has no processor mapping for glmga (its model class is GLM-4.6V's): a checkpoint that
    names no processor class got "cannot build an image processor ... needs torchvision" (a wrong cause);
    the loader now takes the processor of the model type whose class it shares, and the run goes through."""
    from eval_kit.runners.image_only import shared_class_processor

    assert shared_class_processor("glmga") == "Glm46VProcessor"
    assert shared_class_processor("fast_vlm") is None and shared_class_processor("qwen2_vl") == "Qwen2VLProcessor"
    checkpoint = build("glmga", tmp_path / "glmga")
    (checkpoint.folder / "processor_config.json").unlink()
    assert "processor_class" not in (checkpoint.folder / "preprocessor_config.json").read_text()
    base.check_runs_on_every_benchmark("glmga", checkpoint, TEMPLATE_MARK["glmga"], movsafe_data, tmp_path / "runs",
                                       monkeypatch)


# ---- refused before anything loads: one line, exit 2, the real cause -------------------------------------
SAFEREL_DEMO = Path(__file__).resolve().parents[1] / "manifests" / "saferelbench" / "demo.jsonl"


no_loading = base.no_loading


def eval_lines(bench: str, folder: Path, movsafe_data: Path, out: Path) -> tuple[int, list[str]]:
    data = ["--data", str(movsafe_data)] if bench == "movsafebench" else ["--data", str(SAFEREL_DEMO), "--limit", "1"]
    result = CliRunner().invoke(cli, ["eval", bench, "--model", str(folder), "--backend", "transformers", *data,
                                      "--device", "cpu", "--no-progress", "--out", str(out)])
    return result.exit_code, [line for line in result.output.splitlines() if line.strip()]


@pytest.mark.parametrize(("bench", "missing"), [("movsafebench", "timm"), ("saferelbench", "timm"),
                                                ("movsafebench", "torchvision")])
def test_fast_vlm_without_timm_is_refused_naming_it(bench, missing, movsafe_data, tmp_path, no_loading, monkeypatch):
    """FastVLM's vision tower is a timm model (transformers' TimmWrapper imports timm; timm 1.0's layers import
    torchvision): without either it cannot load, so it is refused naming the package, before any load."""
    import inspect

    from transformers import FastVlmConfig
    from transformers.models.timm_wrapper import modeling_timm_wrapper

    vision = FastVlmConfig().vision_config
    assert vision.model_type == "timm_wrapper" and vision.architecture.startswith("fastvit")  # the real cause
    assert "import timm" in inspect.getsource(modeling_timm_wrapper)
    assert families.FAMILIES["fast_vlm"].needs == ("timm", "torchvision")
    monkeypatch.setattr(families, "installed", lambda module: module != missing)  # whatever this machine has
    folder = config_only("fast_vlm", tmp_path / "fast_vlm")
    code, lines = eval_lines(bench, folder, movsafe_data, tmp_path / "out")
    assert code == 2 and len(lines) == 1 and lines[0].startswith("error:"), lines
    assert f"FastVLM (fast_vlm), which needs the {missing} package" in lines[0], lines
    assert f"pip install {missing}" in lines[0]
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize("bench", ["movsafebench", "saferelbench"])
def test_hunyuan_vl_is_refused_as_an_ocr_model(bench, movsafe_data, tmp_path, no_loading):
    """transformers' HunYuan-VL is HunyuanOCR's architecture: its config describes "the dense-only,
    image-text-only variant used for OCR and document-understanding style workloads" (checkpoint
    tencent/HunyuanOCR), refused as the table refuses the other OCR models (GLM-OCR, PaddleOCR-VL, ...)."""
    from transformers import HunYuanVLConfig

    assert "used for OCR and document-understanding" in " ".join(HunYuanVLConfig.__doc__.split())
    entry = families.FAMILIES["hunyuan_vl"]
    assert entry.refused == families.DOCUMENT == families.FAMILIES["glm_ocr"].refused
    folder = config_only("hunyuan_vl", tmp_path / "hunyuan_vl")
    code, lines = eval_lines(bench, folder, movsafe_data, tmp_path / "out")
    assert code == 2 and len(lines) == 1 and lines[0].startswith("error:"), lines
    assert "HunYuan-VL (HunyuanOCR) (hunyuan_vl): an OCR / document" in lines[0] and entry.fix in lines[0]
    assert not (tmp_path / "out").exists()
