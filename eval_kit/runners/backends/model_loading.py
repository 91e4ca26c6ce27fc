"""Load a checkpoint's processor and model for the transformers backend, whatever its family.

- Auto classes are tried in order: `AutoModelForImageTextToText` (most VLMs), then `AutoModelForMultimodalLM`
  and `AutoModelForCausalLM` (Phi-4-multimodal's `Phi4MultimodalForCausalLM` is registered only there). The
  class is chosen from the config, so a text-only model is refused in one line before any weight loads.
- The processor comes from `AutoProcessor`; where that fails for want of torchvision (the video processor)
  the image-only processor of the same class is built (`eval_kit.runners.image_only`, the Qwen-VL one;
  Pixtral's and Mistral 3's from `eval_kit.runners.pixtral_processor`). When nothing can be built, the error
  names the real cause (`processor_error`): "needs torchvision" only for a torchvision-only class where
  torchvision is not importable.
- A text-only causal LM (in `AutoModelForCausalLM`'s mapping, with no vision config) loads with its tokenizer
  for benchmarks whose prompts carry no images (`is_text_llm`, `load_tokenizer`).
- `trust_remote_code=False` is passed to every `from_pretrained`, so transformers never asks on a terminal
  whether to run a checkpoint's code, and never runs it; `--model-args trust_remote_code=true` opts in.
"""

from __future__ import annotations

from typing import Any

from eval_kit.errors import BadInput
from eval_kit.runners.backends import setup_checks

AUTO_CLASSES = ("AutoModelForImageTextToText", "AutoModelForMultimodalLM", "AutoModelForCausalLM")


def load_config(model: str, revision: str | None, trust_remote_code: bool) -> Any:
    from transformers import AutoConfig

    try:
        return AutoConfig.from_pretrained(model, revision=revision, trust_remote_code=trust_remote_code)
    except OSError as exc:
        raise setup_checks.load_error(model, exc) from None
    except ValueError as exc:
        text = " ".join(str(exc).split())
        if "trust_remote_code" in text or "custom code" in text:
            raise BadInput(f"{model!r} needs its own code (remote code), which hazardkit does not run unasked",
                           field="--model", fix="review the code, then pass --model-args trust_remote_code=true, "
                                                "or use a transformers-native checkpoint (often named -hf)") from None
        raise setup_checks.load_error(model, exc) from None


def _mapped(config: Any, name: str) -> bool:
    import transformers

    auto = getattr(transformers, name, None)
    if auto is None:
        return False
    if type(config) in auto._model_mapping:  # the mapping the auto class consults
        return True
    # a remote-code config (trust_remote_code=true) names its classes in auto_map
    return name in (getattr(config, "auto_map", None) or {})


def is_text_llm(config: Any) -> bool:
    """A causal LM without vision: loadable by AutoModelForCausalLM only, with no vision config."""
    return (not any(_mapped(config, name) for name in AUTO_CLASSES[:2]) and _mapped(config, "AutoModelForCausalLM")
            and not _has_vision(config))


def auto_class_for(config: Any, model: str, *, text_llm: bool = False) -> Any:
    """The first auto class whose mapping has this config's class; one line of bad input when none has it.
    A text-only causal LM is loaded only when `text_llm` (its benchmark needs no images)."""
    import transformers

    for name in AUTO_CLASSES:
        if _mapped(config, name):
            if name == "AutoModelForCausalLM" and not _has_vision(config) and not text_llm:
                break
            return getattr(transformers, name)
    raise BadInput(f"{model!r} ({type(config).__name__}) is not a vision-language model transformers can load",
                   field="--model",
                   fix="pass a vision-language chat model (e.g. Qwen2.5-VL, InternVL3, Phi-4-multimodal)")


def _has_vision(config: Any) -> bool:
    return getattr(config, "vision_config", None) is not None or any(
        "image" in k or "vision" in k for k in config.to_dict())


