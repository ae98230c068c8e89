"""Wilson intervals, percentiles and the streaming aggregate."""

from __future__ import annotations

import pathlib
import random
from collections import Counter

import pytest
from rich.console import Console

from sim.report import difficulty_text, headline, pct, print_summary
from sim.tally.party import DIFFICULTIES, difficulty
from sim.tally.stats import Aggregate, interval, percentile, wilson


class TestWilson:
    """95% Wilson score intervals against published values."""

    @pytest.mark.parametrize(
        ("k", "n", "lo", "hi"),
        [
            (0, 10, 0.0, 0.2775),  # Brown, Cai & DasGupta (2001); also R's prop.test(correct=F)
            (10, 10, 0.7225, 1.0),
            (5, 10, 0.2366, 0.7634),
            (81, 263, 0.2553, 0.3662),
            (1, 1000, 0.000177, 0.005649),
        ],
    )
    def test_known_values(self, k: int, n: int, lo: float, hi: float) -> None:
        """The interval matches the textbook values to 4 decimals."""
        p, got_lo, got_hi = wilson(k, n)
        assert p == k / n
        assert got_lo == pytest.approx(lo, abs=5e-5) and got_hi == pytest.approx(hi, abs=5e-5)

    def test_no_trials(self) -> None:
        """With no trial the interval is the whole [0, 1]."""
        assert wilson(0, 0) == (0.0, 0.0, 1.0)


class TestPercentile:
    """Nearest-rank percentiles of a histogram."""

    def test_nearest_rank(self) -> None:
        """p50 and p90 of 1..10 are 5 and 9."""
        from collections import Counter

        h = Counter(range(1, 11))
        assert (percentile(h, 0.5), percentile(h, 0.9), percentile(h, 1.0)) == (5, 9, 10)


def f(hp: int, status: str, cause: str | None, knocked_out: bool, items: int = 0) -> tuple:
    """A fighter row with no morale state and no learning tick."""
    return (hp, status, cause, knocked_out, None, (), items)


class TestAggregate:
    """Counting battles into the summary."""

    def _agg(self) -> Aggregate:
        return Aggregate.for_roster([("A", "party"), ("B", "party"), ("M", "foe")],
                                    ["party", "foe"], "party")

    def test_tpk_needs_every_party_member_dead(self) -> None:
        """TPK counts only battles where every party member died."""
        agg = self._agg()
        agg.add((0, 1, "foe", 3, (f(0, "dead", "weapon", False), f(0, "dead", "fire", False),
                                  f(5, "active", None, False))))
        agg.add((1, 2, "foe", 3, (f(0, "dead", "weapon", False), f(3, "unconscious", None, True),
                                  f(5, "active", None, False))))
        agg.add((2, 3, "party", 4, (f(9, "active", None, False), f(0, "unconscious", None, True),
                                    f(0, "dead", "weapon", False))))
        s = agg.summary({"scenario": "x"})
        assert s["tpk"]["p"] == pytest.approx(1 / 3)
        assert s["sides"]["foe"]["wins"] == 2 and s["draws"] == 0
        assert s["combatants"]["A"]["death"]["p"] == pytest.approx(2 / 3)
        assert s["combatants"]["B"]["death_causes"] == {"fire": pytest.approx(1 / 3)}
        assert s["combatants"]["B"]["knocked_out"]["p"] == pytest.approx(2 / 3)
        assert s["rounds"] == {"mean": pytest.approx(10 / 3, abs=1e-4), "p50": 3, "p90": 4, "max": 4}

    def test_draws_by_reason(self) -> None:
        """draws_by tells a draw with nobody standing, a stalemate and the round limit apart;
        a standing mount does not make a draw a stalemate, and merging keeps the counts."""
        agg = Aggregate.for_roster([("A", "party"), ("horse", "party"), ("M", "foe")],
                                   ["party", "foe"], "party", mounts=["horse"], max_rounds=50)
        agg.add((0, 1, None, 4, (f(0, "dead", "fire", False), f(9, "active", None, False),
                                 f(0, "dead", "fire", False))))
        agg.add((1, 2, None, 1, (f(9, "active", None, False), f(9, "active", None, False),
                                 f(5, "active", None, False))))
        agg.add((2, 3, None, 50, (f(9, "active", None, False), f(9, "active", None, False),
                                  f(5, "active", None, False))))
        other = Aggregate.for_roster([("A", "party"), ("horse", "party"), ("M", "foe")],
                                     ["party", "foe"], "party", mounts=["horse"], max_rounds=50)
        other.add((3, 4, None, 7, (f(9, "active", None, False), f(9, "active", None, False),
                                   f(5, "active", None, False))))
        agg.merge(other)
        s = agg.summary({})
        assert s["draws"] == 4
        assert s["draws_by"] == {"no_side_left": 1, "stalemate": 2, "max_rounds": 1}

    def test_halfwidth_shrinks(self) -> None:
        """The headline half-width shrinks as battles accumulate."""
        agg = self._agg()
        row = (0, 1, "party", 2, (f(5, "active", None, False),) * 2 + (f(0, "dead", "weapon", False),))
        widths = []
        for _ in range(3):
            for _ in range(100):
                agg.add(row)
            widths.append(agg.headline_halfwidth())
        assert widths[0] > widths[1] > widths[2] > 0


