"""A tiny random-weight Llama 4 (`Llama4ForConditionalGeneration`) checkpoint, built offline from a config.

The real class with a microscopic config (one MoE text layer of width 32 with two experts, one vision layer of
width 16), `Llama4Processor` with the PIL port of its torchvision-only image processor
(eval_kit/runners/llama4_image_processor.py) at 56-px tiles (336 in the real checkpoints) and at most 4 tiles
(16), Llama 4's special tokens and its chat template reduced to text and image parts. Saved as the real
checkpoint names its files: `preprocessor_config.json` says `Llama4ImageProcessorFast`, so loading goes
through the same path as Llama-4-Scout's would on a machine without torchvision.
"""

from __future__ import annotations

import json
from pathlib import Path

from eval_kit.testing import tiny_families as kit
from eval_kit.testing.tiny_families import TinyCheckpoint, _ids, _save, _text, byte_tokenizer

# Llama 4's template (transformers' Llama4Processor default / the Scout checkpoint's), text and image parts
LLAMA4 = (
    "{{ bos_token }}{% for m in messages %}<|header_start|>{{ m['role'] }}<|header_end|>\n\n"
    "{% if m['content'] is string %}{{ m['content'] }}{% else %}{% for c in m['content'] %}"
    "{% if c['type'] == 'image' %}<|image|>{% elif c['type'] == 'text' %}{{ c['text'] }}{% endif %}"
    "{% endfor %}{% endif %}<|eot|>{% endfor %}"
    "{% if add_generation_prompt %}<|header_start|>assistant<|header_end|>\n\n{% endif %}"
)
SPECIALS = ["<|begin_of_text|>", "<|eot|>", "<|header_start|>", "<|header_end|>", "<|finetune_right_pad_id|>",
            "<|image_start|>", "<|image_end|>", "<|image|>", "<|patch|>", "<|tile_x_separator|>",
            "<|tile_y_separator|>"]
TILE = 56  # px per tile: (56 / 14)^2 = 16 patches, pixel-shuffled (ratio 0.5) into 4 <|patch|> tokens per tile
MAX_TILES = 4
TEMPLATE_MARK = "<|header_start|>assistant<|header_end|>\n\n"


def llama4(folder: Path) -> TinyCheckpoint:
    from transformers import Llama4Config, Llama4ForConditionalGeneration

    from eval_kit.runners.llama4_image_processor import processor_class

    tok = byte_tokenizer(SPECIALS, eos="<|eot|>", pad="<|finetune_right_pad_id|>", bos="<|begin_of_text|>",
                         template=LLAMA4)
    ids = _ids(tok, "<|patch|>", "<|image_start|>", "<|image_end|>", "<|eot|>", "<|finetune_right_pad_id|>",
               "<|begin_of_text|>")
    config = Llama4Config(
        text_config=_text(vocab_size=len(tok), head_dim=16, intermediate_size_mlp=64, num_local_experts=2,
                          pad_token_id=ids["<|finetune_right_pad_id|>"], bos_token_id=ids["<|begin_of_text|>"],
                          eos_token_id=ids["<|eot|>"]),
        # pixel shuffle (ratio 0.5) makes 4x the width: intermediate_size = 4 * hidden_size, as the real 5632/1408
        vision_config={"hidden_size": 16, "intermediate_size": 64, "num_hidden_layers": 1, "num_attention_heads": 2,
                       "image_size": TILE, "patch_size": 14, "pixel_shuffle_ratio": 0.5, "projector_input_dim": 32,
                       "projector_output_dim": 32, "vision_output_dim": 32},
        image_token_index=ids["<|patch|>"], boi_token_index=ids["<|image_start|>"],
        eoi_token_index=ids["<|image_end|>"])
    model = kit.seeded(Llama4ForConditionalGeneration, config)
    image_processor = processor_class()(size={"height": TILE, "width": TILE}, max_patches=MAX_TILES)
    _save(folder, model, tok, image_processor, template=LLAMA4, eos=ids["<|eot|>"],
          pad=ids["<|finetune_right_pad_id|>"],
          processor_config={"processor_class": "Llama4Processor", "patch_size": 14, "pixel_shuffle_ratio": 0.5,
                            "fake_image_token": "<|image|>", "image_token": "<|image|>"})
    config_file = folder / "preprocessor_config.json"  # named as Llama-4-Scout's processor is
    saved = json.loads(config_file.read_text())
    saved.update(image_processor_type="Llama4ImageProcessorFast", processor_class="Llama4Processor")
    config_file.write_text(json.dumps(saved, indent=2))
    return TinyCheckpoint("llama4", folder, type(model).__name__, "<|patch|>")


def build(folder: Path) -> TinyCheckpoint:
    return llama4(Path(folder))
