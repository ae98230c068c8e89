"""``sim show`` and ``sim bestiary``: stat blocks as they fight, and the bestiary."""

from __future__ import annotations

import argparse

from sim.cli.common import EXIT_OK, check_bestiary_dirs, tell_warnings
from sim.day.file import Day, Rest, load_input
from sim.day.play import roster
from sim.day.rest import HEROISM_BACK_AFTER_HOURS
from sim.errors import InputError
from sim.model import DEFAULT_REROLL
from sim.scenario import IMPLEMENTED_SYSTEMS
from sim.scenario.show import also_matching, bestiary, find_entry, listing, show_entry, show_scenario
from sim.terminal import safe


def cmd_show(args: argparse.Namespace) -> int:
    check_bestiary_dirs(args.bestiary)
    subject = load_input(args.scenario, tuple(args.bestiary), overrides=args.overrides)
    tell_warnings(subject.warnings, refuse=False)  # on stderr: stdout stays the YAML alone
    if isinstance(subject, Day):
        for step in subject.steps:  # a day: each fight as it will be fought, and the rests
            if isinstance(step, Rest):
                print(f"# step {step.step + 1}: {step.kind} rest, {step.hours} h\n{rest_note(subject, step)}")
            else:
                print(f"# step {step.step + 1}: encounter\n{show_scenario(step.scenario)}")
        return EXIT_OK
    print(show_scenario(subject), end="")
    return EXIT_OK


def rest_note(day: Day, step: Rest) -> str:
    """What a rest does in this day's system (rules §7), as comment lines: d20 heals nothing by
    the hour, and a long rest re-rolls hit dice by each member's ``tactics.reroll_hp``;
    elsewhere a member at 0 HP is beyond rest unless the day says ``rest_revives``."""
    if day.rules != "d20":
        if day.rest_revives:
            return "# a member at 0 HP wakes with the first HP a rest gives (rest_revives: true)\n"
        return ("# a member at 0 HP gets no HP from a rest (seed 002: only magic helps);\n"
                "# the party pours it a potion between fights unless tactics.revive: never\n")
    if step.hours < HEROISM_BACK_AFTER_HOURS:
        return "# d20: no healing by the hour (a rest of 8 h or more re-rolls hit dice)\n"
    lines = ["# d20 long rest: heroism dice back; hit dice re-rolled to set HP by tactics.reroll_hp"
             f" (default {DEFAULT_REROLL}); a resistance or healing aspect adds 1d6 for a heroism die"]
    for spec, m in zip(day.members, roster(day), strict=True):
        if spec.rider is None:
            hardy = ", +1d6 for a heroism die" if m.hardy else ""
            name = safe(spec.name, newlines=False)
            lines.append(f"#   {name}: hp {m.hit_dice}, reroll_hp: {m.reroll}{hardy}")
    return "\n".join(lines) + "\n"


def cmd_bestiary(args: argparse.Namespace) -> int:
    check_bestiary_dirs(args.bestiary)
    rules, name = args.rules, args.name
    if rules is not None and rules not in IMPLEMENTED_SYSTEMS:
        if name is not None:
            msg = f"sim bestiary: RULES must be one of {', '.join(IMPLEMENTED_SYSTEMS)} (got {rules!r})"
            raise InputError(msg)
        rules, name = None, rules  # `sim bestiary goblin`: a name, in any rules
    dirs, found = bestiary(args.bestiary, [rules] if rules else IMPLEMENTED_SYSTEMS)
    if name is None:
        print(safe(listing(dirs, found)), end="")
        return EXIT_OK
    entries = find_entry(name, dirs, found)
    if isinstance(entries, str):
        raise InputError(f"sim bestiary: {entries}")
    if isinstance(entries, dict):  # no entry of that name: those the text finds, one line each
        print(safe(listing(dirs, entries)), end="")
        return EXIT_OK
    print("\n".join(show_entry(*entry) for entry in entries), end="")
    also = also_matching(name, found)
    if also is not None:
        print(safe(also))
    return EXIT_OK
