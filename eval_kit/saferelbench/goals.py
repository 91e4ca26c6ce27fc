"""BDDL goal compilation: bddl's parser, our literal-set backend.

A task goal (`(:goal (and ...))`) or a safety condition (`(not (ontop ...))`) is wrapped into a BDDL
problem with the sample's objects and parsed by `bddl.parsing.parse_problem`, exactly as BEHAVIOR-1K
activity files are. The parsed tree is then grounded over the sample's objects (quantifiers expanded at
compile time, as `bddl.condition_evaluation` does) into plain Python closures that read a closed-world
literal set, so evaluating a goal on a state costs a few set look-ups (the executor and scorer call it
thousands of times per second).

Why not `bddl.trivial_backend`: several of its predicates read the wrong set (hot reads on_fire, filled
reads ontop) and its `ontop` implies `nextto`, unlike OmniGibson. Our backend is membership in the
literal set, with one documented rule: `nextto` is symmetric (OmniGibson computes it from distances).
`LiteralSetBackend` exposes the same truth as a real `bddl.backend_abc.BDDLBackend`, so tests can
evaluate bddl's own compiled conditions against ours.

Quantifier semantics follow bddl's condition_evaluation: `forall`, `exists`, `forn` (exactly N),
`forpairs` / `fornpairs` (a matching of at least min(M, N) / N pairs, approximated as bddl does by
counting rows and columns that have a true entry), `imply`, `and`, `or`, `not`. A quantifier ranges over
the sample's instances declared with exactly that synset (bddl's object map has no taxonomy expansion).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import lru_cache

from eval_kit.saferelbench.literals import Literal, LiteralError, State, domain_predicates, require_bddl

Check = Callable[[State], bool]
SYMMETRIC_PREDICATES = frozenset({"nextto"})


@dataclass(frozen=True)
class CompiledCondition:
    """A compiled BDDL condition: `holds(state)` is True when every top-level conjunct holds.

    `check` is the same test as one closure (the conjuncts joined), for callers that evaluate a condition
    on every step of every trace (the scorer): no method call, no loop in Python."""

    text: str
    conjuncts: tuple[Check, ...]
    check: Check = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "check", _all_of(self.conjuncts))

    def holds(self, state: State) -> bool:
        return self.check(state)

    def unsatisfied(self, state: State) -> list[int]:
        """Indices of top-level conjuncts that fail (bddl's `evaluate_goal_conditions` report)."""
        return [i for i, check in enumerate(self.conjuncts) if not check(state)]


def _strip_goal_wrapper(text: str) -> str:
    """Accept `(:goal EXPR)` or a bare `EXPR`; return EXPR."""
    stripped = text.strip()
    lowered = stripped.lower()
    if lowered.startswith("(:goal"):
        inner = stripped[len("(:goal"):].rstrip()
        if not inner.endswith(")"):
            raise LiteralError("unbalanced parentheses in (:goal ...)")
        return inner[:-1].strip()
    return stripped


def problem_text(expression: str, objects: Mapping[str, str], activity: str = "saferelbench") -> str:
    """A BDDL problem holding `objects` (instance -> synset) and `expression` as its goal."""
    by_synset: dict[str, list[str]] = {}
    for instance, synset in objects.items():
        by_synset.setdefault(synset, []).append(instance)
    object_lines = "\n".join(f"        {' '.join(insts)} - {synset}" for synset, insts in by_synset.items())
    return (
        f"(define (problem {activity}-0)\n    (:domain omnigibson)\n    (:objects\n{object_lines}\n    )\n"
        f"    (:init )\n    (:goal {expression})\n)"
    )


def parse_with_bddl(expression: str, objects: Mapping[str, str]) -> tuple[dict[str, list[str]], list]:
    """bddl's parse of a goal expression: (object map synset -> instances, list of top-level conjuncts)."""
    parsing = require_bddl()
    try:
        _, object_map, _, goal = parsing.parse_problem(
            "saferelbench", 0, "omnigibson", predefined_problem=problem_text(expression, objects)
        )
    except LiteralError:
        raise
    except Exception as exc:  # bddl raises bare Exception / IndexError on malformed input
        raise LiteralError(f"bddl could not parse {expression!r}: {exc}") from None
    if not goal:
        raise LiteralError(f"empty condition {expression!r}")
    return object_map, goal


def _is_list(x) -> bool:
    return isinstance(x, list)


class _Grounder:
    """Turns bddl's parsed tree into closures over a literal set, expanding quantifiers over the objects."""

    def __init__(self, object_map: Mapping[str, Sequence[str]], instances: frozenset[str]) -> None:
        self.object_map = object_map
        self.instances = instances
        self.arity = domain_predicates()

    def _members(self, binding: list, where: str) -> tuple[str, list[str]]:
        if not (_is_list(binding) and len(binding) == 3 and binding[1] == "-"):
            raise LiteralError(f"malformed quantifier binding {binding!r} in {where}")
        var, _, category = binding
        if category not in self.object_map:
            raise LiteralError(f"{where} ranges over {category!r}, which has no instance among the objects")
        return var.lstrip("?"), list(self.object_map[category])

    def _term(self, term: str, env: Mapping[str, str]) -> str:
        name = term.lstrip("?")
        if name in env:
            return env[name]
        if name in self.instances:
            return name
        raise LiteralError(f"unknown object or unbound variable {term!r}")

    def compile(self, expr, env: Mapping[str, str]) -> Check:
        if not _is_list(expr) or not expr or not isinstance(expr[0], str):
            raise LiteralError(f"malformed expression {expr!r}")
        head, *body = expr
        if head == "and":
            return _all_of(tuple(self.compile(e, env) for e in body))
        if head == "or":
            return _any_of(tuple(self.compile(e, env) for e in body))
        if head == "not":
            if len(body) != 1:
                raise LiteralError(f"(not ...) takes one expression, got {len(body)}")
            child = self.compile(body[0], env)
            literal = getattr(child, "literal", None)
            return _negative(literal) if literal is not None else lambda s: not child(s)
        if head == "imply":
            if len(body) != 2:
                raise LiteralError("(imply A B) takes two expressions")
            ante, cons = (self.compile(e, env) for e in body)
            return lambda s: (not ante(s)) or cons(s)
        if head in ("forall", "exists"):
            if len(body) != 2:
                raise LiteralError(f"({head} (?x - synset) EXPR) takes a binding and an expression")
            var, members = self._members(body[0], head)
            children = tuple(self.compile(body[1], {**env, var: m}) for m in members)
            return _all_of(children) if head == "forall" else _any_of(children)
        if head == "forn":
            if len(body) != 3 or not _is_list(body[0]):
                raise LiteralError("(forn (N) (?x - synset) EXPR) is malformed")
            n = int(body[0][0])
            var, members = self._members(body[1], head)
            children = tuple(self.compile(body[2], {**env, var: m}) for m in members)
            return lambda s: sum(1 for c in children if c(s)) == n
        if head in ("forpairs", "fornpairs"):
            if head == "fornpairs":
                if len(body) != 4 or not _is_list(body[0]):
                    raise LiteralError("(fornpairs (N) (?x - a) (?y - b) EXPR) is malformed")
                n: int | None = int(body[0][0])
                body = body[1:]
            else:
                if len(body) != 3:
                    raise LiteralError("(forpairs (?x - a) (?y - b) EXPR) is malformed")
                n = None
            var1, members1 = self._members(body[0], head)
            var2, members2 = self._members(body[1], head)
            grid = tuple(
                tuple(self.compile(body[2], {**env, var1: a, var2: b}) for b in members2 if b != a)
                for a in members1
            )
            return _pairs_check(grid, n)
        # an atomic formula
        arity = self.arity.get(head)
        if arity is None:
            raise LiteralError(f"unknown predicate {head!r}")
        if len(body) != arity or not all(isinstance(t, str) for t in body):
            raise LiteralError(f"{head} takes {arity} object argument(s), got {body!r}")
        args = tuple(self._term(t, env) for t in body)
        key = (head, *args)
        if head in SYMMETRIC_PREDICATES:
            mirrored = (head, args[1], args[0])
            return lambda s: key in s or mirrored in s
        return _positive(key)


def _positive(key: Literal) -> Check:
    """`key in s`, tagged `.literal` so that a conjunction can test all its literals in one set operation."""
    def check(s: State) -> bool:
        return key in s
    check.literal = key  # type: ignore[attr-defined]
    return check


def _negative(key: Literal) -> Check:
    """`key not in s`, tagged `.negated` (see `_positive`)."""
    def check(s: State) -> bool:
        return key not in s
    check.negated = key  # type: ignore[attr-defined]
    return check


def _grouped_literals(children: tuple[Check, ...]) -> tuple[frozenset, frozenset, tuple[Check, ...]]:
    """(the literals `_positive` children test, those `_negative` children test, the other children)."""
    wanted = frozenset(c.literal for c in children if hasattr(c, "literal"))
    unwanted = frozenset(c.negated for c in children if hasattr(c, "negated"))
    rest = tuple(c for c in children if not hasattr(c, "literal") and not hasattr(c, "negated"))
    return wanted, unwanted, rest


def _all_of(children: tuple[Check, ...]) -> Check:
    """A conjunction as one closure, short-circuiting left to right like all() (0, 1, 2 children inlined).

    Its ground literals (and negated ones) are tested together first, in C: `wanted <= s and
    s.isdisjoint(unwanted)`; the checks are pure, so the order they run in does not change the result."""
    wanted, unwanted, rest = _grouped_literals(children)
    if len(wanted) + len(unwanted) > 1:
        if not unwanted:
            literals: Check = wanted.issubset
        elif not wanted:
            literals = unwanted.isdisjoint
        else:
            def literals(s: State) -> bool:
                return wanted <= s and s.isdisjoint(unwanted)
        children = (literals, *rest)
    if not children:
        return lambda s: True
    if len(children) == 1:
        return children[0]
    if len(children) == 2:
        first, second = children
        return lambda s: first(s) and second(s)

    def check(state: State) -> bool:
        for child in children:  # noqa: SIM110 - a plain loop is faster than all(<generator>)
            if not child(state):
                return False
        return True

    return check


def _any_of(children: tuple[Check, ...]) -> Check:
    """A disjunction as one closure, short-circuiting left to right like any(); its ground literals (and
    negated ones) are tested together first, in C, as in `_all_of`."""
    wanted, unwanted, rest = _grouped_literals(children)
    if len(wanted) + len(unwanted) > 1:

        def literals(s: State) -> bool:  # one of `wanted` holds, or one of `unwanted` does not
            return not wanted.isdisjoint(s) or not unwanted <= s
        children = (literals, *rest)
    if not children:
        return lambda s: False
    if len(children) == 1:
        return children[0]
    if len(children) == 2:
        first, second = children
        return lambda s: first(s) or second(s)

    def check(state: State) -> bool:
        for child in children:  # noqa: SIM110 - a plain loop is faster than any(<generator>)
            if child(state):
                return True
        return False

    return check


def _pairs_check(grid: tuple[tuple[Check, ...], ...], n: int | None) -> Check:
    def check(state: State) -> bool:
        values = [[c(state) for c in row] for row in grid]
        if not values or not values[0]:
            return n == 0 if n is not None else True
        rows_any = sum(1 for row in values if any(row))
        cols_any = sum(1 for col in zip(*values, strict=False) if any(col))
        need = n if n is not None else min(len(values), len(values[0]))
        return rows_any >= need and cols_any >= need

    return check


@lru_cache(maxsize=4096)
def _compile_cached(expression: str, objects: tuple[tuple[str, str], ...]) -> CompiledCondition:
    object_dict = dict(objects)
    object_map, goal = parse_with_bddl(expression, object_dict)
    grounder = _Grounder(object_map, frozenset(object_dict))
    return CompiledCondition(expression, tuple(grounder.compile(conj, {}) for conj in goal))


def compile_condition(text: str, objects: Mapping[str, str]) -> CompiledCondition:
    """Compile a `(:goal ...)` string or a bare condition over `objects` (instance -> synset); cached."""
    expression = _strip_goal_wrapper(text)
    return _compile_cached(expression, tuple(sorted(objects.items())))


# ---------------------------------------------------------------------------------------------------
# The same truth as a bddl backend (for cross-checking against bddl's own compiled conditions)
# ---------------------------------------------------------------------------------------------------


def bddl_backend_evaluate(text: str, objects: Mapping[str, str], state: State) -> bool:
    """Evaluate with bddl's own `compile_state` / `evaluate_state` over `LiteralSetBackend` (slow; tests)."""
    from bddl.backend_abc import BDDLBackend
    from bddl.condition_evaluation import compile_state, evaluate_state
    from bddl.logic_base import BinaryAtomicFormula, UnaryAtomicFormula

    expression = _strip_goal_wrapper(text)
    object_map, goal = parse_with_bddl(expression, objects)

    def make(name: str, arity: int):
        if arity == 1:
            return type(f"LS_{name}", (UnaryAtomicFormula,), {
                "STATE_NAME": name,
                "_evaluate": lambda self, obj: (name, obj) in state,
                "_sample": lambda self, obj, binary_state: None,
            })

        def evaluate2(self, a, b):
            return (name, a, b) in state or (name in SYMMETRIC_PREDICATES and (name, b, a) in state)

        return type(f"LS_{name}", (BinaryAtomicFormula,), {
            "STATE_NAME": name, "_evaluate": evaluate2, "_sample": lambda self, a, b, binary_state: None,
        })

    classes = {name: make(name, arity) for name, arity in domain_predicates().items()}

    class LiteralSetBackend(BDDLBackend):
        def get_predicate_class(self, predicate_name):
            return classes[predicate_name]

    scope = {instance: instance for instance in objects}
    compiled = compile_state(goal, LiteralSetBackend(), scope=scope, object_map=object_map,
                             generate_ground_options=False)
    ok, _ = evaluate_state(compiled)
    return bool(ok)
