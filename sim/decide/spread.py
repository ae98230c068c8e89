"""``sim spread``: the encounter as written and under each preset of each side, on common seeds.

Every play (as written, each preset of each side with the other side as written, then
the two corners) fights battles 0..N-1 of the master seed, so the plays differ only
where their tactics make them differ, and each difference from "as written" is
measured battle by battle (``paired``). A play's summary is the one ``sim batch``
gives for the same file, N and seed: the same battles, counted the same way.

The corners come last, once the presets are counted: best for the party is its
preset with the lowest risk against the opposition's preset with the lowest risk
(kindest), worst the reverse. Risk orders the presets by someone dies, then total
party kill, then someone goes down, then the party's win rate (higher is kinder);
a tie keeps the first preset listed. A preset (or corner) whose every fighter acts
on the same tactics as an earlier play fights its very battles: it is counted once.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from typing import Any

import attrs

from sim.batch import ChunkResult, Runner, batch_summary, empty_aggregate
from sim.decide.compare import BLOCK, STEP, unit
from sim.decide.paired import HEADLINE, Metrics, Paired, Variant, play_chunks, require_party
from sim.decide.presets import PRESETS, Group, Preset, Subject, apply, played
from sim.tally.stats import Aggregate

AS_WRITTEN = "as written"
CORNERS = ("best", "worst")
@attrs.frozen
class Play:
    """One way the encounter is played: as written, a group's preset, or a corner."""

    label: str  # how the JSON's range names it: "as written", "party: weakest", "best corner"
    chosen: tuple[tuple[Group, Preset], ...]  # the presets played (none: as written)
    subject: Subject
    same_as: int | None = None  # an earlier play that fights the same battles: not played again


@attrs.frozen
class Row:
    """A play's figures: its summary (``sim batch --json``'s) and its paired differences from
    "as written" per headline metric (``paired.Paired.diff``)."""

    play: Play
    summary: dict[str, Any]
    diffs: dict[str, dict[str, float]]

    def p(self, metric: str) -> float:
        return float(self.summary["party"][metric.removeprefix("party.")]["p"])


@attrs.frozen
class Spread:
    """The rows of a spread: as written, the presets, then the corners (once counted)."""

    name: str
    unit: str
    seed: int
    battles: int
    groups: tuple[Group, ...]
    rows: tuple[Row, ...]
    corners: tuple[int, ...] = ()  # rows of the best and the worst corner

    @property
    def presets(self) -> tuple[Row, ...]:
        return self.rows[1:self.corners[0]] if self.corners else self.rows[1:]

    def extremes(self, metric: str) -> tuple[Row, Row]:
        """The rows with the lowest and the highest value of ``metric`` (the first on a tie)."""
        return (min(self.rows, key=lambda r: r.p(metric)), max(self.rows, key=lambda r: r.p(metric)))

    def range(self) -> dict[str, dict[str, Any]]:
        out = {}
        for metric in HEADLINE:
            lo, hi = self.extremes(metric)
            out[metric] = {"lo": lo.p(metric), "hi": hi.p(metric), "lo_preset": lo.play.label,
                           "hi_preset": hi.play.label}
        return out

    def public(self) -> dict[str, Any]:
        """The ``--json`` answer."""
        return {
            "as_written": self.rows[0].summary,
            "presets": [{"side": row.play.chosen[0][0].side, "preset": row.play.chosen[0][1].name,
                         "tactics": row.play.chosen[0][1].tactics, "summary": row.summary}
                        for row in self.presets],
            "corners": {name: _corner(self.rows[k]) for name, k in zip(CORNERS, self.corners, strict=True)},
            "range": self.range(),
        }


def _corner(row: Row) -> dict[str, Any]:
    chosen = row.play.chosen
    return {"presets": {g.side: p.name for g, p in chosen}, "tactics": {g.side: p.tactics for g, p in chosen},
            "summary": row.summary}


def preset_plays(subject: Subject, groups: Sequence[Group]) -> list[Play]:
    """As written, then each preset of each group (the other sides as written)."""
    plays = [Play(AS_WRITTEN, (), subject)]
    for group in groups:
        plays += [Play(f"{group.side}: {preset.name}", ((group, preset),), apply(subject, [(group, preset)]))
                  for preset in PRESETS]
    return _same(plays)


