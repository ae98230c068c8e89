"""The compiled and pure paths (sim/compiled.py): one list of modules for the build and the
runtime, SIM_PURE_PYTHON, a stale or missing compiled module never run, and the path named.

With SIM_EXPECT_COMPILED=1 (set by .ci/run) a build that fell back to the pure path fails here."""

from __future__ import annotations

import importlib
import importlib.machinery
import importlib.util
import json
import os
import pathlib
import shutil
import subprocess
import sys
from types import ModuleType

import pytest

from sim import compiled
from sim.compiled import FORCE_PURE, MODULES, STAMP, PurePathFinder, choose, sources

REPO = pathlib.Path(__file__).resolve().parent.parent
SUFFIX = importlib.machinery.EXTENSION_SUFFIXES[0]


def _setup() -> ModuleType:
    """setup.py, imported: it builds nothing."""
    spec = importlib.util.spec_from_file_location("combat_sim_setup", REPO / "setup.py")
    assert spec is not None and spec.loader is not None
    setup = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(setup)
    return setup


def test_the_build_compiles_the_listed_modules() -> None:
    """setup.py declares one extension a listed module, named for where its compiled file
    lands, from a .py file that exists."""
    setup = _setup()
    declared = {ext.name: ext.sources for ext in setup.extensions()}
    assert declared == {f"{m}.__init__" if m == "sim.rules" else m:
                        [compiled.source_of(m).relative_to(REPO).as_posix()] for m in MODULES}
    assert all(compiled.source_of(module).is_file() for module in MODULES)


def test_any_changed_source_remakes_every_c_file(tmp_path: pathlib.Path) -> None:
    """Cython remakes a C file when its own sources changed, not when a .pxd it cimports as
    ``from sim.rules cimport actors`` did (a stale d20 then failed to import: "Arm size
    changed"): the build remakes them all once the digests of any source differ."""
    setup = _setup()
    digests = sources(MODULES, REPO / "sim")
    assert setup.c_files_stale(digests, tmp_path)  # nothing made yet
    (tmp_path / setup.C_STAMP).write_text(json.dumps(digests), encoding="utf-8")
    assert not setup.c_files_stale(digests, tmp_path)
    changed = {**digests, "sim/rules/actors.pxd": "0" * 64}
    assert setup.c_files_stale(changed, tmp_path)
    (tmp_path / setup.C_STAMP).write_text("{", encoding="utf-8")  # a torn write
    assert setup.c_files_stale(digests, tmp_path)


def test_every_pxd_types_a_listed_module() -> None:
    """A .pxd beside a module that is not compiled would be ignored, and a compiled module that
    cimports its types would not load: each one types a module of MODULES."""
    root = REPO / "sim"
    typed = {".".join(("sim", *p.relative_to(root).with_suffix("").parts)).removesuffix(".__init__")
             for p in root.rglob("*.pxd")}
    assert typed - set(MODULES) == set()


def test_the_path_named_is_the_path_loaded() -> None:
    """path() says compiled exactly when every listed module is loaded from its compiled file;
    with SIM_EXPECT_COMPILED=1 it must be (a build that fell back to pure Python fails CI)."""
    for module in MODULES:
        importlib.import_module(module)
    if compiled.path().startswith("compiled"):
        assert compiled.loaded_compiled() == list(MODULES)
    else:
        assert compiled.loaded_compiled() == []
    if os.environ.get("SIM_EXPECT_COMPILED") == "1":
        assert compiled.path() == f"compiled: {len(MODULES)} modules"


MODS = ("pkg.a", "pkg.b")


def _stamp(root: pathlib.Path, modules: tuple[str, ...]) -> None:
    """What the build writes once it has compiled `modules` from their sources."""
    (root / STAMP).write_text(json.dumps(sources(modules, root)), encoding="utf-8")


def _tree(tmp_path: pathlib.Path, built: tuple[str, ...] = ("a", "b")) -> pathlib.Path:
    """A package pkg with modules a and b, compiled files (empty: never loaded) for `built`,
    stamped with their sources' digests as a build stamps them."""
    root = tmp_path / "pkg"
    root.mkdir()
    for name in ("__init__", "a", "b"):
        (root / f"{name}.py").write_text(f"WHO = {name!r}\n", encoding="utf-8")
    for name in built:
        (root / f"{name}{SUFFIX}").write_bytes(b"")
    _stamp(root, MODS)
    return root


class TestChoose:
    """Which path a process takes, and what it says."""

    def test_forced_pure(self, tmp_path: pathlib.Path) -> None:
        forced = choose({FORCE_PURE: "1"}, MODS, _tree(tmp_path))
        assert forced == (True, "pure Python: SIM_PURE_PYTHON=1", None)

    def test_zero_is_not_forced(self, tmp_path: pathlib.Path) -> None:
        assert choose({FORCE_PURE: "0"}, MODS, _tree(tmp_path)) == (False, "compiled: 2 modules", None)

    def test_nothing_compiled_is_said_by_the_version_only(self, tmp_path: pathlib.Path) -> None:
        assert choose({}, MODS, _tree(tmp_path, built=())) == (True, "pure Python: not compiled", None)

    def test_a_missing_compiled_module_means_pure_for_all(self, tmp_path: pathlib.Path) -> None:
        pure, name, warning = choose({}, MODS, _tree(tmp_path, built=("a",)))
        assert (pure, name) == (True, "pure Python: 1 of 2 modules not compiled")
        assert warning == ("combat-sim: pkg/b.py not compiled: running pure Python; "
                           "recompile with `pip install -e .`")

    @pytest.mark.parametrize("edited", ["b.py", "b.pxd"])
    def test_a_source_edited_since_compiled_means_pure(self, tmp_path: pathlib.Path, edited: str) -> None:
        """A .py (or its .pxd) that is not what was compiled: a checkout, or an edit."""
        root = _tree(tmp_path)
        (root / edited).write_text("CHANGED = True\n", encoding="utf-8")
        pure, name, warning = choose({}, MODS, root)
        assert (pure, name) == (True, "pure Python: 1 file changed since compiled")
        assert warning == (f"combat-sim: pkg/{edited} changed since compiled: running pure Python; "
                           "recompile with `pip install -e .`")


    def test_a_source_newer_but_unchanged_is_not_stale(self, tmp_path: pathlib.Path) -> None:
        """A wheel's install writes a .py after its compiled module, a checkout touches files it
        leaves as they were: only the content counts."""
        root = _tree(tmp_path)
        os.utime(root / "b.py", (2e9, 2e9))
        assert choose({}, MODS, root) == (False, "compiled: 2 modules", None)

    def test_no_stamp_is_stale(self, tmp_path: pathlib.Path) -> None:
        """Compiled files with no stamp (or an unreadable one) are from no known build."""
        root = _tree(tmp_path)
        (root / STAMP).write_text("[not a stamp", encoding="utf-8")
        pure, name, warning = choose({}, MODS, root)
        assert (pure, name) == (True, "pure Python: 2 files changed since compiled")
        assert warning is not None and warning.startswith("combat-sim: pkg/a.py and 1 more changed")


