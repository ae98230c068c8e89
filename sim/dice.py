"""Dice notation ("2d6+3", "2d20kh1", "1d6!") parsed once and compiled into fast samplers."""

from __future__ import annotations

import functools
import itertools
import math
import random
import re
from collections import defaultdict
from collections.abc import Callable, Iterable
from fractions import Fraction

import attrs

from sim.errors import DiceError

__all__ = [
    "MAX_DICE",
    "MAX_DISTRIBUTION_WORK",
    "MAX_EXPLOSIONS",
    "MAX_SIDES",
    "MAX_TERMS",
    "MAX_TEXT_LENGTH",
    "Dice",
    "constant",
    "parse",
    "roll_die",
]

MAX_TEXT_LENGTH = 200  # characters of notation
MAX_TERMS = 50  # terms joined by + or -
MAX_DICE = 1000  # dice in one term
MAX_SIDES = 1000  # sides of the dice in one term
MAX_EXPLOSIONS = 100  # extra rolls one exploding die may add: a safety valve, not a rule
MAX_DISTRIBUTION_WORK = 2_000_000  # estimated arithmetic steps distribution() may spend

Sampler = Callable[[random.Random], int]
DetailedSampler = Callable[[random.Random], tuple[int, tuple[int, ...]]]
_TermDetail = Callable[[random.Random, list[int]], int]  # appends natural dice, returns the value

_EXAMPLE = "must be dice notation like '1d6+2'"
_TERM_SHAPES = "a number or a dice term like 2d6, d20, d%, 4d6kh3, 2d20kl1 or 1d6!"


def roll_die(rng: random.Random, sides: int) -> int:
    """Roll one die with ``sides`` faces (1..sides, uniform), drawing only from ``rng``."""
    # One float draw is several times faster than randrange(); scaling a 53-bit float biases a
    # face by less than sides / 2**53, far below any sampling error a simulation could see.
    # The compiled samplers inline this exact formula, so both draw identical sequences.
    return int(rng.random() * sides) + 1


# --- AST -------------------------------------------------------------------------------------


@attrs.frozen
class _Constant:
    """A whole-number term; ``value`` carries its sign."""

    value: int


@attrs.frozen
class _Roll:
    """A dice term: ``count`` dice of ``sides`` faces, maybe keeping some or exploding."""

    sign: int  # +1 or -1
    count: int
    sides: int
    keep: str = ""  # "" (keep all), "h" (highest) or "l" (lowest)
    kept: int = 0  # how many dice are kept when ``keep`` is set
    explode: bool = False


_Term = _Constant | _Roll


def _render(terms: tuple[_Term, ...]) -> str:
    """The canonical text of ``terms``: no spaces, explicit dice counts, d% as 1d100."""
    parts = []
    for index, term in enumerate(terms):
        negative = term.value < 0 if isinstance(term, _Constant) else term.sign < 0
        sign = "-" if negative else ("+" if index else "")
        parts.append(sign + _render_body(term))
    return "".join(parts)


def _render_body(term: _Term) -> str:
    """The unsigned text of one term."""
    if isinstance(term, _Constant):
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


def _parse_terms(text: str) -> tuple[_Term, ...]:
    """Split ``text`` into signed terms; raises DiceError at the first problem."""
    pos = _SPACE.match(text).end()
    if pos == len(text):
        raise _bad(text, "it is empty")
    sign, operator = 1, ""
    if text[pos] in "+-":  # a leading sign: "-1d4+2", "+5"
        sign, operator = (-1 if text[pos] == "-" else 1), text[pos]
        pos = _SPACE.match(text, pos + 1).end()
    terms: list[_Term] = []
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


