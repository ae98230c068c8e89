"""Keys that would silently do nothing under a scenario's system and options, and why.

Validation warns about every such key (a GM who writes it expects it to matter, but it is
valid data: the run goes ahead; ``--strict`` refuses it). Two levels, as the reference's
"What each system reads" table says:

- the **system** never reads it (``hands`` in d20, ``heroism`` in d100, a skill no
  weapon and no rule rolls): told wherever it is written, bestiary included;
- the **scenario** makes it idle (``terror`` without ``options: {spirit: true}``,
  ``morale`` tokens with morale off, a party member's ``attack_threshold``):
  told in the resolved scenario only, since one bestiary entry serves
  scenarios with different options.

Functions here take validated values and return ``Unused`` findings with a path
relative to the stat block (or weapon, option, timeline entry); ``sim.scenario``
turns them into ``file:line:col`` problems where the key was written.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

import attrs

from sim.model import INITIATIVE_GIFT
from sim.rules import d100
from sim.scenario.context import Context
from sim.scenario.idle_fights import rolls_here, unused_piercing, unused_ranges, unused_with_one_enemy
from sim.scenario.unread import RIDING, Unused, unread_aspects

# Stat keys that only some systems read (every other stat key is read by all four).
SYSTEM_STAT_KEYS: dict[str, tuple[str, ...]] = {
    "attack_threshold": ("d20",),
    "defense_threshold": ("d20",),
    "heroism": ("d20",),
    "aspects": ("d20",),
    "gifts": ("d20",),
    "terror": ("d20",),
    "spirit": ("d20",),
    "kind": ("d20",),
    "characteristics": ("d100", "2d10"),
    "attributes": ("d10",),
    "skills": ("d100", "2d10", "d10"),
    "psy": ("d100",),
    "load": ("d100",),
    "defense": ("2d10", "d10"),
    "mount": ("d100", "2d10", "d10"),
}
# Why a system-specific stat key does nothing elsewhere (said after "does nothing in X: ").
STAT_KEY_WHY = {
    "attack_threshold": "thresholds are the d20 attack and defense rolls (seed 003)",
    "defense_threshold": "thresholds are the d20 attack and defense rolls (seed 003)",
    "heroism": "heroism dice are d20's (seed 003)",
    "aspects": "aspects choose the rolls heroism dice may help, a d20 rule",
    "gifts": "gifts are d20's (seed 003)",
    "terror": "terror and spirit points are d20's (seed 003)",
    "spirit": "terror and spirit points are d20's (seed 003)",
    "kind": "only a d20 weapon's suited: list reads a creature's kind (+1d4, seed 003)",
    "characteristics": "d10 stat blocks have 'attributes', d20 ones 'level'",
    "attributes": "attributes are d10's; d100 and 2d10 have 'characteristics'",
    "skills": "d20 rolls level, not skills",
    "psy": "PSY and spells are d100's (seed 002)",
    "load": "carrying capacity and fatigue are d100's (seed 002)",
    "defense": "d100 defends with the 'defense' skill, d20 with defense_threshold or armor",
    "mount": "d20 stat blocks have no riding or force: a mount would add nothing",
}
# Weapon keys only some systems read.
SYSTEM_WEAPON_KEYS: dict[str, tuple[str, ...]] = {
    "hands": ("d100",),
    "attribute": ("d10",),
    "psy": ("d100",),
    "thrown": ("d100",),
    "armor_piercing": ("d100", "2d10", "d10"),
    "suited": ("d20",),
}
WEAPON_KEY_WHY = {
    "hands": "only d100 counts hands (a two-handed weapon or a bow is a full action and tires);"
             " elsewhere every attack is the turn's one attack",
    "attribute": "only d10 adds an attribute to the attack (d100 rolls the skill, 2d10 combat"
                 " + skill, d20 level + bonus)",
    "psy": "spells and PSY are d100's (seed 002)",
    "thrown": "only d100 tells a thrown weapon (a half-action) from a bow or crossbow (a full"
              " action that tires); elsewhere every attack is the turn's one attack",
    "armor_piercing": "d20 armor never reduces damage (it feeds the defense roll)",
    "suited": "only d20 adds 1d4 for an attack particularly suited to its target (seed 003)",
}
# Options only one system reads.
SYSTEM_OPTIONS: dict[str, tuple[str, ...]] = {
    "spirit": ("d20",),
    "outnumbered_at": ("d20",),
    "attacks_per_turn": ("d100",),
    "difficulty": ("d10",),
    "tie_succeeds": ("d10",),
    "move_and_attack": ("2d10", "d10"),
    "terror_per": ("d20",),
    "critical_pierces": ("d100",),
    "critical_ignores_defense": ("d100",),
    "fumble_ends_turn": ("d100",),
    "defense_per": ("d100",),
    "unconscious_rider": ("d100",),
}
OPTION_WHY = {
    "spirit": "terror and spirit points are d20's (seed 003)",
    "outnumbered_at": "the outnumbered rule is d20's (seed 003)",
    "attacks_per_turn": "only d100 turns may hold more than one attack",
    "difficulty": "only d10 checks fall back on a scenario difficulty",
    "tie_succeeds": "only d10 leaves a tie to a Convention (d20 needs more than the target,"
                    " 2d10 succeeds at Q = 0, d100 at the score itself)",
    "move_and_attack": "d20 already moves then attacks, and d100 turns are two half-actions",
    "terror_per": "terror and spirit points are d20's (seed 003)",
    "critical_pierces": "only d100 criticals pierce armor (2d10 exploits add a die, d10"
                        " margins add damage, d20 criticals add 1d4)",
    "critical_ignores_defense": "only d100 targets roll a defense against a hit",
    "fumble_ends_turn": "only d100 turns hold more than one action to end (a 2d10 disaster"
                        " costs the next turn instead)",
    "defense_per": "only d100 targets roll a defense against a hit",
    "unconscious_rider": "elsewhere a rider falls unconscious only at 0 HP, where a fall can"
                         " hurt it no more (d100's serious wounds knock riders out with HP"
                         " left; d20 has no mounts)",
}
NO_ASPECT_ROLLED = "does nothing: no roll it makes here concerns its aspects"
TERROR_WITHOUT_SPIRIT = "does nothing without options: {spirit: true}"
TIMELINE_KEYS = {"damage": ("explode",), "height": ("fall",), "kind": ("expose",),
                 "escape": ("expose",)}



def read_by(key: str, systems: tuple[str, ...]) -> str:
    return f"'{key}' is read only by {', '.join(systems)}"


def system_refusal(key: str, rules: str, table: Mapping[str, tuple[str, ...]],
                   why: Mapping[str, str]) -> str | None:
    """Why ``key`` is idle in ``rules`` (a warning), or None when the system reads it."""
    systems = table.get(key)
    if systems is None or rules in systems:
        return None
    return f"does nothing in {rules}: {why[key]} ({read_by(key, systems)}); remove it"


def unused_in_block(ctx: Context, fields: Mapping[str, Any]) -> list[Unused]:
    """Keys of a resolved stat block that the scenario's options or sides leave idle."""
    found: list[Unused] = []
    rules, options = ctx.rules, ctx.options

    def idle(key: str, message: str) -> None:
        if key in fields:
            found.append(Unused((key,), message))

    if rules == "d20":
        if not options.spirit:
            for key in ("terror", "spirit"):
                idle(key, f"{TERROR_WITHOUT_SPIRIT} (terror costs spirit points only then);"
                            " turn the option on, or remove it")
        elif ctx.party:
            idle("terror", "does nothing: terror frightens the party, and this is a party"
                             " member; remove it")
        else:
            idle("spirit", "does nothing: only the party has spirit points, and this is"
                             " not a party member; remove it")
            if not ctx.party_side:
                idle("terror", "no side has `party: true`, and terror frightens only the"
                                 " party; if its foes are the player characters, mark their"
                                 " side `party: true` and it is read")
        if not ctx.party and ctx.enemies_all_party and not ctx.checked:
            idle("heroism", "does nothing: it never rolls (its enemies are all party members,"
                              " who roll both the attacks on it and their defenses against it,"
                              " rules §3) and nothing here makes it roll a check (a hazard, the"
                              " timeline, a surprise group check, fire or poison); remove it")
        elif fields.get("heroism") and fields.get("aspects") and not any(
                rolls_here(ctx, name, fields) for name in fields["aspects"]) and not unread_aspects(
                fields["aspects"], fields.get("weapons", ()), (ctx.group_check or "",)):
            # (an aspect no roll can concern at all is told at the aspect, sim.scenario.unread)
            idle("heroism", f"{NO_ASPECT_ROLLED} ({', '.join(fields['aspects'])}), so no"
                              " die is ever spent; name one of its rolls in aspects, or remove it")
        if not fields.get("heroism"):
            idle("aspects", "does nothing without heroism dice (aspects choose the rolls a"
                              " heroism die may help); add heroism: N, or remove it")
        if ctx.party:
            idle("attack_threshold", "does nothing: a party member rolls its own defense"
                                       " against the attacker's attack_threshold; remove it")
            idle("defense_threshold", "does nothing: attacks on a party member are its"
                                        " own defense rolls (1d20 + armor); remove it")
        elif not ctx.party_side:
            # The cause is the missing party mark, not the threshold: removing it would change
            # the model (rules §3: a party rolls its own defense against attack_threshold).
            idle("attack_threshold", "no side has `party: true`, so nobody rolls a defense"
                                       " against this attack_threshold and every attack rolls"
                                       " against its target's defense_threshold instead; if"
                                       " its foes are the player characters, mark their side"
                                       " `party: true` and it is read")
        gifts = fields.get("gifts") or ()
        if INITIATIVE_GIFT in gifts and not (ctx.rolls_initiative or ctx.group_check):
            idle("gifts", "the 'initiative' gift is used only by the side that rolls"
                            " initiative (the party, else the first side) or makes a surprise"
                            " group check")
        found += _unused_d20_weapons(ctx, fields)
    if (rules != "d20" and RIDING in (fields.get("skills") or {}) and not ctx.mounted
            and ctx.group_check != RIDING):
        found.append(Unused(("skills", RIDING), (
            "does nothing: only a rider rolls riding (from the saddle, rules §6), and this stat"
            " block has no mount; give it one (mount: {use: ...}), or remove it")))
    found += unused_with_one_enemy(ctx, fields)
    found += unused_ranges(ctx, fields)
    found += unused_piercing(ctx, fields)
    # A party member's level is part of its sheet (the docs say to give it, the shipped
    # heroes carry it) and a day's rests read it: told only on a member no rest can read.
    if rules != "d20" and not ctx.rests and not ctx.party:
        idle("level", f"does nothing in {rules}: only d20 rolls level; outside d20 only the"
                        " rests of a day read it, for the day's party, and this is no party"
                        " member; remove it")
    if "morale" in fields and not ctx.morale_on:
        idle("morale", "does nothing with morale off (starting morale tokens); set options:"
                         " {morale: true}, or remove it")
    elif ctx.mount:
        idle("morale", "does nothing: mounts take no part in morale and hold no tokens (the"
                       " rules' Morale section)")
    elif "morale" in fields and not ctx.options.holds_tokens(ctx.party, ctx.party_side):
        idle("morale", "does nothing: only the party's members hold morale tokens (seed 000:"
                       " \"pour chaque joueur\"); for a table where every side holds them set"
                       " options: {morale: {who: everyone}}, or remove it")
    if rules == "d100" and "load" in fields:
        force = (fields.get("characteristics") or {}).get("force", d100.DEFAULT_CHARACTERISTIC)
        capacity = force / 2 + 20
        if fields["load"] <= capacity:  # only the kilos over capacity tire (sim.rules.d100)
            # Not "raise it": the load is what the character carries, and carrying little is
            # no mistake; the GM learns it costs nothing, and the fight is the same without it.
            idle("load", f"does nothing: {fields['load']:g} kg is within its carrying capacity"
                           f" (force / 2 + 20 = {capacity:g} kg), and only the kilos over it add"
                           " fatigue (rules §3): this load costs it nothing, and the fight is the"
                           " same without it")
    if rules == "d100":  # thrown tells a thrown weapon from a bow: only with a range (rules §2)
        found += [Unused(("weapons", i, "thrown"), "does nothing: only a weapon with a range is"
                         " thrown (a half-action) or shot (a bow, a full action); give it"
                         " range: METRES")
                  for i, w in enumerate(fields.get("weapons", ())) if w.thrown and w.range is None]
    if rules == "d100" and fields.get("psy") and not any(w.psy for w in fields.get("weapons", ())):
        idle("psy", "does nothing: no weapon of this stat block is a spell (psy: COST on a"
                      " weapon); add a spell, or remove it")
    return found


