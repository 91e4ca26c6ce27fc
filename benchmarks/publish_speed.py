"""Publishing throughput vs `cp`, and how fast `datasets.load_dataset` reads the result.

Prints (all measured in this run, on this machine):
- MB/s of copying N image files with `cp -r` (the baseline: the least any publisher must do);
- MB/s of writing the Parquet shards alone, and of the whole publish (shards, figure, card, Croissant,
  manifest with sha256s, checks), each with its ratio to `cp` (target >= 0.5 for the whole publish);
- load_dataset on the result: time to the first row (map-style, which builds datasets' Arrow cache,
  and streaming), and time for a full iteration with images left encoded and decoded.

Images are random-noise JPEGs (incompressible, like photos), so sizes are realistic for their pixels.
Usage: python benchmarks/publish_speed.py [--n 300] [--width 800] [--height 450] [--repeat 3]
"""

from __future__ import annotations

import argparse
import io
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))


def make_images(folder: Path, n: int, width: int, height: int, seed: int = 0) -> list[dict]:
    """Write n noise JPEGs and return MovSafeBench records pointing at them."""
    from PIL import Image

    from eval_kit.benchmarks import movsafebench as spec

    rng = np.random.default_rng(seed)
    records = []
    folder.mkdir(parents=True)
    base = rng.integers(0, 256, size=(height, width, 3), dtype=np.uint8)
    for i in range(n):
        pixels = np.roll(base, shift=i * 7, axis=1) ^ rng.integers(0, 32, size=(1, width, 3), dtype=np.uint8)
        buf = io.BytesIO()
        Image.fromarray(pixels).save(buf, format="JPEG", quality=90)
        name = f"img_{i:05d}.jpg"
        (folder / name).write_bytes(buf.getvalue())
        scenario = spec.EDITED_SCENARIOS[i % 4]
        cats = spec.SCENARIO_CATEGORIES[scenario]
        answers = spec.SCENARIO_GROUND_TRUTHS[scenario]
        records.append({
            "id": f"bench-{i:06d}", "image_path": name, "answer": answers[i % len(answers)], "scenario": scenario,
            "category": cats[i % len(cats)], "source_benchmark": spec.SOURCE_BENCHMARKS[i % 2],
            "source_id": f"src-{i // 10}", "seed": i,
        })
    return records


def time_cp(src: Path, dst_root: Path) -> float:
    dst = dst_root / "copy"
    if dst.exists():
        shutil.rmtree(dst)
    os.sync()
    start = time.perf_counter()
    subprocess.run(["cp", "-r", str(src), str(dst)], check=True)
    elapsed = time.perf_counter() - start
    shutil.rmtree(dst)
    return elapsed


