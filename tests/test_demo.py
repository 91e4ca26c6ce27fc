"""`hazardkit demo` end to end in a scratch folder: every artefact it announces exists."""

import json
import re

from click.testing import CliRunner

from builder.cli import cli


def test_demo_runs_end_to_end(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # the demo writes ./movsafebench etc. like `make demo` does in the repo
    result = CliRunner().invoke(cli, ["demo", "--out", str(tmp_path / "out")])
    assert result.exit_code == 0, result.output
    assert "demo finished" in result.output
    page = tmp_path / "out" / "leaderboard" / "index.html"
    assert page.is_file() and "MovSafeBench" in page.read_text()
    scores = sorted((tmp_path / "out" / "runs").glob("*/scores.json"))
    assert len(scores) >= 3
    for path in scores:
        assert json.loads(path.read_text())["num_samples"] > 0
    # every path the demo printed exists
    for line in result.output.splitlines():
        for match in re.findall(r"(out/[\w./-]+\.(?:jsonl|json|parquet|html|md|png))\b", line):
            assert (tmp_path / match).exists() or (tmp_path / "out" / match.removeprefix("out/")).exists(), match
