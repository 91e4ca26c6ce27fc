"""`--model-args` and `--gen-kwargs`: `key=value,...` strings read into checked dicts.

Values are JSON when they parse as JSON (numbers, true/false, null, lists, objects; single quotes allowed),
else strings. Commas inside brackets or quotes do not split, so `limit_mm_per_prompt={"image":2}` and
`stop=["\\n\\n","###"]` work. Both dicts are hashed into every request key and recorded in metadata.json, so
a changed setting never resumes into an old run.
"""

from __future__ import annotations

import json
import re
from typing import Any

from eval_kit.errors import BadInput

# generation settings every model backend understands; greedy decoding unless temperature > 0
GEN_KWARGS = ("temperature", "top_p", "top_k", "max_new_tokens", "seed", "stop")
# what transformers' `from_pretrained` takes from --model-args (others would be silently read as config fields)
TRANSFORMERS_MODEL_ARGS = ("device_map", "dtype", "torch_dtype", "attn_implementation", "trust_remote_code",
                           "max_memory", "low_cpu_mem_usage", "use_fast", "load_in_4bit", "load_in_8bit",
                           "bnb_4bit_quant_type", "bnb_4bit_use_double_quant", "bnb_4bit_compute_dtype")
# torch dtype names `dtype=` takes (checked here, before torch is imported)
DTYPES = ("auto", "float16", "bfloat16", "float32", "float64", "half", "float", "double")
# the vLLM engine settings docs/running-models.md lists (any `vllm.EngineArgs` field is accepted with vLLM installed)
VLLM_MODEL_ARGS = ("tensor_parallel_size", "data_parallel_size", "pipeline_parallel_size", "gpu_memory_utilization",
                   "max_model_len", "dtype", "enforce_eager", "limit_mm_per_prompt", "max_num_seqs",
                   "trust_remote_code", "load_format", "seed", "mm_processor_kwargs", "quantization")


def _split(text: str) -> list[str]:
    items, depth, quote, start = [], 0, "", 0
    for i, ch in enumerate(text):
        if quote:
            quote = "" if ch == quote else quote
        elif ch in "\"'":
            quote = ch
        elif ch in "[{(":
            depth += 1
        elif ch in "]})":
            depth -= 1
        elif ch == "," and depth == 0:
            items.append(text[start:i])
            start = i + 1
    items.append(text[start:])
    return [x.strip() for x in items if x.strip()]


def parse_value(text: str) -> Any:
    for candidate in (text, text.replace("'", '"')):
        try:
            return json.loads(candidate)
        except ValueError:
            continue
    lowered = text.lower()
    if lowered in ("true", "false"):
        return lowered == "true"
    if lowered in ("none", "null"):
        return None
    return text


def parse_pairs(text: str | None, option: str) -> dict[str, Any]:
    """`a=1,b=x` -> {"a": 1, "b": "x"}; a malformed item is bad input naming the option."""
    out: dict[str, Any] = {}
    for item in _split(text or ""):
        key, sep, value = item.partition("=")
        key = key.strip()
        if not sep or not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", key):
            raise BadInput(f"{item!r} is not key=value", field=option,
                           fix=f"write {option} key=value,key=value (e.g. {option} dtype=bfloat16)")
        if key in out:
            raise BadInput(f"{key} is given twice", field=option)
        value = value.strip()
        if re.search(r"\s[A-Za-z_][A-Za-z0-9_]*=", value) and not value.startswith(("'", '"', "[", "{")):
            raise BadInput(f"{item!r} holds two settings separated by a space", field=option,
                           fix=f"separate settings with commas: {option} " + ",".join(item.split()))
        out[key] = parse_value(value)
    return out


def check_gen_kwargs(gen: dict[str, Any]) -> dict[str, Any]:
    """Known names with values in range; `stop` becomes a list of strings."""
    unknown = sorted(set(gen) - set(GEN_KWARGS))
    if unknown:
        raise BadInput(f"unknown generation setting {unknown[0]!r}", field="--gen-kwargs",
                       fix=f"use {', '.join(GEN_KWARGS)}")

    def number(name: str, kind: type, low: float, low_ok: bool = True, high: float | None = None) -> None:
        if name not in gen:
            return
        value = gen[name]
        wrong_kind = kind is int and not isinstance(value, int)
        if isinstance(value, bool) or not isinstance(value, (int, float)) or wrong_kind:
            raise BadInput(f"{name}={value!r} is not {'a whole number' if kind is int else 'a number'}",
                           field="--gen-kwargs")
        if value < low or (not low_ok and value == low) or (high is not None and value > high):
            bound = f"{'>=' if low_ok else '>'} {low}" + (f" and <= {high}" if high is not None else "")
            raise BadInput(f"{name}={value!r} is out of range", field="--gen-kwargs", fix=f"use a value {bound}")

    number("temperature", float, 0)
    number("top_p", float, 0, low_ok=False, high=1)
    number("top_k", int, -1)
    number("max_new_tokens", int, 1)
    number("seed", int, 0)
    if "stop" in gen:
        stop = gen["stop"]
        stop = [stop] if isinstance(stop, str) else stop
        if not isinstance(stop, list) or not stop or not all(isinstance(s, str) and s for s in stop):
            raise BadInput(f"stop={gen['stop']!r} is not a string or a list of strings", field="--gen-kwargs",
                           fix='write stop="###" or stop=["\\n\\n","###"]')
        gen["stop"] = stop
    return gen


def check_model_args(backend: str, args: dict[str, Any]) -> dict[str, Any]:
    """Model settings the chosen backend takes; remote code stays off unless `trust_remote_code=true`."""
    if not args:
        return args
    if backend not in ("transformers", "vllm"):
        raise BadInput(f"the {backend} backend takes no --model-args", field="--model-args",
                       fix="--model-args sets how transformers or vLLM load a model; sampling goes in --gen-kwargs")
    if backend == "transformers":
        unknown = sorted(set(args) - set(TRANSFORMERS_MODEL_ARGS))
        if unknown:
            raise BadInput(f"transformers takes no model setting {unknown[0]!r}", field="--model-args",
                           fix=f"use {', '.join(TRANSFORMERS_MODEL_ARGS)}")
        if "dtype" in args and "torch_dtype" in args:
            raise BadInput("dtype and torch_dtype are the same setting", field="--model-args", fix="pass one")
        for name in ("dtype", "torch_dtype"):
            value = args.get(name)
            if name in args and (not isinstance(value, str) or value.removeprefix("torch.") not in DTYPES):
                raise BadInput(f"{name}={value!r} is not a torch dtype", field="--model-args",
                               fix="use auto, bfloat16, float16 or float32")
        from eval_kit.runners.backends import quantization

        quantization.check(args)
    if "trust_remote_code" in args and not isinstance(args["trust_remote_code"], bool):
        raise BadInput("trust_remote_code must be true or false", field="--model-args")
    return args
