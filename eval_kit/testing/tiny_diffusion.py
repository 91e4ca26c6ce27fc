"""Tiny random-weight diffusers pipelines of the REAL classes, built offline from configs (tests, smoke runs).

Their images are noise, but every code path of the diffusion editors (sizes, masks, generator seeding, paste
back, the pipeline's own argument checks) runs as with the real weights. Tokenizers come from in-memory
vocabularies (no Hub access): CLIP with a character vocabulary and no merges, T5 with a unigram vocabulary.
"""

from __future__ import annotations

import string
from typing import Any

_CHARS = list(string.ascii_lowercase + string.digits + ".,'!?-")


def tiny_clip() -> tuple[Any, Any]:
    from transformers import CLIPTextConfig, CLIPTextModel, CLIPTokenizer

    vocab = {"<|startoftext|>": 0, "<|endoftext|>": 1, "!": 2}
    for ch in _CHARS:
        for piece in (ch, ch + "</w>"):
            vocab.setdefault(piece, len(vocab))
    tokenizer = CLIPTokenizer(vocab=vocab, merges=[], model_max_length=77)
    config = CLIPTextConfig(bos_token_id=0, eos_token_id=1, pad_token_id=1, hidden_size=32, intermediate_size=37,
                            num_attention_heads=4, num_hidden_layers=2, vocab_size=len(vocab), projection_dim=32,
                            max_position_embeddings=77)
    return CLIPTextModel(config).eval(), tokenizer


def tiny_t5() -> tuple[Any, Any]:
    from transformers import T5Config, T5EncoderModel, T5TokenizerFast

    pieces = [("<pad>", 0.0), ("</s>", 0.0), ("<unk>", 0.0), ("▁", -2.0)]
    pieces += [(ch, -3.0) for ch in _CHARS] + [("▁" + ch, -2.5) for ch in _CHARS]
    tokenizer = T5TokenizerFast(vocab=pieces, extra_ids=0, model_max_length=512)
    config = T5Config(vocab_size=len(pieces), d_model=32, d_ff=37, d_kv=8, num_layers=2, num_heads=4,
                      relative_attention_num_buckets=8, pad_token_id=0, eos_token_id=1, decoder_start_token_id=0)
    return T5EncoderModel(config).eval(), tokenizer


def _tiny_flux_parts(in_channels: int, out_channels: int, latent_channels: int) -> dict[str, Any]:
    from diffusers import AutoencoderKL, FlowMatchEulerDiscreteScheduler, FluxTransformer2DModel

    transformer = FluxTransformer2DModel(patch_size=1, in_channels=in_channels, out_channels=out_channels,
                                         num_layers=1, num_single_layers=1, attention_head_dim=16,
                                         num_attention_heads=2, joint_attention_dim=32, pooled_projection_dim=32,
                                         axes_dims_rope=[4, 4, 8])
    vae = AutoencoderKL(sample_size=32, in_channels=3, out_channels=3, block_out_channels=(4,), layers_per_block=1,
                        latent_channels=latent_channels, norm_num_groups=1, use_quant_conv=False,
                        use_post_quant_conv=False, shift_factor=0.0609, scaling_factor=1.5035)
    clip, clip_tok = tiny_clip()
    t5, t5_tok = tiny_t5()
    return {"scheduler": FlowMatchEulerDiscreteScheduler(), "text_encoder": clip, "tokenizer": clip_tok,
            "text_encoder_2": t5, "tokenizer_2": t5_tok, "transformer": transformer.eval(), "vae": vae.eval()}


def tiny_flux_fill(seed: int = 0) -> Any:
    import torch
    from diffusers import FluxFillPipeline

    torch.manual_seed(seed)
    pipe = FluxFillPipeline(**_tiny_flux_parts(in_channels=20, out_channels=8, latent_channels=2))
    pipe.set_progress_bar_config(disable=True)
    return pipe


def tiny_flux_kontext_inpaint(seed: int = 0) -> Any:
    import torch
    from diffusers import FluxKontextInpaintPipeline

    torch.manual_seed(seed)
    pipe = FluxKontextInpaintPipeline(**_tiny_flux_parts(in_channels=4, out_channels=4, latent_channels=1),
                                      image_encoder=None, feature_extractor=None)
    pipe.set_progress_bar_config(disable=True)
    return pipe


def tiny_qwen_image_edit_inpaint(seed: int = 0) -> Any:
    """QwenImageEditInpaintPipeline with a tiny Qwen2.5-VL text encoder and an image-only processor (no
    torchvision). Use it with a small `max_area`: the pipeline otherwise works at ~1 MP."""
    import torch
    from diffusers import (
        AutoencoderKLQwenImage,
        FlowMatchEulerDiscreteScheduler,
        QwenImageEditInpaintPipeline,
        QwenImageTransformer2DModel,
    )
    from transformers import Qwen2_5_VLConfig, Qwen2_5_VLForConditionalGeneration
    from transformers.models.qwen2_vl.image_processing_pil_qwen2_vl import Qwen2VLImageProcessorPil

    from eval_kit.runners.qwen_image_processor import image_only_processor
    from eval_kit.testing.tiny_vlm import SPECIAL_TOKENS, tiny_qwen_tokenizer

    torch.manual_seed(seed)
    tok = tiny_qwen_tokenizer()
    tok.padding_side = "right"
    ids = {t: tok.convert_tokens_to_ids(t) for t in SPECIAL_TOKENS}
    transformer = QwenImageTransformer2DModel(patch_size=2, in_channels=16, out_channels=4, num_layers=1,
                                              attention_head_dim=16, num_attention_heads=2, joint_attention_dim=16,
                                              guidance_embeds=False, axes_dims_rope=(8, 4, 4))
    vae = AutoencoderKLQwenImage(base_dim=24, z_dim=4, dim_mult=[1, 2, 4], num_res_blocks=1,
                                 temperal_downsample=[False, True], latents_mean=[0.0] * 4, latents_std=[1.0] * 4)
    config = Qwen2_5_VLConfig(
        text_config={"vocab_size": len(tok), "hidden_size": 16, "intermediate_size": 16, "num_hidden_layers": 1,
                     "num_attention_heads": 2, "num_key_value_heads": 2,
                     "bos_token_id": None, "eos_token_id": ids["<|im_end|>"],
                     "rope_parameters": {"rope_type": "default", "rope_theta": 1000000.0, "mrope_section": [1, 1, 2]}},
        vision_config={"depth": 1, "hidden_size": 16, "intermediate_size": 16, "num_heads": 2, "out_hidden_size": 16,
                       "patch_size": 14, "spatial_merge_size": 2, "temporal_patch_size": 2},
        image_token_id=ids["<|image_pad|>"], video_token_id=ids["<|video_pad|>"],
        vision_start_token_id=ids["<|vision_start|>"], vision_end_token_id=ids["<|vision_end|>"],
    )
    text_encoder = Qwen2_5_VLForConditionalGeneration(config).eval()
    image_processor = Qwen2VLImageProcessorPil(patch_size=14, temporal_patch_size=2, merge_size=2,
                                               min_pixels=28 * 28, max_pixels=56 * 56)
    processor = image_only_processor(image_processor, tok, family="qwen2_vl")
    pipe = QwenImageEditInpaintPipeline(scheduler=FlowMatchEulerDiscreteScheduler(), vae=vae.eval(),
                                        text_encoder=text_encoder, tokenizer=tok, processor=processor,
                                        transformer=transformer.eval())
    pipe.set_progress_bar_config(disable=True)
    return pipe
