"""JSON Schemas of every file format we read, loaded from `manifests/schemas/` and enforced with jsonschema."""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import Any

from eval_kit.errors import BadInput

SCHEMA_DIR = Path(__file__).resolve().parent.parent / "manifests" / "schemas"


@cache
def load_schema(name: str) -> dict[str, Any]:
    """Load `manifests/schemas/<name>.schema.json`."""
    path = SCHEMA_DIR / f"{name}.schema.json"
    if not path.exists():
        raise FileNotFoundError(f"schema {name!r} not found at {path}")
    return json.loads(path.read_text(encoding="utf-8"))


@cache
def validator(name: str):
    """A compiled Draft 2020-12 validator for the named schema (compiled once: validation is per line)."""
    import jsonschema

    schema = load_schema(name)
    cls = jsonschema.validators.validator_for(schema)
    cls.check_schema(schema)
    return cls(schema, format_checker=cls.FORMAT_CHECKER)


def first_error(name: str, obj: Any) -> tuple[str, str] | None:
    """Return (field path, message) of the most relevant violation, or None when valid."""
    import jsonschema

    errors = list(validator(name).iter_errors(obj))
    if not errors:
        return None
    best = jsonschema.exceptions.best_match(errors)
    field = "/".join(str(p) for p in best.absolute_path) or "(object)"
    return field, best.message


def validate_or_raise(name: str, obj: Any, *, path: str | Path | None = None, line: int | None = None) -> None:
    """Validate one object; raise BadInput naming file, line and field on the first violation."""
    problem = first_error(name, obj)
    if problem is not None:
        field, message = problem
        raise BadInput(message, path=path, line=line, field=field)
