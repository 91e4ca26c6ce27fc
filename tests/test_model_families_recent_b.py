"""Issue 36 (third batch, branch issue36c): each family with a tiny checkpoint in
eval_kit/testing/tiny_families_recent_b.py runs `hazardkit eval --backend transformers` on all three benchmarks
with its images reaching the model (the checks of tests/test_model_families.py); the batch's torchvision-only
families are refused before loading, one line, exit 2."""

import json
from pathlib import Path

import pytest

pytest.importorskip("torch")
pytest.importorskip("transformers")

from click.testing import CliRunner

from builder.cli import cli
from eval_kit.runners.families import FAMILIES as TABLE
from eval_kit.runners.families import TORCHVISION
from eval_kit.testing.synthetic_datasets import write_jsonl
from eval_kit.testing.tiny_families import config_only
from eval_kit.testing.tiny_families_recent_b import FAMILIES, TEMPLATE_MARK, build, instructblip

ROOT = Path(__file__).resolve().parents[1]
BD_DEMO = ROOT / "manifests" / "bd_hazardvlm" / "v1" / "demo"
SAFEREL_DEMO = ROOT / "manifests" / "saferelbench" / "demo.jsonl"
TORCHVISION_ONLY = ("inkling_mm_model", "kimi_k25", "minimax_m3_vl", "muse_glimmer", "muse_spark",
                    "perception_lm", "step3p7")


@pytest.fixture(scope="module")
def movsafe_data(tmp_path_factory):
    return write_jsonl(tmp_path_factory.mktemp("movsafe"), 1, seed=4)


@pytest.fixture(scope="module")
def checkpoints(tmp_path_factory):
    root = tmp_path_factory.mktemp("families_b")
    return {family: build(family, root / family) for family in FAMILIES}


def benchmark_args(bench: str, movsafe_data: Path) -> list[str]:
    if bench == "movsafebench":
        return ["--data", str(movsafe_data)]
    if bench == "bd-hazardvlm":
        return ["--data", str(BD_DEMO / "annotations.jsonl"), "--images", str(BD_DEMO / "sources"), "--limit", "1"]
    return ["--data", str(SAFEREL_DEMO), "--limit", "1"]


@pytest.mark.parametrize("family", sorted(FAMILIES))
def test_family_runs_on_every_benchmark(family, checkpoints, movsafe_data, tmp_path, monkeypatch):
    from eval_kit.runners.backends.hf_transformers import TransformersBackend

    assert TABLE[family].refused is None
    checkpoint = checkpoints[family]
    seen: list[dict] = []
    real_inputs = TransformersBackend.inputs

    def spy_inputs(self, samples):
        batch = real_inputs(self, samples)
        image_id = self.tokenizer.convert_tokens_to_ids(checkpoint.image_token)
        seen.append({"text": self.tokenizer.decode(batch["input_ids"][0]),
                     "image_tokens": int((batch["input_ids"] == image_id).sum()),
                     "pixels": any("pixel_values" in k for k in batch), "images": sum(len(s.images) for s in samples),
                     "model": type(self.model).__name__ if self.model is not None else None})
        return batch

    monkeypatch.setattr(TransformersBackend, "inputs", spy_inputs)
    for bench in ("movsafebench", "bd-hazardvlm", "saferelbench"):
        seen.clear()
        out = tmp_path / bench
        result = CliRunner().invoke(cli, ["eval", bench, "--model", str(checkpoint.folder), "--backend", "transformers",
                                          *benchmark_args(bench, movsafe_data), "--max-new-tokens", "2",
                                          "--max-pixels", str(56 * 56), "--device", "cpu", "--no-progress",
                                          "--out", str(out)])
        if bench == "saferelbench" and TABLE[family].text_refused:  # needs an image on every prompt: refused
            lines = [line for line in result.output.splitlines() if line.strip()]
            assert result.exit_code == 2 and len(lines) == 1 and TABLE[family].text_refused in lines[0], result.output
            assert not seen and not out.exists()
            continue
        assert result.exit_code == 0, (family, bench, result.output)
        assert seen, (family, bench)
        for batch in seen:
            assert TEMPLATE_MARK[family] in batch["text"], (family, bench, batch["text"][:300])
            assert batch["model"] == checkpoint.model_class
            if batch["images"]:
                assert batch["pixels"] and batch["image_tokens"] >= batch["images"], (family, bench, batch)
            else:
                assert batch["image_tokens"] == 0
        assert any(batch["images"] for batch in seen) == (bench != "saferelbench")
        records = [json.loads(line) for line in (out / "raw.jsonl").read_text().splitlines()]
        predictions = (out / "predictions.jsonl").read_text().splitlines()
        assert records and all("error" not in r and isinstance(r["response"], str) for r in records), records
        assert len(predictions) == len({r["id"] for r in records})


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
                                      *benchmark_args("bd-hazardvlm", Path()), "--device", "cpu",
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
                                      *benchmark_args("bd-hazardvlm", Path()), "--device", "cpu", "--no-progress",
                                      "--out", str(tmp_path / "out")])
    lines = [line for line in result.output.splitlines() if line.strip()]
    assert result.exit_code == 2 and len(lines) == 1 and cause in lines[0], result.output
