"""A PNG grid of sample images per scenario (or any grouping column) for the dataset card."""

from __future__ import annotations

import io
from pathlib import Path

from eval_kit.jsonl import atomic_write_bytes

THUMB = (192, 108)


def _decode(names: list[str] | None, value) -> str:
    if value is None:
        return "(none)"
    if names and isinstance(value, int) and 0 <= value < len(names):
        return names[value]
    return str(value)


def sample_grid(shards: list[Path], out_path: str | Path, *, group_column: str = "scenario",
                label_column: str | None = "category", per_group: int = 4, order: tuple[str, ...] = ()) -> Path:
    """Write a grid: one row per group value (in `order`, then the rest), the first `per_group` images each.

    Images are taken in the shards' (id) order, so the figure is reproducible for the same data.
    """
    import pyarrow.parquet as pq
    from PIL import Image, ImageDraw

    from builder.publish.stats import _class_label_names

    picked: dict[str, list[tuple[bytes, str]]] = {}
    for file in shards:
        pf = pq.ParquetFile(file)
        names = _class_label_names(pf.schema_arrow)
        has_label = label_column is not None and label_column in pf.schema_arrow.names
        # choose rows from the small columns first, then read image bytes only from the row groups needed
        for group_index in range(pf.metadata.num_row_groups):
            meta_cols = [group_column] + ([label_column] if has_label else [])
            small = pf.read_row_group(group_index, columns=meta_cols).to_pydict()
            wanted: list[tuple[int, str, str]] = []
            for i, value in enumerate(small[group_column]):
                group = _decode(names.get(group_column), value)
                taken = len(picked.get(group, [])) + sum(1 for _, g, _ in wanted if g == group)
                if taken < per_group:
                    value = small[label_column][i] if has_label else None
                    label = "" if value is None else _decode(names.get(label_column), value)
                    wanted.append((i, group, label))
            if wanted:
                images = pf.read_row_group(group_index, columns=["image"]).column("image")
                for i, group, label in wanted:
                    image = images[i].as_py()
                    if image and image.get("bytes"):
                        picked.setdefault(group, []).append((image["bytes"], label))
    groups = [g for g in order if g in picked] + sorted(g for g in picked if g not in order)
    margin, header = 110, 18
    width = margin + per_group * (THUMB[0] + 4)
    height = max(1, len(groups)) * (THUMB[1] + header + 4)
    canvas = Image.new("RGB", (width, height), (255, 255, 255))
    draw = ImageDraw.Draw(canvas)
    for row, group in enumerate(groups):
        y = row * (THUMB[1] + header + 4)
        draw.text((6, y + THUMB[1] // 2), group, fill=(0, 0, 0))
        for col, (data, label) in enumerate(picked[group]):
            x = margin + col * (THUMB[0] + 4)
            with Image.open(io.BytesIO(data)) as img:
                img.draft("RGB", THUMB)  # JPEG: decode at a reduced scale, much faster for big frames
                thumb = img.convert("RGB")
                thumb.thumbnail(THUMB)
            canvas.paste(thumb, (x, y + header))
            draw.text((x, y + 3), label, fill=(60, 60, 60))
    buffer = io.BytesIO()
    canvas.save(buffer, format="PNG")
    atomic_write_bytes(out_path, buffer.getvalue())
    return Path(out_path)