class TestMounts:
    """Mounts are combatants, but a party is wiped out when its people are."""

    def test_tpk_ignores_mounts(self) -> None:
        """A surviving horse does not prevent a TPK (RULES: tpk = every party member dies)."""
        agg = Aggregate.for_roster([("Knight", "party"), ("horse", "party"), ("Foe", "foe")],
                                   ["party", "foe"], "party", mounts=["horse"])
        agg.add((0, 1, "foe", 5, (f(0, "dead", "weapon", False), f(12, "active", None, False),
                                  f(3, "active", None, False))))
        assert agg.summary({})["tpk"]["p"] == 1.0


def battle(winner: str | None, *fighters: tuple) -> tuple:
    """A battle row (index and seed unused by the aggregate, 3 rounds)."""
    return (0, 0, winner, 3, fighters)


ALIVE, DOWN_UP = f(5, "active", None, False), f(2, "active", None, True)
DEAD, BROKEN = f(0, "dead", "weapon", False), f(4, "broken", None, False)
OUT = f(0, "unconscious", None, True)


class TestPartyMetrics:
    """summary["party"]: win, TPK, someone down, someone dead, their distributions, difficulty."""

    def _agg(self) -> Aggregate:
        """Heroes A, B, C and a horse (a mount, never a member) against M."""
        return Aggregate.for_roster([("A", "heroes"), ("B", "heroes"), ("C", "heroes"),
                                     ("horse", "heroes"), ("M", "foe")],
                                    ["heroes", "foe"], "heroes", mounts=["horse"])

    ROWS = (
        battle("heroes", ALIVE, ALIVE, ALIVE, ALIVE, DEAD),  # nobody down
        battle("heroes", DOWN_UP, BROKEN, ALIVE, DEAD, DEAD),  # 2 down (knocked out, broken), 0 dead
        battle("foe", DEAD, DEAD, DEAD, ALIVE, ALIVE),  # TPK: the horse does not prevent it
        battle(None, DEAD, OUT, ALIVE, ALIVE, ALIVE),  # a draw: 2 down, 1 dead
    )

    def test_exact_counts(self) -> None:
        """Four hand-made battles give exactly the counted shares, intervals and distributions."""
        agg = self._agg()
        for row in self.ROWS:
            agg.add(row)
        s = agg.summary({})
        party = s["party"]
        assert party["side"] == "heroes"
        assert party["win"] == interval(2, 4) and party["tpk"] == interval(1, 4) == s["tpk"]
        assert party["any_down"] == interval(3, 4) and party["any_death"] == interval(2, 4)
        assert party["deaths"] == {"mean": 1.0, "dist": [0.5, 0.25, 0.0, 0.25]}
        assert party["downs"] == {"mean": 1.75, "dist": [0.25, 0.0, 0.5, 0.25]}
        assert party["difficulty"] == "overwhelming"  # any_death 50% is not < 50%
        assert party["any_death"]["lo"] == pytest.approx(0.150, abs=1e-3)  # Wilson, 2 of 4
        assert party["difficulty_range"] == {"lo": "deadly", "hi": "overwhelming"}
        downs = {name: c["down"] for name, c in s["combatants"].items()}
        assert downs == {"A": interval(3, 4), "B": interval(3, 4), "C": interval(1, 4),
                         "horse": interval(1, 4), "M": interval(2, 4)}

    def test_no_party_side(self) -> None:
        """Without a side marked party: true, summary["party"] and "tpk" are null."""
        agg = Aggregate.for_roster([("A", "red"), ("B", "blue")], ["red", "blue"], None)
        agg.add(battle("red", ALIVE, DEAD))
        s = agg.summary({})
        assert s["party"] is None and s["tpk"] is None
        assert s["combatants"]["B"]["down"] == interval(1, 1)

    def test_merge_equals_sequential(self) -> None:
        """Counting random battles in chunks and merging the chunks gives the same summary."""
        rng = random.Random(11)
        fighters = (ALIVE, DOWN_UP, DEAD, BROKEN, OUT)
        rows = [battle(rng.choice(["heroes", "foe", None]), *rng.choices(fighters, k=5))
                for _ in range(500)]
        sequential = self._agg()
        for row in rows:
            sequential.add(row)
        merged = self._agg()
        start = 0
        while start < len(rows):
            stop = start + rng.randint(1, 60)
            chunk = self._agg()
            for row in rows[start:stop]:
                chunk.add(row)
            merged.merge(chunk)
            start = stop
        assert merged.summary({}) == sequential.summary({})
        assert sum(merged.summary({})["party"]["deaths"]["dist"]) == pytest.approx(1.0, abs=1e-12)

    def test_rows_counted_at_once_equal_a_tally_row_by_row(self) -> None:
        """add_rows (chunks counted column by column, fighter rows coded) counts exactly what a
        plain tally of each battle in turn does: every counter, with morale, learning, items
        and draws (the tally below is written out here, independent of sim.tally.stats)."""
        rng = random.Random(5)
        fighters = (ALIVE, DOWN_UP, DEAD, BROKEN, OUT, (3, "active", None, False, "despairing", (), 2),
                    (0, "dead", None, True, "demoralized", ("melee", "riding"), 1),
                    (7, "fled", None, False, None, ("riding",), 0))
        rows = [(i, i, rng.choice(["heroes", "foe", None]), rng.randint(1, 9),
                 tuple(rng.choices(fighters, k=5))) for i in range(400)]  # A, B, C, horse, M
        at_once = self._agg()
        at_once.add_rows([])
        start = 0
        while start < len(rows):
            stop = start + rng.randint(1, 80)
            at_once.add_rows(rows[start:stop])
            start = stop
        assert at_once.battles == 400
        assert at_once.wins == Counter(r[2] for r in rows if r[2] is not None)
        assert at_once.draws == sum(r[2] is None for r in rows)
        assert at_once.rounds == Counter(r[3] for r in rows)
        # Draws: nobody active on any side (mounts aside) ends it "no_side_left", else the round
        # limit (0 here).
        assert at_once.draws_by == Counter(
            "max_rounds" if any(f[1] == "active" for k, f in enumerate(r[4]) if k != 3)
            else "no_side_left" for r in rows if r[2] is None)
        for k, counted in enumerate(at_once.combatants):
            column = [r[4][k] for r in rows]
            assert counted.deaths == sum(f[1] == "dead" for f in column)
            assert counted.causes == Counter(f[2] or "unknown" for f in column if f[1] == "dead")
            # Goes down: knocked out (and up again), broken or dead, at any moment (README).
            assert counted.downs == sum(f[3] or f[1] in ("dead", "broken") for f in column)
            assert counted.knocked_out == sum(f[3] for f in column)
            assert counted.demoralized == sum(f[4] is not None for f in column)
            assert counted.despairing == sum(f[4] == "despairing" for f in column)
            assert counted.learned == Counter(skill for f in column for skill in f[5])
            assert counted.hp_left == Counter(f[0] for f in column)
            assert counted.items_used == sum(f[6] for f in column)
        fate = at_once.fate
        assert fate is not None
        members = (0, 1, 2)  # the horse is no member
        dead = [sum(r[4][i][1] == "dead" for i in members) for r in rows]
        down = [sum(r[4][i][3] or r[4][i][1] in ("dead", "broken") for i in members) for r in rows]
        assert fate.wins == sum(r[2] == "heroes" for r in rows)
        assert fate.tpk == dead.count(3) and fate.tpk
        assert fate.deaths == [dead.count(n) for n in range(4)]
        assert fate.downs == [down.count(n) for n in range(4)]

    def test_precision_watches_any_death(self) -> None:
        """When the party always wins but someone dies half the time, --precision waits on any_death."""
        agg = self._agg()
        for i in range(200):
            agg.add(battle("heroes", DEAD if i % 2 else ALIVE, ALIVE, ALIVE, ALIVE, DEAD))
        _, lo, hi = wilson(100, 200)
        assert agg.headline_halfwidth() == pytest.approx((hi - lo) / 2)
        _, lo, hi = wilson(200, 200)
        assert agg.headline_halfwidth() > (hi - lo) / 2 * 5


