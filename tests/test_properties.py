"""Properties that hold for every input, not for one seed (hypothesis; profiles in conftest.py).

Scenarios are generated as YAML text from the repository's bestiary, for every rule
system, and loaded through the real validator: what a user can write is what is tested.
"""

from __future__ import annotations

import json
import pathlib
import random
import re
from fractions import Fraction
from functools import cache

import icepool
import pytest
import yaml
from hypothesis import example, given
from hypothesis import strategies as st

from sim import dice
from sim.engine import Battle
from sim.engine.state import ACTIVE
from sim.errors import DiceError, ScenarioError
from sim.model import RULE_SYSTEMS
from sim.rules import CRITICAL_FAILURE, CRITICAL_SUCCESS, FAILURE, SUCCESS
from sim.rules.systems import system_for
from sim.scenario import load_scenario

REPO = pathlib.Path(__file__).resolve().parent.parent
BESTIARY = REPO / "bestiary"


# -- dice notation ----------------------------------------------------------------------------

def _term(count: int, sides: int, keep: tuple[str, int] | None) -> tuple[str, icepool.Die]:
    """A dice term's text and its law computed by icepool (an independent oracle)."""
    die = icepool.d(sides)
    if keep is None:
        return f"{count}d{sides}", count @ die
    how, kept = keep
    kept = min(kept, count)
    pool = icepool.Pool([die] * count)
    law = pool.highest(kept).sum() if how == "kh" else pool.lowest(kept).sum()
    return f"{count}d{sides}{how}{kept}", law


terms = st.builds(
    _term,
    st.integers(1, 4),
    st.sampled_from([2, 3, 4, 6, 8, 10, 12, 20]),
    st.none() | st.tuples(st.sampled_from(["kh", "kl"]), st.integers(1, 3)),
)


@st.composite
def expressions(draw) -> tuple[str, icepool.Die]:
    """A dice expression (terms and a constant joined by + and -) and its exact law."""
    text, law = draw(terms)
    for _ in range(draw(st.integers(0, 2))):
        more, more_law = draw(terms)
        if draw(st.booleans()):
            text, law = f"{text}+{more}", law + more_law
        else:
            text, law = f"{text}-{more}", law - more_law
    const = draw(st.integers(-5, 5))
    if const:
        text, law = f"{text}{const:+d}", law + const
    return text, law


@st.composite
def notation_texts(draw) -> str:
    """Valid dice notation as a GM may write it: spaces, a leading sign, ``d20`` for ``1d20``,
    ``d%``, upper case, exploding and keeping terms."""
    words = []
    for _ in range(draw(st.integers(1, 3))):
        count = draw(st.sampled_from(["", "1", "2", "3"]))
        sides = draw(st.sampled_from(["2", "4", "6", "10", "20", "%"]))
        suffix = draw(st.sampled_from(["", "!", f"kh{count or 1}", "kl1"]))
        word = draw(st.sampled_from([f"{count}d{sides}{suffix}", str(draw(st.integers(0, 9)))]))
        words.append(word.upper() if draw(st.booleans()) else word)
    space = draw(st.sampled_from(["", " ", "  "]))
    joined = words[0]
    for word in words[1:]:
        joined += f"{space}{draw(st.sampled_from('+-'))}{space}{word}"
    return draw(st.sampled_from(["", "-", "+"])) + joined


