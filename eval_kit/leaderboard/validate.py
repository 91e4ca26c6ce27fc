"""Check a submission completely and report every problem at once, each with file, line and field.

Unlike the scorers, which stop at the first bad line, validation keeps going so a submitter fixes
everything in one round: broken lines, schema violations, labels, duplicates, unknown and missing
ids, and metadata that does not match the references (benchmark, version, dataset revision).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from eval_kit.leaderboard.checker import SubmissionChecker
from eval_kit.schemas import validator

_BOM = b"\xef\xbb\xbf"


@dataclass(frozen=True)
class Problem:
    path: str
    message: str
    line: int | None = None
    field: str | None = None
    fix: str | None = None
    priority: int = 0  # listed before the rest when above 0: the cause first (revision, then wrong config)
    group: str | None = None  # problems of one kind on many lines (a schema rule): a few shown, the rest counted

    def __str__(self) -> str:
        """One line, each part bounded (a 50 MB id is quoted as an excerpt, never whole)."""
        from eval_kit.errors import short

        where = [short(self.path, 160)]
        if self.line is not None:
            where.append(f"line {self.line}")
        if self.field:
            where.append(f"field '{short(self.field, 80)}'")
        return ", ".join(where) + f": {short(self.message, 400)}" + (f" ({short(self.fix, 300)})" if self.fix else "")


_NO_ANSWER = ("no answer: needs a string 'prediction' (label) or 'response' (raw text)", "prediction",
              'e.g. {"id": "...", "prediction": "left"}')


def _schema_problems(schema: str, obj: Any, path: str, line: int | None,
                     no_answer: tuple[str, str, str] = _NO_ANSWER) -> list[Problem]:
    """One problem per failing property (the best match of each), so nothing hides behind another."""
    import jsonschema

    errors = list(validator(schema).iter_errors(obj))
    if not errors:
        return []
    by_field: dict[str, list] = {}
    if any(err.validator == "anyOf" and not err.absolute_path for err in errors):
        errors = [e for e in errors if not (e.validator == "anyOf" and not e.absolute_path)]
        errors = [e for e in errors if e.absolute_path]  # the anyOf is reported once, in plain words
        by_field["(answer)"] = []
    for err in errors:
        by_field.setdefault("/".join(str(p) for p in err.absolute_path) or "(object)", []).append(err)
    problems = []
    for field, errs in by_field.items():
        if field == "(answer)":
            problems.append(Problem(path, no_answer[0], line, no_answer[1], fix=no_answer[2], group="schema:answer"))
            continue
        best = jsonschema.exceptions.best_match(errs)
        problems.append(Problem(path, best.message, line, field, group=f"schema:{field}:{best.validator}"))
    return problems


SAME_PROBLEM_EXAMPLES = 3  # lines shown of one kind of problem found on many lines; the rest are counted


def collapse_groups(problems: list[Problem]) -> list[Problem]:
    """Problems of one kind (`group`) on more than SAME_PROBLEM_EXAMPLES + 1 lines: the first few, then one
    line counting the rest ("... and 80 more lines with the same problem in field 'prediction'")."""
    counts: dict[str, int] = {}
    for pr in problems:
        if pr.group:
            counts[pr.group] = counts.get(pr.group, 0) + 1
    out: list[Problem] = []
    kept: dict[str, list[Problem]] = {}
    for pr in problems:
        if not pr.group or counts[pr.group] <= SAME_PROBLEM_EXAMPLES + 1:
            out.append(pr)
            continue
        shown = kept.setdefault(pr.group, [])
        if len(shown) < SAME_PROBLEM_EXAMPLES:
            shown.append(pr)
            out.append(pr)
    for group, shown in kept.items():
        rest = [pr for pr in problems if pr.group == group][len(shown):]
        lines = [pr.line for pr in rest if pr.line is not None]
        span = f" (lines {min(lines)}-{max(lines)})" if lines else ""
        out.append(Problem(shown[0].path, f"... and {len(rest)} more lines with the same problem{span}", None,
                           shown[0].field))
    return out


def _first_of_each_group(problems: list[Problem]) -> list[Problem]:
    """One example per kind of problem, saying on how many other lines it recurs."""
    firsts: dict[str, Problem] = {}
    counts: dict[str, int] = {}
    for pr in problems:
        if pr.group:
            firsts.setdefault(pr.group, pr)
            counts[pr.group] = counts.get(pr.group, 0) + 1
    return [Problem(pr.path, pr.message + (f" (and on {counts[g] - 1} more lines)" if counts[g] > 1 else ""), pr.line,
                    pr.field, pr.fix) for g, pr in firsts.items()]


def _fits(checker: SubmissionChecker, obj: dict[str, Any]) -> bool:
    """Whether one prediction line is valid for `checker`'s benchmark (schema, fields, labels)."""
    return (not _schema_problems(checker.prediction_schema, obj, "", None) and not set(obj) - checker.fields
            and not checker.label_problems(obj))


