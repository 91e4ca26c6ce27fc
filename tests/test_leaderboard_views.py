"""The leaderboard's cells, overview, HTML and the app's views without a browser: versions stay apart, the newest
is shown first with counts, the overview ranks a model across benchmarks, a change rebuilds only its own cell,
and a submission's metadata wins over the form."""

import json
import zipfile
from pathlib import Path

from eval_kit.leaderboard import html_page
from eval_kit.leaderboard.cells import cells, model_type, version_label, versions
from eval_kit.leaderboard.render import build, page
from eval_kit.leaderboard.results import add_results, read_table, result_row, write_table
from eval_kit.leaderboard.space.pipeline import Leaderboard
from eval_kit.leaderboard.space.views import Views
from tests.cli_helpers import hk
from tests.test_leaderboard_space import predictions, refs, settings  # noqa: F401  (refs: fixture)


def row(model, acc, *, version=None, revision="v1", benchmark="movsafebench", config="default", backend="vllm",
        correct=None, added="2026-12-01T10:00:00+00:00"):
    res = {"benchmark": benchmark, "config": config, "dataset_revision": revision, "model": model, "run": model,
           "accuracy": acc, "SSR": acc, "ci95": [acc - 0.05, acc + 0.05], "num_samples": 40,
           "by_scenario": {"static": acc, "motion": acc / 2}, "support": {"by_scenario": {"static": 30, "motion": 4}}}
    if correct is not None:
        res["per_sample"] = {"id": [f"s{i}" for i in range(len(correct))], "correct": correct}
    r = result_row(res, source="t", version=version, backend=backend)
    r["added_at"] = added
    return r


def test_versions_are_listed_newest_first_with_counts_and_never_mixed():
    rows = [row("a", 0.5, version="0.1.0"), row("b", 0.9, version="0.10.0"), row("c", 0.7, version="0.2.0"),
            row("d", 0.6, version="0.2.0"), row("e", 0.4, revision="sha256:" + "ab" * 32)]
    assert versions(rows) == [("0.10.0", "v0.10.0", 1), ("0.2.0", "v0.2.0", 2), ("0.1.0", "v0.1.0", 1),
                              (f"unreleased:sha256:{'ab' * 32}", "unreleased (sha256:abababab…)", 1)]
    found = cells(rows)
    assert [(c.version, sorted(r["model"] for r in c.rows)) for c in found] == [
        ("0.10.0", ["b"]), ("0.2.0", ["c", "d"]), ("0.1.0", ["a"]), (f"unreleased:sha256:{'ab' * 32}", ["e"])]
    sections = build(rows, Path("/nonexistent"), plots=False)
    assert [[m["model"] for m in s["meta"]] for s in sections] == [["b"], ["c", "d"], ["a"], ["e"]]
    assert [s["rows"][0][0] for s in sections] == ["1", "1", "1", "1"]  # each ranked within its own version
    assert version_label("unreleased:unknown") == "unreleased (unknown)"


def test_significance_and_plots_stay_within_a_version(tmp_path):
    right = [True] * 30 + [False] * 10
    rows = [row("new-a", 0.75, version="0.2.0", correct=right), row("new-b", 0.3, version="0.2.0",
                                                                     correct=[not x for x in right]),
            row("old-c", 0.5, version="0.1.0", correct=right)]
    sections = build(rows, tmp_path)
    new, old = sections
    assert new["matrices"][0]["matrix"]["models"] == ["new-a", "new-b"]
    assert old["matrices"] == []  # one row: nothing to compare it with, and never with another version
    files = [p["file"] for s in sections for p in s["plots"]]
    assert len(set(files)) == 2 and all((tmp_path / f).is_file() for f in files)  # one plot per version


def test_only_the_top_models_are_plotted_and_compared(tmp_path):
    rows = [row(f"m{i:02d}", 0.3 + i / 100, version="1.0.0", correct=[bool((i + k) % 3) for k in range(40)])
            for i in range(14)]
    [section] = build(rows, tmp_path)
    matrix = section["matrices"][0]
    assert matrix["of"] == 14 and matrix["matrix"]["models"] == [f"m{i:02d}" for i in range(13, 3, -1)]
    assert "top 10 of 14" in section["plots"][0]["title"]


