"""An image-and-text processor for any family whose processor needs torchvision only for video.

transformers' InternVL, MiniCPM-V, SmolVLM, LLaVA-OneVision and Qwen-VL processors build a video
processor, and every video processor needs a torchvision matching torch (transformers issues #48558,
#43986); their image processors have PIL versions that need none. The checker never sends videos, so the
processor is built from its real class with the checkpoint's tokenizer, the PIL image processor, the
checkpoint's processor settings and chat template, and a stand-in video processor that carries the video
config's attributes (some processors read e.g. `video_processor.slice_mode` at init) but refuses videos.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any


def _no_video_class() -> type:
    from transformers.video_processing_utils import VideoProcessorMixin

    class NoVideoProcessor(VideoProcessorMixin):
        """Stands in for a video processor where torchvision is missing: attributes only, no videos."""

        def __init__(self, **kwargs: Any) -> None:
            for key, value in kwargs.items():
                setattr(self, key, value)

        def __getattr__(self, name: str) -> Any:
            # a video setting the checkpoint does not state (SmolVLM's apply_chat_template reads num_frames
            # even for images): unset, as the processor's own default would be for a call without videos
            if name.startswith("_"):
                raise AttributeError(name)
            return None

        def __call__(self, *args: Any, **kwargs: Any) -> Any:
            raise ValueError("this processor was built without torchvision and takes no videos")

        preprocess = __call__

    return NoVideoProcessor


def _json_file(model: str, name: str, revision: str | None) -> dict[str, Any]:
    """A small JSON file of the checkpoint (local folder or Hub cache/download); {} when absent."""
    from eval_kit.runners.backends.model_files import read_json_file

    return read_json_file(model, name, revision) or {}


def processor_class(model: str, revision: str | None) -> type | None:
    """The checkpoint's processor class (processor_config.json, else the model type's registered one)."""
    import transformers
    from transformers import AutoConfig
    from transformers.models.auto.processing_auto import PROCESSOR_MAPPING_NAMES

    name = _json_file(model, "processor_config.json", revision).get("processor_class")
    if not name:
        try:
            model_type = AutoConfig.from_pretrained(model, revision=revision, trust_remote_code=False).model_type
        except (OSError, ValueError):
            return None
        name = PROCESSOR_MAPPING_NAMES.get(model_type) or shared_class_processor(model_type)
    cls = getattr(transformers, name, None) if isinstance(name, str) else None
    return cls if isinstance(cls, type) else None


def shared_class_processor(model_type: str) -> str | None:
    """The processor of the family whose model class this model type reuses, where it has none of its own:
    transformers maps glmga to GLM-4.6V's model class and has no processor mapping for it (the processor is
    GLM-4.6V's too). None when no other model type shares the class, or those that do have no processor."""
    from transformers.models.auto.modeling_auto import MODEL_FOR_IMAGE_TEXT_TO_TEXT_MAPPING_NAMES as MODELS
    from transformers.models.auto.processing_auto import PROCESSOR_MAPPING_NAMES

    model_class = MODELS.get(model_type)
    if model_class is None:
        return None
    names = {PROCESSOR_MAPPING_NAMES.get(other) for other, cls in MODELS.items() if cls == model_class}
    names.discard(None)
    return names.pop() if len(names) == 1 else None


def load(model: str, revision: str | None = None, **kwargs: Any) -> Any | None:
    """The processor built without torchvision, or None when nothing here can stand in for what needs it
    (a video slot to replace, or a torchvision-only image processor with a PIL port)."""
    from transformers import AutoFeatureExtractor, AutoImageProcessor, AutoTokenizer

    from eval_kit.runners.phi4_image_processor import PIL_PORTS

    kwargs = {"trust_remote_code": False, **kwargs}
    cls = processor_class(model, revision)
    if cls is None:
        return None
    attributes = cls.get_attributes()
    image_config = _json_file(model, "preprocessor_config.json", revision)
    port = PIL_PORTS.get(str(image_config.get("image_processor_type", "")).removesuffix("Fast"))
    if "image_processor" not in attributes or (not any("video" in a for a in attributes) and port is None):
        return None
    config = _json_file(model, "processor_config.json", revision)
    video_config = (config.get("video_processor") or _json_file(model, "video_preprocessor_config.json", revision)
                    or image_config)
    video_config = {k: v for k, v in video_config.items() if not k.endswith("_type") and k != "processor_class"}
    parts: dict[str, Any] = {}
    for attribute in attributes:
        if "video" in attribute:
            parts[attribute] = _no_video_class()(**video_config)
        elif "tokenizer" in attribute:
            parts[attribute] = AutoTokenizer.from_pretrained(model, revision=revision, **kwargs)
        elif attribute == "image_processor" and port is not None:
            parts[attribute] = port()(**{k: v for k, v in image_config.items() if not k.endswith("_type")})
        elif attribute == "image_processor":
            parts[attribute] = AutoImageProcessor.from_pretrained(model, revision=revision, backend="pil",
                                                                  **kwargs)
        elif "audio" in attribute or "feature_extractor" in attribute:
            parts[attribute] = AutoFeatureExtractor.from_pretrained(model, revision=revision, **kwargs)
        else:
            return None
    init_names = cls.__init__.__code__.co_varnames[: cls.__init__.__code__.co_argcount]
    extras = {k: v for k, v in config.items() if k in init_names and k not in parts and k != "chat_template"}
    template = chat_template(model, revision) or getattr(parts.get("tokenizer"), "chat_template", None)
    return _image_only_class(cls)(**parts, **extras, chat_template=template)


def _image_only_class(cls: type) -> type:
    """`cls` accepting the stand-in video processor (its class check looks video processors up in a mapping
    that is a placeholder without torchvision)."""

    def check_argument_for_proper_class(self: Any, argument_name: str, argument: Any) -> Any:
        if "video" in argument_name:
            return type(argument)
        return cls.check_argument_for_proper_class(self, argument_name, argument)

    return type(f"ImageOnly{cls.__name__}", (cls,), {"check_argument_for_proper_class": check_argument_for_proper_class,
                                                     "__doc__": f"{cls.__name__} for images and text only."})


def chat_template(model: str, revision: str | None) -> str | None:
    """chat_template.jinja, else chat_template.json's template, of the checkpoint (None when it has none)."""
    from eval_kit.runners.backends.model_files import read_text_file

    text = read_text_file(model, "chat_template.jinja", revision)
    if text:
        return text
    raw = read_text_file(model, "chat_template.json", revision)
    if raw:
        try:
            value = json.loads(raw).get("chat_template")
        except (ValueError, AttributeError):
            return None
        return value if isinstance(value, str) else None
    return None


def is_local(model: str) -> bool:
    return Path(model).expanduser().is_dir()
