"""Ego-vehicle hood detection: the top row of the camera car's own body at the bottom of a frame (CPU, ~10 ms).

Dash-cam and nuScenes-style frames often show the ego vehicle's hood (or a dashboard reflection) along the
bottom. HazardForge must never stand an object on it, so every region stops above `hood_top`, the highest row
of the ego body in the bottom-centre third of the image (H when none is visible).

Method, on a copy `work_width` pixels wide:
1. blur and convert to CIE Lab; the vertical colour gradient of a row is the largest Lab channel difference
   between the rows two above and two below; over the centre third of the columns (where the hood is highest
   and nothing else is horizontal for long) a row is an edge when its median gradient and the share of
   columns above `edge_level` pass the thresholds (strong edges; faint ones with lower thresholds, allowing
   `edge_rows` of curvature);
2. LSD segments within `lane_deg` of the ray to the vanishing point are markings (lane lines, road edges,
   and on a glossy hood the mirrored lines of things parallel to the road, which point at the same vanishing
   point). For an edge: a marking crossing it, or markings below it that mostly continue the rays of
   markings above it, mean the road goes on (a shadow or kerb: not the hood); markings below it that continue
   nothing above are "mixed" (a mirror, or road we cannot follow); none below it: the hood. Hoods curve down
   towards the sides, so a marking ending at column x counts `hood_curvature` x H x ((x - W/2) / (W/2))^2
   higher. Without a vanishing point or marking only the bottom `1 - no_lane_search_from` is searched;
3. `top` is the highest strong edge below which the road does not go on and nothing is mixed (else none,
   `top = H`): mixed evidence alone never makes a hood. Mixed edges and faint edges with no marking below
   them, in the lower `1 - unsure_from` of the ground and above `top`, make the result unsure: `certain`
   False, `bound` the highest of them, `reason` says which. Placement stays above `placement_top` (the bound).

On the 14 shared Udacity photos (8 with a hood, 6 without) every detected top is within 0.6 % of H of the
hand reference, 2 are unsure with bounds above the hood (benchmarks/forge_real.py); synthetic matte, glossy
and dashboard views with known truth: benchmarks/ego_hood_synthetic.py.
The result is stored in the source manifest (`ego_hood`); a maintainer can override it per image with
`ego_hood_override` (a row, or H for "no hood"), and `forge plan` uses the override when present.
Limits: a glossy hood whose edge has no contrast in the centre third and whose mirrored lines continue lane
markings' rays is missed; a long horizontal edge with no marking below it (an obstacle's bottom across the ego
lane) can be taken for the hood top, which only costs the ground rows below it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

METHOD = "lab_edge_lanes"


@dataclass(frozen=True)
class HoodSettings:
    work_width: int = 640
    search_from: float = 0.55  # fraction of H: the hood never reaches higher on a forward camera
    edge_level: float = 12.0  # Lab units: a column "has an edge" at this row
    min_edge: float = 15.0  # median gradient across the centre third
    min_coverage: float = 0.6
    weak_edge: float = 7.0  # a fainter edge (a glossy hood mirroring the road above it) is a possible hood
    weak_level: float = 6.0
    weak_coverage: float = 0.5
    edge_rows: int = 2  # working rows: a faint edge's columns may lie this far above or below the row (curvature)
    lane_deg: float = 1.5  # a segment within this angle of the ray to the vanishing point is a lane marking
    lane_min_length: float = 0.03  # of the working width
    lane_tolerance: float = 0.02  # of H: the hood may start this far above the lowest lane marking
    same_ray_frac: float = 0.02  # of W: a segment below an edge continues a marking above it when their rays
    # from the vanishing point cross the edge's row this close
    unsure_from: float = 0.5  # of the way from the horizon to the bottom: mixed evidence above it is no hood
    continued_share: float = 0.5  # of the length of the markings below an edge: above it, the road goes on
    no_lane_search_from: float = 0.75  # of H, when no lane marking points at the vanishing point
    hood_curvature: float = 0.08  # of H: how much lower than at the centre a hood's edge may be at the image sides


@dataclass(frozen=True)
class EgoHood:
    """The ego body's top row in full-resolution pixels (`top == height` means none visible).

    `certain` is False when the evidence is mixed (a faint edge, or markings below the edge that may be the
    scene mirrored in a glossy hood); then `bound` is the most conservative top (the highest row that may be
    ego body) and placement must stay above it. When certain, `bound == top`."""

    top: int
    height: int
    method: str = METHOD
    score: float = 0.0
    certain: bool = True
    bound: int | None = None
    reason: str = ""

    @property
    def visible(self) -> bool:
        return self.top < self.height

    @property
    def placement_top(self) -> int:
        """The row every mask and object base stays above: the conservative bound when unsure."""
        return self.top if self.bound is None else min(self.top, self.bound)

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"top": int(self.top), "height": int(self.height), "method": self.method,
                               "score": round(float(self.score), 3)}
        if not self.certain:
            out.update(certain=False, bound=int(self.placement_top), reason=self.reason)
        return out


def placement_top(hood: dict[str, Any] | None, height: int) -> int:
    """The row placement stays above for a manifest's `ego_hood` dict: `bound` when the detector was unsure."""
    if not hood:
        return height
    top = int(hood.get("top", height))
    bound = hood.get("bound")
    return min(top, int(bound)) if bound is not None else top