def _unused_d20_weapons(ctx: Context, fields: Mapping[str, Any]) -> list[Unused]:
    found = []
    heroism_on_weapons = fields.get("heroism") and fields.get("aspects") is not None
    for i, weapon in enumerate(fields.get("weapons", ())):
        if weapon.skill is not None and not heroism_on_weapons:
            found.append(Unused(("weapons", i, "skill"), (
                "does nothing: d20 rolls level, not skills; a weapon's skill only matches an"
                " aspect for heroism dice (this stat block has no aspects, or no heroism); remove"
                " it")))
        if weapon.bonus and not ctx.party and ctx.enemies_all_party:
            found.append(Unused(("weapons", i, "bonus"), (
                "does nothing: its enemies are all party members, who defend against its"
                " attack_threshold (d20 adds a weapon bonus to attack rolls only); raise"
                " attack_threshold instead, or remove it")))
    return found


def unused_options(rules: str, options: Any, given: Iterable[str], terror: bool,
                   most_enemies: int, party_side: bool, largest_side: int,
                   checks: bool = True) -> list[Unused]:
    """Options the scenario's sides leave idle: ``spirit`` with no terror to face, an
    ``outnumbered_at`` no combatant can reach (``most_enemies``: the most armed enemies any
    combatant has), destiny points with no party to spend them on, a ``flee_at`` no side can
    fall below (``largest_side``: the most members that count any side has), a d10
    ``difficulty`` where nothing rolls a check (``checks``: attacks roll against defense)."""
    found = []
    if rules == "d10" and "difficulty" in given and not checks:
        found.append(Unused(("difficulty",), (
            "does nothing: only d10 checks roll against it (riding, falls, fire, poison, hazards,"
            " a surprise group check), and nothing here rolls one (attacks roll against the"
            " target's defense); remove it")))
    if options.flee_at is not None and options.flee_at * largest_side <= 1:
        # A side routs once 0 < able < flee_at x its starting members: never when that is 1 or less.
        found.append(Unused(("flee_at",), (
            f"does nothing: a side routs once fewer than {options.flee_at:g} of its members"
            f" stand (and one still does), and no side here has more than {largest_side}"
            " members; raise it, or remove it")))
    if options.morale_who == "everyone" and not party_side:
        found.append(Unused(("morale", "who"), (
            "does nothing: without a side marked `party: true` every side holds morale tokens"
            " already; remove it")))
    if options.destiny_points and not party_side:
        found.append(Unused(("destiny_points",), (
            "destiny points save party members only, and no side has `party: true`; mark the"
            " player characters' side `party: true` and they are read")))
    if rules == "d20" and options.spirit and not terror:
        found.append(Unused(("spirit",), (
            "does nothing: no creature of this scenario has terror (spirit points are lost"
            " only to terror); give one terror: DICE, or remove it")))
    if rules == "d20" and "outnumbered_at" in given and most_enemies <= options.outnumbered_at:
        found.append(Unused(("outnumbered_at",), (
            f"does nothing: an attack is favoured only after {options.outnumbered_at} enemies"
            f" attacked the target this round, and no combatant here faces more than"
            f" {most_enemies} armed enemies; lower it, or remove it")))
    return found


