"""Reconstruction against fake source trees: complete, missing, tampered, traversal, symlink out, bombs."""

from __future__ import annotations

import hashlib
import io
import json
import struct
import zlib
from pathlib import Path

import pyarrow.parquet as pq
import pytest
from click.testing import CliRunner
from PIL import Image

from builder.bd_hazardvlm.reconstruct import read_completeness, reconstruct, safe_resolve
from builder.cli import cli
from eval_kit.bd_hazardvlm import spec
from tests.bd_fixtures import paper_references


def _png(width: int, height: int, seed: int) -> bytes:
    image = Image.new("RGB", (width, height), (seed * 40 % 256, 90, 140))
    buf = io.BytesIO()
    image.save(buf, format="PNG")
    return buf.getvalue()


def _bomb_png(width: int, height: int) -> bytes:
    """A tiny PNG whose header claims width x height pixels (its pixel data would inflate to gigabytes)."""
    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    ihdr = struct.pack(">IIBBBBB", width, height, 8, 0, 0, 0, 0)
    body = chunk(b"IHDR", ihdr) + chunk(b"IDAT", zlib.compress(b"\0" * 1024)) + chunk(b"IEND", b"")
    return b"\x89PNG\r\n\x1a\n" + body


class Tree:
    """A temp folder with two fake source roots, a manifest and annotations describing `n` images."""

    def __init__(self, tmp: Path, n: int = 5):
        self.tmp = tmp
        self.roots = {"rsud20k": tmp / "RSUD20K", "tfp_bd": tmp / "TFP-BD"}
        self.entries, self.records = [], []
        refs = paper_references()[:n]
        for i, ref in enumerate(refs):
            source = "rsud20k" if i % 2 == 0 else "tfp_bd"
            rel = f"images/{i:03d}.png"
            data = _png(32 + i, 24, i)
            path = self.roots[source] / rel
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(data)
            self.entries.append(self.entry(ref["id"], source, rel, data, 32 + i, 24))
            self.records.append({**ref, "source_dataset": source, "source_path": rel})

    @staticmethod
    def entry(sample_id, source, rel, data, width, height):
        return {"id": sample_id, "source_dataset": source, "path": rel, "sha256": hashlib.sha256(data).hexdigest(),
                "bytes": len(data), "width": width, "height": height, "license": "test", "attribution": "test"}

    def write(self) -> tuple[Path, Path]:
        manifest, annotations = self.tmp / "manifest.jsonl", self.tmp / "annotations.jsonl"
        manifest.write_text("".join(json.dumps(e) + "\n" for e in self.entries))
        annotations.write_text("".join(json.dumps(r) + "\n" for r in self.records))
        return manifest, annotations

    def set_path(self, index: int, rel: str, data: bytes, width: int = 8, height: int = 8) -> None:
        e = self.entries[index]
        self.entries[index] = self.entry(e["id"], e["source_dataset"], rel, data, width, height)
        self.records[index]["source_path"] = rel

    def run(self, *extra: str):
        manifest, annotations = self.write()
        args = ["reconstruct", "bd-hazardvlm", "--manifest", str(manifest), "--annotations", str(annotations),
                "--source", f"rsud20k={self.roots['rsud20k']}", "--source", f"tfp-bd={self.roots['tfp_bd']}",
                "--out", str(self.tmp / "out"), *extra]
        return CliRunner().invoke(cli, args)

    @property
    def parquet(self) -> Path:
        return self.tmp / "out" / "reconstructed" / "test-00000-of-00001.parquet"

    def report(self) -> dict:
        return json.loads((self.tmp / "out" / "reconstructed" / "report.json").read_text())


def test_all_present(tmp_path):
    tree = Tree(tmp_path)
    result = tree.run()
    assert result.exit_code == 0, result.output
    assert "reconstructed 5/5" in result.output
    table = pq.read_table(tree.parquet)
    assert table.num_rows == 5
    assert read_completeness(tree.parquet)["complete"] is True
    row = table.slice(0, 1).to_pylist()[0]
    assert hashlib.sha256(row["image"]["bytes"]).hexdigest() == row["image_sha256"]
    records = spec.load_annotations(tree.parquet)  # ClassLabels decode back to the annotation records
    expected = {r["id"]: r for r in tree.records}
    assert records == expected
    report = tree.report()
    assert report["complete"] and report["reconstructed"] == 5 and report["problems"] == []


