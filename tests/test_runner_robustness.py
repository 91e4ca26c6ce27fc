"""Runs that never keep a stale answer, stop at once on Ctrl-C, stream big shards and refuse bad input in one line.

Each case of issue 36 item 5 with a crafted file or a server on 127.0.0.1: a replaced image, Ctrl-C with slow
requests, a 50,000-row single-row-group shard (peak RSS), an image cell naming a file outside the dataset, a
corrupt data page, raw-log fields of the wrong type, a dataset without rows.
"""

import io
import json
import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from eval_kit import registry
from eval_kit.runners import harness
from eval_kit.runners.backends.base import Backend
from eval_kit.testing.synthetic_datasets import png, write_jsonl, write_parquet_folder
from tests.chat_stub import ChatStub
from tests.cli_helpers import invoke
from tests.test_runner_misbehaving_server import CHILD, ROOT, answer, raw, sample_of, tagged_data


class ColourBackend(Backend):
    """Answers with the colour of each image's top-left marker, so an answer shows which image it was given."""

    name = "colour"

    def __init__(self) -> None:
        self.asked: list[str] = []

    def settings(self):
        return {}

    def generate(self, samples):
        self.asked += [s.id for s in samples]
        return [f"colour {s.images[0].getpixel((8, 8))}" for s in samples]


def _baseline(data, out, *extra):
    return invoke("eval", "movsafebench", "-m", "fixed:left", "-b", "baseline", "--data", data, "--out", out,
                  "--no-progress", *extra)


# --- stale answers -----------------------------------------------------------------------------------------
def test_replaced_image_changes_the_jsonl_revision_and_is_never_resumed(tmp_path):
    data = write_jsonl(tmp_path / "d", 6, seed=2)
    first = [json.loads(x) for x in data.read_text().splitlines()]
    code, text = _baseline(data, tmp_path / "r")
    assert code == 0, text
    before = json.loads((tmp_path / "r/metadata.json").read_text())["dataset_revision"]
    (data.parent / first[2]["image"]).write_bytes(png("right" if first[2]["answer"] != "right" else "left"))
    code, text = _baseline(data, tmp_path / "r")  # the old folder: refused, not resumed with the old answers
    assert code == 2 and "dataset_revision" in text and "resumed" not in text, text
    code, text = _baseline(data, tmp_path / "r2")
    assert code == 0, text
    assert json.loads((tmp_path / "r2/metadata.json").read_text())["dataset_revision"] != before


def test_replaced_image_is_asked_again_whatever_revision_is_given(tmp_path):
    """With a fixed --dataset-revision (a Hub tag), each request key still hashes its images' bytes."""
    data = write_jsonl(tmp_path / "d", 6, seed=2)
    rows = [json.loads(x) for x in data.read_text().splitlines()]

    def go(path, out):
        task = registry.make_task("movsafebench", data=path, dataset_revision="v1.0.0")
        backend = ColourBackend()
        summary = harness.run(task, backend, out, model="m", progress=False)
        return summary, backend

    summary, _ = go(data, tmp_path / "r")
    assert summary.generated == 6
    image = data.parent / rows[4]["image"]
    image.write_bytes(png("left" if rows[4]["answer"] != "left" else "right"))
    summary, backend = go(data, tmp_path / "r")
    assert summary.skipped == 5 and backend.asked == [rows[4]["id"]]
    latest = harness.latest_records(raw(tmp_path / "r"))
    from PIL import Image

    assert latest[4]["response"] == f"colour {Image.open(image).convert('RGB').getpixel((8, 8))}"


