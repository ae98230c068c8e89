"""d20 weapons suited to some creatures (rules §3, seed 003: "une attaque particulièrement
adaptée"): ``suited: [names]`` by bestiary name or ``kind:``; unknown names refused with the
closest one, names no enemy answers to warned about, the keys idle outside d20."""

from __future__ import annotations

import pathlib

import pytest

from sim.scenario import load_scenario
from tests.scenario.arena import variant

SWORD = "weapons: [{name: sword, damage: 1d8}]"


def suited(names: str) -> str:
    return variant(SWORD, "weapons: [{name: sword, damage: 1d8, suited: " + names + "}]")


class TestSuited:
    """A weapon's ``suited:`` names creatures the GM can mean."""

    def test_a_bestiary_name_is_suited_to_its_members(self, arena) -> None:
        arena.write(suited("[goblin]"))
        spec = load_scenario(pathlib.Path("s.yaml"))
        goblin = spec.sides[1].members[0]
        assert goblin.kinds == ("goblin",)
        assert goblin.suits(spec.sides[0].members[0].weapons[0])

    def test_a_members_kind_is_suited(self, arena) -> None:
        text = variant("{use: goblin, count: 2}", "{use: goblin, count: 2, kind: greenskin}",
                       text=suited("[greenskin]"))
        arena.write(text)
        spec = load_scenario(pathlib.Path("s.yaml"))
        assert spec.sides[1].members[1].kinds == ("goblin", "greenskin")

    def test_an_unknown_name_gets_a_did_you_mean(self, arena) -> None:
        problem = arena.one(suited("[gobiln]"))
        assert str(problem).endswith(
            "sides[0].members[0].weapons[0].suited[0]: no creature here or in the bestiary is"
            " called 'gobiln' (a weapon is suited to a bestiary entry or its kind:, or a member's"
            " name or kind:); did you mean 'goblin'?")

    @pytest.mark.parametrize("kind", ["undead", "[undead, restless]"])
    def test_a_bestiary_entrys_kind_is_known(self, arena, kind: str) -> None:
        """A kind written on a bestiary entry no member here uses (a skeleton, undead) is a
        creature the GM can mean: the weapon only does nothing here (a warning), it was refused
        as unknown, the message sending the GM to delete good data."""
        shelf = arena.root / "bestiary" / "d20" / "x.yaml"
        shelf.write_text(shelf.read_text(encoding="utf-8") + f"""\
  skeleton:
    kind: {kind}
    hp: 2d8
    defense_threshold: 12
    weapons: [{{name: claw, damage: 1d4}}]
""", encoding="utf-8")
        warning = arena.warning(suited("[undead]"))
        assert "suited[0]: does nothing here: no enemy of this side is a 'undead'" in str(warning)
        fight = variant("{use: goblin, count: 2}", "{use: skeleton, count: 2}", text=suited("[undead]"))
        arena.write(fight)
        spec = load_scenario(pathlib.Path("s.yaml"))
        assert spec.sides[1].members[0].suits(spec.sides[0].members[0].weapons[0])

    def test_taking_the_hint_passes(self, arena) -> None:
        arena.write(suited("[goblin]"))
        assert arena.cli("validate", "--strict", "s.yaml")[0] == 0

    def test_a_bestiary_name_no_enemy_is_warns(self, arena) -> None:
        """A hobgoblin is in the bestiary, but no enemy here is one: the +1d4 is idle."""
        warning = arena.warning(suited("[hobgoblin]"))
        assert "suited[0]: does nothing here: no enemy of this side is a 'hobgoblin'" in str(warning)

    def test_kind_and_suited_are_d20_keys(self, arena) -> None:
        """Elsewhere they are told idle with why (the +1d4 is seed 003's), not unknown."""
        text = """\
name: T
rules: d10
sides:
  - name: heroes
    party: true
    members:
      - {name: A, hp: 10, kind: elf, weapons: [{name: s, damage: 1d6, suited: [orc]}]}
  - name: orcs
    members:
      - {name: orc, hp: 10, weapons: [{name: s, damage: 1d6}]}
"""
        found = [str(w).split(": ", 1)[1] for w in arena.warnings(text)]
        assert found == [
            "sides[0].members[0].kind: does nothing here: d10 does not read it: only a d20"
            " weapon's suited: list reads a creature's kind (+1d4, seed 003) ('kind' is read"
            " only by d20)",
            "sides[0].members[0].weapons[0].suited: does nothing here: d10 does not read it:"
            " only d20 adds 1d4 for an attack particularly suited to its target (seed 003)"
            " ('suited' is read only by d20)"]

