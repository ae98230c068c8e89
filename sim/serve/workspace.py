"""The server's own folder: a posted scenario becomes a file the loaders read, as the CLI's.

Every request that plays or checks a scenario gets a numbered folder under a
temporary root the server made (and removes when it stops); the scenario text
is written there as ``encounter.yaml`` and loaded with ``load_input``, so a
page's scenario is validated exactly as ``sim validate`` would. A request's
folder goes when it is answered (a job started with ``/api/jobs`` keeps it
while the job is kept, for its report). Loads are confined
(``sim.scenario.reach``): a day's encounter files are read relative to the
home folder (``--dir``) and only inside it, after every ``--set``, ``--vary``
and ``use:``; ``use:`` looks only in the ``--bestiary`` folders, the home
folder's own ``bestiary/`` and the shipped bestiary, never in a ``bestiary/``
above the temporary root, which any local user may make.
"""

from __future__ import annotations

import contextlib
import itertools
import pathlib
import shutil
import tempfile
import threading
from collections.abc import Iterator, Sequence
from typing import Any

import attrs

from sim.day.file import Day, load_input
from sim.errors import InputError, Problem, ScenarioError
from sim.model import Scenario
from sim.scenario.bestiary import BESTIARY_DIR, shipped_bestiary
from sim.scenario.reach import Reach, confined
from sim.yamlsrc import load_yaml_text

POSTED = "encounter.yaml"  # the name a page's scenario has in messages


@attrs.define
class Workspace:
    root: pathlib.Path
    home: pathlib.Path  # where a day's encounter files are read from
    bestiary: tuple[pathlib.Path, ...] = ()
    _numbers: itertools.count = attrs.field(factory=lambda: itertools.count(1))
    _lock: threading.Lock = attrs.field(factory=threading.Lock)

    @classmethod
    def create(cls, home: pathlib.Path, bestiary: Sequence[pathlib.Path]) -> Workspace:
        root = pathlib.Path(tempfile.mkdtemp(prefix="sim-serve-"))
        return cls(root, home.resolve(), tuple(bestiary))

    @property
    def reach(self) -> Reach:
        """What a load of the server may read: encounter files in the home folder, and these
        bestiary folders (``/api/bestiary`` lists the ones that exist)."""
        shipped = shipped_bestiary()
        return Reach(self.home, (*self.bestiary, self.home / BESTIARY_DIR, *filter(None, [shipped])))

    def confined(self) -> contextlib.AbstractContextManager[None]:
        return confined(self.reach)

    def folder(self) -> pathlib.Path:
        """A new, empty folder of the workspace."""
        with self._lock:
            number = next(self._numbers)
        path = self.root / f"{number:06d}"
        path.mkdir()
        return path

    @contextlib.contextmanager
    def scratch(self) -> Iterator[pathlib.Path]:
        """A folder for one request, removed when it is answered."""
        path = self.folder()
        try:
            yield path
        finally:
            discard(path)

    def remove(self) -> None:
        shutil.rmtree(self.root, ignore_errors=True)

    def load(self, text: str, folder: pathlib.Path, overrides: Sequence[str] = ()) -> Scenario | Day:
        """The scenario (or day) a page posted, as ``load_input`` reads it: ScenarioError lists
        its problems, each named in the posted text (``encounter.yaml:LINE:COL``)."""
        path = folder / POSTED
        try:
            raw = text.encode("utf-8")
        except UnicodeEncodeError:  # a lone surrogate: the loader says where, and writes nothing
            load_yaml_text(text, POSTED)
            raise
        path.write_bytes(raw)
        try:
            with self.confined():
                subject = load_input(path, self.bestiary, overrides)
        except ScenarioError as exc:
            raise ScenarioError([self.named(p, path) for p in exc.problems],
                                [self.named(w, path) for w in exc.warnings]) from None
        return attrs.evolve(subject, warnings=tuple(self.named(w, path) for w in subject.warnings))

    @staticmethod
    def named(problem: Problem, path: pathlib.Path) -> Problem:
        """The posted file is the page's text: it is named as the page names it."""
        if pathlib.Path(problem.file).name == POSTED and POSTED in problem.file:
            return attrs.evolve(problem, file=POSTED)
        return problem


def discard(folder: pathlib.Path) -> None:
    shutil.rmtree(folder, ignore_errors=True)


def problem_data(problem: Problem) -> dict[str, Any]:
    """A problem as the API answers it."""
    return {"file": problem.file, "line": problem.line, "col": problem.col,
            "path": problem.path, "message": problem.message, "text": str(problem)}


def input_warnings(exc: InputError) -> list[dict[str, Any]]:
    """The warnings a refused scenario had besides its problems (one reading fixes all)."""
    return [problem_data(w) for w in exc.warnings] if isinstance(exc, ScenarioError) else []


def input_problems(exc: InputError) -> list[dict[str, Any]]:
    """An InputError's problems for the API: a ScenarioError's each, else its one line."""
    if isinstance(exc, ScenarioError):
        return [problem_data(p) for p in exc.problems]
    return [{"file": "", "line": 0, "col": 0, "path": "", "message": str(exc), "text": str(exc)}]
