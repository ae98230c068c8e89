"""The state of a replayed battle after k events, and moving through its log."""

from __future__ import annotations

import copy
import pathlib
from collections.abc import Callable

import pytest

from sim.replay.load import read_log
from sim.replay.state import BattleView

GOLDEN = pathlib.Path(__file__).parent.parent / "data" / "golden" / "skirmish_seed1.jsonl"


@pytest.fixture(scope="module")
def events() -> list[dict]:
    return read_log(GOLDEN)


@pytest.fixture
def view(events: list[dict]) -> BattleView:
    return BattleView(events)


def index_of(events: list[dict], name: str, nth: int = 0, **fields: object) -> int:
    """Index of the nth event called ``name`` whose fields match ``fields``."""
    found = [i for i, e in enumerate(events)
             if e["event"] == name and all(e.get(k) == v for k, v in fields.items())]
    return found[nth]


def start(name: str = "Aria", **extra: object) -> dict:
    """A battle_started with one hero and one goblin."""
    hero = {"name": name, "side": "heroes", "hp": 10, "max_hp": 10, **extra}
    goblin = {"name": "goblin", "side": "goblins", "hp": 5, "max_hp": 5}
    return {"event": "battle_started", "round": 0, "t": 0.0, "schema": 1, "seed": 1,
            "rules": "d20", "scenario": "test", "combatants": [hero, goblin]}


def at(name: str, **fields: object) -> dict:
    return {"event": name, "round": 1, "t": 0.5, **fields}


def after_each_step(view: BattleView, look: Callable[[], object]) -> list[object]:
    """What ``look()`` sees after each step from the current event to the last."""
    seen = []
    while view.position < len(view.events) - 1:
        view.step(1)
        seen.append(look())
    return seen


class TestHitPoints:
    """HP after k events is what the log's damage adds up to."""

    def test_hp_after_every_event_matches_the_damage_so_far(self, events: list[dict]) -> None:
        """At every k, each combatant's HP is its start HP minus the damage dealt so far, floored at 0."""
        view = BattleView(events)
        start_hp = {c["name"]: c["hp"] for c in events[0]["combatants"]}
        for k in range(len(events)):
            view.goto(k)
            taken = dict.fromkeys(start_hp, 0)
            for e in events[1:k + 1]:
                if e["event"] == "damage_dealt":
                    taken[e["target"]] += e["amount"]
            assert {n: c.hp for n, c in view.combatants.items()} == {
                n: max(0, hp - taken[n]) for n, hp in start_hp.items()}

    def test_final_state_of_the_golden_battle(self, view: BattleView) -> None:
        """At the end Aria has 6/20, Brom is broken at full HP and every ghoul is dead."""
        view.last()
        cast = view.combatants
        assert (cast["Aria"].hp, cast["Aria"].max_hp, cast["Aria"].status) == (6, 20, "active")
        assert (cast["Brom"].hp, cast["Brom"].status) == (17, "broken")
        assert [cast[f"ghoul {i}"].status for i in (1, 2, 3)] == ["dead"] * 3
        assert list(view.sides) == ["heroes", "ghouls"]


