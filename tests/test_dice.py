"""Tests of sim.dice: parsing, limits, exact statistics against icepool, and the samplers."""

from __future__ import annotations

import math
import pickle
import random
from collections import Counter
from collections.abc import Callable
from fractions import Fraction

import icepool
import pytest

from sim.dice import (
    MAX_DICE,
    MAX_EXPLOSIONS,
    MAX_SIDES,
    MAX_TERMS,
    MAX_TEXT_LENGTH,
    Dice,
    constant,
    parse,
    roll_die,
)
from sim.errors import DiceError, InputError


class Fixed(random.Random):
    """A Random whose random() always returns one value, to pin die faces."""

    def __init__(self, value: float) -> None:
        super().__init__(0)
        self.value = value

    def random(self) -> float:
        return self.value


def exact(die: icepool.Die) -> dict[int, Fraction]:
    """An icepool die as {outcome: probability}, dropping impossible outcomes."""
    return {o: Fraction(q, die.denominator()) for o, q in die.items() if q}


def explode_ref(rng: random.Random, sides: int) -> int:
    """One exploding die, written naively from the rules, for comparison with the sampler."""
    total = face = roll_die(rng, sides)
    extra = 0
    while face == sides and extra < MAX_EXPLOSIONS:
        face = roll_die(rng, sides)
        total += face
        extra += 1
    return total


def dice_ref(rng: random.Random, count: int, sides: int) -> list[int]:
    """``count`` natural dice in order."""
    return [roll_die(rng, sides) for _ in range(count)]


def assert_frequencies(counts: Counter[int], distribution: dict[int, Fraction], n: int) -> None:
    """Each total's frequency is within 4 standard errors of its exact probability.

    Totals expected fewer than 10 times are pooled into one "rare" bucket, where the normal
    approximation behind "4 standard errors" still holds.
    """
    assert set(counts) <= set(distribution), "a total the distribution calls impossible"
    rare = [value for value, p in distribution.items() if n * p < 10]
    buckets = [[value] for value in distribution if value not in rare] + ([rare] if rare else [])
    for bucket in buckets:
        p = float(sum(distribution[value] for value in bucket))
        observed = sum(counts[value] for value in bucket) / n
        assert abs(observed - p) <= 4 * math.sqrt(p * (1 - p) / n), bucket[:3]


# Expression -> a naive implementation of its meaning on top of roll_die. Covers every
# specialised closure (NdM, NdM+C, 2dMkh1/kl1) and the general path (keep, explode, signs, mixes).
REFERENCE: dict[str, Callable[[random.Random], int]] = {
    "1d6": lambda r: roll_die(r, 6),
    "1d20+5": lambda r: roll_die(r, 20) + 5,
    "2d6+3": lambda r: sum(dice_ref(r, 2, 6)) + 3,
    "3d6+2": lambda r: sum(dice_ref(r, 3, 6)) + 2,
    "2d20kh1": lambda r: max(dice_ref(r, 2, 20)),
    "2d20kl1-1": lambda r: min(dice_ref(r, 2, 20)) - 1,
    "4d6kh3": lambda r: sum(sorted(dice_ref(r, 4, 6))[1:]),
    "5d8kl2": lambda r: sum(sorted(dice_ref(r, 5, 8))[:2]),
    "3d6kh1": lambda r: max(dice_ref(r, 3, 6)),
    "-1d4+2": lambda r: 2 - roll_die(r, 4),
    "3d6-1d4": lambda r: sum(dice_ref(r, 3, 6)) - roll_die(r, 4),
    "2+1d8+1d6": lambda r: 2 + roll_die(r, 8) + roll_die(r, 6),
    "1d6!": lambda r: explode_ref(r, 6),
    "2d4!+1": lambda r: explode_ref(r, 4) + explode_ref(r, 4) + 1,
    "-2d20kh1+5": lambda r: 5 - max(dice_ref(r, 2, 20)),
}


