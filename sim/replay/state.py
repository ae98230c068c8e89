"""The state of a battle after its first k logged events, for stepping through a replay."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from sim.engine.state import ACTIVE, BROKEN, DEAD, FLED, LEFT_BEHIND, UNCONSCIOUS
from sim.replay.narrate import NARRATORS

Event = dict[str, Any]

# Resources a combatant may open the battle with (keys of battle_started's combatants).
STARTING_RESOURCES = ("heroism", "morale", "spirit", "psy")
# Effects that are a status rather than something ongoing: shown as the status.
STATUS_EFFECTS = {BROKEN: BROKEN, UNCONSCIOUS: UNCONSCIOUS}
KNOCKOUTS = frozenset({"knocked_out", "died"})
MOUNTED = "mounted"
_COMMON = frozenset({"event", "round", "t"})


@dataclass
class CombatantView:
    """One combatant as the log has told it so far."""

    name: str
    side: str
    hp: int
    max_hp: int
    status: str = ACTIVE
    effects: list[str] = field(default_factory=list)
    resources: dict[str, int] = field(default_factory=dict)
    prone: bool = False  # thrown from its mount, not yet back on its feet

    def details(self) -> list[str]:
        """What the replay shows under the HP bar: ``[effect]`` tags, then ``resource value``."""
        tags = [f"[{effect}]" for effect in self.effects] + (["[prone]"] if self.prone else [])
        return tags + [f"{name} {value}" for name, value in self.resources.items()]


@dataclass(frozen=True)
class CheckView:
    """What a ``check_rolled`` event shows: who rolled what, against what, and how it went."""

    actor: str
    purpose: str
    system: str
    dice: tuple[int, ...]
    kept: int | None
    modifier: int
    total: int
    target: int
    outcome: str
    success: bool
    margin: int

    @classmethod
    def of(cls, event: Event) -> CheckView:
        """The check of a ``check_rolled`` event."""
        return cls(
            actor=event["actor"], purpose=event["purpose"], system=event["system"],
            dice=tuple(event["dice"]), kept=event.get("kept"), modifier=event["modifier"],
            total=event["total"], target=event["target"], outcome=event["degree"],
            success=event["success"], margin=event["margin"],
        )


def _combatants(events: list[Event]) -> dict[str, CombatantView]:
    """The cast of ``battle_started``, with the resources each one starts with; for a day's
    log, everyone who fights that day, as each first appears."""
    if events[0]["event"] == "battle_started":
        entries = events[0]["combatants"]
    else:
        seen: dict[str, Event] = {}
        for event in events:
            if event["event"] == "battle_started":
                for entry in event["combatants"]:
                    seen.setdefault(entry["name"], entry)
        entries = list(seen.values())
    cast = {}
    for entry in entries:
        resources = {key: entry[key] for key in STARTING_RESOURCES if entry.get(key) is not None}
        resources.update(entry.get("items") or {})  # items carried: name -> how many
        cast[entry["name"]] = CombatantView(entry["name"], entry["side"], entry["hp"],
                                            entry["max_hp"], resources=resources)
    return cast


class BattleView:
    """A cursor over one battle's events and the state of the battle after the current one.

    Moving forward applies the events passed over; moving back replays from the
    start, so any move costs at most O(k) for k events.
    """

    def __init__(self, events: list[Event]) -> None:
        if not events or events[0].get("event") not in ("battle_started", "day_started"):
            msg = ("a replay needs the events of one battle, opening with battle_started"
                   " (or of one day, opening with day_started)")
            raise ValueError(msg)
        self._events = events
        self._reset()

    def _reset(self) -> None:
        self._position = 0
        self._cast = _combatants(self._events)
        self._shared: dict[str, int] = {}

    # -- reading -----------------------------------------------------------------

    @property
    def events(self) -> list[Event]:
        """All the events of the battle, in log order."""
        return self._events

    @property
    def position(self) -> int:
        """Index of the current event, 0 (battle_started) to len - 1."""
        return self._position

    @property
    def current(self) -> Event:
        """The current event."""
        return self._events[self._position]

    @property
    def round(self) -> int:
        """The round of the current event (0 before round 1)."""
        return self.current["round"]

    @property
    def last_round(self) -> int:
        """The last round the log reaches; in a day's log, the last round of the current fight
        (the day's own events are at round 0: "round 3/0" was shown)."""
        if self.header["event"] == "battle_started":
            return self._events[-1]["round"]
        ended = self._find(lambda e: e["event"] == "encounter_ended", start=self._position)
        if ended is None:  # a rest, or the day's end: the fight before, if any
            return self.round
        return max(self.round, self._events[ended]["round"])

    @property
    def header(self) -> Event:
        """The ``battle_started`` event: scenario, seed, rules."""
        return self._events[0]

    @property
    def combatants(self) -> dict[str, CombatantView]:
        """Every combatant by name, in the order of battle_started, after the current event."""
        return self._cast

    @property
    def sides(self) -> dict[str, list[CombatantView]]:
        """The combatants grouped by side, sides in order of first appearance."""
        grouped: dict[str, list[CombatantView]] = {}
        for combatant in self._cast.values():
            grouped.setdefault(combatant.side, []).append(combatant)
        return grouped

    @property
    def shared(self) -> dict[str, int]:
        """Pools the party shares (destiny points), as last told by the log."""
        return self._shared

    def check(self) -> CheckView | None:
        """The dice, modifier, target and outcome of the current event if it is a check."""
        return CheckView.of(self.current) if self.current["event"] == "check_rolled" else None

    def explain(self) -> str:
        """The narration line of the current event, or a plain ``event: field=value`` line."""
        event = self.current
        narrator = NARRATORS.get(event["event"])
        if narrator is not None:
            return "\n".join(line.strip() for line in narrator(event).strip().splitlines())
        fields = ", ".join(f"{k}={v}" for k, v in event.items() if k not in _COMMON)
        return f"{event['event']}: {fields}"

    # -- moving ------------------------------------------------------------------

    def goto(self, k: int) -> int:
        """Move to event ``k`` (clamped to the log) and return the new position."""
        k = max(0, min(k, len(self._events) - 1))
        if k < self._position:
            self._reset()
        while self._position < k:
            self._position += 1
            self._apply(self._events[self._position])
        return self._position

    def step(self, delta: int = 1) -> int:
        """Move ``delta`` events forward (negative: back) and return the new position."""
        return self.goto(self._position + delta)

    def first(self) -> int:
        """Move to the first event."""
        return self.goto(0)

    def last(self) -> int:
        """Move to the last event."""
        return self.goto(len(self._events) - 1)

    def jump_round(self, r: int) -> int:
        """Move to the first event of round ``r`` (or of the next round the log has); stay if none."""
        return self._goto_found(self._find(lambda e: e["round"] >= r, start=0))

    def next_round(self) -> int:
        """Move to the first event of the next round; stay if this is the last."""
        return self.jump_round(self.round + 1)

    def previous_round(self) -> int:
        """Move to the first event of this round, or of the previous one if already there."""
        start = self._find(lambda e: e["round"] >= self.round, start=0)
        if start is not None and start < self._position:
            return self.goto(start)
        return self.jump_round(self.round - 1)

    def next_check(self) -> int:
        """Move to the next ``check_rolled`` after the current event; stay if none."""
        return self._goto_found(self._find(lambda e: e["event"] == "check_rolled"))

    def next_knockout(self) -> int:
        """Move to the next ``knocked_out`` or ``died`` after the current event; stay if none."""
        return self._goto_found(self._find(lambda e: e["event"] in KNOCKOUTS))

    def _find(self, wanted: Callable[[Event], bool], start: int | None = None) -> int | None:
        """Index of the first wanted event from ``start`` (default: after the current one)."""
        begin = self._position + 1 if start is None else start
        return next((i for i in range(begin, len(self._events)) if wanted(self._events[i])), None)

    def _goto_found(self, index: int | None) -> int:
        return self._position if index is None else self.goto(index)

    # -- applying events -----------------------------------------------------------

    def _apply(self, event: Event) -> None:
        handler = _HANDLERS.get(event["event"])
        if handler is not None:
            handler(self, event)

    def _who(self, event: Event, key: str = "target") -> CombatantView | None:
        return self._cast.get(event.get(key, ""))

    def _damage(self, event: Event) -> None:
        if (who := self._who(event)) is not None:
            who.hp = event["hp_after"]

    def _set_status(self, event: Event, status: str) -> None:
        who = self._who(event)
        if who is not None and who.status != DEAD:  # dead stays dead
            who.status = status

    def _battle_ended(self, event: Event) -> None:
        """The fallen of a side that lost while one of it got away stay where they lie (rules §5)."""
        for name in event.get("left_behind") or ():
            self._set_status({"target": name}, LEFT_BEHIND)

    def _effect_started(self, event: Event) -> None:
        who, effect = self._who(event), event["effect"]
        if who is None:
            return
        if effect in STATUS_EFFECTS:
            if who.status == ACTIVE:
                who.status = STATUS_EFFECTS[effect]
        elif effect not in who.effects:
            who.effects.append(effect)

    def _effect_ended(self, event: Event) -> None:
        who, effect = self._who(event), event["effect"]
        if who is None:
            return
        if effect in STATUS_EFFECTS:
            if who.status == STATUS_EFFECTS[effect] and who.hp > 0:
                who.status = ACTIVE
        elif effect in who.effects:
            who.effects.remove(effect)
        if effect == MOUNTED:  # off the saddle is on the ground (sim.engine.effects.throw_off)
            who.prone = True

    def _set_prone(self, event: Event, key: str, prone: bool) -> None:
        if (who := self._who(event, key)) is not None:
            who.prone = prone

    def _resource_spent(self, event: Event) -> None:
        resource, who = event["resource"], self._who(event, "actor")
        if resource == "destiny":  # a party pool, whoever it saves
            self._shared[resource] = event.get("left", self._shared.get(resource, 0) - event["amount"])
        elif who is not None:
            left = event.get("left", who.resources.get(resource, 0) - event["amount"])
            who.resources[resource] = left

    def _next_fight(self, event: Event) -> None:
        """A later fight of a day: its cast enters as the log lists it (effects end with a fight)."""
        for entry in event["combatants"]:
            if (who := self._cast.get(entry["name"])) is None:
                continue
            who.hp, who.max_hp, who.effects, who.prone = entry["hp"], entry["max_hp"], [], False
            who.resources.update({k: entry[k] for k in STARTING_RESOURCES if entry.get(k) is not None})
            who.resources.update(entry.get("items") or {})
            if who.status != DEAD:
                who.status = ACTIVE if entry["hp"] > 0 else UNCONSCIOUS

    def _rested(self, event: Event) -> None:
        """A rest between the fights of a day: what came back."""
        if (who := self._who(event, "actor")) is None or event.get("fresh"):
            return  # (before its first fight: the fight's battle_started tells its state)
        who.hp = event["hp_after"]
        if event.get("max_hp") is not None:
            who.max_hp = event["max_hp"]  # d20: a long rest's hit dice set it anew
        for resource in ("heroism", "psy", "fatigue", "morale"):
            after = event.get(f"{resource}_after")
            # Shown when the member has it: a d20 member has no PSY, a rested one no fatigue to tell.
            if after is not None and (resource in who.resources or after or event.get(f"{resource}_before")):
                who.resources[resource] = after
        if who.status == UNCONSCIOUS and who.hp > 0:
            who.status = ACTIVE

    def _item_used(self, event: Event) -> None:
        """The target's HP (an unconscious one woken up), the actor's items left."""
        if (who := self._who(event)) is not None:
            who.hp = event["hp_after"]
            if event.get("woke") and who.status == UNCONSCIOUS:
                who.status = ACTIVE
        if (actor := self._who(event, "actor")) is not None:
            actor.resources[event["item"]] = event["left"]

    def _set_resource(self, event: Event, key: str, resource: str, value_key: str) -> None:
        if (who := self._who(event, key)) is not None:
            who.resources[resource] = event[value_key]


def _status(status: str) -> Callable[[BattleView, Event], None]:
    """A handler giving the event's target ``status``."""
    return lambda view, event: view._set_status(event, status)


def _resource(key: str, resource: str, value_key: str) -> Callable[[BattleView, Event], None]:
    """A handler setting a resource to the value an event reports."""
    return lambda view, event: view._set_resource(event, key, resource, value_key)


_HANDLERS: dict[str, Callable[[BattleView, Event], None]] = {
    "damage_dealt": BattleView._damage,
    "knocked_out": _status(UNCONSCIOUS),
    "died": _status(DEAD),
    "fled": _status(FLED),
    "battle_ended": BattleView._battle_ended,
    "effect_started": BattleView._effect_started,
    "effect_ended": BattleView._effect_ended,
    "resource_spent": BattleView._resource_spent,
    "item_used": BattleView._item_used,
    "revived": BattleView._item_used,  # a potion poured between a day's fights (rules §7)
    "morale_changed": _resource("actor", "morale", "tokens"),
    "spirit_lost": _resource("target", "spirit", "spirit_after"),
    "fatigue_gained": _resource("actor", "fatigue", "fatigue"),
    "stood_up": lambda view, event: view._set_prone(event, "actor", False),
    "helped_up": lambda view, event: view._set_prone(event, "target", False),
    "battle_started": BattleView._next_fight,
    "rested": BattleView._rested,
}
