"""Versions, manifest, push plan and push (with a mocked HfApi: no network), and the CLI around them."""

from __future__ import annotations

import json
from pathlib import Path
from unittest.mock import MagicMock

import datasets
import pytest
from click.testing import CliRunner
from huggingface_hub import CommitOperationAdd, CommitOperationDelete
from huggingface_hub.errors import RepositoryNotFoundError
from huggingface_hub.hf_api import GitRefInfo, GitRefs

from builder.cli import cli
from builder.movsafebench.publisher import movsafebench_rows_from_records
from builder.publish import release
from builder.publish.pipeline import publish
from builder.publish.publishers import Publisher
from eval_kit.errors import BadInput
from tests.publish_fixtures import demo_records


def _api(tags: list[str] | None, remote_files: list[str] = ()) -> MagicMock:
    api = MagicMock()
    if tags is None:
        err = RepositoryNotFoundError.__new__(RepositoryNotFoundError)
        Exception.__init__(err, "404")
        api.list_repo_refs.side_effect = err
    else:
        api.list_repo_refs.return_value = GitRefs(
            branches=[], converts=[],
            tags=[GitRefInfo(name=t, ref=f"refs/tags/{t}", target_commit="0" * 40) for t in tags])
    api.list_repo_files.return_value = list(remote_files)
    api.create_commit.return_value = MagicMock(oid="c0ffee" * 6 + "abcd")
    return api


