"""The generation plan and the `hazardkit forge` commands, on small synthetic sources."""

import json
from dataclasses import replace

import numpy as np
import pytest
from click.testing import CliRunner
from PIL import Image

from builder.cli import cli
from builder.movsafebench.hazardforge.config import ForgeConfig
from builder.movsafebench.hazardforge.layout import build_layout
from builder.movsafebench.hazardforge.plan import (
    build_plan,
    count_table,
    layout_from_plan_line,
    read_plan,
    read_sources,
)
from builder.movsafebench.sources.synthetic import write_synthetic_sources
from eval_kit.errors import BadInput
from eval_kit.schemas import first_error

# jobs per source image by ground truth: static 13 + motion 9 (left/right only) + intrusion 9 per side + distance 13
EXPECTED_JOBS = {"left": 13 + 9 + 9 + 13, "right": 13 + 9 + 9 + 13, "straight": 13 + 0 + 18 + 13}


@pytest.fixture(scope="module")
def sources(tmp_path_factory):
    folder = tmp_path_factory.mktemp("sources")
    # seeds 0..5 at 320x180 cover all three ground truths (checked below)
    return write_synthetic_sources(folder, 6, width=320, height=180)


def _write_sources(tmp_path, lines):
    path = tmp_path / "sources.jsonl"
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    return path


def test_plan_enumerates_every_eligible_job(sources):
    items = read_sources(sources)
    assert {i.ground_truth for i in items} == {"left", "straight", "right"}
    jobs, stats = build_plan(items, plan_dir=sources.parent)
    # at 320x180 the distance band is +-9 rows: far objects under min_object_px are skipped, with the reason
    assert len(jobs) + stats["skipped"] == sum(EXPECTED_JOBS[i.ground_truth] for i in items)
    assert stats["skipped"] > 0 and sum(stats["skipped_reasons"].values()) == stats["skipped"]
    # the other skips: objects that would cover one of the scene's barriers (its obstacle boxes, issue 32)
    assert all((k.startswith("distance/") and k.endswith(": far object too small"))
               or k.endswith(": object would cover an obstacle") for k in stats["skipped_reasons"])
    assert stats["obstacle_sources"] == 6
    assert "distance/human: far object too small" not in stats["skipped_reasons"]  # 1.7 m is tall enough
    assert {k: stats[k] for k in ("sources", "eligible", "vp_fallbacks", "hoods", "hood_detected")} == {
        "sources": 6, "eligible": len(jobs), "vp_fallbacks": 0, "hoods": 0, "hood_detected": 0}
    for job in jobs:
        assert first_error("forge_plan_job", job) is None
        assert job["side"] != job["ground_truth"]
    assert len({job["job_id"] for job in jobs}) == len(jobs)
    table = count_table(jobs)
    assert "cone" not in table["motion"] and "cone" in table["static"]
    n_lr = sum(i.ground_truth != "straight" for i in items)
    assert table["motion"]["dog"] == n_lr
    assert table["intrusion"]["dog"] == n_lr + 2 * (len(items) - n_lr)


def test_job_ids_are_stable_and_depend_on_inputs_and_config(sources):
    items = read_sources(sources)
    first, _ = build_plan(items, plan_dir=sources.parent)
    again, _ = build_plan(items, plan_dir=sources.parent)
    assert [j["job_id"] for j in first] == [j["job_id"] for j in again]
    assert [j["seed"] for j in first] == [j["seed"] for j in again]
    changed, _ = build_plan(items, plan_dir=sources.parent, config=ForgeConfig(distance_d=0.08))
    assert not {j["job_id"] for j in first} & {j["job_id"] for j in changed}
    bumped, _ = build_plan(items, plan_dir=sources.parent, config=ForgeConfig(version="hazardforge-layout-test"))
    assert not {j["job_id"] for j in first} & {j["job_id"] for j in bumped}


