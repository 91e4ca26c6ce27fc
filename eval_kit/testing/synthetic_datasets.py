"""Small demo-like MovSafeBench datasets with known answers, for runner tests and the overhead benchmark.

Rows follow `movsafebench_synthetic.table2_references` (ids start with `synthetic-`); every row gets a
small PNG road picture whose colour encodes the answer, written either as a `datasets` Parquet folder
(`data/<config>/*.parquet`, ClassLabel columns, the published layout) or as JSON Lines + PNG files.
"""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

_COLOURS = {"left": (200, 60, 60), "straight": (60, 200, 60), "right": (60, 60, 200)}


def rows(n: int, seed: int = 0) -> list[dict[str, Any]]:
    """`n` reference rows: a few no_edit rows, the rest edited, agents derived from the source benchmark."""
    from eval_kit.movsafebench import spec
    from eval_kit.testing.synthetic_references import table2_references

    refs = table2_references(seed=seed)
    no_edit = [r for r in refs if r["scenario"] == "no_edit"]
    edited = [r for r in refs if r["scenario"] != "no_edit"]
    step = max(1, len(edited) // max(1, n))
    picked = no_edit[: max(1, n // 10)] + edited[::step]
    out = []
    for r in picked[:n]:
        out.append({**r, "agent": spec.AGENT_OF_SOURCE[r["source_benchmark"]],
                    "question": spec.build_question(spec.AGENT_OF_SOURCE[r["source_benchmark"]])})
    return out


def png(answer: str, size: tuple[int, int] = (96, 54)) -> bytes:
    from PIL import Image, ImageDraw

    image = Image.new("RGB", size, (110, 110, 110))
    draw = ImageDraw.Draw(image)
    draw.polygon([(size[0] * 0.4, size[1] * 0.45), (size[0] * 0.6, size[1] * 0.45), (size[0], size[1]), (0, size[1])],
                 fill=(70, 70, 70))
    draw.rectangle([4, 4, 14, 14], fill=_COLOURS[answer])
    buffer = io.BytesIO()
    image.save(buffer, format="PNG")
    return buffer.getvalue()


def write_jsonl(folder: Path, n: int, seed: int = 0) -> Path:
    """folder/refs.jsonl with `image` paths to folder/images/<id>.png."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "images").mkdir(exist_ok=True)
    lines = []
    for r in rows(n, seed):
        name = f"images/{r['id']}.png"
        (folder / name).write_bytes(png(r["answer"]))
        lines.append(json.dumps({**r, "image": name}))
    path = folder / "refs.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def write_parquet_folder(folder: Path, n: int, seed: int = 0, config: str = "demo",
                         size: tuple[int, int] = (96, 54)) -> Path:
    """A dataset folder laid out as `datasets` publishes it: folder/data/<config>/test-00000-of-00001.parquet.

    Written with pyarrow directly (importing `datasets` costs seconds), with the same `huggingface`
    schema metadata `datasets` writes, so ClassLabel columns are integers decoded through their names.
    """
    import pyarrow as pa
    import pyarrow.parquet as pq

    from eval_kit.movsafebench import spec

    picked = rows(n, seed)
    labels = {"answer": spec.ANSWERS, "scenario": spec.SCENARIOS, "category": spec.CATEGORIES,
              "source_benchmark": spec.SOURCE_BENCHMARKS, "agent": spec.AGENTS}
    columns: dict[str, Any] = {"id": pa.array([r["id"] for r in picked])}
    columns["image"] = pa.array([{"bytes": png(r["answer"], size), "path": None} for r in picked],
                                type=pa.struct([("bytes", pa.binary()), ("path", pa.string())]))
    columns["question"] = pa.array([r["question"] for r in picked])
    for name, space in labels.items():
        columns[name] = pa.array([None if r[name] is None else list(space).index(r[name]) for r in picked],
                                 type=pa.int64())
    columns["source_id"] = pa.array([r["source_id"] for r in picked])
    features = {"id": {"dtype": "string", "_type": "Value"}, "image": {"_type": "Image"},
                "question": {"dtype": "string", "_type": "Value"},
                **{name: {"names": list(space), "_type": "ClassLabel"} for name, space in labels.items()},
                "source_id": {"dtype": "string", "_type": "Value"}}
    table = pa.table(columns).replace_schema_metadata(
        {"huggingface": json.dumps({"info": {"features": features}})})
    out = folder / "data" / config
    out.mkdir(parents=True, exist_ok=True)
    pq.write_table(table, out / "test-00000-of-00001.parquet")
    return folder
