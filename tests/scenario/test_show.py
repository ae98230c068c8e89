"""``sim show`` (the resolved scenario as YAML) and ``sim bestiary`` (list entries, show one)."""

from __future__ import annotations

import pathlib

import attrs
import pytest
import yaml

from sim.dice import parse
from sim.engine import run_battle
from sim.model import Options, Weapon
from sim.scenario import load_scenario
from sim.scenario.show import options_data, plain
from tests.cli.helpers import run

REPO = pathlib.Path(__file__).resolve().parent.parent.parent
# Examples with a terror creature given count: at a time: shown one by one, each member is a
# kind of its own and frightens on its own (rules §3), so their battles differ.
TERROR_BY_COUNT = frozenset({"haunted_crypt.yaml"})

BESTIARY = """\
rules: d20
creatures:
  goblin:
    level: 1
    hp: 2d6
    armor: 1
    weapons: [{name: rusty blade, damage: 1d6}]
    description: Small and numerous.
  ogre:
    level: 4
    hp: 30
    armor: 2
    attack_threshold: 15
    weapons: [{name: club, damage: 1d10+2}]
"""

SCENARIO = """\
name: Show me
rules: d20
sides:
  - name: heroes
    party: true
    members:
      - {name: Aria, level: 3, hp: 24, armor: 4, heroism: 2, weapons: [{name: sword, damage: 1d8}]}
      - {name: Brom, level: 1, hp: 9, weapons: [{name: axe, damage: 1d6}]}
  - name: goblins
    tactics: {target: weakest}
    members:
      - {use: goblin, count: 2, armor: 3}
      - {use: ogre, name: Grub}
"""


def shown_with_bestiary(tmp_path: pathlib.Path, monkeypatch: pytest.MonkeyPatch,
                        capsys: pytest.CaptureFixture[str], rules: str, bestiary: str, text: str) -> str:
    """``sim show s.yaml`` (``text``) in ``tmp_path``, beside a bestiary of its own (``bestiary``,
    the ``rules`` folder's x.yaml): what it printed, which it printed with no problem."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("SIM_BESTIARY", raising=False)
    (tmp_path / "bestiary" / rules).mkdir(parents=True)
    (tmp_path / "bestiary" / rules / "x.yaml").write_text(bestiary, encoding="utf-8")
    (tmp_path / "s.yaml").write_text(text, encoding="utf-8")
    code, out, err = run(capsys, "show", "s.yaml")
    assert (code, err) == (0, "")
    return out


def fights_as_shown(path: pathlib.Path, out: str) -> bool:
    """Whether the scenario ``sim show`` printed (``out``, saved beside ``path``) fights the
    same 20 battles as the scenario at ``path``."""
    shown = path.with_name("shown.yaml")
    shown.write_text(out, encoding="utf-8")
    scenario, again = load_scenario(path), load_scenario(shown)
    return all(run_battle(scenario, seed)[0] == run_battle(again, seed)[0] for seed in range(20))




@pytest.fixture
def here(tmp_path: pathlib.Path, monkeypatch: pytest.MonkeyPatch, no_shipped_bestiary: None) -> pathlib.Path:
    """A working folder with bestiary/d20/x.yaml and s.yaml, and no SIM_BESTIARY nor the
    shipped bestiary."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("SIM_BESTIARY", raising=False)
    (tmp_path / "bestiary" / "d20").mkdir(parents=True)
    (tmp_path / "bestiary" / "d20" / "x.yaml").write_text(BESTIARY, encoding="utf-8")
    (tmp_path / "s.yaml").write_text(SCENARIO, encoding="utf-8")
    return tmp_path


