"""The bestiary: its folders (where ``use:`` looks), its files and their entries.

Each bestiary file is validated on its own, problems reported in that file;
``load_bestiary`` gathers the entries of one rule system, an earlier folder winning
a name clash, and ``where_searched`` tells a GM where an entry was looked for. The
bestiary shipped with the package (``shipped_bestiary``) is searched last, from any folder.
"""

from __future__ import annotations

import functools
import importlib.resources
import os
import pathlib
from typing import Any

import attrs

from sim.errors import Problem, ScenarioError
from sim.model import RULE_SYSTEMS
from sim.scenario.blocks import (
    check_potion_at,
    check_skills,
    check_weapon_names,
    stat_fields,
    stat_hints,
)
from sim.scenario.checker import INVALID, Checker, did_you_mean, not_implemented, validate_header
from sim.scenario.limits import IMPLEMENTED_SYSTEMS
from sim.scenario.orders import check_entry_order
from sim.scenario.reach import searched
from sim.yamlsrc import Source, display_name, load_marked, shorten
from sim.yamlsrc.source import whole_file

BESTIARY_DIR = "bestiary"
BESTIARY_ENV = "SIM_BESTIARY"  # extra bestiary folders, os.pathsep-separated
# The repository's bestiary/ folder, installed as this package (pyproject.toml maps it).
SHIPPED_PACKAGE = "sim.bestiary"
SHIPPED_LABEL = "shipped with sim"


@attrs.frozen
class Entry:
    """A validated bestiary entry: its fields and where it was written."""

    key: str  # as written in the file (where its problems are reported)
    fields: dict[str, Any]
    source: Source

    @property
    def name(self) -> str:
        """The name ``use:`` finds it by: the key stripped, as ``use:`` is."""
        return self.key.strip()


def load_bestiary_file(path: pathlib.Path, problems: list[Problem]) -> dict[str, Entry]:
    """Validate one bestiary file (``rules:`` and ``creatures:``) into its entries. A file
    in a folder named after a rule system must be of that system: ``use:`` looks there for
    that system's entries, and another system's stat block would fight with keys ignored."""
    display = display_name(path)
    try:
        source = load_marked(path, display, ("creatures", "rules"))
    except ScenarioError as exc:
        problems.extend(exc.problems)
        return {}
    if source is None:  # a stray file in the folder: none of it is shown
        problems.append(whole_file(display, "not a bestiary file (it has no rules: or creatures: at its"
                                            " top level, or is no YAML this program reads); nothing of it"
                                            " is shown"))
        return {}
    c = Checker(source, problems)
    data = source.data
    rules = validate_header(c, data, RULE_SYSTEMS)
    if rules is INVALID:
        return {}
    folder = path.parent.name
    if folder in RULE_SYSTEMS and rules != folder:
        c.fail(("rules",), f"must be {folder}, the rules of the folder it is in (got {rules}):"
                           f" move the file to a '{rules}' bestiary folder")
        return {}
    c.rules = rules
    assert isinstance(data, dict)
    for key in data:
        if key not in ("rules", "creatures", "description"):
            hint = did_you_mean(key, ("rules", "creatures", "description"))
            c.fail((key,), f"unknown key {shorten(key)}{hint}", at_key=True)
    creatures = data.get("creatures")
    if not isinstance(creatures, dict) or not creatures:
        c.fail(("creatures",), f"must be a non-empty mapping of name: stat block (got {shorten(creatures)})")
        return {}
    if rules not in IMPLEMENTED_SYSTEMS:
        c.fail(("rules",), not_implemented(rules))
        return {}
    entries: dict[str, Entry] = {}
    for key, block in creatures.items():
        path_ = ("creatures", key)
        name = c.text(key, path_)  # stripped, as `use:` is: 'ogre ' is the entry `use: ogre` finds
        if name is INVALID:
            continue
        if name in entries:
            c.fail(path_, f"duplicate bestiary entry {shorten(name)} (also written"
                          f" {shorten(entries[name].key)} in this file)", at_key=True)
            continue
        partial: dict[str, Any] = {}
        fields = c.mapping(block, path_, stat_fields(c), partial=partial, foreign=stat_hints(c))
        check_skills(c, partial, path_)
        if fields is not INVALID:
            check_weapon_names(c, fields.get("tactics"), fields.get("weapons", ()),
                               (*path_, "tactics", "weapons"))
            check_potion_at(c, fields.get("tactics"), fields, path_)
            check_entry_order(c, fields, path_)
        # An invalid entry is kept (marked INVALID) so `use:` of it is not also
        # reported as missing: its own problems were reported in the bestiary.
        entries[name] = Entry(key, fields, source)
    return entries


