"""vLLM offline inference: `LLM.generate` with multi-modal inputs. vllm is imported only when chosen.

The prompt text comes from the model's own chat template (via its processor), with one image
placeholder per image; the images go in `multi_modal_data`. Not exercised without a GPU: tests
check the arguments with a fake LLM object.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from eval_kit.runners.backends.base import Backend, fill_images, limit_pixels
from eval_kit.runners.task import Request


class VLLMBackend(Backend):
    """`llm`, `sampling_params_cls` and `render_prompt` are injectable so the argument building is testable."""

    name = "vllm"

    def __init__(self, model: str, *, max_new_tokens: int = 256, max_pixels: int | None = 1024 * 28 * 28,
                 max_images: int = 1, llm: Any = None, sampling_params_cls: Any = None,
                 render_prompt: Callable[[list[dict[str, Any]]], str] | None = None, **llm_kwargs: Any) -> None:
        self.model_name, self.max_new_tokens, self.max_pixels = model, max_new_tokens, max_pixels
        if llm is None or sampling_params_cls is None:
            import vllm

            llm = llm or vllm.LLM(model=model, limit_mm_per_prompt={"image": max_images}, **llm_kwargs)
            sampling_params_cls = sampling_params_cls or vllm.SamplingParams
        if render_prompt is None:
            from transformers import AutoProcessor

            processor = AutoProcessor.from_pretrained(model)

            def render_prompt(conversation: list[dict[str, Any]]) -> str:
                return processor.apply_chat_template(conversation, tokenize=False, add_generation_prompt=True)

        self.llm, self.render_prompt = llm, render_prompt
        self.params = sampling_params_cls(temperature=0.0, max_tokens=max_new_tokens)

    def settings(self) -> dict[str, Any]:
        return {"temperature": 0.0, "max_tokens": self.max_new_tokens, "max_pixels": self.max_pixels}

    def request(self, sample: Request) -> dict[str, Any]:
        """One `LLM.generate` input: the templated prompt plus the (size-capped) images."""
        prompt = self.render_prompt(fill_images(sample.messages, sample.images, lambda _img: {"type": "image"}))
        request: dict[str, Any] = {"prompt": prompt}
        if sample.images:
            images = [limit_pixels(img, self.max_pixels) for img in sample.images]
            request["multi_modal_data"] = {"image": images if len(images) > 1 else images[0]}
        return request

    def generate(self, samples: Sequence[Request]) -> list[str]:
        outputs = self.llm.generate([self.request(s) for s in samples], self.params, use_tqdm=False)
        return [out.outputs[0].text for out in outputs]
