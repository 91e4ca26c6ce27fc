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

from eval_kit.testing import tiny_families as kit
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
    from transformers import Qwen3_5Config, Qwen3_5ForConditionalGeneration

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
    model = kit.seeded(Qwen3_5ForConditionalGeneration, config)
    image_processor = kit.qwen2vl_image_processor(16)
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
    model = kit.seeded(getattr(transformers, f"{name}ForConditionalGeneration"), config)
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
    model = kit.seeded(MiniCPMV4_7ForConditionalGeneration, config)
    image_processor = MiniCPMV4_6ImageProcessorPil(scale_resolution=56, patch_size=14, max_slice_nums=4)
    _save(folder, model, tok, image_processor, template=template, eos=ids["<|im_end|>"], pad=ids["<|endoftext|>"],
          processor_config={"processor_class": "MiniCPMV4_7Processor"})
    return TinyCheckpoint("minicpmv4_7", folder, type(model).__name__, "<|image_pad|>")


# ---- Aya Vision: SigLIP tiles (GOT-OCR2's image processor), pixel-shuffled 2x2, Cohere2 text -------------------
AYA_TEMPLATE = (  # "<|START_OF_TURN_TOKEN|><|USER_TOKEN|>...<|END_OF_TURN_TOKEN|>", then the chatbot turn
    "{{ bos_token }}{% for m in messages %}<|START_OF_TURN_TOKEN|>"
    "{% if m['role'] == 'user' %}<|USER_TOKEN|>{% elif m['role'] == 'system' %}<|SYSTEM_TOKEN|>{% else %}"
    "<|CHATBOT_TOKEN|>{% endif %}" + _parts("<image>") + "<|END_OF_TURN_TOKEN|>{% endfor %}"
    "{% if add_generation_prompt %}<|START_OF_TURN_TOKEN|><|CHATBOT_TOKEN|>{% endif %}"
)
AYA_SPECIALS = ["<BOS_TOKEN>", "<PAD>", "<|START_OF_TURN_TOKEN|>", "<|END_OF_TURN_TOKEN|>", "<|USER_TOKEN|>",
                "<|CHATBOT_TOKEN|>", "<|SYSTEM_TOKEN|>", "<image>", "<|START_OF_IMG|>", "<|END_OF_IMG|>",
                "<|IMG_PATCH|>", "<|IMG_LINE_BREAK|>", "TILE", "TILE_GLOBAL", *(f"TILE_{i}" for i in range(1, 5))]


def aya_vision(folder: Path) -> TinyCheckpoint:
    """Aya Vision: SigLIP on 28-px tiles here (364-px in the real one), 2x2 pixel shuffle -> 1 token per tile."""
    from transformers import AyaVisionConfig, AyaVisionForConditionalGeneration
    from transformers.models.got_ocr2.image_processing_pil_got_ocr2 import GotOcr2ImageProcessorPil

    tok = byte_tokenizer(AYA_SPECIALS, eos="<|END_OF_TURN_TOKEN|>", pad="<PAD>", bos="<BOS_TOKEN>",
                         template=AYA_TEMPLATE)
    ids = _ids(tok, "<|IMG_PATCH|>", "<|END_OF_TURN_TOKEN|>", "<PAD>", "<BOS_TOKEN>")
    config = AyaVisionConfig(
        vision_config={"model_type": "siglip_vision_model", "hidden_size": 32, "intermediate_size": 64,
                       "num_hidden_layers": 1, "num_attention_heads": 2, "image_size": 28, "patch_size": 14},
        text_config={"model_type": "cohere2", **_text(vocab_size=len(tok), head_dim=16, pad_token_id=ids["<PAD>"],
                                                      bos_token_id=ids["<BOS_TOKEN>"],
                                                      eos_token_id=ids["<|END_OF_TURN_TOKEN|>"],
                                                      sliding_window=64, layer_types=["full_attention"])},
        downsample_factor=2, image_token_index=ids["<|IMG_PATCH|>"])
    model = kit.seeded(AyaVisionForConditionalGeneration, config)
    image_processor = GotOcr2ImageProcessorPil(size={"height": 28, "width": 28}, crop_to_patches=True,
                                               min_patches=1, max_patches=4)
    _save(folder, model, tok, image_processor, template=AYA_TEMPLATE, eos=ids["<|END_OF_TURN_TOKEN|>"],
          pad=ids["<PAD>"], processor_config={"processor_class": "AyaVisionProcessor", "img_size": 28,
                                              "patch_size": 14, "downsample_factor": 2})
    return TinyCheckpoint("aya_vision", folder, type(model).__name__, "<|IMG_PATCH|>")


