"""Lethality of whole adventuring days: the batch aggregate of days, step by step.

A day row is a battle row (index, seed, winner, rounds, party rows) followed by
its per-step results and whether the party survived and completed the day, so
everything the battle summary counts (wins, TPK, per member deaths and downs,
the party metrics) counts the day as one battle, and the ``day`` and ``steps``
keys add what only a day has. Memory stays fixed: counts and histograms.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import Any

import attrs

from sim.day.file import Day, describe_step
from sim.day.play import StepResult
from sim.tally.stats import Aggregate, interval, percentile

# What the party has left as each fight begins, as StepResult and the summary name it.
STARTS = ("hp_start", "heroism_start", "psy_start", "potions_start", "destiny_start", "fatigue_start",
          "down_start")
DayRow = tuple[Any, ...]  # (*BattleRow, steps: tuple[StepResult, ...], survived, completed)


@attrs.define
class _Step:
    """Running counts for one step of the day."""

    step: int
    kind: str
    name: str
    reached: int = 0
    won: int = 0
    any_down: int = 0
    any_death: int = 0
    # What the party has at the start (StepResult's *_start fields) -> days: value -> days.
    start: dict[str, Counter[int]] = attrs.Factory(lambda: {key: Counter() for key in STARTS})


@attrs.define
class DayAggregate(Aggregate):
    """Aggregate of days: a battle aggregate of the day as a whole, plus per-step counts."""

    steps: list[_Step] = attrs.Factory(list)
    members: tuple[int, ...] = ()  # row positions of the party's members (mounts left out)
    survived: int = 0
    completed: int = 0
    any_death: int = 0

    @classmethod
    def for_day(cls, day: Day) -> DayAggregate:
        base = Aggregate.for_roster([(c.name, day.party) for c in day.members],
                                    [s.name for s in day.sides], day.party,
                                    [c.name for c in day.members if c.rider is not None])
        steps = [_Step(d["step"], d["kind"], d["name"]) for d in map(describe_step, day.steps)]
        members = tuple(i for i, c in enumerate(day.members) if c.rider is None)
        return cls(base.sides, base.party, base.combatants, base.fate, steps=steps, members=members)

    def add_rows(self, rows: Sequence[DayRow]) -> None:  # type: ignore[override]
        """Count days: the day as one battle (its first five fields), then its steps."""
        super().add_rows(rows)
        for row in rows:
            self._add_steps(row)

    def _add_steps(self, row: DayRow) -> None:
        results: Sequence[StepResult] = row[5]
        self.survived += row[6]
        self.completed += row[7]
        self.any_death += any(row[4][i][1] == "dead" for i in self.members)
        for counts, result in zip(self.steps, results, strict=True):
            if not result.reached:
                continue
            counts.reached += 1
            counts.won += result.won
            counts.any_down += result.any_down
            counts.any_death += result.any_death
            if counts.kind == "encounter":
                for key, histogram in counts.start.items():
                    histogram[getattr(result, key)] += 1

    def merge(self, other: Aggregate) -> None:
        super().merge(other)
        assert isinstance(other, DayAggregate)
        self.survived += other.survived
        self.completed += other.completed
        self.any_death += other.any_death
        for mine, theirs in zip(self.steps, other.steps, strict=True):
            mine.reached += theirs.reached
            mine.won += theirs.won
            mine.any_down += theirs.any_down
            mine.any_death += theirs.any_death
            for key, histogram in mine.start.items():
                histogram.update(theirs.start[key])

    def summary(self, header: dict[str, Any]) -> dict[str, Any]:
        out = super().summary(header)
        n = self.battles
        out["day"] = {
            "survived": interval(self.survived, n),
            "completed": interval(self.completed, n),
            "any_death": interval(self.any_death, n),
        }
        out["steps"] = [self._step(s) for s in self.steps]
        return out

    def _step(self, s: _Step) -> dict[str, Any]:
        n = self.battles
        entry: dict[str, Any] = {"step": s.step, "name": s.name, "kind": s.kind,
                                 "reached": interval(s.reached, n)}
        if s.kind == "encounter":
            entry.update(
                won=interval(s.won, n), any_down=interval(s.any_down, n),
                any_death=interval(s.any_death, n),
                ended_here=interval(s.reached - s.won, n),
                **{key: _spread(histogram) for key, histogram in s.start.items()},
            )
        return entry


def _spread(histogram: Counter[int]) -> dict[str, Any]:
    """Mean, p10, p50, p90 and every decile of a histogram of the days that reached a step."""
    count = sum(histogram.values())
    mean = sum(v * k for v, k in histogram.items()) / count if count else 0.0
    deciles = [percentile(histogram, q / 10) if count else 0 for q in range(1, 10)]
    return {"mean": round(mean, 4), "p10": deciles[0], "p50": deciles[4], "p90": deciles[8],
            "deciles": deciles}
