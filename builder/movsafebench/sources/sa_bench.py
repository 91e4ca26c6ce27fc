"""SA-Bench adapter (ETRI, ICRA 2025): sidewalk images, each with a same-name XML annotation.

The XML layout, as SA-Bench's official reader code reads it: root children `goal_position/{x, y}` (normalised
to [0, 1], origin top-left); `<left>`, `<right>`, `<path>` and `<dest>`, each holding a `<simple>` and a
`<complex>` text description; and `<recommend>TEXT<decision>go|stop</decision></recommend>`, the recommended
action in words followed by the decision. Images (.jpg/.jpeg/.png, any case) lie beside the XML of the same
name. All of it is kept in the manifest row's `extra`: goal_x, goal_y, left/right/path/dest as
{simple, complex}, recommend (the text) and decision. A flat `<left>text</left>` (older exports) is kept as
{simple: text}.

An XML without its image, an image without XML, an XML that does not parse or lacks the goal position, and an
image that does not decode are each reported as a skipped input with the reason, and counted by kind.

SA-Bench has no left/straight/right label. ASSUMPTION (ours, not SA-Bench's, also stated in the dataset card):
the safe direction is the third of the image width that `goal_position.x` falls in, using the paper's regions
(section 3.1): x < 1/3 -> left, 1/3 <= x < 2/3 -> straight, x >= 2/3 -> right. The decision is kept in `extra`
so a maintainer can filter.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from pathlib import Path

from builder.movsafebench.sources.common import (
    ScanResult,
    Skipped,
    SourceRecord,
    detect_hood,
    direction_of_x,
    image_problem,
    relative_posix,
    sha256_file,
)
from eval_kit.errors import BadInput

DATASET = "sa_bench"
AGENT = "robot"
IMAGE_SUFFIXES = (".jpg", ".jpeg", ".png")


DESCRIPTIONS = ("left", "right", "path", "dest")
XML_WITHOUT_IMAGE = "XML without image"
IMAGE_WITHOUT_XML = "image without XML"
BAD_XML = "unusable XML"
BAD_IMAGE = "image does not decode"


def _text(root: ET.Element, path: str) -> str | None:
    node = root.find(path)
    return node.text.strip() if node is not None and node.text is not None and node.text.strip() else None


def _description(root: ET.Element, name: str) -> dict[str, str] | None:
    """{simple, complex} of a description element; a flat element's text as {simple}; None when absent."""
    node = root.find(f".//{name}")
    if node is None:
        return None
    parts = {kind: _text(node, kind) for kind in ("simple", "complex")}
    if node.find("simple") is None and node.find("complex") is None and node.text and node.text.strip():
        parts["simple"] = node.text.strip()
    kept = {k: v for k, v in parts.items() if v is not None}
    return kept or None


def read_annotation(xml_path: Path) -> dict[str, object]:
    """goal x/y (floats in [0, 1]), descriptions, recommendation text and decision; ValueError naming the problem."""
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
    out: dict[str, object] = {"goal_x": x, "goal_y": y}
    for name in DESCRIPTIONS:
        described = _description(root, name)
        if described is not None:
            out[name] = described
    recommend = root.find(".//recommend")
    if recommend is not None:
        text = (recommend.text or "").strip()
        if text:
            out["recommend"] = text
        decision = _text(recommend, "decision")
        if decision:
            out["decision"] = decision.lower()
    return out


def scan(root: str | Path, *, check_images: bool = True, detect_hoods: bool = False) -> ScanResult:
    """Walk `root` recursively; every image with a readable same-name XML becomes a record."""
    root = Path(root)
    if not root.is_dir():
        raise BadInput("SA-Bench folder not found", path=root, fix="pass the folder holding images and XML files")
    result = ScanResult()
    files = sorted(p for p in root.rglob("*") if p.is_file())
    xml_of = {p.with_suffix(""): p for p in files if p.suffix.lower() == ".xml"}
    images = [p for p in files if p.suffix.lower() in IMAGE_SUFFIXES]
    stems_with_image = {p.with_suffix("") for p in images}
    for stem, xml_path in sorted(xml_of.items()):
        if stem not in stems_with_image:
            result.skipped.append(Skipped(relative_posix(xml_path, root),
                                          "no image beside the XML (looked for .jpg, .jpeg, .png in any case)",
                                          XML_WITHOUT_IMAGE))
    for image in images:
        rel = relative_posix(image, root)
        xml_path = xml_of.get(image.with_suffix(""))
        if xml_path is None:
            result.skipped.append(Skipped(rel, "no same-name XML annotation", IMAGE_WITHOUT_XML))
            continue
        try:
            ann = read_annotation(xml_path)
        except ValueError as exc:
            result.skipped.append(Skipped(relative_posix(xml_path, root), str(exc), BAD_XML))
            continue
        if check_images and (problem := image_problem(image)):
            result.skipped.append(Skipped(rel, problem, BAD_IMAGE))
            continue
        stem = Path(rel).with_suffix("").as_posix().replace("/", "__")
        result.records.append(SourceRecord(
            id=f"{DATASET}_{stem}",
            dataset=DATASET,
            path=rel,
            sha256=sha256_file(image),
            gt_action=direction_of_x(float(ann["goal_x"])),  # type: ignore[arg-type]
            agent=AGENT,
            extra=ann,
            ego_hood=detect_hood(image) if detect_hoods else None,
        ))
    return result
