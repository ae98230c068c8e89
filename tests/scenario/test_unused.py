"""Keys that would do nothing are refused; the keys that matter are accepted."""

from __future__ import annotations

import json

from sim import dice
from tests.scenario.arena import BASE, BESTIARY, variant


class TestKeysThatDoNothing:
    """Keys the system reads that this stat block or scenario leaves idle are refused there."""

    def test_an_aspect_no_roll_concerns(self, arena):
        """d20: ``aspects: [atack]`` (a typo) was accepted and its heroism never spent; an
        aspect must name a roll (or a weapon of the block), written here or in the bestiary."""
        text = variant("armor: 4\n", "armor: 4\n        heroism: 2\n        aspects: [atack]\n")
        problems = arena.warnings(text)
        assert [p.path for p in problems] == ["sides[0].members[0].aspects[0]"]
        assert "did you mean 'attack'?" in problems[0].message
        arena.write(BESTIARY.replace("    level: 1\n", "    level: 1\n    heroism: 1\n"
                                     "    aspects: [rusty]\n", 1), "bestiary/d20/x.yaml")
        problems = arena.warnings(BASE)
        assert [p.path for p in problems] == ["creatures.goblin.aspects[0]"]


    def test_riding_without_a_mount(self, arena):
        """d100, 2d10, d10: ``skills: {riding: 50}`` on a fighter with no mount was accepted
        and never rolled (only a rider rolls riding, rules §6); refused where written, kept
        on a rider and as a bestiary entry's (``mount: null`` beside ``use:``)."""
        arena.write("rules: d100\ncreatures:\n"
                    "  horse: {hp: 30, skills: {melee: 40}, weapons: [{name: hooves, damage: 1d8}]}\n"
                    "  knight: {hp: 20, skills: {melee: 50, riding: 50},"
                    " weapons: [{name: sword, damage: 1d8}], mount: {use: horse}}\n",
                    "bestiary/d100/x.yaml")
        text = ("name: T\nrules: d100\nsides:\n  - name: a\n    party: true\n    members:\n"
                "      - {name: Tam, hp: 20, skills: {melee: 50, riding: 50},"
                " weapons: [{name: sword, damage: 1d8}]MOUNT}\n"
                "  - name: b\n    members: [{use: knight, mount: null}]\n")
        (problem,) = arena.warnings(text.replace("MOUNT", ""))
        assert problem.path == "sides[0].members[0].skills.riding"
        assert "only a rider rolls riding" in problem.message
        tam = arena.load(text.replace("MOUNT", ", mount: {use: horse}")).sides[0].members[0]
        assert tam.skills["riding"] == 50
        ridden = text.replace("MOUNT", ", mount: {use: horse, skills: {melee: 40, riding: 9}}")
        (problem,) = arena.warnings(ridden)
        assert problem.path == "sides[0].members[0].mount.skills.riding"


    def test_a_load_within_carrying_capacity(self, arena):
        """d100: ``load: 30`` with force 60 (capacity 60 / 2 + 20 = 50 kg) was accepted and
        added no fatigue (only the kilos over capacity tire, rules §3); refused, and a load
        over it kept."""
        text = ("name: T\nrules: d100\nsides:\n  - name: a\n    party: true\n    members:\n"
                "      - {name: Tam, hp: 20, characteristics: {force: 60}, load: LOAD,"
                " weapons: [{name: sword, damage: 1d8}]}\n"
                "  - name: b\n    members: [{name: rat, hp: 3, weapons: [{name: bite, damage: 1}]}]\n")
        (problem,) = arena.warnings(text.replace("LOAD", "50"))
        assert problem.path == "sides[0].members[0].load"
        assert "within its carrying capacity (force / 2 + 20 = 50 kg)" in problem.message
        assert arena.load(text.replace("LOAD", "51")).sides[0].members[0].load == 51


    def test_a_target_or_an_area_against_one_enemy(self, arena):
        """A fighter with a single enemy (mounts count) picks it whatever its ``tactics.target``,
        and its ``area`` weapon hits nobody else: ``{target: weakest}`` on a side, on a member,
        and ``area: true`` were accepted against one goblin; refused, and kept against two."""
        text = variant("armor: 4\n", "armor: 4\n        tactics: {target: focus}\n",
                       "{name: sword, damage: 1d8}", "{name: sword, damage: 1d8, area: true}",
                       "  - name: goblins\n", "  - name: goblins\n    tactics: {target: weakest}\n",
                       "{use: goblin, count: 2}", "{use: goblin, count: COUNT}")
        assert [p.path for p in arena.warnings(text.replace("COUNT", "1"))] == [
            "sides[0].members[0].tactics.target", "sides[0].members[0].weapons[0].area",
            "sides[1].tactics.target"]
        # and the goblins, two against Aria alone:
        assert [p.path for p in arena.warnings(text.replace("COUNT", "2"))] == [
            "sides[1].tactics.target"]
        aria = arena.load(text.replace("COUNT", "2").replace("    tactics: {target: weakest}\n",
                                                              "")).sides[0].members[0]
        assert aria.tactics.target == "focus" and aria.weapons[0].area


    def test_a_range_where_nobody_moves(self, arena):
        """d20 (and 2d10, d10 with the weapon's skill): ``range: 6`` on Aria's only weapon at
        distance 0 with no hazard, timeline or mount was accepted and changed nothing (every
        gap stays 0, within any reach); refused, and kept at a distance, where a second weapon
        would strike first without it, or with a hazard that makes someone move."""
        text = variant("{name: sword, damage: 1d8}", "{name: sword, damage: 1d8, range: 6}")
        (problem,) = arena.warnings(text)
        assert problem.path == "sides[0].members[0].weapons[0].range"
        assert "'sword' stays the weapon it strikes with" in problem.message
        assert arena.load("distance: 10\n" + text).sides[0].members[0].weapons[0].range == 6
        second = variant("{name: sword, damage: 1d8}",
                         "{name: sword, damage: 1d8, range: 6}, {name: fist, damage: 1}")
        assert arena.load(second).sides[0].members[0].weapons[0].range == 6  # fist first without
        hazard = text + "hazards: [{kind: smoke, members: [Aria]}]\n"
        assert arena.load(hazard).sides[0].members[0].weapons[0].range == 6


    def test_unconscious_rider_falls_where_no_blow_can_wound(self, arena):
        """d100: ``unconscious_rider: falls`` was accepted where no enemy blow reaches half a
        rider's maximum HP (a club of 1d6+1 at most 7 against 30 HP): no serious wound can knock
        it out with HP left, and at 0 HP it slides out either way. Refused; kept where one can
        (3d6, 18 HP of 30), and with a timeline or hazard (an explosion may)."""
        text = ("name: T\nrules: d100\noptions: {unconscious_rider: falls}\nsides:\n"
                "  - name: a\n    party: true\n    members:\n"
                "      - {name: Bo, hp: 30, skills: {melee: 50, riding: 50}, weapons: [{name: lance,"
                " damage: 1d10}], mount: {name: horse, hp: 20, weapons: [{name: kick, damage: 1d6}]}}\n"
                "  - name: b\n    members: [{name: thug, count: 2, hp: 9,"
                " weapons: [{name: club, damage: DAMAGE}]}]\n")
        (problem,) = arena.warnings(text.replace("DAMAGE", "1d6+1"))
        assert problem.path == "options.unconscious_rider"
        assert "no enemy blow here reaches half a rider's" in problem.message
        assert arena.load(text.replace("DAMAGE", "3d6")).options.unconscious_rider == "falls"
        blast = text.replace("DAMAGE", "1d6+1") + "timeline: [{round: 2, do: explode, side: a}]\n"
        assert arena.load(blast).options.unconscious_rider == "falls"


    def test_heroism_whose_aspects_name_no_roll_made_here(self, arena):
        """d20: ``heroism: 2, aspects: [stealth]`` with no stealth group check (or ``[terror]``
        without spirit) was accepted and no die ever spent; refused at the heroism, or at the
        aspects when only they were written beside ``use:``; kept with the group check."""
        text = variant("armor: 4\n", "armor: 4\n        heroism: 2\n        aspects: [stealth]\n")
        (problem,) = arena.warnings(text)
        assert problem.path == "sides[0].members[0].heroism"
        assert "no roll it makes here concerns its aspects (stealth)" in problem.message
        group = "rules: d20\nsurprise: {side: heroes, group_check: stealth}\n"
        assert arena.load(variant("rules: d20\n", group, text=text)).sides[0].members[0].heroism == 2
        arena.write(BESTIARY + "  brave goblin: {hp: 4, heroism: 1, weapons: [{name: knife,"
                    " damage: 1d4}]}\n", "bestiary/d20/x.yaml")
        rivals = variant("{use: goblin, count: 2}", "{use: goblin, count: 2}\n  - name: rats\n"
                         "    members: [{use: brave goblin, aspects: [terror]}]")
        (problem,) = arena.warnings(rivals)
        assert problem.path == "sides[2].members[0].aspects"


    def test_armor_piercing_where_no_enemy_has_armor(self, arena):
        """d100 (2d10, d10): ``armor_piercing: true`` against enemies with no armor was
        accepted and dealt the same damage; refused, and kept against an armored one."""
        text = ("name: T\nrules: d100\nsides:\n  - name: a\n    party: true\n    members:\n"
                "      - {name: Tam, hp: 20, weapons: [{name: pick, damage: 1d8, armor_piercing: true}]}\n"
                "  - name: b\n    members: [{name: rat, count: 2, hp: 3ARMOR,"
                " weapons: [{name: bite, damage: 1}]}]\n")
        (problem,) = arena.warnings(text.replace("ARMOR", ""))
        assert problem.path == "sides[0].members[0].weapons[0].armor_piercing"
        assert problem.message == "does nothing here: no enemy here has armor for it to pierce"
        assert arena.load(text.replace("ARMOR", ", armor: 1")).sides[0].members[0].weapons[0].armor_piercing


    def test_a_target_on_a_fighter_with_no_weapon(self, arena):
        """``tactics: {target: weakest}`` on a member with ``weapons: []`` (or on a side whose
        members that read it have none) was accepted: it never attacks, so never picks."""
        text = variant("{name: sword, damage: 1d8}]\n", "{name: sword, damage: 1d8}]\n"
                       "      - {name: Brom, level: 1, hp: 9, weapons: [], tactics: {target: weakest}}\n")
        (problem,) = arena.warnings(text)
        assert problem.path == "sides[0].members[1].tactics.target"
        assert "it has no weapon, so it never picks a target" in problem.message
        side = variant("    members:\n      - name: Aria", "    tactics: {target: weakest}\n"
                       "    members:\n      - name: Aria", "weapons: [{name: sword, damage: 1d8}]\n",
                       "weapons: []\n      - {name: Brom, level: 1, hp: 9, weapons: []}\n")
        assert [p.path for p in arena.warnings(side)] == ["sides[0].tactics.target"]


