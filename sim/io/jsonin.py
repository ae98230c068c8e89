"""JSON written outside this process (event logs, a run folder's manifest and summary),
parsed as hostile input.

Well-formed JSON can still break ``json.loads`` in two ways that are no syntax error:
a number of more than 4,300 digits (``int()`` refuses it with a bare ``ValueError``)
and nesting deeper than the recursion limit (``RecursionError``). ``parse_json`` turns
both into ``JSONLimitError``, whose reason the callers put in their one-line message.
"""

from __future__ import annotations

import json
from typing import Any


class JSONLimitError(ValueError):
    """Well-formed JSON this program will not parse; ``reason`` says why, in a few words."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


def parse_json(text: str, constants: bool = True) -> Any:
    """``json.loads(text)``; a syntax error stays a ``json.JSONDecodeError``, a number too
    long or nesting too deep becomes a ``JSONLimitError``, and so do ``NaN`` and
    ``Infinity`` (which Python reads but JSON has not) unless ``constants``."""
    try:
        return json.loads(text) if constants else json.loads(text, parse_constant=_no_constant)
    except (json.JSONDecodeError, JSONLimitError):
        raise
    except RecursionError:
        raise JSONLimitError("nested too deeply") from None
    except ValueError:  # int() of a 5,000-digit number
        raise JSONLimitError("a number too long") from None


def _no_constant(name: str) -> Any:
    raise JSONLimitError(f"{name} is no JSON number")
