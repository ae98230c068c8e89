"""``sim compare``: variants of an encounter on common battle seeds, with paired differences."""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import Any

from sim.batch import Runner
from sim.day.file import Day
from sim.decide.paired import (
    HEADLINE,
    Metrics,
    Paired,
    Progress,
    Variant,
    common_members,
    feed,
    play,
    require_party,
)

STEP = 1000  # battles per variant between two --precision checks (fixed: results never depend
             # on the number of workers)
# Battles per variant played and counted at a time without --precision: the rows of a step
# are held until it is counted (about 300 bytes a battle a variant), so a step, not -n,
# bounds memory. Fixed, so results never depend on it (the counts are sums in battle order).
BLOCK = 10_000
MAX_VARIANTS = 20


def compare(variants: Sequence[Variant], seed: int, n: int, runner: Runner, window: int,
            chunk: int, precision: float | None = None,
            progress: Progress = lambda done, total: None) -> dict[str, Any]:
    """Play every variant on battles 0..n-1 of ``seed`` (fewer once --precision is met)."""
    require_party(variants)
    members = common_members(variants)
    extractors = [Metrics.for_variant(v.scenario, members) for v in variants]
    paired = Paired(extractors[0].names, len(variants))
    started = time.perf_counter()
    step = min(n, BLOCK if precision is None else STEP)
    done = 0
    while done < n:
        stop = min(n, done + step)
        jobs = [(k, v.scenario, done, stop) for k, v in enumerate(variants)]
        rows = play(jobs, seed, chunk, runner, window)
        feed(paired, extractors, [rows[k] for k in range(len(variants))])
        done = stop
        progress(done, n)
        if precision is not None and paired.diff_halfwidth(HEADLINE) <= precision:
            break
    return {
        "schema": 1,
        "variants": [v.name for v in variants],
        "unit": unit(variants[0]),
        "scenarios": [v.scenario.path for v in variants],
        "overrides": [list(v.scenario.overrides) for v in variants],
        "seed": seed,
        "battles": paired.battles,
        "stopped_by": "n" if paired.battles >= n else "precision",
        "precision": precision,
        "elapsed_s": round(time.perf_counter() - started, 3),
        "headline": list(HEADLINE),
        "paired_interval": "normal interval of the mean of per-battle differences (95%)",
        "metrics": paired.metrics(),
    }


def unit(variant: Variant) -> str:
    """What each of a variant's runs is: ``days`` (an adventuring day) or ``battles``."""
    return "days" if isinstance(variant.scenario, Day) else "battles"


def variant_names(labels: Sequence[str]) -> list[str]:
    """Unique, readable names: the labels, numbered where two are the same."""
    seen: dict[str, int] = {}
    out = []
    for label in labels:
        seen[label] = seen.get(label, 0) + 1
        out.append(label if labels.count(label) == 1 else f"{label} ({seen[label]})")
    return out


def widest_difference(result: dict[str, Any]) -> float:
    """The widest paired half-width of the headline differences of a result: what --precision
    watched (``Paired.diff_halfwidth``), read back from its rounded intervals."""
    metrics = result["metrics"]
    return max((d["hi"] - d["lo"]) / 2 for name in result["headline"] for d in metrics[name]["diffs"])
