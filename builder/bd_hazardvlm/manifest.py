"""Make BD-HazardVLM's image manifest from the maintainers' copies of the source datasets.

This is where the expensive check belongs: every image is decoded in full here, once, by the maintainers,
before its bytes are pinned by sha256 in the manifest (each entry records `"decoded": true`). A user's
`hazardkit reconstruct` then only needs to check that their file is byte-for-byte the one pinned, which runs
at the speed of reading the files. An image that does not decode in full, is over the pixel limit, escapes
its source root or is missing is listed with its record and no manifest is written.
"""

from __future__ import annotations

import hashlib
import io
import warnings
from collections.abc import Callable, Mapping
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from eval_kit.bd_hazardvlm import spec
from eval_kit.errors import BadInput
from eval_kit.jsonl import atomic_write_bytes
from eval_kit.schemas import first_error


@dataclass
class ManifestProblem:
    """One annotation record whose image cannot be pinned in the manifest."""

    id: str
    path: str
    reason: str

    def line(self) -> str:
        return f"{self.id} {self.path}: {self.reason}"


def _entry(record: dict[str, Any], roots: Mapping[str, Path], licenses: Mapping[str, str],
           attributions: Mapping[str, str], max_pixels: int) -> dict[str, Any] | ManifestProblem:
    """The manifest entry of one annotation record, after a full decode; a problem when it cannot be made."""
    from PIL import Image

    from builder.bd_hazardvlm.reconstruct import safe_resolve

    source, rel = record["source_dataset"], record["source_path"]

    def problem(reason: str) -> ManifestProblem:
        return ManifestProblem(record["id"], f"{source}:{rel}", reason)

    root = roots.get(source)
    if root is None:
        return problem(f"no --source {source.replace('_', '-')}=DIR given")
    real, kind, detail = safe_resolve(root, rel)
    if real is None:
        return problem(f"{kind}: {detail}")
    try:
        data = real.read_bytes()
    except FileNotFoundError:
        return problem("file not found")
    except (IsADirectoryError, OSError) as exc:
        return problem(f"cannot read ({getattr(exc, 'strerror', None) or exc})")
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error", Image.DecompressionBombWarning)
            with Image.open(io.BytesIO(data)) as image:
                width, height = image.size
                if width * height > max_pixels:
                    return problem(f"{width}x{height} pixels, over the limit of {max_pixels}")
                image.load()  # every pixel: a truncated or corrupt file is refused here, before it is pinned
    except (Image.DecompressionBombError, Image.DecompressionBombWarning) as exc:
        return problem(f"decompression bomb ({exc})")
    except Exception as exc:  # PIL raises many types for corrupt or truncated files
        return problem(f"does not decode in full ({type(exc).__name__}: {exc})")
    return {"id": record["id"], "source_dataset": source, "path": rel, "sha256": hashlib.sha256(data).hexdigest(),
            "bytes": len(data), "width": width, "height": height, "license": licenses[source],
            "attribution": attributions[source], "decoded": True}


def make_manifest(
    annotations: str | Path,
    sources: Mapping[str, str | Path],
    out: str | Path,
    *,
    licenses: Mapping[str, str],
    attributions: Mapping[str, str],
    max_pixels: int | None = None,
    workers: int | None = None,
    on_progress: Callable[[int, int], None] | None = None,
) -> tuple[list[dict[str, Any]], list[ManifestProblem]]:
    """Decode every annotated image in full and write the manifest (only when every image passed).

    Returns (entries, problems). `licenses` / `attributions` map each source dataset used to its text.
    """
    import os

    from builder.bd_hazardvlm.reconstruct import DEFAULT_MAX_PIXELS, parse_sources

    roots = parse_sources(sources)
    records = sorted(spec.load_annotations(annotations).values(), key=lambda r: r["id"])
    used = sorted({r["source_dataset"] for r in records})
    for name, table, flag in ((n, t, f) for n in used for t, f in ((licenses, "--license"),
                                                                      (attributions, "--attribution"))):
        if not table.get(name):
            raise BadInput(f"no {flag} given for {spec.SOURCE_NAMES[name]}", field=flag,
                           fix=f"pass {flag} {name.replace('_', '-')}=TEXT (as the source dataset states it)")
    limit = max_pixels or DEFAULT_MAX_PIXELS
    results: list[dict[str, Any] | ManifestProblem] = []
    with ThreadPoolExecutor(max_workers=workers or min(4, os.cpu_count() or 1)) as pool:
        for done, result in enumerate(pool.map(
                lambda r: _entry(r, roots, licenses, attributions, limit), records), start=1):
            results.append(result)
            if on_progress:
                on_progress(done, len(records))
    entries = [r for r in results if isinstance(r, dict)]
    problems = [r for r in results if isinstance(r, ManifestProblem)]
    for entry in entries:  # what we write must be what reconstruct reads
        error = first_error(spec.MANIFEST_SCHEMA, entry)
        if error is not None:
            problems.append(ManifestProblem(entry["id"], entry["path"], f"{error[0]}: {error[1]}"))
    if not problems:
        import json

        atomic_write_bytes(Path(out), "".join(json.dumps(e, ensure_ascii=False) + "\n" for e in entries).encode())
    return entries, problems
