"""Adventuring days (rules §7): what carries over through a day, the end of a day, its batch."""

from __future__ import annotations

import json

import pytest

from sim import cli
from sim.day.file import load_day
from sim.day.play import run_day
from sim.engine import run_battle
from sim.replay.narrate import narrate
from sim.replay.state import BattleView
from sim.scenario import load_scenario
from tests.day_files import AMBUSH, MARSH, PARTY, WARREN, write_day


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

    def test_psy_unhealable_and_fatigue_carry(self):
        """PSY spent and HP paid for spells stay spent into the rest and the next fight."""
        day = load_day(MARSH)
        for seed in range(1, 80):
            _, events = run_day(day, seed, log=True)
            rests = {e["actor"]: e for e in events if e["event"] == "rested"}
            gwen = rests.get("Mother Gwen")
            # (at 0 HP she is beyond rest and carried along, out of the next fight: rules §7)
            if gwen and gwen["psy_before"] < gwen["max_psy"] and gwen["hp_before"] > 0:
                fights = battles(events)
                second = {c["name"]: c for c in fights[1][0]["combatants"]}
                assert second["Mother Gwen"]["hp"] == gwen["hp_after"]
                assert gwen["psy_after"] == min(gwen["max_psy"], gwen["psy_before"] + 2 * 2)
                return
        pytest.fail("the hedge mage never cast before a rest")

    def test_load_fatigue_outlasts_a_rest(self, tmp_path):
        """Encumbrance (rules §3, d100): the sellsword's 60 kg, 5 over her capacity, cost her 1
        fatigue in every fight; an 8-hour good rest takes off the fatigue of her swings, not her
        load's, so her first blow of the second fight is at -5 as in the first."""
        body = ("name: Load day\nrules: d100\nparty:\n  name: heroes\n  members:\n"
                "    - {use: sellsword, name: Greta}\nsteps:\n"
                "  - encounter: {name: one, sides: [{name: b, members: [{use: brigand}]}]}\n"
                "  - rest: {kind: good, hours: 8}\n"
                "  - encounter: {name: two, sides: [{name: b, members: [{use: brigand}]}]}\n")
        day = load_day(write_day(tmp_path, body))
        _, events = run_day(day, 1, log=True)
        fights = battles(events)
        assert len(fights) == 2
        rested = next(e for e in events if e["event"] == "rested")
        assert rested["fatigue_before"] > 1 and rested["fatigue_after"] == 1
        for fight in fights:
            first = next(e for e in fight if e["event"] == "check_rolled"
                         and e["actor"] == "Greta" and e["purpose"] == "attack")
            assert first["modifier"] == -5

    def test_items_carry_over(self, tmp_path):
        """Items (rules §8): a potion drunk in one fight is gone in the next; the day's row
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

    def test_nobody_rides_a_mount_still_down(self, tmp_path):
        """A mount stabilised at 0 HP after a won fight carried its rider into the next one: the
        rider was seated on it and rolled riding (rules §6: nobody rides an unconscious mount).
        The rider now starts that fight on foot."""
        body = ("name: D\nrules: d100\nparty:\n  name: knights\n  members:\n"
                "    - {use: knight, name: Sir Bors, mount: {use: warhorse, hp: 4}}\n"
                "    - {use: knight, name: Dame Aude, mount: {use: warhorse, hp: 4}}\n"
                "steps:\n"
                "  - encounter: {name: A, sides: [{name: b, members: [{use: brigand, count: 3}]}]}\n"
                "  - encounter: {name: B, sides: [{name: c, members: [{use: brigand}]}]}\n")
        day = load_day(write_day(tmp_path, body))
        checked = 0
        for seed in range(1, 40):
            _, events = run_day(day, seed, log=True)
            fights = battles(events)
            if len(fights) < 2:
                continue
            hp = {c["name"]: c["hp"] for c in fights[1][0]["combatants"]}
            for rider in ("Sir Bors", "Dame Aude"):
                # A mount at 0 HP is carried along, out of the fight (rules §7), or on its feet.
                if hp.get(f"warhorse of {rider}") or not hp.get(rider):
                    continue
                checked += 1
                assert not any(e["event"] == "effect_started" and e["target"] == rider
                               and e["effect"] == "mounted" for e in fights[1])
                assert not any(e["event"] == "check_rolled" and e["actor"] == rider
                               and e.get("skill") == "riding" for e in fights[1])
        assert checked >= 3

    def test_a_member_dead_in_one_fight_and_named_in_a_later_hazard(self, tmp_path):
        """A later encounter whose hazard names a party member who died earlier (destiny
        points spent) crashed the day with KeyError (exit 1, a batch's worker lost); the dead
        are left out of its zones, as of its sides."""
        body = ("name: D\nrules: d20\noptions: {destiny_points: 1}\nparty:\n  name: heroes\n"
                "  members:\n    - {use: knight, name: Sir Bors, hp: 60}\n"
                "    - {use: ranger, name: Aria, hp: 1}\n    - {use: rogue, name: Wren, hp: 1}\n"
                "steps:\n"
                "  - encounter: {name: A, sides: [{name: g, members: [{use: goblin, count: 3}]}]}\n"
                "  - encounter:\n      name: B\n"
                "      hazards: [{kind: water, zone: ford, members: [Aria], escape: none}]\n"
                "      sides: [{name: c, members: [{use: goblin}]}]\n")
        day = load_day(write_day(tmp_path, body))
        reached = 0
        for seed in range(1, 20):
            _, events = run_day(day, seed, log=True)
            fights = battles(events)
            if len(fights) == 2 and all(c["name"] != "Aria" for c in fights[1][0]["combatants"]):
                reached += 1
                assert not any(e.get("target") == "Aria" for e in fights[1])
        assert reached >= 1


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

    def test_a_drawn_fight_ends_the_day(self, tmp_path, capsys):
        """A draw is a fight the party does not win: the day ends there (winner null, not
        completed), no one rests and no later encounter starts. The first fight is built to
        draw on every seed: one round against a wall of 100,000 HP whose fist deals 1."""
        wall = "{name: Wall, hp: 100000, armor: 30, weapons: [{name: fist, damage: 1}]}"
        body = ("name: Drawn day\nrules: d20\n" + PARTY + "steps:\n"
                "  - encounter: {name: stalemate, max_rounds: 1, sides: [{name: wall, members: ["
                + wall + "]}]}\n"
                "  - rest: {kind: good, hours: 8}\n"
                "  - encounter: " + str(AMBUSH) + "\n")
        path = write_day(tmp_path, body)
        day = load_day(path)
        for seed in range(1, 6):
            outcome, events = run_day(day, seed, log=True)
            assert [s.reached for s in outcome.steps] == [True, False, False]
            assert outcome.steps[0].winner is None and not outcome.steps[0].won
            assert outcome.winner is None and not outcome.completed and outcome.survived
            assert sum(e["event"] == "encounter_started" for e in events) == 1
            assert not any(e["event"] == "rested" for e in events)
            assert events[-1]["event"] == "day_ended" and events[-1]["winner"] is None
        assert cli.main(["batch", str(path), "-n", "20", "--workers", "1", "--json",
                         "--no-progress", "--out", str(tmp_path / "run")]) == 0
        steps = json.loads(capsys.readouterr().out)["steps"]
        assert [s["reached"]["p"] for s in steps] == [1.0, 0.0, 0.0]
        assert steps[0]["won"]["p"] == 0.0 and steps[0]["ended_here"]["p"] == 1.0

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


    def test_verify_of_a_day_given_by_a_relative_path(self, tmp_path, capsys, monkeypatch):
        """A day run as `sim run DAY --log` from its folder logs its day file and encounter files
        as given (relative); verify re-loads it by the absolute path and must not call the
        paths a difference (it said 'first difference at event 1', exit 1)."""
        monkeypatch.chdir(WARREN.parent)
        log = tmp_path / "day.jsonl"
        assert cli.main(["run", WARREN.name, "--seed", "2", "--log", str(log)]) == 0
        events = [json.loads(line) for line in log.read_text().splitlines()]
        assert events[0]["day_path"] == WARREN.name
        assert any(e["event"] == "battle_started" and not e["scenario_path"].startswith("/")
                   for e in events)
        capsys.readouterr()
        assert cli.main(["replay", "--verify", str(log)]) == 0
        assert "identical" in capsys.readouterr().out
        monkeypatch.chdir(tmp_path)  # and from elsewhere, by the logged absolute path
        assert cli.main(["replay", "--verify", str(log)]) == 0

    def test_changed_encounter_file_is_named_as_such(self, tmp_path, capsys):
        """An encounter file edited after the run began was told 'a bestiary entry it uses
        changed' by replay RUN_DIR (and --resume): the day file itself was unchanged."""
        (tmp_path / "fight.yaml").write_text(AMBUSH.read_text())
        day = write_day(tmp_path, "name: D\nrules: d20\n" + PARTY + "steps:\n  - encounter: fight.yaml\n")
        out = tmp_path / "run"
        assert cli.main(["batch", str(day), "-n", "5", "--workers", "1", "--json", "--no-progress",
                         "--out", str(out)]) == 0
        (tmp_path / "fight.yaml").write_text(AMBUSH.read_text().replace("count: 6", "count: 5"))
        capsys.readouterr()
        assert cli.main(["replay", str(out), "--battle", "0", "--no-interactive"]) == 2
        assert capsys.readouterr().err == (
            f"{day}:0:0: (document): an encounter file it names, or a bestiary entry it uses,"
            " changed since the run began (searched: the default folders)\n")

    def test_verify_with_an_edited_encounter_file_is_bad_input(self, tmp_path, capsys):
        """A day log whose encounter file was edited since (a comment added) was said to
        differ (exit 1) at that fight's battle_started; it is bad input (exit 2), as an edited
        scenario is, naming the file."""
        fight = tmp_path / "fight.yaml"
        fight.write_text(AMBUSH.read_text())
        day = write_day(tmp_path, "name: D\nrules: d20\n" + PARTY + "steps:\n  - encounter: fight.yaml\n")
        log = tmp_path / "day.jsonl"
        assert cli.main(["run", str(day), "--log", str(log)]) == 0
        fight.write_text(AMBUSH.read_text() + "# edited\n")
        capsys.readouterr()
        assert cli.main(["replay", "--verify", str(log)]) == 2
        assert capsys.readouterr().err == (f"{log}:1:1: day_started: encounter file {fight} (step 0)"
                                           " changed since the log was written: SHA-256 differs\n")


class TestDayReplay:
    """Both replays step through a whole day: fights, then rests, then fights."""

    def test_battle_view_follows_rests_and_fights(self):
        """The replay state shows each rest's HP, then the next fight's carried HP."""
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
            # a d20 party has no PSY and, rested, no fatigue: the viewer shows neither (issue 29)
            assert not {"psy 0", "fatigue 0"} & set(view.combatants[rested["actor"]].details())
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

    def test_rest_d20_show_gives_the_reroll_policy(self, capsys):
        """sim show DAY says what a d20 rest does: nothing by the hour; a long rest re-rolls hit
        dice by each member's tactics.reroll_hp, its default spelt out."""
        assert cli.main(["show", str(WARREN)]) == 0
        out = capsys.readouterr().out
        assert "# d20: no healing by the hour" in out
        assert "#   Sir Bors: hp 3d8+6, reroll_hp: below_mean" in out

    def test_show_says_a_member_at_0_hp_is_beyond_rest(self, capsys):
        """sim show DAY (d100, 2d10, d10) says the reading of seed 002 the rests play, and the
        day option that sets it aside, so the GM sees the choice."""
        assert cli.main(["show", str(MARSH)]) == 0
        out = capsys.readouterr().out
        assert "# a member at 0 HP gets no HP from a rest (seed 002: only magic helps);" in out
        assert "unless tactics.revive: never" in out
        assert cli.main(["show", str(MARSH), "--set", "options.rest_revives=true"]) == 0
        assert "wakes with the first HP a rest gives (rest_revives: true)" in capsys.readouterr().out


class TestRestBeforeTheFirstFight:
    """A rest before the day's first fight counts (rules §7): a ``rested`` event for each
    member, and +1 morale token on top of those the first fight rolls."""

    BODY = ("name: Early rest\nrules: d20\n" + PARTY + "steps:\n"
            "  - rest: {kind: quick, hours: 1}\n"
            "  - encounter:\n      name: Camp\n      options: {morale: true}\n"
            "      sides:\n        - name: goblins\n          members:\n"
            "            - {use: goblin, count: 2}\n")

    def test_rest_before_first_fight_logged_and_gives_a_token(self, tmp_path):
        day = load_day(write_day(tmp_path, self.BODY))
        _, events = run_day(day, 3, log=True)
        rested = [e for e in events if e["event"] == "rested"]
        assert [e["actor"] for e in rested] == ["Sir Bors", "Aria", "Wren", "Brother Anselm"]
        assert all(e["fresh"] and e["hp_after"] is None for e in rested)
        started = next(e for e in events if e["event"] == "battle_started")
        alone = run_battle(day.encounters[0].scenario, 3, log=True)[1][0]
        tokens = {c["name"]: c.get("morale") for c in alone["combatants"]}
        for c in started["combatants"]:
            if tokens[c["name"]] is None:  # the brigands hold none (rules §4)
                assert c.get("morale") is None
                continue
            assert c.get("morale") == tokens[c["name"]] + (c["name"] in {e["actor"] for e in rested})

    def test_rest_before_first_fight_replays_and_verifies(self, tmp_path, capsys):
        path = write_day(tmp_path, self.BODY)
        log = tmp_path / "day.jsonl"
        assert cli.main(["run", str(path), "--seed", "3", "--log", str(log)]) == 0
        events = [json.loads(line) for line in log.read_text().splitlines()]
        assert "Sir Bors rests before the first fight" in "\n".join(narrate(events))
        assert cli.main(["replay", str(log), "--verify"]) == 0


class TestWhatIsLeftAtEachFight:
    """StepResult (and so the summary's steps[]) says what the party has left as each fight
    begins: potions, destiny points, fatigue and who is down (issue 29), as the log tells it."""

    def test_resources_at_each_fight_match_the_log(self, tmp_path):
        party = PARTY.replace("{use: knight, name: Sir Bors}",
                              "{use: knight, name: Sir Bors, items: [{heal: 2d4, count: 3}],"
                              " tactics: {potion_at: 0.9}}")
        body = ("name: Supplies\nrules: d20\noptions: {destiny_points: 2}\n" + party + "steps:\n"
                "  - encounter: " + str(AMBUSH) + "\n  - rest: {kind: quick, hours: 1}\n"
                "  - encounter: " + str(AMBUSH) + "\n")
        day = load_day(write_day(tmp_path, body))
        checked = 0
        for seed in range(1, 40):
            outcome, events = run_day(day, seed, log=True)
            first, _, second = outcome.steps
            assert (first.potions_start, first.destiny_start, first.down_start) == (3, 2, 0)
            if not second.reached:  # a step not reached has nothing
                assert second.potions_start == second.destiny_start == second.down_start == 0
            fights = battles(events)
            if len(fights) < 2:
                continue
            cast = [c for c in fights[1][0]["combatants"] if c["side"] == "heroes"]
            destiny = [e["left"] for e in fights[0] if e["event"] == "resource_spent"
                       and e["resource"] == "destiny"]
            assert second.destiny_start == (destiny[-1] if destiny else 2)
            # the dead are not in the next fight (sim.day.play._fighting): down are those at 0 HP, or dead
            dead = len(day.members) - len(cast)
            assert second.potions_start == sum(sum((c.get("items") or {}).values()) for c in cast)
            assert second.down_start == dead + sum(c["hp"] == 0 for c in cast)
            checked += 1
        assert checked > 10
