"""Tiny checkpoints of issue 36's fourth batch of families (helper branch issue36d), built like
eval_kit/testing/tiny_families.py (whose helpers this module imports): the REAL model class from a microscopic
config, the real image processor class in its PIL version, a byte-level tokenizer with the family's special
tokens, and the real checkpoint's chat template reduced to text and image parts.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from eval_kit.testing.tiny_families import TinyCheckpoint, _ids, _save, _text, byte_tokenizer, chatml
from eval_kit.testing.tiny_families_established import _parts


def aria(folder: Path) -> TinyCheckpoint:
    """Aria (rhymes-ai/Aria): an Idefics3 (SigLIP) vision tower, a cross-attention projector to a fixed number of
    queries per crop, a MoE Llama-style decoder; ChatML with `<fim_prefix><|img|><fim_suffix>` per image.
    The real tower reads 490/980-px crops in 14-px patches (1225/4900 patches -> 128/256 queries); here the same
    crop sizes in 70-px patches (49/196 patches -> 4/16 queries)."""
    import torch
    from transformers import AriaConfig, AriaForConditionalGeneration, AriaProcessor
    from transformers.models.aria.image_processing_pil_aria import AriaImageProcessorPil

    template = chatml("<fim_prefix><|img|><fim_suffix>")
    tok = byte_tokenizer(["<|im_start|>", "<|im_end|>", "<fim_prefix>", "<fim_suffix>", "<unk>", "<|endoftext|>"],
                         eos="<|im_end|>", pad="<|endoftext|>", named={"image_token": "<|img|>"}, template=template)
    ids = _ids(tok, "<|img|>", "<|im_end|>", "<|endoftext|>")
    config = AriaConfig(
        vision_config={"model_type": "idefics3_vision", "hidden_size": 32, "intermediate_size": 64,
                       "num_hidden_layers": 1, "num_attention_heads": 2, "image_size": 980, "patch_size": 70},
        text_config=_text(vocab_size=len(tok), pad_token_id=ids["<|endoftext|>"], eos_token_id=ids["<|im_end|>"],
                          moe_num_experts=4, moe_topk=2, moe_num_shared_experts=1),
        projector_patch_to_query_dict={49: 4, 196: 16}, image_token_index=ids["<|img|>"])
    torch.manual_seed(0)
    model = AriaForConditionalGeneration(config).eval()
    image_processor = AriaImageProcessorPil(max_image_size=490, min_image_size=70)
    processor = AriaProcessor(image_processor=image_processor, tokenizer=tok, chat_template=template,
                              size_conversion={490: 4, 980: 16})
    folder.mkdir(parents=True, exist_ok=True)
    model.generation_config.eos_token_id = ids["<|im_end|>"]
    model.generation_config.pad_token_id = ids["<|endoftext|>"]
    model.save_pretrained(folder)
    processor.save_pretrained(folder)
    return TinyCheckpoint("aria", folder, type(model).__name__, "<|img|>")


# North-Micro-Vision-Instruct: Cohere turns, `<|VISION_START|><|IMAGE_PAD|><|VISION_END|>` per image
COMPASS_TEMPLATE = (
    "{{ bos_token }}{% for m in messages %}<|START_OF_TURN_TOKEN|>"
    "{% if m['role'] == 'user' %}<|USER_TOKEN|>{% elif m['role'] == 'system' %}<|SYSTEM_TOKEN|>{% else %}"
    "<|CHATBOT_TOKEN|>{% endif %}" + _parts("<|VISION_START|><|IMAGE_PAD|><|VISION_END|>") + "<|END_OF_TURN_TOKEN|>"
    "{% endfor %}{% if add_generation_prompt %}<|START_OF_TURN_TOKEN|><|CHATBOT_TOKEN|>{% endif %}"
)
COMPASS_SPECIALS = ["<BOS_TOKEN>", "<PAD>", "<|START_OF_TURN_TOKEN|>", "<|END_OF_TURN_TOKEN|>", "<|USER_TOKEN|>",
                    "<|CHATBOT_TOKEN|>", "<|SYSTEM_TOKEN|>", "<|VISION_START|>", "<|VISION_END|>", "<|IMAGE_PAD|>",
                    "<|VIDEO_PAD|>"]


def cohere_compass(folder: Path) -> TinyCheckpoint:
    """Cohere Compass (CohereLabs/North-Micro-Vision-Instruct): a Qwen3-VL-style vision tower (16-px patches,
    2x2 merge, DeepStack), a Cohere decoder with 3D mrope; its own PIL image processor (Qwen2-VL-like)."""
    import torch
    from transformers import CohereCompassConfig, CohereCompassForConditionalGeneration
    from transformers.models.cohere_compass.image_processing_pil_cohere_compass import (
        CohereCompassImageProcessorPil,
    )

    tok = byte_tokenizer(COMPASS_SPECIALS, eos="<|END_OF_TURN_TOKEN|>", pad="<PAD>", bos="<BOS_TOKEN>",
                         template=COMPASS_TEMPLATE)
    ids = _ids(tok, *COMPASS_SPECIALS)
    rope = {"rope_type": "default", "rope_theta": 10000.0, "mrope_section": [2, 3, 3], "mrope_interleaved": True}
    text = _text(vocab_size=len(tok), pad_token_id=ids["<PAD>"], bos_token_id=ids["<BOS_TOKEN>"],
                 eos_token_id=ids["<|END_OF_TURN_TOKEN|>"], layer_types=["full_attention"],
                 rope_parameters={"full_attention": rope})
    vision = {"depth": 1, "hidden_size": 32, "intermediate_size": 64, "num_heads": 2, "patch_size": 16,
              "spatial_merge_size": 2, "temporal_patch_size": 2, "out_hidden_size": 32, "num_position_embeddings": 64,
              "deepstack_visual_indexes": [0]}
    config = CohereCompassConfig(text_config=text, vision_config=vision, image_token_id=ids["<|IMAGE_PAD|>"],
                                 video_token_id=ids["<|VIDEO_PAD|>"], vision_start_token_id=ids["<|VISION_START|>"],
                                 vision_end_token_id=ids["<|VISION_END|>"])
    torch.manual_seed(0)
    model = CohereCompassForConditionalGeneration(config).eval()
    image_processor = CohereCompassImageProcessorPil(patch_size=16, merge_size=2, temporal_patch_size=2,
                                                     size={"shortest_edge": 32 * 32, "longest_edge": 4 * 32 * 32})
    _save(folder, model, tok, image_processor, template=COMPASS_TEMPLATE, eos=ids["<|END_OF_TURN_TOKEN|>"],
          pad=ids["<PAD>"], processor_config={"processor_class": "CohereCompassProcessor"})
    return TinyCheckpoint("cohere_compass", folder, type(model).__name__, "<|IMAGE_PAD|>")


QWEN_VISION = "<|vision_start|><|image_pad|><|vision_end|>"
QWEN_SPECIALS = ["<|im_start|>", "<|im_end|>", "<|vision_start|>", "<|vision_end|>", "<|image_pad|>",
                 "<|video_pad|>", "<|endoftext|>"]


def cosmos3_edge(folder: Path) -> TinyCheckpoint:
    """Cosmos 3 Edge (nvidia/Cosmos3-Edge): a SigLIP2-style vision tower (16-px patches, resized position
    embeddings, 2x2 merge into an MLP projector), a relu2 decoder with 3D mrope; its own PIL image processor;
    ChatML turns, each image `<|vision_start|><|image_pad|><|vision_end|>`."""
    import torch
    from transformers import Cosmos3EdgeConfig, Cosmos3EdgeForConditionalGeneration
    from transformers.models.cosmos3_edge.image_processing_pil_cosmos3_edge import Cosmos3EdgeImageProcessorPil

    template = chatml(QWEN_VISION)
    tok = byte_tokenizer(QWEN_SPECIALS, eos="<|im_end|>", pad="<|endoftext|>", template=template)
    ids = _ids(tok, *QWEN_SPECIALS)
    text = _text(vocab_size=len(tok), head_dim=16, pad_token_id=ids["<|endoftext|>"], eos_token_id=ids["<|im_end|>"],
                 bos_token_id=ids["<|im_start|>"],
                 rope_parameters={"rope_type": "default", "rope_theta": 10000.0, "mrope_section": [2, 3, 3]})
    vision = {"hidden_size": 32, "intermediate_size": 64, "num_hidden_layers": 1, "num_attention_heads": 2,
              "patch_size": 16, "num_patches": 16, "spatial_merge_size": 2}
    config = Cosmos3EdgeConfig(text_config=text, vision_config=vision, projector_hidden_size=64,
                               image_token_id=ids["<|image_pad|>"], video_token_id=ids["<|video_pad|>"],
                               vision_start_token_id=ids["<|vision_start|>"], vision_end_token_id=ids["<|vision_end|>"])
    torch.manual_seed(0)
    model = Cosmos3EdgeForConditionalGeneration(config).eval()
    image_processor = Cosmos3EdgeImageProcessorPil(size={"shortest_edge": 32 * 32, "longest_edge": 4 * 32 * 32})
    _save(folder, model, tok, image_processor, template=template, eos=ids["<|im_end|>"], pad=ids["<|endoftext|>"],
          processor_config={"processor_class": "Cosmos3EdgeProcessor"})
    return TinyCheckpoint("cosmos3_edge", folder, type(model).__name__, "<|image_pad|>")


FAMILIES: dict[str, Callable[[Path], TinyCheckpoint]] = {
    "aria": aria,
    "cohere_compass": cohere_compass,
    "cosmos3_edge": cosmos3_edge,
}
CHATML = "<|im_start|>assistant\n"
TEMPLATE_MARK = {"aria": CHATML, "cosmos3_edge": CHATML, "cohere_compass": "<|START_OF_TURN_TOKEN|><|CHATBOT_TOKEN|>"}


def build(family: str, folder: Path) -> TinyCheckpoint:
    return FAMILIES[family](Path(folder))
