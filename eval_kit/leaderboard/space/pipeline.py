"""From an upload to a leaderboard row: limits, validation, scoring, moderation, rescoring.

No second scorer: validation is the benchmark's `SubmissionChecker` (what `hazardkit validate` runs) and
scoring is the benchmark's registered `score_run` on a task built from the operator's references (what
`hazardkit score run` runs), so a row in the app equals what the CLI computes on the same files.
"""

from __future__ import annotations

import logging
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from eval_kit.errors import BadInput
from eval_kit.leaderboard.space.settings import SpaceSettings
from eval_kit.leaderboard.space.store import SubmissionStore, cut_short, now

log = logging.getLogger(__name__)
MAX_ERROR_LINES = 20  # problems listed per submission; the rest are counted
_LINK = re.compile(r"https?://[^\s<>\"']{1,190}")


@dataclass
class Outcome:
    """What the submitter sees: a status, one line per message (as the CLI prints them), the new row."""

    status: str  # refused | invalid | failed | pending | published
    lines: list[str] = field(default_factory=list)
    submission_id: str | None = None
    row: dict[str, Any] | None = None

    @property
    def text(self) -> str:
        return "\n".join(self.lines)


def display_name(filename: str | None) -> str:
    """The uploaded file's base name, printable and short: what error lines name instead of server paths."""
    name = Path(str(filename or "upload")).name
    name = "".join(c if c.isprintable() else "?" for c in name)[:80]
    return name or "upload"


