"""Day files (rules §7): bad day files get file:line:col messages where the value was written."""

from __future__ import annotations

import pytest

from sim import cli
from sim.day.file import load_day, load_input
from sim.day.play import run_day
from sim.errors import ScenarioError
from tests.day_files import AMBUSH, MARSH, PARTY, ROOT, WARREN, write_day


class TestDayFile:
    """Bad day files get file:line:col messages, reported where the value was written."""

    def problems(self, tmp_path, body: str) -> list[str]:
        with pytest.raises(ScenarioError) as caught:
            load_day(write_day(tmp_path, body))
        return [str(p) for p in caught.value.problems]

    def warnings(self, tmp_path, body: str) -> list[str]:
        """The warnings of a valid day (valid data it leaves idle): it loads, and plays."""
        day = load_day(write_day(tmp_path, body))
        assert all(w.warning for w in day.warnings)
        run_day(day, 1)
        return [str(w) for w in day.warnings]

    def test_missing_encounter_file(self, tmp_path):
        body = "name: D\nrules: d20\n" + PARTY + "steps:\n  - encounter: nope.yaml\n"
        (line,) = self.problems(tmp_path, body)
        assert line.startswith(f"{tmp_path / 'day.yaml'}:11:16:")
        assert "no encounter file 'nope.yaml'" in line

    def test_missing_encounter_file_gets_a_did_you_mean(self, tmp_path):
        """A misspelt encounter file names the closest YAML file of its folder, written as the
        day wrote it (its folder part kept), like every other name."""
        (tmp_path / "fights").mkdir()
        (tmp_path / "fights" / "road_ambush.yaml").write_text(AMBUSH.read_text(encoding="utf-8"))
        body = "name: D\nrules: d20\n" + PARTY + "steps:\n  - encounter: fights/road_ambsh.yaml\n"
        (line,) = self.problems(tmp_path, body)
        assert line.endswith("no such file); did you mean 'fights/road_ambush.yaml'?")
        (tmp_path / "far" / "fights").mkdir(parents=True)
        (tmp_path / "far" / "fights" / "road_ambush.yaml").write_text(AMBUSH.read_text(encoding="utf-8"))
        body = "name: D\nrules: d20\n" + PARTY + "steps:\n  - encounter: fights/ogre.yaml\n"
        (line,) = self.problems(tmp_path / "far", body)
        assert line.endswith("no such file)")  # nothing close: no guess

    def test_encounter_that_is_a_day_or_a_bestiary(self, tmp_path):
        """An encounter naming a day file (this one, or another) or a bestiary file was told
        '<file>:1:1: sides: must be a list of sides'; now the step says what the file is.
        A folder is no encounter file either, and says so."""
        body = ("name: D\nrules: d20\n" + PARTY + "steps:\n  - encounter: day.yaml\n"
                "  - encounter: bestiary/d20/goblinoids.yaml\n  - encounter: bestiary\n")
        day = tmp_path / "day.yaml"
        assert self.problems(tmp_path, body) == [
            f"{day}:11:16: steps[0].encounter: 'day.yaml' is a day (it has steps:): a day's"
            " fights are written as this day's steps",
            f"{day}:12:16: steps[1].encounter: 'bestiary/d20/goblinoids.yaml' is a bestiary file"
            " (it has creatures:): fight its entries with use: in a scenario",
            f"{day}:13:16: steps[2].encounter: no encounter file 'bestiary' (looked at"
            f" {tmp_path / 'bestiary'}: not a regular file)"]

    @pytest.mark.parametrize(("kind", "shown"), [("nap", "'nap'"), ("[]", "[]"), ("{}", "{}")])
    def test_unknown_rest_kind(self, tmp_path, kind, shown):
        """A rest kind that is not a name (a list, a map) is refused, not looked up."""
        body = "name: D\nrules: d20\n" + PARTY + ("steps:\n  - encounter: " + str(AMBUSH) +
                                                   "\n  - rest: {kind: " + kind + ", hours: 1}\n")
        (line,) = self.problems(tmp_path, body)
        assert f"steps[1].rest.kind: no rest kind {shown}" in line

    @pytest.mark.parametrize("hours", [0, 169, -1, 2.5])
    def test_rest_hours_out_of_bounds_are_refused(self, tmp_path, hours):
        """A rest lasts 1 to 168 hours (a week): 0 and 169 are refused at their key."""
        body = "name: D\nrules: d20\n" + PARTY + ("steps:\n  - encounter: " + str(AMBUSH) +
                                                   f"\n  - rest: {{kind: calm, hours: {hours}}}\n")
        (line,) = self.problems(tmp_path, body)
        assert line.endswith(f"steps[1].rest.hours: must be a whole number of hours 1..168"
                             f" (got {hours})")

    @pytest.mark.parametrize("hours", [1, 168])
    def test_rest_hours_at_the_bounds_are_taken(self, tmp_path, hours):
        body = "name: D\nrules: d20\n" + PARTY + ("steps:\n  - encounter: " + str(AMBUSH) +
                                                   f"\n  - rest: {{kind: calm, hours: {hours}}}\n")
        day = load_day(write_day(tmp_path, body))
        assert day.steps[1].hours == hours

    def test_misspelt_step_and_rest_keys_are_named(self, tmp_path):
        """`rest: {kind: good, hour: 8}` and `- rets: ...` were told only 'must be {kind: ...,
        hours: N}' (or '{encounter...} or {rest...}'), not which key was wrong: now each
        unknown key is named at its place, with the key it is close to."""
        body = ("name: D\nrules: d20\n" + PARTY + "steps:\n  - encounter: " + str(AMBUSH)
                + "\n  - rest: {kind: good, hour: 8}\n  - rets: {kind: good}\n  - rest: {hours: 2}\n")
        day = tmp_path / "day.yaml"
        assert self.problems(tmp_path, body) == [
            f"{day}:12:24: steps[1].rest.hour: unknown key 'hour' in a rest (kind, hours); did"
            " you mean 'hours'?",
            f"{day}:13:5: steps[2].rets: unknown key 'rets' in a step: a step is {{encounter: FILE"
            " or inline scenario} or {rest: {kind, hours}}; did you mean 'rest'?",
            f"{day}:14:11: steps[3].rest: missing required key 'kind' (quick, calm, good or"
            " intensive)"]

    def test_rest_before_the_first_fight_does_nothing(self, tmp_path):
        """A rest before any fight, with morale off, played exactly the day without it (the
        party starts rested): a warning. With morale on it gives a token, and is kept."""
        steps = "steps:\n  - rest: {kind: good, hours: 8}\n  - encounter: " + str(AMBUSH) + "\n"
        (line,) = self.warnings(tmp_path, "name: D\nrules: d20\n" + PARTY + steps)
        assert line.startswith(f"{tmp_path / 'day.yaml'}:11:5: steps[0].rest: does nothing here:"
                               " the party starts the day rested")
        (tmp_path / "morale").mkdir()
        morale = steps.replace("  - encounter: " + str(AMBUSH) + "\n",
                               "  - encounter: {name: E, options: {morale: true},"
                               " sides: [{name: g, members: [{use: goblin}]}]}\n")
        day = load_day(write_day(tmp_path / "morale", "name: D\nrules: d20\n" + PARTY + morale))
        assert [type(s).__name__ for s in day.steps] == ["Rest", "Encounter"]

    @pytest.mark.parametrize("name", ["opposition", "opposition ", "\uff4fpposition"])
    def test_party_named_as_its_foes_is_refused(self, tmp_path, name):
        """A day's results call the winner of a day the party lost 'opposition': a party of
        that name was counted the winner of every day (win 100% beside survived 7%)."""
        body = ("name: D\nrules: d20\n" + PARTY.replace("name: heroes", f"name: '{name}'")
                + "steps:\n  - encounter: " + str(AMBUSH) + "\n")
        (line,) = self.problems(tmp_path, body)
        assert line.startswith(f"{tmp_path / 'day.yaml'}:4:9: party.name: 'opposition' is the"
                               " name a day's results give the party's foes")

    def test_encounter_name_too_long_is_told_at_the_step(self, tmp_path):
        """An encounter file name the system refuses (longer than a name may be) was reported
        as '<that file>:0:0: (document): File name too long', in a file that is not there."""
        name = "a" * 300 + ".yaml"
        body = "name: D\nrules: d20\n" + PARTY + f"steps:\n  - encounter: {name}\n"
        (line,) = self.problems(tmp_path, body)
        assert line.startswith(f"{tmp_path / 'day.yaml'}:11:16: steps[0].encounter: no encounter"
                               " file 'aaaa") and line.endswith(": File name too long)")

    def test_encounter_with_other_rules(self, tmp_path):
        other = ROOT / "scenarios" / "burning_barn.yaml"
        body = "name: D\nrules: d20\n" + PARTY + "steps:\n  - encounter: " + str(other) + "\n"
        (line,) = self.problems(tmp_path, body)
        assert "uses rules 'd100' but the day is d20" in line

    @pytest.mark.parametrize(("value", "problem"), [
        ("true", None), ("5", "options.morale.on: must be true or false (got 5)")])
    def test_morale_on_key_in_an_encounter(self, tmp_path, value, problem):
        """YAML 1.1 reads a plain `on:` as true: an encounter's `morale: {on: ...}` loads in a
        day as it does alone, and a bad value is reported at its own line (it used to crash)."""
        body = ("name: D\nrules: d20\n" + PARTY + "steps:\n  - encounter:\n"
                "      name: E\n      rules: d20\n"
                f"      options: {{morale: {{on: {value}}}}}\n"
                "      sides:\n        - name: goblins\n          members: [{use: goblin}]\n")
        if problem is None:
            assert load_day(write_day(tmp_path, body)).steps
        else:
            (line,) = self.problems(tmp_path, body)
            assert line.startswith(f"{tmp_path / 'day.yaml'}:14:") and problem in line

    def test_inline_problem_at_its_line(self, tmp_path):
        """A bad value in an inline encounter is reported at its line of the day file."""
        body = ("name: D\nrules: d20\n" + PARTY + "steps:\n  - encounter:\n      name: Inline\n"
                "      sides:\n        - name: foes\n          members:\n"
                "            - {use: goblin, count: 0}\n")
        (line,) = self.problems(tmp_path, body)
        assert "day.yaml:16:36:" in line
        assert "steps[0].encounter.sides[0].members[0].count" in line

    def test_party_problem_in_the_day_file(self, tmp_path):
        """A bad party member is reported once, in the day file, under party."""
        body = ("name: D\nrules: d20\nparty:\n  name: heroes\n  members:\n"
                "    - {use: knight, name: Bo, hp: -3}\n"
                "steps:\n  - encounter: " + str(AMBUSH) + "\n  - encounter: " + str(AMBUSH) + "\n")
        (line,) = self.problems(tmp_path, body)
        assert "day.yaml:6:" in line and "party.members[0].hp" in line

    def test_inline_encounter_has_no_party_side(self, tmp_path):
        """A party side written in an inline encounter is refused at its `party:` (the day's
        party fights every encounter: the side and its members would vanish without a word)."""
        body = ("name: D\nrules: d20\n" + PARTY + "steps:\n  - encounter:\n      name: Inline\n"
                "      sides:\n        - name: helpers\n          party: true\n"
                "          members: [{use: knight, name: Greta}]\n"
                "        - name: foes\n          members: [{use: goblin}]\n")
        (line,) = self.problems(tmp_path, body)
        assert "day.yaml:15:11:" in line and "steps[0].encounter.sides[0].party" in line
        assert "an inline encounter has no party side" in line

    def test_party_key_in_the_day_party_does_nothing(self, tmp_path):
        """`party:` in the day's party block is a warning (it is always the party side)."""
        body = ("name: D\nrules: d20\nparty:\n  name: heroes\n  party: false\n"
                "  members: [{use: knight, name: Bo}]\nsteps:\n  - encounter: " + str(AMBUSH) + "\n")
        (line,) = self.warnings(tmp_path, body)
        assert "day.yaml:5:3:" in line and "party.party: does nothing here" in line

    def test_a_bow_one_fight_draws_is_no_warning(self, tmp_path):
        """A party bow idle in a fight at 0 m but drawn in the one at 20 m is not idle in the
        day: no warning, and --strict plays the day; with both fights at 0 m it is told once."""
        party = ("party:\n  name: heroes\n  members:\n"
                 "    - {name: Aria, level: 3, hp: 24, weapons: [{name: sword, damage: 1d8},"
                 " {name: bow, damage: 1d6, range: 30}]}\n")
        close = ("  - encounter:\n      name: Close\n"
                 "      sides: [{name: goblins, members: [{use: goblin}]}]\n")
        far = close.replace("Close", "Far").replace("      sides:", "      distance: 20\n      sides:")
        assert self.warnings(tmp_path, "name: D\nrules: d20\n" + party + "steps:\n" + close + far) == []
        assert cli.main(["batch", str(tmp_path / "day.yaml"), "-n", "2", "--strict", "--workers", "1",
                         "--json", "--no-progress"]) == 0
        (tmp_path / "idle").mkdir()
        (line,) = self.warnings(tmp_path / "idle", "name: D\nrules: d20\n" + party + "steps:\n" + close
                                + close.replace("Close", "Cellar"))
        assert "party.members[0].weapons[1].range: does nothing here: everyone starts within reach" in line

    def test_party_key_one_encounter_reads_is_kept(self, tmp_path):
        """A party member's `spirit: 2d12` (or morale tokens) in a day whose crypt has terror and
        spirit on but whose road has neither was refused by the road ('does nothing without
        options: {spirit: true}'), so the day could not be written: the party is one for the
        day. A party key one fight reads is not idle, so no fight warns of it (a warning there
        would ask to delete what the crypt needs, and --strict would refuse the day); a key no
        fight reads is told once."""
        party = ("party:\n  name: heroes\n  members:\n"
                 "    - {use: knight, name: Bo, spirit: 2d12}\n")
        crypt = ("  - encounter:\n      name: Crypt\n      options: {spirit: true}\n"
                 "      sides: [{name: dead, members: [{use: ghoul}]}]\n")
        road = ("  - encounter:\n      name: Road\n"
                "      sides: [{name: goblins, members: [{use: goblin}]}]\n")
        day = load_day(write_day(tmp_path, "name: D\nrules: d20\n" + party + "steps:\n" + crypt
                                 + road))
        assert [s.scenario.sides[0].members[0].spirit is not None for s in day.steps] == [True] * 2
        assert day.warnings == ()
        (tmp_path / "again").mkdir()
        (line,) = self.warnings(tmp_path / "again", "name: D\nrules: d20\n" + party + "steps:\n"
                                + road + road.replace("Road", "Lane"))  # told once for both
        assert "party.members[0].spirit: does nothing here: without options: {spirit: true}" in line
        # A warning excuses no mistake: a side of one encounter named as the party clashes.
        (tmp_path / "dup").mkdir()
        (tmp_path / "dup" / "e.yaml").write_text(
            "name: E\nrules: d20\nsides:\n  - name: heroes\n    members: [{use: goblin}]\n"
            "  - {name: pcs, party: true, members: [{use: goblin}]}\n")
        (line,) = self.problems(tmp_path / "dup", "name: D\nrules: d20\n" + party.replace(
            ", spirit: 2d12", "") + "steps:\n  - encounter: e.yaml\n" + road)
        assert line.endswith("party.name: duplicate side name 'heroes'")

    def test_description_is_a_text(self, tmp_path):
        """A day's description must be a text, as a scenario's is."""
        body = ("name: D\nrules: d20\ndescription: 42\n" + PARTY + "steps:\n  - encounter: "
                + str(AMBUSH) + "\n")
        (line,) = self.problems(tmp_path, body)
        assert "day.yaml:3:" in line and "description: must be a non-empty string (got 42)" in line

    def test_name_and_description_bounded_as_a_scenarios(self, tmp_path):
        """A day's name of 100,000 characters, or holding control characters, and a description
        past 5,000 characters were accepted (a scenario's are refused): the name is written in
        every log line day_started, summary and report of the day."""
        long = "x" * 100_000
        body = (f'name: "{long}"\nrules: d20\ndescription: "{long}"\n' + PARTY
                + "steps:\n  - encounter: " + str(AMBUSH) + "\n")
        assert [line.split(": ", 1)[1] for line in self.problems(tmp_path, body)] == [
            "name: must be at most 80 characters (got 100000)",
            "description: must be at most 5000 characters (got 100000)"]
        (tmp_path / "c").mkdir()
        body = body.replace(f'"{long}"', '"a\\x1b[2Jb"', 1).replace(f'"{long}"', "D")
        (line,) = self.problems(tmp_path / "c", body)
        assert line.endswith("name: must not contain control characters (got 'a\\x1b[2Jb')")

    def test_level_outside_d20_only_for_a_resting_party(self, tmp_path):
        """Outside d20 only a day's rests read `level` (rules §7: 1d4+level HP an hour...): a
        d100 party member's level is kept in a day with a rest, and without one too (it is
        part of its sheet, as the docs and the shipped heroes give it); a foe's is a warning."""
        party = "party:\n  name: heroes\n  members:\n    - {use: knight, name: Bo, level: 4}\n"
        steps = ("steps:\n  - encounter:\n      name: E\n      sides:\n        - name: outlaws\n"
                 "          members: [{use: brigand}]\n")
        rest = "  - rest: {kind: quick, hours: 1}\n"
        day = load_day(write_day(tmp_path, "name: D\nrules: d100\n" + party + steps + rest))
        assert day.steps[0].scenario.sides[0].members[0].level == 4  # the party is listed first
        (tmp_path / "again").mkdir()
        without_rest = "name: D\nrules: d100\n" + party + steps
        assert load_day(write_day(tmp_path / "again", without_rest)).warnings == ()
        (tmp_path / "foe").mkdir()
        foe = steps.replace("{use: brigand}", "{use: brigand, level: 2}")
        (line,) = self.warnings(tmp_path / "foe", "name: D\nrules: d100\n" + party + foe)
        assert "level: does nothing here: d100" in line and "no party member" in line

    def test_validate_says_day(self, capsys):
        assert cli.main(["validate", str(WARREN), str(MARSH)]) == 0
        assert capsys.readouterr().out.count("ok (day)") == 2


