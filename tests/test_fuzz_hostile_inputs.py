"""Hostile files on every command that reads files: each must exit 2 with one `error:` line, no traceback.

The inputs are generated here: JSON that Python's json would accept but a scorer must not (NaN, 1e999,
duplicate keys, 100k-deep nesting, 5,000-digit integers, lone surrogates), broken encodings and shapes,
and files that are not files (a FIFO, a link to /dev/zero, a folder, a link loop, a missing path).
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from click.testing import CliRunner

from builder.cli import cli

ROOT = Path(__file__).resolve().parents[1]
SAMPLES = ROOT / "manifests" / "saferelbench" / "demo.jsonl"
BD_DEMO = ROOT / "manifests" / "bd_hazardvlm" / "v1" / "demo"


def _json_payloads() -> dict[str, bytes]:
    """Hostile contents for a JSON or JSON Lines file, keyed by a name for the test id."""
    ok = '{"id": "a", "prediction": "left"}'
    return {
        "nan": b'{"id": "a", "prediction": NaN}\n',
        "infinity": b'{"id": "a", "score": Infinity}\n',
        "huge-float": b'{"id": "a", "score": 1e999}\n',
        "duplicate-key": b'{"id": "a", "id": "b", "prediction": "left"}\n',
        "deep-nesting": b"[" * 100_000 + b"]" * 100_000 + b"\n",
        "deep-object": b'{"a":' * 100_000 + b"1" + b"}" * 100_000 + b"\n",
        "big-integer": b'{"id": "a", "n": ' + b"9" * 5000 + b"}\n",
        "lone-surrogate": b'{"id": "\\ud800", "prediction": "left"}\n',
        "not-utf8": b'{"id": "\xff\xfe", "prediction": "left"}\n',
        "truncated": ok[:-5].encode() + b"\n",
        "array-not-object": b"[1, 2, 3]\n",
        "bare-string": b'"just text"\n',
        "empty": b"",
        "whitespace": b"   \n\n  \n",
        "binary": bytes(range(256)) * 4,
        "open-brackets": b"[" * 100_000 + b"\n",
        "long-id": json.dumps({"id": "x" * 2_000_000, "prediction": "left"}).encode() + b"\n",
    }


def _special_files(base: Path) -> dict[str, Path]:
    """Paths that are not regular files."""
    base.mkdir(parents=True, exist_ok=True)
    fifo = base / "fifo.jsonl"
    os.mkfifo(fifo)
    zero = base / "zero.jsonl"
    zero.symlink_to("/dev/zero")
    loop = base / "loop.jsonl"
    loop.symlink_to(loop)
    folder = base / "folder.jsonl"
    folder.mkdir()
    return {"fifo": fifo, "dev-zero": zero, "link-loop": loop, "folder": folder, "missing": base / "nope.jsonl"}


def _commands(tmp: Path) -> dict[str, Callable[[Path], list[str]]]:
    """Command lines, each taking the hostile file in one input slot."""
    refs = tmp / "refs.jsonl"
    refs.write_text(json.dumps({"id": "a", "answer": "left", "scenario": "static", "category": "dog",
                                "source_benchmark": "drivebench"}) + "\n")
    preds = tmp / "preds.jsonl"
    preds.write_text(json.dumps({"id": "a", "prediction": "left"}) + "\n")
    run = tmp / "run"
    run.mkdir()
    return {
        "score-msb-predictions": lambda f: ["score", "movsafebench", "-r", str(refs), "-p", str(f)],
        "score-msb-references": lambda f: ["score", "movsafebench", "-r", str(f), "-p", str(preds)],
        "score-bd-predictions": lambda f: ["score", "bd-hazardvlm", "--references",
                                           str(BD_DEMO / "annotations.jsonl"), "--predictions", str(f)],
        "score-saferel-plans": lambda f: ["score", "saferelbench", "-s", str(SAMPLES), "-p", str(f)],
        "validate-predictions": lambda f: ["validate", "movsafebench", "-r", str(refs), "-p", str(f)],
        "validate-metadata": lambda f: ["validate", "movsafebench", "-r", str(refs), "-p", str(preds),
                                        "--metadata", str(f)],
        "leaderboard-add": lambda f: ["leaderboard", "add", str(f), "--table", str(tmp / "lb" / "t.parquet")],
        "eval-data": lambda f: ["eval", "movsafebench", "-b", "baseline", "-m", "random", "--data", str(f),
                                "--out", str(tmp / "evalrun"), "--no-progress"],
        "forge-plan-sources": lambda f: ["forge", "plan", str(f), "--out", str(tmp / "plan.jsonl")],
        "sources-scan-folder": lambda f: ["sources", "scan", "folder", "--index", str(f), "--out",
                                          str(tmp / "manifest.jsonl")],
        "reconstruct-manifest": lambda f: ["reconstruct", "bd-hazardvlm", "--manifest", str(f), "--annotations",
                                           str(BD_DEMO / "annotations.jsonl"), "--source",
                                           f"rsud20k={BD_DEMO / 'sources' / 'rsud20k'}", "--out", str(tmp / "bd")],
        "score-run-runjson": lambda f: ["score", "run", str(_run_folder(tmp, f))],
        "publish-build-info": lambda f: ["publish", "saferelbench", "--config", "demo", "--version", "0.1.0",
                                         "--build-info", str(f), "--out", str(tmp / "srb")],
    }


def _run_folder(tmp: Path, run_json: Path) -> Path:
    """A run folder whose run.json is the hostile file (a link to it, so FIFOs and devices stay what they are)."""
    folder = tmp / "runs" / f"{run_json.parent.name}-{run_json.name}"
    folder.mkdir(parents=True)
    if run_json.exists() or run_json.is_symlink():
        (folder / "run.json").symlink_to(run_json)
    return folder


def _cases(tmp: Path) -> list[tuple[str, list[str]]]:
    payload_dir = tmp / "payloads"
    payload_dir.mkdir()
    files: dict[str, Path] = {}
    for name, data in _json_payloads().items():
        files[name] = payload_dir / f"{name}.jsonl"
        files[name].write_bytes(data)
    files.update(_special_files(tmp / "special"))
    return [(f"{command}/{name}", build(path)) for command, build in _commands(tmp).items()
            for name, path in files.items()]


def test_every_hostile_input_exits_2_with_one_line(tmp_path):
    cases = _cases(tmp_path)
    assert len(cases) >= 100
    runner = CliRunner()
    failures = []
    start = time.perf_counter()
    for case, argv in cases:
        t0 = time.perf_counter()
        result = runner.invoke(cli, argv)
        took = time.perf_counter() - t0
        lines = [line for line in result.output.splitlines() if line.strip()]
        errors = [line for line in lines if line.startswith("error:")]
        ok = (result.exit_code == 2 and errors and "Traceback" not in result.output
              and all(len(line) < 700 for line in lines) and took < 10
              and (len(lines) == 1 or (argv[0] == "validate" and lines[-1].startswith("error:"))))
        if not ok:
            failures.append(f"{case}: exit {result.exit_code} in {took:.1f}s: {result.output[-300:]!r}"
                            f"{' ' + repr(result.exception)[:200] if result.exception else ''}")
    assert not failures, "\n".join(failures)
    assert time.perf_counter() - start < 60


@pytest.mark.parametrize("name", ["nan", "duplicate-key", "deep-nesting", "big-integer", "lone-surrogate"])
def test_strict_reader_names_the_problem(tmp_path, name):
    from eval_kit.errors import BadInput
    from eval_kit.jsonl import iter_jsonl

    path = tmp_path / "x.jsonl"
    path.write_bytes(b'{"id": "ok"}\n' + _json_payloads()[name])
    expected = {"nan": "NaN is not a number", "duplicate-key": "duplicate key 'id'",
                "deep-nesting": "nested deeper than", "big-integer": "unreadable number",
                "lone-surrogate": "lone UTF-16 surrogate"}[name]
    with pytest.raises(BadInput, match=expected) as info:
        list(iter_jsonl(path))
    assert info.value.line == 2


def test_usage_errors_and_a_full_disk_are_one_line(tmp_path, monkeypatch):
    import errno

    runner = CliRunner()
    result = runner.invoke(cli, ["score", "movsafebench", "--predictions", str(tmp_path / "p.jsonl")])
    assert result.exit_code == 2 and result.output.count("\n") == 1 and result.output.startswith("error: ")
    assert "--references" in result.output and "Usage:" not in result.output
    # a full disk while scoring a run: one line naming the file and what to do, exit 2
    from eval_kit.testing.synthetic_datasets import write_jsonl

    data = write_jsonl(tmp_path / "data", 12)
    run = tmp_path / "run"
    assert runner.invoke(cli, ["eval", "movsafebench", "-b", "baseline", "-m", "random", "--data", str(data),
                               "--out", str(run), "--no-progress"]).exit_code == 0
    import eval_kit.jsonl

    def full(path, *args, **kwargs):
        raise OSError(errno.ENOSPC, "No space left on device", str(path))

    monkeypatch.setattr(eval_kit.jsonl, "atomic_write_bytes", full)
    result = runner.invoke(cli, ["score", "run", str(run)])
    assert result.exit_code == 2 and result.output.count("\n") == 1, result.output
    assert "No space left on device" in result.output and "free some disk space" in result.output


def test_write_traces_into_a_folder_is_one_line(tmp_path):
    plans = tmp_path / "plans.jsonl"
    first = json.loads(SAMPLES.read_text().splitlines()[0])
    plans.write_text(json.dumps({"id": first["id"], "plan": []}) + "\n")
    result = CliRunner().invoke(cli, ["score", "saferelbench", "-s", str(SAMPLES), "-p", str(plans),
                                      "--allow-missing", "--write-traces", str(tmp_path)])
    assert result.exit_code == 2 and result.output.count("\n") == 1
    assert "--write-traces must name a file" in result.output and str(tmp_path) in result.output