def test_one_missing_exits_2_and_lists_it(tmp_path):
    tree = Tree(tmp_path)
    missing = tree.roots[tree.entries[2]["source_dataset"]] / tree.entries[2]["path"]
    missing.unlink()
    result = tree.run()
    assert result.exit_code == 2
    assert f"{tree.entries[2]['id']}" in result.stderr and "missing" in result.stderr
    assert "download" in result.stderr  # the fix
    assert "1 of 5 images missing or invalid" in result.stderr
    assert not tree.parquet.exists()
    report = tree.report()
    assert report["complete"] is False and report["parquet"] is None
    assert report["problem_counts"] == {"missing": 1}


def test_allow_missing_writes_partial_marked_incomplete(tmp_path):
    tree = Tree(tmp_path)
    (tree.roots[tree.entries[0]["source_dataset"]] / tree.entries[0]["path"]).unlink()
    result = tree.run("--allow-missing")
    assert result.exit_code == 0
    assert "INCOMPLETE" in result.stderr
    assert pq.read_table(tree.parquet).num_rows == 4
    meta = read_completeness(tree.parquet)
    assert meta["complete"] is False and meta["expected"] == 5 and meta["reconstructed"] == 4


def test_tampered_files(tmp_path):
    tree = Tree(tmp_path)
    same_size = tree.roots[tree.entries[1]["source_dataset"]] / tree.entries[1]["path"]
    data = bytearray(same_size.read_bytes())
    data[-20] ^= 0xFF
    same_size.write_bytes(bytes(data))
    resized = tree.roots[tree.entries[3]["source_dataset"]] / tree.entries[3]["path"]
    resized.write_bytes(resized.read_bytes() + b"\0")
    result = tree.run()
    assert result.exit_code == 2
    kinds = {p["id"]: p["kind"] for p in tree.report()["problems"]}
    assert kinds == {tree.entries[1]["id"]: "sha256_mismatch", tree.entries[3]["id"]: "size_mismatch"}


@pytest.mark.parametrize("rel", ["../outside.png", "/etc/passwd", "images/../../outside.png", "C:/x.png",
                                 "images\\..\\..\\x.png"])
def test_path_traversal_refused(tmp_path, rel):
    tree = Tree(tmp_path)
    outside = tmp_path / "outside.png"
    outside.write_bytes(_png(8, 8, 9))
    tree.set_path(0, rel, outside.read_bytes())
    result = tree.run()
    assert result.exit_code == 2
    assert [p["kind"] for p in tree.report()["problems"]] == ["unsafe_path"]
    assert "unsafe_path" in result.stderr and not tree.parquet.exists()


def test_symlink_out_of_root_refused(tmp_path):
    tree = Tree(tmp_path)
    secret = tmp_path / "secret" / "x.png"
    secret.parent.mkdir()
    secret.write_bytes(_png(8, 8, 3))
    root = tree.roots[tree.entries[0]["source_dataset"]]
    (root / "images" / "link.png").symlink_to(secret)
    tree.set_path(0, "images/link.png", secret.read_bytes())
    # a symlink that stays inside the root is fine
    (root / "images" / "inside.png").symlink_to(root / tree.entries[2]["path"])  # entries 0 and 2: rsud20k
    result = tree.run()
    assert result.exit_code == 2
    problems = tree.report()["problems"]
    assert [(p["id"], p["kind"]) for p in problems] == [(tree.entries[0]["id"], "symlink_escape")]
    assert safe_resolve(root, "images/inside.png")[1] is None


def test_decompression_bomb_in_file_header(tmp_path):
    tree = Tree(tmp_path)
    bomb = _bomb_png(100_000, 100_000)
    rel = "images/bomb.png"
    (tree.roots[tree.entries[0]["source_dataset"]] / rel).write_bytes(bomb)
    tree.set_path(0, rel, bomb, width=10, height=10)  # the manifest lies about the size
    result = tree.run()
    assert result.exit_code == 2
    problem = tree.report()["problems"][0]
    assert problem["kind"] == "decompression_bomb"


