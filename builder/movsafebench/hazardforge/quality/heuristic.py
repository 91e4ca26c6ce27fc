"""A cheap, model-free checker for the compositing editor: reads the pixel difference under the mask.

- completeness: the changed pixels (|output - input| above a threshold, cleaned by morphology) form the object.
  Too few -> "not generated"; the object touching the mask box's edge where that edge is inside the image ->
  "incomplete" (cut by the mask); otherwise "complete".
- size: given the plan's expected height (`expected_height`, from perspective), the silhouette's height must
  lie within [`min_size_ratio`, `max_size_ratio`] of it ("wrong size" otherwise), and the "not generated" floor
  scales with the expected object (a 10 px far object is not judged against the whole distance band).
- direction: the object's silhouette. Side views put their highest part (head, handlebar, reaching arm) at the
  front, so the centroid of the top 30 % of the silhouette lies ahead of the whole silhouette's centroid
  -> "left" / "right". A mirror-symmetric silhouette is a frontal view: this checker cannot tell forward from
  backward, so it answers "frontal" and accepts either frontal intention. This is a limitation: use the VLM
  checker for the benchmark; this one is for the CPU demo and smoke tests.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from PIL import Image

from builder.movsafebench.hazardforge.quality.base import Verdict, check_intended, crop_box


class HeuristicChecker:
    def __init__(self, *, diff_threshold: int = 24, min_object_fraction: float = 0.002, min_object_px: int = 20,
                 asymmetry_threshold: float = 0.06, min_size_ratio: float = 0.5, max_size_ratio: float = 2.0) -> None:
        self.min_size_ratio = min_size_ratio
        self.max_size_ratio = max_size_ratio
        self.diff_threshold = diff_threshold
        self.min_object_fraction = min_object_fraction
        self.min_object_px = min_object_px
        self.asymmetry_threshold = asymmetry_threshold

    def provenance(self) -> dict[str, Any]:
        return {"checker": "heuristic", "diff_threshold": self.diff_threshold,
                "min_object_fraction": self.min_object_fraction, "asymmetry_threshold": self.asymmetry_threshold,
                "size_ratio": [self.min_size_ratio, self.max_size_ratio]}

    def object_silhouette(self, input_image: Image.Image, output_image: Image.Image,
                          mask: np.ndarray) -> tuple[np.ndarray, tuple[int, int, int, int]]:
        """Bool silhouette of the largest changed blob inside the mask box, and the box."""
        import cv2

        box = crop_box(mask)
        x0, y0, x1, y1 = box
        a = np.asarray(input_image.crop(box).convert("RGB"), dtype=np.int16)  # crop first: 1600x900 is large
        b = np.asarray(output_image.crop(box).convert("RGB"), dtype=np.int16)
        changed = (np.abs(a - b).max(axis=2) > self.diff_threshold) & mask[y0:y1, x0:x1]
        changed = cv2.morphologyEx(changed.astype(np.uint8), cv2.MORPH_CLOSE, np.ones((5, 5), np.uint8))
        count, labels, stats, _ = cv2.connectedComponentsWithStats(changed, connectivity=8)
        if count <= 1:
            return np.zeros_like(changed, dtype=bool), box
        biggest = 1 + int(np.argmax(stats[1:, cv2.CC_STAT_AREA]))
        blob = (labels == biggest).astype(np.uint8)
        contours, _ = cv2.findContours(blob, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
        filled = np.zeros_like(blob)
        cv2.drawContours(filled, contours, -1, 1, thickness=-1)
        return filled.astype(bool), box

    def check(self, input_image: Image.Image, output_image: Image.Image, mask: np.ndarray,
              intended_direction: str, *, expected_height: float | None = None) -> Verdict:
        check_intended(intended_direction)
        mask = np.asarray(mask, dtype=bool)
        sil, (x0, y0, x1, y1) = self.object_silhouette(input_image, output_image, mask)
        area = int(sil.sum())
        raw: dict[str, Any] = {"object_px": area, "mask_px": int(mask.sum())}
        floor = self.min_object_fraction * raw["mask_px"] if expected_height is None else 0.02 * expected_height ** 2
        if area < max(self.min_object_px, floor):
            return Verdict(False, "not generated", None, raw)
        ys, xs = np.nonzero(sil)
        h, w = mask.shape
        touches = {
            "left": xs.min() == 0 and x0 > 0, "right": xs.max() == sil.shape[1] - 1 and x1 < w,
            "top": ys.min() == 0 and y0 > 0, "bottom": ys.max() == sil.shape[0] - 1 and y1 < h,
        }
        raw["cut_by_mask"] = sorted(k for k, v in touches.items() if v)
        completeness = "incomplete" if raw["cut_by_mask"] else "complete"
        top_rows = ys <= ys.min() + 0.3 * (ys.max() - ys.min() + 1)
        width = xs.max() - xs.min() + 1
        asym = float((xs[top_rows].mean() - xs.mean()) / width)
        raw["top_asymmetry"] = round(asym, 4)
        if asym > self.asymmetry_threshold:
            direction = "right"
        elif asym < -self.asymmetry_threshold:
            direction = "left"
        else:
            direction = "frontal"
        ok_direction = direction == intended_direction or (
            direction == "frontal" and intended_direction in ("forward", "backward"))
        ok_size = True
        if expected_height is not None:
            ratio = float(ys.max() - ys.min() + 1) / max(1.0, float(expected_height))
            raw["expected_height"] = round(float(expected_height), 1)
            raw["size_ratio"] = round(ratio, 3)
            ok_size = self.min_size_ratio <= ratio <= self.max_size_ratio
            if not ok_size and completeness == "complete":
                completeness = "wrong size"
        return Verdict(completeness == "complete" and ok_direction and ok_size, completeness, direction, raw)

    def check_batch(self, items: list[tuple[Image.Image, Image.Image, np.ndarray, str]]) -> list[Verdict]:
        return [self.check(*item) for item in items]
