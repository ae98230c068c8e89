"""Dice notation ("2d6+3", "2d20kh1", "1d6!"): parsing, its limits, rendering, and the ``Dice`` value.

``parse`` turns text into terms once; ``Dice`` compiles them into its samplers and answers
bounds, mean and distribution from the exact statistics.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable
from fractions import Fraction

import attrs

from sim.dice.detailed import DetailedSampler, compile_roll_dice
from sim.dice.exact import MAX_DISTRIBUTION_WORK, bounds, estimated_work, exact_distribution, term_mean
from sim.dice.samplers import Sampler, compile_roll
from sim.dice.terms import Constant, Roll, Term
from sim.errors import DiceError

MAX_TEXT_LENGTH = 200  # characters of notation
MAX_TERMS = 50  # terms joined by + or -
MAX_DICE = 1000  # dice in one term
MAX_SIDES = 1000  # sides of the dice in one term

_EXAMPLE = "must be dice notation like '1d6+2'"
_TERM_SHAPES = "a number or a dice term like 2d6, d20, d%, 4d6kh3, 2d20kl1 or 1d6!"


# --- rendering -------------------------------------------------------------------------------


def _render(terms: tuple[Term, ...]) -> str:
    """The canonical text of ``terms``: no spaces, explicit dice counts, d% as 1d100."""
    parts = []
    for index, term in enumerate(terms):
        negative = term.value < 0 if isinstance(term, Constant) else term.sign < 0
        sign = "-" if negative else ("+" if index else "")
        parts.append(sign + _render_body(term))
    return "".join(parts)


def _render_body(term: Term) -> str:
    """The unsigned text of one term."""
    if isinstance(term, Constant):
        return str(abs(term.value))
    suffix = f"k{term.keep}{term.kept}" if term.keep else ("!" if term.explode else "")
    return f"{term.count}d{term.sides}{suffix}"


# --- parsing ---------------------------------------------------------------------------------

# A term is matched as a whole "word" (everything up to a space, + or -), so junk inside a word
# is reported as that word rather than as a confusing half-match. ASCII only: int() would
# otherwise accept other scripts' digits.
_WORD = re.compile(r"[^\s+-]*")
_SPACE = re.compile(r"\s*")
_TERM = re.compile(
    r"(?P<count>[0-9]+)?d(?P<sides>[0-9]+|%)(?:k(?P<keep>[hl])(?P<kept>[0-9]+)|(?P<explode>!))?"
    r"|(?P<const>[0-9]+)",
    re.IGNORECASE | re.ASCII,
)


def _bad(text: object, detail: str) -> DiceError:
    """The error for unusable notation, quoting the input and naming the problem."""
    return DiceError(f"{_EXAMPLE} (got {text!r}): {detail}")


def _parse_terms(text: str) -> tuple[Term, ...]:
    """Split ``text`` into signed terms; raises DiceError at the first problem."""
    pos = _SPACE.match(text).end()
    if pos == len(text):
        raise _bad(text, "it is empty")
    sign, operator = 1, ""
    if text[pos] in "+-":  # a leading sign: "-1d4+2", "+5"
        sign, operator = (-1 if text[pos] == "-" else 1), text[pos]
        pos = _SPACE.match(text, pos + 1).end()
    terms: list[Term] = []
    while True:
        word = _WORD.match(text, pos).group()
        if not word:
            raise _bad(text, _missing_term(text, pos, operator))
        terms.append(_parse_term(text, word, sign))
        if len(terms) > MAX_TERMS:
            raise _bad(text, f"more than {MAX_TERMS} terms")
        pos = _SPACE.match(text, pos + len(word)).end()
        if pos == len(text):
            return tuple(terms)
        operator = text[pos]
        if operator not in "+-":
            raise _bad(text, f"expected '+' or '-' at column {pos + 1}, found {operator!r}")
        sign = -1 if operator == "-" else 1
        pos = _SPACE.match(text, pos + 1).end()


def _missing_term(text: str, pos: int, operator: str) -> str:
    """Why there is no term at ``pos`` (right after ``operator``, if any)."""
    after = f" after '{operator}'" if operator else ""
    if pos == len(text):
        return f"expected {_TERM_SHAPES}{after} at the end"
    return f"expected {_TERM_SHAPES}{after} at column {pos + 1}, found {text[pos]!r}"


def _parse_term(text: str, word: str, sign: int) -> Term:
    """One term from its ``word``; ``text`` is only quoted in errors."""
    match = _TERM.fullmatch(word)
    if match is None:
        raise _bad(text, f"{word!r} is not {_TERM_SHAPES}")
    if match["const"] is not None:
        return Constant(sign * int(match["const"]))
    keep = (match["keep"] or "").lower()
    term = Roll(
        sign=sign,
        count=int(match["count"]) if match["count"] else 1,
        sides=100 if match["sides"] == "%" else int(match["sides"]),
        keep=keep,
        kept=int(match["kept"]) if keep else 0,
        explode=match["explode"] is not None,
    )
    problem = _roll_problem(term)
    if problem:
        raise _bad(text, f"{word!r}: {problem}")
    return term


def _roll_problem(term: Roll) -> str:
    """What is wrong with a dice term's numbers, or "" if nothing."""
    if term.count < 1:
        return "roll at least 1 die"
    if term.count > MAX_DICE:
        return f"at most {MAX_DICE} dice per term"
    if term.sides < 1:
        return "a die needs at least 1 side"
    if term.sides > MAX_SIDES:
        return f"at most {MAX_SIDES} sides per die"
    if term.keep and not 1 <= term.kept <= term.count:
        return f"can keep between 1 and {term.count} of {term.count} dice"
    if term.explode and term.sides < 2:
        return "an exploding die needs at least 2 sides (a d1 would always explode)"
    return ""


