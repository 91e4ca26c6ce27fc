"""Hugging Face transformers: `AutoModelForImageTextToText` + the processor's chat template, batched, greedy.

Left padding so every prompt ends where generation starts; images are capped at `max_pixels` before the
processor sees them (the Qwen-VL family turns every 28x28 patch into a token, so this bounds memory).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from eval_kit.runners.backends.base import Backend, fill_images, limit_pixels
from eval_kit.runners.task import Request


class TransformersBackend(Backend):
    """`model` is a Hub id or a local folder with the model and its processor."""

    name = "transformers"

    def __init__(self, model: str, *, max_new_tokens: int = 256, max_pixels: int | None = 1024 * 28 * 28,
                 device: str | None = None, dtype: str = "auto", use_fast: bool | None = None) -> None:
        import torch
        from transformers import AutoModelForImageTextToText, AutoProcessor

        self.torch = torch
        self.model_name, self.max_new_tokens, self.max_pixels = model, max_new_tokens, max_pixels
        kwargs: dict[str, Any] = {}
        if use_fast is not None:
            kwargs["use_fast"] = use_fast
        self.processor = self._processor(model, AutoProcessor, kwargs)
        tokenizer = getattr(self.processor, "tokenizer", self.processor)
        tokenizer.padding_side = "left"
        if tokenizer.pad_token is None:
            tokenizer.pad_token = tokenizer.eos_token
        self.device = device or ("cuda" if torch.cuda.is_available() else "cpu")
        self.model = AutoModelForImageTextToText.from_pretrained(model, dtype=dtype).to(self.device).eval()

    @staticmethod
    def _processor(model: str, auto_processor: Any, kwargs: dict[str, Any]) -> Any:
        """The model's processor; for Qwen-VL without torchvision, the image-only one (same pixels, no video)."""
        from eval_kit.runners.qwen_image_processor import family_of, load_image_only_processor

        try:
            processor = auto_processor.from_pretrained(model, **kwargs)
        except (ImportError, ValueError, TypeError, AttributeError):
            processor = None  # Qwen-VL video processors need a torchvision matching torch
        if processor is None or not hasattr(processor, "image_processor"):
            family = family_of(model)
            if family is None:
                raise RuntimeError(f"cannot build a processor for {model!r} (is torchvision installed?)")
            processor = load_image_only_processor(model, family=family)
        return processor

    def settings(self) -> dict[str, Any]:
        return {"do_sample": False, "max_new_tokens": self.max_new_tokens, "max_pixels": self.max_pixels}

    def conversation(self, sample: Request) -> list[dict[str, Any]]:
        return fill_images(sample.messages, sample.images,
                           lambda img: {"type": "image", "image": limit_pixels(img, self.max_pixels)})

    def inputs(self, samples: Sequence[Request]):
        """The batch as model inputs: chat template applied, images capped, left-padded."""
        return self.processor.apply_chat_template(
            [self.conversation(s) for s in samples], tokenize=True, add_generation_prompt=True,
            return_dict=True, return_tensors="pt", processor_kwargs={"padding": True},
        ).to(self.device)

    def generate(self, samples: Sequence[Request]) -> list[str]:
        inputs = self.inputs(samples)
        with self.torch.inference_mode():
            out = self.model.generate(**inputs, do_sample=False, max_new_tokens=self.max_new_tokens)
        new_tokens = out[:, inputs["input_ids"].shape[1]:]
        return self.processor.batch_decode(new_tokens, skip_special_tokens=True)

    def close(self) -> None:
        del self.model
