"""bitsandbytes quantization through `--model-args`, and the checkpoint's own `quantization_config`.

`--model-args load_in_4bit=true,bnb_4bit_quant_type=nf4,bnb_4bit_use_double_quant=true,bnb_4bit_compute_dtype=float16`
(the BD-HazardVLM paper's Qwen2.5-VL-7B) or `load_in_8bit=true` (its InternVL3-8B) become a
`transformers.BitsAndBytesConfig` passed to `from_pretrained(quantization_config=...)`. The names are
bitsandbytes' own. Quantized layers need bitsandbytes and a CUDA GPU (its 4-bit Linear fails on CPU), so
either missing is one line of bad input before the model loads, never an internal error; the same holds
for a checkpoint whose config.json already carries a bitsandbytes `quantization_config`.
"""

from __future__ import annotations

import importlib.util
from typing import Any

from eval_kit.errors import BadInput

FIELD = "--model-args"
FLAGS = ("load_in_4bit", "load_in_8bit", "bnb_4bit_use_double_quant")
QUANT_TYPES = ("nf4", "fp4")
COMPUTE_DTYPES = ("float16", "bfloat16", "float32")
NAMES = (*FLAGS, "bnb_4bit_quant_type", "bnb_4bit_compute_dtype")
# what works without bitsandbytes or CUDA; with a preset, `load_in_4bit=false` also drops its bnb_4bit_* settings
UNQUANTIZED = "--model-args load_in_4bit=false (or load_in_8bit=false), e.g. with dtype=bfloat16"


def requested(model_args: dict[str, Any]) -> dict[str, Any]:
    """The quantization settings among `model_args` (those named in NAMES)."""
    return {k: v for k, v in model_args.items() if k in NAMES}


def check(model_args: dict[str, Any]) -> None:
    """Kinds and combinations, without imports: one of 4-bit or 8-bit, 4-bit options only with 4-bit."""
    quant = requested(model_args)
    if not quant:
        return
    for name in FLAGS:
        if name in quant and not isinstance(quant[name], bool):
            raise BadInput(f"{name}={quant[name]!r} is not true or false", field=FIELD, fix=f"write {name}=true")
    if quant.get("bnb_4bit_quant_type", "nf4") not in QUANT_TYPES:
        raise BadInput(f"bnb_4bit_quant_type={quant['bnb_4bit_quant_type']!r} is not a 4-bit type", field=FIELD,
                       fix=f"use {' or '.join(QUANT_TYPES)}")
    if quant.get("bnb_4bit_compute_dtype", "float16") not in COMPUTE_DTYPES:
        raise BadInput(f"bnb_4bit_compute_dtype={quant['bnb_4bit_compute_dtype']!r} is not a compute dtype",
                       field=FIELD, fix=f"use {', '.join(COMPUTE_DTYPES)}")
    four, eight = quant.get("load_in_4bit", False), quant.get("load_in_8bit", False)
    if four and eight:
        raise BadInput("load_in_4bit and load_in_8bit are both true", field=FIELD, fix="choose one")
    extras = sorted(k for k in quant if k.startswith("bnb_4bit_"))
    if extras and not four:
        raise BadInput(f"{extras[0]} applies only with load_in_4bit=true", field=FIELD,
                       fix="add load_in_4bit=true or drop the bnb_4bit_* settings")


def require_runtime(what: str, instead: str = UNQUANTIZED) -> None:
    """bitsandbytes installed and a CUDA GPU visible, else one line naming what is missing and what works."""
    if importlib.util.find_spec("bitsandbytes") is None:
        raise BadInput(f"{what} needs bitsandbytes, which is not installed", field=FIELD,
                       fix="pip install bitsandbytes (on a machine with a CUDA GPU), or run unquantized: " + instead)
    import torch

    if not torch.cuda.is_available():
        raise BadInput(f"{what} needs a CUDA GPU (bitsandbytes' quantized layers do not run on CPU); torch sees none",
                       field=FIELD, fix="run on a CUDA machine, or run unquantized: " + instead)


def config_for(model_args: dict[str, Any]) -> Any | None:
    """A `BitsAndBytesConfig` for the requested quantization (None without one); checks the runtime first."""
    quant = requested(model_args)
    if not (quant.get("load_in_4bit") or quant.get("load_in_8bit")):
        return None
    bits = "4-bit" if quant.get("load_in_4bit") else "8-bit"
    require_runtime(f"{bits} quantization")
    import torch
    from transformers import BitsAndBytesConfig

    options: dict[str, Any] = {k: v for k, v in quant.items() if k != "bnb_4bit_compute_dtype"}
    if "bnb_4bit_compute_dtype" in quant:
        options["bnb_4bit_compute_dtype"] = getattr(torch, quant["bnb_4bit_compute_dtype"])
    return BitsAndBytesConfig(**options)


def check_checkpoint(quantization_config: dict[str, Any] | None, model: str) -> None:
    """A checkpoint saved quantized (config.json `quantization_config`) needs its library before loading."""
    if not quantization_config:
        return
    method = str(quantization_config.get("quant_method", "")).lower()
    if method == "bitsandbytes":
        require_runtime(f"the checkpoint {model!r} (saved with a bitsandbytes quantization_config)",
                        instead="load an unquantized checkpoint of the model")
