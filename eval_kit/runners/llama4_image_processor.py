"""Llama 4's image processor without torchvision (PIL + numpy), the same algorithm as transformers'.

transformers 5.24 ships `Llama4ImageProcessor` only for the torchvision backend, so Llama 4 (Scout, Maverick)
could not run where torchvision does not match torch. This is its tiling written against PIL:

- the canvas: of every grid of at most `max_patches` square tiles (`size`, 336 px in the real checkpoints),
  the one the image fits by the smallest upscale >= 1, else by the least downscale; ties go to the smaller
  area, then to the first in transformers' order (`supported_resolutions`, `best_fit`);
- the image is resized (bilinear, keeping aspect) to fit the canvas, never upscaled past its own size or one
  tile unless `resize_to_max_canvas`, padded with black at the right and bottom, rescaled and normalised in
  bfloat16 as the original implementation does, and cut into tiles row by row;
- with more than one tile, a global view (the whole image resized to one tile) follows the tiles.

`pixel_values` is every image's tiles concatenated (tiles, 3, size, size) in bfloat16, `aspect_ratios` the
(rows, columns) of each image's grid; `Llama4Processor` turns those into the image's `<|patch|>` tokens.
"""

from __future__ import annotations

import math
from typing import Any, ClassVar

import numpy as np


