"""VLM checker on a tiny random Qwen3-VL (real transformers classes, PIL image processor, no torchvision)."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from PIL import Image

pytest.importorskip("torch")
pytest.importorskip("transformers")

from builder.movsafebench.hazardforge.quality import DEFAULT_MODEL_ID, VLMChecker
from builder.movsafebench.hazardforge.quality.base import COMPLETENESS_PROMPT, DIRECTION_PROMPT
from eval_kit.errors import BadInput
from eval_kit.testing.tiny_vlm import tiny_qwen3_vl


@pytest.fixture(scope="module")
def tiny() -> tuple[Any, Any]:
    return tiny_qwen3_vl()


def _items(n: int) -> list[tuple[Image.Image, Image.Image, np.ndarray, str]]:
    rng = np.random.default_rng(0)
    items = []
    for i in range(n):
        h, w = 60 + 10 * i, 90 + 20 * i  # different sizes -> different token counts -> real padding
        a = Image.fromarray(rng.integers(0, 255, (h, w, 3), dtype=np.uint8))
        b = Image.fromarray(rng.integers(0, 255, (h, w, 3), dtype=np.uint8))
        mask = np.zeros((h, w), bool)
        mask[5: h - 5, 10: w - 10 - 5 * i] = True
        items.append((a, b, mask, ("left", "right", "forward")[i % 3]))
    return items


def test_batched_equals_one_by_one(tiny) -> None:
    model, processor = tiny
    items = _items(3)
    batched = VLMChecker("tiny", model=model, processor=processor, batch_size=6, max_new_tokens=5).check_batch(items)
    single = [VLMChecker("tiny", model=model, processor=processor, batch_size=1, max_new_tokens=5).check(*it)
              for it in items]
    assert [v.raw for v in batched] == [v.raw for v in single]
    for v in batched:
        assert set(v.raw) == {"completeness_answer", "direction_answer"} and isinstance(v.accepted, bool)


def test_questions_sent_and_answers_parsed(tiny, monkeypatch) -> None:
    model, processor = tiny
    checker = VLMChecker("tiny", model=model, processor=processor)
    sent: list[list[dict]] = []
    scripted = iter(["complete", "Left.", "incomplete", "left", "complete", "backward"])

    def fake_ask(conversations):
        sent.extend(conversations)
        return [next(scripted) for _ in conversations]

    monkeypatch.setattr(checker, "ask", fake_ask)
    verdicts = checker.check_batch(_items(3))
    assert [(v.accepted, v.completeness, v.direction) for v in verdicts] == [
        (True, "complete", "left"), (False, "incomplete", "left"), (False, "complete", "backward")]
    kinds = [[part["type"] for part in conv[0]["content"]] for conv in sent]
    assert kinds[0] == ["image", "image", "text"] and kinds[1] == ["image", "text"]
    assert sent[0][0]["content"][-1]["text"] == COMPLETENESS_PROMPT
    assert sent[1][0]["content"][-1]["text"] == DIRECTION_PROMPT
    crop = sent[1][0]["content"][0]["image"]
    assert min(crop.size) >= 64  # small crops are upscaled for the 32-px Qwen-VL patch grid
    assert verdicts[2].raw == {"completeness_answer": "complete", "direction_answer": "backward"}


def test_provenance_and_unknown_model() -> None:
    checker = VLMChecker()
    prov = checker.provenance()
    assert prov["model_id"] == DEFAULT_MODEL_ID and prov["decoding"] == "greedy"
    with pytest.raises(BadInput, match="cannot load VLM"):
        VLMChecker("/nonexistent/vlm", device="cpu").ask([[{"role": "user", "content": "hi"}]])
    with pytest.raises(ValueError, match="both"):
        VLMChecker(model=object())


def test_loads_from_a_model_folder_without_torchvision(tiny, tmp_path) -> None:
    """The real loading path: from_pretrained on a saved folder; AutoProcessor cannot build a Qwen-VL
    processor without torchvision, so the checker falls back to the image-only processor, same answers."""
    model, processor = tiny
    model.save_pretrained(tmp_path)
    processor.save_pretrained(tmp_path)
    item = _items(1)[0]
    loaded = VLMChecker(str(tmp_path), device="cpu", dtype="float32", max_new_tokens=5)
    got = loaded.check(*item)
    want = VLMChecker("tiny", model=model, processor=processor, max_new_tokens=5).check(*item)
    assert got.raw == want.raw
    assert hasattr(loaded._processor, "image_processor") and loaded._processor.tokenizer.padding_side == "left"


def test_tiny_diffusion_editor_with_tiny_vlm_checker(tiny) -> None:
    """Edit -> VLM check -> retry, all on tiny real-class models: a random VLM never says "complete", so every
    attempt is rejected, each with its own derived seed, distinct pixels and the raw answers recorded."""
    from builder.movsafebench.hazardforge.editors import FluxFillEditor
    from builder.movsafebench.hazardforge.quality.retry import derive_seed, edit_until_accepted, plain_attempt
    from eval_kit.testing.tiny_diffusion import tiny_flux_fill

    model, processor = tiny
    img = Image.fromarray(np.random.default_rng(1).integers(0, 255, (48, 64, 3), dtype=np.uint8))
    mask = np.zeros((48, 64), bool)
    mask[8:40, 16:48] = True
    editor = FluxFillEditor("tiny", device="cpu", dtype="float32", steps=2, pipeline=tiny_flux_fill())
    checker = VLMChecker("tiny", model=model, processor=processor, max_new_tokens=4)
    result = edit_until_accepted(plain_attempt(editor, img, mask, "Render a cat, facing right."), checker,
                                 "right", seed=5, max_retries=1)
    assert not result.accepted and [a["seed"] for a in result.attempts] == [5, derive_seed(5, 1)]
    for a in result.attempts:
        assert set(a["verdict"]["raw"]) == {"completeness_answer", "direction_answer"}
        assert a["verdict"]["accepted"] is False and a["edit_s"] >= 0
