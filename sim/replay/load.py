"""Replaying battles: regenerate battle I of a batch, or read a saved event log back."""

from __future__ import annotations

import hashlib
import json
import pathlib
from collections.abc import Callable, Sequence

from sim import __version__
from sim.batch import RunFolder, battle_seed, load_run_scenario
from sim.batch.manifest import read_regular
from sim.day.file import Day, load_input
from sim.day.play import run_any
from sim.errors import InputError
from sim.events import SCHEMA, missing_fields, read_jsonl
from sim.io.infile import open_regular_text
from sim.replay.state import STARTING_RESOURCES
from sim.scenario import IMPLEMENTED_SYSTEMS
from sim.yamlsrc import MAX_BYTES, shorten


def regenerate(run_dir: pathlib.Path, index: int, bestiary: Sequence[pathlib.Path] = (),
               sink: list[dict] | None = None) -> list[dict]:
    """The full event log of battle ``index`` of a batch, replayed from its seed alone (into
    ``sink`` when one is given: sim.events.CappedLog keeps what a page embeds)."""
    folder = RunFolder(run_dir)
    manifest = folder.read_manifest()
    # A finished run has the battles it played: with --precision it stopped short of -n, and
    # a battle past them was never part of it. An unfinished one will play up to -n.
    played = manifest["battles_done"] if manifest["status"] == "complete" else manifest["n"]
    if not 0 <= index < played:
        msg = f"sim replay: --battle: the run has battles 0 to {played - 1} (got {index})"
        raise InputError(msg)
    scenario = load_run_scenario(folder, manifest, bestiary)
    master = manifest["seed"]
    _, events = run_any(scenario, battle_seed(master, index), log=True,
                        batch={"seed": master, "index": index}, sink=sink)
    return events


def verify(path: pathlib.Path, battle: int | None = None, scenario_path: pathlib.Path | None = None,
           bestiary: Sequence[pathlib.Path] = ()) -> tuple[bool, str]:
    """Re-simulate a saved log from its header; (identical, what to tell).

    The scenario is the first file of ``find_scenario`` whose SHA-256 is the
    logged one; none matching is an InputError: the log cannot be checked.
    """
    saved = read_log(path, battle)
    head = saved[0]
    if head["event"] not in ("battle_started", "day_started"):
        msg = f"{path}:1:1: {head['event']}: no battle_started or day_started header to re-simulate from"
        raise InputError(msg)
    found = find_scenario(path, head, scenario_path)
    logged = tuple(pathlib.Path(folder) for folder in head.get("bestiary", ()))
    gone = [folder for folder in logged if not folder.is_dir()]
    if gone and not bestiary:
        # Passed over, its entries came silently from the next folder (the repository's
        # troll for one's own), and the log was said to differ.
        msg = (f"{path}:1:1: {head['event']}.bestiary: the logged bestiary folder {gone[0]} is"
               " not a folder any more; give it with --bestiary DIR")
        raise InputError(msg)
    overrides = head.get("overrides", [])
    if not isinstance(overrides, list) or not all(isinstance(o, str) for o in overrides):
        msg = f"{path}:1:1: battle_started.overrides: must be a list of PATH=VALUE texts"
        raise InputError(msg)
    scenario = load_input(found, (*bestiary, *logged), overrides=overrides)
    if isinstance(scenario, Day):
        _check_encounter_files(path, saved, scenario)
    batch = head.get("batch")
    _, fresh = run_any(scenario, head["seed"], log=True,
                       batch=batch if isinstance(batch, dict) else None)
    fresh = json.loads(json.dumps(fresh))  # compare as the log stores them (tuples -> lists)
    for old, new in zip(saved, fresh, strict=False):
        # Where the files lie is not what the battle did: a day's header and each of its
        # fights' battle_started name the day and encounter files as the day was given
        # (a relative day file gives relative encounter paths), here resolved.
        if new.get("event") in HEADERS and old.get("event") == new.get("event"):
            for key in PATH_FIELDS:
                new.pop(key, None)
                if key in old:
                    new[key] = old[key]
    for number, (old, new) in enumerate(zip(saved, fresh, strict=False), start=1):
        if old != new:
            return False, (f"{path}:{number}: first difference at event {number}:"
                           f"\n  log:  {json.dumps(old)[:300]}\n  sim:  {json.dumps(new)[:300]}")
    if len(saved) != len(fresh):
        return False, (f"{path}: the log has {len(saved)} events, the simulation"
                       f" {len(fresh)}")
    note = "" if head.get("version") == __version__ else (
        f" (written by version {head.get('version')}, checked with {__version__})")
    return True, f"{path}: identical, {len(saved)} events, scenario {found}{note}"


