"""What every source adapter shares: the record it yields, hashing, image checks and path safety.

An adapter reads a source benchmark in its own format and yields `SourceRecord`s: one usable image with its
ground-truth safe direction (MovSafeBench answer space: left / straight / right) and the agent type. Inputs
it cannot use become `Skipped` entries with a reason, so a maintainer sees why a frame was dropped instead of
the adapter failing the whole scan.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import Any

from eval_kit.errors import BadInput
from eval_kit.movsafebench.spec import AGENTS, ANSWERS

_HASH_CHUNK = 1 << 20
# Largest source image HazardForge opens (8000 x 8000: a 48 MP phone photo passes, 192 MB as RGB). Checked from
# the header before any pixel is decoded, so a 20000 x 20000 file (or a decompression bomb) costs nothing.
MAX_SOURCE_PIXELS = 64_000_000


class ImageTooLarge(BadInput):
    """A source image over `MAX_SOURCE_PIXELS` (or one PIL calls a decompression bomb): that source or job
    fails alone with this reason; it never aborts a whole scan, plan or run."""


def open_image_checked(source: Any, name: str | Path | None = None):
    """`PIL.Image.open(source)` (a path or a binary file) with the pixel limit checked from the header.

    Returns the opened, not yet decoded image (use it as a context manager). Raises ImageTooLarge; other
    failures are PIL's (UnidentifiedImageError, OSError, ...)."""
    import warnings

    from PIL import Image

    name = name if name is not None else source
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error", Image.DecompressionBombWarning)
            image = Image.open(source)
    except (Image.DecompressionBombError, Image.DecompressionBombWarning) as exc:  # PIL refuses it at open
        found = re.search(r"\((\d+) pixels\)", str(exc))
        size = f"{int(found.group(1)):,} pixels" if found else "too many pixels"
        raise ImageTooLarge(f"image {name} is {size}, over the limit of {MAX_SOURCE_PIXELS:,} (a decompression "
                            "bomb?)", fix="downscale it or leave it out of the sources") from None
    width, height = image.size
    if width * height > MAX_SOURCE_PIXELS:
        image.close()
        raise ImageTooLarge(f"image {name} is {width}x{height} pixels, over the limit of {MAX_SOURCE_PIXELS:,}",
                            fix="downscale it or leave it out of the sources")
    return image


@dataclass(frozen=True)
class SourceRecord:
    """One source image usable by HazardForge.

    `path` is relative to the dataset's root folder (POSIX separators) so manifests are portable between
    machines; `extra` holds source-specific fields (scene/frame tokens, XML decision, ...). `ego_hood` is the
    detected ego-vehicle body (`ego_hood.detect_ego_hood`), `ego_hood_override` a maintainer's correction,
    `vanishing_point` a known one ({x, y}).
    """

    id: str
    dataset: str
    path: str
    sha256: str
    gt_action: str
    agent: str
    extra: dict[str, Any] = field(default_factory=dict)
    ego_hood: dict[str, Any] | None = None
    ego_hood_override: int | None = None
    vanishing_point: dict[str, float] | None = None
    root: str | None = None  # the absolute folder `path` is relative to, as scanned (None: not recorded)
    obstacles: list[list[int]] | None = None  # known obstacle boxes [x0, y0, x1, y1) in image pixels

    def __post_init__(self) -> None:
        if self.gt_action not in ANSWERS:
            raise ValueError(f"gt_action must be one of {ANSWERS}, got {self.gt_action!r}")
        if self.agent not in AGENTS:
            raise ValueError(f"agent must be one of {AGENTS}, got {self.agent!r}")

    def to_manifest_row(self) -> dict[str, Any]:
        """The JSON object written to `sources.jsonl` (schema `movsafebench_source`)."""
        row: dict[str, Any] = {
            "id": self.id,
            "dataset": self.dataset,
            "path": self.path,
            "sha256": self.sha256,
            "gt_action": self.gt_action,
            "agent": self.agent,
        }
        if self.extra:
            row["extra"] = dict(self.extra)
        if self.ego_hood is not None:
            row["ego_hood"] = dict(self.ego_hood)
        if self.ego_hood_override is not None:
            row["ego_hood_override"] = int(self.ego_hood_override)
        if self.vanishing_point is not None:
            row["vanishing_point"] = dict(self.vanishing_point)
        if self.root is not None:
            row["root"] = self.root
        if self.obstacles:
            row["obstacles"] = [list(b) for b in self.obstacles]
        return row

    def resolve(self, root: str | Path) -> Path:
        """Absolute image path under the dataset root."""
        return resolve_relative(root, self.path)


