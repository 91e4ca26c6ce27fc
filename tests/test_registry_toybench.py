"""A fourth benchmark needs only its own folder plus one registry line (tests/toybench/ is that folder)."""

from __future__ import annotations

import json

import pytest

from eval_kit import registry
from tests.cli_helpers import hk, invoke


@pytest.fixture()
def toybench(tmp_path):
    from tests import toybench

    registry.register(toybench.BENCHMARK)  # the one registry line
    refs = tmp_path / "refs.jsonl"
    refs.write_text("".join(json.dumps({"id": f"n{n}", "number": n, "answer": "even" if n % 2 == 0 else "odd"}) + "\n"
                            for n in range(10)))
    yield refs
    registry.unregister("toybench")


def test_fourth_benchmark_runs_through_every_generic_command(toybench, tmp_path):
    run = tmp_path / "run"
    hk("eval", "toybench", "--backend", "baseline", "--model", "fixed:even", "--data", toybench, "--out", run,
       "--no-progress")
    result = json.loads(hk("score", "run", run, "--json"))
    assert result["benchmark"] == "toybench" and result["accuracy"] == 0.5 and result["num_samples"] == 10
    # the benchmark's own score command, found through the registry (both spellings of the group listing)
    direct = json.loads(hk("score", "toybench", "-r", toybench, "-p", run / "predictions.jsonl", "--json"))
    assert direct["accuracy"] == 0.5
    assert "toybench" in hk("score", "--help")
    # validate with the benchmark's checker: good file passes, a bad label is named
    assert "ok: 10 predictions" in hk("validate", "toybench", "-r", toybench, "-p", run / "predictions.jsonl")
    bad = tmp_path / "bad.jsonl"
    bad.write_text(json.dumps({"id": "n0", "prediction": "maybe"}) + "\n")
    code, out = invoke("validate", "toybench", "-r", toybench, "-p", bad)
    assert code == 2 and "'maybe' is not a ToyBench answer" in out
    # leaderboard with the benchmark's board
    table = tmp_path / "lb" / "results.parquet"
    hk("leaderboard", "add", run / "scores.json", "--table", table)
    hk("leaderboard", "render", "--table", table, "--out", tmp_path / "lb")
    page = (tmp_path / "lb" / "index.html").read_text()
    assert "ToyBench" in page and "Parity accuracy" in page


def test_unregistered_benchmark_is_bad_input(tmp_path):
    code, out = invoke("eval", "toybench", "--backend", "baseline", "--model", "random", "--data", tmp_path,
                       "--out", tmp_path / "r")
    assert code == 2 and "unknown benchmark 'toybench'" in out and "movsafebench" in out


def test_both_spellings_name_one_benchmark():
    assert registry.get("bd-hazardvlm") is registry.get("bd_hazardvlm")
    assert [b.cli_name for b in registry.benchmarks()][:3] == ["movsafebench", "bd-hazardvlm", "saferelbench"]