def _parse_term(text: str, word: str, sign: int) -> _Term:
    """One term from its ``word``; ``text`` is only quoted in errors."""
    match = _TERM.fullmatch(word)
    if match is None:
        raise _bad(text, f"{word!r} is not {_TERM_SHAPES}")
    if match["const"] is not None:
        return _Constant(sign * int(match["const"]))
    keep = (match["keep"] or "").lower()
    term = _Roll(
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


def _roll_problem(term: _Roll) -> str:
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
    terms = (_Constant(int(value)),)
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
    _terms: tuple[_Term, ...] = attrs.field(eq=False)
    # Closures stored as attributes rather than methods: a call skips one Python frame.
    roll: Sampler = attrs.field(init=False, eq=False)
    roll_dice: DetailedSampler = attrs.field(init=False, eq=False)
    min: int = attrs.field(init=False, eq=False)
    max: int = attrs.field(init=False, eq=False)
    is_constant: bool = attrs.field(init=False, eq=False)

    def __attrs_post_init__(self) -> None:
        # The class is frozen; object.__setattr__ is attrs' documented way to fill derived fields.
        bounds = [_bounds(term) for term in self._terms]
        object.__setattr__(self, "roll", _compile_roll(self._terms))
        object.__setattr__(self, "roll_dice", _compile_roll_dice(self._terms))
        object.__setattr__(self, "min", sum(low for low, _ in bounds))
        object.__setattr__(self, "max", sum(high for _, high in bounds))
        object.__setattr__(self, "is_constant", all(isinstance(t, _Constant) for t in self._terms))

    @property
    def die_sides(self) -> int | None:
        """Faces of the expression's first die (``2d6+1`` -> 6), None without dice: the
        "one more weapon die" an exploit adds (RULES.md §3, 2d10)."""
        return next((t.sides for t in self._terms if isinstance(t, _Roll)), None)

    @functools.cached_property
    def mean_fraction(self) -> Fraction:
        """The exact expected total (lazy: keep-highest of many dice takes real work)."""
        return sum((_term_mean(term) for term in self._terms), Fraction(0))

    @property
    def mean(self) -> float:
        """The expected total, as a float."""
        return float(self.mean_fraction)

    def distribution(self) -> dict[int, Fraction]:
        """Exact probability of every reachable total, sorted by total.

        Raises DiceError when the computation would exceed ``MAX_DISTRIBUTION_WORK`` steps.
        """
        work = _work(self._terms)
        if work > MAX_DISTRIBUTION_WORK:
            raise DiceError(
                f"{self.text!r} is too big for an exact distribution "
                f"(about {work:,} steps, limit {MAX_DISTRIBUTION_WORK:,}); sample it instead"
            )
        return dict(_distribution(self._terms))

    def __repr__(self) -> str:
        return f"Dice({self.text!r})"

    def __str__(self) -> str:
        return self.text

    def __reduce__(self) -> tuple[Callable[[str], Dice], tuple[str]]:
        # Closures cannot be pickled (worker processes need to): re-parsing the text rebuilds them.
        return (parse, (self.text,))


# --- compiling roll() ------------------------------------------------------------------------
# Every sampler below inlines roll_die as int(r() * sides), adding the +1 of each die in one go.


def _compile_roll(terms: tuple[_Term, ...]) -> Sampler:
    """The fastest total-only sampler for ``terms``."""
    # Constants are folded; dice terms keep their order, so the rng is consumed as in roll_dice.
    const = sum(term.value for term in terms if isinstance(term, _Constant))
    rolls = [term for term in terms if isinstance(term, _Roll)]
    if not rolls:
        return _constant_sampler(const)
    if len(rolls) == 1 and rolls[0].sign > 0:
        special = _specialised(rolls[0], const)
        if special is not None:
            return special
    return _summing_sampler(tuple(_term_sampler(term) for term in rolls), const)


def _constant_sampler(const: int) -> Sampler:
    def roll(rng: random.Random) -> int:
        return const

    return roll


def _specialised(term: _Roll, const: int) -> Sampler | None:
    """A tight closure for the common shapes ``NdM+C`` and ``2dMkh1`` / ``2dMkl1``, else None."""
    if not term.keep and not term.explode:
        return _plain_sampler(term.count, term.sides, const)
    if term.keep and term.count == 2 and term.kept == 1:
        return _pair_sampler(term.sides, const, highest=term.keep == "h")
    return None


def _plain_sampler(count: int, sides: int, const: int) -> Sampler:
    """``count``d``sides`` + ``const`` with no list and no generator."""
    base = const + count  # the +1 of every die, folded into one addition

    def one(rng: random.Random) -> int:
        return int(rng.random() * sides) + base

    def two(rng: random.Random) -> int:
        draw = rng.random
        return int(draw() * sides) + int(draw() * sides) + base

    def many(rng: random.Random) -> int:
        draw = rng.random
        total = base
        for _ in range(count):
            total += int(draw() * sides)
        return total

    return one if count == 1 else two if count == 2 else many


def _pair_sampler(sides: int, const: int, *, highest: bool) -> Sampler:
    """Advantage (``2dMkh1``) or disadvantage (``2dMkl1``) plus ``const``."""
    base = const + 1

    def best(rng: random.Random) -> int:
        first, second = int(rng.random() * sides), int(rng.random() * sides)
        return (first if first > second else second) + base

    def worst(rng: random.Random) -> int:
        first, second = int(rng.random() * sides), int(rng.random() * sides)
        return (first if first < second else second) + base

    return best if highest else worst


def _term_sampler(term: _Roll) -> Sampler:
    """The signed value of one dice term."""
    if term.explode:
        body = _exploding_sampler(term.count, term.sides)
    elif term.keep:
        body = _keeping_sampler(term.count, term.sides, term.kept, highest=term.keep == "h")
    else:
        body = _plain_sampler(term.count, term.sides, 0)
    if term.sign > 0:
        return body

    def negated(rng: random.Random) -> int:
        return -body(rng)

    return negated


def _keeping_sampler(count: int, sides: int, kept: int, *, highest: bool) -> Sampler:
    """The sum of the highest (or lowest) ``kept`` of ``count`` dice."""
    # Sorting needs the dice in a list: the one allocation the general keep case cannot avoid.
    start, stop = (count - kept, count) if highest else (0, kept)

    def keep(rng: random.Random) -> int:
        draw = rng.random
        faces = sorted([int(draw() * sides) for _ in range(count)])
        return sum(faces[start:stop]) + kept

    return keep


def _exploding_sampler(count: int, sides: int) -> Sampler:
    """``count`` exploding dice: a top face rolls again, at most MAX_EXPLOSIONS extra times."""
    top = sides - 1  # the top face, zero-based as drawn

    def explode(rng: random.Random) -> int:
        draw = rng.random
        total = count  # the +1 of each die's first roll
        for _ in range(count):
            face = int(draw() * sides)
            total += face
            extra = 0
            while face == top and extra < MAX_EXPLOSIONS:
                face = int(draw() * sides)
                total += face + 1
                extra += 1
        return total

    return explode


def _summing_sampler(samplers: tuple[Sampler, ...], const: int) -> Sampler:
    """The sum of several term samplers, in order, plus ``const``."""
    if len(samplers) == 1:
        only = samplers[0]

        def single(rng: random.Random) -> int:
            return only(rng) + const

        return single

    def summed(rng: random.Random) -> int:
        total = const
        for sampler in samplers:
            total += sampler(rng)
        return total

    return summed


# --- compiling roll_dice() -------------------------------------------------------------------
# Not specialised: it runs once per hit for the log, and must simply mirror roll() draw for draw.


def _compile_roll_dice(terms: tuple[_Term, ...]) -> DetailedSampler:
    """A sampler returning the total and every natural die, in the order rolled."""
    parts = tuple(_term_detail(term) for term in terms)

    def roll_dice(rng: random.Random) -> tuple[int, tuple[int, ...]]:
        naturals: list[int] = []
        total = 0
        for part in parts:
            total += part(rng, naturals)
        return total, tuple(naturals)

    return roll_dice


def _term_detail(term: _Term) -> _TermDetail:
    """One term's detailed sampler: appends its natural dice, returns its signed value."""
    if isinstance(term, _Constant):
        value = term.value

        def fixed(rng: random.Random, naturals: list[int]) -> int:
            return value

        return fixed
    draw = _exploding_draw(term.sides) if term.explode else _plain_draw(term.sides)
    count, sign = term.count, term.sign
    score = _keep_score(term) if term.keep else sum

    def detailed(rng: random.Random, naturals: list[int]) -> int:
        faces = [face for _ in range(count) for face in draw(rng)]
        naturals.extend(faces)
        return sign * score(faces)

    return detailed


def _plain_draw(sides: int) -> Callable[[random.Random], tuple[int, ...]]:
    """One ordinary die, as a 1-tuple of its face."""

    def draw(rng: random.Random) -> tuple[int, ...]:
        return (roll_die(rng, sides),)

    return draw


def _exploding_draw(sides: int) -> Callable[[random.Random], tuple[int, ...]]:
    """One exploding die, as every face it showed (each explosion adds one)."""

    def draw(rng: random.Random) -> tuple[int, ...]:
        faces = [roll_die(rng, sides)]
        while faces[-1] == sides and len(faces) <= MAX_EXPLOSIONS:
            faces.append(roll_die(rng, sides))
        return tuple(faces)

    return draw


def _keep_score(term: _Roll) -> Callable[[list[int]], int]:
    """The value of a keep term from all its natural dice."""
    start, stop = (term.count - term.kept, term.count) if term.keep == "h" else (0, term.kept)

    def score(faces: list[int]) -> int:
        return sum(sorted(faces)[start:stop])

    return score


# --- exact statistics ------------------------------------------------------------------------


def _bounds(term: _Term) -> tuple[int, int]:
    """The lowest and highest signed value of one term."""
    if isinstance(term, _Constant):
        return term.value, term.value
    dice = term.kept if term.keep else term.count
    faces = term.sides * (MAX_EXPLOSIONS + 1) if term.explode else term.sides
    low, high = dice, dice * faces
    return (low, high) if term.sign > 0 else (-high, -low)


def _term_mean(term: _Term) -> Fraction:
    """The exact mean of one signed term."""
    if isinstance(term, _Constant):
        return Fraction(term.value)
    return term.sign * _roll_mean(term)


def _roll_mean(term: _Roll) -> Fraction:
    """The exact mean of one unsigned dice term."""
    one_die = Fraction(term.sides + 1, 2)
    if term.explode:
        # Roll j happens with probability sides**-j, for j = 0..MAX_EXPLOSIONS.
        rolls = sum(Fraction(1, term.sides**j) for j in range(MAX_EXPLOSIONS + 1))
        return term.count * one_die * rolls
    if term.keep == "h":
        return _mean_highest(term.count, term.sides, term.kept)
    if term.keep == "l":
        # The lowest K of X are K*(sides+1) minus the highest K of (sides+1-X), same dice.
        return term.kept * (term.sides + 1) - _mean_highest(term.count, term.sides, term.kept)
    return term.count * one_die


def _mean_highest(count: int, sides: int, kept: int) -> Fraction:
    """Mean of the sum of the highest ``kept`` of ``count`` dice, at cost sides*min(K, N-K)."""
    dropped = count - kept
    if dropped < kept:
        # top K = all - bottom J, and bottom J = J*(sides+1) - top J by symmetry: do the small side.
        everything = Fraction(count * (sides + 1), 2)
        if dropped == 0:
            return everything
        return everything - dropped * (sides + 1) + _mean_highest(count, sides, dropped)
    return Fraction(_top_sum_weight(count, sides, kept), sides**count)


def _top_sum_weight(count: int, sides: int, kept: int) -> int:
    """sides**count times E[sum of the top ``kept``], as an exact integer.

    The top K dice sum to sum over x of min(K, #dice >= x); #dice >= x is binomial, so
    E[min(K, B)] = K - sum_{t<K} (K-t) P(B=t), done with integer weights C(N,t) s^t f^(N-t).
    """
    total = kept * sides**count  # x = 1: every die is >= 1
    for x in range(2, sides + 1):
        at_least, below = sides - x + 1, x - 1
        weight = below**count  # t = 0
        shortfall = 0
        for t in range(kept):
            shortfall += (kept - t) * weight
            # Next binomial weight; the division is exact because the result is an integer.
            weight = weight * (count - t) * at_least // ((t + 1) * below)
        total += kept * sides**count - shortfall
    return total


# --- exact distribution ----------------------------------------------------------------------


@attrs.frozen
class _Table:
    """Integer weights of consecutive totals from ``offset``, out of ``denominator``."""

    offset: int
    weights: tuple[int, ...]
    denominator: int

    def negated(self) -> _Table:
        last = self.offset + len(self.weights) - 1
        return _Table(-last, self.weights[::-1], self.denominator)


def _work(terms: tuple[_Term, ...]) -> int:
    """An estimate (upper bound) of the arithmetic steps _distribution will take."""
    work, size = 0, 1
    for term in terms:
        low, high = _bounds(term)
        width = high - low + 1
        work += _term_work(term) + size * width  # building the term, then one convolution
        size += width - 1
    return work


def _term_work(term: _Term) -> int:
    """Steps to build one term's table."""
    if isinstance(term, _Constant):
        return 0
    n, m = term.count, term.sides
    if term.explode:
        die = m * (MAX_EXPLOSIONS + 1)
        return die * die * n * (n - 1) // 2
    if term.keep:
        return m * term.kept * (term.kept * m + 1) * (n + 1)
    return n * (n * (m - 1) + 1)


@functools.lru_cache(maxsize=256)
def _distribution(terms: tuple[_Term, ...]) -> tuple[tuple[int, Fraction], ...]:
    """Exact (total, probability) pairs, sorted; the caller has checked the work estimate."""
    table = _Table(0, (1,), 1)
    for term in terms:
        table = _convolve(table, _term_table(term))
    return tuple(
        (table.offset + index, Fraction(weight, table.denominator))
        for index, weight in enumerate(table.weights)
        if weight
    )


def _term_table(term: _Term) -> _Table:
    """The signed distribution of one term."""
    if isinstance(term, _Constant):
        return _Table(term.value, (1,), 1)
    if term.explode:
        die = _exploding_die_table(term.sides)
        table = functools.reduce(_convolve, [die] * term.count)
    elif term.keep:
        table = _keep_table(term.count, term.sides, term.kept, highest=term.keep == "h")
    else:
        table = _uniform_sum_table(term.count, term.sides)
    return table if term.sign > 0 else table.negated()


def _convolve(first: _Table, second: _Table) -> _Table:
    """The distribution of the sum of two independent tables."""
    outer, inner = sorted((first.weights, second.weights), key=len)
    width = len(inner)
    out = [0] * (len(outer) + width - 1)
    for shift, weight in enumerate(outer):
        if weight:  # exploding tables are full of impossible totals
            window = out[shift : shift + width]
            out[shift : shift + width] = [o + weight * w for o, w in zip(window, inner, strict=True)]
    return _Table(first.offset + second.offset, tuple(out), first.denominator * second.denominator)


def _uniform_sum_table(count: int, sides: int) -> _Table:
    """``count``d``sides``: each die added as a sliding-window sum, O(size) per die."""
    weights = [1]
    for _ in range(count):
        prefix = [0, *itertools.accumulate(weights)]
        size = len(weights)
        weights = [prefix[min(i + 1, size)] - prefix[max(0, i - sides + 1)] for i in range(size + sides - 1)]
    return _Table(count, tuple(weights), sides**count)


def _exploding_die_table(sides: int) -> _Table:
    """One exploding die, truncated after MAX_EXPLOSIONS extra rolls exactly like the sampler."""
    cap = MAX_EXPLOSIONS
    weights: list[int] = []
    for explosions in range(cap):
        # j top faces then a lower one: probability sides**-(j+1), i.e. weight sides**(cap-j).
        weights += [sides ** (cap - explosions)] * (sides - 1) + [0]
    weights += [1] * sides  # the last allowed roll stands whatever it shows
    return _Table(1, tuple(weights), sides ** (cap + 1))


def _keep_table(count: int, sides: int, kept: int, *, highest: bool) -> _Table:
    """Highest or lowest ``kept`` of ``count`` dice."""
    table = _dict_table(_keep_highest_weights(count, sides, kept), sides**count)
    if highest:
        return table
    # Lowest K of X = K*(sides+1) - highest K of (sides+1-X): mirror the totals.
    mirrored = table.negated()
    return _Table(mirrored.offset + kept * (sides + 1), mirrored.weights, table.denominator)


def _dict_table(weights: dict[int, int], denominator: int) -> _Table:
    low, high = min(weights), max(weights)
    return _Table(low, tuple(weights.get(v, 0) for v in range(low, high + 1)), denominator)


def _keep_highest_weights(count: int, sides: int, kept: int) -> dict[int, int]:
    """Ordered outcomes per sum of the highest ``kept`` dice, placing faces from the top down.

    A state is (dice placed so far, sum of the kept ones); once ``kept`` dice are placed the
    sum is final and the remaining dice may show any lower face, so the state is retired.
    """
    finished: dict[int, int] = defaultdict(int)
    states: dict[tuple[int, int], int] = {(0, 0): 1}
    for face in range(sides, 0, -1):
        states = _place_face(states, face, count, kept, finished)
    return finished


def _place_face(
    states: dict[tuple[int, int], int], face: int, count: int, kept: int, finished: dict[int, int]
) -> dict[tuple[int, int], int]:
    """Put 0..all free dice on ``face``; retire the states that have kept enough dice."""
    following: dict[tuple[int, int], int] = defaultdict(int)
    for (placed, total), ways in states.items():
        free = count - placed
        for here in _choices(free, face):
            reach = ways * math.comb(free, here)
            now = placed + here
            score = total + min(here, kept - placed) * face
            if now >= kept:
                finished[score] += reach * (face - 1) ** (count - now)
            else:
                following[(now, score)] += reach
    return following


def _choices(free: int, face: int) -> Iterable[int]:
    """How many free dice may show ``face``: all of them on the last face, 1, else any number."""
    return range(free, free + 1) if face == 1 else range(free + 1)
