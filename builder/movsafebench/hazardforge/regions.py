"""The three image regions of HazardForge (paper 3.1) and the one place where coordinates change origin.

The paper defines Omega(I) = {(x, y) | 0 <= x < W, 0 <= y < H} with the origin at the BOTTOM-left corner and
splits it into vertical thirds: Omega_L = {0 <= x < W/3}, Omega_C = {W/3 <= x < 2W/3}, Omega_R = {2W/3 <= x < W}.
Everything else in hazardkit (numpy arrays, OpenCV, PIL, plan files) uses image coordinates: origin at the
TOP-left, x to the right, y down, integer pixel (column, row) indices.

Conversion (only here): a pixel at paper coordinates (x, y) is the array element [row, column] with
column = x and row = H - 1 - y. The thirds only constrain x, which is not flipped; the distance band
|y - y'| <= d*H is symmetric in y, so it keeps its form in image coordinates (row - row' = -(y - y')).

Integer pixel bounds: a pixel column x belongs to Omega_C iff W/3 <= x < 2W/3, i.e. ceil(W/3) <= x < ceil(2W/3);
so the half-open column ranges are [0, ceil(W/3)), [ceil(W/3), ceil(2W/3)), [ceil(2W/3), W).
For W = 1600: [0, 534), [534, 1067), [1067, 1600).
"""

from __future__ import annotations

import numpy as np

# Region keys in paper order, and the MovSafeBench answer each region's action means (a_L, a_C, a_R).
REGIONS: tuple[str, ...] = ("L", "C", "R")
ANSWER_OF_REGION: dict[str, str] = {"L": "left", "C": "straight", "R": "right"}
REGION_OF_ANSWER: dict[str, str] = {v: k for k, v in ANSWER_OF_REGION.items()}
# The image side each outer region touches (intrusion enters through a side border).
SIDE_OF_REGION: dict[str, str] = {"L": "left", "R": "right"}
REGION_OF_SIDE: dict[str, str] = {v: k for k, v in SIDE_OF_REGION.items()}


def _ceil_div(numerator: int, denominator: int) -> int:
    return -(-numerator // denominator)


def region_columns(width: int, region: str) -> tuple[int, int]:
    """Half-open pixel column range [x0, x1) of Omega_region for an image `width` pixels wide (exact integers)."""
    if width <= 0:
        raise ValueError(f"image width must be positive, got {width}")
    if region not in REGIONS:
        raise ValueError(f"unknown region {region!r}; expected one of {', '.join(REGIONS)}")
    k = REGIONS.index(region)
    return _ceil_div(k * width, 3), _ceil_div((k + 1) * width, 3)


def region_of_column(width: int, x: float) -> str:
    """The region a (possibly fractional) column coordinate falls in, using the paper's inequalities."""
    if x < width / 3:
        return "L"
    if x < 2 * width / 3:
        return "C"
    return "R"


def region_mask(height: int, width: int, region: str) -> np.ndarray:
    """Boolean H x W mask of Omega_region (the motion scenario's conditional mask for region C)."""
    x0, x1 = region_columns(width, region)
    mask = np.zeros((height, width), dtype=bool)
    mask[:, x0:x1] = True
    return mask


def paper_to_image(x: float, y: float, height: int) -> tuple[float, float]:
    """Paper (bottom-left origin) pixel coordinates to image (top-left origin) pixel coordinates."""
    return x, (height - 1) - y


def image_to_paper(x: float, y: float, height: int) -> tuple[float, float]:
    """Image (top-left origin) pixel coordinates to paper (bottom-left origin) pixel coordinates."""
    return x, (height - 1) - y
