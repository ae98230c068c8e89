"""The fighters as the solver sees them: fixed numbers read off the stat blocks (``Profile``),
and the start of a battle as a distribution of their changing state (``Local``).

A ``Local`` is a plain tuple (hashable, cheap): the fields below, by index.
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping

import attrs

from sim.dice import Dice, parse
from sim.model import INITIATIVE_GIFT, Combatant, Scenario, Side, Tactics, Weapon
from sim.odds.rolls import dice_dist
from sim.scenario.unused import morale_is_on

# Fields of a fighter's Local tuple.
HP, MAX, TOK, DESP, HERO, FAT, WEAK, KO, SKIP, DOWN = range(10)
NO_TOKENS = -1  # TOK of a fighter that holds no morale tokens
D100_CHARACTERISTIC = 50  # d100: a characteristic the stat block leaves out
QUALITY_CHARACTERISTIC = 5  # 2d10
OPEN_ATTRIBUTE = 3  # d10
DEFAULT_TOKENS = parse("2d6")

Local = tuple[int, ...]


@attrs.frozen
class Profile:
    """One fighter's fixed numbers, whatever the battle."""

    index: int
    spec: Combatant
    side: int
    party: bool
    holds_tokens: bool
    weapons: tuple[Weapon, ...]  # in order of preference
    fatigue_cap: int  # d100: fatigue past which no check it rolls changes any more
    policy: str  # its target policy: its own tactics, else its side's

    @property
    def name(self) -> str:
        return self.spec.name


def morale_on(scenario: Scenario) -> bool:
    """Whether morale tokens are played (rules §4): the scenario's own reading of its options."""
    return morale_is_on(scenario.rules, scenario.options)


def holds_tokens(scenario: Scenario, party: bool) -> bool:
    """rules §4: the party's members hold tokens; every side's without a party side, or with
    ``morale: {who: everyone}`` (the options' own rule)."""
    has_party = any(side.party for side in scenario.sides)
    return morale_on(scenario) and scenario.options.holds_tokens(party, has_party)


def tactics_of(c: Combatant, side: Side) -> Tactics:
    """The member's tactics, each key it leaves out taken from its side's (docs, scenario keys)."""
    return side.tactics if c.tactics is None else c.tactics.over(side.tactics)


def weapon_order(c: Combatant, tactics: Tactics) -> tuple[Weapon, ...]:
    """The weapons in order of preference (docs, scenario keys: ``tactics.weapons``, the
    member's or else its side's): the named ones first, then the rest by default: melee,
    thrown, then bows; listed order within."""
    def kind(w: Weapon) -> int:
        return 0 if w.range is None else 1 if w.thrown else 2
    rest = sorted(c.weapons, key=kind)  # sorted() keeps listed order within a kind
    names = tactics.weapons or ()
    first = [w for name in names for w in c.weapons if w.name == name]
    return tuple(first + [w for w in rest if w not in first])


def d100_score(c: Combatant, skill: str) -> int:
    """A d100 skill, or the characteristic it rests on (physique) minus 20 (rules §1)."""
    if skill in c.skills:
        return c.skills[skill]
    return characteristic(c, "physique", D100_CHARACTERISTIC) - 20


def characteristic(c: Combatant, name: str, default: int) -> int:
    values: Mapping[str, int] = c.characteristics
    return values.get(name, default)


def attack_skill(w: Weapon) -> str:
    """The skill an attack with ``w`` rolls in d100 and d10 (melee or ranged unless named)."""
    return w.skill or ("melee" if w.range is None else "ranged")


def physical_scores(c: Combatant) -> list[int]:
    """d100 scores that fatigue lowers: its attacks, its defense, its physique."""
    return ([d100_score(c, attack_skill(w)) for w in c.weapons]
            + [d100_score(c, "defense"), characteristic(c, "physique", D100_CHARACTERISTIC)])


def profiles(scenario: Scenario) -> tuple[Profile, ...]:
    out = []
    for s, side in enumerate(scenario.sides):
        for c in side.members:
            cap = 0
            if scenario.rules == "d100":
                cap = max(0, *(-(-score // 5) for score in physical_scores(c)))
            index = len(out)
            tactics = tactics_of(c, side)
            out.append(Profile(index, c, s, side.party, holds_tokens(scenario, side.party),
                               weapon_order(c, tactics), cap, tactics.policy))
    return tuple(out)


def initial_fatigue(scenario: Scenario, c: Combatant) -> int:
    """d100: over ``force / 2 + 20`` kg, each started 5 kg is one fatigue (rules §3)."""
    if scenario.rules != "d100" or c.load <= 0:
        return 0
    over = c.load - (characteristic(c, "force", D100_CHARACTERISTIC) / 2 + 20)
    return max(0, -int(-over // 5))


def _locals(scenario: Scenario, p: Profile) -> list[tuple[Local, float]]:
    """A fighter's possible starts: its HP (dice rolled per battle) and its tokens."""
    c = p.spec
    tokens: tuple[tuple[int, float], ...] = ((NO_TOKENS, 1.0),)
    if p.holds_tokens:
        tokens = dice_dist(c.morale or DEFAULT_TOKENS)
    fatigue = min(initial_fatigue(scenario, c), p.fatigue_cap)
    out = []
    for (hp, p_hp), (tok, p_tok) in itertools.product(_hp_dist(c.hp), tokens):
        out.append(((hp, hp, tok, 0, c.heroism,
                     fatigue, 0, 0, 0, 0), p_hp * p_tok))
    return out


def _hp_dist(hp: Dice) -> tuple[tuple[int, float], ...]:
    return tuple((max(v, 0), p) for v, p in dice_dist(hp))


def start(scenario: Scenario, fighters: tuple[Profile, ...]) -> dict[tuple[Local, ...], float]:
    """The distribution of the fighters' states when round 1 begins."""
    dist: dict[tuple[Local, ...], float] = {(): 1.0}
    for p in fighters:
        nxt: dict[tuple[Local, ...], float] = {}
        for state, q in dist.items():
            for local, r in _locals(scenario, p):
                key = (*state, local)
                nxt[key] = nxt.get(key, 0.0) + q * r
        dist = nxt
    return dist


def initiative_die(fighters: tuple[Profile, ...], state: tuple[Local, ...], rolling_side: int) -> int:
    """rules §2: 1d6, or 1d8 while a conscious member of the rolling side has the gift."""
    gifted = any(p.side == rolling_side and able(state[p.index]) and p.spec.has_gift(INITIATIVE_GIFT)
                 for p in fighters)
    return 8 if gifted else 6


def able(local: Local) -> bool:
    """Conscious: HP left and not knocked out by a serious wound."""
    return local[HP] > 0 and local[KO] == 0
