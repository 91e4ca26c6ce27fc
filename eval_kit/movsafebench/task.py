"""MovSafeBench as a runner task: image + direction question in, left / straight / right out.

Reads a dataset folder (`data/<config>/*.parquet`, as `datasets` writes it), a Parquet file, or a JSON
Lines file whose `image` is a path relative to the file. Rows stream in file order, so a run over
7,254 images never holds them all in memory.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

from eval_kit.errors import BadInput
from eval_kit.movsafebench import spec
from eval_kit.runners.task import Request, Task, default_data, user_message

_COLUMNS = ("id", "image", "question", "agent", "answer", "source_benchmark")


def decode_image(value: Any, base: Path | None, where: str, *, roots: list[Path] | None = None):
    """A lazily opened PIL image from a `datasets` Image cell ({bytes, path}), raw bytes, or a file path.

    Only the header is read here; the harness decodes it off the request loop (`eval_kit.runners.images`).
    Unreadable content or a decompression bomb is an `UnreadableImage`: that sample fails, the others run."""
    from eval_kit.runners.images import open_image

    return open_image(value, base, where, roots=roots)


class MovSafeBenchTask(Task):
    """The direction-oriented multiple-choice question of the paper (section 3.1), one image per sample."""

    name = spec.NAME
    version = "1.0"

    def __init__(self, data: str | Path | None = None, config: str | None = None,
                 dataset_revision: str | None = None, variant: str | None = None) -> None:
        super().__init__(data if data is not None else default_data(spec.NAME), config, dataset_revision, variant)

    # --- reading --------------------------------------------------------------------------------
    def _is_jsonl(self) -> bool:
        return self.data.is_file() and self.data.suffix in {".jsonl", ".ndjson", ".json"}

    def data_files(self) -> list[Path]:
        from eval_kit.tables import parquet_files

        if not self.data.exists():
            raise BadInput("dataset not found", path=self.data, fix="pass --data PATH (folder, Parquet or JSONL)")
        return [self.data, *self._jsonl_images()] if self._is_jsonl() else parquet_files(self.data, self.config)

    @property
    def dataset_revision(self) -> str:
        """The given revision, else a content hash: of the Parquet files, or of a JSON Lines file and every image
        file it names (hashed in parallel; `files_revision`)."""
        if self._dataset_revision is None and self.data.exists() and self._is_jsonl():
            from eval_kit.runners.task import files_revision

            rows = self.data.resolve()
            self._dataset_revision = files_revision([rows, *self._jsonl_images()], rows.parent)
        return super().dataset_revision

    def _jsonl_images(self) -> list[Path]:
        """The image files a JSON Lines dataset names (inside its folder), so the content revision covers every
        byte a prompt is built from: replacing an image changes the revision, and no answer to the old image
        is resumed. Rows that name no usable file are left to `samples`, which refuses them with their line."""
        from eval_kit.jsonl import iter_jsonl
        from eval_kit.safe_paths import resolve_inside

        base = self.data.parent
        files = []
        for _, obj in iter_jsonl(self.data):
            cell = obj.get("image") if isinstance(obj, dict) else None
            path = cell.get("path") if isinstance(cell, dict) and not cell.get("bytes") else cell
            if not isinstance(path, str) or not path:
                continue
            try:
                files.append(resolve_inside(base / path, [base]))
            except BadInput:
                continue
        return files

    def rows(self) -> Iterator[tuple[str, dict[str, Any]]]:
        """(location, row) in file order; ClassLabel integers decoded to label strings."""
        if self._is_jsonl():
            from eval_kit.jsonl import iter_jsonl

            for number, obj in iter_jsonl(self.data):
                yield f"{self.data} line {number}", obj
            return
        from eval_kit.parquet import corrupt, iter_batches, label_decoders, open_parquet

        for file in self.data_files():
            pf = open_parquet(file)
            present = set(pf.schema_arrow.names)
            if "id" not in present:
                raise BadInput("missing column id", path=file)
            columns = [c for c in _COLUMNS if c in present]
            decoders = label_decoders(pf.schema_arrow)
            row_number = 0
            for batch in iter_batches(pf, file, columns):
                try:
                    data = {c: batch.column(c).to_pylist() for c in columns}
                except Exception as exc:  # a value pyarrow cannot turn into Python (a damaged page)
                    raise corrupt(file, exc) from None
                for c in columns:
                    if c in decoders:
                        data[c] = decoders[c](data[c])
                for i in range(batch.num_rows):
                    row_number += 1
                    yield f"{file} row {row_number}", {c: data[c][i] for c in columns}

    def count(self, *, limit: int | None = None) -> int | None:
        if self._is_jsonl():
            with self.data.open("rb") as handle:
                total = sum(1 for line in handle if line.strip())
            return min(total, limit) if limit is not None else total
        from eval_kit.parquet import open_parquet

        total = sum(open_parquet(f).metadata.num_rows for f in self.data_files())
        return min(total, limit) if limit is not None else total

    def samples(self, *, limit: int | None = None, text_only: bool = False) -> Iterator[Request]:
        # a path in an image cell is read relative to the JSON Lines file's folder, or to the dataset folder
        base = self.data if self.data.is_dir() else self.data.parent
        for n, (where, row) in enumerate(self.rows()):
            if limit is not None and n >= limit:
                return
            sample_id = row.get("id")
            if not isinstance(sample_id, str) or not sample_id:
                raise BadInput(f"{where}: missing or non-string id", field="id")
            question = row.get("question")
            if not question:
                agent = row.get("agent") or spec.AGENT_OF_SOURCE.get(row.get("source_benchmark") or "")
                if agent not in spec.AGENT_PHRASES:
                    raise BadInput(f"{where}: no question and no agent to build one", field="question",
                                   fix="add a `question` or an `agent` (vehicle / robot) column")
                question = spec.build_question(agent)
            images = [] if text_only else [decode_image(row.get("image"), base, where)]
            yield Request(id=sample_id, messages=[user_message(question, len(images))], images=images,
                         label=row.get("answer"))

    # --- answers --------------------------------------------------------------------------------
    def parse(self, response: str | None) -> str | None:
        return spec.parse_answer(response)

    def answer_text(self, label: Any) -> str:
        return f"{spec.ANSWER_TO_LETTER[label]}. go {label}"

    def label_space(self) -> Sequence[str]:
        return spec.ANSWERS


def score_run(task: MovSafeBenchTask, predictions: Path, *, n_bootstrap: int = 1000, seed: int = 0) -> dict[str, Any]:
    """Score a run's predictions against the task's references, with per-sample correctness kept.

    A `--limit` run is scored on the samples it ran (`partial` is then true). `per_sample` lists the
    edited images (those the headline accuracy counts) and whether each was right: the leaderboard's
    paired McNemar tests need it.
    """
    from eval_kit.movsafebench.scoring import compute_scores
    from eval_kit.movsafebench.submission import load_references, resolve_predictions
    from eval_kit.tables import read_predictions

    refs = load_references(task.data, task.config)
    preds = read_predictions(predictions, "movsafebench_prediction")
    labels, _ = resolve_predictions(preds, predictions)
    for sample_id, (number, _) in preds.items():
        if sample_id not in refs:
            raise BadInput(f"id {sample_id!r} is not in the references", path=predictions, line=number, field="id")
    ids = [i for i in refs if i in labels]
    rows = [refs[i] for i in ids]
    result = compute_scores(
        [r["answer"] for r in rows], [labels[i] for i in ids], [r["scenario"] for r in rows],
        [r["category"] if r["scenario"] != "no_edit" else None for r in rows],
        [r["source_benchmark"] for r in rows], [r.get("source_id") or r["id"] for r in rows],
        n_bootstrap=n_bootstrap, seed=seed,
    )
    edited = [(i, r) for i, r in zip(ids, rows, strict=True) if r["scenario"] != "no_edit"]
    result["per_sample"] = {"id": [i for i, _ in edited], "correct": [labels[i] == r["answer"] for i, r in edited]}
    result["partial"] = len(ids) < len(refs)
    result["missing"] = 0
    return result
