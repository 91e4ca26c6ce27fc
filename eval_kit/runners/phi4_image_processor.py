"""Phi-4-multimodal's image processor without torchvision (PIL + numpy), the same outputs as transformers'.

transformers 5 ships `Phi4MultimodalImageProcessor` only for the torchvision backend, so Phi-4-multimodal
could not run where torchvision does not match torch. This is Phi-4's "dynamic HD" preprocessing written
against PIL: the image is scaled (keeping aspect) onto a grid of at most `dynamic_hd` square crops, padded
with white, normalised, cut into crops after a global view of the whole image; an attention mask marks the
padding patches, and the image's token count follows from it (global view: (n/2)^2 tokens + n/2 row
separators; one separator; every unmasked 2x2 patch group of the crops plus one per crop row), where n is
the crop's patches per side (32 for the real 448-px crops, which gives transformers' 256 + 16).
"""

from __future__ import annotations

import math
from typing import Any, ClassVar

import numpy as np

from eval_kit.errors import BadInput


def _base() -> type:
    from transformers.image_processing_utils import BaseImageProcessor

    return BaseImageProcessor


def _grid(width: int, height: int, crop: int, max_crops: int) -> tuple[int, int]:
    """(columns, rows) of crops: enough to cover the image at crop size, else the closest allowed aspect."""
    cols, rows = math.ceil(width / crop), math.ceil(height / crop)
    if cols * rows <= max_crops:
        return cols, rows
    aspect = width / height
    ratios = sorted({(i, j) for i in range(1, max_crops + 1) for j in range(1, max_crops + 1) if i * j <= max_crops},
                    key=lambda r: r[0] * r[1])
    best, best_diff = (1, 1), float("inf")
    for ratio in ratios:
        diff = abs(aspect - ratio[0] / ratio[1])
        if diff < best_diff:
            best, best_diff = ratio, diff
        elif diff == best_diff and width * height > 0.5 * crop * crop * ratio[0] * ratio[1]:
            best = ratio
    return best


class _Phi4Mixin:
    model_input_names: ClassVar[list[str]] = ["image_pixel_values", "image_sizes", "image_attention_mask"]

    def _setup(self, size: dict[str, int] | None, patch_size: int, dynamic_hd: int,
               image_mean: list[float] | None, image_std: list[float] | None) -> None:
        self.size = dict(size or {"height": 448, "width": 448})
        self.patch_size, self.dynamic_hd = patch_size, dynamic_hd
        self.image_mean = list(image_mean or [0.5, 0.5, 0.5])
        self.image_std = list(image_std or [0.5, 0.5, 0.5])

    def _normalise(self, image: Any) -> np.ndarray:
        array = np.asarray(image, dtype=np.float32) / 255.0
        array = (array - np.array(self.image_mean, np.float32)) / np.array(self.image_std, np.float32)
        return array.transpose(2, 0, 1)

    def _one(self, image: Any) -> tuple[np.ndarray, np.ndarray, int, list[int]]:
        from PIL import Image

        crop = int(self.size["height"])
        if crop != int(self.size["width"]):
            raise BadInput("Phi-4-multimodal's image processor takes square crops only", field="--processor-args")
        patch, mask_size = self.patch_size, crop // self.patch_size
        image = image.convert("RGB")
        width, height = image.size
        cols, rows = _grid(width, height, crop, self.dynamic_hd)
        target_w, target_h = crop * cols, crop * rows
        if target_w / width < target_h / height:
            new_w, new_h = target_w, int(height * target_w / width)
        else:
            new_w, new_h = int(width * target_h / height), target_h
        if min(new_w, new_h) < 10:
            raise ValueError(f"the image's aspect ratio is too extreme for Phi-4 crops ({width}x{height})")
        canvas = Image.new("RGB", (target_w, target_h), (255, 255, 255))
        canvas.paste(image.resize((new_w, new_h), Image.BICUBIC), (0, 0))
        mask = np.ones((mask_size * rows, mask_size * cols), dtype=np.float32)
        pad_w, pad_h = target_w - new_w, target_h - new_h
        if pad_w >= patch:
            mask[:, -(pad_w // patch):] = 0
        if pad_h >= patch:
            mask[-(pad_h // patch):, :] = 0
        full = self._normalise(canvas)
        crops = full.reshape(3, rows, crop, cols, crop).transpose(1, 3, 0, 2, 4).reshape(-1, 3, crop, crop)
        global_view = self._normalise(canvas.resize((crop, crop), Image.BICUBIC))[None]
        crop_masks = mask.reshape(rows, mask_size, cols, mask_size).transpose(0, 2, 1, 3).reshape(-1, mask_size,
                                                                                                  mask_size)
        half = mask_size // 2 + mask_size % 2
        down = crop_masks[:, 0::2, 0::2].reshape(rows, cols, half, half).transpose(0, 2, 1, 3).reshape(rows * half,
                                                                                                       cols * half)
        tokens = (mask_size // 2) ** 2 + mask_size // 2 + 1 + int(down.sum()) + int(down[:, 0].sum())
        pixels = np.concatenate([global_view, crops], axis=0)
        masks = np.concatenate([np.ones((1, mask_size, mask_size), np.float32), crop_masks], axis=0)
        return pixels, masks, tokens, [target_h, target_w]

    def preprocess(self, images: Any, return_tensors: Any = None, **kwargs: Any) -> Any:
        import torch
        from transformers.image_processing_utils import BatchFeature
        from transformers.image_utils import make_flat_list_of_images

        for name in ("dynamic_hd", "size"):
            if kwargs.get(name) is not None:
                setattr(self, name, kwargs[name])
        done = [self._one(image) for image in make_flat_list_of_images(images)]
        most = max(p.shape[0] for p, _, _, _ in done)
        crop = int(self.size["height"])
        mask_size = crop // self.patch_size
        pixels = np.zeros((len(done), most, 3, crop, crop), np.float32)
        masks = np.ones((len(done), most, mask_size, mask_size), np.float32)
        for i, (p, m, _, _) in enumerate(done):
            pixels[i, : p.shape[0]], masks[i, : m.shape[0]] = p, m
        data = {"image_pixel_values": torch.from_numpy(pixels),
                "image_sizes": torch.tensor([s for _, _, _, s in done], dtype=torch.long),
                "image_attention_mask": torch.from_numpy(masks),
                "num_img_tokens": [t for _, _, t, _ in done]}
        return BatchFeature(data=data, tensor_type=return_tensors)

    __call__ = preprocess


def processor_class() -> type:
    """`Phi4MultimodalImageProcessorPil`: a transformers image processor class (for the processor's type check)."""

    class Phi4MultimodalImageProcessorPil(_Phi4Mixin, _base()):  # type: ignore[misc]
        """Phi-4-multimodal's dynamic-HD image preprocessing on PIL (no torchvision)."""

        def __init__(self, size: dict[str, int] | None = None, patch_size: int = 14, dynamic_hd: int = 36,
                     image_mean: list[float] | None = None, image_std: list[float] | None = None,
                     **kwargs: Any) -> None:
            super().__init__()
            self._setup(size, patch_size, dynamic_hd, image_mean, image_std)

    return Phi4MultimodalImageProcessorPil


def _llama4() -> type:
    from eval_kit.runners.llama4_image_processor import processor_class as llama4

    return llama4()


# the torchvision-only image processors this kit has a PIL version of (the checkpoint's image_processor_type,
# "Fast" removed -> a function giving the PIL class)
PIL_PORTS = {"Phi4MultimodalImageProcessor": processor_class, "Llama4ImageProcessor": _llama4}