def env_bestiary_dirs() -> list[pathlib.Path]:
    """The folders $SIM_BESTIARY names (empty entries, as in PATH, name none)."""
    return [pathlib.Path(p) for p in os.environ.get(BESTIARY_ENV, "").split(os.pathsep) if p]


@functools.cache
def shipped_bestiary() -> pathlib.Path | None:
    """The bestiary installed with the package, or None when it is not a folder on disk (a
    zipped install): ``use: wolf`` finds it from any folder, after the GM's own."""
    try:
        folder = importlib.resources.files(SHIPPED_PACKAGE)
    except ModuleNotFoundError:
        return None
    return folder if isinstance(folder, pathlib.Path) and folder.is_dir() else None


def is_shipped(folder: pathlib.Path) -> bool:
    """Whether ``folder`` is the shipped bestiary or one of its rules folders."""
    shipped = shipped_bestiary()
    return shipped is not None and shipped.resolve() in (folder.resolve(), folder.resolve().parent)


def bestiary_dirs(scenario_path: pathlib.Path, extra: tuple[pathlib.Path, ...] = ()) -> list[pathlib.Path]:
    """Where ``use:`` looks, in order: explicit folders, $SIM_BESTIARY, then every
    ``bestiary/`` beside the scenario or in a folder above it, then ``./bestiary``, then the
    bestiary shipped with the package (a name clash goes to the earlier folder). A load
    confined by a server (sim.scenario.reach) searches its folders only."""
    confined = searched()
    if confined is not None:
        found = list(confined)
    else:
        found = [*extra, *env_bestiary_dirs()]
        for folder in [scenario_path.resolve().parent, *scenario_path.resolve().parents]:
            found.append(folder / BESTIARY_DIR)
        found.append(pathlib.Path.cwd() / BESTIARY_DIR)
        shipped = shipped_bestiary()
        if shipped is not None:
            found.append(shipped)
    unique: list[pathlib.Path] = []
    for folder in found:
        if folder.is_dir() and folder.resolve() not in [u.resolve() for u in unique]:
            unique.append(folder)
    return unique


def rules_folder(folder: pathlib.Path, rules: str) -> pathlib.Path | None:
    """The folder of ``rules`` entries in a bestiary folder: ``folder/<rules>``, or
    ``folder`` itself when it is named after the rules (``--bestiary bestiary/d20``)."""
    if (folder / rules).is_dir():
        return folder / rules
    return folder if folder.name == rules and folder.is_dir() else None


def load_bestiary(dirs: list[pathlib.Path], rules: str, problems: list[Problem]) -> dict[str, Entry]:
    """All entries of ``<dir>/<rules>/*.yaml``; an earlier folder wins a name clash."""
    entries: dict[str, Entry] = {}
    for folder in dirs:
        system_dir = rules_folder(folder, rules)
        if system_dir is None:
            continue
        seen_here: dict[str, Entry] = {}
        for file in sorted([*system_dir.glob("*.yaml"), *system_dir.glob("*.yml")]):
            for key, entry in load_bestiary_file(file, problems).items():
                if key in seen_here:
                    first = seen_here[key].source.file
                    problems.append(entry.source.problem(
                        ("creatures", entry.key), f"duplicate bestiary entry '{key}' (also in {first})",
                        at_key=True))
                    continue
                seen_here[key] = entry
        for key, entry in seen_here.items():
            entries.setdefault(key, entry)
    return entries


def folder_name(folder: pathlib.Path) -> str:
    """A bestiary folder for messages, the shipped one said to be so."""
    return display_name(folder) + (f" ({SHIPPED_LABEL})" if is_shipped(folder) else "")


def where_searched(dirs: list[pathlib.Path], systems: tuple[str, ...]) -> str:
    """Where a bestiary entry was looked for, and how to make it look elsewhere."""
    found = [f for d in dirs for rules in systems if (f := rules_folder(d, rules)) is not None]
    where = ", ".join(folder_name(f) for f in found) or f"no '{'/'.join(systems)}' bestiary folder"
    # Not "there": the shipped folder is replaced by the next install.
    own = f"{BESTIARY_DIR}/{systems[0] if len(systems) == 1 else '<rules>'}/"
    return (f"searched: {where}; add the entry to a YAML file in a {own} folder beside the"
            f" scenario, or name your folder with --bestiary DIR or {BESTIARY_ENV}")