class TestParseGood:
    """Valid notation compiles, and its canonical text is normalised."""

    @pytest.mark.parametrize(
        ("text", "canonical"),
        [
            ("1d6", "1d6"),
            ("d6", "1d6"),
            ("2D6+3", "2d6+3"),
            ("2d6 + 3", "2d6+3"),
            ("  2d6  -  3  ", "2d6-3"),
            ("d%", "1d100"),
            ("3d%", "3d100"),
            ("2d20kh1", "2d20kh1"),
            ("2D20KH1", "2d20kh1"),
            ("2d20Kl1", "2d20kl1"),
            ("4d6kh3", "4d6kh3"),
            ("1d6!", "1d6!"),
            ("d10!", "1d10!"),
            ("-1d4+2", "-1d4+2"),
            ("+5", "5"),
            ("7", "7"),
            ("-3", "-3"),
            ("007", "7"),
            ("2+1d8-1d6", "2+1d8-1d6"),
            ("1d1", "1d1"),
        ],
    )
    def test_canonical_text(self, text: str, canonical: str) -> None:
        """Each accepted spelling maps to one canonical text."""
        assert parse(text).text == canonical

    @pytest.mark.parametrize(("value", "text"), [(0, "0"), (5, "5"), (-3, "-3")])
    def test_int_is_constant(self, value: int, text: str) -> None:
        """An int parses to a constant with the same value."""
        dice = parse(value)
        assert (dice.text, dice.is_constant, dice.roll(random.Random(1))) == (text, True, value)

    def test_canonical_text_reparses_to_equal_dice(self) -> None:
        """Parsing the canonical text again gives an equal Dice."""
        for text in REFERENCE:
            assert parse(parse(text).text) == parse(text)

    def test_equality_hash_repr(self) -> None:
        """Dice compare, hash and print by canonical text."""
        a, b = parse("2D6 + 3"), parse("2d6+3")
        assert a == b
        assert hash(a) == hash(b)
        assert len({a, b, parse("2d6+4")}) == 2
        assert repr(a) == "Dice('2d6+3')"
        assert str(a) == "2d6+3"
        assert a != parse("3+2d6")  # syntactic equality, not "same distribution"

    def test_pickle_round_trip(self) -> None:
        """A pickled Dice comes back equal and rolls the same sequence."""
        dice = parse("4d6kh3+1")
        clone = pickle.loads(pickle.dumps(dice))
        assert clone == dice
        assert clone.roll(random.Random(9)) == dice.roll(random.Random(9))

    def test_frozen(self) -> None:
        """A Dice cannot be mutated."""
        dice = parse("1d6")
        with pytest.raises(AttributeError):
            dice.text = "1d8"  # type: ignore[misc]


