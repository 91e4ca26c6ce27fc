"""Leaderboard: the results table (add, de-duplicate, atomic), McNemar + Holm, Markdown rendering."""

import json
import os
import re
from pathlib import Path

import pytest
from click.testing import CliRunner
from scipy.stats import binomtest

from builder.cli import cli
from eval_kit.leaderboard.results import read_table, result_row, write_table
from eval_kit.leaderboard.significance import mcnemar_exact, pairwise_matrix


def hk(*args):
    result = CliRunner().invoke(cli, [str(a) for a in args])
    return result.exit_code, result.output


def result(model, acc, run="r1", correct=None, benchmark="movsafebench", config="main"):
    out = {"benchmark": benchmark, "config": config, "dataset_revision": "v1.0.0", "model": model, "run": run,
           "backend": "baseline", "accuracy": acc,
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
        (write(tmp_path, "v.json", {"benchmark": "movsafebench", "model": "m", "accuracy": 0.3}),
         "result names no dataset config"),
        (write(tmp_path, "z.json", [1, 2]), "expected a JSON object"),
        (write(tmp_path, "w.json", {**result("m", 0.1), "accuracy": "high"}), "'accuracy' is not a number"),
        (tmp_path / "nope.json", "results file not found"),
    ]
    (tmp_path / "bad.json").write_text("{not json")
    cases.append((tmp_path / "bad.json", "malformed JSON"))
    for path, message in cases:
        code, out = hk("leaderboard", "add", path, "--table", table)
        assert code == 2 and message in out and "Traceback" not in out, out
    code, out = hk("leaderboard", "add", write(tmp_path, "y2.json", {"benchmark": "movsafebench", "accuracy": 0.3}),
                   "--table", table, "--model", "named-here", "--config", "main", "--dataset-revision", "v1")
    assert code == 0, out
    assert read_table(table)[0]["config"] == "main" and read_table(table)[0]["dataset_revision"] == "v1"
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
    assert "## MovSafeBench: config main" in md and "## otherbench: config main" in md
    assert ("| 1 | model-a | baseline | 80.0 | [75.0, 85.0] | 10 | 0 (0.0%) | 0 | main | local (unreleased) | v1.0.0 |"
            in md)  # unparsed answers: count and share
    assert md.index("model-a") < md.index("model-b")  # ranked by the headline metric
    assert "### Accuracy by scenario (paper table 3)" in md and "| model-a | 80.0 | 40.0 |" in md
    p = binomtest(20, 20, 0.5).pvalue
    assert f"{p:.3g}* (20/0)" in md  # one pair: Holm leaves p unchanged; model-a right where model-b wrong 20 times
    assert (tmp_path / "site" / "plots" / "movsafebench_u_v1_0_0_main_by_scenario.png").stat().st_size > 1000
    assert "![" in md and "plots/movsafebench_u_v1_0_0_main_by_scenario.png" in md


def one_line_error(code, out):
    lines = out.strip().splitlines()
    return code == 2 and len(lines) == 1 and lines[0].startswith("error: ") and "Traceback" not in out


def test_rows_carry_provenance_and_the_page_shows_it(tmp_path):
    """A run folder's scores.json gives config and revision (run.json); a published folder gives the version."""
    refs = tmp_path / "dataset"
    (refs / "data" / "full").mkdir(parents=True)
    (refs / "release-manifest.json").write_text(json.dumps({"version": "1.2.0"}))
    run = tmp_path / "run"
    run.mkdir()
    (run / "run.json").write_text(json.dumps({"data": str(refs), "identity": {
        "benchmark": "movsafebench", "config": "full", "dataset_revision": "v1.2.0"}}))
    res = result("m1", 0.5)
    for key in ("config", "dataset_revision"):
        del res[key]
    scores = write(run, "scores.json", res)
    table = tmp_path / "t.parquet"
    code, out = hk("leaderboard", "add", scores, "--table", table)
    assert code == 0, out
    row = read_table(table)[0]
    assert (row["config"], row["dataset_version"], row["dataset_revision"], row["synthetic"]) == (
        "full", "1.2.0", "v1.2.0", False)
    assert json.loads(row["result_json"])["config"] == "full"
    assert hk("leaderboard", "render", "--table", table, "--out", tmp_path / "site")[0] == 0
    md = (tmp_path / "site" / "leaderboard.md").read_text()
    assert "| Config | Dataset version | Revision |" in md and "| full | 1.2.0 | v1.2.0 |" in md
    page = (tmp_path / "site" / "index.html").read_text()
    assert '<th class="c-revision">Revision</th>' in page and ">v1.2.0</td>" in page
    assert "v1.2.0 (1 result)" in page  # the version choice says how many results it holds


