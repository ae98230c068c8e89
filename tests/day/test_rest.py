"""Rests and carry-over (rules §7): each kind of rest, and what a member hands over to a fight."""

from __future__ import annotations

import math
import random
from collections import Counter

import pytest

from sim import dice
from sim.day.rest import REST_KINDS, Member, rest
from sim.engine.state import BROKEN, Fighter
from sim.model import Tactics
from tests.builders import battle, d100, fighter, scenario, side


def member(level: int = 2, **fields) -> Member:
    m = Member("M", level, max_psy=fields.pop("max_psy", 10), max_heroism=fields.pop("max_heroism", 2))
    m.max_hp = fields.pop("max_hp", 100)
    for key, value in fields.items():
        setattr(m, key, value)
    return m


class TestRestArithmetic:
    """One hour of each kind of rest, against its exact distribution (rules §7)."""

    @pytest.mark.parametrize(("kind", "faces"), [
        ("quick", [1, 2, 3, 4]), ("calm", [1, 2, 3, 4, 5, 6]), ("good", [1, 2, 3, 4, 5, 6]),
        ("intensive", [a + b for a in range(1, 9) for b in range(1, 9)]),
    ])
    def test_hp_per_hour_is_dice_plus_level(self, kind, faces):
        """HP healed in one hour is the kind's dice + level, within 4 standard errors per value."""
        level, n = 3, 6000
        rng = random.Random(7)
        seen = Counter()
        for _ in range(n):
            m = member(level, hp=1)
            rest(m, kind, 1, rng)
            seen[m.hp] += 1
        exact = Counter(1 + f + level for f in faces)
        assert set(seen) <= set(exact)
        for value, ways in exact.items():
            p = ways / len(faces)
            assert abs(seen[value] / n - p) <= 4 * math.sqrt(p * (1 - p) / n), (kind, value)

    def test_never_above_max(self):
        """Healing stops at maximum HP, whatever the dice."""
        m = member(hp=98, max_hp=100)
        rest(m, "intensive", 5, random.Random(1))
        assert m.hp == 100

    @pytest.mark.parametrize(("kind", "per_level"),
                             [("quick", 0), ("calm", 1), ("good", 2), ("intensive", 3)])
    def test_unhealable_recovery(self, kind, per_level):
        """Per hour: calm 1 x level unhealable HP, good 2 x, intensive 3 x, quick none;
        ordinary healing stops below them, then what is recovered is healed on top."""
        m = member(level=2, hp=68, max_hp=100, unhealable=30)  # 2 below the ceiling of 70
        rest(m, kind, 1, random.Random(3))
        back = per_level * 2
        assert m.unhealable == 30 - back
        assert m.hp == 70 + back  # healing stopped at 70, the recovered HP came on top

    @pytest.mark.parametrize(("kind", "faces"), [
        ("good", [1, 2, 3, 4, 5, 6]), ("intensive", [a + b for a in range(1, 9) for b in range(1, 9)])])
    def test_rest_dice_heal_unhealable(self, kind, faces):
        """unhealable_recovery: rest_dice (the rest list's reading): a good or intensive rest's
        dice + level heal unhealable HP too, and there is no rate by level: from 68 HP of
        100 with 30 unhealable, an hour heals f + 2 HP and f of the unhealable ones."""
        n, rng, seen = 6000, random.Random(5), Counter()
        for _ in range(n):
            m = member(level=2, hp=68, max_hp=100, unhealable=30)
            rest(m, kind, 1, rng, rest_dice=True)
            seen[(m.hp, m.unhealable)] += 1
        exact = Counter((68 + f + 2, 30 - f) for f in faces)
        assert set(seen) <= set(exact)
        for value, ways in exact.items():
            p = ways / len(faces)
            assert abs(seen[value] / n - p) <= 4 * math.sqrt(p * (1 - p) / n), (kind, value)

    @pytest.mark.parametrize("kind", ["quick", "calm"])
    def test_rest_dice_other_rests_give_nothing_back(self, kind):
        """unhealable_recovery: rest_dice: quick and calm rests heal up to the unhealable HP
        and give none of them back (the rate of a calm rest by level is the Convention's)."""
        m = member(level=2, hp=60, max_hp=100, unhealable=30)
        rest(m, kind, 10, random.Random(3), rest_dice=True)
        assert m.hp == 70 and m.unhealable == 30

    def test_ordinary_healing_stops_below_unhealable(self):
        """A member with unhealable HP cannot be healed into them by a quick rest."""
        m = member(level=2, hp=60, max_hp=100, unhealable=30)
        rest(m, "quick", 10, random.Random(3))
        assert m.hp == 70 and m.unhealable == 30

    @pytest.mark.parametrize(("kind", "psy", "fatigue"), [("quick", 1, 5), ("calm", 3, 4),
                                                          ("good", 3, 3), ("intensive", 3, 2)])
    def test_psy_and_fatigue_per_hour(self, kind, psy, fatigue):
        """PSY: 1 x level an hour, half (rounded down) on a quick rest; fatigue -1/-2/-3, none quick."""
        m = member(level=3, hp=100, psy=0, fatigue=5)
        rest(m, kind, 1, random.Random(2))
        assert (m.psy, m.fatigue) == (psy, fatigue)

    @pytest.mark.parametrize("kind", ["calm", "good", "intensive"])
    def test_fatigue_never_below_what_the_load_gives(self, kind):
        """Fatigue from a load over carrying capacity (rules §3, d100) lasts while the load is
        carried: a rest takes off the fatigue of the fight, not the load's."""
        m = member(level=3, hp=100, fatigue=5, load_fatigue=2)
        rest(m, kind, 8, random.Random(2))
        assert m.fatigue == 2

    def test_psy_never_above_max(self):
        m = member(level=3, hp=100, psy=9, max_psy=10)
        rest(m, "good", 4, random.Random(2))
        assert m.psy == 10

    def test_heroism_back_after_eight_hours_in_one_go(self):
        """Heroism dice come back after a rest of 8 hours or more, not after shorter ones."""
        short, long = member(heroism=0), member(heroism=0)
        rest(short, "good", 7, random.Random(1))
        rest(long, "good", 8, random.Random(1))
        assert (short.heroism, long.heroism) == (0, 2)

    def test_morale_token_per_rest(self):
        """Each rest of an hour or more gives one morale token (and ends despair)."""
        m = member(hp=100, morale=0, despairing=True)
        rest(m, "quick", 3, random.Random(1))
        assert (m.morale, m.despairing) == (1, False)

    @pytest.mark.parametrize(("kind", "cured"), [("quick", False), ("calm", False), ("good", True),
                                                 ("intensive", True)])
    def test_weakness_until_good_or_intensive_rest(self, kind, cured):
        """Serious-wound weakness lasts until a good or intensive rest."""
        m = member(hp=50, weakened=True)
        rest(m, kind, 1, random.Random(1))
        assert m.weakened is not cured

    @pytest.mark.parametrize("rules", ["d100", "2d10", "d10"])
    @pytest.mark.parametrize("kind", ["quick", "calm", "good", "intensive"])
    def test_a_member_at_0_hp_is_beyond_rest(self, rules, kind):
        """Rules §7 (seed 002: "la médecine conventionnelle ne peut plus rien pour lui"): a
        rest gives a member at 0 HP no HP, unhealable ones included, and leaves it down; its
        PSY still comes back."""
        m = member(hp=0, status="unconscious", rules=rules, psy=0, unhealable=5)
        fields = rest(m, kind, 6, random.Random(1))
        assert (m.hp, m.status, m.unhealable) == (0, "unconscious", 5)
        assert fields["hp_after"] == 0 and m.psy > 0

    def test_a_member_at_1_hp_heals(self):
        """The edge of the rule: 1 HP is not 0; the rest heals it as anyone."""
        m = member(hp=1, rules="d100")
        rest(m, "calm", 1, random.Random(1))
        assert m.hp > 1

    @pytest.mark.parametrize("rules", ["d100", "2d10", "d10"])
    def test_rest_revives_wakes_a_member_at_0_hp_with_the_first_hp(self, rules):
        """A day's ``rest_revives: true`` (the other reading): the first HP a rest gives wake
        a stabilised member."""
        m = member(hp=0, status="unconscious", rules=rules)
        rest(m, "quick", 1, random.Random(1), revives=True)
        assert m.hp > 0 and m.status == "active"

    def test_rest_kinds_are_the_four_of_rules_7(self):
        assert set(REST_KINDS) == {"quick", "calm", "good", "intensive"}