def test_plan_line_rebuilds_the_same_masks(sources):
    items = read_sources(sources)
    jobs, _ = build_plan(items, plan_dir=sources.parent)
    obstacles = {i.id: [list(b) for b in i.obstacles] for i in items}  # the scenes' barriers (issue 32)
    for job in jobs[:: 7]:
        rebuilt = layout_from_plan_line(json.loads(json.dumps(job)), image_size=(job["width"], job["height"]))
        vp = (job["vanishing_point"]["x"], job["vanishing_point"]["y"])
        direct = build_layout(job["scenario"], job["ground_truth"], job["category"], job["width"], job["height"],
                              vanishing_point=vp, side=job["side"], agent=job["agent"],
                              hood_top=job["ego_hood"]["top"], obstacles=obstacles[job["source_id"]])
        assert [e.box for e in rebuilt.edits] == [e.box for e in direct.edits]
        for a, b in zip(rebuilt.edits, direct.edits, strict=True):
            assert np.array_equal(a.mask(), b.mask()) and a.prompt == b.prompt and a.crop_box == b.crop_box
            assert a.object_size == b.object_size and a.object_size is not None
    with pytest.raises(BadInput):
        layout_from_plan_line(jobs[0], image_size=(1600, 900))


def test_subsampling_to_targets(sources):
    items = read_sources(sources)
    targets = {"static": {"dog": 2, "cone": 100}, "motion": {"dog": 1}}
    jobs, stats = build_plan(items, plan_dir=sources.parent, config=ForgeConfig(target_counts=targets))
    assert stats["target_shortfall"] == 100 - 6
    table = count_table(jobs)
    assert table["static"]["dog"] == 2 and table["static"]["cone"] == 6 and table["motion"]["dog"] == 1
    assert sum(sum(c.values()) for c in table.values()) == 9
    other, _ = build_plan(items, plan_dir=sources.parent,
                          config=replace(ForgeConfig(target_counts=targets), subsample_seed=5))
    assert len(other) == 9  # another draw of the same size


def test_detect_vp_is_close_to_source_vp(sources):
    items = read_sources(sources)
    detected, _ = build_plan(items[:2], plan_dir=sources.parent, detect_vp=True)
    given, _ = build_plan(items[:2], plan_dir=sources.parent)
    given = {(j["source_id"], j["scenario"], j["category"], j["side"]): j for j in given}
    detected = [j for j in detected if (j["source_id"], j["scenario"], j["category"], j["side"]) in given]
    assert len(detected) >= len(given) - 4  # a far object at the size limit may fall either side of it
    for a in detected:
        b = given[(a["source_id"], a["scenario"], a["category"], a["side"])]
        assert a["vanishing_point"]["method"] == "lsd_ransac" and b["vanishing_point"]["method"] == "source"
        assert abs(a["vanishing_point"]["y"] - b["vanishing_point"]["y"]) < 0.01 * np.hypot(320, 180)


def test_cli_plan_writes_valid_jsonl_and_summary(sources, tmp_path):
    out = tmp_path / "plan.jsonl"
    result = CliRunner().invoke(cli, ["forge", "plan", str(sources), "--out", str(out), "--targets", "table2"])
    assert result.exit_code == 0, result.output
    assert "Intrusion" in result.output and "Raccoon" in result.output
    lines = list(read_plan(out))
    assert lines and all((tmp_path / line["image"]).resolve().exists() for _, line in lines)
    result = CliRunner().invoke(cli, ["forge", "plan", str(sources), "--out", str(out), "--json"])
    summary = json.loads(result.output)
    assert summary["jobs"] == len(out.read_text().splitlines())


def _invoke(args):
    result = CliRunner().invoke(cli, args)
    return result.exit_code, result.output


