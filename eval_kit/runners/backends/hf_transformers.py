"""Hugging Face transformers: `AutoModelForImageTextToText` + the processor's chat template, batched.

Left padding so every prompt ends where generation starts; images are capped at `max_pixels` before the
processor sees them (the Qwen-VL family turns every 28x28 patch into a token, so this bounds memory).
Decoding is greedy unless `gen_kwargs` set a temperature above 0. `model_args` reach `from_pretrained`:
`device_map="auto"` spreads a large model over the GPUs (then `--device` is not used), `dtype`,
`attn_implementation`, bitsandbytes quantization (`quantization.py`); remote code runs only with
`trust_remote_code=true` (every load passes `trust_remote_code=False` otherwise: `model_loading.py`).
`processor_args` are the image processor's settings (`processor_args.py`). The checkpoint's own processor
and quantization configs are part of the settings (`model_files.py`), so editing them never resumes a run.
Every family is checked against `eval_kit.runners.families` before anything loads (refused in one line
where it cannot run). A text-only causal LM (`AutoModelForCausalLM` with a chat template, the SafeRel
paper's Qwen2.5 / Qwen3 agents) runs on a benchmark whose prompts carry no images, through its tokenizer;
on an image benchmark it is refused. A sample with images whose inputs carry no image tokens or pixels
fails (`NoImageInputs`): a template that renders no image placeholder must not give text-only answers.
A family whose generate() needs pixels on every prompt (`families.text_placeholder`: InstructBLIP) gets, on a
benchmark whose prompts carry no images, one uniform grey image (`families.PLACEHOLDER_IMAGE`) before each
prompt's text: part of the settings (every key), said at run start (`notices`), in metadata.json.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from eval_kit.errors import BadInput
from eval_kit.runners import families, qformer_text
from eval_kit.runners.backends import model_files, quantization, setup_checks
from eval_kit.runners.backends import processor_args as processor_args_module
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
                 gen_kwargs: dict[str, Any] | None = None, processor_args: dict[str, Any] | None = None,
                 needs_images: bool = True) -> None:
        setup_checks.require_backend("transformers")
        setup_checks.check_model_source(model, revision)
        setup_checks.check_device(device)
        self.model_name, self.max_new_tokens, self.max_pixels = model, max_new_tokens, max_pixels
        self.revision, self.requested_device, self.dtype, self.use_fast = revision, device, dtype, use_fast
        self.model_args = dict(model_args or {})
        self.gen_kwargs = dict(gen_kwargs or {})
        self.processor_args = processor_args_module.check(dict(processor_args or {}))
        quantization.check(self.model_args)
        if self.model_args.get("device_map") is not None and device is not None:
            raise BadInput("--device and --model-args device_map=... both place the model", field="--device",
                           fix="pass only one of them")
        # the checkpoint's own processor configs, quantization config and template digest: part of the key
        self.checkpoint = model_files.checkpoint_settings(model, revision)
        quantization.check_checkpoint(self.checkpoint.get("quantization_config"), model)
        self.prompt_format = "chat_template"
        self.needs_images = needs_images  # False: the benchmark's prompts carry no images (SafeRelBench)
        # a family that cannot generate without pixels, on such a benchmark: why it gets the placeholder image
        model_type = (model_files.read_json_file(model, "config.json", revision) or {}).get("model_type")
        self.placeholder_reason = families.text_placeholder(str(model_type or ""), needs_images)
        self.placeholder_image: Any = None  # made at load, at the image processor's size
        self.model: Any = None

    def load(self) -> None:
        """Load the processor and the model (once); the runner calls it after checking the run folder."""
        if self.model is not None:
            return
        import torch

        from eval_kit.runners.backends import model_loading

        self.torch = torch
        model = self.model_name
        load = {k: v for k, v in self.model_args.items() if k not in quantization.NAMES}
        if "torch_dtype" in load:
            load["dtype"] = load.pop("torch_dtype")
        load["dtype"] = _dtype(torch, load.get("dtype", self.dtype))
        quantization_config = quantization.config_for(self.model_args)  # bitsandbytes + CUDA, else bad input
        if quantization_config is not None:
            load["quantization_config"] = quantization_config
            load.setdefault("device_map", self.requested_device or "auto")  # quantized weights are placed on load
        processor_kwargs: dict[str, Any] = {"trust_remote_code": bool(load.get("trust_remote_code", False))}
        use_fast = load.pop("use_fast", self.use_fast)
        if use_fast is not None:
            processor_kwargs["use_fast"] = use_fast
        # the config first: a checkpoint that needs its own code, or a family that cannot run here, is refused
        # before any processor or weight loads
        config = model_loading.load_config(model, self.revision, processor_kwargs["trust_remote_code"])
        families.check(config, model, needs_images=self.needs_images)
        self.family = families.title(getattr(config, "model_type", "") or type(config).__name__)
        text_llm = model_loading.is_text_llm(config)
        if text_llm and self.needs_images:
            raise BadInput(f"{model!r} ({type(config).__name__}) is not a vision-language model: this benchmark's "
                           "prompts carry images", field="--model",
                           fix="pass a vision-language model (e.g. Qwen2.5-VL); text LLMs run on saferelbench")
        if text_llm:
            self.processor = model_loading.load_tokenizer(model, self.revision, processor_kwargs)
            self.prompt_format = "text_llm"
            if self.processor_args:
                raise BadInput(f"{model!r} is a text LLM: it has no image processor for --processor-args",
                               field="--processor-args", fix="drop --processor-args")
            self.call_args = {}
        else:
            self.processor = model_loading.load_processor(model, self.revision, processor_kwargs)
            self.call_args = processor_args_module.apply(self.processor, self.processor_args, model)
            qformer_text.limit(self.processor, config)  # InstructBLIP: the Q-Former's text fits its positions
            self.prompt_format = prompt_format(self.processor)
            if self.placeholder_reason:
                self.placeholder_image = placeholder_image(self.processor)
        if self.prompt_format != "paligemma":
            # the template is checked on the object the run calls (a chat_template.jinja beside a processor
            # that has none, e.g. InstructBLIP's, reaches only the tokenizer: the processor is given it)
            setup_checks.adopt_tokenizer_template(self.processor)
            setup_checks.require_chat_template(self.processor, model)
        self.tokenizer = getattr(self.processor, "tokenizer", self.processor)
        self.tokenizer.padding_side = "left"
        if self.tokenizer.pad_token is None:
            self.tokenizer.pad_token = self.tokenizer.eos_token
        loaded = model_loading.load_model(model, self.revision, load, text_llm=text_llm)
        if load.get("device_map") is None and quantization_config is None:
            self.device = self.requested_device or ("cuda" if torch.cuda.is_available() else "cpu")
            loaded = loaded.to(self.device)
        else:
            self.device = loaded.device  # where the inputs go: the first shard's device
        self.model = loaded.eval()
        if self.prompt_format == "chat_template" and takes_modality_ids(self.model):
            # its mrope needs each token's modality; some processors (Cosmos 3 Edge's) do not return it unasked
            self.call_args = {**self.call_args, "return_mm_token_type_ids": True}

    @property
    def sampling(self) -> bool:
        return float(self.gen_kwargs.get("temperature", 0.0)) > 0

    def settings(self) -> dict[str, Any]:
        settings: dict[str, Any] = {"do_sample": self.sampling, "max_new_tokens": self.max_new_tokens,
                                    "max_pixels": self.max_pixels}
        settings.update({k: v for k, v in self.gen_kwargs.items() if k != "max_new_tokens"})
        if self.model_args:
            settings["model_args"] = self.model_args
        if self.processor_args:
            settings["processor_args"] = self.processor_args
        if self.checkpoint:
            settings["checkpoint"] = self.checkpoint
        if self.placeholder_reason:
            settings["placeholder_image"] = families.PLACEHOLDER_IMAGE
        return settings

    def notices(self) -> list[str]:
        if not self.placeholder_reason:
            return []
        size = "x".join(map(str, self.placeholder_image.size)) if self.placeholder_image is not None else "?"
        return [f"{self.family}: {self.placeholder_reason}, so each text-only prompt is sent with a placeholder "
                f"image ({size} uniform grey); metadata.json records it as placeholder_image"]

    def run_facts(self) -> dict[str, Any]:
        if not self.placeholder_reason:
            return {}
        return {"placeholder_image": f"{families.PLACEHOLDER_IMAGE}, before the text of every prompt: "
                                     f"{self.family}: {self.placeholder_reason}"}

    def images_of(self, sample: Request) -> list[Any]:
        """The images the model is given for `sample`: its own, or the placeholder where it has none and the
        family cannot generate without one."""
        if not sample.images and self.placeholder_image is not None:
            return [self.placeholder_image]
        return list(sample.images)

    def conversation(self, sample: Request) -> list[dict[str, Any]]:
        if self.prompt_format == "text_llm":  # a text LLM's template reads content as a string
            return text_messages(sample.messages)
        messages = sample.messages
        if not sample.images and self.placeholder_image is not None:
            messages = with_leading_image(messages)
        return fill_images(messages, self.images_of(sample),
                           lambda img: {"type": "image", "image": limit_pixels(img, self.max_pixels)})

    def inputs(self, samples: Sequence[Request]):
        """The batch as model inputs: chat template (or the family's own prompt format) applied, images
        capped, left-padded; `--processor-args` go with every call too (some processors' call defaults
        would otherwise win over the image processor's attributes)."""
        self.load()
        if self.prompt_format == "paligemma":
            return paligemma_inputs(self.processor, samples, self.max_pixels, self.call_args).to(self.device)
        conversations = [self.conversation(s) for s in samples]
        if self.prompt_format == "text_llm":
            return tokenizer_inputs(self.tokenizer, conversations, None).to(self.device)
        try:
            batch = self.processor.apply_chat_template(
                conversations, tokenize=True, add_generation_prompt=True, return_dict=True, return_tensors="pt",
                processor_kwargs={"padding": True, **self.call_args})
        except (ValueError, TypeError) as exc:
            if any(self.images_of(s) for s in samples):  # the family's name with the processor's own reason
                raise NoImageInputs(f"{self.family}: {' '.join(str(exc).split())[:160]}") from None
            # a text-only batch to a processor that insists on images (PaliGemma): the tokenizer, same template
            batch = tokenizer_inputs(self.tokenizer, [text_messages(s.messages) for s in samples],
                                     getattr(self.processor, "chat_template", None))
        check_images_reached(batch, samples, self.processor, self.family, model_image_token_id(self.model),
                             with_images=[bool(self.images_of(s)) for s in samples])
        half_pixels_to_model_dtype(batch, self.model)
        return batch.to(self.device)

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
            model_inputs = {k: v for k, v in self.processor_args.items() if k in processor_args_module.MODEL_INPUTS}
            out = self.model.generate(**inputs, **model_inputs, **self.generation_options())
        new_tokens = out[:, inputs["input_ids"].shape[1]:]
        texts = self.tokenizer.batch_decode(new_tokens, skip_special_tokens=True)
        return [cut_at_stop(t, self.gen_kwargs.get("stop")) for t in texts]

    def close(self) -> None:
        self.model = None


class NoImageInputs(ValueError):
    """A sample with images whose model inputs carry no image tokens or pixels: it would be answered blind."""


def takes_modality_ids(model: Any) -> bool:
    """Whether the model's forward takes `mm_token_type_ids` (text 0 / image 1 / video 2 per token)."""
    import inspect

    try:
        return "mm_token_type_ids" in inspect.signature(model.forward).parameters
    except (TypeError, ValueError):
        return False


def text_messages(messages: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """The messages with each content part list joined into one string (text-only templates read a string)."""
    out = []
    for message in messages:
        content = message["content"]
        if not isinstance(content, str):
            content = "".join(p.get("text", "") for p in content if p.get("type") == "text")
        out.append({**message, "content": content})
    return out


def tokenizer_inputs(tokenizer: Any, conversations: list[list[dict[str, Any]]], template: str | None) -> Any:
    """Left-padded token ids of the conversations through the tokenizer's chat template (or `template`)."""
    return tokenizer.apply_chat_template(conversations, chat_template=template, tokenize=True,
                                         add_generation_prompt=True, return_dict=True, return_tensors="pt",
                                         padding=True)


def _image_token_id(processor: Any) -> int | None:
    tokenizer = getattr(processor, "tokenizer", processor)
    value = getattr(processor, "image_token_id", None)
    if isinstance(value, int):
        return value
    token = getattr(processor, "image_token", None) or getattr(tokenizer, "image_token", None)
    if isinstance(token, str):
        found = tokenizer.convert_tokens_to_ids(token)
        if isinstance(found, int) and found != getattr(tokenizer, "unk_token_id", None):
            return found
    return None


def model_image_token_id(model: Any) -> int | None:
    """The token the model replaces with image features (its config's), where it names one."""
    config = getattr(model, "config", None)
    for name in ("image_token_id", "image_token_index"):
        value = getattr(config, name, None)
        if isinstance(value, int) and not isinstance(value, bool):
            return value
    return None


def half_pixels_to_model_dtype(batch: Any, model: Any) -> None:
    """Half-precision pixel values (Llama 4's image processor gives bfloat16, as the original does) in the
    model's dtype where it differs: its vision tower does not cast them. Float32 pixels are left as they are."""
    import torch

    dtype = getattr(model, "dtype", None)
    for key in [k for k in batch if "pixel_values" in k]:
        value = batch[key]
        if (isinstance(value, torch.Tensor) and value.dtype in (torch.bfloat16, torch.float16)
                and isinstance(dtype, torch.dtype) and dtype.is_floating_point and value.dtype != dtype):
            batch[key] = value.to(dtype)


def check_images_reached(batch: Any, samples: Sequence[Request], processor: Any, family: str,
                         model_token_id: int | None = None, with_images: Sequence[bool] | None = None) -> None:
    """Raise `NoImageInputs` when a sample has images but its row has no image token, or the batch no pixels.
    A row counts as having image tokens when it has the processor's image token or the model's
    (`model_token_id`): Ovis2's processor names its placeholder `<image>` but expands it to `<IMG_ATOM>`s.
    `with_images`: which samples were sent with an image (default: those that have one; the placeholder
    image counts too)."""
    flags = [bool(s.images) for s in samples] if with_images is None else list(with_images)
    with_images = [i for i, flag in enumerate(flags) if flag]
    if not with_images:
        return
    has_pixels = any("pixel" in key for key in batch)
    token_id = _image_token_id(processor)
    blind = []
    for i in with_images:
        row = batch["input_ids"][i]
        if not has_pixels or (token_id is not None and int((row == token_id).sum()) == 0
                              and (model_token_id is None or int((row == model_token_id).sum()) == 0)):
            blind.append(samples[i].id)
    if blind:
        what = "no pixels" if not has_pixels else "no image tokens"
        raise NoImageInputs(f"{family}: the model inputs of a sample with images carry {what} (the chat template "
                            "renders no image placeholder?); it would be answered text-only")


def placeholder_image(processor: Any) -> Any:
    """`families.PLACEHOLDER_IMAGE`: uniform mid-grey, at the size the image processor resizes to (224 x 224
    where it names none). Mid-grey is about the mean the processors normalise by, so its pixels are near 0."""
    from PIL import Image

    size = getattr(getattr(processor, "image_processor", None), "size", None)  # a dict or a SizeDict

    def edge(name: str) -> int | None:
        value = size.get(name) if isinstance(size, dict) else getattr(size, name, None)
        return int(value) if isinstance(value, int) and not isinstance(value, bool) and value > 0 else None

    if edge("height") and edge("width"):
        width, height = edge("width"), edge("height")
    else:
        width = height = edge("shortest_edge") or 224
    return Image.new("RGB", (width, height), (128, 128, 128))


def with_leading_image(messages: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """The messages with one image part before the first user turn's text (where the placeholder goes)."""
    out = [dict(m) for m in messages]
    for message in out:
        if message.get("role") == "user":
            content = message["content"]
            parts = [{"type": "text", "text": content}] if isinstance(content, str) else list(content)
            message["content"] = [{"type": "image"}, *parts]
            break
    return out


def prompt_format(processor: Any) -> str:
    """"chat_template", or "paligemma" for a PaliGemma processor without a chat template (its own format)."""
    tokenizer = getattr(processor, "tokenizer", processor)
    has_template = getattr(processor, "chat_template", None) or getattr(tokenizer, "chat_template", None)
    if not has_template and type(processor).__name__ == "PaliGemmaProcessor":
        return "paligemma"
    return "chat_template"


# PaliGemma's prompt (big_vision's prefix format): image tokens, <bos>, a task prefix and the question, "\n".
PALIGEMMA_PREFIX = "answer en "


def paligemma_text(sample: Request) -> str:
    """The conversation as one prefix: every text part in order (a retry's earlier turns included)."""
    parts = []
    for message in sample.messages:
        content = message["content"]
        texts = [content] if isinstance(content, str) else [p["text"] for p in content if p.get("type") == "text"]
        parts.extend(t for t in texts if t)
    return PALIGEMMA_PREFIX + "\n".join(parts)


def paligemma_inputs(processor: Any, samples: Sequence[Request], max_pixels: int | None,
                     processor_args: dict[str, Any]) -> Any:
    """PaliGemma inputs; a text-only batch (SafeRelBench) goes through the tokenizer alone (the processor
    insists on images), with the same <bos> + prefix + "\n" format."""
    tokenizer = processor.tokenizer
    bos = tokenizer.bos_token or ""
    with_images = [bool(s.images) for s in samples]
    if any(with_images) and not all(with_images):
        raise ValueError("a PaliGemma batch mixes samples with and without images")
    if not any(with_images):
        return tokenizer([bos + paligemma_text(s) + "\n" for s in samples], padding=True, return_tensors="pt",
                         add_special_tokens=False)
    # the processor puts <bos> after the image tokens and "\n" at the end itself
    texts = [processor.image_token * len(s.images) + paligemma_text(s) for s in samples]
    images = [[limit_pixels(img, max_pixels) for img in s.images] for s in samples]
    batch = processor(text=texts, images=images, padding=True, return_tensors="pt", **processor_args)
    batch.pop("labels", None)
    return batch


def cut_at_stop(text: str, stop: list[str] | None) -> str:
    """The text before the first stop string (vLLM and OpenAI servers leave the stop string out too)."""
    if not stop:
        return text
    ends = [i for i in (text.find(s) for s in stop) if i >= 0]
    return text[: min(ends)] if ends else text