# ---- Idefics2: SigLIP-style vision tower, a perceiver resampler (N latents per image), Mistral text ----------
IDEFICS2_TEMPLATE = (  # idefics2-8b: "User:<image>text<end_of_utterance>\nAssistant:"
    "{% for m in messages %}{{ m['role'] | capitalize }}{% if m['content'] is not string and "
    "m['content'][0]['type'] == 'image' %}:{% else %}: {% endif %}" + _parts("<image>")
    + "<end_of_utterance>\n{% endfor %}{% if add_generation_prompt %}Assistant:{% endif %}"
)


def idefics2(folder: Path) -> TinyCheckpoint:
    from transformers import Idefics2Config, Idefics2ForConditionalGeneration
    from transformers.models.idefics2.image_processing_pil_idefics2 import Idefics2ImageProcessorPil

    tok = byte_tokenizer(["<fake_token_around_image>", "<image>", "<end_of_utterance>", "<s>", "</s>", "<unk>"],
                         eos="<end_of_utterance>", pad="<unk>", bos="<s>", template=IDEFICS2_TEMPLATE)
    ids = _ids(tok, "<image>", "<end_of_utterance>", "<unk>", "<s>")
    config = Idefics2Config(
        vision_config={"hidden_size": 32, "intermediate_size": 64, "num_hidden_layers": 1, "num_attention_heads": 2,
                       "image_size": 28, "patch_size": 14},
        perceiver_config={"hidden_size": 32, "resampler_n_latents": 2, "resampler_depth": 1, "resampler_n_heads": 2,
                          "resampler_head_dim": 16, "num_key_value_heads": 1},
        text_config={"model_type": "mistral", **_text(vocab_size=len(tok), pad_token_id=ids["<unk>"],
                                                      bos_token_id=ids["<s>"],
                                                      eos_token_id=ids["<end_of_utterance>"])},
        image_token_id=ids["<image>"])
    model = kit.seeded(Idefics2ForConditionalGeneration, config)
    image_processor = Idefics2ImageProcessorPil(size={"shortest_edge": 28, "longest_edge": 28},
                                                do_image_splitting=True)
    _save(folder, model, tok, image_processor, template=IDEFICS2_TEMPLATE, eos=ids["<end_of_utterance>"],
          pad=ids["<unk>"], processor_config={"processor_class": "Idefics2Processor", "image_seq_len": 2})
    return TinyCheckpoint("idefics2", folder, type(model).__name__, "<image>")


# ---- Ovis2: an AIMv2-style vision tower with a visual vocabulary, Qwen2 text ---------------------------------
OVIS_INDICATORS = ["<IMG_START>", "<IMG_GRID>", "<IMG_COL>", "<IMG_ROW>", "<IMG_END>"]


def ovis2(folder: Path) -> TinyCheckpoint:
    """Ovis2: `<image>` expands to <IMG_START><IMG_ATOM>*N<IMG_GRID>... (N = image_seq_length per tile)."""
    from transformers import Ovis2Config, Ovis2ForConditionalGeneration
    from transformers.models.ovis2.image_processing_pil_ovis2 import Ovis2ImageProcessorPil

    template = chatml("<image>\n")
    tok = byte_tokenizer(["<|im_start|>", "<|im_end|>", "<|endoftext|>", "<image>", "<IMG_ATOM>", *OVIS_INDICATORS],
                         eos="<|im_end|>", pad="<|endoftext|>", template=template)
    ids = _ids(tok, "<IMG_ATOM>", "<|im_end|>", "<|endoftext|>", *OVIS_INDICATORS)
    config = Ovis2Config(
        vision_config={"hidden_size": 32, "intermediate_size": 64, "num_hidden_layers": 1, "num_attention_heads": 2,
                       "image_size": 28, "patch_size": 14, "vocab_size": 64, "hidden_stride": 2},
        text_config={"model_type": "qwen2", **_text(vocab_size=len(tok), pad_token_id=ids["<|endoftext|>"])},
        image_token_id=ids["<IMG_ATOM>"], visual_indicator_token_ids=[ids[t] for t in OVIS_INDICATORS],
        vocab_size=len(tok), hidden_size=32)
    model = kit.seeded(Ovis2ForConditionalGeneration, config)
    image_processor = Ovis2ImageProcessorPil(size={"height": 28, "width": 28}, crop_to_patches=True,
                                             min_patches=1, max_patches=4)
    _save(folder, model, tok, image_processor, template=template, eos=ids["<|im_end|>"], pad=ids["<|endoftext|>"],
          processor_config={"processor_class": "Ovis2Processor", "image_seq_length": 1})
    return TinyCheckpoint("ovis2", folder, type(model).__name__, "<IMG_ATOM>")


