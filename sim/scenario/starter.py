"""``sim new``: a starter scenario (or day) written from bestiary names, each key commented.

``picks`` reads what the GM typed (``"ogre, wolf x4"``) and checks each name against the
bestiary; ``scenario_text`` and ``day_text`` write the YAML. The text is written by hand,
not dumped, so that each key carries a comment saying what it means.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence

import attrs
import yaml

from sim.errors import Problem, option_value
from sim.scenario.bestiary import Entry
from sim.scenario.limits import MAX_COUNT
from sim.scenario.lookup import did_you_mean_entry
from sim.yamlsrc import shorten

# "wolf x4", "wolf x 4", "wolf X4" and "4 wolf", "4x wolf"
_COUNT_AFTER = re.compile(r"(?P<name>.*?)\s*x\s*(?P<count>\d+)", re.IGNORECASE)
_COUNT_BEFORE = re.compile(r"(?P<count>\d+)\s*x?\s+(?P<name>.*)", re.IGNORECASE)
COMMENT_AT = 36  # the column the comments start at, where the YAML before them allows
PARTY_SIDE, FOES_SIDE = "heroes", "foes"


@attrs.frozen
class Pick:
    """A bestiary entry and how many of it."""

    name: str
    count: int = 1
    terror: bool = False  # a d20 entry with `terror:`, which needs the spirit option to act

    @property
    def label(self) -> str:
        return self.name if self.count == 1 else f"{self.name} x{self.count}"


def picks(text: str, option: str, entries: Mapping[str, Entry], rules: str, where: str
          ) -> tuple[list[Pick], list[Problem]]:
    """The entries ``text`` names (comma-separated, each ``NAME``, ``NAME xN`` or ``N NAME``),
    a name given twice counted once with the counts added; and a problem for each part that
    is not an entry (with a did-you-mean) or whose count is out of range."""
    found: dict[str, int] = {}
    problems = []
    by_case = {name.casefold(): name for name in entries}
    for part in (p.strip() for p in text.split(",")):
        match = _COUNT_AFTER.fullmatch(part) or _COUNT_BEFORE.fullmatch(part)
        name, count = (match["name"].strip(), int(match["count"])) if match else (part, 1)
        name = name if name in entries else by_case.get(name.casefold(), name)
        if not name:
            message = "a name is missing (write NAME, NAME xN or N NAME, separated by commas)"
        elif not 1 <= count <= MAX_COUNT:
            message = f"{shorten(part)}: the count must be between 1 and {MAX_COUNT}"
        elif name not in entries:
            message = f"no {rules} bestiary entry {shorten(name)}{did_you_mean_entry(name, entries)}; {where}"
        else:
            found[name] = found.get(name, 0) + count
            continue
        problems.append(Problem(option_value(text), 0, 0, option, message))
    return [Pick(name, count, "terror" in entries[name].fields) for name, count in found.items()], problems


def scalar(text: str, context: str = "{{use: {}}}") -> str:
    """``text`` as a YAML scalar in ``context``: plain when it reads back as itself there
    (``wolf``, ``man-at-arms``), else double-quoted (``"yes"``, ``"a, b"``)."""
    try:
        plain = yaml.safe_load(context.format(text))
    except yaml.YAMLError:
        plain = None
    again = yaml.safe_load(context.format(json.dumps(text)))
    return text if plain == again else json.dumps(text, ensure_ascii=False)


def _line(code: str, comment: str = "") -> str:
    """A line of YAML with its comment in the comment column (or one space after it)."""
    return f"{code.ljust(COMMENT_AT - 1)} # {comment}".rstrip() if comment else code


def _members(picks_: Sequence[Pick], indent: str, rules: str, party: bool) -> list[str]:
    """The ``members:`` lines of a side; the party's say what ``use:`` and ``name:`` do."""
    lines = [_line(f"{indent}members:", "who fights on this side" if party else "")]
    if party:
        lines += [
            f"{indent}  # use: a bestiary entry (`sim bestiary {rules} NAME` shows its stat block);",
            f"{indent}  # a stat key written beside it overrides the entry's, e.g. {{use: NAME, hp: 30}};",
            f"{indent}  # name: gives it a name of its own, e.g. {{use: NAME, name: Sir Bors}}.",
        ]
    for pick in picks_:
        keys = f", count: {pick.count}" if pick.count > 1 else ""
        comment = f'count: named "{pick.name} 1" .. "{pick.name} {pick.count}"' if keys else ""
        if party and pick.terror:  # terror frightens the party, never its foes
            keys += ", terror: null"
            comment = "KEY: null drops what the entry gives: terror is for the party's foes"
        lines.append(_line(f"{indent}  - {{use: {scalar(pick.name)}{keys}}}", comment))
    return lines