def test_synthetic_configs_are_marked_and_ranked_apart(tmp_path):
    table = tmp_path / "t.parquet"
    files = [write(tmp_path, "real.json", result("real-model", 0.4)),
             write(tmp_path, "demo.json", result("demo-baseline", 0.9, config="demo")),
             write(tmp_path, "syn.json", {**result("synthetic-ids", 0.95), "per_sample": {
                 "id": ["synthetic-00000001"], "correct": [True]}})]
    assert hk("leaderboard", "add", *files, "--table", table)[0] == 0
    flags = {r["model"]: r["synthetic"] for r in read_table(table)}
    assert flags == {"real-model": False, "demo-baseline": True, "synthetic-ids": True}
    assert hk("leaderboard", "render", "--table", table, "--out", tmp_path / "site")[0] == 0
    md = (tmp_path / "site" / "leaderboard.md").read_text()
    real = md.index("## MovSafeBench: config main")
    demo = md.index("## MovSafeBench: config demo")
    assert real < demo  # real configs first
    real_section = md[real:demo]
    assert "| 1 | real-model |" in real_section and "demo-baseline" not in real_section
    assert "synthetic-ids" not in real_section  # synthetic ids never rank with the real config's rows
    assert "Demo / synthetic data" in md[demo:] and "| 1 | demo-baseline |" in md[demo:]


def test_ties_share_a_rank(tmp_path):
    table = tmp_path / "t.parquet"
    files = [write(tmp_path, f"{m}.json", result(m, acc)) for m, acc in
             (("a", 0.7), ("b", 0.5), ("c", 0.7), ("d", 0.4), ("e", 0.5))]
    assert hk("leaderboard", "add", *files, "--table", table)[0] == 0
    assert hk("leaderboard", "render", "--table", table, "--out", tmp_path / "site")[0] == 0
    md = (tmp_path / "site" / "leaderboard.md").read_text()
    ranked = re.findall(r"^\| (\d+) \| ([a-e]) \| baseline \|", md, re.M)
    assert ranked == [("1", "a"), ("1", "c"), ("3", "b"), ("3", "e"), ("5", "d")]


@pytest.mark.parametrize("benchmark", ["../../x/pwned", "/tmp/abs/pwned", "a/b", "..", "bench name", "x" * 65])
def test_a_hostile_benchmark_name_is_refused_and_never_becomes_a_path(tmp_path, benchmark):
    table = tmp_path / "work" / "t.parquet"
    code, out = hk("leaderboard", "add", write(tmp_path, "r.json", result("m", 0.5, benchmark=benchmark)),
                   "--table", table)
    assert one_line_error(code, out) and "field 'benchmark'" in out, out
    # a table written by other means (an old version, a hand edit) is checked again at render time
    row = result_row(result("m", 0.5), source="r.json")
    write_table(table, [{**row, "benchmark": benchmark}])
    before = {p for p in tmp_path.rglob("*")}
    code, out = hk("leaderboard", "render", "--table", table, "--out", tmp_path / "work" / "site")
    assert one_line_error(code, out), out
    created = {p for p in tmp_path.rglob("*")} - before
    assert all(p.is_relative_to(tmp_path / "work" / "site") for p in created), created
    assert not Path("/tmp/abs/pwned").exists() and not (tmp_path.parent / "x").exists()


def test_a_hostile_config_name_is_refused(tmp_path):
    code, out = hk("leaderboard", "add", write(tmp_path, "r.json", result("m", 0.5, config="../../etc")),
                   "--table", tmp_path / "t.parquet")
    assert one_line_error(code, out) and "field 'config'" in out, out


