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
