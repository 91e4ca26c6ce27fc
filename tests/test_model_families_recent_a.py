"""Issue 36 item 1 (helper b): more transformers VLM families, run or refused.

Apertus 1.5, Gemma 4 unified, Inkling 2 and Inkling 2 loop have no PIL image processor in the pinned
transformers (5.24): the image-processor auto mapping names only a torchvision class. Without torchvision they
cannot preprocess an image, so `FAMILIES` refuses them with that cause; the one-line, exit-2 refusal before any
load is checked for every refused family by
tests/test_model_families_all.py::test_refused_family_is_one_line_before_loading.
EXAONE 4.5 and HyperCLOVA X Vision v2 run: a tiny checkpoint of each one's real classes
(eval_kit/testing/tiny_families_recent_a.py) goes through `eval` on all three benchmarks with the checks of
tests/test_model_families.py. The other families of this helper's list are not yet covered here.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from eval_kit.runners import families

TORCHVISION_ONLY = ("apertus1p5", "gemma4_unified", "inkling2", "inkling2_loop")


@pytest.mark.parametrize("model_type", TORCHVISION_ONLY)
def test_torchvision_only_family_is_refused_naming_torchvision(model_type):
    from transformers.models.auto import image_processing_auto

    classes = image_processing_auto.IMAGE_PROCESSOR_MAPPING_NAMES[model_type]
    assert set(classes) == {"torchvision"}, classes  # no PIL version: the cause is real
    family = families.FAMILIES[model_type]
    assert family.refused == families.TORCHVISION and family.fix == families.TV_FIX
    assert model_type in families.native_families()


ROOT = Path(__file__).resolve().parents[1]
BD_DEMO = ROOT / "manifests" / "bd_hazardvlm" / "v1" / "demo"


def benchmark_args(bench: str, movsafe_data: Path) -> list[str]:  # as tests/test_model_families.py
    if bench == "movsafebench":
        return ["--data", str(movsafe_data)]
    if bench == "bd-hazardvlm":
        return ["--data", str(BD_DEMO / "annotations.jsonl"), "--images", str(BD_DEMO / "sources"), "--limit", "1",
                "--retry", "once"]
    return ["--data", str(ROOT / "manifests" / "saferelbench" / "demo.jsonl"), "--limit", "1"]


@pytest.fixture(scope="module")
def movsafe_data(tmp_path_factory):
    from eval_kit.testing.synthetic_datasets import write_jsonl

    return write_jsonl(tmp_path_factory.mktemp("movsafe"), 1, seed=4)


@pytest.fixture(scope="module")
def checkpoints(tmp_path_factory):
    from eval_kit.testing import tiny_families_recent_a as tiny

    root = tmp_path_factory.mktemp("families_recent_a")
    return {family: tiny.build(family, root / family) for family in tiny.FAMILIES}


@pytest.mark.parametrize("family", ["exaone4_5", "hyperclovax_vision_v2"])
def test_family_runs_on_every_benchmark(family, checkpoints, movsafe_data, tmp_path, monkeypatch):
    from click.testing import CliRunner

    from builder.cli import cli
    from eval_kit.runners.backends.hf_transformers import TransformersBackend
    from eval_kit.testing.tiny_families_recent_a import TEMPLATE_MARK

    assert families.FAMILIES[family].refused is None
    checkpoint = checkpoints[family]
    seen: list[dict] = []
    real_inputs = TransformersBackend.inputs

    def spy_inputs(self, samples):
        batch = real_inputs(self, samples)
        image_id = self.tokenizer.convert_tokens_to_ids(checkpoint.image_token)
        seen.append({"text": self.tokenizer.decode(batch["input_ids"][0]),
                     "image_tokens": int((batch["input_ids"] == image_id).sum()),
                     "pixels": any("pixel_values" in k for k in batch), "images": sum(len(s.images) for s in samples),
                     "model": type(self.model).__name__})
        return batch

    monkeypatch.setattr(TransformersBackend, "inputs", spy_inputs)
    for bench in ("movsafebench", "bd-hazardvlm", "saferelbench"):
        seen.clear()
        out = tmp_path / bench
        result = CliRunner().invoke(cli, ["eval", bench, "--model", str(checkpoint.folder), "--backend", "transformers",
                                          *benchmark_args(bench, movsafe_data), "--max-new-tokens", "2",
                                          "--max-pixels", "3136", "--device", "cpu", "--no-progress",
                                          "--out", str(out)])
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
        assert records and all(isinstance(r["response"], str) for r in records)
        assert len((out / "predictions.jsonl").read_text().splitlines()) == len({r["id"] for r in records})