def wrong_benchmark(checker: SubmissionChecker, p: str, objects: list[tuple[int, dict[str, Any]]],
                    bad_lines: int) -> Problem | None:
    """One diagnosis line when most lines do not fit this benchmark's format but fit another's ("are these
    MovSafeBench predictions?"), else None."""
    from eval_kit import registry
    from eval_kit.leaderboard.checker import checker_for

    if not objects or 2 * bad_lines <= len(objects):
        return None
    sample = [obj for _, obj in objects[:20]]
    for bench in registry.benchmarks():
        try:
            other = checker_for(bench.name)
        except Exception:  # a benchmark without a checker cannot be the answer
            continue
        if other.benchmark == checker.benchmark or not other.prediction_schema:
            continue
        if all(_fits(other, obj) for obj in sample):
            cli = bench.name.replace("_", "-")
            return Problem(p, f"{bad_lines} of {len(objects)} lines do not fit the {checker.benchmark} prediction "
                              f"format: are these {bench.title} predictions? (the first {len(sample)} lines fit "
                              "its format)", None, "prediction",
                           fix=f"validate them as {bench.title}: hazardkit validate {cli} -r REFERENCES -p {p}",
                           priority=3)
    return None


def _code_points(text: str) -> str:
    """The non-ASCII characters of `text` as code points ("U+0065 U+0301"), what a repr cannot show."""
    return " ".join(f"U+{ord(c):04X}" for c in text if ord(c) > 127) or "none"


def normalisation_problem(p: str, sample_id: str, number: int, by_form: dict[str, dict[str, str]]) -> Problem | None:
    """A Problem when `sample_id` equals a reference id once both are Unicode-normalised (NFC or NFD): it
    names the two forms and shows their code points, since both print alike."""
    import unicodedata

    for form in ("NFC", "NFD", "NFKC"):
        ref = by_form[form].get(unicodedata.normalize(form, sample_id))
        if ref is None or ref == sample_id:
            continue
        mine = next((f for f in ("NFC", "NFD") if unicodedata.normalize(f, sample_id) == sample_id), "neither NFC "
                    "nor NFD")
        theirs = next((f for f in ("NFC", "NFD") if unicodedata.normalize(f, ref) == ref), "another form")
        return Problem(p, f"id {sample_id!r} differs from reference id {ref!r} only by Unicode normalisation: "
                          f"written in {mine} here ({_code_points(sample_id)}), in {theirs} in the references "
                          f"({_code_points(ref)})", number, "id",
                       fix=f"write ids exactly as the dataset stores them, e.g. unicodedata.normalize("
                           f"{theirs!r}, id)" if theirs in ("NFC", "NFD") else "copy the id from the dataset")
    return None


