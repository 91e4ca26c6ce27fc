"""API models as the papers ran them: the key from the environment only, Retry-After honoured, token usage kept.

A real HTTP server on 127.0.0.1 (tests/chat_stub.py). The Retry-After waits go through an injected sleep and
clock, so a server asking for 20 s is honoured without the test sleeping 20 s; the CLI test uses a small
--retry-after-cap to show the cap.
"""

import json
import time
from email.utils import formatdate
from pathlib import Path

import pytest

from eval_kit.runners.backends.openai_chat import DEFAULT_RETRY_AFTER_CAP, OpenAIBackend, retry_after_seconds
from eval_kit.runners.task import Request, user_message
from eval_kit.schemas import first_error
from tests.chat_stub import ChatStub, completion
from tests.test_runner_misbehaving_server import answer, hk, raw, sample_of, tagged_data

pytest.importorskip("httpx")

SECRET = "sk-live-THIS-MUST-NEVER-BE-WRITTEN-0123456789"


def _files_text(folder: Path) -> str:
    return "".join(p.read_text(errors="replace") for p in sorted(folder.rglob("*")) if p.is_file())


def test_key_from_the_environment_never_reaches_the_run_folder(tmp_path, monkeypatch):
    """A server that echoes the Authorization header in its error bodies (as some gateways do): the key is in
    no file of the run folder (raw log, failure reasons, metadata, run.json, predictions) and not in the output."""
    path, ids = tagged_data(tmp_path / "d", 6)
    monkeypatch.setenv("HK_SECRET_KEY", SECRET)

    def misbehave(body, nth):
        echo = {"error": {"message": f"upstream said no to {SECRET} (header Bearer {SECRET})"}}
        if sample_of(body) == ids[0]:
            return 400, echo  # fails the sample at once, with the echoed message as its reason
        if sample_of(body) == ids[1] and nth == 1:
            return 500, echo  # retried, then answered
        return None

    with ChatStub(answer, key=SECRET, misbehave=misbehave) as server:
        result = hk(path, tmp_path / "r", server.url, "--api-key-env", "HK_SECRET_KEY")
    assert result.exit_code == 3, result.output  # the 400 sample failed
    assert all(h["Authorization"] == f"Bearer {SECRET}" for h in server.headers)  # the key was sent ...
    assert SECRET not in _files_text(tmp_path / "r")  # ... and written nowhere
    assert SECRET not in result.output
    failure = next(r for r in raw(tmp_path / "r") if r["id"] == ids[0])
    assert "[API key]" in failure["error"]
    # no command-line option takes a key: only the name of the variable that holds it
    monkeypatch.delenv("HK_SECRET_KEY")
    with ChatStub(answer, key=SECRET, misbehave=misbehave) as server:
        refused = hk(path, tmp_path / "r2", server.url, "--api-key-env", "HK_SECRET_KEY")
    assert refused.exit_code == 2 and "refused the API key" in refused.output


def test_token_usage_is_recorded_per_sample_and_summed_in_metadata(tmp_path):
    path, ids = tagged_data(tmp_path / "d", 5)
    usage = {ids[0]: {"prompt_tokens": 1200, "completion_tokens": 7, "total_tokens": 1207}}

    def misbehave(body, nth):
        sample = sample_of(body)
        if sample in usage:
            return 200, {**completion("m", "Answer: B"), "usage": usage[sample]}
        if sample == ids[1]:
            return 200, {**completion("m", "Answer: B"), "usage": None}  # a server that reports none
        return None

    with ChatStub(answer, misbehave=misbehave) as server:
        result = hk(path, tmp_path / "r", server.url)
    assert result.exit_code == 0, result.output
    records = {r["id"]: r for r in raw(tmp_path / "r")}
    assert records[ids[0]]["usage"] == usage[ids[0]]
    assert "usage" not in records[ids[1]]
    assert records[ids[2]]["usage"] == {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2}
    meta = json.loads((tmp_path / "r/metadata.json").read_text())
    assert meta["usage"] == {"prompt_tokens": 1200 + 3, "completion_tokens": 7 + 3, "total_tokens": 1207 + 6,
                             "samples": 4}
    assert first_error("submission_metadata", meta) is None  # the schema knows the field