def test_breakdown_cells_carry_n_and_a_wilson_interval(tmp_path):
    [section] = build([row("a", 0.5, version="1.0.0")], tmp_path, plots=False)
    [breakdown] = section["breakdowns"]
    static, motion = breakdown["cells"][0]
    assert static["n"] == 30 and motion["n"] == 4
    from statsmodels.stats.proportion import proportion_confint

    assert static["ci"] == tuple(float(x) for x in proportion_confint(15, 30, method="wilson"))
    text = html_page.breakdown_table(section, breakdown)
    assert 'class="num muted"' in text and "n=4" in text  # 4 samples: muted
    assert "95% CI [33.2, 66.8] (Wilson)" in text


def test_the_overview_ranks_models_across_benchmarks():
    from eval_kit.leaderboard.overview import overview
    from eval_kit.leaderboard.render import primary_section

    rows = [row("a", 0.8), row("b", 0.6), row("c", 0.7),
            row("a", 0.2, benchmark="saferelbench"), row("b", 0.9, benchmark="saferelbench")]
    sections = build(rows, Path("/nonexistent"), plots=False)
    picked = {b: primary_section([s for s in sections if s["benchmark"] == b]) for b in ("movsafebench",
                                                                                        "saferelbench")}
    ov = overview(picked, {"movsafebench": "MovSafeBench", "saferelbench": "SafeRelBench"})
    got = [(r["model"], r["rank"], r["covered"], r["mean_rank"], [c and c["rank"] for c in r["cells"]])
           for r in ov["rows"]]
    assert got == [("a", 1, 2, 1.5, ["1", "2"]), ("b", 2, 2, 2.0, ["3", "1"]), ("c", 3, 1, 2.0, ["2", None])]
    text = html_page.overview_table(ov)
    assert text.count("<tr") == 4 and "2 of 2" in text and "1 of 2" in text


def test_the_page_has_a_navigation_bar_version_choice_filters_and_escapes_links(tmp_path):
    rows = [row("<b>bold</b>", 0.5, version="0.1.0"), row("x", 0.6, version="0.2.0"),
            row("fixed:left", 0.3, version="0.2.0", backend="baseline")]
    rows[0]["link"] = "javascript:alert(1)"
    rows[1]["link"] = "https://example.org/x?a=1&b=2"
    text = page(build(rows, tmp_path, plots=False), updated="2026-12-01 10:00 UTC")
    assert "<nav class='hk-nav'>" in text and "href='#overview'" in text and "href='#about'" in text
    assert "<option value='0.2.0' selected>v0.2.0 (2 results)</option><option value='0.1.0'>v0.1.0 (1 result)" in text
    assert 'data-version="0.1.0"' in text and 'data-version="0.2.0"' in text
    assert 'id="hide-baselines"' in text and 'data-col="revision"' in text
    assert 'data-type="baseline"' in text  # fixed:left is a baseline row
    assert "<b>bold" not in text and "&lt;b&gt;bold&lt;/b&gt;" in text
    assert 'href="javascript' not in text and 'href="https://example.org/x?a=1&amp;b=2"' in text
    assert "last updated 2026-12-01 10:00 UTC" in text
    assert text.count("class=\"hk-overview\" data-combo=") == 2  # one overview per choice of version


def test_model_types():
    assert [model_type({"backend": b, "model": m}) for b, m in (
        ("baseline", "x"), (None, "fixed:left"), ("vllm", "q"), ("openai", "g"), ("other", "o"), (None, "y"))] == [
        "baseline", "baseline", "open weights", "API", "other", "other"]


def test_a_change_rebuilds_only_its_own_cell(tmp_path, refs):  # noqa: F811
    lb = Leaderboard(settings(tmp_path, refs))
    write_table(lb.settings.table, [row("a", 0.5, version="0.2.0"), row("b", 0.6, version="0.2.0"),
                                    row("s", 0.4, benchmark="saferelbench")])
    views = Views(lb)
    assert "a" in views.board_html("movsafebench") and views.builds == 1
    views.board_html("saferelbench")
    assert views.builds == 2
    views.board_html("movsafebench")
    views.board_html("saferelbench")
    assert views.builds == 2  # nothing changed: nothing rebuilt
    add_results(lb.settings.table, [row("c", 0.9, version="0.2.0")])
    text = views.board_html("movsafebench")
    views.board_html("saferelbench")
    assert views.builds == 3 and "<td class=\"num c-rank\" data-v=\"1\">1</td>" in text  # only MovSafeBench again
    assert text.index(">c<") < text.index(">b<") < text.index(">a<")


