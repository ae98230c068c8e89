"""``sim import FILE.json``: monsters of other books (5e-database's and Open5e's JSON) as d20
bestiary files, one a monster, checked as ``sim validate`` would before any is written,
each told with what its figures leave out."""

from __future__ import annotations

import argparse
import json
import pathlib
import tempfile

import attrs

from sim.batch import write_atomic
from sim.cli.common import EXIT_OK, say_line
from sim.errors import InputError, Problem, ScenarioError
from sim.io.infile import open_regular
from sim.io.jsonin import JSONLimitError, parse_json
from sim.scenario.bestiary import BESTIARY_DIR, load_bestiary_file
from sim.scenario.srd import Imported, Skipped, file_text, monsters, read_monster
from sim.yamlsrc import display_name

MAX_JSON_BYTES = 64 * 1024 * 1024  # 5e-database's every monster is about 4 MB
RULES = "d20"  # the only system other d20 games' numbers convert to


def cmd_import(args: argparse.Namespace) -> int:
    shown = display_name(args.file)
    data = _read_json(args.file, shown)
    prefix, raws = monsters(data)
    folder = _folder(args.out)
    problems: list[Problem] = []
    entries: list[Imported] = []
    skipped: list[Skipped] = []
    for i, raw in enumerate(raws):
        path = f"{prefix}[{i}]" if prefix or isinstance(data, list) else ""
        got = read_monster(raw, shown, path)
        if isinstance(got, Problem):
            problems.append(got)
        elif isinstance(got, Skipped):
            skipped.append(got)
        elif any(e.name == got.name or e.stem == got.stem for e in entries):
            problems.append(Problem(shown, 0, 0, path, f"{got.name}: a second monster of this"
                                                       " name in the file; import it apart"))
        else:
            entries.append(got)
    problems += _clashes(entries, folder, args.force)
    if not entries and not problems:
        problems.append(Problem(shown, 0, 0, "", "no monster this d20 can play in the file"
                                                 " (each needs an attack with an attack bonus)"))
    if problems:
        raise ScenarioError(problems)
    texts = [(entry, file_text(entry, shown)) for entry in entries]
    _check(texts, folder)
    folder.mkdir(parents=True, exist_ok=True)
    for entry, text in texts:
        write_atomic(folder / f"{entry.stem}.yaml", text.encode("utf-8"))
    _tell(entries, skipped, folder)
    return EXIT_OK


def _read_json(path: pathlib.Path, shown: str) -> object:
    """The file's JSON; anything else is one line, exit 2."""
    with open_regular(path) as handle:
        data = handle.read(MAX_JSON_BYTES + 1)
    if len(data) > MAX_JSON_BYTES:
        raise InputError(f"{shown}:0:0: (document): larger than {MAX_JSON_BYTES // 2**20} MiB")
    try:
        return parse_json(data.decode("utf-8-sig"))
    except UnicodeDecodeError:
        raise InputError(f"{shown}:0:0: (document): not UTF-8 text") from None
    except json.JSONDecodeError as exc:
        raise InputError(f"{shown}:{exc.lineno}:{exc.colno}: (document): not JSON: {exc.msg}"
                         " (sim import reads the JSON of 5e-database or Open5e)") from None
    except JSONLimitError as exc:
        raise InputError(f"{shown}:0:0: (document): JSON this program will not read:"
                         f" {exc.reason}") from None


def _folder(out: pathlib.Path | None) -> pathlib.Path:
    """Where the files go: ``OUT/d20/`` (``use:`` looks there), or OUT when it is a d20
    folder itself; by default ``./bestiary/d20/``."""
    out = pathlib.Path(BESTIARY_DIR) if out is None else out
    return out if out.name == RULES else out / RULES


def _clashes(entries: list[Imported], folder: pathlib.Path, force: bool) -> list[Problem]:
    """A file there already (replaced only with --force), or an entry of the same name in
    another file of the folder (``use:`` would find two)."""
    out: list[Problem] = []
    if folder.exists() and not folder.is_dir():
        return [Problem(display_name(folder), 0, 0, "", "not a folder: --out names a bestiary folder")]
    own = {f"{e.stem}.yaml" for e in entries}
    names: dict[str, str] = {}
    for file in sorted(folder.glob("*.y*ml")) if folder.is_dir() else ():
        if file.name not in own:
            names.update(dict.fromkeys(load_bestiary_file(file, []), display_name(file)))
    for entry in entries:
        target = folder / f"{entry.stem}.yaml"
        if target.exists() and not force:
            out.append(Problem(display_name(target), 0, 0, "", "already there: --force replaces"
                                                               " it (nothing was written)"))
        if entry.name in names:
            out.append(Problem(names[entry.name], 0, 0, f"creatures.{entry.name}", "an entry of"
                               f" this name is there already: {entry.name} was not imported"
                               " (nothing was written)"))
    return out


def _check(texts: list[tuple[Imported, str]], folder: pathlib.Path) -> None:
    """Each file as ``sim validate`` reads it, in a scratch d20 folder: what it refuses is
    told at the file it would have been (a value out of every range, say)."""
    problems: list[Problem] = []
    with tempfile.TemporaryDirectory(prefix="sim-import-") as scratch:
        for entry, text in texts:
            path = pathlib.Path(scratch) / RULES / f"{entry.stem}.yaml"
            path.parent.mkdir(exist_ok=True)
            path.write_text(text, encoding="utf-8")
            found: list[Problem] = []
            load_bestiary_file(path, found)
            shown = display_name(folder / path.name)
            problems += [attrs.evolve(p, file=shown) for p in found]
    if problems:
        raise ScenarioError(problems)


def _tell(entries: list[Imported], skipped: list[Skipped], folder: pathlib.Path) -> None:
    """A few lines a monster: where it went with the book's figures, the d20 ones, then
    what the figures leave out."""
    for entry in entries:
        b = entry.block
        say_line(f"{display_name(folder / (entry.stem + '.yaml'))}: {entry.name} ({entry.book})")
        say_line(f"  as d20: defense_threshold {b['defense_threshold']}, attack_threshold"
                 f" {b['attack_threshold']}, level {b['level']}, hp {b['hp']}")
        say_line("  weapons: " + ", ".join(f"{w['name']} {w['damage']}" for w in b["weapons"]))
        for item in entry.left_out:
            say_line(f"  not carried: {item}")
    for skip in skipped:
        say_line(f"skipped {skip.name}: {skip.why}")
    count = "1 entry" if len(entries) == 1 else f"{len(entries)} entries"
    say_line(f"sim import: {count} written to {display_name(folder)}; use: NAME in a {RULES}"
             " scenario")
