"""DriveBench adapter: behaviour questions of the `drive-bench/arena` release + the nuScenes image folder.

A DriveBench record looks like `{scene_token, frame_token, question_type, question, answer: "A", tag,
image_path: {CAM_FRONT: ".../samples/CAM_FRONT/....jpg", ...}}`. Only `question_type == "behavior"` records
carry the ego manoeuvre: their options read "The ego vehicle is going straight | (slightly) steering to the
left/right. The ego vehicle is driving slowly|...". The option named by `answer` gives the safe direction
(going straight -> straight, steering to the left -> left, ... to the right -> right). We use the CAM_FRONT
image only, as the paper does. The question file may be a JSON list, a JSON object holding such a list, or
JSON Lines.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path, PurePosixPath
from typing import Any

from builder.movsafebench.sources.common import (
    ScanResult,
    Skipped,
    SourceRecord,
    detect_hood,
    image_problem,
    sha256_file,
)
from eval_kit.errors import BadInput

DATASET = "drivebench"
AGENT = "vehicle"
CAMERA = "CAM_FRONT"

# "A. The ego vehicle is ... B. ..." -> {"A": "The ego vehicle is ...", ...}
_OPTION = re.compile(r"(?:^|\s)(?P<letter>[A-H])\.\s+(?P<text>.*?)(?=\s+[A-H]\.\s|\Z)", re.DOTALL)
_LEFT_RIGHT = re.compile(r"\b(?:steer(?:s|ing)?|turn(?:s|ing)?|veer(?:s|ing)?)\s+(?:to\s+the\s+)?(?P<dir>left|right)\b",
                         re.IGNORECASE)
_STRAIGHT = re.compile(r"\bgo(?:es|ing)?\s+straight\b", re.IGNORECASE)


def parse_options(question: str) -> dict[str, str]:
    """The lettered options of a multiple-choice question, text stripped."""
    return {m.group("letter"): " ".join(m.group("text").split()) for m in _OPTION.finditer(question)}


def direction_of_behaviour(option_text: str) -> str | None:
    """left / straight / right from a behaviour option's steering clause; None when it names no direction."""
    match = _LEFT_RIGHT.search(option_text)
    if match:
        return match.group("dir").lower()
    if _STRAIGHT.search(option_text):
        return "straight"
    return None


def _load_questions(path: Path) -> Iterator[tuple[str, Any]]:
    """(location, record) pairs from a JSON list / object-with-list / JSON Lines file, read strictly
    (`eval_kit.strictjson`: NaN, duplicate keys, deep nesting, a FIFO or device are bad input)."""
    from eval_kit.jsonl import iter_jsonl
    from eval_kit.strictjson import MAX_DOCUMENT_BYTES, loads, open_regular

    if not path.exists():
        raise BadInput("DriveBench question file not found", path=path, fix="pass drivebench-test.json")
    with open_regular(path) as handle:
        text = handle.read(MAX_DOCUMENT_BYTES + 1)
    if len(text) <= MAX_DOCUMENT_BYTES and _is_one_document(text):
        data = loads(text, path=path)
    else:
        for number, record in iter_jsonl(path):
            yield f"{path}:{number}", record
        return
    if isinstance(data, dict):
        lists = [v for v in data.values() if isinstance(v, list)]
        if len(lists) != 1:
            raise BadInput("expected a JSON list of DriveBench records", path=path)
        data = lists[0]
    if not isinstance(data, list):
        raise BadInput("expected a JSON list of DriveBench records", path=path)
    for index, record in enumerate(data):
        yield f"{path}[{index}]", record


def _is_one_document(data: bytes) -> bool:
    """Whether the file is one JSON value (a list or an object holding one), not JSON Lines: decided by the
    standard parser; the strict reader then reads it (or refuses what the standard parser lets through)."""
    try:
        json.loads(data)
    except json.JSONDecodeError as exc:
        return exc.msg != "Extra data"  # JSON Lines: a second value after the first; else broken JSON
    except (ValueError, RecursionError):
        return True  # a huge integer or deep nesting: one document, which the strict reader refuses
    return True


def _image_rel_path(raw: str) -> str:
    """nuScenes-relative path: everything from `samples/` on (the release stores machine-specific prefixes)."""
    parts = PurePosixPath(raw.replace("\\", "/")).parts
    if "samples" in parts:
        return PurePosixPath(*parts[parts.index("samples"):]).as_posix()
    return PurePosixPath(*[p for p in parts if p not in ("..", ".", "/")]).as_posix()


def scan(questions: str | Path, nuscenes_root: str | Path, *, check_images: bool = True,
         detect_hoods: bool = False) -> ScanResult:
    """Read every behaviour question and return one record per frame whose answer names a direction.

    A frame asked several behaviour questions keeps the first; disagreeing duplicates are skipped.
    """
    questions = Path(questions)
    root = Path(nuscenes_root)
    result = ScanResult()
    by_frame: dict[str, SourceRecord] = {}
    conflicted: set[str] = set()
    for where, rec in _load_questions(questions):
        if not isinstance(rec, dict):
            result.skipped.append(Skipped(where, "not a JSON object"))
            continue
        if str(rec.get("question_type", "")).lower() != "behavior":
            continue
        missing = [k for k in ("frame_token", "question", "answer", "image_path") if k not in rec]
        if missing:
            result.skipped.append(Skipped(where, f"missing field(s) {', '.join(missing)}", "missing fields"))
            continue
        options = parse_options(str(rec["question"]))
        letter = str(rec["answer"]).strip().rstrip(".").upper()[:1]
        if letter not in options:
            result.skipped.append(Skipped(where, f"answer {rec['answer']!r} is not one of the options",
                                          "answer is not an option"))
            continue
        direction = direction_of_behaviour(options[letter])
        if direction is None:
            result.skipped.append(Skipped(where, f"answer option names no direction: {options[letter]!r}",
                                          "answer names no direction"))
            continue
        cams = rec["image_path"]
        if not isinstance(cams, dict) or CAMERA not in cams:
            result.skipped.append(Skipped(where, f"no {CAMERA} image", f"no {CAMERA} image"))
            continue
        rel = _image_rel_path(str(cams[CAMERA]))
        image = root / rel
        problem = image_problem(image) if check_images else (None if image.is_file() else "image file not found")
        if problem:
            result.skipped.append(Skipped(where, f"{problem}: {image}", problem))
            continue
        frame = str(rec["frame_token"])
        record = SourceRecord(
            id=f"{DATASET}_{frame}",
            dataset=DATASET,
            path=rel,
            sha256=sha256_file(image),
            gt_action=direction,
            agent=AGENT,
            extra={"scene_token": str(rec.get("scene_token", "")), "frame_token": frame,
                   "question": str(rec["question"]), "answer": letter, "tag": rec.get("tag")},
        )
        if frame in by_frame:
            if by_frame[frame].gt_action != direction:
                conflicted.add(frame)
                result.skipped.append(Skipped(where, f"frame {frame} has disagreeing behaviour answers",
                                              "disagreeing behaviour answers"))
            continue
        if detect_hoods:
            record = replace(record, ego_hood=detect_hood(image))
        by_frame[frame] = record
        result.records.append(record)
    result.records = [r for r in result.records if r.extra["frame_token"] not in conflicted]
    return result