class TestKeysThatMatter:
    """Keys the system and options read are accepted; ``KEY: null`` drops a bestiary key."""

    def test_terror_and_spirit_with_the_option(self, arena):
        """With spirit on, a creature's terror and a party member's spirit both matter."""
        text = variant("rules: d20\n", "rules: d20\noptions: {spirit: true}\n",
                       "armor: 4\n", "armor: 4\n        spirit: 2d12\n",
                       "{use: goblin, count: 2}", "{use: goblin, count: 2, terror: 1d4}")
        scenario = arena.load(text)
        aria, goblin = scenario.sides[0].members[0], scenario.sides[1].members[0]
        assert aria.spirit == dice.parse("2d12")
        assert goblin.terror == dice.parse("1d4")

    def test_terror_without_spirit_is_a_warning(self, arena):
        """rules §3: a creature with terror in a scenario without `spirit: true` frightens
        nobody: a warning (the fight plays; --strict refuses it)."""
        problems = arena.warnings(variant("{use: goblin, count: 2}",
                                          "{use: goblin, count: 2, terror: 1d4}"))
        assert [p.path for p in problems] == ["sides[1].members[0].terror"]
        assert "does nothing here: without options: {spirit: true}" in problems[0].message

    def test_null_drops_a_bestiary_key(self, arena):
        """``terror: null`` next to ``use:`` drops the entry's terror: valid without spirit."""
        arena.write(BESTIARY.replace("    level: 1\n", "    level: 1\n    terror: 1d6\n"),
                    "bestiary/d20/x.yaml")
        problems = arena.warnings(BASE)
        assert [p.path for p in problems] == ["sides[1].members[0].use"]
        assert problems[0].message.startswith("does nothing here: 'terror' of bestiary entry"
                                              " 'goblin': without options: {spirit: true}")
        scenario = arena.load(variant("{use: goblin, count: 2}",
                                      "{use: goblin, count: 2, terror: null}"))
        assert scenario.sides[1].members[0].terror is None

    def test_heroism_aspects_and_a_weapon_skill(self, arena):
        """In d20 a weapon's skill matters through aspects, which matter through heroism."""
        text = variant("armor: 4\n", "armor: 4\n        heroism: 2\n        aspects: [blades]\n",
                       "{name: sword, damage: 1d8}", "{name: sword, damage: 1d8, skill: blades}")
        aria = arena.load(text).sides[0].members[0]
        assert (aria.heroism, aria.aspects, aria.weapons[0].skill) == (2, ("blades",), "blades")

    def test_group_check_skill_on_the_surprising_side(self, arena):
        """A skill named by the side's surprise group check is read (2d10)."""
        arena.write("rules: 2d10\ncreatures:\n  rat: {hp: 3, weapons: [{name: bite, damage: 1d2}]}\n",
                    "bestiary/2d10/x.yaml")
        text = ("name: T\nrules: 2d10\nsurprise: {side: a, group_check: sneaking}\nsides:\n"
                "  - name: a\n    party: true\n    members:\n"
                "      - {name: Wynn, hp: 9, skills: {sneaking: 3, knife: 2},"
                " weapons: [{name: knife, damage: 1d4}]}\n"
                "  - name: b\n    members: [{use: rat}]\n")
        wynn = arena.load(text).sides[0].members[0]
        assert dict(wynn.skills) == {"sneaking": 3, "knife": 2}

    def test_told_by_run_and_batch_too(self, arena, tmp_path):
        """``sim run`` and ``sim batch`` tell an idle key before the results and play on (the
        batch keeps it in summary.json); with --strict they refuse it before any run."""
        arena.write(variant("armor: 4\n", "armor: 4\n        spirit: 2d12\n"))
        line = "s.yaml:11:9: sides[0].members[0].spirit: does nothing here: without options"
        for argv in (("run", "s.yaml"), ("batch", "s.yaml", "-n", "2", "--out", "out")):
            code, out, err = arena.cli(*argv, "--strict")
            assert (code, out) == (2, "")
            assert err.startswith(line)
            assert not (tmp_path / "out").exists()
            code, out, err = arena.cli(*argv)
            assert code == 0 and out
            assert err.startswith(line)
            assert err.splitlines()[1].startswith("sim: 1 warning: ")
        summary = json.loads((tmp_path / "out" / "summary.json").read_text(encoding="utf-8"))
        assert [w.startswith(line) for w in summary["warnings"]] == [True]

    def test_told_by_show_on_stderr(self, arena):
        """``sim show`` tells an idle key too, on stderr: stdout stays the stat blocks alone."""
        arena.write(variant("armor: 4\n", "armor: 4\n        spirit: 2d12\n"))
        code, out, err = arena.cli("show", "s.yaml")
        assert code == 0 and "\nname: Test\n" in out
        assert err.startswith("s.yaml:11:9: sides[0].members[0].spirit: does nothing here: without options")
        assert "warning" not in out

    def test_heroism_of_a_creature_that_rolls_a_check(self, arena):
        """d20: a creature facing only the party rolls nothing in combat, yet its heroism helps
        the checks something makes it roll: a party weapon's fire, a second non-party side it
        attacks, its side's surprise group check (rules §3: heroism after a failed roll)."""
        creature = "{use: goblin, count: 2, heroism: 2}"
        fire = variant("{name: sword, damage: 1d8}", "{name: sword, damage: 1d8, fire: true}",
                       "{use: goblin, count: 2}", creature)
        rivals = variant("{use: goblin, count: 2}",
                         creature + "\n  - name: rats\n    members: [{use: hobgoblin}]")
        group = variant("rules: d20\n", "rules: d20\nsurprise: {side: goblins, group_check: stealth}\n",
                        "{use: goblin, count: 2}", creature)
        for text in (fire, rivals, group):
            assert arena.load(text).sides[1].members[0].heroism == 2


