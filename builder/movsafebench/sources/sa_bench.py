"""SA-Bench adapter (ETRI, ICRA 2025): sidewalk images, each with a same-name XML annotation.

The XML holds `goal_position/{x, y}` (normalised to [0, 1], origin top-left), free-text left/right/path
descriptions and `recommend/decision` in {go, stop}. SA-Bench has no left/straight/right label.

ASSUMPTION (ours, not SA-Bench's, also stated in the dataset card): the safe direction is the third of the
image width that `goal_position.x` falls in, using the paper's regions (section 3.1): x < 1/3 -> left,
1/3 <= x < 2/3 -> straight, x >= 2/3 -> right. The decision is kept in `extra` so a maintainer can filter.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from pathlib import Path

from builder.movsafebench.sources.common import (
    ScanResult,
    Skipped,
    SourceRecord,
    direction_of_x,
    image_problem,
    relative_posix,
    sha256_file,
)
from eval_kit.errors import BadInput

DATASET = "sa_bench"
AGENT = "robot"
IMAGE_SUFFIXES = (".jpg", ".jpeg", ".png")


def _text(root: ET.Element, path: str) -> str | None:
    node = root.find(path)
    return node.text.strip() if node is not None and node.text is not None else None


def read_annotation(xml_path: Path) -> dict[str, object]:
    """goal x/y (floats in [0, 1]), decision and descriptions; ValueError naming the problem."""
    try:
        root = ET.parse(xml_path).getroot()
    except ET.ParseError as exc:
        raise ValueError(f"XML does not parse ({exc})") from None
    x_text, y_text = _text(root, ".//goal_position/x"), _text(root, ".//goal_position/y")
    if x_text is None or y_text is None:
        raise ValueError("no goal_position/x and goal_position/y")
    try:
        x, y = float(x_text), float(y_text)
    except ValueError:
        raise ValueError(f"goal_position is not numeric ({x_text!r}, {y_text!r})") from None
    if not (0.0 <= x <= 1.0 and 0.0 <= y <= 1.0):
        raise ValueError(f"goal_position ({x}, {y}) is not normalised to [0, 1]")
    return {
        "goal_x": x,
        "goal_y": y,
        "decision": (_text(root, ".//recommend/decision") or "").lower() or None,
        "left": _text(root, ".//left"),
        "right": _text(root, ".//right"),
        "path": _text(root, ".//path"),
    }


def scan(root: str | Path, *, check_images: bool = True) -> ScanResult:
    """Walk `root` recursively; every image with a readable same-name XML becomes a record."""
    root = Path(root)
    if not root.is_dir():
        raise BadInput("SA-Bench folder not found", path=root, fix="pass the folder holding images and XML files")
    result = ScanResult()
    for image in sorted(p for p in root.rglob("*") if p.suffix.lower() in IMAGE_SUFFIXES and p.is_file()):
        rel = relative_posix(image, root)
        xml_path = image.with_suffix(".xml")
        if not xml_path.is_file():
            result.skipped.append(Skipped(rel, "no same-name XML annotation"))
            continue
        try:
            ann = read_annotation(xml_path)
        except ValueError as exc:
            result.skipped.append(Skipped(relative_posix(xml_path, root), str(exc)))
            continue
        if check_images and (problem := image_problem(image)):
            result.skipped.append(Skipped(rel, problem))
            continue
        stem = Path(rel).with_suffix("").as_posix().replace("/", "__")
        result.records.append(SourceRecord(
            id=f"{DATASET}_{stem}",
            dataset=DATASET,
            path=rel,
            sha256=sha256_file(image),
            gt_action=direction_of_x(float(ann["goal_x"])),  # type: ignore[arg-type]
            agent=AGENT,
            extra={k: v for k, v in ann.items() if v is not None},
        ))
    return result