class TestDiceNotation:
    """Dice notation (rules §1 rolls, docs/reference/scenario.md notation) for any expression."""

    @given(expressions(), st.integers(0, 2**32))
    def test_roll_between_min_and_max(self, expression, seed: int) -> None:
        """Every roll of an expression lies in [min, max], the bounds of its exact law."""
        text, law = expression
        expr = dice.parse(text)
        rng = random.Random(seed)
        assert (expr.min, expr.max) == (law.min_outcome(), law.max_outcome())
        for _ in range(20):
            total, naturals = expr.roll_dice(rng)
            assert expr.min <= total <= expr.max
            assert expr.min <= expr.roll(rng) <= expr.max
            assert naturals and all(n >= 1 for n in naturals)

    @given(expressions())
    def test_exact_mean_and_distribution(self, expression) -> None:
        """The exact mean is the mean of the exact distribution, which is icepool's law."""
        text, law = expression
        expr = dice.parse(text)
        table = expr.distribution()
        assert sum(table.values()) == 1
        assert expr.mean_fraction == sum(value * p for value, p in table.items())
        assert table == {value: Fraction(law.probability(value)) for value in law.outcomes()
                         if law.probability(value) > 0}

    @given(st.sampled_from(["1d6!", "2d4!", "1d10!+2", "3d6!-1"]), st.integers(0, 2**32))
    def test_exploding_rolls_within_bounds(self, text: str, seed: int) -> None:
        """An exploding die never rolls below its minimum nor past its safety cap."""
        expr = dice.parse(text)
        rng = random.Random(seed)
        for _ in range(50):
            assert expr.min <= expr.roll(rng) <= expr.max

    @given(st.text(max_size=30) | notation_texts() | st.text(alphabet="0123456789dDkKhHlL%!+- ", max_size=12),
           st.integers(0, 2**32))
    def test_any_text_parses_or_says_why(self, text: str, seed: int) -> None:
        """Any text is either dice notation or a DiceError with a message, never a crash; what
        parses rolls within its bounds and its canonical text parses to the same dice."""
        try:
            expr = dice.parse(text)
        except DiceError as error:
            assert str(error)
        else:
            assert expr.min <= expr.roll(random.Random(seed)) <= expr.max
            again = dice.parse(expr.text)
            assert (again, again.min, again.max) == (expr, expr.min, expr.max)


# -- checks: every system's rule ----------------------------------------------------------------

def _d20_rule(e: dict) -> None:
    """d20: 1d20 (2d20 keep higher / lower); total = kept + modifier; success iff total > target;
    criticals on a natural 20 / 1 or a margin of 10 or more."""
    _kept_die(e, 20, higher_is_better=True)
    assert e["total"] == e["kept"] + e["modifier"]
    assert e["success"] is (e["total"] > e["target"])
    assert e["margin"] == e["total"] - e["target"]
    if e["success"]:
        critical = e["kept"] == 20 or e["margin"] >= 10
        assert e["degree"] == (CRITICAL_SUCCESS if critical else SUCCESS)
    else:
        critical = e["kept"] == 1 or e["margin"] <= -10
        assert e["degree"] == (CRITICAL_FAILURE if critical else FAILURE)


def _d100_rule(e: dict) -> None:
    """d100: roll under; 01-05 always a critical success, 96-100 always a critical failure."""
    _kept_die(e, 100, higher_is_better=False)
    roll = e["kept"]
    assert e["total"] == roll and e["margin"] == e["target"] - roll
    if roll <= 5:
        assert (e["degree"], e["success"]) == (CRITICAL_SUCCESS, True)
    elif roll >= 96:
        assert (e["degree"], e["success"]) == (CRITICAL_FAILURE, False)
    else:
        assert e["success"] is (roll <= e["target"])
        assert e["degree"] == (SUCCESS if e["success"] else FAILURE)


def _quality_rule(e: dict) -> None:
    """2d10: R = 2d10 (2d8 advantage, 2d12 disadvantage); Q = SR - R; success iff Q >= 0;
    Q < -7 a disaster, Q > 7 an exploit."""
    sides = {0: 10, 1: 8, -1: 12}[e["advantage"]]
    assert len(e["dice"]) == 2 and all(1 <= d <= sides for d in e["dice"])
    assert e["kept"] == e["total"] == sum(e["dice"])
    q = e["target"] - e["total"]
    assert e["margin"] == q and e["success"] is (q >= 0)
    expected = (CRITICAL_FAILURE if q < -7 else FAILURE if q < 0
                else SUCCESS if q <= 7 else CRITICAL_SUCCESS)
    assert e["degree"] == expected


def _chain_value(chain: list[int]) -> int:
    """open_d10 as rules §1 states it: 10 rolls again, 1 flips the sign and rolls again."""
    sign, total = 1, 0
    for i, die in enumerate(chain):
        total += sign * die
        last = i == len(chain) - 1
        if 2 <= die <= 9:
            assert last, chain  # a 2..9 ends the chain
        elif last:
            assert len(chain) == 100, chain  # only the safety cap ends on a 1 or a 10
        if die == 1:
            sign = -sign
    return total


def _open_d10_rule(e: dict) -> None:
    """d10: total = score + open d10; success iff total >= difficulty (a tie succeeds);
    a 10 in a successful chain is critical, a 1 in a failed one a critical failure."""
    chain = e["chain"]
    assert e["kept"] == _chain_value(chain)
    assert e["total"] == e["kept"] + e["modifier"]
    assert e["success"] is (e["total"] >= e["target"])
    assert e["margin"] == e["total"] - e["target"]
    if e["success"]:
        assert e["degree"] == (CRITICAL_SUCCESS if 10 in chain else SUCCESS)
    else:
        assert e["degree"] == (CRITICAL_FAILURE if 1 in chain else FAILURE)


