"""Lethality metrics of a batch: Wilson intervals and a streaming, fixed-memory aggregate."""

from __future__ import annotations

import math
import operator
from collections import Counter
from collections.abc import Sequence
from itertools import repeat
from typing import Any

import attrs

from sim.engine.outcome import FighterRow
from sim.engine.state import LEFT_BEHIND
from sim.tally.columns import BattleColumns, BattleRow
from sim.tally.party import PartyOutcome, difficulty, went_down

Z95 = 1.959963984540054  # two-sided 95% normal quantile
# Why a battle ended without a winner (the summary's draws_by).
DRAW_REASONS = ("no_side_left", "stalemate", "max_rounds")


def wilson(successes: int, trials: int, z: float = Z95) -> tuple[float, float, float]:
    """The estimate and Wilson score interval of a binomial proportion.

    Wilson rather than the normal approximation: it stays inside [0, 1] and is
    honest at 0 or n successes, which lethality tables hit all the time.
    """
    if trials <= 0:
        return 0.0, 0.0, 1.0
    p = successes / trials
    z2 = z * z
    denominator = 1 + z2 / trials
    centre = (p + z2 / (2 * trials)) / denominator
    half = z * math.sqrt(p * (1 - p) / trials + z2 / (4 * trials * trials)) / denominator
    return p, max(0.0, centre - half), min(1.0, centre + half)


def interval(successes: int, trials: int) -> dict[str, float]:
    """``{"p", "lo", "hi"}`` rounded for the summary JSON."""
    p, lo, hi = wilson(successes, trials)
    return {"p": round(p, 6), "lo": round(lo, 6), "hi": round(hi, 6)}


def percentile(histogram: Counter[int], fraction: float) -> int:
    """Nearest-rank percentile of integer values counted in ``histogram``."""
    total = sum(histogram.values())
    if total == 0:
        return 0
    rank = max(1, math.ceil(fraction * total))
    seen = 0
    for value in sorted(histogram):
        seen += histogram[value]
        if seen >= rank:
            return value
    return max(histogram)


@attrs.define
class _Combatant:
    """Running counts for one combatant."""

    name: str
    side: str
    mount: bool = False  # mounts never make a TPK (or prevent one)
    deaths: int = 0
    downs: int = 0  # reached 0 HP, knocked out or broken at any moment (the dead included)
    knocked_out: int = 0
    left_behind: int = 0  # unconscious or broken when its side lost while one of it got away
    demoralized: int = 0
    despairing: int = 0
    causes: Counter[str] = attrs.Factory(Counter)
    hp_left: Counter[int] = attrs.Factory(Counter)  # final HP -> battles: bounded by max HP
    learned: Counter[str] = attrs.Factory(Counter)  # skill -> battles with a learning tick
    items_used: int = 0  # items (potions) used, summed over battles

    def count(self, fighter: FighterRow, battles: int) -> None:
        """Count ``battles`` battles that ended with this combatant's row ``fighter``."""
        hp, status, cause, knocked_out, morale, learned, items_used = fighter
        self.items_used += items_used * battles
        self.hp_left[hp] += battles
        if morale is not None:  # despairing is demoralized too (it has no token)
            self.demoralized += battles
            if morale == "despairing":
                self.despairing += battles
        for skill in learned:
            self.learned[skill] += battles
        if status == "dead":
            self.deaths += battles
            self.causes[cause or "unknown"] += battles
        if went_down(fighter):
            self.downs += battles
        if knocked_out:
            self.knocked_out += battles
        if status == LEFT_BEHIND:
            self.left_behind += battles


# A member's (dead, went down, left behind) packed in one int, so that a battle's members add
# up in C: deaths in the low digits, downs above, the left behind above them (a party never
# has DOWN members).
DOWN = 1 << 20
BEHIND = 1 << 40