def scan_jsonl(path: Path) -> tuple[list[tuple[int, dict[str, Any]]], list[Problem]]:
    """Every parseable object line with its number, and a problem for every line that is not one.

    The same bounds as `score` (`eval_kit.strictjson.iter_lines`): the file is read line by line, never whole,
    and a line over `MAX_LINE_BYTES` (16 MiB) is one problem (its bytes are skipped, not kept), so a 2 GiB
    file costs at most one line of memory besides the parsed objects.
    """
    from eval_kit.errors import BadInput
    from eval_kit.strictjson import MAX_LINE_BYTES, loads, open_regular

    p = str(path)
    try:
        handle = open_regular(path)  # no FIFO, device or folder: a link to /dev/zero never ends
    except BadInput as exc:
        return [], [Problem(p, exc.detail, fix=exc.fix or "check the path")]
    problems: list[Problem] = []
    objects: list[tuple[int, dict[str, Any]]] = []
    seen_text = False
    with handle:
        number = 0
        while True:
            raw = handle.readline(MAX_LINE_BYTES + 1)
            if not raw:
                break
            number += 1
            if number == 1 and raw.startswith(_BOM):
                problems.append(Problem(p, "file starts with a UTF-8 byte-order mark", 1,
                                        fix="save as UTF-8 without BOM"))
                raw = raw[len(_BOM):]
            if len(raw) > MAX_LINE_BYTES and not raw.endswith(b"\n"):
                problems.append(Problem(p, f"line longer than {MAX_LINE_BYTES // 2**20} MiB", number,
                                        fix="one JSON object per line, responses of reasonable length"))
                while raw and not raw.endswith(b"\n"):  # skip the rest of the line in bounded chunks
                    raw = handle.readline(MAX_LINE_BYTES)
                seen_text = True
                continue
            if not raw.strip():
                continue
            seen_text = True
            last = not raw.endswith(b"\n") and not handle.peek(1)
            problem, obj = _parse_line(p, raw[:-1] if raw.endswith(b"\n") else raw, number, last, loads)
            if problem is not None:
                problems.append(problem)
            elif obj is not None:
                objects.append((number, obj))
    if not seen_text:
        return [], [*problems, Problem(p, "file is empty", fix="expected one JSON object per line")]
    return objects, problems


def _parse_line(p: str, raw: bytes, number: int, torn_possible: bool,
                loads: Any) -> tuple[Problem | None, dict[str, Any] | None]:
    """(problem, None) or (None, object) for one non-blank line."""
    from eval_kit.errors import BadInput

    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        return Problem(p, f"not UTF-8 text (byte {exc.start + 1})", number, fix="save as UTF-8"), None
    try:
        obj = loads(text)  # the strict reader: no NaN, no duplicate keys, bounded depth and numbers
    except BadInput as exc:
        torn = torn_possible and exc.detail.startswith("malformed JSON")
        message = (f"truncated last line: no newline at the end and incomplete JSON "
                   f"({exc.detail.removeprefix('malformed JSON (').split(' at column')[0]})" if torn
                   else exc.detail)
        fix = "each line must be one complete JSON object" if exc.detail.startswith("malformed JSON") else exc.fix
        return Problem(p, message, number, fix=fix), None
    if not isinstance(obj, dict):
        return Problem(p, f"expected a JSON object, got {type(obj).__name__}", number,
                       fix='write {"id": ..., "prediction": ...}'), None
    return None, obj


MAX_ID_EXAMPLES = 3  # unknown ids listed one by one when most ids do not match; the rest are counted
FEW_UNKNOWN = 10  # up to this many unknown ids (and not most of them) are each listed


def unknown_id_problems(p: str, unknown: list[tuple[int, str]], n_ids: int, config: str | None,
                        other_configs: Callable[[], dict[str, set[str]]] | None) -> list[Problem]:
    """Ids not in the references, as a diagnosis rather than a flood: when most ids do not match, one line
    first saying how many do and which other config of the same dataset they fit best ("0 of 574 ids are in
    config demo: are these predictions for config default?"), then a few examples and a count."""
    matched = n_ids - len(unknown)
    where = f"config {config}" if config else "the references"
    fix = "check that the predictions match this benchmark and config"
    if len(unknown) <= FEW_UNKNOWN and 2 * len(unknown) <= n_ids:
        return [Problem(p, f"id {sample_id!r} is not in the references", number, "id", fix=fix)
                for number, sample_id in unknown]
    problems = []
    if 2 * len(unknown) > n_ids:
        ids = {sample_id for _, sample_id in unknown}
        best = None
        for name, other in sorted((other_configs() if other_configs else {}).items()):
            hits = len(ids & other)
            if hits and (best is None or hits > best[1]):
                best = (name, hits)
        question = (f": are these predictions for config {best[0]}? ({best[1] + matched} of {n_ids} ids are in "
                    f"config {best[0]})" if best else ": are these predictions for this benchmark and split?")
        problems.append(Problem(p, f"{matched} of {n_ids} ids are in {where}{question}", None, "id",
                                fix=(f"validate against config {best[0]} (--config {best[0]}), or predict the "
                                     f"samples of {where}" if best else fix), priority=1))
    shown = unknown[:MAX_ID_EXAMPLES]
    problems += [Problem(p, f"id {sample_id!r} is not in the references", number, "id", fix=fix)
                 for number, sample_id in shown]
    if len(unknown) > len(shown):
        problems.append(Problem(p, f"... and {len(unknown) - len(shown)} more ids not in the references "
                                   f"(lines {unknown[len(shown)][0]}-{unknown[-1][0]})", None, "id"))
    return problems