@dataclass(frozen=True)
class Skipped:
    """An input the adapter could not turn into a record, with where it came from and why."""

    where: str
    reason: str
    kind: str | None = None  # a short fixed phrase the scan report counts by (default: the reason)

    @property
    def key(self) -> str:
        return self.kind or self.reason


@dataclass
class ScanResult:
    """Everything one adapter scan produced: usable records and skipped inputs."""

    records: list[SourceRecord] = field(default_factory=list)
    skipped: list[Skipped] = field(default_factory=list)


def detect_hood(image_path: str | Path) -> dict[str, Any]:
    """The ego hood of an image for its manifest row (vanishing point first: the hood test uses lane markings)."""

    from builder.movsafebench.hazardforge.ego_hood import detect_ego_hood
    from builder.movsafebench.hazardforge.vanishing import detect_vanishing_point

    with open_image_checked(image_path) as img:
        rgb = img.convert("RGB")
    vp = detect_vanishing_point(rgb)
    found = detect_ego_hood(rgb, vanishing_point=(vp.x, vp.y) if vp.method != "horizon_prior" else None)
    return found.to_dict()


def sha256_file(path: str | Path) -> str:
    """Hex SHA-256 of a file, read in chunks (nuScenes frames are ~1 MB each, 400 of them)."""
    digest = hashlib.sha256()
    with Path(path).open("rb") as handle:
        for chunk in iter(lambda: handle.read(_HASH_CHUNK), b""):
            digest.update(chunk)
    return digest.hexdigest()


def image_problem(path: str | Path) -> str | None:
    """Return why a file is not a readable image (None when it decodes), without keeping it in memory.

    Images over `MAX_SOURCE_PIXELS` are refused from their header ("image too large"), never decoded."""
    from PIL import UnidentifiedImageError

    path = Path(path)
    if not path.is_file():
        return "image file not found"
    try:
        with open_image_checked(path) as img:
            img.load()
    except ImageTooLarge:
        return f"image too large (over {MAX_SOURCE_PIXELS:,} pixels)"
    except (UnidentifiedImageError, OSError, ValueError, SyntaxError) as exc:
        return f"image does not decode ({type(exc).__name__}: {exc})"
    return None


def relative_posix(path: Path, root: Path) -> str:
    """`path` relative to `root` with POSIX separators; BadInput if it lies outside the root."""
    try:
        rel = path.resolve().relative_to(root.resolve())
    except ValueError:
        raise BadInput(f"image {path} lies outside the dataset root {root}", path=path) from None
    return rel.as_posix()


def resolve_relative(root: str | Path, rel: str) -> Path:
    """Join a manifest path to a root, refusing absolute paths and `..` (a manifest must not escape its root)."""
    pure = PurePosixPath(rel)
    if pure.is_absolute() or ".." in pure.parts:
        raise BadInput(f"path {rel!r} must be relative to the dataset root without '..'", field="path")
    return Path(root).joinpath(*pure.parts)


def root_fix(dataset: str, recorded: str | None = None) -> str:
    """The fix line of every "image not found / outside" error about a manifest's paths: the flag to pass."""
    where = f" (the manifest recorded {recorded}, which does not hold it)" if recorded else ""
    return f"pass --root {dataset}=DIR naming the folder the manifest's paths are relative to{where}"


def parse_roots(items: tuple[str, ...] | list[str]) -> dict[str, Path]:
    """`--root DATASET=DIR` options (as `sources verify` and `forge plan` take them) as {dataset: folder}."""
    mapping: dict[str, Path] = {}
    for item in items:
        name, sep, folder_path = item.partition("=")
        if not sep or not name or not folder_path:
            raise BadInput(f"--root {item!r} is not DATASET=DIR", field="--root",
                           fix="name the dataset, e.g. --root drivebench=/data/nuscenes")
        mapping[name] = Path(folder_path)
    return mapping


def direction_of_x(x_normalised: float) -> str:
    """The MovSafeBench region (paper 3.1: thirds of the width) that a normalised x in [0, 1] falls in."""
    if x_normalised < 1 / 3:
        return "left"
    if x_normalised < 2 / 3:
        return "straight"
    return "right"