class TestDifficulty:
    """The difficulty bands, from someone goes down (any_down) and someone dies (any_death)."""

    @pytest.mark.parametrize(
        ("any_down", "any_death", "band"),
        [
            (0.0, 0.0, "trivial"), (0.0499, 0.0, "trivial"), (0.05, 0.0, "easy"),
            (0.2499, 0.0099, "easy"), (0.25, 0.0, "medium"), (0.1, 0.01, "medium"),
            (0.6, 0.0499, "medium"), (0.6, 0.05, "hard"), (0.6, 0.1499, "hard"),
            (0.6, 0.15, "deadly"), (0.9, 0.4999, "deadly"), (0.9, 0.5, "overwhelming"),
            (1.0, 1.0, "overwhelming"),
        ],
    )
    def test_bands_at_their_boundaries(self, any_down: float, any_death: float, band: str) -> None:
        """Each band's limit is strict: a share equal to it falls in the next band."""
        assert difficulty(any_down, any_death) == band

    def test_never_easier_when_worse(self) -> None:
        """More downs or more deaths never give an easier band, so an interval's ends bracket it."""
        grid = [i / 200 for i in range(201)]
        for down in grid:
            for death in (d for d in grid if d <= down):
                here = DIFFICULTIES.index(difficulty(down, death))
                assert DIFFICULTIES.index(difficulty(min(1.0, down + 0.01), death)) >= here
                assert DIFFICULTIES.index(difficulty(down, min(down, death + 0.01))) >= here

    def test_range_from_the_interval_ends(self) -> None:
        """6 deaths in 60 battles: hard, but the interval (4.7%-20.1%) spans medium to deadly."""
        agg = self._agg_of(60, downs=30, deaths=6)
        party = agg.summary({})["party"]
        assert (party["difficulty"], party["difficulty_range"]) == ("hard", {"lo": "medium", "hi": "deadly"})
        assert difficulty_text(party) == "hard (medium to deadly)"

    def test_range_collapses_when_narrow(self) -> None:
        """When both ends fall in the estimate's band, only the band is printed."""
        party = self._agg_of(4000, downs=2000, deaths=400).summary({})["party"]
        assert party["difficulty_range"] == {"lo": "hard", "hi": "hard"}
        assert difficulty_text(party) == "hard"

    @staticmethod
    def _agg_of(n: int, downs: int, deaths: int) -> Aggregate:
        """n battles of a one-member party: ``deaths`` dead, ``downs - deaths`` down and back up."""
        agg = Aggregate.for_roster([("A", "heroes"), ("M", "foe")], ["heroes", "foe"], "heroes")
        for i in range(n):
            fighter = DEAD if i < deaths else DOWN_UP if i < downs else ALIVE
            agg.add(battle("heroes", fighter, DEAD))
        return agg


