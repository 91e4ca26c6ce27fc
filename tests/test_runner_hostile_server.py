"""No server can hang, bloat or crash a run (issue 21 item 7), against a hostile server on 127.0.0.1.

One run meets every attack at once (slowloris, slow headers, endless chunked body, gzip bomb, oversized
answer, lone surrogate) beside normal samples, in a child process so its peak memory can be read: it ends
within its `--timeout` bound, the normal samples are answered, every attack is a failed sample with its reason
(the surrogate answer is stored losslessly instead), and memory stays bounded.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from click.testing import CliRunner

from builder.cli import cli
from tests.hostile_server import HostileServer
from tests.test_runner_misbehaving_server import tagged_data

pytest.importorskip("httpx")

ROOT = Path(__file__).resolve().parents[1]
ATTACKS = ("slowloris", "slow_headers", "endless_body", "gzip_bomb", "oversized", "surrogate")


@pytest.fixture(scope="module")
def data(tmp_path_factory):
    return tagged_data(tmp_path_factory.mktemp("hostile"), 9)


def eval_args(data: Path, out: Path, url: str, *extra: str) -> list[str]:
    return ["eval", "movsafebench", "-m", "served", "-b", "openai", "--data", str(data), "--out", str(out),
            "--base-url", url, "--no-progress", "--max-retries", "0", "--timeout", "2", "--concurrency", "9",
            "--max-failures", "50", *extra]


def records(out: Path) -> dict[str, dict]:
    return {r["id"]: r for r in map(json.loads, (out / "raw.jsonl").read_text(encoding="utf-8").splitlines())}


# the child's own peak resident memory since its exec (VmHWM), written when it exits. Not wait4's ru_maxrss:
# Linux carries the parent's peak into a (v)forked child's ru_maxrss across exec, so inside a long pytest run
# it reports the test process's size (1.3 GB seen), not the child's
REPORT_PEAK = """
import atexit, sys
peak_file = sys.argv.pop(1)
def report():
    with open('/proc/self/status') as status, open(peak_file, 'w') as out:
        out.write(next(line for line in status if line.startswith('VmHWM')))
atexit.register(report)
from builder.cli import main
sys.argv[0] = 'hazardkit'
sys.exit(main())
"""


def test_every_attack_ends_within_its_bound_and_the_others_are_answered(tmp_path, data):
    path, ids = data
    behaviours = dict(zip(ids, ATTACKS, strict=False))
    out = tmp_path / "run"
    with HostileServer(behaviours) as server:
        started = time.monotonic()
        with open(tmp_path / "stdout", "wb") as stdout, open(tmp_path / "stderr", "wb") as stderr:
            child = subprocess.Popen([sys.executable, "-c", REPORT_PEAK, str(tmp_path / "peak"),
                                      *eval_args(path, out, server.url)],
                                     cwd=ROOT, stdout=stdout, stderr=stderr,
                                     env={**os.environ, "PYTHONPATH": str(ROOT)})
        # unbounded, the slowloris alone would take minutes: a watchdog kills the child (by its PID) at 120 s
        watchdog = threading.Timer(120, child.kill)
        watchdog.start()
        try:
            _, status, _usage = os.wait4(child.pid, 0)
        finally:
            watchdog.cancel()
        child.returncode = os.waitstatus_to_exitcode(status)
        elapsed = time.monotonic() - started
    text = (tmp_path / "stdout").read_text() + (tmp_path / "stderr").read_text()
    assert child.returncode == 3, text  # some samples failed; no crash (1), no hang
    assert "Traceback" not in text and "internal error" not in text
    # every attempt ends by --timeout 2 s; 9 samples in flight at once, so the run takes a few seconds
    assert elapsed < 60, elapsed
    got = records(out)
    assert set(got) == set(ids)  # every sample was logged: nothing lost
    failed = {i: r["error"] for i, r in got.items() if "error" in r}
    by_attack = {behaviours[i]: reason for i, reason in failed.items()}
    assert set(by_attack) == {"slowloris", "slow_headers", "endless_body", "gzip_bomb", "oversized"}, failed
    assert "no complete answer within --timeout 2 s" in by_attack["slowloris"]
    assert "no complete answer within --timeout 2 s" in by_attack["slow_headers"] \
        or "connection failed" in by_attack["slow_headers"]  # h11 refuses 100 KB of header first, or the deadline
    assert "over --max-response-bytes 4,194,304" in by_attack["endless_body"]
    assert "once decompressed (gzip)" in by_attack["gzip_bomb"]
    assert "over --max-response-bytes" in by_attack["oversized"]
    answered = [i for i in ids if i not in failed]
    assert len(answered) == len(ids) - 5
    assert all(got[i]["prediction"] == "straight" for i in answered if behaviours.get(i) != "surrogate")
    # the lone surrogates: parsed with U+FFFD, the exact text kept
    surrogate = next(i for i in ids if behaviours.get(i) == "surrogate")
    record = got[surrogate]
    assert record["response"] == "Answer: B \ufffd \ufffd end"
    assert json.loads(record["response_exact"]) == "Answer: B \ud800 \udfff end"
    # memory stayed bounded: an endless body read at localhost speed for 2 s, or the 64 MiB bomb, would not
    peak = int((tmp_path / "peak").read_text().split()[1])  # KiB
    assert peak < 700 * 1024, peak


def test_the_surrogate_run_resumes_and_scores(tmp_path, data):
    """The rerun that crashed before now reads the log back (strict reader) and scores it."""
    path, ids = data
    behaviours = {ids[0]: "surrogate"}
    out = tmp_path / "run"
    with HostileServer(behaviours) as server:
        first = CliRunner().invoke(cli, eval_args(path, out, server.url, "--limit", "3"))
        assert first.exit_code == 0, first.output
        again = CliRunner().invoke(cli, eval_args(path, out, server.url, "--limit", "3"))
    assert again.exit_code == 0 and "3 resumed" in again.output, again.output
    scored = CliRunner().invoke(cli, ["score", "run", str(out)])
    assert scored.exit_code == 0, scored.output
    predictions = [json.loads(x) for x in (out / "predictions.jsonl").read_text(encoding="utf-8").splitlines()]
    assert predictions[0]["response"] == "Answer: B \ufffd \ufffd end"


def test_a_smaller_answer_bound_is_an_option(tmp_path, data):
    path, ids = data
    with HostileServer({ids[0]: "oversized"}, oversized_bytes=20_000) as server:
        result = CliRunner().invoke(cli, eval_args(path, tmp_path / "run", server.url, "--limit", "2",
                                                   "--max-response-bytes", "10000"))
    assert result.exit_code == 3, result.output
    reason = records(tmp_path / "run")[ids[0]]["error"]
    assert "over --max-response-bytes 10,000" in reason and "(after 1 attempt)" in reason
    assert "error" not in records(tmp_path / "run")[ids[1]]
