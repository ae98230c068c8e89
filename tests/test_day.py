"""Adventuring days (RULES 7): rests, what carries over, the end of a day, its batch."""

from __future__ import annotations

import json
import math
import pathlib
import random
from collections import Counter

import pytest

from sim import cli
from sim.day import REST_KINDS, Member, load_day, rest, run_day
from sim.engine import run_battle
from sim.errors import ScenarioError
from sim.scenario import load_scenario
from sim.state import BROKEN, Fighter
from tests.builders import fighter, side

ROOT = pathlib.Path(__file__).parent.parent
WARREN = ROOT / "scenarios" / "days" / "goblin_warren.yaml"
MARSH = ROOT / "scenarios" / "days" / "marsh_road.yaml"
AMBUSH = ROOT / "scenarios" / "road_ambush.yaml"

PARTY = """\
party:
  name: heroes
  members:
    - {use: knight, name: Sir Bors}
    - {use: ranger, name: Aria}
    - {use: rogue, name: Wren}
    - {use: priest, name: Brother Anselm}
"""


def write_day(tmp_path: pathlib.Path, body: str, name: str = "day.yaml") -> pathlib.Path:
    path = tmp_path / name
    path.write_text(body)
    (tmp_path / "bestiary").symlink_to(ROOT / "bestiary")
    return path


def member(level: int = 2, **fields) -> Member:
    m = Member("M", level, max_psy=fields.pop("max_psy", 10), max_heroism=fields.pop("max_heroism", 2))
    m.max_hp = fields.pop("max_hp", 100)
    for key, value in fields.items():
        setattr(m, key, value)
    return m


class TestRestArithmetic:
    """One hour of each kind of rest, against its exact distribution (RULES 7)."""

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
            m = member(level, hp=0)
            rest(m, kind, 1, rng)
            seen[m.hp] += 1
        exact = Counter(f + level for f in faces)
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

    def test_stabilised_member_wakes_with_first_hp(self):
        """An unconscious member at 0 HP wakes with the first HP a rest gives."""
        m = member(hp=0, status="unconscious")
        rest(m, "quick", 1, random.Random(1))
        assert m.hp > 0 and m.status == "active"

    def test_rest_kinds_are_the_four_of_rules_7(self):
        assert set(REST_KINDS) == {"quick", "calm", "good", "intensive"}


def battles(events: list[dict]) -> list[list[dict]]:
    out: list[list[dict]] = []
    for e in events:
        if e["event"] == "battle_started":
            out.append([])
        if out and e["event"] not in ("encounter_ended", "rested", "day_ended", "encounter_started"):
            out[-1].append(e)
    return out