def test_decompression_bomb_by_pixel_limit_and_manifest(tmp_path):
    tree = Tree(tmp_path, n=2)
    big = _png(400, 300, 1)
    rel = "images/big.png"
    (tree.roots[tree.entries[0]["source_dataset"]] / rel).write_bytes(big)
    tree.set_path(0, rel, big, width=400, height=300)
    result = tree.run("--max-pixels", "10000")
    assert result.exit_code == 2
    problem = tree.report()["problems"][0]
    assert problem["kind"] == "decompression_bomb" and "declares 400x300" in problem["detail"]
    manifest, annotations = tree.write()
    report = reconstruct(manifest, annotations, tree.roots, tmp_path / "out2", max_pixels=200_000)
    assert report.complete


def test_bad_sources_and_join(tmp_path):
    tree = Tree(tmp_path, n=2)
    manifest, annotations = tree.write()
    base = ["reconstruct", "bd-hazardvlm", "--manifest", str(manifest), "--annotations", str(annotations),
            "--out", str(tmp_path / "out")]
    r = CliRunner().invoke(cli, [*base, "--source", f"kitti={tmp_path}"])
    assert r.exit_code == 2 and "unknown source dataset" in r.stderr
    r = CliRunner().invoke(cli, [*base, "--source", f"rsud20k={tmp_path / 'nope'}"])
    assert r.exit_code == 2 and "not a directory" in r.stderr
    r = CliRunner().invoke(cli, base)
    assert r.exit_code == 2 and "no --source" in r.stderr
    r = CliRunner().invoke(cli, [*base, "--source", f"tfp-bd={tmp_path}", "--source", f"tfp_bd={tmp_path}"])
    assert r.exit_code == 2 and "given twice" in r.stderr
    # only rsud20k given: the tfp_bd image is reported with the fix
    r = CliRunner().invoke(cli, [*base, "--source", f"rsud20k={tree.roots['rsud20k']}"])
    assert r.exit_code == 2 and "no_source" in r.stderr and "--source tfp-bd=DIR" in r.stderr
    tree.records.pop()
    tree.write()
    r = CliRunner().invoke(cli, [*base, "--source", f"rsud20k={tree.roots['rsud20k']}"])
    assert r.exit_code == 2 and "without annotation" in r.stderr and "Traceback" not in r.output


def test_demo_reconstructs_and_loads(tmp_path):
    import datasets

    r = CliRunner().invoke(cli, ["reconstruct", "bd-hazardvlm", "--demo", "--out", str(tmp_path)])
    assert r.exit_code == 0, r.output
    files = sorted((tmp_path / "data" / "demo").glob("*.parquet"))
    ds = datasets.load_dataset("parquet", data_files=[str(f) for f in files], split="train")
    assert len(ds) == 20 and ds[0]["id"] == "BDHV_DEMO_0001"
    assert ds[0]["image"].size == (192, 108)
    assert ds.features["primary_hazard_category"].names == list(spec.CATEGORIES)


# ---- hardening (issue 17): hostile paths, killed runs, truncated images, refused rebuilds, two runs at once ----

HOLDER = """
import sys, time
from pathlib import Path
from eval_kit.folder_lock import folder_lock
with folder_lock(Path(sys.argv[1]), "reconstruct bd-hazardvlm"):
    print("locked", flush=True)
    time.sleep(60)
"""


def _one_error_line(result) -> str:
    assert "Traceback" not in result.output
    errors = [line for line in result.stderr.splitlines() if line.startswith("error:")]
    assert len(errors) == 1, result.stderr
    return errors[0]


@pytest.mark.parametrize("rel", [".", "./", "images/\0x.png"])
def test_manifest_path_naming_no_file_or_holding_nul_exits_2(tmp_path, rel):
    tree = Tree(tmp_path, n=2)
    tree.set_path(0, rel, b"x")
    result = tree.run()
    assert result.exit_code == 2, result.output
    _one_error_line(result)
    assert [p["kind"] for p in tree.report()["problems"]] == ["unsafe_path"]


def test_image_symlink_loop_exits_2(tmp_path):
    tree = Tree(tmp_path, n=2)
    root = tree.roots[tree.entries[0]["source_dataset"]]
    (root / "images" / "loop_a.png").symlink_to(root / "images" / "loop_b.png")
    (root / "images" / "loop_b.png").symlink_to(root / "images" / "loop_a.png")
    tree.set_path(0, "images/loop_a.png", b"x")
    result = tree.run()
    assert result.exit_code == 2, result.output
    _one_error_line(result)
    assert [p["kind"] for p in tree.report()["problems"]] == ["symlink_loop"]


