"""MovSafeBench rows and publisher: plain records (a forge run's accepted jobs, or demo scenes) to rows.

A record is a plain dict; the integrator maps forge run directories onto it. Keys:

- `id` (str, stable across versions), `answer` (left|straight|right), `scenario`
  (no_edit|static|motion|intrusion|distance), `category` (one of 13; null/absent for no_edit),
  `source_benchmark` (drivebench|sa_bench), `source_id` (the source image's id);
- the image: `image` (bytes, stored as given) or `image_path` (read as bytes; relative paths are
  resolved against `base_dir`);
- optional: `agent` (derived from the source when absent), `question` (built from the agent when
  absent), provenance `object_direction`, `prompt`, `editor`, `editor_revision`, `seed`, `job_id`,
  `source_sha256`, `pipeline_version`, and `object_box` (one [x0, y0, x1, y1) box in image pixels per edit).

Records are validated against the spec (label spaces, categories allowed per scenario, ground truths
allowed per scenario) and sorted by id; image files are checked up front and their bytes read only when
the shard is written, straight into its Arrow buffer (`shard_io.ImageFile`).
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

from builder.publish.publishers import Publisher, SourceDataset
from builder.publish.shard_io import ImageFile
from eval_kit.errors import BadInput
from eval_kit.movsafebench import spec

PROVENANCE_FIELDS: tuple[str, ...] = (
    "object_direction", "prompt", "editor", "editor_revision", "seed", "job_id", "source_sha256",
    "pipeline_version",
)
RECORDS_FILENAME = "records.jsonl"


def _where(index: int, record: dict[str, Any], origin: str | None) -> str:
    name = f"record {index}" if origin is None else f"{origin}"
    rid = record.get("id")
    return f"{name} (id {rid!r})" if rid is not None else name


def _check_label(value: Any, allowed: Iterable[str], field: str, where: str) -> str:
    allowed = tuple(allowed)
    if value not in allowed:
        raise BadInput(f"{where}: {value!r} is not allowed here", field=field,
                       fix=f"use one of: {', '.join(allowed) if allowed else '(none)'}")
    return value


def validate_record(record: dict[str, Any], where: str) -> dict[str, Any]:
    """Check one record against the MovSafeBench spec and fill the derived fields; returns a new dict."""
    if not isinstance(record, dict):
        raise BadInput(f"{where}: expected an object, got {type(record).__name__}")
    rid = record.get("id")
    if not isinstance(rid, str) or not rid.strip():
        raise BadInput(f"{where}: missing or empty id", field="id", fix="every record needs a stable string id")
    scenario = _check_label(record.get("scenario"), spec.SCENARIOS, "scenario", where)
    answer = _check_label(record.get("answer"), spec.SCENARIO_GROUND_TRUTHS[scenario], "answer", where)
    category = record.get("category")
    if scenario == "no_edit":
        if category not in (None, ""):
            raise BadInput(f"{where}: a no_edit record has no inserted object, got category {category!r}",
                           field="category", fix="leave category null for no_edit")
        category = None
    else:
        category = _check_label(category, spec.SCENARIO_CATEGORIES[scenario], "category", where)
    source = _check_label(record.get("source_benchmark"), spec.SOURCE_BENCHMARKS, "source_benchmark", where)
    agent = record.get("agent") or spec.AGENT_OF_SOURCE.get(source)
    _check_label(agent, spec.AGENTS_OF_SOURCE[source], "agent", where)
    source_id = record.get("source_id")
    if not isinstance(source_id, str) or not source_id:
        raise BadInput(f"{where}: missing source_id", field="source_id",
                       fix="name the source image, so edited variants of one image can be grouped")
    if record.get("image") is None and not record.get("image_path"):
        raise BadInput(f"{where}: no image", field="image_path", fix="give image (bytes) or image_path")
    seed = record.get("seed")
    if seed is not None and (not isinstance(seed, int) or isinstance(seed, bool)):
        raise BadInput(f"{where}: seed must be an integer, got {seed!r}", field="seed")
    out = {
        "id": rid,
        "question": record.get("question") or spec.build_question(agent),
        "answer": answer,
        "scenario": scenario,
        "category": category,
        "category_group": spec.GROUP_OF_CATEGORY[category] if category else None,
        "source_benchmark": source,
        "source_id": source_id,
        "agent": agent,
        "_image": record.get("image"),
        "_image_path": record.get("image_path"),
    }
    for name in PROVENANCE_FIELDS:
        value = record.get(name)
        out[name] = value if name == "seed" or value is None else str(value)
    out["object_box"] = _object_boxes(record.get("object_box"), where)
    return out


def _object_boxes(value: Any, where: str) -> list[list[int]] | None:
    """`object_box`: null, or a list of [x0, y0, x1, y1] integer boxes (one per edit) with x0 < x1, y0 < y1."""
    if value is None:
        return None
    ok = isinstance(value, list) and all(
        isinstance(box, list) and len(box) == 4 and all(isinstance(v, int) and not isinstance(v, bool) for v in box)
        and box[0] < box[2] and box[1] < box[3] for box in value)
    if not ok:
        raise BadInput(f"{where}: object_box must be a list of [x0, y0, x1, y1] integer boxes, got {value!r}",
                       field="object_box", fix="one box per edit, image pixels, x0 < x1 and y0 < y1")
    return [list(box) for box in value]


def _image_value(row: dict[str, Any], base_dir: Path | None, where: str,
                 image_root: str | Path | None = None) -> dict[str, Any] | ImageFile:
    """Given bytes as an Image struct; a path as an `ImageFile`, stat'ed now and read when the shard is written."""
    data = row["_image"]
    if data is not None:
        if not isinstance(data, (bytes, bytearray, memoryview)):
            raise BadInput(f"{where}: image must be bytes", field="image")
        return {"bytes": bytes(data), "path": None}
    path = Path(row["_image_path"])
    if not path.is_absolute() and base_dir is not None:
        path = base_dir / path
    return ImageFile.at(path, where, root=image_root)


