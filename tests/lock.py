"""How the installed packages differ from constraints.txt, the versions `make install` puts in .venv.

The demo data and the figures committed beside them (movsafebench/README.md, the README's baseline table) are
byte-for-byte outputs of those versions: a test comparing against them, run in another environment, names the
drifted packages in its failure message instead of leaving a bare diff.
"""

from __future__ import annotations

import re
from importlib import metadata
from pathlib import Path

from packaging.utils import canonicalize_name

LOCK = Path(__file__).resolve().parents[1] / "constraints.txt"


def lock_drift() -> str:
    """'' when every locked package is installed at its locked version; else one line naming the differences."""
    pinned = dict(line.split("==", 1) for line in LOCK.read_text().splitlines()
                  if "==" in line and not line.startswith("#"))
    installed = {canonicalize_name(d.metadata["Name"]): d.version for d in metadata.distributions()}
    drift = [f"{name} {installed.get(canonicalize_name(name), 'absent')} (locked {version})"
             for name, version in sorted(pinned.items()) if installed.get(canonicalize_name(name)) != version]
    if not drift:
        return ""
    shown = ", ".join(drift[:12]) + (" ..." if len(drift) > 12 else "")
    return f"environment differs from constraints.txt ({len(drift)} packages): {shown}"


def byte_sizes_masked(card: str) -> str:
    """A dataset card with its byte sizes masked: Parquet and image bytes depend on the encoders that wrote them
    (pyarrow, Pillow's zlib and libjpeg, perhaps the CPU they ran on), while every count and statement must not."""
    card = re.sub(r"(num_bytes|download_size|dataset_size): \d+", r"\1: N", card)
    # the Python version the demo rows were made under (MovSafeBench's software table) is not in constraints.txt:
    # a patch release differs between machines; the locked libraries beside it must match
    card = re.sub(r"^\| 3\.\d+\.\d+ \|", "| PYTHON |", card, flags=re.MULTILINE)
    return re.sub(r"\d+(\.\d+)? (B|KB|MB|GB)\b", "SIZE", card)
