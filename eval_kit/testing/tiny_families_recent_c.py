"""Tiny checkpoints of issue 36's fourth batch of families (helper branch issue36d), built like
eval_kit/testing/tiny_families.py (whose helpers this module imports): the REAL model class from a microscopic
config, the real image processor class in its PIL version, a byte-level tokenizer with the family's special
tokens, and the real checkpoint's chat template reduced to text and image parts.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from eval_kit.testing import tiny_families as kit
from eval_kit.testing.tiny_families import TinyCheckpoint, _ids, _save, _text, byte_tokenizer, chatml
from eval_kit.testing.tiny_families_established import _parts, _write_json


def aria(folder: Path) -> TinyCheckpoint:
    """Aria (rhymes-ai/Aria): an Idefics3 (SigLIP) vision tower, a cross-attention projector to a fixed number of
    queries per crop, a MoE Llama-style decoder; ChatML with `<fim_prefix><|img|><fim_suffix>` per image.
    The real tower reads 490/980-px crops in 14-px patches (1225/4900 patches -> 128/256 queries); here the same
    crop sizes in 70-px patches (49/196 patches -> 4/16 queries)."""
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
    model = kit.seeded(AriaForConditionalGeneration, config)
    image_processor = AriaImageProcessorPil(max_image_size=490, min_image_size=70)
    processor = AriaProcessor(image_processor=image_processor, tokenizer=tok, chat_template=template,
                              size_conversion={490: 4, 980: 16})
    kit.save_processor(folder, model, processor, eos=ids["<|im_end|>"], pad=ids["<|endoftext|>"])
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
    model = kit.seeded(CohereCompassForConditionalGeneration, config)
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
    model = kit.seeded(Cosmos3EdgeForConditionalGeneration, config)
    image_processor = Cosmos3EdgeImageProcessorPil(size={"shortest_edge": 32 * 32, "longest_edge": 4 * 32 * 32})
    _save(folder, model, tok, image_processor, template=template, eos=ids["<|im_end|>"], pad=ids["<|endoftext|>"],
          processor_config={"processor_class": "Cosmos3EdgeProcessor"})
    return TinyCheckpoint("cosmos3_edge", folder, type(model).__name__, "<|image_pad|>")


# dots.vlm / dots.ocr turns; each image `<|img|><|imgpad|><|endofimg|>`
DOTS_TEMPLATE = (
    "{% for m in messages %}{% if m['role'] == 'system' %}<|system|>{% elif m['role'] == 'user' %}<|userprompt|>"
    "{% else %}<|response|>{% endif %}" + _parts("<|img|><|imgpad|><|endofimg|>") +
    "{% if m['role'] == 'system' %}<|endofsystem|>{% elif m['role'] == 'user' %}<|endofuserprompt|>{% else %}"
    "<|endofresponse|>{% endif %}{% endfor %}{% if add_generation_prompt %}<|response|>{% endif %}"
)
DOTS_SPECIALS = ["<|system|>", "<|endofsystem|>", "<|userprompt|>", "<|endofuserprompt|>", "<|response|>",
                 "<|endofresponse|>", "<|img|>", "<|imgpad|>", "<|endofimg|>", "<|video_pad|>", "<|audio_comp_pad|>",
                 "<|endoftext|>"]


def dots3_note(folder: Path) -> TinyCheckpoint:
    """dots3 Note (dots-studio/dots3-note-prev): a MoE vision tower (dense here) with a 2x2 merging adapter, an
    audio encoder (1 layer here), an MLA / MoE decoder (full attention here, no indexed attention); Qwen2-VL's
    PIL image processor (14-px patches), the family's own audio feature extractor; dots turns."""
    from transformers import Dots3NoteConfig, Dots3NoteForConditionalGeneration, Dots3NoteProcessor
    from transformers.models.dots3_note.feature_extraction_dots3_note import Dots3NoteFeatureExtractor

    from eval_kit.runners import image_only

    tok = byte_tokenizer(DOTS_SPECIALS, eos="<|endofresponse|>", pad="<|endoftext|>", template=DOTS_TEMPLATE)
    ids = _ids(tok, *DOTS_SPECIALS)
    text = {"vocab_size": len(tok), "hidden_size": 32, "intermediate_size": 64, "moe_intermediate_size": 16,
            "num_hidden_layers": 2, "num_attention_heads": 2, "num_key_value_heads": 2, "n_shared_experts": 1,
            "n_routed_experts": 4, "num_experts_per_tok": 2, "kv_lora_rank": 16, "q_lora_rank": 16,
            "qk_rope_head_dim": 8, "qk_nope_head_dim": 8, "v_head_dim": 16, "head_dim": 16, "index_head_dim": 16,
            "index_n_heads": 2, "shared_experts_intermediate_size": 16, "use_dsa": False, "use_sliding_window": False,
            "max_position_embeddings": 4096, "pad_token_id": ids["<|endoftext|>"],
            "bos_token_id": ids["<|endoftext|>"], "eos_token_id": ids["<|endofresponse|>"]}
    vision = {"hidden_size": 32, "intermediate_size": 64, "num_hidden_layers": 1, "num_attention_heads": 2,
              "patch_size": 14, "moe_intermediate_size": 16, "pyramid_num_routed": [-1], "adapter_in_dim": 32,
              "adapter_out_dim": 32, "spatial_merge_size": 2, "adapter_merge_size": 2}
    audio = {"hidden_size": 16, "intermediate_size": 32, "num_hidden_layers": 1, "num_attention_heads": 2,
             "downsample_hidden_size": 8, "feature_size": 16, "adapter_input_size": 16, "adapter_out_dim": 32,
             "max_position_embeddings": 64}
    config = Dots3NoteConfig(text_config=text, vision_config=vision, audio_config=audio,
                             image_token_id=ids["<|imgpad|>"], video_token_id=ids["<|video_pad|>"],
                             audio_token_id=ids["<|audio_comp_pad|>"])
    model = kit.seeded(Dots3NoteForConditionalGeneration, config)
    image_processor = kit.qwen2vl_image_processor(14, temporal=1)
    processor = image_only._image_only_class(Dots3NoteProcessor)(
        image_processor=image_processor, tokenizer=tok, video_processor=image_only._no_video_class()(),
        feature_extractor=Dots3NoteFeatureExtractor(feature_size=16), chat_template=DOTS_TEMPLATE)
    kit.save_processor(folder, model, processor, eos=ids["<|endofresponse|>"], pad=ids["<|endoftext|>"])
    # its processor class (not the image-only stand-in's) and a video processor slot, Qwen2-VL's (torchvision-only)
    # as its image processor is Qwen2-VL's: what a machine with torchvision would build
    _write_json(folder / "processor_config.json", {
        "processor_class": "Dots3NoteProcessor",
        "video_processor": {"video_processor_type": "Qwen2VLVideoProcessor", "patch_size": 14, "merge_size": 2,
                            "temporal_patch_size": 2}})
    return TinyCheckpoint("dots3_note", folder, type(model).__name__, "<|imgpad|>")


