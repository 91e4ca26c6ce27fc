"""Tiny checkpoints of issue 36's families of helper branch issue36e, built as eval_kit/testing/tiny_families.py
builds them (its save, config and tokenizer helpers are imported, not copied): the REAL transformers 5.24 model
class from a microscopic config, the real image processor class in its PIL version (as a machine without
torchvision loads it), a byte-level tokenizer with the family's special tokens, and the real checkpoint's chat
template reduced to text and image parts (its assistant-turn opening kept). Video processors are not saved.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from eval_kit.testing import tiny_families as kit
from eval_kit.testing.tiny_families import QWEN_SPECIALS, TinyCheckpoint, _ids, _save, _text, byte_tokenizer
from eval_kit.testing.tiny_families_established import GLM_SPECIALS, GLM_TEMPLATE, _parts


def glm_token_ids(ids: dict[str, int]) -> dict[str, int]:
    """The image / video token ids a GLM-style config names, from the GLM tokenizer's `ids`."""
    return {"image_token_id": ids["<|image|>"], "video_token_id": ids["<|video|>"],
            "image_start_token_id": ids["<|begin_of_image|>"], "image_end_token_id": ids["<|end_of_image|>"],
            "video_start_token_id": ids["<|begin_of_video|>"], "video_end_token_id": ids["<|end_of_video|>"]}


# ---- GLM (glmga): GLM-4.6V's model and processor classes, its own config and image processor -------------
def glmga(folder: Path) -> TinyCheckpoint:
    """glmga: transformers maps it to GLM-4.6V's model class (Glm46VForConditionalGeneration) and has no
    processor mapping for it; the checkpoint names `Glm46VProcessor` in processor_config.json (as GLM-4.6V's
    do), with glmga's own PIL image processor."""
    from transformers import AutoModelForImageTextToText, GlmgaConfig
    from transformers.models.glmga.image_processing_pil_glmga import GlmgaImageProcessorPil

    tok = byte_tokenizer(GLM_SPECIALS, eos="<|user|>", pad="<|endoftext|>", template=GLM_TEMPLATE)
    ids = _ids(tok, *GLM_SPECIALS)
    text = _text(vocab_size=len(tok), pad_token_id=ids["<|endoftext|>"], model_type="glm4v_text",
                 rope_parameters={"rope_type": "default", "rope_theta": 10000.0, "mrope_section": [2, 1, 1],
                                  "partial_rotary_factor": 0.5})
    vision = {"model_type": "glm4v_vision", "depth": 1, "hidden_size": 32, "intermediate_size": 64, "num_heads": 2,
              "patch_size": 14, "image_size": 28, "spatial_merge_size": 2, "temporal_patch_size": 2,
              "out_hidden_size": 32}
    config = GlmgaConfig(text_config=text, vision_config=vision, **glm_token_ids(ids))
    model = kit.seeded(AutoModelForImageTextToText.from_config, config)
    image_processor = GlmgaImageProcessorPil(size={"shortest_edge": 28 * 28, "longest_edge": 4 * 28 * 28},
                                             patch_size=14, merge_size=2, temporal_patch_size=2)
    _save(folder, model, tok, image_processor, template=GLM_TEMPLATE, eos=ids["<|user|>"], pad=ids["<|endoftext|>"],
          processor_config={"processor_class": "Glm46VProcessor"})
    return TinyCheckpoint("glmga", folder, type(model).__name__, "<|image|>")


# ---- Granite 4 Vision: LLaVA-NeXT anyres tiles, SigLIP tower, window Q-Former projectors, deepstack --------
GRANITE4 = (  # Granite 4: <|start_of_role|>user<|end_of_role|>...<|end_of_text|>\n
    "{% for m in messages %}<|start_of_role|>{{ m['role'] }}<|end_of_role|>"
    + _parts("<image>\n")
    + "<|end_of_text|>\n{% endfor %}{% if add_generation_prompt %}<|start_of_role|>assistant<|end_of_role|>"
    "{% endif %}"
)


