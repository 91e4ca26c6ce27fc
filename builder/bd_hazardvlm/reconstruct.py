"""Rebuild BD-HazardVLM locally from the image manifest and the user's own copies of RSUD20K and TFP-BD.

The source images are never redistributed (paper section 3), so the release ships a manifest that pins
every image by path, byte size, sha256 and dimensions. This module checks each file against it, refuses
anything unsafe (paths escaping the source roots, symlinks out, decompression bombs), joins the
annotations and writes a local Parquet with the images embedded (config `reconstructed`) plus a report.
A partial result is written only when asked for (`allow_missing`) and is marked incomplete everywhere.

Where the manifest pins a sha256, a matching hash means the bytes are exactly the ones the maintainers
published, and their manifest tool (`hazardkit manifest bd-hazardvlm`, `builder.bd_hazardvlm.manifest`)
decoded every one of those images in full when the manifest was made. So a rebuild checks size, sha256, the
image header (format, dimensions, pixel limit) and the format's end-of-image trailer (a truncated JPEG, PNG
or WebP has none) at the speed of reading the bytes, and decodes every pixel only when asked
(`decode=True`, `--decode`) or when an entry pins no hash. The output folder is held with an advisory lock for
the whole run (a second reconstruction into it is refused naming the PID), temp files of a killed run are
removed, and a rebuild refused for bad images sets the previous Parquet aside (`*.parquet.unverified`)
instead of leaving it to pass for a complete benchmark.
"""

from __future__ import annotations

import errno
import hashlib
import io
import json
import os
import time
import warnings
from collections.abc import Callable, Mapping
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass, field
from pathlib import Path, PurePosixPath
from typing import Any

from eval_kit.bd_hazardvlm import spec
from eval_kit.errors import BadInput
from eval_kit.folder_lock import folder_lock
from eval_kit.jsonl import TEMP_SUFFIX, atomic_write_json, iter_jsonl
from eval_kit.safe_paths import refuse_links
from eval_kit.schemas import first_error

DEFAULT_MAX_PIXELS = 40_000_000  # far above any source frame (RSUD20K / TFP-BD are video-sized), far below a bomb
PARQUET_NAME = "test-00000-of-00001.parquet"
REPORT_NAME = "report.json"
UNVERIFIED_SUFFIX = ".unverified"  # a previous Parquet a refused rebuild could not vouch for
ROW_GROUP_SIZE = 100  # the `datasets` default for image rows: keeps row groups a few tens of MB

# problem kind -> what the user should do about it
FIXES: dict[str, str] = {
    "no_source": "pass --source {source}=DIR pointing at your copy of {name}",
    "missing": "download {name} from its official repository and place the file at this path under the root",
    "size_mismatch": "the file differs from the release: re-download the original {name} image (do not re-encode)",
    "sha256_mismatch": "the file differs from the release: re-download the original {name} image (do not re-encode)",
    "unsafe_path": "the manifest path must be relative and stay inside the source root; use the official manifest",
    "symlink_escape": "replace the symlink with the real file inside the {name} root",
    "symlink_loop": "the path is a symlink loop: replace it with the real {name} file",
    "not_a_file": "this path must be a regular image file",
    "decompression_bomb": "the image is larger than --max-pixels; this is not a {name} frame, re-download it",
    "unreadable_image": "the file is not a readable image; re-download the original {name} image",
    "unreadable_file": "check that the file and its folders are readable by you",
    "dimension_mismatch": "the image's size differs from the manifest; re-download the original {name} image",
}


@dataclass
class FileProblem:
    """One image that could not be reconstructed, and the fix."""

    id: str
    source_dataset: str
    path: str
    kind: str
    detail: str
    fix: str

    def line(self) -> str:
        return f"{self.id} [{self.source_dataset}] {self.path}: {self.kind}: {self.detail} ({self.fix})"


@dataclass
class ReconstructReport:
    """What a reconstruction did; written as JSON beside the Parquet and returned to the caller."""

    config: str
    complete: bool
    expected: int
    reconstructed: int
    problems: list[FileProblem] = field(default_factory=list)
    parquet: str | None = None
    manifest: str = ""
    annotations: str = ""
    sources: dict[str, str] = field(default_factory=dict)
    seconds: float = 0.0
    set_aside: str | None = None  # the previous Parquet, moved aside because this run could not vouch for it
    removed_leftovers: int = 0  # temp files of a killed reconstruction, removed at the start
    decoded_in_full: int = 0  # images whose every pixel was decoded (--decode, or no sha256 pinned)

    def as_dict(self) -> dict[str, Any]:
        out = asdict(self)
        out["problem_counts"] = {k: sum(p.kind == k for p in self.problems) for k in FIXES
                                 if any(p.kind == k for p in self.problems)}
        return out


