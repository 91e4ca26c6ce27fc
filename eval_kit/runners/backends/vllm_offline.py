"""vLLM offline inference: `LLM.generate` with multi-modal inputs. vllm is imported only when chosen.

The prompt text comes from the model's own chat template (via its processor), with one image
placeholder per image; the images go in `multi_modal_data`. `model_args` go to `vllm.LLM` as engine
settings (`tensor_parallel_size`, `data_parallel_size`, `gpu_memory_utilization`, `max_model_len`, `dtype`,
`enforce_eager`, `limit_mm_per_prompt`, `load_format="dummy"` for random weights, ...); remote code stays
off unless `trust_remote_code=true`. Tests check the arguments with a fake LLM object;
`benchmarks/gpu_smoke.sh` runs the real engine on a GPU. A text-only LLM (its `AutoProcessor` is a tokenizer)
runs where the prompts carry no images (SafeRelBench), its messages' content joined to one string as a text
template reads it; on an image benchmark it is refused before the engine starts.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence
from typing import Any

from eval_kit.errors import BadInput
from eval_kit.runners.backends import setup_checks
from eval_kit.runners.backends.base import Backend, fill_images, limit_pixels
from eval_kit.runners.task import Request


def sampling_options(gen_kwargs: dict[str, Any], max_new_tokens: int) -> dict[str, Any]:
    """`vllm.SamplingParams` keyword arguments: greedy (temperature 0) unless the user set one."""
    options: dict[str, Any] = {"temperature": float(gen_kwargs.get("temperature", 0.0)), "max_tokens": max_new_tokens}
    options.update({k: gen_kwargs[k] for k in ("top_p", "top_k", "seed", "stop") if k in gen_kwargs})
    return options


def engine_kwargs(model: str, revision: str | None, max_images: int, model_args: dict[str, Any]) -> dict[str, Any]:
    """`vllm.LLM` keyword arguments: the model, its revision, one image per prompt unless said otherwise."""
    kwargs: dict[str, Any] = {"model": model, "limit_mm_per_prompt": {"image": max_images},
                              "trust_remote_code": False}  # explicit: remote code only with trust_remote_code=true
    if revision is not None:
        kwargs["revision"] = revision
    kwargs.update(model_args)
    return kwargs


def _check_engine_args(vllm: Any, model_args: dict[str, Any]) -> None:
    fields = {f.name for f in dataclasses.fields(vllm.EngineArgs)} if dataclasses.is_dataclass(
        getattr(vllm, "EngineArgs", None)) else set()
    unknown = sorted(set(model_args) - fields) if fields else []
    if unknown:
        raise BadInput(f"vLLM {getattr(vllm, '__version__', '')} has no engine setting {unknown[0]!r}",
                       field="--model-args", fix="see `vllm.EngineArgs` (e.g. tensor_parallel_size, max_model_len)")


class VLLMBackend(Backend):
    """`llm`, `sampling_params_cls` and `render_prompt` are injectable so the argument building is testable."""

    name = "vllm"

    def __init__(self, model: str, *, max_new_tokens: int = 256, max_pixels: int | None = 1024 * 28 * 28,
                 max_images: int = 1, llm: Any = None, sampling_params_cls: Any = None,
                 render_prompt: Callable[[list[dict[str, Any]]], str] | None = None, revision: str | None = None,
                 model_args: dict[str, Any] | None = None, gen_kwargs: dict[str, Any] | None = None,
                 needs_images: bool = True, **llm_kwargs: Any) -> None:
        self.model_name, self.max_new_tokens, self.max_pixels = model, max_new_tokens, max_pixels
        self.model_args = {**llm_kwargs, **(model_args or {})}
        self.gen_kwargs = dict(gen_kwargs or {})
        self.engine_kwargs = engine_kwargs(model, revision, max_images, self.model_args)
        self.model_name, self.revision = model, revision
        self.llm, self.render_prompt, self.params = llm, render_prompt, None
        self.needs_images, self.text_llm = needs_images, False
        self._sampling_params_cls = sampling_params_cls
        if llm is None or sampling_params_cls is None:
            setup_checks.require_backend("vllm")
            setup_checks.check_model_source(model, revision)

    def load(self) -> None:
        """Build the engine (once); the runner calls it after checking the run folder."""
        if self.params is not None:
            return
        if self.llm is None or self._sampling_params_cls is None:
            import vllm

            if self.llm is None:
                _check_engine_args(vllm, self.model_args)
                if self.render_prompt is None:
                    self.render_prompt = self._template(self.model_name, self.revision)  # fail before the engine
                try:
                    self.llm = vllm.LLM(**self.engine_kwargs)
                except TypeError as exc:
                    raise BadInput(f"vLLM refused the engine settings: {exc}", field="--model-args") from None
                except OSError as exc:
                    raise setup_checks.load_error(self.model_name, exc) from None
            self._sampling_params_cls = self._sampling_params_cls or vllm.SamplingParams
        if self.render_prompt is None:
            self.render_prompt = self._template(self.model_name, self.revision)
        self.params = self._sampling_params_cls(**sampling_options(self.gen_kwargs, self.max_new_tokens))

    def _template(self, model: str, revision: str | None) -> Callable[[list[dict[str, Any]]], str]:
        from transformers import AutoProcessor

        # explicit False: transformers never asks on a terminal whether to run a checkpoint's code
        kwargs: dict[str, Any] = {"revision": revision,
                                  "trust_remote_code": bool(self.model_args.get("trust_remote_code", False))}
        try:
            processor = AutoProcessor.from_pretrained(model, **kwargs)
        except OSError as exc:
            raise setup_checks.load_error(model, exc) from None
        except (ImportError, ValueError, TypeError, AttributeError):
            # a Qwen-VL video processor without a matching torchvision: the prompt text needs only the
            # tokenizer's chat template (vLLM does the image processing itself)
            from transformers import AutoTokenizer

            processor = AutoTokenizer.from_pretrained(model, **kwargs)
        if not hasattr(processor, "tokenizer"):  # AutoProcessor gave the tokenizer: a text-only model
            from transformers import AutoConfig

            from eval_kit.runners.backends.model_loading import is_text_llm

            config = AutoConfig.from_pretrained(model, **kwargs)
            self.text_llm = is_text_llm(config)
            if self.text_llm and self.needs_images:
                raise BadInput(f"{model!r} ({type(config).__name__}) is not a vision-language model: this "
                               "benchmark's prompts carry images", field="--model",
                               fix="pass a vision-language model (e.g. Qwen2.5-VL); text LLMs run on saferelbench")
        setup_checks.adopt_tokenizer_template(processor)
        setup_checks.require_chat_template(processor, model)

        def render_prompt(conversation: list[dict[str, Any]]) -> str:
            if self.text_llm:
                from eval_kit.runners.backends.hf_transformers import text_messages

                conversation = text_messages(conversation)
            return processor.apply_chat_template(conversation, tokenize=False, add_generation_prompt=True)

        return render_prompt

    def settings(self) -> dict[str, Any]:
        settings: dict[str, Any] = {"temperature": float(self.gen_kwargs.get("temperature", 0.0)),
                                    "max_tokens": self.max_new_tokens, "max_pixels": self.max_pixels}
        settings.update({k: v for k, v in self.gen_kwargs.items() if k not in ("temperature", "max_new_tokens")})
        if self.model_args:
            settings["model_args"] = self.model_args
        return settings

    def request(self, sample: Request) -> dict[str, Any]:
        """One `LLM.generate` input: the templated prompt plus the (size-capped) images."""
        self.load()
        prompt = self.render_prompt(fill_images(sample.messages, sample.images, lambda _img: {"type": "image"}))
        request: dict[str, Any] = {"prompt": prompt}
        if sample.images:
            images = [limit_pixels(img, self.max_pixels) for img in sample.images]
            request["multi_modal_data"] = {"image": images if len(images) > 1 else images[0]}
        return request

    def generate(self, samples: Sequence[Request]) -> list[str]:
        self.load()
        outputs = self.llm.generate([self.request(s) for s in samples], self.params, use_tqdm=False)
        return [out.outputs[0].text for out in outputs]
