"""The compiled and the pure-Python paths of one source: which modules are compiled, and
which path this process runs (docs/contributing/architecture.md, "Compiled and pure paths").

``MODULES`` is the one list of compiled modules: ``setup.py`` reads it from this file (without
importing sim) to compile them with Cython where a C compiler is, and the import hook below
reads it to choose, once a process, between the compiled modules and their ``.py`` sources.
The two paths play the same battles: a compiled module is its ``.py`` file compiled, typed
only by an augmenting ``.pxd`` file beside it.

The hook loads every listed module from its ``.py`` file when ``SIM_PURE_PYTHON=1`` is set,
when nothing is compiled, or when any compiled module is missing or stale: its ``.py`` or
``.pxd`` is no longer what was compiled (edited, or changed by a checkout, since the build,
which stamps each source's SHA-256 in ``STAMP``; file times cannot tell, a wheel's install
writes its files in any order). Compiled modules that declare each other's types cannot mix
with pure ones, and stale ones would run old rules. The last two cases are said once on stderr.

This module imports nothing from sim: ``sim/__init__.py`` installs its hook before any other
submodule is imported, and setup.py loads this file alone (never the package) for ``MODULES``,
``source_of`` and ``sources``.
"""

from __future__ import annotations

import hashlib
import importlib.machinery
import json
import os
import pathlib
import sys
from collections.abc import Mapping, MutableMapping, Sequence
from importlib.machinery import ModuleSpec
from types import ModuleType
from typing import NamedTuple

# The hot modules of a battle (issue 41's profile).
MODULES: tuple[str, ...] = (
    "sim.dice.terms",
    "sim.dice.notation",
    "sim.dice.samplers",
    "sim.rules",
    "sim.rules.actors",
    "sim.rules.d20",
    "sim.engine.table",
    "sim.engine.state",
    "sim.engine.outcome",
    "sim.engine.effects",
    "sim.engine.morale",
    "sim.engine.tactics",
    "sim.engine.status",
    "sim.engine.combat",
    "sim.engine.turn",
    "sim.engine.clock",
    "sim.engine.battle",
)

FORCE_PURE = "SIM_PURE_PYTHON"
# Written by the build beside this file: ``sources()`` as it compiled them.
STAMP = "compiled_from.json"
RECOMPILE = "pip install -e ."
# Set once the stale warning is printed, so the processes this one starts (a pool's workers,
# `sim` run by a test) do not print it again.
_TOLD = "SIM_STALE_TOLD"
_ROOT = pathlib.Path(__file__).resolve().parent


class Choice(NamedTuple):
    """The path a process runs: pure or not, its name for ``sim --version``, a warning or None."""

    pure: bool
    name: str
    warning: str | None = None


def source_of(module: str, root: pathlib.Path = _ROOT) -> pathlib.Path:
    """The ``.py`` file of a listed module (``sim.rules`` is ``sim/rules/__init__.py``)."""
    path = root.joinpath(*module.split(".")[1:])
    return path / "__init__.py" if path.is_dir() else path.with_suffix(".py")


def compiled_of(module: str, root: pathlib.Path = _ROOT) -> pathlib.Path | None:
    """The extension module built from a listed module's source, if there is one beside it."""
    source = source_of(module, root)
    for suffix in importlib.machinery.EXTENSION_SUFFIXES:
        built = source.with_suffix(suffix)
        if built.is_file():
            return built
    return None


def sources(modules: Sequence[str] = MODULES, root: pathlib.Path = _ROOT) -> dict[str, str]:
    """What the listed modules are compiled from: each ``.py`` and ``.pxd`` file, named as in
    the checkout (``sim/engine/turn.py``), with its SHA-256."""
    found: dict[str, str] = {}
    for module in modules:
        source = source_of(module, root)
        for path in (source, source.with_suffix(".pxd")):
            if path.is_file():
                name = path.relative_to(root.parent).as_posix()
                found[name] = hashlib.sha256(path.read_bytes()).hexdigest()
    return found


