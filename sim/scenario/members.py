"""One member of a side: ``use:`` resolution, overrides, mounts, and the specs it expands to.

A member is a stat block written in the scenario, or a bestiary entry (``use:``)
with keys overridden or dropped (``key: null``); ``count: N`` expands it into N
combatants named ``NAME 1`` .. ``NAME N``, each mount following its rider.
"""

from __future__ import annotations

from typing import Any

import attrs

from sim.model import Combatant, Tactics
from sim.scenario.bestiary import Entry, where_searched
from sim.scenario.blocks import (
    check_potion_at,
    check_skills,
    check_weapon_names,
    stat_fields,
    stat_hints,
)
from sim.scenario.checker import INVALID, Checker
from sim.scenario.limits import MAX_COUNT
from sim.scenario.lookup import did_you_mean_entry
from sim.scenario.orders import WrittenOrder, written_order
from sim.scenario.unread import RIDING
from sim.yamlsrc import Path, format_path, shorten


@attrs.define
class Member:
    """One validated scenario member before names are expanded and specs built."""

    fields: dict[str, Any]
    path: Path
    count: int
    mount: dict[str, Any] | None = None  # the resolved fields of its mount
    use: str | None = None  # the bestiary entry it is made from
    written: frozenset[str] = frozenset()  # keys written in the scenario (else from `use:`)
    mount_use: str | None = None
    mount_written: frozenset[str] = frozenset()
    # Its own and its mount's tactics.weapons as written here, checked against its side's.
    orders: tuple[WrittenOrder, ...] = ()
    # The skills and tactics keys written here, its own and its mount's, as (key, inner key)
    # pairs: the others come from `use:`.
    inner_written: frozenset[tuple[str, str]] = frozenset()
    mount_inner_written: frozenset[tuple[str, str]] = frozenset()


@attrs.frozen
class Failed:
    """A member that failed validation: what was valid in it, still checked for idle keys."""

    member: Member


SCORES = ("characteristics", "attributes", "skills")  # mappings a member's use: merges by name


def _resolve(c: Checker, fields: dict[str, Any], path: Path, bestiary: dict[str, Entry] | None
             ) -> Any:
    """Merge ``use:`` (a bestiary entry) under the given keys; INVALID when it cannot."""
    use = fields.pop("use", None)
    if use is None:
        return fields
    entry = None if bestiary is None else bestiary.get(use)
    if entry is None:
        hint = did_you_mean_entry(use, bestiary or ())
        where = where_searched(c.searched, (c.rules,))
        return c.fail((*path, "use"), f"no bestiary entry '{use}'{hint}; {where}")
    if entry.fields is INVALID:
        return INVALID  # its own problems were reported in the bestiary
    merged = {"name": use, **entry.fields, **fields}
    if "tactics" in fields and "tactics" in entry.fields:  # key by key, like a side's
        merged["tactics"] = fields["tactics"].over(entry.fields["tactics"])
    for key in SCORES:
        # Score by score: `characteristics: {force: 80}` next to `use: man-at-arms` is a
        # stronger man-at-arms, not one whose physique, mental and social fall to the default.
        if key in fields and key in entry.fields:
            merged[key] = {**entry.fields[key], **fields[key]}
    return merged


def _check_member_weapons(c: Checker, given: dict[str, Any], merged: dict[str, Any],
                          path: Path) -> None:
    """``tactics.weapons`` against the weapons the member ends up with: reported where the
    list was written, or at the member's ``weapons`` when they replaced the entry's."""
    tactics, weapons = merged.get("tactics"), merged.get("weapons", ())
    own = given.get("tactics")
    check_potion_at(c, own, merged, path)
    if own is not None and own.weapons is not None:
        check_weapon_names(c, tactics, weapons, (*path, "tactics", "weapons"))
    elif "weapons" in given and tactics is not None and tactics.weapons:
        known = {w.name for w in weapons}
        missing = [name for name in tactics.weapons if name not in known]
        if missing:
            c.fail((*path, "weapons"), f"the bestiary entry's tactics.weapons names "
                                      f"{', '.join(map(shorten, missing))}, not among these weapons")


def _entry_tactics(given: dict[str, Any], bestiary: dict[str, Entry] | None) -> Tactics | None:
    """The tactics of the bestiary entry ``given`` uses, if any (what its own override)."""
    use = given.get("use")
    entry = None if use is None or bestiary is None else bestiary.get(use)
    return None if entry is None or entry.fields is INVALID else entry.fields.get("tactics")


def _dropped(value: object, table: dict[str, Any]) -> tuple[str, ...]:
    """Keys set to null next to ``use:``: the bestiary entry's value is dropped, not replaced."""
    if not isinstance(value, dict) or "use" not in value:
        return ()
    return tuple(k for k, v in value.items()
                 if v is None and k in table and k not in ("use", "name", "hp", "count"))


def _drop(c: Checker, merged: dict[str, Any], dropped: tuple[str, ...], path: Path,
          use: object) -> None:
    for key in dropped:
        if merged.pop(key, None) is None:
            c.warn((*path, key), f"bestiary entry {shorten(use)} has no '{key}' to drop")