class TestMoving:
    """Stepping, jumping and going back."""

    def test_step_back_restores_the_state(self, view: BattleView) -> None:
        """A step forward then back gives the very state of before, at every position."""
        for k in range(len(view.events) - 1):
            view.goto(k)
            before = copy.deepcopy(view.combatants)
            view.step(1)
            assert view.step(-1) == k
            assert view.combatants == before

    def test_moves_are_clamped_to_the_log(self, view: BattleView) -> None:
        """Stepping before the first or past the last event stays on it."""
        assert view.step(-1) == 0
        assert view.goto(10_000) == len(view.events) - 1
        assert view.step(1) == len(view.events) - 1
        assert view.first() == 0

    def test_jump_round_lands_on_round_started(self, view: BattleView, events: list[dict]) -> None:
        """jump_round(r) lands on round r's round_started; a round past the end stays put."""
        for r in range(1, view.last_round + 1):
            assert view.jump_round(r) == index_of(events, "round_started", round=r)
            assert view.round == r
        view.goto(40)
        assert view.jump_round(0) == 0
        view.goto(40)
        assert view.jump_round(99) == 40

    def test_next_and_previous_round(self, view: BattleView, events: list[dict]) -> None:
        """] goes to the next round; [ to this round's start, then to the previous round's."""
        round3 = index_of(events, "round_started", round=3)
        view.goto(round3 + 2)
        assert view.next_round() == index_of(events, "round_started", round=4)
        view.goto(round3 + 2)
        assert view.previous_round() == round3
        assert view.previous_round() == index_of(events, "round_started", round=2)
        view.last()
        assert view.next_round() == len(events) - 1

    def test_next_check(self, view: BattleView, events: list[dict]) -> None:
        """next_check visits every check_rolled in order, then stays on the last one."""
        checks = [i for i, e in enumerate(events) if e["event"] == "check_rolled"]
        visited = [view.next_check() for _ in checks]
        assert visited == checks
        assert view.next_check() == checks[-1]

    def test_next_knockout(self, view: BattleView, events: list[dict]) -> None:
        """next_knockout visits every knocked_out and died event in order."""
        falls = [i for i, e in enumerate(events) if e["event"] in ("knocked_out", "died")]
        assert [view.next_knockout() for _ in falls] == falls
        assert view.current["event"] == "died"
        assert view.next_knockout() == falls[-1]


class TestStatus:
    """Statuses follow knock-outs, deaths, flights and breaking."""

    def test_golden_statuses(self, view: BattleView, events: list[dict]) -> None:
        """ghoul 2 is unconscious once knocked out, dead once dead; Brom is broken at spirit 0."""
        view.goto(index_of(events, "knocked_out", target="ghoul 2") - 1)
        assert view.combatants["ghoul 2"].status == "active"
        view.step(1)
        assert view.combatants["ghoul 2"].status == "unconscious"
        view.goto(index_of(events, "died", target="ghoul 2"))
        assert view.combatants["ghoul 2"].status == "dead"
        view.goto(index_of(events, "effect_started", effect="broken"))
        assert view.combatants["Brom"].status == "broken"
        assert view.combatants["Brom"].effects == []

    def test_flight_and_waking(self) -> None:
        """fled sets fled; a serious wound's unconsciousness ends when its effect ends with HP left."""
        view = BattleView([
            start(),
            at("effect_started", target="Aria", effect="unconscious", rounds=2),
            at("effect_ended", target="Aria", effect="unconscious", reason="woke up"),
            at("fled", target="goblin"),
        ])
        assert after_each_step(view, lambda: view.combatants["Aria"].status) == [
            "unconscious", "active", "active"]
        assert view.combatants["goblin"].status == "fled"


class TestEffectsAndResources:
    """Effects and pools as the log tells them."""

    def test_effects_start_and_end(self) -> None:
        """An effect is listed from its effect_started to its effect_ended."""
        view = BattleView([
            start(),
            at("effect_started", target="Aria", effect="burning"),
            at("effect_started", target="Aria", effect="poisoned"),
            at("effect_ended", target="Aria", effect="burning", reason="put out"),
        ])
        assert after_each_step(view, lambda: list(view.combatants["Aria"].effects)) == [
            ["burning"], ["burning", "poisoned"], ["poisoned"]]
        view.first()
        assert view.combatants["Aria"].effects == []

    def test_golden_heroism_and_spirit(self, view: BattleView, events: list[dict]) -> None:
        """Aria's heroism follows resource_spent's left, Brom's spirit follows spirit_lost."""
        assert view.combatants["Aria"].resources == {"heroism": 2, "spirit": 19}
        view.goto(index_of(events, "resource_spent", actor="Aria"))
        assert view.combatants["Aria"].resources["heroism"] == 1
        view.goto(index_of(events, "resource_spent", 1, actor="Aria"))
        assert view.combatants["Aria"].resources["heroism"] == 0
        view.goto(index_of(events, "spirit_lost", target="Brom") - 1)
        assert view.combatants["Brom"].resources["spirit"] == 6
        view.step(1)
        assert view.combatants["Brom"].resources["spirit"] == 0
        view.last()
        assert view.combatants["Brom"].resources == {"heroism": 1, "spirit": 0}

    def test_morale_psy_and_destiny(self) -> None:
        """Morale tokens follow morale_changed and resource_spent; psy its left; destiny is shared."""
        view = BattleView([
            start(morale=3, psy=4),
            at("morale_changed", actor="Aria", delta=2, reason="exploit", tokens=5),
            at("resource_spent", actor="Aria", resource="morale", amount=1, left=4),
            at("resource_spent", actor="Aria", resource="psy", amount=3, left=1),
            at("resource_spent", actor="Aria", resource="destiny", amount=1, left=0),
        ])
        assert view.combatants["Aria"].resources == {"morale": 3, "psy": 4}
        view.last()
        assert view.combatants["Aria"].resources == {"morale": 4, "psy": 1}
        assert view.shared == {"destiny": 0}

    def test_thrown_rider_is_prone_until_up(self) -> None:
        """Losing the saddle leaves the rider prone until it stands up or is helped up."""
        view = BattleView([
            start(),
            at("effect_started", target="Aria", effect="mounted", mount="horse"),
            at("effect_ended", target="Aria", effect="mounted", reason="mount fell"),
            at("stood_up", actor="Aria"),
            at("effect_ended", target="Aria", effect="mounted", reason="fell from the saddle"),
            at("helped_up", actor="goblin", target="Aria"),
        ])
        assert after_each_step(view, lambda: view.combatants["Aria"].details()) == [
            ["[mounted]"], ["[prone]"], [], ["[prone]"], []]

    def test_details_as_the_terminal_shows_them(self) -> None:
        """details(): effects and prone as [tags], then each resource with its value."""
        view = BattleView([
            start(heroism=2, psy=4),
            at("effect_started", target="Aria", effect="burning"),
            at("fatigue_gained", actor="Aria", amount=1, fatigue=1),
        ])
        view.last()
        assert view.combatants["Aria"].details() == ["[burning]", "heroism 2", "psy 4", "fatigue 1"]


