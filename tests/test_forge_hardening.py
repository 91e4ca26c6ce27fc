"""HazardForge under hostile input (issue 17): a 20000x20000 source fails alone (plan, run, scan, preview),
two `forge run` into one directory (the second exits 2 naming the PID; a stale lock does not block), and
JSON inputs (config, targets, run.json, job records, DriveBench questions) read strictly: exit 2, one line."""

from __future__ import annotations

import hashlib
import json
import os
import signal
import struct
import subprocess
import sys
import zlib
from pathlib import Path

import pytest
from click.testing import CliRunner

from builder.cli import cli

ROOT = Path(__file__).resolve().parent.parent
HOLDER = """
import sys, time
from pathlib import Path
from eval_kit.folder_lock import folder_lock
with folder_lock(Path(sys.argv[1]), "forge run"):
    print("locked", flush=True)
    time.sleep(60)
"""


def huge_png(width: int = 20_000, height: int = 20_000) -> bytes:
    """A 1 KB PNG whose header says width x height (decoding it would need 1.2 GB)."""
    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    ihdr = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    body = chunk(b"IHDR", ihdr) + chunk(b"IDAT", zlib.compress(b"\0" * 1024)) + chunk(b"IEND", b"")
    return b"\x89PNG\r\n\x1a\n" + body


def run(*args: object):
    return CliRunner().invoke(cli, [str(a) for a in args])


def one_error_line(result) -> str:
    assert result.exit_code == 2, result.output
    assert "Traceback" not in result.output
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith("error: "), result.stderr
    return lines[0]


@pytest.fixture(scope="module")
def scenes(tmp_path_factory):
    """2 synthetic scenes (320x180) plus a 20000x20000 source in one manifest."""
    root = tmp_path_factory.mktemp("hostile_forge")
    result = run("forge", "synthetic", root, "-n", "2", "--width", "320", "--height", "180")
    assert result.exit_code == 0, result.output
    data = huge_png()
    (root / "huge.png").write_bytes(data)
    manifest = root / "sources.jsonl"
    rows = [json.loads(line) for line in manifest.read_text().splitlines()]
    rows.insert(1, {**rows[0], "id": "huge", "path": "huge.png", "sha256": hashlib.sha256(data).hexdigest()})
    rows[1].pop("vanishing_point", None)
    rows[1].pop("ego_hood", None)
    manifest.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return root


def test_huge_source_fails_alone_in_forge_plan(scenes, tmp_path):
    result = run("forge", "plan", scenes / "sources.jsonl", "--out", tmp_path / "plan.jsonl", "--json")
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    assert report["stats"]["sources"] == 2 and report["jobs"] > 0
    [failed] = report["stats"]["failed_sources"]
    assert failed["id"] == "huge" and failed["line"] == 2
    assert "400,000,000 pixels, over the limit of 64,000,000" in failed["reason"]
    plan = [json.loads(line) for line in (tmp_path / "plan.jsonl").read_text().splitlines()]
    assert len(plan) == report["jobs"] and len({j["source_id"] for j in plan}) == 2
    assert "huge" not in {j["source_id"] for j in plan}
    table = run("forge", "plan", scenes / "sources.jsonl", "--out", tmp_path / "plan2.jsonl")
    assert table.exit_code == 0 and "failed source huge (line 2)" in table.stderr


def test_huge_source_fails_its_jobs_alone_in_forge_run(scenes, tmp_path):
    result = run("forge", "plan", scenes / "sources.jsonl", "--out", tmp_path / "plan.jsonl", "--json")
    assert result.exit_code == 0, result.output
    jobs = [json.loads(line) for line in (tmp_path / "plan.jsonl").read_text().splitlines()][:6]
    # the source of the first two jobs is replaced by the huge image (and the plan pins its bytes)
    huge = scenes / "huge.png"
    for job in jobs[:2]:
        job.update(image=os.path.relpath(huge, tmp_path), source_sha256=hashlib.sha256(huge.read_bytes()).hexdigest())
    plan = tmp_path / "hostile_plan.jsonl"
    plan.write_text("".join(json.dumps(j) + "\n" for j in jobs))
    result = run("forge", "run", plan, "--out", tmp_path / "run", "--no-progress")
    assert result.exit_code == 0, result.output
    assert "6 jobs: 0 already done, 6 run now" in result.output
    status = json.loads(run("forge", "status", tmp_path / "run", "--json").output)
    assert status["finished"] == 6 and status["statuses"]["failed"] == 2
    assert {f["job_id"] for f in status["failures"]} == {jobs[0]["job_id"], jobs[1]["job_id"]}
    assert all("400,000,000 pixels, over the limit" in f["reason"] for f in status["failures"])


