"""The leaderboard server against hostile clients (issue 24, item 7): quotas count real users (X-Forwarded-For
only from a named proxy), uploads that never become submissions are removed, a submitted upload is stored
once, uploads stop at the disk cap, and the scoring worker (and multiprocessing's resource tracker) dies with
the server on SIGKILL and SIGTERM.

Every server is `hazardkit leaderboard serve` on 127.0.0.1 in a child process, waited for with a deadline and
ended by its PID; every process it started is found by PID in /proc and checked (and, on failure, killed).
"""

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import gradio  # noqa: F401  (the dev extra installs it: a missing one is an error, not a skip)
import pytest

from tests.test_leaderboard_app_browser import free_port
from tests.test_leaderboard_space import predictions, refs  # noqa: F401  (refs: fixture)

START_S = 120  # bound on a server's start-up (imports, references, the warm worker)


def _children(pid: int) -> list[int]:
    """Live descendants of `pid` (zombies count as gone), from /proc."""
    parents: dict[int, int] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            stat = Path(f"/proc/{entry}/stat").read_text()
        except OSError:
            continue
        fields = stat.rsplit(")", 1)[1].split()
        if fields[0] != "Z":
            parents[int(entry)] = int(fields[1])
    found, frontier = [], [pid]
    while frontier:
        parent = frontier.pop()
        for child, ppid in parents.items():
            if ppid == parent and child not in found:
                found.append(child)
                frontier.append(child)
    return found


def _alive(pid: int) -> bool:
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


class Server:
    def __init__(self, tmp: Path, refs_path: Path, *options: str, env: dict | None = None) -> None:
        self.data = tmp / "space"
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}/"
        self.log_path = tmp / f"serve-{self.port}.log"
        self.log = self.log_path.open("w")
        environ = {**os.environ, "GRADIO_ANALYTICS_ENABLED": "False", "HF_HUB_OFFLINE": "1", "MPLBACKEND": "Agg",
                   **(env or {})}
        for name in ("SPACE_ID", "FORWARDED_ALLOW_IPS", "GRADIO_TEMP_DIR", "HAZARDKIT_TRUSTED_PROXIES"):
            environ.pop(name, None)
        command = [sys.executable, "-m", "eval_kit.cli", "leaderboard", "serve", "--space-dir", str(self.data),
                   "--references", f"movsafebench={refs_path}", "--port", str(self.port), *options]
        self.proc = subprocess.Popen(command, env=environ, stdout=self.log, stderr=subprocess.STDOUT)
        self._wait_ready()

    def _wait_ready(self) -> None:
        import urllib.request

        deadline = time.monotonic() + START_S
        while True:
            try:
                with urllib.request.urlopen(self.url, timeout=2) as response:
                    if response.status == 200:
                        return
            except OSError:
                pass
            if self.proc.poll() is not None or time.monotonic() > deadline:
                self.stop()
                pytest.fail(f"the server did not start: {self.log_path.read_text()[-3000:]}")
            time.sleep(0.3)

    def submit(self, path: Path, model: str, headers: dict | None = None) -> str:
        from gradio_client import Client, handle_file

        client = Client(self.url, headers=headers or {}, verbose=False)
        result = client.predict(handle_file(str(path)), "movsafebench", model, "", "vllm", 0, api_name="/submit")
        return result[0]  # the Result box (then the added row; the page's version state is not in the API)

    def records(self) -> list[dict]:
        folder = self.data / "submissions"
        return [json.loads(p.read_text()) for p in sorted(folder.glob("*/record.json"))]

    def stop(self) -> None:
        descendants = _children(self.proc.pid)
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=15)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(timeout=15)
        for pid in descendants:  # what the server started must not outlive it, even when a test failed
            if _alive(pid):
                os.kill(pid, signal.SIGKILL)
        self.log.close()


@pytest.fixture(scope="module")
def plain(tmp_path_factory, refs):  # noqa: F811
    """No trusted proxy, a daily limit of 2, 1 MB uploads under a 1.5 MB disk cap, uploads kept 10 minutes."""
    server = Server(tmp_path_factory.mktemp("plain"), refs, "--daily-limit", "2", "--score-timeout", "0",
                    "--max-upload-mb", "1", "--disk-cap-mb", "1.5")
    yield server
    server.stop()


@pytest.fixture(scope="module")
def proxied(tmp_path_factory, refs):  # noqa: F811
    """Behind a proxy the operator names (127.0.0.1), uploads not submitted within 3 s removed."""
    server = Server(tmp_path_factory.mktemp("proxied"), refs, "--daily-limit", "2", "--score-timeout", "0",
                    "--trusted-proxy", "127.0.0.1", "--upload-ttl", "3")
    yield server
    server.stop()


