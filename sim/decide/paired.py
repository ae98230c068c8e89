"""Common random numbers: variants of an encounter played on the same battle seeds.

``sim compare`` and ``sim tune`` ask how a change moves a risk. Battle ``i`` of
every variant uses the seed of ``(S, i)`` (the batch's ``battle_seed``), so two
identical variants play identical battles and a small change moves only the
battles it touches. The difference of two variants is then measured battle by
battle: the interval of the mean of the per-battle differences is much
narrower than the difference of two independent runs' intervals.

Intervals: a variant's proportion gets its Wilson 95% interval (as in the
batch summary); a paired difference gets ``mean(d) +- z * sd(d) / sqrt(n)``,
the normal interval of the mean of the per-battle differences (for 0/1
outcomes this is the Wald interval of the paired difference, close to the
exact methods at the sample sizes used here; it is exactly ``[0, 0]`` when
every battle agrees).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator, Sequence
from typing import Any

import attrs

from sim.batch import ChunkResult, ChunkTask, LogPlan, Runner
from sim.errors import InputError
from sim.model import Scenario
from sim.tally.columns import BattleRow
from sim.tally.party import left_behind, party_indexes, party_outcome, party_side, went_down
from sim.tally.stats import Z95, interval

HEADLINE = ("party.win", "party.any_down", "party.any_death", "party.tpk")
# Someone in the party left behind, alive, by a side that lost while one of it got away
# (rules §5): measured and targetable like the headline, shown where it happens.
LEFT_BEHIND = "party.left_behind"
PARTY = (*HEADLINE, LEFT_BEHIND)  # the party proportions, in the order Metrics.values gives them
ROUNDS = "rounds.mean"
PROPORTIONS = frozenset(PARTY)  # and every members[...] metric


@attrs.frozen
class Variant:
    """One version of the encounter, with the name the tables show."""

    name: str
    scenario: Scenario


def member_metric(name: str, what: str) -> str:
    return f"members[{name}].{what}"


def common_members(variants: Sequence[Variant]) -> list[str]:
    """Party members (by name, in the first variant's order) present in every variant."""
    names = [_party_names(v.scenario) for v in variants]
    return [n for n in names[0] if all(n in other for other in names[1:])]


def _party_names(scenario: Scenario) -> list[str]:
    combatants = scenario.combatants
    return [combatants[i].name for i in party_indexes(scenario)]


def require_party(variants: Sequence[Variant]) -> None:
    for v in variants:
        if party_side(v.scenario) is None:
            msg = f"{v.scenario.path}:0:0: sides: comparing needs a side with 'party: true' ({v.name})"
            raise InputError(msg)


@attrs.frozen
class Metrics:
    """Reads the per-battle values of every metric off one variant's battle rows."""

    names: tuple[str, ...]
    party: str | None
    members: tuple[int, ...]
    tracked: tuple[int, ...]  # row positions of the members reported one by one

    @classmethod
    def for_variant(cls, scenario: Scenario, member_names: Sequence[str]) -> Metrics:
        position = {c.name: i for i, c in enumerate(scenario.combatants)}
        names = (*PARTY, ROUNDS,
                 *(member_metric(n, what) for n in member_names for what in ("death", "down")))
        return cls(names, party_side(scenario), party_indexes(scenario),
                   tuple(position[n] for n in member_names))

    def values(self, row: BattleRow) -> tuple[int, ...]:
        _, _, winner, rounds, fighters = row
        won, tpk, downs, deaths = party_outcome(winner, fighters, self.party, self.members)
        behind = any(left_behind(fighters[i]) for i in self.members)
        out = [int(won), int(downs > 0), int(deaths > 0), int(tpk), int(behind), rounds]
        for i in self.tracked:
            fighter = fighters[i]
            out.append(int(fighter[1] == "dead"))
            out.append(int(went_down(fighter)))
        return tuple(out)


def play(jobs: Sequence[tuple[object, Scenario, int, int]], seed: int, chunk: int, runner: Runner,
         window: int) -> dict[object, list[BattleRow]]:
    """Play battles ``start..stop`` of each job's scenario on the master ``seed``; rows per tag,
    in battle order, whatever order the workers finish in."""
    return {tag: [row for r in parts for row in r.rows]
            for tag, parts in play_chunks(jobs, seed, chunk, runner, window).items()}


def play_chunks(jobs: Sequence[tuple[object, Scenario, int, int]], seed: int, chunk: int,
                runner: Runner, window: int, gate: Callable[[], None] = lambda: None
                ) -> dict[object, list[ChunkResult]]:
    """``play``'s chunks themselves (their rows and counts), per tag, in battle order. ``gate``
    is called before each chunk is handed out: it may wait, or raise to stop (sim serve's
    spread gives way to the page's other jobs, and stops at once when cancelled)."""
    def tasks() -> Iterator[ChunkTask]:
        for tag, scenario, start, stop in jobs:
            for first in range(start, stop, chunk):
                gate()
                yield ChunkTask(scenario, seed, first, min(stop, first + chunk), LogPlan(),
                                tag=tag, rows_only=True)

    got: dict[object, list[ChunkResult]] = {tag: [] for tag, _, _, _ in jobs}
    results = runner(tasks(), window)
    try:
        for result in results:
            got[result.tag].append(result)
    finally:
        close = getattr(results, "close", None)
        if close is not None:
            close()
    return {tag: sorted(parts, key=lambda r: r.start) for tag, parts in got.items()}


@attrs.define
class Moments:
    """Running sums of one quantity (exact integers: no drift, identical runs agree exactly)."""

    n: int = 0
    total: int = 0
    squares: int = 0

    def add(self, value: int) -> None:
        self.n += 1
        self.total += value
        self.squares += value * value

    @property
    def mean(self) -> float:
        return self.total / self.n if self.n else 0.0

    @property
    def variance(self) -> float:
        """Sample variance (n - 1), 0 for fewer than two values."""
        if self.n < 2:
            return 0.0
        spread = self.squares * self.n - self.total * self.total  # exact, >= 0
        return spread / (self.n * (self.n - 1))

    def halfwidth(self, z: float = Z95) -> float:
        return z * math.sqrt(self.variance / self.n) if self.n else math.inf


@attrs.define
class Paired:
    """Per-variant and paired-difference moments of every metric, fed battle by battle."""

    names: tuple[str, ...]
    variants: int
    single: list[list[Moments]] = attrs.field(init=False)
    diffs: list[list[Moments]] = attrs.field(init=False)

    def __attrs_post_init__(self) -> None:
        self.single = [[Moments() for _ in self.names] for _ in range(self.variants)]
        self.diffs = [[Moments() for _ in self.names] for _ in range(self.variants - 1)]

    @property
    def battles(self) -> int:
        return self.single[0][0].n

    def add(self, per_variant: Sequence[tuple[int, ...]]) -> None:
        """One battle: the metric values of every variant on the same seed."""
        first = per_variant[0]
        for v, values in enumerate(per_variant):
            for m, value in enumerate(values):
                self.single[v][m].add(value)
            if v:
                for m, (value, base) in enumerate(zip(values, first, strict=True)):
                    self.diffs[v - 1][m].add(value - base)

    def diff_halfwidth(self, metrics: Sequence[str]) -> float:
        """The widest paired half-width among ``metrics`` (for --precision)."""
        index = [self.names.index(m) for m in metrics]
        return max((d[m].halfwidth() for d in self.diffs for m in index), default=0.0)

    def value(self, v: int, m: int) -> dict[str, float]:
        moments = self.single[v][m]
        if self.names[m] == ROUNDS:
            half = moments.halfwidth()
            return {"mean": round(moments.mean, 6), "lo": round(moments.mean - half, 6),
                    "hi": round(moments.mean + half, 6)}
        return interval(moments.total, moments.n)

    def diff(self, j: int, m: int) -> dict[str, float]:
        """Variant j+1 minus the first: mean difference, paired interval, and the half-width
        two independent runs of the same size would have given."""
        d = self.diffs[j][m]
        half = d.halfwidth()
        independent = Z95 * math.sqrt((self.single[0][m].variance + self.single[j + 1][m].variance)
                                      / d.n) if d.n else math.inf
        return {"d": round(d.mean, 6), "lo": round(d.mean - half, 6), "hi": round(d.mean + half, 6),
                "independent_halfwidth": round(independent, 6)}

    def metrics(self) -> dict[str, Any]:
        return {name: {"values": [self.value(v, m) for v in range(self.variants)],
                       "diffs": [self.diff(j, m) for j in range(self.variants - 1)]}
                for m, name in enumerate(self.names)}


def feed(paired: Paired, extractors: Sequence[Metrics], rows: Sequence[Sequence[BattleRow]]) -> None:
    """Add battles played on common seeds: ``rows[v][k]`` is battle k of variant v."""
    for battle in zip(*rows, strict=True):
        paired.add([x.values(row) for x, row in zip(extractors, battle, strict=True)])


Progress = Callable[[int, int], None]