def _check_encounter_files(path: pathlib.Path, saved: list[dict], day: Day) -> None:
    """A day's encounter file edited since the log was written is bad input (exit 2), as a
    changed scenario is: the day file's SHA-256 matched, and the log was said to differ."""
    logged, step = {}, None
    for event in saved:
        if event["event"] == "encounter_started":
            step = event.get("step")
        elif event["event"] == "battle_started" and step is not None:
            logged[step] = event.get("scenario_sha256")
    for encounter in day.encounters:
        was = logged.get(encounter.step)
        if was is not None and was != encounter.scenario.sha256:
            msg = (f"{path}:1:1: day_started: encounter file {encounter.scenario.path} (step"
                   f" {encounter.step}) changed since the log was written: SHA-256 differs")
            raise InputError(msg)


# Header fields that say where files lie (verify copies them from the log): the scenario or
# day as given and resolved, and the bestiary folders searched (--verify --bestiary DIR, the
# run's folder again or where it moved, must not make an identical battle differ; a stat
# block that changed still shows in the combatants and the dice).
HEADERS = ("battle_started", "day_started")
PATH_FIELDS = ("scenario_path", "scenario_path_resolved", "day_path", "day_path_resolved",
               "bestiary")


def find_scenario(log: pathlib.Path, head: dict, given: pathlib.Path | None = None) -> pathlib.Path:
    """The scenario file a log was written from, found by its SHA-256 wherever we run from.

    Tried in order: ``given`` (``--scenario``), the header's ``scenario_path_resolved``,
    its ``scenario_path`` from the log's folder, then from the working folder.
    """
    candidates = [] if given is None else [given]
    kind = "day" if head.get("event") == "day_started" else "scenario"  # a day's log names its day file
    as_given, resolved = head.get(f"{kind}_path"), head.get(f"{kind}_path_resolved")
    if isinstance(resolved, str) and resolved:
        candidates.append(pathlib.Path(resolved))
    if isinstance(as_given, str) and as_given:
        candidates += [log.parent / as_given, pathlib.Path(as_given)]
    tried: list[str] = []
    for candidate in dict.fromkeys(candidates):  # in order, without repeats
        why = _mismatch(candidate, head.get(f"{kind}_sha256"))
        if why is None:
            return candidate
        tried.append(f"{candidate} ({why})")
    msg = (f"{log}:1:1: {head.get('event')}: no {kind} file with the logged SHA-256; tried "
           f"{'; '.join(tried) or f'nothing (the header names no {kind}_path)'};"
           " give the scenario with --scenario PATH")
    raise InputError(msg)


def _mismatch(candidate: pathlib.Path, sha256: object) -> str | None:
    """Why ``candidate`` is not the logged scenario, or None when its bytes hash to ``sha256``."""
    try:  # a FIFO or a device is refused without blocking; the bytes are hashed, never shown
        raw = read_regular(candidate, MAX_BYTES)
    except FileNotFoundError:
        return "not found"
    except InputError:
        return f"not a regular file of at most {MAX_BYTES // 1024} kB"
    except (OSError, ValueError) as exc:  # ValueError: a NUL or unencodable character
        return f"cannot read: {getattr(exc, 'strerror', None) or 'a path the system cannot use'}"
    if hashlib.sha256(raw).hexdigest() != sha256:
        return "changed since the log was written: SHA-256 differs"
    return None


_DAY_EVENTS = ("day_started", "encounter_started", "encounter_ended", "rested", "revived",
               "day_ended")


def _mixed_line(events: list[dict]) -> int | None:
    """The line where a log of battles and one of days were put together: a day's event among
    battles, or a battle after a day's end. Split as one or the other, a battle took in a whole
    day (or a day the battles after it), narrated and verified as if they were its own."""
    days = bool(events) and events[0]["event"] == "day_started"
    ended = False
    for number, event in enumerate(events, start=1):
        kind = event["event"]
        if (not days and kind in _DAY_EVENTS) or (ended and kind != "day_started"):
            return number
        ended = days and kind == "day_ended"
    return None


def _batch_index(events: list[dict]) -> int | None:
    """A battle's index in its batch, or None for a battle of no batch (``sim run --log``)."""
    batch = events[0].get("batch")
    return batch["index"] if isinstance(batch, dict) else None