class TestUnhealableRecovery:
    """A day's ``options: {unhealable_recovery: level_rates | rest_dice}`` (rules §7)."""

    GOOD_REST = ("steps[1].rest.kind=good",)

    def test_read_and_played(self):
        """rest_dice is kept on the day, and its rests play it: after a good rest, a member's
        unhealable HP are at most what its HP leave below the maximum."""
        day = load_input(MARSH, overrides=(*self.GOOD_REST, "options.unhealable_recovery=rest_dice"))
        assert day.unhealable_recovery == "rest_dice"
        assert load_input(MARSH).unhealable_recovery == "level_rates"
        rested = [e for seed in range(40) for e in run_day(day, seed, log=True)[1]
                  if e["event"] == "rested" and e["unhealable_before"] > 0]
        assert rested
        assert all(e["unhealable_after"] == min(e["unhealable_before"], e["max_hp"] - e["hp_after"])
                   for e in rested)

    def test_refused(self):
        """An unknown value is refused."""
        with pytest.raises(ScenarioError) as caught:
            load_input(MARSH, overrides=("options.unhealable_recovery=by_magic",))
        assert ["must be one of level_rates, rest_dice" in p.message
                for p in caught.value.problems] == [True]

    def test_idle_with_only_a_calm_rest(self):
        """rest_dice with only a calm rest does nothing: a warning, and the day plays."""
        day = load_input(MARSH, overrides=("options.unhealable_recovery=rest_dice",))
        assert [w.message for w in day.warnings] == [
            "does nothing here: no rest of this day gives unhealable HP back with it (only good"
            " or intensive) (from --set options.unhealable_recovery=rest_dice)"]

    def test_idle_outside_d100(self):
        """Outside d100 nobody pays HP for spells: the option does nothing and says so."""
        day = load_input(WARREN, overrides=("options.unhealable_recovery=level_rates",))
        assert "spells are d100's" in day.warnings[0].message

    def test_idle_in_a_scenario(self, tmp_path):
        """In a scenario's (an encounter's) options it does nothing: only a day's rests read it."""
        scenario = load_input(ROOT / "scenarios" / "poisoned_darts.yaml",
                              overrides=("options.unhealable_recovery=rest_dice",))
        assert "only a day's rests read it" in scenario.warnings[0].message
