"""JSON Schemas of every file format we read, shipped as package data and enforced with jsonschema.

Validation is per line (7,254 predictions, 500 manifest entries), and python-jsonschema's per-instance cost
dominated scoring and reconstruction. So each schema is also compiled by jsonschema-rs (a second well-kept
implementation of the same drafts, in Rust, about 50x faster), which is asked one question only: is this
instance valid? Where it says yes, python-jsonschema is not asked; where it says no (or cannot compile the
schema, or cannot convert the value), python-jsonschema decides and gives the message, so every refusal and
every message is exactly python-jsonschema's. jsonschema-rs is never the only reason an instance passes
that python-jsonschema would refuse: `tests/test_schema_fast_path.py` checks that on every shipped schema.

A schema `<name>.schema.json` lives in the `schemas/` folder of the package that owns the format: this
package for generic formats (submission metadata), `eval_kit/<benchmark>/schemas/` for a benchmark's
references and predictions, and a builder package for build inputs (it calls `add_schema_package`).
Folders are found through `importlib.resources`, so they work from a wheel as from a checkout.
"""

from __future__ import annotations

import json
from functools import cache
from importlib import resources
from typing import Any

from eval_kit.errors import BadInput

_EXTRA_PACKAGES: list[str] = []


def add_schema_package(package: str) -> None:
    """Also look for schemas in `<package>/schemas/` (for builder packages, which eval_kit cannot name)."""
    if package not in _EXTRA_PACKAGES:
        _EXTRA_PACKAGES.append(package)
        load_schema.cache_clear()
        validator.cache_clear()
        fast_validator.cache_clear()


def schema_folders() -> list[Any]:
    """Every folder searched, generic first: this package, each benchmark's, then the added ones."""
    from eval_kit import registry

    folders = [resources.files(__name__)]
    for package in [b.package for b in registry.benchmarks()] + _EXTRA_PACKAGES:
        folder = resources.files(package).joinpath("schemas")
        if folder.is_dir():
            folders.append(folder)
    return folders


@cache
def load_schema(name: str) -> dict[str, Any]:
    """The schema `<name>.schema.json` from the first folder that has it."""
    for folder in schema_folders():
        file = folder.joinpath(f"{name}.schema.json")
        if file.is_file():
            return json.loads(file.read_text(encoding="utf-8"))
    raise FileNotFoundError(f"schema {name!r} not found in any schemas/ folder")


@cache
def validator(name: str):
    """A compiled Draft 2020-12 validator for the named schema (compiled once: validation is per line)."""
    import jsonschema

    schema = load_schema(name)
    cls = jsonschema.validators.validator_for(schema)
    cls.check_schema(schema)
    return cls(schema, format_checker=cls.FORMAT_CHECKER)


@cache
def fast_validator(name: str) -> Any | None:
    """jsonschema-rs's compiled validator of the named schema, or None where it is not installed or cannot
    compile the schema exactly (then python-jsonschema alone validates)."""
    try:
        import jsonschema_rs
    except ImportError:
        return None
    try:
        return jsonschema_rs.validator_for(load_schema(name), validate_formats=True)
    except Exception:  # a keyword, regex or $ref it does not support: no fast path for this schema
        return None


def first_error(name: str, obj: Any) -> tuple[str, str] | None:
    """Return (field path, message) of the most relevant violation, or None when valid."""
    import jsonschema

    fast = fast_validator(name)
    if fast is not None:
        try:
            if fast.is_valid(obj):
                return None
        except Exception:  # a value it cannot convert (an integer of hundreds of digits): the full check decides
            pass
    errors = list(validator(name).iter_errors(obj))
    if not errors:
        return None
    best = jsonschema.exceptions.best_match(errors)
    field = "/".join(str(p) for p in best.absolute_path) or "(object)"
    return field, best.message


def validate_or_raise(name: str, obj: Any, *, path: Any = None, line: int | None = None) -> None:
    """Validate one object; raise BadInput naming file, line and field on the first violation."""
    problem = first_error(name, obj)
    if problem is not None:
        field, message = problem
        raise BadInput(message, path=path, line=line, field=field)