@dataclass
class _Checked:
    entry: dict[str, Any]
    data: bytes | None = None
    problem: FileProblem | None = None
    decoded: bool = False  # every pixel was decoded (not only the header and trailer)


def parse_sources(pairs: Mapping[str, str | Path]) -> dict[str, Path]:
    """`{"rsud20k": DIR, "tfp-bd": DIR}` -> canonical source names -> existing directories (BadInput otherwise)."""
    roots: dict[str, Path] = {}
    for raw_name, raw_dir in pairs.items():
        name = raw_name.strip().lower().replace("-", "_")
        if name not in spec.SOURCE_DATASETS:
            raise BadInput(f"unknown source dataset {raw_name!r}", field="--source",
                           fix=f"use one of {', '.join(s.replace('_', '-') for s in spec.SOURCE_DATASETS)}")
        root = Path(raw_dir)
        if not root.is_dir():
            raise BadInput("source root is not a directory", path=root, field="--source",
                           fix=f"point --source {raw_name}=DIR at your copy of {spec.SOURCE_NAMES[name]}")
        roots[name] = root
    return roots


def load_manifest(path: str | Path) -> list[dict[str, Any]]:
    """Image manifest entries (JSON Lines), validated against the schema; duplicate ids are bad input."""
    entries: list[dict[str, Any]] = []
    seen: dict[str, int] = {}
    for number, obj in iter_jsonl(path):
        problem = first_error(spec.MANIFEST_SCHEMA, obj)
        if problem is not None:
            raise BadInput(problem[1], path=path, line=number, field=problem[0],
                           fix="see eval_kit/bd_hazardvlm/schemas/bd_hazardvlm_image_manifest.schema.json")
        if obj["id"] in seen:
            raise BadInput(f"duplicate id {obj['id']!r} (first on line {seen[obj['id']]})", path=path,
                           line=number, field="id")
        seen[obj["id"]] = number
        entries.append(obj)
    return entries


def safe_resolve(root: Path, relative: str) -> tuple[Path | None, str | None, str]:
    """Resolve a manifest path under `root`; returns (path, problem kind, detail).

    Refuses absolute paths, drive letters, backslashes, `..`, NUL characters and paths naming no file (`.`,
    empty) before touching the disk, then refuses a resolved path (symlinks followed) that leaves the
    resolved root, and a symlink loop.
    """
    pure = PurePosixPath(relative)
    if not pure.parts or pure.parts == (".",) or "\0" in relative:
        return None, "unsafe_path", f"path {_short(relative)} names no file under the source root"
    if (pure.is_absolute() or relative.startswith(("/", "~")) or "\\" in relative or ":" in pure.parts[0]
            or any(part in ("..", "") for part in pure.parts)):
        return None, "unsafe_path", f"path {_short(relative)} is absolute or escapes the source root"
    candidate = root / pure
    try:
        real_root = root.resolve()
        real = candidate.resolve()
    except RuntimeError:  # Python 3.11 reports a symlink loop this way (later versions: OSError ELOOP)
        return None, "symlink_loop", "symlink loop"
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            return None, "symlink_loop", "symlink loop"
        return None, "unreadable_file", f"{type(exc).__name__}: {exc.strerror or exc}"
    if not real.is_relative_to(real_root):
        return None, "symlink_escape", f"resolves to {real}, outside the source root {real_root}"
    return real, None, ""


def _short(text: str, limit: int = 80) -> str:
    """A path for a problem line: repr, cut to `limit` characters (a manifest may hold a 50 MB path)."""
    shown = repr(text)
    return shown if len(shown) <= limit else f"{shown[:limit]}... ({len(text)} characters)"