def test_out_pointing_at_a_file_exits_2_with_one_line(tmp_path):
    tree = Tree(tmp_path, n=2)
    (tmp_path / "out").write_text("not a folder")
    result = tree.run()
    assert result.exit_code == 2
    line = _one_error_line(result)
    assert "--out" in line and "not a folder" in line
    assert (tmp_path / "out").read_text() == "not a folder"


def test_leftover_temp_files_of_a_killed_run_are_removed(tmp_path):
    tree = Tree(tmp_path, n=2)
    folder = tree.parquet.parent
    folder.mkdir(parents=True)
    leftovers = [folder / ".test-00000-of-00001.parquet.4242.tmp", folder / ".report.json.x1y2.tmp"]
    for tmp in leftovers:
        tmp.write_bytes(b"PAR1 half written")
    keep = folder / "notes.txt"
    keep.write_text("mine")
    result = tree.run()
    assert result.exit_code == 0, result.output
    assert "removed 2 temp file(s) left by a killed reconstruction" in result.stderr
    assert not any(tmp.exists() for tmp in leftovers) and keep.exists()
    assert tree.report()["removed_leftovers"] == 2
    assert sorted(p.name for p in folder.iterdir()) == ["notes.txt", "report.json", "test-00000-of-00001.parquet"]


def _noise_png() -> bytes:
    import numpy as np

    noise = np.random.default_rng(0).integers(0, 256, (96, 128, 3), dtype=np.uint8)
    buf = io.BytesIO()
    Image.fromarray(noise).save(buf, format="PNG")
    return buf.getvalue()


