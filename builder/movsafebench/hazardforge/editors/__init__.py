"""Editors: `edit(image RGB, mask bool HxW, prompt, seed) -> image RGB` + `provenance()`.

`CompositingEditor` (CPU sprites + Poisson blending) in `compositor`; diffusers backends (FLUX.1 Fill,
FLUX.1 Kontext inpaint, Qwen-Image-Edit inpaint) in `diffusion`; the intrusion outpaint -> inpaint -> crop
geometry in `intrusion`. Heavy imports (torch, diffusers, cv2) are lazy.
"""

from builder.movsafebench.hazardforge.editors.base import Editor, paste_back, working_size
from builder.movsafebench.hazardforge.editors.compositor import CompositingEditor
from builder.movsafebench.hazardforge.editors.diffusion import (
    BACKENDS,
    FluxFillEditor,
    FluxKontextInpaintEditor,
    QwenImageEditInpaintEditor,
)
from builder.movsafebench.hazardforge.editors.intrusion import IntrusionGeometry, intrusion_edit, pad_canvas

__all__ = ["BACKENDS", "CompositingEditor", "Editor", "FluxFillEditor", "FluxKontextInpaintEditor",
           "IntrusionGeometry", "QwenImageEditInpaintEditor", "intrusion_edit", "pad_canvas", "paste_back",
           "working_size"]
