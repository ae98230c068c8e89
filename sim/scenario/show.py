"""Stat blocks as a GM reads them: ``sim show`` (a resolved scenario) and ``sim bestiary``."""

from __future__ import annotations

import pathlib
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import attrs
import yaml

from sim.dice import Dice
from sim.errors import Problem, ScenarioError, errors_of
from sim.model import Combatant, Options, Scenario, Side, Weapon
from sim.scenario.bestiary import (
    BESTIARY_ENV,
    Entry,
    bestiary_dirs,
    folder_name,
    load_bestiary,
    rules_folder,
    where_searched,
)
from sim.scenario.context import Context
from sim.scenario.ignored import unused_in_block
from sim.scenario.lookup import search
from sim.scenario.unused import member_context, morale_is_on
from sim.terminal import quoted_text, safe, unsafe

# Bookkeeping fields of a resolved combatant: where it came from, not what it fights with.
_HIDDEN = frozenset({"side", "kind", "rider"})
# The stats of the one-line summary of a bestiary entry, in this order.
_LINE_STATS = ("level", "hp", "armor", "attack_threshold", "defense_threshold", "defense",
               "heroism", "psy", "morale", "terror", "spirit", "movement")


def plain(value: Any) -> Any:
    """``value`` as plain YAML data: an attrs spec keeps the fields that differ from their
    default, dice become their notation (a constant its number), tuples become lists."""
    if isinstance(value, Dice):
        return int(value.text) if value.is_constant and value.text.lstrip("-").isdigit() else value.text
    if attrs.has(type(value)):
        out = {}
        for field in attrs.fields(type(value)):
            if not field.init or (isinstance(value, Combatant) and field.name in _HIDDEN):
                continue  # (a timeline step's side and kind are what it does: kept)
            item = getattr(value, field.name)
            default = field.default.factory() if isinstance(field.default, attrs.Factory) else field.default
            if item != default:  # type: ignore[operator]
                out[field.name] = plain(item)
        return out
    if isinstance(value, Mapping):
        return {key: plain(item) for key, item in value.items()}
    if isinstance(value, tuple | list):
        return [plain(item) for item in value]
    return value


def combatant_data(spec: Combatant, rules: str, party: bool = False, suited: bool = False
                   ) -> dict[str, Any]:
    """One resolved stat block; d20 thresholds left to their default show the value used
    (not on a party member: it rolls its own defense, and its thresholds do nothing). With
    ``suited`` (a d20 weapon of the scenario is suited to some creatures), the names it
    answers to show as its ``kind:``."""
    data = plain(spec)
    kinds = [k for k in data.pop("kinds", ()) if k != spec.name]
    if suited and kinds:
        data["kind"] = kinds
    if rules != "d20":  # only d20 fights by level (a bestiary entry may carry one for a day's rests)
        data.pop("level", None)
    elif not party:
        data.setdefault("attack_threshold", spec.effective_attack_threshold)
        data.setdefault("defense_threshold", spec.effective_defense_threshold)
    data["hp"] = plain(spec.hp)  # always shown, even when it is the default
    return data


# Options a scenario writes inside ``morale:`` (only a written morale mapping sets them).
MORALE_KEYS = ("wound_divisor", "despair_disadvantage", "despair_again")


def options_data(options: Options, rules: str, party_side: bool = True) -> dict[str, Any]:
    """``options:`` as a scenario writes them: morale as ``morale: false`` or, when on,
    ``morale: {who: party, wound_divisor: K, ...}`` (who holds tokens is shown wherever a
    party side makes it matter: a reading of the seed a GM should see), not as the fields it
    is kept in."""
    data = plain(options)
    data.pop("morale_on", None)
    who = data.pop("morale_who", options.morale_who)
    settings = {key: data.pop(key) for key in MORALE_KEYS if key in data}
    if morale_is_on(rules, options):
        data["morale"] = {**({"who": who} if party_side else {}), **settings} or True
    elif options.morale_on is not None:
        data["morale"] = False
    return data


