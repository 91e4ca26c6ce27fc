"""Every native transformers vision-language family, and what `eval --backend transformers` does with it.

The families are the model types behind `AutoModelForImageTextToText` and `AutoModelForMultimodalLM` in the
installed transformers (`native_families()` reads the auto mappings, so a transformers upgrade that adds one
shows up in `tests/test_model_families.py`). Each is in `FAMILIES`: it runs on all three benchmarks, or it is
refused before any weight or processor loads, with one line naming the real cause and the fix (exit 2). A
family that needs an optional package (SmolVLM's processor: num2words; Gemma 3n's vision tower: timm) runs
when the package is installed and is refused naming it otherwise. A family whose generate() cannot run
without pixels (InstructBLIP: `text_placeholder`) gets one uniform grey placeholder image on each prompt of a
text-only benchmark (SafeRelBench), said at run start and recorded in metadata.json.
`docs/model-families.md` is generated from this table (`python -m eval_kit.runners.family_docs`), so the page
and the code cannot disagree.
"""

from __future__ import annotations

import importlib.util
from dataclasses import dataclass
from typing import Any

from eval_kit.errors import BadInput


@dataclass(frozen=True)
class Family:
    """`refused`: why the family cannot run here (None: it runs); `needs`: packages it imports at load time."""

    title: str
    refused: str | None = None
    fix: str = ""
    needs: tuple[str, ...] = ()
    note: str = ""
    text_refused: str | None = None  # why it cannot answer a text-only benchmark (SafeRelBench); None: it can
    # why it cannot generate without pixels: on a text-only benchmark each prompt gets PLACEHOLDER_IMAGE
    text_placeholder: str | None = None


TORCHVISION = "its image processor exists only for torchvision (transformers has no PIL version of it)"
TV_FIX = "install a torchvision matching torch (pip install torchvision==<the version built for your torch>)"
OMNI = ("an audio-and-video Omni model: its generate() speaks (talker) or caps text by its own "
        "thinker settings, not --max-new-tokens")
OMNI_FIX = "run the Omni checkpoint with vLLM or an OpenAI-compatible server, or pick the VL model of the family"
NOT_CHAT = "a task-prompt model (captions, OCR, boxes), not a chat model: it cannot answer the benchmarks' questions"
NOT_CHAT_FIX = "pick an instruction-tuned chat VLM (e.g. Qwen2.5-VL, InternVL3, Gemma 3)"

SPEECH = "a speech / audio model: it takes no images"
SPEECH_FIX = "pick a vision-language model (e.g. Qwen2.5-VL, InternVL3, Gemma 3)"
DOCUMENT = "an OCR / document / captioning model with its own task prompts, not a chat model"
OTHER_FIX = NOT_CHAT_FIX
UNTESTED = ("not yet checked with hazardkit (no tiny checkpoint of it here): transformers loads it, and a "
            "failure to load is one line, exit 2")

INSTRUCTBLIP_TEXT = "its generate() needs pixel_values on every prompt (the Q-Former reads the image)"
# what a family with `text_placeholder` gets as the image of a text-only prompt (SafeRelBench): one uniform image,
# carrying nothing, at the size its image processor resizes to; recorded in the run's settings and metadata.json
PLACEHOLDER_IMAGE = "a uniform mid-grey RGB image (128, 128, 128) at the image processor's input size"