# ERNIE-4.5-VL: "User: Picture 1:<|IMAGE_START|><|IMAGE_PLACEHOLDER|><|IMAGE_END|>text\nAssistant: "
ERNIE_TEMPLATE = (
    "<|begin_of_sentence|>{% set n = namespace(image=0) %}{% for m in messages %}"
    "{% if m['role'] == 'assistant' %}Assistant: {% elif m['role'] == 'user' %}User: {% endif %}"
    "{% if m['content'] is string %}{{ m['content'] }}{% else %}{% for c in m['content'] %}"
    "{% if c['type'] == 'image' %}{% set n.image = n.image + 1 %}"
    "Picture {{ n.image }}:<|IMAGE_START|><|IMAGE_PLACEHOLDER|><|IMAGE_END|>{% else %}{{ c['text'] }}{% endif %}"
    "{% endfor %}{% endif %}{% if m['role'] == 'assistant' %}<|end_of_sentence|>{% else %}{{ '\\n' }}{% endif %}"
    "{% endfor %}"
    "{% if add_generation_prompt %}Assistant: {% endif %}"
)
ERNIE_TOKENS = {"image_token": "<|IMAGE_PLACEHOLDER|>", "image_start_token": "<|IMAGE_START|>",
                "image_end_token": "<|IMAGE_END|>", "video_token": "<|VIDEO_PLACEHOLDER|>",
                "video_start_token": "<|VIDEO_START|>", "video_end_token": "<|VIDEO_END|>"}


