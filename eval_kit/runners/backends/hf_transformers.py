"""Hugging Face transformers: `AutoModelForImageTextToText` + the processor's chat template, batched.

Left padding so every prompt ends where generation starts; images are capped at `max_pixels` before the
processor sees them (the Qwen-VL family turns every 28x28 patch into a token, so this bounds memory).
Decoding is greedy unless `gen_kwargs` set a temperature above 0. `model_args` reach `from_pretrained`:
`device_map="auto"` spreads a large model over the GPUs (then `--device` is not used), `dtype`,
`attn_implementation`; remote code runs only with `trust_remote_code=true`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from eval_kit.errors import BadInput
from eval_kit.runners.backends import setup_checks
from eval_kit.runners.backends.base import Backend, fill_images, limit_pixels
from eval_kit.runners.task import Request


def _dtype(torch: Any, value: Any) -> Any:
    if value in (None, "auto") or not isinstance(value, str):
        return value
    dtype = getattr(torch, value.removeprefix("torch."), None)
    if not isinstance(dtype, torch.dtype):
        raise BadInput(f"dtype={value!r} is not a torch dtype", field="--model-args",
                       fix="use auto, bfloat16, float16 or float32")
    return dtype


class TransformersBackend(Backend):
    """`model` is a Hub id or a local folder with the model and its processor."""

    name = "transformers"

    def __init__(self, model: str, *, max_new_tokens: int = 256, max_pixels: int | None = 1024 * 28 * 28,
                 device: str | None = None, dtype: str = "auto", use_fast: bool | None = None,
                 revision: str | None = None, model_args: dict[str, Any] | None = None,
                 gen_kwargs: dict[str, Any] | None = None) -> None:
        setup_checks.require_backend("transformers")
        setup_checks.check_model_source(model, revision)
        setup_checks.check_device(device)
        self.model_name, self.max_new_tokens, self.max_pixels = model, max_new_tokens, max_pixels
        self.revision, self.requested_device, self.dtype, self.use_fast = revision, device, dtype, use_fast
        self.model_args = dict(model_args or {})
        self.gen_kwargs = dict(gen_kwargs or {})
        if self.model_args.get("device_map") is not None and device is not None:
            raise BadInput("--device and --model-args device_map=... both place the model", field="--device",
                           fix="pass only one of them")
        self.model: Any = None

    def load(self) -> None:
        """Load the processor and the model (once); the runner calls it after checking the run folder."""
        if self.model is not None:
            return
        import torch
        from transformers import AutoModelForImageTextToText, AutoProcessor

        self.torch = torch
        model = self.model_name
        load = dict(self.model_args)
        if "torch_dtype" in load:
            load["dtype"] = load.pop("torch_dtype")
        load["dtype"] = _dtype(torch, load.get("dtype", self.dtype))
        processor_kwargs: dict[str, Any] = {}
        if "trust_remote_code" in load:
            processor_kwargs["trust_remote_code"] = load["trust_remote_code"]
        use_fast = load.pop("use_fast", self.use_fast)
        if use_fast is not None:
            processor_kwargs["use_fast"] = use_fast
        self.processor = self._processor(model, AutoProcessor, processor_kwargs, self.revision)
        setup_checks.require_chat_template(self.processor, model)
        self.tokenizer = getattr(self.processor, "tokenizer", self.processor)
        self.tokenizer.padding_side = "left"
        if self.tokenizer.pad_token is None:
            self.tokenizer.pad_token = self.tokenizer.eos_token
        try:
            loaded = AutoModelForImageTextToText.from_pretrained(model, revision=self.revision, **load)
        except OSError as exc:
            raise setup_checks.load_error(model, exc) from None
        except ValueError as exc:
            if "Unrecognized configuration class" in str(exc):
                raise BadInput(f"{model!r} is not an image-text-to-text model transformers can load",
                               field="--model", fix="pass a vision-language chat model (e.g. Qwen2.5-VL)") from None
            raise
        if load.get("device_map") is None:
            self.device = self.requested_device or ("cuda" if torch.cuda.is_available() else "cpu")
            loaded = loaded.to(self.device)
        else:
            self.device = loaded.device  # where the inputs go: the first shard's device
        self.model = loaded.eval()

    @staticmethod
    def _processor(model: str, auto_processor: Any, kwargs: dict[str, Any], revision: str | None = None) -> Any:
        """The model's processor; for Qwen-VL without torchvision, the image-only one (same pixels, no video)."""
        from eval_kit.runners.qwen_image_processor import family_of, load_image_only_processor

        try:
            processor = auto_processor.from_pretrained(model, revision=revision, **kwargs)
        except OSError as exc:
            raise setup_checks.load_error(model, exc) from None
        except (ImportError, ValueError, TypeError, AttributeError):
            processor = None  # Qwen-VL video processors need a torchvision matching torch
        if processor is None or not hasattr(processor, "image_processor"):
            family = family_of(model, revision)
            if family is None:
                raise BadInput(f"cannot build an image processor for {model!r}", field="--model",
                               fix="install a torchvision matching torch, or use a model whose processor needs none")
            processor = load_image_only_processor(model, revision, family=family)
        return processor

    @property
    def sampling(self) -> bool:
        return float(self.gen_kwargs.get("temperature", 0.0)) > 0

    def settings(self) -> dict[str, Any]:
        settings: dict[str, Any] = {"do_sample": self.sampling, "max_new_tokens": self.max_new_tokens,
                                    "max_pixels": self.max_pixels}
        settings.update({k: v for k, v in self.gen_kwargs.items() if k != "max_new_tokens"})
        if self.model_args:
            settings["model_args"] = self.model_args
        return settings

    def conversation(self, sample: Request) -> list[dict[str, Any]]:
        return fill_images(sample.messages, sample.images,
                           lambda img: {"type": "image", "image": limit_pixels(img, self.max_pixels)})

    def inputs(self, samples: Sequence[Request]):
        """The batch as model inputs: chat template applied, images capped, left-padded."""
        self.load()
        return self.processor.apply_chat_template(
            [self.conversation(s) for s in samples], tokenize=True, add_generation_prompt=True,
            return_dict=True, return_tensors="pt", processor_kwargs={"padding": True},
        ).to(self.device)

    def generation_options(self) -> dict[str, Any]:
        options: dict[str, Any] = {"do_sample": self.sampling, "max_new_tokens": self.max_new_tokens}
        if self.sampling:
            options.update({k: self.gen_kwargs[k] for k in ("temperature", "top_p", "top_k") if k in self.gen_kwargs})
        if "stop" in self.gen_kwargs:
            options.update(stop_strings=self.gen_kwargs["stop"], tokenizer=self.tokenizer)
        return options

    def generate(self, samples: Sequence[Request]) -> list[str]:
        inputs = self.inputs(samples)
        if self.sampling and "seed" in self.gen_kwargs:
            self.torch.manual_seed(int(self.gen_kwargs["seed"]))
        with self.torch.inference_mode():
            out = self.model.generate(**inputs, **self.generation_options())
        new_tokens = out[:, inputs["input_ids"].shape[1]:]
        texts = self.processor.batch_decode(new_tokens, skip_special_tokens=True)
        return [cut_at_stop(t, self.gen_kwargs.get("stop")) for t in texts]

    def close(self) -> None:
        self.model = None


def cut_at_stop(text: str, stop: list[str] | None) -> str:
    """The text before the first stop string (vLLM and OpenAI servers leave the stop string out too)."""
    if not stop:
        return text
    ends = [i for i in (text.find(s) for s in stop) if i >= 0]
    return text[: min(ends)] if ends else text
