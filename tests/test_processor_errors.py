"""A processor that cannot be built is refused in one line, exit 2, naming the REAL cause (issue 36).

`load_processor` used to swallow AutoProcessor's exception and say "its processor needs torchvision" whatever
had failed. Each case here is a tiny checkpoint (eval_kit/testing/tiny_families.py) broken the way real ones
are, run through `hazardkit eval`; the expected message parts are written by hand from the cause.
"""

import json
import shutil
from pathlib import Path

import pytest

pytest.importorskip("torch")
pytest.importorskip("transformers")

from click.testing import CliRunner

from builder.cli import cli
from eval_kit.runners.backends import model_loading
from eval_kit.testing.tiny_families import llava, smolvlm

ROOT = Path(__file__).resolve().parents[1]
SAFEREL_DEMO = ROOT / "manifests" / "saferelbench" / "demo.jsonl"


@pytest.fixture(scope="module")
def base(tmp_path_factory):
    return llava(tmp_path_factory.mktemp("llava") / "llava").folder


def _copy(base: Path, tmp_path: Path) -> Path:
    folder = tmp_path / "ckpt"
    shutil.copytree(base, folder)
    return folder


def _edit_image_processor(folder: Path, **values) -> None:
    config_file = folder / "processor_config.json"  # LLaVA saves its image processor's settings here
    config = json.loads(config_file.read_text())
    config["image_processor"].update(values)
    config_file.write_text(json.dumps(config))


def _refusal(folder: Path, tmp_path: Path) -> str:
    out = tmp_path / "out"
    result = CliRunner().invoke(cli, ["eval", "saferelbench", "--model", str(folder), "--backend", "transformers",
                                      "--data", str(SAFEREL_DEMO), "--limit", "1", "--max-new-tokens", "2",
                                      "--device", "cpu", "--no-progress", "--out", str(out)])
    lines = [line for line in result.output.splitlines() if line.strip()]
    assert result.exit_code == 2 and len(lines) == 1, result.output
    assert lines[0].startswith("error: field '--model': cannot build the processor of ")
    assert not (out / "raw.jsonl").exists()
    return lines[0]


def test_missing_tokenizer_file_is_named_not_torchvision(base, tmp_path):
    folder = _copy(base, tmp_path)
    (folder / "tokenizer.json").unlink()
    line = _refusal(folder, tmp_path)
    assert "its tokenizer cannot be built: the checkpoint has no tokenizer.json" in line
    assert "restore the checkpoint's tokenizer files" in line and "torchvision" not in line


def test_bad_processor_setting_is_named(base, tmp_path):
    folder = _copy(base, tmp_path)
    _edit_image_processor(folder, size="big")
    line = _refusal(folder, tmp_path)
    assert "ValueError: Could not convert size input to size dict: big" in line
    assert "check the checkpoint's processor files" in line and "torchvision" not in line


def test_missing_package_is_named(tmp_path, monkeypatch):
    """SmolVLM's processor without num2words (as on a machine without it): the package, not torchvision, is
    named, though the first failure (its video processor) was torchvision's."""
    import transformers.models.smolvlm.processing_smolvlm as smol

    folder = smolvlm(tmp_path / "smol").folder
    monkeypatch.setattr(smol, "num2words", None)
    line = _refusal(folder, tmp_path)
    assert "needs the num2words package, not installed here" in line and line.endswith("(pip install num2words)")
    assert "torchvision" not in line


def test_torchvision_only_class_names_torchvision(base, tmp_path):
    folder = _copy(base, tmp_path)
    _edit_image_processor(folder, image_processor_type="Cohere2VisionImageProcessor")  # torchvision only
    line = _refusal(folder, tmp_path)
    assert "its Cohere2VisionImageProcessor needs torchvision, which is not importable here" in line
    assert "install a torchvision matching torch" in line


def test_torchvision_and_another_package_are_both_named(base, tmp_path):
    folder = _copy(base, tmp_path)
    _edit_image_processor(folder, image_processor_type="TimmWrapperImageProcessor")  # torchvision and timm
    line = _refusal(folder, tmp_path)
    assert "its TimmWrapperImageProcessor needs torchvision, which is not importable here" in line
    assert "it also needs timm, not installed" in line and line.endswith("and pip install timm)")


def test_needs_torchvision_only_when_torchvision_is_missing(monkeypatch):
    """The same error where torchvision IS importable (a broken install, say) does not blame torchvision."""
    exc = ImportError("\nPixtralProcessor requires the Torchvision library but it was not found in your environment.")
    assert model_loading.missing_packages(exc) == (["PixtralProcessor"], ["torchvision"])
    monkeypatch.setattr(model_loading, "torchvision_importable", lambda: False)
    assert "its PixtralProcessor needs torchvision" in str(model_loading.processor_error("m", exc))
    monkeypatch.setattr(model_loading, "torchvision_importable", lambda: True)
    message = str(model_loading.processor_error("m", exc))
    assert "needs torchvision" not in message and "ImportError: PixtralProcessor requires" in message


def test_module_not_found_names_the_top_package():
    exc = ModuleNotFoundError("No module named 'einops.layers'", name="einops.layers")
    assert model_loading.missing_packages(exc) == ([], ["einops"])
    assert str(model_loading.processor_error("m", exc)).endswith("(pip install einops)")


def test_runtime_error_of_a_broken_import_is_one_line(base, tmp_path, monkeypatch):
    """transformers' lazy import wraps a module's failed import in a RuntimeError (e.g. a torchvision built for
    another torch): named, exit 2, not an internal error."""
    import transformers

    def broken(*args, **kwargs):
        raise RuntimeError("Failed to import transformers.models.clip.image_processing_clip because of the "
                           "following error (look up to see its traceback): operator torchvision::nms does not exist")

    monkeypatch.setattr(transformers.AutoProcessor, "from_pretrained", classmethod(broken))
    line = _refusal(_copy(base, tmp_path), tmp_path)
    assert "RuntimeError: Failed to import transformers.models.clip.image_processing_clip" in line
    assert "operator torchvision::nms does not exist" in line