class Leaderboard:
    """The app's engine: the operator's settings, the submission store and the results table."""

    def __init__(self, settings: SpaceSettings) -> None:
        self.settings = settings
        self.store = SubmissionStore(settings.submissions)
        self._references: dict[str, Path] = {}
        self._reference_ids: dict[str, set[str]] = {}
        self._revisions: dict[str, str] = {}
        self.last_push = None  # the thread of the latest push to the results repo
        self._worker: ScoringWorker | None = None
        if settings.results_repo:
            from eval_kit.leaderboard.space import hub

            hub.pull(settings.results_repo, settings.table, settings.token)

    def _changed(self, message: str) -> None:
        """The results table changed: mirror it to the Hub results repo, if one is set (in the background)."""
        if self.settings.results_repo:
            from eval_kit.leaderboard.space import hub

            self.last_push = hub.push_soon(self.settings.results_repo, self.settings.table, self.settings.token,
                                           message)

    # --- the operator's references ---------------------------------------------------------------
    def benchmarks(self) -> list[str]:
        return list(self.settings.references)

    def references(self, benchmark: str) -> tuple[Path, str | None]:
        ref = self.settings.references.get(benchmark)
        if ref is None:
            raise BadInput(f"this leaderboard takes no {benchmark} submissions", field="benchmark",
                           fix=f"choose one of {', '.join(self.settings.references) or '(none configured)'}")
        if benchmark not in self._references:
            self._references[benchmark] = ref.local_path(self.settings.token)
        return self._references[benchmark], ref.config

    def reference_ids(self, benchmark: str) -> set[str]:
        if benchmark not in self._reference_ids:
            from eval_kit.leaderboard.checker import checker_for

            path, config = self.references(benchmark)
            self._reference_ids[benchmark] = checker_for(benchmark).reference_ids(path, config)
        return self._reference_ids[benchmark]

    def revision(self, benchmark: str) -> str:
        """The references' revision: the Hub revision asked for, else the benchmark's content revision."""
        if benchmark not in self._revisions:
            from eval_kit.leaderboard.checker import checker_for

            ref = self.settings.references[benchmark]
            path, config = self.references(benchmark)
            self._revisions[benchmark] = ref.hub_revision or checker_for(benchmark).reference_revision(path, config)
        return self._revisions[benchmark]

    def config(self, benchmark: str) -> str:
        from eval_kit.leaderboard.provenance import DEFAULT_CONFIG, config_of

        path, config = self.references(benchmark)
        return config or config_of(path) or DEFAULT_CONFIG

    def warm(self) -> None:
        """Load every benchmark's references once (ids and revision), so the first submission is fast."""
        for benchmark in self.benchmarks():
            self.reference_ids(benchmark)
            self.revision(benchmark)
        if self.settings.score_timeout:
            if self._worker is None:
                self._worker = ScoringWorker(self.settings)
            self._worker.warm()

    # --- submitting ------------------------------------------------------------------------------
    def submit(self, upload: Path | None, filename: str | None, benchmark: str, model: str, link: str = "",
               backend: str = "", user: str = "anonymous") -> Outcome:
        """Check the limits, store the upload with its sha256, validate and score it; never raises."""
        from eval_kit import registry
        from eval_kit.display_names import looks_like_path, reduce_paths
        from eval_kit.leaderboard.provenance import checked_text
        from eval_kit.leaderboard.space.uploads import check_run_zip, read_upload

        name = display_name(filename or (upload.name if upload else None))
        try:
            if upload is None:
                raise BadInput("no file uploaded", fix="choose a predictions .jsonl or a run folder .zip")
            bench = registry.get(benchmark)
            self.references(bench.name)
            model = checked_text((model or "").strip(), "model") or ""
            if looks_like_path(model):
                raise BadInput(f"the model name {model[:60]!r} holds a local path; names are shown to everyone",
                               field="model", fix=f"use a plain name, e.g. {reduce_paths(model)}")
            link = checked_text((link or "").strip(), "link") or ""
            if link and not _LINK.fullmatch(link):
                raise BadInput("link must be an http(s) URL without spaces", field="link",
                               fix="e.g. https://huggingface.co/ORG/MODEL")
            backend = checked_text((backend or "").strip(), "backend") or ""
            data, kind = read_upload(Path(upload), name, self.settings.max_upload_bytes)
            if kind != "zip" and not model:  # a run folder's metadata.json may name the model instead
                checked_text(model, "model", required=True)
            if kind == "zip":  # a broken archive is refused before it is stored: it costs no quota
                check_run_zip(data, name, self.settings.max_upload_bytes)
            self._check_disk(len(data))
            record = self.store.create(user=user, benchmark=bench.name, model=model, link=link or None,
                                       backend=backend or None, filename=name, data=data, kind=kind,
                                       daily_limit=self.settings.daily_limit)
        except BadInput as exc:
            return Outcome("refused", [f"error: {exc}"])
        return self.evaluate(record)

    def _check_disk(self, incoming: int) -> None:
        """BadInput when storing `incoming` more bytes would take the submission store past the disk cap."""
        cap = self.settings.disk_cap_bytes
        if cap is None:
            return
        from eval_kit.leaderboard.space.guard import folder_bytes

        if folder_bytes(self.settings.submissions) + incoming > cap:
            log.warning("submission refused: the disk cap of %d bytes is reached", cap)
            raise BadInput("the leaderboard's storage is full; try again later (the operator is told)",
                           field="upload")

    def evaluate(self, record: dict[str, Any]) -> Outcome:
        """Validate and score a stored submission (new, or rescored); records the outcome; never raises."""
        submission_id = record["id"]
        upload = self.store.upload_path(record)
        try:
            row, lines = self._scored(record, upload)
        except _Invalid as exc:
            self.store.update(submission_id, status="invalid", outcome=exc.lines[0], scored_at=_stamp())
            return Outcome("invalid", exc.lines, submission_id)
        except BadInput as exc:
            line = self._public(f"error: {exc}", record, upload)
            self.store.update(submission_id, status="invalid", outcome=line, scored_at=_stamp())
            return Outcome("invalid", [line], submission_id)
        except Exception:  # a scorer bug must not take the app down; the operator gets the traceback
            log.exception("scoring submission %s failed", submission_id)
            line = "error: internal error while scoring (the operator has the details); your upload is kept"
            self.store.update(submission_id, status="failed", outcome=line, scored_at=_stamp())
            return Outcome("failed", [line], submission_id)
        self.store.save_row(submission_id, row)
        if self.settings.moderation:
            status = "pending"
            lines.append(f"submission {submission_id} is pending: an operator reviews it before it is listed")
        else:
            from eval_kit.leaderboard.results import add_results

            add_results(self.settings.table, [row], remove=lambda r: r["run"] == submission_id)
            self._changed(f"submission {submission_id}: {record['model']} on {record['benchmark']}")
            status = "published"
            lines.append(f"submission {submission_id} is on the leaderboard")
        self.store.update(submission_id, status=status, outcome=lines[0], headline=row["headline"],
                          scored_at=_stamp(), model=row["model"], backend=row["backend"])
        return Outcome(status, lines, submission_id, row)

    def _scored(self, record: dict[str, Any], upload: Path) -> tuple[dict[str, Any], list[str]]:
        """`_score`, in the scoring worker under the time limit when one is set, else here."""
        if not self.settings.score_timeout:
            return self._score(record, upload)
        if self._worker is None:
            self._worker = ScoringWorker(self.settings)
        return self._worker.score(record)

    def _score(self, record: dict[str, Any], upload: Path) -> tuple[dict[str, Any], list[str]]:
        from eval_kit import registry
        from eval_kit.leaderboard.boards import board_for, coverage_text
        from eval_kit.leaderboard.checker import checker_for
        from eval_kit.leaderboard.provenance import dataset_version
        from eval_kit.leaderboard.results import result_row
        from eval_kit.leaderboard.space.uploads import METADATA, PREDICTIONS, count_lines, unpack_run_zip
        from eval_kit.leaderboard.validate import check_metadata, check_predictions, ordered, other_config_ids

        benchmark = record["benchmark"]
        folder = self.store.folder(record["id"])
        metadata = None
        if record["kind"] == "zip":
            members = unpack_run_zip(upload, record["filename"], folder / "unpacked", self.settings.max_upload_bytes)
            predictions, metadata = members[PREDICTIONS], members.get(METADATA)
        else:
            predictions = upload
        rows = count_lines(predictions)
        if rows > self.settings.max_rows:
            raise BadInput(f"{rows} lines, over the limit of {self.settings.max_rows}", path=record["filename"],
                           fix="one line per sample of the benchmark")
        checker = checker_for(benchmark)
        path, _ = self.references(benchmark)
        problems, n = check_predictions(checker, predictions, self.reference_ids(benchmark),
                                        config=self.config(benchmark),
                                        other_configs=lambda: other_config_ids(checker, path, self.config(benchmark)))
        if metadata is not None:
            problems += check_metadata(checker, metadata, self.revision(benchmark))
        problems = ordered(problems)
        if problems:
            lines = [self._public(f"error: {pr}", record, upload) for pr in problems[:MAX_ERROR_LINES]]
            if len(problems) > MAX_ERROR_LINES:
                lines.append(f"error: ... and {len(problems) - MAX_ERROR_LINES} more problem(s)")
            raise _Invalid(lines)
        sent = submitted_metadata(record, metadata)
        path, _ = self.references(benchmark)
        config = self.config(benchmark)
        task = registry.make_task(benchmark, data=path, config=self.settings.references[benchmark].config,
                                  dataset_revision=self.revision(benchmark))
        result = registry.get(benchmark).part("score_run")(task, predictions, n_bootstrap=self.settings.n_bootstrap,
                                                           seed=0)
        result.pop("predictions", None)  # a server path
        result.pop("references", None)
        result["submission"] = sent["submission"]
        if sent["text_only"] is not None:
            result["text_only"] = sent["text_only"]
        row = result_row(result, source=str(upload), model=sent["model"], run=record["id"], config=config,
                         version=dataset_version(path), revision=self.revision(benchmark), link=record.get("link"),
                         backend=sent["backend"])
        board = board_for(benchmark)
        ci = "" if row["ci_low"] is None else f" [{100 * row['ci_low']:.1f}, {100 * row['ci_high']:.1f}]"
        headline = "-" if row["headline"] is None else f"{100 * row['headline']:.1f}%"
        lines = [f"ok: {n} predictions for {benchmark} (config {config}): {board.headline_label} {headline}{ci} "
                 f"{coverage_text(result, board)}",
                 *sent["notes"]]
        if registry.get(benchmark).retry_policies:
            lines.append(retry_note(metadata, result))
        return row, lines

    def _public(self, line: str, record: dict[str, Any], upload: Path) -> str:
        """A message with server paths replaced by the uploaded file's name."""
        folder = self.store.folder(record["id"])
        for path in (folder / "unpacked", upload, folder):
            line = line.replace(str(path), record["filename"])
        return line

    # --- the operator ----------------------------------------------------------------------------
    def approve(self, submission_id: str) -> dict[str, Any]:
        from eval_kit.leaderboard.results import add_results

        with self.store.lock():
            record = self.store.get(submission_id)
            if record["status"] != "pending":
                raise BadInput(f"submission {submission_id} is {record['status']}, not pending", field="SUBMISSION")
            row = self.store.row(submission_id)
            if row is None:
                raise BadInput(f"submission {submission_id} has no scored row", field="SUBMISSION",
                               fix="rescore it first")
            add_results(self.settings.table, [row], remove=lambda r: r["run"] == submission_id)
            self._changed(f"approve submission {submission_id}")
            return self.store.update(submission_id, status="published", reviewed_at=_stamp())

    def reject(self, submission_id: str, reason: str = "") -> dict[str, Any]:
        """Reject a submission and take its row off the table whatever its record says: a row published in
        the instant before a crash has a record still `processing`, and must come down all the same."""
        from eval_kit.leaderboard.results import add_results, read_table

        with self.store.lock():
            self.store.get(submission_id)  # an unknown id is bad input
            if any(r["run"] == submission_id for r in read_table(self.settings.table)):
                add_results(self.settings.table, [], remove=lambda r: r["run"] == submission_id)
                self._changed(f"reject submission {submission_id}")
            return self.store.update(submission_id, status="rejected", reviewed_at=_stamp(),
                                     outcome=f"rejected by the operator{': ' + reason if reason else ''}")

    def recover(self) -> list[dict[str, Any]]:
        """At start: settle the submissions a crash left `processing` (the app stopped between storing the
        upload and recording the outcome), so no row is listed under a record that says otherwise and no
        user waits for a submission that will never finish. Returns the records changed.

        - its row is in the table (published just before the crash): the record says published;
        - its row was scored but not published: pending under moderation, else published now;
        - nothing was scored: failed, with an outcome saying so; `leaderboard rescore ID` scores it again.
        Submissions are never scored here: an upload that brought the app down must not do it again at start.
        """
        from eval_kit.leaderboard.results import add_results, read_table

        changed = []
        with self.store.lock():
            stuck = [r for r in self.store.records() if r.get("status") == "processing"]
            if not stuck:
                return changed
            listed = {r["run"] for r in read_table(self.settings.table)}
            for record in stuck:
                submission_id = record["id"]
                row = self.store.row(submission_id)
                note = "recovered at start after the app stopped while processing it"
                if submission_id in listed:
                    updated = self.store.update(submission_id, status="published", recovered_at=_stamp(),
                                                outcome=record.get("outcome") or f"published ({note})")
                elif row is not None and self.settings.moderation:
                    updated = self.store.update(submission_id, status="pending", recovered_at=_stamp(),
                                                outcome=f"scored, pending review ({note})")
                elif row is not None:
                    add_results(self.settings.table, [row], remove=lambda r, i=submission_id: r["run"] == i)
                    self._changed(f"submission {submission_id} recovered")
                    updated = self.store.update(submission_id, status="published", recovered_at=_stamp(),
                                                outcome=f"published ({note})")
                else:
                    updated = self.store.update(submission_id, status="failed", recovered_at=_stamp(),
                                                outcome="error: the app stopped while scoring this submission; "
                                                        "the operator can rescore it")
                log.warning("submission %s was left processing: now %s", submission_id, updated["status"])
                changed.append(updated)
        return changed

    def rescore(self, submission_ids: list[str] | None = None) -> list[Outcome]:
        """Score stored submissions again from their stored files (after a scorer change). Published rows
        are replaced; pending ones stay pending; invalid, failed or cut-short (processing when the app
        stopped) ones may now pass (and are then listed or pending, as a new submission would be);
        rejected ones are left alone unless named."""
        records = [self.store.get(i) for i in submission_ids] if submission_ids else [
            r for r in self.store.records()
            if r.get("status") in ("published", "pending", "invalid", "failed") or cut_short(r)]
        outcomes = []
        for record in records:
            history = [*record.get("history", []), {"status": record["status"], "headline": record.get("headline"),
                                                    "scored_at": record.get("scored_at")}]
            record = self.store.update(record["id"], history=history, rescored_at=_stamp())
            was_published = record["status"] == "published"
            outcome = self.evaluate(record)
            if outcome.status == "pending" and was_published:  # approved once: stays listed with new scores
                self.approve(record["id"])
                outcome.status = "published"
            elif was_published and outcome.status in ("invalid", "failed"):
                from eval_kit.leaderboard.results import add_results

                add_results(self.settings.table, [], remove=lambda r, i=record["id"]: r["run"] == i)
                self._changed(f"rescored submission {record['id']} is no longer valid")
            outcomes.append(outcome)
        return outcomes


