"""Replaying battles: regenerate battle I of a batch, or read a saved event log back."""

from __future__ import annotations

import pathlib

from sim.batch import RunFolder, battle_seed, load_run_scenario
from sim.engine import run_battle
from sim.errors import InputError
from sim.events import missing_fields, read_jsonl


def regenerate(run_dir: pathlib.Path, index: int) -> list[dict]:
    """The full event log of battle ``index`` of a batch, replayed from its seed alone."""
    folder = RunFolder(run_dir)
    manifest = folder.read_manifest()
    if not 0 <= index < manifest["n"]:
        msg = f"sim replay: --battle: the run has battles 0 to {manifest['n'] - 1} (got {index})"
        raise InputError(msg)
    scenario = load_run_scenario(folder, manifest)
    master = manifest["seed"]
    _, events = run_battle(scenario, battle_seed(master, index), log=True,
                           batch={"seed": master, "index": index})
    return events


def read_log(path: pathlib.Path, battle: int | None = None) -> list[dict]:
    """Events of one battle of a saved JSONL log; bad files are an InputError naming the line.

    A batch log holds several battles, one after another: ``battle`` picks one
    by its index in the batch.
    """
    try:
        with open(path, encoding="utf-8") as handle:
            events = list(read_jsonl(handle))
    except OSError as exc:
        msg = f"{path}:0:0: (document): cannot read ({exc.strerror})"
        raise InputError(msg) from exc
    except UnicodeDecodeError as exc:
        msg = f"{path}:0:0: (document): not UTF-8 ({exc.reason})"
        raise InputError(msg) from exc
    except ValueError as exc:  # read_jsonl says which line
        msg = f"{path}:{exc}"
        raise InputError(msg) from exc
    for number, event in enumerate(events, start=1):
        problem = event_problem(event)
        if problem:
            raise InputError(f"{path}:{number}:1: {event.get('event', '(event)')}: {problem}")
    battles = split_battles(events)
    if battle is None:
        if len(battles) != 1:
            msg = f"{path}:0:0: (document): holds {len(battles)} battles; pick one with --battle I"
            raise InputError(msg)
        return battles[0]
    for events in battles:
        batch = events[0].get("batch")
        if isinstance(batch, dict) and batch.get("index") == battle:
            return events
    msg = f"{path}:0:0: (document): no battle {battle} in this log"
    raise InputError(msg)


def event_problem(event: dict) -> str | None:
    """Why an event cannot be replayed: a required field missing or of the wrong shape."""
    missing = missing_fields(event)
    if missing:
        return f"missing field(s) {', '.join(missing)}"
    if not isinstance(event["round"], int) or not isinstance(event["t"], int | float):
        return "round must be an integer and t a number"
    if event["event"] == "battle_started":
        combatants = event["combatants"]
        if not (isinstance(combatants, list) and all(isinstance(c, dict) for c in combatants)):
            return "combatants must be a list of objects"
        if "batch" in event and not isinstance(event["batch"], dict):
            return "batch must be an object"
    if event["event"] == "check_rolled" and not isinstance(event["dice"], list):
        return "dice must be a list"
    return None


def split_battles(events: list[dict]) -> list[list[dict]]:
    """Cut a stream of events into battles, each opening with ``battle_started``."""
    battles: list[list[dict]] = []
    for event in events:
        if event["event"] == "battle_started" or not battles:
            battles.append([])
        battles[-1].append(event)
    return battles