def other_config_ids(checker: SubmissionChecker, references: Path, config: str | None) -> dict[str, set[str]]:
    """{config: ids} of the other configs of a dataset folder (`data/<config>/`); {} for a single file."""
    folder = Path(references)
    data = folder / "data"
    if not data.is_dir():
        return {}
    found = {}
    for sub in sorted(d for d in data.iterdir() if d.is_dir() and d.name != config):
        try:
            found[sub.name] = checker.reference_ids(folder, sub.name)
        except Exception:  # a config this checker cannot read gives no hint; the diagnosis still stands
            continue
    return found


def ordered(problems: list[Problem]) -> list[Problem]:
    """The causes first (by priority), then every other problem by line (file-wide ones last)."""
    return sorted(problems, key=lambda pr: (-pr.priority, pr.line is None, pr.line or 0))


def check_predictions(checker: SubmissionChecker, path: Path, reference_ids: set[str] | None, *,
                      config: str | None = None,
                      other_configs: Callable[[], dict[str, set[str]]] | None = None) -> tuple[list[Problem], int]:
    """(problems, number of prediction lines read) for a predictions file. `config` names the references'
    config in the diagnosis of ids that do not match; `other_configs` (called only then) gives the ids of the
    dataset's other configs, to say which one the predictions fit."""
    p = str(path)
    unknown: list[tuple[int, str]] = []
    objects, problems = scan_jsonl(path)
    by_form: dict[str, dict[str, str]] | None = None  # reference ids by normal form, built on the first miss
    schema_bad = 0
    first_line: dict[str, int] = {}
    seen: dict[str, dict[str, Any]] = {}
    for number, obj in objects:
        line_problems = _schema_problems(checker.prediction_schema, obj, p, number,
                                         checker.no_answer or _NO_ANSWER)
        for key in sorted(set(obj) - checker.fields):
            line_problems.append(Problem(p, f"unknown field {key!r}", number, key,
                                         fix=f"allowed fields: {', '.join(sorted(checker.fields))}"))
        if not any(pr.field in ("prediction", "plan") for pr in line_problems):
            for field, message, fix in checker.label_problems(obj):
                if not any(pr.field == field for pr in line_problems):
                    line_problems.append(Problem(p, message, number, field, fix))
        problems.extend(line_problems)
        schema_bad += any(pr.group for pr in line_problems)
        sample_id = obj.get("id")
        if not isinstance(sample_id, str) or not sample_id:
            continue
        if sample_id != sample_id.strip():
            problems.append(Problem(p, f"id {sample_id!r} has leading or trailing whitespace", number, "id",
                                    fix="write the id exactly as in the dataset"))
        key = checker.line_key(obj)
        if key in first_line:
            shown = repr(sample_id) if key == sample_id else f"{sample_id!r} as {key!r}"
            problems.append(Problem(p, f"duplicate id {shown} (first on line {first_line[key]})",
                                    number, "id", fix="keep one line per sample"))
            continue
        first_line[key] = number
        seen[key] = obj
        if reference_ids is not None and sample_id not in reference_ids:
            if by_form is None:
                import unicodedata

                by_form = {f: {unicodedata.normalize(f, r): r for r in reference_ids} for f in ("NFC", "NFD", "NFKC")}
            normal = normalisation_problem(p, sample_id, number, by_form)
            if normal is not None:
                problems.append(normal)
            else:
                unknown.append((number, sample_id))
    diagnosis = wrong_benchmark(checker, p, objects, schema_bad)
    if diagnosis is not None:  # the ids and labels of another benchmark: its schema problems say nothing more
        return [diagnosis, *_first_of_each_group(problems)], len(objects)
    problems = collapse_groups(problems)
    if reference_ids is not None and unknown:
        problems += unknown_id_problems(p, unknown, len(seen), config, other_configs)
    if reference_ids is not None and objects:
        missing = checker.missing(reference_ids, seen)
        if missing:
            shown = ", ".join(repr(m) for m in missing[:3]) + (" ..." if len(missing) > 3 else "")
            problems.append(Problem(p, f"{len(missing)} of {len(reference_ids)} reference ids have no prediction: "
                                       f"{shown}", None, "id", fix="predict every sample of the split"))
    return problems, len(objects)