def submitted_metadata(record: dict[str, Any], metadata: Path | None) -> dict[str, Any]:
    """What the submission says about itself: model, backend, text_only, settings, model revision, variant and
    dataset revision from its metadata.json where present (already validated against the schema); the
    form's values only fill in what the metadata leaves out. `notes`: one line per form value not used.

    The model name is the exception: metadata.json's name wins, unless it holds a local path (a run made
    before `eval --model-name` existed); then the form's name wins, or the path's last component."""
    from eval_kit.display_names import looks_like_path, reduce_paths
    from eval_kit.strictjson import read_json

    meta: dict[str, Any] = {}
    if metadata is not None:
        loaded = read_json(metadata, max_bytes=2**20)
        meta = loaded if isinstance(loaded, dict) else {}
    notes = []
    chosen = {}
    for name in ("model", "backend"):
        sent, typed = meta.get(name), record.get(name) or None
        if name == "model" and isinstance(sent, str) and looks_like_path(sent):
            chosen[name] = typed or reduce_paths(sent)
            notes.append(f"note: metadata.json names the model by a local path; shown as {chosen[name]!r} "
                         + ("(the form's Model name)" if typed else "(the folder's name; set Model name to choose)"))
            continue
        chosen[name] = sent or typed
        if sent and typed and sent != typed:
            notes.append(f"note: {name} {sent!r} is taken from metadata.json (the form's {typed!r} is not used)")
    if not chosen["model"]:
        raise BadInput("no model name", path=record["filename"], field="model",
                       fix="fill in Model name, or zip a run folder whose metadata.json names the model")
    submission = {k: meta[k] for k in ("revision", "settings", "variant", "dataset_revision", "config",
                                       "hazardkit_version") if meta.get(k) not in (None, {}, "")}
    submission["from_metadata"] = sorted(k for k in ("model", "backend", "text_only", *submission) if k in meta)
    text_only = meta.get("text_only") if isinstance(meta.get("text_only"), bool) else None
    return {"model": chosen["model"], "backend": chosen["backend"], "text_only": text_only,
            "submission": submission, "notes": notes}