class TestParseBad:
    """Every malformed or over-limit input raises DiceError with a clear message."""

    @pytest.mark.parametrize(
        "text",
        [
            "",
            "   ",
            "1d",
            "d",
            "2d6+",
            "1d6++2",
            "3x4",
            "1d0",
            "0d6",
            "d0",
            "-",
            "+",
            "--1d6",
            "1d6 2",
            "2 d6",
            "1d6+ -2",
            "4d6kh",
            "4d6k3",
            "4d6kh0",
            "2d6kh3",
            "2d6kl3",
            "1d6!kh1",
            "1d6!!",
            "1d1!",
            "1.5",
            "1d6.5",
            "d%%",
            "1d6*2",
            "(1d6)",
            "\u0661d6",  # an Arabic-Indic digit: int() would accept it, the notation does not
            "4d6\u212ah3",  # KELVIN SIGN: a Unicode case-insensitive match would take it for k
            f"{MAX_DICE + 1}d6",
            f"1d{MAX_SIDES + 1}",
            "+".join(["1"] * (MAX_TERMS + 1)),
            "1d6+" + "9" * (MAX_TEXT_LENGTH - 3),
        ],
    )
    def test_rejected_text(self, text: str) -> None:
        """The text raises DiceError and the message quotes the notation rule."""
        with pytest.raises(DiceError, match=r"must be dice notation like '1d6\+2' \(got '"):
            parse(text)

    @pytest.mark.parametrize("value", [True, False, 1.5, 2.0, None, [1], b"1d6"])
    def test_rejected_types(self, value: object) -> None:
        """Bools, floats, None and other types are refused (True is an int in Python)."""
        with pytest.raises(DiceError, match=type(value).__name__):
            parse(value)  # type: ignore[arg-type]

    @pytest.mark.parametrize("value", [True, 1.0, "3", None])
    def test_constant_rejects_non_int(self, value: object) -> None:
        """constant() accepts only a real int."""
        with pytest.raises(DiceError):
            constant(value)  # type: ignore[arg-type]

    @pytest.mark.parametrize(
        ("text", "fragment"),
        [
            ("1d", "'1d' is not a number or a dice term"),
            ("2d6+", "after '+' at the end"),
            ("1d6++2", "at column 5, found '+'"),
            ("1d0", "at least 1 side"),
            ("0d6", "at least 1 die"),
            ("1001d6", "at most 1000 dice"),
            ("1d1001", "at most 1000 sides"),
            ("2d20kh3", "keep between 1 and 2"),
            ("1d1!", "at least 2 sides"),
            ("", "empty"),
            ("1d6" + "+1" * MAX_TERMS, f"more than {MAX_TERMS} terms"),
            ("1" * (MAX_TEXT_LENGTH + 1), f"longer than {MAX_TEXT_LENGTH}"),
        ],
    )
    def test_message_names_the_problem(self, text: str, fragment: str) -> None:
        """The message says what is wrong, not just that something is."""
        with pytest.raises(DiceError, match=fragment.replace("+", r"\+")):
            parse(text)

    def test_dice_error_is_an_input_and_value_error(self) -> None:
        """Callers may catch DiceError as InputError or ValueError."""
        with pytest.raises(InputError):
            parse("1d")
        with pytest.raises(ValueError, match="1d"):
            parse("1d")


class TestLimits:
    """The limits accept their boundary value and reject one past it."""

    @pytest.mark.parametrize(
        "text",
        [
            f"{MAX_DICE}d6",
            f"1d{MAX_SIDES}",
            f"{MAX_DICE}d{MAX_SIDES}kh{MAX_DICE}",
            "+".join(["1"] * MAX_TERMS),
            "1d6+" + "9" * (MAX_TEXT_LENGTH - 4),
        ],
    )
    def test_boundary_accepted(self, text: str) -> None:
        """Exactly at a limit still parses."""
        assert parse(text).max >= parse(text).min

    def test_limit_values(self) -> None:
        """The limits are the documented ones."""
        assert (MAX_DICE, MAX_SIDES, MAX_TERMS, MAX_TEXT_LENGTH, MAX_EXPLOSIONS) == (
            1000,
            1000,
            50,
            200,
            100,
        )

    @pytest.mark.parametrize("text", ["1000d1000", "1000d6", "200d20kh100", "6d20!"])
    def test_distribution_too_big(self, text: str) -> None:
        """distribution() refuses expressions too big to enumerate, naming them."""
        with pytest.raises(DiceError, match="too big"):
            parse(text).distribution()


class TestStatistics:
    """min, max and the exact mean."""

    @pytest.mark.parametrize(
        ("text", "low", "high", "mean"),
        [
            ("1d6", 1, 6, Fraction(7, 2)),
            ("2d6+3", 5, 15, Fraction(10)),
            ("d%", 1, 100, Fraction(101, 2)),
            ("2d20kh1", 1, 20, Fraction(553, 40)),
            ("2d20kl1", 1, 20, Fraction(287, 40)),
            ("4d6kh3", 3, 18, Fraction(15869, 1296)),
            ("3d6-1d4", -1, 17, Fraction(8)),
            ("-1d4+2", -2, 1, Fraction(-1, 2)),
            ("7", 7, 7, Fraction(7)),
            (
                "1d6!",
                1,
                6 * (MAX_EXPLOSIONS + 1),
                Fraction(7, 2) * sum(Fraction(1, 6**j) for j in range(101)),
            ),
        ],
    )
    def test_min_max_mean(self, text: str, low: int, high: int, mean: Fraction) -> None:
        """The bounds and the exact mean match hand-computed values."""
        dice = parse(text)
        assert (dice.min, dice.max, dice.mean_fraction) == (low, high, mean)
        assert dice.mean == float(mean)

    @pytest.mark.parametrize(
        "text", ["7d6kh5", "7d6kh2", "7d6kl5", "7d6kl2", "5d10kh4-2", "3d8kh3", "6d4kl1"]
    )
    def test_keep_mean_matches_distribution(self, text: str) -> None:
        """The closed-form keep mean (both the direct and the complement route) matches the DP."""
        dice = parse(text)
        from_distribution = sum(value * p for value, p in dice.distribution().items())
        assert dice.mean_fraction == from_distribution

    def test_is_constant(self) -> None:
        """Only expressions without dice are constant; a d1 still counts as a die."""
        assert parse("3+4").is_constant
        assert constant(-2).is_constant
        assert not parse("1d1").is_constant
        assert not parse("1d6+0").is_constant


