"""Tiny checkpoints of issue 36's third batch of families (helper branch issue36c), built like
eval_kit/testing/tiny_families.py (whose helpers this module reuses): the REAL model class from a microscopic
config, the real image processor class in its PIL version, a byte-level tokenizer with the family's special
tokens, the real checkpoint's chat template reduced to text and image parts.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from eval_kit.testing import tiny_families as kit
from eval_kit.testing.tiny_families import (
    QWEN_SPECIALS,
    VICUNA,
    TinyCheckpoint,
    _ids,
    _save,
    _text,
    byte_tokenizer,
    chatml,
    pixtral_tokenizer,
    save_pixtral,
)

VIPLLAVA = (  # llava-hf/vip-llava-7b-hf: "###Human: <image>\ntext###Assistant:"
    "{% for m in messages %}{% if m['role'] == 'user' %}###Human: {% else %}###Assistant: {% endif %}"
    "{% if m['content'] is string %}{{ m['content'] }}{% else %}"
    "{% for c in m['content'] %}{% if c['type'] == 'image' %}<image>\n{% endif %}{% endfor %}"
    "{% for c in m['content'] %}{% if c['type'] == 'text' %}{{ c['text'] }}{% endif %}{% endfor %}{% endif %}"
    "{% endfor %}{% if add_generation_prompt %}###Assistant:{% endif %}"
)


def vipllava(folder: Path) -> TinyCheckpoint:
    """VipLLaVA: CLIP vision tower read at several layers (28-px images here), Llama text, LlavaProcessor."""
    from transformers import VipLlavaConfig, VipLlavaForConditionalGeneration

    tok, ids = kit.vicuna_tokenizer(VIPLLAVA)
    config = VipLlavaConfig(
        vision_config=kit.CLIP_28, text_config=kit.llama_text(tok, ids["<unk>"]),
        image_token_index=ids["<image>"], vision_feature_layers=[-2, -1], image_seq_length=4)
    model = kit.seeded(VipLlavaForConditionalGeneration, config)
    processor = kit.llava_processor(tok, VIPLLAVA)
    kit.save_processor(folder, model, processor, eos=ids["</s>"], pad=ids["<unk>"])
    return TinyCheckpoint("vipllava", folder, type(model).__name__, "<image>")


def _qwen3_5_like(folder: Path, family: str, name: str, **text_extra) -> TinyCheckpoint:
    """Qwen3.5-MoE / Qwen4 (exp): hybrid linear/full-attention MoE text, Qwen3-VL style vision tower,
    Qwen3VLProcessor with the Qwen2-VL PIL image processor, ChatML template with vision-start/pad/end."""
    import transformers

    template = chatml("<|vision_start|><|image_pad|><|vision_end|>")
    tok = byte_tokenizer(QWEN_SPECIALS, eos="<|im_end|>", pad="<|endoftext|>", template=template)
    ids = _ids(tok, *QWEN_SPECIALS)
    tokens = {"image_token_id": ids["<|image_pad|>"], "video_token_id": ids["<|video_pad|>"],
              "vision_start_token_id": ids["<|vision_start|>"], "vision_end_token_id": ids["<|vision_end|>"]}
    text_extra = {"layer_types": ["linear_attention", "full_attention"], **text_extra}
    text = _text(vocab_size=len(tok), head_dim=16, pad_token_id=ids["<|endoftext|>"], num_hidden_layers=2,
                 linear_key_head_dim=8, linear_value_head_dim=8,
                 linear_num_key_heads=2, linear_num_value_heads=2, num_experts=4, num_experts_per_tok=2,
                 moe_intermediate_size=16, shared_expert_intermediate_size=16,
                 rope_parameters={"rope_type": "default", "rope_theta": 10000.0, "mrope_section": [1, 1, 0],
                                  "mrope_interleaved": True, "partial_rotary_factor": 0.25}, **text_extra)
    vision = {"depth": 1, "hidden_size": 32, "intermediate_size": 64, "num_heads": 2, "patch_size": 16,
              "spatial_merge_size": 2, "temporal_patch_size": 2, "out_hidden_size": 32,
              "num_position_embeddings": 64}
    config = getattr(transformers, f"{name}Config")(text_config=text, vision_config=vision, **tokens)
    model = kit.seeded(getattr(transformers, f"{name}ForConditionalGeneration"), config)
    image_processor = kit.qwen2vl_image_processor(16)
    _save(folder, model, tok, image_processor, template=template, eos=ids["<|im_end|>"], pad=ids["<|endoftext|>"])
    return TinyCheckpoint(family, folder, type(model).__name__, "<|image_pad|>")


def qwen3_5_moe(folder: Path) -> TinyCheckpoint:
    return _qwen3_5_like(folder, "qwen3_5_moe", "Qwen3_5Moe")


def llava_next_video(folder: Path) -> TinyCheckpoint:
    """LLaVA-NeXT-Video (llava-hf/LLaVA-NeXT-Video-7B-hf): LLaVA-NeXT's anyres images, vicuna template; the
    processor is built without its (torchvision) video processor, as on a machine without torchvision."""
    from transformers import LlavaNextVideoConfig, LlavaNextVideoForConditionalGeneration
    from transformers.models.llava_next.image_processing_pil_llava_next import LlavaNextImageProcessorPil

    tok, ids = kit.vicuna_tokenizer(VICUNA, video=True)
    pinpoints = [[28, 28], [28, 56], [56, 28]]
    config = LlavaNextVideoConfig(
        vision_config=kit.CLIP_28, text_config=kit.llama_text(tok, ids["<unk>"]),
        image_token_index=ids["<image>"], video_token_index=ids["<video>"], image_grid_pinpoints=pinpoints,
        vision_feature_layer=-1, image_seq_length=4, video_seq_length=1)
    model = kit.seeded(LlavaNextVideoForConditionalGeneration, config)
    image_processor = LlavaNextImageProcessorPil(size={"shortest_edge": 28}, crop_size={"height": 28, "width": 28},
                                                 image_grid_pinpoints=pinpoints)
    _save(folder, model, tok, image_processor, template=VICUNA, eos=ids["</s>"], pad=ids["<unk>"],
          processor_config={"processor_class": "LlavaNextVideoProcessor", "patch_size": 14,
                            "vision_feature_select_strategy": "default", "num_additional_image_tokens": 1})
    return TinyCheckpoint("llava_next_video", folder, type(model).__name__, "<image>")


def video_llava(folder: Path) -> TinyCheckpoint:
    """Video-LLaVA (LanguageBind/Video-LLaVA-7B-hf): CLIP tower, its own PIL image processor, vicuna template."""
    from transformers import VideoLlavaConfig, VideoLlavaForConditionalGeneration
    from transformers.models.video_llava.image_processing_video_llava import VideoLlavaImageProcessor

    tok, ids = kit.vicuna_tokenizer(VICUNA, video=True)
    config = VideoLlavaConfig(
        vision_config=kit.CLIP_28, text_config=kit.llama_text(tok, ids["<unk>"]),
        image_token_index=ids["<image>"], video_token_index=ids["<video>"], vision_feature_layer=-1,
        image_seq_length=4, video_seq_length=8)
    model = kit.seeded(VideoLlavaForConditionalGeneration, config)
    image_processor = VideoLlavaImageProcessor(size={"shortest_edge": 28}, crop_size={"height": 28, "width": 28})
    _save(folder, model, tok, image_processor, template=VICUNA, eos=ids["</s>"], pad=ids["<unk>"],
          processor_config={"processor_class": "VideoLlavaProcessor", "patch_size": 14,
                            "vision_feature_select_strategy": "default", "num_additional_image_tokens": 1})
    return TinyCheckpoint("video_llava", folder, type(model).__name__, "<image>")


# InstructBLIP's checkpoints ship no chat template; its processor puts the query tokens before the text itself,
# so a template for it renders text parts only (vicuna shape, as the instructblip-vicuna prompts)
INSTRUCTBLIP = (
    "{% for m in messages %}{% if m['role'] == 'user' %}USER: {% else %}ASSISTANT: {% endif %}"
    "{% if m['content'] is string %}{{ m['content'] }}{% else %}{% for c in m['content'] %}"
    "{% if c['type'] == 'text' %}{{ c['text'] }}{% endif %}{% endfor %}{% endif %}"
    "{% if m['role'] == 'user' %} {% else %}</s>{% endif %}{% endfor %}"
    "{% if add_generation_prompt %}ASSISTANT:{% endif %}"
)


def instructblip(folder: Path, *, template: str | None = INSTRUCTBLIP) -> TinyCheckpoint:
    """InstructBLIP (Salesforce/instructblip-vicuna-7b): BLIP vision tower, Q-Former, Llama text; the real
    BlipImageProcessor (PIL). `template`: written as chat_template.jinja beside the processor (None: none, as
    the real checkpoints)."""
    from transformers import InstructBlipConfig, InstructBlipForConditionalGeneration, InstructBlipProcessor
    from transformers.models.blip.image_processing_pil_blip import BlipImageProcessorPil

    # no `image_token` attribute on the tokenizer, as the real one: the processor adds "<image>" itself (with
    # the attribute set, transformers 5.24's InstructBlipProcessor fails on `str.content`)
    tok, ids = kit.vicuna_tokenizer(None)
    qformer_tok = byte_tokenizer(["[PAD]", "[SEP]"], eos="[SEP]", pad="[PAD]")
    config = InstructBlipConfig(
        vision_config={"hidden_size": 32, "intermediate_size": 64, "num_hidden_layers": 1, "num_attention_heads": 2,
                       "image_size": 28, "patch_size": 14},
        qformer_config={"hidden_size": 32, "intermediate_size": 64, "num_hidden_layers": 1, "num_attention_heads": 2,
                        "encoder_hidden_size": 32, "vocab_size": len(qformer_tok), "cross_attention_frequency": 1},
        text_config=kit.llama_text(tok, ids["<unk>"]),
        num_query_tokens=4, image_token_index=ids["<image>"])
    model = kit.seeded(InstructBlipForConditionalGeneration, config)
    image_processor = BlipImageProcessorPil(size={"height": 28, "width": 28})
    processor = InstructBlipProcessor(image_processor=image_processor, tokenizer=tok, qformer_tokenizer=qformer_tok,
                                      num_query_tokens=4)
    kit.save_processor(folder, model, processor, eos=ids["</s>"], pad=ids["<unk>"])
    if template is not None:
        (folder / "chat_template.jinja").write_text(template)
    return TinyCheckpoint("instructblip", folder, type(model).__name__, "<image>", has_template=template is not None)


def lfm3_vl(folder: Path) -> TinyCheckpoint:
    """LFM3-VL: its own vision tower (16-px patches, 2x2 merge), LFM3 hybrid text, Lfm3VlProcessor with the
    Qwen2-VL PIL image processor, ChatML with vision-start/pad/end (the processor's default image token; the
    real checkpoint's template was not compared)."""
    from transformers import Lfm3VlConfig, Lfm3VlForConditionalGeneration

    template = chatml("<|vision_start|><|image_pad|><|vision_end|>")
    tok = byte_tokenizer(QWEN_SPECIALS, eos="<|im_end|>", pad="<|endoftext|>", template=template)
    ids = _ids(tok, *QWEN_SPECIALS)
    config = Lfm3VlConfig(
        vision_config={"hidden_size": 32, "intermediate_size": 64, "num_hidden_layers": 1, "num_attention_heads": 2,
                       "num_key_value_heads": 2, "patch_size": 16, "spatial_merge_size": 2,
                       "temporal_patch_size": 2},
        text_config={"model_type": "lfm3", "vocab_size": len(tok), "hidden_size": 32, "intermediate_size": 64,
                     "num_hidden_layers": 1, "num_attention_heads": 2, "num_key_value_heads": 1, "head_dim": 16,
                     "max_position_embeddings": 4096, "pad_token_id": ids["<|endoftext|>"],
                     "eos_token_id": ids["<|im_end|>"], "bos_token_id": None},
        image_token_id=ids["<|image_pad|>"], video_token_id=ids["<|video_pad|>"],
        vision_start_token_id=ids["<|vision_start|>"], vision_end_token_id=ids["<|vision_end|>"],
        projector_hidden_size=32)
    model = kit.seeded(Lfm3VlForConditionalGeneration, config)
    image_processor = kit.qwen2vl_image_processor(16)
    _save(folder, model, tok, image_processor, template=template, eos=ids["<|im_end|>"], pad=ids["<|endoftext|>"],
          processor_config={"processor_class": "Lfm3VlProcessor"})
    return TinyCheckpoint("lfm3_vl", folder, type(model).__name__, "<|image_pad|>")


def video_llama_3(folder: Path) -> TinyCheckpoint:
    """VideoLLaMA 3: SigLIP-style vision encoder (14-px patches, 2x2 merge), Qwen2 text, its own PIL image
    processor, ChatML with <|image_pad|> (the processor's default image token)."""
    from transformers import VideoLlama3Config, VideoLlama3ForConditionalGeneration
    from transformers.models.video_llama_3.image_processing_pil_video_llama_3 import VideoLlama3ImageProcessorPil

    template = chatml("<|image_pad|>\n")
    tok = byte_tokenizer(QWEN_SPECIALS, eos="<|im_end|>", pad="<|endoftext|>", template=template)
    ids = _ids(tok, *QWEN_SPECIALS)
    config = VideoLlama3Config(
        vision_config={"hidden_size": 32, "intermediate_size": 64, "num_hidden_layers": 1, "num_attention_heads": 2,
                       "patch_size": 14},
        text_config={"model_type": "qwen2", **_text(vocab_size=len(tok), pad_token_id=ids["<|endoftext|>"])},
        image_token_id=ids["<|image_pad|>"], video_token_id=ids["<|video_pad|>"])
    model = kit.seeded(VideoLlama3ForConditionalGeneration, config)
    image_processor = VideoLlama3ImageProcessorPil(patch_size=14, merge_size=2, min_pixels=28 * 28,
                                                   max_pixels=4 * 28 * 28)
    _save(folder, model, tok, image_processor, template=template, eos=ids["<|im_end|>"], pad=ids["<|endoftext|>"],
          processor_config={"processor_class": "VideoLlama3Processor"})
    return TinyCheckpoint("video_llama_3", folder, type(model).__name__, "<|image_pad|>")


def mistral_large4(folder: Path) -> TinyCheckpoint:
    """Mistral Large 4: a Pixtral vision tower, MLA + sparse-indexer MoE text; Pixtral's processor with its PIL
    image processor (as Mistral 3's tiny checkpoint)."""
    from transformers import MistralLarge4Config, MistralLarge4ForConditionalGeneration

    tok, ids = pixtral_tokenizer()
    config = MistralLarge4Config(
        vision_config={"model_type": "pixtral", "hidden_size": 32, "intermediate_size": 64, "num_hidden_layers": 1,
                       "num_attention_heads": 2, "head_dim": 16, "image_size": 56, "patch_size": 14},
        text_config={"vocab_size": len(tok), "hidden_size": 32, "intermediate_size": 64, "moe_intermediate_size": 16,
                     "num_hidden_layers": 2, "num_attention_heads": 2, "num_key_value_heads": 2,
                     "n_routed_experts": 4, "num_experts_per_tok": 2, "kv_lora_rank": 16, "qk_rope_head_dim": 8,
                     "qk_nope_head_dim": 8, "v_head_dim": 16, "head_dim": 16, "index_topk": 8, "index_head_dim": 16,
                     "index_n_heads": 2, "max_position_embeddings": 4096, "pad_token_id": ids["<pad>"],
                     "bos_token_id": ids["<s>"], "eos_token_id": ids["</s>"]},
        image_token_index=ids["[IMG]"], spatial_merge_size=2, vision_feature_layer=-1)
    return save_pixtral(folder, kit.seeded(MistralLarge4ForConditionalGeneration, config), tok, ids, "mistral_large4")


def qwen4_exp(folder: Path) -> TinyCheckpoint:
    """Qwen4 (exp): Qwen3.5's shape plus hyper-connections, n-gram embeddings and a sparse (QSA) indexer."""
    return _qwen3_5_like(folder, "qwen4_exp", "Qwen4Exp", layer_types=["linear_attention", "indexed_attention"],
                         hc_count=2, hc_lowrank=8, ngram_vocab_size_base=1024, heads_per_ngram=2,
                         make_ngram_vocab_size_divisible_by=8, split_ngram_parts=2, indexer_n_heads=2,
                         indexer_kv_heads=1, indexer_head_dim=16, indexer_budget=8, indexer_compress_ratio=4)


FAMILIES: dict[str, Callable[[Path], TinyCheckpoint]] = {
    "vipllava": vipllava,
    "qwen3_5_moe": qwen3_5_moe,
    "llava_next_video": llava_next_video,
    "video_llava": video_llava,
    "instructblip": instructblip,
    "lfm3_vl": lfm3_vl,
    "video_llama_3": video_llama_3,
    "mistral_large4": mistral_large4,
    "qwen4_exp": qwen4_exp,
}
TEMPLATE_MARK = {"vipllava": "###Assistant:", "qwen3_5_moe": "<|im_start|>assistant\n",
                 "llava_next_video": "ASSISTANT:", "video_llava": "ASSISTANT:",
                 "instructblip": "ASSISTANT:", "lfm3_vl": "<|im_start|>assistant\n",
                 "video_llama_3": "<|im_start|>assistant\n", "mistral_large4": "[/INST]",
                 "qwen4_exp": "<|im_start|>assistant\n"}


def build(family: str, folder: Path) -> TinyCheckpoint:
    return FAMILIES[family](Path(folder))
