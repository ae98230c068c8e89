"""``sim show`` and ``sim bestiary``: stat blocks as they fight, and the bestiary."""

from __future__ import annotations

import argparse

from sim.cli.common import EXIT_OK, check_bestiary_dirs
from sim.day_file import Day, Rest, load_input
from sim.errors import InputError
from sim.scenario import IMPLEMENTED_SYSTEMS
from sim.show import bestiary, find_entry, listing, show_entry, show_scenario
from sim.terminal import safe


def cmd_show(args: argparse.Namespace) -> int:
    check_bestiary_dirs(args.bestiary)
    subject = load_input(args.scenario, tuple(args.bestiary), overrides=args.overrides)
    if isinstance(subject, Day):
        for step in subject.steps:  # a day: each fight as it will be fought, and the rests
            if isinstance(step, Rest):
                print(f"# step {step.step + 1}: {step.kind} rest, {step.hours} h\n")
            else:
                print(f"# step {step.step + 1}: encounter\n{show_scenario(step.scenario)}")
        return EXIT_OK
    print(show_scenario(subject), end="")
    return EXIT_OK


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
    return EXIT_OK
