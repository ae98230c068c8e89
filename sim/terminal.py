"""Terminal-safe text: names and other user strings are shown as data, never as codes.

A scenario or a log written by someone else must not be able to drive the
terminal: every C0 control (but a newline where one is meant), DEL, every C1
control (U+0080-U+009F, e.g. U+009B, the one-byte CSI), the bidirectional
controls (U+061C, U+200E/F, U+202A-U+202E, U+2066-U+2069), the line and paragraph
separators (U+2028/9: a line break to YAML and to some terminals) and lone surrogates
(undecodable file names) are replaced by their visible escape, ``\\x1b`` or
``\\u202e``. Rich and Textual markup is the other half: user strings go to rich
as ``Text`` or through ``markup()``, so ``[bold]x[/bold]`` prints as typed.

``plural`` is how every count reads, on the terminal and in the narration: ``1 round``,
``5 rounds``.
"""

from __future__ import annotations

import re
from typing import Any

_UNSAFE = "\x00-\x09\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028-\u202e\u2066-\u2069\ud800-\udfff"
_UNSAFE_LINE = re.compile(f"[{_UNSAFE}]")
_UNSAFE_ANY = re.compile(f"[\n{_UNSAFE}]")
# In JSON text these occur only inside strings (JSON escapes C0 itself), in sim show's YAML
# only inside double-quoted scalars: a \\u escape there means the same string.
_UNSAFE_JSON = re.compile("[\x7f-\x9f\u061c\u200e\u200f\u2028-\u202e\u2066-\u2069]")


def _visible(match: re.Match[str]) -> str:
    code = ord(match.group())
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def unsafe(text: str) -> bool:
    """Whether the text holds anything ``safe`` would replace (a newline included)."""
    return _UNSAFE_ANY.search(text) is not None


def safe(text: object, newlines: bool = True) -> str:
    """``str(text)`` with every control, bidi and surrogate character made visible;
    newlines are kept unless ``newlines`` is False (one name, one line)."""
    pattern = _UNSAFE_LINE if newlines else _UNSAFE_ANY
    return pattern.sub(_visible, str(text))


def markup(text: object) -> str:
    """A user string to put inside rich markup: made safe, brackets escaped."""
    from rich.markup import escape  # rich loads only where something is drawn

    return escape(safe(text, newlines=False))


def clean(value: Any, rich: bool = False) -> Any:
    """A copy of a JSON-like value (an event, a summary) whose strings, keys included,
    are ``safe`` on one line (and, with ``rich``, escaped for rich markup): what the
    narration, the tables and the replay draw from. Iterative: a log nested deeper than
    Python's recursion limit is copied all the same."""
    todo: list[tuple[Any, Any]] = []

    def fix(item: Any) -> Any:
        if isinstance(item, str):
            return markup(item) if rich else safe(item, newlines=False)
        if isinstance(item, dict | list):
            copy: Any = type(item)()
            todo.append((item, copy))
            return copy
        return item

    result = fix(value)
    while todo:
        original, copy = todo.pop()
        if isinstance(original, dict):
            for key, item in original.items():
                copy[fix(key)] = fix(item)
        else:
            copy.extend(fix(item) for item in original)
    return result


def quoted_text(text: str) -> str:
    """JSON (or YAML with such strings double-quoted) whose C1, DEL and bidi characters are
    written as ``\\uXXXX`` escapes: the same value, and nothing a terminal acts on."""
    return _UNSAFE_JSON.sub(lambda m: f"\\u{ord(m.group()):04x}", text)


def plural(n: object, word: str) -> str:
    """``1 round``, ``5 rounds``: a count as a GM says it (``n`` as a log gives it)."""
    return f"{n} {word}" if n == 1 else f"{n} {word}s"