def ernie4_5_vl_moe(folder: Path) -> TinyCheckpoint:
    """ERNIE-4.5-VL (baidu/ERNIE-4.5-VL-28B-A3B): a ViT with 2D rope (14-px patches, 2x2 merge) and a resampler,
    a decoder with separate text and vision experts and 3D rope; its own PIL image processor."""
    from transformers import Ernie4_5_VLMoeConfig, Ernie4_5_VLMoeForConditionalGeneration
    from transformers.models.ernie4_5_vl_moe.image_processing_pil_ernie4_5_vl_moe import (
        Ernie4_5_VLMoeImageProcessorPil,
    )

    tok = byte_tokenizer(["<|begin_of_sentence|>", "<|end_of_sentence|>", "<unk>", "<pad>"],
                         eos="<|end_of_sentence|>", pad="<pad>", bos="<|begin_of_sentence|>", named=ERNIE_TOKENS,
                         template=ERNIE_TEMPLATE)
    ids = _ids(tok, "<|end_of_sentence|>", "<pad>", "<|begin_of_sentence|>", *ERNIE_TOKENS.values())
    text = _text(vocab_size=len(tok), num_hidden_layers=2, pad_token_id=ids["<pad>"],
                 bos_token_id=ids["<|begin_of_sentence|>"], eos_token_id=ids["<|end_of_sentence|>"],
                 moe_intermediate_size=[16, 16], moe_k=2, moe_num_experts=4, moe_num_shared_experts=1,
                 rope_parameters={"rope_type": "default", "rope_theta": 500000.0, "mrope_section": [3, 3, 2]})
    vision = {"depth": 1, "hidden_size": 32, "intermediate_size": 64, "num_heads": 2, "patch_size": 14,
              "spatial_merge_size": 2, "temporal_merge_size": 2}
    config = Ernie4_5_VLMoeConfig(
        text_config=text, vision_config=vision, image_token_id=ids["<|IMAGE_PLACEHOLDER|>"],
        image_start_token_id=ids["<|IMAGE_START|>"], image_end_token_id=ids["<|IMAGE_END|>"],
        video_token_id=ids["<|VIDEO_PLACEHOLDER|>"], video_start_token_id=ids["<|VIDEO_START|>"],
        video_end_token_id=ids["<|VIDEO_END|>"])
    model = kit.seeded(Ernie4_5_VLMoeForConditionalGeneration, config)
    image_processor = Ernie4_5_VLMoeImageProcessorPil(size={"shortest_edge": 28 * 28, "longest_edge": 4 * 28 * 28})
    _save(folder, model, tok, image_processor, template=ERNIE_TEMPLATE, eos=ids["<|end_of_sentence|>"],
          pad=ids["<pad>"], processor_config={"processor_class": "Ernie4_5_VLMoeProcessor"})
    return TinyCheckpoint("ernie4_5_vl_moe", folder, type(model).__name__, "<|IMAGE_PLACEHOLDER|>")


# facebook/chameleon-7b: "USER: <image>\ntext ASSISTANT:" (images first, then the text parts)
CHAMELEON_TEMPLATE = (
    "{% for m in messages %}{% if m['role'] != 'system' %}{{ m['role'].upper() + ': ' }}{% endif %}"
    "{% if m['content'] is string %}{{ m['content'] + ' ' }}{% else %}"
    "{% for c in m['content'] | selectattr('type', 'equalto', 'image') %}{{ '<image>\\n' }}{% endfor %}"
    "{% for c in m['content'] | selectattr('type', 'equalto', 'text') %}{{ c['text'] + ' ' }}{% endfor %}"
    "{% endif %}{% endfor %}{% if add_generation_prompt %}{{ 'ASSISTANT:' }}{% endif %}"
)


def _image_code_names(count: int) -> list[str]:
    """Chameleon's names of its VQ codebook entries in the BPE vocabulary: IMGIMG + the index in letters
    (A=0 ... J=9) + Z, e.g. 12 -> IMGIMGBCZ."""
    return ["IMGIMG" + "".join(chr(ord("A") + int(d)) for d in str(i)) + "Z" for i in range(count)]


def chameleon(folder: Path) -> TinyCheckpoint:
    """Chameleon (facebook/chameleon-7b): early fusion, a VQ-VAE turns each image into codebook tokens of the
    BPE vocabulary (512-px images into 32x32 = 1024 tokens in the real one; 16-px into 4x4 = 16 here); its own
    PIL image processor; a Llama-style decoder."""
    from transformers import ChameleonConfig, ChameleonForConditionalGeneration, ChameleonProcessor
    from transformers.models.chameleon.image_processing_pil_chameleon import ChameleonImageProcessorPil

    codes = _image_code_names(16)
    tok = byte_tokenizer(["<s>", "</s>", "<pad>", "<reserved08706>", "<racm3:break>", "<eoss>", *codes],
                         eos="</s>", pad="<pad>", bos="<s>", named={"image_token": "<image>"},
                         template=CHAMELEON_TEMPLATE)
    tok.sep_token = "<reserved08706>"  # the processor ends every chat prompt with it, as the real tokenizer's
    ids = _ids(tok, "<s>", "</s>", "<pad>", "<image>")
    config = ChameleonConfig(
        **_text(vocab_size=len(tok), pad_token_id=ids["<pad>"], bos_token_id=ids["<s>"], eos_token_id=ids["</s>"]),
        vq_config={"embed_dim": 4, "num_embeddings": 16, "latent_channels": 4, "resolution": 16, "base_channels": 32,
                   "channel_multiplier": [1, 1, 1], "num_res_blocks": 1},
        vocabulary_map={"<image>": ids["<image>"], **_ids(tok, *codes)})
    model = kit.seeded(ChameleonForConditionalGeneration, config)
    image_processor = ChameleonImageProcessorPil(size={"shortest_edge": 16}, crop_size={"height": 16, "width": 16})
    processor = ChameleonProcessor(image_processor=image_processor, tokenizer=tok, image_seq_length=16)
    processor.chat_template = CHAMELEON_TEMPLATE
    kit.save_processor(folder, model, processor, eos=ids["</s>"], pad=ids["<pad>"])
    return TinyCheckpoint("chameleon", folder, type(model).__name__, "<image>")


