"""diffusers inpainting backends: FLUX.1 Fill, FLUX.1 Kontext inpaint, Qwen-Image-Edit inpaint.

Each wraps the real pipeline class behind the Editor protocol and fixes what the pipelines leave to the caller:
- size: the image is resized to a working size with sides divisible by 16 (at most `max_area` pixels, aspect
  kept), edited, resized back; FluxFill would otherwise default to 1024 x 1024, Kontext snaps to its preferred
  resolutions (we pass `_auto_resize=False`), and Qwen-Image-Edit-Inpaint ignores height/width and always
  targets ~1 MP (we make its target area `max_area` for the duration of the call).
- pixels outside the mask are pasted back from the input (FluxFill does not do it).
- determinism: a torch.Generator on the pipeline's device seeded with the job seed.
- CFG: Qwen-Image-Edit only runs classifier-free guidance with a negative prompt; we pass one (" " by default).
torch and diffusers are imported inside the functions that need them.
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Iterator
from dataclasses import asdict, dataclass
from typing import Any, ClassVar

import numpy as np
from PIL import Image

from builder.movsafebench.hazardforge.editors.base import check_inputs, mask_image, paste_back, working_size
from eval_kit.errors import BadInput


@dataclass(frozen=True)
class DiffusionSettings:
    """Everything that determines a backend's output besides (image, mask, prompt, seed)."""

    model: str
    revision: str | None = None
    dtype: str = "bfloat16"
    device: str = "cuda"
    steps: int = 28
    guidance: float = 30.0
    negative_prompt: str | None = None
    max_area: int = 1024 * 1024
    strength: float = 1.0


class DiffusionEditor:
    """Shared flow; subclasses name the pipeline class and map settings to its call arguments."""

    pipeline_class: ClassVar[str] = ""
    backend: ClassVar[str] = ""
    default_steps: ClassVar[int] = 28
    default_guidance: ClassVar[float] = 3.5

    def __init__(self, model: str, *, revision: str | None = None, dtype: str = "bfloat16", device: str = "cuda",
                 steps: int | None = None, guidance: float | None = None, negative_prompt: str | None = None,
                 max_area: int = 1024 * 1024, strength: float = 1.0, pipeline: Any = None) -> None:
        self.settings = DiffusionSettings(
            model=model, revision=revision, dtype=dtype, device=device,
            steps=steps if steps is not None else self.default_steps,
            guidance=guidance if guidance is not None else self.default_guidance,
            negative_prompt=negative_prompt, max_area=max_area, strength=strength)
        self._pipeline = pipeline

    # -- loading ---------------------------------------------------------------------------------------
    def _load(self) -> Any:
        if self._pipeline is None:
            import diffusers
            import torch

            cls = getattr(diffusers, self.pipeline_class)
            s = self.settings
            try:
                pipe = cls.from_pretrained(s.model, revision=s.revision, torch_dtype=getattr(torch, s.dtype),
                                           trust_remote_code=False)  # never asks, never runs a repo's code
            except (OSError, ValueError) as exc:
                raise BadInput(f"cannot load {self.pipeline_class} from {s.model!r}: {str(exc).splitlines()[0]}",
                               field="editor model",
                               fix="pass a local diffusers folder or a Hub id reachable from this machine") from None
            self._pipeline = pipe.to(s.device)
            self._pipeline.set_progress_bar_config(disable=True)
        return self._pipeline

    def provenance(self) -> dict[str, Any]:
        return {"editor": self.backend, "pipeline": self.pipeline_class, "model_id": self.settings.model,
                **{k: v for k, v in asdict(self.settings).items() if k != "model"}}

    # -- editing ---------------------------------------------------------------------------------------
    def _call_kwargs(self, width: int, height: int) -> dict[str, Any]:
        raise NotImplementedError

    @contextlib.contextmanager
    def _call_context(self) -> Iterator[None]:
        yield

    def edit(self, image: Image.Image, mask: np.ndarray, prompt: str, seed: int) -> Image.Image:
        import torch

        mask = check_inputs(image, mask)
        pipe = self._load()
        width, height = working_size(image.width, image.height, max_area=self.settings.max_area)
        work_image = image.resize((width, height), Image.Resampling.LANCZOS)
        work_mask = mask_image(mask).resize((width, height), Image.Resampling.NEAREST)
        device = getattr(pipe, "_execution_device", None) or torch.device("cpu")
        generator = torch.Generator(device=device).manual_seed(int(seed))
        with self._call_context():
            result = pipe(prompt=prompt, image=work_image, mask_image=work_mask, generator=generator,
                          num_inference_steps=self.settings.steps, output_type="pil",
                          **self._call_kwargs(width, height)).images[0]
        return paste_back(image, result.convert("RGB"), mask)


class FluxFillEditor(DiffusionEditor):
    """black-forest-labs/FLUX.1-Fill-dev (guidance-distilled: guidance_scale ~30, no negative prompt)."""

    pipeline_class = "FluxFillPipeline"
    backend = "flux_fill"
    default_steps = 28
    default_guidance = 30.0

    def _call_kwargs(self, width: int, height: int) -> dict[str, Any]:
        return {"height": height, "width": width, "guidance_scale": self.settings.guidance,
                "strength": self.settings.strength}


class FluxKontextInpaintEditor(DiffusionEditor):
    """black-forest-labs/FLUX.1-Kontext-dev through FluxKontextInpaintPipeline, at our working size."""

    pipeline_class = "FluxKontextInpaintPipeline"
    backend = "flux_kontext_inpaint"
    default_steps = 28
    default_guidance = 2.5

    def _call_kwargs(self, width: int, height: int) -> dict[str, Any]:
        kwargs: dict[str, Any] = {"height": height, "width": width, "guidance_scale": self.settings.guidance,
                                  "strength": self.settings.strength, "max_area": width * height,
                                  "_auto_resize": False}
        if self.settings.negative_prompt is not None:
            kwargs.update(negative_prompt=self.settings.negative_prompt, true_cfg_scale=4.0)
        return kwargs


_QWEN_AREA_LOCK = threading.Lock()


class QwenImageEditInpaintEditor(DiffusionEditor):
    """Qwen/Qwen-Image-Edit through QwenImageEditInpaintPipeline; true CFG needs the negative prompt."""

    pipeline_class = "QwenImageEditInpaintPipeline"
    backend = "qwen_image_edit_inpaint"
    default_steps = 50
    default_guidance = 4.0

    def __init__(self, model: str, **kwargs: Any) -> None:
        kwargs.setdefault("negative_prompt", " ")
        super().__init__(model, **kwargs)

    def _call_kwargs(self, width: int, height: int) -> dict[str, Any]:
        return {"negative_prompt": self.settings.negative_prompt, "true_cfg_scale": self.settings.guidance,
                "strength": self.settings.strength}

    @contextlib.contextmanager
    def _call_context(self) -> Iterator[None]:
        """The pipeline hard-codes calculate_dimensions(1024 * 1024, ratio); make its target area ours.

        Module-level patch held under a lock for the call only (there is no argument for it).
        """
        from diffusers.pipelines.qwenimage import pipeline_qwenimage_edit_inpaint as module

        original = module.calculate_dimensions
        area = self.settings.max_area
        with _QWEN_AREA_LOCK:
            module.calculate_dimensions = lambda _target, ratio: original(area, ratio)
            try:
                yield
            finally:
                module.calculate_dimensions = original


BACKENDS: dict[str, type[DiffusionEditor]] = {
    cls.backend: cls for cls in (FluxFillEditor, FluxKontextInpaintEditor, QwenImageEditInpaintEditor)
}
