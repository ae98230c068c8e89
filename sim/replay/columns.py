"""The narration within a terminal's 80 columns (`sim run`, `sim replay --no-interactive`)."""

from __future__ import annotations

import re
import textwrap

COLUMNS = 80  # a terminal's width: the narration never runs past it


def fitted(text: str, width: int = COLUMNS) -> str:
    """A narration line within ``width`` columns: a longer one goes on under its own indent,
    two spaces further in (a side's long roster, a roll with many dice)."""
    lines = []
    for line in text.split("\n"):
        if len(line) <= width:
            lines.append(line)
            continue
        indent = " " * (len(line) - len(line.lstrip(" ")))
        # A short bracket ("(14 HP)", "(8+1)") is kept whole: its space is held while wrapping.
        held = _SHORT_BRACKET.sub(lambda m: m[0].replace(" ", _HOLD), line)
        wrapped = textwrap.wrap(held, width, subsequent_indent=indent + "    ",
                                break_long_words=False, break_on_hyphens=False)
        lines += [part.replace(_HOLD, " ") for part in wrapped]
    return "\n".join(lines)


_HOLD = "\x00"
_SHORT_BRACKET = re.compile(r"\([^()\n]{1,20}\)")