def _kept_die(e: dict, sides: int, higher_is_better: bool) -> None:
    """One die, or two with (dis)advantage keeping the better (worse) one."""
    rolled = e["dice"]
    assert all(1 <= d <= sides for d in rolled)
    if e["advantage"] == 0:
        assert rolled == [e["kept"]]
        return
    better = max if higher_is_better else min
    worse = min if higher_is_better else max
    assert len(rolled) == 2
    assert e["kept"] == (better(rolled) if e["advantage"] > 0 else worse(rolled))


CHECK_RULES = {"d20": _d20_rule, "d100": _d100_rule, "2d10": _quality_rule, "d10": _open_d10_rule}


def obeys_its_rule(event: dict) -> None:
    CHECK_RULES[event["system"]](event)


# -- scenarios generated as YAML text from the bestiary -----------------------------------------

@cache
def entries(rules: str) -> dict[str, dict]:
    """A system's bestiary entries by name."""
    found: dict[str, dict] = {}
    for file in sorted((BESTIARY / rules).glob("*.yaml")):
        found.update(yaml.safe_load(file.read_text())["creatures"])
    assert found, f"no bestiary entries in {BESTIARY / rules}"
    return found


def creatures(rules: str) -> tuple[str, ...]:
    """Bestiary entries of a system; terror creatures only where spirit is on (else refused)."""
    return tuple(("terror:" if "terror" in entry else "") + name for name, entry in entries(rules).items())


@st.composite
def scenario_texts(draw, rules: str | None = None) -> tuple[str, str]:
    """A small valid scenario of any system: 2 or 3 sides of bestiary creatures, options."""
    rules = rules or draw(st.sampled_from(RULE_SYSTEMS))
    spirit = rules == "d20" and draw(st.booleans())
    pool = [n for n in creatures(rules) if spirit or not n.startswith("terror:")]
    count = draw(st.integers(2, 3))
    party = draw(st.integers(-1, count - 1))  # -1: no party side
    sides = []
    frightening = False  # a creature with terror outside the party: else spirit does nothing
    for i in range(count):
        members = []
        for j in range(draw(st.integers(1, 2))):
            # Terror frightens the party: a party member never carries it (refused).
            drawn = draw(st.sampled_from([n for n in pool if i != party or not n.startswith("terror:")]
                                         or pool))
            frightening = frightening or drawn.startswith("terror:")
            members.append({"use": drawn.removeprefix("terror:"), "name": f"s{i}m{j}"})
        sides.append({"name": f"side{i}", "party": i == party, "members": members})
    options: dict[str, object] = {"morale": draw(st.booleans())}
    if spirit and frightening:
        options["spirit"] = True
    largest = max(len(side["members"]) for side in sides)  # type: ignore[arg-type]
    if largest > 1 and draw(st.booleans()):  # flee_at x the largest side must exceed 1 (refused)
        options["flee_at"] = draw(st.sampled_from([0.75, 1.0]))
    if party >= 0 and draw(st.booleans()):  # destiny points with no party are refused
        options["destiny_points"] = draw(st.integers(0, 2))
    doc: dict[str, object] = {
        "name": "generated", "rules": rules, "max_rounds": draw(st.integers(1, 25)),
        "distance": draw(st.sampled_from([0, 0, 2, 2.5, 10, 40])), "options": options,
        "sides": sides,
    }
    if draw(st.booleans()):
        doc["surprise"] = f"side{draw(st.integers(0, count - 1))}"
    if draw(st.booleans()):
        doc["timeline"] = [{"round": draw(st.integers(1, min(3, doc["max_rounds"]))),
                            "do": draw(st.sampled_from(["ignite", "poison", "explode"])),
                            "side": f"side{draw(st.integers(0, count - 1))}"}]
    if rules == "d100" and draw(st.booleans()):
        doc["hazards"] = [{"kind": draw(st.sampled_from(["water", "smoke", "fire"])),
                           "members": ["s0m0"], "escape": draw(st.sampled_from(["move", "none"]))}]
    return rules, yaml.safe_dump(doc, sort_keys=False)