class TestHeadline:
    """The one sentence the terminal summary and the report lead with."""

    def test_party_sentence(self) -> None:
        """Difficulty (with its range), win, someone down, someone dead and TPK, with intervals."""
        party = {"side": "heroes", "win": {"p": 0.8, "lo": 0.7, "hi": 0.9},
                 "tpk": {"p": 0.0, "lo": 0.0, "hi": 0.03}, "any_down": {"p": 0.5, "lo": 0.4, "hi": 0.6},
                 "any_death": {"p": 0.1, "lo": 0.05, "hi": 0.2},
                 "difficulty": "hard", "difficulty_range": {"lo": "hard", "hi": "deadly"}}
        assert headline({"party": party}) == (
            "Difficulty hard (hard to deadly): heroes win 80.0% (70.0-90.0); someone goes down in"
            " 50.0% (40.0-60.0), someone dies in 10.0% (5.0-20.0), total party kill in 0.0% (0.0-3.0)"
            " of battles.")

    def test_without_a_party(self) -> None:
        """Without a party side, the sentence gives each side's win rate and the draws, and says
        how to mark the party."""
        summary = {"party": None, "sides": {"red": {"win_rate": {"p": 0.5, "lo": 0.4, "hi": 0.6}}},
                   "draw_rate": {"p": 0.5, "lo": 0.4, "hi": 0.6}}
        assert headline(summary) == ("No party, so no difficulty: red win 50.0% (40.0-60.0); draw"
                                    " 50.0% (40.0-60.0). Mark the players' side with `party: true`"
                                    " to see who goes down and dies.")

    def test_printed_first(self) -> None:
        """`sim batch` prints the sentence before its tables, and the goes-down column."""
        agg = TestDifficulty._agg_of(60, downs=30, deaths=6)
        summary = agg.summary({"scenario": "s", "rules": "d20", "seed": 1})
        console = Console(record=True, width=120)
        print_summary(summary, console)
        words = console.export_text().split()
        sentence = headline(summary).split()
        assert words[:len(sentence)] == sentence  # wrapped by the console, word for word
        down = pct(summary["combatants"]["A"]["down"]).split()[1]  # also the party's any_down
        assert "goes down" in " ".join(words)
        assert words.count(down) == 2  # the outcome table and A's row (the sentence has "...),")

    def test_readme_worked_example(self) -> None:
        """The docs' worked example (1,000 battles, party of four) gives its sentence and numbers."""
        deaths = [4] * 10 + [3] * 15 + [2] * 35 + [1] * 80 + [0] * 860  # most first, so that
        downs = [4] * 50 + [3] * 110 + [2] * 200 + [1] * 340 + [0] * 300  # downs >= deaths in each
        agg = Aggregate.for_roster([(name, "heroes") for name in "ABCD"] + [("orc", "orcs")],
                                   ["heroes", "orcs"], "heroes")
        for i, (dead, down) in enumerate(zip(deaths, downs, strict=True)):
            members = [DEAD] * dead + [DOWN_UP] * (down - dead) + [ALIVE] * (4 - down)
            agg.add(battle("orcs" if i < 130 else "heroes", *members, DEAD))
        summary = agg.summary({})
        page = pathlib.Path(__file__).parent.parent.parent / "docs" / "guide" / "reading-results.md"
        readme = page.read_text(encoding="utf-8")
        assert f"\n{headline(summary)}\n" in readme
        party = summary["party"]
        assert party["deaths"] == {"mean": 0.235, "dist": [0.86, 0.08, 0.035, 0.015, 0.01]}
        assert party["downs"] == {"mean": 1.27, "dist": [0.3, 0.34, 0.2, 0.11, 0.05]}
        assert '"difficulty_range": {"lo": "hard", "hi":\n"deadly"}' in readme
        assert party["difficulty_range"] == {"lo": "hard", "hi": "deadly"}