class TestCarryOver:
    """What the party carries from fight to fight."""

    def test_hp_and_heroism_carry_through_a_rest(self):
        """Each member enters the next fight with the HP and heroism its rest left it."""
        day = load_day(WARREN)
        for seed in range(1, 12):
            _, events = run_day(day, seed, log=True)
            fights = battles(events)
            if len(fights) < 2:
                continue
            rested = {e["actor"]: e for e in events if e["event"] == "rested" and e["step"] == 1}
            second = {c["name"]: c for c in fights[1][0]["combatants"]}
            assert set(rested) == {"Sir Bors", "Aria", "Wren", "Brother Anselm"} & set(second)
            for name, after in rested.items():
                assert second[name]["hp"] == after["hp_after"]
                assert second[name]["max_hp"] == after["max_hp"]
                assert second[name].get("heroism", 0) == after["heroism_after"]
            return
        pytest.fail("no seed reached a second fight")

    def test_dead_stay_dead(self, tmp_path):
        """A member dead in one fight is absent from every later fight of the day (with destiny
        points, a party member dies at 0 HP once the points are spent, even in a won fight)."""
        body = ("name: Destiny day\nrules: d20\noptions: {destiny_points: 1}\n" + PARTY +
                "steps:\n  - encounter: " + str(AMBUSH) + "\n  - rest: {kind: quick, hours: 1}\n"
                "  - encounter: " + str(AMBUSH) + "\n")
        day = load_day(write_day(tmp_path, body))
        for seed in range(1, 60):
            _, events = run_day(day, seed, log=True)
            fights = battles(events)
            dead_first = set(fights[0][-1]["dead"]) & {"Sir Bors", "Aria", "Wren", "Brother Anselm"}
            if len(fights) >= 2 and dead_first:
                names = {c["name"] for c in fights[1][0]["combatants"]}
                assert not names & dead_first
                return
        pytest.fail("no seed with a party death and a second fight")

    def test_a_broken_mind_carries_its_cause(self):
        """A mind broken in an earlier fight enters the next one broken, out of the fight, and
        keeps its cause (terror): it dies of it if its side loses (RULES 3, 5)."""
        m = member(hp=30, status=BROKEN, cause="terror")
        spec = fighter("M")
        f = Fighter(spec, side("heroes", spec, party=True), 0, 30, 0.0)
        m.hand_over(f)
        assert (f.status, f.able, f.cause) == (BROKEN, False, "terror")

    def test_psy_unhealable_and_fatigue_carry(self):
        """PSY spent and HP paid for spells stay spent into the rest and the next fight."""
        day = load_day(MARSH)
        for seed in range(1, 80):
            _, events = run_day(day, seed, log=True)
            rests = {e["actor"]: e for e in events if e["event"] == "rested"}
            gwen = rests.get("Mother Gwen")
            if gwen and gwen["psy_before"] < gwen["max_psy"]:
                fights = battles(events)
                second = {c["name"]: c for c in fights[1][0]["combatants"]}
                assert second["Mother Gwen"]["hp"] == gwen["hp_after"]
                assert gwen["psy_after"] == min(gwen["max_psy"], gwen["psy_before"] + 2 * 2)
                return
        pytest.fail("the hedge mage never cast before a rest")

    def test_items_carry_over(self, tmp_path):
        """Items (RULES.md §8): a potion drunk in one fight is gone in the next; the day's row
        counts the items used over the day."""
        party = PARTY.replace("{use: knight, name: Sir Bors}",
                              "{use: knight, name: Sir Bors, items: [{heal: 2d4, count: 3}],"
                              " tactics: {potion_at: 0.9}}")
        body = ("name: Potion day\nrules: d20\n" + party + "steps:\n  - encounter: " + str(AMBUSH)
                + "\n  - rest: {kind: quick, hours: 1}\n  - encounter: " + str(AMBUSH) + "\n")
        day = load_day(write_day(tmp_path, body))
        for seed in range(1, 40):
            outcome, events = run_day(day, seed, log=True)
            fights = battles(events)
            used = [e for e in fights[0] if e["event"] == "item_used"]
            if len(fights) < 2 or not used:
                continue
            second = {c["name"]: c for c in fights[1][0]["combatants"]}
            left = used[-1]["left"]
            assert second["Sir Bors"].get("items", {}).get("healing potion", 0) == left
            total = sum(e["event"] == "item_used" for e in events)
            assert outcome.rows[0][6] == total
            return
        pytest.fail("no seed where the knight drank in the first of two fights")

    def test_destiny_points_carry_and_are_never_restored(self, tmp_path):
        """The day's destiny points are spent across fights and no rest restores them."""
        body = ("name: Destiny day\nrules: d20\noptions: {destiny_points: 2}\n" + PARTY +
                "steps:\n  - encounter: " + str(AMBUSH) + "\n  - rest: {kind: good, hours: 8}\n"
                "  - encounter: " + str(AMBUSH) + "\n")
        day = load_day(write_day(tmp_path, body))
        for seed in range(1, 40):
            _, events = run_day(day, seed, log=True)
            spent = [i for i, e in enumerate(events)
                     if e["event"] == "resource_spent" and e["resource"] == "destiny"]
            assert len(spent) <= 2
            rest_at = next((i for i, e in enumerate(events) if e["event"] == "rested"), None)
            # One point spent before the 8-hour rest, the other after it: carried, not restored.
            if len(spent) == 2 and rest_at is not None and spent[0] < rest_at < spent[1]:
                assert [events[i]["left"] for i in spent] == [1, 0]
                return
        pytest.fail("no seed spent both points")


class TestHandOver:
    """Member.take_back and hand_over: what a fighter leaves one fight with, the next gets."""

    def fighters(self, morale: bool = False):
        from tests.builders import battle, fighter, scenario, side

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


