"""`hazardkit sources scan|verify` end to end through the console entry point."""

from __future__ import annotations

import json
from pathlib import Path

from PIL import Image

from builder.cli import main


def test_scan_folder_then_verify(tmp_path: Path, capsys) -> None:
    Image.new("RGB", (8, 8), (1, 2, 3)).save(tmp_path / "a.png")
    (tmp_path / "idx.jsonl").write_text(json.dumps({"id": "a", "path": "a.png", "gt_action": "right",
                                                    "agent": "robot"}) + "\n")
    out = tmp_path / "sources.jsonl"
    assert main(["sources", "scan", "folder", "--index", str(tmp_path / "idx.jsonl"), "--out", str(out)]) == 0
    assert json.loads(out.read_text())["sha256"]
    assert main(["sources", "verify", str(out), "--root", f"folder={tmp_path}"]) == 0
    assert "all 1 source images present" in capsys.readouterr().out
    Image.new("RGB", (8, 8), (9, 9, 9)).save(tmp_path / "a.png")
    assert main(["sources", "verify", str(out), "--root", f"folder={tmp_path}"]) == 2
    captured = capsys.readouterr()
    assert "a: checksum mismatch" in captured.out and captured.err.startswith("error: ")
    assert "Traceback" not in captured.err
    assert main(["sources", "verify", str(out), "--root", "nonsense"]) == 2
    assert main(["sources", "scan", "sa-bench", "--root", str(tmp_path / "none"), "--out", str(out)]) == 2


def test_show_skipped_lists_what_it_promises(tmp_path: Path, capsys) -> None:
    """`-v N` lists N skipped inputs with their reason, also when none was usable (then on stderr, before the
    one-line error), and says how many more were skipped."""
    lines = [{"id": f"m{i}", "path": f"missing{i}.png", "gt_action": "left", "agent": "robot"} for i in range(3)]
    (tmp_path / "idx.jsonl").write_text("".join(json.dumps(x) + "\n" for x in lines))
    out = tmp_path / "sources.jsonl"
    args = ["sources", "scan", "folder", "--index", str(tmp_path / "idx.jsonl"), "--out", str(out)]
    assert main([*args, "-v", "2"]) == 2
    err = capsys.readouterr().err
    assert err.count("  skipped ") == 2 and "missing0.png" in err and "missing1.png" in err
    assert "1 more skipped input(s) not listed: -v 3 lists them all" in err
    assert "no usable source images found; skipped 3" in err and not out.exists()
    Image.new("RGB", (8, 8), (1, 2, 3)).save(tmp_path / "ok.png")
    lines.append({"id": "ok", "path": "ok.png", "gt_action": "right", "agent": "robot"})
    (tmp_path / "idx.jsonl").write_text("".join(json.dumps(x) + "\n" for x in lines))
    assert main([*args, "-v", "5"]) == 0
    printed = capsys.readouterr().out
    assert "wrote 1 sources" in printed and printed.count("  skipped ") == 3 and "more skipped" not in printed
