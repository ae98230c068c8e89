"""Narration of a battle from its events."""

from __future__ import annotations

import pathlib
import re
from typing import ClassVar

import pytest

from sim.engine import run_battle
from sim.replay.narrate import narrate
from sim.scenario import load_scenario
from tests.cli.helpers import run
from tests.day_files import WARREN

SKIRMISH = pathlib.Path(__file__).parent.parent / "data" / "golden" / "skirmish.yaml"


class TestNarrate:
    """The story a GM reads on the terminal."""

    def test_tells_who_attacks_rolls_damage_falls_wins(self) -> None:
        """Narration names attacks, rolls, damage, knock-outs and the winner."""
        _, events = run_battle(load_scenario(SKIRMISH), 1, log=True)
        text = "\n".join(narrate(events))
        assert "attacks" in text and "rolls attack" in text and "damage" in text
        assert "knocked out" in text
        end = events[-1]
        assert (f"{end['winner']} win" if end["winner"] else "draw") in text

    def test_attack_headline_before_its_rolls(self) -> None:
        """The dice of an attack are told right after its headline."""
        _, events = run_battle(load_scenario(SKIRMISH), 1, log=True)
        lines = list(narrate(events))
        rolls = [i for i, line in enumerate(lines) if "rolls attack" in line or "rolls defense" in line]
        assert rolls  # the battle has attacks to tell
        for i in rolls:
            headline = next(h for h in reversed(lines[:i]) if not h.startswith("  "))
            assert " attacks " in headline, (headline, lines[i])

    def test_item_used(self) -> None:
        """Items: a potion drunk, or poured into an ally who wakes, is one line with the HP."""
        from sim.replay.narrate import NARRATORS

        drink = {"event": "item_used", "round": 2, "t": 1.5, "actor": "Aria",
                 "item": "healing potion", "target": "Aria", "healed": 5, "hp_before": 3,
                 "hp_after": 8, "left": 1, "woke": False}
        assert NARRATORS["item_used"](drink) == (
            "Aria drinks a healing potion: +5 HP (3 -> 8), 1 left.")
        pour = {**drink, "target": "Brom", "hp_before": 0, "hp_after": 5, "left": 0, "woke": True}
        assert NARRATORS["item_used"](pour) == (
            "Aria pours a healing potion into Brom: +5 HP (0 -> 5); Brom wakes up, 0 left.")

SCENARIOS = pathlib.Path(__file__).parent.parent.parent / "scenarios"


def _hit(**fields: object) -> dict:
    """A damage_dealt event, 20 -> 11 HP by default."""
    event = {"event": "damage_dealt", "round": 1, "t": 0.5, "target": "Wolf", "amount": 9,
             "source": "Bear", "kind": "weapon", "armor_piercing": False, "hp_before": 20,
             "hp_after": 11, "dice": [6], "bonus": 3}
    return {**event, **fields}


class TestDamageLines:
    """A damage line tells the roll behind the amount and what the target actually lost."""

    def test_dice_and_bonus(self) -> None:
        """The natural dice and the flat bonus follow the amount: 9 (6+3)."""
        assert list(narrate([_hit()])) == ["  Wolf takes 9 (6+3) weapon damage from Bear (20 -> 11 HP)."]

    def test_armor_and_several_dice(self) -> None:
        """Armor's share is told; several dice are summed in order; a malus is signed."""
        line = next(narrate([_hit(amount=5, dice=[4, 2], bonus=-1, hp_after=15)]))
        assert line == "  Wolf takes 5 (4+2-1) weapon damage from Bear (20 -> 15 HP)."
        line = next(narrate([_hit(amount=7, hp_after=13)]))
        assert line == "  Wolf takes 7 (6+3, armor -2) weapon damage from Bear (20 -> 13 HP)."

    def test_more_than_the_hp_left(self) -> None:
        """A blow bigger than the HP left keeps its amount and says what was lost."""
        line = next(narrate([_hit(hp_before=4, hp_after=0)]))
        assert line == "  Wolf takes 9 (6+3) weapon damage from Bear, loses 4 HP (4 -> 0)."

    def test_spell_price(self) -> None:
        """HP paid for a spell is a price, not damage from oneself."""
        line = next(narrate([_hit(target="Mara", source="Mara", kind="spell", cost=True, amount=3,
                                  hp_before=10, hp_after=7, dice=[], bonus=0)]))
        assert line == "  Mara pays 3 HP for the spell (10 -> 7 HP)."

    def test_old_log_without_bonus(self) -> None:
        """A log without the bonus field reads as before, without dice."""
        event = _hit()
        del event["bonus"]
        assert next(narrate([event])) == "  Wolf takes 9 weapon damage from Bear (20 -> 11 HP)."

    def test_damage_of_wrong_types_still_reads(self) -> None:
        """A hand-written log with odd types narrates its fields as they are, without dice."""
        line = next(narrate([_hit(amount="9", dice=["x"], hp_before=None)]))
        assert line == "  Wolf takes 9 weapon damage from Bear (None -> 11 HP)."

    def test_open_ended_check_without_kept(self) -> None:
        """A d10 check_rolled without its kept field (no required field) crashed the narration
        (KeyError, exit 1 from sim replay LOG --no-interactive): kept is the total less the modifier."""
        check = {"event": "check_rolled", "round": 1, "t": 0.1, "actor": "Sayo", "purpose": "attack",
                 "system": "d10", "dice": [7], "chain": [7], "kept": 7, "modifier": 21, "total": 28,
                 "target": 20, "success": True, "degree": "success", "margin": 8}
        told = next(narrate([check]))
        del check["kept"]
        assert next(narrate([check])) == told == ("  Sayo rolls attack: d10 chain [7] = 7 +21 = 28"
                                                  " vs 20: success.")

    def test_logged_dice_add_up(self) -> None:
        """In real battles of every system, dice + bonus - armor is the amount (never below 0)."""
        for name in ("road_ambush", "mounted_charge", "powder_keg", "witch_wolves",
                     "toll_bridge_brawl", "wolf_winter"):
            spec = load_scenario(SCENARIOS / f"{name}.yaml")
            armor = {c.name: c.armor for c in spec.combatants}
            for seed in (1, 2):
                _, events = run_battle(spec, seed, log=True)
                hits = [e for e in events if e["event"] == "damage_dealt" and e["dice"]]
                assert hits, name
                for e in hits:
                    rolled = sum(e["dice"]) + e["bonus"]
                    taken = 0 if e["armor_piercing"] or spec.rules == "d20" else armor[e["target"]]
                    assert e["amount"] == max(0, rolled - taken), (name, e)