def members_data(side: Side, scenario: Scenario) -> list[dict[str, Any]]:
    """A side's members; a mount under its rider's ``mount:``, by the name it was given
    (its combatant is named "NAME of RIDER")."""
    rules = scenario.rules
    mounts = {member.name: member for member in side.members if member.rider is not None}
    suited = any(w.suited for s in scenario.sides for m in s.members for w in m.weapons)
    out = []
    for member in side.members:
        if member.rider is not None:
            continue
        ctx = member_context(rules, scenario.options, scenario.sides, side, scenario.surprise,
                             perils=perilous(scenario), mounted=member.mount is not None,
                             distance=scenario.distance)
        data = without_idle(combatant_data(member, rules, side.party, suited), member, ctx)
        if member.mount is not None:
            mount = mounts[member.mount]
            data["mount"] = without_idle(combatant_data(mount, rules, side.party), mount,
                                         attrs.evolve(ctx, mounted=False, mount=True))  # it rides nothing
            data["mount"]["name"] = member.mount.removesuffix(f" of {member.name}")
        out.append(data)
    return out


def perilous(scenario: Scenario) -> bool:
    """Whether hazards or the timeline make anyone roll a check (all but explode do)."""
    return bool(scenario.hazards) or any(step.do != "explode" for step in scenario.timeline)


def without_idle(data: dict[str, Any], spec: Combatant, ctx: Context) -> dict[str, Any]:
    """``data`` less the keys that do nothing in this scenario: a bestiary entry's, kept
    quietly where ``use:`` brings them (it serves other scenarios too) but refused when
    written, as ``sim show`` writes them (a d20 creature's weapon bonus against the party,
    say), or the default thresholds it spells out where no side is the party."""
    while True:  # again: one key dropped may idle another (heroism, then its aspects)
        fields = {key: getattr(spec, key) for key in data if hasattr(spec, key)}
        if "weapons" in fields:  # as shown: a weapon's key dropped is back to its default
            fields["weapons"] = tuple(_as_shown(w, shown) for w, shown in
                                      zip(fields["weapons"], data["weapons"], strict=True))
        dropped = False
        for *parents, key in (u.path for u in unused_in_block(ctx, fields)):
            holder: Any = data
            for step in parents:
                holder = holder[step]
            dropped = holder.pop(key, None) is not None or dropped
            if len(parents) == 1 and holder == {}:  # `tactics: {}` left: nothing to show
                data.pop(parents[0])
        if not dropped:
            return data


def _as_shown(weapon: Weapon, shown: Mapping[str, Any]) -> Weapon:
    """The weapon with every field ``shown`` leaves out back to its default."""
    defaults = {f.name: f.default for f in attrs.fields(Weapon) if f.init}
    return attrs.evolve(weapon, **{key: defaults[key] for key in plain(weapon) if key not in shown})


def scenario_data(scenario: Scenario) -> dict[str, Any]:
    """The whole scenario after ``use:``, overrides and ``count:``: every combatant spelt out."""
    data: dict[str, Any] = {"name": scenario.name, "rules": scenario.rules,
                            "max_rounds": scenario.max_rounds, "distance": scenario.distance}
    party_side = any(s.party for s in scenario.sides)
    for key in ("surprise", "options", "hazards", "timeline"):
        if key == "options":
            value = options_data(scenario.options, scenario.rules, party_side)
            # Every member is shown on its own, so each is a kind of its own (rules §3): per
            # kind is per body there, and ``terror_per: body`` would be told idle.
            value.pop("terror_per", None)
        else:
            value = plain(getattr(scenario, key))
        if value not in (None, {}, []):
            data[key] = value
    # A side's tactics only when it has some: its members spelt out may each set their own
    # target, and a side's target that none of them reads is a warning (it does nothing).
    data["sides"] = [
        {"name": side.name, "party": side.party,
         **({"tactics": plain(side.tactics)} if plain(side.tactics) else {}),
         "members": members_data(side, scenario)}
        for side in scenario.sides
    ]
    return data


class _Dumper(yaml.SafeDumper):
    """Strings holding control or bidi characters are double-quoted, so that they can be
    written as escapes (terminal-safe, the same value)."""


def _string(dumper: yaml.SafeDumper, value: str) -> yaml.Node:
    return dumper.represent_scalar("tag:yaml.org,2002:str", value, style='"' if unsafe(value) else None)


_Dumper.add_representer(str, _string)


def to_yaml(data: Any) -> str:
    """Block-style YAML, keys in the order given; names are data on the terminal."""
    return quoted_text(yaml.dump(data, Dumper=_Dumper, sort_keys=False, allow_unicode=True,
                                 default_flow_style=False, width=100))


