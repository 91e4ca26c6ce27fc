"""Leaderboard: the results table (add, de-duplicate, atomic), McNemar + Holm, Markdown rendering."""

import json

import pytest
from click.testing import CliRunner
from scipy.stats import binomtest

from builder.cli import cli
from eval_kit.leaderboard.results import read_table
from eval_kit.leaderboard.significance import mcnemar_exact, pairwise_matrix


def hk(*args):
    result = CliRunner().invoke(cli, [str(a) for a in args])
    return result.exit_code, result.output


def result(model, acc, run="r1", correct=None, benchmark="movsafebench"):
    out = {"benchmark": benchmark, "model": model, "run": run, "backend": "baseline", "accuracy": acc,
           "ci95": [acc - 0.05, acc + 0.05], "num_samples": 10, "unparsed": 0, "missing": 0,
           "by_scenario": {"static": acc, "motion": acc / 2}, "by_category": {"dog": acc}}
    if correct is not None:
        out["per_sample"] = {"id": [f"s{i}" for i in range(len(correct))], "correct": correct}
    return out


def write(tmp_path, name, obj):
    path = tmp_path / name
    path.write_text(json.dumps(obj))
    return path


def test_add_deduplicates_by_model_and_run(tmp_path):
    table = tmp_path / "lb" / "results.parquet"
    a = write(tmp_path, "a.json", result("m1", 0.5))
    b = write(tmp_path, "b.json", result("m2", 0.7))
    code, out = hk("leaderboard", "add", a, b, "--table", table)
    assert code == 0 and "2 added, 0 replaced" in out
    a2 = write(tmp_path, "a2.json", result("m1", 0.6))
    c = write(tmp_path, "c.json", result("m1", 0.4, run="r2"))
    code, out = hk("leaderboard", "add", a2, c, "--table", table)
    assert code == 0 and "1 added, 1 replaced" in out
    rows = read_table(table)
    assert sorted((r["model"], r["run"], r["headline"]) for r in rows) == [("m1", "r1", 0.6), ("m1", "r2", 0.4),
                                                                           ("m2", "r1", 0.7)]
    assert not list(table.parent.glob(".*tmp"))  # atomic write left no temporary file


def test_add_rejects_bad_results(tmp_path):
    table = tmp_path / "t.parquet"
    cases = [
        (write(tmp_path, "x.json", {"model": "m"}), "result has no 'benchmark'"),
        (write(tmp_path, "y.json", {"benchmark": "movsafebench", "accuracy": 0.3}), "names no model"),
        (write(tmp_path, "z.json", [1, 2]), "expected a JSON object"),
        (write(tmp_path, "w.json", {**result("m", 0.1), "accuracy": "high"}), "'accuracy' is not a number"),
        (tmp_path / "nope.json", "results file not found"),
    ]
    (tmp_path / "bad.json").write_text("{not json")
    cases.append((tmp_path / "bad.json", "not a JSON file"))
    for path, message in cases:
        code, out = hk("leaderboard", "add", path, "--table", table)
        assert code == 2 and message in out and "Traceback" not in out, out
    code, out = hk("leaderboard", "add", write(tmp_path, "y2.json", {"benchmark": "movsafebench", "accuracy": 0.3}),
                   "--table", table, "--model", "named-here")
    assert code == 0
    code, out = hk("leaderboard", "render", "--table", tmp_path / "none.parquet", "--out", tmp_path / "o")
    assert code == 2 and "empty or missing" in out


def test_mcnemar_matches_the_binomial_test():
    a = {f"s{i}": i % 3 != 0 for i in range(60)}
    b = {f"s{i}": i % 5 != 0 for i in range(60)}
    p, n, only_a, only_b = mcnemar_exact(a, b)
    assert n == 60
    assert only_a == sum(a[i] and not b[i] for i in a) and only_b == sum(b[i] and not a[i] for i in a)
    assert p == pytest.approx(binomtest(only_a, only_a + only_b, 0.5).pvalue)
    assert mcnemar_exact(a, a)[0] == 1.0


def test_holm_adjustment_over_all_pairs():
    n = 80
    models = {"good": {f"s{i}": i % 10 != 0 for i in range(n)},
              "bad": {f"s{i}": i % 2 == 0 for i in range(n)},
              "also_good": {f"s{i}": i % 10 != 1 for i in range(n)}}
    matrix = pairwise_matrix(models)
    raw = sorted((matrix["pairs"][p]["p"], p) for p in [("good", "bad"), ("good", "also_good"), ("bad", "also_good")])
    # Holm: the smallest p times 3, the next times 2 (monotone), the largest times 1
    p1, p2, p3 = (x[0] for x in raw)
    assert matrix["pairs"][raw[0][1]]["p_holm"] == pytest.approx(min(1, 3 * p1))
    assert matrix["pairs"][raw[1][1]]["p_holm"] == pytest.approx(min(1, max(3 * p1, 2 * p2)))
    assert matrix["pairs"][raw[2][1]]["p_holm"] == pytest.approx(min(1, max(3 * p1, 2 * p2, p3)))
    assert matrix["pairs"][("good", "bad")]["significant"] and not matrix["pairs"][("good", "also_good")]["significant"]
    assert matrix["pairs"][("bad", "good")]["wins"] == matrix["pairs"][("good", "bad")]["losses"]


def test_markdown_has_tables_breakdowns_ci_and_matrix(tmp_path):
    table = tmp_path / "t.parquet"
    correct_a = [True] * 40 + [False] * 10
    correct_b = [True] * 20 + [False] * 30
    files = [write(tmp_path, "a.json", result("model-a", 0.8, correct=correct_a)),
             write(tmp_path, "b.json", result("model-b", 0.4, correct=correct_b)),
             write(tmp_path, "c.json", result("other", 0.5, benchmark="otherbench"))]  # no board: generic
    assert hk("leaderboard", "add", *files, "--table", table)[0] == 0
    code, out = hk("leaderboard", "render", "--table", table, "--out", tmp_path / "site")
    assert code == 0, out
    md = (tmp_path / "site" / "leaderboard.md").read_text()
    assert "## MovSafeBench" in md and "## otherbench" in md
    assert "| 1 | model-a | baseline | 80.0 | [75.0, 85.0] |" in md
    assert md.index("model-a") < md.index("model-b")  # ranked by the headline metric
    assert "### Accuracy by scenario (paper table 3)" in md and "| model-a | 80.0 | 40.0 |" in md
    p = binomtest(20, 20, 0.5).pvalue
    assert f"{p:.3g}* (20/0)" in md  # one pair: Holm leaves p unchanged; model-a right where model-b wrong 20 times
    assert (tmp_path / "site" / "plots" / "movsafebench_by_scenario.png").stat().st_size > 1000
    assert "![" in md and "plots/movsafebench_by_scenario.png" in md