class TestJudgedOnTheWholeFight:
    """Idle keys are judged only once every member and the distance are valid: a typo
    elsewhere left out of the fight made a key that works look idle (review)."""

    FIGHT = ("name: T\nrules: d20\nDISTANCE\nsides:\n  - name: heroes\n    party: true\n    members:\n"
             "      - {name: Ada, level: 2, hp: 14, tactics: {target: weakest},"
             " weapons: [{name: javelin, damage: 1d8, area: true, range: 20}]}\n"
             "  - name: gobs\n    members:\n"
             "      - {name: g1, hp: 9, weapons: [{name: club, damage: 1d6}]}\n"
             "      - {name: g2, hp: HP, weapons: [{name: club, damage: 1d6}]}\n")

    def test_a_member_refused_leaves_no_idle_key_elsewhere(self, arena):
        """g2's hp typo is the one problem: Ada's target and area (two enemies) are not told
        'one enemy', and are refused only where there is one."""
        text = self.FIGHT.replace("DISTANCE", "distance: 10")
        (problem,) = arena.problems(text.replace("HP", "1d0"))
        assert problem.path == "sides[1].members[1].hp"
        assert arena.load(text.replace("HP", "9")).sides[0].members[0].tactics.target == "weakest"

    def test_a_distance_refused_leaves_no_idle_range(self, arena):
        """``distance: 10m`` is the one problem: the javelin's range is not told 'everyone
        starts within reach'."""
        (problem,) = arena.problems(self.FIGHT.replace("DISTANCE", "distance: 10m").replace("HP", "9"))
        assert problem.path == "distance"


