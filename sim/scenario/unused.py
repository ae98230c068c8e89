"""Keys the resolved scenario leaves idle, reported where they were written.

The bridge to sim.scenario.ignored: for each member (and mount) it builds the context of its
side and options, asks sim.scenario.ignored what would do nothing, and reports it at the key
in the scenario, or at ``use:`` for what a bestiary entry gives.
"""

from __future__ import annotations

from collections.abc import Sequence

import attrs

from sim.errors import IDLE, idle_message
from sim.model import Combatant, Options, Side, Surprise
from sim.rules.d100 import DEFAULT_CHARACTERISTIC
from sim.scenario import ignored, unread
from sim.scenario.checker import Checker
from sim.scenario.context import Context
from sim.scenario.idle_fights import ONE_ENEMY
from sim.scenario.limits import MAX_COMBATANTS
from sim.scenario.members import Member
from sim.yamlsrc import Path, format_path


def check_unused(c: Checker, rules: str, sides: list[Side], resolved: list[tuple[Member, Side]],
                 options: Options, data_options: object, surprise: Surprise | None,
                 rests: bool, perils: bool, distance: float, scripted: bool, whole: bool) -> None:
    """Keys the scenario's options and sides leave idle (see sim.scenario.ignored), reported where
    they were written: at the key in the scenario, or at `use:` for a bestiary entry's.

    Without the ``whole`` fight (a member, its mount or the distance refused), what the
    others decide (how many enemies, their armor, whether anyone moves or rides) is taken
    as able to matter: a key that works is never told it does nothing because of a typo
    elsewhere (an area "against one enemy" when the other enemy's hp was refused)."""
    party_side = any(side.party for side in sides)
    for member, side in resolved:
        ctx = member_context(rules, options, sides, side, surprise, rests, perils,
                             member.mount is not None, distance)
        if not whole:
            ctx = attrs.evolve(ctx, enemies=max(ctx.enemies, 2), still=False, enemy_armor=True)
        group_check = ctx.group_check
        afoot = attrs.evolve(ctx, mounted=False, mount=True)  # a mount rides nothing
        checks = [((), member.fields, member.path, member.use, member.written, ctx,
                   member.inner_written)]
        if member.mount is not None and "mount" in member.written:
            checks.append(((), member.mount, (*member.path, "mount"), member.mount_use,
                           member.mount_written, afoot, member.mount_inner_written))
        elif member.mount is not None:  # the entry's mount: reported as the entry's key
            checks.append((("mount",), member.mount, member.path, member.use, frozenset(),
                           afoot, frozenset()))
        for prefix, fields, path, use, written, block_ctx, inner in checks:
            # A bestiary entry's skill or tactics key is kept quietly, even beside skills or
            # tactics written here (they merge key by key).
            found = [_where_written(u, written) for u in ignored.unused_in_block(block_ctx, fields)
                     if u.path[0] not in ("skills", "tactics") or u.path[:2] in inner]
            if written & {"skills", "weapons"}:  # else checked in the bestiary already
                found += [ignored.Unused(("skills", *u.path), u.message) for u in
                          unread.unread_skills(rules, fields.get("skills", {}),
                                                fields.get("weapons", ()),
                                                (group_check,) if group_check else ())]
            if written & {"aspects", "weapons"} and fields.get("aspects") is not None:
                found += [ignored.Unused(("aspects", *u.path), u.message) for u in
                          unread.unread_aspects(fields["aspects"], fields.get("weapons", ()),
                                                 (group_check,) if group_check else ())]
            for unused in found:
                _report_unused(c, ignored.Unused((*prefix, *unused.path), unused.message), path,
                               use, written)
    for i, side in enumerate(sides):
        # (A side's target that every member overrides is told as such, sim.scenario.sides.)
        heirs = [m for m in side.members if m.tactics is None or m.tactics.target is None]
        if side.tactics.target is None or not heirs:
            continue
        if not any(m.weapons for m in heirs):
            c.warn(("sides", i, "tactics", "target"), "does nothing: no member (or mount) that"
                   " reads it has a weapon, so none ever picks a target; remove it")
        elif whole and enemies_of(sides, side) == 1:
            c.warn(("sides", i, "tactics", "target"), f"does nothing: {ONE_ENEMY}"
                                                      "; remove it")
    terror = any(m.fields.get("terror") for m, _ in resolved)
    armed = {side.name: sum(1 for m in side.members if m.weapons) for side in sides}
    most_enemies = max((sum(armed.values()) - armed[side.name] for side in sides), default=0)
    given = data_options if isinstance(data_options, dict) else {}
    largest = max((sum(1 for m in side.members if m.rider is None) for side in sides), default=0)
    # Checks of the system (not attacks): riding and falls (mounts), a fire or poison hit, a
    # surprise group check, and what hazards and the timeline (``perils``) do.
    checks = perils or bool(surprise and surprise.group_check) or any(
        m.rider is not None or any(w.fire or w.poison for w in m.weapons)
        for side in sides for m in side.members)
    if not whole:  # a refused member may be the enemy (or the side's member) that counts
        most_enemies, largest = MAX_COMBATANTS, MAX_COMBATANTS
    found = ignored.unused_options(rules, options, given, terror, most_enemies, party_side,
                                   largest, checks)
    field = field_of(sides, perils, distance, options.attacks_per_turn, scripted)
    if not whole:  # what a refused member would have brought may matter
        field = attrs.evolve(field, mounts=True, armored=True, half_action_attack=True, still=False,
                             most_attacks=max(field.most_attacks, 2), rider_wounded=True)
    found += ignored.unused_conventions(rules, options, given, field)
    for unused in found:
        c.warn(("options", *unused.path), unused.message)