def _rgb_array(image: Any) -> np.ndarray:
    arr = np.asarray(image.convert("RGB")) if hasattr(image, "convert") else np.asarray(image)
    if arr.ndim == 2:
        arr = np.stack([arr] * 3, axis=2)
    return np.ascontiguousarray(arr[..., :3], dtype=np.uint8)


@dataclass(frozen=True)
class _Markings:
    """Segments pointing at the vanishing point (working pixels): rows of their ends, ray angles, lengths."""

    upper: np.ndarray  # row of the upper end
    lower: np.ndarray  # row of the lower end, less the hood-curvature allowance at its column
    slope: np.ndarray  # dx/dy of the ray from the vanishing point through the segment's middle
    length: np.ndarray
    vp: tuple[float, float] = (0.0, 0.0)

    def x_at(self, row: float) -> np.ndarray:
        """Where each marking's ray from the vanishing point crosses `row`."""
        return self.vp[0] + self.slope * (row - self.vp[1])

    def __len__(self) -> int:
        return len(self.length)


def lane_markings(small_grey: np.ndarray, vanishing_point: tuple[float, float], settings: HoodSettings) -> _Markings:
    """Line segments within `lane_deg` of the ray to the vanishing point, below it: lane markings and road
    edges, and on a glossy hood the mirrored lines of the scene (which point at the same vanishing point)."""
    from builder.movsafebench.hazardforge.vanishing import detect_segments

    h, w = small_grey.shape
    seg = detect_segments(small_grey)
    empty = _Markings(*(np.zeros(0) for _ in range(4)), vp=vanishing_point)
    if len(seg) == 0:
        return empty
    p1, p2 = seg[:, :2], seg[:, 2:]
    length = np.hypot(*(p2 - p1).T)
    mids = (p1 + p2) / 2
    vx, vy = vanishing_point
    to_vp = np.stack([vx - mids[:, 0], vy - mids[:, 1]], axis=1)
    cross = np.abs((p2 - p1)[:, 0] * to_vp[:, 1] - (p2 - p1)[:, 1] * to_vp[:, 0])
    sin = cross / (length * np.hypot(*to_vp.T) + 1e-9)
    keep = (length >= settings.lane_min_length * w) & (sin < np.sin(np.radians(settings.lane_deg))) \
        & (mids[:, 1] > vy + 0.05 * h)
    if not keep.any():
        return empty
    seg, length, mids = seg[keep], length[keep], mids[keep]
    down = (seg[:, 3] > seg[:, 1])[:, None]
    lower = np.where(down, seg[:, 2:], seg[:, :2])
    upper = np.where(down, seg[:, :2], seg[:, 2:])
    # a hood's edge curves down towards the sides: a marking ending at column x bounds the centre's hood top
    # only up to that curvature
    allowance = settings.hood_curvature * h * ((lower[:, 0] - w / 2) / (w / 2)) ** 2
    slope = (mids[:, 0] - vx) / np.maximum(mids[:, 1] - vy, 1e-6)
    return _Markings(upper[:, 1], lower[:, 1] - allowance, slope, length, (vx, vy))