def test_huge_image_in_sources_scan_folder_and_forge_preview(scenes, tmp_path):
    index = tmp_path / "index.jsonl"
    rows = [{"id": "ok", "path": str(next((scenes / "images").glob("*.png")).relative_to(scenes)),
             "gt_action": "left", "agent": "vehicle"},
            {"id": "huge", "path": "huge.png", "gt_action": "left", "agent": "vehicle"}]
    index.write_text("".join(json.dumps(r) + "\n" for r in rows))
    result = run("sources", "scan", "folder", "--index", index, "--root", scenes, "--out", tmp_path / "s.jsonl",
                 "-v", "5")
    assert result.exit_code == 0, result.output
    assert "wrote 1 sources" in result.output and "image too large (over 64,000,000 pixels): 1" in result.output
    line = one_error_line(run("forge", "preview", scenes / "huge.png", "--scenario", "static", "--gt", "left",
                              "--out", tmp_path / "p.png"))
    assert "400,000,000 pixels, over the limit" in line
    assert not (tmp_path / "p.png").exists()


def _hold_lock(folder: Path) -> subprocess.Popen:
    child = subprocess.Popen([sys.executable, "-c", HOLDER, str(folder)], stdout=subprocess.PIPE,
                             env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert child.stdout.readline().strip() == b"locked"
    return child


@pytest.fixture(scope="module")
def small_plan(scenes, tmp_path_factory):
    root = tmp_path_factory.mktemp("small_plan")
    result = run("forge", "plan", scenes / "sources.jsonl", "--out", root / "plan.jsonl", "--json")
    assert result.exit_code == 0, result.output
    return root / "plan.jsonl"


def test_second_forge_run_into_one_directory_exits_2_naming_the_pid(small_plan, tmp_path):
    out = tmp_path / "run"
    child = _hold_lock(out)
    try:
        line = one_error_line(run("forge", "run", small_plan, "--out", out, "--limit", "3", "--no-progress"))
        assert f"process {child.pid} (`hazardkit forge run`) is already using this folder" in line
        assert not (out / "jobs").exists()
    finally:
        child.send_signal(signal.SIGKILL)
        child.wait()
    assert (out / ".hazardkit.lock").exists()  # stale: its holder is dead
    result = run("forge", "run", small_plan, "--out", out, "--limit", "3", "--no-progress")
    assert result.exit_code == 0, result.output
    assert "3 jobs: 0 already done, 3 run now" in result.output and not (out / ".hazardkit.lock").exists()


def test_two_concurrent_forge_runs_never_crash(small_plan, tmp_path):
    """Both start at once: each exits 0 or 2 (never 1), and the directory ends whole."""
    out = tmp_path / "run"
    cmd = [sys.executable, "-m", "builder.cli", "forge", "run", str(small_plan), "--out", str(out), "--limit", "12",
           "--no-progress"]
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    procs = [subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env) for _ in range(2)]
    results = [(p.wait(timeout=300), p.stdout.read().decode(), p.stderr.read().decode()) for p in procs]
    for code, _stdout, stderr in results:
        assert code in (0, 2) and "Traceback" not in stderr, stderr
        if code == 2:
            assert "is already using this folder" in stderr
    assert 0 in [code for code, _, _ in results]
    again = run("forge", "run", small_plan, "--out", out, "--limit", "12", "--no-progress")
    assert again.exit_code == 0 and "12 jobs: 12 already done" in again.output
    assert not list(out.rglob("*.tmp"))


# ---- strict JSON in every file the forge commands read ----

HOSTILE = {
    "nan": b'{"distance_d": NaN}',
    "duplicate": b'{"distance_d": 0.1, "distance_d": 0.2}',
    "deep": b"[" * 100_000 + b"]" * 100_000,
    "bigint": b'{"distance_d": ' + b"9" * 5000 + b"}",
}


def _hostile_file(tmp_path: Path, kind: str, name: str) -> Path:
    path = tmp_path / name
    if kind == "fifo":
        os.mkfifo(path)
    elif kind == "dev_zero":
        path.symlink_to("/dev/zero")
    else:
        path.write_bytes(HOSTILE[kind])
    return path


