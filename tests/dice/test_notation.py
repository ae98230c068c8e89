"""Tests of sim.dice.notation: parsing, canonical text, errors and limits."""

from __future__ import annotations

import pickle
import random

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
)
from sim.errors import DiceError, InputError
from tests.dice.references import REFERENCE


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


def test_dice_is_built_by_parse() -> None:
    """parse and constant return Dice instances."""
    assert isinstance(parse("1d6"), Dice)
    assert isinstance(constant(1), Dice)