def movsafebench_rows_from_records(
    records: Iterable[dict[str, Any]],
    *,
    base_dir: str | Path | None = None,
    origins: Iterable[str] | None = None,
    image_root: str | Path | None = None,
) -> Iterator[dict[str, Any]]:
    """Validated MovSafeBench rows sorted by id, image bytes stored as given (files read at write time).

    `origins` optionally names where each record came from ("records.jsonl line 7") for error messages.
    With `image_root`, image files must lie inside it (symlinks resolved); images are always checked to be
    files of a declared image format.
    Duplicate ids are bad input. Validation of all records happens before the first row is yielded.
    """
    base = Path(base_dir) if base_dir is not None else None
    origin_list = list(origins) if origins is not None else None
    checked: list[tuple[str, dict[str, Any]]] = []
    for index, record in enumerate(records, start=1):
        where = _where(index, record if isinstance(record, dict) else {}, origin_list[index - 1]
                       if origin_list else None)
        checked.append((where, validate_record(record, where)))
    checked.sort(key=lambda item: item[1]["id"])
    for (where_a, a), (_, b) in itertools.pairwise(checked):
        if a["id"] == b["id"]:
            raise BadInput(f"{where_a}: duplicate id {a['id']!r}", field="id", fix="ids must be unique")

    rows = []
    for where, row in checked:  # every image file is checked before the first row goes out
        out = {k: v for k, v in row.items() if not k.startswith("_")}
        out["image"] = _image_value(row, base, where, image_root)
        rows.append(out)
    return iter(rows)


def rows_from_input(path: Path, image_root: Path | None = None) -> Iterator[dict[str, Any]]:
    """Rows from a records JSON Lines file, or a folder holding `records.jsonl` (image paths relative to it).

    Images are read only from inside `image_root` (default: the records file's folder), symlinks resolved."""
    from eval_kit.jsonl import iter_jsonl

    path = Path(path)
    if path.is_dir():
        path = path / RECORDS_FILENAME
    numbered = list(iter_jsonl(path))
    return movsafebench_rows_from_records(
        [obj for _, obj in numbered], base_dir=path.parent,
        origins=[f"{path} line {number}" for number, _ in numbered], image_root=image_root or path.parent,
    )


# Sources whose UNEDITED images may be redistributed (nuScenes: CC BY-NC-SA 4.0). SA-Bench/SideGuide's
# licence is not stated, so its source images need an explicit --allow-source sa_bench.
REDISTRIBUTABLE_SOURCES: frozenset[str] = frozenset({"drivebench"})
NO_EDIT_CONFIG = "no_edit"


def check_row(config: str, row: dict[str, Any], allowed_sources: frozenset[str] = frozenset()) -> None:
    """Licence and config rules: the `no_edit` config holds only no_edit rows, and unedited source images
    are published only for sources whose licence allows it. Not applied to demo configs (their images
    are drawn by this project)."""
    if config == NO_EDIT_CONFIG and row["scenario"] != "no_edit":
        raise BadInput(f"id {row['id']!r}: scenario {row['scenario']!r} in the no_edit config", field="scenario",
                       fix="the no_edit config holds the unedited source images only")
    source = row["source_benchmark"]
    if source not in spec.REAL_SOURCE_BENCHMARKS:
        raise BadInput(f"id {row['id']!r}: {source} rows belong in a demo config, not {config!r}",
                       field="source_benchmark", fix="publish synthetic scenes with --config demo")
    if row["scenario"] == "no_edit" and source not in REDISTRIBUTABLE_SOURCES | allowed_sources:
        raise BadInput(
            f"id {row['id']!r}: the unedited {source} image may not be redistributed", field="source_benchmark",
            fix=f"leave {source}'s no_edit rows out, or pass --allow-source {source} once its licence is confirmed",
        )


