"""Keys the fight a scenario sets up leaves idle, for sim.scenario.ignored's stat block checks.

A target policy and an area against a single enemy, a weapon's range where nobody ever
moves, and the rolls a d20 combatant makes here (which its aspects must name for its
heroism to matter). Each takes the ``sim.scenario.context.Context`` of the block's side.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

import attrs

from sim.engine.tactics import weapon_order
from sim.scenario.unread import Unused, weapon_aspects

if TYPE_CHECKING:
    from sim.scenario.context import Context


def rolls_here(ctx: Context, aspect: str, fields: Mapping[str, Any]) -> bool:
    """Whether a d20 combatant may make a roll concerning ``aspect`` in this scenario: its
    attacks (rolled by the party, and against a non-party target), the party's defenses,
    terror (a party member, with spirit on), checks something makes it roll (physique,
    force), its side's surprise group check. Lenient where the scenario may (terror)."""
    attacks = ctx.party or not ctx.enemies_all_party
    if aspect == "attack" or aspect in weapon_aspects(fields.get("weapons", ())):
        return attacks
    if aspect == "defense":
        return ctx.party
    if aspect == "terror":
        return ctx.party and bool(ctx.options.spirit)
    if aspect in ("physique", "force"):
        return ctx.checked
    return aspect == ctx.group_check


ONE_ENEMY = "it has one enemy, whom every target policy picks"
UNARMED = "it has no weapon, so it never picks a target (nor walks toward one)"


def unused_with_one_enemy(ctx: Context, fields: Mapping[str, Any]) -> list[Unused]:
    """A target policy, and a weapon's area, where the fighter faces a single enemy (no
    timeline action adds a combatant): both only choose among or reach more enemies; a
    target policy on a fighter with no weapon, which never attacks."""
    tactics = fields.get("tactics")
    targets = tactics is not None and tactics.target is not None
    if targets and not fields.get("weapons"):
        return [Unused(("tactics", "target"), f"does nothing: {UNARMED}; remove it")]
    if ctx.enemies != 1:
        return []
    found = []
    if targets:
        found.append(Unused(("tactics", "target"), f"does nothing: {ONE_ENEMY}; remove it"))
    for i, weapon in enumerate(fields.get("weapons", ())):
        if weapon.area:
            found.append(Unused(("weapons", i, "area"), (
                "does nothing: an area weapon also hits the other enemies within 2 m of its"
                " target, and this fighter has one enemy; remove it")))
    return found


def unused_ranges(ctx: Context, fields: Mapping[str, Any]) -> list[Unused]:
    """A weapon's ``range`` where nobody ever moves (every gap stays 0, within any reach) and
    where it changes neither the weapon the fighter strikes with (the first of its order, a
    ranged one ranking after melee ones) nor the skill it rolls (d10 and d100 default to
    ``ranged``). d100 is left out: a bow is a full action and a shot can become hopeless."""
    weapons = tuple(fields.get("weapons", ()))
    if not ctx.still or ctx.rules == "d100" or not weapons:
        return []
    tactics = fields.get("tactics")
    prefers = ctx.side_order if tactics is None or tactics.weapons is None else tactics.weapons
    first = weapon_order(weapons, prefers)[0]
    found = []
    for i, weapon in enumerate(weapons):
        if weapon.range is None or (ctx.rules == "d10" and weapon.skill is None):
            continue
        melee = (*weapons[:i], attrs.evolve(weapon, range=None), *weapons[i + 1:])
        if weapon_order(melee, prefers)[0].name == first.name:
            found.append(Unused(("weapons", i, "range"), (
                f"does nothing: everyone starts within reach (distance 0) and nothing here makes"
                f" anyone move (no hazard, timeline or mount), so it reaches no farther, and"
                f" '{first.name}' stays the weapon it strikes with; remove it")))
    return found


def unused_piercing(ctx: Context, fields: Mapping[str, Any]) -> list[Unused]:
    """A weapon's ``armor_piercing`` where no enemy has armor to pierce (d20 refuses the key
    anyway: its armor never reduces damage)."""
    if ctx.enemy_armor:
        return []
    return [Unused(("weapons", i, "armor_piercing"), "does nothing: no enemy here has armor"
                   " for it to pierce; remove it")
            for i, weapon in enumerate(fields.get("weapons", ())) if weapon.armor_piercing]
