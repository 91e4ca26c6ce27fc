"""Every supported model family through `hazardkit eval --backend transformers` on all three benchmarks.

Each family is a tiny random-weight checkpoint of its REAL transformers classes (eval_kit/testing/
tiny_families.py), saved to a folder as a machine without torchvision sees it (no video processor). Per
family and benchmark the test checks what a user relies on: exit 0, the image tokens reached the model (the
processor expanded each image and the batch carries pixels), the chat template (or PaliGemma's own prefix
format) shaped the prompt, and every answer is recorded in raw.jsonl and predictions.jsonl.
"""

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("torch")
pytest.importorskip("transformers")

from click.testing import CliRunner

from builder.cli import cli
from eval_kit.runners.families import PLACEHOLDER_IMAGE
from eval_kit.testing.synthetic_datasets import write_jsonl
from eval_kit.testing.tiny_families import FAMILIES, build

ROOT = Path(__file__).resolve().parents[1]
BD_DEMO = ROOT / "manifests" / "bd_hazardvlm" / "v1" / "demo"
SAFEREL_DEMO = ROOT / "manifests" / "saferelbench" / "demo.jsonl"
# what the prompt must contain once the family's template (or format) is applied: the assistant turn's opening
TEMPLATE_MARK = {"qwen2_5_vl": "<|im_start|>assistant\n", "qwen2_vl": "<|im_start|>assistant\n",
                 "qwen3_vl_moe": "<|im_start|>assistant\n", "internvl": "<|im_start|>assistant\n",
                 "minicpm_v": "<|im_start|>assistant\n", "llava_next": "ASSISTANT:", "phi4_multimodal": "<|assistant|>",
                 "paligemma": "answer en ", "gemma3": "<start_of_turn>model\n", "idefics3": "Assistant:",
                 "llava_onevision": "<|im_start|>assistant\n", "smolvlm": "Assistant:",
                 "mistral3": "[/INST]", "llava": "ASSISTANT:", "qwen3_vl": "<|im_start|>assistant\n"}
AUTO_CLASS = {"phi4_multimodal": "AutoModelForMultimodalLM"}  # not AutoModelForImageTextToText


def benchmark_args(bench: str, movsafe_data: Path) -> list[str]:
    if bench == "movsafebench":
        return ["--data", str(movsafe_data)]
    if bench == "bd-hazardvlm":  # --retry once: the retry's three-turn conversation goes through the template too
        return ["--data", str(BD_DEMO / "annotations.jsonl"), "--images", str(BD_DEMO / "sources"), "--limit", "1",
                "--retry", "once"]
    return ["--data", str(SAFEREL_DEMO), "--limit", "1"]


def movsafe_fixture(rows: int = 1) -> Any:
    """A module-scoped `movsafe_data` fixture: a MovSafeBench JSON Lines file of `rows` synthetic rows."""

    @pytest.fixture(scope="module")
    def movsafe_data(tmp_path_factory):
        return write_jsonl(tmp_path_factory.mktemp("movsafe"), rows, seed=4)

    return movsafe_data


@pytest.fixture
def no_loading(monkeypatch):
    """Any processor, tokenizer or weight load fails the test: the refusal must come before them."""
    import transformers

    def refuse(*args, **kwargs):
        raise AssertionError("loaded something before refusing")

    for name in ("AutoProcessor", "AutoTokenizer", "AutoImageProcessor", "AutoModelForImageTextToText",
                 "AutoModelForMultimodalLM", "AutoModelForCausalLM"):
        monkeypatch.setattr(getattr(transformers, name), "from_pretrained", classmethod(refuse))


def family_tests(families: dict[str, Any], build: Callable[[str, Path], Any], marks: dict[str, str], *,
                 rows: int = 1, name: str = "families") -> tuple[Any, Any, Any]:
    """What every family test module shares, made once: its module-scoped fixtures `movsafe_data` (`rows`
    MovSafeBench rows) and `checkpoints` ({family: the tiny checkpoint `build(family, folder)` makes}, in a
    temporary folder `name`), and `test_family_runs_on_every_benchmark`, parametrized over `families`: the
    family's row in the table runs (not refused, not unchecked), then `check_runs_on_every_benchmark` with its
    template mark from `marks`. A module binds all three at its top level, where pytest finds them:

        movsafe_data, checkpoints, test_family_runs_on_every_benchmark = base.family_tests(FAMILIES, build, MARKS)
    """

    movsafe_data = movsafe_fixture(rows)

    @pytest.fixture(scope="module")
    def checkpoints(tmp_path_factory):
        root = tmp_path_factory.mktemp(name)
        return {family: build(family, root / family) for family in families}

    @pytest.mark.parametrize("family", sorted(families))
    def test_family_runs_on_every_benchmark(family, checkpoints, movsafe_data, tmp_path, monkeypatch):
        from eval_kit.runners import families as table

        entry = table.FAMILIES.get(family)  # a builder's key is the model type, except minicpm_v (minicpmv4_6)
        assert entry is None or (entry.refused is None and entry.note != table.UNTESTED), entry
        check_runs_on_every_benchmark(family, checkpoints[family], marks[family], movsafe_data, tmp_path,
                                      monkeypatch)

    return movsafe_data, checkpoints, test_family_runs_on_every_benchmark