def read_log(path: pathlib.Path, battle: int | None = None) -> list[dict]:
    """Events of one battle of a saved JSONL log; bad files are an InputError naming the line.

    A batch log holds several battles, one after another: ``battle`` picks one
    by its index in the batch.
    """
    try:
        with open_regular_text(path) as handle:
            events = list(read_jsonl(handle))
    except OSError as exc:
        msg = f"{path}:0:0: (document): cannot read ({exc.strerror})"
        raise InputError(msg) from exc
    except UnicodeDecodeError as exc:
        msg = f"{path}:0:0: (document): not UTF-8 ({exc.reason})"
        raise InputError(msg) from exc
    except UnicodeEncodeError as exc:
        msg = f"{path}:0:0: (document): cannot read (a path the system cannot use)"
        raise InputError(msg) from exc
    except ValueError as exc:  # read_jsonl says which line
        msg = f"{path}:{exc}"
        raise InputError(msg) from exc
    for number, event in enumerate(events, start=1):
        problem = event_problem(event)
        if problem:
            raise InputError(f"{path}:{number}:1: {event.get('event', '(event)')}: {problem}")
    mixed = _mixed_line(events)
    if mixed is not None:
        msg = (f"{path}:{mixed}:1: {events[mixed - 1]['event']}: a log holds battles or days, not"
               " both (logs put together): replay each from its own log")
        raise InputError(msg)
    battles = split_battles(events)
    if battle is None:
        if len(battles) != 1:
            msg = f"{path}:0:0: (document): holds {len(battles)} battles; pick one with --battle I"
            raise InputError(msg)
        return battles[0]
    indexes = [_batch_index(events) for events in battles]
    found = [events for events, index in zip(battles, indexes, strict=True) if index == battle]
    if len(found) == 1:
        return found[0]
    if found:  # logs put together (two runs', a chunk twice): the first one was replayed
        msg = (f"{path}:0:0: (document): holds battle {battle} {len(found)} times: logs of several"
               " runs put together; replay it from its own run's log")
        raise InputError(msg)
    held = [index for index in indexes if index is not None]
    # Say what it does hold: `sim run --log` writes one battle with no batch index, which
    # --battle 0 did not find either.
    what = (f"it holds battles {min(held)} to {max(held)} of its batch" if held else
            "its battle is no batch's (a sim run log): replay it without --battle"
            if len(battles) == 1 else "its battles are no batch's")
    msg = f"{path}:0:0: (document): no battle {battle} in this log; {what}"
    raise InputError(msg)


# The type of every field the replay, the narration and verify read. Fields not listed
# are carried along untouched (more fields are welcome in the log contract).
_NAMES = ("actor", "side", "first", "weapon", "kind", "cause", "effect", "resource", "reason",
          "purpose", "system", "degree", "scenario", "rules", "version", "scenario_sha256",
          "scenario_path", "toward", "what", "skill", "characteristic", "do", "escape", "mount",
          "day", "day_sha256", "day_path", "name", "item")
_INTS = ("round", "die", "roll", "amount", "hp_before", "hp_after", "tokens", "delta", "rounds",
         "modifier", "total", "margin", "tick", "fatigue", "spirit_before", "spirit_after",
         "successes", "failures", "score", "heroism", "left", "advantage", "seed", "schema",
         "step", "steps", "max_hp", "unhealable_before", "unhealable_after", "psy_before",
         "psy_after", "max_psy", "fatigue_before", "fatigue_after", "heroism_before",
         "heroism_after", "max_heroism", "hours", "hp_rolled", "hardy_bonus", "heroism_spent")
_FIELD_TYPES: dict[str, tuple[str, Callable[[object], bool]]] = {
    **{name: ("a string", lambda v: isinstance(v, str)) for name in _NAMES},
    **{name: ("an integer", lambda v: _is_int(v)) for name in _INTS},
    **{name: ("a string or null", lambda v: v is None or isinstance(v, str))
       for name in ("winner", "source")},
    **{name: ("an integer or null", lambda v: v is None or _is_int(v))
       for name in ("kept", "tie_roll", "morale_before", "morale_after")},
    "t": ("a number of 0 or more (the sim time)", lambda v: _is_number(v) and v >= 0),  # type: ignore[operator]
    **{name: ("a number", lambda v: _is_number(v)) for name in ("x_before", "x_after")},
    **{name: ("true or false", lambda v: isinstance(v, bool))
       for name in ("hit", "success", "armor_piercing", "defended", "fumble", "outnumbered", "run",
                    "serious_wound", "completed", "survived", "fresh")},
    **{name: ("a list of names", lambda v: isinstance(v, list) and all(isinstance(x, str) for x in v))
       for name in ("survivors", "dead", "knocked_out", "fled", "broken", "left_behind", "members",
                    "targets",
                    "bestiary", "party")},
    **{name: ("a list of integers", lambda v: isinstance(v, list) and all(_is_int(x) for x in v))
       for name in ("dice", "chain")},
    "surprise": ("a side or false", lambda v: isinstance(v, bool | str)),
    "batch": ("an object {seed, index}", lambda v: isinstance(v, dict)
              and _is_int(v.get("seed"), 0) and _is_int(v.get("index"), 0)),
}
_MAX_INT = 2**63 - 1


