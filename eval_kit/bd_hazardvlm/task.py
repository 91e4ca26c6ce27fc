"""BD-HazardVLM as a runner task: one road image + the paper's prompt in, the eight-field JSON out.

Reads what `hazardkit reconstruct bd-hazardvlm [--demo]` writes (Parquet with embedded images: the
folder `bd_hazardvlm/` with `reconstructed/` or `data/demo/`, a Parquet file or a folder of them), or
annotation JSON Lines plus an image folder (`--images`). The paper's ONE formatting-only retry goes
through `repair`: the model's own answer and the repair prompt (schema problems + allowed labels, no
visual or semantic hint) are sent back once, and both raw outputs are kept in the submission. Whether it
is sent is the run's retry policy (`RETRY_POLICIES`), recorded in metadata.json and in every request key.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from pathlib import Path, PurePosixPath
from typing import Any

from eval_kit.bd_hazardvlm import spec
from eval_kit.errors import BadInput
from eval_kit.runners.task import Message, Request, Task, default_data, user_message

# What a baseline says for a hazard category besides the category itself: the paper's most frequent
# timing (latent, 404 of 445 hazard scenes), a middle severity and the most general action. A control
# category answers with the control answer. Trap flags stay false (a baseline reports no doubt).
BASELINE_HAZARD_FIELDS: dict[str, Any] = {"risk_timing": "latent", "severity": "medium",
                                          "defensive_actions": ["slow_down"]}


# The formatting-retry policy (`hazardkit eval bd-hazardvlm --retry`):
#   off     never retry: the first answer is scored (the paper's protocol for Qwen2.5-VL-7B and InternVL3-8B);
#   once    one retry when the answer is not schema-valid after the parser's normalisation;
#   strict  one retry also when a value needed a synonym ("both immediate and latent" for `both`): how the
#           paper's MiniCPM-V-4.6 run counted its 215 retries (section 4, "allowed one formatting-only retry").
# Default off: the paper allowed the retry for MiniCPM-V-4.6 only, so a first-answer score is what its
# other rows report and what an lmms-eval run (one answer per sample) measures; presets pick per model.
RETRY_POLICIES = ("off", "once", "strict")
DEFAULT_RETRY = RETRY_POLICIES[0]

REVISION_FIELDS = ("id", "source_dataset", "source_id", "source_path", *spec.ANNOTATION_FIELDS, "pilot")


def annotations_revision(records: dict[str, dict[str, Any]]) -> str:
    """`sha256:<16 hex>` over the annotation records in canonical JSON: the same from JSON Lines, the
    annotations-only Parquet and a reconstruction's Parquet with embedded images."""
    import hashlib

    digest = hashlib.sha256()
    for sample_id in sorted(records):
        row = {field: records[sample_id].get(field) for field in REVISION_FIELDS}
        digest.update(json.dumps(row, sort_keys=True, ensure_ascii=False, separators=(",", ":")).encode() + b"\n")
    return "sha256:" + digest.hexdigest()[:16]


