"""leaderboard.md makes no link from a name, checked with GitHub's own renderer (cmark-gfm, through cmarkgfm):
URLs, `www.`, e-mail addresses and `<autolinks>` stay the text they were, in every table and heading."""

import html
import json
import re

import cmarkgfm
import pytest
from cmarkgfm.cmark import Options

from eval_kit.leaderboard.render import md_text
from tests.cli_helpers import hk

NAMES = [
    "https://evil.example/phish", "http://a.example", "ftp://files.example/x", "www.example.com",
    "WWW.Example.Org/path", "Visit www.example.net now", "alice@example.org", "mailto:bob@example.org",
    "xmpp:carol@example.org", "<https://auto.example>", "<dave@example.org>", "[click](https://x.example)",
    "`tick` @ https://q.example|r", "model | with pipe", "<script>alert(1)</script>", "fixed:reference",
]


def gfm(markdown: str) -> str:
    """HTML as GitHub renders it: cmark-gfm with the table, autolink, strikethrough and tagfilter extensions."""
    return cmarkgfm.github_flavored_markdown_to_html(markdown, options=Options.CMARK_OPT_UNSAFE)


def cell_text(cell: str) -> str:
    return html.unescape(re.sub(r"</?code>", "", cell))


@pytest.mark.parametrize("name", NAMES)
def test_a_name_in_a_table_cell_is_its_own_text_and_never_a_link(name):
    rendered = gfm(f"| Model |\n|---|\n| {md_text(name)} |\n")
    cell = rendered.split("<td>")[1].split("</td>")[0]
    assert "<a " not in rendered and cell_text(cell) == name, rendered


def test_the_rendered_leaderboard_has_no_link_from_any_name(tmp_path):
    results = []
    for i, name in enumerate(NAMES):
        path = tmp_path / f"r{i}.json"
        path.write_text(json.dumps({
            "benchmark": "movsafebench", "config": "main", "dataset_revision": "v1.0.0", "model": name,
            "run": f"run-{i}", "backend": "baseline", "accuracy": 0.5 + i / 100, "ci95": [0.4, 0.7],
            "num_samples": 10, "unparsed": 1, "missing": 0, "by_scenario": {"static": 0.5, "motion": 0.25},
            "per_sample": {"id": [f"s{k}" for k in range(10)], "correct": [k % (i % 3 + 2) == 0 for k in range(10)]}}))
        results.append(path)
    table = tmp_path / "results.parquet"
    hk("leaderboard", "add", *results, "--table", table)
    hk("leaderboard", "render", "--table", table, "--out", tmp_path / "site")
    rendered = gfm((tmp_path / "site" / "leaderboard.md").read_text())
    assert "<a " not in rendered  # not one link: names in the ranking, breakdowns, matrices, plot titles
    cells = {cell_text(c) for c in re.findall(r"<td>(.*?)</td>", rendered)}
    assert set(NAMES) <= cells  # each name shown exactly as submitted