movsafe_data, checkpoints, test_family_runs_on_every_benchmark = family_tests(FAMILIES, build, TEMPLATE_MARK,
                                                                              rows=2)


def check_runs_on_every_benchmark(family, checkpoint, template_mark, movsafe_data, tmp_path, monkeypatch):
    """The checks every family test shares (tests/test_model_families*.py): on each benchmark exit 0, the
    template mark in the prompt, the model class, images reaching the model, every answer recorded, the auto
    class that loaded it and never remote code; a family the table refuses on text-only SafeRelBench
    (`text_refused`) is refused there in one line, exit 2, before any batch. On SafeRelBench a family whose
    generate() needs pixels (`text_placeholder`) gets the grey placeholder image on every prompt (pixels and
    image tokens in each batch, a note at run start, `placeholder_image` in metadata.json and the settings);
    every other family gets none (no pixels, no image tokens, no `placeholder_image`)."""
    import jsonschema
    import transformers

    from eval_kit.runners.backends.hf_transformers import TransformersBackend
    from eval_kit.runners.families import FAMILIES as TABLE
    from eval_kit.schemas import load_schema

    entry = TABLE.get(family)  # a tiny builder's key is the model type, except minicpm_v (minicpmv4_6)
    text_refused = entry.text_refused if entry is not None else None
    placeholder = entry.text_placeholder if entry is not None else None
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
    loaded_by = []
    auto_name = AUTO_CLASS.get(family, "AutoModelForImageTextToText")
    real_from_pretrained = getattr(transformers, auto_name).from_pretrained.__func__

    def spy_from_pretrained(cls, *args, **kwargs):
        loaded_by.append((cls.__name__, kwargs.get("trust_remote_code")))
        return real_from_pretrained(cls, *args, **kwargs)

    monkeypatch.setattr(getattr(transformers, auto_name), "from_pretrained", classmethod(spy_from_pretrained))
    for bench in ("movsafebench", "bd-hazardvlm", "saferelbench"):
        seen.clear()
        out = tmp_path / bench
        result = CliRunner().invoke(cli, ["eval", bench, "--model", str(checkpoint.folder), "--backend", "transformers",
                                          *benchmark_args(bench, movsafe_data), "--max-new-tokens", "2",
                                          "--max-pixels", str(56 * 56), "--device", "cpu", "--no-progress",
                                          "--out", str(out)])
        if bench == "saferelbench" and text_refused:  # needs an image on every prompt: refused
            lines = [line for line in result.output.splitlines() if line.strip()]
            assert result.exit_code == 2 and len(lines) == 1 and text_refused in lines[0], result.output
            assert not seen and not out.exists()
            continue
        assert result.exit_code == 0, (family, bench, result.output)
        assert seen, (family, bench)
        grey = bench == "saferelbench" and placeholder is not None  # one placeholder image per text-only prompt
        for batch in seen:
            assert template_mark in batch["text"], (family, bench, batch["text"][:300])
            assert batch["model"] == checkpoint.model_class
            if batch["images"] or grey:  # images reach the model: expanded into image tokens, pixels in the batch
                assert batch["pixels"] and batch["image_tokens"] >= max(batch["images"], 1), (family, bench, batch)
            else:
                assert batch["image_tokens"] == 0 and (bench != "saferelbench" or not batch["pixels"]), batch
        assert any(batch["images"] for batch in seen) == (bench != "saferelbench")
        records = [json.loads(line) for line in (out / "raw.jsonl").read_text().splitlines()]
        predictions = (out / "predictions.jsonl").read_text().splitlines()
        assert records and all("error" not in r and isinstance(r["response"], str) for r in records), records
        assert len(predictions) == len({r["id"] for r in records})
        meta = json.loads((out / "metadata.json").read_text())
        assert meta["backend"] == "transformers" and "checkpoint" in meta["settings"]
        notes = [line for line in result.output.splitlines() if "placeholder image" in line]
        if grey:  # said at run start (one line), recorded with its reason
            assert len(notes) == 1 and notes[0].startswith("note: ") and placeholder in notes[0], result.output
            assert meta["placeholder_image"].startswith(PLACEHOLDER_IMAGE) and placeholder in meta["placeholder_image"]
            assert meta["settings"]["placeholder_image"] == PLACEHOLDER_IMAGE
            assert not list(jsonschema.Draft202012Validator(load_schema("submission_metadata")).iter_errors(meta))
        else:
            assert not notes and "placeholder_image" not in meta and "placeholder_image" not in meta["settings"]
    assert loaded_by and all(name == auto_name and trust is False for name, trust in loaded_by), loaded_by
