"""The README's examples run as written: every fenced block after a `<!-- runnable -->` comment is run,
command by command, in a scratch folder that holds only the checkout's committed inputs (`manifests/`), so
they pass on a fresh clone without `make demo` and never write into the checkout.

Also: the README stays a page read in minutes (at most 250 lines), and it marks at least one block.
"""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import pytest
from click.testing import CliRunner

from builder.cli import cli

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
MARKED = re.compile(r"<!-- runnable -->\s*\n```(?:bash|sh)\n(.*?)```", re.S)


def runnable_commands(text: str) -> list[list[str]]:
    """The commands of the marked blocks: continuation lines joined, comments dropped; each must be a
    `hazardkit` command (anything else cannot be run the same way everywhere)."""
    commands = []
    for block in MARKED.findall(text):
        for line in block.replace("\\\n", " ").splitlines():
            words = shlex.split(line, comments=True)
            if words:
                assert words[0] == "hazardkit", f"a runnable README block holds a non-hazardkit line: {line!r}"
                commands.append(words[1:])
    return commands


def test_readme_is_short_and_marks_runnable_blocks():
    text = README.read_text(encoding="utf-8")
    assert len(text.splitlines()) <= 250
    assert len(runnable_commands(text)) >= 5
    # the two commands users need, literally
    assert "make test" in text and "make demo" in text


def test_runnable_commands_are_found_and_checked():
    text = "intro\n<!-- runnable -->\n```bash\nhazardkit a --b \\\n    c  # note\n\nhazardkit d\n```\n"
    assert runnable_commands(text) == [["a", "--b", "c"], ["d"]]
    with pytest.raises(AssertionError, match="non-hazardkit"):
        runnable_commands("<!-- runnable -->\n```bash\nrm -rf out\n```\n")
    assert runnable_commands("```bash\nhazardkit unmarked\n```\n") == []


def test_readme_runnable_commands_run_on_demo_inputs(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setenv("HF_DATASETS_OFFLINE", "1")
    (tmp_path / "manifests").symlink_to(ROOT / "manifests")  # the committed inputs, read only
    commands = runnable_commands(README.read_text(encoding="utf-8"))
    outputs = {}
    for args in commands:
        result = CliRunner().invoke(cli, args)
        assert result.exit_code == 0, (args, result.output[-3000:])
        outputs[args[0]] = result.output
    # what the commands said they made is there: runs with predictions, scores and the significance table
    runs = sorted(p.parent.name for p in (tmp_path / "out" / "readme").glob("*/predictions.jsonl"))
    assert runs == ["bd-majority", "srb-reference", "srb-unmitigated"]
    assert (tmp_path / "out" / "readme" / "bd-majority" / "scores.json").is_file()
    assert "mcnemar_exact" in outputs["compare"] and "ok: 20 predictions" in outputs["validate"]
