"""The report's battle viewer: the worst, a median and the best battle of a run, embedded in
the page as their events, a line of text per event, and what the viewer shows after each.

The page's script (``templates/static/viewer.js``) only applies these; the state of each
combatant comes from the terminal replay's view (sim.replay.state), so both replays agree.
"""

from __future__ import annotations

import pathlib
import re
from collections.abc import Sequence
from typing import Any

import attrs
import markupsafe

from sim.errors import InputError
from sim.events import CappedLog
from sim.replay.load import regenerate
from sim.replay.narrate import NARRATORS, Teller, day_verdict
from sim.replay.picks import PICKS, pick_battles
from sim.replay.state import BattleView, CombatantView
from sim.report.render import json_script
from sim.terminal import plural

Event = dict[str, Any]
# Events of one picked battle (or day) the page embeds, with their narration and states (about
# 500 bytes each): a day of fifty long fights embedded whole made a 375 MB page no browser
# opens. Past the cap, the viewer steps through the first events and says how many it left.
MAX_EMBEDDED_EVENTS = 10_000
# What a day's outcome is told from besides its first and last events (sim.replay.narrate.day_verdict).
DAY_OUTLINE = frozenset({"encounter_started", "rested"})


@attrs.frozen
class Picked:
    """One battle the viewer offers: its pick (worst, median, best), its index in the run, how
    it ended, and its three JSON blocks (events, narration, states)."""

    key: str
    index: int
    outcome: str
    events: markupsafe.Markup
    narration: markupsafe.Markup
    states: markupsafe.Markup

    @property
    def label(self) -> str:
        """The outcome in a few words, for the picker: a phone's select shows about 40
        characters and cuts the rest ("raiders win after 8 rounc"); the whole is its title."""
        short = self.outcome.split(";")[0]
        for long, brief in _BRIEF:
            short = re.sub(long, brief, short)
        return f"{self.key}: {short} (#{self.index})"


# A day's verdict (sim.replay.narrate.day_verdict), as the picker says it.
_BRIEF = ((r"^the party sees the day through$", "day seen through"),
          (r"^the day ends early, at (step \d+ of \d+)$", r"ends at \1"),
          (r"^the day ends at its last step .*$", "ends at its last step"),
          (r"^the day ends before its end$", "ends early"))


@attrs.frozen
class Viewer:
    """The picked battles, or why the run's battles cannot be replayed."""

    battles: tuple[Picked, ...] = ()
    problem: str | None = None


def viewer(run_dir: pathlib.Path, bestiary: Sequence[pathlib.Path]) -> Viewer:
    """The worst, a median and the best battle, regenerated from the run's seeds: a sample of
    the run's battles, each cut at MAX_EMBEDDED_EVENTS events (its outcome says so)."""
    try:
        picks = pick_battles(run_dir, bestiary)
        logs = {index: regenerate(run_dir, index, bestiary, CappedLog(MAX_EMBEDDED_EVENTS, DAY_OUTLINE))
                for index in sorted(set(picks.values()))}
    except InputError as exc:
        return Viewer(problem=str(exc))
    return Viewer(tuple(
        Picked(key, picks[key], _told(run_dir, picks[key], events), json_script(list(events)),
               json_script(viewer_lines(events)), json_script(viewer_states(events)))
        for key, events in ((key, logs[picks[key]]) for key in PICKS)))


def _told(run_dir: pathlib.Path, index: int, events: CappedLog) -> str:
    """How the battle (or day) ended, and what of it the page holds when it is cut."""
    ends = [] if events.last is None else [events.last]
    outcome = _outcome([*events[:1], *events.outlined, *ends])
    if events.seen <= len(events):
        return outcome
    return (f"{outcome}; its first {len(events):,} of {events.seen:,} events are shown"
            f" (sim replay {run_dir} --battle {index} shows them all)")


def viewer_lines(events: list[Event]) -> list[str]:
    """A line per event: the narration's (sim.replay.narrate.Teller, which knows the step of a day
    and who is down), or, for an event the narration leaves out, why it changes nothing."""
    teller, lines = Teller(), []
    for event in events:
        told = teller.tell(event)
        if told is None and event["event"] in ("check_rolled", "damage_dealt"):
            who = event.get("actor") or event.get("target")
            told = f"{who} is down at 0 HP: this changes nothing."
        lines.append(explain(event) if told is None else told.strip())
    return lines