class TestStoryOrder:
    """What happens reads in the order of the fiction."""

    def test_riding_fumble_follows_its_attack_line(self) -> None:
        """A riding roll fumbled before an attack comes after a headline of that attack."""
        _, events = run_battle(load_scenario(SCENARIOS / "mounted_charge.yaml"), 1, log=True)
        lines = list(narrate(events))
        fumbles = [i for i, line in enumerate(lines)
                   if "rolls riding" in line and line.endswith("critical failure.")]
        assert fumbles
        for i in fumbles:
            assert lines[i - 1].endswith("attacks from the saddle and fumbles the riding roll.")
            assert "is no longer mounted (fell from the saddle)" in lines[i + 1]

    def test_riding_roll_told_with_its_attack(self) -> None:
        """A successful riding roll is told after the attack headline, with the attack's dice."""
        _, events = run_battle(load_scenario(SCENARIOS / "mounted_charge.yaml"), 1, log=True)
        lines = list(narrate(events))
        riding = [i for i, line in enumerate(lines) if "rolls riding" in line]
        assert riding  # the charge rolls riding
        for i in riding:
            before = lines[i - 1]
            assert " attacks " in before or "is knocked out" in before or "dies" in before, before

    def test_nothing_ends_after_death(self) -> None:
        """Effects ending because their owner died are not told after "dies"."""
        events = [
            {"event": "effect_started", "round": 1, "t": 0.5, "target": "Hob", "effect": "unconscious"},
            {"event": "died", "round": 2, "t": 1.5, "target": "Hob", "cause": "weapon"},
            {"event": "effect_ended", "round": 2, "t": 1.5, "target": "Hob", "effect": "unconscious",
             "reason": "died"},
            {"event": "effect_ended", "round": 2, "t": 1.5, "target": "Hob", "effect": "burning",
             "reason": "died"},
        ]
        assert list(narrate(events)) == ["  Hob is now unconscious.", "  ** Hob dies (weapon)."]

    def test_stalemate_is_told(self) -> None:
        """A stalemate says why the battle stopped."""
        end = {"event": "battle_ended", "round": 1, "t": 1.0, "winner": None, "rounds": 1,
               "survivors": ["A", "B"], "dead": [], "knocked_out": [], "stopped": "stalemate"}
        assert next(narrate([end])).strip() == (
            "== The battle is a draw after 1 round: stalemate, nobody can hurt anybody any more. ==")

    def test_caster_pays_for_spells(self) -> None:
        """A caster out of PSY pays HP for the spell; never "spell damage from herself"."""
        _, events = run_battle(load_scenario(SCENARIOS / "witch_wolves.yaml"), 1, log=True)
        text = "\n".join(narrate(events))
        assert "HP for the spell" in text
        assert not re.search(r"(\w+) takes \d+ spell damage from \1\b", text)


class TestLeftBehindNarrated:
    """Left behind is not dead (rules §5): the end of the story names the left behind."""

    def test_left_behind_named_at_the_end(self) -> None:
        end = {"event": "battle_ended", "round": 3, "t": 2.5, "winner": "m", "rounds": 3,
               "survivors": ["A", "B", "M"], "dead": [], "knocked_out": [], "broken": [],
               "fled": ["B"], "left_behind": ["A"]}
        text = "\n".join(narrate([end]))
        assert "left behind, alive: A" in text and "dead" not in text
