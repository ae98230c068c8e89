"""Event names, the structlog pipeline that writes them as JSON Lines, and the reader.

The engine appends plain dicts; only here do they become text. Keys keep the
order the engine gave them, with ``event``, ``round`` and ``t`` first, and
JSON is rendered ASCII-only with fixed separators so that the same battle
always gives the same bytes, whatever the locale.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any, TextIO

import structlog

if TYPE_CHECKING:
    from collections.abc import Iterable, Iterator, MutableMapping

SCHEMA = 1

# Every event of ARCHITECTURE.md, with the fields it must carry besides event, round, t.
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
    # Events of our own (ARCHITECTURE.md: more events are welcome).
    "moved": ("actor", "toward", "x_before", "x_after"),
    "turn_skipped": ("actor",),
    "spirit_lost": ("target", "amount", "source", "spirit_before", "spirit_after"),
    "group_check_resolved": ("what", "members", "successes", "failures", "success"),
}


def dumps(obj: Any, **_: Any) -> str:
    """The one JSON rendering of an event: ASCII, compact, keys in given order."""
    return json.dumps(obj, ensure_ascii=True, separators=(",", ":"), allow_nan=False)


_LEADING = ("event", "round", "t")


def _event_first(_logger: Any, _name: str, event_dict: MutableMapping[str, Any]) -> Any:
    """structlog puts ``event`` last; the contract wants it first, then round and t."""
    leading = {key: event_dict.pop(key) for key in _LEADING if key in event_dict}
    return {**leading, **event_dict}


def jsonl_logger(stream: TextIO) -> Any:
    """A structlog logger writing one JSON object per line to ``stream``."""
    return structlog.wrap_logger(
        structlog.PrintLogger(stream),
        processors=[_event_first, structlog.processors.JSONRenderer(serializer=dumps)],
        wrapper_class=structlog.BoundLogger,
        context_class=dict,
        cache_logger_on_first_use=False,
    )


def write_jsonl(events: Iterable[dict], stream: TextIO) -> None:
    """Write events as JSON Lines through the structlog pipeline."""
    logger = jsonl_logger(stream)
    for event in events:
        fields = dict(event)
        name = fields.pop("event")
        logger.msg(name, **fields)


def to_jsonl(events: Iterable[dict]) -> str:
    """The JSON Lines text of a list of events (what ``write_jsonl`` would write)."""
    import io

    buffer = io.StringIO()
    write_jsonl(events, buffer)
    return buffer.getvalue()


def missing_fields(event: dict) -> list[str]:
    """Required fields absent from an event (unknown events need only the common three)."""
    required = ("event", "round", "t", *REQUIRED_FIELDS.get(event.get("event", ""), ()))
    return [name for name in required if name not in event]


def read_jsonl(lines: Iterable[str]) -> Iterator[dict]:
    """Parse JSON Lines back into event dicts, skipping blank lines."""
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            event = json.loads(line)
        except json.JSONDecodeError as exc:
            msg = f"line {number}: not JSON ({exc.msg})"
            raise ValueError(msg) from exc
        if not isinstance(event, dict) or "event" not in event:
            msg = f"line {number}: not an event object"
            raise ValueError(msg)
        yield event