def viewer_states(events: list[Event]) -> list[dict[str, Any]]:
    """What the viewer shows after each event, as changes: entry k lists ``[name, shown]`` for
    each combatant event k changed (entry 0: everyone) and, when it changed, the shared pools.

    ``shown`` is the terminal replay's view of a combatant (sim.replay.state): HP, status and
    its details (effects, prone, heroism, PSY, fatigue, morale...), so both replays agree.
    """
    view = BattleView(events)
    shown = {name: _shown(c) for name, c in view.combatants.items()}
    first = next((e for e in events if e["event"] == "battle_started"), None)
    states: list[dict[str, Any]] = [{
        "cast": [[n, s] for n, s in shown.items()], "shared": {},
        # Who fights, by side: for a day, everyone of every fight, as each first appears.
        "roster": [[c.name, c.side] for c in view.combatants.values()],
        "present": [] if first is None else [c["name"] for c in first["combatants"]],
        "scene": events[0].get("day", "")}]  # a battle needs no place: its page names it
    shared: dict[str, int] = {}
    for k in range(1, len(events)):
        view.goto(k)
        # Only combatants an event names can change (as actor, target, source...).
        named = {v for v in events[k].values() if isinstance(v, str) and v in shown}
        state: dict[str, Any] = {}
        if events[k]["event"] == "battle_started":  # a later fight of a day: its whole cast
            named |= {c["name"] for c in events[k]["combatants"]}
            state["present"] = [c["name"] for c in events[k]["combatants"]]
        if (scene := _scene(events[k])) is not None and scene != _last_scene(states):
            state["scene"] = scene
        changed = []
        for name in sorted(named):
            now = _shown(view.combatants[name])
            if now != shown[name]:
                shown[name] = now
                changed.append([name, now])
        state["cast"] = changed
        if view.shared != shared:
            shared = dict(view.shared)
            state["shared"] = shared
        states.append(state)
    return states


def _scene(event: Event) -> str | None:
    """What the viewer's counter names as the place of the events from this one on: the
    fight, or the step of a day (a rest too); None when the event starts nothing."""
    name = event["event"]
    if name == "encounter_started":
        return f"step {event['step'] + 1}: {event['name']}"
    if name == "rested":
        return f"step {event['step'] + 1}: {event['kind']} rest, {event['hours']} h"
    return None


def _last_scene(states: list[dict[str, Any]]) -> str:
    return next(state["scene"] for state in reversed(states) if "scene" in state)


def _shown(c: CombatantView) -> dict[str, Any]:
    return {"hp": c.hp, "max": c.max_hp, "status": c.status, "details": c.details()}


def _outcome(events: list[Event]) -> str:
    last = events[-1] if events else {}
    if last.get("event") == "day_ended":
        steps = [e["step"] for e in events if e["event"] in ("encounter_started", "rested")]
        return day_verdict(last.get("completed", False), max(steps, default=None),
                           events[0].get("steps"))
    if last.get("event") != "battle_ended":
        return "unfinished"
    head = f"{last['winner']} win" if last.get("winner") else "draw"
    behind = last.get("left_behind")  # rules §5: alive where they fell, their side gone
    left = f"; left behind: {', '.join(map(str, behind))}" if isinstance(behind, list) and behind else ""
    return f"{head} after {plural(last.get('rounds'), 'round')}{left}"


def explain(event: Event) -> str:
    """One event in words: narrate's line for it, or a plain rendering of its fields."""
    name = event.get("event", "")
    narrator = NARRATORS.get(name)
    if narrator is not None:
        try:
            return narrator(event).strip()
        except (KeyError, TypeError, ValueError, AttributeError):
            pass  # an event missing an optional field: fall back to its fields
    if name == "turn_started" and "actor" in event:
        return f"{event['actor']}'s turn."
    fields = ", ".join(f"{key} {value}" for key, value in event.items()
                       if key not in ("event", "round", "t") and isinstance(value, str | int | float))
    return f"{name.replace('_', ' ').capitalize()}" + (f": {fields}." if fields else ".")