def field_of(sides: Sequence[Side], perils: bool, distance: float, attacks_per_turn: int | None,
             scripted: bool) -> ignored.Field:
    """What of the sides decides whether an option setting a Convention aside can matter."""
    members = [m for side in sides for m in side.members]

    def attacks(m: Combatant) -> int:
        """Attacks in one d100 turn: two with a one-handed weapon (two half-actions)."""
        if not m.weapons:
            return 0
        half = any(w.half_action for w in m.weapons)
        return 2 if half and attacks_per_turn != 1 else 1

    by_side = {side.name: sum(attacks(m) for m in side.members) for side in sides}
    total = sum(by_side.values())
    bodies: dict[str, int] = {}
    for m in members:
        if m.terror is not None:
            kind = m.kind or m.name
            bodies[kind] = bodies.get(kind, 0) + 1
    mounts = any(m.rider is not None for m in members)
    return ignored.Field(
        terror_crowd=any(n > 1 for n in bodies.values()), mounts=mounts,
        armored=any(m.armor > 0 for m in members),
        half_action_attack=any(w.half_action for m in members for w in m.weapons),
        still=not (distance > 0 or perils or mounts),
        most_attacks=max((total - n for n in by_side.values()), default=0),
        rider_wounded=scripted or _rider_wounded(sides))


def _where_written(unused: ignored.Unused, written: frozenset[str]) -> ignored.Unused:
    """Heroism idle for its aspects is reported at the aspects when only they were written
    here (the entry's heroism would be kept quietly, and the aspects were the mistake)."""
    if (unused.path == ("heroism",) and unused.message.startswith(ignored.NO_ASPECT_ROLLED)
            and "aspects" in written and "heroism" not in written):
        return ignored.Unused(("aspects",), unused.message)
    return unused


def _rider_wounded(sides: Sequence[Side]) -> bool:
    """Whether one blow of an enemy can reach half a rider's maximum HP (its HP dice at their
    lowest), a d100 serious wound that knocks it out with HP left (rules §3): the most a
    weapon deals, armor aside (a critical pierces it), with its bonus and its wielder's
    riding bonus. Hazards and the timeline are left to the caller (``scripted``)."""
    mounts = {m.name: m for side in sides for m in side.members if m.rider is not None}

    def blow(m: Combatant) -> int:
        force = mounts[m.mount].characteristics.get("force", DEFAULT_CHARACTERISTIC) \
            if m.mount in mounts else 0
        ongoing = max((6 if w.fire else 4 if w.poison else 0 for w in m.weapons), default=0)
        hit = max((w.damage.max + max(w.bonus, 0) for w in m.weapons), default=0)
        return max(hit + force // 10, ongoing)

    for side in sides:
        strongest = max((blow(m) for other in sides if other is not side for m in other.members),
                        default=0)
        if any(m.mount is not None and 2 * strongest >= m.hp.min for m in side.members):
            return True
    return False


def morale_is_on(rules: str, options: Options) -> bool:
    """Whether morale is on: the option, else the system's default (on with 2d10 only,
    RuleSystem.morale_default, without importing the rules)."""
    return rules == "2d10" if options.morale_on is None else options.morale_on


def member_context(rules: str, options: Options, sides: Sequence[Side], side: Side,
                   surprise: Surprise | None, rests: bool = False, perils: bool = False,
                   mounted: bool = False, distance: float = 0.0) -> Context:
    """What of the scenario decides whether the keys of a member of ``side`` matter."""
    home = next((s for s in sides if s.party), sides[0] if sides else None)
    group_check = surprise.group_check if surprise and surprise.side == side.name else None
    # What makes it roll a check besides its attacks (its heroism may help there).
    checked = perils or group_check is not None or mounted or any(
        w.fire or w.poison for other in sides if other is not side
        for m in other.members for w in m.weapons)
    return Context(
        rules=rules, options=options, morale_on=morale_is_on(rules, options), party=side.party,
        party_side=any(s.party for s in sides),
        enemies_all_party=all(other.party for other in sides if other is not side),
        rolls_initiative=side is home, group_check=group_check, rests=rests and side.party,
        checked=checked, mounted=mounted, enemies=enemies_of(sides, side),
        still=not (distance > 0 or perils or any(m.rider for s in sides for m in s.members)),
        side_order=side.tactics.weapons,
        enemy_armor=any(m.armor > 0 for other in sides if other is not side for m in other.members))


def enemies_of(sides: Sequence[Side], side: Side) -> int:
    """The combatants a member of ``side`` may fight: the other sides', mounts included."""
    return sum(len(other.members) for other in sides if other is not side)


def _report_unused(c: Checker, unused: ignored.Unused, path: Path, use: str | None,
                   written: frozenset[str]) -> None:
    key = unused.path[0]
    if key not in written and use is not None and not (
            key == "terror" and unused.message.startswith(ignored.TERROR_WITHOUT_SPIRIT)):
        # A bestiary entry serves any scenario: what it gives is kept quietly, except terror
        # without the spirit option (the one a GM most needs told: the creature frightens nobody).
        return
    if key in written or use is None:
        c.warn((*path, *unused.path), unused.message)
        return
    why = idle_message(unused.message).removeprefix(IDLE)
    c.warn((*path, "use"), f"'{format_path(unused.path)}' of bestiary entry '{use}': {why}")