class TestItems:
    """Potions in the replay (rules §8)."""

    def test_item_used_heals_wakes_and_counts_down(self) -> None:
        """item_used sets the target's HP, wakes it, and leaves the actor's items count."""
        view = BattleView([
            start(items={"healing potion": 2}),
            at("knocked_out", target="goblin"),
            at("item_used", actor="Aria", item="healing potion", target="Aria", healed=3,
               hp_before=4, hp_after=7, left=1, woke=False),
            at("item_used", actor="Aria", item="healing potion", target="goblin", healed=2,
               hp_before=0, hp_after=2, left=0, woke=True),
        ])
        assert view.combatants["Aria"].resources == {"healing potion": 2}
        view.step(2)
        assert (view.combatants["Aria"].hp, view.combatants["Aria"].resources) == (
            7, {"healing potion": 1})
        view.step(1)
        goblin = view.combatants["goblin"]
        assert (goblin.hp, goblin.status) == (2, "active")
        assert view.combatants["Aria"].resources == {"healing potion": 0}


class TestExplaining:
    """What the replay says about the current event."""

    def test_check_details(self, view: BattleView, events: list[dict]) -> None:
        """A check exposes its dice, modifier, total, target and outcome; other events have none."""
        view.goto(index_of(events, "check_rolled", purpose="attack"))
        check = view.check()
        assert check is not None
        assert (check.dice, check.kept, check.modifier, check.total, check.target, check.outcome) == (
            (8, 5), 8, 7, 15, 12, "success")
        view.step(1)
        assert view.check() is None

    def test_explain_uses_the_narration(self, view: BattleView, events: list[dict]) -> None:
        """A narrated event reads as its narration line, without its indent."""
        view.goto(index_of(events, "knocked_out"))
        assert view.explain() == "** ghoul 2 is knocked out."
        view.goto(index_of(events, "check_rolled", purpose="attack"))
        assert view.explain().startswith("Aria rolls attack with advantage: [8,5] +7 = 15 vs 12")

    def test_explain_without_a_narrator(self) -> None:
        """An event without a narrator reads as its name and fields."""
        view = BattleView([start(), at("effect_ticked", target="Aria", effect="burning", tick=2)])
        view.step(1)
        assert view.explain() == "effect_ticked: target=Aria, effect=burning, tick=2"

    def test_needs_a_battle(self) -> None:
        """A list that does not open with battle_started is refused."""
        with pytest.raises(ValueError, match="battle_started"):
            BattleView([at("round_started")])
        with pytest.raises(ValueError, match="battle_started"):
            BattleView([])
