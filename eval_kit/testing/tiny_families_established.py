"""Tiny random-weight checkpoints of the established families issue 36's survey ran (and Gemma 3n, Llama 4).

The same recipe as `eval_kit.testing.tiny_families`: the REAL transformers model class from a microscopic
config, the real image processor class in its PIL version (as a machine without torchvision loads it), a
byte-level tokenizer with the family's special tokens, and the real checkpoint's chat template reduced to
text and image parts (its assistant-turn opening kept). Saved as a checkpoint folder that `hazardkit eval
--backend transformers --model FOLDER` loads; video processors are not saved (they need torchvision).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from eval_kit.testing.tiny_families import TinyCheckpoint, _ids, _save, _text, byte_tokenizer, chatml


def _parts(image: str, text: str = "{{ c['text'] }}") -> str:
    """A message's content: the string itself, or its parts with each image part rendered as `image`."""
    return ("{% if m['content'] is string %}{{ m['content'] }}{% else %}{% for c in m['content'] %}"
            f"{{% if c['type'] == 'image' %}}{image}{{% else %}}{text}{{% endif %}}{{% endfor %}}{{% endif %}}")


def _write_json(path: Path, update: dict[str, Any]) -> None:
    data = json.loads(path.read_text()) if path.exists() else {}
    data.update(update)
    path.write_text(json.dumps(data, indent=2))


# ---- Qwen3.5: Qwen3-VL's processor and vision tower, Qwen3.5 (hybrid attention) text ----------------------
def qwen3_5(folder: Path) -> TinyCheckpoint:
    """Qwen3.5: a Qwen3-VL-style vision tower (16-px patches, 2x2 merge), Qwen3.5 text with one linear
    (Gated DeltaNet) and one full attention layer, as the real model alternates them; Qwen3-VL's processor."""
    import torch
    from transformers import Qwen3_5Config, Qwen3_5ForConditionalGeneration
    from transformers.models.qwen2_vl.image_processing_pil_qwen2_vl import Qwen2VLImageProcessorPil

    from eval_kit.testing.tiny_families import QWEN_SPECIALS

    template = chatml("<|vision_start|><|image_pad|><|vision_end|>")
    tok = byte_tokenizer(QWEN_SPECIALS, eos="<|im_end|>", pad="<|endoftext|>", template=template)
    ids = _ids(tok, *QWEN_SPECIALS)
    text = _text(vocab_size=len(tok), num_hidden_layers=2, head_dim=16, pad_token_id=ids["<|endoftext|>"],
                 eos_token_id=ids["<|im_end|>"], layer_types=["linear_attention", "full_attention"],
                 linear_key_head_dim=8, linear_value_head_dim=8, linear_num_key_heads=2, linear_num_value_heads=2,
                 rope_parameters={"rope_type": "default", "rope_theta": 10000.0, "mrope_section": [2, 1, 1],
                                  "mrope_interleaved": True, "partial_rotary_factor": 0.5})
    vision = {"depth": 1, "hidden_size": 32, "intermediate_size": 64, "num_heads": 2, "patch_size": 16,
              "spatial_merge_size": 2, "temporal_patch_size": 2, "out_hidden_size": 32, "num_position_embeddings": 64}
    config = Qwen3_5Config(text_config=text, vision_config=vision, image_token_id=ids["<|image_pad|>"],
                           video_token_id=ids["<|video_pad|>"], vision_start_token_id=ids["<|vision_start|>"],
                           vision_end_token_id=ids["<|vision_end|>"])
    torch.manual_seed(0)
    model = Qwen3_5ForConditionalGeneration(config).eval()
    image_processor = Qwen2VLImageProcessorPil(patch_size=16, merge_size=2, temporal_patch_size=2,
                                               min_pixels=32 * 32, max_pixels=4 * 32 * 32)
    _save(folder, model, tok, image_processor, template=template, eos=ids["<|im_end|>"], pad=ids["<|endoftext|>"],
          processor_config={"processor_class": "Qwen3VLProcessor"})
    return TinyCheckpoint("qwen3_5", folder, type(model).__name__, "<|image_pad|>")


# ---- GLM-4.1V / 4.5V / 4.6V: "[gMASK]<sop><|user|>\n<|begin_of_image|><|image|><|end_of_image|>...<|assistant|>\n"
GLM_TEMPLATE = (
    "[gMASK]<sop>{% for m in messages %}<|{{ m['role'] }}|>\n"
    + _parts("<|begin_of_image|><|image|><|end_of_image|>")
    + "{% endfor %}{% if add_generation_prompt %}<|assistant|>\n{% endif %}"
)
GLM_SPECIALS = ["[gMASK]", "<sop>", "<|system|>", "<|user|>", "<|assistant|>", "<|endoftext|>", "<|begin_of_image|>",
                "<|end_of_image|>", "<|image|>", "<|begin_of_video|>", "<|end_of_video|>", "<|video|>"]