class TestFinder:
    """The import hook hands a listed module its .py file when the path is pure."""

    def test_source_found_beside_a_compiled_file(self, tmp_path: pathlib.Path) -> None:
        root = _tree(tmp_path)
        finder = PurePathFinder(MODS, root, {FORCE_PURE: "1"})
        spec = finder.find_spec("pkg.a", [str(root)])
        assert spec is not None and spec.origin == str(root / "a.py")
        assert finder.find_spec("pkg.other", [str(root)]) is None  # not listed: not its business

    def test_a_listed_package_is_its_init(self, tmp_path: pathlib.Path) -> None:
        root = _tree(tmp_path)
        (root / f"__init__{SUFFIX}").write_bytes(b"")
        spec = PurePathFinder(("pkg",), root, {FORCE_PURE: "1"}).find_spec("pkg", [str(tmp_path)])
        assert spec is not None and spec.origin == str(root / "__init__.py")
        assert spec.submodule_search_locations == [str(root)]

    def test_compiled_path_leaves_it_to_the_usual_finders(self, tmp_path: pathlib.Path) -> None:
        root = _tree(tmp_path)
        assert PurePathFinder(MODS, root, {}).find_spec("pkg.a", [str(root)]) is None

    def test_the_warning_is_said_once_a_process_tree(self, tmp_path: pathlib.Path,
                                                     capsys: pytest.CaptureFixture[str]) -> None:
        root = _tree(tmp_path, built=("a",))
        environ: dict[str, str] = {}
        PurePathFinder(MODS, root, environ).find_spec("pkg.a", [str(root)])
        assert capsys.readouterr().err.count("pkg/b.py not compiled") == 1
        PurePathFinder(MODS, root, environ).find_spec("pkg.a", [str(root)])  # a child, same env
        assert capsys.readouterr().err == ""


def _copy_of_sim(tmp_path: pathlib.Path) -> pathlib.Path:
    """sim's sources in tmp_path/sim, with an (empty, never loaded) compiled file for each listed
    module, stamped as built from them."""
    shutil.copytree(REPO / "sim", tmp_path / "sim",
                    ignore=shutil.ignore_patterns("__pycache__", STAMP, *(f"*{s}" for s in
                                                                          importlib.machinery.EXTENSION_SUFFIXES)))
    for module in MODULES:
        compiled.source_of(module, tmp_path / "sim").with_suffix(SUFFIX).write_bytes(b"")
    _stamp(tmp_path / "sim", MODULES)
    return tmp_path / "sim"


def test_a_checkout_after_the_build_runs_the_new_source(tmp_path: pathlib.Path) -> None:
    """With turn.py changed since it was compiled, `sim` runs every listed module from its .py,
    says once on stderr which file and how to recompile (not again in a process it starts), and
    `sim --version` names the path."""
    root = _copy_of_sim(tmp_path)
    with (root / "engine" / "turn.py").open("a", encoding="utf-8") as turn:
        turn.write("# edited since the build\n")
    env = {k: v for k, v in os.environ.items() if k not in (FORCE_PURE, "SIM_STALE_TOLD")}
    env["PYTHONPATH"] = str(tmp_path)
    script = ("import subprocess, sys, sim.engine, sim.compiled as c; print(c.loaded_compiled());"
              "subprocess.run([sys.executable, '-m', 'sim', '--version'], check=True)")
    done = subprocess.run([sys.executable, "-c", script], cwd=tmp_path, env=env, capture_output=True,
                          text=True, timeout=120, check=True)
    assert done.stdout.splitlines() == [
        "[]", "combat-sim 0.1.0 (pure Python: 1 file changed since compiled)"]
    assert done.stderr.splitlines() == [
        "combat-sim: sim/engine/turn.py changed since compiled: running pure Python; "
        "recompile with `pip install -e .`"]


def test_forced_pure_in_a_process(tmp_path: pathlib.Path) -> None:
    """SIM_PURE_PYTHON=1 loads every listed module from its .py, compiled or not, silently."""
    env = {**os.environ, FORCE_PURE: "1"}
    script = "import sim.engine, sim.compiled as c; print(c.loaded_compiled(), c.path())"
    done = subprocess.run([sys.executable, "-c", script], cwd=tmp_path, env=env, capture_output=True,
                          text=True, timeout=120, check=True)
    assert (done.stdout, done.stderr) == ("[] pure Python: SIM_PURE_PYTHON=1\n", "")
