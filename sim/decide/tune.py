"""``sim tune``: the values of one integer parameter that meet a risk target.

Every value plays the same battle seeds (common random numbers). Battles go
where the answer is uncertain: all values start with one step of battles;
a value stops as soon as its Wilson 95% interval lies wholly on one side of
the target, or once that interval is narrower than ``+-precision`` (then it
*straddles* the target: too close to call at that precision), or at the cap.
So a value far from the target costs a few hundred battles, and no value costs
more than a batch of it run alone with ``--precision`` would.

Caveat, said in the README too: the interval is looked at after every step,
so the chance that a value's side is called wrong is somewhat above 5% for
values near the target; the straddle flag is the honest answer there.
"""

from __future__ import annotations

import re
import time
from collections.abc import Sequence
from typing import Any

import attrs

from sim.batch import Runner
from sim.decide.compare import unit
from sim.decide.paired import PARTY, Metrics, Progress, Variant, play, require_party
from sim.errors import InputError
from sim.tally.stats import interval

STEP = 250  # battles per undecided value per round (fixed, so results never depend on workers)
MAX_VALUES = 100
_TARGET = re.compile(r"\s*([A-Za-z_][\w.\[\] ]*?)\s*(<=|>=)\s*([0-9]*\.?[0-9]+)\s*%?\s*")
_RANGE = re.compile(r"\s*(-?[0-9]{1,18})\s*\.\.\s*(-?[0-9]{1,18})\s*")  # int() reads these


@attrs.frozen
class Target:
    """``METRIC<=X`` or ``METRIC>=X`` on a party proportion."""

    metric: str
    op: str
    bound: float

    def __str__(self) -> str:
        return f"{self.metric}{self.op}{self.bound:g}"

    def met(self, p: float) -> bool:
        return p <= self.bound if self.op == "<=" else p >= self.bound

    def side(self, lo: float, hi: float) -> bool | None:
        """True: the whole interval meets the target; False: none of it; None: it straddles."""
        if self.met(lo) and self.met(hi):
            return True
        if not self.met(lo) and not self.met(hi):
            return False
        return None


def parse_target(text: str) -> Target:
    match = _TARGET.fullmatch(text)
    if match is None:
        msg = ("sim tune: --target: must be METRIC<=X or METRIC>=X, e.g. party.any_death<=0.10"
               f" (got {text[:60]!r})")
        raise InputError(msg)
    metric, op, number = match.groups()
    if metric not in PARTY:
        msg = f"sim tune: --target: unknown metric {metric!r}; one of {', '.join(PARTY)}"
        raise InputError(msg)
    bound = float(number) / (100 if text.strip().endswith("%") else 1)
    if not 0 <= bound <= 1:
        msg = f"sim tune: --target: {metric} is a proportion: X must be between 0 and 1 (got {bound:g})"
        raise InputError(msg)
    if (op, bound) in (("<=", 1.0), (">=", 0.0)):  # every proportion meets it
        msg = (f"sim tune: --target: {metric}{op}{bound:g} is met by every value whatever the"
               " battles, so it would decide nothing; give a bound between 0 and 1")
        raise InputError(msg)
    return Target(metric, op, bound)


def is_range(values: str) -> bool:
    """Whether ``values`` is written LO..HI (whole numbers)."""
    return _RANGE.fullmatch(values) is not None


def parse_vary(text: str, command: str = "tune") -> tuple[str, list[int]]:
    """``PATH=LO..HI`` into the path and the integer values LO..HI (``command`` names who
    asks, in the messages)."""
    path, sep, span = text.rpartition("=")
    match = _RANGE.fullmatch(span)
    if not sep or not path.strip() or match is None:
        msg = (f"sim {command}: --vary: must be PATH=LO..HI, e.g."
               f" sides[goblins].members[goblin].count=1..10 (got {text[:80]!r})")
        raise InputError(msg)
    lo, hi = int(match.group(1)), int(match.group(2))
    if hi < lo or hi - lo + 1 > MAX_VALUES:
        msg = f"sim {command}: --vary: LO..HI must hold 1 to {MAX_VALUES} values (got {lo}..{hi})"
        raise InputError(msg)
    return path.strip(), list(range(lo, hi + 1))


@attrs.define
class _Point:
    value: int
    variant: Variant
    metrics: Metrics
    successes: int = 0
    battles: int = 0
    decided: bool = False
    # Every party proportion's count, for the value's difficulty and its other figures.
    headline: list[int] = attrs.field(factory=lambda: [0] * len(PARTY))

    def summary(self, target: Target) -> dict[str, Any]:
        ci = interval(self.successes, self.battles)
        side = target.side(ci["lo"], ci["hi"])
        return {"value": self.value, "metric": ci, "battles": self.battles,
                "meets": target.met(ci["p"]), "straddles": side is None,
                "headline": {name: interval(count, self.battles)
                             for name, count in zip(PARTY, self.headline, strict=True)}}


def tune(points: Sequence[tuple[int, Variant]], target: Target, seed: int, cap: int,
         precision: float, runner: Runner, window: int, chunk: int,
         progress: Progress = lambda done, total: None) -> dict[str, Any]:
    """Find the values whose ``target.metric`` meets the target (see the module docstring)."""
    require_party([v for _, v in points])
    started = time.perf_counter()
    metric = PARTY.index(target.metric)
    state = [_Point(value, v, Metrics.for_variant(v.scenario, ())) for value, v in points]
    done = 0
    while done < cap:
        open_points = [p for p in state if not p.decided]
        if not open_points:
            break
        stop = min(cap, done + STEP)
        rows = play([(p.value, p.variant.scenario, done, stop) for p in open_points],
                    seed, chunk, runner, window)
        for point in open_points:
            for row in rows[point.value]:
                values = point.metrics.values(row)
                point.successes += values[metric]
                for k in range(len(PARTY)):
                    point.headline[k] += values[k]
            point.battles = stop
            ci = interval(point.successes, point.battles)
            narrow = (ci["hi"] - ci["lo"]) / 2 <= precision
            point.decided = target.side(ci["lo"], ci["hi"]) is not None or narrow
        done = stop
        progress(sum(p.battles for p in state), cap * len(state))
    summaries = [p.summary(target) for p in state]
    ok = [s["value"] for s in summaries if s["meets"]]
    return {
        "schema": 1,
        "scenario": points[0][1].scenario.path,
        "target": str(target),
        "vary": points[0][1].name.rpartition("=")[0],
        "unit": unit(points[0][1]),
        "seed": seed,
        "precision": precision,
        "points": summaries,
        "largest_ok": max(ok) if ok else None,
        "smallest_ok": min(ok) if ok else None,
        "battles": sum(p.battles for p in state),
        "elapsed_s": round(time.perf_counter() - started, 3),
    }
