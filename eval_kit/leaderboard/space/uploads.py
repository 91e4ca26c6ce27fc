"""Reading an upload with bounds: its size, its kind, and (for a `hazardkit eval` run folder as a zip) only
the files a submission needs, written under fixed names, never where the archive's names point.

A hostile upload costs at most its size limit to read: the byte size is checked before anything is
parsed, a zip's members are checked by their declared sizes and read with a bound, and the predictions are
then parsed by the same strict readers as `hazardkit validate` and `score`.
"""

from __future__ import annotations

import io
import zipfile
import zlib
from pathlib import Path, PurePosixPath

from eval_kit.errors import BadInput

PREDICTIONS = "predictions.jsonl"
METADATA = "metadata.json"
RUN_FILE = "run.json"
WANTED = (PREDICTIONS, METADATA, RUN_FILE)  # what a run-folder zip may contribute; other members are ignored
ZIP_MAGIC = b"PK\x03\x04"


def human_size(n: float) -> str:
    """Bytes as "512 B", "20.0 KB", "3.2 MB" (1 KB = 1024 bytes)."""
    if n < 1024:
        return f"{int(n)} B"
    return f"{n / 1024:.1f} KB" if n < 1024**2 else f"{n / 1024**2:.1f} MB"


def read_upload(path: Path, filename: str, max_bytes: int) -> tuple[bytes, str]:
    """(bytes, kind "jsonl" or "zip") of an uploaded file within the size limit; BadInput otherwise."""
    try:
        size = path.stat().st_size
    except FileNotFoundError:  # removed by the stray-upload sweep, or already submitted
        raise BadInput("the upload is no longer on the server", path=filename,
                       fix="choose the file again and submit") from None
    if size > max_bytes:
        raise BadInput(f"upload is {human_size(size)}, over the {human_size(max_bytes)} limit", path=filename,
                       fix="submit predictions.jsonl only, or ask the operator for a higher limit")
    if size == 0:
        raise BadInput("upload is empty", path=filename, fix="expected one JSON object per line")
    with path.open("rb") as handle:
        data = handle.read(max_bytes + 1)
    if len(data) > max_bytes:  # the file grew while being read
        raise BadInput(f"upload is over the {human_size(max_bytes)} limit", path=filename)
    kind = "zip" if data.startswith(ZIP_MAGIC) else "jsonl"
    if kind == "jsonl" and filename.lower().endswith(".zip"):
        raise BadInput("not a zip archive", path=filename, fix="zip the run folder, or upload predictions.jsonl")
    return data, kind


def _zip_members(zf: zipfile.ZipFile, filename: str, max_bytes: int) -> dict[str, bytes]:
    """{name: bytes} of predictions.jsonl (required), metadata.json and run.json of an open run-folder zip.

    Members are found by their last path component in the archive's top folder or root; names with `..`,
    absolute names, links, encrypted members and members over the size limit are refused, and every member
    taken is decompressed in full (a corrupt deflate stream or a wrong CRC is one line, never a crash).
    """
    found: dict[str, zipfile.ZipInfo] = {}
    total = 0
    for info in zf.infolist():
        name = PurePosixPath(info.filename)
        if name.is_absolute() or ".." in name.parts or "\\" in info.filename:
            raise BadInput(f"unsafe member name {info.filename[:60]!r}", path=filename,
                           fix="zip the run folder itself (`zip -r run.zip RUNDIR`)")
        if info.is_dir() or name.name not in WANTED or len(name.parts) > 2:
            continue
        if (info.external_attr >> 16) & 0o170000 == 0o120000:
            raise BadInput(f"{info.filename[:60]!r} is a symbolic link", path=filename)
        if info.flag_bits & 0x1:
            raise BadInput(f"{info.filename[:60]!r} is encrypted", path=filename)
        if name.name in found:
            raise BadInput(f"two {name.name} in the archive", path=filename, fix="zip one run folder")
        total += info.file_size
        if info.file_size > max_bytes or total > max_bytes:
            raise BadInput(f"{info.filename[:60]!r} unpacks to over the {human_size(max_bytes)} limit",
                           path=filename)
        found[name.name] = info
    if PREDICTIONS not in found:
        raise BadInput(f"no {PREDICTIONS} in the archive", path=filename,
                       fix="zip the --out folder of `hazardkit eval` (it holds predictions.jsonl)")
    members = {}
    for name, info in found.items():
        try:
            with zf.open(info) as member:
                data = member.read(info.file_size + 1)
        except (zipfile.BadZipFile, zlib.error, OSError, RuntimeError, EOFError, ValueError,
                NotImplementedError) as exc:
            raise BadInput(f"cannot read {name} from the archive ({type(exc).__name__}: {str(exc)[:60]})",
                           path=filename, fix="zip the run folder again (`zip -r run.zip RUNDIR`)") from None
        if len(data) > info.file_size:
            raise BadInput(f"{name} is larger than the archive says", path=filename)
        members[name] = data
    return members


def _open_zip(source: Path | io.BytesIO, filename: str) -> zipfile.ZipFile:
    try:
        return zipfile.ZipFile(source)
    except (zipfile.BadZipFile, OSError, ValueError, NotImplementedError) as exc:
        raise BadInput(f"not a readable zip archive ({str(exc)[:60]})", path=filename) from None


def check_run_zip(data: bytes, filename: str, max_bytes: int) -> None:
    """BadInput unless `data` is a run-folder zip whose members all read: checked before the upload is stored,
    so a broken archive is one line and costs the submitter nothing (no record, no quota)."""
    with _open_zip(io.BytesIO(data), filename) as zf:
        _zip_members(zf, filename, max_bytes)


def unpack_run_zip(archive: Path, filename: str, out: Path, max_bytes: int) -> dict[str, Path]:
    """{name: path} of predictions.jsonl (required), metadata.json and run.json from a run-folder zip, written
    under `out` by their fixed names (never where the archive's names point); see `_zip_members`."""
    with _open_zip(archive, filename) as zf:
        members = _zip_members(zf, filename, max_bytes)
    out.mkdir(parents=True, exist_ok=True)
    paths = {}
    for name, data in members.items():
        (out / name).write_bytes(data)
        paths[name] = out / name
    return paths


def count_lines(path: Path) -> int:
    """Non-blank lines of a file (bounded by the size limit already checked)."""
    with path.open("rb") as handle:
        return sum(1 for line in handle if line.strip())