def _stamped(root: pathlib.Path) -> dict[str, str]:
    """The digests the build stamped (none if the stamp is missing or unreadable)."""
    try:
        stamp = json.loads((root / STAMP).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return stamp if isinstance(stamp, dict) else {}


def _told(files: list[str], what: str) -> str:
    """The one warning line: the first file, how many more, and the command that recompiles."""
    more = f" and {len(files) - 1} more" if len(files) > 1 else ""
    return f"combat-sim: {files[0]}{more} {what}: running pure Python; recompile with `{RECOMPILE}`"


def choose(environ: Mapping[str, str] = os.environ, modules: Sequence[str] = MODULES,
           root: pathlib.Path = _ROOT) -> Choice:
    """The path for this process: forced, nothing compiled, part missing, stale, or compiled."""
    if environ.get(FORCE_PURE, "") not in ("", "0"):
        return Choice(True, f"pure Python: {FORCE_PURE}=1")
    built = {module: compiled_of(module, root) for module in modules}
    missing = [source_of(module, root).relative_to(root.parent).as_posix()
               for module, path in built.items() if path is None]
    if len(missing) == len(modules):
        return Choice(True, "pure Python: not compiled")
    if missing:
        return Choice(True, f"pure Python: {len(missing)} of {len(modules)} modules not compiled",
                      _told(missing, "not compiled"))
    stamped, now = _stamped(root), sources(modules, root)
    changed = [name for name in {**now, **stamped} if now.get(name) != stamped.get(name)]
    if changed:
        files = "1 file" if len(changed) == 1 else f"{len(changed)} files"
        return Choice(True, f"pure Python: {files} changed since compiled",
                      _told(changed, "changed since compiled"))
    return Choice(False, f"compiled: {len(modules)} modules")


class PurePathFinder:
    """A meta-path finder that hands a listed module its ``.py`` file when the pure path is
    chosen; otherwise (and for every other module) the usual finders decide. It chooses on
    its first listed import (or ``path()``), so the environment is read then, once a process."""

    def __init__(self, modules: Sequence[str] = MODULES, root: pathlib.Path = _ROOT,
                 environ: MutableMapping[str, str] = os.environ) -> None:
        self._modules = tuple(modules)
        self._root = root
        self._environ = environ
        self._choice: Choice | None = None

    def choice(self) -> Choice:
        if self._choice is None:
            self._choice = choose(self._environ, self._modules, self._root)
            if self._choice.warning and not self._environ.get(_TOLD):
                print(self._choice.warning, file=sys.stderr)
                self._environ[_TOLD] = "1"
        return self._choice

    def find_spec(self, fullname: str, path: Sequence[str] | None,
                  target: ModuleType | None = None) -> ModuleSpec | None:
        if fullname not in self._modules or not self.choice().pure:
            return None
        for entry in path or ():
            # A FileFinder that knows only source files: a compiled module beside is not seen.
            finder = importlib.machinery.FileFinder(
                entry, (importlib.machinery.SourceFileLoader, importlib.machinery.SOURCE_SUFFIXES))
            spec = finder.find_spec(fullname)
            if spec is not None:
                return spec
        return None


FINDER = PurePathFinder()


def install() -> None:
    """Put the finder first on ``sys.meta_path`` (once), before any listed module is imported."""
    if FINDER not in sys.meta_path:
        sys.meta_path.insert(0, FINDER)


def path() -> str:
    """The path this process runs, as ``sim --version`` names it: ``compiled: 17 modules``,
    ``pure Python: SIM_PURE_PYTHON=1``, ``pure Python: not compiled``..."""
    return FINDER.choice().name


def loaded_compiled() -> list[str]:
    """The listed modules this process has loaded from a compiled file."""
    return [name for name in MODULES if (module := sys.modules.get(name)) is not None
            and isinstance(getattr(module, "__loader__", None), importlib.machinery.ExtensionFileLoader)]