class TestEndOfDay:
    """The day ends at the first fight the party does not win."""

    def test_later_steps_not_reached_after_a_tpk(self):
        """After a lost fight no encounter starts and no one rests; steps say not reached."""
        day = load_day(WARREN)
        for seed in range(1, 50):
            outcome, events = run_day(day, seed, log=True)
            if outcome.steps[0].reached and not outcome.steps[0].won:
                assert [s.reached for s in outcome.steps] == [True, False, False, False, False]
                assert sum(e["event"] == "encounter_started" for e in events) == 1
                assert not any(e["event"] == "rested" for e in events)
                assert outcome.winner == "opposition" and not outcome.completed
                return
        pytest.fail("no seed lost the first fight")

    def test_one_encounter_day_is_that_scenario(self, tmp_path):
        """A day of one encounter plays exactly that scenario's battle on the same seed."""
        body = "name: One fight\nrules: d20\n" + PARTY + "steps:\n  - encounter: " + str(AMBUSH) + "\n"
        day = load_day(write_day(tmp_path, body))
        scenario = load_scenario(AMBUSH)
        for seed in range(5):
            outcome, events = run_day(day, seed, log=True)
            alone, alone_events = run_battle(scenario, seed, log=True)
            assert outcome.winner == ("heroes" if alone.winner == "heroes" else "opposition")
            assert battles(events)[0] == alone_events
            assert outcome.rounds == alone.rounds

    def test_one_encounter_day_batch_matches(self, tmp_path, capsys):
        """The day's batch gives the scenario's win rate, TPK and deaths exactly."""
        body = "name: One fight\nrules: d20\n" + PARTY + "steps:\n  - encounter: " + str(AMBUSH) + "\n"
        path = write_day(tmp_path, body)
        summaries = []
        for name, target in (("day", path), ("scenario", AMBUSH)):
            assert cli.main(["batch", str(target), "-n", "300", "--workers", "1", "--json",
                             "--no-progress", "--out", str(tmp_path / name)]) == 0
            summaries.append(json.loads(capsys.readouterr().out))
        day, alone = summaries
        assert day["sides"]["heroes"]["win_rate"] == alone["sides"]["heroes"]["win_rate"]
        assert day["tpk"] == alone["tpk"]
        for name in ("Sir Bors", "Aria", "Wren", "Brother Anselm"):
            assert day["combatants"][name]["death"] == alone["combatants"][name]["death"]
        assert day["party"]["any_death"] == alone["party"]["any_death"]


class TestBatchOfDays:
    """Days run in batches like battles: same seeds, same results, resumable."""

    def test_workers_give_the_same_days(self, tmp_path, capsys):
        """One worker and two give the same summary and rows."""
        out = []
        for workers in ("1", "2"):
            assert cli.main(["batch", str(WARREN), "-n", "120", "--chunk", "40", "--workers", workers,
                             "--json", "--no-progress", "--out", str(tmp_path / workers)]) == 0
            summary = json.loads(capsys.readouterr().out)
            summary.pop("elapsed_s")
            out.append(summary)
        assert out[0] == out[1]
        steps = out[0]["steps"]
        assert [s["kind"] for s in steps] == ["encounter", "rest", "encounter", "rest", "encounter"]
        assert steps[0]["reached"]["p"] == 1.0
        assert steps[2]["reached"]["p"] == steps[0]["won"]["p"]
        assert set(out[0]["day"]) >= {"survived", "any_death"}

    def test_resume_of_days(self, tmp_path, capsys):
        """A run of days interrupted after its first chunk resumes to the same results."""
        from sim.batch import Batch, BatchSpec, run_chunk, start_run

        straight = tmp_path / "straight"
        assert cli.main(["batch", str(WARREN), "-n", "90", "--chunk", "30", "--workers", "1",
                         "--json", "--no-progress", "--out", str(straight)]) == 0
        expected = json.loads(capsys.readouterr().out)

        day = load_day(WARREN)
        spec = BatchSpec(n=90, seed=1, chunk=30)
        folder = start_run(tmp_path / "cut", day, spec, ["batch"])

        def one_then_stop(tasks, _window):
            for number, task in enumerate(tasks):
                if number == 1:
                    raise KeyboardInterrupt
                yield run_chunk(task)

        with pytest.raises(KeyboardInterrupt):
            Batch(day, spec, folder, one_then_stop, window=1).run()
        folder.release()  # as the interrupted process would on exit
        assert cli.main(["batch", "--resume", str(folder.path), "--json", "--no-progress",
                         "--workers", "1"]) == 0
        resumed = json.loads(capsys.readouterr().out)
        for summary in (expected, resumed):
            summary.pop("elapsed_s")
        assert resumed == expected

    def test_replay_and_verify_of_days(self, tmp_path, capsys):
        """sim replay RUN_DIR --worst regenerates a day; a day's log verifies."""
        out = tmp_path / "run"
        assert cli.main(["batch", str(WARREN), "-n", "30", "--workers", "1", "--json",
                         "--no-progress", "--out", str(out)]) == 0
        capsys.readouterr()
        log = tmp_path / "worst.jsonl"
        assert cli.main(["replay", str(out), "--worst", "--log", str(log)]) == 0
        head = json.loads(log.read_text().splitlines()[0])
        assert head["event"] == "day_started" and head["batch"]["seed"] == 1
        assert cli.main(["replay", "--verify", str(log)]) == 0
        assert "identical" in capsys.readouterr().out