# ---- DeepSeek-VL / its hybrid / Janus: "User: <image_placeholder>...\n\nAssistant:" --------------------------
DEEPSEEK_TEMPLATE = (  # deepseek-vl-*-chat-hf: a system line, then "User: ...\n\nAssistant:"
    "{% for m in messages %}{% if m['role'] == 'user' %}User: {% elif m['role'] == 'assistant' %}Assistant: "
    "{% endif %}" + _parts("<image_placeholder>") + "\n\n{% endfor %}{% if add_generation_prompt %}Assistant:"
    "{% endif %}"
)
JANUS_TEMPLATE = (  # Janus-*-hf: "<|User|>: <image_placeholder>\ntext\n\n<|Assistant|>:"
    "{% for m in messages %}{% if m['role'] == 'user' %}<|User|>: {% elif m['role'] == 'assistant' %}"
    "<|Assistant|>: {% endif %}" + _parts("<image_placeholder>\n") + "\n\n{% endfor %}"
    "{% if add_generation_prompt %}<|Assistant|>:{% endif %}"
)
DEEPSEEK_SPECIALS = ["<｜begin▁of▁sentence｜>", "<｜end▁of▁sentence｜>", "<｜▁pad▁｜>", "<image_placeholder>"]


def _deepseek(folder: Path, family: str) -> TinyCheckpoint:
    import transformers

    janus = family == "janus"
    named = {"image_token": "<image_placeholder>"}
    if janus:
        named.update(boi_token="<begin_of_image>", eoi_token="<end_of_image>")
    template = JANUS_TEMPLATE if janus else DEEPSEEK_TEMPLATE
    tok = byte_tokenizer(DEEPSEEK_SPECIALS, eos="<｜end▁of▁sentence｜>", pad="<｜▁pad▁｜>",
                         bos="<｜begin▁of▁sentence｜>", named=named, template=template)
    ids = _ids(tok, "<image_placeholder>", "<｜end▁of▁sentence｜>", "<｜▁pad▁｜>", "<｜begin▁of▁sentence｜>")
    text = {"model_type": "llama", **_text(vocab_size=len(tok), pad_token_id=ids["<｜▁pad▁｜>"],
                                           bos_token_id=ids["<｜begin▁of▁sentence｜>"],
                                           eos_token_id=ids["<｜end▁of▁sentence｜>"])}
    siglip = {"model_type": "siglip_vision_model", "hidden_size": 32, "intermediate_size": 64,
              "num_hidden_layers": 1, "num_attention_heads": 2, "image_size": 28, "patch_size": 14}
    module = getattr(transformers.models, family)
    if family == "deepseek_vl":
        config = transformers.DeepseekVLConfig(text_config=text, vision_config=siglip,
                                               image_token_id=ids["<image_placeholder>"])
        processor = "DeepseekVL"
        image_processor = module.image_processing_pil_deepseek_vl.DeepseekVLImageProcessorPil(
            size={"height": 28, "width": 28})
        tokens = 4  # (28 / 14) ** 2 patches
    elif family == "deepseek_vl_hybrid":
        sam = {"model_type": "sam_vision_model", "hidden_size": 32, "output_channels": 16, "num_hidden_layers": 1,
               "num_attention_heads": 2, "image_size": 64, "patch_size": 16, "mlp_dim": 64,
               "global_attn_indexes": [0], "window_size": 2}
        config = transformers.DeepseekVLHybridConfig(text_config=text, vision_config=siglip, high_res_vision_config=sam,
                                                     image_token_id=ids["<image_placeholder>"])
        processor = "DeepseekVLHybrid"
        image_processor = module.image_processing_pil_deepseek_vl_hybrid.DeepseekVLHybridImageProcessorPil(
            size={"height": 28, "width": 28}, high_res_size={"height": 64, "width": 64})
        tokens = 4
    else:
        vision = {"hidden_size": 32, "num_hidden_layers": 1, "num_attention_heads": 2, "image_size": 28,
                  "patch_size": 14, "mlp_ratio": 2, "projection_dim": 32, "depth": 1, "num_image_tokens": 4}
        vq = {"embed_dim": 8, "num_embeddings": 16, "latent_channels": 32, "base_channels": 32,
              "channel_multiplier": [1, 1], "num_res_blocks": 1, "num_patches": 2, "projection_dim": 32,
              "image_token_embed_dim": 32, "num_hidden_layers": 1}
        config = transformers.JanusConfig(text_config=text, vision_config=vision, vq_config=vq,
                                          image_token_id=ids["<image_placeholder>"])
        processor = "Janus"
        image_processor = module.image_processing_pil_janus.JanusImageProcessorPil(size={"height": 28, "width": 28})
        tokens = 4
    model = kit.seeded(getattr(transformers, f"{processor}ForConditionalGeneration"), config)
    _save(folder, model, tok, image_processor, template=template, eos=ids["<｜end▁of▁sentence｜>"],
          pad=ids["<｜▁pad▁｜>"], processor_config={"processor_class": f"{processor}Processor",
                                                     "num_image_tokens": tokens})
    return TinyCheckpoint(family, folder, type(model).__name__, "<image_placeholder>")