def load_processor(model: str, revision: str | None, kwargs: dict[str, Any]) -> Any:
    """The checkpoint's processor; without torchvision, the image-only processor of the same class. When
    neither can be built, one line naming the real cause (a missing package, torchvision for a
    torchvision-only class, missing tokenizer files, a bad setting), never a guess."""
    from transformers import AutoProcessor

    from eval_kit.runners import image_only
    from eval_kit.runners.qwen_image_processor import family_of, load_image_only_processor

    kwargs = {"trust_remote_code": False, **kwargs}
    failure: BaseException | None = None
    try:
        processor = AutoProcessor.from_pretrained(model, revision=revision, **kwargs)
    except OSError as exc:
        raise setup_checks.load_error(model, exc) from None
    except (ImportError, ValueError, TypeError, AttributeError, RecursionError, RuntimeError) as exc:
        # often a video processor that needs a torchvision matching torch (RecursionError: a processor class
        # named *VideoProcessor, LLaVA-NeXT-Video / Video-LLaVA, that AutoVideoProcessor resolves to itself;
        # RuntimeError: transformers' lazy import of a module whose import failed, e.g. a torchvision built for
        # another torch); kept, so that when no fallback applies the error names the real cause
        processor, failure = None, exc
    if processor is not None and hasattr(processor, "image_processor"):
        return processor
    trust = {k: v for k, v in kwargs.items() if k == "trust_remote_code"}
    try:
        from eval_kit.runners import pixtral_processor

        if pixtral_processor.is_pixtral(model, revision):  # Pixtral / Mistral 3: PIL image processor
            return pixtral_processor.load(model, revision, **trust)
        fallback = image_only.load(model, revision, **trust)
        if fallback is not None:
            return fallback
        family = family_of(model, revision, **trust)
        if family is not None:
            return load_image_only_processor(model, revision, family=family, **trust)
    except OSError as exc:
        raise setup_checks.load_error(model, exc) from None
    except (ImportError, ValueError, TypeError, AttributeError, KeyError, RuntimeError) as exc:
        # the fallback's own error is the cause when the first failure was the torchvision it works around
        cause = failure if failure is not None and not _torchvision_cause(failure) else exc
        raise processor_error(model, cause) from None
    if failure is not None:
        raise processor_error(model, failure) from None
    raise BadInput(f"cannot build an image processor for {model!r}: its processor files give no image processor "
                   f"(AutoProcessor returned a {type(processor).__name__})", field="--model",
                   fix="check the checkpoint's preprocessor_config.json / processor_config.json, or pass a "
                       "vision-language checkpoint")


# "X requires the Torchvision library", "Package `num2words` is required", "Missing optional dependencies: a, b."
_PACKAGE_PATTERNS = (r"requires the ([\w.-]+) library", r"[Pp]ackage `?([\w.-]+)`? is required",
                     r"Missing optional dependencies: ([\w, .-]+?)\.(?:\s|$)", r"No module named '([\w.]+)'")
_CLASS_LIST = r"following (?:image |video )?processor classes: (.*?)\. None of these"
_PACKAGE_NAMES = {"pytorch": "torch", "pil": "Pillow", "vision": "Pillow"}


def _missing_backends(class_name: str) -> list[str]:
    """The packages a transformers class needs that are not importable here (its placeholder's backends)."""
    import transformers
    from transformers.utils.import_utils import BACKENDS_MAPPING

    placeholder = getattr(transformers, class_name, None) if class_name.isidentifier() else None
    backends = getattr(placeholder, "_backends", None) or []
    return [b for b in backends if b in BACKENDS_MAPPING and not BACKENDS_MAPPING[b][0]()]


def missing_packages(exc: BaseException) -> tuple[list[str], list[str]]:
    """(classes, packages): the transformers classes the error says could not be built and the packages it
    says are missing (by its text, or by the backends of the classes it lists as not importable)."""
    import re

    text = " ".join(str(exc).split())
    found: list[str] = []
    classes = re.findall(r"(\w+) requires the [\w.-]+ library", text)
    if isinstance(exc, ModuleNotFoundError) and exc.name:
        found.append(exc.name)
    for pattern in _PACKAGE_PATTERNS:
        for match in re.findall(pattern, text):
            found += [part.strip() for part in match.split(",") if part.strip()]
    for listed in re.findall(_CLASS_LIST, text):
        for item in listed.split(","):
            classes.append(item.split(":")[-1].strip())
            found += _missing_backends(classes[-1])
    packages = [_PACKAGE_NAMES.get(name.lower(), name.lower().split(".")[0]) for name in found]
    return list(dict.fromkeys(classes)), list(dict.fromkeys(packages))


def torchvision_importable() -> bool:
    """torchvision is installed (as transformers sees it) and imports (a build for another torch does not)."""
    from transformers.utils import is_torchvision_available

    if not is_torchvision_available():
        return False
    try:
        import torchvision  # noqa: F401
    except Exception:  # a torchvision built for another torch fails in its own ways (RuntimeError, OSError)
        return False
    return True


def _torchvision_cause(exc: BaseException) -> bool:
    """The failure is a torchvision-only class on a machine where torchvision is not importable."""
    if torchvision_importable():
        return False
    return "torchvision" in missing_packages(exc)[1] or isinstance(exc, RecursionError)


