"""Pixtral's processor (Pixtral, Mistral 3 / Mistral-Small-3.1) without torchvision.

transformers 5.24 has a PIL image processor for Pixtral (`PixtralImageProcessorPil`), but `PixtralProcessor`'s
module imports one helper, `get_resize_output_image_size`, from the torchvision image processor's module, so
the top-level `transformers.PixtralProcessor` is a placeholder that raises an ImportError with an empty first
line. The PIL module defines the same helper with the same signature: the processor's module is imported with
the torchvision module standing in as a module that holds only that helper (removed again afterwards, so a
later real import is not affected), which gives the real `PixtralProcessor` class.
"""

from __future__ import annotations

import importlib
import sys
import types
from typing import Any

PROCESSOR_MODULE = "transformers.models.pixtral.processing_pixtral"
TORCHVISION_MODULE = "transformers.models.pixtral.image_processing_pixtral"


def processor_class() -> type:
    """The real `PixtralProcessor` class, imported without torchvision where torchvision is missing."""
    module = sys.modules.get(PROCESSOR_MODULE)
    if module is None:
        try:
            module = importlib.import_module(PROCESSOR_MODULE)
        except ImportError:
            pil = importlib.import_module("transformers.models.pixtral.image_processing_pil_pixtral")
            stand_in = types.ModuleType(TORCHVISION_MODULE)
            stand_in.get_resize_output_image_size = pil.get_resize_output_image_size  # type: ignore[attr-defined]
            sys.modules[TORCHVISION_MODULE] = stand_in
            try:
                module = importlib.import_module(PROCESSOR_MODULE)
            finally:
                if sys.modules.get(TORCHVISION_MODULE) is stand_in:
                    del sys.modules[TORCHVISION_MODULE]
    return module.PixtralProcessor


def load(model: str, revision: str | None = None, **kwargs: Any) -> Any:
    """The checkpoint's Pixtral processor: its tokenizer, the PIL image processor, its processor settings."""
    from transformers import AutoTokenizer
    from transformers.models.pixtral.image_processing_pil_pixtral import PixtralImageProcessorPil

    from eval_kit.runners.image_only import _json_file, chat_template

    kwargs = {"trust_remote_code": False, **kwargs}
    tokenizer = AutoTokenizer.from_pretrained(model, revision=revision, **kwargs)
    image_config = {k: v for k, v in _json_file(model, "preprocessor_config.json", revision).items()
                    if not k.endswith("_type") and k != "processor_class"}
    image_processor = PixtralImageProcessorPil(**image_config)
    config = _json_file(model, "processor_config.json", revision)
    names = ("patch_size", "spatial_merge_size", "image_token", "image_break_token", "image_end_token")
    extras = {k: v for k, v in config.items() if k in names}
    template = chat_template(model, revision) or getattr(tokenizer, "chat_template", None)
    return processor_class()(image_processor=image_processor, tokenizer=tokenizer, chat_template=template, **extras)


def is_pixtral(model: str, revision: str | None = None) -> bool:
    """Whether the checkpoint's processor is Pixtral's (processor_config.json or the image processor's type)."""
    from eval_kit.runners.image_only import _json_file

    names = (str(_json_file(model, "processor_config.json", revision).get("processor_class", "")),
             str(_json_file(model, "preprocessor_config.json", revision).get("image_processor_type", "")))
    return any(name.startswith("Pixtral") for name in names)