class TestDayFile:
    """Bad day files get file:line:col messages, reported where the value was written."""

    def problems(self, tmp_path, body: str) -> list[str]:
        with pytest.raises(ScenarioError) as caught:
            load_day(write_day(tmp_path, body))
        return [str(p) for p in caught.value.problems]

    def test_missing_encounter_file(self, tmp_path):
        body = "name: D\nrules: d20\n" + PARTY + "steps:\n  - encounter: nope.yaml\n"
        (line,) = self.problems(tmp_path, body)
        assert line.startswith(f"{tmp_path / 'day.yaml'}:11:16:")
        assert "no encounter file 'nope.yaml'" in line

    def test_unknown_rest_kind(self, tmp_path):
        body = "name: D\nrules: d20\n" + PARTY + ("steps:\n  - encounter: " + str(AMBUSH) +
                                                   "\n  - rest: {kind: nap, hours: 1}\n")
        (line,) = self.problems(tmp_path, body)
        assert "steps[1].rest.kind: no rest kind 'nap'" in line

    def test_encounter_with_other_rules(self, tmp_path):
        other = ROOT / "scenarios" / "burning_barn.yaml"
        body = "name: D\nrules: d20\n" + PARTY + "steps:\n  - encounter: " + str(other) + "\n"
        (line,) = self.problems(tmp_path, body)
        assert "uses rules 'd100' but the day is d20" in line

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

    def test_validate_says_day(self, capsys):
        assert cli.main(["validate", str(WARREN), str(MARSH)]) == 0
        assert capsys.readouterr().out.count("ok (day)") == 2


class TestDayReplay:
    """Both replays step through a whole day: fights, then rests, then fights."""

    def test_battle_view_follows_rests_and_fights(self):
        """The replay state shows each rest's HP, then the next fight's carried HP."""
        from sim.replay_state import BattleView

        day = load_day(WARREN)
        for seed in range(1, 30):
            _, events = run_day(day, seed, log=True)
            rests = [i for i, e in enumerate(events) if e["event"] == "rested"]
            if not rests:
                continue
            view = BattleView(events)
            view.goto(rests[0])
            rested = events[rests[0]]
            assert view.combatants[rested["actor"]].hp == rested["hp_after"]
            second = next(i for i, e in enumerate(events) if e["event"] == "battle_started" and i > rests[0])
            view.goto(second)
            for entry in events[second]["combatants"]:
                assert view.combatants[entry["name"]].hp == entry["hp"]
            return
        pytest.fail("no seed reached a rest")

    def test_show_prints_every_fight(self, capsys):
        """sim show DAY prints each encounter as it will be fought, and the rests."""
        assert cli.main(["show", str(WARREN)]) == 0
        out = capsys.readouterr().out
        assert "# step 1: encounter" in out and "# step 2: quick rest, 1 h" in out
        assert out.count("Sir Bors") >= 3
