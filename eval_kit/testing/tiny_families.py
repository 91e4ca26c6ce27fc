"""Tiny random-weight checkpoints of every supported model family, built offline from configs.

Each builder makes the REAL transformers model class from a microscopic config (one layer, hidden size 16-32),
the real image processor class (its PIL version, as a machine without torchvision loads it), a byte-level
tokenizer with the family's special tokens, and the family's chat template where the real checkpoint has one
(reduced to text and image parts), and saves them as a checkpoint folder: what `hazardkit eval --backend
transformers --model FOLDER` loads. Video processors are not saved (they need torchvision), as on such a
machine. The answers are noise; every code path (processor, template, image tokens, generation) is real.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from eval_kit.testing.tiny_vlm import _byte_alphabet


@dataclass(frozen=True)
class TinyCheckpoint:
    family: str
    folder: Path
    model_class: str
    image_token: str  # the token the processor expands per image (counted to check images reach the model)
    has_template: bool = True


def _corpus() -> list[str]:
    """The benchmarks' prompt texts: what the tiny tokenizer's merges are learned on, so prompts stay short."""
    from eval_kit.bd_hazardvlm import spec as bd
    from eval_kit.saferelbench import prompts as saferel

    texts = [bd.PROMPT, bd.repair_prompt("{}"), saferel.PRIMITIVES_TEXT, saferel.OUTPUT_TEXT]
    try:
        from eval_kit.movsafebench import spec as movsafe

        texts += [v for v in vars(movsafe).values() if isinstance(v, str) and len(v) > 40]
    except ImportError:
        pass
    return texts


_MERGES: list[tuple[str, str]] | None = None


def _learned_merges() -> list[tuple[str, str]]:
    """Byte-level BPE merges trained (tokenizers, a few ms) on the prompts: 4-5x fewer tokens than bytes."""
    global _MERGES
    if _MERGES is None:
        from tokenizers import Tokenizer, models, pre_tokenizers, trainers

        trainer_tok = Tokenizer(models.BPE())
        trainer_tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
        trainer = trainers.BpeTrainer(vocab_size=1200, initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
                                      show_progress=False)
        trainer_tok.train_from_iterator(_corpus() * 2, trainer=trainer)
        merges = json.loads(trainer_tok.to_str())["model"]["merges"]
        _MERGES = [tuple(m) if isinstance(m, list) else tuple(m.split(" ")) for m in merges]
    return _MERGES


def byte_tokenizer(specials: list[str], *, eos: str, pad: str, bos: str | None = None,
                   named: dict[str, str] | None = None, template: str | None = None) -> Any:
    """A byte-level BPE Qwen2Tokenizer (merges learned on the benchmarks' prompts) plus `specials` (and `named`
    special tokens, e.g. `{"image_token": "<image>"}`, which become tokenizer attributes as the real
    checkpoints declare them)."""
    from transformers import Qwen2Tokenizer

    vocab = {ch: i for i, ch in enumerate(_byte_alphabet())}
    merges = _learned_merges()
    for left, right in merges:
        vocab.setdefault(left + right, len(vocab))
    tok = Qwen2Tokenizer(vocab=vocab, merges=merges, unk_token=None, bos_token=bos, eos_token=eos, pad_token=pad,
                         extra_special_tokens=dict(named or {}))
    extra = [s for s in specials if s not in tok.get_vocab()]
    if extra:
        tok.add_special_tokens({"additional_special_tokens": extra})
    tok.padding_side = "left"
    if template is not None:
        tok.chat_template = template
    return tok


def _ids(tok: Any, *tokens: str) -> dict[str, int]:
    return {t: tok.convert_tokens_to_ids(t) for t in tokens}


def _save(folder: Path, model: Any, tok: Any, image_processor: Any, *, template: str | None = None,
          processor_config: dict[str, Any] | None = None, eos: int | None = None, pad: int | None = None) -> None:
    import torch

    folder.mkdir(parents=True, exist_ok=True)
    if eos is not None:
        model.generation_config.eos_token_id = eos
    if pad is not None:
        model.generation_config.pad_token_id = pad
    with torch.no_grad():
        model.save_pretrained(folder)
    tok.save_pretrained(folder)
    image_processor.save_pretrained(folder)
    if template is not None:
        (folder / "chat_template.jinja").write_text(template)
    if processor_config is not None:
        (folder / "processor_config.json").write_text(json.dumps(processor_config, indent=2))


def _text(**overrides: Any) -> dict[str, Any]:
    """A one-layer decoder config (Llama/Qwen2 style)."""
    config = {"hidden_size": 32, "intermediate_size": 64, "num_hidden_layers": 1, "num_attention_heads": 2,
              "num_key_value_heads": 1, "max_position_embeddings": 4096}
    config.update(overrides)
    return config


def llama_text(tok: Any, pad: int, **overrides: Any) -> dict[str, Any]:
    """`_text` as a Llama text config sized to `tok` (the LLaVA-family builders' language model)."""
    return {"model_type": "llama", **_text(vocab_size=len(tok), pad_token_id=pad, **overrides)}


def seeded(model_class: Callable[[Any], Any], config: Any) -> Any:
    """The model of `config` with the builders' fixed random weights (seed 0), in eval mode."""
    import torch

    torch.manual_seed(0)
    return model_class(config).eval()


def save_processor(folder: Path, model: Any, processor: Any, *, eos: int, pad: int) -> None:
    """Save `model` and a processor object built whole (tokenizer, image processor and template inside)."""
    folder.mkdir(parents=True, exist_ok=True)
    model.generation_config.eos_token_id, model.generation_config.pad_token_id = eos, pad
    model.save_pretrained(folder)
    processor.save_pretrained(folder)


def qwen2vl_image_processor(patch: int, temporal: int = 2) -> Any:
    """Qwen2-VL's PIL image processor: `patch`-px patches merged 2x2, one to four merged tokens an image."""
    from transformers.models.qwen2_vl.image_processing_pil_qwen2_vl import Qwen2VLImageProcessorPil

    merge = patch * 2
    return Qwen2VLImageProcessorPil(patch_size=patch, merge_size=2, temporal_patch_size=temporal,
                                    min_pixels=merge * merge, max_pixels=4 * merge * merge)


# LLaVA's family: a 28-px CLIP tower and a vicuna tokenizer (<image>, and <video> for the video variants)
CLIP_28 = {"model_type": "clip_vision_model", "hidden_size": 32, "intermediate_size": 64, "num_hidden_layers": 2,
           "num_attention_heads": 2, "image_size": 28, "patch_size": 14, "projection_dim": 32}


def llava_processor(tok: Any, template: str) -> Any:
    """LlavaProcessor over CLIP's PIL image processor for 28-px images in 14-px patches (+ CLIP's class token)."""
    from transformers import LlavaProcessor
    from transformers.models.clip.image_processing_pil_clip import CLIPImageProcessorPil

    image_processor = CLIPImageProcessorPil(size={"shortest_edge": 28}, crop_size={"height": 28, "width": 28})
    return LlavaProcessor(image_processor=image_processor, tokenizer=tok, patch_size=14,
                          vision_feature_select_strategy="default", chat_template=template,
                          num_additional_image_tokens=1)


def vicuna_tokenizer(template: str | None, *, video: bool = False) -> tuple[Any, dict[str, int]]:
    """The byte tokenizer with vicuna's specials (</s> ends a turn, <unk> pads) and their ids."""
    specials = ["<image>", *(["<video>"] if video else []), "</s>", "<unk>", "<s>"]
    tok = byte_tokenizer(specials, eos="</s>", pad="<unk>", bos="<s>", template=template)
    return tok, _ids(tok, *specials)


# ---- chat templates (reduced to text and image parts, the shape of each real one) -------------------------
CHATML_IMAGE = (
    "{% for m in messages %}<|im_start|>{{ m['role'] }}\n{% if m['content'] is string %}{{ m['content'] }}"
    "{% else %}{% for c in m['content'] %}{% if c['type'] == 'image' %}{{ IMAGE }}"
    "{% else %}{{ c['text'] }}{% endif %}{% endfor %}{% endif %}<|im_end|>\n{% endfor %}"
    "{% if add_generation_prompt %}<|im_start|>assistant\n{% endif %}"
)


def chatml(image: str) -> str:
    return CHATML_IMAGE.replace("{{ IMAGE }}", image)


VICUNA = (  # llava-v1.6-vicuna: "USER: <image>\n... ASSISTANT:"
    "{% for m in messages %}{% if m['role'] == 'user' %}USER: {% else %}ASSISTANT: {% endif %}"
    "{% if m['content'] is string %}{{ m['content'] }}{% else %}{% for c in m['content'] %}"
    "{% if c['type'] == 'image' %}<image>\n{% else %}{{ c['text'] }}{% endif %}{% endfor %}{% endif %}"
    "{% if m['role'] == 'user' %} {% else %}</s>{% endif %}{% endfor %}"
    "{% if add_generation_prompt %}ASSISTANT:{% endif %}"
)
PHI4 = (  # Phi-4-multimodal: <|user|><|image|>text<|end|><|assistant|>
    "{% for m in messages %}<|{{ m['role'] }}|>{% if m['content'] is string %}{{ m['content'] }}{% else %}"
    "{% for c in m['content'] %}{% if c['type'] == 'image' %}<|image|>{% else %}{{ c['text'] }}{% endif %}"
    "{% endfor %}{% endif %}<|end|>{% endfor %}{% if add_generation_prompt %}<|assistant|>{% endif %}"
)
GEMMA3 = (
    "{{ bos_token }}{% for m in messages %}<start_of_turn>{{ 'model' if m['role'] == 'assistant' else m['role'] }}\n"
    "{% if m['content'] is string %}{{ m['content'] }}{% else %}{% for c in m['content'] %}"
    "{% if c['type'] == 'image' %}<start_of_image>{% else %}{{ c['text'] }}{% endif %}{% endfor %}{% endif %}"
    "<end_of_turn>\n{% endfor %}{% if add_generation_prompt %}<start_of_turn>model\n{% endif %}"
)
IDEFICS3 = (  # Idefics3 / SmolVLM: "User:<image>text<end_of_utterance>\nAssistant:"
    "<|im_start|>{% for m in messages %}{{ m['role'] | capitalize }}:{% if m['content'] is string %}"
    "{{ m['content'] }}{% else %}{% for c in m['content'] %}{% if c['type'] == 'image' %}<image>{% else %}"
    "{{ c['text'] }}{% endif %}{% endfor %}{% endif %}<end_of_utterance>\n{% endfor %}"
    "{% if add_generation_prompt %}Assistant:{% endif %}"
)

QWEN_SPECIALS = ["<|im_start|>", "<|im_end|>", "<|vision_start|>", "<|vision_end|>", "<|image_pad|>",
                 "<|video_pad|>", "<|endoftext|>"]


def _qwen_vl(folder: Path, family: str) -> TinyCheckpoint:
    import transformers

    template = chatml("<|vision_start|><|image_pad|><|vision_end|>")
    tok = byte_tokenizer(QWEN_SPECIALS, eos="<|im_end|>", pad="<|endoftext|>", template=template)
    ids = _ids(tok, *QWEN_SPECIALS)
    tokens = {"image_token_id": ids["<|image_pad|>"], "video_token_id": ids["<|video_pad|>"],
              "vision_start_token_id": ids["<|vision_start|>"], "vision_end_token_id": ids["<|vision_end|>"]}
    if family in ("qwen3_vl", "qwen3_vl_moe"):
        text = _text(vocab_size=len(tok), head_dim=16, pad_token_id=ids["<|endoftext|>"],
                     rope_parameters={"rope_type": "default", "rope_theta": 10000.0, "mrope_section": [2, 3, 3],
                                      "mrope_interleaved": True})
        if family == "qwen3_vl_moe":
            text.update(num_experts=4, num_experts_per_tok=2, moe_intermediate_size=16, decoder_sparse_step=1)
        vision = {"depth": 1, "hidden_size": 32, "intermediate_size": 64, "num_heads": 2, "patch_size": 16,
                  "spatial_merge_size": 2, "temporal_patch_size": 2, "out_hidden_size": 32,
                  "num_position_embeddings": 64, "deepstack_visual_indexes": [0]}
        patch = 16
        name = "Qwen3VLMoe" if family == "qwen3_vl_moe" else "Qwen3VL"
    else:
        text = _text(vocab_size=len(tok), pad_token_id=ids["<|endoftext|>"], eos_token_id=ids["<|im_end|>"],
                     rope_scaling={"type": "mrope", "mrope_section": [2, 3, 3]})
        vision = {"depth": 1, "num_heads": 2, "patch_size": 14, "spatial_merge_size": 2, "temporal_patch_size": 2}
        if family == "qwen2_5_vl":
            vision.update(hidden_size=32, intermediate_size=64, out_hidden_size=32, fullatt_block_indexes=[0],
                          window_size=28)
            name = "Qwen2_5_VL"
        else:
            vision.update(embed_dim=32, hidden_size=32, mlp_ratio=2)
            name = "Qwen2VL"
        patch = 14
    config = getattr(transformers, f"{name}Config")(text_config=text, vision_config=vision, **tokens)
    model = seeded(getattr(transformers, f"{name}ForConditionalGeneration"), config)
    _save(folder, model, tok, qwen2vl_image_processor(patch), template=template, eos=ids["<|im_end|>"],
          pad=ids["<|endoftext|>"])
    return TinyCheckpoint(family, folder, type(model).__name__, "<|image_pad|>")


def qwen2_5_vl(folder: Path) -> TinyCheckpoint:
    return _qwen_vl(folder, "qwen2_5_vl")


def qwen2_vl(folder: Path) -> TinyCheckpoint:
    return _qwen_vl(folder, "qwen2_vl")


def qwen3_vl_moe(folder: Path) -> TinyCheckpoint:
    return _qwen_vl(folder, "qwen3_vl_moe")


def internvl(folder: Path) -> TinyCheckpoint:
    """InternVL3 / InternVL3.5 (`-hf` checkpoints): 448-px tiles in the real one, 28-px tiles here."""
    from transformers import InternVLConfig, InternVLForConditionalGeneration
    from transformers.models.got_ocr2.image_processing_pil_got_ocr2 import GotOcr2ImageProcessorPil

    named = {"start_image_token": "<img>", "end_image_token": "</img>", "context_image_token": "<IMG_CONTEXT>",
             "video_token": "<video>"}
    template = chatml("<IMG_CONTEXT>\n")
    tok = byte_tokenizer(["<|im_start|>", "<|im_end|>", "<|endoftext|>", "<image>"], eos="<|im_end|>",
                         pad="<|endoftext|>", named=named, template=template)
    ids = _ids(tok, "<IMG_CONTEXT>", "<|im_end|>", "<|endoftext|>")
    # 28-px tiles of 14-px patches: 4 patches, pixel-shuffled by 0.5 -> 1 token per tile
    config = InternVLConfig(
        vision_config={"hidden_size": 32, "num_hidden_layers": 1, "num_attention_heads": 2, "intermediate_size": 64,
                       "image_size": [28, 28], "patch_size": [14, 14]},
        text_config={"model_type": "qwen2", **_text(vocab_size=len(tok), pad_token_id=ids["<|endoftext|>"])},
        image_token_id=ids["<IMG_CONTEXT>"], image_seq_length=1, downsample_ratio=0.5)
    model = seeded(InternVLForConditionalGeneration, config)
    image_processor = GotOcr2ImageProcessorPil(size={"height": 28, "width": 28}, crop_to_patches=True,
                                               min_patches=1, max_patches=4)
    _save(folder, model, tok, image_processor, template=template, eos=ids["<|im_end|>"], pad=ids["<|endoftext|>"],
          processor_config={"processor_class": "InternVLProcessor", "image_seq_length": 1})
    return TinyCheckpoint("internvl", folder, type(model).__name__, "<IMG_CONTEXT>")


def llava_next(folder: Path) -> TinyCheckpoint:
    """LLaVA-NeXT (llava-v1.6-vicuna): CLIP vision tower, Llama text, anyres grid of 28-px tiles here."""
    from transformers import LlavaNextConfig, LlavaNextForConditionalGeneration, LlavaNextProcessor
    from transformers.models.llava_next.image_processing_pil_llava_next import LlavaNextImageProcessorPil

    tok, ids = vicuna_tokenizer(VICUNA)
    pinpoints = [[28, 28], [28, 56], [56, 28]]
    config = LlavaNextConfig(
        vision_config=CLIP_28, text_config=llama_text(tok, ids["<unk>"]),
        image_token_index=ids["<image>"], image_grid_pinpoints=pinpoints, vision_feature_layer=-1,
        image_seq_length=4)
    model = seeded(LlavaNextForConditionalGeneration, config)
    image_processor = LlavaNextImageProcessorPil(size={"shortest_edge": 28}, crop_size={"height": 28, "width": 28},
                                                 image_grid_pinpoints=pinpoints)
    processor = LlavaNextProcessor(image_processor=image_processor, tokenizer=tok, patch_size=14,
                                   vision_feature_select_strategy="default", chat_template=VICUNA,
                                   num_additional_image_tokens=1)  # CLIP's class token, as the real config
    save_processor(folder, model, processor, eos=ids["</s>"], pad=ids["<unk>"])
    return TinyCheckpoint("llava_next", folder, type(model).__name__, "<image>")


def paligemma(folder: Path) -> TinyCheckpoint:
    """PaliGemma 2: SigLIP vision tower, Gemma 2 text, no chat template (its own prefix format)."""
    from transformers import PaliGemmaConfig, PaliGemmaForConditionalGeneration, PaliGemmaProcessor
    from transformers.models.siglip.image_processing_pil_siglip import SiglipImageProcessorPil

    tok = byte_tokenizer(["<image>", "<bos>", "<eos>", "<pad>"], eos="<eos>", pad="<pad>", bos="<bos>",
                         named={"image_token": "<image>"})
    image_processor = SiglipImageProcessorPil(size={"height": 28, "width": 28})
    image_processor.image_seq_length = 4  # (28 / 14) ** 2 patches
    processor = PaliGemmaProcessor(image_processor=image_processor, tokenizer=tok)  # adds its loc/seg tokens
    ids = _ids(tok, "<image>", "<eos>", "<pad>", "<bos>")
    config = PaliGemmaConfig(
        vision_config={"model_type": "siglip_vision_model", "hidden_size": 32, "intermediate_size": 64,
                       "num_hidden_layers": 1, "num_attention_heads": 2, "image_size": 28, "patch_size": 14,
                       "projection_dim": 32},
        text_config={"model_type": "gemma2", **_text(vocab_size=len(tok), head_dim=16, pad_token_id=ids["<pad>"],
                                                     bos_token_id=ids["<bos>"], eos_token_id=ids["<eos>"],
                                                     query_pre_attn_scalar=16, sliding_window=64)},
        image_token_index=ids["<image>"], projection_dim=32, hidden_size=32, vocab_size=len(tok))
    model = seeded(PaliGemmaForConditionalGeneration, config)
    save_processor(folder, model, processor, eos=ids["<eos>"], pad=ids["<pad>"])
    return TinyCheckpoint("paligemma", folder, type(model).__name__, "<image>", has_template=False)


MINICPM_TOKENS = {"image_token": "<|image_pad|>", "video_token": "<|video_pad|>", "image_start_token": "<image>",
                  "image_end_token": "</image>", "slice_start_token": "<slice>", "slice_end_token": "</slice>",
                  "image_id_start_token": "<image_id>", "image_id_end_token": "</image_id>"}


def minicpm_v(folder: Path) -> TinyCheckpoint:
    """MiniCPM-V-4.6: SigLIP-style vision tower with a window merger, Qwen3.5 text; 56-px slices here."""
    from transformers import MiniCPMV4_6Config, MiniCPMV4_6ForConditionalGeneration
    from transformers.models.minicpmv4_6.image_processing_pil_minicpmv4_6 import MiniCPMV4_6ImageProcessorPil

    template = chatml("<|image_pad|>\n")
    tok = byte_tokenizer(["<|im_start|>", "<|im_end|>", "<|endoftext|>"], eos="<|im_end|>", pad="<|endoftext|>",
                         named=MINICPM_TOKENS, template=template)
    ids = _ids(tok, "<|image_pad|>", "<|video_pad|>", "<|im_end|>", "<|endoftext|>")
    config = MiniCPMV4_6Config(
        text_config={"model_type": "qwen3_5_text", **_text(vocab_size=len(tok), head_dim=16,
                                                           pad_token_id=ids["<|endoftext|>"],
                                                           layer_types=["full_attention"])},
        vision_config={"hidden_size": 32, "intermediate_size": 64, "num_hidden_layers": 1, "num_attention_heads": 2,
                       "image_size": 56, "patch_size": 14},
        insert_layer_id=0, image_size=56, image_token_id=ids["<|image_pad|>"], video_token_id=ids["<|video_pad|>"])
    model = seeded(MiniCPMV4_6ForConditionalGeneration, config)
    image_processor = MiniCPMV4_6ImageProcessorPil(scale_resolution=56, patch_size=14, max_slice_nums=4)
    _save(folder, model, tok, image_processor, template=template, eos=ids["<|im_end|>"], pad=ids["<|endoftext|>"],
          processor_config={"processor_class": "MiniCPMV4_6Processor"})
    return TinyCheckpoint("minicpm_v", folder, type(model).__name__, "<|image_pad|>")


def phi4_multimodal(folder: Path) -> TinyCheckpoint:
    """Phi-4-multimodal (`Phi4MultimodalForCausalLM`, loaded by AutoModelForCausalLM): 448-px crops as the
    real one (its image token count is fixed by them), a 1-layer vision tower and audio encoder of width 16."""
    from transformers import Phi4MultimodalConfig, Phi4MultimodalForCausalLM

    from eval_kit.runners.phi4_image_processor import processor_class

    tok = byte_tokenizer(["<|user|>", "<|assistant|>", "<|end|>", "<|endoftext|>"], eos="<|end|>",
                         pad="<|endoftext|>", named={"image_token": "<|image|>", "audio_token": "<|audio|>"},
                         template=PHI4)
    ids = _ids(tok, "<|image|>", "<|audio|>", "<|end|>", "<|endoftext|>")
    config = Phi4MultimodalConfig(
        **_text(vocab_size=len(tok), pad_token_id=ids["<|endoftext|>"], bos_token_id=ids["<|endoftext|>"],
                eos_token_id=ids["<|end|>"]),
        vision_config={"hidden_size": 16, "intermediate_size": 32, "num_hidden_layers": 1, "num_attention_heads": 2,
                       "image_size": 448, "patch_size": 14, "crop_size": 448, "image_token_id": ids["<|image|>"],
                       "feature_layer": -1},
        audio_config={"hidden_size": 16, "intermediate_size": 32, "num_blocks": 1, "num_attention_heads": 2,
                      "ext_pw_out_channel": 16, "depthwise_separable_out_channel": 16, "nemo_conv_channels": 16,
                      "audio_token_id": ids["<|audio|>"]})
    model = seeded(Phi4MultimodalForCausalLM, config)
    image_processor = processor_class()(size={"height": 448, "width": 448}, dynamic_hd=4)
    _save(folder, model, tok, image_processor, template=PHI4, eos=ids["<|end|>"], pad=ids["<|endoftext|>"],
          processor_config={"processor_class": "Phi4MultimodalProcessor"})
    config_file = folder / "preprocessor_config.json"  # named as the real checkpoint names its processor
    saved = json.loads(config_file.read_text())
    saved["image_processor_type"] = "Phi4MultimodalImageProcessor"
    config_file.write_text(json.dumps(saved, indent=2))
    return TinyCheckpoint("phi4_multimodal", folder, type(model).__name__, "<|image|>")


def gemma3(folder: Path) -> TinyCheckpoint:
    """Gemma 3 (4B and up): SigLIP vision tower, pooled to `mm_tokens_per_image` tokens; Gemma 3 text."""
    from transformers import Gemma3Config, Gemma3ForConditionalGeneration, Gemma3Processor
    from transformers.models.gemma3.image_processing_pil_gemma3 import Gemma3ImageProcessorPil

    named = {"boi_token": "<start_of_image>", "eoi_token": "<end_of_image>", "image_token": "<image_soft_token>"}
    tok = byte_tokenizer(["<start_of_turn>", "<end_of_turn>", "<bos>", "<eos>", "<pad>"], eos="<end_of_turn>",
                         pad="<pad>", bos="<bos>", named=named, template=GEMMA3)
    ids = _ids(tok, "<start_of_image>", "<end_of_image>", "<image_soft_token>", "<end_of_turn>", "<pad>", "<bos>")
    config = Gemma3Config(
        text_config={"model_type": "gemma3_text", **_text(vocab_size=len(tok), head_dim=16, query_pre_attn_scalar=16,
                                                          sliding_window=64, layer_types=["full_attention"],
                                                          pad_token_id=ids["<pad>"], bos_token_id=ids["<bos>"],
                                                          eos_token_id=ids["<end_of_turn>"])},
        vision_config={"model_type": "siglip_vision_model", "hidden_size": 32, "intermediate_size": 64,
                       "num_hidden_layers": 1, "num_attention_heads": 2, "image_size": 28, "patch_size": 14},
        mm_tokens_per_image=1, boi_token_index=ids["<start_of_image>"], eoi_token_index=ids["<end_of_image>"],
        image_token_index=ids["<image_soft_token>"])
    model = seeded(Gemma3ForConditionalGeneration, config)
    image_processor = Gemma3ImageProcessorPil(size={"height": 28, "width": 28})
    processor = Gemma3Processor(image_processor=image_processor, tokenizer=tok, chat_template=GEMMA3,
                                image_seq_length=1)
    save_processor(folder, model, processor, eos=ids["<end_of_turn>"], pad=ids["<pad>"])
    return TinyCheckpoint("gemma3", folder, type(model).__name__, "<image_soft_token>")


def _idefics3_like(folder: Path, family: str) -> TinyCheckpoint:
    import transformers

    rows = [f"<row_{i + 1}_col_{j + 1}>" for i in range(6) for j in range(6)]
    specials = ["<fake_token_around_image>", "<image>", "<end_of_utterance>", "<global-img>", "<|im_start|>",
                "<|endoftext|>", *rows]
    tok = byte_tokenizer(specials, eos="<end_of_utterance>", pad="<|endoftext|>", template=IDEFICS3)
    ids = _ids(tok, "<image>", "<end_of_utterance>", "<|endoftext|>")
    name = "SmolVLM" if family == "smolvlm" else "Idefics3"
    config = getattr(transformers, f"{name}Config")(
        vision_config={"hidden_size": 32, "intermediate_size": 64, "num_hidden_layers": 1, "num_attention_heads": 2,
                       "image_size": 28, "patch_size": 14},
        text_config={"model_type": "llama", **_text(vocab_size=len(tok), pad_token_id=ids["<|endoftext|>"])},
        scale_factor=2, image_token_id=ids["<image>"])
    model = seeded(getattr(transformers, f"{name}ForConditionalGeneration"), config)
    module = getattr(transformers.models, family)
    image_processor = getattr(getattr(module, f"image_processing_pil_{family}"), f"{name}ImageProcessorPil")(
        size={"longest_edge": 56}, max_image_size={"longest_edge": 28}, do_image_splitting=True)
    _save(folder, model, tok, image_processor, template=IDEFICS3, eos=ids["<end_of_utterance>"],
          pad=ids["<|endoftext|>"], processor_config={"processor_class": f"{name}Processor", "image_seq_len": 1})
    return TinyCheckpoint(family, folder, type(model).__name__, "<image>")


def idefics3(folder: Path) -> TinyCheckpoint:
    return _idefics3_like(folder, "idefics3")


def smolvlm(folder: Path) -> TinyCheckpoint:
    """SmolVLM (Idefics3's successor); its processor needs the `num2words` package (the models extra)."""
    return _idefics3_like(folder, "smolvlm")


def llava_onevision(folder: Path) -> TinyCheckpoint:
    """LLaVA-OneVision: SigLIP vision tower, Qwen2 text, anyres grid of 28-px tiles here."""
    from transformers import LlavaOnevisionConfig, LlavaOnevisionForConditionalGeneration
    from transformers.models.llava_onevision.image_processing_pil_llava_onevision import (
        LlavaOnevisionImageProcessorPil,
    )

    template = chatml("<image>\n")
    tok = byte_tokenizer(["<|im_start|>", "<|im_end|>", "<|endoftext|>", "<image>", "<video>"], eos="<|im_end|>",
                         pad="<|endoftext|>", template=template)
    ids = _ids(tok, "<image>", "<video>", "<|im_end|>", "<|endoftext|>")
    pinpoints = [[28, 28], [28, 56], [56, 28], [56, 56]]
    config = LlavaOnevisionConfig(
        vision_config={"model_type": "siglip_vision_model", "hidden_size": 32, "intermediate_size": 64,
                       "num_hidden_layers": 1, "num_attention_heads": 2, "image_size": 28, "patch_size": 14},
        text_config={"model_type": "qwen2", **_text(vocab_size=len(tok), pad_token_id=ids["<|endoftext|>"])},
        image_token_index=ids["<image>"], video_token_index=ids["<video>"], image_grid_pinpoints=pinpoints,
        vision_aspect_ratio="anyres_max_9")
    model = seeded(LlavaOnevisionForConditionalGeneration, config)
    image_processor = LlavaOnevisionImageProcessorPil(size={"height": 28, "width": 28}, image_grid_pinpoints=pinpoints)
    _save(folder, model, tok, image_processor, template=template, eos=ids["<|im_end|>"], pad=ids["<|endoftext|>"],
          processor_config={"processor_class": "LlavaOnevisionProcessor", "num_image_tokens": 4,
                            "vision_feature_select_strategy": "full", "vision_aspect_ratio": "anyres_max_9"})
    return TinyCheckpoint("llava_onevision", folder, type(model).__name__, "<image>")


MISTRAL = (  # Mistral-Small-3.1 / Pixtral: [INST]<image parts>text[/INST]
    "{{ bos_token }}{% for m in messages %}{% if m['role'] == 'user' %}[INST]{% if m['content'] is string %}"
    "{{ m['content'] }}{% else %}{% for c in m['content'] %}{% if c['type'] == 'image' %}[IMG]{% else %}"
    "{{ c['text'] }}{% endif %}{% endfor %}{% endif %}[/INST]{% else %}{% if m['content'] is string %}"
    "{{ m['content'] }}{% else %}{% for c in m['content'] %}{{ c['text'] }}{% endfor %}{% endif %}</s>"
    "{% endif %}{% endfor %}"
)


PIXTRAL_SPECIALS = ["[INST]", "[/INST]", "[IMG]", "[IMG_BREAK]", "[IMG_END]", "<s>", "</s>", "<pad>"]


def pixtral_tokenizer() -> tuple[Any, dict[str, int]]:
    """The tokenizer of a checkpoint with Pixtral's processor (Mistral 3, Mistral Large 4) and its token ids."""
    tok = byte_tokenizer(PIXTRAL_SPECIALS, eos="</s>", pad="<pad>", bos="<s>", template=MISTRAL)
    return tok, _ids(tok, "[IMG]", "</s>", "<pad>", "<s>")


def save_pixtral(folder: Path, model: Any, tok: Any, ids: dict[str, int], family: str) -> TinyCheckpoint:
    """Save `model` with Pixtral's processor (its PIL image processor, longest edge 56 px, 14-px patches, 2x2
    merge) and the Mistral template: the checkpoint of a family whose processor is Pixtral's."""
    from transformers.models.pixtral.image_processing_pil_pixtral import PixtralImageProcessorPil

    from eval_kit.runners.pixtral_processor import processor_class

    image_processor = PixtralImageProcessorPil(size={"longest_edge": 56}, patch_size={"height": 14, "width": 14})
    processor = processor_class()(image_processor=image_processor, tokenizer=tok, patch_size=14, spatial_merge_size=2,
                                 image_token="[IMG]", image_break_token="[IMG_BREAK]", image_end_token="[IMG_END]",
                                 chat_template=MISTRAL)
    save_processor(folder, model, processor, eos=ids["</s>"], pad=ids["<pad>"])
    return TinyCheckpoint(family, folder, type(model).__name__, "[IMG]")


def mistral3(folder: Path) -> TinyCheckpoint:
    """Mistral 3 (Mistral-Small-3.1): a Pixtral vision tower (14-px patches, 2x2 merge), Mistral text; Pixtral's
    processor with its PIL image processor (longest edge 56 px here)."""
    from transformers import Mistral3Config, Mistral3ForConditionalGeneration

    tok, ids = pixtral_tokenizer()
    config = Mistral3Config(
        vision_config={"model_type": "pixtral", "hidden_size": 32, "intermediate_size": 64, "num_hidden_layers": 1,
                       "num_attention_heads": 2, "head_dim": 16, "image_size": 56, "patch_size": 14},
        text_config={"model_type": "mistral", **_text(vocab_size=len(tok), head_dim=16, pad_token_id=ids["<pad>"],
                                                      bos_token_id=ids["<s>"], eos_token_id=ids["</s>"])},
        image_token_index=ids["[IMG]"], spatial_merge_size=2, vision_feature_layer=-1)
    return save_pixtral(folder, seeded(Mistral3ForConditionalGeneration, config), tok, ids, "mistral3")


def llava(folder: Path) -> TinyCheckpoint:
    """LLaVA-1.5: CLIP vision tower (28-px images here), Llama text, a fixed number of image tokens."""
    from transformers import LlavaConfig, LlavaForConditionalGeneration

    tok, ids = vicuna_tokenizer(VICUNA)
    config = LlavaConfig(
        vision_config=CLIP_28, text_config=llama_text(tok, ids["<unk>"]),
        image_token_index=ids["<image>"], vision_feature_layer=-1, image_seq_length=4)
    model = seeded(LlavaForConditionalGeneration, config)
    processor = llava_processor(tok, VICUNA)
    save_processor(folder, model, processor, eos=ids["</s>"], pad=ids["<unk>"])
    return TinyCheckpoint("llava", folder, type(model).__name__, "<image>")


def qwen3_vl(folder: Path) -> TinyCheckpoint:
    return _qwen_vl(folder, "qwen3_vl")


# Qwen3's own template reads `message.content` as a string (a text LLM's template): no image parts
QWEN3_TEXT = (
    "{% for m in messages %}<|im_start|>{{ m['role'] }}\n{{ m['content'] }}<|im_end|>\n{% endfor %}"
    "{% if add_generation_prompt %}<|im_start|>assistant\n{% endif %}"
)


def qwen3_text(folder: Path) -> TinyCheckpoint:
    """A text-only causal LM (`Qwen3ForCausalLM`, the SafeRel paper's Qwen3-8B/32B class) with Qwen3's chat
    template shape: what `eval saferelbench --backend transformers` runs and image benchmarks refuse."""
    from transformers import Qwen3Config, Qwen3ForCausalLM

    tok = byte_tokenizer(["<|im_start|>", "<|im_end|>", "<|endoftext|>"], eos="<|im_end|>", pad="<|endoftext|>",
                         template=QWEN3_TEXT)
    ids = _ids(tok, "<|im_end|>", "<|endoftext|>")
    config = Qwen3Config(**_text(vocab_size=len(tok), head_dim=16, pad_token_id=ids["<|endoftext|>"],
                                 eos_token_id=ids["<|im_end|>"]))
    model = seeded(Qwen3ForCausalLM, config)
    folder.mkdir(parents=True, exist_ok=True)
    model.generation_config.eos_token_id, model.generation_config.pad_token_id = ids["<|im_end|>"], ids["<|endoftext|>"]
    model.save_pretrained(folder)
    tok.save_pretrained(folder)
    return TinyCheckpoint("qwen3_text", folder, type(model).__name__, "", has_template=True)


def config_only(model_type: str, folder: Path) -> Path:
    """A folder with only the family's default config.json: enough for a refusal that happens before any
    processor or weight loads (what `eval` must do for a family that cannot run)."""
    from transformers import AutoConfig

    folder.mkdir(parents=True, exist_ok=True)
    AutoConfig.for_model(model_type).save_pretrained(folder)
    return folder


FAMILIES: dict[str, Callable[[Path], TinyCheckpoint]] = {
    "qwen2_5_vl": qwen2_5_vl,
    "qwen2_vl": qwen2_vl,
    "qwen3_vl_moe": qwen3_vl_moe,
    "internvl": internvl,
    "llava_next": llava_next,
    "paligemma": paligemma,
    "minicpm_v": minicpm_v,
    "phi4_multimodal": phi4_multimodal,
    "gemma3": gemma3,
    "idefics3": idefics3,
    "llava_onevision": llava_onevision,
    "smolvlm": smolvlm,  # its processor needs num2words (in the models and dev extras)
    "mistral3": mistral3,
    "llava": llava,
    "qwen3_vl": qwen3_vl,
}


def build(family: str, folder: Path) -> TinyCheckpoint:
    return FAMILIES[family](Path(folder))


REMOTE_CONFIG = '''from transformers import LlavaConfig


class TinyRemoteConfig(LlavaConfig):
    model_type = "tiny_remote_llava"
'''
REMOTE_MODEL = '''from transformers import LlavaForConditionalGeneration

from .configuration_tiny_remote import TinyRemoteConfig


class TinyRemoteForConditionalGeneration(LlavaForConditionalGeneration):
    config_class = TinyRemoteConfig
'''


def remote_code(folder: Path) -> TinyCheckpoint:
    """A checkpoint with its own code (config.json's `auto_map`: a LLaVA-1.5 subclass in the folder), as the
    original InternVL / MiniCPM-V / Phi-4 releases ship: runs only with `--model-args trust_remote_code=true`."""
    checkpoint = llava(folder)
    (folder / "configuration_tiny_remote.py").write_text(REMOTE_CONFIG)
    (folder / "modeling_tiny_remote.py").write_text(REMOTE_MODEL)
    config_file = folder / "config.json"
    config = json.loads(config_file.read_text())
    config.update(model_type="tiny_remote_llava", architectures=["TinyRemoteForConditionalGeneration"],
                  auto_map={"AutoConfig": "configuration_tiny_remote.TinyRemoteConfig",
                            "AutoModelForImageTextToText": "modeling_tiny_remote.TinyRemoteForConditionalGeneration"})
    config_file.write_text(json.dumps(config, indent=2))
    return TinyCheckpoint("remote_code", folder, "TinyRemoteForConditionalGeneration", checkpoint.image_token)
