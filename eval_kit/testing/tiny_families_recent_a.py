"""Tiny checkpoints of more transformers 5.24 VLM families (issue 36 item 1, helper b), as tiny_families.py builds them.

Real model class from a microscopic config, the real image processor class in its PIL version, a byte-level
tokenizer with the family's special tokens, and the real checkpoint's chat template reduced to text and image parts.
"""

from __future__ import annotations

import json
from pathlib import Path

from eval_kit.testing import tiny_families as kit
from eval_kit.testing.tiny_families import QWEN_SPECIALS, TinyCheckpoint, _ids, _save, _text, byte_tokenizer, chatml


def _qwen_vision_tower(folder: Path, family: str, config_name: str, text_type: str) -> TinyCheckpoint:
    """A decoder of its own with a Qwen2.5-VL-style vision tower and Qwen2-VL's image processor, ChatML turns."""
    import transformers

    template = chatml("<|vision_start|><|image_pad|><|vision_end|>")
    tok = byte_tokenizer(QWEN_SPECIALS, eos="<|im_end|>", pad="<|endoftext|>", template=template)
    ids = _ids(tok, *QWEN_SPECIALS)
    text = _text(vocab_size=len(tok), head_dim=16, pad_token_id=ids["<|endoftext|>"], model_type=text_type)
    vision = {"depth": 1, "hidden_size": 32, "intermediate_size": 64, "num_heads": 2, "num_key_value_heads": 1,
              "patch_size": 14, "out_hidden_size": 32, "fullatt_block_indexes": [0], "window_size": 28}
    config = getattr(transformers, config_name)(text_config=text, vision_config=vision,
                                                image_token_id=ids["<|image_pad|>"],
                                                video_token_id=ids["<|video_pad|>"])
    model = kit.seeded(transformers.AutoModelForImageTextToText.from_config, config)
    image_processor = kit.qwen2vl_image_processor(14)
    _save(folder, model, tok, image_processor, template=template, eos=ids["<|im_end|>"], pad=ids["<|endoftext|>"])
    if family == "hyperclovax_vision_v2":  # its tokenizer class is GPT2's, which needs a bool here
        config_file = folder / "tokenizer_config.json"
        config_file.write_text(json.dumps({**json.loads(config_file.read_text()), "add_prefix_space": False}))
    return TinyCheckpoint(family, folder, type(model).__name__, "<|image_pad|>")


def exaone4_5(folder: Path) -> TinyCheckpoint:
    """EXAONE 4.5: an EXAONE 4 decoder."""
    return _qwen_vision_tower(folder, "exaone4_5", "Exaone4_5_Config", "exaone4")


def hyperclovax_vision_v2(folder: Path) -> TinyCheckpoint:
    """HyperCLOVA X Vision v2: a HyperCLOVA X decoder."""
    return _qwen_vision_tower(folder, "hyperclovax_vision_v2", "HyperCLOVAXVisionV2Config", "hyperclovax")


FAMILIES = {"exaone4_5": exaone4_5, "hyperclovax_vision_v2": hyperclovax_vision_v2}
TEMPLATE_MARK = {family: "<|im_start|>assistant\n" for family in FAMILIES}


def build(family: str, folder: Path) -> TinyCheckpoint:
    return FAMILIES[family](Path(folder))