def granite4_vision(folder: Path) -> TinyCheckpoint:
    """Granite 4 Vision: a SigLIP vision tower (56-px tiles of 14-px patches here), LLaVA-NeXT's anyres image
    processor (PIL) and Granite4VisionProcessor; window Q-Former projectors (downsample 1/2) inject features
    into decoder layers (one deepstack layer, four spatial-offset groups), Granite text."""
    import torch
    from transformers import Granite4VisionConfig, Granite4VisionForConditionalGeneration, Granite4VisionProcessor
    from transformers.models.llava_next.image_processing_pil_llava_next import LlavaNextImageProcessorPil

    specials = ["<|start_of_role|>", "<|end_of_role|>", "<|end_of_text|>", "<image>", "<|pad|>"]
    tok = byte_tokenizer(specials, eos="<|end_of_text|>", pad="<|pad|>", template=GRANITE4)
    ids = _ids(tok, *specials)
    pinpoints = [[56, 56], [56, 112], [112, 56]]
    config = Granite4VisionConfig(
        vision_config={"model_type": "siglip_vision_model", "hidden_size": 64, "intermediate_size": 64,
                       "num_hidden_layers": 1, "num_attention_heads": 2, "image_size": 56, "patch_size": 14},
        text_config=_text(vocab_size=len(tok), num_hidden_layers=5, pad_token_id=ids["<|pad|>"],
                          eos_token_id=ids["<|end_of_text|>"]),
        qformer_config={"num_hidden_layers": 1, "intermediate_size": 64},
        image_token_index=ids["<image>"], image_grid_pinpoints=pinpoints, vision_feature_select_strategy="full",
        vision_feature_layer=-1, downsample_rate="1/2", deepstack_layer_map=[[1, 0]], spatial_vision_layer=-1,
        spatial_target_layers=[1, 2, 3, 4], projector_dropout=0.0)
    model = kit.seeded(Granite4VisionForConditionalGeneration, config)
    image_processor = LlavaNextImageProcessorPil(size={"height": 56, "width": 56},
                                                 crop_size={"height": 56, "width": 56},
                                                 image_grid_pinpoints=pinpoints, do_center_crop=False)
    processor = Granite4VisionProcessor(image_processor=image_processor, tokenizer=tok, patch_size=14,
                                        vision_feature_select_strategy="full", chat_template=GRANITE4,
                                        downsample_rate="1/2")
    folder.mkdir(parents=True, exist_ok=True)
    model.generation_config.eos_token_id = ids["<|end_of_text|>"]
    model.generation_config.pad_token_id = ids["<|pad|>"]
    with torch.no_grad():
        model.save_pretrained(folder)
    processor.save_pretrained(folder)
    return TinyCheckpoint("granite4_vision", folder, type(model).__name__, "<image>")


# ---- GLM-5 next (GLM-5.3-Flash): KDA linear + DSA indexed attention, MoE, mHC streams; GLM-4.x vision --------
def glm5_next(folder: Path) -> TinyCheckpoint:
    """GLM-5 next: four decoder layers as the real schedule has them (three KDA linear-attention layers, then
    one MLA layer with the DSA indexer; two dense and two MoE feed-forwards), two mHC streams; a GLM-style
    vision tower (14-px patches, 2x2 merge) and Glm5NextProcessor with its PIL image processor (1-8 image
    tokens here); the GLM chat template. Runs on transformers' PyTorch reference kernels (no
    flash-linear-attention / causal-conv1d needed)."""
    from transformers import Glm5NextConfig, Glm5NextForConditionalGeneration
    from transformers.models.glm5_next.image_processing_pil_glm5_next import Glm5NextImageProcessorPil

    tok = byte_tokenizer(GLM_SPECIALS, eos="<|user|>", pad="<|endoftext|>", template=GLM_TEMPLATE)
    ids = _ids(tok, *GLM_SPECIALS)
    text = _text(vocab_size=len(tok), num_hidden_layers=4, num_attention_heads=2, num_key_value_heads=2,
                 pad_token_id=ids["<|endoftext|>"], moe_intermediate_size=16, n_routed_experts=4,
                 num_experts_per_tok=2, q_lora_rank=16, kv_lora_rank=16, qk_nope_head_dim=8, v_head_dim=8,
                 index_topk=16, index_kpool=4, index_head_dim=8, index_n_heads=2, linear_head_dim=8,
                 linear_num_heads=2, hc_mult=2, hc_sinkhorn_iters=3,
                 mlp_layer_types=["dense", "dense", "sparse", "sparse"])
    vision = {"depth": 1, "hidden_size": 32, "intermediate_size": 64, "num_heads": 2, "patch_size": 14,
              "image_size": 28, "spatial_merge_size": 2, "temporal_patch_size": 2, "out_hidden_size": 32,
              "projection_intermediate_size": 64}
    config = Glm5NextConfig(text_config=text, vision_config=vision, **glm_token_ids(ids))
    model = kit.seeded(Glm5NextForConditionalGeneration, config)
    image_processor = Glm5NextImageProcessorPil(min_image_tokens=1, max_image_tokens=8)
    _save(folder, model, tok, image_processor, template=GLM_TEMPLATE, eos=ids["<|user|>"], pad=ids["<|endoftext|>"],
          processor_config={"processor_class": "Glm5NextProcessor"})
    return TinyCheckpoint("glm5_next", folder, type(model).__name__, "<|image|>")