def test_a_submitted_upload_is_stored_once(plain, refs, tmp_path):  # noqa: F811
    preds = predictions(refs, tmp_path / "once.jsonl")
    payload = preds.read_bytes()
    text = plain.submit(preds, "stored-once", {})  # the first submission of this server's only user
    assert text.splitlines()[-1].endswith("is on the leaderboard"), text
    [record] = [r for r in plain.records() if r["model"] == "stored-once"]
    copies = [p for p in plain.data.rglob("*") if p.is_file() and p.stat().st_size == len(payload)
              and p.read_bytes() == payload]
    assert copies == [plain.data / "submissions" / record["id"] / "upload.jsonl"], copies


def test_a_forwarded_header_from_an_unnamed_proxy_does_not_make_new_users(plain, refs, tmp_path):  # noqa: F811
    preds = predictions(refs, tmp_path / "p.jsonl")
    before = len(plain.records())  # the stored-once test's submission, from the same address
    texts = [plain.submit(preds, f"m{i}", {"X-Forwarded-For": f"10.0.0.{i}"}) for i in range(4)]
    accepted = [t for t in texts if t.splitlines()[-1].endswith("is on the leaderboard")]
    assert len(accepted) == 2 - before, texts
    assert texts[-1] == "error: field 'user': daily limit reached (2 submissions in 24 hours): try again later"
    assert {r["user"] for r in plain.records()} == {"ip:127.0.0.1"} and len(plain.records()) == 2


def test_a_named_proxy_names_the_client(proxied, refs, tmp_path):  # noqa: F811
    preds = predictions(refs, tmp_path / "p.jsonl")
    texts = [proxied.submit(preds, f"m{i}", {"X-Forwarded-For": f"10.0.0.{i}"}) for i in range(3)]
    assert all(t.splitlines()[-1].endswith("is on the leaderboard") for t in texts), texts
    assert sorted(r["user"] for r in proxied.records()) == ["ip:10.0.0.0", "ip:10.0.0.1", "ip:10.0.0.2"]
    # each client is counted: the same one twice more reaches the limit of 2
    again = [proxied.submit(preds, "m", {"X-Forwarded-For": "10.0.0.0"}) for _ in range(2)]
    assert again[-1].endswith("daily limit reached (2 submissions in 24 hours): try again later"), again


def test_uploads_that_never_become_submissions_are_removed(proxied, tmp_path):
    import httpx

    stray = tmp_path / "stray.jsonl"
    stray.write_bytes(b'{"id": "x", "prediction": "left"}\n' * 1000)
    paths = []
    for i in range(5):
        response = httpx.post(proxied.url + "gradio_api/upload", files={"files": (f"s{i}.jsonl", stray.read_bytes())},
                              timeout=30)
        assert response.status_code == 200, response.text[:200]
        paths += response.json()
    uploads = (proxied.data / "uploads").resolve()
    assert all(Path(p).resolve().is_relative_to(uploads) and Path(p).is_file() for p in paths)
    deadline = time.monotonic() + 60
    while any(Path(p).exists() for p in paths) and time.monotonic() < deadline:
        time.sleep(0.5)
    assert not any(Path(p).exists() for p in paths), "stray uploads were kept"


def test_uploads_stop_at_the_disk_cap_and_the_request_bound(plain, tmp_path):
    import httpx

    blob = b"x" * (900 * 1024)
    first = httpx.post(plain.url + "gradio_api/upload", files={"files": ("a.jsonl", blob)}, timeout=30)
    assert first.status_code == 200, first.text[:200]
    second = httpx.post(plain.url + "gradio_api/upload", files={"files": ("b.jsonl", blob)}, timeout=30)
    assert second.status_code == 507 and second.text.startswith("error: the leaderboard's storage is full")
    huge = httpx.post(plain.url + "gradio_api/upload", files={"files": ("c.jsonl", b"x" * (3 * 2**20))}, timeout=30)
    assert huge.status_code == 413 and huge.text.startswith("error: upload request of")
    for path in first.json():
        Path(path).unlink()
    assert httpx.post(plain.url + "gradio_api/upload", files={"files": ("d.jsonl", blob)},
                      timeout=30).status_code == 200


@pytest.mark.parametrize("how", [signal.SIGKILL, signal.SIGTERM], ids=["SIGKILL", "SIGTERM"])
def test_the_scoring_worker_dies_with_the_server(tmp_path, refs, how):  # noqa: F811
    server = Server(tmp_path, refs, "--score-timeout", "20")
    try:
        deadline = time.monotonic() + 30
        while len(_children(server.proc.pid)) < 2 and time.monotonic() < deadline:  # worker + resource tracker
            time.sleep(0.2)
        started = _children(server.proc.pid)
        commands = [Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ") for pid in started]
        assert any(b"resource_tracker" in c for c in commands) and any(b"spawn_main" in c for c in commands), commands
        os.kill(server.proc.pid, how)
        server.proc.wait(timeout=15)
        deadline = time.monotonic() + 30
        while any(_alive(pid) for pid in started) and time.monotonic() < deadline:
            time.sleep(0.2)
        assert not [pid for pid in started if _alive(pid)], "processes outlived the server"
    finally:
        server.stop()
