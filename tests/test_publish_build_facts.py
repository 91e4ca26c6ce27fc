"""What a publish records about a config's build stays with that config: a later publish of another config
states it again; hand-written build claims are refused (they are computed)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from builder.publish.image_check import ImagePolicy
from builder.publish.pipeline import load_build_info, publish
from eval_kit.errors import BadInput
from tests.publish_fixtures import demo_records, write_records_input


def _section(card: str, config: str) -> str:
    start = card.index(f"### Build of config `{config}`")
    end = card.find("### Build of config", start + 10)
    return card[start:end if end > 0 else card.index("## Intended use")]


def test_other_configs_keep_their_recorded_build_facts(tmp_path: Path) -> None:
    records = demo_records(per_scenario=2)
    edited = write_records_input(tmp_path / "edited", [r for r in records if r["scenario"] != "no_edit"])
    sources = write_records_input(tmp_path / "sources", [r for r in records if r["scenario"] == "no_edit"
                                                          and r["source_benchmark"] == "drivebench"])
    repo = tmp_path / "repo"
    publish("movsafebench", version="1.0.0", config="default", input_path=edited, out=repo, date="2026-12-01",
            image_policy=ImagePolicy("webp-lossless"), build_info={"notes": "first build"})
    publish("movsafebench", version="1.0.1", config="no_edit", input_path=sources, out=repo, date="2026-12-01")
    card = (repo / "README.md").read_text()
    default, no_edit = _section(card, "default"), _section(card, "no_edit")
    assert "stored as lossless WebP" in default and "first build" in default  # recorded by the first publish
    assert "stored as JPEG, quality 95" in no_edit and "first build" not in no_edit
    assert "| `drivebench` (DriveBench) | " in no_edit and "| `sa_bench`" not in no_edit
    manifest = json.loads((repo / "release-manifest.json").read_text())
    assert manifest["configs"]["default"]["build_facts"]["storage"]["storage"] == "webp-lossless"
    # the demo records' images are JPEG already: never re-encoded, whatever the choice
    assert manifest["configs"]["default"]["build_facts"]["storage"]["groups"]["edited"]["reencoded"] == 0


def test_build_info_takes_notes_only(tmp_path: Path) -> None:
    path = tmp_path / "b.json"
    path.write_text(json.dumps({"models": [{"role": "editor", "name": "x"}], "notes": "n"}))
    with pytest.raises(BadInput) as info:
        load_build_info(path)
    assert info.value.field == "models" and "computed" in str(info.value)
    path.write_text(json.dumps({"notes": "n"}))
    assert load_build_info(path) == {"notes": "n"}