# ---- HY-V4-VL (tencent/Hy4): MLA + DSA indexer, MoE, hyper-connection streams; a ViT with row newlines -----
# the real Hy4 template was not available offline: Hunyuan's turn markers, the processor's default image token
HY4 = (
    "{% for m in messages %}{% if m['role'] == 'user' %}<｜hy_User｜>{% else %}<｜hy_Assistant｜>{% endif %}"
    + _parts("<|vision_start|><|image_pad|><|vision_end|>")
    + "{% if m['role'] != 'user' %}<｜hy_eos｜>{% endif %}{% endfor %}"
    "{% if add_generation_prompt %}<｜hy_Assistant｜>{% endif %}"
)


def hy_v4_vl(folder: Path) -> TinyCheckpoint:
    """HY-V4-VL: two decoder layers (dense, then MoE), MLA attention with the DSA indexer, two
    hyper-connection streams; a one-layer vision tower (16-px patches, 2x2 merge, a newline token per merged
    row) and HYV4VLProcessor with its PIL image processor (32-64 px sides here)."""
    from transformers import HYV4VLConfig, HYV4VLForConditionalGeneration
    from transformers.models.hy_v4_vl.image_processing_pil_hy_v4_vl import HYV4VLImageProcessorPil

    specials = [*QWEN_SPECIALS, "<｜hy_User｜>", "<｜hy_Assistant｜>", "<｜hy_eos｜>"]
    tok = byte_tokenizer(specials, eos="<｜hy_eos｜>", pad="<|endoftext|>", template=HY4)
    ids = _ids(tok, *specials)
    text = _text(vocab_size=len(tok), num_hidden_layers=2, num_attention_heads=2, moe_intermediate_size=16,
                 n_routed_experts=4, num_experts_per_tok=2, q_lora_rank=16, kv_lora_rank=16, qk_nope_head_dim=8,
                 qk_rope_head_dim=8, v_head_dim=8, index_topk=16, index_head_dim=8, index_n_heads=2, hc_mult=2,
                 pad_token_id=ids["<|endoftext|>"], bos_token_id=None, eos_token_id=ids["<｜hy_eos｜>"],
                 rope_parameters={"rope_type": "default", "rope_theta": 10000.0, "mrope_section": [2, 1, 1]})
    vision = {"hidden_size": 32, "intermediate_size": 64, "num_attention_heads": 2, "num_hidden_layers": 1,
              "out_hidden_size": 32, "patch_size": 16, "spatial_merge_size": 2, "max_image_size": 64}
    config = HYV4VLConfig(text_config=text, vision_config=vision, image_token_id=ids["<|image_pad|>"],
                          video_token_id=ids["<|video_pad|>"])
    model = kit.seeded(HYV4VLForConditionalGeneration, config)
    image_processor = HYV4VLImageProcessorPil(size={"shortest_edge": 32 * 32, "longest_edge": 64 * 64})
    _save(folder, model, tok, image_processor, template=HY4, eos=ids["<｜hy_eos｜>"], pad=ids["<|endoftext|>"],
          processor_config={"processor_class": "HYV4VLProcessor"})
    return TinyCheckpoint("hy_v4_vl", folder, type(model).__name__, "<|image_pad|>")


FAMILIES: dict[str, Callable[[Path], TinyCheckpoint]] = {
    "glmga": glmga,
    "granite4_vision": granite4_vision,
    "glm5_next": glm5_next,
    "hy_v4_vl": hy_v4_vl,
}
TEMPLATE_MARK = {"glmga": "<|assistant|>\n", "glm5_next": "<|assistant|>\n", "hy_v4_vl": "<｜hy_Assistant｜>",
                 "granite4_vision": "<|start_of_role|>assistant<|end_of_role|>"}


def build(family: str, folder: Path) -> TinyCheckpoint:
    return FAMILIES[family](Path(folder))