def _same(plays: Sequence[Play], before: Sequence[Play] = ()) -> list[Play]:
    """Each play marked with the first earlier play whose fighters all act the same way."""
    seen: dict[tuple, int] = {}
    for k, p in enumerate(before):
        seen.setdefault(played(p.subject), k)
    out = []
    for p in plays:
        key = played(p.subject)
        first = seen.setdefault(key, len(before) + len(out))
        out.append(p if first == len(before) + len(out) else attrs.evolve(p, same_as=first))
    return out


def risk(row: Row) -> tuple[float, ...]:
    """Higher is worse for the party (see the module docstring)."""
    return (row.p("party.any_death"), row.p("party.tpk"), row.p("party.any_down"), -row.p("party.win"))


def corner_plays(subject: Subject, groups: Sequence[Group], rows: Sequence[Row]) -> list[Play]:
    """The best corner (each group's kindest preset for the party) and the worst."""
    best: list[tuple[Group, Preset]] = []
    worst: list[tuple[Group, Preset]] = []
    for group in groups:
        mine = [r for r in rows if r.play.chosen and r.play.chosen[0][0] == group]
        best.append(min(mine, key=risk).play.chosen[0])
        worst.append(max(mine, key=risk).play.chosen[0])
    return [Play(f"{name} corner", tuple(chosen), apply(subject, chosen))
            for name, chosen in zip(CORNERS, (best, worst), strict=True)]


@attrs.define
class _Phase:
    """What is counted of the plays of one phase (the presets, then the corners): a batch
    aggregate of each play played, and its per-battle values paired with as written's."""

    plays: list[Play]
    offset: int  # the index of plays[0] among every play
    tags: list[int]  # the plays played (not the same as an earlier one), by index among every play
    aggregates: dict[int, Aggregate]
    extract: dict[int, Metrics]
    paired: Paired  # variant 0: as written; then the tags but as written, in order

    @classmethod
    def of(cls, plays: list[Play], offset: int = 0) -> _Phase:
        tags = [offset + i for i, p in enumerate(plays) if p.same_as is None]
        extract = {k: Metrics.for_variant(plays[k - offset].subject, ()) for k in tags}
        aggregates = {k: empty_aggregate(plays[k - offset].subject) for k in tags}
        paired = Paired(Metrics.for_variant(plays[0].subject, ()).names, 1 + len(cls._others(tags)))
        return cls(plays, offset, tags, aggregates, extract, paired)

    @staticmethod
    def _others(tags: Sequence[int]) -> list[int]:
        return [k for k in tags if k != 0]

    def count(self, chunks: dict[object, list[ChunkResult]], kept: list[tuple[int, ...]], start: int) -> None:
        """A step's chunks (battles ``start`` on); as written's values per battle are added to
        ``kept`` when it is played here, else read from it."""
        values = {}
        for k in self.tags:
            for chunk in chunks[k]:
                self.aggregates[k].merge(chunk.aggregate)
            values[k] = [self.extract[k].values(row) for chunk in chunks[k] for row in chunk.rows]
        if 0 in values:
            kept.extend(values[0])
        others = self._others(self.tags)
        for i, base in enumerate(kept[start:start + len(values[others[0]])] if others else ()):
            self.paired.add([base, *(values[k][i] for k in others)])

    def rows(self, n: int, seed: int, elapsed: float, prior: Sequence[Row] = ()) -> list[Row]:
        """The phase's rows: counted, or copied from the play that fights the same battles."""
        out = list(prior)
        others = self._others(self.tags)
        for i, p in enumerate(self.plays):
            k = self.offset + i
            if p.same_as is not None:
                source = out[p.same_as]
                out.append(Row(p, source.summary, source.diffs))
                continue
            summary = batch_summary(self.aggregates[k], p.subject, seed, n, elapsed)
            if k == 0:
                diffs = {m: {"d": 0.0, "lo": 0.0, "hi": 0.0, "independent_halfwidth": 0.0} for m in HEADLINE}
            else:
                j = others.index(k)
                diffs = {m: self.paired.diff(j, self.paired.names.index(m)) for m in HEADLINE}
            out.append(Row(p, summary, diffs))
        return out[len(prior):]

    def play(self, seed: int, start: int, stop: int, chunk: int, runner: Runner, window: int,
             kept: list[tuple[int, ...]], gate: Callable[[], None]) -> None:
        if self.tags:
            jobs = [(k, self.plays[k - self.offset].subject, start, stop) for k in self.tags]
            self.count(play_chunks(jobs, seed, chunk, runner, window, gate), kept, start)