def lowest_lane_row(small_grey: np.ndarray, vanishing_point: tuple[float, float], settings: HoodSettings) -> int:
    """The lowest row (working pixels) reached by a line segment pointing at the vanishing point, or -1."""
    marks = lane_markings(small_grey, vanishing_point, settings)
    return int(np.max(marks.lower)) if len(marks) else -1


def _road_goes_on(marks: _Markings, row: int, tol: int, width: int, settings: HoodSettings) -> tuple[bool, bool]:
    """(road, mixed) for an edge at `row`: `road` when markings show the road continuing below it (a line
    crossing it, or most of the markings below it continuing the rays of markings above it: a shadow or a kerb
    across the lane); `mixed` when there are markings below it that continue nothing above (the scene mirrored
    in a glossy hood, or road the detector cannot follow)."""
    below = marks.lower > row + tol
    if not below.any():
        return False, False
    if (below & (marks.upper < row - tol)).any():
        return True, False  # a straight line crossing the edge: the road goes on
    above = marks.lower <= row + tol
    if not above.any():
        return False, True
    xs = marks.x_at(row)
    continued = (np.abs(xs[below][:, None] - xs[above][None, :]) < settings.same_ray_frac * width).any(axis=1)
    share = float((marks.length[below] * continued).sum() / marks.length[below].sum())
    if share >= settings.continued_share:
        return True, False
    return False, True


def _edge_rows(grad: np.ndarray, rows: np.ndarray, level: float, strength_min: float, coverage_min: float,
               reach: int) -> list[tuple[int, float]]:
    """(row, strength) of each long horizontal edge among `rows`, top to bottom.

    A row qualifies when the median gradient and the share of columns with an edge within `reach` rows (a
    curved hood edge is not one row across the centre third) pass the thresholds; of the qualifying rows,
    the local peaks of the row's own median gradient are the edges (the blurred edge spans a few rows)."""
    from scipy.ndimage import maximum_filter1d

    near = maximum_filter1d(grad, size=2 * reach + 1, axis=0) if reach > 0 else grad
    coverage = (near[rows] > level).mean(axis=1)
    plain = np.median(grad[rows], axis=1)
    ok = (plain >= strength_min) & (coverage >= coverage_min)
    peak = plain >= maximum_filter1d(plain, size=5)
    out: list[tuple[int, float]] = []
    for i in np.nonzero(ok & peak)[0]:
        if out and rows[i] - out[-1][0] <= 2:
            continue  # a plateau: one edge
        out.append((int(rows[i]), float(plain[i])))
    return out


