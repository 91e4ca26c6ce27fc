"""Issue 32: `forge run` records the library versions that shaped the pixels, build.json and the card state them,
and `publish` warns in one line when one config mixes rows built under different versions.

The versions are faked by replacing `builder.library_versions.library_versions` (what each forge worker calls when
it starts): the first job of a plan is built "under OpenCV 4.10.0", the run is resumed "under OpenCV 5.0.0".
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from builder import library_versions as lv
from builder.cli import cli

TARGETS = {"static": {"cone": 1, "human": 1}, "motion": {"dog": 1}}
NAMES = ["python", "numpy", "pillow", "opencv", "torch", "diffusers", "transformers"]


def _ok(*args: object) -> CliRunner:
    result = CliRunner().invoke(cli, [str(a) for a in args])
    assert result.exit_code == 0, result.output
    return result


@pytest.fixture(scope="module")
def plan(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("versions")
    _ok("forge", "synthetic", root / "photos", "-n", "2", "--width", "320", "--height", "180")
    (root / "targets.json").write_text(json.dumps(TARGETS))
    _ok("forge", "plan", root / "photos" / "sources.jsonl", "--out", root / "plan.jsonl", "--targets",
        root / "targets.json")
    return root / "plan.jsonl"


def _faked(monkeypatch, **versions: str | None) -> None:
    real = lv.library_versions

    def fake() -> dict[str, str | None]:
        return {**real(), **versions}

    monkeypatch.setattr(lv, "library_versions", fake)


def test_the_recorded_versions_are_the_installed_ones(plan: Path, tmp_path: Path) -> None:
    from importlib import metadata

    recorded = lv.library_versions()
    assert list(recorded) == NAMES
    assert recorded["numpy"] == metadata.version("numpy") and recorded["pillow"] == metadata.version("pillow")
    import cv2

    assert recorded["opencv"] is not None and cv2.__version__.startswith(recorded["opencv"].rsplit(".", 1)[0])
    _ok("forge", "run", plan, "--out", tmp_path / "run", "--no-progress")
    _ok("forge", "export", tmp_path / "run", "--out", tmp_path / "records")
    jobs = [json.loads(p.read_text()) for p in (tmp_path / "run" / "jobs").rglob("*.json")]
    assert jobs and all(job["libraries"] == recorded for job in jobs)
    build = json.loads((tmp_path / "records" / "build.json").read_text())
    rows = sum(1 for _ in (tmp_path / "records" / "records.jsonl").open())
    assert build["environments"] == [{"libraries": dict(sorted(recorded.items())), "editor": "hazardkit/compositor",
                                      "editor_revision": build["environments"][0]["editor_revision"],
                                      "checker": "heuristic", "checker_revision":
                                          build["environments"][0]["checker_revision"], "rows": rows}]
    assert build["environments"][0]["editor_revision"].startswith("compositor-")
    assert build["environments"][0]["checker_revision"].startswith("settings-")
    result = _ok("publish", "movsafebench", "--config", "demo", "--version", "0.1.0", "--input",
                 tmp_path / "records", "--out", tmp_path / "ds", "--date", "2026-12-01")
    assert "warning" not in result.stderr
    card = (tmp_path / "ds" / "README.md").read_text()
    header = "| Python | numpy | Pillow | OpenCV | torch | diffusers | transformers | editor revision |"
    assert header in card
    line = next(x for x in card.splitlines() if x.startswith(f"| {recorded['python']} |"))
    assert all((recorded[n] or "absent") in line for n in NAMES) and line.endswith(f"| {rows} |")


def test_a_config_built_under_two_opencv_versions_warns_in_one_line(plan: Path, tmp_path: Path,
                                                                    monkeypatch) -> None:
    _faked(monkeypatch, opencv="4.10.0", diffusers=None)
    _ok("forge", "run", plan, "--out", tmp_path / "run", "--limit", "1", "--no-progress")
    _faked(monkeypatch, opencv="5.0.0", diffusers=None)  # the same run resumed after an OpenCV upgrade
    _ok("forge", "run", plan, "--out", tmp_path / "run", "--no-progress")
    monkeypatch.undo()
    _ok("forge", "export", tmp_path / "run", "--out", tmp_path / "records")
    build = json.loads((tmp_path / "records" / "build.json").read_text())
    assert sorted(e["libraries"]["opencv"] for e in build["environments"]) == ["4.10.0", "5.0.0"]
    assert all(e["libraries"]["diffusers"] is None for e in build["environments"])
    result = _ok("publish", "movsafebench", "--config", "demo", "--version", "0.1.0", "--input",
                 tmp_path / "records", "--out", tmp_path / "ds", "--date", "2026-12-01")
    warnings = [line for line in result.stderr.splitlines() if line.startswith("warning:")]
    assert len(warnings) == 1, result.stderr
    assert "config demo mixes rows built under different versions" in warnings[0]
    assert "OpenCV 4.10.0 (" in warnings[0] and "5.0.0 (" in warnings[0]
    assert "numpy" not in warnings[0], "only what differs is named"
    card = (tmp_path / "ds" / "README.md").read_text()
    rows = [x for x in card.splitlines() if " | 4.10.0 | " in x or " | 5.0.0 | " in x]
    assert len(rows) == 2 and all("| absent |" in x for x in rows)


def test_an_older_run_without_recorded_versions_says_not_recorded() -> None:
    environments = [{"libraries": None, "editor": "e", "editor_revision": "r", "checker": "c",
                     "checker_revision": "s", "rows": 3},
                    {"libraries": {"python": "3.11.7", "opencv": "5.0.0"}, "editor": "e", "editor_revision": "r",
                     "checker": "c", "checker_revision": "s", "rows": 2}]
    line = lv.mixed_environments(environments)
    assert "OpenCV 5.0.0 (2 rows) / not recorded (3 rows)" in line and "\n" not in line
    assert lv.mixed_environments(environments[:1]) is None
    assert "checker_revision s / t" in lv.mixed_environments([environments[0], {**environments[0],
                                                                               "checker_revision": "t"}])
