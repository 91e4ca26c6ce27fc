"""A Qwen-VL processor for images only, that needs no torchvision.

transformers' `Qwen3VLProcessor` insists on a video processor, and every Qwen-VL video processor needs a
torchvision matching torch (transformers issues #48558, #43986). The checker never sends videos, so this
subclass (of Qwen3VLProcessor or Qwen2VLProcessor) drops the video slot and uses the PIL image processor
(`Qwen2VLImageProcessorPil`), which produces the
same pixel patches without torchvision. Used by the tiny test models, by the quality checker and the
transformers runner as the fallback when `AutoProcessor.from_pretrained` fails for want of torchvision.
"""

from __future__ import annotations

from typing import Any


def _processor_class(family: str) -> type:
    import transformers
    from transformers.processing_utils import ProcessorMixin

    base = {"qwen3_vl": transformers.Qwen3VLProcessor, "qwen2_vl": transformers.Qwen2VLProcessor}[family]

    class ImageOnlyQwenVLProcessor(base):  # type: ignore[misc, valid-type]
        """A Qwen-VL processor without a video processor (images and text only)."""

        def __init__(self, image_processor: Any = None, tokenizer: Any = None, chat_template: str | None = None,
                     **kwargs: Any) -> None:
            def token(name: str, default: str) -> str:
                return getattr(tokenizer, name, None) or default

            self.image_token = token("image_token", "<|image_pad|>")
            self.video_token = token("video_token", "<|video_pad|>")
            self.vision_start_token = token("vision_start_token", "<|vision_start|>")
            self.vision_end_token = token("vision_end_token", "<|vision_end|>")
            for name in ("image_token", "video_token", "vision_start_token", "vision_end_token"):
                setattr(self, f"{name}_id", tokenizer.convert_tokens_to_ids(getattr(self, name)))
            ProcessorMixin.__init__(self, image_processor, tokenizer, chat_template=chat_template)

    ImageOnlyQwenVLProcessor.__name__ = f"ImageOnly{base.__name__}"
    return ImageOnlyQwenVLProcessor


def image_only_processor(image_processor: Any, tokenizer: Any, chat_template: str | None = None, *,
                         family: str = "qwen3_vl") -> Any:
    """`family`: "qwen3_vl" (Qwen3-VL) or "qwen2_vl" (Qwen2-VL / Qwen2.5-VL, e.g. Qwen-Image's text encoder)."""
    return _processor_class(family)(image_processor=image_processor, tokenizer=tokenizer,
                                    chat_template=chat_template)


QWEN_FAMILIES = {"qwen3_vl": "qwen3_vl", "qwen3_vl_moe": "qwen3_vl", "qwen2_vl": "qwen2_vl",
                 "qwen2_5_vl": "qwen2_vl"}


def family_of(model_id: str, revision: str | None = None, **kwargs: Any) -> str | None:
    """"qwen3_vl" / "qwen2_vl" for a Qwen-VL checkpoint (from its config's model_type), else None."""
    from transformers import AutoConfig

    kwargs = {"trust_remote_code": False, **kwargs}
    try:
        model_type = AutoConfig.from_pretrained(model_id, revision=revision, **kwargs).model_type
    except (OSError, ValueError):
        return None
    return QWEN_FAMILIES.get(model_type)


def load_image_only_processor(model_id: str, revision: str | None = None, *, family: str | None = None,
                              **kwargs: Any) -> Any:
    """Tokenizer + PIL image processor + chat template from a model folder or Hub id."""
    from transformers import AutoTokenizer
    from transformers.models.qwen2_vl.image_processing_pil_qwen2_vl import Qwen2VLImageProcessorPil

    kwargs = {"trust_remote_code": False, **kwargs}
    tokenizer = AutoTokenizer.from_pretrained(model_id, revision=revision, **kwargs)
    image_processor = Qwen2VLImageProcessorPil.from_pretrained(  # a plain class: no remote code to refuse
        model_id, revision=revision, **{k: v for k, v in kwargs.items() if k != "trust_remote_code"})
    family = family or family_of(model_id, revision, **kwargs) or "qwen3_vl"
    return image_only_processor(image_processor, tokenizer, getattr(tokenizer, "chat_template", None),
                                family=family)