class BDHazardVLMTask(Task):
    """Paper section 4: the whole taxonomy and output schema in one prompt, one image per sample.

    `label` of a sample is its primary hazard category: what the majority and fixed baselines choose.
    """

    name = spec.NAME
    version = "1.0"

    def __init__(self, data: str | Path | None = None, config: str | None = None,
                 dataset_revision: str | None = None, variant: str | None = None,
                 images: str | Path | None = None, retry: str = DEFAULT_RETRY) -> None:
        super().__init__(data if data is not None else default_data(spec.NAME), config, dataset_revision, variant)
        if retry not in RETRY_POLICIES:
            raise BadInput(f"unknown retry policy {retry!r}", field="--retry", fix=f"use {', '.join(RETRY_POLICIES)}")
        self.retry = retry
        self.images = Path(images) if images is not None else None
        self._records: dict[str, dict[str, Any]] | None = None

    # --- where the rows are ---------------------------------------------------------------------
    def _is_jsonl(self) -> bool:
        return self.data.is_file() and self.data.suffix in {".jsonl", ".ndjson", ".json"}

    def source(self) -> Path:
        """The annotation JSON Lines file, a Parquet file, or the flat folder holding the config's Parquet."""
        from eval_kit.tables import parquet_files

        if not self.data.exists():
            raise BadInput("dataset not found", path=self.data,
                           fix="run `hazardkit reconstruct bd-hazardvlm [--demo]` or pass --data PATH")
        if self.data.is_file():
            return self.data
        rebuilt = self.data / "reconstructed"
        if self.config == "reconstructed" or (self.config is None and list(rebuilt.glob("*.parquet"))):
            if not list(rebuilt.glob("*.parquet")):
                raise BadInput("no reconstructed Parquet", path=rebuilt,
                               fix="run `hazardkit reconstruct bd-hazardvlm` first (or --config demo)")
            return rebuilt
        if not (self.data / "data").is_dir() and not list(self.data.glob("*.parquet")):
            raise BadInput("no BD-HazardVLM Parquet here (the images are never redistributed)", path=self.data,
                           fix="run `hazardkit reconstruct bd-hazardvlm` (or `--demo`) first, or pass --data")
        return parquet_files(self.data, self.config)[0].parent

    def data_files(self) -> list[Path]:
        source = self.source()
        return [source] if source.is_file() else sorted(source.glob("*.parquet"))

    @property
    def dataset_revision(self) -> str:
        """The given revision, else a content hash of the annotation records (not of the files).

        A run on a local reconstruction (annotations + images in Parquet) and the published annotations
        config it was rebuilt from then carry the same revision, so `validate` can check a run against the
        annotations config it was run from. The images are pinned separately: reconstruction checks each
        one against the release manifest's sha256.
        """
        if self._dataset_revision is None:
            self._dataset_revision = annotations_revision(self.records())
        return self._dataset_revision

    def records(self) -> dict[str, dict[str, Any]]:
        """Schema-checked annotation records keyed by id (the references), in file order."""
        if self._records is None:
            self._records = spec.load_annotations(self.source())
        return self._records

    def incomplete_reconstruction(self) -> list[dict[str, Any]]:
        """The metadata of Parquet files a reconstruction marked incomplete (`--allow-missing`)."""
        return spec.incomplete_parquet(self.source())

    def count(self, *, limit: int | None = None) -> int | None:
        total = len(self.records())
        return min(total, limit) if limit is not None else total

    def _parquet_images(self, wanted: set[str]) -> Iterator[tuple[str, Any]]:
        """(id, image cell) in file order from the Parquet's `image` column."""
        from eval_kit.parquet import iter_batches, open_parquet

        for file in self.data_files():
            pf = open_parquet(file)
            if "image" not in pf.schema_arrow.names:
                raise BadInput("this Parquet has no image column (annotations only)", path=file, field="image",
                               fix="reconstruct the images (`hazardkit reconstruct bd-hazardvlm`) or run --text-only")
            for batch in iter_batches(pf, file, ["id", "image"]):
                for sample_id, image in zip(batch.column("id").to_pylist(), batch.column("image").to_pylist(),
                                            strict=True):
                    if sample_id in wanted:
                        yield sample_id, image

    def _folder_image(self, record: dict[str, Any]) -> Path:
        """`<images>/<source_dataset>/<source_path>` (the reconstruct sources layout) or `<images>/<source_path>`."""
        if self.images is None:
            raise BadInput("annotation JSON Lines need the image folder", field="--images",
                           fix="pass --images DIR (or use the reconstructed Parquet, or --text-only)")
        relative = PurePosixPath(str(record.get("source_path") or ""))
        if relative.is_absolute() or ".." in relative.parts or not relative.parts:
            raise BadInput(f"{record['id']}: unsafe source_path {str(relative)!r}", path=self.data,
                           field="source_path")
        for candidate in (self.images / record["source_dataset"] / relative, self.images / relative):
            if candidate.is_file():
                return candidate
        raise BadInput(f"{record['id']}: image {str(relative)!r} not found under {self.images}", field="--images",
                       fix="lay the folder out as <images>/<source_dataset>/<source_path> or <images>/<source_path>")

    def samples(self, *, limit: int | None = None, text_only: bool = False) -> Iterator[Request]:
        from eval_kit.movsafebench.task import decode_image

        records = self.records()
        ids = list(records)[:limit] if limit is not None else list(records)
        if text_only:
            images: Iterator[tuple[str, Any]] = iter((i, None) for i in ids)
        elif self._is_jsonl():
            images = iter((i, str(self._folder_image(records[i]))) for i in ids)
        else:
            images = self._parquet_images(set(ids))
        # a path is read only inside the image folder (JSON Lines) or the dataset folder (Parquet)
        base = self.data if self.data.is_dir() else self.data.parent
        roots = [self.images] if self._is_jsonl() and self.images is not None else None
        for sample_id, cell in images:
            pictures = [] if text_only else [decode_image(cell, base, f"{self.data} id {sample_id}", roots=roots)]
            yield Request(id=sample_id, messages=[user_message(spec.PROMPT, len(pictures))], images=pictures,
                         label=records[sample_id]["primary_hazard_category"])

    # --- answers --------------------------------------------------------------------------------
    def parse(self, response: str | None) -> dict[str, Any] | None:
        """The fields the parser could map (absent = unmappable), or None when nothing was readable."""
        return spec.parse_response(response).prediction or None

    def run_settings(self) -> dict[str, Any]:
        return {"retry": self.retry}

    def repair(self, sample: Request, response: str) -> list[Message] | None:
        """The one formatting-only retry (unless the policy is off): the same turn, the model's answer, then
        the repair prompt."""
        if self.retry == "off":
            return None
        result = spec.parse_response(response)
        if not spec.needs_retry(result, strict=self.retry == "strict"):
            return None
        return [*sample.messages, {"role": "assistant", "content": [{"type": "text", "text": response or ""}]},
                user_message(spec.repair_prompt(response or "", result), 0)]

    def answer_text(self, label: Any) -> str:
        if label == spec.CONTROL_CATEGORY:
            fields = dict(spec.CONTROL_ANSWER)
        else:
            fields = {"hazard_present": True, "primary_hazard_category": label, **BASELINE_HAZARD_FIELDS}
        answer = {"hazard_present": fields["hazard_present"], "primary_hazard_category": label,
                  "risk_timing": fields["risk_timing"], "severity": fields["severity"],
                  "defensive_actions": list(fields["defensive_actions"]), "evidence": "baseline answer",
                  "possible_hallucination": False, "possible_western_road_bias": False}
        return json.dumps(answer)

    def label_space(self) -> Sequence[str]:
        return spec.CATEGORIES

    def prediction_line(self, record: dict[str, Any], prediction: Any) -> dict[str, Any]:
        """Schema `bd_hazardvlm_prediction`: the scored `response`, the first one and whether a retry happened.

        No parsed `prediction` is written: the scorer parses `response` itself, so a parser change
        applies to old runs too.
        """
        if "first_response" in record:
            return spec.prediction_line(record["id"], record["first_response"], record.get("response") or "")
        return spec.prediction_line(record["id"], record.get("response") or "")