def time_raw_write(src: Path, dst_root: Path) -> float:
    """The user-space ceiling: read every image and write the bytes into one new file with plain write()s.

    `cp` copies inside the kernel (copy_file_range), which no program that builds new bytes can do; a
    publisher must at least read and write() its output like this."""
    dst = dst_root / "raw.bin"
    os.sync()
    start = time.perf_counter()
    with open(dst, "wb") as out:
        for path in sorted(src.iterdir()):
            out.write(path.read_bytes())
    elapsed = time.perf_counter() - start
    dst.unlink()
    return elapsed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=300, help="number of images")
    parser.add_argument("--width", type=int, default=800)
    parser.add_argument("--height", type=int, default=450)
    parser.add_argument("--repeat", type=int, default=7, help="repetitions; the best run of each step is reported")
    args = parser.parse_args()

    work = Path(tempfile.mkdtemp(prefix="publish_speed_"))
    os.environ["HF_DATASETS_CACHE"] = str(work / "hf_cache")
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("HF_DATASETS_OFFLINE", "1")
    try:
        import datasets

        from builder.publish.movsafebench import movsafebench_rows_from_records
        from builder.publish.pipeline import publish
        from builder.publish.shards import write_config
        from eval_kit.benchmarks import movsafebench as spec

        datasets.disable_progress_bars()
        src = work / "images"
        records = make_images(src, args.n, args.width, args.height)
        total = sum(p.stat().st_size for p in src.iterdir())
        mb = total / 1e6
        print(f"{args.n} JPEG images {args.width}x{args.height}, {mb:.1f} MB in all; best of {args.repeat} runs each")

        # Every output is deleted right after it is timed, so the next step writes into page-cache memory
        # the kernel just freed. On this VM, memory the guest has not touched lately is slow to touch
        # (measured: 98 MB writes into fresh memory 0.02 s -> 0.36 s after ~300 MB), which would make
        # whichever step came first look slow; a recycled page cache is also the steady state of a
        # busy machine.
        cp_times, raw_times, shard_times, publish_times = [], [], [], []
        features = spec.features()
        for r in range(args.repeat):
            cp_times.append(time_cp(src, work))
            raw_times.append(time_raw_write(src, work))
            out = work / f"shards{r}"
            os.sync()  # every timed step starts with no dirty pages left by the previous one
            start = time.perf_counter()
            write_config(movsafebench_rows_from_records(records, base_dir=src), features, out, "default")
            shard_times.append(time.perf_counter() - start)
            shutil.rmtree(out)
            out = work / f"repo{r}"
            os.sync()
            start = time.perf_counter()
            publish("movsafebench", version="1.0.0", config="default", out=out, date="2026-01-01",
                    rows=movsafebench_rows_from_records(records, base_dir=src), repo_id="bench/movsafebench")
            publish_times.append(time.perf_counter() - start)
            if r < args.repeat - 1:
                shutil.rmtree(out)
        # the best of the runs of each step: noise on a shared machine only ever adds time
        cp_t, raw_t, shard_t, pub_t = (min(t) for t in (cp_times, raw_times, shard_times, publish_times))
        cp_rate = mb / cp_t
        print(f"cp -r                         {cp_t:7.3f} s  {cp_rate:8.1f} MB/s  ratio 1.00 (baseline)")
        print(f"read + write() the same bytes {raw_t:7.3f} s  {mb / raw_t:8.1f} MB/s  ratio {cp_t / raw_t:.2f}"
              f"  (user-space ceiling)")
        print(f"Parquet shards only           {shard_t:7.3f} s  {mb / shard_t:8.1f} MB/s  "
              f"ratio {cp_t / shard_t:.2f}  ({raw_t / shard_t:.2f} of the user-space ceiling)")
        print(f"full publish (card, croissant, {pub_t:6.3f} s  {mb / pub_t:8.1f} MB/s  ratio {cp_t / pub_t:.2f}"
              f"  (target >= 0.5; {raw_t / pub_t:.2f} of the user-space ceiling)")
        print("  manifest, figure, checks)")
        for name, times in (("cp", cp_times), ("shards only", shard_times), ("full publish", publish_times)):
            print(f"  {name} times (s): {' '.join(f'{t:.3f}' for t in times)}")
        # runs made back to back share the machine's state of the moment: their ratios, as a second view
        for name, times in (("shards only", shard_times), ("full publish", publish_times)):
            ratios = sorted(c / t for c, t in zip(cp_times, times, strict=True))
            print(f"paired ratio to cp, {name}: median {statistics.median(ratios):.2f} "
                  f"(min {ratios[0]:.2f}, max {ratios[-1]:.2f})")

        folder = str(out)
        start = time.perf_counter()
        ds = datasets.load_dataset(folder, "default", split="test")
        _ = ds[0]
        first_map = time.perf_counter() - start
        start = time.perf_counter()
        stream = datasets.load_dataset(folder, "default", split="test", streaming=True)
        _ = next(iter(stream))
        first_stream = time.perf_counter() - start
        raw = ds.cast_column("image", datasets.Image(decode=False))
        start = time.perf_counter()
        n_bytes = sum(len(row["image"]["bytes"]) for row in raw)
        full_raw = time.perf_counter() - start
        start = time.perf_counter()
        pixels = sum(row["image"].size[0] for row in ds)
        full_decoded = time.perf_counter() - start
        assert n_bytes == total and pixels == args.n * args.width
        print(f"load_dataset first row: map-style (builds Arrow cache) {first_map:.3f} s; "
              f"streaming {first_stream:.3f} s")
        print(f"full iteration: images encoded {full_raw:.3f} s ({args.n / full_raw:.0f} rows/s); "
              f"decoded with PIL {full_decoded:.3f} s ({args.n / full_decoded:.0f} rows/s)")
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