def duel(rules: str, hero: str, foe: str, party: bool = True) -> str:
    """A scenario of one hero against one foe, each a flow mapping."""
    mark = "    party: true\n" if party else ""
    return (f"name: T\nrules: {rules}\nsides:\n  - name: heroes\n{mark}    members:\n"
            f"      - {hero}\n  - name: foes\n    members:\n      - {foe}\n")


class TestToldOnce:
    """Issue 28: one problem is reported once, and a warning never asks to delete valid data
    whose cause is elsewhere."""

    def test_a_skill_no_weapon_rolls_is_told_once(self, arena):
        """`skills.brawl` was printed twice for one key (the stat block's check and the
        scenario's); it is one warning."""
        (p,) = arena.warnings(duel("d10", "{name: Bren, hp: 20, skills: {melee: 4, brawl: 2},"
                                          " weapons: [{name: axe, damage: 1d8}]}",
                                   "{name: rat, hp: 3, weapons: [{name: bite, damage: 1d2}]}"))
        assert p.path == "sides[0].members[0].skills.brawl"
        assert p.message.startswith("does nothing here: no weapon and no rule of d10 rolls the skill")

    def test_no_party_side_names_the_cause(self, arena):
        """An ogre's attack_threshold with no side marked party: the warning says so and what
        the mark changes; it does not ask to remove the threshold (which would change the
        model: a party rolls its own defense against it)."""
        hero = "{name: Aria, level: 3, hp: 24, weapons: [{name: sword, damage: 1d8}]}"
        ogre = "{name: ogre, level: 4, hp: 30, attack_threshold: 14, weapons: [{name: club, damage: 2d6}]}"
        (p,) = arena.warnings(duel("d20", hero, ogre, party=False))
        assert p.path == "sides[1].members[0].attack_threshold"
        assert "no side has `party: true`" in p.message and "remove" not in p.message
        assert arena.load(duel("d20", hero, ogre))
