"""The documentation site builds with `mkdocs build --strict` (a broken link or anchor, a page left out of
the nav, an API object that no longer exists each fail it), and what it shows comes from the code: the prompts
are the ones the benchmarks send, the API reference documents the scoring functions and the registry."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_mkdocs_build_strict(tmp_path):
    site = tmp_path / "site"
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1", "PYTHONPATH": str(ROOT)}
    # no --quiet: it raises the log level above WARNING, so --strict never sees (and never counts) a warning
    done = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "-f",
                           str(ROOT / "mkdocs.yml"), "--site-dir", str(site)],
                          cwd=ROOT, env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    from eval_kit.bd_hazardvlm.spec import PROMPT
    from eval_kit.movsafebench.spec import build_question

    msb = (site / "movsafebench" / "index.html").read_text(encoding="utf-8")
    assert "Which direction is the safest to move next?" in build_question("vehicle")
    assert "Which direction is the safest to move next?" in msb and "hazardkit-prompt:" not in msb
    bd = (site / "bd-hazardvlm" / "index.html").read_text(encoding="utf-8")
    assert PROMPT.splitlines()[0].split(".")[0] in bd
    srb = (site / "saferelbench" / "index.html").read_text(encoding="utf-8")
    assert "You control a household robot" in srb
    api = (site / "api" / "scoring" / "index.html").read_text(encoding="utf-8")
    for name in ("eval_kit.movsafebench.scoring.compute_scores", "eval_kit.bd_hazardvlm.scoring.compute_scores",
                 "eval_kit.saferelbench.scoring.compute_scores", "eval_kit.scoring.significance.mcnemar_exact"):
        assert f'id="{name}"' in api, name
    assert 'id="eval_kit.registry.Benchmark"' in (site / "api" / "registry" / "index.html").read_text(encoding="utf-8")
    # every page of docs/ became a page of the site
    for page in (p.relative_to(ROOT / "docs").as_posix() for p in (ROOT / "docs").rglob("*.md")):
        built = site / "index.html" if page == "index.md" else site / page.removesuffix(".md") / "index.html"
        assert built.is_file(), page