class TestHandOver:
    """Member.take_back and hand_over: what a fighter leaves one fight with, the next gets."""

    def fighters(self, morale: bool = False):
        spec = scenario(side("h", fighter("A", hp=30), party=True), side("m", fighter("M")),
                        **({"morale_on": True} if morale else {}))
        return battle(spec).fighters[0], battle(spec, seed=2).fighters[0]

    def test_pools_carry(self):
        """PSY, unhealable HP, fatigue, heroism and weakness carry into the next fight."""
        before, after = self.fighters()
        before.hp, before.psy, before.unhealable, before.fatigue = 12, 3, 5, 2
        before.heroism, before.weakened = 1, True
        m = member()
        m.take_back(before)
        m.hand_over(after)
        assert (after.hp, after.psy, after.unhealable, after.fatigue, after.heroism, after.weakened) == (
            12, 3, 5, 2, 1, True)

    def test_load_fatigue_is_taken_back(self):
        """A d100 fighter over its carrying capacity (force 40: 40 kg; 46 kg is 2 started 5 kg)
        leaves the fight with the load's fatigue noted, the floor of its rests (rules §3, 7)."""
        spec = d100(side("h", fighter("A", hp=30, characteristics={"force": 40}, load=46),
                         party=True), side("m", fighter("M")))
        a = battle(spec).fighters[0]
        m = member()
        m.take_back(a)
        assert m.load_fatigue == 2

    def test_effects_end_with_the_battle(self):
        """A burning, poisoned or drowning effect ends with the battle: none is handed over."""
        before, after = self.fighters()
        before.effects.append(object())  # an ongoing effect still running at the end
        m = member()
        m.take_back(before)
        m.hand_over(after)
        assert after.effects == []

    def test_morale_tokens_carry(self):
        """Morale tokens belong to the game: the next fight starts with what the last left."""
        before, after = self.fighters(morale=True)
        before.morale, after.morale = 2, 9
        m = member()
        m.take_back(before)
        m.hand_over(after)
        assert after.morale == 2

    def test_stabilised_at_zero_after_a_won_fight(self):
        """An unconscious member at 0 HP is stabilised: it enters the next fight unconscious."""
        before, after = self.fighters()
        before.hp, before.status, before.able = 0, "unconscious", False
        m = member()
        m.take_back(before)
        assert (m.hp, m.status) == (0, "unconscious")
        m.hand_over(after)
        assert (after.hp, after.status, after.able) == (0, "unconscious", False)

    def test_a_serious_wound_still_out_at_the_end_wakes_weakened(self):
        """Serious wound (rules §3, 7): knocked out with HP left when a won fight ends, the member
        wakes after it, weakened until a good or intensive rest, as it would have in the fight."""
        before, after = self.fighters()
        before.hp, before.status, before.able = 9, "unconscious", False
        m = member()
        m.take_back(before)
        assert (m.hp, m.status, m.weakened) == (9, "active", True)
        m.hand_over(after)
        assert (after.status, after.able, after.weakened) == ("active", True, True)
        rest(m, "calm", 1, random.Random(1))
        assert m.weakened
        rest(m, "good", 1, random.Random(1))
        assert not m.weakened

    def test_a_broken_mind_carries_its_cause(self):
        """A mind broken in an earlier fight enters the next one broken, out of the fight, and
        keeps its cause (terror): it dies of it if its side loses (rules §3, 5)."""
        m = member(hp=30, status=BROKEN, cause="terror")
        spec = fighter("M")
        f = Fighter(spec, side("heroes", spec, party=True), 0, 30, 0.0)
        m.hand_over(f)
        assert (f.status, f.able, f.cause) == (BROKEN, False, "terror")


