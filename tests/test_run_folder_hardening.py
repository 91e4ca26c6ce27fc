"""Run folders that were tampered with, and images that cannot be decoded (issue 21 item 7).

A planted `.hazardkit.lock` or `raw.jsonl` link never redirects a write; a raw log that is a FIFO, a link to
/dev/zero or deeply nested JSON is one line of bad input (exit 2) on resume and in `score run`, never a hang or
an internal error; an undecodable image or a decompression bomb fails its sample (exit 3), the others run.
"""

from __future__ import annotations

import io
import json
import os
import threading
from pathlib import Path

import pytest
from click.testing import CliRunner

from builder.cli import cli
from eval_kit.errors import BadInput
from eval_kit.folder_lock import LOCK_NAME, folder_lock
from eval_kit.testing.synthetic_datasets import write_jsonl


def hk(*args) -> tuple[int, str]:
    result = CliRunner().invoke(cli, [str(a) for a in args])
    return result.exit_code, result.output


def baseline(data: Path, out: Path) -> tuple[int, str]:
    return hk("eval", "movsafebench", "-m", "fixed:left", "-b", "baseline", "--data", data, "--out", out,
              "--no-progress")


@pytest.fixture
def data(tmp_path):
    return write_jsonl(tmp_path / "data", 4)


@pytest.fixture
def victim(tmp_path):
    path = tmp_path / "victim.txt"
    path.write_text("precious\n")
    return path


def one_line_bad_input(code: int, text: str) -> bool:
    return code == 2 and "Traceback" not in text and len(text.strip().splitlines()) == 1


# --- links planted in the run folder ---------------------------------------------------------------------

def test_a_planted_lock_link_is_refused_not_written_through(tmp_path, data, victim):
    out = tmp_path / "run"
    out.mkdir()
    (out / LOCK_NAME).symlink_to(victim)
    code, text = baseline(data, out)
    assert one_line_bad_input(code, text) and "symbolic link" in text and LOCK_NAME in text, text
    assert victim.read_text() == "precious\n" and (out / LOCK_NAME).is_symlink()
    # the same helper guards forge run, publish and reconstruct; a hard link to another file is refused too
    (out / LOCK_NAME).unlink()
    os.link(victim, out / LOCK_NAME)
    with pytest.raises(BadInput, match="hard link"), folder_lock(out, "forge run"):
        pass
    assert victim.read_text() == "precious\n"


def test_publish_style_sibling_locks_refuse_links_too(tmp_path, victim):
    """`publish` locks `.<name>.hazardkit.lock` beside the dataset folder it swaps: the same helper, the same rule."""
    (tmp_path / ".movsafebench.hazardkit.lock").symlink_to(victim)
    with pytest.raises(BadInput, match="symbolic link"), \
            folder_lock(tmp_path, "publish movsafebench", lock_name=".movsafebench.hazardkit.lock"):
        pass
    assert victim.read_text() == "precious\n"


def test_a_planted_raw_log_link_is_refused_not_truncated_or_appended(tmp_path, data, victim):
    out = tmp_path / "run"
    out.mkdir()
    (out / "raw.jsonl").symlink_to(victim)
    code, text = baseline(data, out)
    assert one_line_bad_input(code, text) and "raw log is a symbolic link" in text, text
    assert victim.read_text() == "precious\n"
    code, text = hk("score", "run", out)
    assert code == 2 and "Traceback" not in text


def test_planted_output_links_are_replaced_never_written_through(tmp_path, data, victim):
    out = tmp_path / "run"
    out.mkdir()
    for name in ("predictions.jsonl", "metadata.json", "run.json"):
        (out / name).symlink_to(victim)
    (out / "run.json").unlink()  # run.json is read first: a link there would be refused as another run's file
    code, text = baseline(data, out)
    assert code == 0, text
    assert victim.read_text() == "precious\n"
    assert not (out / "predictions.jsonl").is_symlink() and not (out / "metadata.json").is_symlink()
    assert len((out / "predictions.jsonl").read_text().splitlines()) == 4


# --- a raw log that is not what it seems -----------------------------------------------------------------

@pytest.fixture
def finished(tmp_path, data):
    out = tmp_path / "run"
    assert baseline(data, out)[0] == 0
    return out


def _resume_and_score(data: Path, out: Path) -> list[tuple[int, str]]:
    """Resume the run and score it, each on a thread with a bound (a FIFO used to block forever)."""
    results: list[tuple[int, str]] = []

    def go():
        results.append(baseline(data, out))
        results.append(hk("score", "run", out))

    worker = threading.Thread(target=go, daemon=True)
    worker.start()
    worker.join(timeout=60)
    assert not worker.is_alive(), "a command hung on the raw log"
    return results


def test_a_fifo_raw_log_is_one_line_of_bad_input(finished, data):
    (finished / "raw.jsonl").unlink()
    os.mkfifo(finished / "raw.jsonl")
    for code, text in _resume_and_score(data, finished):
        assert code == 2 and "Traceback" not in text and "FIFO" in text, text


def test_a_raw_log_linked_to_dev_zero_is_one_line_of_bad_input(finished, data):
    (finished / "raw.jsonl").unlink()
    (finished / "raw.jsonl").symlink_to("/dev/zero")
    for code, text in _resume_and_score(data, finished):
        assert code == 2 and "Traceback" not in text and "raw log" in text, text


