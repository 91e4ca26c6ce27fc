"""Issue 36 (fourth batch, branch issue36d): each family with a tiny checkpoint in
eval_kit/testing/tiny_families_recent_c.py runs `hazardkit eval --backend transformers` on all three benchmarks
with its images reaching the model (the shared checks of tests/test_model_families.py)."""

import pytest

pytest.importorskip("torch")
pytest.importorskip("transformers")

from eval_kit.runners.families import FAMILIES as TABLE
from eval_kit.testing.tiny_families_recent_c import FAMILIES, TEMPLATE_MARK, build
from tests import test_model_families as base

movsafe_data, checkpoints, test_family_runs_on_every_benchmark = base.family_tests(FAMILIES, build, TEMPLATE_MARK,
                                                                                   name="families_c")


def test_every_family_has_a_mark_and_runs_in_the_table():
    assert set(TEMPLATE_MARK) == set(FAMILIES)
    assert all(TABLE[family].refused is None and not TABLE[family].note.startswith("not yet checked")
               for family in FAMILIES)


def test_cosmos3_edge_gets_the_modality_ids_its_processor_omits(checkpoints):
    """Cosmos 3 Edge's mrope needs each token's modality (`mm_token_type_ids`), which its processor (unlike
    Qwen-VL's) does not return unasked: without them generate() raises on every image sample. The backend asks
    every processor whose model's forward takes them (the run above answers every sample)."""
    from PIL import Image
    from transformers import ChameleonForConditionalGeneration, Cosmos3EdgeForConditionalGeneration

    from eval_kit.runners.backends import model_loading
    from eval_kit.runners.backends.hf_transformers import takes_modality_ids

    folder = str(checkpoints["cosmos3_edge"].folder)
    processor = model_loading.load_processor(folder, None, {})
    conversation = [[{"role": "user", "content": [{"type": "image", "image": Image.new("RGB", (64, 64), "red")},
                                                  {"type": "text", "text": "Which way?"}]}]]
    options = {"tokenize": True, "add_generation_prompt": True, "return_dict": True, "return_tensors": "pt"}
    plain = processor.apply_chat_template(conversation, **options)
    asked = processor.apply_chat_template(conversation, **options,
                                          processor_kwargs={"return_mm_token_type_ids": True})
    assert "mm_token_type_ids" not in plain  # the cause
    image_id = processor.tokenizer.convert_tokens_to_ids("<|image_pad|>")
    # 64x64 px in 16-px patches, merged 2x2: 2x2 = 4 image tokens, each typed 1, every other token 0
    assert int((asked["input_ids"] == image_id).sum()) == 4
    assert asked["mm_token_type_ids"].tolist() == (asked["input_ids"] == image_id).int().tolist()
    model = Cosmos3EdgeForConditionalGeneration.from_pretrained(folder).eval()
    assert takes_modality_ids(model)
    with pytest.raises(ValueError, match="mm_token_type_ids"):
        model.generate(**plain, max_new_tokens=1)
    assert model.generate(**asked, max_new_tokens=1).shape[1] == asked["input_ids"].shape[1] + 1
    chameleon = ChameleonForConditionalGeneration.from_pretrained(str(checkpoints["chameleon"].folder))
    assert not takes_modality_ids(chameleon)  # asked only of the families whose model takes them