def _factors(n: int) -> list[int]:
    return sorted({d for i in range(1, int(n ** 0.5) + 1) if n % i == 0 for d in (i, n // i)})


def supported_resolutions(max_tiles: int, tile: int) -> list[tuple[int, int]]:
    """(height, width) of every grid of at most `max_tiles` tiles, in transformers' order (grouped by aspect
    ratio, first seen from the most tiles down)."""
    by_ratio: dict[float, list[tuple[int, int]]] = {}
    for count in range(max_tiles, 0, -1):
        for rows in _factors(count):
            by_ratio.setdefault(rows / (count // rows), []).append((rows, count // rows))
    return [(rows * tile, cols * tile) for grids in by_ratio.values() for rows, cols in grids]


def best_fit(height: int, width: int, resolutions: list[tuple[int, int]], to_max_canvas: bool = False
             ) -> tuple[int, int]:
    """The canvas the image fits without distortion: the smallest upscale (largest with `to_max_canvas`),
    else the least downscale; among canvases of that scale the smallest area (the first on a tie)."""
    heights = np.array([r[0] for r in resolutions], dtype=np.float32)
    widths = np.array([r[1] for r in resolutions], dtype=np.float32)
    scale_h, scale_w = heights / np.float32(height), widths / np.float32(width)
    scales = np.where(scale_h > scale_w, scale_w, scale_h)
    up = scales[scales >= 1]
    if len(up):
        chosen = up.max() if to_max_canvas else up.min()
    else:
        chosen = scales[scales < 1].max()
    candidates = [r for r, s in zip(resolutions, scales, strict=True) if s == chosen]
    return min(candidates, key=lambda r: r[0] * r[1])  # min() keeps the first of equal areas, as argmin does


def fit_without_distortion(height: int, width: int, target_h: int, target_w: int) -> tuple[int, int]:
    """The largest (height, width) of the image's aspect inside the target (transformers'
    `get_max_res_without_distortion`)."""
    scale_w, scale_h = target_w / width, target_h / height
    if scale_w < scale_h:
        return min(math.floor(height * scale_w), target_h), target_w
    return target_h, min(math.floor(width * scale_h), target_w)


def plan(height: int, width: int, tile: int, max_tiles: int, to_max_canvas: bool = False
         ) -> tuple[tuple[int, int], tuple[int, int]]:
    """((resized height, width), (canvas height, width)) of an image of `height` x `width`."""
    canvas = best_fit(height, width, supported_resolutions(max_tiles, tile), to_max_canvas)
    if to_max_canvas:
        limit = canvas
    else:  # never upscale past the image's own size, or past one tile for a small image
        limit = (min(max(height, tile), canvas[0]), min(max(width, tile), canvas[1]))
    new_h, new_w = fit_without_distortion(height, width, *limit)
    return (max(new_h, 1), max(new_w, 1)), canvas


def _base() -> type:
    from transformers.image_processing_utils import BaseImageProcessor

    return BaseImageProcessor


class _Llama4Mixin:
    model_input_names: ClassVar[list[str]] = ["pixel_values"]

    def _setup(self, size: dict[str, int] | None, max_patches: int, resize_to_max_canvas: bool,
               image_mean: list[float] | None, image_std: list[float] | None, rescale_factor: float,
               do_rescale: bool, do_normalize: bool, do_convert_rgb: bool, resample: int) -> None:
        self.size = dict(size or {"height": 336, "width": 336})
        self.max_patches, self.resize_to_max_canvas = int(max_patches), bool(resize_to_max_canvas)
        self.image_mean = list(image_mean or [0.5, 0.5, 0.5])
        self.image_std = list(image_std or [0.5, 0.5, 0.5])
        self.rescale_factor, self.do_rescale, self.do_normalize = rescale_factor, do_rescale, do_normalize
        self.do_convert_rgb, self.resample = do_convert_rgb, int(resample)
        self.do_resize = True

    def _scale(self, images: Any) -> Any:
        """uint8 (n, 3, h, w) -> values as transformers' `rescale_and_normalize` gives them: in bfloat16 when
        both steps apply (the original implementation's precision), float32 otherwise."""
        import torch

        tensor = torch.from_numpy(np.ascontiguousarray(images))
        if self.do_rescale and self.do_normalize:
            tensor = tensor.to(torch.bfloat16) * self.rescale_factor
        else:
            tensor = tensor.to(torch.float32)
            if self.do_rescale:
                tensor = tensor * self.rescale_factor
        if self.do_normalize:  # torchvision's normalize: mean and std in the tensor's dtype, sub then div
            mean = torch.tensor(self.image_mean, dtype=tensor.dtype).view(-1, 1, 1)
            std = torch.tensor(self.image_std, dtype=tensor.dtype).view(-1, 1, 1)
            tensor = (tensor - mean) / std
        return tensor

    def _one(self, image: Any) -> tuple[Any, tuple[int, int]]:
        tile = int(self.size["height"])
        if tile != int(self.size["width"]):
            raise ValueError("Llama 4's image processor takes square tiles only (`size` must be square)")
        if self.do_convert_rgb or image.mode != "RGB":
            image = image.convert("RGB")
        width, height = image.size
        (new_h, new_w), (canvas_h, canvas_w) = plan(height, width, tile, self.max_patches, self.resize_to_max_canvas)
        canvas = np.zeros((canvas_h, canvas_w, 3), dtype=np.uint8)  # black padding at the right and bottom
        canvas[:new_h, :new_w] = np.asarray(image.resize((new_w, new_h), self.resample), dtype=np.uint8)
        rows, cols = canvas_h // tile, canvas_w // tile
        tiles = canvas.reshape(rows, tile, cols, tile, 3).transpose(0, 2, 4, 1, 3).reshape(-1, 3, tile, tile)
        if rows * cols > 1:  # a global view of the whole image after the tiles
            whole = np.asarray(image.resize((tile, tile), self.resample), dtype=np.uint8).transpose(2, 0, 1)
            tiles = np.concatenate([tiles, whole[None]], axis=0)
        return self._scale(tiles), (rows, cols)

    def preprocess(self, images: Any, return_tensors: Any = None, **kwargs: Any) -> Any:
        import torch
        from transformers.image_processing_utils import BatchFeature
        from transformers.image_transforms import to_pil_image
        from transformers.image_utils import make_flat_list_of_images

        if kwargs.get("do_resize") is False:
            raise ValueError("Llama 4 always resizes images to one of its supported resolutions")
        for name in ("max_patches", "resize_to_max_canvas", "size", "image_mean", "image_std"):
            if kwargs.get(name) is not None:
                setattr(self, name, kwargs[name])
        flat = [image if hasattr(image, "convert") else to_pil_image(image) for image in
                make_flat_list_of_images(images)]
        done = [self._one(image) for image in flat]
        pixels: Any = [p for p, _ in done]
        ratios = torch.tensor([list(r) for _, r in done], dtype=torch.long)
        if return_tensors:
            pixels = torch.cat(pixels, dim=0)
        return BatchFeature(data={"pixel_values": pixels, "aspect_ratios": ratios}, tensor_type=return_tensors)

    __call__ = preprocess


def processor_class() -> type:
    """`Llama4ImageProcessorPil`: a transformers image processor class (for the processor's type check)."""

    class Llama4ImageProcessorPil(_Llama4Mixin, _base()):  # type: ignore[misc]
        """Llama 4's tiling image preprocessing on PIL (no torchvision)."""

        def __init__(self, size: dict[str, int] | None = None, max_patches: int = 16,
                     resize_to_max_canvas: bool = False, image_mean: list[float] | None = None,
                     image_std: list[float] | None = None, rescale_factor: float = 1 / 255,
                     do_rescale: bool = True, do_normalize: bool = True, do_convert_rgb: bool = True,
                     resample: int = 2, **kwargs: Any) -> None:  # resample 2: PIL's BILINEAR, as the reference
            super().__init__()
            self._setup(size, max_patches, resize_to_max_canvas, image_mean, image_std, rescale_factor,
                        do_rescale, do_normalize, do_convert_rgb, resample)

    return Llama4ImageProcessorPil
