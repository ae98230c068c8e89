"""The exception tree of combat-sim, and the shape of a reported input problem.

::

    SimError                    base of everything this package raises on purpose
     +-- InputError             bad input from a user: the CLI exits 2, no traceback
          +-- DiceError         dice notation that does not parse or is over the limits
          +-- ScenarioError     one or more Problems found in scenario / bestiary files
          +-- RunAborted        a batch cannot go on (a worker, the scheduler or the disk
                                failed); what it stored is kept and --resume continues

Anything else that escapes is a bug: the CLI prints it with its traceback and exits 1.

Errors are translated at the boundary: code that catches a library's exception
raises one of these ``from`` it, so the CLI only has to know this tree.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

import attrs

from sim.terminal import safe


@attrs.frozen
class Problem:
    """One problem in an input file, printed as ``file:line:col: path: message``.

    ``line`` and ``col`` are 1-based; 0 means "unknown" (the whole file). A ``warning`` is
    valid data the fight leaves idle: the run goes ahead (``--strict`` refuses it).
    """

    file: str
    line: int
    col: int
    path: str
    message: str
    warning: bool = False

    def where(self) -> tuple[str, int, int, str]:
        """Where it was written: one key is reported once, whatever each use said of it."""
        return self.file, self.line, self.col, self.path

    def __str__(self) -> str:
        where = self.path or "(document)"
        # File names, keys and quoted values come from the user: printed, they are data.
        return safe(f"{self.file}:{self.line}:{self.col}: {where}: {self.message}", newlines=False)


# What told a GM to delete a key: a warning's key is valid data, idle here (the cause may be
# elsewhere, such as a side not marked the party), so it says why and leaves the choice.
_REMOVE = re.compile(r"[;,] (or )?remove it(?=$)|(?<=; )remove it, or |,? or remove it(?=$)")
IDLE = "does nothing here: "


def idle_message(message: str) -> str:
    """A warning's message, ``does nothing here: why``, from a finding's own words."""
    text = _REMOVE.sub("", message).rstrip("; ")
    system = re.match(r"does nothing in (\w+): ", text)
    if system:
        return f"{IDLE}{system[1]} does not read it: {text[system.end():]}"
    for prefix in ("does nothing here: ", "does nothing: ", "does nothing "):
        if text.startswith(prefix):
            return IDLE + text[len(prefix):]
    return IDLE + text


def errors_of(problems: Iterable[Problem]) -> list[Problem]:
    """The problems that refuse the input (not warnings)."""
    return [p for p in problems if not p.warning]


def warnings_of(problems: Iterable[Problem]) -> list[Problem]:
    """The warnings among ``problems``, each key once (the first said of it), in file order."""
    seen: dict[tuple[str, int, int, str], Problem] = {}
    for p in problems:
        if p.warning:
            seen.setdefault(p.where(), p)
    return sorted(seen.values(), key=lambda p: (p.file, p.line, p.col))


def strict(problem: Problem) -> Problem:
    """A warning refused by --strict: the same line, now an error."""
    return attrs.evolve(problem, warning=False)


OPTION_SHOWN = 80  # characters of an option's value shown where a file name stands


def option_problem(value: object, option: str, message: str) -> str:
    """A command-line option's problem in the shape of every input problem, the value given
    where a file's name stands (what the user wrote, as a file is), line and column 0:
    ``tcp://127.0.0.1:1:0:0: --scheduler: cannot reach it (Connection refused)``. A value
    longer than OPTION_SHOWN is cut: a megabyte of address is not printed whole. (Escaped
    when printed, as every problem is: sim.cli.common.warn_problem.)"""
    return f"{option_value(value)}:0:0: {option}: {message}"


def option_value(value: object) -> str:
    """An option's value where a problem names its file, cut past OPTION_SHOWN characters."""
    text = str(value)
    return text if len(text) <= OPTION_SHOWN else text[: OPTION_SHOWN - 1] + "…"


class SimError(Exception):
    """Base class of every error raised on purpose by combat-sim."""


class InputError(SimError):
    """Bad input from the user (usage, YAML, validation): the CLI exits with 2."""


class DiceError(InputError, ValueError):
    """Dice notation that cannot be parsed, or that is over the safety limits."""


class ScenarioError(InputError):
    """One or more problems in scenario or bestiary files, all reported at once."""

    def __init__(self, problems: list[Problem], warnings: Iterable[Problem] = ()) -> None:
        self.problems = list(problems)
        self.warnings = list(warnings)  # found beside them, told only when nothing refuses
        super().__init__("\n".join(str(p) for p in self.problems))


class RunAborted(InputError):
    """The run cannot go on (a worker or the scheduler is gone); what is done is kept."""

    @classmethod
    def cannot_write(cls, path: object, exc: OSError) -> RunAborted:
        """A file of the run folder that cannot be written (a full disk, a read-only folder)."""
        return cls(f"{path}:0:0: (document): cannot write ({exc.strerror or exc})")
