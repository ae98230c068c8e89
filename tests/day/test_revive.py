"""A member at 0 HP is beyond rest (rules §7, seed 002: "la médecine conventionnelle ne peut
plus rien pour lui (en revanche, la magie reste une possibilité, parfois)"): in d100, 2d10 and
d10 it is carried along, alive and down, and takes no part in the day's fights until a potion
raises it; the party pours one between fights (``tactics: {revive: between_fights}``)."""

from __future__ import annotations

import random

from sim import dice
from sim.day.file import load_day
from sim.day.play import run_day
from sim.day.rest import Member
from sim.day.revive import revive_downed
from sim.model import Item
from tests.day_files import write_day

RAT = ("{name: foes, members: [{name: rat, hp: 8, skills: {melee: 60},"
       " weapons: [{name: bite, damage: 1d6, skill: melee}]}]}")


def day_text(frail_items: str = "", tactics: str = "", options: str = "", rules: str = "d100"
             ) -> str:
    """Frail (3 HP) falls often in the first fight; Tank wins it nearly always."""
    return f"""\
name: D
rules: {rules}
{options}
party:
  name: heroes
  {tactics}
  members:
    - {{name: Frail, hp: 3, skills: {{melee: 30}},
       weapons: [{{name: knife, damage: 1d4, skill: melee}}]{frail_items}}}
    - {{name: Tank, hp: 60, armor: 4, skills: {{melee: 80, defense: 50}},
       weapons: [{{name: sword, damage: 1d8+4, skill: melee}}]}}
steps:
  - encounter: {{name: One, sides: [{RAT}]}}
  - rest: {{kind: calm, hours: 2}}
  - encounter: {{name: Two, sides: [{RAT}]}}
"""


def fallen_days(tmp_path, text: str, seeds: range = range(120)):
    """(seed, events) of the days whose first fight the party won with Frail left at 0 HP."""
    day = load_day(write_day(tmp_path, text))
    found = []
    for seed in seeds:
        outcome, events = run_day(day, seed, log=True)
        first_end = next(i for i, e in enumerate(events) if e["event"] == "encounter_ended")
        ended = events[first_end]
        frail = _frail_at_end(events[:first_end])
        if ended["winner"] == "heroes" and frail == 0:
            found.append((seed, events, outcome))
    assert len(found) >= 10  # the case the tests are about happens, often
    return found


def _frail_at_end(events: list[dict]) -> int:
    hp = next(c["hp"] for e in events if e["event"] == "battle_started"
              for c in e["combatants"] if c["name"] == "Frail")
    for e in events:
        if e.get("target") == "Frail" and "hp_after" in e:
            hp = e["hp_after"]
    return hp


def _second_fight(events: list[dict]) -> list[str]:
    starts = [e for e in events if e["event"] == "battle_started"]
    return [c["name"] for c in starts[1]["combatants"]] if len(starts) > 1 else []


class TestBeyondRest:
    """Without magic, a member at 0 HP stays down and out of the fights."""

    def test_a_member_at_0_hp_takes_no_part_in_later_fights(self, tmp_path):
        for seed, events, _ in fallen_days(tmp_path, day_text()):
            rested = next(e for e in events if e["event"] == "rested" and e["actor"] == "Frail")
            assert (rested["hp_before"], rested["hp_after"]) == (0, 0), seed
            second = [e for e in events if e["event"] == "encounter_started"][1]
            assert second["carried"] == ["Frail"], seed
            assert "Frail" not in _second_fight(events), seed

    def test_a_carried_member_is_counted_down_and_alive(self, tmp_path):
        """Down, alive: it is at 0 HP, unconscious and not dead when the day ends, whatever the
        second fight does to the others (it was not there)."""
        for seed, _, outcome in fallen_days(tmp_path, day_text()):
            hp, status, cause, ever_down = outcome.rows[0][:4]
            assert (hp, status, cause, ever_down) == (0, "unconscious", None, True), seed

    def test_rest_revives_true_lets_a_rest_wake_them(self, tmp_path):
        """A day's ``rest_revives: true``: the calm rest heals a member at 0 HP, who fights."""
        text = day_text(options="options: {rest_revives: true}")
        for seed, events, _ in fallen_days(tmp_path, text):
            rested = next(e for e in events if e["event"] == "rested" and e["actor"] == "Frail")
            assert rested["hp_after"] > 0, seed
            assert "Frail" in _second_fight(events), seed


