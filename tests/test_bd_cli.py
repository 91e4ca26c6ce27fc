"""`hazardkit score bd-hazardvlm` and `hazardkit compare bd-hazardvlm` end to end on constructed runs."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

from builder.cli import cli
from eval_kit.bd_hazardvlm import spec
from tests.bd_fixtures import paper_references, perfect_prediction


def _write(path: Path, rows) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


@pytest.fixture()
def refs_file(tmp_path):
    return _write(tmp_path / "refs.jsonl", paper_references()[:60])


def _run(args):
    return CliRunner().invoke(cli, [str(a) for a in args])


def test_score_mixed_prediction_and_response_with_retry(tmp_path, refs_file):
    refs = paper_references()[:60]
    lines = []
    for i, ref in enumerate(refs):
        pred = perfect_prediction(ref)
        if i % 3 == 0:
            lines.append({"id": ref["id"], "prediction": pred})
        elif i % 3 == 1:
            lines.append({"id": ref["id"], "response": "Answer:\n```json\n" + json.dumps(pred) + "\n```"})
        else:  # first answer broke the schema, the retry fixed it
            bad = json.dumps(dict(pred, risk_timing="soon-ish"))
            lines.append(spec.prediction_line(ref["id"], bad, json.dumps(pred)))
    result = _run(["score", "bd-hazardvlm", "--references", refs_file, "--predictions",
                   _write(tmp_path / "p.jsonl", lines), "--json"])
    assert result.exit_code == 0, result.output
    out = json.loads(result.output)
    assert out["category"]["accuracy"] == 1.0 and out["actions"]["mean_jaccard"] == 1.0
    assert out["western_bias_trap"]["recall"] == 1.0 and out["hallucination_trap"]["flag_rate"] > 0
    assert out["schema"] == {"valid_rate": 1.0, "initial_valid_rate": pytest.approx(40 / 60), "retry_count": 20,
                             "retried_then_valid": 20,
                             "invalid_field_counts": dict.fromkeys(spec.OUTPUT_FIELDS, 0)}
    assert out["missing"] == 0 and out["num_samples"] == 60
    table = _run(["score", "bd-hazardvlm", "--references", refs_file, "--predictions", tmp_path / "p.jsonl"])
    assert table.exit_code == 0 and "paper table 4" in table.output and "Majority baseline" in table.output


def test_score_invalid_fields_are_wrong_not_fatal(tmp_path, refs_file):
    refs = paper_references()[:60]
    lines = [{"id": r["id"], "prediction": perfect_prediction(r)} for r in refs]
    lines[0]["prediction"]["severity"] = "catastrophic"
    lines[1] = {"id": refs[1]["id"], "response": "I am not sure what to do."}
    out = json.loads(_run(["score", "bd-hazardvlm", "--references", refs_file, "--predictions",
                           _write(tmp_path / "p.jsonl", lines), "--json"]).output)
    assert out["severity"]["accuracy"] == pytest.approx(58 / 60)
    assert out["category"]["accuracy"] == pytest.approx(59 / 60)
    assert out["schema"]["valid_rate"] == pytest.approx(58 / 60)
    assert out["schema"]["invalid_field_counts"]["severity"] == 2


@pytest.mark.parametrize("lines, needle", [
    ([{"id": "BDHV_9999", "prediction": {}}], "not in the references"),
    ([{"id": "BDHV_0001", "prediction": "rickshaw_easybike"}], "field 'prediction'"),
    ([{"id": "BDHV_0001"}], "line 1"),
])
def test_score_bad_input_exit_2(tmp_path, refs_file, lines, needle):
    result = _run(["score", "bd-hazardvlm", "--references", refs_file, "--predictions",
                   _write(tmp_path / "p.jsonl", lines), "--json", "--allow-missing"])
    assert result.exit_code == 2
    assert needle in result.stderr and "Traceback" not in result.output


def test_score_missing_ids_need_allow_missing(tmp_path, refs_file):
    lines = [{"id": "BDHV_0001", "prediction": perfect_prediction(paper_references()[0])}]
    pred = _write(tmp_path / "p.jsonl", lines)
    assert _run(["score", "bd-hazardvlm", "--references", refs_file, "--predictions", pred]).exit_code == 2
    out = json.loads(_run(["score", "bd-hazardvlm", "--references", refs_file, "--predictions", pred,
                           "--json", "--allow-missing"]).output)
    assert out["missing"] == 59 and out["category"]["accuracy"] == pytest.approx(1 / 60)


def test_score_against_reconstructed_demo_parquet(tmp_path):
    assert _run(["reconstruct", "bd-hazardvlm", "--demo", "--out", tmp_path]).exit_code == 0
    parquet = tmp_path / "data" / "demo" / "test-00000-of-00001.parquet"
    demo = spec.load_annotations(parquet)
    lines = [{"id": i, "prediction": dict(perfect_prediction(r))} for i, r in demo.items()]
    out = json.loads(_run(["score", "bd-hazardvlm", "--references", parquet, "--predictions",
                           _write(tmp_path / "p.jsonl", lines), "--json"]).output)
    assert out["num_samples"] == 20 and out["category"]["macro_f1"] == 1.0


def _run_file(tmp_path, name, refs, correct_mask, seed):
    rng = np.random.default_rng(seed)
    lines = []
    for ref, ok in zip(refs, correct_mask, strict=True):
        pred = perfect_prediction(ref)
        if not ok:
            pred["primary_hazard_category"] = next(c for c in spec.CATEGORIES if c != ref["primary_hazard_category"])
            pred["risk_timing"] = "both"
            pred["defensive_actions"] = [spec.ACTIONS[int(rng.integers(0, 9))]]
        lines.append({"id": ref["id"], "prediction": pred})
    return _write(tmp_path / f"{name}.jsonl", lines)


def test_compare_three_runs(tmp_path):
    refs = paper_references()
    refs_file = _write(tmp_path / "refs.jsonl", refs)
    rng = np.random.default_rng(0)
    good = rng.random(500) < 0.8
    a = _run_file(tmp_path, "strong", refs, good, 1)
    b = _run_file(tmp_path, "weak", refs, rng.random(500) < 0.3, 2)
    c = _run_file(tmp_path, "twin", refs, good, 1)  # identical to `strong`
    result = _run(["compare", "bd-hazardvlm", a, b, f"copy={c}", "--references", refs_file, "--json"])
    assert result.exit_code == 0, result.output
    out = json.loads(result.output)
    assert list(out["runs"]) == ["strong", "weak", "copy"]
    assert set(out["tasks"]) == {"category", "timing", "severity", "actions_jaccard"}
    cat = {(r["run_a"], r["run_b"]): r for r in out["tasks"]["category"]}
    assert cat[("strong", "weak")]["significant"] and cat[("strong", "weak")]["test"] == "mcnemar_exact"
    assert cat[("strong", "copy")]["p_value"] == 1.0 and cat[("strong", "copy")]["note"] == "no discordant pairs"
    sev = out["tasks"]["severity"]  # all runs get severity right: no discordant pairs anywhere
    assert all(r["p_holm"] == 1.0 and not r["significant"] for r in sev)
    jac = {(r["run_a"], r["run_b"]): r for r in out["tasks"]["actions_jaccard"]}
    assert jac[("strong", "copy")]["note"] == "all paired differences are zero"
    assert jac[("strong", "weak")]["significant"] and jac[("strong", "weak")]["test"] == "wilcoxon_signed_rank"
    text = _run(["compare", "bd-hazardvlm", a, b, "--references", refs_file])
    assert text.exit_code == 0 and "Holm" in text.output


def test_compare_bad_input(tmp_path, refs_file):
    a = _write(tmp_path / "a.jsonl", [{"id": "BDHV_0001", "prediction": {}}])
    r = _run(["compare", "bd-hazardvlm", a, "--references", refs_file])
    assert r.exit_code == 2 and "at least two runs" in r.stderr
    r = _run(["compare", "bd-hazardvlm", a, a, "--references", refs_file])
    assert r.exit_code == 2 and "two runs are named" in r.stderr
    r = _run(["compare", "bd-hazardvlm", a, f"b={a}", "--references", refs_file])
    assert r.exit_code == 2 and "have no prediction" in r.stderr


def test_score_warns_on_incomplete_reconstruction(tmp_path):
    demo = tmp_path / "demo"
    assert _run(["reconstruct", "bd-hazardvlm", "--demo", "--out", demo]).exit_code == 0
    # copy the demo sources, drop one picture, rebuild with --allow-missing
    import shutil

    from builder.bd_hazardvlm.reconstruct import DEMO_DIR
    src = tmp_path / "src"
    shutil.copytree(DEMO_DIR / "sources", src)
    next((src / "rsud20k" / "images").glob("*.png")).unlink()
    r = _run(["reconstruct", "bd-hazardvlm", "--manifest", DEMO_DIR / "image_manifest.jsonl", "--annotations",
              DEMO_DIR / "annotations.jsonl", "--source", f"rsud20k={src / 'rsud20k'}", "--source",
              f"tfp-bd={src / 'tfp_bd'}", "--out", tmp_path / "partial", "--allow-missing"])
    assert r.exit_code == 0 and "INCOMPLETE" in r.stderr
    parquet_dir = tmp_path / "partial" / "reconstructed"
    refs = spec.load_annotations(parquet_dir)
    assert len(refs) == 19
    lines = [{"id": i, "prediction": perfect_prediction(x)} for i, x in refs.items()]
    res = _run(["score", "bd-hazardvlm", "--references", parquet_dir, "--predictions",
                _write(tmp_path / "p.jsonl", lines), "--json"])
    assert res.exit_code == 0 and "INCOMPLETE reconstruction (19 of 20 images)" in res.stderr
    assert json.loads(res.stdout)["references_incomplete"][0]["complete"] is False
    full = _run(["score", "bd-hazardvlm", "--references", demo, "--config", "demo", "--predictions",
                 _write(tmp_path / "q.jsonl", [{"id": i, "prediction": perfect_prediction(x)}
                                               for i, x in spec.load_annotations(demo, config="demo").items()]),
                 "--json"])
    assert full.exit_code == 0 and "warning" not in full.stderr
    assert json.loads(full.stdout)["references_incomplete"] == []