class TestPlain:
    """Specs become plain YAML data."""

    def test_defaults_left_out(self) -> None:
        """A weapon keeps what differs from the defaults; dice become their notation."""
        weapon = Weapon(name="bow", damage=parse("1d8+1"), range=30.0, hands=2)
        assert plain(weapon) == {"name": "bow", "damage": "1d8+1", "hands": 2, "range": 30.0}

    @pytest.mark.parametrize(("options", "rules", "party", "shown"), [
        (Options(), "d20", True, {}),
        (Options(morale_on=False), "2d10", True, {"morale": False}),
        (Options(morale_on=True, spirit=True), "d20", False, {"spirit": True, "morale": True}),
        (Options(morale_on=True, wound_divisor=3), "d20", True,
         {"morale": {"who": "party", "wound_divisor": 3}}),
        (Options(morale_on=True, despair_again=True), "d20", False,
         {"morale": {"despair_again": True}}),
        (Options(tie_succeeds=False, defense_per="round"), "d10", True,
         {"tie_succeeds": False, "defense_per": "round"}),
        (Options(), "2d10", True, {"morale": {"who": "party"}}),
        (Options(morale_who="everyone"), "2d10", True, {"morale": {"who": "everyone"}}),
    ])
    def test_options_as_written(self, options: Options, rules: str, party: bool, shown: dict
                                ) -> None:
        """Morale shows as the scenario key ``morale:``, not the fields it is kept in; who holds
        tokens is shown whenever morale is on and a side is the party (rules §4: a reading of
        the seed the GM should see), the 2d10 default included."""
        assert options_data(options, rules, party) == shown

    def test_constant_dice_are_numbers(self) -> None:
        """Constant HP prints as a number, not a string."""
        assert plain(parse("24")) == 24 and plain(parse("2d6")) == "2d6"


