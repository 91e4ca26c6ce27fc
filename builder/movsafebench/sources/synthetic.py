"""Procedural road and sidewalk scenes with a known vanishing point and safe action (tests, benchmarks, demo).

Each scene is a pinhole-camera rendering of flat-shaded boxes and ground-plane strips, so its vanishing point
is known exactly: the projection of the road direction (0, 0, 1) through the random camera (height, yaw,
pitch, roll, field of view). The safe action is drawn from the seed and made visible: striped barrier boxes
block the lanes (road) or path thirds (sidewalk, corridor) of the two other directions. Clutter that does not
point at the vanishing point (shadows at random angles, trees, building and door verticals) keeps the detector
honest. Scenes are deterministic from
(kind, seed, width, height), flat-coloured with a "SYNTHETIC" stamp: nobody can take them for real data.

World frame: X right, Y down, Z forward along the road; the ground is the plane Y = camera height.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
from PIL import Image

KINDS: tuple[str, ...] = ("road", "sidewalk")
EGO_VIEWS: tuple[str, ...] = ("none", "matte", "glossy", "dashboard")  # what of the camera car is in view
AGENT_OF_KIND: dict[str, str] = {"road": "vehicle", "sidewalk": "robot"}
ACTIONS: tuple[str, ...] = ("left", "straight", "right")


@dataclass(frozen=True)
class Rig:
    """A camera rig to render road scenes for: frame size, horizontal field of view range and what of the car
    is in view. The hidden real photos the detector must hold on come from rigs like these (issue 32)."""

    width: int
    height: int
    hfov: tuple[float, float]
    ego: str = "none"


# "shared": the shared Udacity photos (1280 x 720, no hood in the centre third); "wide": a KITTI-like crop
# (1242 x 375, f ~ 720 px, hfov ~ 81 deg) with a hood; "tall": a 1920 x 1280 front camera (hfov ~ 50-65 deg)
# with a hood. Ranges, not single values: no tuning to one frame.
RIGS: dict[str, Rig] = {
    "shared": Rig(1280, 720, (55.0, 70.0), "none"),
    "wide": Rig(1242, 375, (76.0, 86.0), "matte"),
    "tall": Rig(1920, 1280, (48.0, 65.0), "matte"),
}
_SHIFT = 4  # cv2 fixed-point bits for sub-pixel polygon vertices


@dataclass
class SyntheticScene:
    """A rendered scene and its truth."""

    image: Image.Image
    vanishing_point: tuple[float, float]  # top-left pixel coordinates
    safe_action: str
    kind: str
    seed: int
    camera: dict[str, float]
    variant: str = ""  # road, sidewalk or corridor (an indoor robot view, 30 % of "sidewalk" scenes)
    ego: str = "none"  # EGO_VIEWS: no ego body, a matte hood, a glossy hood mirroring the scene, a dashboard
    hood_top: int | None = None  # truth: first row of the ego body in the centre third (height: none)
    # truth: image boxes [x0, y0, x1, y1) of the scene's obstacles (the barriers that block the unsafe ways),
    # clipped to the frame; what a placement must not cover (like labels.json's boxes for real photos)
    obstacles: list[list[int]] = field(default_factory=list)

    @property
    def agent(self) -> str:
        return AGENT_OF_KIND[self.kind]


class _Camera:
    """Pinhole camera at the world origin with yaw (about Y), pitch (about X) and roll (about Z)."""

    def __init__(self, width: int, height: int, hfov_deg: float, yaw: float, pitch: float, roll: float,
                 cam_height: float) -> None:
        self.f = width / 2 / np.tan(np.radians(hfov_deg) / 2)
        self.cx, self.cy = width / 2 - 0.5, height / 2 - 0.5
        cy_, sy_ = np.cos(np.radians(yaw)), np.sin(np.radians(yaw))
        cp, sp = np.cos(np.radians(pitch)), np.sin(np.radians(pitch))
        cr, sr = np.cos(np.radians(roll)), np.sin(np.radians(roll))
        r_yaw = np.array([[cy_, 0, -sy_], [0, 1, 0], [sy_, 0, cy_]])
        r_pitch = np.array([[1, 0, 0], [0, cp, sp], [0, -sp, cp]])  # positive pitch looks down
        r_roll = np.array([[cr, -sr, 0], [sr, cr, 0], [0, 0, 1]])
        self.rot = r_roll @ r_pitch @ r_yaw  # world -> camera
        self.h = cam_height

    def to_cam(self, pts: np.ndarray) -> np.ndarray:
        return pts @ self.rot.T

    def project_cam(self, pc: np.ndarray) -> np.ndarray:
        return np.stack([self.f * pc[:, 0] / pc[:, 2] + self.cx, self.f * pc[:, 1] / pc[:, 2] + self.cy], axis=1)

    def vanishing_point(self) -> tuple[float, float]:
        d = self.rot @ np.array([0.0, 0.0, 1.0])
        return float(self.f * d[0] / d[2] + self.cx), float(self.f * d[1] / d[2] + self.cy)


def _clip_near(pc: np.ndarray, near: float = 0.3) -> np.ndarray:
    """Clip a convex polygon (camera coordinates) against the plane z = near (Sutherland-Hodgman)."""
    out = []
    n = len(pc)
    for k in range(n):
        a, b = pc[k], pc[(k + 1) % n]
        ina, inb = a[2] >= near, b[2] >= near
        if ina:
            out.append(a)
        if ina != inb:
            t = (near - a[2]) / (b[2] - a[2])
            out.append(a + t * (b - a))
    return np.array(out) if out else np.zeros((0, 3))


class _Canvas:
    def __init__(self, width: int, height: int, camera: _Camera) -> None:
        self.img = np.zeros((height, width, 3), dtype=np.uint8)
        self.cam = camera
        self.w, self.h = width, height
        self.obstacles: list[list[int]] = []

    def box_extent(self, x0: float, x1: float, y0: float, y1: float, z0: float, z1: float) -> list[int] | None:
        """The image box [x0, y0, x1, y1) (clipped to the frame) of a world box in front of the camera."""
        corners = np.array([(x, y, z) for x in (x0, x1) for y in (y0, y1) for z in (z0, z1)], dtype=np.float64)
        pc = self.cam.to_cam(corners)
        if (pc[:, 2] <= 0.3).any():
            return None
        uv = self.cam.project_cam(pc)
        bx0, by0 = max(0, int(np.floor(uv[:, 0].min() + 0.5))), max(0, int(np.floor(uv[:, 1].min() + 0.5)))
        bx1, by1 = min(self.w, int(np.ceil(uv[:, 0].max() + 0.5))), min(self.h, int(np.ceil(uv[:, 1].max() + 0.5)))
        return [bx0, by0, bx1, by1] if bx1 > bx0 and by1 > by0 else None

    def poly(self, world_pts: Sequence[Sequence[float]], colour: Iterable[float]) -> None:
        import cv2

        pc = _clip_near(self.cam.to_cam(np.asarray(world_pts, dtype=np.float64)))
        if len(pc) < 3:
            return
        uv = self.cam.project_cam(pc)
        uv = np.clip(uv, -5e6, 5e6)  # int32 with 4 fractional bits holds +-1.3e8
        pts = np.round(uv * (1 << _SHIFT)).astype(np.int32)
        cv2.fillPoly(self.img, [pts], tuple(int(c) for c in colour), lineType=cv2.LINE_AA, shift=_SHIFT)

    def ground_background(self, colour: Iterable[float]) -> None:
        """Paint every pixel whose viewing ray hits the ground plane (below the horizon)."""
        normal = self.cam.rot @ np.array([0.0, 1.0, 0.0])  # ground normal (down) in camera coordinates
        u = (np.arange(self.w, dtype=np.float64) - self.cam.cx) / self.cam.f
        v = (np.arange(self.h, dtype=np.float64) - self.cam.cy) / self.cam.f
        hits = normal[0] * u[None, :] + normal[1] * v[:, None] + normal[2] > 0
        self.img[hits] = np.array(tuple(colour), dtype=np.uint8)

    def ground_quad(self, x0: float, x1: float, z0: float, z1: float, colour: Iterable[float]) -> None:
        h = self.cam.h
        self.poly([(x0, h, z0), (x1, h, z0), (x1, h, z1), (x0, h, z1)], colour)

    def box(self, x0: float, x1: float, z0: float, z1: float, top: float, colours: dict[str, Any]) -> None:
        """An axis-aligned box standing on the ground, `top` metres tall; faces drawn far to near."""
        h = self.cam.h
        y0, y1 = h - top, h
        faces = []
        if x0 > 0:  # the camera sees the left face of a box on its right... of boxes right of it: their -X face
            faces.append(("side", [(x0, y0, z0), (x0, y1, z0), (x0, y1, z1), (x0, y0, z1)]))
        if x1 < 0:
            faces.append(("side", [(x1, y0, z0), (x1, y1, z0), (x1, y1, z1), (x1, y0, z1)]))
        if y0 > 0:
            faces.append(("top", [(x0, y0, z0), (x1, y0, z0), (x1, y0, z1), (x0, y0, z1)]))
        faces.append(("front", [(x0, y0, z0), (x1, y0, z0), (x1, y1, z0), (x0, y1, z0)]))
        for name, pts in faces:
            self.poly(pts, colours[name])


def _shade(rng: np.random.Generator, base: Sequence[int], spread: int = 18) -> tuple[int, int, int]:
    return tuple(int(np.clip(c + rng.integers(-spread, spread + 1), 0, 255)) for c in base)  # type: ignore


def _texture(img: np.ndarray, rng: np.random.Generator, amount: float) -> np.ndarray:
    """Low-frequency blotches plus pixel noise, so edges are not perfectly clean."""
    import cv2

    h, w = img.shape[:2]
    coarse = rng.normal(0, amount, size=(max(2, h // 60), max(2, w // 60), 1)).astype(np.float32)
    blotch = cv2.resize(coarse, (w, h), interpolation=cv2.INTER_CUBIC)[:, :, None]
    noise = rng.normal(0, amount * 0.6, size=(h, w, 1)).astype(np.float32)
    return np.clip(img.astype(np.float32) + blotch + noise, 0, 255).astype(np.uint8)


def _sky(canvas: _Canvas, rng: np.random.Generator) -> None:
    top = np.array(_shade(rng, (110, 150, 210), 25), dtype=np.float32)
    bottom = np.array(_shade(rng, (200, 215, 230), 15), dtype=np.float32)
    t = np.linspace(0, 1, canvas.h, dtype=np.float32)[:, None, None]
    canvas.img[:] = (top * (1 - t) + bottom * t).astype(np.uint8)


def _barrier(canvas: _Canvas, x_centre: float, z: float, width: float, tall: float) -> None:
    colours = {"front": (235, 120, 20), "side": (180, 90, 15), "top": (245, 160, 60)}
    x0, x1 = x_centre - width / 2, x_centre + width / 2
    canvas.box(x0, x1, z, z + 0.6, tall, colours)
    extent = canvas.box_extent(x0, x1, canvas.cam.h - tall, canvas.cam.h, z, z + 0.6)
    if extent is not None:
        canvas.obstacles.append(extent)
    n_stripes = 4
    hgt = canvas.cam.h
    for k in range(n_stripes):  # white stripes on the front face
        a = x0 + (k + 0.25) * width / n_stripes
        b = a + 0.35 * width / n_stripes
        top, bottom, zf = hgt - 0.9 * tall, hgt - 0.1 * tall, z - 0.001
        canvas.poly([(a, top, zf), (b, top, zf), (b, bottom, zf), (a, bottom, zf)], (245, 245, 245))


def _buildings(canvas: _Canvas, x_face: float, side: int, rng: np.random.Generator, z_max: float) -> None:
    """A row of building blocks whose facade is the plane X = x_face, with window bands."""
    z = float(rng.uniform(2, 8))
    blocks = []
    while z < z_max:
        depth = float(rng.uniform(10, 30))
        height = float(rng.uniform(6, 25))
        base = _shade(rng, (150, 140, 130), 45)
        dark = tuple(int(c * 0.75) for c in base)
        blocks.append((z, depth, height, base, dark))
        z += depth + float(rng.uniform(0.5, 6))
    h = canvas.cam.h
    x_out = x_face + side * 15
    x0, x1 = (x_face, x_out) if side > 0 else (x_out, x_face)
    xw = x_face - side * 0.01
    for z, depth, height, base, dark in reversed(blocks):  # painter's order: far blocks first
        canvas.box(x0, x1, z, z + depth, height, {"front": dark, "side": base, "top": base})
        for level in np.arange(2.0, height - 1.0, 3.0):  # window bands along the facade converge to the VP
            canvas.poly([(xw, h - level - 1.2, z + 0.5), (xw, h - level, z + 0.5),
                         (xw, h - level, z + depth - 0.5), (xw, h - level - 1.2, z + depth - 0.5)], (70, 80, 95))


def _shadows(canvas: _Canvas, rng: np.random.Generator, x_lo: float, x_hi: float, n: int) -> None:
    """Dark ground patches at random orientations: strong edges that do NOT point at the vanishing point."""
    h = canvas.cam.h
    for _ in range(n):
        cx, cz = float(rng.uniform(x_lo, x_hi)), float(rng.uniform(3, 30))
        half_a, half_b = float(rng.uniform(0.5, 4.0)), float(rng.uniform(0.3, 2.0))
        ang = float(rng.uniform(0, np.pi))
        ua, ub = np.array([np.cos(ang), np.sin(ang)]), np.array([-np.sin(ang), np.cos(ang)])
        signs = ((-1, -1), (1, -1), (1, 1), (-1, 1))
        corners = [np.array([cx, cz]) + sa * half_a * ua + sb * half_b * ub for sa, sb in signs]
        canvas.poly([(c[0], h, c[1]) for c in corners], _shade(rng, (45, 45, 50), 10))


def _trees(canvas: _Canvas, rng: np.random.Generator, x_line: float, z_max: float) -> None:
    """Trees along a line X = x_line: a trunk box and a round crown; drawn far to near."""
    import cv2

    zs = np.sort(rng.uniform(6, z_max, size=int(rng.integers(2, 7))))[::-1]
    for z in zs:
        trunk = float(rng.uniform(0.15, 0.3))
        height = float(rng.uniform(3, 6))
        x = x_line + float(rng.uniform(-0.4, 0.4))
        brown = _shade(rng, (100, 70, 45), 15)
        canvas.box(x - trunk, x + trunk, z, z + 2 * trunk, height, {"front": brown, "side": brown, "top": brown})
        centre = canvas.cam.to_cam(np.array([[x, canvas.cam.h - height, z]]))
        if centre[0, 2] <= 0.5:
            continue
        u, v = canvas.cam.project_cam(centre)[0]
        radius = canvas.cam.f * float(rng.uniform(1.2, 2.2)) / centre[0, 2]
        if -radius < u < canvas.w + radius and -radius < v < canvas.h + radius:
            cv2.circle(canvas.img, (round(u * 16), round(v * 16)), round(radius * 16), _shade(rng, (60, 110, 50), 20),
                       -1, cv2.LINE_AA, 4)


def _render_road(canvas: _Canvas, rng: np.random.Generator, safe: str) -> None:
    lane = float(rng.uniform(3.2, 3.8))
    ego = float(rng.uniform(-0.4, 0.4))  # camera offset inside the centre lane
    left_edge, right_edge = -1.5 * lane - ego, 1.5 * lane - ego
    far = 3000.0
    canvas.ground_background(_shade(rng, (95, 120, 70), 20))  # fields
    walk = float(rng.uniform(2.0, 4.0))
    kerb = 0.3
    pave = _shade(rng, (175, 170, 160), 15)
    canvas.ground_quad(left_edge - kerb - walk, left_edge - kerb, 0.5, far, pave)
    canvas.ground_quad(right_edge + kerb, right_edge + kerb + walk, 0.5, far, pave)
    canvas.ground_quad(left_edge - kerb, left_edge, 0.5, far, (210, 210, 205))
    canvas.ground_quad(right_edge, right_edge + kerb, 0.5, far, (210, 210, 205))
    canvas.ground_quad(left_edge, right_edge, 0.5, far, _shade(rng, (80, 80, 85), 12))
    canvas.ground_quad(left_edge + 0.2, left_edge + 0.35, 0.5, far, (235, 235, 235))  # solid edge lines
    canvas.ground_quad(right_edge - 0.35, right_edge - 0.2, 0.5, far, (235, 235, 235))
    dash, gap, phase = 3.0, float(rng.uniform(5, 9)), float(rng.uniform(0, 6))
    for x_line in (-0.5 * lane - ego, 0.5 * lane - ego):
        z = phase
        while z < 250:
            canvas.ground_quad(x_line - 0.075, x_line + 0.075, z, z + dash, (235, 235, 220))
            z += dash + gap
    _shadows(canvas, rng, left_edge - walk, right_edge + walk, int(rng.integers(1, 9)))
    if rng.random() < 0.85:
        _buildings(canvas, left_edge - kerb - walk - float(rng.uniform(0, 3)), -1, rng, 400)
    if rng.random() < 0.85:
        _buildings(canvas, right_edge + kerb + walk + float(rng.uniform(0, 3)), 1, rng, 400)
    for x_line in (left_edge - kerb - walk / 2, right_edge + kerb + walk / 2):
        if rng.random() < 0.6:
            _trees(canvas, rng, x_line, 60)
    centres = {"left": -lane - ego, "straight": -ego, "right": lane - ego}
    blocked = [(float(rng.uniform(9, 16)), x_c) for action, x_c in centres.items() if action != safe]
    for z, x_c in sorted(blocked, reverse=True):  # far first
        _barrier(canvas, x_c, z, lane * 0.8, 1.0)


def _render_sidewalk(canvas: _Canvas, rng: np.random.Generator, safe: str) -> None:
    path = float(rng.uniform(2.4, 4.0))
    offset = float(rng.uniform(-0.3, 0.3))
    left, right = -path / 2 - offset, path / 2 - offset
    far = 2000.0
    canvas.ground_background(_shade(rng, (100, 125, 75), 20))
    road_side = 1 if rng.random() < 0.5 else -1
    if road_side > 0:
        canvas.ground_quad(right + 0.25, right + 9, 0.3, far, _shade(rng, (80, 80, 85), 10))
        canvas.ground_quad(right, right + 0.25, 0.3, far, (205, 205, 200))
    else:
        canvas.ground_quad(left - 9, left - 0.25, 0.3, far, _shade(rng, (80, 80, 85), 10))
        canvas.ground_quad(left - 0.25, left, 0.3, far, (205, 205, 200))
    canvas.ground_quad(left, right, 0.3, far, _shade(rng, (185, 175, 160), 15))
    tile = float(rng.uniform(0.45, 0.7))
    joint = (140, 132, 120)
    x = left + tile
    while x < right - 0.05:  # joints along the path converge to the vanishing point
        canvas.ground_quad(x - 0.02, x + 0.02, 0.3, 120, joint)
        x += tile
    z = float(rng.uniform(0.5, 1.0))
    while z < 40:
        canvas.ground_quad(left, right, z - 0.02, z + 0.02, joint)
        z += tile
    _shadows(canvas, rng, left - 1, right + 1, int(rng.integers(1, 7)))
    wall_x = (left - float(rng.uniform(0.3, 1.5))) if road_side > 0 else (right + float(rng.uniform(0.3, 1.5)))
    _buildings(canvas, wall_x, -road_side, rng, 300)
    if rng.random() < 0.6:
        _trees(canvas, rng, (right + 1.0) if road_side > 0 else (left - 1.0), 40)
    thirds = {"left": left + path / 6, "straight": (left + right) / 2, "right": right - path / 6}
    blocked = [(float(rng.uniform(5.0, 9.0)), x_c) for action, x_c in thirds.items() if action != safe]
    for z, x_c in sorted(blocked, reverse=True):  # far first
        _barrier(canvas, x_c, z, path / 3 * 0.8, 0.6)


def _render_corridor(canvas: _Canvas, rng: np.random.Generator, safe: str) -> None:
    """Indoor corridor (robot view): floor tiles, walls with doors, ceiling lights, an end wall."""
    width = float(rng.uniform(2.2, 4.0))
    offset = float(rng.uniform(-0.3, 0.3))
    left, right = -width / 2 - offset, width / 2 - offset
    h = canvas.cam.h
    ceiling = h - float(rng.uniform(2.4, 3.2))  # Y of the ceiling (up is negative Y)
    end = float(rng.uniform(40, 120))
    wall = _shade(rng, (200, 195, 180), 25)
    canvas.img[:] = np.array(_shade(rng, (150, 150, 150), 10), dtype=np.uint8)
    canvas.poly([(left, ceiling, end), (right, ceiling, end), (right, h, end), (left, h, end)],
                _shade(rng, (170, 160, 140), 20))  # end wall
    canvas.poly([(left, ceiling, 0.3), (right, ceiling, 0.3), (right, ceiling, end), (left, ceiling, end)],
                _shade(rng, (225, 225, 220), 10))  # ceiling
    for x in (left, right):
        canvas.poly([(x, ceiling, 0.3), (x, h, 0.3), (x, h, end), (x, ceiling, end)],
                    tuple(int(c * (0.9 if x > 0 else 1.0)) for c in wall))
    canvas.ground_quad(left, right, 0.3, end, _shade(rng, (165, 150, 130), 20))
    tile = float(rng.uniform(0.5, 0.8))
    x = left + tile
    while x < right - 0.05:
        canvas.ground_quad(x - 0.015, x + 0.015, 0.3, end, (120, 110, 100))
        x += tile
    z = float(rng.uniform(1.0, 6.0))
    door = _shade(rng, (120, 80, 50), 25)
    while z < end - 2:  # doors on both walls: their top edges converge to the vanishing point
        for x_wall, sign in ((left, 1), (right, -1)):
            if rng.random() < 0.6:
                xd = x_wall + sign * 0.01
                canvas.poly([(xd, h - 2.1, z), (xd, h, z), (xd, h, z + 1.0), (xd, h - 2.1, z + 1.0)], door)
        z += float(rng.uniform(3, 8))
    z = float(rng.uniform(1.5, 4.0))
    while z < end - 1:  # ceiling lights
        canvas.poly([(-0.3 - offset, ceiling + 0.01, z), (0.3 - offset, ceiling + 0.01, z),
                     (0.3 - offset, ceiling + 0.01, z + 1.2), (-0.3 - offset, ceiling + 0.01, z + 1.2)],
                    (250, 250, 235))
        z += float(rng.uniform(3, 6))
    thirds = {"left": left + width / 6, "straight": (left + right) / 2, "right": right - width / 6}
    blocked = [(float(rng.uniform(4.0, 8.0)), x_c) for action, x_c in thirds.items() if action != safe]
    for z, x_c in sorted(blocked, reverse=True):
        _barrier(canvas, x_c, z, width / 3 * 0.8, 0.6)


def _ego_body(img: np.ndarray, rng: np.random.Generator, ego: str, vp: tuple[float, float]) -> int:
    """Paint the camera car's own body over the bottom of `img`; return its true top row in the centre third.

    - matte: a painted hood, its edge a parabola highest near the centre, shaded darker towards the bottom;
    - glossy: the same hood mirroring the scene: the rows above its edge, flipped about the edge and squeezed
      (a curved mirror), blended with the paint, plus bright reflections of lines parallel to the road (rails,
      roof edges): they point at the vanishing point like lane markings do, but lie on the hood. Near the edge
      the hood mirrors the road just above it, so the edge itself is faint: the hard case of real glossy hoods;
    - dashboard: a dark, almost flat dashboard (higher in the frame than a hood) and a faint ghost of it
      mirrored in the windscreen above.
    """
    import cv2

    h, w = img.shape[:2]
    xs = np.arange(w, dtype=np.float64) + 0.5
    if ego == "dashboard":
        top_c, bend = float(rng.uniform(0.68, 0.82)) * h, float(rng.uniform(-0.01, 0.015)) * h
    else:
        top_c, bend = float(rng.uniform(0.8, 0.9)) * h, float(rng.uniform(0.02, 0.07)) * h
    xc = w / 2 + float(rng.uniform(-0.05, 0.05)) * w
    edge = top_c + bend * ((xs - xc) / (w / 2)) ** 2  # the body covers row r of column x when r + 0.5 >= edge
    rows = np.arange(h, dtype=np.float64)[:, None] + 0.5
    body = rows >= edge[None, :]
    out = img.astype(np.float32)
    depth = np.clip((rows - edge[None, :]) / max(1.0, h - top_c), 0, 1)  # 0 at the edge, 1 at the bottom
    if ego == "dashboard":
        base = np.array(_shade(rng, (38, 38, 42), 10), np.float32)
        layer = np.broadcast_to(base * (1 - 0.25 * depth[..., None]), out.shape).copy()
        ghost_rows = int(min(top_c, 0.2 * h))  # the dashboard's top, mirrored faintly in the windscreen
        for r in range(1, ghost_rows):
            src = np.clip(np.round(edge + r * 2).astype(int), 0, h - 1)
            dst = np.round(edge - r).astype(int)
            ok = dst >= 0
            lighter = np.clip(img[src[ok], np.nonzero(ok)[0]].astype(np.float32) + 60, 0, 255)
            out[dst[ok], np.nonzero(ok)[0]] = 0.88 * out[dst[ok], np.nonzero(ok)[0]] + 0.12 * lighter
    else:
        paint = np.array(_shade(rng, tuple(int(v) for v in rng.choice(
            [(180, 30, 30), (30, 60, 140), (200, 200, 205), (25, 25, 28), (90, 95, 100)])), 15), np.float32)
        layer = np.broadcast_to(paint * (1 - 0.35 * depth[..., None]), out.shape).copy()
        if ego == "glossy":
            squeeze = float(rng.uniform(0.25, 0.5))
            src = np.clip(np.round(edge[None, :] - (rows - edge[None, :]) / squeeze), 0, h - 1).astype(int)
            mirrored = img[src, np.arange(w)[None, :]].astype(np.float32)
            gloss = float(rng.uniform(0.55, 0.8))
            layer = gloss * mirrored + (1 - gloss) * layer
            lines = np.zeros((h, w), np.uint8)  # reflected lines parallel to the road: through the VP
            for _ in range(int(rng.integers(2, 5))):
                x_bottom = float(rng.uniform(0.05, 0.95)) * w
                cv2.line(lines, (round(vp[0] * 16), round(vp[1] * 16)), (round(x_bottom * 16), (h - 1) * 16), 255,
                         max(2, round(w / 400)), cv2.LINE_AA, 4)
            alpha = (lines.astype(np.float32) / 255.0)[..., None] * 0.7
            layer = layer * (1 - alpha) + 235 * alpha
    out[body] = layer[body]
    img[:] = np.clip(out, 0, 255).astype(np.uint8)
    c0, c1 = w // 3, (2 * w) // 3  # the centre third, as the detector and labels.json define the hood top
    return int(np.min(np.ceil(edge[c0:c1] - 0.5)))


def render_scene(kind: str, seed: int, width: int = 1600, height: int = 900, *, ego: str = "none",
                 hfov: tuple[float, float] | None = None) -> SyntheticScene:
    """Render one deterministic scene of `kind` ("road": vehicle view, "sidewalk": robot view).

    `ego` (EGO_VIEWS) adds the camera car's body: a matte or glossy hood or a dashboard (see `_ego_body`);
    the scene's `hood_top` is its true top row (the height when none). The scene itself does not change.
    `hfov` replaces the kind's horizontal field-of-view range (a rig's lens, see RIGS); the same random draw is
    mapped onto it, so every other property of the scene stays that of the seed."""
    import cv2

    if kind not in KINDS:
        raise ValueError(f"unknown scene kind {kind!r}; expected one of {', '.join(KINDS)}")
    if width < 32 or height < 32:
        raise ValueError(f"scene size must be at least 32x32, got {width}x{height}")
    rng = np.random.default_rng([int(seed), KINDS.index(kind)])
    if kind == "road":
        cam = dict(hfov=rng.uniform(55, 70), yaw=rng.uniform(-8, 8), pitch=rng.uniform(-2, 5),
                   roll=rng.uniform(-1.5, 1.5), height=rng.uniform(1.3, 1.9))
    else:
        cam = dict(hfov=rng.uniform(60, 75), yaw=rng.uniform(-8, 8), pitch=rng.uniform(0, 8),
                   roll=rng.uniform(-1.5, 1.5), height=rng.uniform(0.5, 1.1))
    cam = {k: float(v) for k, v in cam.items()}
    if hfov is not None:  # same draw, mapped from the kind's range onto the rig's
        lo, hi = (55.0, 70.0) if kind == "road" else (60.0, 75.0)
        cam["hfov"] = float(hfov[0] + (cam["hfov"] - lo) / (hi - lo) * (hfov[1] - hfov[0]))
    camera = _Camera(width, height, cam["hfov"], cam["yaw"], cam["pitch"], cam["roll"], cam["height"])
    safe = ACTIONS[int(rng.integers(0, 3))]
    variant = "road" if kind == "road" else ("corridor" if rng.random() < 0.3 else "sidewalk")
    canvas = _Canvas(width, height, camera)
    _sky(canvas, rng)
    {"road": _render_road, "sidewalk": _render_sidewalk, "corridor": _render_corridor}[variant](canvas, rng, safe)
    img = _texture(canvas.img, rng, amount=6.0)
    if ego not in EGO_VIEWS:
        raise ValueError(f"unknown ego view {ego!r}; expected one of {', '.join(EGO_VIEWS)}")
    hood_top = height
    if ego != "none":  # its own random stream: the scene is the same with and without a hood
        hood_top = _ego_body(img, np.random.default_rng([int(seed), KINDS.index(kind), 7]), ego,
                             camera.vanishing_point())
    scale = height / 900
    cv2.putText(img, f"SYNTHETIC {kind} #{seed}", (int(12 * scale), height - int(14 * scale)),
                cv2.FONT_HERSHEY_SIMPLEX, 0.7 * scale, (255, 255, 0), max(1, round(2 * scale)), cv2.LINE_AA)
    return SyntheticScene(Image.fromarray(img, "RGB"), camera.vanishing_point(), safe, kind, int(seed), cam, variant,
                          ego, hood_top, [list(b) for b in canvas.obstacles])


def render_rig_scene(rig: str, seed: int, *, kind: str = "road", ego: str | None = None) -> SyntheticScene:
    """A scene as camera rig `rig` (RIGS) sees it: its frame size, lens and ego body (`ego` overrides it), through
    a real camera's optics (`_camera_optics`: lens blur, sensor noise, JPEG), since real frames are never as
    crisp as the flat-shaded render and a detector measured on crisp edges flatters itself."""
    if rig not in RIGS:
        raise ValueError(f"unknown rig {rig!r}; expected one of {', '.join(RIGS)}")
    spec = RIGS[rig]
    scene = render_scene(kind, seed, spec.width, spec.height, ego=spec.ego if ego is None else ego, hfov=spec.hfov)
    scene.image = _camera_optics(scene.image, np.random.default_rng([int(seed), KINDS.index(kind), 11]))
    return scene


def _camera_optics(image: Image.Image, rng: np.random.Generator) -> Image.Image:
    """Lens blur (sigma 0.6-1.6 px at 1280 px wide, scaled with the width), sensor noise and a JPEG round trip
    (quality 60-90), drawn per scene. Geometry is untouched: the truth still holds."""
    import io

    import cv2

    arr = np.asarray(image).astype(np.float32)
    sigma = float(rng.uniform(0.6, 1.6)) * image.width / 1280
    arr = cv2.GaussianBlur(arr, (0, 0), sigma)
    arr = np.clip(arr + rng.normal(0, float(rng.uniform(1.5, 4.0)), arr.shape), 0, 255).astype(np.uint8)
    buf = io.BytesIO()
    Image.fromarray(arr, "RGB").save(buf, format="JPEG", quality=int(rng.integers(60, 91)))
    buf.seek(0)
    with Image.open(buf) as out:
        return out.convert("RGB")


def write_synthetic_sources(
    folder: str | Path, n: int, *, kinds: Sequence[str] = KINDS, seed: int = 0, width: int = 1600, height: int = 900,
) -> Path:
    """Render `n` scenes (kinds alternate) as PNGs into `folder` and write `sources.jsonl`; return its path.

    The file is a source manifest like every adapter's (schema `movsafebench_source`): id, dataset
    "synthetic", path (relative to the manifest's folder), sha256, gt_action, agent, the true vanishing_point
    {x, y} (the plan uses it instead of detecting one), ego_hood (none: the scenes have no ego body), obstacles
    (the barriers' image boxes: the plan keeps inserted objects off them) and extra {kind, seed, variant}.
    """
    import hashlib

    from eval_kit.jsonl import atomic_write_bytes, atomic_write_text

    folder = Path(folder)
    (folder / "images").mkdir(parents=True, exist_ok=True)
    lines = []
    for k in range(n):
        kind = kinds[k % len(kinds)]
        scene_seed = seed + k
        scene = render_scene(kind, scene_seed, width, height)
        sample_id = f"synthetic-{kind}-{scene_seed:06d}"
        rel = f"images/{sample_id}.png"
        import io

        buf = io.BytesIO()
        scene.image.save(buf, format="PNG")
        atomic_write_bytes(folder / rel, buf.getvalue())
        lines.append({
            "id": sample_id, "dataset": "synthetic", "path": rel, "sha256": hashlib.sha256(buf.getvalue()).hexdigest(),
            "gt_action": scene.safe_action, "agent": scene.agent,
            "vanishing_point": {"x": round(scene.vanishing_point[0], 3), "y": round(scene.vanishing_point[1], 3)},
            "ego_hood": {"top": height, "height": height, "method": "synthetic"},
            "extra": {"kind": kind, "seed": scene_seed, "variant": scene.variant},
            **({"obstacles": scene.obstacles} if scene.obstacles else {}),
        })
    import json

    out = folder / "sources.jsonl"
    atomic_write_text(out, "".join(json.dumps(line, sort_keys=True) + "\n" for line in lines))
    return out
