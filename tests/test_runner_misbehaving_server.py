"""`hazardkit eval -b openai` against a local server that misbehaves the way real ones do.

One sample whose request always fails (poison), 200 answers that are not usable (not JSON, no choices, no
content, content filtered), a slow sample, a dead server, and a SIGKILL mid-run then resume: every
non-poison sample ends with exactly one answer in the raw log, failures are logged with their reason, and
the submission follows the dataset's order.
"""

import json
import os
import re
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest
from click.testing import CliRunner

from builder.cli import cli
from eval_kit.testing.synthetic_datasets import write_jsonl
from tests.chat_stub import ChatStub, completion, last_text

pytest.importorskip("openai")

ROOT = Path(__file__).resolve().parents[1]


def tagged_data(folder: Path, n: int) -> tuple[Path, list[str]]:
    """MovSafeBench JSON Lines whose questions start with `[<id>]`, so the server knows which sample it serves."""
    path = write_jsonl(folder, n, seed=5)
    rows = [json.loads(x) for x in path.read_text().splitlines()]
    for row in rows:
        row["question"] = f"[{row['id']}] {row['question']}"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path, [r["id"] for r in rows]


def sample_of(body: dict) -> str:
    return re.match(r"\[([^\]]+)\]", last_text(body)).group(1)


def answer(body: dict) -> str:
    return "Answer: B"


def hk(data, out, url, *extra):
    return CliRunner().invoke(cli, ["eval", "movsafebench", "-m", "served", "-b", "openai", "--data", str(data),
                                    "--out", str(out), "--base-url", url, "--no-progress", "--retry-backoff", "0.01",
                                    *extra])


def raw(out: Path) -> list[dict]:
    """The complete lines of the raw log (a killed writer may have left a torn last one)."""
    lines = (out / "raw.jsonl").read_bytes().split(b"\n")[:-1]
    return [json.loads(x) for x in lines]


def answered_once(records: list[dict], ids: list[str]) -> bool:
    answers = [r["id"] for r in records if "error" not in r]
    return sorted(answers) == sorted(ids)


@pytest.fixture(scope="module")
def data(tmp_path_factory):
    return tagged_data(tmp_path_factory.mktemp("tagged"), 12)


def test_poison_malformed_and_slow_samples_do_not_stop_the_others(tmp_path, data):
    path, ids = data
    poison, never_json, slow = ids[1], ids[4], ids[0]
    flaky = {ids[2]: (200, "<html>502 Bad Gateway</html>"), ids[3]: (200, {"id": "x", "choices": []}),
             ids[5]: (200, completion("served", None)), ids[6]: (200, completion("served", "", "content_filter"))}

    def misbehave(body, nth):
        sample = sample_of(body)
        if sample == poison:
            return 500, {"error": {"message": "CUDA error: device-side assert", "type": "server_error"}}
        if sample == never_json:
            return 200, "upstream connect error or disconnect/reset before headers"
        if sample in flaky and nth == 1:  # malformed once, fine when asked again
            return flaky[sample]
        return None

    server = ChatStub(answer, misbehave=misbehave, delay=lambda b: 1.0 if sample_of(b) == slow else 0.02)
    with server:
        result = hk(path, tmp_path / "r", server.url, "--concurrency", "4", "--batch-size", "2",
                    "--max-retries", "2", "--max-failures", "3")
    assert result.exit_code == 3, result.output
    assert "2 sample(s) failed" in result.output and "Traceback" not in result.output
    assert f"HTTP 500: 'CUDA error: device-side assert' (after 3 attempts) (e.g. {poison})" in result.output
    assert "malformed response: the body is not JSON: 'upstream connect error" in result.output
    assert never_json in result.output
    records = raw(tmp_path / "r")
    assert answered_once(records, [i for i in ids if i not in (poison, never_json)])
    failures = {r["id"]: r for r in records if "error" in r}
    assert set(failures) == {poison, never_json} and {r["attempts"] for r in failures.values()} == {3}
    assert server.seen[last_text(next(b for b in server.requests if sample_of(b) == poison))] == 3
    assert all(server.seen[t] == 2 for t in server.seen if sample_of({"messages": [{"content": t}]}) in flaky)
    assert records[-1]["id"] == slow  # the slow sample did not hold the others back: it landed last
    predictions = [json.loads(x) for x in (tmp_path / "r/predictions.jsonl").read_text().splitlines()]
    assert [p["id"] for p in predictions] == ids  # dataset order
    assert {p["id"]: p["response"] for p in predictions}[poison] == ""
    meta = json.loads((tmp_path / "r/metadata.json").read_text())
    assert meta["extra"] == {"num_failed": 2, "failed_ids": [poison, never_json]}

    scored = CliRunner().invoke(cli, ["score", "run", str(tmp_path / "r"), "--json"])
    assert scored.exit_code == 0, scored.output
    result_json = json.loads(scored.stdout)
    assert result_json["failed"] == 2 and result_json["failed_ids"] == [poison, never_json]
    assert "2 sample(s) failed during the run and are scored as wrong" in scored.stderr

    with ChatStub(answer) as healed:  # the rerun asks only the two failed samples
        again = hk(path, tmp_path / "r", healed.url)
        assert sorted(sample_of(b) for b in healed.requests) == sorted([poison, never_json])
    assert again.exit_code == 0, again.output
    assert answered_once(raw(tmp_path / "r"), ids)
    assert "extra" not in json.loads((tmp_path / "r/metadata.json").read_text())