def _glm(folder: Path, family: str) -> TinyCheckpoint:
    import torch
    import transformers

    tok = byte_tokenizer(GLM_SPECIALS, eos="<|user|>", pad="<|endoftext|>", template=GLM_TEMPLATE)
    ids = _ids(tok, *GLM_SPECIALS)
    tokens = {"image_token_id": ids["<|image|>"], "video_token_id": ids["<|video|>"],
              "image_start_token_id": ids["<|begin_of_image|>"], "image_end_token_id": ids["<|end_of_image|>"],
              "video_start_token_id": ids["<|begin_of_video|>"], "video_end_token_id": ids["<|end_of_video|>"]}
    text = _text(vocab_size=len(tok), pad_token_id=ids["<|endoftext|>"],
                 rope_parameters={"rope_type": "default", "rope_theta": 10000.0, "mrope_section": [2, 1, 1],
                                  "partial_rotary_factor": 0.5})  # 16-wide heads, half rotary: 4 frequencies
    if family == "glm4v_moe":
        text.update(model_type="glm4v_moe_text", num_attention_heads=2, head_dim=16, moe_intermediate_size=16,
                    n_routed_experts=4, num_experts_per_tok=2, n_shared_experts=1, first_k_dense_replace=0)
    elif family == "glm46v":
        text.update(model_type="glm4v_text")
    vision = {"depth": 1, "hidden_size": 32, "intermediate_size": 64, "num_heads": 2, "patch_size": 14,
              "image_size": 28, "spatial_merge_size": 2, "temporal_patch_size": 2, "out_hidden_size": 32}
    if family == "glm46v":
        vision.update(model_type="glm4v_vision")
    name = {"glm4v": "Glm4v", "glm4v_moe": "Glm4vMoe", "glm46v": "Glm46V"}[family]
    config = getattr(transformers, f"{name}Config")(text_config=text, vision_config=vision, **tokens)
    torch.manual_seed(0)
    model = getattr(transformers, f"{name}ForConditionalGeneration")(config).eval()
    processor_name = "Glm46V" if family == "glm46v" else "Glm4v"
    module = getattr(transformers.models, "glm46v" if family == "glm46v" else "glm4v")
    pil = getattr(getattr(module, f"image_processing_pil_{module.__name__.rsplit('.', 1)[-1]}"),
                  f"{processor_name}ImageProcessorPil")
    image_processor = pil(size={"shortest_edge": 28 * 28, "longest_edge": 4 * 28 * 28}, patch_size=14, merge_size=2,
                          temporal_patch_size=2)
    _save(folder, model, tok, image_processor, template=GLM_TEMPLATE, eos=ids["<|user|>"], pad=ids["<|endoftext|>"],
          processor_config={"processor_class": f"{processor_name}Processor"})
    return TinyCheckpoint(family, folder, type(model).__name__, "<|image|>")


def glm4v(folder: Path) -> TinyCheckpoint:
    """GLM-4.1V: a Qwen2-VL-style vision tower (14-px patches, 2x2 merge), GLM-4 text."""
    return _glm(folder, "glm4v")


def glm4v_moe(folder: Path) -> TinyCheckpoint:
    """GLM-4.5V: GLM-4.1V's vision tower and processor, a mixture-of-experts GLM-4.5 text model."""
    return _glm(folder, "glm4v_moe")


def glm46v(folder: Path) -> TinyCheckpoint:
    """GLM-4.6V: GLM-4.1V's vision tower and text model, its own processor class."""
    return _glm(folder, "glm46v")


# ---- MiniCPM-V-4.7: MiniCPM-V-4.6's image processor and tokens, its own processor and model ---------------
def minicpmv4_7(folder: Path) -> TinyCheckpoint:
    import torch
    from transformers import MiniCPMV4_7Config, MiniCPMV4_7ForConditionalGeneration
    from transformers.models.minicpmv4_6.image_processing_pil_minicpmv4_6 import MiniCPMV4_6ImageProcessorPil

    from eval_kit.testing.tiny_families import MINICPM_TOKENS

    template = chatml("<|image_pad|>\n")
    tok = byte_tokenizer(["<|im_start|>", "<|im_end|>", "<|endoftext|>"], eos="<|im_end|>", pad="<|endoftext|>",
                         named=MINICPM_TOKENS, template=template)
    ids = _ids(tok, "<|image_pad|>", "<|video_pad|>", "<|im_end|>", "<|endoftext|>", "<image>", "</image>", "<slice>",
               "</slice>")
    config = MiniCPMV4_7Config(
        text_config={"model_type": "qwen3_5_text", **_text(vocab_size=len(tok), head_dim=16,
                                                           pad_token_id=ids["<|endoftext|>"],
                                                           layer_types=["full_attention"])},
        vision_config={"hidden_size": 32, "intermediate_size": 64, "num_hidden_layers": 1, "num_attention_heads": 2,
                       "image_size": 56, "patch_size": 14, "insert_layer_id": 0},
        insert_layer_id=0, image_size=56, image_token_id=ids["<|image_pad|>"], video_token_id=ids["<|video_pad|>"],
        image_start_id=ids["<image>"], image_end_id=ids["</image>"], slice_start_id=ids["<slice>"],
        slice_end_id=ids["</slice>"], newline_id=tok.convert_tokens_to_ids("Ċ"))
    torch.manual_seed(0)
    model = MiniCPMV4_7ForConditionalGeneration(config).eval()
    image_processor = MiniCPMV4_6ImageProcessorPil(scale_resolution=56, patch_size=14, max_slice_nums=4)
    _save(folder, model, tok, image_processor, template=template, eos=ids["<|im_end|>"], pad=ids["<|endoftext|>"],
          processor_config={"processor_class": "MiniCPMV4_7Processor"})
    return TinyCheckpoint("minicpmv4_7", folder, type(model).__name__, "<|image_pad|>")


FAMILIES: dict[str, Callable[[Path], TinyCheckpoint]] = {
    "qwen3_5": qwen3_5,
    "glm4v": glm4v,
    "glm4v_moe": glm4v_moe,
    "glm46v": glm46v,
    "minicpmv4_7": minicpmv4_7,
}


def build(family: str, folder: Path) -> TinyCheckpoint:
    return FAMILIES[family](Path(folder))