def show_scenario(scenario: Scenario) -> str:
    """``sim show``: the resolved scenario as YAML, headed by a comment naming the file."""
    edits = "".join(f"# --set {safe(text, newlines=False)}\n" for text in scenario.overrides)
    head = f"# {safe(scenario.path, newlines=False)}, resolved: every combatant as it will fight\n{edits}"
    return head + to_yaml(scenario_data(scenario))


# -- the bestiary ------------------------------------------------------------------------


def bestiary(extra: Sequence[pathlib.Path], systems: Iterable[str]
             ) -> tuple[list[pathlib.Path], dict[str, dict[str, Entry]]]:
    """The folders searched from here (``--bestiary`` first) and every valid entry, by rules.

    A bad bestiary file is a ScenarioError listing its problems, as ``sim validate`` would.
    """
    # bestiary_dirs looks beside a scenario and above it: here, a file in the working folder.
    dirs = bestiary_dirs(pathlib.Path.cwd() / "(bestiary)", tuple(extra))
    problems: list[Problem] = []
    found = {rules: load_bestiary(dirs, rules, problems) for rules in systems}
    if errors_of(problems):  # a warning (a key idle in a system) is sim validate's to tell
        raise ScenarioError(errors_of(problems))
    return dirs, found


def entry_line(entry: Entry) -> str:
    """``goblin: level 1, hp 2d6, armor 1; rusty blade 1d6`` (one line per entry)."""
    fields = plain(entry.fields)
    stats = [f"{key} {fields[key]}" for key in _LINE_STATS if key in fields]
    stats += [f"{skill} {score}" for skill, score in fields.get("skills", {}).items()]
    weapons = [f"{w['name']} {w['damage']}" for w in fields.get("weapons", ())]
    return f"{entry.name}: {', '.join(stats)}" + (f"; {', '.join(weapons)}" if weapons else "")


def listing(dirs: Sequence[pathlib.Path], found: Mapping[str, Mapping[str, Entry]]) -> str:
    """Every entry, by rules then name, under the folders searched for that rules (in the
    order searched: an earlier folder wins a name clash)."""
    lines = []
    for rules, entries in found.items():
        searched = [f for f in (rules_folder(d, rules) for d in dirs) if f is not None]
        if not searched:
            lines.append(f"{rules}: no bestiary folder found from here;"
                         f" name one with --bestiary DIR or {BESTIARY_ENV}")
            continue
        lines.append(f"{rules} ({', '.join(folder_name(f) for f in searched)}):")
        lines += [f"  {entry_line(entry)}" for _, entry in sorted(entries.items())]
        if not entries:
            lines.append("  (no entries)")
    return "\n".join(lines) + "\n"


def show_entry(rules: str, entry: Entry) -> str:
    """One entry as YAML, headed by its rules and file."""
    where = safe(entry.source.file, newlines=False)
    return f"# {rules} bestiary entry, from {where}\n{to_yaml({entry.name: plain(entry.fields)})}"


def find_entry(text: str, dirs: Sequence[pathlib.Path], found: Mapping[str, Mapping[str, Entry]]
               ) -> list[tuple[str, Entry]] | dict[str, dict[str, Entry]] | str:
    """What ``sim bestiary TEXT`` shows: (rules, entry) of the entry named ``text`` in each
    rule system that has one (`sim bestiary wolf`: the d20 wolf and the d10 one, not the
    first alone); else, by rules, the entries ``text`` finds by substring or close spelling
    (sim.scenario.lookup); else why there are none: the folders searched."""
    hits = [(rules, entries[text.strip()]) for rules, entries in found.items()
            if text.strip() in entries]
    if hits:
        return hits
    matching = {rules: {name: entries[name] for name in search(text, entries)}
                for rules, entries in found.items()}
    if any(matching.values()):
        return {rules: entries for rules, entries in matching.items() if entries}
    return (f"no bestiary entry matches '{text}' by name or spelling;"
            f" {where_searched(list(dirs), tuple(found))}")


def also_matching(text: str, found: Mapping[str, Mapping[str, Entry]]) -> str | None:
    """After the entry named ``text`` is shown in full, the other names that hold it
    (`sim bestiary orc`: the orc, then "also: orc archer, orc brute"); None if none. Close
    spellings are left out: the text is a name, not a misspelling."""
    wanted = text.strip().lower()
    others = sorted({name for entries in found.values() for name in entries
                     if wanted in name.lower() and name != text.strip()})
    if not others:
        return None
    return f"# also matching '{text.strip()}': {', '.join(others)}"