# model_type -> Family, for every type in the two auto mappings of the pinned transformers (5.24)
FAMILIES: dict[str, Family] = {
    # -- run on all three benchmarks: a tiny checkpoint of each in eval_kit/testing/tiny_families.py -------
    "qwen2_vl": Family("Qwen2-VL"),
    "qwen2_5_vl": Family("Qwen2.5-VL"),
    "qwen3_vl_moe": Family("Qwen3-VL-MoE"),
    "internvl": Family("InternVL3 / InternVL3.5 (-hf)"),
    "llava_next": Family("LLaVA-NeXT (v1.6)"),
    "llava_onevision": Family("LLaVA-OneVision"),
    "paligemma": Family("PaliGemma / PaliGemma 2", note="no chat template: its own prefix format"),
    "minicpmv4_6": Family("MiniCPM-V-4.6"),
    "phi4_multimodal": Family("Phi-4-multimodal", note="PIL port of its image processor"),
    "gemma3": Family("Gemma 3"),
    "idefics3": Family("Idefics3"),
    "smolvlm": Family("SmolVLM", needs=("num2words",), note="num2words is in the models extra"),
    "mistral3": Family("Mistral 3 (Mistral-Small-3.1)", note="Pixtral's processor with its PIL image processor"),
    "llava": Family("LLaVA-1.5 (and the Pixtral -hf checkpoints)"),
    "qwen3_vl": Family("Qwen3-VL"),
    # -- run on all three benchmarks: a tiny checkpoint of each in eval_kit/testing/tiny_families_established.py
    "qwen3_5": Family("Qwen3.5"),
    "mllama": Family("Llama-3.2-Vision"),
    "aya_vision": Family("Aya Vision"),
    "idefics2": Family("Idefics2"),
    "ovis2": Family("Ovis2"),
    "deepseek_vl": Family("DeepSeek-VL"),
    "deepseek_vl_hybrid": Family("DeepSeek-VL hybrid"),
    "janus": Family("Janus"),
    "glm4v": Family("GLM-4.1V"),
    "glm4v_moe": Family("GLM-4.5V"),
    "glm46v": Family("GLM-4.6V"),
    "gemma4": Family("Gemma 4"),
    "minicpmv4_7": Family("MiniCPM-V-4.7"),
    # issue 36 (batch c): tiny checkpoints in eval_kit/testing/tiny_families_recent_b.py
    "vipllava": Family("VipLLaVA"),
    "instructblip": Family("InstructBLIP", note="no chat template in its checkpoints: add chat_template.jinja; on "
                           "SafeRelBench each prompt is sent with a grey placeholder image",
                           text_placeholder=INSTRUCTBLIP_TEXT),
    "qwen3_5_moe": Family("Qwen3.5-MoE"),
    "qwen4_exp": Family("Qwen4 (exp)"),
    "lfm3_vl": Family("LFM3-VL", note="Qwen2-VL's PIL image processor"),
    "video_llama_3": Family("VideoLLaMA 3", note="images (its video processor needs torchvision)"),
    "mistral_large4": Family("Mistral Large 4", note="Pixtral's processor with its PIL image processor"),
    "llava_next_video": Family("LLaVA-NeXT-Video", note="images only (its video processor needs torchvision)"),
    "video_llava": Family("Video-LLaVA", note="images only (its video processor needs torchvision)"),
    # issue 36b: a tiny checkpoint in eval_kit/testing/tiny_families_recent_a.py
    "exaone4_5": Family("EXAONE 4.5"),
    "hyperclovax_vision_v2": Family("HyperCLOVA X Vision v2"),
    # issue 36d: tiny checkpoints in eval_kit/testing/tiny_families_recent_c.py
    "aria": Family("Aria"),
    "chameleon": Family("Chameleon", note="images as VQ-VAE tokens (early fusion)"),
    "cohere_compass": Family("Cohere Compass (North-Micro-Vision)"),
    "cosmos3_edge": Family("Cosmos 3 Edge", note="its processor's modality ids are requested (its mrope needs them)"),
    "dots3_note": Family("dots3 Note", note="images and text (its audio and video inputs are not used)"),
    "emu3": Family("Emu3", note="images as VQ-VAE tokens (early fusion)"),
    "ernie4_5_vl_moe": Family("ERNIE-4.5-VL", note="images (its video processor needs torchvision)"),
    # issue 36f: a tiny checkpoint in eval_kit/testing/tiny_families_llama4.py
    "llama4": Family("Llama 4 (Scout, Maverick)", note="PIL port of its image processor"),
    # -- need a package that is not installed by default --------------------------------------------------
    "gemma3n": Family("Gemma 3n", needs=("timm",), note="its vision tower (MobileNetV5) needs timm; not run here"),
    # -- refused before loading, one line each ----------------------------------------------------------
    "qwen2_5_omni": Family("Qwen2.5-Omni", refused=OMNI, fix=OMNI_FIX),
    "qwen3_omni_moe": Family("Qwen3-Omni", refused=OMNI, fix=OMNI_FIX),
    "cohere2_vision": Family("Cohere2 Vision (Command A Vision)", refused=TORCHVISION, fix=TV_FIX),
    "lfm2_vl": Family("LFM2-VL", refused=TORCHVISION, fix=TV_FIX),
    "molmo2": Family("Molmo2", refused=TORCHVISION, fix=TV_FIX),
    **{t: Family(name, refused=TORCHVISION, fix=TV_FIX) for t, name in (  # issue 36: auto map has no PIL one
        ("inkling_mm_model", "Inkling"), ("kimi_k25", "Kimi K2.5"), ("minimax_m3_vl", "MiniMax-M3-VL"),
        ("muse_glimmer", "Muse Glimmer"), ("muse_spark", "Muse Spark"), ("perception_lm", "PerceptionLM"),
        ("step3p7", "Step 3.7"))},
    # issue 36b: the image-processor auto mapping of transformers 5.24 names only a torchvision class for these
    **{t: Family(name, refused=TORCHVISION, fix=TV_FIX) for t, name in (
        ("apertus1p5", "Apertus 1.5"), ("gemma4_unified", "Gemma 4 unified"), ("inkling2", "Inkling 2"),
        ("inkling2_loop", "Inkling 2 loop"))},
    **{t: Family(name, refused=NOT_CHAT, fix=NOT_CHAT_FIX) for t, name in (
        ("florence2", "Florence-2"), ("blip", "BLIP"), ("blip-2", "BLIP-2"), ("git", "GIT"),
        ("kosmos-2", "Kosmos-2"), ("pix2struct", "Pix2Struct"), ("udop", "UDOP"),
        ("vision-encoder-decoder", "Vision encoder-decoder"), ("fuyu", "Fuyu"), ("shieldgemma2", "ShieldGemma 2"),
        ("idefics", "IDEFICS (v1)"))},
    **{t: Family(name, refused=DOCUMENT, fix=NOT_CHAT_FIX) for t, name in (
        ("got_ocr2", "GOT-OCR2"), ("pp_chart2table", "PP-Chart2Table"), ("pp_formulanet", "PP-FormulaNet"),
        ("deepseek_ocr2", "DeepSeek-OCR 2"), ("glm_ocr", "GLM-OCR"), ("lighton_ocr", "LightOnOCR"),
        ("minicpm_ocr", "MiniCPM-OCR"), ("paddleocr_vl", "PaddleOCR-VL"), ("qianfan_ocr", "Qianfan-OCR"),
        ("unlimited_ocr", "Unlimited-OCR"), ("kosmos-2.5", "Kosmos-2.5"), ("granite_docling", "Granite-Docling"))},
    **{t: Family(name, refused=SPEECH, fix=SPEECH_FIX) for t, name in (
        ("fun_asr_nano", "Fun-ASR-Nano"), ("glmasr", "GLM-ASR"), ("granite_speech", "Granite Speech"),
        ("granite_speech_plus", "Granite Speech Plus"), ("kyutai_speech_to_text", "Kyutai STT"),
        ("moss_transcribe_diarize", "MOSS transcribe"), ("nemo_speechlm", "Nemotron transcribe"),
        ("omniasr", "Omni-ASR"), ("qwen2_audio", "Qwen2-Audio"), ("qwen3_asr", "Qwen3-ASR"),
        ("vibevoice_asr", "VibeVoice ASR"), ("voxtral", "Voxtral"), ("voxtral_realtime", "Voxtral Realtime"))},
    "instructblipvideo": Family("InstructBLIP-Video", refused="a video model: its processor takes video frames only, "
                                "through a video processor that needs torchvision (no image processor)", fix=TV_FIX),
    "mistral4": Family("Mistral 4", refused="a text-only decoder (Mistral4ForCausalLM has no vision tower): it "
                       "takes no images", fix=SPEECH_FIX),
    "evolla": Family("Evolla", refused="a protein-language model: it takes no images", fix=OTHER_FIX),
    "pi0": Family("PI0", refused="a robot action policy: it outputs actions, not text", fix=OTHER_FIX),
    "diffusion_gemma": Family("Diffusion Gemma", refused="a block-diffusion text model: no autoregressive "
                              "generate() for chat answers", fix=OTHER_FIX),
    "t5gemma2": Family("T5Gemma 2", refused="an encoder-decoder model without a chat template for images",
                       fix=OTHER_FIX),
    "qwen2_5_omni_thinker": Family("Qwen2.5-Omni thinker", refused=OMNI, fix=OMNI_FIX),
    "qwen3_omni_moe_thinker": Family("Qwen3-Omni thinker", refused=OMNI, fix=OMNI_FIX),
    "cosmos3_omni": Family("Cosmos 3 Omni", refused=OMNI, fix=OMNI_FIX),
    "nemotron_h_omni": Family("Nemotron-H Omni", refused=OMNI, fix=OMNI_FIX),
    # issue 36 (helper e): tiny checkpoints in eval_kit/testing/tiny_families_recent_d.py
    "glmga": Family("GLM (glmga)", note="GLM-4.6V's model and processor classes (the processor found through "
                    "the shared model class when the checkpoint names none), its own PIL image processor"),
    "granite4_vision": Family("Granite 4 Vision", note="LLaVA-NeXT's PIL image processor; Q-Former projectors"),
    "glm5_next": Family("GLM-5 next (GLM-5.3-Flash)", note="images (its video processor needs torchvision); "
                        "PyTorch kernels without flash-linear-attention"),
    "hy_v4_vl": Family("HY-V4-VL (Hy4)", note="images (its video processor needs torchvision)"),
    # issue 36 (helper e): refused, or runs only with a package not installed by default
    "fast_vlm": Family("FastVLM", needs=("timm", "torchvision"), note="its vision tower (FastViTHD) is a timm "
                       "model, and timm imports torchvision; not run here"),
    "hunyuan_vl": Family("HunYuan-VL (HunyuanOCR)", refused=DOCUMENT, fix=NOT_CHAT_FIX),
}


