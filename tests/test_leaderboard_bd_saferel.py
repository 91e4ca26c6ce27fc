"""Leaderboard for BD-HazardVLM and SafeRelBench: real baseline runs -> score run -> add -> render (+ Chromium)."""

import json
import re
from pathlib import Path

import pytest
from scipy.stats import binomtest

from eval_kit.leaderboard.results import read_table
from eval_kit.scoring import significance
from tests.cli_helpers import hk
from tests.test_leaderboard_page import browse, chromium  # noqa: F401  (fixture)

ROOT = Path(__file__).resolve().parents[1]
SR_SAMPLES = ROOT / "manifests" / "saferelbench" / "demo.jsonl"


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> Path:
    tmp = tmp_path_factory.mktemp("lb3")
    bd = tmp / "bd_hazardvlm"
    hk("reconstruct", "bd-hazardvlm", "--demo", "--out", bd)
    runs = []
    for model in ("majority", "fixed:no_major_hazard", "random"):
        out = tmp / "runs" / f"bd_{model.replace(':', '_')}"
        hk("eval", "bd-hazardvlm", "-m", model, "-b", "baseline", "--data", bd, "--out", out, "--no-progress")
        runs.append(out)
    out = tmp / "runs" / "bd_majority_text"
    hk("eval", "bd-hazardvlm", "-m", "majority", "-b", "baseline", "--data", bd, "--out", out, "--no-progress",
       "--text-only")
    runs.append(out)
    for plan, variant in (("reference", "base"), ("unmitigated", "base"), ("unmitigated", "risk_aware"),
                          ("empty", "base")):
        out = tmp / "runs" / f"sr_{plan}_{variant}"
        hk("eval", "saferelbench", "-m", f"fixed:{plan}", "-b", "baseline", "--data", SR_SAMPLES,
           "--prompt-variant", variant, "--out", out, "--no-progress")
        runs.append(out)
    for out in runs:
        hk("score", "run", out)
    hk("leaderboard", "add", *(r / "scores.json" for r in runs), "--table", tmp / "results.parquet")
    hk("leaderboard", "render", "--table", tmp / "results.parquet", "--out", tmp / "site")
    return tmp / "site"


def section(md: str, title: str) -> str:
    start = md.index(f"## {title}: config ")
    end = md.find("\n## ", start + 1)
    return md[start:] if end < 0 else md[start:end]


def test_results_table_rows_and_headlines(site):
    rows = read_table(site.parent / "results.parquet")
    by = {(r["benchmark"], r["model"]): r for r in rows}
    assert len(rows) == 8
    # demo data: marked, with the config and revision each run recorded
    assert all(r["synthetic"] for r in rows) and {r["config"] for r in rows} == {"demo", "default"}
    assert all(r["dataset_revision"].startswith("sha256:") for r in rows)
    bd = json.loads(by[("bd_hazardvlm", "fixed:no_major_hazard")]["result_json"])
    assert by[("bd_hazardvlm", "fixed:no_major_hazard")]["headline"] == bd["category"]["accuracy"]
    assert by[("saferelbench", "fixed:reference")]["headline"] == 1.0
    assert by[("saferelbench", "fixed:empty")]["headline"] == 0.0
    assert json.loads(by[("saferelbench", "fixed:empty")]["result_json"])["variant"] == "base"  # a column, not a name
    assert ("bd_hazardvlm", "majority (text-only)") in by  # the text-only control is its own row


def test_bd_board_columns_breakdowns_and_matrices(site):
    md = section((site / "leaderboard.md").read_text(), "BD-HazardVLM")
    for column in ("Category accuracy (%)", "Category macro-F1 (%)", "Timing acc. (%)", "Severity acc. (%)",
                   "Hallucination-trap recall (%)", "Western-bias-trap recall (%)", "Format retries"):
        assert column in md
    assert "### Recall by hazard category" in md and "| Model | informal_pedestrian_crossing |" in md
    titles = re.findall(r"### Pairwise significance: ([a-z ]+) \(", md)
    assert titles == ["category", "risk timing", "severity"]
    # the category matrix cell of majority vs fixed:no_major_hazard is the exact McNemar test, Holm-adjusted
    scores = {m: json.loads((site.parent / "runs" / f"bd_{m}" / "scores.json").read_text())
              for m in ("majority", "fixed_no_major_hazard", "random", "majority_text")}
    a = scores["majority"]["per_sample"]["correct"]
    b = scores["fixed_no_major_hazard"]["per_sample"]["correct"]
    only_a = sum(x and not y for x, y in zip(a, b, strict=True))
    only_b = sum(y and not x for x, y in zip(a, b, strict=True))
    _, p, counts = significance.mcnemar_exact(a, b)
    assert p == pytest.approx(binomtest(min(only_a, only_b), only_a + only_b, 0.5).pvalue)
    assert (counts["only_a_correct"], counts["only_b_correct"]) == (only_a, only_b)
    assert f"({only_a}/{only_b})" in md
    [plot] = (site / "plots").glob("bd_hazardvlm_*demo_category_per_class_recall.png")  # _<version>_ between
    assert plot.stat().st_size > 1000


def test_saferel_board_by_relation_tables(site):
    md = section((site / "leaderboard.md").read_text(), "SafeRelBench")
    for heading in ("### SR by relation", "### SSR by relation", "### SRec by relation",
                    "### SSR by relation, spatial vs control", "### SSR by risk type"):
        assert heading in md
    assert "| Model | supporting | containment | proximity |" in md
    sr_table = md.split("### SR by relation")[1].split("###")[0]
    assert re.search(r"\| fixed:reference \| 100\.0 \| 100\.0 \| 100\.0 \|", sr_table)
    assert re.search(r"\| fixed:empty \| 0\.0 \| 0\.0 \| 0\.0 \|", sr_table)
    assert "| 1 | fixed:reference | baseline | 100.0 |" in md  # ranked by SSR
    ranking = md.split("###")[0]
    assert "| Prompt variant |" in ranking and "| base |" in ranking  # the variant is a column, not a name
    assert "Pairwise significance: SSR" in md and "Pairwise significance: SR" in md
    [plot] = (site / "plots").glob("saferelbench_*default_synthetic_by_relation_SSR.png")
    assert plot.stat().st_size > 1000


def test_page_with_all_boards_in_chromium(chromium, site, tmp_path):  # noqa: F811
    dom = browse(chromium, ["--virtual-time-budget=10000", "--dump-dom", (site / "index.html").as_uri() + "#selftest"],
                 tmp_path)
    assert dom.returncode == 0, dom.stderr[-2000:]
    attrs = dict(re.findall(r'data-([a-z-]+)="([^"]*)"', re.search(r"<body([^>]*)>", dom.stdout).group(1)))
    assert attrs.get("selftest") == "done", attrs
    assert int(attrs["images-total"]) == 2 and attrs["images-loaded"] == attrs["images-total"]
    assert int(attrs["tables"]) >= 2 + 3 + 3 + 5 + 2  # rankings, BD breakdowns + matrices, SafeRel tables + matrices
    assert re.search(r'id="bd_hazardvlm-[^"]+-demo-synthetic"', dom.stdout)  # <benchmark>-<version>-<config>
    assert re.search(r'id="saferelbench-[^"]+-default-synthetic"', dom.stdout)