def _check_entry(entry: dict[str, Any], roots: Mapping[str, Path], max_pixels: int, decode: bool = False) -> _Checked:
    """Every check for one manifest entry; the bytes are kept only when all pass. Decodes every pixel only when
    `decode` or when the entry pins no sha256 (see the module docstring)."""
    from PIL import Image

    source = entry["source_dataset"]
    name = spec.SOURCE_NAMES[source]

    def fail(kind: str, detail: str) -> _Checked:
        fix = FIXES[kind].format(source=source.replace("_", "-"), name=name)
        return _Checked(entry, problem=FileProblem(entry["id"], source, entry["path"], kind, detail, fix))

    if entry["width"] * entry["height"] > max_pixels:
        return fail("decompression_bomb", f"manifest declares {entry['width']}x{entry['height']} pixels, "
                                          f"over the limit of {max_pixels}")
    root = roots.get(source)
    if root is None:
        return fail("no_source", f"no root given for {name}")
    try:
        real, kind, detail = safe_resolve(root, entry["path"])
        if real is None:
            return fail(kind, detail)
        if not real.exists():
            return fail("missing", "file not found")
        if not real.is_file():
            return fail("not_a_file", "not a regular file")
        size = real.stat().st_size
        if size != entry["bytes"]:
            return fail("size_mismatch", f"{size} bytes, expected {entry['bytes']}")
        data = real.read_bytes()
    except FileNotFoundError:  # removed while we looked
        return fail("missing", "file not found")
    except OSError as exc:  # permissions, symlink loops, I/O errors
        return fail("unreadable_file", f"{type(exc).__name__}: {exc.strerror or exc}")
    pinned = entry.get("sha256")
    if pinned is not None:
        digest = hashlib.sha256(data).hexdigest()
        if digest != pinned:
            return fail("sha256_mismatch", f"sha256 {digest[:12]}..., expected {pinned[:12]}...")
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error", Image.DecompressionBombWarning)
            with Image.open(io.BytesIO(data)) as image:  # the header first: size checks before any decoding
                width, height = image.size
                if width * height > max_pixels:
                    return fail("decompression_bomb", f"{width}x{height} pixels, over the limit of {max_pixels}")
                if (width, height) != (entry["width"], entry["height"]):
                    return fail("dimension_mismatch",
                                f"{width}x{height}, expected {entry['width']}x{entry['height']}")
                missing_end = missing_trailer(image.format, data)
                if missing_end:
                    return fail("unreadable_image", missing_end)
                full = decode or pinned is None
                if full:  # every pixel: asked for, or nothing pins these bytes to a checked original
                    image.load()
    except (Image.DecompressionBombError, Image.DecompressionBombWarning) as exc:
        return fail("decompression_bomb", str(exc))
    except Exception as exc:  # PIL raises many types for corrupt or truncated files
        return fail("unreadable_image", f"does not decode in full ({type(exc).__name__}: {exc})")
    return _Checked(entry, data=data, decoded=full)


TRAILER_WINDOW = 4096  # bytes at the end searched for the end-of-image marker (trailing metadata is allowed)


def missing_trailer(image_format: str | None, data: bytes) -> str | None:
    """Why `data` lacks its format's end-of-image trailer (a truncated file), or None when it has it.

    Costs a look at the last few KB, not a decode: a JPEG ends with an EOI marker (FF D9, which entropy-coded
    data never holds, since every FF there is followed by 00), a PNG with its IEND chunk, and a WebP's RIFF
    header states the file's length. Bytes after the trailer (camera metadata) pass. Other formats (TIFF, BMP,
    GIF) pass; `--decode` checks them in full.
    """
    tail = data[-TRAILER_WINDOW:]
    if image_format == "JPEG" and b"\xff\xd9" not in tail:
        return "truncated: no JPEG end-of-image marker (FF D9) at the end of the file"
    if image_format == "PNG" and b"IEND" not in tail:
        return "truncated: no PNG IEND chunk at the end of the file"
    if image_format == "WEBP" and len(data) < int.from_bytes(data[4:8], "little") + 8:
        return "truncated: shorter than its RIFF header states"
    return None


def _join(entries: list[dict[str, Any]], records: dict[str, dict[str, Any]], manifest: Path) -> None:
    """The manifest and annotations must describe the same images (a release inconsistency is bad input)."""
    ids = {e["id"] for e in entries}
    only_manifest = sorted(ids - set(records))
    only_annotations = sorted(set(records) - ids)
    if only_manifest or only_annotations:
        detail = []
        if only_manifest:
            detail.append(f"{len(only_manifest)} manifest id(s) without annotation, e.g. {only_manifest[0]}")
        if only_annotations:
            detail.append(f"{len(only_annotations)} annotation id(s) without manifest entry, "
                          f"e.g. {only_annotations[0]}")
        raise BadInput("; ".join(detail), path=manifest, field="id",
                       fix="use the manifest and annotations of the same release")
    for e in entries:
        rec = records[e["id"]]
        if (rec["source_dataset"], rec["source_path"]) != (e["source_dataset"], e["path"]):
            raise BadInput(f"{e['id']}: manifest says {e['source_dataset']}:{e['path']}, annotations say "
                           f"{rec['source_dataset']}:{rec['source_path']}", path=manifest, field="path",
                           fix="use the manifest and annotations of the same release")