def score_run(task: BDHazardVLMTask, predictions: Path, *, n_bootstrap: int = 1000, seed: int = 0) -> dict[str, Any]:
    """The paper's scores (`hazardkit score bd-hazardvlm --json`) over the samples the run answered.

    A `--limit` run is scored on its samples (`partial` true). `per_sample` holds category correctness
    (the headline) and `per_sample_tasks` timing / severity / hazard-presence correctness: the paired
    observations of the leaderboard's McNemar + Holm matrices; `per_sample_scores` the action Jaccard per
    image (Wilcoxon in `compare`). `ci95` is a bootstrap interval of the
    category accuracy over images.
    """
    import numpy as np

    from eval_kit.bd_hazardvlm.scoring import compute_scores, per_image
    from eval_kit.bd_hazardvlm.submission import resolve_run
    from eval_kit.scoring.bootstrap import cluster_bootstrap_ci
    from eval_kit.tables import read_predictions

    refs = task.records()
    preds = read_predictions(predictions, spec.PREDICTION_SCHEMA)
    for sample_id, (number, _) in preds.items():
        if sample_id not in refs:
            raise BadInput(f"id {sample_id!r} is not in the references", path=predictions, line=number, field="id")
    answered = {i: r for i, r in refs.items() if i in preds}
    if not answered:
        raise BadInput("the run has no predictions yet", path=predictions, fix="run `hazardkit eval` first")
    run = resolve_run(answered, predictions)
    result: dict[str, Any] = {"benchmark": spec.NAME}
    result.update(compute_scores(run.references, run.predictions, schema_valid=run.schema_valid,
                                 initial_schema_valid=run.initial_schema_valid, retried=run.retried))
    correct = per_image(run.references, run.predictions)
    ci = cluster_bootstrap_ci(correct["category"], np.arange(len(run.ids)), n_resamples=n_bootstrap, seed=seed)
    result["ci95"] = list(ci) if ci is not None else None
    result["per_sample"] = {"id": run.ids, "correct": [bool(x) for x in correct["category"]]}
    result["per_sample_tasks"] = {task_name: [bool(x) for x in correct[task_name]]
                                  for task_name in ("timing", "severity", "hazard_presence")}
    # per-image scores for the paper's Wilcoxon signed-rank test (`hazardkit compare bd-hazardvlm`)
    result["per_sample_scores"] = {"actions_jaccard": [float(x) for x in correct["actions_jaccard"]]}
    result["partial"] = len(answered) < len(refs)
    result["missing"] = 0
    result["references_incomplete"] = task.incomplete_reconstruction()
    return result
