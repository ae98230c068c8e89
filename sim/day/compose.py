"""A day's encounter composed with the day's party: one scenario source whose every value
traces back to the file (and path) where it was written, the day file or the encounter's.
"""

from __future__ import annotations

from sim.errors import Problem
from sim.yamlsrc import Mark, Path, Source


class Composed:
    """The data of one encounter with the day's party spliced in, reporting each problem in
    the file (and at the path) where the value was written: duck-types ``yamlsrc.Source``."""

    def __init__(self, data: dict, parts: list[tuple[Path, Source, Path]], sha256: str) -> None:
        self.data = data
        self.file = parts[-1][1].file
        self.sha256 = sha256
        self._parts = parts  # (prefix in data, source, prefix in that source); longest first

    def _where(self, path: Path) -> tuple[Source, Path]:
        for prefix, source, origin in self._parts:
            if path[:len(prefix)] == prefix:
                return source, (*origin, *path[len(prefix):])
        raise AssertionError(path)

    def mark(self, path: Path) -> Mark:
        source, origin = self._where(path)
        return source.mark(origin)

    def problem(self, path: Path, message: str, at_key: bool = False) -> Problem:
        source, origin = self._where(path)
        return source.problem(origin, message, at_key)

    def rename_key(self, parent: Path, old: object, new: object) -> None:
        source, origin = self._where(parent)
        source.rename_key(origin, old, new)


def compose(day: Source, own: Source, origin: Path, data: dict, party: dict, rules: str,
             destiny: int) -> Composed | None:
    """The encounter's data with the day's party as its party side (where its own party side
    was, else first), every value traced back to where it was written."""
    sides = data.get("sides")
    if not isinstance(sides, list):
        return None
    slot = next((k for k, s in enumerate(sides) if isinstance(s, dict) and s.get("party") is True), None)
    others = [k for k in range(len(sides)) if k != slot]
    at = 0 if slot is None else slot
    order = [*others[:at], None, *others[at:]]  # None: the day's party
    merged = {k: v for k, v in data.items() if k != "sides"}
    merged.setdefault("rules", rules)
    if destiny:
        merged["options"] = {**(merged.get("options") or {}), "destiny_points": destiny}
    merged["sides"] = [{**party, "party": True} if k is None else sides[k] for k in order]
    parts: list[tuple[Path, Source, Path]] = []
    for position, k in enumerate(order):
        if k is None:
            parts.append((("sides", position), day, ("party",)))
        else:
            parts.append((("sides", position), own, (*origin, "sides", k)))
    parts.append(((), own, origin))
    return Composed(merged, parts, own.sha256)