def test_cli_bad_inputs_exit_2(sources, tmp_path):
    garbage = tmp_path / "garbage.png"
    garbage.write_bytes(b"not an image at all")
    empty = tmp_path / "empty.png"
    empty.write_bytes(b"")
    good = sources.parent / "images" / "synthetic-road-000000.png"
    out = str(tmp_path / "p.jsonl")
    cases = [
        ["forge", "plan", str(_write_sources(tmp_path, [{"id": "a", "path": str(garbage), "ground_truth": "left",
                                                            "agent": "vehicle"}])), "--out", out],
        ["forge", "plan", str(_write_sources(tmp_path, [{"id": "a", "path": str(empty), "ground_truth": "left",
                                                            "agent": "vehicle"}])), "--out", out],
        ["forge", "plan", str(_write_sources(tmp_path, [{"id": "a", "path": str(good), "ground_truth": "up",
                                                            "agent": "vehicle"}])), "--out", out],
        ["forge", "plan", str(sources), "--out", out, "--targets", json.dumps("x")],
        ["forge", "preview", str(garbage), "--scenario", "static", "--gt", "left"],
        ["forge", "preview", str(good), "--scenario", "flying", "--gt", "left"],
        ["forge", "preview", str(good), "--scenario", "static", "--gt", "left", "--category", "unicorn"],
        ["forge", "preview", str(good), "--scenario", "motion", "--gt", "straight"],
        ["forge", "preview", str(good), "--scenario", "intrusion", "--gt", "left", "--category", "cone"],
        ["forge", "preview", str(good), "--scenario", "intrusion", "--gt", "left", "--side", "left"],
        ["forge", "preview", str(good), "--scenario", "distance", "--gt", "left", "--vp", "abc"],
    ]
    for args in cases:
        code, output = _invoke(args)
        assert code == 2, (args, output)
        assert output.startswith("error: ") and "Traceback" not in output, output
        assert len(output.strip().splitlines()) == 1, output


def test_zero_size_image_is_bad_input(tmp_path, monkeypatch):
    from builder.movsafebench.hazardforge import plan as plan_module

    path = tmp_path / "tiny.png"
    Image.new("RGB", (1, 1)).save(path)

    class ZeroSize:
        width, height = 0, 0

    real_open = Image.open

    def fake_open(p, *a, **k):
        img = real_open(p, *a, **k)
        img.convert = lambda *_a, **_k: ZeroSize()
        return img

    monkeypatch.setattr(Image, "open", fake_open)
    with pytest.raises(BadInput, match="zero size"):
        plan_module.open_image(path)


def test_cli_preview_writes_png(sources, tmp_path):
    image = sources.parent / "images" / "synthetic-road-000000.png"
    out = tmp_path / "prev.png"
    code, output = _invoke(["forge", "preview", str(image), "--scenario", "intrusion", "--gt", "straight",
                            "--side", "right", "--vp", "160,80", "--out", str(out)])
    assert code == 0, output
    with Image.open(out) as img:
        assert img.size == (320 + 40, 180)  # padded canvas: r = 0.125 * 320
    out2 = tmp_path / "prev2.png"
    code, output = _invoke(["forge", "preview", str(image), "--scenario", "distance", "--gt", "left",
                            "--out", str(out2)])
    assert code == 0 and "far" in output and "vanishing point" in output
    with Image.open(out2) as img:
        assert img.size == (320, 180)


def test_cli_synthetic_writes_sources(tmp_path):
    code, output = _invoke(["forge", "synthetic", str(tmp_path / "s"), "-n", "2", "--width", "160", "--height", "90"])
    assert code == 0, output
    assert len(read_sources(tmp_path / "s" / "sources.jsonl")) == 2


def test_config_file_errors_are_bad_input(tmp_path):
    cases = [
        ("{not json", "malformed JSON"),
        ('{"distance_d": NaN}', "NaN is not a number JSON allows"),
        ('{"distance_d": 0.1, "distance_d": 0.2}', "duplicate key 'distance_d'"),
        ("[" * 100_000, "nested deeper than"),
        ('{"distance_d": "big"}', "wrong type"),
        ('{"distance_d": 2.0}', "distance_d must be"),
        ('{"colour": 1}', "unknown config key"),
        ('{"intrusion_opposite_near_when_straight": 1}', "wrong type"),
    ]
    for text, message in cases:
        path = tmp_path / "config.json"
        path.write_text(text)
        with pytest.raises(BadInput, match=message):
            ForgeConfig.load(path)
    path.write_text('{"distance_d": 0.1, "target_counts": {"static": {"dog": 3}}}')
    config = ForgeConfig.load(path)
    assert config.distance_d == 0.1 and config.target_counts == {"static": {"dog": 3}}


def test_damaged_plan_line_is_bad_input(sources):
    jobs, _ = build_plan(read_sources(sources)[:1], plan_dir=sources.parent)
    broken = dict(jobs[0])
    del broken["edits"]
    with pytest.raises(BadInput, match="edits"):
        layout_from_plan_line(broken)