def _backend(server, **kwargs) -> tuple[OpenAIBackend, list[float]]:
    slept: list[float] = []
    backend = OpenAIBackend("m", base_url=server.url, concurrency=1, max_retries=2, retry_backoff=0.01,
                            sleep=slept.append, **kwargs)
    return backend, slept


def _ask(backend: OpenAIBackend) -> str:
    sample = Request(id="a", messages=[user_message("[a] which way?", 0)])
    try:
        return backend.generate([sample])[0]
    finally:
        backend.close()


@pytest.mark.parametrize("header", ["20", "20.0"])
def test_retry_after_seconds_are_honoured_beyond_the_old_8_s_cut(header):
    def misbehave(body, nth):
        return (429, {"error": {"message": "rate limited"}}, {"Retry-After": header}) if nth == 1 else None

    with ChatStub(answer, misbehave=misbehave) as server:
        backend, slept = _backend(server)
        assert _ask(backend) == "Answer: B"
    assert slept == [20.0]  # waited what the server asked (was min(20, 8) = 8 s, then the samples failed)


def test_retry_after_http_date_is_honoured_against_the_clock():
    now = 1_800_000_000.0  # a fake clock: the date is 30 s after it
    date = formatdate(now + 30, usegmt=True)

    def misbehave(body, nth):
        return (503, {"error": {"message": "busy"}}, {"Retry-After": date}) if nth == 1 else None

    with ChatStub(answer, misbehave=misbehave) as server:
        backend, slept = _backend(server, clock=lambda: now)
        assert _ask(backend) == "Answer: B"
    assert slept == [30.0]  # was ignored (a 0.05 s backoff)


def test_retry_after_is_capped():
    def misbehave(body, nth):
        return (429, {"error": {"message": "rate limited"}}, {"Retry-After": "3600"}) if nth <= 2 else None

    with ChatStub(answer, misbehave=misbehave) as server:
        backend, slept = _backend(server, retry_after_cap=45)
        assert _ask(backend) == "Answer: B"
    assert slept == [45.0, 45.0]
    assert DEFAULT_RETRY_AFTER_CAP == 60.0  # the documented default (docs/api-models.md)


def test_retry_after_values():
    now = 1_800_000_000.0
    assert retry_after_seconds("20", now) == 20.0
    assert retry_after_seconds(formatdate(now + 90, usegmt=True), now) == 90.0
    assert retry_after_seconds(formatdate(now - 90, usegmt=True), now) == 0.0  # in the past: no wait
    for bad in (None, "", "soon", "nan", "inf", "-5x"):
        assert retry_after_seconds(bad, now) is None


def test_cli_retry_after_cap_with_a_server_limiting_for_20_s(tmp_path):
    """End to end: every sample is rate-limited once for 20 s; with --retry-after-cap 0.2 the run waits 0.2 s per
    sample and every sample is answered (the cap is the user's choice, documented in docs/api-models.md)."""
    path, ids = tagged_data(tmp_path / "d", 4)

    def misbehave(body, nth):
        return (429, {"error": {"message": "slow down"}}, {"Retry-After": "20"}) if nth == 1 else None

    started = time.monotonic()
    with ChatStub(answer, misbehave=misbehave) as server:
        result = hk(path, tmp_path / "r", server.url, "--retry-after-cap", "0.2", "--concurrency", "4")
    assert result.exit_code == 0, result.output
    assert time.monotonic() - started < 15
    assert sorted(r["id"] for r in raw(tmp_path / "r")) == sorted(ids)
    assert len(server.requests) == 2 * len(ids)
    refused = hk(path, tmp_path / "r2", "http://127.0.0.1:9/v1", "--retry-after-cap", "-1")
    assert refused.exit_code == 2
