"""Members: ``use:`` with overrides, ``count:`` names and kinds."""

from __future__ import annotations

from sim import dice
from tests.scenario.arena import variant


class TestUseAndCount:
    """Members made from a bestiary entry and counted load into the specs the engine plays."""

    def test_use_with_overrides(self, arena):
        """Keys given beside ``use:`` win; the rest comes from the bestiary entry."""
        scenario = arena.load(variant("{use: goblin, count: 2}",
                                      "{use: goblin, name: Boss, hp: 20, defense_threshold: 13}"))
        boss = scenario.sides[1].members[0]
        assert boss.name == "Boss"
        assert boss.hp == dice.parse(20)
        assert boss.defense_threshold == 13
        assert boss.level == 1
        assert [(w.name, str(w.damage)) for w in boss.weapons] == [("rusty blade", "1d6")]
        assert boss.side == "goblins"

    def test_scores_beside_use_override_score_by_score(self, arena):
        """`characteristics: {force: 60}` beside `use:` changes that score and keeps the entry's
        others (they were dropped to the default 50 without a word); a mount's skills too."""
        arena.write(BESTIARY_WITH_MOUNTS.replace(
            "  warhorse: {hp: 30,", "  warhorse: {hp: 30, characteristics: {physique: 70, force: 80},"),
            "bestiary/d100/x.yaml")
        scenario = arena.load(MOUNTED.replace(
            "mount: {use: pony}",
            "mount: {use: warhorse, characteristics: {force: 90}, skills: {melee: 55}}"))
        horse = scenario.sides[0].members[1]
        assert dict(horse.characteristics) == {"physique": 70, "force": 90}
        assert dict(horse.skills) == {"melee": 55, "defense": 30}

    def test_an_empty_score_mapping_is_refused(self, arena):
        """`skills: {}` sets no score: beside use: (scores override one by one) and alone
        (missing ones count the default) it did nothing; null drops the entry's."""
        arena.write(BESTIARY_WITH_MOUNTS, "bestiary/d100/x.yaml")
        p = arena.warning(MOUNTED.replace("mount: {use: pony}", "mount: {use: warhorse, skills: {}}"))
        assert (p.path, p.message) == ("sides[0].members[0].mount.skills", "does nothing here: it sets"
                                       " no score (missing ones count the default; beside use:,"
                                       " write null to drop the entry's)")
        p = arena.warning(MOUNTED.replace("mount: {use: pony}", "mount: {use: warhorse}").replace(
            "      - name: brigand\n", "      - {use: warhorse, name: Nag, characteristics: {}}\n"
                                     "      - name: brigand\n"))
        assert p.path == "sides[1].members[0].characteristics"

    def test_null_beside_a_mounts_use_drops_the_entry_s(self, arena):
        """`mount: {use: warhorse, skills: null}` was refused 'must be a mapping (got None)':
        KEY: null dropped an entry's key on a member only. It drops it on a mount too, and a
        key the entry does not give has nothing to drop (a warning)."""
        arena.write(BESTIARY_WITH_MOUNTS, "bestiary/d100/x.yaml")
        horse = arena.load(MOUNTED.replace("mount: {use: pony}", "mount: {use: warhorse, skills: null}")
                           ).sides[0].members[1]
        assert dict(horse.skills) == {} and horse.hp.max == 30
        p = arena.warning(MOUNTED.replace("mount: {use: pony}", "mount: {use: warhorse, items: null}"))
        assert (p.path, p.message) == ("sides[0].members[0].mount.items",
                                       "does nothing here: bestiary entry 'warhorse' has no 'items' to drop")

    def test_count_names(self, arena):
        """``count: 3`` names the members ``goblin 1`` .. ``goblin 3``, one kind (their entry)."""
        scenario = arena.load(variant("count: 2", "count: 3"))
        members = scenario.sides[1].members
        assert [m.name for m in members] == ["goblin 1", "goblin 2", "goblin 3"]
        assert {m.kind for m in members} == {"sides[1].members[0]"}
        assert all(str(m.hp) == "2d6" for m in members)

    def test_terror_kind_is_the_scenario_entry(self, arena):
        """Terror once per kind of creature (rules §3): the members of one `use:` entry or one
        `count:` entry share a kind; another entry, even of the same bestiary entry, is another."""
        scenario = arena.load(variant(
            "      - {use: goblin, count: 2}\n",
            "      - {use: goblin, count: 2}\n"
            "      - {use: goblin, name: Boss}\n"
            "      - {name: imp, count: 2, hp: 3}\n"
            "      - {name: wisp, hp: 3}\n"))
        kinds = {m.name: m.kind for m in scenario.sides[1].members}
        assert kinds == {"goblin 1": "sides[1].members[0]", "goblin 2": "sides[1].members[0]",
                         "Boss": "sides[1].members[1]", "imp 1": "sides[1].members[2]",
                         "imp 2": "sides[1].members[2]", "wisp": "sides[1].members[3]"}
        assert len({m.kind for m in scenario.sides[0].members}) == len(scenario.sides[0].members)

    def test_count_one_keeps_plain_name(self, arena):
        """``count: 1`` (the default) keeps the name without a number."""
        scenario = arena.load(variant("count: 2", "count: 1"))
        assert [m.name for m in scenario.sides[1].members] == ["goblin"]

    def test_count_with_own_name(self, arena):
        """``count:`` numbers an overridden name too."""
        scenario = arena.load(variant("count: 2}", "count: 2, name: gob}"))
        assert [m.name for m in scenario.sides[1].members] == ["gob 1", "gob 2"]


class TestMountOfAMount:
    def test_a_mount_from_the_bestiary_brings_no_mount(self, arena):
        """A mount rides nothing: a bestiary entry used as a mount and carrying a mount of its
        own (a pony on a warhorse, a wolf on itself) is refused where the mount is used."""
        arena.write(BESTIARY_WITH_MOUNTS, "bestiary/d100/x.yaml")
        problem = arena.one(MOUNTED)
        assert problem.path == "sides[0].members[0].mount.mount"
        assert problem.message == "a mount has no mount of its own (bestiary entry 'pony' gives it one)"


BESTIARY_WITH_MOUNTS = """\
rules: d100
creatures:
  warhorse: {hp: 30, skills: {melee: 40, defense: 30}, weapons: [{name: hooves, damage: 1d8}]}
  pony: {hp: 20, skills: {melee: 30, defense: 30}, weapons: [{name: hooves, damage: 1d6}],
         mount: {use: warhorse}}
"""

MOUNTED = """\
name: Mount chain
rules: d100
sides:
  - name: knights
    party: true
    members:
      - name: Tam
        hp: 20
        skills: {melee: 50, defense: 40, riding: 50}
        weapons: [{name: sword, damage: 1d8}]
        mount: {use: pony}
  - name: brigands
    members:
      - name: brigand
        hp: 20
        skills: {melee: 40, defense: 30}
        weapons: [{name: club, damage: 1d6}]
"""