class _Invalid(Exception):
    def __init__(self, lines: list[str]) -> None:
        super().__init__(lines)  # args stay the lines: the exception crosses the worker's process boundary
        self.lines = lines


class ScoringWorker:
    """One process that validates and scores, killed when a submission takes longer than the time limit.

    A hostile upload (a parser's worst case in every response) then costs at most `score_timeout` seconds
    and takes nothing else down; the next submission gets a fresh worker. The worker keeps the references
    loaded, so a normal submission pays only for the transfer of its row.
    """

    def __init__(self, settings: SpaceSettings) -> None:
        self.settings = settings
        self._pool: Any = None

    def _start(self) -> Any:
        import multiprocessing
        from concurrent.futures import ProcessPoolExecutor

        if self._pool is None:
            import os

            self._pool = ProcessPoolExecutor(1, mp_context=multiprocessing.get_context("spawn"),
                                             initializer=_worker_init, initargs=(self.settings, os.getpid()))
        return self._pool

    def warm(self) -> None:
        self._start().submit(_worker_warm).result(timeout=max(60.0, self.settings.score_timeout or 0))

    def score(self, record: dict[str, Any]) -> tuple[dict[str, Any], list[str]]:
        from concurrent.futures import TimeoutError as FutureTimeout
        from concurrent.futures.process import BrokenProcessPool

        future = self._start().submit(_worker_score, record)
        try:
            return future.result(timeout=self.settings.score_timeout)
        except FutureTimeout:
            self.stop()
            raise BadInput(f"scoring took over {self.settings.score_timeout:g} s and was stopped",
                           path=record["filename"], fix="check for very long or repetitive responses") from None
        except BrokenProcessPool:
            self.stop()
            raise RuntimeError("the scoring worker died") from None

    def stop(self) -> None:
        """Kill the worker process now (a running scorer does not stop on request)."""
        pool, self._pool = self._pool, None
        if pool is None:
            return
        for process in list(getattr(pool, "_processes", {}).values()):
            process.kill()
        pool.shutdown(wait=False, cancel_futures=True)


