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


def read_log(path: pathlib.Path) -> list[dict]:
    """Events of a saved JSONL log; bad files are an InputError naming the line."""
    try:
        with open(path, encoding="utf-8") as handle:
            return list(read_jsonl(handle))
    except OSError as exc:
        msg = f"{path}:0:0: cannot read ({exc.strerror})"
        raise InputError(msg) from exc
    except (ValueError, UnicodeDecodeError) as exc:
        msg = f"{path}: {exc}"
        raise InputError(msg) from exc
