"""CPU compositing editor: pastes an RGBA sprite into the mask with Poisson blending, no GPU or model needed.

For machines without a GPU and for the demo. It reads the same prompts as the diffusion editors
("Render a {category}, facing {direction}." [+ ", make the object smaller."]), so a plan runs unchanged:
- size: the plan's `object_size` (base row and pixel height from perspective, see config.py), exactly: the
  object's lowest row is the base row, its height the planned one, never resized to fit; an object that does
  not fit its mask is an error (the job fails with the reason). Direct calls without `object_size` (tests, the
  preview) use the same perspective with the mask's bottom as the base row and record how the size was found
  in `Placement.sizing` ("plan", "perspective" or, when the mask lies at or above the horizon, "box_fill").
- placement: among the columns of the mask's box, the object's footprint avoids `occupied` pixels (other road
  users: `free_space.occupied_mask`) when it can; `Placement.free` says whether it could. Columns that would put
  the object over one of the plan's obstacle boxes (`object_size["obstacles"]`, see layout.avoid_obstacles) are
  never used.
- lighting: the sprite takes the brightness and colour cast of the ground around it (night frames darken it).
- heading: side sprites face right and are flipped for "facing left"; forward/backward use front/back views.
- blending: cv2.seamlessClone (normal clone) of the sprite alpha-composited over the destination, on a local
  window padded with copyMakeBorder so objects crossing the image border (intrusion) work; written back only
  under the mask, so pixels outside it are the input's.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from PIL import Image

from builder.movsafebench.hazardforge.config import REAL_HEIGHT_M as _CONFIG_REAL_HEIGHT_M
from builder.movsafebench.hazardforge.editors.base import check_inputs, mask_bbox
from builder.movsafebench.hazardforge.editors.sprites import folder_sprites, load_cutout, procedural_sprite
from builder.movsafebench.hazardforge.prompts import parse_prompt

COMPOSITOR_VERSION = "3"  # 3: keeps objects off the plan's obstacle boxes (issue 32)
DIRECTIONS = ("left", "right", "forward", "backward")
# the perspective input, one table for the plan and the editor (see config.py)
REAL_HEIGHT_M = _CONFIG_REAL_HEIGHT_M


@dataclass(frozen=True)
class Placement:
    """Where and how big the object was put, in the coordinates of the edited image."""

    category: str
    direction: str
    is_far: bool
    view: str
    flipped: bool
    box: tuple[int, int, int, int]  # x0, y0, x1, y1 of the sprite (may extend past the image edge)
    horizon_y: float
    sprite: str
    sizing: str = "plan"
    free: bool | None = None  # footprint clear of occupied pixels (None: no occupancy given)

    def to_dict(self) -> dict[str, Any]:
        return {"category": self.category, "direction": self.direction, "is_far": self.is_far, "view": self.view,
                "flipped": self.flipped, "box": list(self.box), "horizon_y": self.horizon_y, "sprite": self.sprite,
                "sizing": self.sizing, "free": self.free}


class CompositingEditor:
    """Editor protocol implementation that composites sprites (see module docstring)."""

    def __init__(self, sprite_dir: str | Path | None = None, *, horizon_fraction: float = 0.45,
                 camera_height_m: float = 1.5, far_scale: float = 0.5, fill: float = 0.9) -> None:
        if sprite_dir is not None and not Path(sprite_dir).is_dir():
            raise ValueError(f"sprite folder {sprite_dir} does not exist")
        self.sprite_dir = Path(sprite_dir) if sprite_dir is not None else None
        self.horizon_fraction = horizon_fraction
        self.camera_height_m = camera_height_m
        self.far_scale = far_scale
        self.fill = fill
        self.last_placement: Placement | None = None  # the latest edit's placement (the job record keeps it)

    def provenance(self) -> dict[str, Any]:
        sprites = "procedural"
        revision = f"compositor-{COMPOSITOR_VERSION}"
        if self.sprite_dir is not None:
            digest = hashlib.sha256()
            for p in sorted(self.sprite_dir.glob("*.png")):
                digest.update(p.name.encode() + p.read_bytes())
            sprites = str(self.sprite_dir)
            revision += f"+sprites-{digest.hexdigest()[:16]}"
        return {"editor": "compositor", "model_id": "hazardkit/compositor", "revision": revision,
                "sprites": sprites, "horizon_fraction": self.horizon_fraction,
                "camera_height_m": self.camera_height_m, "far_scale": self.far_scale, "blend": "cv2.seamlessClone"}

    def _sprite(self, category: str, view: str, seed: int) -> tuple[np.ndarray, str, bool]:
        """(RGBA sprite, its name, whether it is a side view) from the user folder when it has one."""
        if self.sprite_dir is not None:
            found = folder_sprites(self.sprite_dir, category, view)
            if not found and view != "side":
                found = folder_sprites(self.sprite_dir, category, "side")
                view = "side"
            if found:
                path = found[seed % len(found)]
                return load_cutout(path), path.name, view == "side"
        return procedural_sprite(category, view, seed), f"procedural:{category}:{view}", view == "side"

    def edit(self, image: Image.Image, mask: np.ndarray, prompt: str, seed: int, *,
             vanishing_point: tuple[float, float] | None = None, object_size: dict[str, Any] | None = None,
             occupied: np.ndarray | None = None) -> Image.Image:
        out, self.last_placement = self.edit_with_placement(image, mask, prompt, seed, vanishing_point=vanishing_point,
                                                            object_size=object_size, occupied=occupied)
        return out

    def edit_with_placement(self, image: Image.Image, mask: np.ndarray, prompt: str, seed: int, *,
                            vanishing_point: tuple[float, float] | None = None,
                            object_size: dict[str, Any] | None = None,
                            occupied: np.ndarray | None = None) -> tuple[Image.Image, Placement]:
        """The edit plus where the object went (for provenance and tests)."""
        import cv2

        mask = check_inputs(image, mask)
        category, direction, is_far = parse_prompt(prompt)
        rng = np.random.default_rng(seed)
        view = {"left": "side", "right": "side", "forward": "front", "backward": "back"}[direction]
        sprite, sprite_name, is_side = self._sprite(category, view, seed)
        flipped = is_side and direction == "left"
        if flipped:
            sprite = sprite[:, ::-1]
        H = image.height
        horizon = float(vanishing_point[1]) if vanishing_point is not None else self.horizon_fraction * H
        x0, y0, x1, y1 = mask_bbox(mask)
        box_w, box_h = x1 - x0, y1 - y0
        aspect = sprite.shape[1] / sprite.shape[0]
        if object_size is not None:
            sizing = "plan"
            sh = int(object_size["height"])
            bottom = int(object_size["base_row"]) + 1
            sw = max(1, round(sh * aspect))
            if sw > box_w or bottom - sh < y0 or bottom > y1:
                raise ValueError(f"a {sw}x{sh} px {category} standing on row {bottom - 1} does not fit its mask "
                                 f"box {[x0, y0, x1, y1]}")
        else:
            sizing = "perspective"
            bottom = y1 - int(rng.integers(0, max(1, box_h // 10)))
            height = REAL_HEIGHT_M[category] / self.camera_height_m * (bottom - horizon)
            if height < 8:  # mask at or above the horizon: no ground-plane size, fill the box instead
                height, sizing = box_h * self.fill, "box_fill"
            if is_far:
                height *= self.far_scale
            height = min(height, box_h * self.fill, box_w * self.fill / aspect)
            sh = max(6, round(height))
            sw = max(4, round(sh * aspect))
        sprite = cv2.resize(np.ascontiguousarray(sprite), (sw, sh), interpolation=cv2.INTER_AREA)
        room = max(0, box_w - sw)
        jitter = room // 2 + int(rng.integers(-room // 4, room // 4 + 1)) if room >= 4 else room // 2
        free = None
        clear = None  # left columns that keep the object off the plan's obstacle boxes (layout.avoid_obstacles)
        if object_size is not None and object_size.get("obstacles") and "centre_x" not in object_size:
            from builder.movsafebench.hazardforge.layout import clear_lefts

            # the object's visible box is the resized sprite's opaque part, not the whole sprite rectangle
            alpha = sprite[..., 3] > 0  # already resized to sw x sh
            cols, rows = np.nonzero(alpha.any(axis=0))[0], np.nonzero(alpha.any(axis=1))[0]
            ax0, ax1 = (int(cols[0]), int(cols[-1]) + 1) if len(cols) else (0, sw)
            ay0, ay1 = (int(rows[0]), int(rows[-1]) + 1) if len(rows) else (0, sh)
            clear = clear_lefts(x0 + ax0, x1 - sw + ax1, ax1 - ax0, bottom - sh + ay0, bottom - sh + ay1,
                                object_size["obstacles"], float(object_size.get("obstacle_max_cover", 0.3))) - ax0
            if len(clear) == 0:
                raise ValueError(f"no column of the mask box {[x0, y0, x1, y1]} keeps a {sw} px wide {category} off "
                                 "the obstacle boxes")
        if object_size is not None and "centre_x" in object_size:  # intrusion: a fixed column by the border
            margin = min(max(2, round(0.03 * box_w)), room // 2)  # clear of the band's edges (and the fringe)
            left = min(max(x0 + margin, round(float(object_size["centre_x"]) - sw / 2)), x1 - sw - margin)
        elif occupied is not None:
            from builder.movsafebench.hazardforge.free_space import free_column

            found = free_column(occupied, x0, x1, sw, bottom - sh, bottom, preferred=x0 + jitter, allowed=clear)
            free = found is not None
            left = found if found is not None else _nearest(clear, x0 + jitter)
        else:
            left = _nearest(clear, x0 + jitter)
        top = bottom - sh
        if sizing != "plan":
            top = max(y0, top)
        out = np.array(image)
        patch, (bx0, by0, bx1, by1) = _poisson_paste(out, sprite, left, top)
        region = mask[by0:by1, bx0:bx1]  # pixels outside the mask stay the input's
        out[by0:by1, bx0:bx1][region] = patch[region]
        placement = Placement(category, direction, is_far, view, flipped, (left, top, left + sw, top + sh),
                              horizon, sprite_name, sizing, free)
        return Image.fromarray(out, "RGB"), placement


def _nearest(allowed: np.ndarray | None, preferred: int) -> int:
    """`preferred`, or the allowed column nearest to it."""
    if allowed is None:
        return preferred
    return int(allowed[np.argmin(np.abs(allowed - preferred))])


def _poisson_paste(dst: np.ndarray, sprite: np.ndarray, left: int, top: int,
                   margin: int = 8) -> tuple[np.ndarray, tuple[int, int, int, int]]:
    """Seamless-clone `sprite` (RGBA) with its top-left at (left, top) into dst.

    Works on a local window around the sprite (`margin` pixels), extended past the image border with
    copyMakeBorder so a sprite that leaves the image (intrusion) still clones. Returns the blended pixels of the
    part of the window inside the image and that part's box (x0, y0, x1, y1).
    """
    import cv2

    H, W = dst.shape[:2]
    sh, sw = sprite.shape[:2]
    wx0, wy0, wx1, wy1 = left - margin, top - margin, left + sw + margin, top + sh + margin
    ix0, iy0, ix1, iy1 = max(0, wx0), max(0, wy0), min(W, wx1), min(H, wy1)
    pads = (iy0 - wy0, wy1 - iy1, ix0 - wx0, wx1 - ix1)  # top, bottom, left, right
    local = dst[iy0:iy1, ix0:ix1]
    mode = cv2.BORDER_REFLECT_101 if max(pads[:2]) < local.shape[0] and max(pads[2:]) < local.shape[1] \
        else cv2.BORDER_REPLICATE
    canvas = cv2.copyMakeBorder(local, *pads, mode) if any(pads) else local.copy()
    py = px = margin
    under = canvas[py: py + sh, px: px + sw].astype(np.float32)
    alpha = sprite[..., 3:4].astype(np.float32) / 255.0
    rgb = match_lighting(sprite[..., :3].astype(np.float32), canvas.astype(np.float32))
    rgb = _ensure_contrast(rgb, under, alpha[..., 0] > 0.5)
    src = (rgb * alpha + under * (1 - alpha)).astype(np.uint8)
    clone_mask = cv2.dilate((sprite[..., 3] > 0).astype(np.uint8) * 255, np.ones((3, 3), np.uint8))
    clone_mask[[0, -1], :] = 0
    clone_mask[:, [0, -1]] = 0
    ys, xs = np.nonzero(clone_mask)
    # seamlessClone centres the mask's bounding box at `center`
    center = (px + (int(xs.min()) + int(xs.max()) + 1) // 2, py + (int(ys.min()) + int(ys.max()) + 1) // 2)
    try:
        blended = cv2.seamlessClone(np.ascontiguousarray(src), np.ascontiguousarray(canvas), clone_mask, center,
                                    cv2.NORMAL_CLONE)
    except cv2.error:
        # OpenCV 5 asserts on some very small masks (a far object a few pixels tall): alpha-blend those instead
        blended = canvas.copy()
        blended[py: py + sh, px: px + sw] = src
    # OpenCV's solver lets a flat-colour interior drift towards the surroundings (objects wash out and thin
    # parts such as legs vanish), so the sprite keeps its own colours where it is opaque and the Poisson
    # result is used on its soft fringe, where it hides the cut-out edge.
    soft = cv2.GaussianBlur((sprite[..., 3] > 127).astype(np.float32), (3, 3), 0)
    weight = cv2.erode(soft, np.ones((2, 2), np.uint8))[..., None]
    window = blended[py: py + sh, px: px + sw].astype(np.float32)
    blended[py: py + sh, px: px + sw] = np.clip(weight * src + (1 - weight) * window, 0, 255).astype(np.uint8)
    inside = blended[pads[0]: pads[0] + (iy1 - iy0), pads[2]: pads[2] + (ix1 - ix0)]
    return inside, (ix0, iy0, ix1, iy1)


def match_lighting(rgb: np.ndarray, surround: np.ndarray, *, daylight: float = 110.0, strength: float = 0.6,
                   floor: float = 0.25) -> np.ndarray:
    """Darken a sprite drawn for daylight to the brightness of a dark surround, and give it the surround's cast.

    Gain = clip(mean luminance of the surround / `daylight`, `floor`, 1): a sunlit frame leaves the sprite as
    drawn, a night frame (surround luminance ~30) scales it to about a quarter. The colour cast is the
    surround's mean colour over its grey level, applied at `strength` and clipped to +-25 % per channel (sodium
    street light, dusk). Pixel values stay in [0, 255]."""
    mean = surround.reshape(-1, 3).mean(axis=0)
    lum = float(mean @ np.array([0.299, 0.587, 0.114]))
    gain = float(np.clip(lum / daylight, floor, 1.0))
    cast = np.clip(mean / max(float(mean.mean()), 1e-3), 0.75, 1.25)
    return np.clip(rgb * gain * (1.0 + strength * (cast - 1.0)), 0, 255)


def _ensure_contrast(rgb: np.ndarray, under: np.ndarray, opaque: np.ndarray, minimum: float = 40.0) -> np.ndarray:
    """Push a sprite's brightness away from the background it covers when the two are too alike.

    A grey cat on grey asphalt would be invisible to a viewer and to the quality check alike; real objects
    keep contrast through shading, so we darken the sprite on bright ground and lighten it on dark ground.
    """
    if not opaque.any():
        return rgb
    gap = float(np.abs(rgb[opaque] - under[opaque]).max(axis=1).mean())
    if gap >= minimum:
        return rgb
    if float(under[opaque].mean()) > 127:
        return rgb * 0.45
    return rgb + (255.0 - rgb) * 0.55
