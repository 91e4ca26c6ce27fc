"""jsonschema-rs is only a fast "valid" answer: it never lets through what python-jsonschema refuses.

For every shipped schema, instances are generated from the schema's own vocabulary (its property names, enum
values, pattern-like strings) mixed with arbitrary JSON, and wherever jsonschema-rs says "valid",
python-jsonschema must say "valid" too. Known-valid objects of the main formats must take the fast path
(otherwise the speed-up is gone), and `first_error` must return python-jsonschema's message for invalid ones.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from eval_kit import schemas

jsonschema_rs = pytest.importorskip("jsonschema_rs")  # a declared dependency: installed by `make test`


def _schema_names() -> list[str]:
    import builder.movsafebench  # noqa: F401  (registers the builder's schema folder)

    names = []
    for folder in schemas.schema_folders():
        names += [f.name.removesuffix(".schema.json") for f in folder.iterdir() if f.name.endswith(".schema.json")]
    return sorted(set(names))


def _vocabulary(schema: Any) -> tuple[set[str], list[Any]]:
    """Property names and literal values (enums, consts, examples) found anywhere in a schema."""
    keys: set[str] = set()
    values: list[Any] = []
    stack = [schema]
    while stack:
        node = stack.pop()
        if isinstance(node, dict):
            keys.update(node.get("properties", {}).keys())
            keys.update(node.get("required", []))
            values += list(node.get("enum", [])) + ([node["const"]] if "const" in node else [])
            stack += list(node.values())
        elif isinstance(node, list):
            stack += node
    return keys, [v for v in values if not isinstance(v, (dict, list))]


def _instances(schema: dict[str, Any]) -> st.SearchStrategy[Any]:
    keys, values = _vocabulary(schema)
    scalars = st.one_of(
        st.none(), st.booleans(), st.integers(-3, 10**6), st.floats(allow_nan=False, allow_infinity=False),
        st.text(max_size=12), st.sampled_from(values or [0]),
        st.sampled_from(["BDHV_0001", "BDHV_DEMO_0001", "msb-000001", "left", "A", "a\n", "", " ", "0" * 64]))
    json_values = st.recursive(scalars, lambda inner: st.lists(inner, max_size=4)
                               | st.dictionaries(st.sampled_from(sorted(keys) or ["x"]), inner, max_size=6),
                               max_leaves=12)
    return st.dictionaries(st.sampled_from(sorted(keys | {"extra"})), json_values, max_size=len(keys) + 2)


@pytest.mark.parametrize("name", _schema_names())
def test_fast_valid_implies_python_valid(name):
    fast = schemas.fast_validator(name)
    if fast is None:
        pytest.skip(f"jsonschema-rs cannot compile {name}: python-jsonschema alone validates it")
    python = schemas.validator(name)
    passed = []

    @settings(max_examples=150, deadline=None, suppress_health_check=list(HealthCheck), database=None)
    @given(_instances(schemas.load_schema(name)))
    def check(instance):
        try:
            fast_ok = fast.is_valid(instance)
        except Exception:
            return  # first_error then asks python-jsonschema
        if fast_ok:
            passed.append(instance)
            assert python.is_valid(instance), json.dumps(instance)[:300]

    check()


def test_known_valid_objects_take_the_fast_path_and_messages_stay_python_jsonschemas():
    from eval_kit.testing.synthetic_references import table2_references

    reference = table2_references(seed=0)[0]
    prediction = {"id": reference["id"], "response": "Answer: go left"}
    for name, obj in (("movsafebench_reference", reference), ("movsafebench_prediction", prediction)):
        assert schemas.fast_validator(name) is not None, name
        assert schemas.fast_validator(name).is_valid(obj), name
        assert schemas.first_error(name, obj) is None
    bad = {"id": "", "response": 3}
    import jsonschema

    expected = jsonschema.exceptions.best_match(schemas.validator("movsafebench_prediction").iter_errors(bad))
    assert schemas.first_error("movsafebench_prediction", bad) == (
        "/".join(map(str, expected.absolute_path)) or "(object)", expected.message)


def test_values_beyond_64_bits_get_python_jsonschemas_answer():
    huge = {"id": "msb-1", "response": "x", "n": 10**400}  # extra keys are allowed in a prediction line
    # whether jsonschema-rs converts the number or raises, first_error answers as python-jsonschema does
    assert schemas.validator("movsafebench_prediction").is_valid(huge)
    assert schemas.first_error("movsafebench_prediction", huge) is None
    assert schemas.first_error("movsafebench_prediction", {**huge, "id": 5}) is not None
    assert schemas.first_error("movsafebench_prediction", {"id": "x", "response": 10**400}) is not None
