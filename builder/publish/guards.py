"""Refusals that protect what may be published: BD-HazardVLM never redistributes images.

BD-HazardVLM's source images (RSUD20K, TFP-BD) are not ours to share; users rebuild them locally from
a manifest. So its dataset repo holds annotations only, and publishing refuses any image column,
wherever it is nested, before a single byte is written.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import Any

from eval_kit.errors import BadInput


def image_columns(features: Any, prefix: str = "") -> list[str]:
    """Dotted names of every `datasets.Image` feature in `features`, nested ones included."""
    import datasets

    found: list[str] = []
    if isinstance(features, datasets.Image):
        return [prefix or "<root>"]
    if isinstance(features, dict):  # Features is a dict subclass
        for name, sub in features.items():
            found += image_columns(sub, f"{prefix}.{name}" if prefix else name)
    elif isinstance(features, (list, tuple)):
        for sub in features:
            found += image_columns(sub, prefix)
    elif isinstance(features, (datasets.Sequence, datasets.List, datasets.LargeList)):
        found += image_columns(features.feature, prefix)
    return found


def refuse_images_if_annotations_only(benchmark: str, features: Any, *, allows_images: bool) -> None:
    """Raise BadInput when an annotations-only benchmark (its publisher's `allows_images` is false, as for
    BD-HazardVLM) would publish an image column."""
    if not allows_images:
        columns = image_columns(features)
        if columns:
            raise BadInput(
                f"{benchmark} publishes annotations only, but the features have image column(s) "
                f"{', '.join(columns)}",
                field=columns[0],
                fix="drop the image column: source images are never redistributed, users rebuild them "
                "with `hazardkit reconstruct`",
            )


def refuse_image_files(benchmark: str, repo_dir: str | Path, files: Iterable[Path], *, allows_images: bool) -> None:
    """Raise BadInput when a Parquet file that would be released carries an image column.

    The features check above covers what the publisher writes; this one covers what else lies in the
    dataset folder (a reconstruction written into a folder that is not marked local-only, a copied file),
    because a release uploads every file of the folder.
    """
    import datasets
    import pyarrow.parquet as pq

    if allows_images:
        return
    for file in files:
        if Path(file).suffix != ".parquet":
            continue
        try:
            schema = pq.read_schema(file)
        except Exception as exc:  # pyarrow raises several types for corrupt files
            raise BadInput(f"not a readable Parquet file ({exc})", path=file) from None
        try:
            columns = image_columns(datasets.Features.from_arrow_schema(schema))
        except Exception:  # no readable `huggingface` metadata: look at the Arrow types instead
            columns = [f.name for f in schema if str(f.type) == "struct<bytes: binary, path: string>"]
        if columns:
            rel = Path(file).relative_to(repo_dir) if Path(file).is_relative_to(repo_dir) else file
            raise BadInput(
                f"{benchmark} publishes annotations only, but {rel} has image column(s) {', '.join(columns)}",
                path=file, field=columns[0],
                fix="move reconstructed images out of the dataset folder (or into reconstructed/, which is "
                "never uploaded); source images are never redistributed",
            )