class TestReviveBetweenFights:
    """The party pours a potion into each member at 0 HP between fights (rules §7)."""

    def test_a_potion_raises_a_member_at_0_hp_between_fights(self, tmp_path):
        """Frail's own potion (she cannot drink it down in the fight): poured as soon as the
        fight is won, before the rest, which then heals her too; she fights the second."""
        text = day_text(frail_items=", items: [{heal: 2d4+2}]")
        for seed, events, _ in fallen_days(tmp_path, text):
            kinds = [e["event"] for e in events]
            revived = kinds.index("revived")
            assert kinds.index("encounter_ended") < revived < kinds.index("rested"), seed
            event = events[revived]
            assert (event["actor"], event["target"], event["hp_before"]) == ("Frail", "Frail", 0)
            assert event["hp_after"] == 3 and event["woke"], seed  # 2d4+2, never above 3 HP
            assert "Frail" in _second_fight(events), seed

    def test_revive_never_keeps_them_down(self, tmp_path):
        text = day_text(frail_items=", items: [{heal: 2d4+2}]", tactics="tactics: {revive: never}")
        for seed, events, _ in fallen_days(tmp_path, text):
            assert not [e for e in events if e["event"] == "revived"], seed
            assert "Frail" not in _second_fight(events), seed

    def test_no_potion_after_the_last_fight(self, tmp_path):
        """Between fights only: the day's last fight is followed by none."""
        text = day_text(frail_items=", items: [{heal: 2d4+2, count: 3}]")
        day = load_day(write_day(tmp_path, text))
        for seed in range(60):
            _, events = run_day(day, seed, log=True)
            last = max(i for i, e in enumerate(events) if e["event"] == "encounter_ended")
            assert not [e for e in events[last:] if e["event"] == "revived"], seed

    def test_d20_is_unchanged(self, tmp_path):
        """d20: the rule is seed 002's; a d20 day pours nothing between fights."""
        text = """\
name: D
rules: d20
party:
  name: heroes
  members:
    - {name: Frail, hp: 1, items: [{heal: 2d4+2}], weapons: [{name: knife, damage: 1d4}]}
    - {name: Tank, level: 5, hp: 60, weapons: [{name: sword, damage: 1d8+4}]}
steps:
  - encounter: {name: One, sides: [{name: foes, members: [{use: goblin}]}]}
  - encounter: {name: Two, sides: [{name: foes, members: [{use: goblin}]}]}
"""
        day = load_day(write_day(tmp_path, text))
        present_down = 0
        for seed in range(60):
            _, events = run_day(day, seed, log=True)
            assert not [e for e in events if e["event"] == "revived"]
            assert not [e for e in events if e.get("carried")]
            starts = [e for e in events if e["event"] == "battle_started"]
            present_down += len(starts) > 1 and any(
                c["name"] == "Frail" and c["hp"] == 0 for c in starts[1]["combatants"])
        assert present_down >= 5  # she joins the second fight down, as before


class TestWhoGives:
    """Which potion: the member's own first, then the first living member who carries one."""

    def _members(self) -> list[Member]:
        potion = Item(heal=dice.parse("5"), name="healing potion")
        down = Member("Down", 1, 0, 0, max_hp=10, hp=0, status="unconscious", items={})
        giver = Member("Giver", 1, 0, 0, max_hp=10, hp=10, items={"healing potion": 2},
                       potions=(potion,))
        return [down, giver]

    def test_an_ally_pours_its_potion(self):
        down, giver = self._members()
        (event,) = revive_downed([down, giver], {"Down", "Giver"}, random.Random(1), True)
        assert (down.hp, down.status, giver.items, giver.items_used) == (
            5, "active", {"healing potion": 1}, 1)
        assert event["actor"] == "Giver" and event["woke"]

    def test_never_above_the_ceiling(self):
        down, giver = self._members()
        down.max_hp, down.unhealable = 10, 7
        revive_downed([down, giver], {"Down", "Giver"}, random.Random(1), False)
        assert down.hp == 3

    def test_a_dead_ally_gives_nothing(self):
        down, giver = self._members()
        giver.status = "dead"
        assert revive_downed([down, giver], {"Down", "Giver"}, random.Random(1), True) == []
        assert down.hp == 0

    def test_mounts_are_not_revived(self):
        """Only members that count (mounts aside) get a potion."""
        down, giver = self._members()
        assert revive_downed([down, giver], {"Giver"}, random.Random(1), True) == []
