"""openai backend images (issue 21 item 6): a source JPEG that needs no resizing travels as its own bytes, the
format is an option recorded in the run's settings, and images are prepared on prefetch threads."""

from __future__ import annotations

import base64
import io
import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from builder.cli import cli
from tests.chat_stub import ChatStub

pytest.importorskip("httpx")


def jpeg_data(folder: Path, n: int = 3, size: tuple[int, int] = (160, 90)) -> Path:
    """MovSafeBench JSON Lines over JPEG files of `size`."""
    from PIL import Image

    from eval_kit.testing.synthetic_datasets import rows

    (folder / "images").mkdir(parents=True)
    lines = []
    for i, row in enumerate(rows(n, seed=2)):
        name = f"images/{i}.jpg"
        Image.new("RGB", size, (40 * i, 120, 200)).save(folder / name, format="JPEG", quality=85)
        lines.append(json.dumps({**row, "image": name}))
    path = folder / "refs.jsonl"
    path.write_text("\n".join(lines) + "\n")
    return path


def urls(server: ChatStub) -> list[str]:
    return [p["image_url"]["url"] for body in server.requests for p in body["messages"][0]["content"]
            if p["type"] == "image_url"]


def run(data: Path, out: Path, *extra: str):
    with ChatStub(lambda body: "Answer: B") as server:
        result = CliRunner().invoke(cli, ["eval", "movsafebench", "-m", "served", "-b", "openai", "--data", str(data),
                                          "--out", str(out), "--base-url", server.url, "--no-progress", *extra])
    return result, server


def test_a_jpeg_needing_no_resize_travels_as_its_own_bytes(tmp_path):
    data = jpeg_data(tmp_path / "d")
    result, server = run(data, tmp_path / "r")
    assert result.exit_code == 0, result.output
    sent = sorted(urls(server))
    files = sorted("data:image/jpeg;base64," + base64.b64encode(p.read_bytes()).decode()
                   for p in (tmp_path / "d/images").glob("*.jpg"))
    assert sent == files  # byte for byte, no re-encoding
    metadata = json.loads((tmp_path / "r/metadata.json").read_text())
    assert metadata["settings"]["image_format"] == "auto"


def test_a_resized_jpeg_stays_jpeg_and_png_is_the_lossless_option(tmp_path):
    from PIL import Image

    data = jpeg_data(tmp_path / "d")
    result, server = run(data, tmp_path / "r", "--max-pixels", "3000")
    assert result.exit_code == 0, result.output
    for url in urls(server):
        assert url.startswith("data:image/jpeg;base64,")
        image = Image.open(io.BytesIO(base64.b64decode(url.split(",", 1)[1])))
        assert image.width * image.height <= 3000
    result, server = run(data, tmp_path / "p", "--image-format", "png")
    assert result.exit_code == 0, result.output
    assert all(u.startswith("data:image/png;base64,") for u in urls(server)) and len(urls(server)) == 3
    # the format is part of the run: a png run does not resume into the auto one
    again, _ = run(data, tmp_path / "r", "--max-pixels", "3000", "--image-format", "png")
    assert again.exit_code == 2 and "different run" in again.output


def test_image_format_and_answer_bound_are_openai_options_only(tmp_path):
    data = jpeg_data(tmp_path / "d")
    for option, value in (("--image-format", "png"), ("--max-response-bytes", "5000")):
        result = CliRunner().invoke(cli, ["eval", "movsafebench", "-m", "random", "-b", "baseline", "--data",
                                          str(data), "--out", str(tmp_path / option), option, value])
        assert result.exit_code == 2 and f"{option} applies to the openai backend" in result.output