class TestTeller:
    """What narration leaves out or adds from what it already told (issue 29)."""

    BURN: ClassVar[dict] = {"event": "damage_dealt", "round": 3, "t": 2.5, "target": "Wolf", "amount": 2,
                            "source": None, "kind": "fire", "hp_before": 0, "hp_after": 0}
    ROLL: ClassVar[dict] = {"event": "check_rolled", "round": 3, "t": 2.5, "actor": "Wolf",
                            "purpose": "physique", "system": "d20", "dice": [4], "modifier": 0, "total": 4,
                            "target": 10, "degree": "failure", "success": False, "margin": -6}

    def test_the_down_burn_told_once_and_roll_nothing(self) -> None:
        """A wolf down at 0 HP: its fire damage is told once, its physique rolls never."""
        events = [{"event": "knocked_out", "round": 2, "t": 1.5, "target": "Wolf", "cause": "fire"},
                  self.BURN, self.ROLL, self.BURN, self.ROLL]
        lines = list(narrate(events))
        assert lines == ["  ** Wolf is knocked out.",
                         "  Wolf lies at 0 HP and still takes fire damage: nothing changes (not told again)."]
        assert not any("loses 0 HP" in line for line in lines)

    def test_rolls_told_again_once_back_up(self) -> None:
        """Healed above 0 HP, the wolf's rolls are told again."""
        events = [{"event": "knocked_out", "round": 2, "t": 1.5, "target": "Wolf", "cause": "fire"},
                  {"event": "item_used", "round": 2, "t": 1.6, "actor": "Wolf", "target": "Wolf",
                   "item": "potion", "healed": 3, "hp_before": 0, "hp_after": 3, "left": 0, "woke": True},
                  self.ROLL]
        assert "rolls physique" in list(narrate(events))[-1]

    def test_every_step_has_a_header_and_the_last_step_its_words(self) -> None:
        """A rest step gets 'Step N'; a day lost at its last step does not 'end early'."""
        rest = {"event": "rested", "round": 0, "t": 0.0, "step": 1, "actor": "Ada", "kind": "quick",
                "hours": 1, "hp_before": 3, "hp_after": 6, "max_hp": 9, "unhealable_before": 0,
                "unhealable_after": 0, "psy_before": 0, "psy_after": 0, "max_psy": 0, "fatigue_before": 0,
                "fatigue_after": 0, "heroism_before": 0, "heroism_after": 0, "max_heroism": 0,
                "morale_before": None, "morale_after": None}
        events = [{"event": "day_started", "round": 0, "t": 0.0, "day": "D", "rules": "d20", "seed": 1,
                   "steps": 3, "party": ["Ada"]},
                  {"event": "encounter_started", "round": 0, "t": 0.0, "step": 0, "name": "Wolves"},
                  rest, {**rest, "actor": "Bo"},
                  {"event": "encounter_started", "round": 0, "t": 0.0, "step": 2, "name": "Ogre"},
                  {"event": "day_ended", "round": 0, "t": 0.0, "completed": False, "rounds": 9,
                   "dead": ["Ada"]}]
        text = "\n".join(narrate(events))
        assert text.count("=== Step 2: quick rest, 1 h ===") == 1
        assert "the day ends at its last step (3 of 3)" in text and "early" not in text
        events[-2]["step"] = 0
        assert "the day ends early, at step 1 of 3" in "\n".join(narrate([*events[:2], events[-1]]))


@pytest.mark.parametrize(("source", "unit"), [(SKIRMISH, "battle"), (WARREN, "day")])
def test_a_log_cut_at_a_line_boundary_says_it_ends_before_the_fight(tmp_path, capsys, source, unit) -> None:
    """A log cut between two lines reads whole; its narration says where it stops, once, and a
    whole log's says nothing of it."""
    log = tmp_path / "whole.jsonl"
    assert run(capsys, "run", str(source), "--seed", "4", "--log", str(log))[0] == 0
    lines = log.read_text(encoding="utf-8").splitlines(keepends=True)
    whole = run(capsys, "replay", str(log), "--no-interactive")[1]
    assert "ends here" not in whole
    cut = tmp_path / "cut.jsonl"
    for keep in (len(lines) - 1, len(lines) // 2):
        cut.write_text("".join(lines[:keep]), encoding="utf-8")
        code, told, _ = run(capsys, "replay", str(cut), "--no-interactive")
        assert code == 0
        # The last line, with what 80 columns wrapped under it joined back.
        last = " ".join(told[told.rfind("\nThe log ends here") + 1:].split())
        assert last.startswith("The log ends here, before the "), last
        if keep == len(lines) - 1:  # the last line ends the whole battle, or the whole day
            assert last.startswith(f"The log ends here, before the {unit} does: it was cut short")
        assert told.count("The log ends here") == 1
