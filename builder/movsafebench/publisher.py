"""MovSafeBench rows and publisher: plain records (a forge run's accepted jobs, or demo scenes) to rows.

A record is a plain dict; the integrator maps forge run directories onto it. Keys:

- `id` (str, stable across versions), `answer` (left|straight|right), `scenario`
  (no_edit|static|motion|intrusion|distance), `category` (one of 13; null/absent for no_edit),
  `source_benchmark` (any source identifier: drivebench, sa_bench or the maintainer's own, e.g. udacity),
  `source_id` (the source image's id);
- the image: `image` (bytes, stored as given) or `image_path` (read as bytes; relative paths are
  resolved against `base_dir`);
- optional: `agent` (derived from the source when absent; required for a source other than the paper's),
  `question` (built from the agent when absent), provenance `object_direction`, `prompt`, `editor`,
  `editor_revision`, `checker`, `checker_revision`, `seed`, `job_id`, `source_sha256`, `pipeline_version`,
  and `object_box` (one [x0, y0, x1, y1) box in image pixels per edit).

A records folder written by `forge export` also holds `build.json` (`BUILD_FILENAME`): the run's acceptance
per scenario x category and the image roots the records point into; publish reads it (it must describe
this very records.jsonl: its sha256 is in it) and the card states it.

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
    "object_direction", "prompt", "editor", "editor_revision", "checker", "checker_revision", "seed", "job_id",
    "source_sha256", "pipeline_version",
)
RECORDS_FILENAME = "records.jsonl"
BUILD_FILENAME = "build.json"
BUILD_FORMAT = "hazardforge-build-1"
# the CPU compositor's editor id: its objects are flat procedural sprites, for testing the pipeline
COMPOSITOR_EDITORS: frozenset[str] = frozenset({"hazardkit/compositor", "compositor"})


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
    source = record.get("source_benchmark")
    if not spec.is_source_benchmark(source):
        raise BadInput(f"{where}: source_benchmark {source!r} is not a source identifier", field="source_benchmark",
                       fix="name the source benchmark in lower-case letters, digits and _ (2-40 characters, "
                           "e.g. `sources scan folder --dataset udacity`)")
    agent = record.get("agent") or spec.AGENT_OF_SOURCE.get(source)
    if agent is None:
        raise BadInput(f"{where}: no agent for source {source!r}", field="agent",
                       fix=f"give each record an agent ({' or '.join(spec.AGENTS)}); the folder index has one")
    _check_label(agent, spec.AGENTS_OF_SOURCE.get(source, spec.AGENTS), "agent", where)
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

    Images are read only from inside the records file's folder, the image roots its `build.json` recorded
    (what `forge export` wrote: the run folder and the sources' folder) and `image_root` (--image-root),
    symlinks resolved."""
    from eval_kit.jsonl import iter_jsonl

    path = records_file(path)
    build = read_build(path)
    roots = [path.parent, *(build or {}).get("image_roots", []), *([image_root] if image_root else [])]
    numbered = list(iter_jsonl(path))
    return movsafebench_rows_from_records(
        [obj for _, obj in numbered], base_dir=path.parent,
        origins=[f"{path} line {number}" for number, _ in numbered], image_root=roots,
    )


def records_file(path: Path) -> Path:
    path = Path(path)
    return path / RECORDS_FILENAME if path.is_dir() else path


def read_build(path: Path) -> dict[str, Any] | None:
    """The `build.json` beside a records file (None when there is none), checked to describe that very file.

    It is what `forge export` computed from the run (acceptance per scenario x category, editor and checker
    settings, image roots); a build.json whose `records_sha256` is not the records file's is bad input, so a
    card never states the acceptance of another build."""
    import hashlib

    from eval_kit.strictjson import read_json

    records = records_file(path)
    build_path = records.parent / BUILD_FILENAME
    if not build_path.exists():
        return None
    info = read_json(build_path, max_bytes=8 * 2**20)
    if not isinstance(info, dict) or info.get("format") != BUILD_FORMAT:
        raise BadInput(f"not a {BUILD_FORMAT} file", path=build_path, field="format",
                       fix="re-run `hazardkit forge export`, or remove the file")
    if not records.is_file():
        raise BadInput("records file not found", path=records, field="--input")
    with open(records, "rb") as handle:
        digest = hashlib.file_digest(handle, "sha256").hexdigest()
    if info.get("records_sha256") != digest:
        raise BadInput(f"{build_path.name} describes another records.jsonl (its records_sha256 differs)",
                       path=build_path, field="records_sha256",
                       fix="re-run `hazardkit forge export` after changing the records, or remove build.json")
    envs = info.get("environments", [])
    if not isinstance(envs, list) or not all(isinstance(e, dict) and isinstance(e.get("rows"), int)
                                             and isinstance(e.get("libraries"), (dict, type(None))) for e in envs):
        raise BadInput("environments must be a list of {libraries, editor..., rows} objects", path=build_path,
                       field="environments", fix="re-run `hazardkit forge export`")
    roots = info.get("image_roots", [])
    if not isinstance(roots, list) or not all(isinstance(r, str) and Path(r).is_absolute() for r in roots):
        raise BadInput("image_roots must be a list of absolute folders", path=build_path, field="image_roots")
    # a root that is gone (the run moved with its records) only narrows where images may be read: an image
    # that is then outside every allowed folder is refused naming --image-root
    return {**info, "image_roots": [r for r in roots if Path(r).is_dir()]}