def test_deep_nesting_in_the_raw_log_names_its_line(finished, data):
    lines = (finished / "raw.jsonl").read_text().splitlines()
    lines.insert(1, "[" * 100_000 + "]" * 100_000)
    (finished / "raw.jsonl").write_text("\n".join(lines) + "\n")
    for code, text in _resume_and_score(data, finished):
        assert one_line_bad_input(code, text) and "line 2" in text and "nested deeper" in text, text


# --- images that cannot be used ---------------------------------------------------------------------------

def _bad_images(folder: Path) -> tuple[Path, dict[str, str]]:
    """JSON Lines whose first three images are: truncated PNG data, a decompression bomb, not an image."""
    from PIL import Image

    path = write_jsonl(folder, 6)
    rows = [json.loads(x) for x in path.read_text().splitlines()]
    good = (folder / rows[0]["image"]).read_bytes()
    (folder / rows[0]["image"]).write_bytes(good[: len(good) // 2])
    bomb = io.BytesIO()
    Image.new("1", (10_000, 10_000)).save(bomb, format="PNG")  # 100 MP of zeros in a few KB
    (folder / rows[1]["image"]).write_bytes(bomb.getvalue())
    (folder / rows[2]["image"]).write_bytes(b"GIF89a not really")
    return path, {rows[0]["id"]: "undecodable image", rows[1]["id"]: "pixel bound", rows[2]["id"]: "unreadable image"}


class RecordingBatchBackend:
    """A batch backend (like transformers / vLLM) that records what `generate` received, and when."""

    def __new__(cls, *args, **kwargs):
        from eval_kit.runners.backends.base import Backend

        class Recording(Backend):
            name = "recording"

            def __init__(self, wait_for_prefetch: bool = False) -> None:
                self.received: list = []
                self.prepared_on: set[str] = set()
                self.prepared_ids: list[str] = []
                self.prefetched_during_generate = False
                self._next = threading.Event()
                self.wait_for_prefetch = wait_for_prefetch

            def settings(self):
                return {}

            def prepare(self, sample):
                self.prepared_on.add(threading.current_thread().name)
                self.prepared_ids.append(sample.id)
                sample = super().prepare(sample)
                if len(self.prepared_ids) > 2:
                    self._next.set()  # a sample of a later batch is being prepared
                return sample

            def generate(self, samples):
                if self.wait_for_prefetch and not self.received:
                    # the first batch's generate waits until a later batch is prepared: only a prefetch can do it
                    self.prefetched_during_generate = self._next.wait(timeout=20)
                self.received.extend(img for s in samples for img in s.images)
                return ["A. go left" for _ in samples]

        return Recording(*args, **kwargs)


def test_batch_backends_get_decoded_images_prefetched_off_the_main_thread(tmp_path, data):
    from eval_kit import registry
    from eval_kit.runners import harness

    backend = RecordingBatchBackend(wait_for_prefetch=True)
    task = registry.make_task("movsafebench", data=data)
    summary = harness.run(task, backend, tmp_path / "run", model="rec", batch_size=2, progress=False)
    assert summary.generated == 4 and summary.failed == 0
    assert backend.prefetched_during_generate  # batch 2 was prepared while batch 1 was being generated
    assert threading.main_thread().name not in backend.prepared_on
    assert all(img.mode == "RGB" and not img.tile for img in backend.received)  # decoded (no tiles left to read)


def test_unusable_images_fail_their_samples_in_batch_backends(tmp_path):
    from eval_kit import registry
    from eval_kit.runners import harness

    path, expected = _bad_images(tmp_path / "bad")
    backend = RecordingBatchBackend()
    summary = harness.run(registry.make_task("movsafebench", data=path), backend, tmp_path / "run", model="rec",
                          batch_size=4, progress=False)
    assert summary.failed == 3 and summary.generated == 3 and len(backend.received) == 3
    reasons = {r["id"]: r["error"] for r in summary.failures}
    assert all(expected[i] in reasons[i] for i in expected), reasons


def test_unusable_images_fail_their_samples_in_eval_with_exit_3(tmp_path, monkeypatch):
    pytest.importorskip("httpx")
    from tests.chat_stub import ChatStub

    path, expected = _bad_images(tmp_path / "bad")
    with ChatStub(lambda body: "Answer: A") as server:
        code, text = hk("eval", "movsafebench", "-m", "served", "-b", "openai", "--data", path, "--out",
                        tmp_path / "run", "--base-url", server.url, "--no-progress", "--max-retries", "0")
    assert code == 3 and "3 sample(s) failed" in text and "Traceback" not in text, text
    assert len(server.requests) == 3  # the other samples were asked
    records = {r["id"]: r for r in map(json.loads, (tmp_path / "run/raw.jsonl").read_text().splitlines())}
    assert all(expected[i] in records[i]["error"] for i in expected)


def test_the_leaderboard_table_lock_is_never_opened_through_a_link(tmp_path, victim):
    from eval_kit.leaderboard.results import table_lock

    table = tmp_path / "board" / "results.parquet"
    table.parent.mkdir()
    dangling = tmp_path / "would-be-created"
    (table.parent / ".results.parquet.lock").symlink_to(dangling)
    with pytest.raises(BadInput, match="symbolic link"), table_lock(table):
        pass
    assert not dangling.exists()  # opening through the link would have created it
    (table.parent / ".results.parquet.lock").unlink()
    with table_lock(table):  # a plain lock file works as before
        pass
    assert victim.read_text() == "precious\n"