@attrs.frozen
class Field:
    """What of a scenario's sides decides whether a Convention's option can matter."""

    terror_crowd: bool = False  # a kind of terror creature has more than one body (d20)
    mounts: bool = False  # someone rides
    armored: bool = False  # someone has armor
    half_action_attack: bool = False  # a d100 weapon that leaves half the turn (one-handed)
    still: bool = False  # no distance, hazard, timeline or mount: nobody ever moves or stands up
    most_attacks: int = 2  # d100: the most attacks any combatant can face in one round
    rider_wounded: bool = True  # d100: a serious wound may knock a rider out with HP left


def unused_conventions(rules: str, options: Any, given: Iterable[str], field: Field
                       ) -> list[Unused]:
    """Options setting a Convention aside where the scenario gives them nothing to change
    (each is read only by its system: the rest is told before, see SYSTEM_OPTIONS)."""
    given = set(given)
    found = []

    def idle(key: str, message: str) -> None:
        if key in given:
            found.append(Unused((key,), f"does nothing: {message}; remove it"))

    if rules == "d20":
        if not options.spirit:
            idle("terror_per", "terror is rolled only with options: {spirit: true}")
        elif options.terror_per == "body" and not field.terror_crowd:
            idle("terror_per", "no kind of terror creature here has more than one body (one"
                                 " use: entry or one entry with count: 2 or more), so per body"
                                 " is per kind")
    if rules == "d100":
        if not field.mounts:
            idle("unconscious_rider", "nobody here rides")
        elif options.unconscious_rider == "falls" and not field.rider_wounded:
            idle("unconscious_rider", "a rider falls unconscious with HP left only from a"
                                        " serious wound (one blow of half its maximum HP,"
                                        " rules §3), and no enemy blow here reaches half a"
                                        " rider's; at 0 HP it slides out either way")
        if not options.critical_pierces and not field.armored:
            idle("critical_pierces", "nobody here has armor for a critical hit to pierce")
        if options.defense_per == "round" and field.most_attacks <= 1:
            idle("defense_per", "no combatant here can be attacked more than once a round, so"
                                  " one defense roll a round is one an attack")
        if options.attacks_per_turn == 1 and not field.half_action_attack:
            # Not a Convention's option, but read from the same field as fumble_ends_turn.
            idle("attacks_per_turn", "every weapon here takes the whole turn (two-handed, a bow"
                                       " or a spell), so no turn holds a second attack to cap")
        if not options.fumble_ends_turn and not field.half_action_attack:
            idle("fumble_ends_turn", "every weapon here takes the whole turn (two-handed, a bow"
                                       " or a spell), so a fumble leaves nothing to end")
    if rules in ("2d10", "d10") and options.move_and_attack and field.still:
        idle("move_and_attack", "everyone starts within reach (distance 0) and nothing here"
                                  " makes anyone move or stand up (no hazard, timeline or mount)")
    return found


def unused_in_timeline(do: str, given: Iterable[str]) -> list[Unused]:
    """Keys of a timeline entry its action does not read (``height`` on an ignite...)."""
    found = []
    for key in given:
        actions = TIMELINE_KEYS.get(key)
        if actions is not None and do not in actions:
            found.append(Unused((key,), f"does nothing for do: {do} (only do: {actions[0]}"
                                        f" reads '{key}'); remove it"))
    return found