def deepseek_vl(folder: Path) -> TinyCheckpoint:
    """DeepSeek-VL (-hf): SigLIP vision tower, Llama text, a fixed number of image tokens per image."""
    return _deepseek(folder, "deepseek_vl")


def deepseek_vl_hybrid(folder: Path) -> TinyCheckpoint:
    """DeepSeek-VL hybrid (the 7B): SigLIP low-res and SAM high-res vision towers, Llama text."""
    return _deepseek(folder, "deepseek_vl_hybrid")


def janus(folder: Path) -> TinyCheckpoint:
    """Janus (-hf): its understanding vision tower and a VQ image generator (unused here), Llama text."""
    return _deepseek(folder, "janus")


# ---- Llama-3.2-Vision: a tiled vision encoder, cross-attention layers in Llama text; one <|image|> token ------
MLLAMA_TEMPLATE = (
    "{{ bos_token }}{% for m in messages %}<|start_header_id|>{{ m['role'] }}<|end_header_id|>\n\n"
    + _parts("<|image|>") + "<|eot_id|>{% endfor %}"
    "{% if add_generation_prompt %}<|start_header_id|>assistant<|end_header_id|>\n\n{% endif %}"
)


def mllama(folder: Path) -> TinyCheckpoint:
    from transformers import MllamaConfig, MllamaForConditionalGeneration
    from transformers.models.mllama.image_processing_pil_mllama import MllamaImageProcessorPil

    specials = ["<|begin_of_text|>", "<|end_of_text|>", "<|start_header_id|>", "<|end_header_id|>", "<|eot_id|>",
                "<|finetune_right_pad_id|>", "<|python_tag|>", "<|image|>"]
    tok = byte_tokenizer(specials, eos="<|eot_id|>", pad="<|finetune_right_pad_id|>", bos="<|begin_of_text|>",
                         template=MLLAMA_TEMPLATE)
    ids = _ids(tok, "<|image|>", "<|eot_id|>", "<|finetune_right_pad_id|>", "<|begin_of_text|>")
    config = MllamaConfig(
        vision_config={"hidden_size": 32, "num_hidden_layers": 2, "num_global_layers": 1, "attention_heads": 2,
                       "intermediate_size": 64, "vision_output_dim": 64, "image_size": 28, "patch_size": 14,
                       "max_num_tiles": 4, "intermediate_layers_indices": [0]},
        text_config={**_text(vocab_size=len(tok) + 8, num_hidden_layers=2, cross_attention_layers=[1],
                             pad_token_id=ids["<|finetune_right_pad_id|>"], bos_token_id=ids["<|begin_of_text|>"],
                             eos_token_id=ids["<|eot_id|>"])},
        image_token_index=ids["<|image|>"])
    model = kit.seeded(MllamaForConditionalGeneration, config)
    image_processor = MllamaImageProcessorPil(size={"height": 28, "width": 28}, max_image_tiles=4)
    _save(folder, model, tok, image_processor, template=MLLAMA_TEMPLATE, eos=ids["<|eot_id|>"],
          pad=ids["<|finetune_right_pad_id|>"], processor_config={"processor_class": "MllamaProcessor"})
    return TinyCheckpoint("mllama", folder, type(model).__name__, "<|image|>")