Partial = Callable[[Spread], None]


def spread(subject: Subject, groups: Sequence[Group], seed: int, n: int, runner: Runner, window: int,
           chunk: int, precision: float | None = None, step: int | None = None,
           progress: Callable[[int, int], None] = lambda done, total: None,
           partial: Partial = lambda s: None, gate: Callable[[], None] = lambda: None) -> Spread:
    """Play the presets of ``groups`` and the corners on battles 0..n-1 of ``seed`` (fewer once
    every paired headline difference is within ``precision``); ``partial`` sees the rows so far
    after every step but the last (``step`` battles a play; by default as ``sim compare`` steps);
    ``gate`` is called before each chunk (``paired.play_chunks``)."""
    require_party([Variant(AS_WRITTEN, subject)])
    started = time.perf_counter()
    kind = unit(Variant(AS_WRITTEN, subject))
    plays = preset_plays(subject, groups)
    presets = _Phase.of(plays)
    kept: list[tuple[int, ...]] = []  # as written's values per battle, for the corners
    size = step or min(n, BLOCK if precision is None else STEP)
    total = n * (len(presets.tags) + 2)
    done = 0
    while done < n:
        stop = min(n, done + size)
        presets.play(seed, done, stop, chunk, runner, window, kept, gate)
        done = stop
        progress(done * len(presets.tags), total)
        if precision is not None and presets.paired.diff_halfwidth(HEADLINE) <= precision:
            break
        if done < n:
            rows = presets.rows(n, seed, time.perf_counter() - started)
            partial(Spread(subject.name, kind, seed, done, tuple(groups), tuple(rows)))
    first = presets.rows(n, seed, 0.0)
    corners = _Phase.of(_same(corner_plays(subject, groups, first), plays), len(plays))
    for start in range(0, done, BLOCK):
        stop = min(done, start + BLOCK)
        corners.play(seed, start, stop, chunk, runner, window, kept, gate)
        played_now = done * len(presets.tags)
        progress(played_now + stop * len(corners.tags), played_now + done * len(corners.tags))
    elapsed = time.perf_counter() - started
    rows = presets.rows(n, seed, elapsed)
    rows += corners.rows(n, seed, elapsed, rows)
    return Spread(subject.name, kind, seed, done, tuple(groups), tuple(rows), (len(plays), len(plays) + 1))


def _pct(p: float) -> str:
    return f"{p * 100:.1f}%"


def describe(row: Row) -> str:
    """A play in words: ``heroes go for the weakest; goblins spread their blows``."""
    if not row.play.chosen:
        return AS_WRITTEN
    return "; ".join(f"{group.label} {preset.does}" for group, preset in row.play.chosen)


def sentence(result: Spread) -> str:
    """The answer in one sentence: from the kindest play to the deadliest, someone dies lo% to
    hi%; as written p%."""
    lo, hi = result.extremes("party.any_death")
    written = _pct(result.rows[0].p("party.any_death"))
    if lo.p("party.any_death") == hi.p("party.any_death"):
        return (f"Play does not move it: someone dies {written} under every preset"
                f" ({lo.summary['party']['difficulty']}).")
    return (f"From {lo.summary['party']['difficulty']} ({describe(lo)}) to"
            f" {hi.summary['party']['difficulty']} ({describe(hi)}): someone dies"
            f" {_pct(lo.p('party.any_death'))} to {_pct(hi.p('party.any_death'))}; as written {written}.")