def _is_int(value: object, low: int = -_MAX_INT) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and low <= value <= _MAX_INT


def _is_number(value: object) -> bool:
    return (_is_int(value) or isinstance(value, float)) and abs(value) < 1e300  # type: ignore[arg-type]


def event_problem(event: dict) -> str | None:
    """Why an event cannot be replayed: a required field missing or of the wrong shape."""
    missing = missing_fields(event)
    if missing:
        return f"missing field(s) {', '.join(missing)}"
    fresh = event["event"] == "rested" and event.get("fresh") is True
    for name, value in event.items():
        if fresh and value is None:
            continue  # a rest before its first fight: nothing to tell of HP, PSY or heroism yet
        if name == "target":
            expected = ("an integer", _is_int) if event["event"] == "check_rolled" else (
                "a string", lambda v: isinstance(v, str))
        else:
            expected = _FIELD_TYPES.get(name)  # type: ignore[assignment]
        if expected is not None and not expected[1](value):
            return f"{name} must be {expected[0]} (got {shorten(value)})"
    if event["event"] == "battle_started":
        return _start_problem(event)
    if event["event"] == "day_started":
        return _header_problem(event)
    return None


def _header_problem(event: dict) -> str | None:
    """What a battle's or a day's first event must hold to re-simulate it."""
    if event["schema"] != SCHEMA:
        return f"schema must be {SCHEMA} (got {shorten(event['schema'])}): not a log this version reads"
    if not _is_int(event["seed"], 0):
        return f"seed must be an integer from 0 to {_MAX_INT}"
    return None


def _start_problem(event: dict) -> str | None:
    if (problem := _header_problem(event)) is not None:
        return problem
    combatants = event["combatants"]
    if not (isinstance(combatants, list) and combatants and all(isinstance(c, dict) for c in combatants)):
        return "combatants must be a list of objects, not empty"
    if event["rules"] not in IMPLEMENTED_SYSTEMS:
        return f"rules must be one of {', '.join(IMPLEMENTED_SYSTEMS)} (got {shorten(event['rules'])})"
    names: set[str] = set()
    for number, entry in enumerate(combatants):
        if not (isinstance(entry.get("name"), str) and isinstance(entry.get("side"), str)
                and _is_int(entry.get("hp")) and _is_int(entry.get("max_hp"))):
            return f"combatants[{number}] must have a name, a side, hp and max_hp"
        if not 0 <= entry["hp"] <= entry["max_hp"]:  # (a day's fight may start below max_hp)
            return f"combatants[{number}] must have hp from 0 to its max_hp (got {entry['hp']}" \
                   f" of {entry['max_hp']})"
        if entry["name"] in names:  # the replay follows each combatant by its name
            return f"combatants[{number}] repeats the name {shorten(entry['name'])}"
        names.add(entry["name"])
        items = entry.get("items", {})
        # The step-by-step replay shows them as resources: another shape crashed it.
        if not (isinstance(items, dict) and all(_is_int(v, 0) for v in items.values())):
            return f"combatants[{number}].items must be an object of item name: count (got {shorten(items)})"
        for key in STARTING_RESOURCES:  # counted down by the replay as the battle spends them
            if entry.get(key) is not None and not _is_int(entry[key]):
                return f"combatants[{number}].{key} must be an integer (got {shorten(entry[key])})"
    return None


def split_battles(events: list[dict]) -> list[list[dict]]:
    """Cut a stream of events into battles, each opening with ``battle_started`` (or into
    days, each opening with ``day_started``, when the stream is a log of days)."""
    opener = "day_started" if events and events[0].get("event") == "day_started" else "battle_started"
    battles: list[list[dict]] = []
    for event in events:
        if event["event"] == opener or not battles:
            battles.append([])
        battles[-1].append(event)
    return battles