class TestShow:
    """``sim show SCENARIO``: every combatant after use:, overrides and count:."""

    def test_resolved_members(self, here: pathlib.Path, capsys) -> None:
        """count: 2 gives two named goblins with the bestiary's stats and the override."""
        code, out, err = run(capsys, "show", "s.yaml")
        assert (code, err) == (0, "")
        assert out.startswith("# s.yaml, resolved")
        data = yaml.safe_load(out)
        goblins = data["sides"][1]
        assert goblins["tactics"] == {"target": "weakest"}
        assert goblins["members"][:2] == [
            {"name": f"goblin {i}", "hp": "2d6", "armor": 3,
             "attack_threshold": 11, "defense_threshold": 11,
             "weapons": [{"name": "rusty blade", "damage": "1d6"}]}
            for i in (1, 2)]
        grub = goblins["members"][2]
        assert (grub["name"], grub["hp"], grub["level"], grub["attack_threshold"]) == ("Grub", 30, 4, 15)
        assert grub["defense_threshold"] == 14  # the default 10 + level, spelt out
        aria = data["sides"][0]["members"][0]
        assert (aria["hp"], aria["heroism"], data["sides"][0]["party"]) == (24, 2, True)
        assert "attack_threshold" not in aria  # a party member rolls its own defense
        assert aria["level"] == 3  # and fights by its level (d20)

    def test_timeline_steps_keep_whom_and_what(self, tmp_path: pathlib.Path, capsys) -> None:
        """A timeline step shows its side (powder_keg's first blast hits the heroes); a d100
        scenario shows no level (only d20 fights by level); what it shows validates."""
        code, out, _ = run(capsys, "show", str(REPO / "scenarios" / "powder_keg.yaml"))
        data = yaml.safe_load(out)
        assert code == 0 and data["timeline"][0] == {"round": 2, "do": "explode", "side": "heroes",
                                                     "damage": "2d6+2"}
        assert not any("level" in m for side in data["sides"] for m in side["members"])
        shown = tmp_path / "shown.yaml"
        shown.write_text(out, encoding="utf-8")
        assert run(capsys, "validate", str(shown))[0] == 0

    def test_set_edits_before_showing(self, here: pathlib.Path, capsys) -> None:
        """--set changes what is shown, as it changes what fights."""
        code, out, _ = run(capsys, "show", "s.yaml", "--set", "sides[goblins].members[goblin].count=3")
        names = [m["name"] for m in yaml.safe_load(out)["sides"][1]["members"]]
        assert code == 0 and names == ["goblin 1", "goblin 2", "goblin 3", "Grub"]
        assert "\n# --set sides[goblins].members[goblin].count=3\n" in out

    def test_set_text_is_shown_safely(self, here: pathlib.Path, capsys) -> None:
        """A --set text is echoed as data: a bidi override or a line break is escaped, never
        written raw into the terminal or as an extra line of the YAML."""
        code, out, _ = run(capsys, "show", "s.yaml", "--set", "max_rounds=5 #\u202eX\n# fake")
        assert code == 0
        head = out.splitlines()[1]
        assert head.startswith("# --set max_rounds=5 #") and "\u202e" not in out
        assert "\n# fake" not in out

    def test_mounts_and_skills(self, capsys) -> None:
        """A d100 rider shows its skills and its mount's stat block under ``mount:``, named
        as the scenario names it (the battle calls it "warhorse of RIDER")."""
        code, out, _ = run(capsys, "show", str(REPO / "scenarios" / "mounted_charge.yaml"))
        assert code == 0
        rider = yaml.safe_load(out)["sides"][0]["members"][0]
        assert rider["mount"]["name"] == "warhorse" and rider["mount"]["hp"]
        assert "riding" in rider["skills"]

    def test_bad_scenario_exit_2(self, here: pathlib.Path, capsys) -> None:
        """A scenario with a problem prints the problem, not a half scenario."""
        (here / "s.yaml").write_text(SCENARIO.replace("use: ogre", "use: troll"), encoding="utf-8")
        code, out, err = run(capsys, "show", "s.yaml")
        assert (code, out) == (2, "") and "no bestiary entry 'troll'" in err

    @pytest.mark.parametrize("path", sorted((REPO / "scenarios").glob("*.yaml")), ids=lambda p: p.name)
    def test_every_example_shows(self, path: pathlib.Path, tmp_path: pathlib.Path, capsys) -> None:
        """Every example scenario shows as YAML naming each of its combatants once (a mount
        under its rider), which loads as a scenario and fights the same battles. (Unless a
        terror creature comes `count:` at a time: members shown one by one are each a kind
        of their own, and each kind frightens.)"""
        code, out, _ = run(capsys, "show", str(path))
        assert code == 0
        names = [name for side in yaml.safe_load(out)["sides"] for m in side["members"]
                 for name in (m["name"], *([f"{m['mount']['name']} of {m['name']}"] if "mount" in m else []))]
        scenario = load_scenario(path)
        assert names == [c.name for c in scenario.combatants]
        shown = tmp_path / "shown.yaml"
        shown.write_text(out, encoding="utf-8")
        again = load_scenario(shown)
        same = all(run_battle(scenario, seed)[0] == run_battle(again, seed)[0] for seed in range(20))
        assert same == (path.name not in TERROR_BY_COUNT)

    @pytest.mark.parametrize(("name", "sets"), [
        ("bear_den.yaml", ("tie_succeeds=false", "move_and_attack=true",
                               "morale.despair_again=true")),
        ("smoky_cellar.yaml", ("move_and_attack=true", "morale.despair_disadvantage=false",
                               "morale.wound_divisor=3")),
        ("mounted_charge.yaml", ("critical_pierces=false", "critical_ignores_defense=false",
                                 "fumble_ends_turn=false", "defense_per=round",
                                 "unconscious_rider=falls")),
        ("haunted_crypt.yaml", ("terror_per=body",)),
    ])
    def test_convention_options_show_and_load(self, name: str, sets: tuple[str, ...],
                                              tmp_path: pathlib.Path, capsys) -> None:
        """The options that set a Convention aside, given with --set, show as options a
        scenario writes, and the shown file loads and fights the same battles (terror per
        body too: shown one by one, every ghoul is a kind of its own)."""
        path = str(REPO / "scenarios" / name)
        overrides = [f"options.{text}" for text in sets]
        code, out, err = run(capsys, "show", path, *(a for o in overrides for a in ("--set", o)))
        assert (code, err) == (0, "")
        scenario = load_scenario(REPO / "scenarios" / name, overrides=overrides)
        shown = tmp_path / "shown.yaml"
        shown.write_text(out, encoding="utf-8")
        again = load_scenario(shown)
        # terror_per is left out: members shown one by one are each a kind (per kind is per body)
        assert attrs.evolve(again.options, terror_per=scenario.options.terror_per) == scenario.options
        assert all(run_battle(scenario, seed)[0] == run_battle(again, seed)[0] for seed in range(5))

    @pytest.mark.parametrize("party", [True, False])
    def test_idle_bestiary_keys_are_not_shown(self, tmp_path: pathlib.Path, monkeypatch, capsys,
                                              party: bool) -> None:
        """What a bestiary entry gives that does nothing here (kept quietly behind `use:`, refused
        when written) is not shown: a creature's weapon bonus, heroism, aspects and weapon skill
        against the party (who roll against it), its morale dice with morale off, and with no
        party side the d20 default attack threshold. The shown file loads and fights the same
        battles."""
        out = shown_with_bestiary(tmp_path, monkeypatch, capsys, "d20",
            "rules: d20\ncreatures:\n  brave goblin:\n    hp: 2d6\n    heroism: 2\n"
            "    aspects: [knives]\n    morale: 1d6\n    weapons: [{name: knife, damage: 1d4,"
            " bonus: 1, skill: knives}]\n",
            f"name: s\nrules: d20\nsides:\n  - name: heroes\n    party: {str(party).lower()}\n"
            "    members: [{name: Aria, level: 2, hp: 20, weapons: [{name: sword, damage: 1d8}]}]\n"
            "  - name: goblins\n    members: [{use: brave goblin, count: 2}]\n")
        goblin = yaml.safe_load(out)["sides"][1]["members"][0]
        assert "morale" not in goblin and ("attack_threshold" in goblin) == party
        if party:  # against the party it never rolls: no bonus, heroism, aspects, skill
            assert "heroism" not in goblin and "aspects" not in goblin
            assert goblin["weapons"] == [{"name": "knife", "damage": "1d4"}]
        assert fights_as_shown(tmp_path / "s.yaml", out)


    def test_an_entry_riding_without_its_mount_is_not_shown(self, tmp_path: pathlib.Path,
                                                           monkeypatch, capsys) -> None:
        """`{use: knight, mount: null}`: the entry's riding (kept quietly there, refused when
        written) is left out, the mount's own riding too; the shown file loads and fights the
        same battles."""
        out = shown_with_bestiary(tmp_path, monkeypatch, capsys, "d100",
            "rules: d100\ncreatures:\n"
            "  horse: {hp: 30, skills: {melee: 40, riding: 30}, weapons: [{name: hooves, damage: 1d8}]}\n"
            "  knight: {hp: 20, skills: {melee: 50, riding: 50}, weapons: [{name: sword, damage: 1d8}],"
            " mount: {use: horse}}\n",
            "name: s\nrules: d100\nsides:\n  - name: a\n    party: true\n"
            "    members: [{use: knight, name: Bors, mount: null}, {use: knight, name: Tam}]\n"
            "  - name: b\n    members: [{use: horse, name: nag}]\n")
        bors, tam = yaml.safe_load(out)["sides"][0]["members"]
        assert bors["skills"] == {"melee": 50} and tam["skills"] == {"melee": 50, "riding": 50}
        assert tam["mount"]["skills"] == {"melee": 40}
        assert fights_as_shown(tmp_path / "s.yaml", out)


    def test_an_entry_target_and_area_against_one_enemy_are_not_shown(
            self, tmp_path: pathlib.Path, monkeypatch, capsys) -> None:
        """A bestiary entry's `tactics: {target: weakest}` and area weapon, kept quietly against
        a lone hero (one enemy: nothing to choose, nobody else to hit), are left out, with the
        tactics they empty; the shown file loads and fights the same battles."""
        out = shown_with_bestiary(tmp_path, monkeypatch, capsys, "d20",
            "rules: d20\ncreatures:\n  brute: {level: 2, hp: 10, tactics: {target: weakest},"
            " weapons: [{name: club, damage: 1d6, area: true}]}\n",
            "name: s\nrules: d20\nsides:\n  - name: heroes\n    party: true\n"
            "    members: [{name: Aria, level: 2, hp: 20, weapons: [{name: sword, damage: 1d8}]}]\n"
            "  - name: brutes\n    members: [{use: brute}]\n")
        brute = yaml.safe_load(out)["sides"][1]["members"][0]
        assert "tactics" not in brute and brute["weapons"] == [{"name": "club", "damage": "1d6"}]
        assert fights_as_shown(tmp_path / "s.yaml", out)


    def test_an_entry_range_where_nobody_moves_is_not_shown(self, tmp_path: pathlib.Path,
                                                           monkeypatch, capsys) -> None:
        """Two bestiary archers (knife, then a bow; a bow, then a sling) at distance 0: a range
        is left out when it changes no first weapon; the sling's would (a melee sling strikes
        before a bow) until the bow's is left out. The shown file fights the same battles."""
        out = shown_with_bestiary(tmp_path, monkeypatch, capsys, "d20",
            "rules: d20\ncreatures:\n"
            "  archer: {hp: 8, weapons: [{name: knife, damage: 1d4}, {name: bow, damage: 1d6, range: 30}]}\n"
            "  slinger: {hp: 8, weapons: [{name: bow, damage: 1d6, range: 30},"
            " {name: sling, damage: 1d4, range: 20}]}\n",
            "name: s\nrules: d20\nsides:\n  - name: heroes\n    party: true\n"
            "    members: [{name: Aria, level: 2, hp: 20, weapons: [{name: sword, damage: 1d8}]}]\n"
            "  - name: archers\n    members: [{use: archer}, {use: slinger}]\n")
        archer, slinger = yaml.safe_load(out)["sides"][1]["members"]
        assert [w.get("range") for w in archer["weapons"]] == [None, None]
        assert [w.get("range") for w in slinger["weapons"]] == [None, None]
        assert fights_as_shown(tmp_path / "s.yaml", out)


    def test_an_entry_heroism_for_aspects_never_rolled_is_not_shown(
            self, tmp_path: pathlib.Path, monkeypatch, capsys) -> None:
        """A bestiary rogue's heroism for `aspects: [stealth]`, kept quietly where no stealth
        group check is made, is left out with its aspects; the shown file fights the same."""
        monkeypatch.chdir(tmp_path)
        monkeypatch.delenv("SIM_BESTIARY", raising=False)
        (tmp_path / "bestiary" / "d20").mkdir(parents=True)
        (tmp_path / "bestiary" / "d20" / "x.yaml").write_text(
            "rules: d20\ncreatures:\n  rogue: {level: 2, hp: 12, heroism: 2, aspects: [stealth],"
            " weapons: [{name: knife, damage: 1d4}]}\n", encoding="utf-8")
        (tmp_path / "s.yaml").write_text(
            "name: s\nrules: d20\nsides:\n  - name: heroes\n    party: true\n"
            "    members: [{use: rogue, name: Wren}]\n  - name: rats\n"
            "    members: [{name: rat, hp: 3, weapons: [{name: bite, damage: 1d2}]}]\n",
            encoding="utf-8")
        code, out, err = run(capsys, "show", "s.yaml")
        assert (code, err) == (0, "")
        wren = yaml.safe_load(out)["sides"][0]["members"][0]
        assert "heroism" not in wren and "aspects" not in wren
        assert fights_as_shown(tmp_path / "s.yaml", out)


