"""`hazardkit demo` end to end in a scratch folder: every artefact it announces exists."""

import json
import re
from pathlib import Path

from click.testing import CliRunner

from builder.cli import cli
from tests.lock import byte_sizes_masked, lock_drift


def test_demo_runs_end_to_end(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # the demo writes ./movsafebench etc. like `make demo` does in the repo
    (tmp_path / "manifests").symlink_to(Path(__file__).resolve().parents[1] / "manifests")  # the checkout's inputs
    # a checkout holds SafeRelBench's committed `generated` config: the demo's card lists it beside `demo`
    import shutil

    generated = Path(__file__).resolve().parents[1] / "saferelbench" / "data" / "generated"
    if generated.is_dir():
        shutil.copytree(generated, tmp_path / "saferelbench" / "data" / "generated")
    result = CliRunner().invoke(cli, ["demo", "--out", str(tmp_path / "out")])
    assert result.exit_code == 0, result.output
    assert "demo finished" in result.output
    page = tmp_path / "out" / "leaderboard" / "index.html"
    html = page.read_text()
    assert page.is_file() and all(name in html for name in ("MovSafeBench", "BD-HazardVLM", "SafeRelBench"))
    scores = {p.parent.name: json.loads(p.read_text()) for p in (tmp_path / "out" / "runs").glob("*/scores.json")}
    assert {score["benchmark"] for score in scores.values()} == {"movsafebench", "bd_hazardvlm", "saferelbench"}
    assert len(scores) == 9
    # the oracle plan is safe and successful on every demo sample; the empty plan never succeeds
    assert scores["saferelbench-fixed-reference"]["SSR"] == 1.0
    assert scores["saferelbench-fixed-empty"]["SR"] == 0.0
    # the published demo data load from the scratch folder, as from the repo root
    import datasets

    assert len(datasets.load_dataset("movsafebench", "demo", split="test")) > 20
    recipe = json.loads((tmp_path / "manifests" / "saferelbench" / "demo.json").read_text())
    assert len(datasets.load_dataset("saferelbench", "demo", split="test")) == recipe["samples"]  # the recipe's pairs
    assert len(datasets.load_dataset("bd_hazardvlm", "demo", split="test")) == 20
    # every path the demo printed exists
    for line in result.output.splitlines():
        for match in re.findall(r"(out/[\w./-]+\.(?:jsonl|json|parquet|html|md|png))\b", line):
            assert (tmp_path / match).exists() or (tmp_path / "out" / match.removeprefix("out/")).exists(), match
    # it ends with the next three commands (evaluate, score, submit) on paths that exist; score and validate run
    import shlex

    lines = result.output.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("next: evaluate your model"))
    commands = [shlex.split(line)[1:] for line in lines[start + 1:start + 4]]
    assert [c[0] for c in commands] == ["eval", "score", "validate"]
    assert Path(commands[0][commands[0].index("--data") + 1]).is_dir()
    for args in commands[1:]:
        for value in args:
            if "/" in value:
                assert Path(value).exists(), value
        ran = CliRunner().invoke(cli, args)
        assert ran.exit_code == 0, (args, ran.output)
    # the README's Start here shows the same three commands (the demo's default --out is out/demo), and so does
    # the documentation site's Getting started page; both show the table of baseline scores the demo printed
    root = Path(__file__).resolve().parents[1]
    printed = [[a.replace(str(tmp_path / "out"), "out/demo") for a in c] for c in commands]
    for page in (root / "README.md", root / "docs" / "getting-started.md"):
        readme = page.read_text()
        block = readme[readme.index("## Start here"):].split("```bash\n", 1)[1].split("```", 1)[0]
        shown = [shlex.split(line.split("#", 1)[0]) for line in block.replace("\\\n", " ").splitlines()
                 if line.startswith("hazardkit ")]
        assert shown == [["hazardkit", *c] for c in printed], (page.name, shown, printed)
        table = readme[readme.index("The baselines' headline scores the demo prints"):].split("\n\n", 2)[1]
        listed = [[c.strip().strip("`") for c in row.strip("|").split("|")] for row in table.splitlines()[2:]]
        assert len(listed) == 9, page.name
        for bench, model, headline in listed:
            assert re.search(rf"{re.escape(bench)} {re.escape(model)}: \S+ \({re.escape(headline)}\)",
                             result.output), (page.name, bench, model, headline, lock_drift())
    # `make demo` leaves a checkout clean: the cards it writes are the committed ones (byte sizes aside: those
    # follow the encoders, see tests/lock.py; every count and statement must match)
    for folder in ("movsafebench", "bd_hazardvlm", "saferelbench"):
        assert byte_sizes_masked((tmp_path / folder / "README.md").read_text()) == byte_sizes_masked(
            (root / folder / "README.md").read_text()), (folder, lock_drift())