# ---- Gemma 4: its own vision encoder (patches pooled 2x2 here), Gemma 4 text, an audio tower ------------------
GEMMA4_TEMPLATE = (
    "{{ bos_token }}{% for m in messages %}<|turn>{{ 'model' if m['role'] == 'assistant' else m['role'] }}\n"
    + _parts("<|image|>") + "<turn|>\n{% endfor %}{% if add_generation_prompt %}<|turn>model\n{% endif %}"
)


def gemma4(folder: Path) -> TinyCheckpoint:
    """Gemma 4: at most 70 soft tokens per image (the smallest budget the processor allows), 4-px patches
    pooled 2x2 here (16-px pooled 3x3 in the real one); its processor also takes audio (a feature extractor)."""
    from transformers import Gemma4Config, Gemma4ForConditionalGeneration
    from transformers.models.gemma4.feature_extraction_gemma4 import Gemma4AudioFeatureExtractor
    from transformers.models.gemma4.image_processing_pil_gemma4 import Gemma4ImageProcessorPil

    named = {"boi_token": "<|image>", "eoi_token": "<image|>", "image_token": "<|image|>",
             "audio_token": "<|audio|>", "boa_token": "<|audio>", "eoa_token": "<audio|>"}
    tok = byte_tokenizer(["<|turn>", "<turn|>", "<bos>", "<eos>", "<pad>", "<|video|>"], eos="<turn|>", pad="<pad>",
                         bos="<bos>", named=named, template=GEMMA4_TEMPLATE)
    ids = _ids(tok, "<|image>", "<image|>", "<|image|>", "<|video|>", "<|audio|>", "<|audio>", "<audio|>", "<turn|>",
               "<pad>", "<bos>")
    config = Gemma4Config(
        text_config={**_text(vocab_size=len(tok), head_dim=16, pad_token_id=ids["<pad>"], bos_token_id=ids["<bos>"],
                             eos_token_id=ids["<turn|>"], sliding_window=64, layer_types=["full_attention"],
                             vocab_size_per_layer_input=len(tok), hidden_size_per_layer_input=8)},
        vision_config={"hidden_size": 32, "intermediate_size": 64, "num_hidden_layers": 1, "num_attention_heads": 2,
                       "num_key_value_heads": 2, "head_dim": 16, "patch_size": 4, "pooling_kernel_size": 2,
                       "position_embedding_size": 64},
        audio_config=None, boi_token_id=ids["<|image>"], eoi_token_id=ids["<image|>"],
        image_token_id=ids["<|image|>"], video_token_id=ids["<|video|>"], boa_token_id=ids["<|audio>"],
        eoa_token_index=ids["<audio|>"], audio_token_id=ids["<|audio|>"])
    model = kit.seeded(Gemma4ForConditionalGeneration, config)
    image_processor = Gemma4ImageProcessorPil(patch_size=4, pooling_kernel_size=2, max_soft_tokens=70)
    # the processor's audio part (unused here), nested in processor_config.json as transformers saves it
    audio = json.loads(Gemma4AudioFeatureExtractor().to_json_string())
    audio["feature_extractor_type"] = "Gemma4AudioFeatureExtractor"
    _save(folder, model, tok, image_processor, template=GEMMA4_TEMPLATE, eos=ids["<turn|>"], pad=ids["<pad>"],
          processor_config={"processor_class": "Gemma4Processor", "image_seq_length": 70, "feature_extractor": audio})
    return TinyCheckpoint("gemma4", folder, type(model).__name__, "<|image|>")


FAMILIES: dict[str, Callable[[Path], TinyCheckpoint]] = {
    "qwen3_5": qwen3_5,
    "glm4v": glm4v,
    "glm4v_moe": glm4v_moe,
    "glm46v": glm46v,
    "minicpmv4_7": minicpmv4_7,
    "aya_vision": aya_vision,
    "idefics2": idefics2,
    "ovis2": ovis2,
    "deepseek_vl": deepseek_vl,
    "deepseek_vl_hybrid": deepseek_vl_hybrid,
    "janus": janus,
    "mllama": mllama,
    "gemma4": gemma4,
}


def build(family: str, folder: Path) -> TinyCheckpoint:
    return FAMILIES[family](Path(folder))
