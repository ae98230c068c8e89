"""Replaying battles: regenerate battle I of a batch, or read a saved event log back."""

from __future__ import annotations

import hashlib
import pathlib

from sim.batch import RunFolder, battle_seed
from sim.engine import run_battle
from sim.errors import InputError
from sim.events import read_jsonl
from sim.scenario import load_scenario


def regenerate(run_dir: pathlib.Path, index: int) -> list[dict]:
    """The full event log of battle ``index`` of a batch, replayed from its seed alone."""
    manifest = RunFolder(run_dir).read_manifest()
    if not 0 <= index < manifest["n"]:
        msg = f"--battle: the run has battles 0 to {manifest['n'] - 1} (got {index})"
        raise InputError(msg)
    scenario_path = pathlib.Path(manifest["scenario_path"])
    try:
        digest = hashlib.sha256(scenario_path.read_bytes()).hexdigest()
    except OSError as exc:
        msg = f"{scenario_path}: the run's scenario cannot be read ({exc.strerror})"
        raise InputError(msg) from exc
    if digest != manifest["scenario_sha256"]:
        msg = (f"{scenario_path}: the scenario changed since the run (SHA-256 differs): "
               "its battles can no longer be regenerated")
        raise InputError(msg)
    scenario = load_scenario(scenario_path)
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
        msg = f"{path}:0:0: cannot read ({exc.strerror})"
        raise InputError(msg) from exc
    except (ValueError, UnicodeDecodeError) as exc:
        msg = f"{path}: {exc}"
        raise InputError(msg) from exc
    battles = split_battles(events)
    if battle is None:
        if len(battles) != 1:
            msg = f"{path}: holds {len(battles)} battles; pick one with --battle I"
            raise InputError(msg)
        return battles[0]
    for events in battles:
        if events[0].get("batch", {}).get("index") == battle:
            return events
    msg = f"{path}: no battle {battle} in this log"
    raise InputError(msg)


def split_battles(events: list[dict]) -> list[list[dict]]:
    """Cut a stream of events into battles, each opening with ``battle_started``."""
    battles: list[list[dict]] = []
    for event in events:
        if event["event"] == "battle_started" or not battles:
            battles.append([])
        battles[-1].append(event)
    return battles