@st.composite
def unarmed_texts(draw) -> tuple[str, str]:
    """A scenario as above whose members hold no weapon and ride no mount (``KEY: null`` drops
    what the bestiary gives): the fights that end in a draw before max_rounds (a stalemate, or
    nobody left after a timeline explosion), which armed bestiary creatures never play."""
    rules, text = draw(scenario_texts())
    doc = yaml.safe_load(text)
    for side in doc["sides"]:
        for member in side["members"]:
            given = entries(rules)[member["use"]]  # dropping a key the entry lacks is refused
            member.update({key: None for key in ("weapons", "mount") if key in given})
    return rules, yaml.safe_dump(doc, sort_keys=False)


@pytest.fixture(scope="module")
def workdir(tmp_path_factory) -> pathlib.Path:
    """Where generated scenario files are written (module-scoped: hypothesis reuses it)."""
    return tmp_path_factory.mktemp("generated")


def load_text(workdir: pathlib.Path, text: str, name: str = "generated.yaml"):
    path = workdir / name
    path.write_text(text, encoding="utf-8")
    return load_scenario(path, (BESTIARY,))


def played(workdir: pathlib.Path, text: str, seed: int, log: bool = True) -> Battle:
    battle = Battle(load_text(workdir, text), seed, log)
    battle.run()
    return battle


seeds = st.integers(0, 2**63 - 1)


class TestChecks:
    """Every `check_rolled` obeys its system's rule (rules §1), for every system."""

    @given(st.sampled_from(RULE_SYSTEMS), seeds, st.integers(-100, 100), st.sampled_from([-1, 0, 1]),
           st.sampled_from(["physique", "force", "mental", "riding", "stealth", "melee", "defense"]))
    def test_check_obeys_its_system(self, workdir, rules, seed, modifier, advantage, what) -> None:
        """A check of any skill, modifier and advantage logs dice, total and degree by the rule."""
        battle = Battle(load_text(workdir, _duel(rules)), seed, log=True)
        battle._setup()
        hero = battle.fighters[0]
        result = system_for(rules).check(battle.table, hero, what, modifier, advantage)
        checks = [e for e in battle.log if e["event"] == "check_rolled"]
        assert checks, "a check logs check_rolled"
        for event in checks:
            obeys_its_rule(event)
        assert (result.success, result.degree) == (checks[-1]["success"], checks[-1]["degree"])

    @given(scenario_texts(), seeds)
    def test_checks_in_battle_obey_their_system(self, workdir, scenario, seed) -> None:
        """Every check rolled in a battle (attacks, defenses, hazards, morale) obeys its rule."""
        rules, text = scenario
        for event in played(workdir, text, seed).log:
            if event["event"] == "check_rolled":
                assert event["system"] == rules
                obeys_its_rule(event)


def _duel(rules: str) -> str:
    first = creatures(rules)[0].removeprefix("terror:")
    doc = {"name": "duel", "rules": rules, "sides": [
        {"name": "a", "party": True, "members": [{"use": first, "name": "A"}]},
        {"name": "b", "members": [{"use": first, "name": "B"}]}]}
    return yaml.safe_dump(doc)


# Two goblins without their weapons: nobody can change anything, so the battle stops at once.
UNARMED_DUEL = yaml.safe_dump({"name": "unarmed", "rules": "d20", "max_rounds": 5, "sides": [
    {"name": "a", "party": True, "members": [{"use": "goblin", "name": "A", "weapons": None}]},
    {"name": "b", "members": [{"use": "goblin", "name": "B", "weapons": None}]}]})


