"""Every part of the toy benchmark: task, parser, references, scorer, report, checker, board and command."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import click

from eval_kit.errors import BadInput
from eval_kit.jsonl import iter_jsonl
from eval_kit.leaderboard.boards import Board
from eval_kit.leaderboard.checker import SubmissionChecker
from eval_kit.runners.task import Request, Task, content_revision, user_message
from eval_kit.tables import check_coverage, read_predictions

LABELS = ("even", "odd")
CITATION = "@misc{toybench, title = {ToyBench}}"


def parse(response: str | None) -> str | None:
    words = (response or "").lower().split()
    found = [w for w in words if w in LABELS]
    return found[-1] if found else None


def load_references(path: str | Path, config: str | None = None) -> dict[str, dict[str, Any]]:
    return {obj["id"]: obj for _, obj in iter_jsonl(path)}


class ParityTask(Task):
    name = "toybench"
    version = "1.0"

    def samples(self, *, limit=None, text_only=False):
        for n, ref in enumerate(load_references(self.data).values()):
            if limit is not None and n >= limit:
                return
            yield Request(id=ref["id"], messages=[user_message(f"Is {ref['number']} even or odd?", 0)],
                          label=ref["answer"])

    def parse(self, response):
        return parse(response)

    def label_space(self):
        return LABELS

    def count(self, *, limit=None):
        return len(load_references(self.data))

    def data_files(self):
        return [self.data]


def _score(refs: dict[str, dict], labels: dict[str, str | None]) -> dict[str, Any]:
    ids = [i for i in refs if i in labels]
    correct = [labels[i] == refs[i]["answer"] for i in ids]
    return {"benchmark": "toybench", "num_samples": len(ids), "accuracy": sum(correct) / max(1, len(ids)),
            "ci95": [0.0, 1.0], "per_sample": {"id": ids, "correct": correct}}


def score_run(task: ParityTask, predictions: Path, *, n_bootstrap: int = 1000, seed: int = 0) -> dict[str, Any]:
    preds = read_predictions(predictions, "toybench_prediction")
    labels = {i: obj.get("prediction") or parse(obj.get("response")) for i, (_, obj) in preds.items()}
    return _score(load_references(task.data), labels)


def score_files(references: Path, predictions: Path, **_: Any) -> dict[str, Any]:
    refs = load_references(references)
    preds = read_predictions(predictions, "toybench_prediction")
    check_coverage(preds, refs, predictions, allow_missing=False)
    return _score(refs, {i: obj.get("prediction") or parse(obj.get("response")) for i, (_, obj) in preds.items()})


def render_tables(result: dict[str, Any]) -> str:
    return f"ToyBench accuracy {100 * result['accuracy']:.1f}% on {result['num_samples']} samples\n"


def board() -> Board:
    return Board(benchmark="toybench", title="ToyBench", headline_label="Parity accuracy")


class ParityChecker(SubmissionChecker):
    benchmark = "toybench"
    versions = ("1.0",)
    prediction_schema = "toybench_prediction"

    def reference_ids(self, references: Path, config: str | None) -> set[str]:
        return set(load_references(references))

    def reference_revision(self, references: Path, config: str | None) -> str:
        return content_revision([Path(references)])

    def label_problem(self, obj: dict[str, Any]):
        value = obj.get("prediction")
        if isinstance(value, str) and value not in LABELS:
            return "prediction", f"{value!r} is not a ToyBench answer", "use even / odd"
        return None


@click.command()
@click.option("--references", "-r", required=True, type=click.Path(path_type=Path))
@click.option("--predictions", "-p", required=True, type=click.Path(path_type=Path))
@click.option("--json", "as_json", is_flag=True)
def score_toybench(references: Path, predictions: Path, as_json: bool) -> None:
    """Score ToyBench predictions."""
    if not references.exists():
        raise BadInput("file not found", path=references)
    result = score_files(references, predictions)
    click.echo(json.dumps(result) if as_json else render_tables(result), nl=as_json)