class TestDistribution:
    """distribution() is exact: it equals icepool's for the same expression."""

    @pytest.mark.parametrize(
        ("text", "die"),
        [
            ("1d6", icepool.d6),
            ("2d6+3", (2 @ icepool.d6) + 3),
            ("1d20", icepool.d20),
            ("2d20kh1", icepool.d20.highest(2, 1)),
            ("2d20kl1", icepool.d20.lowest(2, 1)),
            ("3d6-1d4", (3 @ icepool.d6) - icepool.d4),
            ("d%", icepool.d100),
            ("4d6kh3", icepool.d6.highest(4, 3)),
            ("6d8kl2+1", icepool.d8.lowest(6, 2) + 1),
            ("5d10kh4-1d6", icepool.d10.highest(5, 4) - icepool.d6),
            ("-1d4+2", 2 - icepool.d4),
            ("1d6!", icepool.d6.explode(depth=MAX_EXPLOSIONS)),
            ("2d4!", 2 @ icepool.d4.explode(depth=MAX_EXPLOSIONS)),
        ],
    )
    def test_matches_icepool(self, text: str, die: icepool.Die) -> None:
        """Every total has exactly icepool's probability, and values come sorted."""
        distribution = parse(text).distribution()
        assert distribution == exact(die)
        assert list(distribution) == sorted(distribution)

    def test_constant(self) -> None:
        """A constant has one outcome with probability 1."""
        assert constant(7).distribution() == {7: Fraction(1)}

    def test_returns_a_fresh_dict(self) -> None:
        """Mutating a returned distribution does not corrupt the next call."""
        dice = parse("2d6")
        dice.distribution()[7] = Fraction(0)
        assert dice.distribution()[7] == Fraction(1, 6)