class TestBattles:
    """What every battle of every system keeps true (rules §2, §5)."""

    @given(scenario_texts(), seeds)
    def test_hp_stay_between_zero_and_max(self, workdir, scenario, seed) -> None:
        """HP never go below 0 nor above the maximum, after every event and at the end."""
        _, text = scenario
        battle = played(workdir, text, seed)
        max_hp = {f.name: f.max_hp for f in battle.fighters}
        for event in battle.log:
            for before_after in ("hp_before", "hp_after"):
                if before_after in event:
                    assert 0 <= event[before_after] <= max_hp[event["target"]], event
        assert all(0 <= f.hp <= f.max_hp for f in battle.fighters)

    @given(scenario_texts() | unarmed_texts(), seeds)
    @example(("d20", UNARMED_DUEL), 1)  # a stalemate: the draw before max_rounds, on every profile
    def test_battle_ends_within_max_rounds(self, workdir, scenario, seed) -> None:
        """A battle always ends, once, within max_rounds: a victory (only the winner has able
        members), or a draw (at max_rounds, or before it with nobody left or in a stalemate)."""
        _, text = scenario
        battle = played(workdir, text, seed)
        ends = [e for e in battle.log if e["event"] == "battle_ended"]
        assert ends == [battle.log[-1]]
        end = ends[0]
        assert 1 <= end["rounds"] <= battle.scenario.max_rounds
        able = {f.side for f in battle.fighters if f.counts and f.status == ACTIVE}
        if end["winner"] is not None:
            assert able <= {end["winner"]}
        elif end["rounds"] < battle.scenario.max_rounds and able:  # else nobody is left
            # A stalemate: nobody able holds a weapon or a potion, nothing burns or poisons.
            assert end["stopped"] == "stalemate"
            assert not any(f.effects or (f.status == ACTIVE and (f.spec.weapons or f.items))
                           for f in battle.fighters)

    @given(scenario_texts(), seeds)
    def test_same_seed_same_log(self, workdir, scenario, seed) -> None:
        """The same scenario and seed give the same log, and the same outcome with logs off."""
        _, text = scenario
        first, second = played(workdir, text, seed), played(workdir, text, seed)
        assert json.dumps(first.log) == json.dumps(second.log)
        quiet = played(workdir, text, seed, log=False)
        assert quiet._outcome() == first._outcome()


# -- scenarios from the schema: valid, or file:line:col problems ---------------------------------

PROBLEM = re.compile(r"^(?P<file>[^:]+):(?P<line>\d+):(?P<col>\d+): (?P<path>.+?): (?P<msg>.+)$")
KEYS = ["name", "rules", "max_rounds", "distance", "surprise", "options", "sides", "hazards",
        "timeline", "description", "members", "use", "count", "hp", "level", "armor", "weapons",
        "damage", "party", "tactics", "target", "morale", "flee_at", "kind", "round", "do",
        "characteristics", "skills", "defense", "range", "nmae"]
scalars = (st.integers(-10**6, 10**6) | st.floats(allow_nan=True) | st.booleans() | st.none()
           | st.sampled_from(["d20", "d100", "2d10", "d10", "1d6", "goblin", "heroes", "", "3d8+2",
                              "wolf", "random", "focus", "water", "explode", "1d0"])
           | st.text(max_size=8))
values = st.recursive(
    scalars,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.sampled_from(KEYS), inner,
                                                                max_size=4),
    max_leaves=12,
)


@st.composite
def schema_documents(draw) -> str:
    """YAML text shaped like a scenario: a valid one with keys replaced, removed or added."""
    _, text = draw(scenario_texts())
    doc = yaml.safe_load(text)
    for _ in range(draw(st.integers(1, 3))):
        node = doc
        while isinstance(node, dict | list) and node and draw(st.booleans()):
            key = draw(st.sampled_from(list(node) if isinstance(node, dict) else range(len(node))))
            child = node[key]
            if not isinstance(child, dict | list) or not child:
                break
            node = child
        action = draw(st.sampled_from(["set", "drop", "add"]))
        if isinstance(node, dict):
            key = draw(st.sampled_from(list(node) + KEYS))
            if action == "drop":
                node.pop(key, None)
            else:
                node[key] = draw(values)
        elif isinstance(node, list):
            if action == "drop" and node:
                node.pop()
            else:
                node.append(draw(values))
    return yaml.safe_dump(doc, sort_keys=False, allow_unicode=True)


class TestSchema:
    """Bad input never crashes: a scenario validates or every problem is file:line:col."""

    @given(schema_documents())
    def test_scenario_validates_or_points_at_the_problem(self, workdir, text: str) -> None:
        """A scenario generated from the schema either loads or raises ScenarioError whose
        problems are each `file:line:col: path: message`, within the file."""
        lines = text.count("\n") + 1
        try:
            load_text(workdir, text, "schema.yaml")
        except ScenarioError as error:
            assert error.problems
            for problem in error.problems:
                match = PROBLEM.match(str(problem))
                assert match, str(problem)
                assert match["file"].endswith("schema.yaml") or match["file"].endswith(".yaml")
                assert 0 <= int(match["line"]) <= lines and int(match["col"]) >= 0

    @given(st.text(st.characters(exclude_categories=("Cs",)), max_size=200))
    def test_any_text_validates_or_points_at_the_problem(self, workdir, text: str) -> None:
        """Any text at all, as a scenario file, gives a scenario or file:line:col problems."""
        try:
            load_text(workdir, text, "noise.yaml")
        except ScenarioError as error:
            assert error.problems
            assert all(PROBLEM.match(str(p)) for p in error.problems), error.problems
