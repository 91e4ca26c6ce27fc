"""Speed of the CPU parts of HazardForge editing at 1600 x 900 (nuScenes size): prints its figures.

- compositing editor images/s (sprite + perspective + Poisson blend + paste back), against a baseline in the
  same run: a plain alpha paste of the same sprite (no Poisson), so the ratio is the cost of seamless blending;
- heuristic checker ms per check; intrusion pad + crop ms; reading a verified source image (sha256 + decode) ms.
Usage: .venv/bin/python benchmarks/forge_editors.py [--n 40]
"""

from __future__ import annotations

import argparse
import io
import tempfile
import time
from pathlib import Path

import numpy as np
from PIL import Image

from builder.movsafebench.hazardforge.editors import CompositingEditor, IntrusionGeometry, pad_canvas
from builder.movsafebench.hazardforge.editors.sprites import procedural_sprite
from builder.movsafebench.hazardforge.quality import HeuristicChecker
from builder.movsafebench.sources.common import SourceRecord, sha256_file
from builder.movsafebench.sources.manifest import open_source_image
from eval_kit.movsafebench.spec import CATEGORIES

W, H = 1600, 900


def scene(seed: int) -> Image.Image:
    rng = np.random.default_rng(seed)
    yy, xx = np.mgrid[0:H, 0:W]
    bg = np.stack([80 + 0.1 * yy, 90 + 0.02 * xx, 100 + 0.08 * yy], -1) + rng.normal(0, 6, (H, W, 3))
    return Image.fromarray(np.clip(bg, 0, 255).astype(np.uint8))


def timed(fn, n: int) -> float:
    fn(0)  # warm-up (lazy imports, first allocation)
    start = time.perf_counter()
    for i in range(n):
        fn(i)
    return (time.perf_counter() - start) / n


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=40)
    parser.add_argument("--quick", action="store_true", help="3 edits of each kind: checks the script runs")
    args = parser.parse_args()
    n = 3 if args.quick else args.n
    img = scene(0)
    mask = np.zeros((H, W), bool)
    mask[420:890, 533:1066] = True  # the centre region below the horizon (a static/motion layout)
    editor, checker = CompositingEditor(), HeuristicChecker()
    prompts = [f"Render a {c}, facing {d}." for c in CATEGORIES for d in ("forward", "left")]
    outputs = {}

    def composite(i: int) -> None:
        outputs[i % 4] = editor.edit(img, mask, prompts[i % len(prompts)], seed=i)

    def alpha_paste(i: int) -> None:  # baseline: same sprite size, no Poisson, no perspective logic
        sprite = procedural_sprite(CATEGORIES[i % len(CATEGORIES)], "side", i)
        import cv2

        scale = 300 / max(sprite.shape[:2])
        sprite = cv2.resize(sprite, (max(1, round(sprite.shape[1] * scale)), max(1, round(sprite.shape[0] * scale))))
        arr = np.asarray(img).copy()
        h, w = sprite.shape[:2]
        a = sprite[..., 3:4] / 255.0
        arr[500:500 + h, 600:600 + w] = (sprite[..., :3] * a + arr[500:500 + h, 600:600 + w] * (1 - a)).astype(
            np.uint8)
        Image.fromarray(arr)

    t_comp = timed(composite, n)
    t_alpha = timed(alpha_paste, n)
    out = outputs[0]
    t_check = timed(lambda i: checker.check(img, out, mask, "forward"), n)
    geo = IntrusionGeometry(W, H, 256, "right")
    t_pad = timed(lambda i: geo.crop(pad_canvas(img, 256, "right")), n)
    with tempfile.TemporaryDirectory() as tmp:
        buf = io.BytesIO()
        img.save(buf, "JPEG", quality=90)
        (Path(tmp) / "frame.jpg").write_bytes(buf.getvalue())
        rec = SourceRecord("x", "folder", "frame.jpg", sha256_file(Path(tmp) / "frame.jpg"), "left", "vehicle")
        t_src = timed(lambda i: open_source_image(rec, {"folder": tmp}), n)
    print(f"image size: {W}x{H}, repetitions: {n}")
    print(f"compositing editor: {1 / t_comp:.1f} images/s ({t_comp * 1e3:.1f} ms/edit)")
    print(f"baseline plain alpha paste: {t_alpha * 1e3:.1f} ms/edit; compositor / baseline = {t_comp / t_alpha:.1f}x")
    print(f"heuristic check: {t_check * 1e3:.1f} ms/check")
    print(f"intrusion pad r=256 + crop: {t_pad * 1e3:.1f} ms")
    print(f"verified source read (sha256 + JPEG decode): {t_src * 1e3:.1f} ms")


if __name__ == "__main__":
    main()
