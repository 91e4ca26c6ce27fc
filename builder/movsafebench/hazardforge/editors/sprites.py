"""RGBA sprites for the compositing editor: procedural ones for all 13 MovSafeBench categories, or user cut-outs.

Procedural sprites are drawn with OpenCV primitives on a 200 x 200 canvas and cropped to their alpha. Views:
`side` faces RIGHT (flip it for facing left), `front` shows the face (facing forward, towards the camera),
`back` shows the back (facing backward). Side views carry the cue a viewer (and the heuristic checker) uses to
read the heading: the head, handlebar or reaching arm is the highest part and sits at the front. Front and
back views are mirror-symmetric. Objects without a heading (cone, rocks, debris, roadkill) are made
mirror-symmetric in every view. Colours vary with the seed so repeated jobs do not paste identical pixels.

User cut-outs: `<category>*.png` with an alpha channel in a folder. `<category>_front*.png` and
`<category>_back*.png` are frontal views; any other match is a side view that must face right.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np

from eval_kit.movsafebench.spec import CATEGORIES

VIEWS = ("side", "front", "back")
_CANVAS = 200
_GROUND = 190
HEADLESS = frozenset({"cone", "rocks", "debris", "roadkill"})


@dataclass(frozen=True)
class _Quadruped:
    color: tuple[int, int, int]
    body_len: int
    body_h: int
    leg: int
    head_r: int
    neck: tuple[int, int]
    ears: str  # "pointed" | "round" | "floppy" | "antlers"
    tail: int


_ANIMALS: dict[str, _Quadruped] = {
    "dog": _Quadruped((60, 100, 150), 90, 40, 45, 17, (14, 30), "floppy", 35),
    "cat": _Quadruped((90, 90, 95), 80, 32, 35, 16, (10, 25), "pointed", 50),
    "deer": _Quadruped((150, 110, 70), 95, 42, 70, 14, (22, 55), "antlers", 12),
    "fox": _Quadruped((210, 110, 40), 90, 32, 38, 15, (12, 24), "pointed", 55),
    "pig": _Quadruped((230, 170, 170), 105, 55, 25, 20, (8, 12), "round", 12),
    "raccoon": _Quadruped((115, 110, 105), 80, 36, 28, 16, (8, 20), "round", 40),
}


def _canvas() -> np.ndarray:
    return np.zeros((_CANVAS, _CANVAS, 4), dtype=np.uint8)


def _c(rgb: tuple[int, int, int], shade: float = 1.0) -> tuple[int, int, int, int]:
    return (*[int(np.clip(v * shade, 0, 255)) for v in rgb], 255)  # type: ignore[return-value]


def _jitter(rgb: tuple[int, int, int], rng: np.random.Generator) -> tuple[int, int, int]:
    return tuple(int(np.clip(v + rng.integers(-20, 21), 0, 255)) for v in rgb)  # type: ignore[return-value]


def _quadruped(a: _Quadruped, view: str, rgb: tuple[int, int, int]) -> np.ndarray:
    import cv2

    img = _canvas()
    cx = _CANVAS // 2
    body_cy = _GROUND - a.leg - a.body_h // 2
    if view == "side":
        for dx, shade in ((-a.body_len * 0.35 - 6, 0.7), (a.body_len * 0.35 - 6, 0.7),
                          (-a.body_len * 0.35 + 4, 0.9), (a.body_len * 0.35 + 4, 0.9)):
            x = int(cx + dx)
            cv2.line(img, (x, body_cy), (x, _GROUND), _c(rgb, shade), 7)
        tail_root = (int(cx - a.body_len / 2), body_cy - a.body_h // 4)
        cv2.line(img, tail_root, (tail_root[0] - a.tail, tail_root[1] + a.tail // 3), _c(rgb, 0.8), 6)
        cv2.ellipse(img, (cx, body_cy), (a.body_len // 2, a.body_h // 2), 0, 0, 360, _c(rgb), -1)
        head = (int(cx + a.body_len / 2 + a.neck[0]), int(body_cy - a.body_h / 2 - a.neck[1]))
        cv2.line(img, (int(cx + a.body_len * 0.38), body_cy), head, _c(rgb), max(8, a.head_r))
        cv2.circle(img, head, a.head_r, _c(rgb), -1)
        cv2.ellipse(img, (head[0] + a.head_r, head[1] + a.head_r // 3), (a.head_r, a.head_r // 2), 0, 0, 360,
                    _c(rgb, 0.85), -1)
        cv2.circle(img, (head[0] + a.head_r // 2, head[1] - a.head_r // 4), 2, (20, 20, 20, 255), -1)
        _ears(img, head, a, rgb, sides=(1,))
    else:
        half_w = int(a.body_h * 0.65)
        for dx in (-half_w // 2, half_w // 2):
            cv2.line(img, (cx + dx, body_cy), (cx + dx, _GROUND), _c(rgb, 0.8), 8)
        cv2.ellipse(img, (cx, body_cy), (half_w, a.body_h // 2), 0, 0, 360, _c(rgb), -1)
        head = (cx, int(body_cy - a.body_h / 2 - a.neck[1] * 0.7))
        cv2.line(img, (cx, body_cy), head, _c(rgb), max(8, a.head_r))
        cv2.circle(img, head, a.head_r, _c(rgb), -1)
        _ears(img, head, a, rgb, sides=(-1, 1))
        if view == "front":
            for ex in (-a.head_r // 2, a.head_r // 2):
                cv2.circle(img, (head[0] + ex, head[1] - 2), 2, (20, 20, 20, 255), -1)
            cv2.circle(img, (head[0], head[1] + a.head_r // 2), 3, (30, 20, 20, 255), -1)
        else:
            cv2.line(img, (cx, body_cy), (cx, body_cy + a.tail // 2), _c(rgb, 0.75), 6)
    return img


def _ears(img: np.ndarray, head: tuple[int, int], a: _Quadruped, rgb: tuple[int, int, int],
          sides: tuple[int, ...]) -> None:
    import cv2

    r = a.head_r
    for s in sides:
        base = (head[0] + s * r // 2, head[1] - r + 3)
        if a.ears == "pointed":
            pts = np.array([[base[0] - 5, base[1] + 4], [base[0] + 5, base[1] + 4], [base[0] + s * 2, base[1] - r]])
            cv2.fillPoly(img, [pts.astype(np.int32)], _c(rgb))
        elif a.ears == "antlers":
            tip = (base[0] + s * 8, base[1] - 2 * r)
            cv2.line(img, base, tip, (90, 70, 50, 255), 3)
            cv2.line(img, (base[0] + s * 4, base[1] - r), (base[0] + s * 14, base[1] - r - 6), (90, 70, 50, 255), 3)
        elif a.ears == "floppy":
            cv2.ellipse(img, (base[0], base[1] + 6), (5, 10), 0, 0, 360, _c(rgb, 0.7), -1)
        else:
            cv2.circle(img, base, 5, _c(rgb, 0.9), -1)


def _human(view: str, rgb: tuple[int, int, int]) -> np.ndarray:
    import cv2

    img = _canvas()
    cx, skin = _CANVAS // 2, (225, 185, 150)
    trousers = (40, 45, 70)
    if view == "side":
        cv2.line(img, (cx, 115), (cx + 20, _GROUND), _c(trousers), 12)
        cv2.line(img, (cx, 115), (cx - 18, _GROUND), _c(trousers, 0.8), 12)
        cv2.line(img, (cx + 4, 60), (cx, 118), _c(rgb), 24)
        cv2.line(img, (cx + 8, 60), (cx + 46, 58), _c(rgb, 0.85), 9)
        cv2.circle(img, (cx + 50, 58), 5, _c(skin), -1)
        cv2.circle(img, (cx + 12, 38), 15, _c(skin), -1)
        cv2.circle(img, (cx + 26, 40), 4, _c(skin), -1)
        cv2.ellipse(img, (cx + 8, 30), (14, 9), 0, 180, 360, (40, 30, 20, 255), -1)
    else:
        for dx in (-8, 8):
            cv2.line(img, (cx + dx, 115), (cx + dx, _GROUND), _c(trousers), 12)
        cv2.rectangle(img, (cx - 16, 55), (cx + 16, 120), _c(rgb), -1)
        for dx in (-21, 21):
            cv2.line(img, (cx + dx, 60), (cx + dx, 112), _c(rgb, 0.85), 8)
        cv2.circle(img, (cx, 38), 15, _c(skin), -1)
        if view == "front":
            for ex in (-5, 5):
                cv2.circle(img, (cx + ex, 36), 2, (20, 20, 20, 255), -1)
            cv2.ellipse(img, (cx, 27), (15, 7), 0, 180, 360, (40, 30, 20, 255), -1)
        else:
            cv2.ellipse(img, (cx, 36), (15, 13), 0, 180, 360, (40, 30, 20, 255), -1)
    return img


def _two_wheeler(view: str, rgb: tuple[int, int, int], motor: bool) -> np.ndarray:
    import cv2

    img = _canvas()
    cx = _CANVAS // 2
    r = 30 if motor else 32
    tyre = (25, 25, 25, 255)
    wy = _GROUND - r
    if view == "side":
        for x in (cx - 48, cx + 48):
            cv2.circle(img, (x, wy), r, tyre, 9 if motor else 4)
        if motor:
            cv2.ellipse(img, (cx - 2, wy - 28), (46, 20), 0, 0, 360, _c(rgb), -1)
            cv2.rectangle(img, (cx - 40, wy - 52), (cx + 5, wy - 40), (30, 30, 30, 255), -1)
        else:
            pts = [(cx - 48, wy), (cx - 8, wy), (cx + 38, wy - 45), (cx - 18, wy - 45)]
            for p, q in zip(pts, pts[1:] + pts[:1], strict=True):
                cv2.line(img, p, q, _c(rgb), 5)
            cv2.line(img, (cx - 8, wy), (cx - 22, wy - 55), _c(rgb), 5)
            cv2.rectangle(img, (cx - 32, wy - 60), (cx - 12, wy - 54), (30, 30, 30, 255), -1)
        top = (cx + 34, wy - 95)
        cv2.line(img, (cx + 48, wy), top, _c(rgb, 0.7), 6)
        cv2.line(img, top, (top[0] + 18, top[1] - 4), (30, 30, 30, 255), 6)
    else:
        cv2.ellipse(img, (cx, wy), (7 if not motor else 12, r), 0, 0, 360, tyre, -1)
        if motor:
            cv2.rectangle(img, (cx - 22, wy - 60), (cx + 22, wy - 15), _c(rgb), -1)
        cv2.line(img, (cx, wy), (cx, wy - 95), _c(rgb, 0.7), 6)
        cv2.line(img, (cx - 30, wy - 95), (cx + 30, wy - 95), (30, 30, 30, 255), 6)
        light = (250, 245, 200, 255) if view == "front" else (220, 30, 30, 255)
        cv2.circle(img, (cx, wy - (45 if motor else 70)), 6, light, -1)
    return img


def _static(category: str, rng: np.random.Generator) -> np.ndarray:
    import cv2

    img = _canvas()
    cx = _CANVAS // 2
    if category == "cone":
        orange = _jitter((240, 110, 20), rng)
        cv2.fillPoly(img, [np.array([[cx, 60], [cx - 32, 182], [cx + 32, 182]], np.int32)], _c(orange))
        cv2.fillPoly(img, [np.array([[cx - 14, 110], [cx + 14, 110], [cx + 19, 130], [cx - 19, 130]], np.int32)],
                     (245, 245, 245, 255))
        cv2.rectangle(img, (cx - 45, 180), (cx + 45, _GROUND), _c(orange, 0.8), -1)
    elif category == "rocks":
        for _ in range(int(rng.integers(3, 6))):
            c = (int(cx + rng.integers(-40, 41)), int(_GROUND - rng.integers(15, 40)))
            n = int(rng.integers(5, 9))
            ang = np.sort(rng.uniform(0, 2 * np.pi, n))
            rad = rng.uniform(14, 30, n)
            pts = np.stack([c[0] + rad * np.cos(ang), np.minimum(_GROUND, c[1] + rad * np.sin(ang))], 1)
            cv2.fillPoly(img, [pts.astype(np.int32)], _c(_jitter((125, 120, 110), rng)))
    elif category == "debris":
        for _ in range(int(rng.integers(3, 6))):
            c = (float(cx + rng.integers(-45, 46)), float(_GROUND - rng.integers(8, 30)))
            box = cv2.boxPoints((c, (float(rng.integers(40, 80)), float(rng.integers(6, 14))),
                                 float(rng.uniform(-40, 40))))
            color = _jitter((130, 95, 60) if rng.random() < 0.6 else (110, 110, 115), rng)
            cv2.fillPoly(img, [box.astype(np.int32)], _c(color))
    else:  # roadkill: a flat, dark carcass shape
        color = _jitter((95, 45, 35), rng)
        cv2.ellipse(img, (cx, _GROUND - 12), (55, 12), 0, 0, 360, _c(color), -1)
        cv2.ellipse(img, (cx, _GROUND - 10), (25, 7), 0, 0, 360, (110, 20, 20, 255), -1)
        for dx in (-45, 45):
            cv2.line(img, (cx + dx, _GROUND - 12), (cx + dx + (8 if dx > 0 else -8), _GROUND - 2), _c(color), 5)
    flipped = img[:, ::-1]
    return np.where(img[..., 3:4] > 0, img, flipped)  # mirror-symmetric silhouette: no heading


def crop_to_alpha(rgba: np.ndarray, pad: int = 2) -> np.ndarray:
    """Cut a sprite to its opaque pixels with `pad` transparent pixels around (seamlessClone needs a margin)."""
    ys, xs = np.nonzero(rgba[..., 3] > 0)
    if len(xs) == 0:
        raise ValueError("sprite has no opaque pixels")
    out = rgba[ys.min(): ys.max() + 1, xs.min(): xs.max() + 1]
    return np.pad(out, ((pad, pad), (pad, pad), (0, 0)))


def procedural_sprite(category: str, view: str, seed: int) -> np.ndarray:
    """An RGBA uint8 sprite (side views face right) for one of the 13 categories."""
    if category not in CATEGORIES:
        raise ValueError(f"unknown category {category!r}; expected one of {', '.join(CATEGORIES)}")
    if view not in VIEWS:
        raise ValueError(f"unknown view {view!r}; expected one of {VIEWS}")
    rng = np.random.default_rng(seed)
    if category in HEADLESS:
        img = _static(category, rng)
    elif category in _ANIMALS:
        a = _ANIMALS[category]
        img = _quadruped(a, view, _jitter(a.color, rng))
    elif category == "human":
        img = _human(view, _jitter((50, 90, 160), rng))
    else:
        img = _two_wheeler(view, _jitter((170, 30, 30) if category == "motorcycle" else (30, 120, 60), rng),
                           motor=category == "motorcycle")
    return crop_to_alpha(img)


def folder_sprites(folder: str | Path, category: str, view: str) -> list[Path]:
    """User cut-outs for a category and view: `<category>_front*.png`, `<category>_back*.png`, else side."""
    folder = Path(folder)
    matches = sorted(folder.glob(f"{category}*.png"))
    front = [p for p in matches if p.stem.startswith(f"{category}_front")]
    back = [p for p in matches if p.stem.startswith(f"{category}_back")]
    side = [p for p in matches if p not in front and p not in back]
    return {"front": front, "back": back, "side": side}[view]


def load_cutout(path: Path) -> np.ndarray:
    """A user cut-out as RGBA uint8 cropped to its alpha; ValueError when it has no transparency to cut by."""
    from PIL import Image

    with Image.open(path) as img:
        if "A" not in img.getbands():
            raise ValueError(f"{path}: cut-out needs an alpha channel (RGBA PNG)")
        rgba = np.asarray(img.convert("RGBA"))
    return crop_to_alpha(rgba)
