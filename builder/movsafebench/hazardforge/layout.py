"""Scenario layouts (paper 3.2.2-3.2.4 and the static scenario): which masks, prompts and canvases to edit.

A layout is a list of `Edit`s for one source image, one scenario, one object category and (for intrusion)
one intruding side. Every mask is an axis-aligned box in its edit's canvas, so a layout serialises to a few
integers (the plan line) and is rebuilt exactly from them plus the image size (`Layout.from_dict`).

Formulas, in image coordinates (top-left origin, half-open pixel ranges; see regions.py for the conversion):
- static: a nearby front-facing object in every region other than Omega_k* (role "near").
- motion (ground truth left/right only): one object in Omega_C, the whole region as the mask (paper:
  M(I_in, Omega_C(I_in), t)), facing left when the ground truth is right and facing right when it is left.
- intrusion: the canvas is the image outpainted by r pixels on the intruding side s (never the ground-truth
  side), H x (W + r). With W' = W + r the padded width, the paper's band is
  m_pad = [r - l, r + l) x [0, H) for s = left, [W' - r - l, W' - r + l) x [0, H) = [W - l, W + l) x [0, H)
  for s = right (clipped to the canvas); after editing the canvas is cropped back to H x W: columns
  [r, r + W) for s = left, [0, W) for s = right. The intruding object faces inward (enters the view): facing
  right from the left, facing left from the right (our reading: the paper only says "its orientation").
  Ground truth left or right: the intrusion comes from the opposite side and a nearby front-facing object is
  put in Omega_C (paper 3.2.3). Ground truth straight: one job per side; the centre is the safe region, so no
  centre object; with `intrusion_opposite_near_when_straight` a nearby front-facing object fills the outer
  region opposite the intrusion (our reading, so that every non-safe region is occupied as in the paper's other
  cases).
- distance: the far object's mask m_dist = {(x, y) in Omega_k* | |y - y_vp| <= d H}, i.e. rows
  ceil(y_vp - dH) .. floor(y_vp + dH) (clipped to the image) across Omega_k*'s columns, prompt with
  ", make the object smaller"; nearby front-facing objects in the other regions.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np

from builder.movsafebench.hazardforge.config import ForgeConfig
from builder.movsafebench.hazardforge.prompts import FRONT_FACING, build_prompt, check_scenario
from builder.movsafebench.hazardforge.regions import (
    ANSWER_OF_REGION,
    REGION_OF_ANSWER,
    REGION_OF_SIDE,
    REGIONS,
    SIDE_OF_REGION,
    region_columns,
)
from eval_kit.errors import BadInput

ROLES: tuple[str, ...] = ("near", "far", "motion", "intrusion")
SIDES: tuple[str, ...] = ("left", "right")


class IneligibleLayout(BadInput):
    """This image cannot carry this scenario (e.g. the vanishing point is outside the image rows).

    `reason` is a short fixed phrase the plan counts skipped jobs by (its statistics' `skipped_reasons`)."""

    def __init__(self, message: str, *, reason: str = "no room for the layout", **kwargs: Any) -> None:
        self.reason = reason
        super().__init__(message, **kwargs)


FAR_TOO_SMALL = "far object too small"
NO_GROUND = "no ground between the horizon and the ego hood"
TOO_TALL = "object taller than the image above its base"
INTRUDER_TOO_SMALL = "intruding object too small"
COVERS_OBSTACLE = "object would cover an obstacle"


def obstacle_overlap(box: tuple[int, int, int, int] | list[int], obstacle: tuple[int, int, int, int] | list[int]
                     ) -> float:
    """How much an object box and an obstacle box overlap: their intersection over the SMALLER of the two areas.

    Large means the object hides much of the obstacle (a person in front of a parked car) or stands mostly on it
    (a cat on a barrier): either way the scene no longer shows what it did. Half-open boxes [x0, y0, x1, y1)."""
    ix = min(box[2], obstacle[2]) - max(box[0], obstacle[0])
    iy = min(box[3], obstacle[3]) - max(box[1], obstacle[1])
    if ix <= 0 or iy <= 0:
        return 0.0
    smaller = min((box[2] - box[0]) * (box[3] - box[1]), (obstacle[2] - obstacle[0]) * (obstacle[3] - obstacle[1]))
    return ix * iy / max(1, smaller)


def clear_lefts(x0: int, x1: int, width: int, top: int, bottom: int, obstacles, limit: float) -> np.ndarray:
    """Left columns in [x0, x1 - width] where a `width` x (bottom - top) object overlaps no obstacle by more than
    `limit` (obstacle_overlap)."""
    lefts = np.arange(x0, max(x0, x1 - width + 1))
    ok = np.ones(len(lefts), dtype=bool)
    area = width * (bottom - top)
    for ob in obstacles:  # obstacle_overlap for every left column at once
        ix = np.minimum(lefts + width, ob[2]) - np.maximum(lefts, ob[0])
        iy = min(bottom, ob[3]) - max(top, ob[1])
        inter = np.clip(ix, 0, None) * max(0, iy)
        smaller = max(1, min(area, (ob[2] - ob[0]) * (ob[3] - ob[1])))
        ok &= inter / smaller <= limit
    return lefts[ok]


def avoid_obstacles(edit: Edit, obstacles, config: ForgeConfig) -> tuple[Edit, bool]:
    """(the edit, moved?) with its object clear of the known obstacle boxes (source pixels).

    The object's planned box is `object_size` (base row, height) x side_aspect * height wide. When some column
    of the mask would put it over an obstacle, the mask is narrowed to the widest run of clear columns (the
    object is moved along its row; an editor paints inside the mask only), and the clear obstacles are carried
    in `object_size["obstacles"]` so that an editor choosing its own column (the compositor) avoids them with
    its exact width. No clear column: IneligibleLayout (the job is skipped, reason COVERS_OBSTACLE). An
    intruding object keeps its border column: it is only checked."""
    size = edit.object_size
    if size is None or not obstacles:
        return edit, False
    limit = config.obstacle_max_cover
    height = int(size["height"])
    bottom = int(size["base_row"]) + 1
    top = bottom - height
    width = max(1, math.ceil(config.side_aspect[edit.category] * height))
    offset = edit.pad if edit.pad_side == "left" else 0  # canvas columns = source columns + offset
    boxes = [[b[0] + offset, b[1], b[2] + offset, b[3]] for b in obstacles]
    near = [b for b in boxes if b[1] < bottom and b[3] > top]  # only those on the object's rows matter
    if not near:
        return edit, False
    x0, y0, x1, y1 = edit.box
    if "centre_x" in size:  # intrusion: fixed column by the border
        left = round(float(size["centre_x"]) - width / 2)
        if any(obstacle_overlap((left, top, left + width, bottom), b) > limit for b in near):
            raise IneligibleLayout(f"an intruding {edit.category} would cover an obstacle box", reason=COVERS_OBSTACLE,
                                   field="obstacles")
        return edit, False
    lefts = clear_lefts(x0, x1, width, top, bottom, near, limit)
    if len(lefts) == 0:
        raise IneligibleLayout(f"no column of the {edit.role} {edit.category}'s mask {list(edit.box)} keeps it off "
                               f"the obstacle boxes", reason=COVERS_OBSTACLE, field="obstacles")
    new_size = {**size, "obstacles": [list(b) for b in near], "obstacle_max_cover": limit}
    if len(lefts) == x1 - width + 1 - x0:  # every column is clear: nothing moves
        return replace(edit, object_size=new_size), False
    runs = np.split(lefts, np.nonzero(np.diff(lefts) > 1)[0] + 1)
    run = max(runs, key=len)
    box = (int(run[0]), y0, int(run[-1]) + width, y1)
    return replace(edit, box=box, object_size={**new_size, "moved_from": list(edit.box)}), True


@dataclass(frozen=True)
class Edit:
    """One call of the editing model: canvas, mask box, prompt, and how to get back to the source frame.

    `box` = (x0, y0, x1, y1), half-open, in canvas pixels. The canvas is the source image itself unless
    `pad_side` is set: then it is the image outpainted by `pad` pixels on that side, and `crop_box` (canvas
    pixels) is the H x W window to keep after editing. `band_half_width` is the intrusion's l.
    """

    role: str
    region: str
    category: str
    direction: str
    prompt: str
    box: tuple[int, int, int, int]
    canvas_width: int
    canvas_height: int
    pad_side: str | None = None
    pad: int = 0
    band_half_width: int | None = None
    crop_box: tuple[int, int, int, int] | None = None
    # perspective size the object must have: {"base_row", "height" (pixels), "real_height_m", "camera_height_m"},
    # base_row in canvas rows; None when the layout was built without a vanishing point
    object_size: dict[str, Any] | None = None

    def mask(self) -> np.ndarray:
        """The boolean canvas_height x canvas_width conditional mask m."""
        mask = np.zeros((self.canvas_height, self.canvas_width), dtype=bool)
        x0, y0, x1, y1 = self.box
        mask[y0:y1, x0:x1] = True
        return mask

    def to_dict(self) -> dict[str, Any]:
        return {
            "role": self.role,
            "region": self.region,
            "category": self.category,
            "direction": self.direction,
            "prompt": self.prompt,
            "box": list(self.box),
            "canvas": {
                "width": self.canvas_width,
                "height": self.canvas_height,
                "pad_side": self.pad_side,
                "pad": self.pad,
            },
            "band_half_width": self.band_half_width,
            "crop_box": list(self.crop_box) if self.crop_box is not None else None,
            "object_size": dict(self.object_size) if self.object_size is not None else None,
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Edit:
        canvas = data["canvas"]
        crop = data.get("crop_box")
        return cls(
            role=data["role"],
            region=data["region"],
            category=data["category"],
            direction=data["direction"],
            prompt=data["prompt"],
            box=tuple(int(v) for v in data["box"]),  # type: ignore[arg-type]
            canvas_width=int(canvas["width"]),
            canvas_height=int(canvas["height"]),
            pad_side=canvas.get("pad_side"),
            pad=int(canvas.get("pad", 0)),
            band_half_width=data.get("band_half_width"),
            crop_box=tuple(int(v) for v in crop) if crop is not None else None,  # type: ignore[arg-type]
            object_size=dict(data["object_size"]) if data.get("object_size") else None,
        )


@dataclass(frozen=True)
class Layout:
    """All edits of one job, in the order the run engine applies them."""

    scenario: str
    ground_truth: str
    category: str
    side: str | None
    width: int
    height: int
    vanishing_point: tuple[float, float] | None
    edits: tuple[Edit, ...]
    params: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return {
            "scenario": self.scenario,
            "ground_truth": self.ground_truth,
            "category": self.category,
            "side": self.side,
            "width": self.width,
            "height": self.height,
            "vanishing_point": list(self.vanishing_point) if self.vanishing_point is not None else None,
            "params": dict(self.params),
            "edits": [edit.to_dict() for edit in self.edits],
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any], *, image_size: tuple[int, int] | None = None) -> Layout:
        """Rebuild a layout from its dict (a plan line has the same keys); check it fits `image_size` (W, H)."""
        width, height = int(data["width"]), int(data["height"])
        if image_size is not None and tuple(image_size) != (width, height):
            raise BadInput(
                f"the plan was made for a {width}x{height} image but the image is {image_size[0]}x{image_size[1]}",
                field="width/height", fix="re-run `hazardkit forge plan` on the current images",
            )
        vp = data.get("vanishing_point")
        if isinstance(vp, dict):
            vp = (vp["x"], vp["y"])
        return cls(
            scenario=data["scenario"],
            ground_truth=data["ground_truth"],
            category=data["category"],
            side=data.get("side"),
            width=width,
            height=height,
            vanishing_point=(float(vp[0]), float(vp[1])) if vp is not None else None,
            edits=tuple(Edit.from_dict(e) for e in data["edits"]),
            params=dict(data.get("params") or {}),
        )


def intrusion_sides(ground_truth: str) -> tuple[str, ...]:
    """Sides an intrusion may enter from: never the ground-truth side."""
    if ground_truth == "left":
        return ("right",)
    if ground_truth == "right":
        return ("left",)
    return SIDES


def job_variants(scenario: str, ground_truth: str) -> tuple[str | None, ...]:
    """The side/direction variants of a scenario for one ground truth (only intrusion has more than one)."""
    return intrusion_sides(ground_truth) if scenario == "intrusion" else (None,)


@dataclass(frozen=True)
class Ground:
    """Where objects may stand: below the horizon (the vanishing point's row) and above the ego hood."""

    vp_row: float | None
    bottom: int  # first row of the ego hood (H when none): no object base at or below it
    agent: str = "vehicle"


def object_size(category: str, base_row: int, ground: Ground, config: ForgeConfig) -> dict[str, Any]:
    """The perspective size of a `category` object standing on `base_row` (see ForgeConfig)."""
    assert ground.vp_row is not None
    height = config.object_height_px(category, ground.agent, base_row, ground.vp_row)
    return {"base_row": int(base_row), "height": max(1, round(height)),
            "real_height_m": config.real_height_m[category], "camera_height_m": config.camera_height_m[ground.agent]}


def near_base_row(ground: Ground, config: ForgeConfig, height: int) -> int:
    """The row nearby, motion and intrusion objects stand on: near_depth of the way from horizon to hood."""
    assert ground.vp_row is not None
    if ground.bottom - ground.vp_row < 2 * config.min_object_px:
        raise IneligibleLayout(
            f"only {ground.bottom - ground.vp_row:.0f} rows between the horizon ({ground.vp_row:.0f}) and the ego "
            f"hood ({ground.bottom})", reason=NO_GROUND, field="vanishing_point")
    depth = config.near_depth * (ground.bottom - ground.vp_row)
    return min(ground.bottom - 1, height - 1, round(ground.vp_row + depth))


def _sized(category: str, base: int, ground: Ground, config: ForgeConfig) -> dict[str, Any]:
    size = object_size(category, base, ground, config)
    if size["height"] > base:
        raise IneligibleLayout(f"a {category} standing on row {base} would be {size['height']} px tall",
                               reason=TOO_TALL, field="vanishing_point")
    return size


def _near_edit(region: str, category: str, width: int, height: int, config: ForgeConfig,
               ground: Ground | None = None) -> Edit:
    x0, x1 = region_columns(width, region)
    margin = round(config.near_margin_frac * (x1 - x0))
    bottom = ground.bottom if ground is not None else height
    y0, y1 = round(config.near_top_frac * height), min(bottom, round(config.near_bottom_frac * height))
    size = None
    if ground is not None and ground.vp_row is not None:
        base = min(near_base_row(ground, config, height), y1 - 1)
        size = _sized(category, base, ground, config)
        y0 = max(0, min(y0, base - math.ceil(1.1 * size["height"])))  # room for the whole object
    if y1 <= y0:
        raise IneligibleLayout(f"no rows for a nearby object between {y0} and the ego hood at {bottom}",
                               reason=NO_GROUND, field="ego_hood")
    return Edit(
        role="near", region=region, category=category, direction=FRONT_FACING,
        prompt=build_prompt(category, FRONT_FACING), box=(x0 + margin, y0, x1 - margin, y1),
        canvas_width=width, canvas_height=height, object_size=size,
    )


def distance_band_rows(vp_y: float, height: int, d: float) -> tuple[int, int]:
    """Half-open row range of {y : |y - vp_y| <= d*H} clipped to [0, H); empty when y0 >= y1."""
    half = round(d * height, 9)  # 0.05 * 900 must be 45, not 45.000000000000007
    y0 = max(0, math.ceil(round(vp_y - half, 9)))
    y1 = min(height, math.floor(round(vp_y + half, 9)) + 1)
    return y0, y1


def _far_base(y0: int, y1: int) -> int:
    """The far object's base row: a tenth of the band (at least 3 rows) above its bottom, so that neither the
    object nor its blended fringe touches the mask's edge."""
    return max(y0, y1 - 1 - max(3, round(0.1 * (y1 - y0))))


def distance_band(category: str, vp_row: float, height: int, ground: Ground,
                  config: ForgeConfig) -> tuple[float, tuple[int, int], dict[str, Any]]:
    """(d, band rows [y0, y1), object size) of the distance scenario's far object.

    The band is the paper's {|y - y_vp| <= d H} (clipped above the ego hood) and the object stands near its
    bottom. With `distance_d` the object may come out smaller than `min_object_px`: then d grows in steps of
    0.005 up to `distance_d_max` (the object comes closer, still inside the paper's band formula); if even that
    is too small the job is skipped ("far object too small"). Never enlarged."""
    steps = max(0, math.ceil(round((config.distance_d_max - config.distance_d) / 0.005, 6)))
    size: dict[str, Any] = {}
    y0 = y1 = 0
    for k in range(steps + 1):
        d = min(config.distance_d_max, round(config.distance_d + 0.005 * k, 6)) if k else config.distance_d
        y0, y1 = distance_band_rows(vp_row, height, d)
        y1 = min(y1, ground.bottom)
        if y0 >= y1:
            raise IneligibleLayout(
                f"vanishing point row {vp_row:.1f} is more than d*H outside the image rows",
                field="vanishing_point", fix="the distance scenario needs the horizon inside the image",
            )
        size = object_size(category, _far_base(y0, y1), ground, config)
        if size["height"] >= config.min_object_px:
            return d, (y0, y1), size
    raise IneligibleLayout(
        f"a far {category} on row {size.get('base_row')} would be {size.get('height')} px tall (< min_object_px "
        f"{config.min_object_px}) even with d = {config.distance_d_max}", reason=FAR_TOO_SMALL, field="category")


def intrusion_geometry(
    side: str, width: int, height: int, r: int, half: int
) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """(mask box, crop box) in the padded canvas, H x (W + r): the paper's m_pad and the crop back to H x W.

    `half` is the paper's l (band half-width)."""
    padded = width + r
    if side == "left":
        x0, x1 = r - half, r + half
        crop = (r, 0, r + width, height)
    elif side == "right":
        x0, x1 = padded - r - half, padded - r + half
        crop = (0, 0, width, height)
    else:
        raise BadInput(f"unknown intrusion side {side!r}", field="side", fix="use left or right")
    return (max(0, x0), 0, min(padded, x1), height), crop


def build_layout(
    scenario: str,
    ground_truth: str,
    category: str,
    width: int,
    height: int,
    *,
    vanishing_point: tuple[float, float] | None = None,
    side: str | None = None,
    config: ForgeConfig | None = None,
    agent: str = "vehicle",
    hood_top: int | None = None,
    obstacles: list[list[int]] | None = None,
) -> Layout:
    """The layout of one job. Raises BadInput for a bad combination, IneligibleLayout when the image can't host it.

    `hood_top` is the ego hood's first row (None or H: none): every mask stops above it. With a vanishing point
    every edit also carries the object's perspective size (`Edit.object_size`). `obstacles` are the source's known
    obstacle boxes [x0, y0, x1, y1) in image pixels: objects are kept off them (`avoid_obstacles`); the layout's
    `params["obstacle_moves"]` counts the objects that were moved."""
    config = config or ForgeConfig()
    check_scenario(scenario, ground_truth, category)
    if width <= 0 or height <= 0:
        raise BadInput(f"image size must be positive, got {width}x{height}", field="image")
    bottom = height if hood_top is None else max(1, min(int(hood_top), height))
    ground = Ground(vanishing_point[1] if vanishing_point is not None else None, bottom, agent)
    gt_region = REGION_OF_ANSWER[ground_truth]
    others = [k for k in REGIONS if k != gt_region]
    edits: list[Edit] = []
    params: dict[str, Any] = {}

    if scenario == "static":
        edits = [_near_edit(k, category, width, height, config, ground) for k in others]

    elif scenario == "motion":
        direction = "left" if ground_truth == "right" else "right"
        x0, x1 = region_columns(width, "C")
        size = _sized(category, near_base_row(ground, config, height), ground, config) \
            if ground.vp_row is not None else None
        edits = [Edit(
            role="motion", region="C", category=category, direction=direction,
            prompt=build_prompt(category, direction), box=(x0, 0, x1, bottom),
            canvas_width=width, canvas_height=height, object_size=size,
        )]

    elif scenario == "intrusion":
        allowed = intrusion_sides(ground_truth)
        if side is None and len(allowed) == 1:
            side = allowed[0]
        if side not in allowed:
            raise BadInput(
                f"intrusion side {side!r} is not possible with ground truth {ground_truth!r}", field="side",
                fix=f"use {' or '.join(allowed)}: never the ground-truth side",
            )
        r, half = config.intrusion_pixels(width)
        params = {"r": r, "l": half}
        box, crop = intrusion_geometry(side, width, height, r, half)
        box = (box[0], box[1], box[2], bottom)
        direction = "right" if side == "left" else "left"  # enters the view, moving inward
        size = None
        if ground.vp_row is not None:
            base = near_base_row(ground, config, height)
            # fit the side view in the band: stand farther back (smaller) when it would be wider than 2 l
            widest = 0.9 * (box[2] - box[0]) / config.side_aspect[category]
            per_row = config.real_height_m[category] / config.camera_height_m[agent]
            base = min(base, math.floor(ground.vp_row + widest / per_row))
            size = _sized(category, base, ground, config)
            # centred half a band-width inside the image border: most of the object is visible after the crop
            size["centre_x"] = r + half // 2 if side == "left" else width - half // 2
            if size["height"] < config.min_object_px:
                raise IneligibleLayout(f"an intruding {category} {size['height']} px tall would fit the "
                                       f"{box[2] - box[0]} px band", reason=INTRUDER_TOO_SMALL, field="category")
        intrusion = Edit(
            role="intrusion", region=REGION_OF_SIDE[side], category=category, direction=direction,
            prompt=build_prompt(category, direction), box=box,  # type: ignore[arg-type]
            canvas_width=width + r, canvas_height=height, pad_side=side, pad=r, band_half_width=half,
            crop_box=crop, object_size=size,  # type: ignore[arg-type]
        )
        edits = [intrusion]
        if gt_region != "C":
            edits.insert(0, _near_edit("C", category, width, height, config, ground))
        elif config.intrusion_opposite_near_when_straight:
            opposite = "R" if side == "left" else "L"
            edits.insert(0, _near_edit(opposite, category, width, height, config, ground))

    elif scenario == "distance":
        if vanishing_point is None:
            raise BadInput("the distance scenario needs a vanishing point", field="vanishing_point")
        x0, x1 = region_columns(width, gt_region)
        d, (y0, y1), size = distance_band(category, vanishing_point[1], height, ground, config)
        params = {"d": d, "band": [y0, y1]}
        far = Edit(
            role="far", region=gt_region, category=category, direction=FRONT_FACING,
            prompt=build_prompt(category, FRONT_FACING, far=True), box=(x0, y0, x1, y1),
            canvas_width=width, canvas_height=height, object_size=size,
        )
        edits = [*(_near_edit(k, category, width, height, config, ground) for k in others), far]

    if obstacles:
        moved = 0
        kept = []
        for edit in edits:
            edit, was_moved = avoid_obstacles(edit, obstacles, config)
            kept.append(edit)
            moved += was_moved
        edits = kept
        if moved:
            params = {**params, "obstacle_moves": moved}
    return Layout(
        scenario=scenario, ground_truth=ground_truth, category=category,
        side=side if scenario == "intrusion" else None, width=width, height=height,
        vanishing_point=vanishing_point, edits=tuple(edits), params=params,
    )


def composite_mask(layout: Layout) -> np.ndarray:
    """Union of the layout's masks in source-image coordinates (padded masks cropped back): for previews."""
    out = np.zeros((layout.height, layout.width), dtype=bool)
    for edit in layout.edits:
        mask = edit.mask()
        if edit.crop_box is not None:
            x0, y0, x1, y1 = edit.crop_box
            mask = mask[y0:y1, x0:x1]
        out |= mask
    return out


__all__ = [
    "ANSWER_OF_REGION", "COVERS_OBSTACLE", "ROLES", "SIDES", "SIDE_OF_REGION", "Edit", "IneligibleLayout", "Layout",
    "avoid_obstacles", "build_layout", "composite_mask", "distance_band_rows", "intrusion_geometry",
    "intrusion_sides", "job_variants", "obstacle_overlap",
]