class TestItemsUsed:
    """Items used are counted per combatant in the summary (rules §8)."""

    def test_items_used_counted_in_the_summary(self) -> None:
        """Summary: `items_used.mean` per combatant is the mean number of items it used."""
        agg = Aggregate.for_roster([("A", "party"), ("M", "foe")], ["party", "foe"], "party")
        agg.add((0, 1, "party", 3, (f(5, "active", None, False, items=2), f(0, "dead", "weapon", False))))
        agg.add((1, 2, "party", 3, (f(5, "active", None, False, items=1), f(0, "dead", "weapon", False))))
        other = Aggregate.for_roster([("A", "party"), ("M", "foe")], ["party", "foe"], "party")
        other.add((2, 3, "foe", 4, (f(0, "dead", "weapon", False), f(9, "active", None, False))))
        agg.merge(other)
        combatants = agg.summary({})["combatants"]
        assert combatants["A"]["items_used"] == {"mean": 1.0}
        assert combatants["M"]["items_used"] == {"mean": 0.0}

    def test_items_table_on_the_terminal(self) -> None:
        """The terminal summary lists items used per battle for those who used any, only then."""
        agg = Aggregate.for_roster([("Aria", "party"), ("M", "foe")], ["party", "foe"], "party")
        agg.add((0, 1, "party", 3, (f(5, "active", None, False, items=3), f(0, "dead", "weapon", False))))
        console = Console(record=True, width=120)
        print_summary(agg.summary({"scenario": "s", "rules": "d20", "seed": 1}), console)
        text = console.export_text()
        assert "items used" in text and "3.00" in text
        agg = Aggregate.for_roster([("Aria", "party"), ("M", "foe")], ["party", "foe"], "party")
        agg.add((0, 1, "party", 3, (f(5, "active", None, False), f(0, "dead", "weapon", False))))
        console = Console(record=True, width=120)
        print_summary(agg.summary({"scenario": "s", "rules": "d20", "seed": 1}), console)
        assert "items used" not in console.export_text()



