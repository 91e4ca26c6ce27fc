"""The versions of the libraries that shape a build's pixels, recorded by `forge run` and stated by the card.

Why: two builds of one plan that differ only by an OpenCV release cannot be told apart from their rows, yet an
OpenCV release has already changed every synthetic scene once. So each forge worker records, in every job
record, the versions installed where it ran (read from the package metadata: nothing is imported), `forge
export` groups the exported rows by them in build.json, the card states them, and `publish` warns when one
config mixes rows built under different versions. A library that is not installed is recorded as `None`
(shown as "absent"); a record from a run older than this recording has no `libraries` at all ("not recorded").
"""

from __future__ import annotations

import platform
from importlib import metadata
from typing import Any

# name in records -> the distributions that provide it (the first installed one counts)
LIBRARIES: dict[str, tuple[str, ...]] = {
    "numpy": ("numpy",),
    "pillow": ("pillow",),
    "opencv": ("opencv-python-headless", "opencv-python", "opencv-contrib-python-headless", "opencv-contrib-python"),
    "torch": ("torch",),
    "diffusers": ("diffusers",),
    "transformers": ("transformers",),
}
# the names as the card shows them, in its column order
DISPLAY = {"python": "Python", "numpy": "numpy", "pillow": "Pillow", "opencv": "OpenCV", "torch": "torch",
           "diffusers": "diffusers", "transformers": "transformers"}
REVISIONS = ("editor", "editor_revision", "checker", "checker_revision")


def _installed(distributions: tuple[str, ...]) -> str | None:
    for name in distributions:
        try:
            return metadata.version(name)
        except metadata.PackageNotFoundError:
            continue
    return None


def library_versions() -> dict[str, str | None]:
    """{"python": "3.11.9", "numpy": ..., "pillow": ..., "opencv": ..., "torch": ..., "diffusers": ...,
    "transformers": ...}: installed versions, None for an absent library."""
    return {"python": platform.python_version(), **{name: _installed(dists) for name, dists in LIBRARIES.items()}}


def environment_key(environment: dict[str, Any]) -> tuple:
    """What two rows must share to count as built the same way: every library version and every revision."""
    libraries = environment.get("libraries")
    libs = tuple(sorted(libraries.items())) if isinstance(libraries, dict) else None
    return (libs, *(environment.get(k) for k in REVISIONS))


def mixed_environments(environments: list[dict[str, Any]]) -> str | None:
    """One line naming what differs when rows were built under more than one set of versions, else None.

    `environments` is build.json's list of {"libraries": {...} | None, editor..., checker_revision, "rows": N}."""
    if len({environment_key(e) for e in environments}) < 2:
        return None
    differing: list[str] = []
    names = ["python", *LIBRARIES]
    for name in names:
        seen: dict[str, int] = {}
        for e in environments:
            libs = e.get("libraries")
            value = "not recorded" if not isinstance(libs, dict) else (libs.get(name) or "absent")
            seen[value] = seen.get(value, 0) + int(e.get("rows", 0))
        if len(seen) > 1:
            differing.append(f"{DISPLAY[name]} " + " / ".join(f"{v} ({n} row{'s' * (n != 1)})"
                                                              for v, n in sorted(seen.items())))
    for key in REVISIONS:
        values = {str(e.get(key)) for e in environments}
        if len(values) > 1:
            differing.append(f"{key} " + " / ".join(sorted(values)))
    return "; ".join(differing)
