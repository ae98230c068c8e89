"""Event names, the structlog pipeline that writes them as JSON Lines, and the reader.

The engine appends plain dicts; only here do they become text. Keys keep the
order the engine gave them, with ``event``, ``round`` and ``t`` first, and
JSON is rendered compact in UTF-8 (never through the locale) so that the same
battle always gives the same bytes.
"""

from __future__ import annotations

import functools
import json
from typing import TYPE_CHECKING, Any, BinaryIO

import orjson

from sim.io.jsonin import JSONLimitError, parse_json

if TYPE_CHECKING:
    from collections.abc import Callable, Iterable, Iterator, MutableMapping

SCHEMA = 1

# Every event of the log contract (docs/reference/log.md), with the fields it must carry
# besides event, round, t.
REQUIRED_FIELDS: dict[str, tuple[str, ...]] = {
    "battle_started": ("schema", "seed", "rules", "scenario", "scenario_sha256", "version",
                       "combatants"),
    "round_started": (),
    "initiative_rolled": ("side", "die", "roll", "first"),
    "turn_started": ("actor",),
    "check_rolled": ("actor", "purpose", "system", "dice", "modifier", "total", "target",
                     "success", "degree", "margin"),
    "attack_resolved": ("actor", "target", "weapon", "hit"),
    "damage_dealt": ("target", "amount", "source", "kind", "armor_piercing", "hp_before",
                     "hp_after"),
    "effect_started": ("target", "effect"),
    "effect_ended": ("target", "effect"),
    "knocked_out": ("target",),
    "died": ("target", "cause"),
    "fled": ("target",),
    "resource_spent": ("actor", "resource", "amount"),
    "morale_changed": ("actor", "delta", "reason", "tokens"),
    "battle_ended": ("winner", "rounds", "survivors", "dead", "knocked_out"),
    # Events of our own (docs/reference/log.md: more events are welcome).
    "moved": ("actor", "toward", "x_before", "x_after"),
    "turn_skipped": ("actor",),
    "spirit_lost": ("target", "amount", "source", "spirit_before", "spirit_after"),
    "group_check_resolved": ("what", "members", "successes", "failures", "success"),
    "scripted": ("do", "targets"),
    "effect_ticked": ("target", "effect", "tick"),
    "learning_ticked": ("actor", "skill"),
    "characteristic_lost": ("target", "characteristic", "amount", "cause"),
    "fatigue_gained": ("actor", "amount", "fatigue", "reason"),
    "stood_up": ("actor",),
    "helped_up": ("actor", "target"),
    "rescued": ("actor", "target"),
    "item_used": ("actor", "item", "target", "healed", "hp_before", "hp_after", "left"),
    # A day's log (sim.day.play): its fights' events between these.
    "day_started": ("schema", "seed", "rules", "day", "version", "day_sha256", "party", "steps"),
    "encounter_started": ("step", "name"),
    "encounter_ended": ("step", "winner", "rounds"),
    "rested": ("step", "actor", "kind", "hours", "hp_before", "hp_after", "max_hp",
               "unhealable_before", "unhealable_after", "psy_before", "psy_after", "max_psy",
               "fatigue_before", "fatigue_after", "heroism_before", "heroism_after", "max_heroism",
               "morale_before", "morale_after"),
    "day_ended": ("winner", "completed", "survived", "rounds", "dead", "survivors"),
}


def _serialize(event_dict: Any, **_: Any) -> bytes:
    """orjson: compact, keys in the order given, UTF-8, several times faster than json.

    The line comes out with its newline: one JSON Lines record, ready to write.
    """
    return orjson.dumps(event_dict, option=orjson.OPT_APPEND_NEWLINE)


_LEADING = ("event", "round", "t")


def _event_first(_logger: Any, _name: str, event_dict: MutableMapping[str, Any]) -> Any:
    """structlog puts ``event`` last; the contract wants it first, then round and t.

    Engine events already come in that order (every emit starts with event,
    round, t) and pass through untouched and unmutated.
    """
    if next(iter(event_dict), None) == "event":  # built by the engine: already in order
        return event_dict
    leading = {key: event_dict[key] for key in _LEADING if key in event_dict}
    return {**leading, **{k: v for k, v in event_dict.items() if k not in leading}}


