"""A PNG grid of sample images per scenario (or any grouping column) for the dataset card.

The samples are the first rows of each group in id order, taken from the rows as they stream into the
shard writer (`SampleTap`), and their thumbnails are decoded in a side thread while the shards are
written, instead of reading the image column back afterwards. Drawing returns PNG bytes; the caller
writes them only once the shards are in place, so a failed publish leaves the old figure.
"""

from __future__ import annotations

import io
from collections.abc import Callable, Iterable, Iterator
from typing import Any

from builder.publish.shard_io import ImageFile
from builder.publish.stats import label_text

THUMB = (192, 108)
PER_GROUP = 4


class SampleTap:
    """Passes rows through unchanged, keeping the first `per_group` images of each group.

    Each picked image is handed to `submit(thumbnail, value)` as soon as it is seen, so with a thread
    pool the thumbnails are decoded while the shards are written; `grid()` then only pastes and encodes.
    """

    def __init__(self, *, group_column: str = "scenario", label_column: str | None = "category",
                 image_column: str = "image", per_group: int = PER_GROUP, order: tuple[str, ...] = (),
                 label_names: tuple[str, ...] = (), submit: Callable[..., Any] | None = None) -> None:
        self.group_column = group_column
        self.label_column = label_column
        self.image_column = image_column
        self.per_group = per_group
        self.order = order
        self.label_names = label_names
        self.picked: dict[str, list[tuple[Any, str]]] = {}  # group -> [(thumbnail or its future, label)]
        self._submit = submit
        self._png = None  # the grid's future, submitted when the rows end

    def __call__(self, rows: Iterable[dict[str, Any]]) -> Iterator[dict[str, Any]]:
        for row in rows:
            image = row.get(self.image_column)
            if image is not None:
                group = label_text(row.get(self.group_column), self.order)
                taken = self.picked.setdefault(group, [])
                if len(taken) < self.per_group:
                    label = row.get(self.label_column) if self.label_column else None
                    thumb = self._submit(thumbnail, image) if self._submit else thumbnail(image)
                    taken.append((thumb, "" if label is None else label_text(label, self.label_names)))
            yield row
        if self._submit:  # drawn while the writer finishes the last shard (its hash is the long part)
            self._png = self._submit(self._draw)

    def _draw(self) -> bytes:
        picked = {g: [(t.result() if hasattr(t, "result") else t, label) for t, label in items]
                  for g, items in self.picked.items()}
        return render_grid(picked, order=self.order, per_group=self.per_group)

    def grid(self) -> bytes:
        """The PNG of the samples seen (waits for the drawing when it was handed to `submit`)."""
        return self._png.result() if self._png is not None else self._draw()


def _image_bytes(value: Any) -> bytes | None:
    if isinstance(value, ImageFile):
        return value.read_bytes()
    if isinstance(value, dict):
        return value.get("bytes")
    if isinstance(value, (bytes, bytearray)):
        return bytes(value)
    return None


def thumbnail(value: Any):
    """A PIL thumbnail (at most THUMB) of an image value: `ImageFile`, Image struct dict or bytes; None if empty."""
    from PIL import Image

    data = _image_bytes(value)
    if not data:
        return None
    try:
        with Image.open(io.BytesIO(data)) as img:
            img.draft("RGB", THUMB)  # JPEG: decode at a reduced scale, much faster for big frames
            thumb = img.convert("RGB")
    except (OSError, ValueError, Image.DecompressionBombError):
        return None  # an undecodable sample leaves its slot empty; the bytes are published as given
    thumb.thumbnail(THUMB)
    return thumb


def render_grid(picked: dict[str, list[tuple[Any, str]]], *, order: tuple[str, ...] = (),
                per_group: int = PER_GROUP) -> bytes:
    """PNG bytes: one row per group (in `order`, then the rest sorted), its thumbnails left to right."""
    from PIL import Image, ImageDraw

    groups = [g for g in order if picked.get(g)] + sorted(g for g in picked if g not in order and picked[g])
    margin, header = 110, 18
    width = margin + per_group * (THUMB[0] + 4)
    height = max(1, len(groups)) * (THUMB[1] + header + 4)
    canvas = Image.new("RGB", (width, height), (255, 255, 255))
    draw = ImageDraw.Draw(canvas)
    for row, group in enumerate(groups):
        y = row * (THUMB[1] + header + 4)
        draw.text((6, y + THUMB[1] // 2), group, fill=(0, 0, 0))
        for col, (thumb, label) in enumerate(picked[group][:per_group]):
            if thumb is None:
                continue
            x = margin + col * (THUMB[0] + 4)
            canvas.paste(thumb, (x, y + header))
            draw.text((x, y + 3), label, fill=(60, 60, 60))
    buffer = io.BytesIO()
    # a card figure: fast zlib level; the thumbnails are photos and hardly compress further anyway
    canvas.save(buffer, format="PNG", compress_level=1)
    return buffer.getvalue()