def processor_error(model: str, exc: BaseException) -> BadInput:
    """One line naming why the processor could not be built, with the fix for that cause."""
    from eval_kit.runners.families import TV_FIX

    text = " ".join(str(exc).split())
    classes, packages = missing_packages(exc)
    named = f"its {', '.join(classes)}" if classes else "its processor"
    if _torchvision_cause(exc):
        others = [p for p in packages if p != "torchvision"]
        what = ("its video processor needs torchvision" if isinstance(exc, RecursionError) else
                f"{named} needs torchvision") + ", which is not importable here"
        if others:
            what += f"; it also needs {', '.join(others)}, not installed"
        return BadInput(f"cannot build the processor of {model!r}: {what}", field="--model",
                        fix=TV_FIX + (f", and pip install {' '.join(others)}" if others else ""))
    packages = [p for p in packages if p != "torchvision"]  # importable here: not the cause
    if packages:
        plural = "s" if len(packages) > 1 else ""
        return BadInput(f"cannot build the processor of {model!r}: {named} needs the {', '.join(packages)} "
                        f"package{plural}, not installed here ({_first_sentence(exc)})", field="--model",
                        fix=f"pip install {' '.join(packages)}")
    if "instantiate the backend tokenizer" in text:
        return BadInput(f"cannot build the processor of {model!r}: its tokenizer cannot be built: the checkpoint "
                        "has no tokenizer.json, and converting its slow tokenizer needs sentencepiece or tiktoken",
                        field="--model", fix="restore the checkpoint's tokenizer files (tokenizer.json), or pip "
                                             "install sentencepiece")
    return BadInput(f"cannot build the processor of {model!r}: {type(exc).__name__}: {_first_sentence(exc)}",
                    field="--model", fix="check the checkpoint's processor files (processor_config.json, "
                                         "preprocessor_config.json, tokenizer files) against its model card")


def load_tokenizer(model: str, revision: str | None, kwargs: dict[str, Any]) -> Any:
    """A text LLM's tokenizer (its chat template renders the prompt)."""
    from transformers import AutoTokenizer

    try:
        return AutoTokenizer.from_pretrained(model, revision=revision, **{"trust_remote_code": False, **kwargs})
    except (OSError, ValueError) as exc:
        raise setup_checks.load_error(model, exc) from None


def load_model(model: str, revision: str | None, load: dict[str, Any], *, text_llm: bool = False) -> Any:
    """`from_pretrained` of the config's auto class, with `trust_remote_code=False` unless asked."""
    trust = bool(load.get("trust_remote_code", False))
    config = load_config(model, revision, trust)
    auto = auto_class_for(config, model, text_llm=text_llm)
    try:
        return work_around_known_bugs(auto.from_pretrained(model, revision=revision,
                                                           **{**load, "trust_remote_code": trust}))
    except OSError as exc:
        raise setup_checks.load_error(model, exc) from None
    except ImportError as exc:  # a library the model's code or its quantization method imports is missing
        quantized = "quantization_config" in config.to_dict()
        raise BadInput(f"cannot load {model!r}: {_first_sentence(exc)}", field="--model",
                       fix="install the library it names" + (", or use an unquantized checkpoint" if quantized
                                                             else "")) from None


def work_around_known_bugs(model: Any) -> Any:
    """The loaded model, with a fix for a bug of the pinned transformers that breaks every call of it.

    transformers 5.24's `Llama4ForConditionalGeneration.forward` builds its output with
    `image_outputs=outputs.image_outputs`, where `outputs` is its language model's `MoeCausalLMOutputWithPast`,
    which has no such field: every forward, with images or without, fails with an AttributeError. A forward
    hook on the language model gives its output that field (None, as for a text-only step) where it lacks it;
    a transformers without the bug never reaches the hook's assignment."""
    if not any(cls.__name__ == "Llama4ForConditionalGeneration" for cls in type(model).__mro__):
        return model

    def add_image_outputs(module: Any, args: Any, output: Any) -> Any:
        if not isinstance(output, tuple) and not hasattr(output, "image_outputs"):
            output.image_outputs = None
        return output

    language_model = getattr(model, "language_model", None)
    if language_model is not None:
        language_model.register_forward_hook(add_image_outputs)
    return model


def _first_sentence(exc: BaseException) -> str:
    """The error's first sentence, whole (never cut mid-word), or its type when it has no text."""
    text = " ".join(str(exc).split())
    if not text:
        return type(exc).__name__
    end = text.find(". ")
    if end < 0 and len(text) <= 300:
        return text
    return text[: end + 1] if 0 < end < 300 else text[:300].rsplit(" ", 1)[0]