# BAAI/Emu3-Chat-hf: "USER: <image>text ASSISTANT:" (images first, then the text parts)
EMU3_TEMPLATE = (
    "{% for m in messages %}{% if m['role'] != 'system' %}{{ m['role'].upper() + ': ' }}{% endif %}"
    "{% if m['content'] is string %}{{ m['content'] + ' ' }}{% else %}"
    "{% for c in m['content'] | selectattr('type', 'equalto', 'image') %}{{ '<image>' }}{% endfor %}"
    "{% for c in m['content'] | selectattr('type', 'equalto', 'text') %}{{ c['text'] + ' ' }}{% endfor %}"
    "{% endif %}{% endfor %}{% if add_generation_prompt %}{{ 'ASSISTANT:' }}{% endif %}"
)
EMU3_TOKENS = {"image_token": "<image>", "boi_token": "<|image start|>", "eoi_token": "<|image end|>",
               "image_wrapper_token": "<|image token|>", "eof_token": "<|extra_201|>"}


def emu3(folder: Path) -> TinyCheckpoint:
    """Emu3 (BAAI/Emu3-Chat-hf): early fusion, a VQ-VAE (8x spatial downsampling, as the real one) turns each
    image into `<|visual token N|>` tokens of the BPE vocabulary, one row end per row; its own (PIL) image
    processor, 16-32 px images here; a Llama-style decoder."""
    from transformers import Emu3Config, Emu3ForConditionalGeneration, Emu3Processor
    from transformers.models.emu3.image_processing_emu3 import Emu3ImageProcessor

    codes = [f"<|visual token {i:06d}|>" for i in range(16)]
    tok = byte_tokenizer(["<|extra_203|>", "<|endoftext|>", "<|extra_200|>", *codes], eos="<|endoftext|>",
                         pad="<|endoftext|>", bos="<|extra_203|>", named=EMU3_TOKENS, template=EMU3_TEMPLATE)
    ids = _ids(tok, "<|extra_203|>", "<|endoftext|>", "<|extra_200|>", "<image>")
    config = Emu3Config(
        text_config=_text(vocab_size=len(tok), pad_token_id=ids["<|endoftext|>"], bos_token_id=ids["<|extra_203|>"],
                          eos_token_id=ids["<|endoftext|>"]),
        vq_config={"codebook_size": 16, "embed_dim": 4, "latent_channels": 4, "base_channels": 32,
                   "channel_multiplier": [1, 1, 1, 1], "num_res_blocks": 1, "attn_resolutions": [],
                   "temporal_downsample_factor": 4, "hidden_size": 32, "num_attention_heads": 1},
        vocabulary_map={"<image>": ids["<image>"], "<|extra_200|>": ids["<|extra_200|>"], **_ids(tok, *codes)})
    model = kit.seeded(Emu3ForConditionalGeneration, config)
    image_processor = Emu3ImageProcessor(min_pixels=16 * 16, max_pixels=32 * 32, spatial_factor=8)
    processor = Emu3Processor(image_processor=image_processor, tokenizer=tok, chat_template=EMU3_TEMPLATE)
    kit.save_processor(folder, model, processor, eos=ids["<|endoftext|>"], pad=ids["<|endoftext|>"])
    return TinyCheckpoint("emu3", folder, type(model).__name__, "<image>")


FAMILIES: dict[str, Callable[[Path], TinyCheckpoint]] = {
    "aria": aria,
    "chameleon": chameleon,
    "cohere_compass": cohere_compass,
    "cosmos3_edge": cosmos3_edge,
    "dots3_note": dots3_note,
    "emu3": emu3,
    "ernie4_5_vl_moe": ernie4_5_vl_moe,
}
CHATML = "<|im_start|>assistant\n"
TEMPLATE_MARK = {"aria": CHATML, "chameleon": "ASSISTANT:",
                 "cohere_compass": "<|START_OF_TURN_TOKEN|><|CHATBOT_TOKEN|>", "cosmos3_edge": CHATML,
                 "dots3_note": "<|endofuserprompt|><|response|>", "ernie4_5_vl_moe": "\nAssistant: ",
                 "emu3": "ASSISTANT:"}


def build(family: str, folder: Path) -> TinyCheckpoint:
    return FAMILIES[family](Path(folder))
