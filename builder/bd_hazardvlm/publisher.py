"""BD-HazardVLM publisher: the annotation records and the image manifest, never the images.

The source images (RSUD20K, TFP-BD) are not ours to redistribute (paper section 3), so every published
config is annotation-only: the features are `spec.features(with_image=False)` (the guard refuses any
image column), and the image manifest of the same input is published beside the shards as
`manifests/<config>/image_manifest.jsonl`, so users can rebuild the images with `hazardkit reconstruct`.

Configs:
- `annotations` (default): the benchmark's records `BDHV_0001`..`BDHV_0500` (`--input` a folder holding
  `annotations.jsonl` and `image_manifest.jsonl`, or an annotations file with the manifest beside it);
- `demo_annotations`: the demo records `BDHV_DEMO_*` (default input: the bundled demo);
- local only, listed in the card but never uploaded: `demo` (`hazardkit reconstruct bd-hazardvlm --demo`
  writes it into `data/demo/` with the synthetic pictures) and `reconstructed` (your own images).
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

from builder.publish.publishers import Publisher, SourceDataset
from eval_kit.bd_hazardvlm import spec
from eval_kit.errors import BadInput

ANNOTATIONS_FILENAME = "annotations.jsonl"
MANIFEST_FILENAME = "image_manifest.jsonl"
DEMO_CONFIG = "demo_annotations"
DEFAULT_CONFIG = "annotations"
LOCAL_CONFIGS: dict[str, str] = {"demo": "data/demo/*.parquet", "reconstructed": "reconstructed/*.parquet"}
ROW_FIELDS: tuple[str, ...] = ("id", "source_dataset", "source_id", "source_path", *spec.ANNOTATION_FIELDS, "pilot")


def demo_dir() -> Path:
    from builder.bd_hazardvlm.reconstruct import DEMO_DIR

    return DEMO_DIR


def _annotations_path(path: Path) -> Path:
    return path / ANNOTATIONS_FILENAME if path.is_dir() and (path / ANNOTATIONS_FILENAME).exists() else path


def manifest_path(path: Path) -> Path:
    """The image manifest that goes with an input: inside the folder, or beside the annotations file."""
    folder = path if path.is_dir() else path.parent
    return folder / MANIFEST_FILENAME


def rows_from_input(path: Path) -> Iterator[dict[str, Any]]:
    """Annotation rows sorted by id: every record validated by `spec.load_annotations` (schema, control rule)."""
    records = spec.load_annotations(_annotations_path(Path(path)))
    return iter([{name: records[rid][name] for name in ROW_FIELDS} for rid in sorted(records)])


def attachments(config: str, source: Path | None) -> dict[str, Path]:
    """{`manifests/<config>/image_manifest.jsonl`: the input's manifest}, checked against the annotations:
    one entry per annotation id (no more, no fewer), same source dataset and path."""
    from builder.bd_hazardvlm.reconstruct import load_manifest

    if source is None:
        raise BadInput("no input to take the image manifest from", field="--input",
                       fix="pass --input FOLDER holding annotations.jsonl and image_manifest.jsonl")
    source = Path(source)
    manifest = manifest_path(source)
    if not manifest.exists():
        raise BadInput("the image manifest is missing: BD-HazardVLM publishes it with the annotations",
                       path=manifest, fix=f"put {MANIFEST_FILENAME} beside the annotations")
    entries = {e["id"]: e for e in load_manifest(manifest)}
    records = spec.load_annotations(_annotations_path(source))
    missing = sorted(set(records) - set(entries))
    extra = sorted(set(entries) - set(records))
    if missing or extra:
        what = (f"no manifest entry for {', '.join(missing[:5])}" if missing else
                f"manifest entries without annotation: {', '.join(extra[:5])}")
        raise BadInput(f"manifest and annotations disagree: {what}", path=manifest, field="id",
                       fix="publish the manifest and the annotations of the same release")
    for rid, record in records.items():
        entry = entries[rid]
        if (entry["source_dataset"], entry["path"]) != (record["source_dataset"], record["source_path"]):
            raise BadInput(f"id {rid!r}: manifest says {entry['source_dataset']}:{entry['path']}, annotation says "
                           f"{record['source_dataset']}:{record['source_path']}", path=manifest, field="path",
                           fix="the annotation's source_path must equal the manifest path")
    return {f"manifests/{config}/{MANIFEST_FILENAME}": manifest}


def check_row(config: str, row: dict[str, Any], allowed_sources: frozenset[str] = frozenset()) -> None:
    """The benchmark config holds benchmark ids only: a demo record (`BDHV_DEMO_*`) never enters it."""
    if row["id"].startswith("BDHV_DEMO_"):
        raise BadInput(f"id {row['id']!r} is a demo record, not part of config {config!r}", field="id",
                       fix=f"publish demo records as --config {DEMO_CONFIG}")


_LICENCE_TEXT = (
    "Annotations, the image manifest, documentation and this card: CC BY-NC 4.0 "
    "(https://creativecommons.org/licenses/by-nc/4.0/). Evaluation and preparation code: MIT. "
    "Source images: RSUD20K and TFP-BD keep their own licences and terms; they are never part of this "
    "repository. Each manifest entry carries the image's `license` and `attribution`; you obtain the "
    "images yourself and must follow those terms."
)

SOURCES = (
    SourceDataset(
        name="RSUD20K", url="",
        licence="its own terms (see its official repository); images not redistributed here",
        attribution="375 of the 500 benchmark images are RSUD20K road-scene frames from Bangladesh.",
    ),
    SourceDataset(
        name="TFP-BD", url="",
        licence="its own terms (see its official repository); images not redistributed here",
        attribution="125 of the 500 benchmark images are TFP-BD traffic frames from Bangladesh.",
    ),
)



def bd_hazardvlm_publisher() -> Publisher:
    return Publisher(
        name=spec.NAME,
        pretty_name="BD-HazardVLM",
        summary=(
            "An image-level diagnostic benchmark of defensive-driving hazard reasoning in Bangladesh mixed "
            "traffic: 500 road images (375 from RSUD20K, 125 from TFP-BD) with structured labels. This "
            "repository holds the annotations and the image manifest only; the images are rebuilt locally "
            "from your own copies of the source datasets."
        ),
        features=lambda: spec.features(with_image=False),
        rows_from_input=rows_from_input,
        allows_images=False,
        licence="cc-by-nc-4.0",
        licence_urls=("https://creativecommons.org/licenses/by-nc/4.0/",),
        licence_text=_LICENCE_TEXT,
        task_categories=("visual-question-answering",),
        tags=("driving", "safety", "bangladesh", "vision-language-models"),
        sources=SOURCES,
        citation=spec.CITATION,
        crosstab=("primary_hazard_category", "risk_timing"),
        count_columns=("source_dataset", "hazard_present", "severity", "hallucination_trap",
                       "western_bias_trap", "pilot"),
        demo_configs=(DEMO_CONFIG,),
        template="builder.bd_hazardvlm:card_template.md",
        check_row=check_row,
        local_configs=dict(LOCAL_CONFIGS),
        default_config=DEFAULT_CONFIG,
        demo_input=demo_dir(),
        attachments=attachments,
        extra={
            "local_config_fix": "`demo` and `reconstructed` hold images and are built by `hazardkit reconstruct "
                                f"bd-hazardvlm`; publish the annotations as --config {DEFAULT_CONFIG} or "
                                f"--config {DEMO_CONFIG}",
            "attachment_description": "the image manifest (JSON Lines): path, byte size, sha256, width, "
                                      "height, licence and attribution of every source image",
        },
    )
