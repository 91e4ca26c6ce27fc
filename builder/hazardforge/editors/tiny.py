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