def d20_member(hit_dice: str = "3d8+3", **fields) -> Member:
    """A d20 party member (seed 003's rests) with 30 HP at most, 2 heroism dice."""
    m = Member("M", 2, max_psy=0, max_heroism=2, rules="d20", hit_dice=dice.parse(hit_dice),
               reroll=fields.pop("reroll", "below_mean"), hardy=fields.pop("hardy", False))
    m.max_hp = fields.pop("max_hp", 30)
    for key, value in fields.items():
        setattr(m, key, value)
    return m


def assert_matches(seen: Counter, exact: dict, n: int) -> None:
    """Every value's share within 4 standard errors of its exact probability."""
    assert set(seen) <= set(exact)
    for value, p in exact.items():
        p = float(p)
        assert abs(seen[value] / n - p) <= 4 * math.sqrt(p * (1 - p) / n) + 1e-12, value


class TestRestPerSystem:
    """Rests follow each system's own seed (rules §7): d20 by seed 003, the others by 002."""

    @pytest.mark.parametrize("kind", ["quick", "calm", "good", "intensive"])
    def test_rest_d20_heals_nothing_by_the_hour(self, kind):
        """d20: no healing by the hour, however long a short rest lasts."""
        m = d20_member(hp=7, heroism=0)
        fields = rest(m, kind, 7, random.Random(1))
        assert (m.hp, m.max_hp, m.heroism) == (7, 30, 0)
        assert fields["hp_after"] == 7

    def test_rest_d20_long_rest_rerolls_hit_dice_below_mean(self):
        """After 8 hours in one go, HP below the mean of the hit dice (16.5 for 3d8+3) are
        re-rolled: HP and their maximum follow the roll's exact distribution; heroism is back."""
        n, rng, seen = 6000, random.Random(5), Counter()
        for _ in range(n):
            m = d20_member(hp=16, heroism=0)
            rest(m, "calm", 8, rng)
            assert m.max_hp == m.hp and m.heroism == 2
            seen[m.hp] += 1
        assert_matches(seen, dice.parse("3d8+3").distribution(), n)

    @pytest.mark.parametrize(("policy", "hp", "rerolled"), [
        ("below_mean", 103, False), ("below_mean", 102, True), ("always", 110, True),
        ("never", 0, False)])
    def test_rest_d20_reroll_policy(self, policy, hp, rerolled):
        """tactics.reroll_hp: below_mean (the default) re-rolls HP under the mean only; always,
        never. Kept HP keep their maximum."""
        m = d20_member("1d4+100", hp=hp, max_hp=110, reroll=policy)
        fields = rest(m, "good", 8, random.Random(3))
        assert (m.max_hp < 110) is rerolled and (m.hp == m.max_hp) is rerolled
        assert ("hp_rolled" in fields) is rerolled

    @pytest.mark.parametrize(("hp", "rerolled"), [(7, False), (6, True)])
    def test_rest_d20_below_mean_keeps_hp_at_exactly_the_mean(self, hp, rerolled):
        """below_mean is strictly below: 2d6 has a mean of 7, which HP can equal; 7 HP are
        kept, 6 are re-rolled."""
        m = d20_member("2d6", hp=hp, max_hp=12, reroll="below_mean")
        fields = rest(m, "good", 8, random.Random(3))
        assert ("hp_rolled" in fields) is rerolled
        if not rerolled:
            assert (m.hp, m.max_hp) == (7, 12)

    def test_rest_d20_unconscious_member_rerolls_and_wakes(self):
        """d20 (seed 003) is unchanged by the 0 HP rule of rules §7: the 8-hour re-roll sets
        everyone's HP, the unconscious included."""
        m = d20_member(hp=0, status="unconscious")
        rest(m, "calm", 8, random.Random(2), revives=False)
        assert m.hp >= 6 and m.status == "active"

    def test_rest_d20_resistance_aspect_spends_a_heroism_die_for_1d6(self):
        """A resistance or healing aspect: one heroism die on the roll, +1d6 HP (1d4 + 1d6
        exactly); the die spent is not back for the fights to come."""
        n, rng, seen = 6000, random.Random(8), Counter()
        for _ in range(n):
            m = d20_member("1d4", hp=0, heroism=0, hardy=True)
            fields = rest(m, "calm", 8, rng)
            assert m.heroism == 1 and fields["heroism_spent"] == 1
            seen[m.hp] += 1
        assert_matches(seen, dice.parse("1d4+1d6").distribution(), n)

    def test_rest_d20_aspects_and_policy_read_from_the_stat_block(self):
        """Member.of: hardy from a resistance or healing aspect; reroll_hp member over side."""
        spec = fighter("A", hp=dice.parse("2d8"), aspects=("attack", "healing"),
                       tactics=Tactics(reroll_hp="always"))
        m = Member.of(spec, "d20", Tactics(reroll_hp="never"))
        assert (m.hardy, m.reroll, m.hit_dice.text, m.rules) == (True, "always", "2d8", "d20")
        plain = Member.of(fighter("B", aspects=("attack",)), "d20", Tactics())
        assert (plain.hardy, plain.reroll) == (False, "below_mean")

    @pytest.mark.parametrize(("level", "hours", "psy"), [(1, 4, 2), (1, 1, 0), (1, 3, 1), (3, 3, 4)])
    def test_rest_quick_psy_accumulates_over_the_rest(self, level, hours, psy):
        """d100, quick rest: level / 2 an hour summed over the rest, floor(hours x level / 2)."""
        m = member(level, hp=100, psy=0, max_psy=50)
        rest(m, "quick", hours, random.Random(1))
        assert m.psy == psy

    def test_rest_before_first_fight_gives_a_token(self):
        """A rest before the day's first fight counts: a ``rested`` event, and +1 token added
        to those the first fight rolls."""
        m = Member("A", 1, 0, 0)
        fields = rest(m, "quick", 1, random.Random(1))
        assert fields["fresh"] is True and fields["hp_after"] is None and m.tokens_due == 1
        spec = scenario(side("h", fighter("A", hp=30), party=True), side("m", fighter("M")),
                        morale_on=True)
        a = battle(spec).fighters[0]
        rolled = a.morale
        m.hand_over(a)
        assert a.morale == rolled + 1 and m.tokens_due == 0


class TestSocialCarries:
    """Social lost to fire carries from fight to fight of a day (rules §7)."""

    def test_social_lost_to_fire_carries(self):
        spec = d100(side("h", fighter("A", hp=30), party=True), side("m", fighter("M")))
        before, after = battle(spec).fighters[0], battle(spec, seed=2).fighters[0]
        before.social_lost = 7
        m = member()
        m.take_back(before)
        m.hand_over(after)
        assert after.social_lost == 7


class TestLeftBehindInADay:
    """Left behind is not dead (rules §5), but the member is no longer with the party: it takes
    no part in the day's later fights."""

    def test_left_behind_member_leaves_the_party(self):
        spec = scenario(side("h", fighter("A", hp=30), party=True), side("m", fighter("M")))
        fighter_ = battle(spec).fighters[0]
        fighter_.hp, fighter_.status = 0, "left_behind"
        m = member()
        m.take_back(fighter_)
        assert (m.status, m.alive, m.ever_down) == ("left_behind", False, True)