@functools.cache
def processors() -> tuple[Any, ...]:
    """The one pipeline every event goes through on its way to a JSON line.

    structlog is imported here, not with the module: it brings rich and asyncio, about
    50 ms of every command's start, and only commands that write a log need it.
    """
    import structlog

    return (_event_first, structlog.processors.JSONRenderer(serializer=_serialize))


def render(event: dict) -> bytes:
    """One event as one JSON line (newline included), through the structlog processors."""
    rendered: Any = event
    for processor in processors():
        rendered = processor(None, "msg", rendered)
    return rendered


class _BytesSink:
    """A structlog logger writing each rendered line to a binary stream."""

    def __init__(self, stream: BinaryIO) -> None:
        self._stream = stream

    def msg(self, message: bytes) -> None:
        self._stream.write(message)


def jsonl_logger(stream: BinaryIO) -> Any:
    """A structlog logger writing one JSON object per line to a binary ``stream``."""
    import structlog

    return structlog.wrap_logger(
        _BytesSink(stream),
        processors=list(processors()),
        wrapper_class=structlog.BoundLogger,
        context_class=dict,
        cache_logger_on_first_use=False,
    )


def write_jsonl(events: Iterable[dict], stream: BinaryIO) -> None:
    """Write events as UTF-8 JSON Lines to a binary stream, through a structlog logger."""
    logger = jsonl_logger(stream)
    for event in events:
        fields = dict(event)
        name = fields.pop("event")
        logger.msg(name, **fields)


def to_jsonl_bytes(events: Iterable[dict]) -> bytes:
    """The JSON Lines of a list of events: the bytes ``write_jsonl`` writes.

    The processors are applied here without structlog's bound logger around
    them, which would cost more than the rendering itself (batches log a lot).
    """
    order, renderer = processors()
    return b"".join([renderer(None, "msg", order(None, "msg", event)) for event in events])


def to_jsonl(events: Iterable[dict]) -> str:
    """The JSON Lines of a list of events, as text."""
    return to_jsonl_bytes(events).decode("utf-8")


def missing_fields(event: dict) -> list[str]:
    """Required fields absent from an event (unknown events need only the common three)."""
    required = ("event", "round", "t", *REQUIRED_FIELDS.get(event.get("event", ""), ()))
    return [name for name in required if name not in event]


class StreamedLog(list):
    """An event log that holds its last event only: each earlier one is handed to ``write``
    (a file's writer) as the next comes, so a long battle or day is never held whole (a
    logged day of fifty large fights held 5.6 GB). The last is kept because the engine may
    still add a field to it (``log[-1]["cost"] = True``); ``close`` writes it."""

    def __init__(self, write: Callable[[dict], None]) -> None:
        super().__init__()
        self.write = write
        self.written = 0

    def append(self, event: dict) -> None:
        self._flush()
        super().append(event)

    def extend(self, events: Iterable[dict]) -> None:
        for event in events:
            self.append(event)

    def close(self) -> None:
        self._flush()

    def _flush(self) -> None:
        if self:
            self.write(self.pop())
            self.written += 1


class CappedLog(list):
    """An event log that keeps its first ``cap`` events, counts them all (``seen``), and keeps
    the last (``last``: how it ended) and every event named in ``outline`` (``outlined``: a
    day's steps, say): what a page may embed of a battle or a day, however long it ran."""

    def __init__(self, cap: int, outline: frozenset[str] = frozenset()) -> None:
        super().__init__()
        self.cap = cap
        self.outline = outline
        self.seen = 0
        self.last: dict | None = None
        self.outlined: list[dict] = []

    def append(self, event: dict) -> None:
        self.seen += 1
        self.last = event
        if event["event"] in self.outline:
            self.outlined.append(event)
        if len(self) < self.cap:
            super().append(event)

    def extend(self, events: Iterable[dict]) -> None:
        for event in events:
            self.append(event)


def read_jsonl(lines: Iterable[str]) -> Iterator[dict]:
    """Parse JSON Lines back into event dicts, skipping blank lines."""
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            event = parse_json(line)
        except json.JSONDecodeError as exc:
            msg = f"{number}:{exc.colno}: (line): not JSON ({exc.msg})"
            raise ValueError(msg) from exc
        except JSONLimitError as exc:  # a 5,000-digit number; nesting too deep
            msg = f"{number}:1: (line): not an event ({exc.reason})"
            raise ValueError(msg) from None
        if not isinstance(event, dict) or not isinstance(event.get("event"), str):
            msg = f"{number}:1: (line): not an event object"
            raise ValueError(msg)
        yield event
