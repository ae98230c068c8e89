"""d20 weapons ``suited:`` to some creatures (rules §3, seed 003: "une attaque
particulièrement adaptée"): each name must be a creature the GM can mean, a bestiary
entry of the system or a ``kind:`` of one, or a name or ``kind:`` of the scenario's members;
a name none of the wielder's enemies answers to here does nothing in this fight (a warning)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from sim.model import Side, Weapon
from sim.scenario.bestiary import Entry
from sim.scenario.checker import Checker, did_you_mean
from sim.scenario.members import Member, kinds_of
from sim.yamlsrc import format_path, shorten


def check_suited(c: Checker, roster: Sequence[tuple[Member, Side]], bestiary: Mapping[str, Entry]
                 ) -> None:
    """Refuse the names no creature answers to (with the closest one); warn of the names
    written here that no enemy of the wielder answers to."""
    by_side: dict[str, set[str]] = {}
    for member, side in roster:
        kinds = by_side.setdefault(side.name, set())
        kinds.update(kinds_of(member.fields, member.use))
        if member.mount is not None:
            kinds.update(kinds_of(member.mount, member.mount_use))
    # An entry refused for its own problems (said where it is written) still names a creature.
    shelf = {k for name, entry in bestiary.items()
             for k in (kinds_of(entry.fields, name) if isinstance(entry.fields, dict) else (name,))}
    known = tuple(sorted({*shelf, *(k for kinds in by_side.values() for k in kinds)}))
    for member, side in roster:
        enemies = {k for name, kinds in by_side.items() if name != side.name for k in kinds}
        written = "weapons" in member.written
        for i, weapon in enumerate(member.fields.get("weapons") or ()):
            if isinstance(weapon, Weapon):
                _check_weapon(c, member, i, weapon, known, enemies, written)


def _check_weapon(c: Checker, member: Member, i: int, weapon: Weapon, known: tuple[str, ...],
                  enemies: set[str], written: bool) -> None:
    for j, name in enumerate(weapon.suited):
        where = ("weapons", i, "suited", j)
        if name not in known:
            why = (f"no creature here or in the bestiary is called {shorten(name)} (a weapon"
                   f" is suited to a bestiary entry or its kind:, or a member's name or kind:)"
                   f"{did_you_mean(name, known)}")
            if written:
                c.fail((*member.path, *where), why)
            else:
                c.fail((*member.path, "use"), f"'{format_path(where)}' of bestiary entry"
                                              f" '{member.use}': {why}")
        elif written and name not in enemies:
            c.warn((*member.path, *where), f"does nothing here: no enemy of this side is a"
                                           f" {shorten(name)} (its +1d4 counts where one is)")