def check_metadata(checker: SubmissionChecker, path: Path, references_revision: str | None) -> list[Problem]:
    from eval_kit.errors import BadInput
    from eval_kit.strictjson import read_json

    p = str(path)
    if not path.exists():
        return [Problem(p, "metadata file not found", fix="pass the metadata.json written by `hazardkit eval`")]
    try:
        meta = read_json(path, max_bytes=2**20)
    except BadInput as exc:
        return [Problem(p, exc.detail, exc.line, fix=exc.fix)]
    if not isinstance(meta, dict):
        return [Problem(p, f"expected a JSON object, got {type(meta).__name__}")]
    problems = _schema_problems("submission_metadata", meta, p, None)
    bad = {pr.field for pr in problems}
    if "benchmark" not in bad and meta.get("benchmark") != checker.benchmark:
        problems.append(Problem(p, f"metadata is for {meta.get('benchmark')!r}, not {checker.benchmark!r}",
                                field="benchmark", fix="validate it with its own benchmark"))
    version = meta.get("benchmark_version")
    if "benchmark_version" not in bad and isinstance(version, str) and version not in checker.versions:
        problems.append(Problem(p, f"benchmark version {version!r} is not supported", field="benchmark_version",
                                fix=f"supported: {', '.join(checker.versions)}"))
    from eval_kit.leaderboard.provenance import unsafe_character

    for name in ("model", "revision", "benchmark_version", "dataset_revision", "config", "variant"):
        value = meta.get(name)
        char = unsafe_character(value) if isinstance(value, str) and name not in bad else None
        if char is not None:
            problems.append(Problem(p, f"'{name}' contains control characters ({char})", field=name,
                                    fix="use a single line of plain text: no control, bidi or line-separator "
                                        "characters"))
    for field, message, fix in checker.metadata_problems(meta):
        if field not in bad:
            problems.append(Problem(p, message, field=field, fix=fix))
    revision = meta.get("dataset_revision")
    if (references_revision is not None and "dataset_revision" not in bad and isinstance(revision, str)
            and revision != references_revision):
        problems.append(Problem(p, f"dataset revision {revision!r} does not match the references "
                                   f"({references_revision!r})", field="dataset_revision",
                                fix="run the model on the same dataset revision as the references", priority=2))
    return problems


def validate_submission(checker: SubmissionChecker, references: Path, predictions: Path, *,
                        metadata: Path | None = None, config: str | None = None,
                        dataset_revision: str | None = None) -> tuple[list[Problem], int]:
    """All problems of a submission (empty when valid) and the number of prediction lines read.

    Bad references raise BadInput (they are the benchmark's, not the submitter's, so one line suffices).
    """
    from eval_kit.leaderboard.provenance import DEFAULT_CONFIG, config_of

    reference_ids = checker.reference_ids(references, config)
    named = config or config_of(references) or DEFAULT_CONFIG
    problems, n = check_predictions(checker, predictions, reference_ids, config=named,
                                    other_configs=lambda: other_config_ids(checker, references, named))
    if metadata is not None:
        revision = dataset_revision or checker.reference_revision(references, config)
        problems += check_metadata(checker, metadata, revision)
    return ordered(problems), n
