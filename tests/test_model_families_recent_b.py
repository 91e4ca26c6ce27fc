"""Issue 36 (third batch, branch issue36c): each family with a tiny checkpoint in
eval_kit/testing/tiny_families_recent_b.py runs `hazardkit eval --backend transformers` on all three benchmarks
with its images reaching the model (the checks of tests/test_model_families.py); the batch's torchvision-only
families are refused before loading, one line, exit 2."""

from pathlib import Path

import pytest

pytest.importorskip("torch")
pytest.importorskip("transformers")

from click.testing import CliRunner

from builder.cli import cli
from eval_kit.runners.families import FAMILIES as TABLE
from eval_kit.runners.families import TORCHVISION
from eval_kit.testing.tiny_families import config_only
from eval_kit.testing.tiny_families_recent_b import FAMILIES, TEMPLATE_MARK, build, instructblip
from tests import test_model_families as base

ROOT = Path(__file__).resolve().parents[1]
SAFEREL_DEMO = ROOT / "manifests" / "saferelbench" / "demo.jsonl"
TORCHVISION_ONLY = ("inkling_mm_model", "kimi_k25", "minimax_m3_vl", "muse_glimmer", "muse_spark",
                    "perception_lm", "step3p7")


movsafe_data, checkpoints, test_family_runs_on_every_benchmark = base.family_tests(FAMILIES, build, TEMPLATE_MARK,
                                                                                   name="families_b")


@pytest.mark.parametrize("family", TORCHVISION_ONLY)
def test_torchvision_only_family_is_refused_in_one_line(family, tmp_path):
    from transformers.models.auto.image_processing_auto import IMAGE_PROCESSOR_MAPPING_NAMES

    assert set(IMAGE_PROCESSOR_MAPPING_NAMES[family]) == {"torchvision"}  # the cause: no PIL image processor
    assert TABLE[family].refused == TORCHVISION
    folder = config_only(family, tmp_path / family)
    result = CliRunner().invoke(cli, ["eval", "saferelbench", "--model", str(folder), "--backend", "transformers",
                                      "--data", str(SAFEREL_DEMO), "--limit", "1", "--device", "cpu",
                                      "--no-progress", "--out", str(tmp_path / "out")])
    assert result.exit_code == 2, result.output
    lines = [line for line in result.output.splitlines() if line.strip()]
    assert any("torchvision" in line and TABLE[family].title in line for line in lines), result.output


def test_instructblip_template_is_checked_on_the_processor_the_run_calls(checkpoints, tmp_path):
    """InstructBLIP's processor class takes no chat template: a chat_template.jinja beside it is read into the
    tokenizer only. The run calls the processor, so the check is on the processor (which adopts the
    tokenizer's template): with the file every sample is answered (test above); without it, one line, exit 2."""
    from transformers import AutoProcessor

    from eval_kit.runners.backends import setup_checks

    folder = checkpoints["instructblip"].folder
    processor = AutoProcessor.from_pretrained(folder)
    assert not processor.chat_template and processor.tokenizer.chat_template  # what transformers 5.24 loads
    setup_checks.adopt_tokenizer_template(processor)
    assert processor.chat_template == (folder / "chat_template.jinja").read_text()
    bare = instructblip(tmp_path / "bare", template=None)
    result = CliRunner().invoke(cli, ["eval", "bd-hazardvlm", "--model", str(bare.folder), "--backend", "transformers",
                                      *base.benchmark_args("bd-hazardvlm", Path()), "--device", "cpu",
                                      "--no-progress", "--out", str(tmp_path / "out")])
    assert result.exit_code == 2, result.output
    lines = [line for line in result.output.splitlines() if line.strip()]
    assert len(lines) == 1 and "has no chat template" in lines[0], result.output
    assert not (tmp_path / "out" / "raw.jsonl").exists()


@pytest.mark.parametrize(("family", "cause"), [("instructblipvideo", "a video model"),
                                               ("mistral4", "a text-only decoder")])
def test_video_only_and_text_only_families_are_refused_in_one_line(family, cause, tmp_path):
    from transformers.models.auto.image_processing_auto import IMAGE_PROCESSOR_MAPPING_NAMES

    assert family not in IMAGE_PROCESSOR_MAPPING_NAMES  # neither has an image processor
    folder = config_only(family, tmp_path / family)
    result = CliRunner().invoke(cli, ["eval", "bd-hazardvlm", "--model", str(folder), "--backend", "transformers",
                                      *base.benchmark_args("bd-hazardvlm", Path()), "--device", "cpu", "--no-progress",
                                      "--out", str(tmp_path / "out")])
    lines = [line for line in result.output.splitlines() if line.strip()]
    assert result.exit_code == 2 and len(lines) == 1 and cause in lines[0], result.output