_WORKER: Leaderboard | None = None


WATCH_PARENT_SECONDS = 0.5  # how often the worker checks that the server that started it is still alive


def _exit_with_parent(parent: int, every: float = WATCH_PARENT_SECONDS) -> None:
    """End this process as soon as `parent` is gone (the server was killed: SIGKILL, or SIGTERM, which ends a
    Gradio server without running any clean-up). An orphan is re-parented, so its parent id changes; then
    nothing may keep it, or the multiprocessing resource tracker whose pipe it holds, alive."""
    import os
    import threading
    import time

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(every)
        os._exit(0)  # no clean-up to wait for: the worker holds nothing but the scorer's memory

    threading.Thread(target=watch, name="exit-with-parent", daemon=True).start()


def _worker_init(settings: SpaceSettings, parent: int | None = None) -> None:
    global _WORKER
    import os
    from dataclasses import replace

    _exit_with_parent(os.getppid() if parent is None else parent)
    _WORKER = Leaderboard(replace(settings, score_timeout=None, results_repo=None))


def _worker_warm() -> None:
    assert _WORKER is not None
    _WORKER.warm()


def _worker_score(record: dict[str, Any]) -> tuple[dict[str, Any], list[str]]:
    assert _WORKER is not None
    return _WORKER._score(record, _WORKER.store.upload_path(record))


def _stamp() -> str:
    return now().isoformat(timespec="seconds")


def retry_note(metadata: Path | None, result: dict[str, Any]) -> str:
    """The run's formatting-retry policy (metadata.json `settings.retry`, written by `hazardkit eval`) and how
    many answers were retried, so a retried run is never mistaken for a first-answer one."""
    from eval_kit.strictjson import read_json

    policy = None
    if metadata is not None:
        try:
            meta = read_json(metadata)
        except BadInput:
            meta = None
        settings = meta.get("settings") if isinstance(meta, dict) else None
        policy = settings.get("retry") if isinstance(settings, dict) else None
    retried = (result.get("schema") or {}).get("retry_count")
    said = f"retry policy {policy}" if isinstance(policy, str) else "retry policy not stated (no metadata.json)"
    return f"note: {said}; {retried if retried is not None else 'unknown'} answers were retried"