def _table(rows: list[tuple[dict[str, Any], dict[str, Any], bytes]], meta: dict[str, Any]):
    """A pyarrow Table with the `datasets` features of the spec (ClassLabels as ints, images embedded)."""
    import pyarrow as pa

    schema = spec.arrow_schema(with_image=True)
    index = {
        "source_dataset": {n: i for i, n in enumerate(spec.SOURCE_DATASETS)},
        "primary_hazard_category": {n: i for i, n in enumerate(spec.CATEGORIES)},
        "risk_timing": {n: i for i, n in enumerate(spec.TIMINGS)},
        "severity": {n: i for i, n in enumerate(spec.SEVERITIES)},
    }
    action_index = {n: i for i, n in enumerate(spec.ACTIONS)}
    cols: dict[str, Any] = {name: [] for name in schema.names}
    for entry, rec, data in rows:
        cols["id"].append(rec["id"])
        cols["image_sha256"].append(entry.get("sha256") or hashlib.sha256(data).hexdigest())
        cols["defensive_actions"].append([action_index[a] for a in rec["defensive_actions"]])
        for name in ("source_id", "source_path", "hazard_present", "evidence", "hallucination_trap",
                     "western_bias_trap", "pilot"):
            cols[name].append(rec[name])
        for name, lut in index.items():
            cols[name].append(lut[rec[name]])
    # the image column from whole arrays: one copy of the bytes, no per-row Python dicts
    names = [f"{rec['id']}{PurePosixPath(entry['path']).suffix.lower()}" for entry, rec, _ in rows]
    cols["image"] = pa.StructArray.from_arrays(
        [pa.array([data for _, _, data in rows], pa.binary()), pa.array(names, pa.string())],
        fields=list(schema.field("image").type),
    )
    metadata = dict(schema.metadata or {})
    metadata[b"hazardkit"] = json.dumps(meta).encode()
    return pa.Table.from_pydict(cols, schema=schema.with_metadata(metadata))


def _write_parquet(table, path: Path) -> None:
    """Atomic Parquet write: a temporary file in the same folder, renamed when complete."""
    import pyarrow.parquet as pq

    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        # image bytes are already compressed (JPEG/PNG): compressing them again only costs time
        # nor are min/max statistics of image bytes of any use: skip that pass over them
        stats = [name for name in table.column_names if name != "image"]
        pq.write_table(table, tmp, row_group_size=ROW_GROUP_SIZE, compression="none", use_dictionary=False,
                       write_statistics=stats)
        os.replace(tmp, path)
    finally:
        if tmp.exists():
            tmp.unlink()


def output_dir(out: str | Path, config: str) -> Path:
    """Where a config's Parquet goes: `<out>/reconstructed/` (local only) or `<out>/data/demo/`."""
    out = Path(out)
    return out / "reconstructed" if config == "reconstructed" else out / "data" / config


def _make_folder(folder: Path, out: Path) -> None:
    """Create the output folder; a file in the way, a NUL in the name or no permission is bad input."""
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except (FileExistsError, NotADirectoryError):
        raise BadInput("is not a folder (a file is in the way of the output folder)", path=out, field="--out",
                       fix="pass --out a folder (it is created when missing)") from None
    except (OSError, ValueError) as exc:
        raise BadInput(f"cannot create the output folder ({getattr(exc, 'strerror', None) or exc})", path=out,
                       field="--out", fix="pass --out a folder you can write") from None


def _remove_leftovers(folder: Path) -> int:
    """Temp files of a reconstruction killed mid-write (`.<name>.parquet.<pid>.tmp`, `.report.json.*.tmp`).

    Called with the folder's lock held, so no live reconstruction is writing them."""
    removed = 0
    for pattern in (f".{PARQUET_NAME}.*.tmp", f".{REPORT_NAME}.*.tmp", f".{REPORT_NAME}.*{TEMP_SUFFIX}"):
        for tmp in folder.glob(pattern):
            if tmp.is_file() and not tmp.is_symlink():
                tmp.unlink(missing_ok=True)
                removed += 1
    return removed


