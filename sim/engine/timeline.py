"""The scenario's scripted timeline: ignite, poison, expose, explode, fall at a given round."""

from __future__ import annotations

from typing import TYPE_CHECKING

from sim import dice
from sim.engine.effects import explode, expose, fall, ignite, poison

if TYPE_CHECKING:
    from collections.abc import Sequence

    from sim.engine.effects import Host
    from sim.engine.state import Fighter
    from sim.model import Scripted

DEFAULT_EXPLOSION = dice.parse("3d6+4")  # "un bricolage artisanal avec de la poudre noire"


def targets_of(fighters: Sequence[Fighter], entry: Scripted) -> list[Fighter]:
    """The fighters an entry names, or every member of its side, still on the field."""
    if entry.side is not None:
        chosen = [f for f in fighters if f.side == entry.side]
    else:
        wanted = set(entry.targets)
        chosen = [f for f in fighters if f.name in wanted]
    return [f for f in chosen if f.present]


def run_timeline(host: Host, fighters: Sequence[Fighter], timeline: Sequence[Scripted],
                 number: int) -> None:
    """Play round ``number``'s entries, in listed order, at the start of the round."""
    for entry in timeline:
        if entry.round != number:
            continue
        targets = targets_of(fighters, entry)
        if host.table.log is not None:
            host.table.emit("scripted", do=entry.do, targets=[f.name for f in targets])
        if entry.do == "explode":
            explode(host, targets, entry.damage or DEFAULT_EXPLOSION)
            continue
        for target in targets:
            if entry.do == "ignite":
                ignite(host, target, None)
            elif entry.do == "poison":
                poison(host, target, None)
            elif entry.do == "expose":
                expose(host, target, entry.kind, entry.escape)
            elif entry.do == "fall":
                fall(host, target, entry.height)