_LICENCE_TEXT = (
    "Annotations, questions, provenance columns and this card: CC BY-NC 4.0 "
    "(https://creativecommons.org/licenses/by-nc/4.0/). "
    "Images keep the licence of the image they were edited from: edited nuScenes frames (DriveBench) "
    "are derivatives of nuScenes and are shared under its CC BY-NC-SA 4.0 terms; SA-Bench images come "
    "from SideGuide (AI-Hub), whose licence the SA-Bench release does not state: SA-Bench-derived "
    "images are published only where that licence allows. The `no_edit` config (the 400 source "
    "images) is published only for sources whose licence allows redistribution. Demo configs contain "
    "procedurally drawn images made by this project (CC BY-NC 4.0)."
)

SOURCES = (
    SourceDataset(
        name="DriveBench (nuScenes)",
        url="https://huggingface.co/datasets/drive-bench/arena",
        licence="nuScenes: CC BY-NC-SA 4.0; DriveBench annotations: see its card",
        attribution="Driving images are nuScenes camera frames (Motional) selected by DriveBench; the "
        "left/straight/right answer comes from DriveBench's behaviour question (the recorded ego steering).",
    ),
    SourceDataset(
        name="SA-Bench (SideGuide)",
        url="",
        licence="not stated by SA-Bench; SideGuide images are distributed by AI-Hub under its own terms",
        attribution="Sidewalk robot images from SA-Bench (ETRI), which draws on SideGuide (AI-Hub).",
        note="SA-Bench has no left/straight/right label. We derive it from the third of the image width "
        "that `goal_position.x` falls in (left third: left, middle: straight, right third: right). This "
        "mapping is OUR assumption, not part of SA-Bench.",
    ),
)



def demo_rows(work_dir: Path) -> Iterator[dict[str, Any]]:
    """The demo config's rows: the HazardForge demo run on synthetic scenes (resumable in `work_dir`)."""
    from builder.movsafebench.hazardforge.demo import build_demo

    return rows_from_input(build_demo(work_dir, progress=True)["records"], image_root=work_dir)


def movsafebench_publisher() -> Publisher:
    return Publisher(
        name=spec.NAME,
        pretty_name="MovSafeBench",
        summary=(
            "Hazard objects (4 normal and 9 anomalous categories) inserted by the HazardForge pipeline into "
            "driving (DriveBench / nuScenes) and sidewalk-robot (SA-Bench) images, in four scenarios "
            "(static, motion, intrusion, distance). A vision-language model sees the image and picks the "
            "safe direction: A. go left, B. go straight, C. go right."
        ),
        features=spec.features,
        rows_from_input=rows_from_input,
        demo_rows=demo_rows,
        allows_images=True,
        licence="other",
        licence_name="movsafebench-mixed",
        licence_urls=("https://creativecommons.org/licenses/by-nc/4.0/",
                      "https://creativecommons.org/licenses/by-nc-sa/4.0/"),
        licence_text=_LICENCE_TEXT,
        task_categories=("visual-question-answering",),
        tags=("safety", "autonomous-driving", "mobile-robots", "hazard", "vlm-evaluation", "multiple-choice"),
        sources=SOURCES,
        citation=spec.CITATION,
        intended_use=(
            "Evaluating how reliably vision-language models choose a safe direction for a vehicle or a "
            "mobile robot when a common or unusual hazard is present, is moving, intrudes, or is far away. "
            "Score with `hazardkit score movsafebench` (accuracy over edited images, by scenario, category, "
            "normal vs anomalous, and source benchmark)."
        ),
        limitations=(
            "Images are edited: inserted objects can carry generator artefacts; a VLM quality check filtered "
            "incomplete objects and wrong motion directions, but not every artefact.",
            "The answer is the source dataset's recorded action (DriveBench) or a derived label (SA-Bench, "
            "see above); the inserted object was placed so that this answer stays the safe one, which is the "
            "pipeline's design, not a human re-annotation of every image.",
            "Not for training driving or robot policies, and not a certification of safety.",
            "Demo configs (`demo`) are procedurally drawn test data, never the benchmark.",
        ),
        how_built=(
            "Sources: 200 DriveBench and 200 SA-Bench images with their ground-truth safe direction. "
            "HazardForge plans jobs (scenario x category x direction), lays out the object region from the "
            "vanishing point and the scenario, inserts the object with an image-editing model, and keeps "
            "only edits that a VLM quality check accepts (object complete; motion in the intended direction)."
        ),
        crosstab=("scenario", "category"),
        count_columns=("answer", "source_benchmark", "category_group"),
        template="builder.movsafebench:card_template.md",
        check_row=check_row,
    )