def test_malformed_bodies_are_recognised_with_an_excerpt():
    from eval_kit.runners.backends.openai_chat import MalformedResponse, message_content

    assert message_content(json.dumps(completion("m", "Answer: A"))) == "Answer: A"
    assert message_content(json.dumps(completion("m", ""))) == ""  # an empty answer is an answer (scored wrong)
    cases = {"<html>oops</html>": "not JSON: '<html>oops</html>'", "[]": "no choices",
             json.dumps({"choices": []}): "no choices", json.dumps({"choices": ["x"]}): "no choices",
             json.dumps(completion("m", None)): "no message content",
             json.dumps({"choices": [{"index": 0, "message": {"role": "assistant"}}]}): "no message content",
             json.dumps(completion("m", "", "content_filter")): "filtered the content",
             "x" * 500: "..."}
    for body, message in cases.items():
        with pytest.raises(MalformedResponse, match=re.escape(message)) as caught:
            message_content(body)
        assert len(str(caught.value)) < 220


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_dead_server_stops_early_and_clearly(tmp_path):
    path, ids = tagged_data(tmp_path / "d", 40)
    url = f"http://127.0.0.1:{_free_port()}/v1"  # nothing listens there
    started = time.monotonic()
    result = hk(path, tmp_path / "r", url, "--concurrency", "4", "--max-retries", "1", "--max-failures", "3")
    assert time.monotonic() - started < 20
    assert result.exit_code == 3, result.output
    assert "stopped early: " in result.output and "more than --max-failures 3 allows" in result.output
    assert "connection failed" in result.output and "is the server at" in result.output
    records = raw(tmp_path / "r")
    assert 4 <= len(records) <= 4 + 4 + 2 and all("error" in r for r in records)  # not 40 burnt samples
    with ChatStub(answer) as server:
        resumed = hk(path, tmp_path / "r", server.url)
    assert resumed.exit_code == 0, resumed.output
    assert answered_once(raw(tmp_path / "r"), ids)


def test_max_failures_takes_a_share():
    from eval_kit.errors import BadInput
    from eval_kit.runners.harness import FailureBudget

    assert FailureBudget.parse("5%").limit(200, 3) == 10 and FailureBudget.parse("0.05").limit(200, 3) == 10
    assert FailureBudget.parse("0").limit(None, 1) == 0 and FailureBudget.parse("7").limit(10, 1) == 7
    assert FailureBudget.parse("10%").limit(None, 5) == 2  # unknown size: of those tried, counted as >= 20
    for bad in ("ten", "150%", "1.5", "-1"):
        with pytest.raises(BadInput, match="--max-failures"):
            FailureBudget.parse(bad)


CHILD = """
import sys
from builder.cli import main
sys.exit(main(sys.argv[1:]))
"""


def test_sigkill_mid_run_then_resume(tmp_path):
    path, ids = tagged_data(tmp_path / "d", 30)
    poison = ids[7]

    def misbehave(body, nth):
        return (500, {"error": {"message": "poison"}}) if sample_of(body) == poison else None

    out = tmp_path / "r"
    args = ["eval", "movsafebench", "-m", "served", "-b", "openai", "--data", str(path), "--out", str(out),
            "--no-progress", "--concurrency", "3", "--max-retries", "1", "--retry-backoff", "0.01"]
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    with ChatStub(answer, misbehave=misbehave, delay=0.1) as server:
        child = subprocess.Popen([sys.executable, "-c", CHILD, *args, "--base-url", server.url], env=env,
                                 stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        deadline = time.monotonic() + 60
        while child.poll() is None and time.monotonic() < deadline:
            if (out / "raw.jsonl").exists() and (out / "raw.jsonl").read_bytes().count(b"\n") >= 10:
                break
            time.sleep(0.01)
        assert child.poll() is None, child.stderr.read().decode()
        child.send_signal(signal.SIGKILL)
        child.wait(timeout=30)
        partial = raw(out)
        assert 10 <= len(partial) < 30
        resumed = subprocess.run([sys.executable, "-c", CHILD, *args, "--base-url", server.url], env=env,
                                 capture_output=True, text=True, timeout=120)
    assert resumed.returncode == 3, resumed.stderr  # the poison sample still fails
    assert f"1 x HTTP 500: 'poison' (after 2 attempts) (e.g. {poison})" in resumed.stderr
    records = raw(out)
    assert answered_once(records, [i for i in ids if i != poison])  # nothing lost, nothing answered twice
    assert records[: len(partial)] == partial  # the killed run's lines were kept as they were
    predictions = [json.loads(x)["id"] for x in (out / "predictions.jsonl").read_text().splitlines()]
    assert predictions == ids
