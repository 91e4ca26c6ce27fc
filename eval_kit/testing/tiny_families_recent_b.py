"""Tiny checkpoints of issue 36's third batch of families (helper branch issue36c), built like
eval_kit/testing/tiny_families.py (whose helpers this module reuses): the REAL model class from a microscopic
config, the real image processor class in its PIL version, a byte-level tokenizer with the family's special
tokens, the real checkpoint's chat template reduced to text and image parts.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from eval_kit.testing.tiny_families import TinyCheckpoint, _ids, _text, byte_tokenizer

VIPLLAVA = (  # llava-hf/vip-llava-7b-hf: "###Human: <image>\ntext###Assistant:"
    "{% for m in messages %}{% if m['role'] == 'user' %}###Human: {% else %}###Assistant: {% endif %}"
    "{% if m['content'] is string %}{{ m['content'] }}{% else %}"
    "{% for c in m['content'] %}{% if c['type'] == 'image' %}<image>\n{% endif %}{% endfor %}"
    "{% for c in m['content'] %}{% if c['type'] == 'text' %}{{ c['text'] }}{% endif %}{% endfor %}{% endif %}"
    "{% endfor %}{% if add_generation_prompt %}###Assistant:{% endif %}"
)


def vipllava(folder: Path) -> TinyCheckpoint:
    """VipLLaVA: CLIP vision tower read at several layers (28-px images here), Llama text, LlavaProcessor."""
    import torch
    from transformers import LlavaProcessor, VipLlavaConfig, VipLlavaForConditionalGeneration
    from transformers.models.clip.image_processing_pil_clip import CLIPImageProcessorPil

    tok = byte_tokenizer(["<image>", "</s>", "<unk>", "<s>"], eos="</s>", pad="<unk>", bos="<s>", template=VIPLLAVA)
    ids = _ids(tok, "<image>", "</s>", "<unk>")
    config = VipLlavaConfig(
        vision_config={"model_type": "clip_vision_model", "hidden_size": 32, "intermediate_size": 64,
                       "num_hidden_layers": 2, "num_attention_heads": 2, "image_size": 28, "patch_size": 14,
                       "projection_dim": 32},
        text_config={"model_type": "llama", **_text(vocab_size=len(tok), pad_token_id=ids["<unk>"])},
        image_token_index=ids["<image>"], vision_feature_layers=[-2, -1], image_seq_length=4)
    torch.manual_seed(0)
    model = VipLlavaForConditionalGeneration(config).eval()
    image_processor = CLIPImageProcessorPil(size={"shortest_edge": 28}, crop_size={"height": 28, "width": 28})
    processor = LlavaProcessor(image_processor=image_processor, tokenizer=tok, patch_size=14,
                               vision_feature_select_strategy="default", chat_template=VIPLLAVA,
                               num_additional_image_tokens=1)
    folder.mkdir(parents=True, exist_ok=True)
    model.generation_config.eos_token_id, model.generation_config.pad_token_id = ids["</s>"], ids["<unk>"]
    model.save_pretrained(folder)
    processor.save_pretrained(folder)
    return TinyCheckpoint("vipllava", folder, type(model).__name__, "<image>")


FAMILIES: dict[str, Callable[[Path], TinyCheckpoint]] = {
    "vipllava": vipllava,
}
TEMPLATE_MARK = {"vipllava": "###Assistant:"}


def build(family: str, folder: Path) -> TinyCheckpoint:
    return FAMILIES[family](Path(folder))
