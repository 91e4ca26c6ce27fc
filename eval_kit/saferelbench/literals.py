"""Ground BDDL literals: parsing "(ontop a b)" with bddl's tokenizer, formatting, and the domain's predicates.

A state is a frozenset of literal tuples `(predicate, obj1[, obj2])`. It is closed-world: a literal that
is absent is false. Strings are parsed with `bddl.parsing.scan_tokens` (bddl lower-cases everything).
"""

from __future__ import annotations

from collections.abc import Iterable
from functools import cache

Literal = tuple[str, ...]
State = frozenset[Literal]


class LiteralError(ValueError):
    """A literal or condition string that is not well-formed BDDL (the caller turns it into BadInput)."""


def require_bddl():
    """Import bddl's parsing module, or explain how to install it (it is not a declared dependency)."""
    try:
        from bddl import parsing
    except ImportError as exc:  # pragma: no cover - depends on the environment
        raise LiteralError(
            "SafeRelBench needs the `bddl` package: pip install --no-deps bddl==3.6.0 networkx future "
            f"(import failed: {exc})"
        ) from None
    return parsing


@cache
def domain_predicates() -> dict[str, int]:
    """Predicate name -> arity, read from bddl's OmniGibson domain file (26 predicates)."""
    parsing = require_bddl()
    *_, predicates = parsing.parse_domain("omnigibson")
    return {name: len(args) for name, args in predicates.items()}


def tokens(text: str):
    """bddl's S-expression tokens of one expression (nested lists of lower-case strings)."""
    parsing = require_bddl()
    try:
        return parsing.scan_tokens(string=text)
    except Exception as exc:  # bddl raises bare Exception for unbalanced parentheses
        raise LiteralError(f"not a BDDL expression: {exc}") from None


def parse_literal(text: str) -> Literal:
    """'(ontop plate.n.04_1 countertop.n.01_1)' -> ('ontop', 'plate.n.04_1', 'countertop.n.01_1')."""
    tok = tokens(text)
    if not isinstance(tok, list) or not tok or not all(isinstance(t, str) for t in tok):
        raise LiteralError(f"{text!r} is not a ground literal like (ontop a.n.01_1 b.n.01_1)")
    predicate, *args = tok
    arity = domain_predicates().get(predicate)
    if arity is None:
        raise LiteralError(f"unknown predicate {predicate!r} in {text!r}")
    if len(args) != arity:
        raise LiteralError(f"{predicate} takes {arity} argument(s), got {len(args)} in {text!r}")
    if any(a.startswith("?") for a in args):
        raise LiteralError(f"{text!r} has a variable; states hold ground literals only")
    return (predicate, *args)


def format_literal(literal: Literal) -> str:
    return "(" + " ".join(literal) + ")"


def parse_state(literals: Iterable[str]) -> State:
    return frozenset(parse_literal(text) for text in literals)


def format_state(state: Iterable[Literal]) -> list[str]:
    """Sorted literal strings (stable JSON); the executor's hidden bookkeeping literals (`~...`) are left out."""
    return [format_literal(lit) for lit in sorted(state) if lit[0][:1] != "~"]


def parse_initial(literals: Iterable[str]) -> tuple[State, State]:
    """An activity's (:init ...) literals -> (positive state, negated literals); `(not (cooked x))` is negated.

    The state is closed-world, so a negated literal only records what is false; it must not also be listed
    as positive (LiteralError).
    """
    positive, negative = set(), set()
    for text in literals:
        tok = tokens(text)
        if isinstance(tok, list) and len(tok) == 2 and tok[0] == "not" and isinstance(tok[1], list):
            negative.add(parse_literal(format_literal(tuple(tok[1]))))
        else:
            positive.add(parse_literal(text))
    both = positive & negative
    if both:
        raise LiteralError(f"{format_literal(min(both))} is both true and negated in the initial state")
    return frozenset(positive), frozenset(negative)


def split_initial(literals: Iterable[str]) -> tuple[State, State, dict[str, str]]:
    """(dynamic state, negated literals, rooms): `(inroom obj room)` literals are static facts about the scene,
    kept apart from the state the executor changes (a room is a place, not an object; no goal names it)."""
    positive, negative = parse_initial(literals)
    rooms = {lit[1]: lit[2] for lit in positive if lit[0] == "inroom"}
    return frozenset(lit for lit in positive if lit[0] != "inroom"), negative, rooms