def run_zip(tmp_path: Path, refs: Path, **meta_changes) -> Path:  # noqa: F811
    run = tmp_path / "run"
    hk("eval", "movsafebench", "-m", "majority", "-b", "baseline", "--data", refs, "--out", run, "--no-progress",
       "--text-only")
    meta = {**json.loads((run / "metadata.json").read_text()), **meta_changes}
    archive = tmp_path / "run.zip"
    with zipfile.ZipFile(archive, "w") as zf:
        zf.write(run / "predictions.jsonl", "run/predictions.jsonl")
        zf.writestr("run/metadata.json", json.dumps(meta))
    return archive


def test_the_metadata_wins_over_the_form_and_the_form_fills_the_rest(tmp_path, refs):  # noqa: F811
    lb = Leaderboard(settings(tmp_path, refs))
    archive = run_zip(tmp_path, refs, backend="openai", model="api-model", settings={"temperature": 0})
    outcome = lb.submit(archive, "run.zip", "movsafebench", "typed-name", "", "transformers", user="u1")
    assert outcome.status == "published", outcome.lines
    assert outcome.lines[1:3] == [
        "note: model 'api-model' is taken from metadata.json (the form's 'typed-name' is not used)",
        "note: backend 'openai' is taken from metadata.json (the form's 'transformers' is not used)"]
    [listed] = read_table(lb.settings.table)
    assert (listed["model"], listed["backend"], listed["text_only"]) == ("api-model", "openai", True)
    assert json.loads(listed["result_json"])["submission"]["settings"] == {"temperature": 0}
    assert lb.store.get(outcome.submission_id)["backend"] == "openai"
    [section] = build([listed], tmp_path, plots=False)
    assert section["meta"][0]["settings"] == "temperature=0"
    # the form fills what a predictions file cannot say
    plain = lb.submit(predictions(refs, tmp_path / "p.jsonl"), "p.jsonl", "movsafebench", "plain", "", "vllm",
                      user="u2")
    assert plain.status == "published", plain.lines
    assert {r["model"]: r["backend"] for r in read_table(lb.settings.table)}["plain"] == "vllm"
    # a zip whose metadata names the model needs no form name; a predictions file does
    nameless = lb.submit(run_zip(tmp_path / "z", refs), "run.zip", "movsafebench", "", user="u3")
    assert nameless.status == "published" and read_table(lb.settings.table)[-1]["model"] == "majority"
    missing = lb.submit(predictions(refs, tmp_path / "q.jsonl"), "q.jsonl", "movsafebench", "", user="u4")
    assert missing.status == "refused" and missing.lines == ["error: field 'model': no model"]


def test_the_leaderboards_holm_equals_statsmodels():
    import numpy as np

    from eval_kit.leaderboard.significance import holm
    from eval_kit.scoring import significance

    rng = np.random.default_rng(1)
    for n in (1, 2, 7, 45):
        p = [*(rng.random(n) ** 3), 0.01, 0.01, 1.0]  # ties and a 1 included
        ours, reference = holm(p), significance.holm(p)
        assert ours[0] == reference[0] and np.allclose(ours[1], reference[1], rtol=0, atol=1e-12)
    assert holm([]) == ([], [])


def test_pairwise_tests_are_computed_once_per_pair():
    from eval_kit.leaderboard.significance import pairwise_matrix

    models = {m: {f"s{i}": bool((i * k) % 3) for i in range(30)} for k, m in enumerate(("a", "b", "c"), 1)}
    cache: dict = {}
    ids = {m: (m, 1) for m in models}
    first = pairwise_matrix(models, cache=cache, ids=ids)
    assert len(cache) == 3
    cache[(("a", 1), ("b", 1))] = (0.0, 30, 30, 0)  # a kept result is used, not recomputed
    again = pairwise_matrix(models, cache=cache, ids=ids)
    assert again["pairs"][("a", "b")]["p"] == 0.0 and first["pairs"][("a", "b")]["p"] != 0.0
