"""`--batch-size auto` and out-of-memory batches, on CPU with an injected `torch.OutOfMemoryError`.

A batch backend that "fits" at most `capacity` samples raises torch's real out-of-memory error past it: auto
finds the largest power-of-two fraction of its start that fits (accelerate's `find_executable_batch_size`,
halving), records it in metadata.json, and a fixed batch that does not fit is split in halves, not into
single samples.
"""

import json

import pytest

from eval_kit import registry
from eval_kit.errors import BadInput
from eval_kit.runners import harness
from eval_kit.runners.backends.base import Backend
from eval_kit.testing.synthetic_datasets import write_jsonl
from tests.cli_helpers import invoke

torch = pytest.importorskip("torch")
pytest.importorskip("accelerate")


class Tight(Backend):
    """A batch backend with room for `capacity` samples per generate call; more raise CUDA's out-of-memory."""

    name = "tight"

    def __init__(self, capacity: int) -> None:
        self.capacity = capacity
        self.calls: list[int] = []

    def settings(self):
        return {}

    def generate(self, samples):
        self.calls.append(len(samples))
        if len(samples) > self.capacity:
            raise torch.OutOfMemoryError("CUDA out of memory. Tried to allocate 2.00 GiB (GPU 0; injected)")
        return [f"Answer: B ({s.id})" for s in samples]


@pytest.fixture(scope="module")
def data(tmp_path_factory):
    return write_jsonl(tmp_path_factory.mktemp("data"), 150, seed=6)


def _run(data, out, backend, batch_size):
    task = registry.make_task("movsafebench", data=data)
    return harness.run(task, backend, out, model="m", batch_size=batch_size, progress=False)


def test_auto_finds_the_largest_batch_that_fits_and_records_it(tmp_path, data):
    backend = Tight(capacity=20)
    summary = _run(data, tmp_path / "r", backend, "auto")
    total = summary.total
    assert summary.generated == total and summary.failed == 0
    start = min(harness.AUTO_BATCH_START, total)
    assert backend.calls[:3] == [start, start // 2, start // 4]  # 64 and 32 do not fit; 16 does
    assert max(backend.calls[3:]) == 16 and sum(backend.calls[2:]) == total  # then batches of 16, each once
    meta = json.loads((tmp_path / "r/metadata.json").read_text())
    assert meta["batch_size"] == 16
    ids = [json.loads(x)["id"] for x in (tmp_path / "r/predictions.jsonl").read_text().splitlines()]
    assert len(ids) == len(set(ids)) == total  # nothing lost or repeated by the retries


def test_auto_with_room_for_everything_keeps_the_start(tmp_path, data):
    backend = Tight(capacity=1000)
    _run(data, tmp_path / "r", backend, "auto")
    assert backend.calls[0] == harness.AUTO_BATCH_START
    assert json.loads((tmp_path / "r/metadata.json").read_text())["batch_size"] == harness.AUTO_BATCH_START


def test_a_batch_out_of_memory_is_split_in_halves_not_single_samples(tmp_path, data):
    backend = Tight(capacity=10)
    summary = _run(data, tmp_path / "r", backend, 32)
    assert summary.failed == 0
    assert backend.calls[:7] == [32, 16, 8, 8, 16, 8, 8]  # was 32 then 32 calls of one sample
    assert 1 not in backend.calls
    assert json.loads((tmp_path / "r/metadata.json").read_text())["batch_size"] == 32


def test_not_even_one_sample_fits_fails_the_samples_with_the_reason(tmp_path, data):
    backend = Tight(capacity=0)
    task = registry.make_task("movsafebench", data=data)
    summary = harness.run(task, backend, tmp_path / "r", model="m", batch_size="auto", progress=False, limit=4,
                          max_failures=harness.FailureBudget(count=100))
    assert summary.failed == 4 and summary.generated == 0
    assert all("OutOfMemoryError" in f["error"] for f in summary.failures)


def test_batch_size_values(tmp_path, data):
    assert harness.BatchSize.parse("auto").auto and harness.BatchSize.parse("AUTO").size == harness.AUTO_BATCH_START
    assert harness.BatchSize.parse("12").size == 12
    for bad in ("0", "-3", "big", "1.5"):
        with pytest.raises(BadInput, match="--batch-size"):
            harness.BatchSize.parse(bad)
    code, text = invoke("eval", "movsafebench", "-m", "random", "-b", "baseline", "--data", data, "--out",
                        tmp_path / "r", "--batch-size", "lots", "--no-progress")
    assert code == 2 and "--batch-size" in text and not (tmp_path / "r").exists(), text
    code, text = invoke("eval", "movsafebench", "-m", "random", "-b", "baseline", "--data", data, "--out",
                        tmp_path / "r", "--batch-size", "auto", "--limit", "5", "--no-progress")
    assert code == 0, text
    assert json.loads((tmp_path / "r/metadata.json").read_text())["batch_size"] == 5  # all there were, at once