def reconstruct(
    manifest: str | Path,
    annotations: str | Path,
    sources: Mapping[str, str | Path],
    out: str | Path = "bd_hazardvlm",
    *,
    config: str = "reconstructed",
    allow_missing: bool = False,
    max_pixels: int = DEFAULT_MAX_PIXELS,
    workers: int | None = None,
    decode: bool = False,
    on_progress: Callable[[int, int], None] | None = None,
) -> ReconstructReport:
    """Verify, join and write. Returns the report; the Parquet is written only when complete or allowed.

    Raises BadInput for unusable inputs (bad manifest, annotations, sources). Per-image problems are
    collected in the report, never raised, so the user sees all of them at once.
    """
    start = time.perf_counter()
    roots = parse_sources(sources)
    entries = load_manifest(manifest)
    records = spec.load_annotations(annotations)
    _join(entries, records, Path(manifest))
    folder = output_dir(out, config)
    refuse_links(out, folder.relative_to(out))  # the dataset folder, data/ and the config folder: never a link
    _make_folder(folder, Path(out))
    with folder_lock(folder, "reconstruct bd-hazardvlm"):
        return _reconstruct_locked(entries, records, roots, folder, manifest=manifest, annotations=annotations,
                                   config=config, allow_missing=allow_missing, max_pixels=max_pixels,
                                   workers=workers, decode=decode, on_progress=on_progress, start=start)


def _reconstruct_locked(entries: list[dict[str, Any]], records: dict[str, dict[str, Any]], roots: dict[str, Path],
                        folder: Path, *, manifest: str | Path, annotations: str | Path, config: str,
                        allow_missing: bool, max_pixels: int, workers: int | None, decode: bool,
                        on_progress: Callable[[int, int], None] | None, start: float) -> ReconstructReport:
    """The verification and the writes, with the output folder's lock held."""
    removed = _remove_leftovers(folder)
    workers = workers or min(4, os.cpu_count() or 1)
    checked: list[_Checked] = []
    with ThreadPoolExecutor(max_workers=workers) as pool:  # hashing and reads release the GIL
        for done, result in enumerate(pool.map(lambda e: _check_entry(e, roots, max_pixels, decode), entries), start=1):
            checked.append(result)
            if on_progress:
                on_progress(done, len(entries))
    problems = [c.problem for c in checked if c.problem is not None]
    good = sorted((c for c in checked if c.problem is None), key=lambda c: c.entry["id"])
    report = ReconstructReport(
        config=config, complete=not problems, expected=len(entries), reconstructed=len(good), problems=problems,
        manifest=str(manifest), annotations=str(annotations), sources={k: str(v) for k, v in roots.items()},
        removed_leftovers=removed, decoded_in_full=sum(c.decoded for c in checked),
    )
    parquet = folder / PARQUET_NAME
    aside = parquet.with_name(parquet.name + UNVERIFIED_SUFFIX)
    if problems and not allow_missing and parquet.exists():
        # the previous build matched files that no longer verify: it must not go on passing for the benchmark
        os.replace(parquet, aside)
        report.set_aside = str(aside)
    if not problems or allow_missing:
        meta = {"benchmark": spec.NAME, "config": config, "complete": report.complete,
                "expected": report.expected, "reconstructed": report.reconstructed}
        table = _table([(c.entry, records[c.entry["id"]], c.data) for c in good], meta)
        _write_parquet(table, parquet)
        report.parquet = str(parquet)
        aside.unlink(missing_ok=True)  # superseded by the build just written
    report.seconds = time.perf_counter() - start
    atomic_write_json(folder / REPORT_NAME, report.as_dict())
    return report


def read_completeness(parquet: str | Path) -> dict[str, Any] | None:
    """The `hazardkit` metadata a reconstruction wrote into its Parquet (None for other files)."""
    import pyarrow.parquet as pq

    from eval_kit.strictjson import loads

    meta = (pq.read_schema(parquet).metadata or {}).get(b"hazardkit")
    return loads(meta, path=parquet) if meta else None


# The demo manifest, annotations and fake source folders of a hazardkit checkout (relative to the working
# directory, as `make demo` runs).
DEMO_DIR = Path("manifests") / "bd_hazardvlm" / "v1" / "demo"
