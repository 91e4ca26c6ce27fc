"""Model-setup problems found before (or while) a model loads, each as one line of bad input with its fix.

A missing local folder, a Hub id that is not cached while the Hub is offline, a backend whose extra is not
installed, a device this machine lacks, a processor without a chat template: each used to end as an
`internal error` from deep inside a library. They are user errors, so they exit 2 naming the fix.
"""

from __future__ import annotations

import importlib.util
import os
from pathlib import Path
from typing import Any

from eval_kit.errors import BadInput

# what `pip install "hazardkit[...]"` brings each backend; the modules it must be able to import
BACKEND_NEEDS: dict[str, tuple[str, tuple[str, ...]]] = {
    "transformers": ("models", ("torch", "transformers")),
    "vllm": ("vllm", ("vllm", "transformers")),
    "openai": ("openai", ("httpx",)),
}


def installed(module: str) -> bool:
    """Whether `module` can be imported, without importing it (vllm takes seconds to import)."""
    try:
        return importlib.util.find_spec(module) is not None
    except (ImportError, ValueError):
        return False


def require_backend(backend: str) -> None:
    """Bad input naming the extra to install when the backend's library is missing."""
    extra, modules = BACKEND_NEEDS.get(backend, ("", ()))
    for module in modules:
        if not installed(module):
            raise BadInput(f"the {backend} backend needs {module}, which is not installed", field="--backend",
                           fix=f'pip install "hazardkit[{extra}]"'
                               + (" (and a torch build for your machine)" if module == "torch" else ""))


def hub_offline() -> bool:
    """True when Hugging Face Hub access is switched off (HF_HUB_OFFLINE / TRANSFORMERS_OFFLINE)."""
    for name in ("HF_HUB_OFFLINE", "TRANSFORMERS_OFFLINE"):
        if os.environ.get(name, "").strip().lower() in ("1", "true", "yes", "on"):
            return True
    return False


def looks_local(model: str) -> bool:
    """A path rather than a Hub id (`org/name`): absolute, relative, home-relative, or more than one slash."""
    return model.startswith(("/", "./", "../", "~", ".")) or model.count("/") > 1 or Path(model).exists()


def check_model_source(model: str, revision: str | None = None) -> None:
    """A local model folder must exist and hold config.json; a Hub id must be cached when the Hub is offline."""
    if looks_local(model):
        path = Path(model).expanduser()
        if not path.exists():
            raise BadInput("model folder not found", path=model, field="--model",
                           fix="check the path, or pass a Hub id such as Qwen/Qwen2.5-VL-7B-Instruct")
        if not (path / "config.json").is_file():
            raise BadInput("not a model folder (no config.json)", path=model, field="--model",
                           fix="pass the folder that holds config.json, the weights and the processor files")
        return
    if not hub_offline():
        return
    from huggingface_hub import try_to_load_from_cache
    from huggingface_hub.errors import HFValidationError

    try:
        found = try_to_load_from_cache(model, "config.json", revision=revision)
    except HFValidationError:
        raise BadInput(f"{model!r} is neither a local folder nor a Hub id", field="--model",
                       fix="pass a model folder or an id like Qwen/Qwen2.5-VL-7B-Instruct") from None
    if not isinstance(found, str):
        at = f" at revision {revision}" if revision else ""
        raise BadInput(f"model {model!r}{at} is not in the local Hugging Face cache and the Hub is offline "
                       "(HF_HUB_OFFLINE=1)", field="--model",
                       fix=f"download it where the Hub is reachable (`hf download {model}`) into HF_HOME, "
                           "or pass a local folder")


def load_error(model: str, exc: BaseException) -> BadInput:
    """A model or processor that would not load (not found, no network, wrong files) as bad input."""
    first = " ".join(str(exc).split())[:300] or type(exc).__name__
    return BadInput(f"cannot load model {model!r}: {first}", field="--model",
                    fix="check --model and --revision; without network set HF_HUB_OFFLINE=1 and use a cached copy")


def check_device(device: str | None) -> None:
    """`--device` must parse as a torch device that this machine has."""
    if device is None:
        return
    import torch

    try:
        parsed = torch.device(device)
    except (RuntimeError, ValueError):
        raise BadInput(f"{device!r} is not a torch device", field="--device",
                       fix="use cpu, cuda, cuda:N or mps") from None
    fix = "drop --device (the GPU is used when there is one, else the CPU) or pass --device cpu"
    if parsed.type == "cuda":
        if not torch.cuda.is_available():
            raise BadInput(f"device {device!r} is not available: torch sees no CUDA GPU "
                           f"(torch {torch.__version__}, CUDA build {torch.version.cuda or 'none'})",
                           field="--device", fix=fix)
        if parsed.index is not None and parsed.index >= torch.cuda.device_count():
            raise BadInput(f"device {device!r} is not available: this machine has {torch.cuda.device_count()} "
                           "CUDA device(s)", field="--device", fix="use cuda:0 ... or drop the index")
    elif parsed.type != "cpu":
        module: Any = getattr(torch.backends, parsed.type, None) or getattr(torch, parsed.type, None)
        available = getattr(module, "is_available", None)
        if available is None or not available():
            raise BadInput(f"device {device!r} is not available on this machine", field="--device", fix=fix)


def adopt_tokenizer_template(processor: Any) -> None:
    """Give a processor without a chat template its tokenizer's (a `chat_template.jinja` beside a processor
    whose class has no template, InstructBLIP's, is read into the tokenizer only): the run calls the processor."""
    tokenizer = getattr(processor, "tokenizer", None)
    if tokenizer is not None and not getattr(processor, "chat_template", None):
        template = getattr(tokenizer, "chat_template", None)
        if template:
            processor.chat_template = template


def require_chat_template(processor: Any, model: str) -> None:
    """The prompt comes from the model's chat template, rendered by the object the run calls (the processor,
    or a text LLM's tokenizer): a base model without one cannot be asked."""
    if getattr(processor, "chat_template", None):
        return
    raise BadInput(f"the processor of {model!r} has no chat template", field="--model",
                   fix="use an instruction-tuned (chat) model, or add chat_template.jinja to the model folder")