@attrs.define
class _Party:
    """Running counts of the party's fate: histograms of party size + 1 bins, never more."""

    side: str
    members: tuple[int, ...]  # positions of the members in a battle row (mounts left out)
    wins: int = 0
    tpk: int = 0
    deaths: list[int] = attrs.Factory(list)  # deaths[k]: battles ending with exactly k members dead
    downs: list[int] = attrs.Factory(list)  # downs[k]: battles in which exactly k members went down
    left_behind: int = 0  # battles in which at least one member was left behind (rules §5)

    def __attrs_post_init__(self) -> None:
        self.deaths = self.deaths or [0] * (len(self.members) + 1)
        self.downs = self.downs or [0] * (len(self.members) + 1)

    def add_columns(self, winners: Sequence[str | None], columns: Sequence[Sequence[int]],
                    distinct: Sequence[FighterRow]) -> None:
        """Count battles given column by column: each combatant's fighter codes (``columns``)
        and the fighter row of each code (``distinct``). Each distinct row is judged once,
        then the battles are tallied by (won, deaths and downs) in C-level loops."""
        fate = [(fighter[1] == "dead") + DOWN * went_down(fighter) + BEHIND * (fighter[1] == LEFT_BEHIND)
                for fighter in distinct]
        packed = [map(fate.__getitem__, columns[index]) for index in self.members]
        totals = map(sum, zip(*packed, strict=True)) if packed else repeat(0, len(winners))
        won = map(operator.eq, winners, repeat(self.side))
        for (win, total), battles in Counter(zip(won, totals, strict=True)).items():
            self.left_behind += battles * (total >= BEHIND)
            total %= BEHIND
            outcome = PartyOutcome.from_counts(win, total % DOWN, total // DOWN, len(self.members))
            self.wins += outcome.won * battles
            self.tpk += outcome.tpk * battles
            self.deaths[outcome.deaths] += battles
            self.downs[outcome.downs] += battles

    def merge(self, other: _Party) -> None:
        self.wins += other.wins
        self.tpk += other.tpk
        self.deaths = [a + b for a, b in zip(self.deaths, other.deaths, strict=True)]
        self.downs = [a + b for a, b in zip(self.downs, other.downs, strict=True)]
        self.left_behind += other.left_behind

    def any_death(self) -> int:
        """Battles with at least one member dead at the end."""
        return sum(self.deaths[1:])

    def summary(self, n: int) -> dict[str, Any]:
        """``summary["party"]``: the numbers a GM decides with (see the README, "Party metrics")."""
        any_down, any_death = interval(sum(self.downs[1:]), n), interval(self.any_death(), n)
        low = difficulty(any_down["lo"], any_death["lo"])  # the optimistic end of both intervals
        high = difficulty(any_down["hi"], any_death["hi"])  # the pessimistic end of both
        return {
            "side": self.side,
            "win": interval(self.wins, n),
            "tpk": interval(self.tpk, n),
            "any_down": any_down,
            "any_death": any_death,
            "left_behind": interval(self.left_behind, n),
            "deaths": _distribution(self.deaths, n),
            "downs": _distribution(self.downs, n),
            "difficulty": difficulty(any_down["p"], any_death["p"]),
            "difficulty_range": {"lo": low, "hi": high},
        }


def _distribution(histogram: Sequence[int], n: int) -> dict[str, Any]:
    """``{"mean", "dist"}`` of a count per battle; ``dist`` unrounded so that it sums to 1."""
    if n == 0:
        return {"mean": 0.0, "dist": [0.0] * len(histogram)}
    mean = sum(k * battles for k, battles in enumerate(histogram)) / n
    return {"mean": round(mean, 6), "dist": [battles / n for battles in histogram]}


@attrs.define
class Aggregate:
    """Everything the summary needs, in memory that does not grow with the number of battles."""

    sides: tuple[str, ...]
    party: str | None
    combatants: list[_Combatant]
    fate: _Party | None = None  # the party's counts; None without a party side
    battles: int = 0
    draws: int = 0
    wins: Counter[str] = attrs.Factory(Counter)
    rounds: Counter[int] = attrs.Factory(Counter)
    max_rounds: int = 0  # the scenario's, to tell a round-limit draw from a stalemate (0: none)
    draws_by: Counter[str] = attrs.Factory(Counter)

    @classmethod
    def for_roster(cls, roster: Sequence[tuple[str, str]], sides: Sequence[str], party: str | None,
                   mounts: Sequence[str] = (), max_rounds: int = 0) -> Aggregate:
        """An empty aggregate for combatants given as (name, side) in scenario order."""
        combatants = [_Combatant(name, side, name in mounts) for name, side in roster]
        members = tuple(i for i, c in enumerate(combatants) if c.side == party and not c.mount)
        fate = _Party(party, members) if party is not None else None
        return cls(tuple(sides), party, combatants, fate, max_rounds=max_rounds)

    def _why_drawn(self, rounds: int, fighters: Sequence[FighterRow]) -> str:
        """Nobody able on any side; else the engine stopped it: before the last round only
        for a stalemate (the engine checks for one before every round but the last)."""
        standing = any(row[1] == "active" and not c.mount
                       for c, row in zip(self.combatants, fighters, strict=True))
        if not standing:
            return "no_side_left"
        return "max_rounds" if rounds >= self.max_rounds else "stalemate"

    def add(self, row: BattleRow) -> None:
        """Count one battle."""
        self.add_rows((row,))

    def add_rows(self, rows: Sequence[BattleRow]) -> None:
        """Count battles given as rows (see ``add_columns``)."""
        self.add_columns(BattleColumns.of_rows(rows, len(self.combatants)))

    def add_columns(self, battles: BattleColumns) -> None:
        """Count battles (a worker's chunk), with the counts of adding them one by one.

        Counted column by column: a Counter of each combatant's fighter codes
        (counted in C), then work once per distinct fighter row, not once per
        battle: a chunk's combatants end in a few dozen distinct ways. This keeps
        counting a small fraction of what playing the battles costs.
        """
        self.battles += len(battles)
        self.rounds.update(battles.rounds)
        wins = Counter(battles.winners)
        draws = wins.pop(None, 0)
        self.wins.update(wins)
        distinct = battles.distinct()
        if draws:
            self.draws += draws
            for b, winner in enumerate(battles.winners):
                if winner is None:
                    self.draws_by[self._why_drawn(battles.rounds[b], battles.fighters(b, distinct))] += 1
        columns = [battles.column(position) for position in range(len(self.combatants))]
        for stats, column in zip(self.combatants, columns, strict=True):
            for code, count in Counter(column).items():
                stats.count(distinct[code], count)
        if self.fate is not None:
            self.fate.add_columns(battles.winners, columns, distinct)

    def merge(self, other: Aggregate) -> None:
        """Add another aggregate's counts (a chunk's, counted by a worker) to this one.

        Counts only, so merging chunk aggregates in index order gives exactly what
        counting every battle here would: the summary never depends on who counted.
        """
        self.battles += other.battles
        self.draws += other.draws
        self.wins.update(other.wins)
        self.rounds.update(other.rounds)
        if self.fate is not None and other.fate is not None:
            self.fate.merge(other.fate)
        self.draws_by.update(other.draws_by)
        for mine, theirs in zip(self.combatants, other.combatants, strict=True):
            mine.deaths += theirs.deaths
            mine.downs += theirs.downs
            mine.knocked_out += theirs.knocked_out
            mine.left_behind += theirs.left_behind
            mine.demoralized += theirs.demoralized
            mine.despairing += theirs.despairing
            mine.learned.update(theirs.learned)
            mine.causes.update(theirs.causes)
            mine.hp_left.update(theirs.hp_left)
            mine.items_used += theirs.items_used

    def headline_halfwidth(self) -> float:
        """The widest half-interval among win rates, TPK and someone dies: what --precision watches."""
        counts = [self.wins[side] for side in self.sides]
        if self.fate is not None:
            counts += [self.fate.tpk, self.fate.any_death()]
        widths = []
        for k in counts:
            _, lo, hi = wilson(k, self.battles)
            widths.append((hi - lo) / 2)
        return max(widths, default=0.0)

    def summary(self, header: dict[str, Any]) -> dict[str, Any]:
        """The summary JSON (schema 1, docs/reference/summary.md), after ``header``'s keys."""
        n = self.battles
        out: dict[str, Any] = {"schema": 1, **header, "battles": n, "draws": self.draws}
        out["draw_rate"] = interval(self.draws, n)
        if self.max_rounds:  # one scenario's battles (a day's rows are not battles)
            out["draws_by"] = {reason: self.draws_by[reason] for reason in DRAW_REASONS}
        out["sides"] = {
            side: {"wins": self.wins[side], "win_rate": interval(self.wins[side], n)}
            for side in self.sides
        }
        out["tpk"] = interval(self.fate.tpk, n) if self.fate is not None else None
        out["party"] = self.fate.summary(n) if self.fate is not None else None
        out["combatants"] = {c.name: self._combatant(c) for c in self.combatants}
        out["rounds"] = {
            "mean": round(sum(r * k for r, k in self.rounds.items()) / n, 4) if n else 0.0,
            "p50": percentile(self.rounds, 0.5),
            "p90": percentile(self.rounds, 0.9),
            "max": max(self.rounds, default=0),
        }
        return out

    def _combatant(self, c: _Combatant) -> dict[str, Any]:
        n = self.battles
        causes = sorted(c.causes.items(), key=lambda kv: (-kv[1], kv[0]))
        hp_mean = sum(hp * k for hp, k in c.hp_left.items()) / n if n else 0.0
        return {
            "side": c.side,
            "death": interval(c.deaths, n),
            "down": interval(c.downs, n),
            "knocked_out": interval(c.knocked_out, n),
            "left_behind": interval(c.left_behind, n),
            "death_causes": {cause: round(k / n, 6) for cause, k in causes},
            "death_causes_ci": {cause: interval(k, n) for cause, k in causes},
            "demoralized": interval(c.demoralized, n),
            "despairing": interval(c.despairing, n),
            "learning": {skill: interval(k, n) for skill, k in sorted(c.learned.items())},
            "hp_left": {
                "mean": round(hp_mean, 4),
                "p10": percentile(c.hp_left, 0.1),
                "p50": percentile(c.hp_left, 0.5),
                "p90": percentile(c.hp_left, 0.9),
            },
            "items_used": {"mean": round(c.items_used / n, 4) if n else 0.0},
        }
