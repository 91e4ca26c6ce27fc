"""`hazardkit leaderboard serve` checks its references, data folder, table and port before it listens: an
unusable one is one line and exit 2 (run as the operator runs it, in a subprocess, offline, on 127.0.0.1)."""

import json
import os
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

from eval_kit.errors import BadInput
from eval_kit.leaderboard.space.preflight import check_port
from tests.test_leaderboard_app_browser import free_port

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def refs(tmp_path_factory) -> Path:
    from tests.test_leaderboard_app_browser import _write_refs

    path = tmp_path_factory.mktemp("refs") / "references.jsonl"
    _write_refs(path)
    return path


def serve(tmp_path: Path, *args: str, timeout: float = 120) -> subprocess.CompletedProcess:
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "GRADIO_ANALYTICS_ENABLED": "False", "MPLBACKEND": "Agg"}
    for name in ("HAZARDKIT_REFERENCES", "HAZARDKIT_SPACE_DIR", "SPACE_ID"):
        env.pop(name, None)
    return subprocess.run([sys.executable, "-m", "builder.cli", "leaderboard", "serve", "--space-dir",
                           str(tmp_path / "space"), "--score-timeout", "0", *args], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=timeout, check=False)


def one_line(run: subprocess.CompletedProcess) -> str:
    out = (run.stdout + run.stderr).strip()
    lines = out.splitlines()
    assert run.returncode == 2, out[-2000:]
    assert len(lines) == 1 and lines[0].startswith("error: ") and "Traceback" not in out, out[-2000:]
    return lines[0]


def test_an_unreachable_hub_reference_is_one_line_and_exit_2(tmp_path):
    line = one_line(serve(tmp_path, "--references", "movsafebench=hf://datasets/nobody/nothing@v9.9.9",
                          "--port", str(free_port())))
    # offline here: the one line says the Hub dataset cannot be had and how to get it, naming the flag it came from
    assert "nobody/nothing@v9.9.9" in line and "--references" in line and "HAZARDKIT_REFERENCES" not in line
    assert "cannot fetch" in line or "not in the local Hugging Face cache" in line


def test_a_missing_local_reference_is_one_line_and_exit_2(tmp_path):
    line = one_line(serve(tmp_path, "--references", f"movsafebench={tmp_path / 'nope.jsonl'}",
                          "--port", str(free_port())))
    assert "nope.jsonl" in line and "references not found" in line and "field '--references'" in line


def test_a_bad_environment_reference_names_the_variable(tmp_path):
    from eval_kit.leaderboard.space.settings import SpaceSettings

    with pytest.raises(BadInput, match=r"field 'HAZARDKIT_REFERENCES'.*not NAME=SOURCE"):
        SpaceSettings.from_env({"HAZARDKIT_REFERENCES": "movsafebench"})
    with pytest.raises(BadInput, match=r"field '--host-name'.*not a host name"):
        from eval_kit.leaderboard.space.settings import parse_host_names

        parse_host_names(["http://board.example.org:80/"], field="--host-name")


def test_a_busy_port_is_one_line_and_exit_2(tmp_path, refs):
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen(1)
        port = busy.getsockname()[1]
        line = one_line(serve(tmp_path, "--references", f"movsafebench={refs}", "--port", str(port)))
    assert line == (f"error: field '--port': port {port} on 127.0.0.1 is already in use (stop the other server or "
                    "pass --port with a free port)")


def test_an_unreadable_table_is_one_line_and_exit_2(tmp_path, refs):
    (tmp_path / "space").mkdir()
    (tmp_path / "space" / "results.parquet").write_bytes(b"not parquet at all")
    line = one_line(serve(tmp_path, "--references", f"movsafebench={refs}", "--port", str(free_port())))
    assert "results.parquet" in line and "not a readable results table" in line


def test_check_port_in_process():
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen(1)
        with pytest.raises(BadInput, match="already in use"):
            check_port("127.0.0.1", busy.getsockname()[1])
    check_port("127.0.0.1", free_port())  # a free port passes
    with pytest.raises(BadInput, match="cannot resolve host"):
        check_port("no-such-host.invalid", free_port())


def test_serve_with_good_settings_listens(tmp_path, refs):
    """The checks pass, then it serves: the page answers; the process is ended by its PID."""
    port = free_port()
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "GRADIO_ANALYTICS_ENABLED": "False", "MPLBACKEND": "Agg"}
    env.pop("SPACE_ID", None)
    proc = subprocess.Popen([sys.executable, "-m", "builder.cli", "leaderboard", "serve", "--space-dir",
                             str(tmp_path / "space"), "--references", f"movsafebench={refs}", "--score-timeout", "0",
                             "--port", str(port)], cwd=ROOT, env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, text=True)
    try:
        deadline = time.monotonic() + 90
        while True:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=2) as response:
                    assert response.status == 200
                    break
            except OSError:
                pass
            assert proc.poll() is None and time.monotonic() < deadline, proc.stdout.read()[-2000:]
            time.sleep(0.5)
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/config", timeout=5) as response:
            assert "hazardkit leaderboard" in json.loads(response.read())["title"]
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout=10)


def _get(port: int, path: str, host: str) -> tuple[int, str]:
    import http.client

    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    try:
        connection.request("GET", path, headers={"Host": host})
        response = connection.getresponse()
        return response.status, response.read().decode("utf-8", "replace")
    finally:
        connection.close()


def test_only_its_own_host_is_served_and_no_references_is_a_warning(tmp_path):
    """A DNS-rebinding page reaches 127.0.0.1 under a name of its own: any Host but the bound address, localhost
    and the operator's --host-name is refused before Gradio sees the request."""
    port = free_port()
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "GRADIO_ANALYTICS_ENABLED": "False", "MPLBACKEND": "Agg"}
    for name in ("SPACE_ID", "SPACE_HOST", "HAZARDKIT_REFERENCES", "HAZARDKIT_HOST_NAMES"):
        env.pop(name, None)
    log = tmp_path / "serve.log"
    with log.open("w") as out:
        proc = subprocess.Popen([sys.executable, "-m", "builder.cli", "leaderboard", "serve", "--space-dir",
                                 str(tmp_path / "space"), "--score-timeout", "0", "--port", str(port),
                                 "--host-name", "board.example.org"], cwd=ROOT, env=env, stdout=out,
                                stderr=subprocess.STDOUT, text=True)
    try:
        deadline = time.monotonic() + 300  # a loaded machine: starting Gradio can take minutes
        while True:
            try:
                if _get(port, "/", f"127.0.0.1:{port}")[0] == 200:
                    break
            except OSError:
                pass
            assert proc.poll() is None and time.monotonic() < deadline, log.read_text()[-2000:]
            time.sleep(0.5)
        for host in ("evil.example", f"evil.example:{port}", "127.0.0.1.evil.example", "localhost.evil.example",
                     "board.example.org.evil.example", ""):
            for path in ("/", "/config", "/gradio_api/info"):
                status, body = _get(port, path, host)
                assert status == 403, (host, path, status, body[:200])
                assert body.startswith("error: this server does not answer to Host") and '"title"' not in body
        for host in (f"127.0.0.1:{port}", f"localhost:{port}", "localhost", "board.example.org",
                     f"BOARD.example.org:{port}"):
            status, body = _get(port, "/config", host)
            assert status == 200 and "hazardkit leaderboard" in body, (host, status)
        text = log.read_text()
        assert "warning: no references given, so every submission will be refused" in text
        assert "refused a request for Host 'evil.example'" in text
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout=10)
