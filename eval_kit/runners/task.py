"""What a benchmark must declare for the generic runner: samples in, predictions out.

A task is a declaration in the style of lm-evaluation-harness: it turns dataset rows into chat
requests (id, messages, images), and a model's raw text back into a prediction. The runner owns
batching, logging, resuming and progress, so adding a benchmark means writing one small Task.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

# Messages use the Hugging Face chat format: {"role": ..., "content": [{"type": "text", "text": ...},
# {"type": "image"}]}. An {"type": "image"} part stands for the next image of `Request.images`, in order;
# each backend turns it into what its API wants (a PIL image, a data URL, vLLM multi-modal data).
Message = dict[str, Any]


@dataclass
class Request:
    """One request to a model. `images` are PIL images, opened lazily by the task's iterator and decoded by
    the harness (`Backend.prepare`) on its prefetch threads."""

    id: str
    messages: list[Message]
    images: list[Any] = field(default_factory=list)
    label: Any = None  # the reference answer when the task knows it (majority baseline only; never sent)
    variant: str | None = None  # prompt variant (SafeRelBench), part of the request key
    key: str | None = None  # request key, set by the runner
    index: int | None = None  # place in the dataset's sample order, set by the runner (submissions follow it)
    prepared: list[Any] | None = None  # the images as the backend sends them (e.g. data URLs), set by `prepare`


def user_message(text: str, n_images: int) -> Message:
    """A user turn with `n_images` image placeholders followed by the text."""
    return {"role": "user", "content": [*({"type": "image"} for _ in range(n_images)), {"type": "text", "text": text}]}


def prompt_text(messages: Sequence[Message]) -> str:
    """The messages with images as placeholders, canonical JSON: what the request key hashes."""
    return json.dumps(list(messages), sort_keys=True, ensure_ascii=False, separators=(",", ":"))


class Task:
    """Base class of a benchmark task. Subclasses set `name`, `version` and override the hooks.

    Hooks:
      - `samples(limit, text_only)`: yield Samples in a fixed order (the raw log follows it).
      - `parse(response)`: raw model text -> prediction (a label, a dict, ...) or None when unreadable.
      - `repair(sample, response)`: messages for ONE formatting-only retry, or None when no retry is due.
        The runner sends them, and the retry's text replaces the first answer (both are logged).
      - `answer_text(label)`: how a baseline "says" a label, so baseline runs go through the parser.
      - `label_space()`: labels a random or fixed baseline may choose from.
      - `baseline_answer(sample, label)`: a baseline's text for one sample (default `answer_text(label)`);
        SafeRelBench needs the sample, since a baseline plan names the sample's objects.
      - `prediction_line(record, prediction)`: the submission line written from a raw-log record.
    `baseline_kinds` lists the baselines that make sense for the benchmark.
    """

    name: str = ""
    version: str = ""
    baseline_kinds: tuple[str, ...] = ("random", "majority", "fixed")

    def __init__(self, data: str | Path | None = None, config: str | None = None,
                 dataset_revision: str | None = None, variant: str | None = None) -> None:
        self.data = Path(data) if data is not None else None
        self.config = config
        self._dataset_revision = dataset_revision
        self.variant = variant

    # --- the declaration ------------------------------------------------------------------------
    def samples(self, *, limit: int | None = None, text_only: bool = False) -> Iterator[Request]:
        raise NotImplementedError

    def parse(self, response: str | None) -> Any:
        raise NotImplementedError

    def repair(self, sample: Request, response: str) -> list[Message] | None:
        return None

    def answer_text(self, label: Any) -> str:
        return str(label)

    def label_space(self) -> Sequence[Any]:
        raise NotImplementedError

    def baseline_answer(self, sample: Request, label: Any) -> str:
        return self.answer_text(label)

    def prediction_line(self, record: dict[str, Any], prediction: Any) -> dict[str, Any]:
        return generic_prediction_line(record, prediction)

    def run_settings(self) -> dict[str, Any]:
        """Task choices that change what is recorded for a sample (BD-HazardVLM: the retry policy): hashed into
        every request key beside the backend's settings, and recorded in metadata.json."""
        return {}

    def count(self, *, limit: int | None = None) -> int | None:
        """Number of samples, for the progress bar's ETA (None when unknown)."""
        return None

    # --- provenance -----------------------------------------------------------------------------
    def data_files(self) -> list[Path]:
        """Files whose bytes define the dataset revision when none is given."""
        return []

    @property
    def dataset_revision(self) -> str:
        """The given revision (a Hub tag or commit), else a content hash of the data files."""
        if self._dataset_revision is None:
            self._dataset_revision = content_revision(self.data_files())
        return self._dataset_revision


def generic_prediction_line(record: dict[str, Any], prediction: Any) -> dict[str, Any]:
    """`{"id", "prediction", "response"(, "variant")}` from a raw-log record: the MovSafeBench line."""
    line = {"id": record["id"], "prediction": prediction, "response": record.get("response") or ""}
    if record.get("variant") is not None:
        line["variant"] = record["variant"]
    return line


def content_revision(files: Sequence[Path]) -> str:
    """`sha256:<16 hex>` over the names and bytes of the data files: changes when the data change.

    Images stored in Parquet are part of its bytes; a JSON Lines task lists the image files it names among its
    data files (`MovSafeBenchTask.data_files`)."""
    digest = hashlib.sha256()
    for path in sorted(files, key=lambda p: p.name):
        digest.update(path.name.encode() + b"\0")
        with path.open("rb") as handle:
            for chunk in iter(lambda h=handle: h.read(1 << 20), b""):
                digest.update(chunk)
    return "sha256:" + digest.hexdigest()[:16]


def files_revision(files: Sequence[Path], base: Path) -> str:
    """`sha256:<16 hex>` over each file's path (relative to `base`) and sha256, the files hashed in parallel:
    a JSON Lines dataset's rows file and the images it names (thousands of files) without a serial read."""
    from concurrent.futures import ThreadPoolExecutor

    def one(path: Path) -> bytes:
        with path.open("rb") as handle:
            return hashlib.file_digest(handle, "sha256").digest()  # releases the GIL: threads hash in parallel

    with ThreadPoolExecutor(max_workers=8, thread_name_prefix="hazardkit-revision") as pool:
        digests = list(pool.map(one, files))
    digest = hashlib.sha256()
    for path, file_digest in zip(files, digests, strict=True):
        name = path.relative_to(base) if path.is_relative_to(base) else path.name  # never the machine's layout
        digest.update(str(name).encode("utf-8", "surrogateescape") + b"\0" + file_digest)
    return "sha256:" + digest.hexdigest()[:16]


def default_data(benchmark: str) -> Path:
    """The benchmark's local dataset folder when a task is built without `data` (see `Benchmark.default_data`)."""
    from eval_kit import registry

    return registry.get(benchmark).default_data()