def test_truncated_png_pinned_by_the_manifest_is_not_accepted(tmp_path):
    whole = _noise_png()
    truncated = whole[: len(whole) * 2 // 3]  # header intact, pixel data and IEND cut
    with Image.open(io.BytesIO(truncated)) as header_only:
        assert header_only.size == (128, 96)  # what a header-only check sees
    tree = Tree(tmp_path, n=2)
    rel = "images/truncated.png"
    (tree.roots[tree.entries[0]["source_dataset"]] / rel).write_bytes(truncated)
    tree.set_path(0, rel, truncated, width=128, height=96)  # sha256 and bytes pin the truncated file
    result = tree.run()  # no --decode: the missing end-of-image trailer gives it away
    assert result.exit_code == 2, result.output
    problem = tree.report()["problems"][0]
    assert problem["kind"] == "unreadable_image" and "no PNG IEND chunk" in problem["detail"]
    assert not tree.parquet.exists() and tree.report()["decoded_in_full"] == 0


def test_truncated_jpeg_is_refused_by_its_missing_end_marker(tmp_path):
    buf = io.BytesIO()
    Image.new("RGB", (64, 48), (10, 200, 30)).save(buf, format="JPEG", quality=90)
    truncated = buf.getvalue()[:-40]
    tree = Tree(tmp_path, n=2)
    (tree.roots[tree.entries[0]["source_dataset"]] / "cut.jpg").write_bytes(truncated)
    tree.set_path(0, "cut.jpg", truncated, width=64, height=48)
    assert tree.run().exit_code == 2
    assert "no JPEG end-of-image marker" in tree.report()["problems"][0]["detail"]
    # bytes after the marker (camera metadata) are no truncation
    trailing = buf.getvalue() + b"EXTRA-METADATA" * 8
    (tree.roots[tree.entries[0]["source_dataset"]] / "cut.jpg").write_bytes(trailing)
    tree.set_path(0, "cut.jpg", trailing, width=64, height=48)
    assert tree.run().exit_code == 0


def _corrupt_with_trailer() -> bytes:
    """A PNG whose pixel data is cut but which still ends with an IEND chunk: only a full decode sees it."""
    whole = _noise_png()
    return whole[: len(whole) // 2] + whole[-12:]


def test_decode_flag_decodes_every_pixel(tmp_path):
    corrupt = _corrupt_with_trailer()
    tree = Tree(tmp_path, n=3)
    (tree.roots[tree.entries[0]["source_dataset"]] / "c.png").write_bytes(corrupt)
    tree.set_path(0, "c.png", corrupt, width=128, height=96)
    # pinned by the manifest and intact at both ends: the bytes are the ones published, accepted as they are
    assert tree.run().exit_code == 0 and tree.report()["decoded_in_full"] == 0
    result = tree.run("--decode")
    assert result.exit_code == 2, result.output
    report = tree.report()
    assert report["decoded_in_full"] == 2  # the two good images; the corrupt one failed its decode
    assert report["problems"][0]["kind"] == "unreadable_image"
    assert "does not decode in full" in report["problems"][0]["detail"]


def test_entries_without_sha256_are_always_decoded(tmp_path):
    tree = Tree(tmp_path, n=3)
    for entry in tree.entries:
        del entry["sha256"]
    assert tree.run().exit_code == 0 and tree.report()["decoded_in_full"] == 3
    corrupt = _corrupt_with_trailer()
    (tree.roots[tree.entries[1]["source_dataset"]] / "c.png").write_bytes(corrupt)
    tree.set_path(1, "c.png", corrupt, width=128, height=96)
    del tree.entries[1]["sha256"]
    assert tree.run().exit_code == 2
    assert "does not decode in full" in tree.report()["problems"][0]["detail"]


def _make_manifest_cli(tree: Tree, out: Path, *extra: str):
    _, annotations = tree.write()
    return CliRunner().invoke(cli, [
        "manifest", "bd-hazardvlm", "--annotations", str(annotations), "--out", str(out),
        "--source", f"rsud20k={tree.roots['rsud20k']}", "--source", f"tfp-bd={tree.roots['tfp_bd']}",
        "--license", "rsud20k=CC BY 4.0", "--license", "tfp-bd=research only",
        "--attribution", "rsud20k=RSUD20K authors", "--attribution", "tfp-bd=TFP-BD authors", *extra])


def test_manifest_tool_decodes_in_full_and_reconstruct_accepts_its_manifest(tmp_path):
    tree = Tree(tmp_path, n=4)
    out = tmp_path / "made.jsonl"
    result = _make_manifest_cli(tree, out)
    assert result.exit_code == 0, result.output
    made = [json.loads(line) for line in out.read_text().splitlines()]
    assert [e["id"] for e in made] == sorted(e["id"] for e in tree.entries)
    by_id = {e["id"]: e for e in tree.entries}
    for entry in made:  # the same pins the fixture computed by hand, plus the recorded full decode
        expected = by_id[entry["id"]]
        assert (entry["sha256"], entry["bytes"], entry["width"], entry["height"]) == (
            expected["sha256"], expected["bytes"], expected["width"], expected["height"])
        assert entry["decoded"] is True
        assert entry["license"] == ("CC BY 4.0" if entry["source_dataset"] == "rsud20k" else "research only")
    manifest, annotations = tree.write()
    manifest.write_text(out.read_text())
    rebuilt = CliRunner().invoke(cli, [
        "reconstruct", "bd-hazardvlm", "--manifest", str(manifest), "--annotations", str(annotations),
        "--source", f"rsud20k={tree.roots['rsud20k']}", "--source", f"tfp-bd={tree.roots['tfp_bd']}",
        "--out", str(tmp_path / "out")])
    assert rebuilt.exit_code == 0, rebuilt.output


def test_manifest_tool_refuses_an_image_that_does_not_decode(tmp_path):
    tree = Tree(tmp_path, n=3)
    corrupt = _corrupt_with_trailer()
    (tree.roots[tree.entries[2]["source_dataset"]] / "c.png").write_bytes(corrupt)
    tree.set_path(2, "c.png", corrupt, width=128, height=96)
    out = tmp_path / "made.jsonl"
    result = _make_manifest_cli(tree, out)
    assert result.exit_code == 2
    assert f"{tree.entries[2]['id']}" in result.output and "does not decode in full" in result.output
    assert "1 of 3 images cannot be pinned" in result.output and not out.exists()
    missing_licence = CliRunner().invoke(cli, [
        "manifest", "bd-hazardvlm", "--annotations", str(tree.write()[1]), "--out", str(out),
        "--source", f"rsud20k={tree.roots['rsud20k']}", "--source", f"tfp-bd={tree.roots['tfp_bd']}"])
    assert missing_licence.exit_code == 2 and "no --license given" in missing_licence.output


def test_refused_rebuild_sets_the_previous_parquet_aside(tmp_path):
    tree = Tree(tmp_path, n=3)
    assert tree.run().exit_code == 0 and read_completeness(tree.parquet)["complete"] is True
    image = tree.roots[tree.entries[1]["source_dataset"]] / tree.entries[1]["path"]
    original = image.read_bytes()
    image.write_bytes(original[:-1] + bytes([original[-1] ^ 1]))  # same size, other bytes
    result = tree.run()
    assert result.exit_code == 2
    line = _one_error_line(result)
    assert "set aside as test-00000-of-00001.parquet.unverified" in line
    aside = tree.parquet.with_name("test-00000-of-00001.parquet.unverified")
    assert not tree.parquet.exists() and aside.exists()
    assert tree.report()["set_aside"] == str(aside) and tree.report()["complete"] is False
    # scoring no longer finds a reconstruction that passes for the complete benchmark
    preds = tmp_path / "preds.jsonl"
    preds.write_text("".join(json.dumps({"id": r["id"], "response": "{}"}) + "\n" for r in tree.records))
    score = CliRunner().invoke(cli, ["score", "bd-hazardvlm", "--references", str(tree.parquet.parent),
                                     "--predictions", str(preds)])
    assert score.exit_code == 2 and "Traceback" not in score.output
    # fixed files: a full rebuild replaces the set-aside copy
    image.write_bytes(original)
    assert tree.run().exit_code == 0
    assert tree.parquet.exists() and not aside.exists()


def test_two_reconstructions_into_one_folder(tmp_path):
    import os
    import signal
    import subprocess
    import sys

    tree = Tree(tmp_path, n=2)
    folder = tree.parquet.parent
    repo = Path(__file__).resolve().parents[1]
    child = subprocess.Popen([sys.executable, "-c", HOLDER, str(folder)], stdout=subprocess.PIPE,
                             env={**os.environ, "PYTHONPATH": str(repo)})
    try:
        assert child.stdout.readline().strip() == b"locked"
        result = tree.run()
        assert result.exit_code == 2
        line = _one_error_line(result)
        assert f"process {child.pid}" in line and "already using this folder" in line
        assert not tree.parquet.exists()
    finally:
        child.send_signal(signal.SIGKILL)
        child.wait()
    assert (folder / ".hazardkit.lock").exists()  # left by the killed holder: stale, must not block
    result = tree.run()
    assert result.exit_code == 0, result.output
    assert tree.parquet.exists() and not (folder / ".hazardkit.lock").exists()


@pytest.mark.parametrize("kind", ["nan", "duplicate", "deep", "fifo", "dev_zero"])
def test_hostile_manifest_file_exits_2_with_one_line(tmp_path, kind):
    import os

    tree = Tree(tmp_path, n=2)
    manifest, annotations = tree.write()
    manifest.unlink()
    first = json.dumps(tree.entries[0])
    if kind == "nan":
        manifest.write_text(first.replace('"width": 32', '"width": NaN') + "\n")
    elif kind == "duplicate":
        manifest.write_text(first[:-1] + ', "id": "other"}\n')
    elif kind == "deep":
        manifest.write_text("[" * 100_000 + "]" * 100_000 + "\n")
    elif kind == "fifo":
        os.mkfifo(manifest)
    else:
        manifest.symlink_to("/dev/zero")
    result = CliRunner().invoke(cli, [
        "reconstruct", "bd-hazardvlm", "--manifest", str(manifest), "--annotations", str(annotations),
        "--source", f"rsud20k={tree.roots['rsud20k']}", "--source", f"tfp-bd={tree.roots['tfp_bd']}",
        "--out", str(tmp_path / "out")])
    assert result.exit_code == 2
    line = _one_error_line(result)
    assert str(manifest) in line
    assert not (tmp_path / "out").exists()


def test_completeness_metadata_is_read_strictly(tmp_path):
    import pyarrow as pa

    from eval_kit.errors import BadInput

    path = tmp_path / "x.parquet"
    table = pa.table({"id": ["a"]}).replace_schema_metadata({b"hazardkit": b'{"complete": NaN}'})
    pq.write_table(table, path)
    with pytest.raises(BadInput, match="NaN"):
        read_completeness(path)