@pytest.mark.parametrize("text, field", [
    ('"ci95": "ab"', "ci95"), ('"ci95": [0.1]', "ci95"), ('"ci95": [0.9, 0.1]', "ci95"),
    ('"ci95": [NaN, 0.5]', None), ('"accuracy": NaN', None), ('"accuracy": Infinity', None),
    ('"accuracy": -Infinity', None), ('"accuracy": true', "accuracy"), ('"accuracy": 1e400', None),
    ('"num_samples": "ten"', "num_samples"), ('"model": "m", "model": "n"', None), ('"model": ["x"]', "model"),
    ('"model": "a\\nb"', "model"),
])
def test_add_refuses_bad_numbers_and_fields_with_one_line(tmp_path, text, field):
    base = result("m", 0.5)
    key = text.split('"')[1]
    base.pop(key, None)
    body = json.dumps(base)[:-1] + ", " + text + "}"
    path = tmp_path / "r.json"
    path.write_text(body)
    code, out = hk("leaderboard", "add", path, "--table", tmp_path / "t.parquet")
    assert one_line_error(code, out), out
    if field:
        assert f"field '{field}'" in out, out
    assert not (tmp_path / "t.parquet").exists()


def test_add_refuses_deep_nesting_and_huge_integers(tmp_path):
    deep = tmp_path / "deep.json"
    deep.write_text("[" * 100_000 + "]" * 100_000)
    big = tmp_path / "big.json"
    big.write_text('{"benchmark": "movsafebench", "num_samples": ' + "9" * 5000 + "}")
    for path in (deep, big):
        code, out = hk("leaderboard", "add", path, "--table", tmp_path / "t.parquet")
        assert one_line_error(code, out) and len(out) < 300, out


def test_markdown_and_page_carry_no_raw_html_from_model_names(tmp_path):
    table = tmp_path / "t.parquet"
    names = ["<script>alert(1)</script>", "<img src=x onerror=alert(2)>", "[click](javascript:alert(3))",
             "a|b", "&lt;b&gt;entity"]
    files = [write(tmp_path, f"{i}.json", result(n, 0.1 * (i + 1), correct=[True, False] * 5))
             for i, n in enumerate(names)]
    assert hk("leaderboard", "add", *files, "--table", table)[0] == 0
    assert hk("leaderboard", "render", "--table", table, "--out", tmp_path / "site")[0] == 0
    md = (tmp_path / "site" / "leaderboard.md").read_text()
    page = (tmp_path / "site" / "index.html").read_text()
    for text in (md, page):
        assert "<script>alert" not in text and "<img src=x" not in text and "<b>" not in text
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in md and "&amp;lt;b&amp;gt;entity" in md
    assert "[click]\\(javascript" in md and "](javascript" not in md  # no link
    assert "a\\|b" in md
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in page


def test_render_and_add_refuse_what_they_cannot_use(tmp_path):
    table = tmp_path / "t.parquet"
    row = result_row(result("m", 0.5), source="r.json")
    write_table(table, [{**row, "result_json": "{not json"}])
    code, out = hk("leaderboard", "render", "--table", table, "--out", tmp_path / "site")
    assert one_line_error(code, out) and "result_json is not a JSON object" in out
    write_table(table, [row])
    (tmp_path / "file").write_text("x")
    code, out = hk("leaderboard", "render", "--table", table, "--out", tmp_path / "file")
    assert one_line_error(code, out) and "--out is a file" in out
    fifo = tmp_path / "fifo.json"
    os.mkfifo(fifo)
    for path in (fifo, tmp_path):  # a FIFO is never opened (no hang); a folder is not a results file
        code, out = hk("leaderboard", "add", path, "--table", table)
        assert one_line_error(code, out) and "regular file" in out
    for command in ("add", "render"):
        args = [write(tmp_path, "ok.json", result("m", 0.5))] if command == "add" else ["--out", tmp_path / "s"]
        code, out = hk("leaderboard", command, *args, "--table", tmp_path)
        assert one_line_error(code, out) and "the results table is not a file" in out
    code, out = hk("leaderboard", "submissions", "--space-dir", tmp_path / "file")
    assert one_line_error(code, out) and "data folder is a file" in out