def parse(text: str | int) -> Dice:
    """Compile dice notation (or a whole number) into a Dice; raises DiceError if unusable.

    Grammar: terms joined by ``+`` or ``-`` (spaces allowed around them, a leading sign too).
    A term is a whole number, ``NdM`` / ``dM`` (N defaults to 1), ``d%`` (= d100),
    ``NdMkhK`` / ``NdMklK`` (keep the highest / lowest K of N) or ``NdM!`` (exploding: a die
    showing M is rolled again and added). ``d``, ``kh`` and ``kl`` are case-insensitive.
    """
    # bool is an int subclass, but parse(True) is always a mistake, never "1".
    if isinstance(text, bool) or not isinstance(text, str | int):
        raise DiceError(f"{_EXAMPLE} or a whole number (got {type(text).__name__} {text!r})")
    if isinstance(text, int):
        return constant(text)
    return _parse_text(text)


@functools.lru_cache(maxsize=1024)
def _parse_text(text: str) -> Dice:
    """Parse a string; cached because bestiaries repeat the same few expressions."""
    if len(text) > MAX_TEXT_LENGTH:
        raise _bad(text[:40] + "...", f"longer than {MAX_TEXT_LENGTH} characters")
    terms = _parse_terms(text)
    return Dice(_render(terms), terms)


def constant(value: int) -> Dice:
    """A Dice that always rolls ``value``."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise DiceError(f"a constant must be a whole number (got {type(value).__name__} {value!r})")
    terms = (Constant(int(value)),)
    return Dice(_render(terms), terms)


# --- the compiled expression -----------------------------------------------------------------


@attrs.frozen(repr=False)
class Dice:
    """A compiled dice expression: equal, hashed and printed by its canonical ``text``.

    Build it with :func:`parse` or :func:`constant`. ``roll`` and ``roll_dice`` are closures
    compiled once (no parsing, no dispatch on the notation when called):

    * ``roll(rng) -> int``: the total only, the hot path;
    * ``roll_dice(rng) -> (total, naturals)``: also every natural die rolled, in order,
      dropped and exploded ones included.

    Both draw only from ``rng``, the same number of times, so one seed gives one total.
    """

    text: str
    _terms: tuple[Term, ...] = attrs.field(eq=False)
    # Closures stored as attributes rather than methods: a call skips one Python frame.
    roll: Sampler = attrs.field(init=False, eq=False)
    roll_dice: DetailedSampler = attrs.field(init=False, eq=False)
    min: int = attrs.field(init=False, eq=False)
    max: int = attrs.field(init=False, eq=False)
    is_constant: bool = attrs.field(init=False, eq=False)

    def __attrs_post_init__(self) -> None:
        # The class is frozen; object.__setattr__ is attrs' documented way to fill derived fields.
        ranges = [bounds(term) for term in self._terms]
        object.__setattr__(self, "roll", compile_roll(self._terms))
        object.__setattr__(self, "roll_dice", compile_roll_dice(self._terms))
        object.__setattr__(self, "min", sum(low for low, _ in ranges))
        object.__setattr__(self, "max", sum(high for _, high in ranges))
        object.__setattr__(self, "is_constant", all(isinstance(t, Constant) for t in self._terms))

    @property
    def die_sides(self) -> int | None:
        """Faces of the expression's largest die (``2d6+1`` -> 6, ``1d4+1d8`` -> 8), None
        without dice: the "one more weapon die" an exploit adds (rules §3, 2d10)."""
        return max((t.sides for t in self._terms if isinstance(t, Roll)), default=None)

    @functools.cached_property
    def mean_fraction(self) -> Fraction:
        """The exact expected total (lazy: keep-highest of many dice takes real work)."""
        return sum((term_mean(term) for term in self._terms), Fraction(0))

    @property
    def mean(self) -> float:
        """The expected total, as a float."""
        return float(self.mean_fraction)

    def distribution(self) -> dict[int, Fraction]:
        """Exact probability of every reachable total, sorted by total.

        Raises DiceError when the computation would exceed ``MAX_DISTRIBUTION_WORK`` steps.
        """
        work = estimated_work(self._terms)
        if work > MAX_DISTRIBUTION_WORK:
            raise DiceError(
                f"{self.text!r} is too big for an exact distribution "
                f"(about {work:,} steps, limit {MAX_DISTRIBUTION_WORK:,}); sample it instead"
            )
        return dict(exact_distribution(self._terms))

    def __repr__(self) -> str:
        return f"Dice({self.text!r})"

    def __str__(self) -> str:
        return self.text

    def __reduce__(self) -> tuple[Callable[[str], Dice], tuple[str]]:
        # Closures cannot be pickled (worker processes need to): re-parsing the text rebuilds them.
        return (parse, (self.text,))