@pytest.fixture(scope="module")
def repo(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("rel") / "movsafebench"
    publish("movsafebench", version="1.0.0", config="demo", out=out, date="2026-11-30",
            rows=movsafebench_rows_from_records(demo_records()))
    return out


@pytest.mark.parametrize("text", ["1.0.0", "0.1.0", "2.10.3", "1.0.0-rc.1"])
def test_semver_accepted(text: str) -> None:
    release.parse_version(text)


@pytest.mark.parametrize("text", ["1.0", "v1.0.0", "01.0.0", "1.0.0.0", "", "1.0.x"])
def test_semver_refused(text: str) -> None:
    with pytest.raises(BadInput, match="semantic version"):
        release.parse_version(text)


def test_version_order_and_history() -> None:
    assert release.version_key("1.0.0-rc.1") < release.version_key("1.0.0") < release.version_key("1.0.1")
    assert release.version_key("1.9.0") < release.version_key("1.10.0")
    hist = release.updated_history([], "1.0.0", "2026-01-01", "first")
    hist = release.updated_history(hist, "1.1.0", "2026-02-01", "second")
    assert [r["version"] for r in hist] == ["1.1.0", "1.0.0"]
    with pytest.raises(BadInput, match="older"):
        release.updated_history(hist, "1.0.5", "2026-03-01", "x")
    rebuilt = release.updated_history(hist, "1.1.0", "2026-02-02", "rebuilt")
    assert [r["notes"] for r in rebuilt] == ["rebuilt", "first"]


def test_manifest_lists_every_file_with_sha256(repo: Path) -> None:
    manifest = json.loads((repo / release.MANIFEST_FILENAME).read_text())
    assert manifest["version"] == "1.0.0" and manifest["tag"] == "v1.0.0"
    expected = {p.relative_to(repo).as_posix() for p in release.release_files(repo)} - {release.MANIFEST_FILENAME}
    assert set(manifest["files"]) == expected
    assert {"README.md", "croissant.json", "CHANGELOG.md", "assets/samples_demo.png",
            "data/demo/test-00000-of-00001.parquet"} <= expected
    assert release.verify_manifest(repo) == []
    assert "## 1.0.0 - 2026-11-30" in (repo / "CHANGELOG.md").read_text()


def test_verify_manifest_detects_changes(repo: Path, tmp_path: Path) -> None:
    import shutil

    copy = tmp_path / "copy"
    shutil.copytree(repo, copy)
    (copy / "CHANGELOG.md").write_text("tampered\n")
    (copy / "stray.txt").write_text("x")
    problems = release.verify_manifest(copy)
    assert any("CHANGELOG.md: sha256" in p for p in problems)
    assert any("stray.txt: not in the manifest" in p for p in problems)


def test_push_plan_paths_sizes_and_tag(repo: Path) -> None:
    plan = release.make_plan(repo, "hazardkit/movsafebench", "1.0.0")
    paths = [p for p, _ in plan.files]
    assert paths == sorted(p.relative_to(repo).as_posix() for p in release.release_files(repo))
    assert all(size == (repo / p).stat().st_size for p, size in plan.files)
    assert plan.tag == "v1.0.0"
    ops = plan.operations()
    assert all(isinstance(op, CommitOperationAdd) for op in ops)
    assert [op.path_in_repo for op in ops] == paths
    text = plan.render()
    assert "tag v1.0.0" in text and "add data/demo/test-00000-of-00001.parquet" in text
    with pytest.raises(BadInput, match="repo id"):
        release.make_plan(repo, "no-slash", "1.0.0")


def test_push_commits_then_tags(repo: Path) -> None:
    plan = release.make_plan(repo, "hazardkit/movsafebench", "1.0.0")
    api = _api(tags=["v0.9.0"], remote_files=["README.md", "data/demo/test-00000-of-00002.parquet",
                                              "data/demo/test-00000-of-00001.parquet"])
    commit = release.push(plan, api=api)
    api.create_repo.assert_not_called()
    kwargs = api.create_commit.call_args.kwargs
    assert api.create_commit.call_args.args == ("hazardkit/movsafebench",)
    assert kwargs["repo_type"] == "dataset" and kwargs["commit_message"] == "Release v1.0.0"
    adds = [op.path_in_repo for op in kwargs["operations"] if isinstance(op, CommitOperationAdd)]
    deletes = [op.path_in_repo for op in kwargs["operations"] if isinstance(op, CommitOperationDelete)]
    assert adds == [p for p, _ in plan.files]
    assert deletes == ["data/demo/test-00000-of-00002.parquet"]  # a stale shard of an older release
    api.create_tag.assert_called_once()
    assert api.create_tag.call_args.kwargs["tag"] == "v1.0.0"
    assert api.create_tag.call_args.kwargs["revision"] == commit
    assert api.create_tag.call_args.kwargs["repo_type"] == "dataset"


def test_push_creates_a_missing_repo(repo: Path) -> None:
    api = _api(tags=None)
    release.push(release.make_plan(repo, "hazardkit/new", "1.0.0"), api=api)
    api.create_repo.assert_called_once()
    assert api.create_repo.call_args.kwargs["repo_type"] == "dataset"
    api.create_commit.assert_called_once()


def test_push_refuses_existing_version(repo: Path) -> None:
    api = _api(tags=["v1.0.0"])
    with pytest.raises(BadInput, match="already exists"):
        release.push(release.make_plan(repo, "hazardkit/movsafebench", "1.0.0"), api=api)
    api.create_commit.assert_not_called()
    api.create_tag.assert_not_called()


def test_push_refuses_failed_checks(repo: Path) -> None:
    api = _api(tags=[])
    plan = release.make_plan(repo, "hazardkit/movsafebench", "1.0.0", problems=["README.md: bad"])
    with pytest.raises(BadInput, match="refusing to push"):
        release.push(plan, api=api)
    api.list_repo_refs.assert_not_called()
    api.create_commit.assert_not_called()


def test_pipeline_refuses_bd_hazardvlm_images_before_writing(tmp_path: Path) -> None:
    feats = datasets.Features({"id": datasets.Value("string"), "image": datasets.Image()})
    bd = Publisher(name="bd_hazardvlm", pretty_name="BD-HazardVLM", summary="", features=lambda: feats,
                   rows_from_input=lambda p: iter(()), allows_images=False, licence="cc-by-nc-4.0")
    rows = [{"id": "a", "image": {"bytes": b"x", "path": None}}]
    with pytest.raises(BadInput, match="annotations only"):
        publish(bd, version="1.0.0", config="default", rows=rows, out=tmp_path / "bd")
    assert not (tmp_path / "bd").exists()


# ---------------------------------------------------------------------------------------------- CLI


def _run(args: list[str], monkeypatch=None, api=None):
    if api is not None:
        import huggingface_hub

        monkeypatch.setattr(huggingface_hub, "HfApi", lambda: api)
    return CliRunner().invoke(cli, args, catch_exceptions=False)


def test_cli_dry_run_prints_the_plan(tmp_path: Path) -> None:
    out = tmp_path / "movsafebench"
    res = _run(["publish", "movsafebench", "--version", "0.1.0", "--config", "demo", "--out", str(out),
                "--repo-id", "hazardkit/movsafebench", "--date", "2026-11-30"])
    assert res.exit_code == 0, res.output
    for rel in ("README.md", "croissant.json", "CHANGELOG.md", "release-manifest.json", "assets/samples_demo.png",
                "data/demo/test-00000-of-00001.parquet"):
        assert f"add {rel} ({(out / rel).stat().st_size} bytes)" in res.output
    assert "tag v0.1.0" in res.output and "dry run: nothing uploaded" in res.output


def test_cli_push_uses_hfapi_and_refuses_existing_tag(tmp_path: Path, monkeypatch) -> None:
    out = tmp_path / "movsafebench"
    args = ["publish", "movsafebench", "--version", "0.1.0", "--config", "demo", "--out", str(out),
            "--repo-id", "hazardkit/movsafebench", "--push"]
    api = _api(tags=[])
    res = _run(args, monkeypatch, api)
    assert res.exit_code == 0, res.output
    assert "pushed hazardkit/movsafebench" in res.output
    assert api.create_tag.call_args.kwargs["tag"] == "v0.1.0"
    api = _api(tags=["v0.1.0"])
    res = _run(args, monkeypatch, api)
    assert res.exit_code == 2
    assert "already exists" in res.output and "Traceback" not in res.output
    api.create_commit.assert_not_called()


def test_cli_publishes_records_jsonl_input(tmp_path: Path) -> None:
    folder = tmp_path / "run"
    folder.mkdir()
    lines = []
    for i, rec in enumerate(demo_records(per_scenario=2)):
        (folder / f"{i}.jpg").write_bytes(rec.pop("image"))
        lines.append(json.dumps({**rec, "image_path": f"{i}.jpg"}))
    (folder / "records.jsonl").write_text("\n".join(lines) + "\n")
    out = tmp_path / "movsafebench"
    res = _run(["publish", "movsafebench", "--version", "1.0.0", "--input", str(folder), "--out", str(out)])
    assert res.exit_code == 2 and "--allow-source sa_bench" in res.output  # unedited SA-Bench images
    res = _run(["publish", "movsafebench", "--version", "1.0.0", "--input", str(folder), "--out", str(out),
                "--allow-source", "sa_bench"])
    assert res.exit_code == 0, res.output
    ds = datasets.load_dataset(str(out), "default", split="test", cache_dir=str(tmp_path / "cache"))
    assert len(ds) == len(lines)
    bad = json.loads(lines[3])
    bad["scenario"] = "flying"
    (folder / "records.jsonl").write_text("\n".join([*lines[:3], json.dumps(bad)]) + "\n")
    res = _run(["publish", "movsafebench", "--version", "1.0.1", "--input", str(folder), "--out", str(out),
                "--allow-source", "sa_bench"])
    assert res.exit_code == 2
    assert "records.jsonl line 4" in res.output and "scenario" in res.output
    assert "Traceback" not in res.output


def test_cli_bad_arguments_exit_2(tmp_path: Path) -> None:
    out = tmp_path / "m"
    for args, text in [
        (["publish", "movsafebench", "--version", "1", "--config", "demo", "--out", str(out)], "semantic version"),
        (["publish", "nosuchbench", "--version", "1.0.0"], "no publisher"),
        (["publish", "movsafebench", "--version", "1.0.0", "--out", str(out)], "needs an input"),
        (["publish", "movsafebench", "--version", "1.0.0", "--config", "demo", "--out", str(out), "--push"],
         "--repo-id"),
        (["publish", "movsafebench", "--version", "1.0.0", "--config", "demo", "--date", "yesterday"], "date"),
    ]:
        res = _run(args)
        assert res.exit_code == 2, (args, res.output)
        assert text in res.output and "Traceback" not in res.output


def _no_edit_rows(source: str) -> list[dict]:
    recs = [r for r in demo_records(per_scenario=4) if r["scenario"] == "no_edit" and r["source_benchmark"] == source]
    return list(movsafebench_rows_from_records(recs))


def test_no_edit_config_licence_rules(tmp_path: Path) -> None:
    drive, sidewalk = _no_edit_rows("drivebench"), _no_edit_rows("sa_bench")
    edited = [r for r in movsafebench_rows_from_records(demo_records(per_scenario=1)) if r["scenario"] == "static"]
    res = publish("movsafebench", version="1.0.0", config="no_edit", rows=drive, out=tmp_path / "a")
    assert res.problems == [] and sum(s.num_rows for s in res.shards) == len(drive)
    with pytest.raises(BadInput, match="may not be redistributed"):
        publish("movsafebench", version="1.0.0", config="no_edit", rows=sidewalk, out=tmp_path / "b")
    assert not (tmp_path / "b" / "data" / "no_edit").exists()
    res = publish("movsafebench", version="1.0.0", config="no_edit", rows=sidewalk, out=tmp_path / "b",
                  allowed_sources=["sa_bench"])
    assert res.problems == []
    with pytest.raises(BadInput, match="no_edit config"):
        publish("movsafebench", version="1.0.0", config="no_edit", rows=edited, out=tmp_path / "c")
    with pytest.raises(BadInput, match="may not be redistributed"):  # in any config, not only no_edit
        publish("movsafebench", version="1.0.0", config="default", rows=sidewalk, out=tmp_path / "d")


def test_manifest_tells_whether_ids_changed(tmp_path: Path) -> None:
    out = tmp_path / "m"
    first = publish("movsafebench", version="1.0.0", config="demo", out=out,
                    rows=movsafebench_rows_from_records(demo_records()))
    assert first.ids_changed is None
    same = publish("movsafebench", version="1.0.1", config="demo", out=out,
                   rows=movsafebench_rows_from_records(demo_records()))
    assert same.ids_changed is False
    fewer = [r for r in demo_records() if r["id"] != "demo-static-0000"]
    changed = publish("movsafebench", version="1.1.0", config="demo", out=out,
                      rows=movsafebench_rows_from_records(fewer))
    assert changed.ids_changed is True
    manifest = json.loads((out / release.MANIFEST_FILENAME).read_text())
    assert manifest["configs"]["demo"]["num_rows"] == len(fewer)
    assert [r["version"] for r in manifest["history"]] == ["1.1.0", "1.0.1", "1.0.0"]
