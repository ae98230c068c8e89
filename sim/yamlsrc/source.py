"""Where a YAML value was written, and how messages name it.

``Source`` (plain data with the line:col of every node), ``Mark``, the ``Path`` of a
value, and the formatting every message shares: ``format_path``, ``shorten`` and
``display_name`` (a file as the messages name it).
"""

from __future__ import annotations

import os
import pathlib
import re

import attrs

from sim.errors import Problem

Path = tuple[str | int, ...]

_PLAIN_KEY = re.compile(r"[A-Za-z_][A-Za-z0-9_-]*")
_PLAIN_KEY_LIMIT = 40
_ESCAPES = {"\\": "\\\\", "'": "\\'", "\n": "\\n", "\r": "\\r", "\t": "\\t"}


@attrs.frozen
class Mark:
    """A 1-based position in a source file."""

    line: int
    col: int


@attrs.frozen
class Source:
    """A loaded YAML file: its plain data and where each node of it was written."""

    file: str
    data: object
    marks: dict[Path, Mark]
    key_marks: dict[Path, Mark]
    sha256: str = ""  # of the very bytes parsed (so a hash never describes other bytes)

    def mark(self, path: Path) -> Mark:
        """The mark of ``path``, or of its nearest ancestor that has one."""
        for end in range(len(path), -1, -1):
            found = self.marks.get(path[:end])
            if found is not None:
                return found
        return Mark(1, 1)

    def key_mark(self, path: Path) -> Mark:
        """The mark of the key that names ``path``, else the mark of its value."""
        return self.key_marks.get(path) or self.mark(path)

    def rename_key(self, parent: Path, old: object, new: object) -> None:
        """Let problems at ``parent + (new,)`` point where ``parent + (old,)`` was written (a
        key the loader renamed, such as YAML 1.1's ``on:`` read as true)."""
        self.key_marks[(*parent, new)] = self.key_mark((*parent, old))
        self.marks[(*parent, new)] = self.mark((*parent, old))

    def problem(self, path: Path, message: str, at_key: bool = False) -> Problem:
        """A Problem located at ``path`` (at its key when ``at_key``)."""
        where = self.key_mark(path) if at_key else self.mark(path)
        return Problem(self.file, where.line, where.col, format_path(path), message)


def format_path(path: Path) -> str:
    """Render a path the way a reader would write it: ``sides[1].members[2].name``."""
    out: list[str] = []
    for part in path:
        if isinstance(part, str) and len(part) <= _PLAIN_KEY_LIMIT and _PLAIN_KEY.fullmatch(part):
            out.append(f".{part}" if out else part)
        elif isinstance(part, int) and not isinstance(part, bool):
            out.append(f"[{part}]")
        else:
            # Keys with spaces or dots, and non-string keys, stay unambiguous in brackets;
            # a very long key is cut there too, so the message stays one short line.
            out.append(f"[{shorten(part)}]")
    return "".join(out)


def shorten(value: object, limit: int = 40) -> str:
    """A short one-line rendering of ``value`` for messages, as YAML writes it (``null``,
    ``true``, ``{hp: 3}``: a GM's file never says ``None`` or ``True``), cut with '…' past
    ``limit``."""
    if not isinstance(value, str):
        text = _as_yaml(value, limit)
        return text if len(text) <= limit else text[: max(limit - 1, 0)] + "…"
    pieces = [_escape_char(ch) for ch in value]
    if sum(map(len, pieces)) + 2 <= limit:
        return "'" + "".join(pieces) + "'"
    # Cut between whole escapes, and keep the closing quote so it still reads as a string.
    budget, kept = limit - 3, []
    for piece in pieces:
        if len(piece) > budget:
            break
        kept.append(piece)
        budget -= len(piece)
    return "'" + "".join(kept) + "…'"


def _as_yaml(value: object, limit: int, depth: int = 0) -> str:
    """``value`` in YAML's flow style, enough of it for a message of ``limit`` characters."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float) and value != value:
        return ".nan"
    if isinstance(value, float) and value in (float("inf"), float("-inf")):
        return ".inf" if value > 0 else "-.inf"
    if isinstance(value, str):
        return shorten(value, limit)
    if isinstance(value, dict | list | tuple):
        if depth >= 3:
            return "…"
        pairs = value.items() if isinstance(value, dict) else enumerate(value)
        parts, size = [], 0
        for key, item in pairs:
            part = _as_yaml(item, limit, depth + 1)
            if isinstance(value, dict):
                part = f"{_as_yaml(key, limit, depth + 1)}: {part}"
            parts.append(part)
            size += len(part) + 2
            if size > limit:
                break
        inner = ", ".join(parts)
        return f"{{{inner}}}" if isinstance(value, dict) else f"[{inner}]"
    return str(value)


def _escape_char(ch: str) -> str:
    if ch in _ESCAPES:
        return _ESCAPES[ch]
    return ch if ch.isprintable() else repr(ch)[1:-1]


def display_name(path: pathlib.Path) -> str:
    """The file name for messages: relative to here when it is below here, else as given."""
    try:
        relative = os.path.relpath(path)
    except ValueError:  # another drive on Windows
        return str(path)
    return str(path) if relative.startswith("..") else relative


def whole_file(display: str, message: str) -> Problem:
    """A problem of the file as a whole (no line, no column)."""
    return Problem(display, 0, 0, "", message)
