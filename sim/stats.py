"""Lethality metrics of a batch: Wilson intervals and a streaming, fixed-memory aggregate."""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Sequence
from typing import Any

import attrs

Z95 = 1.959963984540054  # two-sided 95% normal quantile

# One battle as workers send it: (index, seed, winner, rounds, fighters), where each
# fighter is (final hp, status, cause of death or None, knocked out and survived,
# morale state at the end: demoralized / despairing / None, skills with a learning
# tick), in the scenario's combatant order.
FighterRow = tuple[int, str, str | None, bool, str | None, tuple[str, ...]]
BattleRow = tuple[int, int, str | None, int, tuple[FighterRow, ...]]


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
    knocked_out: int = 0
    demoralized: int = 0
    despairing: int = 0
    causes: Counter[str] = attrs.Factory(Counter)
    hp_left: Counter[int] = attrs.Factory(Counter)  # final HP -> battles: bounded by max HP
    learned: Counter[str] = attrs.Factory(Counter)  # skill -> battles with a learning tick


@attrs.define
class Aggregate:
    """Everything the summary needs, in memory that does not grow with the number of battles."""

    sides: tuple[str, ...]
    party: str | None
    combatants: list[_Combatant]
    battles: int = 0
    draws: int = 0
    tpk: int = 0
    wins: Counter[str] = attrs.Factory(Counter)
    rounds: Counter[int] = attrs.Factory(Counter)

    @classmethod
    def for_roster(cls, roster: Sequence[tuple[str, str]], sides: Sequence[str], party: str | None,
                   mounts: Sequence[str] = ()) -> Aggregate:
        """An empty aggregate for combatants given as (name, side) in scenario order."""
        return cls(tuple(sides), party,
                   [_Combatant(name, side, name in mounts) for name, side in roster])

    def add(self, row: BattleRow) -> None:
        """Count one battle."""
        _, _, winner, rounds, fighters = row
        self.battles += 1
        self.rounds[rounds] += 1
        if winner is None:
            self.draws += 1
        else:
            self.wins[winner] += 1
        party_dead = self.party is not None
        for stats, row in zip(self.combatants, fighters, strict=True):
            hp, status, cause, knocked_out, morale, learned = row
            stats.hp_left[hp] += 1
            if morale is not None:  # despairing is demoralized too (it has no token)
                stats.demoralized += 1
                stats.despairing += morale == "despairing"
            stats.learned.update(learned)
            if status == "dead":
                stats.deaths += 1
                stats.causes[cause or "unknown"] += 1
            elif stats.side == self.party and not stats.mount:
                party_dead = False
            if knocked_out:
                stats.knocked_out += 1
        if party_dead:
            self.tpk += 1

    def merge(self, other: Aggregate) -> None:
        """Add another aggregate's counts (a chunk's, counted by a worker) to this one.

        Counts only, so merging chunk aggregates in index order gives exactly what
        counting every battle here would: the summary never depends on who counted.
        """
        self.battles += other.battles
        self.draws += other.draws
        self.tpk += other.tpk
        self.wins.update(other.wins)
        self.rounds.update(other.rounds)
        for mine, theirs in zip(self.combatants, other.combatants, strict=True):
            mine.deaths += theirs.deaths
            mine.knocked_out += theirs.knocked_out
            mine.demoralized += theirs.demoralized
            mine.despairing += theirs.despairing
            mine.learned.update(theirs.learned)
            mine.causes.update(theirs.causes)
            mine.hp_left.update(theirs.hp_left)

    def headline_halfwidth(self) -> float:
        """The widest half-interval among win rates and TPK: what --precision watches."""
        counts = [self.wins[side] for side in self.sides]
        if self.party is not None:
            counts.append(self.tpk)
        widths = []
        for k in counts:
            _, lo, hi = wilson(k, self.battles)
            widths.append((hi - lo) / 2)
        return max(widths, default=0.0)

    def summary(self, header: dict[str, Any]) -> dict[str, Any]:
        """The summary JSON (schema 1 of ARCHITECTURE.md), after ``header``'s keys."""
        n = self.battles
        out: dict[str, Any] = {"schema": 1, **header, "battles": n, "draws": self.draws}
        out["draw_rate"] = interval(self.draws, n)
        out["sides"] = {
            side: {"wins": self.wins[side], "win_rate": interval(self.wins[side], n)}
            for side in self.sides
        }
        out["tpk"] = interval(self.tpk, n) if self.party is not None else None
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
            "knocked_out": interval(c.knocked_out, n),
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
        }