BEHIND = f(0, "left_behind", None, True)


class TestLeftBehind:
    """Left behind is not dead (rules §5): counted per member and for the party, beside
    someone dies, and said by the headline and the tables where it happens."""

    def _summary(self) -> dict:
        agg = TestPartyMetrics()._agg()
        agg.add(battle("foe", BEHIND, BEHIND, ALIVE, ALIVE, ALIVE))  # two left behind, nobody dead
        agg.add(battle("foe", DEAD, BEHIND, ALIVE, ALIVE, ALIVE))
        agg.add(battle("heroes", OUT, ALIVE, ALIVE, ALIVE, DEAD))  # knocked out on the winning side
        agg.add(battle("heroes", ALIVE, ALIVE, ALIVE, ALIVE, DEAD))
        return agg.summary({"scenario": "s", "rules": "2d10", "seed": 1})

    def test_left_behind_counted_per_member_and_party(self) -> None:
        s = self._summary()
        party = s["party"]
        assert party["left_behind"] == interval(2, 4)
        assert party["any_death"] == interval(1, 4) and party["any_down"] == interval(3, 4)
        assert party["deaths"]["dist"] == [0.75, 0.25, 0.0, 0.0]
        behind = {name: c["left_behind"] for name, c in s["combatants"].items()}
        assert behind == {"A": interval(1, 4), "B": interval(2, 4), "C": interval(0, 4),
                          "horse": interval(0, 4), "M": interval(0, 4)}
        assert s["combatants"]["B"]["death"] == interval(0, 4)
        assert s["combatants"]["B"]["down"] == interval(2, 4)

    def test_a_broken_mind_left_behind_is_down(self) -> None:
        """A member left behind with a broken mind (HP left, never knocked out) went down:
        the batch counts it in someone goes down, never in someone dies."""
        agg = TestPartyMetrics()._agg()
        agg.add(battle("foe", f(7, "left_behind", None, False), ALIVE, ALIVE, ALIVE, ALIVE))
        agg.add(battle("heroes", ALIVE, ALIVE, ALIVE, ALIVE, DEAD))
        party = agg.summary({"scenario": "s", "rules": "d20", "seed": 1})["party"]
        assert party["any_down"] == interval(1, 2) and party["any_death"] == interval(0, 2)
        assert party["left_behind"] == interval(1, 2)

    def test_left_behind_said_by_headline_and_tables(self) -> None:
        s = self._summary()
        assert f"someone is left behind in {pct(s['party']['left_behind'])}" in headline(s)
        console = Console(record=True, width=200)
        print_summary(s, console)
        text = console.export_text()
        assert "someone in the party is left behind" in text and "left behind" in text.split("Who falls")[1]

    def test_left_behind_unsaid_where_nobody_is(self) -> None:
        agg = TestPartyMetrics()._agg()
        agg.add(battle("heroes", OUT, ALIVE, ALIVE, ALIVE, DEAD))
        s = agg.summary({"scenario": "s", "rules": "2d10", "seed": 1})
        assert s["party"]["left_behind"] == interval(0, 1)
        console = Console(record=True, width=200)
        print_summary(s, console)
        assert "left behind" not in console.export_text()
