"""The server's own folder: a posted scenario becomes a file the loaders read, as the CLI's.

Every request that plays or checks a scenario gets a numbered folder under a
temporary root the server made (and removes when it stops); the scenario text
is written there as ``encounter.yaml`` and loaded with ``load_input``, so a
page's scenario is validated exactly as ``sim validate`` would. A day's
encounter files are read from the server's home folder (the one it was
started in, or ``--dir``) and nowhere else.
"""

from __future__ import annotations

import itertools
import json
import pathlib
import shutil
import tempfile
import threading
from collections.abc import Sequence
from typing import Any

import attrs
import yaml

from sim.day.file import Day, load_input
from sim.errors import InputError, Problem, ScenarioError
from sim.model import Scenario

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

    def folder(self) -> pathlib.Path:
        """A new, empty folder of the workspace."""
        with self._lock:
            number = next(self._numbers)
        path = self.root / f"{number:06d}"
        path.mkdir()
        return path

    def remove(self) -> None:
        shutil.rmtree(self.root, ignore_errors=True)

    def load(self, text: str, folder: pathlib.Path, overrides: Sequence[str] = ()) -> Scenario | Day:
        """The scenario (or day) a page posted, as ``load_input`` reads it: ScenarioError lists
        its problems, each named in the posted text (``encounter.yaml:LINE:COL``)."""
        path = folder / POSTED
        path.write_text(text, encoding="utf-8")
        try:
            subject = load_input(path, self.bestiary, [*self._day_files(text), *overrides])
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

    def _day_files(self, text: str) -> list[str]:
        """``--set`` overrides that point a day's encounter files into the home folder (a
        relative path would otherwise be read beside the posted text, in the workspace)."""
        try:
            data = yaml.safe_load(text)
        except yaml.YAMLError:
            return []  # the loader reads it again and says where
        steps = data.get("steps") if isinstance(data, dict) else None
        if not isinstance(steps, list):
            return []
        found = []
        for i, step in enumerate(steps):
            file = step.get("encounter") if isinstance(step, dict) else None
            if isinstance(file, str):
                found.append(f"steps[{i}].encounter={json.dumps(str(self._home_file(file)))}")
        return found

    def _home_file(self, name: str) -> pathlib.Path:
        path = (self.home / name).resolve()
        if not path.is_relative_to(self.home):
            msg = (f"{POSTED}:0:0: steps: encounter {json.dumps(name)}: sim serve reads encounter"
                   f" files only inside {self.home} (start it in another folder, or with --dir)")
            raise InputError(msg)
        return path


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
