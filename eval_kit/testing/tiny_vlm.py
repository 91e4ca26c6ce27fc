"""A tiny random-weight Qwen3-VL (the real transformers classes) with an in-memory tokenizer, built offline.

For tests and smoke runs only: its answers are noise, but every code path of the VLM checker (chat template,
batched image preprocessing, left-padded greedy generation, decoding) runs exactly as with the real model.
The processor uses the PIL image processor (`Qwen2VLImageProcessorPil`) and no video processor, so it
works without torchvision.
"""

from __future__ import annotations

from typing import Any

from eval_kit.runners.qwen_image_processor import image_only_processor

# Qwen's chat template, reduced to what the checker sends (text and image parts, system-less).
CHAT_TEMPLATE = (
    "{% for message in messages %}<|im_start|>{{ message['role'] }}\n"
    "{% if message['content'] is string %}{{ message['content'] }}{% else %}"
    "{% for part in message['content'] %}{% if part['type'] == 'image' %}"
    "<|vision_start|><|image_pad|><|vision_end|>{% elif part['type'] == 'text' %}{{ part['text'] }}"
    "{% endif %}{% endfor %}{% endif %}<|im_end|>\n{% endfor %}"
    "{% if add_generation_prompt %}<|im_start|>assistant\n{% endif %}"
)
SPECIAL_TOKENS = ["<|im_start|>", "<|im_end|>", "<|vision_start|>", "<|vision_end|>", "<|image_pad|>",
                  "<|video_pad|>", "<|endoftext|>"]


def _byte_alphabet() -> list[str]:
    """GPT-2 byte-level alphabet: 256 printable stand-ins, one per byte, so any text tokenizes."""
    bs = list(range(ord("!"), ord("~") + 1)) + list(range(ord("¡"), ord("¬") + 1)) + list(range(ord("®"), 256))
    cs = bs[:]
    n = 0
    for b in range(256):
        if b not in bs:
            bs.append(b)
            cs.append(256 + n)
            n += 1
    return [chr(c) for c in cs]


def tiny_qwen_tokenizer() -> Any:
    from transformers import Qwen2Tokenizer

    vocab = {ch: i for i, ch in enumerate(_byte_alphabet())}
    tok = Qwen2Tokenizer(vocab=vocab, merges=[], unk_token=None, bos_token=None, eos_token="<|im_end|>",
                         pad_token="<|endoftext|>")
    tok.add_special_tokens({"additional_special_tokens": SPECIAL_TOKENS})
    tok.padding_side = "left"
    return tok


def tiny_qwen3_vl(seed: int = 0) -> tuple[Any, Any]:
    """(model, processor): a Qwen3VLForConditionalGeneration of ~100k parameters and its processor."""
    import torch
    from transformers import Qwen3VLConfig, Qwen3VLForConditionalGeneration
    from transformers.models.qwen2_vl.image_processing_pil_qwen2_vl import Qwen2VLImageProcessorPil

    tok = tiny_qwen_tokenizer()
    ids = {t: tok.convert_tokens_to_ids(t) for t in SPECIAL_TOKENS}
    config = Qwen3VLConfig(
        text_config={"vocab_size": len(tok), "hidden_size": 32, "intermediate_size": 64, "num_hidden_layers": 1,
                     "num_attention_heads": 2, "num_key_value_heads": 1, "head_dim": 16,
                     "rope_parameters": {"rope_type": "default", "rope_theta": 10000.0,
                                         "mrope_section": [2, 3, 3], "mrope_interleaved": True},
                     "max_position_embeddings": 2048, "pad_token_id": ids["<|endoftext|>"]},
        vision_config={"depth": 1, "hidden_size": 32, "intermediate_size": 64, "num_heads": 2, "patch_size": 16,
                       "spatial_merge_size": 2, "temporal_patch_size": 2, "out_hidden_size": 32,
                       "num_position_embeddings": 64, "deepstack_visual_indexes": [0]},
        image_token_id=ids["<|image_pad|>"], video_token_id=ids["<|video_pad|>"],
        vision_start_token_id=ids["<|vision_start|>"], vision_end_token_id=ids["<|vision_end|>"],
    )
    torch.manual_seed(seed)
    model = Qwen3VLForConditionalGeneration(config).eval()
    model.generation_config.eos_token_id = ids["<|im_end|>"]
    model.generation_config.pad_token_id = ids["<|endoftext|>"]
    image_processor = Qwen2VLImageProcessorPil(patch_size=16, temporal_patch_size=2, merge_size=2,
                                               min_pixels=32 * 32, max_pixels=64 * 64)
    processor = image_only_processor(image_processor, tok, CHAT_TEMPLATE)
    return model, processor