def detect_ego_hood(image: Any, settings: HoodSettings | None = None, *,
                    vanishing_point: tuple[float, float] | None = None) -> EgoHood:
    """Detect the ego hood's top row in a PIL image or RGB array (see the module docstring).

    `vanishing_point` (full-resolution pixels) enables the lane test: the hood starts below the lowest lane
    marking pointing at it that belongs to the road."""
    import cv2

    settings = settings or HoodSettings()
    rgb = _rgb_array(image)
    height, width = rgb.shape[:2]
    scale = min(1.0, settings.work_width / width)
    small = cv2.resize(rgb, (max(1, round(width * scale)), max(1, round(height * scale))),
                       interpolation=cv2.INTER_AREA) if scale < 1 else rgb
    h, w = small.shape[:2]
    none = EgoHood(height, height, METHOD, 0.0)
    if h < 24 or w < 24:
        return none
    sy = h / height

    def full(row: int) -> int:
        return min(height, max(0, round((row + 0.5) / sy - 0.5)))

    lab = cv2.cvtColor(cv2.GaussianBlur(small, (5, 5), 0), cv2.COLOR_RGB2LAB).astype(np.float32)
    c0, c1 = w // 3, (2 * w) // 3
    centre = lab[:, c0:c1]
    grad = np.zeros(centre.shape[:2], np.float32)
    grad[2:-2] = np.abs(centre[4:] - centre[:-4]).max(axis=2)
    y_lo = int(settings.search_from * h)
    marks = None
    if vanishing_point is not None:
        marks = lane_markings(cv2.cvtColor(small, cv2.COLOR_RGB2GRAY),
                              ((vanishing_point[0] + 0.5) * sy - 0.5, (vanishing_point[1] + 0.5) * sy - 0.5),
                              settings)
    if marks is None or not len(marks):
        # no lane marking to test edges against: only the bottom quarter can be hood (horizon edges lie higher)
        rows = np.arange(max(y_lo, int(settings.no_lane_search_from * h)), h - 2)
        if len(rows) == 0:
            return none
        strong = _edge_rows(grad, rows, settings.edge_level, settings.min_edge, settings.min_coverage, 0)
        return EgoHood(full(strong[0][0]), height, METHOD, strong[0][1]) if strong else none
    rows = np.arange(y_lo, h - 2)
    if len(rows) == 0:
        return none
    tol = round(settings.lane_tolerance * h)
    strong = _edge_rows(grad, rows, settings.edge_level, settings.min_edge, settings.min_coverage, 0)
    weak = _edge_rows(grad, rows, settings.weak_level, settings.weak_edge, settings.weak_coverage,
                      settings.edge_rows)
    # mixed evidence (faint edges, mirrored markings) counts as a possible hood only in the lower part of the
    # ground: a hood or dashboard never starts near the horizon
    unsure_row = marks.vp[1] + settings.unsure_from * (h - marks.vp[1])
    best: tuple[int, float] | None = None  # the highest clean edge: nothing below it continues the road
    mirrored: int | None = None  # the highest edge with markings below it that continue no road marking
    faint: int | None = None  # the highest faint edge with no marking below it
    for row, strength in strong:
        road, mixed = _road_goes_on(marks, row, tol, w, settings)
        if road:
            continue
        if mixed:
            if row >= unsure_row and mirrored is None:
                mirrored = row
            continue
        best = (row, strength)
        break
    for row, _strength in weak:
        if best is not None and row >= best[0]:
            break
        if row < unsure_row:
            continue
        road, mixed = _road_goes_on(marks, row, tol, w, settings)
        if road:
            continue
        if mixed:
            mirrored = row if mirrored is None else min(mirrored, row)
        elif faint is None:
            faint = row
    # the estimate: the clean edge, else none (never a hood from mixed evidence alone: no false hoods); the
    # bound: the highest row of them all
    top, score, reason = (best[0], best[1], "") if best is not None else (h, 0.0, "")
    if mirrored is not None and mirrored <= top:
        reason = (f"markings below row {full(mirrored)} continue no road marking above it (a glossy hood "
                  "mirroring the scene?)")
    if faint is not None and faint < top:
        reason = "; ".join(filter(None, [reason, f"a faint long edge at row {full(faint)} may be the hood's"]))
    bound = min([top, *(r for r in (mirrored, faint) if r is not None)])
    if not reason:
        return EgoHood(full(top), height, METHOD, score) if top < h else none
    return EgoHood(full(top) if top < h else height, height, METHOD, score, certain=False, bound=full(bound),
                   reason=reason)
