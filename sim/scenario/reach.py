"""What a load may read besides the file it is handed, when a server loads text it was sent.

The CLI reads what its user names: a day's encounter files beside the day, and
``bestiary/`` folders beside the scenario and in every folder above it. A
server loads text a page posted, written into its own temporary folder, and
must read neither a file its user did not put in the served folder nor a
``bestiary/`` folder that anyone can make in the system's temporary folder. So
``sim serve`` loads inside ``confined(Reach(...))``: a day's encounter files
are then read relative to ``home`` and only inside it, whatever the day, a
``--set`` or a ``--vary`` wrote (``encounter_file``), and ``use:`` looks in
``bestiary`` folders only (``searched``).

A context variable, not a parameter: the loaders that reach files sit under
``load_input``, ``load_run_scenario`` and the report's viewer, and every one of
them must be confined, the ones a later change adds included.
"""

from __future__ import annotations

import contextlib
import contextvars
import os
import pathlib
from collections.abc import Iterator

import attrs

OUTSIDE = "is outside the folder sim serve reads (--dir)"


@attrs.frozen
class Reach:
    home: pathlib.Path  # resolved: encounter files are read inside it only
    bestiary: tuple[pathlib.Path, ...]  # the bestiary folders searched, in order


class Outside(Exception):
    """A file a confined load may not read: the message says so and nothing of the file."""


_REACH: contextvars.ContextVar[Reach | None] = contextvars.ContextVar("reach", default=None)


@contextlib.contextmanager
def confined(reach: Reach) -> Iterator[None]:
    token = _REACH.set(reach)
    try:
        yield
    finally:
        _REACH.reset(token)


def current() -> Reach | None:
    return _REACH.get()


def searched() -> tuple[pathlib.Path, ...] | None:
    """The bestiary folders of a confined load (None: the CLI's search)."""
    reach = _REACH.get()
    return None if reach is None else reach.bestiary


def encounter_file(value: str, beside: pathlib.Path) -> pathlib.Path:
    """The file a day's ``encounter: VALUE`` names: beside the day for the CLI; inside
    ``home`` for a confined load, else ``Outside``. A symlink is followed before the check,
    and a path outside is refused without looking whether it exists."""
    if "\0" in value:
        raise Outside("a file name holds no NUL character")
    reach = _REACH.get()
    if reach is None:
        return pathlib.Path(value) if pathlib.Path(value).is_absolute() else beside / value
    # realpath, not resolve(): a symlink loop is a path that is not a file, never an error here.
    real = pathlib.Path(os.path.realpath(reach.home / value))
    if not real.is_relative_to(reach.home):
        raise Outside(OUTSIDE)
    return real