class TestSampling:
    """roll() and roll_dice() draw from the given rng, reproducibly, with the exact law."""

    @pytest.mark.parametrize("text", ["2d20kh1", "3d6+2"])
    def test_frequencies_match_distribution(self, text: str) -> None:
        """200k rolls land within 4 standard errors of the exact probability of every total."""
        dice, rng, n = parse(text), random.Random(20240601), 200_000
        counts = Counter(dice.roll(rng) for _ in range(n))
        assert_frequencies(counts, dice.distribution(), n)

    @pytest.mark.parametrize("text", ["1d6!", "2d4!+1"])
    def test_exploding_frequencies_match_distribution(self, text: str) -> None:
        """Exploding dice sample the truncated distribution distribution() reports."""
        dice, rng, n = parse(text), random.Random(77), 40_000
        counts = Counter(dice.roll(rng) for _ in range(n))
        assert_frequencies(counts, dice.distribution(), n)

    @pytest.mark.parametrize("text", list(REFERENCE))
    def test_roll_matches_reference(self, text: str) -> None:
        """The compiled sampler equals a naive roll_die implementation draw for draw."""
        dice = parse(text)
        for seed in range(100):
            assert dice.roll(random.Random(seed)) == REFERENCE[text](random.Random(seed)), seed

    @pytest.mark.parametrize("text", list(REFERENCE))
    def test_roll_dice_total_and_draws_match_roll(self, text: str) -> None:
        """roll_dice gives roll's total and leaves the rng exactly where roll leaves it."""
        dice = parse(text)
        for seed in range(100):
            fast, detailed = random.Random(seed), random.Random(seed)
            total = dice.roll(fast)
            assert dice.roll_dice(detailed)[0] == total
            assert fast.getstate() == detailed.getstate()

    @pytest.mark.parametrize(
        ("text", "count", "total_of"),
        [
            ("2d6+3", 2, lambda n: sum(n) + 3),
            ("4d6kh3", 4, lambda n: sum(sorted(n)[1:])),
            ("2d20kl1", 2, min),
            ("3d6-1d4", 4, lambda n: sum(n[:3]) - n[3]),
            ("5", 0, lambda n: 5),
        ],
    )
    def test_roll_dice_naturals(
        self, text: str, count: int, total_of: Callable[[tuple[int, ...]], int]
    ) -> None:
        """roll_dice returns every natural die, dropped ones included, consistent with the total."""
        dice, rng = parse(text), random.Random(3)
        for _ in range(300):
            total, naturals = dice.roll_dice(rng)
            assert len(naturals) == count
            assert total == total_of(naturals)

    def test_roll_dice_exploding_naturals(self) -> None:
        """An exploding die lists each roll; every roll but the last shows the top face."""
        dice, rng = parse("1d4!"), random.Random(5)
        lengths = set()
        for _ in range(2000):
            total, naturals = dice.roll_dice(rng)
            assert total == sum(naturals)
            assert all(face == 4 for face in naturals[:-1])
            assert naturals[-1] != 4
            lengths.add(len(naturals))
        assert {1, 2, 3} <= lengths

    def test_explosion_cap(self) -> None:
        """A die that always shows its top face stops after MAX_EXPLOSIONS extra rolls."""
        dice, top = parse("1d6!"), Fixed(0.9999999999)
        total, naturals = dice.roll_dice(top)
        assert naturals == (6,) * (MAX_EXPLOSIONS + 1)
        assert total == dice.roll(top) == dice.max == 6 * (MAX_EXPLOSIONS + 1)

    def test_same_seed_same_sequence(self) -> None:
        """Two rngs with one seed give one sequence; another seed gives another."""
        dice = parse("1d20+1d6")
        first, second, other = random.Random(11), random.Random(11), random.Random(12)
        sequence = [dice.roll(first) for _ in range(50)]
        assert sequence == [dice.roll(second) for _ in range(50)]
        assert sequence != [dice.roll(other) for _ in range(50)]

    def test_global_random_untouched(self) -> None:
        """Samplers never draw from the module-level random generator."""
        random.seed(123)
        before = random.getstate()
        rng = random.Random(1)
        for text in REFERENCE:
            parse(text).roll(rng)
            parse(text).roll_dice(rng)
        assert random.getstate() == before

    @pytest.mark.parametrize(
        "text",
        ["1d6", "1d20+5", "2d6+3", "3d6+2", "2d20kh1", "2d20kl1-1", "4d6kh3", "5d8kl2", "-1d4+2"],
    )
    def test_extremes_reachable(self, text: str) -> None:
        """Pinned rngs (every die 1, every die top) reach exactly min and max."""
        dice = parse(text)
        low, high = dice.roll(Fixed(0.0)), dice.roll(Fixed(0.9999999999))
        assert sorted((low, high)) == [dice.min, dice.max]


class TestRollDie:
    """roll_die is a uniform 1..sides from rng.random()."""

    @pytest.mark.parametrize(
        ("value", "sides", "face"),
        [(0.0, 6, 1), (0.9999999999999999, 6, 6), (0.5, 6, 4), (0.5, 20, 11), (0.3, 1, 1)],
    )
    def test_formula(self, value: float, sides: int, face: int) -> None:
        """The face is int(random() * sides) + 1."""
        assert roll_die(Fixed(value), sides) == face

    def test_covers_every_face(self) -> None:
        """A d8 shows each face 1..8 and nothing else."""
        rng = random.Random(8)
        assert {roll_die(rng, 8) for _ in range(500)} == set(range(1, 9))


def test_dice_is_built_by_parse() -> None:
    """parse and constant return Dice instances."""
    assert isinstance(parse("1d6"), Dice)
    assert isinstance(constant(1), Dice)