def build_from_input(path: Path) -> dict[str, Any] | None:
    """What the card states about how the input was built (from build.json), or None."""
    info = read_build(path)
    if info is None:
        return None
    return {k: info[k] for k in ("run", "acceptance", "scope", "environments", "obstacles") if k in info}


def is_compositor(editor: Any) -> bool:
    return isinstance(editor, str) and editor in COMPOSITOR_EDITORS


def needs_confirmation(config: str, row: dict[str, Any]) -> str | None:
    """Compositor output (synthetic sprites) goes into a config other than demo only when confirmed."""
    return "compositor" if row["scenario"] != "no_edit" and is_compositor(row.get("editor")) else None


def image_group(row: dict[str, Any]) -> str:
    return "no_edit" if row["scenario"] == "no_edit" else "edited"


def reencode_image(row: dict[str, Any]) -> bool:
    """Edited images (lossless PNG from the run) are stored by the chosen policy; source images never."""
    return row["scenario"] != "no_edit"


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
    if source == "synthetic":
        raise BadInput(f"id {row['id']!r}: {source} rows belong in a demo config, not {config!r}",
                       field="source_benchmark", fix="publish synthetic scenes with --config demo")
    if source in spec.PLACEHOLDER_SOURCES:
        raise BadInput(f"id {row['id']!r}: source_benchmark {source!r} is the folder adapter's placeholder, not a "
                       "source name", field="source_benchmark",
                       fix="name the real source: `hazardkit sources scan folder --dataset NAME`, then plan again")
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
    "images are published only where that licence allows. Unedited source images (`no_edit` rows) are "
    "published only for sources whose licence allows redistribution. Demo configs contain "
    "procedurally drawn images made by this project (CC BY-NC 4.0). Any other source keeps its own licence, "
    "stated per config under How the data were built (above) as the maintainer gave it."
)

SOURCES = (
    SourceDataset(
        id="drivebench",
        name="DriveBench (nuScenes)",
        url="https://huggingface.co/datasets/drive-bench/arena",
        licence="nuScenes: CC BY-NC-SA 4.0; DriveBench annotations: see its card",
        attribution="Driving images are nuScenes camera frames (Motional) selected by DriveBench; the "
        "left/straight/right answer comes from DriveBench's behaviour question (the recorded ego steering).",
    ),
    SourceDataset(
        id="sa_bench",
        name="SA-Bench (SideGuide)",
        url="",
        licence="not stated by SA-Bench; SideGuide images are distributed by AI-Hub under its own terms",
        attribution="Sidewalk robot images from SA-Bench (ETRI), which draws on SideGuide (AI-Hub).",
        note="SA-Bench has no left/straight/right label. We derive it from the third of the image width "
        "that `goal_position.x` falls in (left third: left, middle: straight, right third: right). This "
        "mapping is OUR assumption, not part of SA-Bench.",
    ),
    SourceDataset(
        id="synthetic",
        name="Synthetic scenes (demo)",
        url="",
        licence="CC BY-NC 4.0 (procedurally drawn by this project)",
        attribution="Road and sidewalk scenes rendered by builder/movsafebench/sources/synthetic.py; demo only.",
    ),
)



def demo_input(work_dir: Path) -> Path:
    """The demo config's input: the HazardForge demo run on synthetic scenes exported (records.jsonl and
    build.json) into `work_dir` (resumable)."""
    from builder.movsafebench.hazardforge.demo import build_demo

    return build_demo(work_dir, progress=True)["records"]


def movsafebench_publisher() -> Publisher:
    return Publisher(
        name=spec.NAME,
        pretty_name="MovSafeBench",
        summary=(
            "Hazard objects (4 normal and 9 anomalous categories) inserted by the HazardForge pipeline into "
            "driving and sidewalk-robot images, in four scenarios (static, motion, intrusion, distance). A "
            "vision-language model sees the image and picks the safe direction: A. go left, B. go straight, "
            "C. go right. The sources, editors and quality check of each config are stated below, as measured "
            "from its rows."
        ),
        features=spec.features,
        rows_from_input=rows_from_input,
        demo_build=demo_input,
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
            "Images are edited: inserted objects can carry editor artefacts that the quality check named for "
            "each config under How the data were built (above) did not catch.",
            "The answer is the source's recorded or derived safe direction (DriveBench: the recorded ego "
            "steering; SA-Bench: derived, see below; other sources: as their maintainer labelled them); the "
            "inserted object was placed so that this answer stays the safe one, which is the pipeline's design, "
            "not a human re-annotation of every image.",
            "Not for training driving or robot policies, and not a certification of safety.",
            "Demo configs (`demo`) are procedurally drawn test data, never the benchmark.",
        ),
        how_built=(
            "HazardForge plans jobs (scenario x category x direction) for each source image, lays out the "
            "object region from the vanishing point and the scenario, inserts the object with the editor named "
            "below, and keeps only the edits that the quality check named below accepts (object complete; "
            "motion in the intended direction), retrying rejected edits with new seeds."
        ),
        crosstab=("scenario", "category"),
        count_columns=("answer", "category_group", "pipeline_version"),
        template="builder.movsafebench:card_template.md",
        check_row=check_row,
        confirmations={"compositor": ("--allow-compositor", "its image was edited by the CPU compositor, whose "
                                      "objects are synthetic sprites for testing the pipeline")},
        needs_confirmation=needs_confirmation,
        source_columns=("source_benchmark", "source_id", "agent"),
        build_from_input=build_from_input,
        image_group=image_group,
        reencode_image=reencode_image,
        extra={"compositor_editors": sorted(COMPOSITOR_EDITORS), "source_names": dict(spec.PAPER_SOURCE_NAMES)},
    )