def _header(kind: str, command: str, bestiary: Sequence[str]) -> list[str]:
    once = "the day once" if kind == "day" else "one battle"
    lines = [f"# A starter {'adventuring ' if kind == 'day' else ''}{kind} written by `{command}`:"
             " edit it freely, then",
             "#   sim validate FILE   checks it (one line per problem, if any)",
             f"#   sim run FILE        plays {once}, narrated",
             "#   sim batch FILE      plays a thousand: how often the party wins, loses someone, dies"]
    if bestiary:
        lines.append(f"# Written with --bestiary {' '.join(bestiary)}: give it to every command"
                     " (or name the folders in SIM_BESTIARY).")
    return lines


def _options(fight: Sequence[Pick], indent: str) -> list[str]:
    """``options: {spirit: true}`` when a foe has terror (d20): without it terror does nothing."""
    frightening = ", ".join(p.name for p in fight if p.terror)
    return [_line(f"{indent}options: {{spirit: true}}", f"terror ({frightening}) costs spirit"
                  " points only with this on")] if frightening else []


def _description(party: Sequence[Pick], fights: Sequence[Sequence[Pick]]) -> str:
    """``description:`` (free text: the report shows it), under a comment saying so."""
    against = "; then ".join(", ".join(p.label for p in fight) for fight in fights)
    text = f"Written by sim new: {', '.join(p.label for p in party)} against {against}."
    return ("# description: free text for you; the simulator does not read it\n"
            f"description: {scalar(text, 'description: {}')}")


def scenario_text(rules: str, party: Sequence[Pick], foes: Sequence[Pick], name: str | None,
                  command: str, bestiary: Sequence[str] = ()) -> str:
    """A scenario: the party's side against one side of foes."""
    title = name or ", ".join(p.label for p in foes).capitalize()
    lines = [
        *_header("scenario", command, bestiary),
        _line(f"name: {scalar(title, 'name: {}')}", "shown in every result, log and report"),
        _line(f"rules: {rules}", "the rule system (d20, d100, 2d10 or d10): every use: below is of it"),
        _description(party, [foes]),
        _line("# distance: 10", "metres between the party and the foes at the start (default 0)"),
        _line("# surprise: foes", "that side acts alone in a surprise round"),
        _line("# max_rounds: 100", "then the battle is a draw"),
        *_options(foes, ""),
        _line("sides:", "every side fights every other"),
        _line(f"  - name: {PARTY_SIDE}", "a side's name, in results and in --set paths"),
        _line("    party: true", "the player characters: group initiative, player-facing rolls;"),
        _line("", "the results (win, deaths, TPK) speak of this side"),
        *_members(party, "    ", rules, party=True),
        f"  - name: {FOES_SIDE}",
        *_members(foes, "    ", rules, party=False),
    ]
    return "\n".join(line.rstrip() for line in lines) + "\n"


def day_text(rules: str, party: Sequence[Pick], fights: Sequence[Sequence[Pick]], name: str | None,
             command: str, bestiary: Sequence[str] = ()) -> str:
    """An adventuring day: the party, then each fight in turn, a short rest between two."""
    title = name or "A day against " + "; ".join(", ".join(p.label for p in f) for f in fights)
    lines = [
        *_header("day", command, bestiary),
        _line(f"name: {scalar(title, 'name: {}')}", "shown in every result, log and report"),
        _line(f"rules: {rules}", "the rule system (d20, d100, 2d10 or d10): every use: below is of it"),
        _description(party, fights),
        _line("party:", "the party of every fight: HP, resources and the dead carry over"),
        _line(f"  name: {PARTY_SIDE}", "its side's name in every fight"),
        *_members(party, "  ", rules, party=True),
        _line("steps:", "in order; the day ends at the first fight the party does not win"),
    ]
    for number, fight in enumerate(fights, start=1):
        if number > 1:
            lines.append(_line("  - rest: {kind: quick, hours: 1}",
                               "quick, calm, good or intensive; hours of it heal"))
        lines += [
            _line("  - encounter:", "" if number > 1 else "a fight written here, or a scenario file's path"),
            _line(f"      name: Fight {number}", ""),
            *_options(fight, "      "),
            "      sides:",
            f"        - name: {FOES_SIDE}",
            *_members(fight, "          ", rules, party=False),
        ]
    return "\n".join(line.rstrip() for line in lines) + "\n"