# --- Ctrl-C -----------------------------------------------------------------------------------------------
def test_ctrl_c_with_slow_requests_stops_at_once_and_keeps_every_answer(tmp_path):
    path, ids = tagged_data(tmp_path / "d", 12)
    slow = set(ids[6:])  # these hang for a minute; the first six answer at once

    def delay(body):
        return 60.0 if sample_of(body) in slow else 0.0

    out = tmp_path / "r"
    args = ["eval", "movsafebench", "-m", "served", "-b", "openai", "--data", str(path), "--out", str(out),
            "--no-progress", "--concurrency", "4", "--timeout", "60"]
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    with ChatStub(answer, delay=delay) as server:
        child = subprocess.Popen([sys.executable, "-c", CHILD, *args, "--base-url", server.url], env=env,
                                 stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        try:
            deadline = time.monotonic() + 60
            while time.monotonic() < deadline and child.poll() is None:
                if (out / "raw.jsonl").exists() and len(raw(out)) >= 6 and server.in_flight >= 4:
                    break
                time.sleep(0.02)
            assert child.poll() is None, child.communicate()
            lock = out / ".hazardkit.lock"
            assert lock.exists()
            interrupted = time.monotonic()
            child.send_signal(signal.SIGINT)
            _, stderr = child.communicate(timeout=30)
            took = time.monotonic() - interrupted
        finally:
            if child.poll() is None:
                child.kill()
    assert took < 2.0, f"{took:.1f} s after Ctrl-C"  # was up to --timeout (54 s of 60)
    assert child.returncode == 130 and "Traceback" not in stderr, stderr
    assert not lock.exists()
    kept = raw(out)
    assert sorted(r["id"] for r in kept) == sorted(ids[:6])  # every finished answer, no failure for the cut ones
    assert all("error" not in r for r in kept)
    # the rerun asks only the rest, once each
    with ChatStub(answer) as server:
        resumed = subprocess.run([sys.executable, "-c", CHILD, *args, "--base-url", server.url], env=env,
                                 capture_output=True, text=True, timeout=120)
    assert resumed.returncode == 0, resumed.stderr
    assert sorted(sample_of(b) for b in server.requests) == sorted(ids[6:])
    records = raw(out)
    assert sorted(r["id"] for r in records) == sorted(ids)  # nothing lost, nothing duplicated


def test_second_ctrl_c_exits_quietly(tmp_path):
    path, _ = tagged_data(tmp_path / "d", 8)
    out = tmp_path / "r"
    args = ["eval", "movsafebench", "-m", "served", "-b", "openai", "--data", str(path), "--out", str(out),
            "--no-progress", "--concurrency", "2"]
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    with ChatStub(answer, delay=30.0) as server:
        child = subprocess.Popen([sys.executable, "-c", CHILD, *args, "--base-url", server.url], env=env,
                                 stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        try:
            deadline = time.monotonic() + 60
            while time.monotonic() < deadline and server.in_flight < 2:
                time.sleep(0.02)
            child.send_signal(signal.SIGINT)
            child.send_signal(signal.SIGINT)
            _, stderr = child.communicate(timeout=30)
        finally:
            if child.poll() is None:
                child.kill()
    assert child.returncode == 130 and "Traceback" not in stderr, stderr
    assert raw(out) == []


# --- memory -----------------------------------------------------------------------------------------------
PEAK = """
import json, resource, sys
from eval_kit import registry
from eval_kit.runners import harness
from eval_kit.runners.backends.baseline import BaselineBackend

def peak():
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024

import pyarrow.parquet, PIL.Image, PIL.PngImagePlugin, eval_kit.parquet, eval_kit.runners.images  # what reading imports
task = registry.make_task("movsafebench", data=sys.argv[1])
start = peak()  # before any row is read
summary = harness.run(task, BaselineBackend("fixed:left", task), sys.argv[2], model="fixed:left", limit=96,
                      batch_size=32, progress=False)
after_run = peak()
n = sum(1 for _ in task.rows())  # every row, its image bytes included
print(json.dumps({"start": start, "after_run": after_run, "end": peak(), "n": n, "generated": summary.generated}))
"""


def _single_row_group_shard(path: Path, rows: int) -> int:
    """`rows` MovSafeBench rows with ~4.9 KB incompressible PNGs, all in ONE row group, no dictionary and no
    compression (so the file is as big as its images). Returns the file size."""
    from PIL import Image

    rng = random.Random(0)
    pictures = []
    for _ in range(64):
        buffer = io.BytesIO()
        Image.frombytes("RGB", (40, 40), rng.randbytes(40 * 40 * 3)).save(buffer, format="PNG")
        pictures.append(buffer.getvalue())
    image_type = pa.struct([("bytes", pa.binary()), ("path", pa.string())])
    table = pa.table({"id": [f"s{i:06d}" for i in range(rows)],
                      "image": pa.array([{"bytes": pictures[i % 64], "path": None} for i in range(rows)], image_type),
                      "question": ["Which way is safe? A. go left B. go straight C. go right"] * rows,
                      "answer": ["left"] * rows})
    pq.write_table(table, path, row_group_size=rows, use_dictionary=False, compression="none")
    return path.stat().st_size


@pytest.mark.skipif(sys.platform != "linux", reason="ru_maxrss is in KiB on Linux")
def test_memory_follows_the_batch_not_a_50000_row_single_row_group(tmp_path):
    shard = tmp_path / "big.parquet"
    size_mb = _single_row_group_shard(shard, 50_000) / 2**20
    assert pq.ParquetFile(shard).metadata.num_row_groups == 1 and size_mb > 200
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    done = subprocess.run([sys.executable, "-c", PEAK, str(shard), str(tmp_path / "run")], env=env,
                          capture_output=True, text=True, timeout=180)
    assert done.returncode == 0, done.stderr
    peaks = json.loads(done.stdout)
    assert peaks["n"] == 50_000 and peaks["generated"] == 96
    # the whole row group in memory (pyarrow's pre_buffer, an unbuffered column chunk) would add the file's
    # ~240 MB; streaming batches of 32 rows adds tens of MB (allocator caches included)
    assert peaks["after_run"] - peaks["start"] < 100, peaks
    assert peaks["end"] - peaks["start"] < 120, peaks
    shard.unlink()


# --- image paths ------------------------------------------------------------------------------------------
def _parquet_with_image_cell(path: Path, cell: dict) -> Path:
    image_type = pa.struct([("bytes", pa.binary()), ("path", pa.string())])
    table = pa.table({"id": ["a"], "image": pa.array([cell], image_type), "question": ["Which way? A B C"],
                      "answer": ["left"]})
    path.parent.mkdir(parents=True, exist_ok=True)
    pq.write_table(table, path)
    return path


def test_image_cell_naming_a_file_outside_the_dataset_is_refused(tmp_path):
    secret = tmp_path / "outside" / "secret.png"
    secret.parent.mkdir()
    secret.write_bytes(png("left"))
    with ChatStub(answer) as server:
        for name, cell in (("absolute", {"bytes": None, "path": str(secret)}),
                           ("dotdot", {"bytes": None, "path": "../outside/secret.png"})):
            data = _parquet_with_image_cell(tmp_path / name / "test.parquet", cell)
            code, text = invoke("eval", "movsafebench", "-m", "served", "-b", "openai", "--data", data, "--out",
                                tmp_path / f"r-{name}", "--base-url", server.url, "--no-progress")
            assert code == 2 and "outside the dataset folder" in text and len(text.strip().splitlines()) == 1, text
        # a link inside the dataset folder that points out of it
        linked = tmp_path / "linked"
        linked.mkdir()
        (linked / "img.png").symlink_to(secret)
        (linked / "refs.jsonl").write_text(json.dumps({"id": "a", "image": "img.png", "question": "Which way?",
                                                        "answer": "left"}) + "\n")
        code, text = invoke("eval", "movsafebench", "-m", "served", "-b", "openai", "--data", linked / "refs.jsonl",
                            "--out", tmp_path / "r-link", "--base-url", server.url, "--no-progress")
        assert code == 2 and "outside the dataset folder" in text, text
    assert server.requests == []  # nothing was sent
    inside = _parquet_with_image_cell(tmp_path / "inside" / "test.parquet", {"bytes": None, "path": "img.png"})
    (inside.parent / "img.png").write_bytes(png("left"))
    code, text = _baseline(inside, tmp_path / "r-inside")
    assert code == 0, text  # a relative path inside the dataset folder is fine


# --- corrupt or malformed files ---------------------------------------------------------------------------
def _corrupt_a_data_page(path: Path, column: str = "image") -> None:
    """Overwrite the header of a column chunk's first data page (the footer stays intact and readable)."""
    meta = pq.ParquetFile(path).metadata
    group = meta.row_group(0)
    chunk = next(group.column(i) for i in range(group.num_columns) if group.column(i).path_in_schema.startswith(column))
    with open(path, "r+b") as handle:
        handle.seek(chunk.data_page_offset)
        handle.write(b"\xff" * 24)
    pq.ParquetFile(path).metadata  # noqa: B018  (the footer still reads)


def test_corrupt_data_page_is_one_line_in_eval_score_and_validate(tmp_path):
    folder = write_parquet_folder(tmp_path / "d", 12, seed=3)
    shard = next((folder / "data").rglob("*.parquet"))
    preds = tmp_path / "preds.jsonl"
    rows = pq.read_table(shard, columns=["id"]).column("id").to_pylist()
    preds.write_text("".join(json.dumps({"id": i, "prediction": "left"}) + "\n" for i in rows))
    _corrupt_a_data_page(shard, "image")
    code, text = _baseline(folder, tmp_path / "r", "--config", "demo")
    assert code == 2 and "corrupt Parquet data" in text and len(text.strip().splitlines()) == 1, text
    _corrupt_a_data_page(shard, "answer")
    for command in ("score", "validate"):
        code, text = invoke(command, "movsafebench", "-r", folder, "--config", "demo", "-p", preds)
        assert code == 2 and "corrupt Parquet data" in text and "Traceback" not in text, (command, text)


@pytest.mark.parametrize("field,value", [("index", "3"), ("index", None), ("index", -1), ("response", 42),
                                         ("error", ["x"])])
def test_raw_log_with_fields_of_the_wrong_type_is_one_line(tmp_path, field, value):
    data = write_jsonl(tmp_path / "d", 4, seed=4)
    code, text = _baseline(data, tmp_path / "r")
    assert code == 0, text
    log = tmp_path / "r/raw.jsonl"
    records = [json.loads(x) for x in log.read_text().splitlines()]
    records[1][field] = value
    if field == "error":
        records[1].pop("response")
    log.write_text("".join(json.dumps(r) + "\n" for r in records))
    for args in (["eval", "movsafebench", "-m", "fixed:left", "-b", "baseline", "--data", data, "--out",
                  tmp_path / "r", "--no-progress"], ["score", "run", tmp_path / "r"]):
        code, text = invoke(*args)
        assert code == 2 and "raw.jsonl" in text and field in text and len(text.strip().splitlines()) == 1, text


def test_dataset_without_rows_is_one_line(tmp_path):
    empty = tmp_path / "empty.jsonl"
    empty.write_text("\n")
    code, text = _baseline(empty, tmp_path / "r")
    assert code == 2 and "empty" in text and len(text.strip().splitlines()) == 1, text
    source = write_parquet_folder(tmp_path / "d", 3, seed=1)
    shard = next((source / "data").rglob("*.parquet"))
    table = pq.read_table(shard)
    pq.write_table(table.slice(0, 0), shard)
    code, text = _baseline(source, tmp_path / "r2", "--config", "demo")
    assert code == 2 and "no samples" in text and len(text.strip().splitlines()) == 1, text
    assert not (tmp_path / "r2").exists()  # refused before anything is written