class TestBestiary:
    """``sim bestiary [RULES] [NAME]``."""

    def test_list_one_line_each(self, here: pathlib.Path, capsys) -> None:
        """Each entry on one line with its stats and weapons, under its folder."""
        code, out, err = run(capsys, "bestiary", "d20")
        assert (code, err) == (0, "")
        assert out.splitlines() == [
            "d20 (bestiary/d20):",
            "  goblin: level 1, hp 2d6, armor 1; rusty blade 1d6",
            "  ogre: level 4, hp 30, armor 2, attack_threshold 15; club 1d10+2",
        ]

    def test_list_every_system(self, capsys) -> None:
        """Without RULES, the repository's bestiary lists all four systems."""
        code, out, _ = run(capsys, "bestiary", "--bestiary", str(REPO / "bestiary"))
        heads = [line.split(" ")[0] for line in out.splitlines() if not line.startswith(" ")]
        assert code == 0 and heads == ["d20", "d100", "2d10", "d10"]

    def test_no_folder_says_how_to_name_one(self, tmp_path: pathlib.Path, monkeypatch, capsys,
                                            no_shipped_bestiary: None) -> None:
        """With no bestiary anywhere above nor shipped, each system says how to name one."""
        monkeypatch.chdir(tmp_path)
        monkeypatch.delenv("SIM_BESTIARY", raising=False)
        code, out, _ = run(capsys, "bestiary", "d10")
        assert (code, out) == (0, "d10: no bestiary folder found from here; name one with"
                                  " --bestiary DIR or SIM_BESTIARY\n")

    def test_show_one(self, here: pathlib.Path, capsys) -> None:
        """RULES NAME (or NAME alone) prints the entry as YAML with its file."""
        code, out, _ = run(capsys, "bestiary", "d20", "goblin")
        assert code == 0 and out.startswith("# d20 bestiary entry, from bestiary/d20/x.yaml\n")
        assert yaml.safe_load(out)["goblin"]["description"] == "Small and numerous."
        assert run(capsys, "bestiary", "goblin")[1] == out

    def test_name_in_several_systems_shows_each(self, capsys) -> None:
        """`sim bestiary wolf` showed the d20 wolf alone, the d100, 2d10 and d10 wolves hidden
        without a word; each system's entry of that name is shown."""
        code, out, _ = run(capsys, "bestiary", "wolf", "--bestiary", str(REPO / "bestiary"))
        heads = [line.split(" ")[1] for line in out.splitlines() if line.startswith("# ")]
        assert code == 0 and heads == ["d20", "d100", "2d10", "d10", "also"]  # also: dire wolf...
        code, out, _ = run(capsys, "bestiary", "d10", "wolf", "--bestiary", str(REPO / "bestiary"))
        assert code == 0 and out.count("# d10 bestiary entry") == 1
        assert [line for line in out.splitlines() if line.startswith("# ")][1:] in ([], [
            line for line in out.splitlines() if line.startswith("# also matching 'wolf': ")])

    def test_missing_entry(self, here: pathlib.Path, capsys) -> None:
        """A text no name holds nor is close to: exit 2, the folders searched and how to add one."""
        code, out, err = run(capsys, "bestiary", "d20", "wyvern")
        assert (code, out) == (2, "")
        assert err == ("sim bestiary: no bestiary entry matches 'wyvern' by name or spelling;"
                       " searched: bestiary/d20; add the entry to a YAML file in a bestiary/d20/"
                       " folder beside the scenario, or name your folder with --bestiary DIR or"
                       " SIM_BESTIARY\n")

    def test_bad_rules(self, here: pathlib.Path, capsys) -> None:
        """RULES that is no rule system, with a NAME after it: exit 2."""
        code, _, err = run(capsys, "bestiary", "d6", "goblin")
        assert code == 2 and "RULES must be one of d20, d100, 2d10, d10" in err

    def test_rules_folder_option(self, here: pathlib.Path, tmp_path_factory, capsys) -> None:
        """--bestiary lib/d20 adds that folder's entries, listed first."""
        lib = tmp_path_factory.mktemp("lib") / "d20"
        lib.mkdir()
        (lib / "y.yaml").write_text("rules: d20\ncreatures:\n  imp: {hp: 5}\n", encoding="utf-8")
        code, out, _ = run(capsys, "bestiary", "d20", "--bestiary", str(lib))
        assert code == 0 and out.splitlines()[0] == f"d20 ({lib}, bestiary/d20):"
        assert "  imp: hp 5" in out.splitlines()

    def test_bad_bestiary_file(self, here: pathlib.Path, capsys) -> None:
        """A broken bestiary file is reported like sim validate does: exit 2, file:line:col."""
        (here / "bestiary" / "d20" / "x.yaml").write_text(BESTIARY.replace("armor: 1", "armor: x"))
        code, out, err = run(capsys, "bestiary", "d20")
        assert (code, out) == (2, "")
        assert err.startswith("bestiary/d20/x.yaml:6:12: creatures.goblin.armor: must be an integer")