def read_member(c: Checker, value: object, path: Path, bestiary: dict[str, Entry] | None) -> Any:
    """A member entry resolved into a ``Member``; a ``Failed`` one (what was valid in it, for
    the idle-key checks) or INVALID when it has problems."""
    fields_table = stat_fields(c)
    fields_table["use"] = c.text
    fields_table["count"] = lambda v, p: c.integer(v, p, 1, MAX_COUNT)
    dropped = _dropped(value, fields_table)
    if dropped:
        assert isinstance(value, dict)
        value = {k: v for k, v in value.items() if k not in dropped}
    partial: dict[str, Any] = {}
    fields = c.mapping(value, path, fields_table, partial=partial, foreign=stat_hints(c))
    if fields is INVALID:
        if "use" in partial:
            return INVALID
        # A whole stat block written here: what is valid in it can still be checked.
        check_skills(c, partial, path)
        valid = {k: v for k, v in partial.items() if v is not INVALID and k != "mount"}
        # Its riding is not checked when a mount was written (invalid, so not in `valid`).
        inner = inner_written(valid) - (
            {("skills", RIDING)} if "mount" in partial else set())
        return Failed(Member(valid, path, 1, written=frozenset(valid), inner_written=inner))
    count = fields.pop("count", 1)
    use = fields.get("use")
    written = frozenset(fields) - {"use"}
    given = dict(fields)
    merged = _resolve(c, fields, path, bestiary)
    if merged is INVALID:
        return INVALID
    _drop(c, merged, dropped, path, use)
    _check_member_weapons(c, given, merged, path)
    orders = [written_order(given, merged, path, _entry_tactics(given, bestiary))]
    for key in ("name", "hp"):
        if key not in merged:
            c.fail(path, f"missing required key '{key}'" + (" (and no 'use:')" if use is None else ""))
    if "name" not in merged or "hp" not in merged:
        return INVALID
    mount, mount_use, mount_written = None, None, frozenset()
    mount_inner: frozenset[tuple[str, str]] = frozenset()
    if "mount" in merged:
        mount_path = (*path, "mount")
        given_mount = dict(merged.pop("mount"))
        mount_dropped = tuple(k for k, v in given_mount.items() if v is None)  # KEY: null
        for key in mount_dropped:
            del given_mount[key]
        mount_use = given_mount.get("use")
        if "mount" in written:
            mount_written = frozenset(given_mount) - {"use"}
            mount_inner = inner_written(given_mount)
        mount = _resolve(c, dict(given_mount), mount_path, bestiary)
        if mount is INVALID:
            return INVALID
        _drop(c, mount, mount_dropped, mount_path, mount_use)
        if "mount" in mount:  # only through use: (written here it is an unknown key)
            return c.fail((*mount_path, "mount"), f"a mount has no mount of its own (bestiary"
                          f" entry {shorten(mount_use)} gives it one)")
        _check_member_weapons(c, given_mount, mount, mount_path)
        if "mount" in written:  # else the entry's mount, kept quietly like all it gives
            orders.append(written_order(given_mount, mount, mount_path,
                                        _entry_tactics(given_mount, bestiary)))
        if "hp" not in mount:
            return c.fail(mount_path, "missing required key 'hp' (and no 'use:')")
    return Member(merged, path, count, mount, use=use, written=written, mount_use=mount_use,
                  mount_written=mount_written, orders=tuple(o for o in orders if o is not None),
                  inner_written=inner_written(given), mount_inner_written=mount_inner)


def inner_written(given: dict[str, Any]) -> frozenset[tuple[str, str]]:
    """The skills and tactics keys of a stat block as written (``("skills", "riding")``...)."""
    tactics = given.get("tactics")
    keys = [] if not isinstance(tactics, Tactics) else [
        ("tactics", key) for key in ("target", "weapons", "potion_at", "reroll_hp", "revive")
        if getattr(tactics, key) is not None]
    return frozenset([*(("skills", name) for name in given.get("skills") or ()), *keys])


def kinds_of(fields: dict[str, Any], use: str | None) -> tuple[str, ...]:
    """What a weapon's ``suited:`` knows a block by: its bestiary entry, its name as written
    (before ``count:`` numbers it) and its ``kind:`` names (rules §3, d20)."""
    names = (use, fields.get("name"), *fields.get("kind", ()))
    return tuple(dict.fromkeys(n for n in names if isinstance(n, str)))


def expand(members: list[Member], side: str) -> list[tuple[Combatant, Path]]:
    """Build specs; ``count: N`` names them ``NAME 1`` .. ``NAME N``; a mount follows its rider."""
    out: list[tuple[Combatant, Path]] = []
    for m in members:
        base = m.fields["name"]
        fields = {k: v for k, v in m.fields.items() if k not in ("description", "kind")}
        for i in range(1, m.count + 1):
            name = f"{base} {i}" if m.count > 1 else base
            mount_name = None
            if m.mount is not None:
                mount_name = f"{m.mount.get('name', 'mount')} of {name}"
            # One scenario entry is one kind of creature (rules §3 terror): the `count:` members
            # of an entry share it; two entries are two kinds, even of one bestiary entry.
            spec = Combatant(**{**fields, "name": name, "side": side,
                                "kind": format_path(m.path), "mount": mount_name,
                                "kinds": kinds_of(m.fields, m.use)})
            out.append((spec, m.path))
            if m.mount is not None:
                mount_fields = {k: v for k, v in m.mount.items()
                                if k not in ("description", "name", "kind")}
                out.append((Combatant(**{**mount_fields, "name": mount_name, "side": side,
                                         "kind": format_path((*m.path, "mount")),
                                         "kinds": kinds_of(m.mount, m.mount_use),
                                         "rider": name}), (*m.path, "mount")))
    return out
