"""JSON Schemas of every file format we read, shipped as package data and enforced with jsonschema.

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


def first_error(name: str, obj: Any) -> tuple[str, str] | None:
    """Return (field path, message) of the most relevant violation, or None when valid."""
    import jsonschema

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