KINDS = [*HOSTILE, "fifo", "dev_zero"]


@pytest.mark.parametrize("kind", KINDS)
def test_hostile_config_and_targets(small_plan, tmp_path, kind):
    sources = small_plan.parent.parent / "x"  # never reached: the config is read first
    bad = _hostile_file(tmp_path, kind, "config.json")
    for args in (["--config", bad], ["--targets", bad]):
        assert WHY[kind] in one_error_line(run("forge", "plan", sources, "--out", tmp_path / "p.jsonl", *args))
    assert WHY[kind] in one_error_line(run("forge", "preview", tmp_path / "none.png", "--scenario", "static",
                                           "--gt", "left", "--config", bad))


@pytest.mark.parametrize("kind", KINDS)
def test_hostile_run_json(small_plan, tmp_path, kind):
    out = tmp_path / "run"
    out.mkdir()
    _hostile_file(out, kind, "run.json")
    assert WHY[kind] in one_error_line(run("forge", "status", out))
    assert WHY[kind] in one_error_line(run("forge", "export", out, "--out", tmp_path / "rec", "--scope", "no_edit"))
    # a link in the run folder (to /dev/zero here) is refused as a link before anything reads it (issue 32)
    expected = "is a symbolic link" if kind == "dev_zero" else WHY[kind]
    assert expected in one_error_line(run("forge", "run", small_plan, "--out", out, "--limit", "1",
                                          "--no-progress"))
    assert not (out / ".hazardkit.lock").exists()


def test_damaged_job_record_is_redone_not_trusted(small_plan, tmp_path):
    out = tmp_path / "run"
    assert run("forge", "run", small_plan, "--out", out, "--limit", "2", "--no-progress").exit_code == 0
    record = next((out / "jobs").rglob("*.json"))
    good = record.read_bytes()
    record.write_bytes(good.replace(b'"seed":', b'"seed":NaN,"x":', 1))
    status = json.loads(run("forge", "status", out, "--json").output)
    assert status["finished"] == 1  # the NaN record is not counted
    result = run("forge", "run", small_plan, "--out", out, "--limit", "2", "--no-progress")
    assert result.exit_code == 0 and "1 already done, 1 run now" in result.output
    assert record.read_bytes() == good  # redone byte for byte


DRIVEBENCH = {
    "nan": b'[{"frame_token": "f1", "question": NaN}]',
    "duplicate": b'[{"frame_token": "f1", "frame_token": "f2"}]',
    "jsonl_nan": b'{"frame_token": "f1"}\n{"frame_token": NaN}\n',
    "jsonl_duplicate": b'{"frame_token": "f1"}\n{"a": 1, "a": 2}\n',
    "deep": HOSTILE["deep"],
    "bigint": b'[{"frame_token": ' + b"9" * 5000 + b"}]",
}


@pytest.mark.parametrize("kind", [*DRIVEBENCH, "fifo", "dev_zero"])
def test_hostile_drivebench_questions(tmp_path, kind):
    if kind in DRIVEBENCH:
        questions = tmp_path / "drivebench-test.json"
        questions.write_bytes(DRIVEBENCH[kind])
    else:
        questions = _hostile_file(tmp_path, kind, "drivebench-test.json")
    line = one_error_line(run("sources", "scan", "drivebench", "--questions", questions, "--root", tmp_path,
                              "--out", tmp_path / "s.jsonl"))
    assert WHY[kind.removeprefix("jsonl_")] in line


WHY = {"nan": "NaN is not a number JSON allows", "duplicate": "duplicate key", "deep": "nested deeper than",
       "bigint": "unreadable number", "fifo": "got a FIFO", "dev_zero": "got a device"}


def test_pixel_limit_below_pils_own_bomb_check(tmp_path):
    from builder.movsafebench.sources.common import ImageTooLarge, image_problem, open_image_checked

    path = tmp_path / "wide.png"
    path.write_bytes(huge_png(9000, 8000))  # 72 MP: PIL would decode it (216 MB) without a word
    with pytest.raises(ImageTooLarge, match="9000x8000 pixels, over the limit of 64,000,000"):
        open_image_checked(path)
    assert image_problem(path) == "image too large (over 64,000,000 pixels)"
    path.write_bytes(huge_png(8000, 8000))  # at the limit: opens (header only, nothing decoded)
    with open_image_checked(path) as image:
        assert image.size == (8000, 8000)
