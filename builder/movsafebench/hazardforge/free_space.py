"""Free ground for the compositor: where an inserted object may stand without covering another road user.

`occupied_mask(image, vanishing_row, hood_top)` marks the pixels an object's footprint must avoid:
- people found by OpenCV's HOG pedestrian detector (`cv2.HOGDescriptor_getDefaultPeopleDetector`, shipped with
  OpenCV 4.x, no download), run on a copy `work_width` pixels wide. OpenCV 5's main modules no longer ship
  HOGDescriptor: there `people_detector_available()` is False and only the road-surface test applies;
- everything below the horizon that is not road surface: the road's colour is sampled in the bottom-centre
  of the ground (just above the ego hood, where the ego lane is) and a pixel is road when its CIE Lab colour
  lies within `road_distance` of that sample's median. Vehicles, kerbs, verges and signs fail this test;
- everything above the horizon (nothing stands there).

`free_column` then slides the object's footprint (its lowest rows) along its row band and returns the column
nearest to the preferred one whose footprint is at least `min_free` free. When none is, the compositor keeps
its preferred column and records `free: false` (for example a static object in a region that is all verge).
Limits: a vehicle painted the road's grey passes as road; lane markings count as not-road (the threshold
allows for them); the colour sample assumes the bottom-centre above the hood is road.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class FreeSpaceSettings:
    work_width: int = 640
    road_distance: float = 14.0  # Lab units from the road sample's median
    sample_rows: float = 0.12  # of the ground between horizon and hood, just above the hood
    hog_hit_threshold: float = 0.5
    footprint_rows: float = 0.15  # of the object height, at least 2 rows
    min_free: float = 0.7


def people_detector_available() -> bool:
    """Whether this OpenCV build has the HOG people detector (4.x does, 5.0's main modules do not)."""
    import cv2

    return hasattr(cv2, "HOGDescriptor")


def people_boxes(rgb: np.ndarray, settings: FreeSpaceSettings | None = None) -> list[tuple[int, int, int, int]]:
    """HOG pedestrian boxes (x0, y0, x1, y1) in full-resolution pixels ([] without the detector)."""
    import cv2

    if not people_detector_available():
        return []
    settings = settings or FreeSpaceSettings()
    height, width = rgb.shape[:2]
    scale = min(1.0, settings.work_width / width)
    small = cv2.resize(rgb, (round(width * scale), round(height * scale)), interpolation=cv2.INTER_AREA) \
        if scale < 1 else rgb
    hog = cv2.HOGDescriptor()
    hog.setSVMDetector(cv2.HOGDescriptor_getDefaultPeopleDetector())
    found, _weights = hog.detectMultiScale(np.ascontiguousarray(small), winStride=(8, 8), padding=(8, 8), scale=1.05,
                                          hitThreshold=settings.hog_hit_threshold)
    boxes = []
    for (x, y, w, h) in np.asarray(found).reshape(-1, 4):
        boxes.append((int(x / scale), int(y / scale), int((x + w) / scale), int((y + h) / scale)))
    return boxes


def road_mask(rgb: np.ndarray, vanishing_row: float, hood_top: int,
              settings: FreeSpaceSettings | None = None) -> np.ndarray:
    """Bool H x W: road-coloured pixels below the horizon and above the hood."""
    import cv2

    settings = settings or FreeSpaceSettings()
    height, width = rgb.shape[:2]
    scale = min(1.0, settings.work_width / width)
    small = cv2.resize(rgb, (round(width * scale), round(height * scale)), interpolation=cv2.INTER_AREA) \
        if scale < 1 else rgb
    h, w = small.shape[:2]
    lab = cv2.cvtColor(cv2.GaussianBlur(small, (5, 5), 0), cv2.COLOR_RGB2LAB).astype(np.float32)
    horizon = int(np.clip(round((vanishing_row + 0.5) * h / height), 0, h - 1))
    bottom = int(np.clip(round(hood_top * h / height), horizon + 1, h))
    span = max(2, round(settings.sample_rows * (bottom - horizon)))
    sample = lab[max(horizon, bottom - span - 2): max(horizon + 1, bottom - 2), w * 2 // 5: w * 3 // 5]
    road = np.zeros((h, w), bool)
    if sample.size:
        centre = np.median(sample.reshape(-1, 3), axis=0)
        road[horizon:bottom] = np.abs(lab[horizon:bottom] - centre).max(axis=2) <= settings.road_distance
    return cv2.resize(road.astype(np.uint8), (width, height), interpolation=cv2.INTER_NEAREST).astype(bool)


def occupied_mask(image, vanishing_row: float, hood_top: int, settings: FreeSpaceSettings | None = None) -> np.ndarray:
    """Bool H x W: where an object's footprint must not go (not road, or a detected person)."""
    rgb = np.ascontiguousarray(np.asarray(image.convert("RGB") if hasattr(image, "convert") else image)[..., :3])
    occupied = ~road_mask(rgb, vanishing_row, hood_top, settings)
    for x0, y0, x1, y1 in people_boxes(rgb, settings):
        occupied[max(0, y0):y1, max(0, x0):x1] = True
    return occupied


def free_column(occupied: np.ndarray, x0: int, x1: int, width: int, top: int, bottom: int, *,
                preferred: int, settings: FreeSpaceSettings | None = None,
                allowed: np.ndarray | None = None) -> int | None:
    """The left column in [x0, x1 - width] nearest `preferred` whose footprint is free enough, or None.

    `allowed`, when given, are the only left columns that may be returned (e.g. those clear of obstacle boxes)."""
    settings = settings or FreeSpaceSettings()
    height, image_w = occupied.shape
    rows = max(2, round(settings.footprint_rows * (bottom - top)))
    fy0, fy1 = max(0, bottom - rows), min(height, bottom)
    if fy1 <= fy0 or x1 - x0 < width:
        return None
    free = (~occupied[fy0:fy1, :]).astype(np.float32).mean(axis=0)  # per-column free share of the footprint
    csum = np.concatenate([[0.0], np.cumsum(free)])
    lefts = np.arange(max(0, x0), min(x1, image_w) - width + 1)
    if allowed is not None:
        lefts = np.intersect1d(lefts, allowed)
    if len(lefts) == 0:
        return None
    share = (csum[lefts + width] - csum[lefts]) / width
    ok = lefts[share >= settings.min_free]
    if len(ok) == 0:
        return None
    return int(ok[np.argmin(np.abs(ok - preferred))])