def native_families() -> dict[str, str]:
    """{model_type: model class name} of every family the installed transformers' two VLM auto classes load."""
    from transformers.models.auto import modeling_auto

    found: dict[str, str] = {}
    for mapping in ("MODEL_FOR_IMAGE_TEXT_TO_TEXT_MAPPING_NAMES", "MODEL_FOR_MULTIMODAL_LM_MAPPING_NAMES"):
        for model_type, name in getattr(modeling_auto, mapping, {}).items():
            found.setdefault(model_type, name if isinstance(name, str) else name[0])
    return found


def installed(module: str) -> bool:
    try:
        return importlib.util.find_spec(module) is not None
    except (ImportError, ValueError):
        return False


def check(config: Any, model: str, *, needs_images: bool = True) -> None:
    """Refuse, before anything heavy loads, a family that cannot run here: one line naming the cause.
    `needs_images=False`: the benchmark's prompts carry no images (a family that needs one is refused)."""
    model_type = getattr(config, "model_type", "")
    family = FAMILIES.get(model_type)
    if family is None:
        return  # a family this table does not know (a newer transformers): try it
    if family.refused:
        raise BadInput(f"{model!r} is {family.title} ({model_type}): {family.refused}", field="--model",
                       fix=family.fix)
    if family.text_refused and not needs_images:
        raise BadInput(f"{model!r} is {family.title} ({model_type}): {family.text_refused}", field="--model",
                       fix="run it on the image benchmarks; for SafeRelBench pick a model that answers text alone")
    for module in family.needs:
        if not installed(module):
            raise BadInput(f"{model!r} is {family.title} ({model_type}), which needs the {module} package",
                           field="--model", fix=f"pip install {module}")


def text_placeholder(model_type: str, needs_images: bool) -> str | None:
    """Why a family needs the placeholder image on this benchmark (its prompts carry none and its generate()
    needs pixels); None: it does not (it answers text alone, or the benchmark's prompts carry images)."""
    family = FAMILIES.get(model_type)
    return None if needs_images or family is None else family.text_placeholder


def title(model_type: str) -> str:
    family = FAMILIES.get(model_type)
    return family.title if family is not None else model_type
