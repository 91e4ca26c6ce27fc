"""VLM quality checker (paper 3.2.5) through transformers: any `AutoModelForImageTextToText` + its processor's
chat template; Qwen3-VL by default (the paper uses Qwen3-VL-30B).

Per job, two questions on crops of the mask's box: completeness with (input crop, output crop), direction with
the output crop. All questions of a batch of jobs go through one left-padded greedy `generate` per chunk of
`batch_size` conversations, so throughput scales with the batch. Raw answers are kept in the verdict.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from PIL import Image

from builder.movsafebench.hazardforge.quality.base import (
    COMPLETENESS_PROMPT,
    DIRECTION_PROMPT,
    Verdict,
    check_intended,
    crop_pair,
    decide,
    parse_completeness,
    parse_direction,
)
from eval_kit.errors import BadInput

DEFAULT_MODEL_ID = "Qwen/Qwen3-VL-30B-A3B-Instruct"
MIN_CROP_SIDE = 64  # Qwen-VL patches are 16 px merged 2x2: tiny crops are upscaled to at least this


def _upscale(image: Image.Image, min_side: int = MIN_CROP_SIDE) -> Image.Image:
    short = min(image.size)
    if short >= min_side:
        return image
    scale = min_side / max(1, short)
    return image.resize((max(1, round(image.width * scale)), max(1, round(image.height * scale))),
                        Image.Resampling.BICUBIC)


def _user(images: Sequence[Image.Image], text: str) -> list[dict[str, Any]]:
    return [{"role": "user", "content": [*({"type": "image", "image": im} for im in images),
                                         {"type": "text", "text": text}]}]


class VLMChecker:
    """Checker protocol on a VLM. Pass `model_id` (loaded lazily) or an already built `model` + `processor`."""

    def __init__(self, model_id: str = DEFAULT_MODEL_ID, *, revision: str | None = None, dtype: str = "auto",
                 device: str | None = None, batch_size: int = 8, max_new_tokens: int = 16, crop_margin: float = 0.0,
                 model: Any = None, processor: Any = None) -> None:
        if (model is None) != (processor is None):
            raise ValueError("pass both model and processor, or neither")
        self.model_id = model_id
        self.revision = revision
        self.dtype = dtype
        self.device = device
        self.batch_size = batch_size
        self.max_new_tokens = max_new_tokens
        self.crop_margin = crop_margin
        self._model = model
        self._processor = processor

    def provenance(self) -> dict[str, Any]:
        return {"checker": "vlm", "model_id": self.model_id, "revision": self.revision, "dtype": self.dtype,
                "decoding": "greedy", "max_new_tokens": self.max_new_tokens, "crop_margin": self.crop_margin,
                "completeness_prompt": COMPLETENESS_PROMPT, "direction_prompt": DIRECTION_PROMPT}

    def _load(self) -> tuple[Any, Any]:
        if self._model is None:
            import torch
            from transformers import AutoModelForImageTextToText, AutoProcessor

            dtype = self.dtype if self.dtype == "auto" else getattr(torch, self.dtype)
            try:
                model = AutoModelForImageTextToText.from_pretrained(self.model_id, revision=self.revision,
                                                                    dtype=dtype, device_map=self.device,
                                                                    trust_remote_code=False)
            except (OSError, ValueError) as exc:
                raise BadInput(f"cannot load VLM {self.model_id!r}: {str(exc).splitlines()[0]}",
                               field="checker model",
                               fix="pass a local model folder or a Hub id you can reach") from None
            try:
                processor = AutoProcessor.from_pretrained(self.model_id, revision=self.revision,
                                                          trust_remote_code=False)
            except (ImportError, ValueError, TypeError, AttributeError):
                processor = None  # Qwen-VL video processors need torchvision; the checker sends images only
            if processor is None or not hasattr(processor, "image_processor"):  # got a bare tokenizer, or nothing
                from eval_kit.runners.qwen_image_processor import load_image_only_processor

                processor = load_image_only_processor(self.model_id, self.revision, trust_remote_code=False)
            self._model, self._processor = model.eval(), processor
        self._processor.tokenizer.padding_side = "left"
        return self._model, self._processor

    def ask(self, conversations: list[list[dict[str, Any]]]) -> list[str]:
        """Greedy answers to chat conversations, in `batch_size` chunks."""
        import torch

        model, processor = self._load()
        answers: list[str] = []
        for start in range(0, len(conversations), self.batch_size):
            chunk = conversations[start: start + self.batch_size]
            inputs = processor.apply_chat_template(chunk, tokenize=True, add_generation_prompt=True,
                                                   return_dict=True, return_tensors="pt",
                                                   processor_kwargs={"padding": True})
            inputs = inputs.to(model.device)
            with torch.inference_mode():
                out = model.generate(**inputs, max_new_tokens=self.max_new_tokens, do_sample=False)
            answers += processor.batch_decode(out[:, inputs["input_ids"].shape[1]:], skip_special_tokens=True)
        return [a.strip() for a in answers]

    def check_batch(self, items: Sequence[tuple[Image.Image, Image.Image, np.ndarray, str]]) -> list[Verdict]:
        """Verdicts for (input image, output image, mask, intended direction) items, in order."""
        conversations = []
        for input_image, output_image, mask, intended in items:
            check_intended(intended)
            crop_in, crop_out = crop_pair(input_image, output_image, np.asarray(mask, dtype=bool), self.crop_margin)
            crop_in, crop_out = _upscale(crop_in), _upscale(crop_out)
            conversations.append(_user([crop_in, crop_out], COMPLETENESS_PROMPT))
            conversations.append(_user([crop_out], DIRECTION_PROMPT))
        answers = self.ask(conversations)
        verdicts = []
        for index, (*_, intended) in enumerate(items):
            raw_c, raw_d = answers[2 * index], answers[2 * index + 1]
            completeness, direction = parse_completeness(raw_c), parse_direction(raw_d)
            verdicts.append(Verdict(decide(completeness, direction, intended), completeness, direction,
                                    {"completeness_answer": raw_c, "direction_answer": raw_d}))
        return verdicts

    def check(self, input_image: Image.Image, output_image: Image.Image, mask: np.ndarray,
              intended_direction: str) -> Verdict:
        return self.check_batch([(input_image, output_image, mask, intended_direction)])[0]
