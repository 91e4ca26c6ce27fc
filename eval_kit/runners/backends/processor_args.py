"""`--processor-args`: settings of the model's own image processor (pixel budget, tiles, slices, crops).

They are the papers' visual budgets: Qwen2.5-VL's `min_pixels`/`max_pixels`, InternVL's `max_patches`,
MiniCPM-V's `max_slice_nums`. Names and values are checked here, before anything heavy is imported, against
the table below (one line, exit 2 for an unknown name or a bad value); once the processor is loaded, each
name must also be a setting of THAT processor (a Qwen name given to InternVL is refused before the model
loads). They are applied to the loaded image processor, hashed into every request key and recorded.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from eval_kit.errors import BadInput

FIELD = "--processor-args"


def _positive_int(name: str, value: Any) -> None:
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise BadInput(f"{name}={value!r} is not a whole number >= 1", field=FIELD, fix=f"e.g. {name}=6")


def _boolean(name: str, value: Any) -> None:
    if not isinstance(value, bool):
        raise BadInput(f"{name}={value!r} is not true or false", field=FIELD, fix=f"write {name}=true")


def _downsample(name: str, value: Any) -> None:
    if value not in ("4x", "16x"):
        raise BadInput(f"{name}={value!r} is not 4x or 16x", field=FIELD, fix=f"write {name}=4x")


def _size(name: str, value: Any) -> None:
    ok = isinstance(value, dict) and value and all(
        isinstance(k, str) and isinstance(v, int) and not isinstance(v, bool) and v >= 1 for k, v in value.items())
    if not ok:
        raise BadInput(f"{name}={value!r} is not an object of whole numbers >= 1", field=FIELD,
                       fix=f'e.g. {name}={{"height":448,"width":448}} or {name}={{"longest_edge":1536}}')


# name -> (check, the families whose image processor has it)
KNOWN: dict[str, tuple[Callable[[str, Any], None], str]] = {
    "min_pixels": (_positive_int, "Qwen2-VL, Qwen2.5-VL, Qwen3-VL"),
    "max_pixels": (_positive_int, "Qwen2-VL, Qwen2.5-VL, Qwen3-VL"),
    "crop_to_patches": (_boolean, "InternVL"),
    "min_patches": (_positive_int, "InternVL"),
    "max_patches": (_positive_int, "InternVL"),
    "max_slice_nums": (_positive_int, "MiniCPM-V"),
    "downsample_mode": (_downsample, "MiniCPM-V (also passed to the model)"),
    "do_image_splitting": (_boolean, "Idefics3, SmolVLM"),
    "do_pan_and_scan": (_boolean, "Gemma 3"),
    "pan_and_scan_max_num_crops": (_positive_int, "Gemma 3"),
    "dynamic_hd": (_positive_int, "Phi-4-multimodal"),
    "size": (_size, "most processors (the resize target)"),
}
# settings the model's forward takes too (MiniCPM-V's merger follows `downsample_mode`, its processor the same
# value for the token count): passed to `generate` as well, so the two never disagree
MODEL_INPUTS = ("downsample_mode",)
# pixel budgets the Qwen-VL processors take as `size` (transformers 5 keeps them there)
_SIZE_ALIASES = {"min_pixels": "shortest_edge", "max_pixels": "longest_edge"}


def check(args: dict[str, Any]) -> dict[str, Any]:
    """Known names with values of the right kind; `min_pixels <= max_pixels` (cheap: no imports)."""
    for name, value in args.items():
        if name not in KNOWN:
            raise BadInput(f"unknown processor setting {name!r}", field=FIELD, fix=f"use {', '.join(KNOWN)}")
        KNOWN[name][0](name, value)
    for low, high in (("min_pixels", "max_pixels"), ("min_patches", "max_patches")):
        if low in args and high in args and args[low] > args[high]:
            raise BadInput(f"{low}={args[low]} is above {high}={args[high]}", field=FIELD,
                           fix=f"use {low} <= {high}")
    return args


def apply(processor: Any, args: dict[str, Any], model: str) -> dict[str, Any]:
    """Set each argument on the processor's image processor; a name it does not have is refused.

    Returns the arguments to pass with every processor call as well (a processor's own call defaults,
    e.g. InternVL's `crop_to_patches=True`, would otherwise win over the image processor's attribute).
    Qwen-VL image processors keep the pixel budget in `size` (`shortest_edge` = min_pixels, `longest_edge`
    = max_pixels): those two are set there, and not passed per call (a deprecated path in transformers 5).
    """
    if not args:
        return {}
    image_processor = getattr(processor, "image_processor", None)
    if image_processor is None:
        raise BadInput(f"the processor of {model!r} has no image processor to set {', '.join(args)} on",
                       field=FIELD, fix="drop --processor-args")
    kind = type(image_processor).__name__
    per_call: dict[str, Any] = {}
    for name, value in args.items():
        size = getattr(image_processor, "size", None)
        alias = _SIZE_ALIASES.get(name)
        if alias is not None and not hasattr(image_processor, name) and getattr(size, alias, None) is not None:
            setattr(size, alias, value)
            continue
        if not hasattr(image_processor, name):
            raise BadInput(f"{kind} (the image processor of {model!r}) has no setting {name!r}; "
                           f"{name} is for {KNOWN[name][1]}", field=FIELD,
                           fix="drop it or use one this processor has")
        setattr(image_processor, name, value)
        per_call[name] = value
    return per_call
