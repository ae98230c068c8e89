"""Finding bestiary entries by what a GM types: ``sim bestiary TEXT``, ``sim new`` and ``use:``.

A name matches by substring (``orc`` finds ``orc brute``), in any case, a plural typed for
a singular name included (``wolves`` finds ``wolf``), or by spelling close to the name or to
one of its words (``spidr`` finds ``giant spider``). "Close" is difflib's ratio at
``CUTOFF`` or more: 0.75 takes one letter dropped or swapped in a short name (``gobln``,
0.91) and leaves out names that only share letters (``ogre`` and ``rogue``, 0.67).
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable

CUTOFF = 0.75


def _forms(text: str) -> set[str]:
    """What a GM typed, folded, and the singulars it may be the plural of."""
    text = " ".join(text.casefold().split())
    forms = {text}
    if text.endswith("ves"):
        forms.add(text[:-3] + "f")  # wolves, elves
    if text.endswith("es"):
        forms.add(text[:-2])  # foxes
    if text.endswith("s"):
        forms.add(text[:-1])  # ogres
    return {form for form in forms if form}


def similarity(text: str, name: str) -> tuple[float, float]:
    """How close ``text`` is to ``name``: (best ratio against the name or one of its words,
    ratio against the whole name), the second breaking ties (``gobln``: ``goblin`` before
    ``goblin archer``)."""
    folded = name.casefold()
    whole = best = 0.0
    for form in _forms(text):
        whole = max(whole, difflib.SequenceMatcher(None, form, folded).ratio())
        for word in [folded, *folded.split()]:
            best = max(best, difflib.SequenceMatcher(None, form, word).ratio())
    return best, whole


def contains(text: str, name: str) -> bool:
    """Whether ``name`` holds ``text`` (or its singular), in any case."""
    folded = " ".join(name.casefold().split())
    return any(form in folded for form in _forms(text))


def search(text: str, names: Iterable[str]) -> list[str]:
    """The names ``text`` finds: those holding it, then the close ones, closest first."""
    names = list(names)
    holding = [name for name in names if contains(text, name)]
    close = sorted((name for name in names if name not in holding
                    and similarity(text, name)[0] >= CUTOFF),
                   key=lambda name: similarity(text, name), reverse=True)
    return holding + close


def closest(text: str, names: Iterable[str]) -> str | None:
    """The one name a misspelt ``text`` most likely meant, or None when none is close."""
    scored = [(similarity(text, name), name) for name in names]
    best = max((s for s in scored if s[0][0] >= CUTOFF or contains(text, s[1])), default=None)
    return None if best is None else best[1]


def did_you_mean_entry(text: str, names: Iterable[str]) -> str:
    """``"; did you mean 'X'?"`` for the entry a misspelt name most likely meant, else ``""``."""
    best = closest(text, names)
    return "" if best is None else f"; did you mean '{best}'?"
